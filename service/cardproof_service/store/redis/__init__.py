"""The Redis store: several stateless replicas share one Redis.

Each deal is one small hash (its fixed part as msgpack, its log as one string, its
move count, its finish time), so a finished poker-squares game takes a few hundred
bytes. Every step that must be atomic is one Lua script or one command; every key
expires. Connection failures and timeouts become :class:`StoreUnavailable` (503).

The store is one object made of parts, one per kind of record, each with its own keys
and scripts, all on one connection (core.py): deals.py, moves.py, tournaments.py,
rounds.py and limits.py.
"""

from __future__ import annotations

from cardproof_service.store.redis.core import parse_sentinel_url
from cardproof_service.store.redis.deals import RedisDeals
from cardproof_service.store.redis.moves import RedisMoves
from cardproof_service.store.redis.rounds import RedisRounds


class RedisStore(RedisDeals, RedisMoves, RedisRounds):
    """The store for several replicas (``REDIS_URL``).

    Its parts share one :class:`~cardproof_service.store.redis.core.RedisCore`:
    deals and moves stand on limits (a deal is counted against its client), rounds on
    tournaments (a round expires with its tournament).
    """

    name = "redis"


__all__ = ["RedisStore", "parse_sentinel_url"]
