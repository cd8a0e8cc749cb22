"""Late placements of a lockstep round: the idle seats' cards placed in batches.

When a call's deadline passes, every seat that has not placed the called card has it
placed for the player: the first legal move in the variant's order. A round of
thousands of seats, most of them idle, must not stall the server at each deadline, so:

- the seats are taken :data:`SEAT_BATCH` at a time, each batch claimed in the store
  for a while (:meth:`~cardproof_service.store.RoundStore.claim_seats`), so that the
  replicas share a deadline's work and a replica that dies mid-batch leaves it to the
  others once its lease is over;
- which seats are still to place is one light read of their move counts;
- each batch's moves are decided in the replay threads, never on the event loop, on
  this process's copies of the idle games (:class:`LateGames`; a seat read and replayed
  only when no copy is at its index), and a finishing move signs its receipt there;
- one store step places the whole batch (``place_late``), which checks each seat's index
  again, so a player's move that came first stands and no card is placed twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardproof.games import Game, replay_log
from cardproof_service.deals import (
    SIGNATURE_MOVES,
    Games,
    Receipts,
    final_total,
    move_result,
    next_card,
)
from cardproof_service.plumbing import Settings, now, tournament_ttl
from cardproof_service.store import DealRecord, LatePlacement, RoundState, Store, TournamentRecord

log = logging.getLogger("cardproof.lockstep")

SEAT_BATCH = 256
"""Seats a late placement takes (and the store places) at a time."""
BATCHES_AT_ONCE = 4
"""Batches a replica has in hand at once: one decided in a thread while others are in the
store."""
CLAIM_LEASE_MS = 5_000
"""How long a batch taken by a replica is left to it: another takes it after that."""
LATE_GAMES = 8_192
"""Idle games this process keeps at their next index, so as not to replay them."""


@dataclass(slots=True)
class LateSeat:
    """An idle seat's game at its stored index, and the facts its receipt names.

    ``record`` is the seat's as read, with the cards placed for the player kept current
    here (``auto_placed``); its moves are the game's, not kept twice.
    """

    record: DealRecord
    game: Game[Any, Any]


class LateGames:
    """The idle seats' games this process placed last, by deal id (least recent go first).

    A copy is used only when its move count is the call being placed; the store's step
    refuses a stale one (the player moved meanwhile, here or on another replica).
    """

    def __init__(self, size: int = LATE_GAMES) -> None:
        """At most ``size`` games."""
        self._seats: OrderedDict[str, LateSeat] = OrderedDict()
        self._size = size

    def at(self, deal_id: str, index: int) -> LateSeat | None:
        """The seat's copy if it stands at ``index`` (else it is stale and forgotten)."""
        seat = self._seats.pop(deal_id, None)
        if seat is None or len(seat.game.moves) != index or seat.game.is_over():
            return None
        return seat

    def keep(self, deal_id: str, seat: LateSeat) -> None:
        """Keep a game placed for its player (an over one is never needed again)."""
        if seat.game.is_over():
            return
        self._seats[deal_id] = seat
        if len(self._seats) > self._size:
            self._seats.popitem(last=False)

    def __len__(self) -> int:
        """Games kept."""
        return len(self._seats)


Decided = tuple[LatePlacement, LateSeat]
"""A seat's placement, and its game after it."""


async def _all(steps: Iterable[Awaitable[list[LateSeat]]]) -> list[list[LateSeat]]:
    """Every step run to its end, then the first failure raised (if any)."""
    done = await asyncio.gather(*steps, return_exceptions=True)
    for outcome in done:
        if isinstance(outcome, BaseException):
            raise outcome
    return [outcome for outcome in done if not isinstance(outcome, BaseException)]


@dataclass
class LatePlacements:
    """A lockstep round's late cards, placed a batch at a time; one per app."""

    store: Store
    settings: Settings
    games: Games
    receipts: Receipts
    kept: LateGames = field(default_factory=LateGames)
    prepared: dict[tuple[str, int], tuple[int, dict[str, Decided]]] = field(default_factory=dict)
    """Per round, the next call and the placements decided ahead for it, by deal id."""
    _preparing: set[asyncio.Task[None]] = field(default_factory=set)

    async def place(self, record: TournamentRecord, number: int, state: RoundState) -> None:
        """Place the called card for every seat of the round that has not placed it.

        When this process decided every unplaced seat's card ahead (every seat's, as at
        the start, or the round's placed seats and its prepared ones make all the seats),
        those are placed at once: no count, no claim, no decision at the deadline (the
        store step leaves the seats that placed theirs). Otherwise each batch is taken in
        the store first (a batch another replica, or another task here, has taken is left
        to it), :data:`BATCHES_AT_ONCE` in hand at a time, and its idle seats found by
        their counts. Then the next card's placements are decided ahead, in the time the
        players have to place it.
        """
        key = (record.tournament_id, number)
        call = state.call
        ahead = self._ahead(key, call)
        if ahead and (len(ahead) >= state.seats or state.placed + len(ahead) == state.seats):
            placed = await self._place_decided(record, number, call, list(ahead.values()))
        else:
            placed = await self._place_batches(record, number, call, ahead)
        if call + 2 < state.turns and self._room() >= len(placed):
            self._soon(self._prepare(key, call + 1, placed))
        else:
            for seat in placed:
                self.kept.keep(seat.record.deal_id, seat)

    def prepare_start(self, record: TournamentRecord, number: int, state: RoundState) -> None:
        """A round just started: decide card 0 ahead for every seat (read in the meantime)."""
        if state.turns >= 2 and self._room() >= state.seats:
            self._soon(self._prepare_first(record, number))

    async def _prepare_first(self, record: TournamentRecord, number: int) -> None:
        """Card 0 decided for every seat, a batch read and replayed at a time."""
        deal_ids = await self.store.round_seats(record.tournament_id, number)
        decided: list[Decided] = []
        for start in range(0, len(deal_ids), SEAT_BATCH):
            records = await self.store.get_deals(deal_ids[start : start + SEAT_BATCH])
            decided += await self._decide_sized([], records, 0)
        self._ready((record.tournament_id, number), 0, decided)

    def _soon(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (kept referenced until it is done).

        Deciding ahead is only a speed-up: if it fails, the deadline decides as it comes.
        """

        async def guarded() -> None:
            try:
                await work
            except Exception:
                log.exception("deciding late placements ahead")

        task = asyncio.get_running_loop().create_task(guarded())
        self._preparing.add(task)
        task.add_done_callback(self._preparing.discard)

    def drop(self, key: tuple[str, int]) -> None:
        """The round is over (its tournament closed): nothing decided ahead is needed."""
        self.prepared.pop(key, None)

    def _ready(self, key: tuple[str, int], call: int, decided: list[Decided]) -> None:
        """Keep placements decided ahead, unless a later call's are kept already."""
        kept = self.prepared.get(key)
        if kept is None or kept[0] < call:
            self.prepared[key] = (call, {placed.deal_id: (placed, s) for placed, s in decided})

    def forget(self, key: tuple[str, int], deal_id: str) -> None:
        """The seat placed its card itself: its card decided ahead is not to be placed.

        Then, with every seat's own move seen here (one replica), the seats decided ahead
        are exactly the idle ones, and a deadline offers the store no other.
        """
        ready = self.prepared.get(key)
        if ready is not None:
            ready[1].pop(deal_id, None)

    def _ahead(self, key: tuple[str, int], call: int) -> dict[str, Decided]:
        """The placements decided ahead for ``call`` of the round (taken: used once)."""
        ready = self.prepared.pop(key, None)
        return ready[1] if ready is not None and ready[0] == call else {}

    def _room(self) -> int:
        """How many more idle games may be held decided ahead (:data:`LATE_GAMES` in all)."""
        return LATE_GAMES - sum(len(ready) for _, ready in self.prepared.values())

    async def _prepare(self, key: tuple[str, int], call: int, seats: list[LateSeat]) -> None:
        """Decide ``call`` ahead for the seats just placed (their games stand at ``call``).

        A finishing card is never decided ahead: its receipt says when it was placed.
        """
        decided = await self._decide_sized(seats, [], call)
        self._ready(key, call, decided)

    async def _place_decided(
        self, record: TournamentRecord, number: int, call: int, decided: list[Decided]
    ) -> list[LateSeat]:
        """Placements decided ahead, :data:`SEAT_BATCH` a store step; the seats placed."""
        size = SEAT_BATCH
        steps = [decided[start : start + size] for start in range(0, len(decided), size)]
        gate = asyncio.Semaphore(BATCHES_AT_ONCE)

        async def step(part: list[Decided]) -> list[LateSeat]:
            async with gate:
                return await self._store(record, number, call, part)

        return [seat for part in await _all(step(part) for part in steps) for seat in part]

    async def _place_batches(
        self, record: TournamentRecord, number: int, call: int, ahead: dict[str, Decided]
    ) -> list[LateSeat]:
        """Every batch of the round's seats this replica can take; the seats placed."""
        tournament_id = record.tournament_id
        deal_ids = await self.store.round_seats(tournament_id, number)
        gate = asyncio.Semaphore(BATCHES_AT_ONCE)

        async def place_batch(batch: int, seats: Sequence[str]) -> list[LateSeat]:
            async with gate:
                if await self.store.claim_seats(tournament_id, number, call, batch, CLAIM_LEASE_MS):
                    return await self._place_batch(record, number, call, seats, ahead)
                return []

        size = SEAT_BATCH
        batches = [deal_ids[start : start + size] for start in range(0, len(deal_ids), size)]
        done = await _all(place_batch(n, seats) for n, seats in enumerate(batches))
        return [seat for part in done for seat in part]

    async def _place_batch(
        self,
        record: TournamentRecord,
        number: int,
        call: int,
        deal_ids: Sequence[str],
        ahead: dict[str, Decided],
    ) -> list[LateSeat]:
        """One batch: the seats still at ``call`` decided off the loop, placed in one step."""
        counts = await self.store.move_counts(deal_ids)
        idle = [deal_id for deal_id, count in zip(deal_ids, counts, strict=True) if count == call]
        decided = [ahead.pop(deal_id) for deal_id in idle if deal_id in ahead]
        known = {placement.deal_id for placement, _ in decided}
        seats: list[LateSeat] = []
        unread = []
        for deal_id in idle:
            if deal_id in known:
                continue
            seat = self.kept.at(deal_id, call)
            if seat is None:
                unread.append(deal_id)
            else:
                seats.append(seat)
        records = await self.store.get_deals(unread) if unread else []
        if seats or records:
            decided += await self._decide_sized(seats, records, call)
        return await self._store(record, number, call, decided)

    async def _store(
        self, record: TournamentRecord, number: int, call: int, decided: list[Decided]
    ) -> list[LateSeat]:
        """One store step for decided placements; the seats it placed."""
        if not decided:
            return []
        placements = [placement for placement, _ in decided]
        card = next_card(decided[-1][1].game)
        ttl = tournament_ttl(record, self.settings.tournament_retention)
        placed = set(
            await self.store.place_late(record.tournament_id, number, call, ttl, card, placements)
        )
        return [seat for placement, seat in decided if placement.deal_id in placed]

    async def _decide_sized(
        self, kept: list[LateSeat], records: list[DealRecord], call: int
    ) -> list[Decided]:
        """:meth:`_decide`, inline when small (a few seats, short logs), else in a thread.

        Each seat counts its move and a signature (its game may end here), and a seat
        read from the store the moves of its replay too.
        """
        seats = len(kept) + len(records)
        replayed = sum(len(record.moves) for record in records)
        size = seats * (1 + SIGNATURE_MOVES) + replayed
        return await self.games.sized(size, self._decide, kept, records, call)

    def _decide(
        self, kept: list[LateSeat], records: list[DealRecord], call: int
    ) -> list[tuple[LatePlacement, LateSeat]]:
        """Each seat's first legal move at ``call`` (in a replay thread), and its game after.

        Read seats are replayed here, each deck derived once for the batch: a round's
        seats share it.
        """
        decks: dict[tuple[str, str, bytes], tuple[Any, ...]] = {}
        seats = list(kept)
        for record in records:
            if len(record.moves) != call or record.finished_at is not None:
                continue  # placed (or finished) since its count was read
            options = msgspec.json.encode(record.options)
            deck_key = (record.commitment_id, record.client_seed, options)
            if deck_key not in decks:
                decks[deck_key] = self.games.cards_of(record)
            cards = decks[deck_key]
            log = " ".join(record.moves)
            game = replay_log(record.variant, cards, record.options, log, dealt=True)
            seats.append(LateSeat(msgspec.structs.replace(record, moves=[]), game))
        decided = []
        at = now()
        for seat in seats:
            game = seat.game
            move = game.legal_moves()[0]
            game.play(move)
            text = game.move_text(move)
            seat.record.auto_placed.append(call)  # a copy of this process's own
            finished_at = at if game.is_over() else None
            ending = None
            if finished_at is not None:
                last = move_result(game, call)
                ending = self.receipts.ending(seat.record, game, last, finished_at)
            placement = LatePlacement(
                seat.record.deal_id, text, finished_at, final_total(game), ending
            )
            decided.append((placement, seat))
        return decided


__all__ = [
    "BATCHES_AT_ONCE",
    "CLAIM_LEASE_MS",
    "LATE_GAMES",
    "SEAT_BATCH",
    "LateGames",
    "LatePlacements",
    "LateSeat",
]
