"""Time as the service reads it: now, its RFC 3339 forms, and a tournament's lifetime.

Every module that asks "what time is it" or "has this tournament closed" asks here, so
that the deals flow, lockstep rounds and tournaments agree on one clock.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from cardproof_service.store import TournamentRecord

DAY = 24 * 3600
"""Seconds in a day (daily quotas count UTC days)."""


def now() -> int:
    """Seconds since the Unix epoch."""
    return int(time.time())


def rfc3339(seconds: int) -> str:
    """Seconds since the epoch as RFC 3339 UTC, to the second.

    >>> rfc3339(0)
    '1970-01-01T00:00:00Z'
    """
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc3339_ms(milliseconds: int) -> str:
    """Milliseconds since the epoch as RFC 3339 UTC with milliseconds.

    >>> rfc3339_ms(1_500)
    '1970-01-01T00:00:01.500Z'
    """
    moment = datetime.fromtimestamp(milliseconds / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{milliseconds % 1000:03d}Z"


def tournament_closed(tournament: TournamentRecord) -> bool:
    """Whether a tournament has closed (by its organizer, or at its closing time)."""
    return tournament.closed_at is not None or now() >= tournament.closes_at


def tournament_ttl(tournament: TournamentRecord, retention: int) -> int:
    """Seconds a tournament's games are kept from now: as long as the tournament.

    That is its closing time plus the retention (``expires_at``); never the deal TTL:
    a game paused for days while its tournament is open stays.
    """
    expires_at = tournament.expires_at
    if expires_at is None:  # a record from before tournaments expired
        expires_at = tournament.closes_at + retention
    return max(1, expires_at - now())


__all__ = ["DAY", "now", "rfc3339", "rfc3339_ms", "tournament_closed", "tournament_ttl"]
