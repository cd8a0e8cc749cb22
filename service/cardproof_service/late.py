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
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardproof.games import Game, replay_log
from cardproof_service.games import Games, final_total, move_result, next_card
from cardproof_service.receipts import Receipts
from cardproof_service.settings import Settings
from cardproof_service.store import DealRecord, LatePlacement, Store, TournamentRecord
from cardproof_service.times import now, tournament_ttl

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


@dataclass
class LatePlacements:
    """A lockstep round's late cards, placed a batch at a time; one per app."""

    store: Store
    settings: Settings
    games: Games
    receipts: Receipts
    kept: LateGames = field(default_factory=LateGames)

    async def place(self, record: TournamentRecord, number: int, call: int) -> None:
        """Place card ``call`` for every seat of the round that has not placed it.

        Each batch is taken in the store first: a batch another replica (or another task
        here) has taken is left to it. :data:`BATCHES_AT_ONCE` are in hand at a time.
        """
        tournament_id = record.tournament_id
        deal_ids = await self.store.round_seats(tournament_id, number)
        gate = asyncio.Semaphore(BATCHES_AT_ONCE)

        async def place_batch(batch: int, seats: Sequence[str]) -> None:
            async with gate:
                if await self.store.claim_seats(tournament_id, number, call, batch, CLAIM_LEASE_MS):
                    await self._place_batch(record, number, call, seats)

        size = SEAT_BATCH
        batches = [deal_ids[start : start + size] for start in range(0, len(deal_ids), size)]
        done = await asyncio.gather(
            *(place_batch(n, seats) for n, seats in enumerate(batches)), return_exceptions=True
        )
        for outcome in done:  # every batch had its go; then the first failure is told
            if isinstance(outcome, BaseException):
                raise outcome

    async def _place_batch(
        self, record: TournamentRecord, number: int, call: int, deal_ids: Sequence[str]
    ) -> None:
        """One batch: the seats still at ``call`` decided off the loop, placed in one step."""
        counts = await self.store.move_counts(deal_ids)
        idle = [deal_id for deal_id, count in zip(deal_ids, counts, strict=True) if count == call]
        if not idle:
            return
        seats: dict[str, LateSeat] = {}
        unread = []
        for deal_id in idle:
            seat = self.kept.at(deal_id, call)
            if seat is None:
                unread.append(deal_id)
            else:
                seats[deal_id] = seat
        records = await self.store.get_deals(unread) if unread else []
        loop = asyncio.get_running_loop()
        decided = await loop.run_in_executor(
            self.games.replays, self._decide, list(seats.values()), records, call
        )
        if not decided:
            return
        placements = [placement for placement, _ in decided]
        card = next_card(decided[-1][1].game)
        ttl = tournament_ttl(record, self.settings.tournament_retention)
        placed = set(
            await self.store.place_late(record.tournament_id, number, call, ttl, card, placements)
        )
        for placement, seat in decided:
            if placement.deal_id in placed:
                self.kept.keep(placement.deal_id, seat)

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
