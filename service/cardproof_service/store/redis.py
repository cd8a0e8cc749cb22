"""The Redis store: several stateless replicas share one Redis.

Each deal is one small hash (its fixed part as msgpack, its log as one string, its
move count, its finish time), so a finished poker-squares game takes a few hundred
bytes. Every step that must be atomic is one Lua script or one command; every key
expires. Connection failures and timeouts become :class:`StoreUnavailable` (503).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from typing import Any, Final, Self, TypeVar, cast
from urllib.parse import unquote

import msgspec
import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    ClusterError,
    MasterDownError,
    MovedError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.typing import EncodableT

from cardproof_service.store import keys as layout
from cardproof_service.store.base import (
    Appended,
    CallRecord,
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    EntryOutcome,
    EntryResult,
    GameResult,
    Hits,
    NewEntrant,
    OpenTournament,
    OrganizerRecord,
    OverDailyQuota,
    Placement,
    RoundStarted,
    RoundState,
    Standing,
    StoreUnavailable,
    TooManyGames,
    TournamentRecord,
)
from cardproof_service.store.migrate import Migrated, has_legacy_keys, migrate

T = TypeVar("T")
MAX_CONNECTIONS: Final = 64
"""Connections a process keeps to Redis at most (each pub/sub subscription takes one);
with Redis Cluster, to each node."""
ACK_MS: Final = 60_000
"""Milliseconds an ack key lives (it holds nothing; it is written to be waited for)."""
LEGACY_RECHECK: Final = 30.0
"""Seconds between two looks for the first layout's keys, while they are found."""
FORGET_TAG_AFTER: Final = 60_000
"""Milliseconds after its last start or schedule that a tag with no due round is dropped
from the tags the keeper reads."""
_REFUSING: Final = (OutOfMemoryError, ReadOnlyError, MasterDownError)
"""Error replies of a Redis that is up but cannot take writes (full, a replica, no
master; also ``MISCONF``: cannot persist): the store is unavailable (503), not a bug."""

_RECORD_RESULT: Final = """
local function record_result(deal, results, totals, finished, tid, total, deal_id, at, receipt)
  if total == '' then return end
  local t = redis.call('HMGET', deal, 'tk', 'tp', 'tn')
  if not t[1] then return end
  if t[1] ~= tid then error('a tournament game finished without its tournament named') end
  local fields = {deal_id = deal_id, total = tonumber(total),
    finished_at = tonumber(at), moves = redis.call('HGET', deal, 'moves'),
    blind = redis.call('HGET', deal, 'blind') == '1'}
  if receipt ~= '' then fields['receipt'] = receipt end
  local result = cjson.encode(fields)
  if redis.call('HSETNX', results, t[2] .. '/' .. t[3], result) == 1 then
    redis.call('ZINCRBY', totals, total, t[2])
    redis.call('HINCRBY', finished, t[2], 1)
  end
  local expires = redis.call('HGET', deal, 'te')
  if expires then
    redis.call('EXPIREAT', results, expires)
    redis.call('EXPIREAT', totals, expires)
    redis.call('EXPIREAT', finished, expires)
  end
end
"""
"""A finished tournament game's result (deal, total, time, log) into its standings, once.

The player and round come from the deal hash (``tk`` tournament, ``tp`` player, ``tn``
round, ``te`` when the tournament expires); the standings' keys (``results``, ``totals``,
``finished``) are the step's own, under the tournament's tag like the deal. Results keep
the log: they outlive the deal, and expire with their tournament."""

_END_GAME: Final = """
local function end_game(deal, stored)
  if stored ~= '' then redis.call('HSET', deal, 'end', stored) end
end
"""
"""A finished game's packed ending (``end``)."""

_APPEND: Final = (
    _RECORD_RESULT
    + _END_GAME
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing', 0, -1} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n'))
if ARGV[16] ~= '' and (redis.call('EXISTS', KEYS[5]) == 1
    or tonumber(redis.call('TIME')[1]) >= tonumber(ARGV[16])) then
  return {'closed', n, -1}
end
local index = tonumber(ARGV[1])
local by = ARGV[10]
local r = nil
local call = -1
local now = 0
if by ~= '' and by ~= 'closing' and redis.call('HEXISTS', KEYS[1], 'ls') == 1 then
  r = redis.call('HMGET', KEYS[2], 'start', 'call', 'at', 'seats', 'ms', 'turns', 'fin')
  call = tonumber(r[2] or '-1')
end
if index ~= n or redis.call('HEXISTS', KEYS[1], 'fin') == 1 then
  return {'wrong-index', n, call}
end
if r then
  if not r[1] or r[7] or index > call then return {'not-called', n, call} end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local late = now >= tonumber(r[3]) + tonumber(r[5])
  if by == 'player' and late then return {'late', n, call} end
  if by == 'auto' and not late then return {'early', n, call} end
end
local moves = ARGV[2]
if n > 0 then moves = redis.call('HGET', KEYS[1], 'moves') .. ' ' .. ARGV[2] end
local count = n + tonumber(ARGV[13])
redis.call('HSET', KEYS[1], 'moves', moves, 'n', count)
if ARGV[11] ~= '' then
  local auto = redis.call('HGET', KEYS[1], 'auto')
  if auto then auto = auto .. ' ' .. ARGV[11] else auto = ARGV[11] end
  redis.call('HSET', KEYS[1], 'auto', auto)
end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'fin', ARGV[3])
  end_game(KEYS[1], ARGV[8])
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
if ARGV[3] ~= '' then
  record_result(KEYS[1], KEYS[6], KEYS[7], KEYS[8], ARGV[6], ARGV[5], ARGV[7], ARGV[3], ARGV[9])
end
if r and index == call then
  if redis.call('HINCRBY', KEYS[2], 'placed', 1) >= tonumber(r[4]) then
    redis.call('HSET', KEYS[2], 'placed', 0)
    if call + 1 >= tonumber(r[6]) then
      redis.call('HSET', KEYS[2], 'fin', now)
      redis.call('ZREM', KEYS[4], ARGV[14])
    else
      call = call + 1
      redis.call('HSET', KEYS[2], 'call', call, 'at', now)
      redis.call('RPUSH', KEYS[3], cjson.encode({call, ARGV[12], now}))
      redis.call('ZADD', KEYS[4], now + tonumber(r[5]), ARGV[14])
    end
    redis.call('PUBLISH', ARGV[15], ARGV[14])
  end
end
return {'appended', count, call}
"""
)
"""Append moves at the next index; a finishing one stores the ending and records the
result. A lockstep seat (``ls`` in the deal hash, ``by`` given) follows its round
(``KEYS[2]``): only a called index, a player's before the deadline and a placement for
the player after it, by Redis's clock; the append that completes a call calls the next
card (``KEYS[3]``, the calls; ``KEYS[4]``, when the tag's rounds are due) and tells every
replica (``PUBLISH``). A player's move of a tournament game is refused once its
tournament's closed mark (``KEYS[5]``) is set or its closing time (``ARGV[16]``) has
passed; a finishing one records its result (``KEYS[6..8]``: results, totals, finished).
Every key is under the deal's tag: a tournament game's deal carries its tournament's."""

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
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
"""

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

_READ_STANDINGS: Final = """
return {redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), redis.call('HGETALL', KEYS[2])}
"""
"""A tournament's totals and finished games, read in one step."""

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

_COUNT_REQUEST: Final = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""
"""One more request in a client's window (the counter expires with the window)."""

_SUBMIT: Final = (
    _RECORD_RESULT
    + _END_GAME
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing', 0} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n'))
if ARGV[11] ~= '' and (redis.call('EXISTS', KEYS[2]) == 1
    or tonumber(redis.call('TIME')[1]) >= tonumber(ARGV[11])) then
  return {'closed', n}
end
if n ~= 0 or redis.call('HEXISTS', KEYS[1], 'fin') == 1 then return {'wrong-index', n} end
redis.call('HSET', KEYS[1], 'moves', ARGV[1], 'n', ARGV[2], 'fin', ARGV[3], 'blind', ARGV[4])
end_game(KEYS[1], ARGV[9])
redis.call('EXPIRE', KEYS[1], ARGV[5])
record_result(KEYS[1], KEYS[3], KEYS[4], KEYS[5], ARGV[7], ARGV[6], ARGV[8], ARGV[3], ARGV[10])
return {'appended', tonumber(ARGV[2])}
"""
)

_CLOSE_TOURNAMENT: Final = """
local found = redis.call('GET', KEYS[1])
if not found then return 0 end
local record = cjson.decode(found)
if record['closed_at'] then
  if record['closed_at'] == tonumber(ARGV[1]) then return 1 end
  return 0
end
record['closed_at'] = tonumber(ARGV[1])
redis.call('SET', KEYS[1], cjson.encode(record), 'KEEPTTL')
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[2], 1, 'PX', ttl) else redis.call('SET', KEYS[2], 1) end
return 1
"""
"""Set a tournament's ``closed_at`` once (the record is JSON); the same time again is the
same close. ``KEYS[2]``, the closed mark, lives as long as the record: the append reads
it, not the whole record, to refuse a move after the close."""

_ENTER: Final = """
if ARGV[6] ~= '' then
  local first = redis.call('GET', KEYS[6])
  if first then return {'replayed', first, redis.call('HGET', KEYS[2], first) or ''} end
end
local known = redis.call('HGET', KEYS[1], ARGV[1])
if known == ARGV[2] then return {'added', ARGV[2], ARGV[3]} end
if ARGV[5] ~= '' then
  local used = redis.call('HGET', KEYS[5], ARGV[5])
  if not used then return {'bad-invite', '', ''} end
  if used ~= '' and used ~= ARGV[2] then return {'invite-used', '', ''} end
end
if known then return {'name-taken', known, redis.call('HGET', KEYS[2], known) or ''} end
if ARGV[4] ~= '' and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return {'full', '', ''}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], 0, ARGV[3])
redis.call('HSET', KEYS[4], ARGV[3], 0)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[5], ARGV[5], ARGV[2]) end
if ARGV[6] ~= '' then redis.call('SET', KEYS[6], ARGV[2], 'EX', ARGV[6]) end
if ARGV[7] ~= '' then
  for i = 1, 5 do
    if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('EXPIREAT', KEYS[i], ARGV[7]) end
  end
end
return {'added', ARGV[2], ARGV[3]}
"""
"""Enter once (name keys to ids, ids to names, a 0 total, 0 games) in the protocol's order:
a replay key answers its first entry; an invite code must be issued and unused; the
name's key free; room in the field. The same entrant again is the same entry."""

_ADD_INVITES: Final = """
if redis.call('HLEN', KEYS[1]) + #ARGV - 2 > tonumber(ARGV[1]) then return 0 end
for i = 3, #ARGV do redis.call('HSETNX', KEYS[1], ARGV[i], '') end
if ARGV[2] ~= '' then redis.call('EXPIREAT', KEYS[1], ARGV[2]) end
return 1
"""
"""Unused invite codes (by hash), within the limit on codes in all, expiring with their
tournament."""


_ADD_ORGANIZER: Final = """
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
  if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then return 1 end
  return 0
end
redis.call('SET', KEYS[1], ARGV[3])
return 1
"""
"""Claim the name in the names hash, then store the record (neither key expires); the
name already claimed by this very id is the same organizer."""


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


class _StoredResult(msgspec.Struct):
    """A result as the append and submit scripts write it (``cjson``)."""

    deal_id: str
    total: int
    finished_at: int
    moves: str
    blind: bool
    receipt: str | None = None


class RedisStore:
    """The store for several replicas (``REDIS_URL``)."""

    name = "redis"

    def __init__(
        self, client: redis.Redis | RedisCluster, *, timeout: float = 2.0, min_replicas: int = 0
    ) -> None:
        """A store over a ``redis.asyncio`` client (see :meth:`from_url`).

        ``timeout`` bounds each whole call (waiting for a connection, reconnecting,
        retrying), on top of the client's socket timeouts. ``min_replicas``: a write is
        acknowledged only once that many replicas have it (``WAIT``; see :meth:`_written`).
        """
        self._redis = client
        self._cluster_ready = not isinstance(client, RedisCluster)
        self._cluster_lock = asyncio.Lock()
        self._legacy_checked = 0.0
        """When to look for the first layout's keys again (monotonic; ``inf``: never)."""
        self._masters: dict[str, redis.Redis] = {}
        """Plain clients of a cluster's masters, for writes that wait for replicas."""
        self._node_options: dict[str, Any] = {}
        """What a plain client of a cluster master connects with (credentials, TLS)."""
        self._timeout = timeout
        self._min_replicas = min_replicas
        self._create = client.register_script(_CREATE)
        self._admit = client.register_script(_ADMIT)
        self._release = client.register_script(_RELEASE)
        self._extend = client.register_script(_EXTEND)
        self._read_standings = client.register_script(_READ_STANDINGS)
        self._read_round = client.register_script(_READ_ROUND)
        self._touch_tag_script = client.register_script(_TOUCH_TAG)
        self._put_off = client.register_script(_PUT_OFF)
        self._read_tags = client.register_script(_READ_TAGS)
        self._forget_tag = client.register_script(_FORGET_TAG)
        self._count_request = client.register_script(_COUNT_REQUEST)
        self._append = client.register_script(_APPEND)
        self._submit = client.register_script(_SUBMIT)
        self._add_organizer = client.register_script(_ADD_ORGANIZER)
        self._enter = client.register_script(_ENTER)
        self._add_invites = client.register_script(_ADD_INVITES)
        self._close_tournament = client.register_script(_CLOSE_TOURNAMENT)
        self._start_round = client.register_script(_START_ROUND)
        self._due_rounds = client.register_script(_DUE_ROUNDS)
        self._finish_round = client.register_script(_FINISH_ROUND)
        self._call_decoder = msgspec.json.Decoder(tuple[int, str, int])
        self._result_decoder = msgspec.json.Decoder(_StoredResult)
        self._organizer_decoder = msgspec.json.Decoder(OrganizerRecord)
        self._tournament_decoder = msgspec.json.Decoder(TournamentRecord)
        self._encoder = msgspec.msgpack.Encoder()
        self._decoder = msgspec.msgpack.Decoder(_Fixed)

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 2.0, min_replicas: int = 0) -> Self:
        """A store on ``url``; each call fails as unavailable after ``timeout`` seconds.

        A command that meets a closed connection is sent once more on a new one: after
        Redis restarts, every pooled connection fails once, and that must not become a
        503 once Redis is back. A write may so run twice (when only its reply was lost),
        and each recognises its own first run: appends check the index, a deal finds
        itself, an entry its own id, an organizer its own name, a close its own time.
        A timeout is not resent.

        At most ``MAX_CONNECTIONS`` connections are open at once; a call beyond them waits
        for one (within ``timeout``) instead of failing: a burst of moves (every seat of a
        lockstep round placing its card) queues rather than answering 503.
        """
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=MAX_CONNECTIONS,
            timeout=timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=10,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        return cls(redis.Redis(connection_pool=pool), timeout=timeout, min_replicas=min_replicas)

    @classmethod
    def from_sentinels(cls, url: str, *, timeout: float = 2.0, min_replicas: int = 0) -> Self:
        """A store on the primary the sentinels of ``url`` name, followed through failovers.

        ``url`` is ``sentinel://[:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB]``: the
        sentinels, the service (master) name they monitor, and the database. A call that
        meets a failover fails as unavailable (503) until the sentinels name the new
        primary, then goes to it.
        """
        hosts, service, db, password = parse_sentinel_url(url)
        credentials = {} if password is None else {"password": password}
        sentinels = Sentinel(  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
            hosts,
            # the sentinels may ask for the password too (auth.sentinel in deploy/sentinel)
            sentinel_kwargs={
                "socket_timeout": timeout,
                "socket_connect_timeout": timeout,
                **credentials,
            },
            socket_timeout=timeout,
        )
        client = sentinels.master_for(
            service,
            db=db,
            password=password,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=10,
            max_connections=SENTINEL_MAX_CONNECTIONS,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        return cls(client, timeout=timeout, min_replicas=min_replicas)

    @classmethod
    def from_cluster(cls, url: str, *, timeout: float = 2.0, min_replicas: int = 0) -> Self:
        """A store on the Redis Cluster that the node of ``url`` belongs to.

        redis-py's cluster client learns every node and slot from that one, sends each
        step to the node of its keys' slot, and follows the cluster's MOVED and ASK
        redirections (a resharding or a failover). A step's keys share one hash tag (see
        :mod:`cardproof_service.store.keys`), so every step runs on one node. With
        ``min_replicas``, a write goes with its ``WAIT`` straight to its slot's master.
        """
        client = RedisCluster.from_url(
            url,
            max_connections=MAX_CONNECTIONS,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=10,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        store = cls(client, timeout=timeout, min_replicas=min_replicas)
        options = parse_url(url)
        store._node_options = {
            name: value
            for name, value in options.items()
            if name in {"username", "password", "connection_class"}
        }
        return store

    async def _written(self, route: str, send: Callable[[Any], Awaitable[Any]]) -> Any:
        """One write, acknowledged only once ``min_replicas`` replicas have it.

        ``send`` runs the write on the client it is given; ``route`` is a key it writes
        (on a cluster, the node of its slot runs it). With replicas asked for, the write,
        a write of :func:`~cardproof_service.store.keys.ack` and a ``WAIT`` go on one
        connection (a pipeline: ``WAIT`` counts that connection's writes; on a cluster, a
        connection to the slot's master). The ack is always a write, so ``WAIT`` also
        confirms what the step found and did not write (a claim, an entry, a move a first
        attempt stored unconfirmed). Fewer replicas confirming within half the call's
        time is :class:`StoreUnavailable`:
        the client is told 503, never that the write is safe. The write may have landed
        all the same: a resent move, deal or entry recognises itself (see
        :meth:`from_url`); a resent close finds the tournament closed (409, its rounds
        completed all the same); a new organizer's name may show as taken.
        """
        if not self._min_replicas:
            return await self._call(lambda: send(self._redis))

        async def durable() -> Any:
            client = self._redis
            if isinstance(client, RedisCluster):
                node = client.get_node_from_key(route)
                if node is None:  # pragma: no cover - get_node_from_key raises instead
                    raise StoreUnavailable("redis: no master holds the slot")
                client = self._master_client(node.host, int(node.port))
            try:
                async with client.pipeline(transaction=False) as pipe:
                    await send(pipe)
                    pipe.set(layout.ack(route), 1, px=ACK_MS)  # WAIT covers all before it
                    pipe.wait(self._min_replicas, max(1, int(self._timeout * 500)))
                    reply, _, confirmed = await pipe.execute()
            except AskError as error:  # MOVED or ASK (redis-py strips the word from its text)
                # not written here. MOVED: the slot moved (a failover, a resharding), so the
                # slots are learnt anew. ASK: the key left a slot being migrated; until the
                # migration ends, a write to it with its WAIT is refused (503)
                if isinstance(error, MovedError):
                    self._cluster_ready = not isinstance(self._redis, RedisCluster)
                    raise StoreUnavailable("redis: the slot moved to another master") from error
                raise StoreUnavailable("redis: the key is being migrated") from error
            except (RedisConnectionError, RedisTimeoutError, OSError):
                if isinstance(self._redis, RedisCluster):  # its master may be gone: learn anew
                    self._cluster_ready = False
                raise
            if int(confirmed) < self._min_replicas:
                raise StoreUnavailable(
                    f"redis: the write reached {confirmed} of {self._min_replicas} replicas in time"
                )
            return reply

        return await self._call(durable)

    def _master_client(self, host: str, port: int) -> redis.Redis:
        """A plain client of one cluster master, kept for its connection pool."""
        name = f"{host}:{port}"
        client = self._masters.get(name)
        if client is None:
            pool = redis.BlockingConnectionPool(
                host=host,
                port=port,
                max_connections=MAX_CONNECTIONS,
                timeout=self._timeout,
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                **self._node_options,
            )
            client = self._masters[name] = redis.Redis(connection_pool=pool)
        return client

    async def _ready(self) -> None:
        """Learn a cluster's nodes and slots: before the first step, after a slot moved.

        redis-py's cluster client learns them on first use, but first uses at once race
        on the new connections (redis-py 8.1: ``AttributeError`` on a half-made one).
        """
        async with self._cluster_lock:
            if not self._cluster_ready:
                cluster = cast(RedisCluster, self._redis)
                if cluster.nodes_manager.slots_cache:  # known before: learn them again
                    await cluster.nodes_manager.initialize()
                else:
                    await cluster.initialize()
                self._cluster_ready = True

    async def _call(self, step: Callable[[], Awaitable[T]]) -> T:
        try:
            async with asyncio.timeout(self._timeout):
                if not self._cluster_ready:
                    await self._ready()
                result = await step()
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # redis-py can swallow a cancel
                raise asyncio.CancelledError
            return result
        except (
            RedisConnectionError,
            RedisTimeoutError,
            OSError,
            TimeoutError,
            ClusterError,  # a cluster that lost a node or a slot's owner, for now
            SlotNotCoveredError,
            TryAgainError,  # a slot being moved: the step is resent by the client
        ) as error:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # redis-py turned a cancel into this
                raise asyncio.CancelledError from error
            raise StoreUnavailable(f"redis: {error.__class__.__name__}") from error
        except ResponseError as error:  # Redis up but refusing writes: down for us too
            if isinstance(error, _REFUSING) or str(error).startswith("MISCONF"):
                raise StoreUnavailable(f"redis: {error.__class__.__name__}") from error
            raise

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

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless Redis answers with no old key in it.

        A cluster must have every master answer and serve every slot. Keys of the first
        layout (see :mod:`~cardproof_service.store.migrate`) mean a replica upgraded on
        such a Redis would not find the games stored before, so it is not ready until
        ``cardproof store migrate`` has run (looked for again every ``LEGACY_RECHECK``
        seconds while found).
        """
        if isinstance(self._redis, RedisCluster):  # every master answers, and all is served
            cluster = self._redis
            await self._call(lambda: cluster.ping(target_nodes=RedisCluster.PRIMARIES))
            info = cast(dict[str, Any], await self._call(cluster.cluster_info))
            if info.get("cluster_state") != "ok":
                raise StoreUnavailable("redis: the cluster does not serve every slot")
            return
        await self._call(self._redis.ping)
        if self._legacy_checked > time.monotonic():
            return
        legacy = await self._call(lambda: has_legacy_keys(cast(redis.Redis, self._redis)))
        if legacy:
            self._legacy_checked = time.monotonic() + LEGACY_RECHECK
            raise StoreUnavailable(
                "redis: keys of the first layout are there: stop every replica and run "
                "cardproof store migrate"
            )
        self._legacy_checked = float("inf")

    async def migrate_layout(self) -> Migrated:
        """Rename the first layout's keys to the tagged ones (``cardproof store migrate``)."""
        if isinstance(self._redis, RedisCluster):
            raise ValueError("a Redis Cluster never held the first key layout: nothing to do")
        client = self._redis
        done = await migrate(client)
        self._legacy_checked = 0.0
        return done

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
            # refused (503). A committed deal written all the same (only its WAIT fell
            # short) keeps its count: the resent request finds it by its claim. A casual
            # one is given back: nobody was told its id, so nobody can play it
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

    async def get_claim(self, commitment_id: str) -> bytes | None:
        """The commitment's claim key, or ``None``."""
        key = layout.claim(commitment_id)
        found = await self._call(lambda: self._redis.get(key))
        return cast(bytes | None, found)

    async def count_request(self, client: str, window: int) -> Hits:
        """The count script on the client's counter for the current window."""
        now = int(time.time())
        number = now // window
        key = layout.rate(client, number)
        count = await self._call(lambda: self._count_request(keys=[key], args=[window + 1]))
        return Hits(int(count), (number + 1) * window - now)

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

    @staticmethod
    def _appended(reply: list[Any]) -> Appended:
        outcome = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        call = int(reply[2]) if len(reply) > 2 else -1
        return Appended(outcome, int(reply[1]), call)  # type: ignore[arg-type]

    @staticmethod
    def _result_args(deal_id: str, total: int | None, tournament: str | None) -> list[EncodableT]:
        """The result-recording arguments: the total, the tournament, the deal."""
        return ["", "", ""] if total is None else [total, tournament or "", deal_id]

    @staticmethod
    def _result_keys(deal_id: str, tournament_id: str | None) -> list[str]:
        """The standings a finished game's result goes into (placeholders for none)."""
        if tournament_id is None:
            return [layout.placeholder(layout.id_tag(deal_id))] * 3
        base = layout.tournament(tournament_id)
        return [f"{base}:results", f"{base}:totals", f"{base}:finished"]

    @staticmethod
    def _ending_args(ending: Ending | None) -> list[EncodableT]:
        """The packed ending, then the receipt a tournament result keeps."""
        if ending is None:
            return ["", ""]
        return [ending.stored, ending.result_receipt or ""]

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
        """The append script: atomic check-and-append (and a tournament result, once).

        ``owner``'s count of games in flight follows: a moved deal expires later there (in
        the same moment, on the owner's node), a finished one leaves it.
        """
        tag = layout.id_tag(deal_id)
        if placement is not None:
            round_key = layout.round_(placement.tournament, placement.round)
            due_key = layout.due(layout.id_tag(placement.tournament))
        else:
            round_key = due_key = layout.placeholder(tag)
        closed_key, closes_at = _open_args(open_tournament, tag)
        keys = [layout.deal(deal_id), round_key, f"{round_key}:calls", due_key, closed_key]
        keys += self._result_keys(deal_id, tournament)
        args: list[EncodableT] = [index, move, "" if finished_at is None else finished_at, ttl]
        args += self._result_args(deal_id, total, tournament)
        args += self._ending_args(ending if finished_at is not None else None)
        if placement is None:
            args += ["", "", "", 1, "", layout.NEWS]
        else:
            args += [
                placement.by,
                " ".join(map(str, placement.auto)),
                placement.next_card or "",
                len(move.split()),
                layout.due_member(placement.tournament, placement.round),
                layout.NEWS,
            ]
        args.append(closes_at)
        append = self._written(keys[0], lambda c: self._append(keys=keys, args=args, client=c))
        if owner is None:
            return self._appended(await append)
        if finished_at is None:
            reply, _ = await asyncio.gather(append, self._extend_deal(deal_id, owner, ttl))
            return self._appended(reply)
        appended = self._appended(await append)
        if appended.outcome == "appended":
            await self._release_deal(deal_id, owner)
        return appended

    async def _extend_deal(self, deal_id: str, client: str, ttl: int) -> None:
        """The extend script: a moved deal stays in flight as long as it lives."""
        keys = [layout.in_flight(client)]
        await self._written(
            keys[0], lambda c: self._extend(keys=keys, args=[deal_id, ttl], client=c)
        )

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
        """The submit script: a whole log, only onto an unplayed deal (and its result).

        The deal then leaves ``owner``'s games in flight.
        """
        closed_key, closes_at = _open_args(open_tournament, layout.id_tag(deal_id))
        keys = [layout.deal(deal_id), closed_key, *self._result_keys(deal_id, tournament)]
        args: list[EncodableT] = [" ".join(moves), len(moves), finished_at, int(blind), ttl]
        args += self._result_args(deal_id, total, tournament)
        args += self._ending_args(ending)
        args.append(closes_at)
        reply = await self._written(keys[0], lambda c: self._submit(keys=keys, args=args, client=c))
        appended = self._appended(reply)
        if owner is not None and appended.outcome == "appended":
            await self._release_deal(deal_id, owner)
        return appended

    async def add_organizer(self, record: OrganizerRecord) -> bool:
        """The add-organizer script: the name is claimed and the record written at once."""
        keys = [layout.organizer(record.organizer_id), layout.ORGANIZER_NAMES]
        args: list[EncodableT] = [record.name, record.organizer_id, msgspec.json.encode(record)]
        added = await self._written(
            keys[0], lambda c: self._add_organizer(keys=keys, args=args, client=c)
        )
        return bool(added)

    async def get_organizer(self, organizer_id: str) -> OrganizerRecord | None:
        """The organizer's record, or ``None``."""
        key = layout.organizer(organizer_id)
        found = await self._call(lambda: self._redis.get(key))
        return None if found is None else self._organizer_decoder.decode(found)

    async def create_tournament(self, record: TournamentRecord) -> None:
        """One key, expiring at ``record.expires_at`` (with every other key of it)."""
        key = layout.tournament(record.tournament_id)
        value = msgspec.json.encode(record)
        await self._written(key, lambda c: c.set(key, value, exat=record.expires_at))

    async def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The tournament's record, or ``None``."""
        key = layout.tournament(tournament_id)
        found = await self._call(lambda: self._redis.get(key))
        return None if found is None else self._tournament_decoder.decode(found)

    async def add_entrant(
        self, tournament_id: str, entrant: NewEntrant, max_entrants: int | None
    ) -> EntryResult:
        """The enter script: every check and the entry in one step."""
        base = layout.tournament(tournament_id)
        replay = f"{base}:entry-replay:{entrant.replay or '-'}"
        keys = [
            f"{base}:entrant-keys",
            f"{base}:entrant-ids",
            f"{base}:totals",
            f"{base}:finished",
            f"{base}:invites",
            replay,
        ]
        args: list[EncodableT] = [
            entrant.key,
            entrant.entrant_id,
            entrant.name,
            "" if max_entrants is None else max_entrants,
            entrant.invite or "",
            entrant.replay_ttl if entrant.replay else "",
            "" if entrant.expires_at is None else entrant.expires_at,
        ]
        reply = await self._written(keys[0], lambda c: self._enter(keys=keys, args=args, client=c))
        outcome, entrant_id, name = (
            part.decode() if isinstance(part, bytes) else str(part) for part in reply
        )
        return EntryResult(cast(EntryOutcome, outcome), entrant_id, name)

    async def add_invites(
        self, tournament_id: str, hashes: list[str], limit: int, expires_at: int | None = None
    ) -> bool:
        """The add-invites script."""
        key = f"{layout.tournament(tournament_id)}:invites"
        args: list[EncodableT] = [limit, "" if expires_at is None else expires_at, *hashes]
        added = await self._written(
            key, lambda c: self._add_invites(keys=[key], args=args, client=c)
        )
        return bool(added)

    async def invite_known(self, tournament_id: str, code_hash: str) -> bool:
        """``HEXISTS`` on the invites hash."""
        key = f"{layout.tournament(tournament_id)}:invites"
        return bool(await self._call(lambda: self._redis.hexists(key, code_hash)))

    async def entrant_name(self, tournament_id: str, entrant_id: str) -> str | None:
        """The entrant's name, or ``None``."""
        key = f"{layout.tournament(tournament_id)}:entrant-ids"
        found = await self._call(lambda: self._redis.hget(key, entrant_id))
        return None if found is None else cast(bytes, found).decode()

    async def entrant_of_key(self, tournament_id: str, key: str) -> str | None:
        """The entrant id under the name key, from the entrant-keys hash."""
        keys = f"{layout.tournament(tournament_id)}:entrant-keys"
        found = await self._call(lambda: self._redis.hget(keys, key))
        return None if found is None else cast(bytes, found).decode()

    async def standings(self, tournament_id: str) -> list[Standing]:
        """Totals from the sorted set, finished games from the hash, read in one step."""
        base = layout.tournament(tournament_id)

        keys = [f"{base}:totals", f"{base}:finished"]
        totals, flat = await self._call(lambda: self._read_standings(keys=keys))
        finished = dict(zip(flat[::2], flat[1::2], strict=True))
        return [
            Standing(name.decode(), int(total), int(finished.get(name, 0)))
            for name, total in zip(totals[::2], totals[1::2], strict=True)
        ]

    async def record_round_par(
        self, tournament_id: str, round_number: int, par: bytes, expires_at: int | None
    ) -> bytes:
        """``HSETNX`` into the tournament's pars hash (expiring with it), then the par kept."""
        key = f"{layout.tournament(tournament_id)}:pars"
        field = str(round_number)
        await self._written(key, lambda c: c.hsetnx(key, field, par))
        if expires_at is not None:
            await self._written(key, lambda c: c.expireat(key, expires_at))
        kept = cast(bytes | None, await self._call(lambda: self._redis.hget(key, field)))
        return par if kept is None else kept

    async def round_pars(self, tournament_id: str) -> dict[int, bytes]:
        """The tournament's pars hash (field: the round number)."""
        key = f"{layout.tournament(tournament_id)}:pars"
        found = cast(dict[bytes, bytes], await self._call(lambda: self._redis.hgetall(key)))
        return {int(field): value for field, value in found.items()}

    async def result_keys(self, tournament_id: str) -> list[tuple[str, int]]:
        """The fields of the tournament's results hash (``player/round``), as pairs."""
        key = f"{layout.tournament(tournament_id)}:results"
        fields = cast(list[bytes], await self._call(lambda: self._redis.hkeys(key)))
        pairs = []
        for field in fields:
            player, _, round_number = field.decode().rpartition("/")
            pairs.append((player, int(round_number)))
        return pairs

    async def results(
        self, tournament_id: str, games: Sequence[tuple[str, int]] | None = None
    ) -> list[GameResult]:
        """Results from the tournament's results hash (field ``player/round``)."""
        key = f"{layout.tournament(tournament_id)}:results"
        found: dict[bytes, bytes]
        if games is None:
            found = cast(dict[bytes, bytes], await self._call(lambda: self._redis.hgetall(key)))
        else:
            fields = [f"{player}/{round_}" for player, round_ in games]
            values = cast(
                list[bytes | None],
                await self._call(lambda: self._redis.hmget(key, fields)) if fields else [],
            )
            found = {f.encode(): v for f, v in zip(fields, values, strict=True) if v is not None}
        results = []
        for field, value in found.items():
            player, _, round_number = field.decode().rpartition("/")
            stored = self._result_decoder.decode(value)
            results.append(
                GameResult(
                    player=player,
                    round=int(round_number),
                    deal_id=stored.deal_id,
                    total=stored.total,
                    finished_at=stored.finished_at,
                    moves=stored.moves,
                    blind=stored.blind,
                    receipt=stored.receipt,
                )
            )
        return results

    async def close_tournament(self, tournament_id: str, closed_at: int) -> bool:
        """The close script: ``closed_at`` set once, in the stored record."""
        keys = [layout.tournament(tournament_id), layout.closed(tournament_id)]
        closed = await self._written(
            keys[0], lambda c: self._close_tournament(keys=keys, args=[closed_at], client=c)
        )
        return bool(closed)

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
        args: list[EncodableT] = [
            int(time.time() * 1000),
            layout.due_member(tournament_id, round_number),
            layout.NEWS,
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

    async def close(self) -> None:
        """Close the client and its connection pool (given to it: closed here)."""
        for master in self._masters.values():
            with contextlib.suppress(Exception):
                async with asyncio.timeout(self._timeout):
                    await master.aclose()
                    await master.connection_pool.disconnect()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self._timeout):
                await self._redis.aclose()
                if isinstance(self._redis, redis.Redis):  # a cluster client closes its nodes
                    await self._redis.connection_pool.disconnect()

    async def memory_usage(self, deal_id: str) -> int:
        """Bytes Redis uses for one deal (``MEMORY USAGE``), for the benchmarks."""
        used = await self._call(lambda: self._redis.memory_usage(layout.deal(deal_id)))
        return int(used or 0)


SENTINEL_MAX_CONNECTIONS: Final = 512
"""Connections to the primary one process may open with sentinels (redis-py has no
blocking pool for them: past this a call fails as unavailable)."""


def parse_sentinel_url(url: str) -> tuple[list[tuple[str, int]], str, int, str | None]:
    """``sentinel://[:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB]``, read.

    >>> parse_sentinel_url("sentinel://10.0.0.1:26379,10.0.0.2:26380/cardproof/2")
    ([('10.0.0.1', 26379), ('10.0.0.2', 26380)], 'cardproof', 2, None)
    >>> parse_sentinel_url("sentinel://:s%40cret@s1:26379/main")[1:]
    ('main', 0, 's@cret')
    """
    if not url.startswith("sentinel://"):
        raise ValueError("a sentinel URL starts with sentinel://")
    rest = url.removeprefix("sentinel://")
    password = None
    if "@" in rest:
        credentials, _, rest = rest.rpartition("@")
        password = unquote(credentials.partition(":")[2]) or None
    where, _, path = rest.partition("/")
    parts = [part for part in path.split("/") if part]
    if not where or not parts or len(parts) > 2:
        raise ValueError("a sentinel URL names HOST:PORT[,HOST:PORT...]/SERVICE[/DB]")
    hosts = []
    for host in where.split(","):
        name, _, port = host.rpartition(":")
        if not name or not port.isdigit():
            raise ValueError(f"{host!r} is not HOST:PORT")
        hosts.append((name, int(port)))
    if len(parts) == 2 and not parts[1].isdigit():
        raise ValueError(f"the database is a number, not {parts[1]!r}")
    db = int(parts[1]) if len(parts) == 2 else 0
    return hosts, parts[0], db, password


def _open_args(open_tournament: OpenTournament | None, tag: str) -> tuple[str, EncodableT]:
    """The closed mark to read and the closing time to compare (placeholders for none)."""
    if open_tournament is None:
        return layout.placeholder(tag), ""
    return layout.closed(open_tournament.tournament), open_tournament.closes_at
