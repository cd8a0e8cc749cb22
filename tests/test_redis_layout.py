"""The Redis key layout (store/keys.py): declared keys, shared tags, spread slots.

Redis Cluster runs a script on the node of its declared keys' slot and refuses a key
of another slot; a key that a script names without declaring it, under the same tag,
would still run there, and so would go unnoticed by test_store_contract.py's cluster
runs. These tests read every script and check that each key it touches is one of its
``KEYS``; then that unrelated things get tags of their own, so that load spreads.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.crc import key_slot

from cardproof_service.deals.commitments import Commitments
from cardproof_service.store import keys as layout
from cardproof_service.store import redis as redis_store
from cardproof_service.store.redis import RedisStore
from cardproof_service.store.redis import rounds as redis_rounds
from conftest import TEST_KEYS
from redis_server import redis_cluster, redis_url_or_skip

KEYLESS = {"TIME", "PUBLISH"}
"""Commands a script calls that take no key."""
CALL = re.compile(r"redis\.call\('(\w+)',\s*([^,)]+)")
FUNCTION = re.compile(r"local function (\w+)\(([^)]*)\)")


def scripts() -> dict[str, str]:
    """Every Lua script the Redis store registers, by its constant's name (a script is
    whole here: its helper functions are joined to it), from every module of its package
    (each part registers the scripts it keeps)."""
    found: dict[str, str] = {}
    for path in sorted(Path(redis_store.__file__).parent.glob("*.py")):
        module = importlib.import_module(f"{redis_store.__name__}.{path.stem}")
        registered = re.findall(r"register_script\((_[A-Z_]+)\)", path.read_text())
        found |= {name: getattr(module, name) for name in registered}
    return found


def test_there_are_scripts_to_check() -> None:
    assert {"_APPEND", "_CREATE", "_ADMIT", "_ENTER", "_START_ROUND"} <= set(scripts())


def undeclared(text: str) -> list[str]:
    """The key arguments of ``text``'s calls that are not its ``KEYS`` (nor a helper's
    parameter that every call of the helper gives a ``KEYS`` entry)."""
    declared: set[str] = set()
    for function, parameters in FUNCTION.findall(text):
        names = [p.strip() for p in parameters.split(",")]
        calls = re.findall(rf"(?<!function ){function}\(([^)]*)\)", text)
        for position, parameter in enumerate(names):
            given = [c.split(",")[position].strip() for c in calls]
            if given and all(g.startswith("KEYS[") for g in given):
                declared.add(parameter)
    return [
        f"redis.call('{command}', {key.strip()})"
        for command, key in CALL.findall(text)
        if command.upper() not in KEYLESS
        and not key.strip().startswith("KEYS[")
        and key.strip() not in declared
    ]


@pytest.mark.parametrize("name", sorted(scripts()))
def test_every_key_a_script_touches_is_declared(name: str) -> None:
    assert undeclared(scripts()[name]) == []


def test_a_script_that_names_a_key_of_its_own_is_caught() -> None:
    """The check fails on what it must catch: a key built in the script, a helper given
    one that is not a ``KEYS`` entry."""
    built = "redis.call('HSET', ARGV[1] .. ':results', 'f', 1)"
    assert undeclared(built) == ["redis.call('HSET', ARGV[1] .. ':results')"]
    helper = (
        "local function bump(key, by) redis.call('INCRBY', key, by) end\n"
        "bump(KEYS[1], 1)\nbump(ARGV[2], 1)\n"
    )
    assert undeclared(helper) == ["redis.call('INCRBY', key)"]
    assert undeclared(helper.replace("ARGV[2]", "KEYS[2]")) == []


def test_plain_deals_spread_over_the_slots() -> None:
    commitments = Commitments(TEST_KEYS, ttl=3600)
    ids = [layout.new_deal_id(layout.id_tag(commitments.new_id(0))) for _ in range(2000)]
    slots = {key_slot(layout.deal(deal_id).encode()) for deal_id in ids}
    assert len(slots) > 1000  # 2,000 deals under 4,096 tags: no hot slot
    claims = {key_slot(layout.claim(f"c_{deal_id[2:]}").encode()) for deal_id in ids[:10]}
    assert len(claims) >= 9  # ten random slots of 16,384: two may share one (0.3%)


def test_a_tournaments_keys_share_one_slot_and_tournaments_do_not() -> None:
    tournament = "t_2c819c823954a2e50ea4"
    deal_id = layout.new_deal_id(layout.id_tag(tournament))
    names = [
        layout.tournament(tournament),
        f"{layout.tournament(tournament)}:totals",
        layout.closed(tournament),
        layout.round_(tournament, 3),
        layout.due(layout.id_tag(tournament)),
        layout.deal(deal_id),
        layout.claim(f"{tournament}:e1:round-3"),
    ]
    assert len({key_slot(name.encode()) for name in names}) == 1
    others = {key_slot(layout.tournament(f"t_{n:02x}" + "0" * 18).encode()) for n in range(256)}
    assert len(others) == 256


@pytest.fixture(params=["standalone", "cluster"])
def store_url(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    if request.param == "cluster":
        with redis_cluster() as cluster:
            yield "cluster", cluster.url
        return
    with redis_url_or_skip() as url:
        yield "standalone", url


def test_a_quiet_tag_is_forgotten_and_a_new_round_names_it_again(
    store_url: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keeper reads the due rounds of every tag it was told of, and forgets a tag
    whose rounds are all done once it has been quiet (here: at once)."""
    monkeypatch.setattr(redis_rounds, "FORGET_TAG_AFTER", -1000)
    mode, url = store_url
    tournament = "t_f0" + "1" * 18

    async def run() -> None:
        store = RedisStore.from_cluster(url) if mode == "cluster" else RedisStore.from_url(url)
        tag = layout.id_tag(tournament).encode()
        try:
            await store.schedule_round(tournament, 1, 0)
            assert await store._redis.zscore(layout.DUE_TAGS, tag) is not None
            assert (tournament, 1) in await store.due_rounds(100)
            await store.drop_due(tournament, 1)
            await asyncio.sleep(0.01)
            await store.due_rounds(100)  # finds the tag empty: forgets it
            assert await store._redis.zscore(layout.DUE_TAGS, tag) is None
            await store.schedule_round(tournament, 2, 0)
            assert (tournament, 2) in await store.due_rounds(100)
            await store.drop_due(tournament, 2)
        finally:
            await store.close()

    asyncio.run(run())


def test_a_tag_touched_by_a_replica_whose_clock_is_behind_is_not_forgotten(
    store_url: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replica's clock does not date the touches: Redis's does. A replica ten minutes
    behind touches a tag just before scheduling a round; another's keeper, reading the
    tag empty in between, must not take it for long quiet (and forget it, so that the
    round would never be due)."""
    mode, url = store_url
    tournament = "t_f1" + "2" * 18
    real_time, skew = time.time, [0.0]
    monkeypatch.setattr(time, "time", lambda: real_time() + skew[0])

    async def run() -> None:
        def open_store() -> RedisStore:
            return RedisStore.from_cluster(url) if mode == "cluster" else RedisStore.from_url(url)

        slow, keeper = open_store(), open_store()
        tag = layout.id_tag(tournament)
        try:
            skew[0] = -600  # the slow replica's clock, while it touches
            await slow._touch_tag(tag)  # the first half of a schedule
            skew[0] = 0
            assert (tournament, 1) not in await keeper.due_rounds(100)
            assert await keeper._redis.zscore(layout.DUE_TAGS, tag.encode()) is not None
            await slow.schedule_round(tournament, 1, 0)
            assert (tournament, 1) in await keeper.due_rounds(100)
            await keeper.drop_due(tournament, 1)
        finally:
            await slow.close()
            await keeper.close()

    asyncio.run(run())
