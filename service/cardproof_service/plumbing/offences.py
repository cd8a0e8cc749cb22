"""Offences the HTTP layer saw, waiting to be charged against their clients' rate limit.

The door (``cardproof_service.door``) cuts off a client whose headers or body come too
slowly, and closes at once a connection over its address's cap; neither reaches the app,
so neither would count. Each is reported here (a few cheap dict updates, no I/O: the
door runs inside the event loop's protocol callbacks) and the rate limiter charges what
was reported against the client's window every half second (:meth:`RateLimiter.begin`),
so a client that keeps doing it is soon answered 429 to its requests too. The pending
book holds at most :data:`MOST_PENDING` addresses: a flood from more addresses than that
between two charges drops the rest (each is already refused; only their count is lost).
"""

from __future__ import annotations

from typing import Final

MOST_PENDING: Final = 10_000
"""Addresses kept between two charges."""

_pending: dict[str, int] = {}


def report(address: str, weight: int = 1) -> None:
    """Note ``weight`` offences of the client at ``address`` (its IP address, as text).

    >>> report("192.0.2.7"); report("192.0.2.7", 2); take()
    {'192.0.2.7': 3}
    >>> take()
    {}
    """
    if address in _pending:
        _pending[address] += weight
    elif len(_pending) < MOST_PENDING:
        _pending[address] = weight


def take() -> dict[str, int]:
    """What was reported since the last call, by address (and forget it)."""
    global _pending
    taken, _pending = _pending, {}
    return taken


__all__ = ["MOST_PENDING", "report", "take"]
