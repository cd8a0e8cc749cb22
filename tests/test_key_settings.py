"""Key settings whose receipts the service's own key set would refuse: it does not start.

Each once started silently: a ``CARDPROOF_SIGNING_KEY_SINCE`` an hour ahead made every
receipt fail ``cardproof verify`` (``key-not-valid``); the signing key listed in
``CARDPROOF_RETIRED_KEYS`` put it twice in the JWKS, the current copy first, and the
retirement was ignored; a retired key listed twice counts by its first entry only. Each
is refused where the keys are read (``load_keys``, so by the app factory too), and by
``cardproof serve`` as one line on stderr and exit status 2. The happy path still serves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from cardproof.receipts import SigningKey, b64url, b64url_decode
from cardproof_service import Settings, create_app
from cardproof_service.plumbing.keys import KeyConfigError, consistent, load_keys
from conftest import SERVER_KEYS, free_port, served

SIGNING = SigningKey.from_seed(b64url_decode(SERVER_KEYS["CARDPROOF_SIGNING_KEY"]))
CURRENT = b64url(SIGNING.public_bytes)
OLD = b64url(SigningKey.generate().public_bytes)
OLDER = b64url(SigningKey.generate().public_bytes)


def when(offset: float) -> str:
    """RFC 3339, ``offset`` seconds from now."""
    return datetime.fromtimestamp(int(time.time() + offset), UTC).isoformat()


class Ahead(str):
    """A time ``offset`` seconds ahead of when the test reads it, not of when it was
    collected (a full run reaches a test many minutes after collecting it)."""

    offset: float
    epoch: bool

    def __new__(cls, offset: float, *, epoch: bool = False) -> Ahead:
        made = super().__new__(cls, f"now+{offset:g}s")
        made.offset, made.epoch = offset, epoch
        return made

    def value(self) -> str:
        return str(int(time.time() + self.offset)) if self.epoch else when(self.offset)


def resolved(env: dict[str, str]) -> dict[str, str]:
    """``env`` with each :class:`Ahead` read now."""
    return {k: v.value() if isinstance(v, Ahead) else v for k, v in env.items()}


REFUSED = [
    pytest.param(
        {"CARDPROOF_SIGNING_KEY_SINCE": Ahead(3600)}, "in the future", id="since-an-hour-ahead"
    ),
    pytest.param(
        {"CARDPROOF_SIGNING_KEY_SINCE": Ahead(120, epoch=True)},
        "in the future",
        id="since-in-epoch-seconds",
    ),
    pytest.param(
        {"CARDPROOF_RETIRED_KEYS": f"{OLD}@/2026-01-01T00:00:00Z,{CURRENT}@/{when(-60)}"},
        "signing key itself",
        id="signing-key-retired",
    ),
    pytest.param(
        {
            "CARDPROOF_RETIRED_KEYS": f"{OLD}@2025-01-01T00:00:00Z/2025-07-01T00:00:00Z,"
            f"{OLD}@2025-06-01T00:00:00Z/2026-01-01T00:00:00Z"
        },
        "twice, with overlapping periods",
        id="retired-twice-overlapping",
    ),
    pytest.param(
        {
            "CARDPROOF_RETIRED_KEYS": f"{OLD}@2025-06-01T00:00:00Z/2026-01-01T00:00:00Z,"
            f"{OLDER}@/2025-01-01T00:00:00Z,{OLD}@/2025-06-02T00:00:00Z"
        },
        "twice, with overlapping periods",  # an empty SINCE reaches back to the start
        id="retired-twice-open-start",
    ),
    pytest.param(
        {
            "CARDPROOF_RETIRED_KEYS": f"{OLD}@2025-01-01T00:00:00Z/2025-06-01T00:00:00Z,"
            f"{OLD}@2025-06-01T00:00:00Z/2026-01-01T00:00:00Z"
        },
        "twice, for two periods",  # apart, but a verifier reads the first entry only
        id="retired-twice-apart",
    ),
]


@pytest.mark.parametrize(("env", "reason"), REFUSED)
def test_load_keys_refuses_keys_whose_receipts_would_not_verify(
    env: dict[str, str], reason: str
) -> None:
    with pytest.raises(KeyConfigError, match=reason):
        load_keys({**SERVER_KEYS, **resolved(env)})


@pytest.mark.parametrize(("env", "reason"), REFUSED)
def test_development_keys_are_held_to_the_same_rules(
    tmp_path: Path, env: dict[str, str], reason: str
) -> None:
    key_file = tmp_path / "dev-keys.json"
    key_file.write_text(json.dumps(SERVER_KEYS))  # as if generated: the same signing key
    assert load_keys({}, key_file=key_file).signing.kid == SIGNING.kid
    with pytest.raises(KeyConfigError, match=reason):
        load_keys(resolved(env), key_file=key_file)


def test_the_signing_key_may_begin_signing_up_to_now() -> None:
    keys = load_keys(SERVER_KEYS)
    now = 1_790_000_000
    for since in (None, now - 86_400, now):
        dated = replace(keys, signing=SigningKey.from_seed(bytes(32), since=since))
        assert consistent(dated, now=now) is dated
    later = replace(keys, signing=SigningKey.from_seed(bytes(32), since=now + 1))
    with pytest.raises(KeyConfigError, match="in the future"):
        consistent(later, now=now)


def test_keys_rotated_the_way_the_readme_says_still_load() -> None:
    env = {
        **SERVER_KEYS,
        "CARDPROOF_SIGNING_KEY_SINCE": when(-60),
        "CARDPROOF_RETIRED_KEYS": (
            f"{OLD}@2025-06-01T00:00:00Z/{when(-60)},"  # retired as the new key began
            f"{OLDER}@/2025-06-01T00:00:00Z"
        ),
    }
    jwks = load_keys(env).jwks()
    assert [key.x for key in jwks.keys] == [CURRENT, OLD, OLDER]
    # two keys' periods may overlap: replicas pick up a new key one after another
    overlapping = {**env, "CARDPROOF_RETIRED_KEYS": f"{OLD}@/{when(-60)},{OLDER}@/{when(-30)}"}
    assert len(load_keys(overlapping).jwks().keys) == 3


@pytest.mark.parametrize(("env", "reason"), REFUSED)
def test_the_app_factory_refuses_them_too(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], reason: str
) -> None:
    for name in ("CARDPROOF_SIGNING_KEY_SINCE", "CARDPROOF_RETIRED_KEYS", "CARDPROOF_ENV"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"{name}_FILE", raising=False)
    for name, value in {**SERVER_KEYS, **resolved(env)}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(KeyConfigError, match=reason):
        create_app(Settings(warm_up=False))


def _serve(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "cardproof"), "serve", "--port", str(free_port())]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CARDPROOF_")}
    environ |= {"CARDPROOF_WARM_UP": "0", "REDIS_URL": "", **SERVER_KEYS, **env}
    return subprocess.run(command, capture_output=True, text=True, timeout=30, env=environ)


@pytest.mark.parametrize(("env", "reason"), REFUSED)
def test_cardproof_serve_refuses_to_start_in_one_line(env: dict[str, str], reason: str) -> None:
    result = _serve(resolved(env))
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()  # one line: no traceback, no log
    assert line.startswith("cardproof serve: CARDPROOF_"), line
    assert reason in line
    assert result.stdout == ""


def test_cardproof_serve_still_starts_with_rotated_keys() -> None:
    env = {
        "CARDPROOF_SIGNING_KEY_SINCE": when(-60),
        "CARDPROOF_RETIRED_KEYS": f"{OLD}@/{when(-60)}",
    }
    with served("--log-level", "warning", env={"REDIS_URL": "", **env}) as base:
        assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
        keys = httpx.get(f"{base}/.well-known/jwks.json").json()["keys"]
        assert [key["x"] for key in keys] == [CURRENT, OLD]
