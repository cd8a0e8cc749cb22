"""The Redis store's transparency log: pools of entries, the lease, tiles and checkpoint.

A receipt's entry is pooled by the script that stores its game's ending, in the deal's
tag (``{TAG}:log-pool``, a list); the tag is then marked in :data:`~.keys.LOG_POOLS`.
A writer that dies between the two leaves a pool unmarked: a sweep (every possible tag,
64 x 64) finds it. The log itself lives under one tag (``{log}``): a fold writes its
tiles, its leaves' indexes and the new checkpoint in one script, under the sequencer's
lease, only from the size it started at and only where each tile extends what it held.
A pool's items are dropped after the fold, by a script that checks that nobody dropped
them meanwhile (a counter per pool).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from typing import Any, Final

from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import LogConflict, LogState, Pooled, TileKey
from cardproof_service.store.redis.core import RedisClient, RedisCore

LEAF_KEY: Final = 16
"""Bytes of a leaf hash the index keys an entry by (collisions: 2^-128 a pair)."""
_TAG_CHARS: Final = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
EVERY_TAG: Final = tuple(a + b for a in _TAG_CHARS for b in _TAG_CHARS)
"""Every tag an id can carry (two base64url characters): the pools a sweep looks into."""

_LEASE: Final = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
"""Take or keep the sequencer's lease (``ARGV[1]``, its holder) for ``ARGV[2]`` ms."""

_READ_POOL: Final = """
local items = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
return {tonumber(redis.call('GET', KEYS[2]) or '0'), items}
"""
"""A pool's first ``ARGV[1]`` items with the count of items it dropped so far."""

_DROP_POOL: Final = """
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('LTRIM', KEYS[1], tonumber(ARGV[2]), -1)
redis.call('INCRBY', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], 86400)
return 1
"""
"""Drop a pool's first ``ARGV[2]`` items, unless some were dropped since it was read. The
counter lives a day past its last drop: one that expired reads 0, so a drop by a
sequencer that read the pool before then is refused, never misapplied."""

_COMMIT: Final = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'the sequencer lease is another holder' end
local size = tonumber(redis.call('HGET', KEYS[2], 'size') or '0')
if size ~= tonumber(ARGV[2]) then return 'the log is of ' .. size .. ' entries' end
local n = tonumber(ARGV[5])
for i = 0, n - 1 do
  local field, data = ARGV[6 + 2 * i], ARGV[7 + 2 * i]
  local held = redis.call('HGET', KEYS[3], field)
  if held and string.sub(data, 1, #held) ~= held then
    return 'tile ' .. field .. ' would change what it held'
  end
end
for i = 0, n - 1 do redis.call('HSET', KEYS[3], ARGV[6 + 2 * i], ARGV[7 + 2 * i]) end
for i = 6 + 2 * n, #ARGV, 2 do redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[2], 'size', ARGV[3], 'checkpoint', ARGV[4])
redis.call('HDEL', KEYS[2], 'cosigned')
return 'ok'
"""
"""A fold in one step: every check (the lease, the size, each tile only growing), then
every write (tiles, the leaves' indexes, the state). ``'ok'``, or why nothing was written."""

_COSIGNED: Final = """
if tonumber(redis.call('HGET', KEYS[1], 'size') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'cosigned', ARGV[2])
return 1
"""
"""Keep the cosigned checkpoint (``ARGV[2]``) if the log is still of ``ARGV[1]`` entries."""

_DONE: Final = """
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""
"""Forget a due key (``ARGV[1]``), or move it to ``ARGV[3]``, if still due at ``ARGV[2]``."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisLog(RedisCore):
    """The log's pools, lease, tiles and checkpoint, and the scripts that write them."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """The log's scripts."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._lease = client.register_script(_LEASE)
        self._commit = client.register_script(_COMMIT)
        self._cosigned = client.register_script(_COSIGNED)
        self._done = client.register_script(_DONE)

    async def _mark_pool(self, tag: str) -> None:
        """Mark ``tag``'s pool as holding entries (after the step that pooled them)."""
        await self._call(lambda: self._redis.sadd(layout.LOG_POOLS, tag))

    async def pool_entries(self, pool: str, entries: Sequence[bytes]) -> None:
        """Pool ``entries`` as one item of ``pool``'s list, then mark it."""
        if not entries:
            return
        item = b"\n".join(entries)
        await self._written(layout.log_pool(pool), lambda c: c.rpush(layout.log_pool(pool), item))
        await self._mark_pool(pool)

    async def _pipelined(self, commands: Callable[[Any], None]) -> list[Any]:
        """One pipeline of ``commands`` (on a cluster, split by node): their replies."""

        async def run() -> list[Any]:
            async with self._redis.pipeline(transaction=False) as pipe:
                commands(pipe)
                return list(await pipe.execute())

        return await self._call(run)

    async def _lengths(self, tags: Sequence[str]) -> list[int]:
        """How many items each tag's pool holds."""

        def commands(pipe: Any) -> None:
            for tag in tags:
                pipe.llen(layout.log_pool(tag))

        return [int(length) for length in await self._pipelined(commands)] if tags else []

    async def pooled(self, limit: int, *, sweep: bool = False) -> list[Pooled]:
        """Up to about ``limit`` items' entries from the marked pools (each one's oldest first).

        Two round trips whatever the number of pools: their lengths, then their items
        (each pool's read with its count of dropped items, in one script).
        """
        marked = await self._call(lambda: self._redis.smembers(layout.LOG_POOLS))
        tags = sorted(EVERY_TAG if sweep else {_text(tag) for tag in marked})
        lengths = await self._lengths(tags)
        wanted: list[tuple[str, int]] = []
        left = limit
        for tag, length in zip(tags, lengths, strict=True):
            if length and left > 0:
                wanted.append((tag, min(length, left)))
                left -= min(length, left)

        def commands(pipe: Any) -> None:
            for tag, count in wanted:
                pipe.eval(_READ_POOL, 2, layout.log_pool(tag), layout.log_pool_dropped(tag), count)

        batches = []
        for (tag, _), reply in zip(wanted, await self._pipelined(commands), strict=True):
            items: list[bytes] = list(reply[1])
            if items:
                entries = [entry for item in items for entry in item.split(b"\n")]
                batches.append(Pooled(tag, len(items), entries, int(reply[0])))
        return batches

    async def drop_pooled(self, taken: Sequence[Pooled]) -> None:
        """Drop each pool's items taken, then unmark the pools left empty.

        The mark goes first and comes back if the pool is not empty: a writer marks its
        pool after pooling, so an item pooled meanwhile is never left unmarked.
        """
        if not taken:
            return

        def drops(pipe: Any) -> None:
            for batch in taken:
                pool, dropped = layout.log_pool(batch.pool), layout.log_pool_dropped(batch.pool)
                pipe.eval(_DROP_POOL, 2, pool, dropped, batch.dropped, batch.taken)

        await self._pipelined(drops)
        tags = [batch.pool for batch in taken]
        await self._call(lambda: self._redis.srem(layout.LOG_POOLS, *tags))
        left = [tag for tag, length in zip(tags, await self._lengths(tags), strict=True) if length]
        if left:
            await self._call(lambda: self._redis.sadd(layout.LOG_POOLS, *left))

    async def take_lease(self, holder: str, ms: int) -> bool:
        """The lease script."""
        reply = await self._call(lambda: self._lease(keys=[layout.LOG_LEASE], args=[holder, ms]))
        return bool(int(reply))

    async def log_state(self) -> LogState:
        """The state hash."""
        size, checkpoint, cosigned = await self._call(
            lambda: self._redis.hmget(layout.LOG_STATE, ["size", "checkpoint", "cosigned"])
        )
        return LogState(
            int(size or 0),
            None if checkpoint is None else _text(checkpoint),
            None if cosigned is None else _text(cosigned),
        )

    async def commit_fold(
        self,
        holder: str,
        old_size: int,
        state: LogState,
        tiles: dict[TileKey, bytes],
        leaves: dict[bytes, int],
    ) -> None:
        """The commit script, acknowledged by replicas as every write is.

        A checkpoint that a failover could lose would be a rollback.
        """
        keys = [layout.LOG_LEASE, layout.LOG_STATE, layout.LOG_TILES, layout.LOG_LEAVES]
        args: list[EncodableT] = [holder, old_size, state.size, state.checkpoint or "", len(tiles)]
        for (level, index), data in tiles.items():
            args += [layout.log_tile_field(level, index), data]
        for leaf, index in leaves.items():
            args += [leaf[:LEAF_KEY], index]
        reply = _text(
            await self._written(
                layout.LOG_STATE, lambda c: self._commit(keys=keys, args=args, client=c)
            )
        )
        if reply != "ok":
            raise LogConflict(reply)

    async def read_tiles(self, keys: Sequence[TileKey]) -> list[bytes | None]:
        """One ``HMGET``."""
        if not keys:
            return []
        fields = [layout.log_tile_field(level, index) for level, index in keys]
        found = await self._call(lambda: self._redis.hmget(layout.LOG_TILES, fields))
        return [
            data if isinstance(data, bytes) or data is None else data.encode() for data in found
        ]

    async def leaf_indexes(self, leaves: Sequence[bytes]) -> list[int | None]:
        """One ``HMGET``."""
        if not leaves:
            return []
        fields = [leaf[:LEAF_KEY] for leaf in leaves]
        found = await self._call(lambda: self._redis.hmget(layout.LOG_LEAVES, fields))
        return [None if index is None else int(index) for index in found]

    async def add_cosigned(self, size: int, cosigned: str) -> bool:
        """The cosigned script."""
        reply = await self._call(
            lambda: self._cosigned(keys=[layout.LOG_STATE], args=[size, cosigned])
        )
        return bool(int(reply))

    async def log_due(self, key: str, at_ms: int) -> None:
        """``ZADD LT``: a new key, or an earlier time; acknowledged as every write is."""
        await self._written(layout.LOG_DUE, lambda c: c.zadd(layout.LOG_DUE, {key: at_ms}, lt=True))

    async def logs_due(self, at_ms: int, limit: int) -> list[tuple[str, int]]:
        """One ``ZRANGEBYSCORE``."""
        found: list[Any] = await self._call(
            lambda: self._redis.zrangebyscore(
                layout.LOG_DUE, "-inf", at_ms, start=0, num=limit, withscores=True
            )
        )
        return [(_text(member), int(at)) for member, at in found]

    async def log_done(self, key: str, at_ms: int, later_ms: int | None = None) -> None:
        """The done script."""
        args: list[EncodableT] = [key, at_ms, "" if later_ms is None else later_ms]
        await self._written(
            layout.LOG_DUE, lambda c: self._done(keys=[layout.LOG_DUE], args=args, client=c)
        )
