"""The Redis store's deals: opened once, read, confirmed.

Owns a deal's hash (its fixed part packed small, its log, its move count, its finish
time) and its commitment's claim key, both under the deal's tag, and the create script
that writes them (seating a lockstep deal in its round in the same step). Counting the
deal against its client's limits is limits.py's; what a game appends, moves.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Final, cast

import msgspec
from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import (
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    OverDailyQuota,
    RoundStarted,
    StoreUnavailable,
    TooManyGames,
)
from cardproof_service.store.redis.core import ACK_MS, RedisClient
from cardproof_service.store.redis.limits import RedisLimits

_CREATE: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local ttl = tonumber(ARGV[2])
if ARGV[3] ~= '' then
  local first = redis.call('GET', KEYS[2])
  if first then return first end
end
if ARGV[8] ~= '' and redis.call('HEXISTS', KEYS[3], 'start') == 1 then
  return {'started', 0}
end
if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4]) end
redis.call('HSET', KEYS[1], 'fixed', ARGV[1], 'moves', '', 'n', 0, 'blind', 1)
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'tk', ARGV[5], 'tp', ARGV[6], 'tn', ARGV[7])
  if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'te', ARGV[9]) end
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'ls', 1)
  redis.call('SADD', KEYS[4], ARGV[8])
  redis.call('HINCRBY', KEYS[3], 'seats', 1)
  if ARGV[9] ~= '' then
    redis.call('EXPIREAT', KEYS[3], ARGV[9])
    redis.call('EXPIREAT', KEYS[4], ARGV[9])
  end
end
redis.call('EXPIRE', KEYS[1], ttl)
return false
"""
"""A new deal: its commitment claimed once (``KEYS[2]``, under the deal's tag); a lockstep
seat (``ARGV[8]``, its deal id) seated in its round (``KEYS[3]``, ``KEYS[4]`` the seats)
unless it has started. A deal that exists already is this script's own first run (ids
are random): done. Its owner's count was taken before, by the admit script."""


_MOVE_COUNTS: Final = """
local counts = {}
for i = 1, #KEYS do
  local found = redis.call('HMGET', KEYS[i], 'n', 'fin')
  if found[1] and not found[2] then counts[i] = tonumber(found[1]) else counts[i] = -1 end
end
return counts
"""
"""Each deal's move count, -1 for one finished or gone: many deals of one tag, one step
(a reply of small integers, not a hash a deal)."""


class _Fixed(msgspec.Struct, array_like=True):
    """The part of a deal that never changes, packed small."""

    variant: str
    options: dict[str, Any]
    commitment_id: str
    client_seed: str
    committed: bool
    created_at: int
    tournament: str | None = None
    round: int | None = None
    entrant: str | None = None
    player: str | None = None
    owner: str | None = None
    tournament_expires_at: int | None = None
    lockstep: bool = False


class RedisDeals(RedisLimits):
    """Deals and their claims (on limits: a deal is counted against its client)."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """Limits, and the create script and a deal's codec."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._create = client.register_script(_CREATE)
        self._move_counts = client.register_script(_MOVE_COUNTS)
        self._encoder = msgspec.msgpack.Encoder()
        self._decoder = msgspec.msgpack.Decoder(_Fixed)

    async def confirm_deal(self, deal_id: str, finished_by: str | None = None) -> None:
        """With replicas asked for, an ack write in the deal's slot and its ``WAIT``.

        ``finished_by``: the deal is finished, and leaves that client's games in flight
        (its first attempt may have stored it and been refused before it got there).
        """
        if finished_by is not None:  # a read first: most answers find it released
            key = layout.in_flight(finished_by)
            if await self._call(lambda: self._redis.zscore(key, deal_id)) is not None:
                await self._release_deal(deal_id, finished_by)
        if self._min_replicas:
            ack = layout.ack(layout.deal(deal_id))
            await self._written(ack, lambda c: c.set(ack, 1, px=ACK_MS))

    async def create_deal(
        self,
        record: DealRecord,
        ttl: int,
        commitment: Claim | None = None,
        max_in_flight: int = 0,
        quota: DailyQuota | None = None,
    ) -> bytes | None:
        """The create script: claim, count the owner's games and day, write: atomically."""
        fixed = _Fixed(
            record.variant,
            record.options,
            record.commitment_id,
            record.client_seed,
            record.committed,
            record.created_at,
            record.tournament,
            record.round,
            record.entrant,
            record.player,
            record.owner,
            record.tournament_expires_at,
            record.lockstep,
        )
        tag = layout.id_tag(record.deal_id)
        anchor = record.tournament or (commitment.commitment_id if commitment else None)
        if anchor is not None and layout.id_tag(anchor) != tag:
            raise ValueError(
                f"deal {record.deal_id} does not carry the tag of {anchor} (see store/keys.py)"
            )
        seated = record.lockstep and record.tournament is not None and record.round is not None
        round_key = (
            layout.round_(record.tournament, record.round or 0)
            if record.tournament is not None
            else layout.placeholder(tag)
        )
        keys = [
            layout.deal(record.deal_id),
            layout.placeholder(tag),
            round_key,
            f"{round_key}:seats",
        ]
        args: list[EncodableT] = [self._encoder.encode(fixed), ttl, "", 0]
        if commitment is not None:
            keys[1] = layout.claim(commitment.commitment_id)
            args[2:4] = [commitment.claim, commitment.ttl]
        if record.tournament is not None and record.player is not None and record.round:
            args += [record.tournament, record.player, record.round]
        else:
            args += ["", "", ""]
        args.append(record.deal_id if seated else "")
        args.append("" if record.tournament_expires_at is None else record.tournament_expires_at)
        capped = record.owner is not None and max_in_flight > 0
        client = quota.client if quota is not None else record.owner if capped else None
        if capped and record.owner != client:
            raise ValueError("a deal's owner and the client of its quota are one client")
        if commitment is not None and client is not None:
            # a claimed commitment is answered before anything is counted: a resent
            # request gets its deal, and costs no game in flight nor deal of the day
            first = await self.get_claim(commitment.commitment_id)
            if first is not None:
                return first
        if client is not None:
            try:
                await self._admit_deal(
                    record.deal_id, client, ttl, max_in_flight if capped else 0, quota
                )
            except (TooManyGames, OverDailyQuota):
                first = await self.get_claim(commitment.commitment_id) if commitment else None
                if first is not None:  # claimed meanwhile (a claim is never taken back)
                    return first
                raise
            except BaseException:  # maybe counted, but refused: no deal, so no count
                await self._give_back(record.deal_id, client, quota)
                raise
        try:
            first = await self._written(
                keys[0], lambda c: self._create(keys=keys, args=args, client=c)
            )
        except BaseException:
            # refused (503). A claimed deal (committed, or casual under an Idempotency-Key)
            # written all the same (only its WAIT fell short) keeps its count: the resent
            # request finds it by its claim. One without a claim is given back: nobody was
            # told its id, so nobody can play it
            if client is not None and (
                commitment is None or not await self._deal_exists(record.deal_id)
            ):
                await self._give_back(record.deal_id, client, quota)
            raise
        if isinstance(first, list):  # ['started', 0]
            if client is not None:
                await self._release_deal(record.deal_id, client, quota)
            raise RoundStarted
        if isinstance(first, bytes) and client is not None:
            await self._release_deal(record.deal_id, client, quota)  # claimed meanwhile
        return first if isinstance(first, bytes) else None

    async def _deal_exists(self, deal_id: str) -> bool:
        """Whether the deal is stored.

        ``False`` when Redis cannot tell: then, for its client's count, it is not written.
        """
        key = layout.deal(deal_id)
        try:
            return bool(await self._call(lambda: self._redis.exists(key)))
        except StoreUnavailable:
            return False

    async def get_claim(self, commitment_id: str) -> bytes | None:
        """The commitment's claim key, or ``None``."""
        key = layout.claim(commitment_id)
        found = await self._call(lambda: self._redis.get(key))
        return cast(bytes | None, found)

    async def get_deal(self, deal_id: str) -> DealRecord | None:
        """The deal and its log, or ``None``."""
        key = layout.deal(deal_id)
        found = cast(dict[bytes, bytes], await self._call(lambda: self._redis.hgetall(key)))
        return self._deal_of(deal_id, found) if found else None

    def _deal_of(self, deal_id: str, found: dict[bytes, bytes]) -> DealRecord:
        """A deal from its hash's fields."""
        fixed = self._decoder.decode(found[b"fixed"])
        moves = found[b"moves"].decode()
        finished = found.get(b"fin")
        stored = found.get(b"end")
        ending = None if stored is None else Ending(stored)
        auto = found.get(b"auto")
        return DealRecord(
            deal_id=deal_id,
            variant=fixed.variant,
            options=fixed.options,
            commitment_id=fixed.commitment_id,
            client_seed=fixed.client_seed,
            committed=fixed.committed,
            created_at=fixed.created_at,
            moves=moves.split() if moves else [],
            finished_at=int(finished) if finished is not None else None,
            blind=found.get(b"blind", b"1") == b"1",
            tournament=fixed.tournament,
            round=fixed.round,
            entrant=fixed.entrant,
            player=fixed.player,
            owner=fixed.owner,
            tournament_expires_at=fixed.tournament_expires_at,
            ending=ending,
            lockstep=fixed.lockstep,
            auto_placed=[int(i) for i in auto.split()] if auto else [],
        )

    async def get_deals(self, deal_ids: Sequence[str]) -> list[DealRecord]:
        """The deals found, read in one round trip."""
        ids = list(deal_ids)

        async def read() -> list[Any]:
            async with self._redis.pipeline(transaction=False) as pipe:
                for deal_id in ids:
                    pipe.hgetall(layout.deal(deal_id))
                found: list[Any] = await pipe.execute()
                return found

        records = []
        for deal_id, found in zip(ids, await self._call(read) if ids else [], strict=True):
            if found:
                records.append(self._deal_of(deal_id, found))
        return records

    async def move_counts(self, deal_ids: Sequence[str]) -> list[int]:
        """The count script, once per tag among the deals (a round's seats share one)."""
        by_tag: dict[str, list[int]] = {}
        for position, deal_id in enumerate(deal_ids):
            by_tag.setdefault(layout.id_tag(deal_id), []).append(position)
        counts = [-1] * len(deal_ids)
        for positions in by_tag.values():
            keys = [layout.deal(deal_ids[position]) for position in positions]
            found = await self._call(partial(self._move_counts, keys=keys))
            for position, count in zip(positions, found, strict=True):
                counts[position] = int(count)
        return counts

    async def memory_usage(self, deal_id: str) -> int:
        """Bytes Redis uses for one deal (``MEMORY USAGE``), for the benchmarks."""
        used = await self._call(lambda: self._redis.memory_usage(layout.deal(deal_id)))
        return int(used or 0)
