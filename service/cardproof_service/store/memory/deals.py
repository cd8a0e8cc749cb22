"""The memory store's deals: opened once (claimed, counted, seated), read, confirmed.

Owns the deals and their commitments' claims, each with its expiry (read: expired
entries are dropped as they are met, and every part's are swept every 1,024 deals).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import msgspec

from cardproof_service.store.memory.limits import MemoryLimits
from cardproof_service.store.memory.rounds import MemoryRounds, Round
from cardproof_service.store.records import Claim, DailyQuota, DealRecord, RoundStarted


class MemoryDeals(MemoryRounds, MemoryLimits):
    """Deals and their claims (on rounds, which seat a deal, and limits, which count it)."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """No deal yet."""
        super().__init__(organizers_file)
        self._deals: dict[str, tuple[float, DealRecord]] = {}
        self._claims: dict[str, tuple[float, bytes]] = {}
        self._created = 0

    async def confirm_deal(self, deal_id: str, finished_by: str | None = None) -> None:
        """Nothing to wait for: one process holds it all.

        A finished deal left its owner's games in flight in its last move's step already.
        """
        if finished_by is not None:
            self._release(finished_by, deal_id)

    async def create_deal(
        self,
        record: DealRecord,
        ttl: int,
        commitment: Claim | None = None,
        max_in_flight: int = 0,
        quota: DailyQuota | None = None,
    ) -> bytes | None:
        """Claim the commitment (if any), count the owner's game and store the deal."""
        if self._live(record.deal_id) is not None:
            return None  # the same deal again
        self._created += 1
        if self._created % 1024 == 0:
            self._sweep()
        now = time.monotonic()
        if commitment is not None:
            first = self._claims.get(commitment.commitment_id)
            if first is not None and first[0] > now:
                return first[1]
        seat = None
        if record.lockstep and record.tournament is not None and record.round is not None:
            seat = self._rounds.setdefault((record.tournament, record.round), Round())
            if seat.started_at is not None:
                raise RoundStarted
        self._admit(record, ttl, max_in_flight, quota, now)
        if commitment is not None:
            self._claims[commitment.commitment_id] = (now + commitment.ttl, commitment.claim)
        fresh = msgspec.structs.replace(
            record, moves=[], finished_at=None, blind=True, auto_placed=[]
        )
        self._deals[record.deal_id] = (now + ttl, fresh)
        if seat is not None:
            seat.seats.append(record.deal_id)
        return None

    async def get_claim(self, commitment_id: str) -> bytes | None:
        """The claim, while it is kept."""
        found = self._claims.get(commitment_id)
        return found[1] if found is not None and found[0] > time.monotonic() else None

    def _sweep(self) -> None:
        """Forget every part's expired entries."""
        now = time.monotonic()
        for table in (self._deals, self._claims):
            for key in [k for k, (expires, _) in table.items() if expires <= now]:
                del table[key]
        self._sweep_tournaments()
        self._sweep_in_flight()

    def _live(self, deal_id: str) -> DealRecord | None:
        entry = self._deals.get(deal_id)
        if entry is None:
            return None
        if entry[0] <= time.monotonic():
            del self._deals[deal_id]
            return None
        return entry[1]

    async def get_deal(self, deal_id: str) -> DealRecord | None:
        """A copy of the deal (callers cannot change the stored one)."""
        record = self._live(deal_id)
        if record is None:
            return None
        return msgspec.structs.replace(
            record, moves=list(record.moves), auto_placed=list(record.auto_placed)
        )

    async def get_deals(self, deal_ids: Sequence[str]) -> list[DealRecord]:
        """Copies of the deals found."""
        found = [await self.get_deal(deal_id) for deal_id in deal_ids]
        return [record for record in found if record is not None]

    async def move_counts(self, deal_ids: Sequence[str]) -> list[int]:
        """Moves per deal; -1 for one finished or gone."""
        records = [self._live(deal_id) for deal_id in deal_ids]
        return [
            -1 if record is None or record.finished_at is not None else len(record.moves)
            for record in records
        ]
