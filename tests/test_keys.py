"""Key loading: environment, files, rotation, development key files, production refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardproof.receipts import SigningKey, b64url
from cardproof_service.keys import KeyConfigError, generate, load_keys


def test_keys_from_the_environment_and_from_files(tmp_path: Path) -> None:
    made = generate()
    keys = load_keys(made)
    assert keys.master == bytes.fromhex(made["CARDPROOF_MASTER_KEY"])
    (tmp_path / "master").write_text(made["CARDPROOF_MASTER_KEY"] + "\n")
    (tmp_path / "signing").write_text(made["CARDPROOF_SIGNING_KEY"])
    from_files = load_keys(
        {
            "CARDPROOF_MASTER_KEY_FILE": str(tmp_path / "master"),
            "CARDPROOF_SIGNING_KEY_FILE": str(tmp_path / "signing"),
        }
    )
    assert from_files.master == keys.master
    assert from_files.signing.kid == keys.signing.kid


def test_retired_keys_stay_in_the_jwks() -> None:
    old = SigningKey.generate()
    env = {**generate(), "CARDPROOF_RETIRED_KEYS": b64url(old.public_bytes)}
    jwks = load_keys(env).jwks()
    assert [k.kid for k in jwks.keys][1:] == [old.kid]


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
