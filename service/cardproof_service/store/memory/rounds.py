"""The memory store's lockstep rounds: seats, calls, the rounds due, and their news.

Owns each round as it stands (:class:`Round`), when rounds are due, and a queue per
news subscription. A deal is seated in its create step (deals.py) and a call completed
by an append (moves.py); a tournament dropped takes its rounds along.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from pathlib import Path

import cardproof_service.store.keys as layout
from cardproof_service.store.memory.core import now_ms
from cardproof_service.store.memory.tournaments import MemoryTournaments
from cardproof_service.store.records import CallRecord, RoundState


@dataclass
class Round:
    """A lockstep round: its seats (deal ids), its calls and where it stands."""

    seats: list[str] = field(default_factory=list)
    started_at: int | None = None
    call: int = -1
    called_at: int = 0
    placed: int = 0
    turns: int = 0
    card_ms: int = 0
    finished: bool = False
    calls: list[CallRecord] = field(default_factory=list)

    def state(self, now: int) -> RoundState:
        return RoundState(
            seats=len(self.seats),
            now=now,
            started_at=self.started_at,
            call=self.call,
            called_at=self.called_at,
            placed=self.placed,
            turns=self.turns,
            card_ms=self.card_ms,
            finished=self.finished,
        )


class MemoryRounds(MemoryTournaments):
    """Lockstep rounds (on tournaments: a round goes when its tournament expires)."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """No round yet."""
        super().__init__(organizers_file)
        self._rounds: dict[tuple[str, int], Round] = {}
        """Lockstep rounds, by (tournament, round)."""
        self._due: dict[tuple[str, int], int] = {}
        """Rounds and when they are due (ms): a call's deadline, or a start time."""
        self._news: set[asyncio.Queue[tuple[str, int]]] = set()
        """One queue per subscription of :meth:`round_news`."""
        self._seat_claims: dict[tuple[str, int, int, int], int] = {}
        """Batches of seats taken for a call's late placements, until when (ms)."""

    def _first_round_started(self, tournament_id: str) -> bool:
        """Whether round 1 of the tournament has started (its entries close then)."""
        first = self._rounds.get((tournament_id, 1))
        return first is not None and first.started_at is not None

    def _drop_tournament(self, tournament_id: str) -> None:
        """Forget an expired tournament (see tournaments.py), then its rounds."""
        super()._drop_tournament(tournament_id)
        for seat in [seat for seat in self._rounds if seat[0] == tournament_id]:
            del self._rounds[seat]
            self._due.pop(seat, None)

    def _call_next(self, tournament_id: str, round_number: int, card: str | None, now: int) -> None:
        """Every seat placed the call: call the next card, or finish the round."""
        key = (tournament_id, round_number)
        seat = self._rounds[key]
        seat.placed = 0
        if seat.call + 1 >= seat.turns:
            seat.finished = True
            self._due.pop(key, None)
        else:
            seat.call += 1
            seat.called_at = now
            seat.calls.append(CallRecord(seat.call, card, now))
            self._due[key] = now + seat.card_ms
        self._tell(key)

    def _tell(self, key: tuple[str, int]) -> None:
        for queue in self._news:
            queue.put_nowait(key)

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        turns: int,
        card_ms: int,
        first_card: str | None,
    ) -> RoundState | None:
        """Start the round and call card 0 (a round without seats starts finished)."""
        key = (tournament_id, round_number)
        seat = self._rounds.setdefault(key, Round())
        if seat.started_at is not None:
            return None
        now = now_ms()
        seat.started_at, seat.turns, seat.card_ms = now, turns, card_ms
        if not seat.seats:
            seat.finished = True
            self._due.pop(key, None)
        else:
            seat.call, seat.called_at, seat.placed = 0, now, 0
            seat.calls.append(CallRecord(0, first_card, now))
            self._due[key] = now + card_ms
        self._tell(key)
        return seat.state(now)

    async def round_state(self, tournament_id: str, round_number: int) -> RoundState:
        """The round, or an empty one."""
        seat = self._rounds.get((tournament_id, round_number), Round())
        return seat.state(now_ms())

    async def round_calls(
        self, tournament_id: str, round_number: int, after: int = -1
    ) -> list[CallRecord]:
        """The calls after ``after``."""
        seat = self._rounds.get((tournament_id, round_number), Round())
        return seat.calls[max(0, after + 1) :]

    async def round_seats(self, tournament_id: str, round_number: int) -> list[str]:
        """The seated deal ids."""
        return list(self._rounds.get((tournament_id, round_number), Round()).seats)

    async def finish_round(self, tournament_id: str, round_number: int) -> None:
        """Mark it finished."""
        key = (tournament_id, round_number)
        self._rounds.setdefault(key, Round()).finished = True
        self._due.pop(key, None)
        self._tell(key)

    async def schedule_round(self, tournament_id: str, round_number: int, at_ms: int) -> None:
        """Due from ``at_ms``."""
        self._due[(tournament_id, round_number)] = at_ms

    async def due_rounds(self, limit: int, resting: Collection[str] = ()) -> list[tuple[str, int]]:
        """The rounds due now, the longest due first (none of a resting tag)."""
        now = now_ms()
        due = sorted(
            (at, key)
            for key, at in self._due.items()
            if at <= now and layout.id_tag(key[0]) not in resting
        )
        return [key for _, key in due[:limit]]

    async def put_off_round(self, tournament_id: str, round_number: int, delay_ms: int) -> None:
        """Due ``delay_ms`` from now, if due at all and not later already."""
        key = (tournament_id, round_number)
        if key in self._due:
            self._due[key] = max(self._due[key], now_ms() + delay_ms)

    async def drop_due(self, tournament_id: str, round_number: int) -> None:
        """No longer due."""
        self._due.pop((tournament_id, round_number), None)

    async def claim_seats(
        self, tournament_id: str, round_number: int, call: int, batch: int, lease_ms: int
    ) -> bool:
        """The batch, unless taken and its lease not over (old leases go as they end)."""
        now = now_ms()
        if len(self._seat_claims) > 4096:
            self._seat_claims = {k: until for k, until in self._seat_claims.items() if until > now}
        key = (tournament_id, round_number, call, batch)
        if self._seat_claims.get(key, 0) > now:
            return False
        self._seat_claims[key] = now + lease_ms
        return True

    async def round_news(self) -> AsyncIterator[tuple[str, int]]:
        """Rounds as they call, from an in-process queue."""
        queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self._news.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._news.discard(queue)
