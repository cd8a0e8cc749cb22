"""A body's minimum rate, judged window by window (HTTP/1.1 and HTTP/2 alike)."""

from __future__ import annotations

from cardproof_service.plumbing import DoorSettings


def body_balance(received: int, credit: int, door: DoorSettings) -> tuple[int, bool]:
    """A body's window ends: its credit after it, and whether it kept the minimum rate.

    A body must bring ``body_min_rate`` x ``body_timeout`` bytes a window; what it
    brought beyond carries over to the next windows, up to one window's worth, so a
    client at the rate is never cut off by where a window's edge falls between its
    writes, and one that sent ahead may pause one window, no more.

    >>> door = DoorSettings(body_min_rate=100, body_timeout=1.0)
    >>> body_balance(150, 0, door), body_balance(75, 50, door), body_balance(20, 50, door)
    ((50, True), (25, True), (0, False))
    >>> body_balance(10_000, 0, door)
    (100, True)
    """
    required = int(door.body_min_rate * door.body_timeout)
    balance = received + credit - required
    return min(max(balance, 0), required), balance >= 0


__all__ = ["body_balance"]
