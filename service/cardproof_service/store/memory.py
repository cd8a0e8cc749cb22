"""The embedded store: one process, state in dicts, expiry on read."""

from __future__ import annotations

import time

import msgspec

from cardproof_service.store.base import Appended, Claim, DealRecord


class MemoryStore:
    """A store for a single process (``cardproof serve`` without ``REDIS_URL``).

    Each step runs without an ``await`` inside it, so it is atomic on the event loop.
    """

    name = "memory"

    def __init__(self) -> None:
        """An empty store."""
        self._deals: dict[str, tuple[float, DealRecord]] = {}
        self._claims: dict[str, tuple[float, bytes]] = {}
        self._created = 0

    async def ping(self) -> None:
        """Always answers."""

    async def create_deal(
        self, record: DealRecord, ttl: int, commitment: Claim | None = None
    ) -> bytes | None:
        """Claim the commitment (if any) and store the deal, in one step."""
        self._created += 1
        if self._created % 1024 == 0:
            self._sweep()
        now = time.monotonic()
        if commitment is not None:
            first = self._claims.get(commitment.commitment_id)
            if first is not None and first[0] > now:
                return first[1]
            self._claims[commitment.commitment_id] = (now + commitment.ttl, commitment.claim)
        fresh = msgspec.structs.replace(record, moves=[], finished_at=None, blind=True)
        self._deals[record.deal_id] = (now + ttl, fresh)
        return None

    def _sweep(self) -> None:
        now = time.monotonic()
        for table in (self._deals, self._claims):
            for key in [k for k, (expires, _) in table.items() if expires <= now]:
                del table[key]

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
        return msgspec.structs.replace(record, moves=list(record.moves))

    async def append_move(
        self, deal_id: str, index: int, move: str, finished_at: int | None, ttl: int
    ) -> Appended:
        """Append if ``index`` is next."""
        record = self._live(deal_id)
        if record is None:
            return Appended("missing")
        if index != len(record.moves) or record.finished_at is not None:
            return Appended("wrong-index", len(record.moves))
        record.moves.append(move)
        record.finished_at = finished_at
        self._deals[deal_id] = (time.monotonic() + ttl, record)
        return Appended("appended", len(record.moves))

    async def submit_log(
        self, deal_id: str, moves: list[str], finished_at: int, blind: bool, ttl: int
    ) -> Appended:
        """Store a whole log if the deal has none."""
        record = self._live(deal_id)
        if record is None:
            return Appended("missing")
        if record.moves or record.finished_at is not None:
            return Appended("wrong-index", len(record.moves))
        record.moves = list(moves)
        record.finished_at = finished_at
        record.blind = blind
        self._deals[deal_id] = (time.monotonic() + ttl, record)
        return Appended("appended", len(moves))

    async def close(self) -> None:
        """Nothing to release."""
