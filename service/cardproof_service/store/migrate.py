"""``cardproof store migrate``: the first key layout renamed to the tagged one.

A Redis written by cardproof before 0.9 is renamed to the layout of store/keys.py, so
that nothing stored before an upgrade is lost.

The first layout named keys without hash tags (``cardproof:deal:ID``,
``cardproof:tournament:ID:totals``, one ``cardproof:lockstep-due`` for every round).
Each key is renamed in place (``RENAMENX``: its value and time to live kept); the games
in flight of a client are listed by deal id instead of key; the due rounds are split by
tag. Run it with every replica stopped; it can be run again (it skips what it did).
Only a single Redis or a Sentinel primary can hold the first layout: a cluster never
could.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, cast

import redis.asyncio as redis
from redis.exceptions import ResponseError

from cardproof_service.store import keys as layout

OLD: Final = "cardproof:"
LEGACY_PREFIXES: Final = (
    f"{OLD}deal:",
    f"{OLD}commitment:",
    f"{OLD}in-flight:",
    f"{OLD}deals-today:",
    f"{OLD}organizer:",
    f"{OLD}tournament:",
)
LEGACY_KEYS: Final = (f"{OLD}organizer-names", f"{OLD}lockstep-due")
KEPT: Final = f"{OLD}kept:"
"""Where an old key that could not be renamed is set aside (``cardproof:kept:deal:ID``):
kept for its owner to look at, with its time to live, and no longer in the way of
readiness."""
SET_ASIDE_COPIES: Final = 100
"""Copies of one old key set aside at most (each run that finds it again adds one)."""
SCAN_LIMIT: Final = 20_000
"""Keys :func:`has_legacy_keys` looks at, at most (it runs at every readiness check)."""


@dataclass
class Migrated:
    """What a migration did."""

    renamed: int = 0
    """Keys renamed to their tagged names."""
    rounds_due: int = 0
    """Due rounds moved to their tag's set."""
    kept: list[str] = field(default_factory=list)
    """Old keys set aside under ``KEPT`` (their new names): their new name was taken (a
    second copy), or they are not one of the first layout's keys after all."""
    gone: int = 0
    """Old keys that expired while the migration ran."""


def new_name(old: str) -> str | None:
    """The tagged name of a key of the first layout (``None``: not one of them).

    >>> new_name("cardproof:deal:d_0aqrsNyvH1LXWkFWPvYMPA")
    'cardproof:{0a}:deal:d_0aqrsNyvH1LXWkFWPvYMPA'
    >>> new_name("cardproof:tournament:t_2c819c823954a2e50ea4:round:1:calls")
    'cardproof:{2c}:tournament:t_2c819c823954a2e50ea4:round:1:calls'
    >>> new_name("cardproof:deals-today:DkYLCAKP-SZZr0sd:20782")
    'cardproof:{c.DkYLCAKP-SZZr0sd}:deals-today:20782'
    >>> new_name("cardproof:rate:DkYLCAKP-SZZr0sd:29")  # a key of its own already
    """
    rest = old.removeprefix(OLD)
    kind, _, name = rest.partition(":")
    if kind == "deal":
        return layout.deal(name)
    if kind == "commitment":
        return layout.claim(name)
    if kind == "in-flight":
        return layout.in_flight(name)
    if kind == "deals-today":
        client, _, day = name.rpartition(":")
        return layout.deals_today(client, int(day)) if day.isdigit() else None
    if kind == "organizer-names":
        return layout.ORGANIZER_NAMES
    if kind == "organizer":
        return layout.organizer(name)
    if kind == "tournament":
        tournament_id, _, part = name.partition(":")
        return layout.tournament(tournament_id) + (f":{part}" if part else "")
    return None


def _is_legacy(name: str) -> bool:
    return name in LEGACY_KEYS or name.startswith(LEGACY_PREFIXES)


async def has_legacy_keys(client: redis.Redis) -> bool:
    """Whether the first layout's keys are there (a look at ``SCAN_LIMIT`` keys at most)."""
    if await client.exists(*LEGACY_KEYS):
        return True
    seen = 0
    async for key in client.scan_iter(match=f"{OLD}*", count=1000):
        if _is_legacy(key.decode()):
            return True
        seen += 1
        if seen >= SCAN_LIMIT:
            break
    return False


async def migrate(
    client: redis.Redis, progress: Callable[[int, int], None] | None = None
) -> Migrated:
    """Rename every key of the first layout on ``client``'s Redis (see the module).

    ``progress(done, total)`` is told before each old key and once at the end.
    """
    done = Migrated()
    scanned = [key.decode() async for key in client.scan_iter(match=f"{OLD}*", count=1000)]
    olds = [old for old in scanned if _is_legacy(old)]
    for number, old in enumerate(olds):
        if progress is not None:
            progress(number, len(olds))
        if old == f"{OLD}lockstep-due":
            done.rounds_due += await _split_due(client, old)
            continue
        new = new_name(old)
        try:
            if new is None:
                await _set_aside(client, old, done)
            elif old.startswith(f"{OLD}in-flight:"):
                await _rename_in_flight(client, old, new)
                done.renamed += 1
            elif await client.renamenx(old, new):
                done.renamed += 1
            elif await client.exists(old):  # the new name is taken: both kept
                await _set_aside(client, old, done)
        except ResponseError as error:  # the old key expired since the scan found it
            if "no such key" not in str(error).lower():
                raise
            done.gone += 1
    if progress is not None:
        progress(len(olds), len(olds))
    return done


async def _set_aside(client: redis.Redis, old: str, done: Migrated) -> None:
    """Rename ``old`` under ``KEPT``; never over a copy set aside before (``:2``, ...)."""
    kept = KEPT + old.removeprefix(OLD)
    for copy in range(1, SET_ASIDE_COPIES + 1):
        name = kept if copy == 1 else f"{kept}:{copy}"
        if await client.renamenx(old, name):
            done.kept.append(name)
            return
    raise ValueError(f"{old}: {SET_ASIDE_COPIES} copies are set aside already; look at them")


async def _rename_in_flight(client: redis.Redis, old: str, new: str) -> None:
    """A client's games in flight, by deal id instead of deal key, with the same expiry."""
    members = cast(list[tuple[bytes, float]], await client.zrange(old, 0, -1, withscores=True))
    ttl = await client.pttl(old)
    async with client.pipeline(transaction=True) as pipe:
        for member, expires in members:
            deal_id = member.decode().removeprefix(f"{OLD}deal:")
            pipe.zadd(new, {deal_id: expires})
        if ttl > 0:
            pipe.pexpire(new, ttl)
        pipe.delete(old)
        await pipe.execute()


async def _split_due(client: redis.Redis, old: str) -> int:
    """Every due round under its tag's set, each tag named for the keeper."""
    members = cast(list[tuple[bytes, float]], await client.zrange(old, 0, -1, withscores=True))
    seconds, micros = await client.time()  # the clock the keeper reads touches by
    now_ms = seconds * 1000 + micros // 1000
    async with client.pipeline(transaction=True) as pipe:
        for member, due in members:
            tournament_id = member.decode().rpartition(":")[0]
            tag = layout.id_tag(tournament_id)
            pipe.zadd(layout.DUE_TAGS, {tag: now_ms})
            pipe.zadd(layout.due(tag), {member: due})
        pipe.delete(old)
        await pipe.execute()
    return len(members)
