"""The Redis store's tournaments: organizers, tournaments, entrants, standings, pars.

Owns the organizers' keys (one tag for all) and every key under a tournament's tag but
its rounds': its record and closed mark, entrants and invites, totals and finished
games, results and pars. Results are written by a game's last move (moves.py, in the
deal's step: the deal carries its tournament's tag) and read here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Final, cast

import msgspec
from redis.typing import EncodableT

import cardproof_service.store.keys as layout
from cardproof_service.store.records import (
    ORGANIZER_LISTED,
    EntryOutcome,
    EntryResult,
    GameResult,
    NewEntrant,
    OrganizerRecord,
    Standing,
    TournamentListing,
    TournamentRecord,
)
from cardproof_service.store.redis.core import RedisClient, RedisCore

_READ_STANDINGS: Final = """
return {redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'), redis.call('HGETALL', KEYS[2])}
"""
"""A tournament's totals and finished games, read in one step."""

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
if ARGV[8] ~= '' and redis.call('HEXISTS', KEYS[7], 'start') == 1 then
  return {'entries-closed', '', ''}
end
if ARGV[5] ~= '' then
  local used = redis.call('HGET', KEYS[5], ARGV[5])
  if not used then return {'bad-invite', '', ''} end
  if used ~= '' and used ~= ARGV[2] then return {'invite-used', '', ''} end
end
if known then return {'name-taken', known, redis.call('HGET', KEYS[2], known) or ''} end
if ARGV[4] ~= '' and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return {'full', '', ''}
end
if ARGV[9] ~= '' and ARGV[10] ~= ''
    and tonumber(redis.call('HGET', KEYS[8], ARGV[9]) or '0') >= tonumber(ARGV[10]) then
  return {'entries-per-address', '', ''}
end
if ARGV[9] ~= '' then redis.call('HINCRBY', KEYS[8], ARGV[9], 1) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], 0, ARGV[3])
redis.call('HSET', KEYS[4], ARGV[3], 0)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[5], ARGV[5], ARGV[2]) end
if ARGV[6] ~= '' then redis.call('SET', KEYS[6], ARGV[2], 'EX', ARGV[6]) end
if ARGV[7] ~= '' then
  for _, i in ipairs({1, 2, 3, 4, 5, 8}) do
    if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('EXPIREAT', KEYS[i], ARGV[7]) end
  end
end
return {'added', ARGV[2], ARGV[3]}
"""
"""Enter once (name keys to ids, ids to names, a 0 total, 0 games) in the protocol's order:
a replay key answers its first entry, the same entrant again is the same entry; a
lockstep tournament's entries close once its round 1 (KEYS[7]) has started; an invite
code must be issued and unused; the name's key free; room in the field; the client
(ARGV[9], counted in KEYS[8]) under its limit of entries (ARGV[10])."""

_ADD_INVITES: Final = """
if redis.call('HLEN', KEYS[1]) + #ARGV - 2 > tonumber(ARGV[1]) then return 0 end
for i = 3, #ARGV do redis.call('HSETNX', KEYS[1], ARGV[i], '') end
if ARGV[2] ~= '' then redis.call('EXPIREAT', KEYS[1], ARGV[2]) end
return 1
"""
"""Unused invite codes (by hash), within the limit on codes in all, expiring with their
tournament."""


_PRUNE_LISTED: Final = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 1000)
for _, member in ipairs(gone) do
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', KEYS[2], member)
end
"""
"""Drop the lines of an organizer's tournaments that have expired (at most 1,000 a step)."""

_LIST_TOURNAMENT: Final = (
    _PRUNE_LISTED
    + """
if redis.call('EXISTS', KEYS[3]) == 0 then
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1)[1]
  if newest then redis.call('SET', KEYS[3], string.sub(newest, 1, 16)) end
end
local member = string.format('%016d', redis.call('INCR', KEYS[3])) .. ':' .. ARGV[2]
redis.call('ZADD', KEYS[1], 0, member)
redis.call('ZADD', KEYS[2], ARGV[3], member)
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over > 0 then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZREM', KEYS[2], member)
  end
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
for i = 1, 3 do
  if last[2] == 'inf' then redis.call('PERSIST', KEYS[i])
  else redis.call('EXPIREAT', KEYS[i], math.floor(tonumber(last[2]))) end
end
return member
"""
)
"""List a tournament (``ARGV[2]``, expiring at ``ARGV[3]``) among its organizer's, under
the next number of the organizer's counter (``KEYS[3]``; a listing made before there was
one starts it at its newest line's time): expired lines dropped, the oldest past
``ARGV[4]`` lines dropped, and the three keys expiring with the last of the organizer's
tournaments to expire."""

_LISTED: Final = (
    _PRUNE_LISTED
    + """
return redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[2], '-', 'LIMIT', 0, tonumber(ARGV[3]))
"""
)
"""A page of an organizer's listing, newest first, from ``ARGV[2]`` (``+`` or
``(cursor``), expired lines dropped first."""

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


class _StoredResult(msgspec.Struct):
    """A result as the append and submit scripts write it (``cjson``)."""

    deal_id: str
    total: int
    finished_at: int
    moves: str
    blind: bool
    receipt: str | None = None


class RedisTournaments(RedisCore):
    """Organizers, tournaments, entrants and invites, standings, results and pars."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """The core, and the scripts and decoders of tournaments."""
        super().__init__(client, timeout=timeout, min_replicas=min_replicas)
        self._read_standings = client.register_script(_READ_STANDINGS)
        self._add_organizer = client.register_script(_ADD_ORGANIZER)
        self._enter = client.register_script(_ENTER)
        self._add_invites = client.register_script(_ADD_INVITES)
        self._close_tournament = client.register_script(_CLOSE_TOURNAMENT)
        self._list_tournament = client.register_script(_LIST_TOURNAMENT)
        self._listed = client.register_script(_LISTED)
        self._result_decoder = msgspec.json.Decoder(_StoredResult)
        self._organizer_decoder = msgspec.json.Decoder(OrganizerRecord)
        self._tournament_decoder = msgspec.json.Decoder(TournamentRecord)

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
        """One key, expiring at ``record.expires_at`` (with every other key of it).

        Listed first, in the list script under the organizer's tag (another slot).
        """
        keys = [
            layout.organizer_tournaments(record.organizer_id),
            layout.organizer_tournaments_expiry(record.organizer_id),
            layout.organizer_tournaments_sequence(record.organizer_id),
        ]
        expires = "+inf" if record.expires_at is None else record.expires_at
        args: list[EncodableT] = [int(time.time()), record.tournament_id, expires, ORGANIZER_LISTED]
        await self._written(
            keys[0], lambda c: self._list_tournament(keys=keys, args=args, client=c)
        )
        key = layout.tournament(record.tournament_id)
        value = msgspec.json.encode(record)
        await self._written(key, lambda c: c.set(key, value, exat=record.expires_at))

    async def organizer_tournaments(
        self, organizer_id: str, limit: int, cursor: str | None = None
    ) -> TournamentListing:
        """The listed script, then the records, read in one round trip.

        The script reads one line more than asked for (is there a page after?); on a
        cluster the pipeline reads each record from its slot's node.
        """
        keys = [
            layout.organizer_tournaments(organizer_id),
            layout.organizer_tournaments_expiry(organizer_id),
        ]
        start = "+" if cursor is None else f"({cursor}"
        args: list[EncodableT] = [int(time.time()), start, limit + 1]
        found = cast(list[bytes], await self._call(lambda: self._listed(keys=keys, args=args)))
        members = [member.decode() for member in found]
        page = members[:limit]

        async def read() -> list[Any]:
            async with self._redis.pipeline(transaction=False) as pipe:
                for member in page:
                    pipe.get(layout.tournament(member.partition(":")[2]))
                replies: list[Any] = await pipe.execute()
                return replies

        replies = await self._call(read) if page else []
        records = [self._tournament_decoder.decode(value) for value in replies if value]
        return TournamentListing(records, page[-1] if len(members) > limit else None)

    async def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The tournament's record, or ``None``."""
        key = layout.tournament(tournament_id)
        found = await self._call(lambda: self._redis.get(key))
        return None if found is None else self._tournament_decoder.decode(found)

    async def add_entrant(
        self,
        tournament_id: str,
        entrant: NewEntrant,
        max_entrants: int | None,
        *,
        until_first_round: bool = False,
        address: str | None = None,
        per_address: int = 0,
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
            layout.round_(tournament_id, 1),
            f"{base}:address-entries",
        ]
        args: list[EncodableT] = [
            entrant.key,
            entrant.entrant_id,
            entrant.name,
            "" if max_entrants is None else max_entrants,
            entrant.invite or "",
            entrant.replay_ttl if entrant.replay else "",
            "" if entrant.expires_at is None else entrant.expires_at,
            "1" if until_first_round else "",
            address or "",
            per_address if address and per_address else "",
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
