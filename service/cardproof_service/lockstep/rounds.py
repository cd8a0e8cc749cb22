"""Lockstep rounds (Hoyle's called game): the start, the calls, late placements, the keeper.

Every seated entrant's game of a lockstep round waits for the round's calls: card i+1
is called to all at once when every seat has placed card i (in the store step of the
last placement) or when card i's deadline has passed. Then whoever has not placed card i
has it placed for them, by the variant's first legal move. Everything is derived from
what the store holds (the calls, their times by the store's clock, the placements), so
any replica may make a late placement: the store's index check lets one in. Each
replica runs a :meth:`Rounds.keep` task that looks for rounds past their deadline or
start time; none is special, and losing one stalls nothing.

Rounds depend on play's lower parts (the replay, the receipt a last placement signs),
never the other way round: play asks them to place late cards through
:class:`cardproof_service.deals.play.LatePlacer`. Listeners of a round's calls are served by
:mod:`cardproof_service.lockstep.calls`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import msgspec

from cardproof.games import Game, variant
from cardproof.models import Call, RoundStatus
from cardproof.tournaments import round_deal
from cardproof_service.deals import (
    Commitments,
    DealParts,
    Games,
    Receipts,
    final_total,
    move_result,
    next_card,
    round_commitment_id,
)
from cardproof_service.lockstep.late import SEAT_BATCH, LatePlacements
from cardproof_service.plumbing import (
    Settings,
    conflict,
    not_found,
    now,
    rfc3339_ms,
    tournament_ttl,
)
from cardproof_service.store import (
    CallRecord,
    DealRecord,
    Placement,
    RoundState,
    Store,
    StoreUnavailable,
    TournamentRecord,
    id_tag,
)

log = logging.getLogger("cardproof.lockstep")

KEEPER_TICK = 0.02
"""Seconds between a replica's looks for rounds past their deadline or start time, at most:
a round it advanced is looked at again at its new deadline, if sooner."""
DUE_BATCH = 50
"""Rounds a look takes at most."""
RETRY_FAULTY = 5
"""Seconds a round whose keeping failed (not for want of Redis) is put off."""
HELD_RETRY_MS = 250
"""Milliseconds a round still past its deadline after the keeper advanced it is put off:
its late cards are another replica's batch (placed within their lease), or a seat that
cannot place holds it (a round from before whole logs were refused for lockstep seats,
ended at the close). Never looked at every tick: a placement that calls the next card
makes it due at its own deadline."""
SHUTDOWN_WAIT = 2.0
"""Seconds a stopping app waits for its keeper task to end."""


def turns_of(record: TournamentRecord) -> int:
    """The cards a round of this tournament calls (its variant's moves per game)."""
    cls = variant(record.variant)
    return cls.turns(cls.parse_options(record.options)) or 0


@dataclass
class Rounds:
    """The lockstep rounds of every tournament; one per app."""

    store: Store
    settings: Settings
    commitments: Commitments
    games: Games
    receipts: Receipts
    late: LatePlacements
    _task: asyncio.Task[None] | None = None
    _stopping: bool = False
    _next_look: float = float("inf")
    """When (loop time) the keeper looks next at the latest: the next deadline it knows."""

    @classmethod
    def over(cls, store: Store, settings: Settings, parts: DealParts) -> Rounds:
        """The rounds over the deal flow's lower parts, with their late placements."""
        late = LatePlacements(store, settings, parts.games, parts.receipts)
        return cls(store, settings, parts.commitments, parts.games, parts.receipts, late)

    # --- status ---------------------------------------------------------------------

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
        calls = state.turns or turns_of(record)
        called = 0 if state.started_at is None else state.call + 1
        # played out: its last call placed by every seat (the count then starts again at 0),
        # or nobody was seated; a round finishes otherwise only when its tournament's close
        # completes it (read from the state alone: a long poll's record predates the close)
        played_out = state.started_at is not None and (
            state.seats == 0 or (called == calls and state.placed == 0)
        )
        base = RoundStatus(
            tournament_id=record.tournament_id,
            round=number,
            format=record.format,
            status="finished" if state.finished else "waiting",
            seats=state.seats,
            calls=calls,
            starts_at=starts_at,
            called=called,
            closed=state.finished and not played_out,
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
        if not scheduled and number > 1:
            before = await self.store.round_state(record.tournament_id, number - 1)
            if before.started_at is None:
                raise conflict(
                    f"round {number - 1} has not started: rounds start in order (entries "
                    "close when the first one starts)",
                    "round-order",
                )
        if not scheduled and state.seats == 0:
            raise conflict(
                f"nobody is seated in round {number}: entrants are seated as they open its "
                "game (POST .../rounds/{n}/deal)",
                "no-seats",
            )
        seed = self.commitments.server_seed(round_commitment_id(record.tournament_id, number))
        options, deck = round_deal(record.variant, record.options, seed, record.salt)
        first = next_card(variant(record.variant)(deck, options))
        started = await self.store.start_round(
            record.tournament_id, number, turns_of(record), record.card_seconds * 1000, first
        )
        if started is None:
            if scheduled:
                return await self.store.round_state(record.tournament_id, number)
            raise conflict(f"round {number} has started already", "round-started")
        self.late.prepare_start(record, number, started)
        self._look_at(record.card_seconds)
        return started

    # --- late placements --------------------------------------------------------------

    async def advance(self, record: TournamentRecord, number: int) -> RoundState:
        """The round, once whatever is due has been done: a start, late placements.

        A closed tournament's started rounds are completed instead (:meth:`complete`).
        """
        tournament_id = record.tournament_id
        state = await self.store.round_state(tournament_id, number)
        closed = record.closed_at is not None or now() >= record.closes_at
        if state.started_at is None:
            starts = record.round_starts
            due = starts is not None and starts[number - 1] * 1000 <= state.now
            if due and not closed:
                return await self.start(record, number, scheduled=True)
            if closed and not state.finished:  # it never will: it finishes uncalled
                await self.complete_round(record, number)
                return await self.store.round_state(tournament_id, number)
            return state
        if state.finished:
            return state
        if closed:
            await self.complete_round(record, number)
            return await self.store.round_state(tournament_id, number)
        if state.now < state.deadline:
            return state
        await self.late.place(record, number, state)
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

    def placed(self, tournament_id: str, number: int, deal_id: str) -> None:
        """A player placed their own card: none is decided ahead for them any more."""
        self.late.forget((tournament_id, number), deal_id)

    async def _complete_game(self, seat: DealRecord, record: TournamentRecord) -> None:
        """Place the rest of a closed tournament's open game for its player, to its end.

        The first legal move in the variant's order, each time; the append's index check
        lets exactly one completion in, whichever replica makes it.
        """
        game: Game[Any, Any] = await self.games.replay_off_loop(seat)
        first = len(game.moves)
        texts = []
        while not game.is_over():
            move = game.legal_moves()[0]
            game.play(move)
            texts.append(game.move_text(move))
        if not texts:
            return
        placed = tuple(range(first, first + len(texts)))
        finished_at = now()
        done = msgspec.structs.replace(seat, auto_placed=[*seat.auto_placed, *placed])
        last = move_result(game, len(game.moves) - 1)
        ending = self.receipts.ending(done, game, last, finished_at)
        placement = Placement(record.tournament_id, seat.round or 0, "closing", placed, None)
        await self.store.append_move(
            seat.deal_id,
            first,
            " ".join(texts),
            finished_at,
            tournament_ttl(record, self.settings.tournament_retention),
            final_total(game),
            ending,
            placement,
            tournament=record.tournament_id,
        )

    async def complete_round(self, record: TournamentRecord, number: int) -> None:
        """A closed tournament's round: every open game completed, then finished.

        A round that never started finishes as it is (no card was called): its listeners
        end rather than wait for a card that can never come.
        """
        self.late.drop((record.tournament_id, number))
        state = await self.store.round_state(record.tournament_id, number)
        if state.finished:
            return
        if state.started_at is None:
            await self.store.finish_round(record.tournament_id, number)
            return
        async for seat in self._seats(record.tournament_id, number):
            if seat.finished_at is None:
                await self._complete_game(seat, record)
        await self.store.finish_round(record.tournament_id, number)

    async def complete(self, record: TournamentRecord) -> None:
        """At the close: every started round's open games are completed and scored."""
        if record.format != "lockstep":
            return
        for number in range(1, record.rounds + 1):
            await self.complete_round(record, number)

    # --- the keeper -----------------------------------------------------------------

    def begin(self) -> None:
        """Start this process's keeper task (on app start-up)."""
        if self._task is None:
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(self.keep())

    async def end(self) -> None:
        """Stop the keeper (on app shutdown), waiting for it a moment at most."""
        task, self._task = self._task, None
        self._stopping = True  # the loop ends even if a cancel is lost on the way
        if task is not None:
            task.cancel()
            await asyncio.wait([task], timeout=SHUTDOWN_WAIT)

    async def keep(self) -> None:
        """Until the app stops: do what is due in every round past its deadline or start time.

        A round that can never go on (its tournament gone, or closed before it started)
        is no longer due. One whose keeping fails is put off by ``RETRY_FAULTY`` seconds,
        so that it cannot lead every batch. A tag whose node fails a step rests for
        ``RETRY_FAULTY`` seconds in this process (its rounds left out of the next batches),
        so that the rounds of the other nodes go on.
        """
        resting: dict[str, float] = {}  # tag -> until when (monotonic)
        loop = asyncio.get_running_loop()
        while not self._stopping:
            now_monotonic = loop.time()
            for tag in [tag for tag, until in resting.items() if until <= now_monotonic]:
                del resting[tag]
            if self._next_look <= now_monotonic:
                self._next_look = float("inf")  # looked at now
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
                    next_due = await self._keep_round(tournament_id, number)
                    if next_due is not None:
                        self._look_at(next_due)
                except StoreUnavailable:
                    resting[tag] = loop.time() + RETRY_FAULTY
                except Exception:  # one round's fault must not stop the others
                    log.exception("lockstep round %s/%s", tournament_id, number)
                    try:
                        await self.store.put_off_round(tournament_id, number, RETRY_FAULTY * 1000)
                    except Exception:  # the keeper goes on whatever happens here
                        log.exception("putting off lockstep round %s/%s", tournament_id, number)
            await asyncio.sleep(min(KEEPER_TICK, max(0.001, self._next_look - loop.time())))

    def _look_at(self, seconds: float) -> None:
        """Have the keeper look ``seconds`` from now (a deadline), if not sooner already."""
        with contextlib.suppress(RuntimeError):  # no running loop: no keeper to tell
            when = asyncio.get_running_loop().time() + seconds
            self._next_look = min(self._next_look, when)

    async def _keep_round(self, tournament_id: str, number: int) -> float | None:
        """One due round: advanced, or no longer due if it is finished or never can go on.

        Returns the seconds until its new call's deadline, if it is playing: the keeper
        looks again then rather than up to a tick later.
        """
        record = await self.store.get_tournament(tournament_id)
        if record is None or not 1 <= number <= record.rounds:
            await self.store.drop_due(tournament_id, number)
            return None
        state = await self.advance(record, number)
        closed = record.closed_at is not None or now() >= record.closes_at
        if state.finished or (closed and state.started_at is None):
            await self.store.drop_due(tournament_id, number)
            return None
        if state.started_at is None:
            return None
        if state.now >= state.deadline:  # held past its deadline: not looked at every tick
            await self.store.put_off_round(tournament_id, number, HELD_RETRY_MS)
            return None
        return (state.deadline - state.now) / 1000


def call_of(record: TournamentRecord, call: CallRecord) -> Call:
    """A stored call as its listeners see it: the card, when it was called, its deadline."""
    deadline = call.at + record.card_seconds * 1000
    return Call(call.index, call.card, rfc3339_ms(call.at), rfc3339_ms(deadline))


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


__all__ = ["Rounds", "call_of", "turns_of", "unknown_round"]
