"""The memory store's limits: requests by window, games in flight, deals and tournaments a day.

Owns each client's counters, and each organizer's count of a day (tournaments made,
invite codes issued). A deal is counted against its client in the step that
opens it (deals.py), and leaves its owner's games in flight when its last move lands
(moves.py) or it expires.
"""

from __future__ import annotations

import time
from pathlib import Path

from cardproof_service.store.memory.core import MemoryCore
from cardproof_service.store.records import (
    DailyQuota,
    DealRecord,
    Hits,
    OrganizerQuota,
    OverDailyQuota,
    OverOrganizerQuota,
    TooManyGames,
)


class MemoryLimits(MemoryCore):
    """Rate limits, and each client's games in flight and deals of the day."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """Nothing counted yet."""
        super().__init__(organizers_file)
        self._in_flight: dict[str, dict[str, float]] = {}
        """Per owner: its unfinished deals and when each expires."""
        self._quota_day = 0
        """The day (UTC, days since the epoch) ``_deals_today`` counts in."""
        self._deals_today: dict[str, int] = {}
        """Per client: deals opened in ``_quota_day``."""
        self._window = 0
        """The number of the rate-limit window ``_hits`` counts in."""
        self._hits: dict[str, int] = {}
        """Per client: requests counted in the current window."""
        self._organizers_today: dict[tuple[str, int], list[int]] = {}
        """Per organizer and day: [tournaments made, invite codes issued]."""

    async def count_request(self, client: str, window: int, weight: int = 1) -> Hits:
        """Count in the client's fixed window (windows start at multiples of ``window``)."""
        now = int(time.time())
        number = now // window
        if number != self._window:  # a new window: every count starts again
            self._window, self._hits = number, {}
        count = self._hits.get(client, 0) + weight
        self._hits[client] = count
        return Hits(count, (number + 1) * window - now)

    def _admit(
        self,
        record: DealRecord,
        ttl: int,
        max_in_flight: int,
        quota: DailyQuota | None,
        now: float,
    ) -> None:
        """Count a new deal against its client, or refuse it with nothing counted.

        Over its ``quota`` of deals a day :class:`OverDailyQuota`; with a cap on its
        owner's games in flight, over the cap :class:`TooManyGames` (expired deals no
        longer count). ``now`` is the monotonic clock of expiries.
        """
        if quota is not None:
            if quota.day != self._quota_day:  # a new day: every count starts again
                self._quota_day, self._deals_today = quota.day, {}
            if self._deals_today.get(quota.client, 0) >= quota.limit:
                raise OverDailyQuota(quota.limit, quota.seconds_left)
        if record.owner is not None and max_in_flight > 0:
            games = self._in_flight.setdefault(record.owner, {})
            for deal_id in [d for d, expires in games.items() if expires <= now]:
                del games[deal_id]
            if len(games) >= max_in_flight:
                raise TooManyGames(max_in_flight, max(1, round(min(games.values()) - now)))
            games[record.deal_id] = now + ttl
        if quota is not None:
            self._deals_today[quota.client] = self._deals_today.get(quota.client, 0) + 1

    def _touch(self, record: DealRecord, expires: float) -> None:
        """Keep an owner's count in step with its deal: finished, it no longer counts."""
        games = self._in_flight.get(record.owner) if record.owner is not None else None
        if games is None:
            return
        if record.finished_at is not None:
            games.pop(record.deal_id, None)
        elif record.deal_id in games:
            games[record.deal_id] = expires

    def _release(self, owner: str, deal_id: str) -> None:
        """The deal no longer among its owner's games in flight."""
        self._in_flight.get(owner, {}).pop(deal_id, None)

    def _sweep_in_flight(self) -> None:
        """Forget expired deals among every owner's games in flight."""
        now = time.monotonic()
        for owner, games in list(self._in_flight.items()):
            for deal_id in [d for d, expires in games.items() if expires <= now]:
                del games[deal_id]
            if not games:
                del self._in_flight[owner]

    async def spend_organizer_quota(
        self, quota: OrganizerQuota, tournaments: int, invites: int
    ) -> None:
        """Both counts of the day, or neither (past days' counts dropped)."""
        for key in [key for key in self._organizers_today if key[1] < quota.day]:
            del self._organizers_today[key]
        spent = self._organizers_today.setdefault((quota.organizer_id, quota.day), [0, 0])
        for what, limit, used, more in (
            ("tournaments", quota.tournaments, spent[0], tournaments),
            ("invites", quota.invites, spent[1], invites),
        ):
            if limit and more and used + more > limit:
                raise OverOrganizerQuota(what, limit, used, quota.seconds_left)
        spent[0] += tournaments
        spent[1] += invites
