"""Key loading: environment, files, rotation, development key files, production refusal."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cardproof.receipts import SigningKey, b64url, b64url_decode
from cardproof_service.plumbing.keys import KeyConfigError, generate, load_keys


def test_keys_from_the_environment_and_from_files(tmp_path: Path) -> None:
    made = generate()
    keys = load_keys(made)
    assert keys.master == bytes.fromhex(made["CARDPROOF_MASTER_KEY"])
    (tmp_path / "master").write_text(made["CARDPROOF_MASTER_KEY"] + "\n")
    (tmp_path / "signing").write_text(made["CARDPROOF_SIGNING_KEY"])
    (tmp_path / "log").write_text(made["CARDPROOF_LOG_KEY"])
    from_files = load_keys(
        {
            "CARDPROOF_MASTER_KEY_FILE": str(tmp_path / "master"),
            "CARDPROOF_SIGNING_KEY_FILE": str(tmp_path / "signing"),
            "CARDPROOF_LOG_KEY_FILE": str(tmp_path / "log"),
        },
        key_file=tmp_path / "never.json",
    )
    assert from_files.master == keys.master
    assert from_files.signing.kid == keys.signing.kid
    assert from_files.log_seed == keys.log_seed == b64url_decode(made["CARDPROOF_LOG_KEY"])
    assert not (tmp_path / "never.json").exists()  # every key given: no development file


def test_production_needs_the_log_key(tmp_path: Path) -> None:
    made = {**generate(), "CARDPROOF_PUBLIC_URL": "https://cards.example"}
    del made["CARDPROOF_LOG_KEY"]
    with pytest.raises(KeyConfigError, match="production needs CARDPROOF_LOG_KEY"):
        load_keys({**made, "CARDPROOF_ENV": "production"}, key_file=tmp_path / "k.json")
    with pytest.raises(KeyConfigError, match="CARDPROOF_LOG_KEY must be a 32-byte"):
        load_keys({**made, "CARDPROOF_LOG_KEY": "AAAA"}, key_file=tmp_path / "k.json")


def test_a_development_key_file_made_before_the_log_gets_a_log_key_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keys.json"
    old = generate()
    del old["CARDPROOF_LOG_KEY"]
    path.write_text(json.dumps(old))
    with ThreadPoolExecutor(8) as pool:  # workers starting at once: one key among them
        loaded = list(pool.map(lambda _: load_keys({}, key_file=path), range(8)))
    assert len({keys.log_seed for keys in loaded}) == 1
    assert {keys.master for keys in loaded} == {bytes.fromhex(old["CARDPROOF_MASTER_KEY"])}
    kept = json.loads(path.read_text())
    assert b64url_decode(kept["CARDPROOF_LOG_KEY"]) == loaded[0].log_seed
    assert kept["CARDPROOF_SIGNING_KEY"] == old["CARDPROOF_SIGNING_KEY"]


def test_retired_keys_stay_in_the_jwks_with_their_period() -> None:
    old, older = SigningKey.generate(), SigningKey.generate()
    env = {
        **generate(),
        "CARDPROOF_SIGNING_KEY_SINCE": "2026-11-26T00:00:00Z",
        "CARDPROOF_RETIRED_KEYS": (
            f"{b64url(old.public_bytes)}@2026-01-01T00:00:00+01:00/2026-11-26T00:00:00Z, "
            f"{b64url(older.public_bytes)}@/1767225600"
        ),
    }
    jwks = load_keys(env).jwks()
    assert [k.kid for k in jwks.keys][1:] == [old.kid, older.kid]
    current, retired, oldest = jwks.keys
    assert (current.nbf, current.exp) == (1795651200, None)
    assert (retired.nbf, retired.exp) == (1767222000, 1795651200)
    assert (oldest.nbf, oldest.exp) == (None, 1767225600)


@pytest.mark.parametrize(
    ("retired", "message"),
    [
        ("{key}", "needs the period it signed in"),  # the old form: no limit at all
        ("{key}@2026-01-01T00:00:00Z", "needs the period"),
        ("{key}@2026-01-01T00:00:00Z/", "needs the period"),
        ("{key}@/2026-01-01", "needs its offset"),
        ("{key}@/tomorrow", "is not a time"),
        ("{key}@2026-02-01T00:00:00Z/2026-01-01T00:00:00Z", "ends before it starts"),
        ("AAAA@/1767225600", "32 bytes"),
    ],
)
def test_a_retired_key_without_a_clear_period_is_refused(retired: str, message: str) -> None:
    key = b64url(SigningKey.generate().public_bytes)
    env = {**generate(), "CARDPROOF_RETIRED_KEYS": retired.format(key=key)}
    with pytest.raises(KeyConfigError, match=message):
        load_keys(env)


def test_the_issuer_is_configured_or_refused_in_production(tmp_path: Path) -> None:
    made = generate()
    assert load_keys(made).issuer == "http://127.0.0.1:8000"
    public = {**made, "CARDPROOF_PUBLIC_URL": "https://cards.example/"}
    assert load_keys(public).issuer == "https://cards.example"
    assert load_keys({**public, "CARDPROOF_ISSUER": "urn:cards"}).issuer == "urn:cards"
    with pytest.raises(KeyConfigError, match="CARDPROOF_PUBLIC_URL"):
        load_keys({**made, "CARDPROOF_ENV": "production"})
    with pytest.raises(KeyConfigError, match="http"):  # checked as the settings check it
        load_keys({**made, "CARDPROOF_PUBLIC_URL": "cards.example"})
    production = load_keys({**public, "CARDPROOF_ENV": "production"})
    assert production.issuer == "https://cards.example"


def test_production_refuses_to_start_without_keys(tmp_path: Path) -> None:
    with pytest.raises(KeyConfigError, match="CARDPROOF_MASTER_KEY"):
        load_keys({"CARDPROOF_ENV": "production"}, key_file=tmp_path / "k.json")
    assert not (tmp_path / "k.json").exists()


def test_development_keys_are_made_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "dev" / "keys.json"
    first = load_keys({}, key_file=path)
    assert "generated development keys" in caplog.text
    assert path.stat().st_mode & 0o777 == 0o600
    second = load_keys({}, key_file=path)
    assert (second.master, second.signing.kid) == (first.master, first.signing.kid)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CARDPROOF_MASTER_KEY": "zz", "CARDPROOF_SIGNING_KEY": "x"}, "hex"),
        ({"CARDPROOF_MASTER_KEY": "00" * 8, "CARDPROOF_SIGNING_KEY": "x"}, "32 bytes"),
        ({"CARDPROOF_MASTER_KEY": "00" * 32, "CARDPROOF_SIGNING_KEY": "AAAA"}, "32-byte"),
        ({"CARDPROOF_MASTER_KEY": "00" * 32, "CARDPROOF_MASTER_KEY_FILE": "/x"}, "not both"),
    ],
)
def test_bad_keys_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(KeyConfigError, match=message):
        load_keys(env)
