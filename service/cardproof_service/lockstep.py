"""Lockstep rounds (Hoyle's called game): seats, the start, the calls, late placements.

Every seated entrant's game of a lockstep round waits for the round's calls: card i+1
is called to all at once when every seat has placed card i (in the store step of the
last placement) or when card i's deadline has passed. Then whoever has not placed card i
has it placed for them, by the variant's first legal move. Everything is derived from
what the store holds (the calls, their times by the store's clock, the placements), so
any replica may make a late placement: the store's index check lets one in. Each
replica runs a :meth:`Rounds.keep` task that looks for rounds past their deadline or
start time; none is special, and losing one stalls nothing.

A replica follows a round it serves listeners for through the store's news (Redis
pub/sub), reading each new call from the store once for all its listeners.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from cardproof.games import Game, variant
from cardproof.models import Call, RoundCalls, RoundStatus
from cardproof.tournaments import round_deal
from cardproof_service.deals import (
    Deals,
    conflict,
    final_total,
    next_card,
    not_found,
    now,
    round_commitment_id,
)
from cardproof_service.problems import problem
from cardproof_service.store import (
    CallRecord,
    DealRecord,
    Placement,
    RoundState,
    Store,
    StoreUnavailable,
    TournamentRecord,
)
from cardproof_service.store.keys import id_tag

log = logging.getLogger("cardproof.lockstep")

KEEPER_TICK = 0.05
"""Seconds between a replica's looks for rounds past their deadline or start time."""
SEAT_BATCH = 256
"""Seated games a late placement (or the close) reads from the store at a time."""
DUE_BATCH = 50
RETRY_FAULTY = 5
"""Seconds a round whose keeping failed (not for want of Redis) is put off."""
"""Rounds a look takes at most."""
MAX_LISTENERS = 10_000
"""Listeners (event streams and long polls) a process serves at once."""
KEEPALIVE = 15.0
"""Seconds between comments on an idle event stream (proxies close silent ones)."""
MAX_WAIT = 55
"""The longest long poll, in seconds."""
STREAM_SECONDS = 3600.0
"""An event stream ends after this long; the client resumes with ``Last-Event-ID``."""
SHUTDOWN_WAIT = 2.0
"""Seconds a stopping app waits for its keeper and news tasks to end."""
REFRESH = 1.0
"""Seconds after which a followed round is read again even without news."""


def rfc3339_ms(milliseconds: int) -> str:
    """Milliseconds since the epoch as RFC 3339 UTC with milliseconds."""
    moment = datetime.fromtimestamp(milliseconds / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{milliseconds % 1000:03d}Z"


def turns_of(record: TournamentRecord) -> int:
    """The cards a round of this tournament calls (its variant's moves per game)."""
    cls = variant(record.variant)
    return cls.turns(cls.parse_options(record.options)) or 0


@dataclass
class _Watch:
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
class Rounds:
    """The lockstep rounds of every tournament; one per app."""

    store: Store
    deals: Deals
    _watches: dict[tuple[str, int], _Watch] = field(default_factory=dict)
    _listeners: int = 0
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _stopping: bool = False

    # --- status ---------------------------------------------------------------------

    def _call_of(self, record: TournamentRecord, call: CallRecord) -> Call:
        deadline = call.at + record.card_seconds * 1000
        return Call(call.index, call.card, rfc3339_ms(call.at), rfc3339_ms(deadline))

    async def status(self, record: TournamentRecord, number: int) -> RoundStatus:
        """The round now, after any placement its deadline calls for."""
        state = await self.advance(record, number)
        return await self.describe(record, number, state)

    async def describe(
        self, record: TournamentRecord, number: int, state: RoundState
    ) -> RoundStatus:
        """The status of a round as ``state`` has it (no placement is made)."""
        starts_at = None
        if record.round_starts is not None and state.started_at is None:
            starts_at = rfc3339_ms(record.round_starts[number - 1] * 1000)
        base = RoundStatus(
            tournament_id=record.tournament_id,
            round=number,
            format=record.format,
            status="finished" if state.finished else "waiting",
            seats=state.seats,
            calls=state.turns or turns_of(record),
            starts_at=starts_at,
        )
        if state.finished or state.started_at is None:
            return base
        card = None
        found = await self.store.round_calls(record.tournament_id, number, state.call - 1)
        if found and found[0].index == state.call:
            card = found[0].card
        return msgspec.structs.replace(
            base,
            status="playing",
            call=state.call,
            card=card,
            called_at=rfc3339_ms(state.called_at),
            deadline=rfc3339_ms(state.deadline),
            seconds_left=round(max(0, state.deadline - state.now) / 1000, 3),
            placed=state.placed,
        )

    # --- the start ------------------------------------------------------------------

    async def start(self, record: TournamentRecord, number: int, *, scheduled: bool) -> RoundState:
        """Start the round now: card 0 is called to every seat (409 if it had started).

        The organizer's start needs a seat; a start time passing starts the round in any
        case (with nobody seated it is finished at once).
        """
        state = await self.store.round_state(record.tournament_id, number)
        if state.started_at is not None:
            if scheduled:
                return state
            raise conflict(f"round {number} has started already", "round-started")
        if not scheduled and state.seats == 0:
            raise conflict(
                f"nobody is seated in round {number}: entrants are seated as they open its "
                "game (POST .../rounds/{n}/deal)",
                "no-seats",
            )
        seed = self.deals.server_seed(round_commitment_id(record.tournament_id, number))
        options, deck = round_deal(record.variant, record.options, seed, record.salt)
        first = next_card(variant(record.variant)(deck, options))
        started = await self.store.start_round(
            record.tournament_id, number, turns_of(record), record.card_seconds * 1000, first
        )
        if started is None:
            if scheduled:
                return await self.store.round_state(record.tournament_id, number)
            raise conflict(f"round {number} has started already", "round-started")
        return started

    # --- late placements --------------------------------------------------------------

    async def advance(self, record: TournamentRecord, number: int) -> RoundState:
        """The round, once whatever is due has been done: a start, late placements.

        A closed tournament's started rounds are completed instead (:meth:`complete`).
        """
        tournament_id = record.tournament_id
        state = await self.store.round_state(tournament_id, number)
        if state.started_at is None:
            starts = record.round_starts
            due = starts is not None and starts[number - 1] * 1000 <= state.now
            if due and record.closed_at is None and now() < record.closes_at:
                return await self.start(record, number, scheduled=True)
            return state
        if state.finished:
            return state
        if record.closed_at is not None or now() >= record.closes_at:
            await self.complete_round(record, number)
            return await self.store.round_state(tournament_id, number)
        if state.now < state.deadline:
            return state
        async for seat in self._seats(tournament_id, number):
            if seat.finished_at is None and len(seat.moves) == state.call:
                await self._place(seat, record, "auto")
        return await self.store.round_state(tournament_id, number)

    async def _seats(self, tournament_id: str, number: int) -> AsyncIterator[DealRecord]:
        """The round's seated games, read :data:`SEAT_BATCH` at a time."""
        deal_ids = await self.store.round_seats(tournament_id, number)
        for start in range(0, len(deal_ids), SEAT_BATCH):
            for seat in await self.store.get_deals(deal_ids[start : start + SEAT_BATCH]):
                yield seat

    async def place_late(self, seat: DealRecord) -> None:
        """A player's move came after its deadline: place the round's late cards now."""
        if seat.tournament is None or seat.round is None:
            return
        record = await self.store.get_tournament(seat.tournament)
        if record is not None:
            await self.advance(record, seat.round)

    async def _place(self, seat: DealRecord, record: TournamentRecord, by: Any) -> None:
        """Place the seat's next card for the player (``auto``) or to the end (``closing``).

        The first legal move in the variant's order, each time; the append's index check
        lets exactly one placement of an index in, whichever replica makes it.
        """
        deals = self.deals
        game: Game[Any, Any] = await deals._replay_off_loop(seat)
        first = len(game.moves)
        texts = []
        while not game.is_over():
            move = game.legal_moves()[0]
            game.play(move)
            texts.append(game.move_text(move))
            if by != "closing":
                break
        if not texts:
            return
        placed = tuple(range(first, first + len(texts)))
        finished_at = now() if game.is_over() else None
        ending = None
        if finished_at is not None:
            done = msgspec.structs.replace(seat, auto_placed=[*seat.auto_placed, *placed])
            ending = deals._ending(
                done, game, deals._result(game, len(game.moves) - 1), finished_at
            )
        placement = Placement(record.tournament_id, seat.round or 0, by, placed, next_card(game))
        await self.store.append_move(
            seat.deal_id,
            first,
            " ".join(texts),
            finished_at,
            deals.tournament_ttl(record),
            final_total(game),
            ending,
            placement,
            tournament=record.tournament_id,
        )

    async def complete_round(self, record: TournamentRecord, number: int) -> None:
        """A closed tournament's started round: every open game completed, then finished."""
        state = await self.store.round_state(record.tournament_id, number)
        if state.started_at is None or state.finished:
            return
        async for seat in self._seats(record.tournament_id, number):
            if seat.finished_at is None:
                await self._place(seat, record, "closing")
        await self.store.finish_round(record.tournament_id, number)

    async def complete(self, record: TournamentRecord) -> None:
        """At the close: every started round's open games are completed and scored."""
        if record.format != "lockstep":
            return
        for number in range(1, record.rounds + 1):
            await self.complete_round(record, number)

    # --- the keeper -----------------------------------------------------------------

    def begin(self) -> None:
        """Start this process's keeper and news tasks (on app start-up)."""
        if not self._tasks:
            self._stopping = False
            loop = asyncio.get_running_loop()
            self._tasks = [loop.create_task(self.keep()), loop.create_task(self.follow())]

    async def end(self) -> None:
        """Stop the tasks (on app shutdown), waiting for them a moment at most."""
        tasks, self._tasks = self._tasks, []
        self._stopping = True  # the loops end even if a cancel is lost on the way
        for task in tasks:
            task.cancel()
        if tasks:  # a subscription being torn down must not hold the shutdown up
            await asyncio.wait(tasks, timeout=SHUTDOWN_WAIT)

    async def keep(self) -> None:
        """Until the app stops: do what is due in every round past its deadline or start time.

        A round that can never go on (its tournament gone, or closed before it started)
        is no longer due. One whose keeping fails is put off by ``RETRY_FAULTY`` seconds,
        so that it cannot lead every batch. A tag whose node fails a step rests for
        ``RETRY_FAULTY`` seconds in this process (its rounds left out of the next batches),
        so that the rounds of the other nodes go on.
        """
        resting: dict[str, float] = {}  # tag -> until when (monotonic)
        while not self._stopping:
            now_monotonic = asyncio.get_running_loop().time()
            for tag in [tag for tag, until in resting.items() if until <= now_monotonic]:
                del resting[tag]
            try:
                due = await self.store.due_rounds(DUE_BATCH, resting)
            except StoreUnavailable:
                await asyncio.sleep(1.0)
                continue
            for tournament_id, number in due:
                tag = id_tag(tournament_id)
                if tag in resting:
                    continue
                try:
                    await self._keep_round(tournament_id, number)
                except StoreUnavailable:
                    resting[tag] = asyncio.get_running_loop().time() + RETRY_FAULTY
                except Exception:  # one round's fault must not stop the others
                    log.exception("lockstep round %s/%s", tournament_id, number)
                    try:
                        await self.store.put_off_round(tournament_id, number, RETRY_FAULTY * 1000)
                    except Exception:  # the keeper goes on whatever happens here
                        log.exception("putting off lockstep round %s/%s", tournament_id, number)
            await asyncio.sleep(KEEPER_TICK)

    async def _keep_round(self, tournament_id: str, number: int) -> None:
        """One due round: advanced, or no longer due if it is finished or never can go on."""
        record = await self.store.get_tournament(tournament_id)
        if record is None or not 1 <= number <= record.rounds:
            await self.store.drop_due(tournament_id, number)
            return
        state = await self.advance(record, number)
        closed = record.closed_at is not None or now() >= record.closes_at
        if state.finished or (closed and state.started_at is None):
            await self.store.drop_due(tournament_id, number)

    # --- following the calls ----------------------------------------------------------

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
    async def _watch(self, key: tuple[str, int]) -> AsyncIterator[_Watch]:
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
            watch = self._watches[key] = _Watch()
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
        watch: _Watch,
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
        state = await self.advance(record, number)
        return RoundCalls(
            await self.describe(record, number, state),
            [self._call_of(record, call) for call in fresh],
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
                            data = msgspec.json.encode(self._call_of(record, call))
                            event = watch.events[call.index] = _event(b"call", data, call.index)
                        yield event
                        sent = call.index
                        quiet = loop.time()
                if watch.state is not None and watch.state.finished:
                    status = await self.describe(record, number, watch.state)
                    yield _event(b"end", msgspec.json.encode(status))
                    return
                if loop.time() - quiet >= KEEPALIVE:
                    yield b": keep-alive\r\n\r\n"
                    quiet = loop.time()
                await self._wait(watch, key, KEEPALIVE)


def _last_index(watch: _Watch) -> int:
    """The index of the last call a watch holds (-1: none yet)."""
    return watch.calls[-1].index if watch.calls else -1


def _event(name: bytes, data: bytes, event_id: int | None = None) -> bytes:
    """One server-sent event (``data`` is one line of JSON)."""
    head = b"" if event_id is None else b"id: %d\r\n" % event_id
    return head + b"event: " + name + b"\r\ndata: " + data + b"\r\n\r\n"


def unknown_round(record: TournamentRecord, number: int) -> None:
    """404 for a round the tournament does not have; 409 for an async tournament."""
    if not 1 <= number <= record.rounds:
        raise not_found(
            f"round {number} is not in this tournament (rounds 1..{record.rounds})",
            "unknown-round",
        )
    if record.format != "lockstep":
        raise conflict(
            "this tournament is async: each entrant plays at their own pace, nothing is called",
            "not-lockstep",
        )


__all__ = ["Rounds", "rfc3339_ms", "turns_of", "unknown_round"]
