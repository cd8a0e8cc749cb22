"""Calls: a lockstep round's calls served to its listeners, by long poll or event stream.

A replica follows a round it serves listeners for through the store's news (Redis
pub/sub), reading each new call from the store once for all its listeners, and encodes
each call once as a server-sent event: a call reaches hundreds of seats at once. A
listener waits at most :data:`REFRESH` seconds without a read, so missed news costs a
second at most. The rounds themselves advance in :mod:`cardproof_service.lockstep.rounds`.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import msgspec

from cardproof.models import RoundCalls
from cardproof_service.lockstep.rounds import SHUTDOWN_WAIT, Rounds, call_of
from cardproof_service.plumbing import come_back
from cardproof_service.store import (
    CallRecord,
    RoundState,
    Store,
    StoreUnavailable,
    TournamentRecord,
)

MAX_LISTENERS = 10_000
"""Listeners (event streams and long polls) a process serves at once."""
SEAT_RESERVE = 0.1
"""The part of :data:`MAX_LISTENERS` kept for seats' first listeners: any other listener
is let in only while the process serves fewer than the rest (9,000 of 10,000)."""
KEEPALIVE = 15.0
"""Seconds between comments on an idle event stream (proxies close silent ones)."""
MAX_WAIT = 55
"""The longest long poll, in seconds."""
STREAM_SECONDS = 3600.0
"""An event stream ends after this long; the client resumes with ``Last-Event-ID``."""
REFRESH = 1.0
"""Seconds after which a followed round is read again even without news."""
RETRY_LISTENER = 5
"""The ``Retry-After`` of a listener refused for want of room."""


class Listener(NamedTuple):
    """Who a listener is, for the counts of :meth:`Calls.admit`."""

    address: str
    """Its client (:func:`~cardproof_service.plumbing.limits.client_id`): every listener counts
    against its address's cap, across rounds."""
    entrant: str | None = None
    """The entrant its token proves (``None``: no token): the share of a round is then
    the entrant's, not the address's."""
    seated: bool = False
    """Whether that entrant is seated in the round: its first listener there may take
    the room kept for seats, past its address's cap."""
    per_address: int = 0
    """The cap on its address's listeners in this process (0: none)."""


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
    """The calls of the rounds this process's listeners follow; one per app.

    A process serves at most :data:`MAX_LISTENERS` listeners; an entrant (by its token),
    or a client without one, at most ``share`` of one round's (0: no share); an address
    at most its cap across rounds (:attr:`Listener.per_address`), tokens or not. A
    seat's first listener (an entrant's token, seated in the round, with no other
    listener of it there) is let in while the process has any room, past its address's
    cap; every other listener only while :data:`SEAT_RESERVE` of the room is left. So
    one address with many entries cannot take the room a seated entrant needs. Past
    any of these the answer is a problem with ``Retry-After``, before any byte of a
    stream is sent.
    """

    store: Store
    rounds: Rounds
    share: int = 4
    _watches: dict[tuple[str, int], Watch] = field(default_factory=dict)
    _listeners: int = 0
    _held: dict[tuple[str, tuple[str, int]], int] = field(default_factory=dict)
    """Listeners by holder (an entrant, or an address without a token) and round."""
    _addresses: dict[str, int] = field(default_factory=dict)
    """Listeners by address, across rounds."""
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

    def _holder(self, key: tuple[str, int], listener: Listener) -> tuple[str, tuple[str, int]]:
        """Whose share of round ``key`` the listener takes: its entrant's, else its address's."""
        holder = listener.address if listener.entrant is None else f"entrant:{listener.entrant}"
        return holder, key

    def needs_seat(self, key: tuple[str, int], listener: Listener) -> bool:
        """Whether only a seat would let the listener in now (room short, or its address full).

        Only an entrant's first listener of the round can be a seat's: the caller asks the
        store whether it is seated only then.
        """
        if listener.entrant is None or self._held.get(self._holder(key, listener), 0):
            return False
        reserved = self._listeners >= MAX_LISTENERS - int(MAX_LISTENERS * SEAT_RESERVE)
        cap = listener.per_address
        return reserved or bool(cap and self._addresses.get(listener.address, 0) >= cap)

    def admit(self, key: tuple[str, int], client: str | Listener) -> Callable[[], None]:
        """Count one listener on round ``key``; what releases it (once).

        ``client``: a :class:`Listener`, or an address alone. 503 ``too-many-listeners``
        once this process serves :data:`MAX_LISTENERS` listeners, or, for any but a
        seat's first listener, all but the :data:`SEAT_RESERVE`; 429 ``listener-share``
        past the entrant's (or tokenless address's) share of the round; 429
        ``listeners-per-address`` past the address's cap, but for a seat's first
        listener. All with ``Retry-After``.
        """
        listener = client if isinstance(client, Listener) else Listener(client)
        mine = self._holder(key, listener)
        held = self._held.get(mine, 0)
        first = listener.seated and listener.entrant is not None and not held
        reserve = 0 if first else int(MAX_LISTENERS * SEAT_RESERVE)
        if self._listeners >= MAX_LISTENERS - reserve:
            raise come_back(
                503,
                f"this server serves {MAX_LISTENERS} listeners of rounds' calls at once "
                f"(the last {int(MAX_LISTENERS * SEAT_RESERVE)} only for seated entrants' "
                "first streams of their round): try again after Retry-After seconds",
                "too-many-listeners",
                RETRY_LISTENER,
            )
        if self.share and held >= self.share:
            raise come_back(
                429,
                f"this client follows round {key[1]} with {held} event streams or long polls "
                "already, its share (CARDPROOF_LISTENERS_PER_CLIENT): end one, or come back "
                "after Retry-After seconds",
                "listener-share",
                RETRY_LISTENER,
                limited="listener-share",
            )
        address = listener.address
        on_address = self._addresses.get(address, 0)
        if not first and listener.per_address and on_address >= listener.per_address:
            raise come_back(
                429,
                f"this address holds {on_address} event streams or long polls of rounds' "
                f"calls on this server, its cap (CARDPROOF_LISTENERS_PER_ADDRESS: "
                f"{listener.per_address}); a seated entrant's first stream of its round, "
                "with its token, still gets in: end one, or come back after Retry-After "
                "seconds",
                "listeners-per-address",
                RETRY_LISTENER,
                limited="listeners-per-address",
            )
        self._held[mine] = held + 1
        self._addresses[address] = on_address + 1
        self._listeners += 1
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            self._listeners -= 1
            _give_back(self._held, mine)
            _give_back(self._addresses, address)

        return release

    @contextlib.asynccontextmanager
    async def _watch(self, key: tuple[str, int]) -> AsyncIterator[Watch]:
        """Follow a round while a listener admitted by :meth:`admit` waits on it."""
        watch = self._watches.get(key)
        if watch is None:
            watch = self._watches[key] = Watch()
        watch.listeners += 1
        try:
            if watch.state is None:
                await self._refresh(key)
            yield watch
        finally:
            watch.listeners -= 1
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
        *,
        client: str | Listener,
    ) -> RoundCalls:
        """The calls after ``after``, waiting up to ``wait`` seconds for one (or the end).

        ``gone`` (done once the client has gone away) ends the wait early. The poll
        counts among ``client``'s listeners (:meth:`admit`) while it waits.
        """
        key = (record.tournament_id, number)
        release = self.admit(key, client)
        try:
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
        finally:
            release()
        state = await self.rounds.advance(record, number)
        return RoundCalls(
            await self.rounds.describe(record, number, state),
            [call_of(record, call) for call in fresh],
        )

    def stream(
        self, record: TournamentRecord, number: int, after: int, *, client: str | Listener
    ) -> AsyncIterator[bytes]:
        """Server-sent events: a ``call`` per card after ``after``, then ``end``.

        The listener is admitted here, before the stream's first byte (429 or 503
        otherwise), and released when the stream ends, fails, or is dropped unread.
        """
        release = self.admit((record.tournament_id, number), client)
        events = self._events(record, number, after, release)
        weakref.finalize(events, release)  # a stream never started releases too
        return events

    async def _events(
        self, record: TournamentRecord, number: int, after: int, release: Callable[[], None]
    ) -> AsyncIterator[bytes]:
        """The events of :meth:`stream`, until the round ends (or an hour has passed).

        Each call is encoded once per process and the same bytes go to every listener:
        a call reaches hundreds of seats at once.
        """
        try:
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

        finally:
            release()


def _give_back(counts: dict[Any, int], name: object) -> None:
    """One listener fewer under ``name`` (its entry goes at 0)."""
    left = counts[name] - 1
    if left:
        counts[name] = left
    else:
        del counts[name]


def _last_index(watch: Watch) -> int:
    """The index of the last call a watch holds (-1: none yet)."""
    return watch.calls[-1].index if watch.calls else -1


def _event(name: bytes, data: bytes, event_id: int | None = None) -> bytes:
    """One server-sent event (``data`` is one line of JSON)."""
    head = b"" if event_id is None else b"id: %d\r\n" % event_id
    return head + b"event: " + name + b"\r\ndata: " + data + b"\r\n\r\n"


__all__ = ["Calls", "Listener", "Watch"]
