"""Secrets: the master key (server seeds, commitment tags) and the receipt signing keys.

Each comes from an environment variable or a file named by its ``_FILE`` twin:

* ``CARDPROOF_MASTER_KEY``: hex, at least 32 bytes.
* ``CARDPROOF_SIGNING_KEY``: the Ed25519 private seed, 32 bytes as base64url.
* ``CARDPROOF_RETIRED_KEYS``: public keys (base64url, comma-separated) of keys rotated
  out; they stay in the JWKS so that old receipts still verify.

In development, missing keys are generated once into a local key file (with a
warning); with ``CARDPROOF_ENV=production`` the service refuses to start without them.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cardproof.receipts import JWK, JWKS, SigningKey, b64url, b64url_decode, public_jwk

log = logging.getLogger("cardproof.service")

MASTER_KEY_BYTES = 32


class KeyConfigError(Exception):
    """Keys are missing or unreadable; the service cannot start."""


@dataclass(frozen=True)
class Keys:
    """The secrets a replica needs; every replica of a deployment has the same."""

    master: bytes
    signing: SigningKey
    retired: tuple[JWK, ...] = ()

    def jwks(self) -> JWKS:
        """The public key set: the signing key first, then retired keys."""
        return JWKS(keys=[self.signing.jwk(), *self.retired])


def _read(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    path = env.get(f"{name}_FILE")
    if value and path:
        raise KeyConfigError(f"set {name} or {name}_FILE, not both")
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as error:
            raise KeyConfigError(f"{name}_FILE: cannot read {path}: {error.strerror}") from None
    return value.strip() if value else None


def _master(text: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise KeyConfigError("CARDPROOF_MASTER_KEY must be hex") from None
    if len(key) < MASTER_KEY_BYTES:
        raise KeyConfigError(f"CARDPROOF_MASTER_KEY must be at least {MASTER_KEY_BYTES} bytes")
    return key


def _signing(text: str) -> SigningKey:
    try:
        seed = b64url_decode(text)
    except ValueError:
        raise KeyConfigError("CARDPROOF_SIGNING_KEY must be base64url") from None
    if len(seed) != 32:
        raise KeyConfigError("CARDPROOF_SIGNING_KEY must be a 32-byte Ed25519 seed")
    return SigningKey.from_seed(seed)


def _retired(text: str | None) -> tuple[JWK, ...]:
    keys = []
    for item in (text or "").split(","):
        if item.strip():
            try:
                public = b64url_decode(item.strip())
            except ValueError:
                raise KeyConfigError(
                    "CARDPROOF_RETIRED_KEYS must be base64url public keys"
                ) from None
            if len(public) != 32:
                raise KeyConfigError("a retired Ed25519 public key is 32 bytes")
            keys.append(public_jwk(public))
    return tuple(keys)


def generate() -> dict[str, str]:
    """Fresh keys as environment values (what ``cardproof keys generate`` prints)."""
    seed = secrets.token_bytes(32)
    return {
        "CARDPROOF_MASTER_KEY": secrets.token_hex(MASTER_KEY_BYTES),
        "CARDPROOF_SIGNING_KEY": b64url(seed),
    }


def load_keys(env: Mapping[str, str] | None = None, *, key_file: Path | None = None) -> Keys:
    """The keys from ``env`` (default ``os.environ``); see the module docstring."""
    env = os.environ if env is None else env
    master = _read(env, "CARDPROOF_MASTER_KEY")
    signing = _read(env, "CARDPROOF_SIGNING_KEY")
    retired = _retired(_read(env, "CARDPROOF_RETIRED_KEYS"))
    if master and signing:
        return Keys(_master(master), _signing(signing), retired)
    if env.get("CARDPROOF_ENV", "development") == "production":
        missing = [n for n, v in (("MASTER", master), ("SIGNING", signing)) if not v]
        raise KeyConfigError(
            "production needs "
            + " and ".join(f"CARDPROOF_{m}_KEY" for m in missing)
            + " (or their _FILE forms); `cardproof keys generate` makes them"
        )
    path = key_file or Path(env.get("CARDPROOF_KEY_FILE", ".cardproof/dev-keys.json"))
    stored = _development_keys(path)
    return Keys(
        _master(master or stored["CARDPROOF_MASTER_KEY"]),
        _signing(signing or stored["CARDPROOF_SIGNING_KEY"]),
        retired,
    )


def _development_keys(path: Path) -> dict[str, str]:
    """Keys from the local development key file, made once if it does not exist."""
    try:
        stored: dict[str, str] = json.loads(path.read_text())
        return stored
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as error:
        raise KeyConfigError(f"cannot read the development key file {path}: {error}") from None
    keys = generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker made it first: use its keys
        for _ in range(50):
            text = path.read_text()
            if text:
                made: dict[str, str] = json.loads(text)
                return made
            time.sleep(0.05)
        raise KeyConfigError(f"the development key file {path} stays empty") from None
    with os.fdopen(descriptor, "w") as file:
        json.dump(keys, file)
    log.warning(
        "no CARDPROOF_MASTER_KEY / CARDPROOF_SIGNING_KEY: generated development keys into %s "
        "(never use them in production; set CARDPROOF_ENV=production to require real keys)",
        path,
    )
    return keys
