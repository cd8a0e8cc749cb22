"""Organizer API keys: made once, stored only as a hash, checked in constant time.

A key reads ``cpo_<organizer id>_<secret>``: the id finds the organizer's record in
the store, and the SHA-256 of the whole key is compared with the stored hash by
:func:`hmac.compare_digest`. The key itself is shown once, when it is made, and kept
nowhere. Requests carry it as ``Authorization: Bearer <key>``; a missing, malformed or
unknown key is a 401 with ``WWW-Authenticate: Bearer``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from typing import Any, Final

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof_service.plumbing import DAY, Settings, now, unauthorized
from cardproof_service.store import OrganizerQuota, OrganizerRecord, Store

KEY_PREFIX: Final = "cpo_"
_KEY: Final = re.compile(r"cpo_([0-9a-f]{16})_([A-Za-z0-9_-]{43})")
ORGANIZER_NAME_PATTERN: Final = re.compile(r"[^\x00-\x1f\x7f]{1,64}")
"""An organizer's name: 1 to 64 printable characters."""


def key_hash(key: str) -> str:
    """The stored form of a key: hex SHA-256 (the key has 256 random bits: no salt needed).

    >>> key_hash("cpo_0123456789abcdef_" + "A" * 43)[:12]
    '6ceed2e7c170'
    """
    return hashlib.sha256(key.encode()).hexdigest()


def new_organizer(name: str) -> tuple[str, OrganizerRecord]:
    """A fresh key for ``name`` and the record to store (which holds only its hash)."""
    if not isinstance(name, str) or not ORGANIZER_NAME_PATTERN.fullmatch(name):
        raise ValueError("an organizer's name is 1 to 64 printable characters")
    organizer_id = secrets.token_hex(8)
    key = f"{KEY_PREFIX}{organizer_id}_{secrets.token_urlsafe(32)}"
    record = OrganizerRecord(
        organizer_id=organizer_id, name=name, key_hash=key_hash(key), created_at=int(time.time())
    )
    return key, record


def _unauthorized(detail: str, code: str) -> ProblemDetailsException:
    """A 401 of the organizers' realm."""
    return unauthorized(detail, "cardproof organizers", code)


def _offered_key(authorization: str | None) -> re.Match[str]:
    """The organizer key an ``Authorization`` header offers, read (401 if it offers none)."""
    if not authorization:
        raise _unauthorized(
            "this needs an organizer key: Authorization: Bearer cpo_...", "credential-missing"
        )
    scheme, _, key = authorization.partition(" ")
    match = _KEY.fullmatch(key.strip()) if scheme.lower() == "bearer" else None
    if match is None:
        raise _unauthorized(
            "the Authorization header is not 'Bearer cpo_...' with a key", "credential-malformed"
        )
    return match


def organizer_offered(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard: an organizer's operation answers 401 first when no key is even offered.

    Before its path and body are read, so that a caller without a key learns nothing of
    a request's shape from a 400; the key itself is checked by :func:`authenticate`.
    """
    _offered_key(connection.headers.get("authorization"))


async def authenticate(store: Store, authorization: str | None) -> OrganizerRecord:
    """The organizer an ``Authorization`` header names (a 401 problem if it names none).

    The answer does not say whether the id or the secret was wrong.
    """
    match = _offered_key(authorization)
    key = match[0]
    record = await store.get_organizer(match[1])
    expected = record.key_hash if record is not None else key_hash(f"{KEY_PREFIX}{'0' * 16}_")
    if not hmac.compare_digest(key_hash(key), expected) or record is None:
        raise _unauthorized("this organizer key is not known", "credential-invalid")
    return record


def organizer_quota(settings: Settings, organizer_id: str) -> OrganizerQuota:
    """The organizer's quota today (UTC): what one key may make and issue a day.

    Each tournament keeps its record, rounds and codes up to its retention: without a
    quota, one key at the rate limit could fill the store.
    """
    current = now()
    return OrganizerQuota(
        organizer_id,
        settings.organizer_tournaments_per_day,
        settings.organizer_invites_per_day,
        current // DAY,
        DAY - current % DAY,
    )


__all__ = [
    "KEY_PREFIX",
    "authenticate",
    "key_hash",
    "new_organizer",
    "organizer_offered",
    "organizer_quota",
]
