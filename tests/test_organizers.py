"""Organizer API keys: made by the CLI, stored as hashes only, checked in constant time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof_service.store import MemoryStore
from cardproof_service.store import keys as layout
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import authenticate, key_hash, new_organizer
from redis_server import redis_url_or_skip


def cardproof(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the ``cardproof`` command with ``env`` added to a clean environment."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("CARDPROOF_")}
    base.pop("REDIS_URL", None)
    command = [str(Path(sys.executable).parent / "cardproof"), *args]
    return subprocess.run(
        command, capture_output=True, text=True, env={**base, **env}, timeout=60, check=False
    )


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """``REDIS_URL`` or a private server (skip, or fail under REQUIRE_REDIS, without one)."""
    with redis_url_or_skip() as url:
        yield url


# --- keys and authentication --------------------------------------------------------------


def test_a_new_key_is_shown_once_and_stored_as_its_hash() -> None:
    key, record = new_organizer("Chess & Cards Club")
    assert key.startswith(f"cpo_{record.organizer_id}_")
    assert record.key_hash == key_hash(key)
    assert key not in repr(record)
    other_key, other = new_organizer("Chess & Cards Club")
    assert (other_key, other.organizer_id) != (key, record.organizer_id)


@pytest.mark.parametrize("name", ["", "x" * 65, "tab\there", None])
def test_a_bad_name_is_refused(name: str | None) -> None:
    with pytest.raises(ValueError, match="1 to 64 printable"):
        new_organizer(name)  # type: ignore[arg-type]


async def test_the_right_key_names_its_organizer() -> None:
    store = MemoryStore()
    key, record = new_organizer("Club")
    assert await store.add_organizer(record)
    assert await authenticate(store, f"Bearer {key}") == record
    assert await authenticate(store, f"bearer  {key} ") == record  # scheme is case-blind


async def test_a_wrong_or_missing_key_is_a_401_that_says_why() -> None:
    store = MemoryStore()
    key, record = new_organizer("Club")
    await store.add_organizer(record)
    other_key, _ = new_organizer("Not stored")
    forged = key[:-1] + ("A" if key[-1] != "A" else "B")  # the right id, a wrong secret
    cases = {
        None: "needs an organizer key",
        "": "needs an organizer key",
        key: "is not 'Bearer cpo_...'",  # no scheme
        f"Basic {key}": "is not 'Bearer cpo_...'",
        "Bearer cpo_short": "is not 'Bearer cpo_...'",
        f"Bearer {other_key}": "is not known",
        f"Bearer {forged}": "is not known",
    }
    for header, words in cases.items():
        with pytest.raises(ProblemDetailsException) as refused:
            await authenticate(store, header)
        assert refused.value.status_code == 401, header
        assert words in refused.value.detail, header
        assert refused.value.headers is not None
        assert refused.value.headers["WWW-Authenticate"].startswith("Bearer")


# --- the command --------------------------------------------------------------------------


def test_the_cli_makes_a_key_into_the_organizers_file(tmp_path: Path) -> None:
    path = tmp_path / "organizers.json"
    env = {"CARDPROOF_ORGANIZERS_FILE": str(path)}
    made = cardproof("keys", "organizer", "create", "Spring Open", env=env)
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("cpo_")
    assert "shown this once" in made.stderr
    stored = json.loads(path.read_text())
    assert [(o["name"], o["key_hash"]) for o in stored] == [("Spring Open", key_hash(key))]
    assert key not in path.read_text()
    again = cardproof("keys", "organizer", "create", "Spring Open", env=env)
    assert (again.returncode, again.stdout) == (1, "")
    assert "exists already" in again.stderr
    bad = cardproof("keys", "organizer", "create", "", env=env)
    assert bad.returncode == 2
    assert "1 to 64 printable" in bad.stderr


async def test_a_server_on_the_memory_store_sees_a_key_made_after_it_started(
    tmp_path: Path,
) -> None:
    path = tmp_path / "organizers.json"
    store = MemoryStore(organizers_file=path)  # what a running server holds
    made = cardproof(
        "keys", "organizer", "create", "Late Club", env={"CARDPROOF_ORGANIZERS_FILE": str(path)}
    )
    assert made.returncode == 0, made.stderr
    found = await authenticate(store, f"Bearer {made.stdout.strip()}")
    assert found.name == "Late Club"


async def test_the_cli_makes_a_key_into_redis(redis_url: str, tmp_path: Path) -> None:
    name = f"Redis Club {os.getpid()} {tmp_path.name}"
    made = cardproof("keys", "organizer", "create", name, env={"REDIS_URL": redis_url})
    assert made.returncode == 0, made.stderr
    assert "Redis" in made.stderr
    key = made.stdout.strip()
    store = RedisStore.from_url(redis_url)
    try:
        found = await authenticate(store, f"Bearer {key}")
    finally:
        await store.close()
    assert found.name == name
    with redis.Redis.from_url(redis_url) as client:
        stored = client.get(layout.organizer(found.organizer_id))
    assert stored is not None
    assert key.encode() not in stored


def test_the_cli_says_when_redis_cannot_be_reached() -> None:
    made = cardproof(
        "keys",
        "organizer",
        "create",
        "Nobody",
        env={"REDIS_URL": "redis://127.0.0.1:9/0", "CARDPROOF_STORE_TIMEOUT": "0.5"},
    )
    assert made.returncode == 2
    assert "cannot reach the store" in made.stderr
