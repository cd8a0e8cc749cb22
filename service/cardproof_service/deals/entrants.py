"""Entrant tokens: ``cpe_<tournament id>.<entrant id>.<expiry>.<tag>``, checked without the store.

The tag is an HMAC under the master key, so any replica can check a token, a forged one
fails, and it expires when its tournament closes. A token opens the entrant's games on
each round and is needed for every move of them: another entrant's token is refused.
"""

from __future__ import annotations

import hmac
from typing import Any, NamedTuple

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from cardproof.receipts import b64url
from cardproof_service.plumbing import problem, unauthorized

ENTRANT_PREFIX = "cpe_"


class EntrantToken(NamedTuple):
    """What a valid token says: whose it is, in which tournament, until when."""

    tournament_id: str
    entrant_id: str
    expires: int


def _tag(master: bytes, body: str) -> str:
    digest = hmac.digest(master, b"cardproof-entrant\0" + body.encode(), "sha256")
    return b64url(digest[:18])


def make_token(master: bytes, tournament_id: str, entrant_id: str, expires: int) -> str:
    """A token for this entrant of this tournament, good until ``expires`` (epoch seconds)."""
    body = f"{tournament_id}.{entrant_id}.{expires}"
    return f"{ENTRANT_PREFIX}{body}.{_tag(master, body)}"


def _offered_token(authorization: str | None) -> list[str]:
    """The parts of the entrant token an ``Authorization`` header offers (401 if none)."""
    scheme, _, token = (authorization or "").partition(" ")
    token = token.strip()
    parts = token.removeprefix(ENTRANT_PREFIX).split(".")
    if scheme.lower() != "bearer" or not token.startswith(ENTRANT_PREFIX) or len(parts) != 4:
        raise unauthorized(
            "this needs the entrant's token: Authorization: Bearer cpe_...",
            "cardproof entrants",
            "credential-malformed" if authorization else "credential-missing",
        )
    return parts


def entrant_offered(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Guard: an entrant's operation answers 401 first when no token is even offered.

    Before its path and body are read (as for organizers); the token itself is checked
    by :func:`require_entrant`.
    """
    _offered_token(connection.headers.get("authorization"))


def require_entrant(
    master: bytes,
    authorization: str | None,
    tournament_id: str,
    now: int,
    entrant_id: str | None = None,
    *,
    allow_expired: bool = False,
) -> EntrantToken:
    """The token an ``Authorization: Bearer cpe_...`` header carries, checked.

    401 for none, a malformed or forged one, or one that expired (unless
    ``allow_expired``: reading a game stays its entrant's after the close); 403 for a
    token of another tournament or, when ``entrant_id`` is given, of another entrant.
    """
    parts = _offered_token(authorization)
    if not hmac.compare_digest(parts[3], _tag(master, ".".join(parts[:3]))):
        raise unauthorized(
            "this entrant token is not valid", "cardproof entrants", "credential-invalid"
        )
    found = EntrantToken(parts[0], parts[1], int(parts[2]) if parts[2].isdigit() else 0)
    if found.tournament_id != tournament_id:
        raise problem(
            403,
            "this entrant token is for another tournament",
            type_="/problems/forbidden",
            code="other-tournament",
        )
    if found.expires <= now and not allow_expired:
        raise unauthorized(
            "this entrant token has expired: the tournament is closed",
            "cardproof entrants",
            "credential-expired",
        )
    if entrant_id is not None and not hmac.compare_digest(found.entrant_id, entrant_id):
        raise problem(
            403,
            "this game is another entrant's: its moves take that entrant's token",
            type_="/problems/forbidden",
            code="other-entrant",
        )
    return found


__all__ = ["ENTRANT_PREFIX", "EntrantToken", "make_token", "require_entrant"]
