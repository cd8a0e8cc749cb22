"""The Redis store's moves: a deal's log, appended or submitted whole, and its result.

Owns the append and submit scripts. Each is one atomic step on the deal's hash that
may also touch what the deal is part of, all under the deal's tag: its lockstep round
(a call completed, the next card called), its tournament's closed mark, and the
standings its result goes into. The deal's place among its client's games in flight
follows in a step of its own (limits.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final

import msgspec
from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import (
    Appended,
    Ending,
    LatePlacement,
    OpenTournament,
    Placement,
)
from cardproof_service.store.redis.core import RedisClient
from cardproof_service.store.redis.limits import RedisLimits
from cardproof_service.store.redis.log import RedisLog

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
local function end_game(deal, stored, pool, entries)
  if stored ~= '' then redis.call('HSET', deal, 'end', stored) end
  if entries ~= '' then redis.call('RPUSH', pool, entries) end
end
"""
"""A finished game's packed ending (``end``), and its receipts' log entries (one a line)
pooled in the tag's pool of the transparency log (``pool``), in the same step."""

_COUNT_PLACED: Final = """
local function count_placed(round, calls, due, r, call, now, placed, card, member, news)
  if redis.call('HINCRBY', round, 'placed', placed) < tonumber(r[4]) then return call end
  redis.call('HSET', round, 'placed', 0)
  if call + 1 >= tonumber(r[6]) then
    redis.call('HSET', round, 'fin', now)
    redis.call('ZREM', due, member)
  else
    call = call + 1
    redis.call('HSET', round, 'call', call, 'at', now)
    redis.call('RPUSH', calls, cjson.encode({call, card, now}))
    redis.call('ZADD', due, now + tonumber(r[5]), member)
  end
  redis.call('PUBLISH', news, member)
  return call
end
"""
"""``placed`` more seats placed call ``call`` of the round (``r``: its hash's start, call,
at, seats, ms, turns, fin); once every seat has, the next card (``card``) is called now,
due at its deadline, or the round finishes, and every replica is told. The call after."""

_ROUND_FIELDS: Final = "'start', 'call', 'at', 'seats', 'ms', 'turns', 'fin'"
"""The round hash's fields :data:`_COUNT_PLACED` reads, in its order."""

_APPEND: Final = (
    _RECORD_RESULT
    + _END_GAME
    + _COUNT_PLACED
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
  r = redis.call('HMGET', KEYS[2], """
    + _ROUND_FIELDS
    + """)
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
  end_game(KEYS[1], ARGV[8], KEYS[9], ARGV[17])
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
if ARGV[3] ~= '' then
  record_result(KEYS[1], KEYS[6], KEYS[7], KEYS[8], ARGV[6], ARGV[5], ARGV[7], ARGV[3], ARGV[9])
end
if r and index == call then
  call = count_placed(KEYS[2], KEYS[3], KEYS[4], r, call, now, 1, ARGV[12], ARGV[14], ARGV[15])
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
passed; a finishing one records its result (``KEYS[6..8]``: results, totals, finished)
and pools its log entries (``KEYS[9]``, ``ARGV[17]``).
Every key is under the deal's tag: a tournament game's deal carries its tournament's."""

_PLACE_LATE: Final = (
    _RECORD_RESULT
    + _END_GAME
    + _COUNT_PLACED
    + """
local r = redis.call('HMGET', KEYS[1], """
    + _ROUND_FIELDS
    + """)
local index = tonumber(ARGV[1])
if not r[1] or r[7] or tonumber(r[2]) ~= index then return {} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now < tonumber(r[3]) + tonumber(r[5]) then return {} end
local placed = {}
local seats = cmsgpack.unpack(ARGV[7])
for i = 8, #KEYS do
  local seat = seats[i - 7]
  local d = redis.call('HMGET', KEYS[i], 'n', 'fin', 'ls', 'moves', 'auto')
  if d[1] and tonumber(d[1]) == index and not d[2] and d[3] then
    local moves = seat[1]
    if index > 0 then moves = d[4] .. ' ' .. moves end
    local auto = ARGV[1]
    if d[5] then auto = d[5] .. ' ' .. auto end
    redis.call('HSET', KEYS[i], 'moves', moves, 'n', index + seat[2], 'auto', auto)
    if seat[3] ~= '' then
      redis.call('HSET', KEYS[i], 'fin', seat[3])
      if seat[6] > 0 then end_game(KEYS[i], ARGV[seat[6]], KEYS[7], seat[8]) end
    end
    redis.call('EXPIRE', KEYS[i], ARGV[2])
    if seat[3] ~= '' then
      record_result(KEYS[i], KEYS[4], KEYS[5], KEYS[6], ARGV[3], seat[4], seat[5], seat[3], seat[7])
    end
    placed[#placed + 1] = seat[5]
  end
end
if #placed > 0 then
  count_placed(KEYS[1], KEYS[2], KEYS[3], r, index, now, #placed, ARGV[4], ARGV[5], ARGV[6])
end
return placed
"""
)
"""Place call ``ARGV[1]`` for many seats of a round (``KEYS[8..]``, their deals) at once:
only past the call's deadline by Redis's clock, and only on a seat still at that index
and unfinished. Each is an ``auto`` append as :data:`_APPEND` makes it (``ARGV[7]``, the
seats packed in one MessagePack array, each: move, moves in it, finish time, total,
deal id, where its packed ending is among the arguments (0: none), receipt, log entries
(pooled in ``KEYS[7]``); one argument, not thousands to encode); the placed are counted
once, which may call the next card (``ARGV[4]``). Returns the deal ids
placed. Every key is under the tournament's tag."""

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
if redis.call('HEXISTS', KEYS[1], 'ls') == 1 then return {'lockstep', n} end
redis.call('HSET', KEYS[1], 'moves', ARGV[1], 'n', ARGV[2], 'fin', ARGV[3], 'blind', ARGV[4])
end_game(KEYS[1], ARGV[9], KEYS[6], ARGV[12])
redis.call('EXPIRE', KEYS[1], ARGV[5])
record_result(KEYS[1], KEYS[3], KEYS[4], KEYS[5], ARGV[7], ARGV[6], ARGV[8], ARGV[3], ARGV[10])
return {'appended', tonumber(ARGV[2])}
"""
)
"""A whole finished log onto a deal with no move yet (and its ending and result), while
its tournament is open (``KEYS[2]``, its closed mark; ``ARGV[11]``, its closing time),
its log entries pooled (``KEYS[6]``, ``ARGV[12]``);
never onto a lockstep seat (``ls``), which is played one call at a time."""


class RedisMoves(RedisLimits, RedisLog):
    """Appends and whole logs, on limits and the log.

    A moved deal stays in flight, a finished one leaves; a finished game's receipt
    entries are pooled in its step.
    """

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """Limits, and the append and submit scripts."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._append = client.register_script(_APPEND)
        self._submit = client.register_script(_SUBMIT)
        self._place_late = client.register_script(_PLACE_LATE)

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
        keys.append(layout.log_pool(tag))
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
        entries = b"" if finished_at is None or ending is None else ending.log
        args += [closes_at, entries]
        append = self._written(keys[0], lambda c: self._append(keys=keys, args=args, client=c))
        if owner is None or finished_at is None:
            if owner is None:
                appended = self._appended(await append)
            else:
                reply, _ = await asyncio.gather(append, self._extend_deal(deal_id, owner, ttl))
                appended = self._appended(reply)
        else:
            appended = self._appended(await append)
            if appended.outcome == "appended":
                await self._release_deal(deal_id, owner)
        if entries and appended.outcome == "appended":
            await self._mark_pool(tag)
        return appended

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
        tag = layout.id_tag(deal_id)
        closed_key, closes_at = _open_args(open_tournament, tag)
        keys = [layout.deal(deal_id), closed_key, *self._result_keys(deal_id, tournament)]
        keys.append(layout.log_pool(tag))
        args: list[EncodableT] = [" ".join(moves), len(moves), finished_at, int(blind), ttl]
        args += self._result_args(deal_id, total, tournament)
        args += self._ending_args(ending)
        entries = b"" if ending is None else ending.log
        args += [closes_at, entries]
        reply = await self._written(keys[0], lambda c: self._submit(keys=keys, args=args, client=c))
        appended = self._appended(reply)
        if owner is not None and appended.outcome == "appended":
            await self._release_deal(deal_id, owner)
        if entries and appended.outcome == "appended":
            await self._mark_pool(tag)
        return appended

    @staticmethod
    def _late_seat(seat: LatePlacement, endings: list[EncodableT]) -> list[object]:
        """A seat as the place-late script unpacks it ('' for what it does not have).

        A finishing seat's packed ending (bytes, which the script's MessagePack cannot
        read) goes to ``endings``, the arguments after the seats; the seat names its place.
        """
        fields: list[object] = [seat.move, len(seat.move.split()), "", "", seat.deal_id, 0, "", ""]
        if seat.finished_at is not None:
            fields[2] = str(seat.finished_at)
            fields[3] = "" if seat.total is None else str(seat.total)
            if seat.ending is not None:
                endings.append(seat.ending.stored)
                fields[5] = 7 + len(endings)
                fields[6] = seat.ending.result_receipt or ""
                fields[7] = seat.ending.log.decode()
        return fields

    async def place_late(
        self,
        tournament_id: str,
        round_number: int,
        call: int,
        ttl: int,
        next_card: str | None,
        seats: Sequence[LatePlacement],
    ) -> list[str]:
        """The place-late script: one step for all of ``seats``."""
        if not seats:
            return []
        round_key = layout.round_(tournament_id, round_number)
        keys = [round_key, f"{round_key}:calls", layout.due(layout.id_tag(tournament_id))]
        keys += self._result_keys(seats[0].deal_id, tournament_id)
        pool = layout.id_tag(tournament_id)
        keys.append(layout.log_pool(pool))
        keys += [layout.deal(seat.deal_id) for seat in seats]
        member = layout.due_member(tournament_id, round_number)
        endings: list[EncodableT] = []
        packed = _PACKER.encode([self._late_seat(seat, endings) for seat in seats])
        args: list[EncodableT] = [call, ttl, tournament_id, next_card or "", member, layout.NEWS]
        args += [packed, *endings]
        reply = await self._written(
            round_key, lambda c: self._place_late(keys=keys, args=args, client=c)
        )
        placed = [item.decode() if isinstance(item, bytes) else str(item) for item in reply]
        if placed and any(seat.ending is not None and seat.ending.log for seat in seats):
            await self._mark_pool(pool)
        return placed


_PACKER: Final = msgspec.msgpack.Encoder()
"""Packs a batch of late placements into one script argument."""


def _open_args(open_tournament: OpenTournament | None, tag: str) -> tuple[str, EncodableT]:
    """The closed mark to read and the closing time to compare (placeholders for none)."""
    if open_tournament is None:
        return layout.placeholder(tag), ""
    return layout.closed(open_tournament.tournament), open_tournament.closes_at
