"""The Redis store's moves: a deal's log, appended or submitted whole, and its result.

Owns the append and submit scripts. Each is one atomic step on the deal's hash that
may also touch what the deal is part of, all under the deal's tag: its lockstep round
(a call completed, the next card called), its tournament's closed mark, and the
standings its result goes into. The deal's place among its client's games in flight
follows in a step of its own (limits.py).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import Appended, Ending, OpenTournament, Placement
from cardproof_service.store.redis.core import RedisClient
from cardproof_service.store.redis.limits import RedisLimits

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
"""A whole finished log onto a deal with no move yet (and its ending and result), while
its tournament is open (``KEYS[2]``, its closed mark; ``ARGV[11]``, its closing time)."""


class RedisMoves(RedisLimits):
    """Appends and whole logs (on limits: a moved deal stays in flight, a finished leaves)."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """Limits, and the append and submit scripts."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._append = client.register_script(_APPEND)
        self._submit = client.register_script(_SUBMIT)

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


def _open_args(open_tournament: OpenTournament | None, tag: str) -> tuple[str, EncodableT]:
    """The closed mark to read and the closing time to compare (placeholders for none)."""
    if open_tournament is None:
        return layout.placeholder(tag), ""
    return layout.closed(open_tournament.tournament), open_tournament.closes_at
