"""Calls: a lockstep round's calls served to its listeners, by long poll or event stream.

A replica follows a round it serves listeners for through the store's news (Redis
pub/sub), reading each new call from the store once for all its listeners, and encodes
each call once as a server-sent event: a call reaches hundreds of seats at once. A
listener waits at most :data:`REFRESH` seconds without a read, so missed news costs a
second at most. The rounds themselves advance in :mod:`cardproof_service.lockstep`.
"""

from __future__ import annotations

import asyncio
import contextlib
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardproof.models import RoundCalls
from cardproof_service.lockstep import SHUTDOWN_WAIT, Rounds, call_of
from cardproof_service.problems import problem
from cardproof_service.store import (
    CallRecord,
    RoundState,
    Store,
    StoreUnavailable,
    TournamentRecord,
)

MAX_LISTENERS = 10_000
"""Listeners (event streams and long polls) a process serves at once."""
KEEPALIVE = 15.0
"""Seconds between comments on an idle event stream (proxies close silent ones)."""
MAX_WAIT = 55
"""The longest long poll, in seconds."""
STREAM_SECONDS = 3600.0
"""An event stream ends after this long; the client resumes with ``Last-Event-ID``."""
REFRESH = 1.0
"""Seconds after which a followed round is read again even without news."""


@dataclass
class Watch:
    """A round this process follows for its listeners: its calls and state as last read."""

    calls: list[CallRecord] = field(default_factory=list)
    state: RoundState | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    listeners: int = 0
    read_at: float = 0.0
    """When (loop time) the round was last read from the store."""
    events: dict[int, bytes] = field(default_factory=dict)
    """Each call as a server-sent event, encoded once for every listener."""

    def tell(self) -> None:
        """Wake every listener (each waits on the event it saw)."""
        self.changed.set()
        self.changed = asyncio.Event()


@dataclass
class Calls:
    """The calls of the rounds this process's listeners follow; one per app."""

    store: Store
    rounds: Rounds
    _watches: dict[tuple[str, int], Watch] = field(default_factory=dict)
    _listeners: int = 0
    _task: asyncio.Task[None] | None = None
    _stopping: bool = False

    def begin(self) -> None:
        """Start this process's news task (on app start-up)."""
        if self._task is None:
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(self.follow())

    async def end(self) -> None:
        """Stop the news task (on app shutdown), waiting for it a moment at most."""
        task, self._task = self._task, None
        self._stopping = True  # the loop ends even if a cancel is lost on the way
        if task is not None:  # a subscription being torn down must not hold the shutdown up
            task.cancel()
            await asyncio.wait([task], timeout=SHUTDOWN_WAIT)

    async def follow(self) -> None:
        """Until the app stops: read the calls of every followed round that has news."""
        while not self._stopping:
            try:
                for key in list(self._watches):  # news may have been missed: read again
                    await self._refresh(key)
                async for key in self.store.round_news():
                    if key in self._watches:
                        await self._refresh(key)
            except StoreUnavailable:
                await asyncio.sleep(0.5)

    async def _refresh(self, key: tuple[str, int]) -> None:
        """Read the round's new calls and state; wake its listeners if anything changed."""
        watch = self._watches.get(key)
        if watch is None:
            return
        watch.read_at = asyncio.get_running_loop().time()
        fresh = await self.store.round_calls(key[0], key[1], _last_index(watch))
        state = await self.store.round_state(key[0], key[1])
        known = _last_index(watch)  # another refresh may have read some meanwhile
        fresh = [call for call in fresh if call.index > known]
        before = watch.state
        watch.calls.extend(fresh)
        watch.state = state
        if (
            fresh
            or before is None
            or (before.finished, before.call) != (state.finished, state.call)
        ):
            watch.tell()

    @contextlib.asynccontextmanager
    async def _watch(self, key: tuple[str, int]) -> AsyncIterator[Watch]:
        """Follow a round for one listener (503 past :data:`MAX_LISTENERS`)."""
        if self._listeners >= MAX_LISTENERS:
            raise problem(
                503,
                f"this server follows {MAX_LISTENERS} rounds' calls at once: try again soon",
                type_="/problems/unavailable",
                code="too-many-listeners",
                headers={"Retry-After": "5"},
            )
        watch = self._watches.get(key)
        if watch is None:
            watch = self._watches[key] = Watch()
        watch.listeners += 1
        self._listeners += 1
        try:
            if watch.state is None:
                await self._refresh(key)
            yield watch
        finally:
            watch.listeners -= 1
            self._listeners -= 1
            if watch.listeners == 0:
                self._watches.pop(key, None)

    async def _wait(
        self,
        watch: Watch,
        key: tuple[str, int],
        seconds: float,
        gone: asyncio.Future[None] | None = None,
    ) -> None:
        """Wait for news of the round, at most ``seconds`` (reading it again meanwhile).

        ``gone`` ends the wait too: the client has gone away.
        """
        done: Any = False
        if gone is None:  # an event stream: the cheapest wait (hundreds wake at each call)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(seconds, REFRESH)):
                    done = await watch.changed.wait()
        else:
            changed: asyncio.Future[Any] = asyncio.ensure_future(watch.changed.wait())
            waits: set[asyncio.Future[Any]] = {changed, gone}
            try:
                done, _ = await asyncio.wait(
                    waits, timeout=min(seconds, REFRESH), return_when=FIRST_COMPLETED
                )
            finally:
                changed.cancel()
        stale = asyncio.get_running_loop().time() - watch.read_at >= REFRESH
        if not done and stale:  # no news for a while: one listener reads for all
            with contextlib.suppress(StoreUnavailable):  # a listener outlasts an outage
                await self._refresh(key)

    async def long_poll(
        self,
        record: TournamentRecord,
        number: int,
        after: int,
        wait: float,
        gone: asyncio.Future[None] | None = None,
    ) -> RoundCalls:
        """The calls after ``after``, waiting up to ``wait`` seconds for one (or the end).

        ``gone`` (done once the client has gone away) ends the wait early.
        """
        key = (record.tournament_id, number)
        loop = asyncio.get_running_loop()
        until = loop.time() + min(wait, MAX_WAIT)
        async with self._watch(key) as watch:
            while True:
                fresh = [call for call in watch.calls if call.index > after]
                finished = watch.state is not None and watch.state.finished
                left = until - loop.time()
                if fresh or finished or left <= 0 or (gone is not None and gone.done()):
                    break
                await self._wait(watch, key, left, gone)
        state = await self.rounds.advance(record, number)
        return RoundCalls(
            await self.rounds.describe(record, number, state),
            [call_of(record, call) for call in fresh],
        )

    async def stream(
        self, record: TournamentRecord, number: int, after: int
    ) -> AsyncIterator[bytes]:
        """Server-sent events: a ``call`` per card after ``after``, then ``end``.

        Each call is encoded once per process and the same bytes go to every listener:
        a call reaches hundreds of seats at once.
        """
        key = (record.tournament_id, number)
        loop = asyncio.get_running_loop()
        until = loop.time() + STREAM_SECONDS
        async with self._watch(key) as watch:
            sent = after
            quiet = loop.time()
            while loop.time() < until:
                for call in watch.calls:
                    if call.index > sent:
                        event = watch.events.get(call.index)
                        if event is None:
                            data = msgspec.json.encode(call_of(record, call))
                            event = watch.events[call.index] = _event(b"call", data, call.index)
                        yield event
                        sent = call.index
                        quiet = loop.time()
                if watch.state is not None and watch.state.finished:
                    status = await self.rounds.describe(record, number, watch.state)
                    yield _event(b"end", msgspec.json.encode(status))
                    return
                if loop.time() - quiet >= KEEPALIVE:
                    yield b": keep-alive\r\n\r\n"
                    quiet = loop.time()
                await self._wait(watch, key, KEEPALIVE)


def _last_index(watch: Watch) -> int:
    """The index of the last call a watch holds (-1: none yet)."""
    return watch.calls[-1].index if watch.calls else -1


def _event(name: bytes, data: bytes, event_id: int | None = None) -> bytes:
    """One server-sent event (``data`` is one line of JSON)."""
    head = b"" if event_id is None else b"id: %d\r\n" % event_id
    return head + b"event: " + name + b"\r\ndata: " + data + b"\r\n\r\n"


__all__ = ["Calls", "Watch"]
