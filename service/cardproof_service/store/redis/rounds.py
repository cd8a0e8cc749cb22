"""The Redis store's lockstep rounds: seats, calls, and the rounds due for the keeper.

Owns a round's keys (its hash, calls and seats, under its tournament's tag), the due
rounds of each tag, the tags the keeper reads, and the news channel. A deal is seated
by its own create step (deals.py) and a call completed by an append (moves.py): those
scripts write the round's keys in the deal's step, as the deal carries the tag.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Collection
from typing import Any, Final, cast

import msgspec
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import CallRecord, RoundState, StoreUnavailable
from cardproof_service.store.redis.core import RedisClient
from cardproof_service.store.redis.tournaments import RedisTournaments

FORGET_TAG_AFTER: Final = 60_000
"""Milliseconds after its last start or schedule that a tag with no due round is dropped
from the tags the keeper reads."""

_START_ROUND: Final = """
if redis.call('HEXISTS', KEYS[1], 'start') == 1 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats') or '0')
redis.call('HSET', KEYS[1], 'start', now, 'turns', ARGV[1], 'ms', ARGV[2], 'placed', 0,
  'seats', seats, 'call', -1, 'at', now)
if seats == 0 then
  redis.call('HSET', KEYS[1], 'fin', now)
  redis.call('ZREM', KEYS[3], ARGV[4])
else
  redis.call('HSET', KEYS[1], 'call', 0)
  redis.call('RPUSH', KEYS[2], cjson.encode({0, ARGV[3], now}))
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[4])
end
if ARGV[6] ~= '' then
  redis.call('EXPIREAT', KEYS[1], ARGV[6])
  if seats > 0 then redis.call('EXPIREAT', KEYS[2], ARGV[6]) end
end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return 1
"""
"""Start a round once: card 0 called now (Redis's clock), due at its deadline."""

_DUE_ROUNDS: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {redis.call('ZCARD', KEYS[1]),
  redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, ARGV[1])}
"""
"""The rounds of a tag that are due (Redis's clock), each with when it fell due, and how
many it has in all."""

_FINISH_ROUND: Final = """
redis.call('HSET', KEYS[1], 'fin', ARGV[1])
if ARGV[4] ~= '' then redis.call('EXPIREAT', KEYS[1], ARGV[4]) end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
"""
"""Finish a round (its hash kept until its tournament expires, ``ARGV[4]``: a round that
never started has no hash until then), no longer due, and tell every replica."""

_READ_ROUND: Final = """
return {redis.call('HMGET', KEYS[1], 'seats', 'start', 'call', 'at', 'placed', 'turns', 'ms',
  'fin'), redis.call('TIME')}
"""
"""A round's hash and Redis's clock, read in one step."""

_NOW_MS: Final = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""

_TOUCH_TAG: Final = (
    _NOW_MS
    + """
redis.call('ZADD', KEYS[1], now_ms(), ARGV[1])
return 1
"""
)
"""Name a tag among those the keeper reads, touched now (by the clock of the node of
``KEYS[1]``, the tags' set, which every touch and forget reads: one clock for all)."""

_PUT_OFF: Final = (
    _NOW_MS
    + """
redis.call('ZADD', KEYS[1], 'XX', 'GT', now_ms() + tonumber(ARGV[2]), ARGV[1])
return 1
"""
)
"""A due round (``ARGV[1]``) due again ``ARGV[2]`` ms from now: ``XX``, only if still due
(not finished meanwhile); ``GT``, never earlier than it is due already."""

_READ_TAGS: Final = """
return {redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), redis.call('TIME')}
"""
"""The tags the keeper reads, with when each was last touched, and that node's clock."""

_FORGET_TAG: Final = (
    _NOW_MS
    + """
local touched = redis.call('ZSCORE', KEYS[1], ARGV[1])
if touched and tonumber(touched) <= now_ms() - tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
"""
)
"""Forget a tag whose due rounds were found empty, unless a round was started or
scheduled under it in the last ``ARGV[2]`` ms (each touches the tag first)."""


class RedisRounds(RedisTournaments):
    """Lockstep rounds (on tournaments: a round starts with its tournament's expiry)."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """Tournaments, and the scripts of rounds."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._read_round = client.register_script(_READ_ROUND)
        self._touch_tag_script = client.register_script(_TOUCH_TAG)
        self._put_off = client.register_script(_PUT_OFF)
        self._read_tags = client.register_script(_READ_TAGS)
        self._forget_tag = client.register_script(_FORGET_TAG)
        self._start_round = client.register_script(_START_ROUND)
        self._due_rounds = client.register_script(_DUE_ROUNDS)
        self._finish_round = client.register_script(_FINISH_ROUND)
        self._call_decoder = msgspec.json.Decoder(tuple[int, str, int])

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        turns: int,
        card_ms: int,
        first_card: str | None,
    ) -> RoundState | None:
        """The start script, then the round as it stands."""
        round_key = layout.round_(tournament_id, round_number)
        tag = layout.id_tag(tournament_id)
        keys = [round_key, f"{round_key}:calls", layout.due(tag)]
        expires = await self.get_tournament(tournament_id)
        args: list[EncodableT] = [
            turns,
            card_ms,
            first_card or "",
            layout.due_member(tournament_id, round_number),
            layout.NEWS,
            "" if expires is None or expires.expires_at is None else expires.expires_at,
        ]
        await self._touch_tag(tag)
        started = await self._written(
            keys[0], lambda c: self._start_round(keys=keys, args=args, client=c)
        )
        return await self.round_state(tournament_id, round_number) if started else None

    async def round_state(self, tournament_id: str, round_number: int) -> RoundState:
        """The round's hash and Redis's clock, in one round trip."""
        keys = [layout.round_(tournament_id, round_number)]
        fields, (seconds, micros) = await self._call(lambda: self._read_round(keys=keys))
        seats, start, call, at, placed, turns, card_ms, finished = (
            None if value is None else int(value) for value in fields
        )
        return RoundState(
            seats=seats or 0,
            now=int(seconds) * 1000 + int(micros) // 1000,
            started_at=start,
            call=-1 if call is None else call,
            called_at=at or 0,
            placed=placed or 0,
            turns=turns or 0,
            card_ms=card_ms or 0,
            finished=finished is not None,
        )

    async def round_calls(
        self, tournament_id: str, round_number: int, after: int = -1
    ) -> list[CallRecord]:
        """The calls list from index ``after + 1`` (each call is at its own index)."""
        key = f"{layout.round_(tournament_id, round_number)}:calls"
        found = await self._call(lambda: self._redis.lrange(key, max(0, after + 1), -1))
        calls = []
        for raw in cast(list[bytes], found):
            index, card, at = self._call_decoder.decode(raw)
            calls.append(CallRecord(index, card or None, at))
        return calls

    async def round_seats(self, tournament_id: str, round_number: int) -> list[str]:
        """The seats set."""
        key = f"{layout.round_(tournament_id, round_number)}:seats"
        found = await self._call(lambda: self._redis.smembers(key))
        return sorted(member.decode() for member in cast(set[bytes], found))

    async def finish_round(self, tournament_id: str, round_number: int) -> None:
        """The finish script: finished, no longer due, and told."""
        keys = [
            layout.round_(tournament_id, round_number),
            layout.due(layout.id_tag(tournament_id)),
        ]
        expires = await self.get_tournament(tournament_id)
        args: list[EncodableT] = [
            int(time.time() * 1000),
            layout.due_member(tournament_id, round_number),
            layout.NEWS,
            "" if expires is None or expires.expires_at is None else expires.expires_at,
        ]
        await self._written(keys[0], lambda c: self._finish_round(keys=keys, args=args, client=c))

    async def schedule_round(self, tournament_id: str, round_number: int, at_ms: int) -> None:
        """``ZADD`` to its tag's due rounds (the tag touched first), acknowledged as a write."""
        tag = layout.id_tag(tournament_id)
        member = layout.due_member(tournament_id, round_number)
        key = layout.due(tag)
        await self._touch_tag(tag)
        await self._written(key, lambda c: c.zadd(key, {member: at_ms}))

    async def _touch_tag(self, tag: str) -> None:
        """Name ``tag`` among those the keeper reads, before a round under it is due."""
        keys = [layout.DUE_TAGS]
        await self._written(
            layout.DUE_TAGS, lambda c: self._touch_tag_script(keys=keys, args=[tag], client=c)
        )

    async def due_rounds(self, limit: int, resting: Collection[str] = ()) -> list[tuple[str, int]]:
        """The due-rounds script on every tag the keeper reads (Redis's clock), oldest first.

        A tag with no round left is forgotten once quiet for ``FORGET_TAG_AFTER`` (by the
        clock of the tags' node, which stamped its touches). A tag whose node does not
        answer is left out this time: the others' rounds still go on; only when none
        answers is the store unavailable.
        """
        keys = [layout.DUE_TAGS]
        tagged, (seconds, micros) = await self._call(lambda: self._read_tags(keys=keys))
        if not tagged:
            return []
        quiet_since = int(seconds) * 1000 + int(micros) // 1000 - FORGET_TAG_AFTER

        def read(tag: bytes) -> Awaitable[Any]:
            keys = [layout.due(tag.decode())]
            return self._call(lambda: self._due_rounds(keys=keys, args=[limit]))

        pairs = [
            (tag, touched)
            for tag, touched in zip(tagged[::2], tagged[1::2], strict=True)
            if tag.decode() not in resting
        ]
        if not pairs:
            return []
        found = await asyncio.gather(  # each on its node
            *(read(tag) for tag, _ in pairs), return_exceptions=True
        )
        failed = [reply for reply in found if isinstance(reply, BaseException)]
        for error in failed:
            if not isinstance(error, StoreUnavailable):
                raise error
        if failed and len(failed) == len(found):
            raise failed[0]
        due: list[tuple[float, str, int]] = []
        for (tag, touched), reply in zip(pairs, found, strict=True):
            if isinstance(reply, BaseException):
                continue
            count, members = reply
            if int(count) == 0 and float(touched) <= quiet_since:
                await self._forget(tag)
            for member, when in zip(members[::2], members[1::2], strict=True):
                tournament_id, _, number = member.decode().rpartition(":")
                due.append((float(when), tournament_id, int(number)))
        due.sort()
        return [(tournament_id, number) for _, tournament_id, number in due[:limit]]

    async def put_off_round(self, tournament_id: str, round_number: int, delay_ms: int) -> None:
        """The put-off script: later by Redis's clock, only if still due and not later."""
        key = layout.due(layout.id_tag(tournament_id))
        args: list[EncodableT] = [layout.due_member(tournament_id, round_number), delay_ms]
        await self._written(key, lambda c: self._put_off(keys=[key], args=args, client=c))

    async def _forget(self, tag: bytes) -> None:
        """The forget-tag script: ``tag`` no longer read, unless touched since."""
        args: list[EncodableT] = [tag, FORGET_TAG_AFTER]
        with contextlib.suppress(StoreUnavailable):  # forgotten next time
            await self._call(lambda: self._forget_tag(keys=[layout.DUE_TAGS], args=args))

    async def drop_due(self, tournament_id: str, round_number: int) -> None:
        """``ZREM`` from its tag's due rounds."""
        member = layout.due_member(tournament_id, round_number)
        key = layout.due(layout.id_tag(tournament_id))
        await self._call(lambda: self._redis.zrem(key, member))

    async def claim_seats(
        self, tournament_id: str, round_number: int, call: int, batch: int, lease_ms: int
    ) -> bool:
        """``SET NX PX`` of the batch's lease, under the round's tag."""
        key = f"{layout.round_(tournament_id, round_number)}:late:{call}:{batch}"
        taken = await self._call(lambda: self._redis.set(key, 1, nx=True, px=lease_ms))
        return bool(taken)

    async def round_news(self) -> AsyncIterator[tuple[str, int]]:
        """A subscription to the news channel; :class:`StoreUnavailable` when it is lost."""
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        try:
            await self._call(lambda: pubsub.subscribe(layout.NEWS))
            task = asyncio.current_task()
            while True:
                try:
                    message = await pubsub.get_message(timeout=1.0)
                except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                    raise StoreUnavailable(f"redis: {error.__class__.__name__}") from error
                if task is not None and task.cancelling():  # redis-py can swallow a cancel
                    raise asyncio.CancelledError
                if message is None or message.get("type") != "message":
                    continue
                tournament_id, _, number = cast(bytes, message["data"]).decode().rpartition(":")
                yield tournament_id, int(number)
        finally:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):  # a lost connection must not hold this up
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
