"""The Redis store's limits: requests by window, games in flight, deals and tournaments a day.

Owns the keys under a client's tag (its rate counter, its deals in flight, its deals of
the day), an organizer's count of a day under the organizer's tag, and the scripts that
alone write them. Opening, moving and finishing a deal
(deals.py, moves.py) count and release it here, in steps of their own: a client's keys
and a deal's live under different tags, so on different nodes of a cluster.
"""

from __future__ import annotations

import contextlib
import time
from typing import Final

from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import (
    DailyQuota,
    Hits,
    OrganizerQuota,
    OverDailyQuota,
    OverOrganizerQuota,
    StoreUnavailable,
    TooManyGames,
)
from cardproof_service.store.redis.core import RedisClient, RedisCore

_ADMIT: Final = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return false end
local ttl = tonumber(ARGV[2])
if ARGV[4] ~= '' and tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[4]) then
  return {'quota', tonumber(ARGV[5])}
end
local now = tonumber(redis.call('TIME')[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[3] ~= '' and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'full', math.max(1, tonumber(oldest[2]) - now)}
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('TTL', KEYS[1]) < ttl then redis.call('EXPIRE', KEYS[1], ttl) end
if ARGV[4] ~= '' then
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]) + 3600)
end
return false
"""
"""A new deal (``ARGV[1]``, its id) counted among its client's games in flight (``KEYS[1]``,
by expiry; within the cap ``ARGV[3]`` when there is one) and among its deals of the day
(``KEYS[2]``) within the quota when there is one; both keys are under the client's tag.
The deal is listed in flight even with no cap, so that the release script can give its
day's count back. A deal already listed is this script's own first run: done."""

_RELEASE: Final = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 and ARGV[2] ~= '' then
  if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
end
return 1
"""
"""A deal no longer in flight (finished; or never opened: then, with ``ARGV[2]``, not
counted among the day's deals either)."""

_EXTEND: Final = """
redis.call('ZADD', KEYS[1], 'XX', tonumber(redis.call('TIME')[1]) + tonumber(ARGV[2]), ARGV[1])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
"""
"""A moved deal in flight expires later, as the deal itself does."""
_COUNT_REQUEST: Final = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""
"""``ARGV[2]`` more requests in a client's window (the counter expires with the window)."""


_SPEND_ORGANIZER_QUOTA: Final = """
local used = redis.call('HMGET', KEYS[1], 'tournaments', 'invites')
local kinds = {'tournaments', 'invites'}
for i = 1, 2 do
  local limit, more = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i - 1])
  local so_far = tonumber(used[i] or '0')
  if limit > 0 and more > 0 and so_far + more > limit then return {kinds[i], so_far} end
end
redis.call('HINCRBY', KEYS[1], 'tournaments', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'invites', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return false
"""
"""Count ``ARGV[1]`` tournaments (limit ``ARGV[2]``) and ``ARGV[3]`` invite codes (limit
``ARGV[4]``) in the organizer's day (``KEYS[1]``, kept ``ARGV[5]`` seconds): both or,
past a limit (0: none), neither, naming it and its count so far."""


class RedisLimits(RedisCore):
    """Rate limits, and each client's games in flight and deals of the day."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """The core, and the scripts of the client's keys."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._admit = client.register_script(_ADMIT)
        self._release = client.register_script(_RELEASE)
        self._extend = client.register_script(_EXTEND)
        self._count_request = client.register_script(_COUNT_REQUEST)
        self._spend_organizer_quota = client.register_script(_SPEND_ORGANIZER_QUOTA)

    async def count_request(self, client: str, window: int, weight: int = 1) -> Hits:
        """The count script on the client's counter for the current window."""
        now = int(time.time())
        number = now // window
        key = layout.rate(client, number)
        count = await self._call(lambda: self._count_request(keys=[key], args=[window + 1, weight]))
        return Hits(int(count), (number + 1) * window - now)

    async def _give_back(self, deal_id: str, client: str, quota: DailyQuota | None) -> None:
        """The release script for a deal that was refused, if Redis answers.

        Else its count lasts until the deal would have expired, the day's until the day ends.
        """
        with contextlib.suppress(StoreUnavailable):
            await self._release_deal(deal_id, client, quota)

    async def _admit_deal(
        self, deal_id: str, client: str, ttl: int, max_in_flight: int, quota: DailyQuota | None
    ) -> None:
        """The admit script: the deal counted among its client's games and deals of the day.

        Over the cap :class:`TooManyGames`, over the quota :class:`OverDailyQuota`.
        """
        day = quota.day if quota is not None else 0
        keys = [layout.in_flight(client), layout.deals_today(client, day)]
        args: list[EncodableT] = [deal_id, ttl, max_in_flight or ""]
        args += ["", ""] if quota is None else [quota.limit, quota.seconds_left]
        refused = await self._written(
            keys[0], lambda c: self._admit(keys=keys, args=args, client=c)
        )
        if isinstance(refused, list):  # ['full' or 'quota', seconds until room]
            kind = refused[0].decode() if isinstance(refused[0], bytes) else str(refused[0])
            if kind == "quota" and quota is not None:
                raise OverDailyQuota(quota.limit, int(refused[1]))
            raise TooManyGames(max_in_flight, int(refused[1]))

    async def _release_deal(
        self, deal_id: str, client: str, quota: DailyQuota | None = None
    ) -> None:
        """The release script: the deal no longer in flight.

        With ``quota``, not counted among the day's deals either: it was never opened.
        """
        day = quota.day if quota is not None else 0
        keys = [layout.in_flight(client), layout.deals_today(client, day)]
        args: list[EncodableT] = [deal_id, "" if quota is None else 1]
        await self._written(keys[0], lambda c: self._release(keys=keys, args=args, client=c))

    async def _extend_deal(self, deal_id: str, client: str, ttl: int) -> None:
        """The extend script: a moved deal stays in flight as long as it lives."""
        keys = [layout.in_flight(client)]
        await self._written(
            keys[0], lambda c: self._extend(keys=keys, args=[deal_id, ttl], client=c)
        )

    async def spend_organizer_quota(
        self, quota: OrganizerQuota, tournaments: int, invites: int
    ) -> None:
        """The spend script on the organizer's day, under the organizer's tag."""
        keys = [layout.organizer_today(quota.organizer_id, quota.day)]
        args: list[EncodableT] = [
            tournaments,
            quota.tournaments,
            invites,
            quota.invites,
            quota.seconds_left + 3600,
        ]
        refused = await self._written(
            keys[0], lambda c: self._spend_organizer_quota(keys=keys, args=args, client=c)
        )
        if isinstance(refused, list):  # [what, count so far]
            what = refused[0].decode() if isinstance(refused[0], bytes) else str(refused[0])
            limit = quota.tournaments if what == "tournaments" else quota.invites
            raise OverOrganizerQuota(what, limit, int(refused[1]), quota.seconds_left)
