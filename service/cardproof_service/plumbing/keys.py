"""Secrets: the master key (server seeds, commitment tags), the receipt and log signing keys.

Each comes from an environment variable or a file named by its ``_FILE`` twin:

* ``CARDPROOF_MASTER_KEY``: hex, at least 32 bytes.
* ``CARDPROOF_SIGNING_KEY``: the Ed25519 private seed, 32 bytes as base64url.
* ``CARDPROOF_LOG_KEY``: the transparency log's Ed25519 seed (32 bytes, base64url), apart
  from the receipts' key: it signs the log's checkpoints.
* ``CARDPROOF_SIGNING_KEY_SINCE`` (optional): when the signing key began signing
  (RFC 3339 or seconds since the epoch); the JWKS gives it as the key's ``nbf``.
* ``CARDPROOF_RETIRED_KEYS``: keys rotated out, comma-separated, each
  ``PUBLIC_KEY@SINCE/UNTIL`` (the base64url public key, then the period it signed in;
  ``SINCE`` may be empty, ``UNTIL`` is required). They stay in the JWKS with ``nbf`` and
  ``exp``, so old receipts still verify and one dated after the retirement does not.

The receipts' issuer (``iss``) is ``CARDPROOF_ISSUER``, else ``CARDPROOF_PUBLIC_URL``
(the service's public base URL), else, in development, ``http://127.0.0.1:8000``.

In development, missing keys are generated once into a local key file (with a
warning); with ``CARDPROOF_ENV=production`` the service refuses to start without them,
or without an issuer.

Nor does it start with keys whose receipts its own key set would refuse
(:func:`consistent`): a ``CARDPROOF_SIGNING_KEY_SINCE`` in the future, the signing key
also listed as retired, or one key retired twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from cardproof.receipts import JWK, JWKS, SigningKey, b64url, b64url_decode, public_jwk
from cardproof_service.plumbing.settings import SettingsError, public_url

log = logging.getLogger("cardproof.service")

MASTER_KEY_BYTES = 32
DEVELOPMENT_ISSUER = "http://127.0.0.1:8000"
"""The issuer when none is configured, outside production: what ``make run`` serves."""


class KeyConfigError(Exception):
    """Keys are missing or unreadable; the service cannot start."""


@dataclass(frozen=True)
class Keys:
    """The secrets a replica needs; every replica of a deployment has the same."""

    master: bytes
    signing: SigningKey
    retired: tuple[JWK, ...] = ()
    issuer: str = DEVELOPMENT_ISSUER
    """The receipts' ``iss``: the public base URL whose JWKS holds these keys."""
    log: bytes = b""
    """The transparency log's Ed25519 seed (:attr:`log_seed` when not given)."""

    @property
    def log_seed(self) -> bytes:
        """The log key's seed: ``log``, else one derived from the master key.

        Only keys made in code (as tests make them) have none: :func:`load_keys` always
        gives one.
        """
        if self.log:
            return self.log
        return hmac.new(self.master, b"cardproof transparency log key", hashlib.sha256).digest()

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


def _seed(name: str, text: str) -> bytes:
    """An Ed25519 seed setting: 32 bytes as base64url."""
    try:
        seed = b64url_decode(text)
    except ValueError:
        raise KeyConfigError(f"{name} must be base64url") from None
    if len(seed) != 32:
        raise KeyConfigError(f"{name} must be a 32-byte Ed25519 seed")
    return seed


def _signing(text: str, since: int | None = None) -> SigningKey:
    return SigningKey.from_seed(_seed("CARDPROOF_SIGNING_KEY", text), since=since)


def moment(name: str, text: str) -> int:
    """A time setting, RFC 3339 (with its offset) or seconds since the epoch.

    >>> moment("X", "2026-11-26T12:00:00Z"), moment("X", "1790000000")
    (1795694400, 1790000000)
    """
    text = text.strip()
    if text.isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise KeyConfigError(
            f"{name}: {text!r} is not a time (RFC 3339 such as 2026-11-26T12:00:00Z, or "
            "seconds since the epoch)"
        ) from None
    if when.tzinfo is None:
        raise KeyConfigError(f"{name}: {text!r} needs its offset (Z for UTC)")
    return int(when.timestamp())


RETIRED_FORM = "PUBLIC_KEY@SINCE/UNTIL (SINCE may be empty; times RFC 3339 or epoch seconds)"


def _retired(text: str | None) -> tuple[JWK, ...]:
    """``CARDPROOF_RETIRED_KEYS``: each key with the period it signed in."""
    name = "CARDPROOF_RETIRED_KEYS"
    keys = []
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key_text, at, period = item.strip().partition("@")
        since, slash, until = period.partition("/")
        if not at or not slash or not until.strip():
            raise KeyConfigError(
                f"{name}: each retired key needs the period it signed in: {RETIRED_FORM}; "
                f"{key_text[:8]}... has none"
            )
        try:
            public = b64url_decode(key_text.strip())
        except ValueError:
            raise KeyConfigError(f"{name}: the public keys must be base64url") from None
        if len(public) != 32:
            raise KeyConfigError(f"{name}: a retired Ed25519 public key is 32 bytes")
        nbf = moment(name, since) if since.strip() else None
        exp = moment(name, until)
        if nbf is not None and nbf >= exp:
            raise KeyConfigError(f"{name}: {key_text[:8]}...'s period ends before it starts")
        keys.append(public_jwk(public, nbf=nbf, exp=exp))
    return tuple(keys)


def _issuer(env: Mapping[str, str]) -> str | None:
    """``CARDPROOF_ISSUER``, else ``CARDPROOF_PUBLIC_URL`` read as the settings read it."""
    issuer = (env.get("CARDPROOF_ISSUER") or "").strip()
    if issuer:
        return issuer
    try:
        return public_url((env.get("CARDPROOF_PUBLIC_URL") or "").strip())
    except SettingsError as error:
        raise KeyConfigError(str(error)) from None


def generate() -> dict[str, str]:
    """Fresh keys as environment values (what ``cardproof keys generate`` prints)."""
    return {
        "CARDPROOF_MASTER_KEY": secrets.token_hex(MASTER_KEY_BYTES),
        "CARDPROOF_SIGNING_KEY": b64url(secrets.token_bytes(32)),
        "CARDPROOF_LOG_KEY": b64url(secrets.token_bytes(32)),
    }


def load_keys(env: Mapping[str, str] | None = None, *, key_file: Path | None = None) -> Keys:
    """The keys from ``env`` (default ``os.environ``); see the module docstring."""
    env = os.environ if env is None else env
    master = _read(env, "CARDPROOF_MASTER_KEY")
    signing = _read(env, "CARDPROOF_SIGNING_KEY")
    log_key = _read(env, "CARDPROOF_LOG_KEY")
    retired = _retired(_read(env, "CARDPROOF_RETIRED_KEYS"))
    since_text = env.get("CARDPROOF_SIGNING_KEY_SINCE")
    since = moment("CARDPROOF_SIGNING_KEY_SINCE", since_text) if since_text else None
    issuer = _issuer(env)
    if env.get("CARDPROOF_ENV", "development") == "production":
        missing = [
            n for n, v in (("MASTER", master), ("SIGNING", signing), ("LOG", log_key)) if not v
        ]
        if missing:
            raise KeyConfigError(
                "production needs "
                + " and ".join(f"CARDPROOF_{m}_KEY" for m in missing)
                + " (or their _FILE forms); `cardproof keys generate` makes them"
            )
    if master and signing and log_key:
        keys = Keys(
            _master(master),
            _signing(signing, since),
            retired,
            log=_seed("CARDPROOF_LOG_KEY", log_key),
        )
        if issuer is None and env.get("CARDPROOF_ENV", "development") == "production":
            raise KeyConfigError(
                "production needs CARDPROOF_PUBLIC_URL (the service's public base URL) or "
                "CARDPROOF_ISSUER: receipts name their issuer"
            )
        return consistent(replace(keys, issuer=issuer or DEVELOPMENT_ISSUER))
    path = key_file or Path(env.get("CARDPROOF_KEY_FILE", ".cardproof/dev-keys.json"))
    stored = _development_keys(path)
    return consistent(
        Keys(
            _master(master or stored["CARDPROOF_MASTER_KEY"]),
            _signing(signing or stored["CARDPROOF_SIGNING_KEY"], since),
            retired,
            issuer or DEVELOPMENT_ISSUER,
            _seed("CARDPROOF_LOG_KEY", log_key or stored["CARDPROOF_LOG_KEY"]),
        )
    )


def consistent(keys: Keys, now: float | None = None) -> Keys:
    """``keys`` if every receipt they sign verifies against their JWKS; else KeyConfigError.

    A receipt is dated when it is signed, and a verifier takes the first key of the set
    with the receipt's ``kid`` and holds the date to its period (``key-not-valid``
    outside it). So the signing key may not begin signing after ``now``
    (``CARDPROOF_SIGNING_KEY_SINCE``: every receipt until then would be refused), may not
    be listed as retired too (the set would hold it twice, the current entry first: the
    retirement ignored), and a retired key is listed once (with overlapping periods, or
    not: only its first entry would count).
    """
    current = keys.signing
    now = time.time() if now is None else now
    if current.since is not None and current.since > now:
        raise KeyConfigError(
            f"CARDPROOF_SIGNING_KEY_SINCE is {_when(current.since)}, in the future (now is "
            f"{_when(now)}): every receipt signed before then would fail verification "
            "(key-not-valid); give the time the key began signing"
        )
    seen: dict[str | None, JWK] = {}
    for key in keys.retired:
        if key.kid == current.kid:
            raise KeyConfigError(
                f"CARDPROOF_RETIRED_KEYS lists the signing key itself ({(key.x or '')[:8]}...): "
                "a key set holds a key once, so its retirement would be ignored; list a key "
                "there once another key signs"
            )
        first = seen.setdefault(key.kid, key)
        if first is not key:
            overlap = _starts(first) < (key.exp or 0) and _starts(key) < (first.exp or 0)
            raise KeyConfigError(
                f"CARDPROOF_RETIRED_KEYS lists {(key.x or '')[:8]}... twice, "
                + ("with overlapping periods" if overlap else "for two periods")
                + f" ({_period(first)} and {_period(key)}): a verifier reads a key's first "
                "entry only; give each key one period"
            )
    return keys


def _starts(key: JWK) -> float:
    """When a retired key began signing (``-inf`` if its ``SINCE`` was left empty)."""
    return float("-inf") if key.nbf is None else key.nbf


def _when(seconds: float) -> str:
    """``seconds`` since the epoch in RFC 3339, UTC, to the second."""
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _period(key: JWK) -> str:
    """A retired key's period as ``CARDPROOF_RETIRED_KEYS`` writes it: ``SINCE/UNTIL``."""
    since = "" if key.nbf is None else _when(key.nbf)
    return f"{since}/{_when(key.exp or 0)}"


def _development_keys(path: Path) -> dict[str, str]:
    """Keys from the local development key file, made once if it does not exist.

    Workers starting at once share it: each takes the file's lock to read it, the first
    makes it, and a file made before the log had a key gets one added, once.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise KeyConfigError(f"cannot open the development key file {path}: {error}") from None
    with os.fdopen(descriptor, "r+") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        text = file.read()
        try:
            stored: dict[str, str] = json.loads(text) if text.strip() else {}
        except ValueError as error:
            raise KeyConfigError(f"cannot read the development key file {path}: {error}") from None
        made = generate()
        added = {name: value for name, value in made.items() if name not in stored}
        if not added:
            return stored
        stored.update(added)
        file.seek(0)
        file.truncate()
        json.dump(stored, file)
        file.flush()
        os.fsync(file.fileno())
    log.warning(
        "no %s: generated development keys into %s (never use them in production; set "
        "CARDPROOF_ENV=production to require real keys)",
        " / ".join(added),
        path,
    )
    return stored
