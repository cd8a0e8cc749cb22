"""The memory store's moves: a deal's log, appended or submitted whole, and its result.

Each is one step on the deal and what it is part of: its lockstep round (a call
completed, the next card called), its tournament (refused once closed), the standings
its result goes into, and its owner's games in flight.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from cardproof_service.store.memory.core import now_ms
from cardproof_service.store.memory.deals import MemoryDeals
from cardproof_service.store.memory.log import MemoryLog
from cardproof_service.store.memory.rounds import Round
from cardproof_service.store.records import (
    Appended,
    Ending,
    LatePlacement,
    OpenTournament,
    Placement,
)


class MemoryMoves(MemoryDeals, MemoryLog):
    """Appends and whole logs, on deals (and through them every other part) and the log.

    A finishing step pools the game's receipt entries in the log's pool.
    """

    async def append_move(
        self,
        deal_id: str,
        index: int,
        move: str,
        finished_at: int | None,
        ttl: int,
        total: int | None = None,
        ending: Ending | None = None,
        placement: Placement | None = None,
        open_tournament: OpenTournament | None = None,
        owner: str | None = None,
        tournament: str | None = None,
    ) -> Appended:
        """Append if ``index`` is next (and, in a lockstep round, called)."""
        record = self._live(deal_id)
        if record is None:
            return Appended("missing")
        if self._closed(open_tournament):
            return Appended("closed", len(record.moves))
        seat = None
        if placement is not None and placement.by != "closing" and record.lockstep:
            seat = self._rounds.get((placement.tournament, placement.round), Round())
        call = -1 if seat is None else seat.call
        if index != len(record.moves) or record.finished_at is not None:
            return Appended("wrong-index", len(record.moves), call)
        now = now_ms()
        if seat is not None:
            if seat.started_at is None or seat.finished or index > seat.call:
                return Appended("not-called", len(record.moves), call)
            late = now >= seat.called_at + seat.card_ms
            if placement is not None and late != (placement.by == "auto"):
                return Appended("late" if late else "early", len(record.moves), call)
        record.moves.extend(move.split())
        if placement is not None:
            record.auto_placed.extend(placement.auto)
        record.finished_at = finished_at
        if finished_at is not None:
            record.ending = ending
            self._pool_ending(b"" if ending is None else ending.log)
        expires = time.monotonic() + ttl
        self._deals[deal_id] = (expires, record)
        self._touch(record, expires)
        self._record_result(record, total)
        if seat is not None and placement is not None and index == seat.call:
            seat.placed += 1
            if seat.placed >= len(seat.seats):
                self._call_next(placement.tournament, placement.round, placement.next_card, now)
        return Appended("appended", len(record.moves), -1 if seat is None else seat.call)

    async def place_late(
        self,
        tournament_id: str,
        round_number: int,
        call: int,
        ttl: int,
        next_card: str | None,
        seats: Sequence[LatePlacement],
    ) -> list[str]:
        """Each seat's ``auto`` append, one after the other with no await between them."""
        placed = []
        for seat in seats:
            placement = Placement(tournament_id, round_number, "auto", (call,), next_card)
            appended = await self.append_move(  # never awaits anything: one step in all
                seat.deal_id,
                call,
                seat.move,
                seat.finished_at,
                ttl,
                seat.total,
                seat.ending,
                placement,
                tournament=tournament_id,
            )
            if appended.outcome == "appended":
                placed.append(seat.deal_id)
        return placed

    async def submit_log(
        self,
        deal_id: str,
        moves: list[str],
        finished_at: int,
        blind: bool,
        ttl: int,
        total: int | None = None,
        ending: Ending | None = None,
        open_tournament: OpenTournament | None = None,
        owner: str | None = None,
        tournament: str | None = None,
    ) -> Appended:
        """Store a whole log if the deal has none (and is no lockstep seat)."""
        record = self._live(deal_id)
        if record is None:
            return Appended("missing")
        if self._closed(open_tournament):
            return Appended("closed", len(record.moves))
        if record.moves or record.finished_at is not None:
            return Appended("wrong-index", len(record.moves))
        if record.lockstep:  # played one call at a time, never by a whole log
            return Appended("lockstep", len(record.moves))
        record.moves = list(moves)
        record.finished_at = finished_at
        record.blind = blind
        record.ending = ending
        self._pool_ending(b"" if ending is None else ending.log)
        expires = time.monotonic() + ttl
        self._deals[deal_id] = (expires, record)
        self._touch(record, expires)
        self._record_result(record, total)
        return Appended("appended", len(moves))
