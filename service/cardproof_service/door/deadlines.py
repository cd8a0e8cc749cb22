"""One deadline at a time for a connection, on a timer re-armed only when it must be.

A request moves its connection's deadline three or four times (its head's, its body's,
none while the app answers): arming and cancelling a timer each time costs more than
the rest of the door's per-request work. Here a deadline is a time and a callback; the
one timer behind it stays armed for the earliest deadline it may have to keep, and on
waking only looks whether the deadline (moved since, or cleared) is due.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Deadline:
    """A connection's current deadline: ``expire`` is called once it is due.

    >>> loop = asyncio.new_event_loop()
    >>> fired = []
    >>> deadline = Deadline(loop)
    >>> deadline.set(0.01, lambda: fired.append("head"))
    >>> deadline.set(0.5, lambda: fired.append("body"))  # moved later: the timer stays
    >>> loop.run_until_complete(asyncio.sleep(0.03)); fired  # it woke, and waits on
    []
    >>> loop.run_until_complete(asyncio.sleep(0.6)); fired
    ['body']
    >>> deadline.set(0.01, lambda: fired.append("late")); deadline.clear()
    >>> loop.run_until_complete(asyncio.sleep(0.03)); fired, deadline.active
    (['body'], False)
    >>> deadline.set(60, lambda: fired.append("idle"))
    >>> deadline.set(0.01, lambda: fired.append("sooner"))  # moved sooner: a new timer
    >>> loop.run_until_complete(asyncio.sleep(0.03)); fired
    ['body', 'sooner']
    >>> deadline.stop()
    >>> loop.close()
    """

    __slots__ = ("_due", "_expire", "_loop", "_timer", "_timer_at")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        """No deadline yet."""
        self._loop = loop
        self._due: float | None = None
        self._expire: Callable[[], None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    @property
    def active(self) -> bool:
        """Whether a deadline is set."""
        return self._due is not None

    def set(self, seconds: float, expire: Callable[[], None]) -> None:
        """Call ``expire`` in ``seconds`` unless the deadline is set again or cleared."""
        due = self._loop.time() + seconds
        self._due, self._expire = due, expire
        if self._timer is not None and self._timer_at <= due:
            return  # it wakes first, and looks again
        if self._timer is not None:
            self._timer.cancel()
        self._arm(due)

    def clear(self) -> None:
        """No deadline (the timer, if armed, wakes to nothing)."""
        self._due = self._expire = None

    def stop(self) -> None:
        """No deadline, and no timer: the connection is gone."""
        self.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, when: float) -> None:
        self._timer, self._timer_at = self._loop.call_at(when, self._wake), when

    def _wake(self) -> None:
        """The timer is up: expire the deadline if due, else wait on for it."""
        self._timer = None
        due, expire = self._due, self._expire
        if due is None or expire is None:
            return
        if self._loop.time() < due:
            self._arm(due)
            return
        self.clear()
        expire()


__all__ = ["Deadline"]
