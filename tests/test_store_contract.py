"""One contract for every store backend (store/base.py): memory and a real Redis.

The Redis runs are on ``REDIS_URL`` or a private redis-server (see redis_server.py);
each test opens a fresh store and uses ids of its own, and a private server is
flushed before each test. The outage tests always use a private server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio

from cardproof_service.store import (
    Appended,
    CallRecord,
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    GameResult,
    LatePlacement,
    MemoryStore,
    NewEntrant,
    OpenTournament,
    OrganizerQuota,
    OrganizerRecord,
    OverDailyQuota,
    OverOrganizerQuota,
    Placement,
    RoundStarted,
    Standing,
    Store,
    StoreUnavailable,
    TooManyGames,
    TournamentRecord,
)
from cardproof_service.store import keys as layout
from cardproof_service.store.keys import id_tag, new_deal_id
from cardproof_service.store.redis import RedisStore
from redis_server import private_redis, redis_cluster, redis_url_or_skip

TTL = 600
FINISHED_AT = 1_700_000_123


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """``REDIS_URL`` or a private server for this module (skip or fail without Redis)."""
    with redis_url_or_skip() as url:
        yield url


@pytest.fixture(scope="module")
def own_redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A private server for this module's ``own_redis`` tests (the module's, without
    ``REDIS_URL``)."""
    if not os.environ.get("REDIS_URL"):
        yield request.getfixturevalue("redis_url")
        return
    with private_redis() as server:
        yield server.url


OWN_REDIS = pytest.mark.own_redis
STORE_TIMEOUT = 10.0
"""Seconds a contract step may wait on Redis: no test here is about a slow server (the
outage tests below set their own), and a loaded machine can hold a step a few seconds."""
"""A test of the due rounds: ``due_rounds`` reads every tournament's. On a shared
``REDIS_URL`` any running app's keeper acts on the rounds the test schedules (it drops
those of a tournament it does not know) and older due rounds of others come first under
the limit, so on Redis such a test gets a private server, flushed, with no keeper."""


@pytest.fixture(scope="module")
def cluster_url() -> Iterator[str]:
    """A private Redis Cluster of three masters for this module."""
    with redis_cluster() as cluster:
        yield cluster.url


@pytest.fixture(params=["memory", "redis", "cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A fresh store of each backend: memory, one Redis, a Redis Cluster of three masters.

    On the cluster every step runs where its keys' slot lives; a step whose keys do not
    share a slot is refused (``CROSSSLOT``), and so is a script touching a key that
    lives on another node: each contract test also checks the key layout.
    """
    if request.param == "memory":
        yield MemoryStore()
        return
    if request.param == "cluster":
        address: str = request.getfixturevalue("cluster_url")
        with redis.RedisCluster.from_url(address) as admin:
            admin.flushall(target_nodes=redis.RedisCluster.PRIMARIES)
        cluster_store = RedisStore.from_cluster(address, timeout=STORE_TIMEOUT)
        try:
            yield cluster_store
        finally:
            await cluster_store.close()
        return
    own = request.node.get_closest_marker("own_redis") is not None
    url: str = request.getfixturevalue("own_redis_url" if own else "redis_url")
    if own or not os.environ.get("REDIS_URL"):  # a private server: ours to flush
        with redis.Redis.from_url(url) as admin:
            admin.flushdb()
    redis_store = RedisStore.from_url(url, timeout=STORE_TIMEOUT)
    try:
        yield redis_store
    finally:
        await redis_store.close()


def new_id(kind: str) -> str:
    """An id nobody else uses (tests on a shared ``REDIS_URL`` keep to their own keys)."""
    return f"{kind}_{uuid.uuid4().hex}"


def new_record(**changes: Any) -> DealRecord:
    """A new deal (no move yet) with every fixed field set to something particular."""
    fields: dict[str, Any] = {
        "variant": "poker-squares",
        "options": {"scoring": {"full-house": 1, "flush": -1}, "diagonals": True},
        "commitment_id": new_id("c"),
        "client_seed": "a seed with spaces, ünïcode and ♠",
        "committed": True,
        "created_at": 1_700_000_000,
        **changes,
    }
    # the deal carries the tag of what it is written with (store/keys.py): its tournament's
    # standings, or its commitment's claim
    anchor = fields.get("tournament") or fields["commitment_id"]
    fields.setdefault("deal_id", new_deal_id(id_tag(anchor)))
    return DealRecord(**fields)


async def test_ping_answers(store: Store) -> None:
    await store.ping()
    assert store.name == ("memory" if isinstance(store, MemoryStore) else "redis")


async def test_a_commitment_is_claimed_once_with_its_deal(store: Store) -> None:
    first, second = new_id("c"), new_id("c")
    claim = b"\x92\xa2d_\xa0" + bytes(range(256))  # msgpack, or any bytes
    winner = new_record(commitment_id=first)
    assert await store.create_deal(winner, TTL, Claim(first, claim, TTL)) is None
    for mark in (b"second claim", b"third claim"):
        loser = new_record(commitment_id=first)
        assert await store.create_deal(loser, TTL, Claim(first, mark, TTL)) == claim
        assert await store.get_deal(loser.deal_id) is None  # a refused claim stores nothing
    assert await store.get_deal(winner.deal_id) == winner
    other = new_record(commitment_id=second)
    assert await store.create_deal(other, TTL, Claim(second, b"other", TTL)) is None
    again = new_record(commitment_id=second)
    assert await store.create_deal(again, TTL, Claim(second, b"again", TTL)) == b"other"


async def test_a_new_deal_starts_with_an_empty_log(store: Store) -> None:
    played = new_record(moves=["a1"], finished_at=FINISHED_AT, blind=False)
    assert await store.create_deal(played, TTL) is None
    found = await store.get_deal(played.deal_id)
    assert found == msgspec.structs.replace(played, moves=[], finished_at=None, blind=True)


@pytest.mark.parametrize("committed", [True, False])
async def test_a_new_deal_round_trips(store: Store, committed: bool) -> None:
    record = new_record(committed=committed, variant="poker-patience", created_at=42)
    await store.create_deal(record, TTL)
    found = await store.get_deal(record.deal_id)
    assert found == record
    assert found is not None
    assert (found.moves, found.finished_at, found.blind) == ([], None, True)


async def test_a_stored_deal_cannot_be_changed_through_a_copy(store: Store) -> None:
    record = new_record()
    await store.create_deal(record, TTL)
    found = await store.get_deal(record.deal_id)
    assert found is not None
    found.moves.append("a1")
    assert await store.append_move(record.deal_id, 0, "b2", None, TTL) == Appended("appended", 1)
    again = await store.get_deal(record.deal_id)
    assert again is not None
    assert again.moves == ["b2"]


async def test_a_missing_deal_is_none(store: Store) -> None:
    assert await store.get_deal(new_id("d")) is None


async def test_moves_append_only_at_the_next_index(store: Store) -> None:
    record = new_record()
    await store.create_deal(record, TTL)
    deal_id = record.deal_id
    assert await store.append_move(deal_id, 0, "c3", None, TTL) == Appended("appended", 1)
    for index in (0, -1, 2, 25):
        assert await store.append_move(deal_id, index, "d4", None, TTL) == Appended(
            "wrong-index", 1
        )
    assert await store.append_move(deal_id, 1, "a1", None, TTL) == Appended("appended", 2)
    found = await store.get_deal(deal_id)
    assert found == msgspec.structs.replace(record, moves=["c3", "a1"])


async def test_the_last_move_sets_finished_at_and_closes_the_log(store: Store) -> None:
    record = new_record()
    await store.create_deal(record, TTL)
    deal_id = record.deal_id
    assert await store.append_move(deal_id, 0, "a1", None, TTL) == Appended("appended", 1)
    assert await store.append_move(deal_id, 1, "e5", FINISHED_AT, TTL) == Appended("appended", 2)
    found = await store.get_deal(deal_id)
    assert found is not None
    assert (found.moves, found.finished_at, found.blind) == (["a1", "e5"], FINISHED_AT, True)
    assert await store.append_move(deal_id, 2, "b1", None, TTL) == Appended("wrong-index", 2)
    assert await store.append_move(deal_id, 2, "b1", FINISHED_AT, TTL) == Appended("wrong-index", 2)
    submitted = await store.submit_log(deal_id, ["b1"], FINISHED_AT, False, TTL)
    assert submitted == Appended("wrong-index", 2)
    assert await store.get_deal(deal_id) == found


async def test_appending_to_a_missing_deal(store: Store) -> None:
    assert await store.append_move(new_id("d"), 0, "a1", None, TTL) == Appended("missing")
    assert await store.append_move(new_id("d"), 3, "a1", FINISHED_AT, TTL) == Appended("missing")


@pytest.mark.parametrize("blind", [False, True])
async def test_a_whole_log_goes_only_onto_an_unplayed_deal(store: Store, blind: bool) -> None:
    record = new_record()
    await store.create_deal(record, TTL)
    log = ["a1", "b2", "c3", "d4", "e5"]
    assert await store.submit_log(record.deal_id, log, FINISHED_AT, blind, TTL) == Appended(
        "appended", 5
    )
    found = await store.get_deal(record.deal_id)
    assert found == msgspec.structs.replace(record, moves=log, finished_at=FINISHED_AT, blind=blind)
    assert await store.submit_log(record.deal_id, ["a2"], FINISHED_AT, True, TTL) == Appended(
        "wrong-index", 5
    )
    assert await store.append_move(record.deal_id, 5, "a2", None, TTL) == Appended("wrong-index", 5)
    assert await store.get_deal(record.deal_id) == found


async def test_a_whole_log_is_refused_once_a_move_is_played(store: Store) -> None:
    record = new_record()
    await store.create_deal(record, TTL)
    assert await store.append_move(record.deal_id, 0, "a1", None, TTL) == Appended("appended", 1)
    refused = await store.submit_log(record.deal_id, ["a1", "b1"], FINISHED_AT, False, TTL)
    assert refused == Appended("wrong-index", 1)
    found = await store.get_deal(record.deal_id)
    assert found is not None
    assert (found.moves, found.finished_at, found.blind) == (["a1"], None, True)


async def test_a_whole_log_for_a_missing_deal(store: Store) -> None:
    assert await store.submit_log(new_id("d"), ["a1"], FINISHED_AT, False, TTL) == Appended(
        "missing"
    )


async def test_everything_expires_after_its_ttl(store: Store) -> None:
    commitment = new_id("c")
    gone, touched = new_record(commitment_id=commitment), new_record()
    assert await store.create_deal(gone, 1, Claim(commitment, b"first", 1)) is None
    await store.create_deal(touched, 1)
    assert await store.append_move(touched.deal_id, 0, "a1", None, TTL) == Appended("appended", 1)
    assert await store.get_deal(gone.deal_id) == gone  # still there before the TTL

    await asyncio.sleep(1.3)

    assert await store.get_deal(gone.deal_id) is None
    assert await store.append_move(gone.deal_id, 0, "a1", None, TTL) == Appended("missing")
    assert await store.submit_log(gone.deal_id, ["a1"], FINISHED_AT, False, TTL) == Appended(
        "missing"
    )
    kept = await store.get_deal(touched.deal_id)  # an append renews the TTL
    assert kept is not None
    assert kept.moves == ["a1"]
    # the claim expired with its TTL: the commitment can be claimed again
    reclaimed = new_record(commitment_id=commitment)
    assert await store.create_deal(reclaimed, TTL, Claim(commitment, b"second", TTL)) is None


async def test_concurrent_appends_for_one_index_let_exactly_one_in(store: Store) -> None:
    record = new_record()
    await store.create_deal(record, TTL)
    assert await store.append_move(record.deal_id, 0, "a1", None, TTL) == Appended("appended", 1)
    cells = [f"{col}{row}" for col in "abcde" for row in "2345"]
    outcomes = await asyncio.gather(
        *(store.append_move(record.deal_id, 1, cell, None, TTL) for cell in cells)
    )
    winners = [
        cell for cell, outcome in zip(cells, outcomes, strict=True) if outcome.outcome == "appended"
    ]
    assert len(winners) == 1
    assert outcomes.count(Appended("appended", 2)) == 1
    assert outcomes.count(Appended("wrong-index", 2)) == len(cells) - 1
    found = await store.get_deal(record.deal_id)
    assert found is not None
    assert found.moves == ["a1", winners[0]]


async def test_concurrent_claims_let_exactly_one_in(store: Store) -> None:
    commitment = new_id("c")
    records = [new_record(commitment_id=commitment) for _ in range(20)]
    marks = [f"claim {i}".encode() for i in range(20)]
    firsts = await asyncio.gather(
        *(
            store.create_deal(record, TTL, Claim(commitment, mark, TTL))
            for record, mark in zip(records, marks, strict=True)
        )
    )
    assert firsts.count(None) == 1
    winner = firsts.index(None)
    # every other claim is refused with the winner's mark
    assert firsts == [None if i == winner else marks[winner] for i in range(20)]
    stored = [await store.get_deal(record.deal_id) for record in records]
    assert [found is not None for found in stored] == [i == winner for i in range(20)]


# --- per-client limits ------------------------------------------------------------------


async def test_an_owner_holds_at_most_its_cap_of_unfinished_deals(store: Store) -> None:
    owner = new_id("client")
    first, second = new_record(owner=owner), new_record(owner=owner)
    assert await store.create_deal(first, TTL, None, 2) is None
    assert await store.create_deal(second, TTL, None, 2) is None
    found = await store.get_deal(first.deal_id)
    assert found is not None
    assert found.owner == owner
    third = new_record(owner=owner)
    with pytest.raises(TooManyGames) as refused:
        await store.create_deal(third, TTL, None, 2)
    assert (refused.value.limit, 1 <= refused.value.retry_after <= TTL) == (2, True)
    assert await store.get_deal(third.deal_id) is None  # nothing stored
    # another owner, a deal without one, or no cap: not counted
    assert await store.create_deal(new_record(owner=new_id("client")), TTL, None, 2) is None
    assert await store.create_deal(new_record(), TTL, None, 2) is None
    assert await store.create_deal(new_record(owner=owner), TTL) is None
    # a move keeps the game in flight; its last move (or a whole log) lets a new one in
    moved = await store.append_move(first.deal_id, 0, "a1", None, TTL, owner=owner)
    assert moved == Appended("appended", 1)
    with pytest.raises(TooManyGames):
        await store.create_deal(third, TTL, None, 2)
    finished = await store.append_move(first.deal_id, 1, "a2", FINISHED_AT, TTL, owner=owner)
    assert finished == Appended("appended", 2)
    assert await store.create_deal(third, TTL, None, 2) is None
    with pytest.raises(TooManyGames):
        await store.create_deal(new_record(owner=owner), TTL, None, 2)
    submitted = await store.submit_log(second.deal_id, ["a1"], FINISHED_AT, False, TTL, owner=owner)
    assert submitted == Appended("appended", 1)
    assert await store.create_deal(new_record(owner=owner), TTL, None, 2) is None


async def test_a_claimed_commitment_is_answered_before_the_cap(store: Store) -> None:
    owner, commitment = new_id("client"), new_id("c")
    first = new_record(owner=owner, commitment_id=commitment)
    assert await store.create_deal(first, TTL, Claim(commitment, b"first", TTL), 1) is None
    retry = new_record(owner=owner, commitment_id=commitment)
    assert await store.create_deal(retry, TTL, Claim(commitment, b"retry", TTL), 1) == b"first"
    other = new_id("c")  # a full owner claims nothing
    with pytest.raises(TooManyGames):
        await store.create_deal(
            new_record(owner=owner, commitment_id=other), TTL, Claim(other, b"x", TTL), 1
        )
    assert (
        await store.create_deal(new_record(commitment_id=other), TTL, Claim(other, b"y", TTL))
        is None
    )


async def test_an_expired_deal_leaves_its_owners_games_in_flight(store: Store) -> None:
    owner = new_id("client")
    assert await store.create_deal(new_record(owner=owner), 1, None, 1) is None
    with pytest.raises(TooManyGames) as refused:
        await store.create_deal(new_record(owner=owner), 1, None, 1)
    assert refused.value.retry_after == 1
    await asyncio.sleep(2.1)  # Redis TIME is in whole seconds
    assert await store.create_deal(new_record(owner=owner), 1, None, 1) is None


async def test_requests_are_counted_per_client_and_window(store: Store) -> None:
    client, other = new_id("client"), new_id("client")
    window = 3600
    counts = [await store.count_request(client, window) for _ in range(3)]
    assert [hits.count for hits in counts] == [1, 2, 3]
    assert all(0 < hits.reset <= window for hits in counts)
    assert (await store.count_request(other, window)).count == 1
    assert (await store.count_request(other, window, 5)).count == 6  # offences, charged at once
    weighed = await store.count_request(new_id("client"), 2, 4)  # a first count that weighs
    assert (weighed.count, (await store.count_request(new_id("client"), 2)).count) == (4, 1)
    hits = await store.count_request(new_id("client"), 1)
    assert (hits.count, hits.reset) == (1, 1)
    await asyncio.sleep(1.1)  # a new one-second window: counting starts again
    assert (await store.count_request(client, 1)).count == 1


def _every_call(store: RedisStore) -> dict[str, Callable[[], Awaitable[object]]]:
    """One call of each store method (``close`` aside)."""
    deal_id = new_id("d")
    commitment = new_id("c")
    return {
        "ping": store.ping,
        "create_deal": lambda: store.create_deal(new_record(deal_id=deal_id), TTL),
        "create_deal with a claim": lambda: store.create_deal(
            new_record(commitment_id=commitment), TTL, Claim(commitment, b"claim", TTL)
        ),
        "get_deal": lambda: store.get_deal(deal_id),
        "append_move": lambda: store.append_move(deal_id, 0, "a1", None, TTL),
        "submit_log": lambda: store.submit_log(deal_id, ["a1"], FINISHED_AT, False, TTL),
        "count_request": lambda: store.count_request(new_id("client"), 60),
    }


async def _unavailable(call: Callable[[], Awaitable[object]], within: float) -> None:
    """``call`` raises ``StoreUnavailable`` (no raw redis error) in ``within`` seconds."""
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=r"^redis: \w+Error$"):
        await asyncio.wait_for(call(), timeout=within + 2)
    assert time.monotonic() - started < within


async def test_a_stopped_redis_makes_every_call_unavailable_then_recovers() -> None:
    with private_redis() as server:
        store = RedisStore.from_url(server.url, timeout=0.5)
        try:
            record = new_record()
            await store.create_deal(record, TTL)
            server.stop()
            for name, call in _every_call(store).items():
                try:
                    await _unavailable(call, within=1.5)
                except BaseException as error:
                    error.add_note(f"store call: {name}")
                    raise
            server.start()  # no persistence: the deal is gone, but the store answers again
            await store.ping()
            assert await store.get_deal(record.deal_id) is None
            await store.create_deal(record, TTL)
            assert await store.get_deal(record.deal_id) == record
        finally:
            await store.close()


async def test_a_frozen_redis_times_out_as_unavailable() -> None:
    with private_redis() as server:
        store = RedisStore.from_url(server.url, timeout=0.5)
        try:
            await store.ping()
            server.pause()
            calls = _every_call(store)
            for name in ("ping", "append_move", "get_deal"):
                try:
                    await _unavailable(calls[name], within=1.5)
                except BaseException as error:
                    error.add_note(f"store call: {name}")
                    raise
            server.resume()
            await store.ping()
        finally:
            await store.close()


# --- organizers -------------------------------------------------------------------------


def new_organizer_record(name: str | None = None) -> OrganizerRecord:
    """An organizer with a name and id nobody else uses."""
    organizer_id = uuid.uuid4().hex[:16]
    return OrganizerRecord(
        organizer_id=organizer_id,
        name=name or f"Club {organizer_id}",
        key_hash="ab" * 32,
        created_at=1_700_000_000,
    )


async def test_an_organizer_round_trips(store: Store) -> None:
    record = new_organizer_record()
    assert await store.get_organizer(record.organizer_id) is None
    assert await store.add_organizer(record) is True
    assert await store.get_organizer(record.organizer_id) == record


async def test_an_organizer_name_is_taken_once(store: Store) -> None:
    first = new_organizer_record()
    second = new_organizer_record(name=first.name)
    assert await store.add_organizer(first) is True
    assert await store.add_organizer(second) is False
    assert await store.get_organizer(second.organizer_id) is None  # nothing stored
    assert await store.get_organizer(first.organizer_id) == first


async def test_memory_organizers_live_in_their_file(tmp_path: Path) -> None:
    path = tmp_path / "state" / "organizers.json"
    writer, reader = MemoryStore(organizers_file=path), MemoryStore(organizers_file=path)
    record = new_organizer_record()
    assert await reader.get_organizer(record.organizer_id) is None
    assert await writer.add_organizer(record) is True
    assert await reader.get_organizer(record.organizer_id) == record  # the file is read again
    assert b"key_hash" in path.read_bytes()
    assert path.stat().st_mode & 0o777 == 0o600
    later = new_organizer_record()
    assert await reader.add_organizer(later) is True
    assert await MemoryStore(organizers_file=path).get_organizer(later.organizer_id) == later
    assert await writer.add_organizer(new_organizer_record(name=later.name)) is False


# --- tournaments ------------------------------------------------------------------------


async def test_a_tournament_round_trips_until_it_expires(store: Store) -> None:
    record = TournamentRecord(
        tournament_id=new_id("t"),
        organizer_id="0123456789abcdef",
        name="Spring Open ♠",
        variant="reserve-poker",
        options={"version": "random"},
        rounds=3,
        opens_at=1_700_000_000,
        closes_at=1_700_600_000,
        salt="5a" * 16,
        created_at=1_699_000_000,
        entry="invite",
        max_entrants=1000,
        expires_at=int(time.time()) + 2,
    )
    assert await store.get_tournament(record.tournament_id) is None
    await store.create_tournament(record)
    assert await store.get_tournament(record.tournament_id) == record
    entry = entrant("e1", "Ada", expires_at=record.expires_at)
    assert (await store.add_entrant(record.tournament_id, entry, None)).outcome == "added"
    assert await store.add_invites(record.tournament_id, ["h1"], 10, record.expires_at)
    if isinstance(store, RedisStore):
        pattern = f"{layout.tournament(record.tournament_id)}*"
        if isinstance(store._redis, redis.asyncio.RedisCluster):  # on the slot's node
            node = store._redis.get_node_from_key(layout.tournament(record.tournament_id))
            keys = await store._redis.keys(pattern, target_nodes=node)
        else:
            keys = await store._redis.keys(pattern)
        assert len(keys) >= 5
        for key in keys:
            assert 0 < await store._redis.ttl(key) <= 2, key  # all of it expires at once
    await asyncio.sleep(2.2)
    assert await store.get_tournament(record.tournament_id) is None
    assert await store.entrant_name(record.tournament_id, "e1") is None
    assert await store.standings(record.tournament_id) == []
    assert not await store.invite_known(record.tournament_id, "h1")


def organizers_tournament(organizer_id: str, **changes: Any) -> TournamentRecord:
    """A tournament of ``organizer_id``, kept a day unless ``changes`` say otherwise."""
    fields: dict[str, Any] = {
        "tournament_id": new_id("t"),
        "organizer_id": organizer_id,
        "name": "Listed Open",
        "variant": "poker-squares",
        "options": {},
        "rounds": 1,
        "opens_at": 1_700_000_000,
        "closes_at": 1_700_600_000,
        "salt": "5a" * 16,
        "created_at": 1_699_000_000,
        "expires_at": int(time.time()) + 86_400,
        **changes,
    }
    return TournamentRecord(**fields)


async def test_an_organizers_tournaments_are_listed_newest_first_by_page(store: Store) -> None:
    organizer, rival = uuid.uuid4().hex[:16], uuid.uuid4().hex[:16]
    made = [organizers_tournament(organizer, name=f"Open {n}") for n in range(5)]
    for record in made:
        await store.create_tournament(record)
    await store.create_tournament(organizers_tournament(rival))
    newest_first = [record.tournament_id for record in reversed(made)]
    listed: list[str] = []
    cursor = None
    for size in (2, 2, 1):
        page = await store.organizer_tournaments(organizer, 2, cursor)
        assert len(page.records) == size
        listed += [record.tournament_id for record in page.records]
        cursor = page.next
        if size == 1:
            assert cursor is None  # the end
        else:
            assert cursor is not None
    assert listed == newest_first  # each once, in order, none of the rival's
    whole = await store.organizer_tournaments(organizer, 100)
    assert (whole.records, whole.next) == (list(reversed(made)), None)
    assert (await store.organizer_tournaments(uuid.uuid4().hex[:16], 100)).records == []
    if isinstance(store, RedisStore):  # under the organizer's tag, expiring with the last
        for key in (
            layout.organizer_tournaments(organizer),
            layout.organizer_tournaments_expiry(organizer),
            layout.organizer_tournaments_sequence(organizer),
        ):
            assert "{o." + organizer + "}" in key
            assert 86_000 < await store._redis.ttl(key) <= 86_400


async def test_the_listing_keeps_the_order_tournaments_were_made_in_whatever_the_clock(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store numbers an organizer's tournaments as it lists them: a clock that stands
    still or steps back (NTP, a replica's skew) changes no place, and a cursor on any
    line walks on exactly from it."""
    ticks = iter(range(2_000_000_000_000_000_000, 0, -1_000_000_000))  # steps back
    monkeypatch.setattr(time, "time_ns", lambda: next(ticks))
    organizer = uuid.uuid4().hex[:16]
    made = [organizers_tournament(organizer, name=f"Open {n}") for n in range(7)]
    for record in made:
        await store.create_tournament(record)
    monkeypatch.undo()
    newest_first = [record.tournament_id for record in reversed(made)]
    whole = await store.organizer_tournaments(organizer, 100)
    assert [record.tournament_id for record in whole.records] == newest_first
    for size in (1, 3):
        listed: list[str] = []
        cursor: str | None = None
        while True:
            page = await store.organizer_tournaments(organizer, size, cursor)
            listed += [record.tournament_id for record in page.records]
            if page.next is None:
                break
            cursor = page.next
        assert listed == newest_first  # each once, in order


@pytest.mark.parametrize("store", ["redis", "cluster"], indirect=True)
async def test_a_listing_from_before_the_numbering_lists_new_tournaments_first(
    store: Store,
) -> None:
    """A listing written when lines were microsecond times: the counter starts at its
    newest line, so tournaments made after the upgrade list above every older one."""
    assert isinstance(store, RedisStore)
    redis_store = store
    organizer = uuid.uuid4().hex[:16]
    expires_at = int(time.time()) + 86_400
    old = organizers_tournament(organizer, name="Before", expires_at=expires_at)
    old_member = f"{1_700_000_000_123_456:016d}:{old.tournament_id}"
    await redis_store._redis.zadd(layout.organizer_tournaments(organizer), {old_member: 0})
    await redis_store._redis.zadd(
        layout.organizer_tournaments_expiry(organizer), {old_member: expires_at}
    )
    await redis_store._redis.set(layout.tournament(old.tournament_id), msgspec.json.encode(old))
    new = organizers_tournament(organizer, name="After")
    await redis_store.create_tournament(new)
    page = await redis_store.organizer_tournaments(organizer, 1)
    assert [record.name for record in page.records] == ["After"]
    assert page.next is not None
    assert page.next > old_member
    rest = await redis_store.organizer_tournaments(organizer, 10, page.next)
    assert ([record.name for record in rest.records], rest.next) == (["Before"], None)


async def test_an_organizers_day_counts_tournaments_and_invite_codes_both_or_neither(
    store: Store,
) -> None:
    organizer = uuid.uuid4().hex[:16]
    today = int(time.time()) // 86_400
    quota = OrganizerQuota(organizer, 2, 10, today, 3_600)
    await store.spend_organizer_quota(quota, 1, 6)
    with pytest.raises(OverOrganizerQuota) as over:
        await store.spend_organizer_quota(quota, 1, 5)  # the tournament fits, the codes not
    assert (over.value.what, over.value.limit, over.value.used) == ("invites", 10, 6)
    assert over.value.retry_after == 3_600
    await store.spend_organizer_quota(quota, 1, 4)  # nothing was counted: 2 and 10 now
    with pytest.raises(OverOrganizerQuota) as full:
        await store.spend_organizer_quota(quota, 1, 0)
    assert (full.value.what, full.value.used) == ("tournaments", 2)
    await store.spend_organizer_quota(quota, 0, 0)  # nothing asked: nothing refused
    lowered = OrganizerQuota(organizer, 1, 10, today, 3_600)  # the operator lowered it
    await store.spend_organizer_quota(lowered, 0, 0)  # still not asked for more tournaments
    unlimited = OrganizerQuota(organizer, 0, 0, today, 3_600)
    await store.spend_organizer_quota(unlimited, 5, 500)  # 0: no quota
    tomorrow = OrganizerQuota(organizer, 2, 10, today + 1, 3_600)
    await store.spend_organizer_quota(tomorrow, 2, 10)  # a new day, a new count
    other = OrganizerQuota(uuid.uuid4().hex[:16], 2, 10, today, 3_600)
    await store.spend_organizer_quota(other, 2, 10)  # each organizer its own
    if isinstance(store, RedisStore):  # under the organizer's tag, kept past its day
        key = layout.organizer_today(organizer, today)
        assert "{o." + organizer + "}" in key
        assert 3_600 < await store._redis.ttl(key) <= 7_200


async def test_an_expired_tournament_leaves_its_organizers_listing(store: Store) -> None:
    organizer = uuid.uuid4().hex[:16]
    kept = organizers_tournament(organizer, name="Kept")
    # expires in 3 to 4 s (whole seconds): a busy machine lists it before it goes
    expires_at = int(time.time()) + 4
    brief = organizers_tournament(organizer, name="Brief", expires_at=expires_at)
    await store.create_tournament(kept)
    await store.create_tournament(brief)
    assert [r.name for r in (await store.organizer_tournaments(organizer, 10)).records] == [
        "Brief",
        "Kept",
    ]
    await asyncio.sleep(expires_at - time.time() + 1.1)
    page = await store.organizer_tournaments(organizer, 1)
    assert (page.records, page.next) == ([kept], None)


def entrant(entrant_id: str, name: str, **changes: Any) -> NewEntrant:
    """An entry of ``name``, keyed by its lower case (the service keys by skeleton)."""
    return NewEntrant(entrant_id=entrant_id, name=name, key=name.lower(), **changes)


async def test_entrants_enter_once_within_the_limit(store: Store) -> None:
    tournament = new_id("t")
    assert (await store.add_entrant(tournament, entrant("e1", "Ada"), 2)).outcome == "added"
    taken = await store.add_entrant(tournament, entrant("e2", "ADA"), 2)  # the same key
    assert (taken.outcome, taken.entrant_id, taken.name) == ("name-taken", "e1", "Ada")
    assert (await store.add_entrant(tournament, entrant("e3", "Bea ♠"), 2)).outcome == "added"
    assert (await store.add_entrant(tournament, entrant("e4", "Cy"), 2)).outcome == "full"
    another = await store.add_entrant(new_id("t"), entrant("e4", "Cy"), None)
    assert another.outcome == "added"
    assert await store.entrant_name(tournament, "e3") == "Bea ♠"
    assert await store.entrant_name(tournament, "e2") is None
    assert await store.entrant_of_key(tournament, "ada") == "e1"  # the key entered under
    assert await store.entrant_of_key(tournament, "bea ♠") == "e3"
    assert await store.entrant_of_key(tournament, "cy") is None  # refused: never entered
    assert await store.entrant_of_key(new_id("t"), "ada") is None
    lines = sorted(await store.standings(tournament), key=lambda s: s.player)
    assert lines == [Standing("Ada", 0, 0), Standing("Bea ♠", 0, 0)]


async def test_a_lockstep_tournaments_entries_close_when_its_first_round_starts(
    store: Store,
) -> None:
    tournament = new_id("t")
    before = await store.add_entrant(tournament, entrant("e1", "Ada"), None, until_first_round=True)
    assert before.outcome == "added"
    await store.start_round(tournament, 2, 25, 60_000, "AS")  # another round: still open
    second = await store.add_entrant(tournament, entrant("e2", "Bea"), None, until_first_round=True)
    assert second.outcome == "added"
    await store.start_round(tournament, 1, 25, 60_000, "AS")
    late = await store.add_entrant(tournament, entrant("e3", "Cy"), None, until_first_round=True)
    assert late.outcome == "entries-closed"
    assert await store.entrant_of_key(tournament, "cy") is None  # nothing kept
    again = await store.add_entrant(tournament, entrant("e1", "Ada"), None, until_first_round=True)
    assert (again.outcome, again.entrant_id) == ("added", "e1")  # a resent entry is answered
    async_entry = await store.add_entrant(tournament, entrant("e4", "Dee"), None)
    assert async_entry.outcome == "added"  # an async tournament's entries are not the rounds'
    lines = sorted(line.player for line in await store.standings(tournament))
    assert lines == ["Ada", "Bea", "Dee"]


async def test_invite_codes_enter_once_and_replays_find_their_entry(store: Store) -> None:
    tournament = new_id("t")
    assert await store.add_invites(tournament, ["h1", "h2"], 3) is True
    assert await store.add_invites(tournament, ["h3", "h4"], 3) is False  # past the limit
    assert await store.invite_known(tournament, "h2")
    assert not await store.invite_known(tournament, "h3")
    unknown = await store.add_entrant(tournament, entrant("e1", "Ada", invite="h9"), None)
    assert unknown.outcome == "bad-invite"
    first = entrant("e1", "Ada", invite="h1", replay="r1", replay_ttl=60)
    assert (await store.add_entrant(tournament, first, None)).outcome == "added"
    used = await store.add_entrant(tournament, entrant("e2", "Bea", invite="h1"), None)
    assert used.outcome == "invite-used"
    assert await store.invite_known(tournament, "h1")  # a used code still reads
    resent = entrant("e9", "Ada", invite="h1", replay="r1", replay_ttl=60)
    replayed = await store.add_entrant(tournament, resent, None)
    assert (replayed.outcome, replayed.entrant_id, replayed.name) == ("replayed", "e1", "Ada")
    twice = await store.add_entrant(tournament, first, None)  # the same write run twice
    assert (twice.outcome, twice.entrant_id) == ("replayed", "e1")
    short = entrant("e3", "Cy", invite="h2", replay="r2", replay_ttl=1)
    assert (await store.add_entrant(tournament, short, None)).outcome == "added"
    await asyncio.sleep(2.1)  # the replay window passed: the same key is just a second try
    late = await store.add_entrant(tournament, entrant("e4", "Cy", replay="r2"), None)
    assert (late.outcome, late.entrant_id) == ("name-taken", "e3")


async def test_a_client_opens_at_most_its_quota_of_deals_a_day(store: Store) -> None:
    client = new_id("client")
    today = DailyQuota(client, 2, 20_000, 600)
    assert await store.create_deal(new_record(), TTL, quota=today) is None
    assert await store.create_deal(new_record(), TTL, quota=today) is None
    refused = new_record()
    with pytest.raises(OverDailyQuota) as over:
        await store.create_deal(refused, TTL, quota=today)
    assert (over.value.limit, over.value.retry_after) == (2, 600)
    assert await store.get_deal(refused.deal_id) is None  # nothing stored
    other = DailyQuota(new_id("client"), 2, 20_000, 600)
    assert await store.create_deal(new_record(), TTL, quota=other) is None  # per client
    tomorrow = DailyQuota(client, 2, 20_001, 86_400)
    assert await store.create_deal(new_record(), TTL, quota=tomorrow) is None  # per day
    claim = Claim(new_id("c"), b"first", 60)
    claimed = {"commitment_id": claim.commitment_id}
    assert await store.create_deal(new_record(**claimed), TTL, claim, quota=tomorrow) is None
    again = DailyQuota(client, 1, 20_001, 86_400)  # full now: a retry still finds its claim
    assert await store.create_deal(new_record(**claimed), TTL, claim, quota=again) == b"first"


async def test_a_resent_claim_costs_no_deal_of_the_day(store: Store) -> None:
    """A request resent for a claimed commitment gets its deal and is not counted again,
    with a quota and no cap (its deal is listed in flight all the same, so that a refused
    one can be given back)."""
    client = new_id("client")
    today = DailyQuota(client, 2, 20_000, 600)
    claim = Claim(new_id("c"), b"first", 60)
    claimed = {"commitment_id": claim.commitment_id, "owner": client}
    assert await store.create_deal(new_record(**claimed), TTL, claim, quota=today) is None
    for _ in range(3):
        resent = new_record(**claimed)
        assert await store.create_deal(resent, TTL, claim, quota=today) == b"first"
        assert await store.get_deal(resent.deal_id) is None
    assert await store.create_deal(new_record(owner=client), TTL, quota=today) is None
    with pytest.raises(OverDailyQuota):
        await store.create_deal(new_record(owner=client), TTL, quota=today)


async def test_a_deal_refused_after_its_count_gives_its_day_back(store: Store) -> None:
    """A seat refused because its round has started costs no deal of the day, with a
    quota and no cap (the count taken before the refusal is given back)."""
    client = new_id("client")
    today = DailyQuota(client, 1, 20_000, 600)
    tournament = new_id("t")
    await store.start_round(tournament, 1, 25, 60_000, "AS")  # nobody seated: started
    late = new_record(tournament=tournament, round=1, lockstep=True, owner=client)
    with pytest.raises(RoundStarted):
        await store.create_deal(late, TTL, quota=today)
    assert await store.create_deal(new_record(owner=client), TTL, quota=today) is None
    with pytest.raises(OverDailyQuota):
        await store.create_deal(new_record(owner=client), TTL, quota=today)


async def test_a_claim_can_be_read_back(store: Store) -> None:
    claim = Claim(new_id("c"), b"first", 60)
    record = new_record(commitment_id=claim.commitment_id)
    assert await store.get_claim(claim.commitment_id) is None
    assert await store.create_deal(record, TTL, claim) is None
    assert await store.get_claim(claim.commitment_id) == b"first"


async def test_a_finished_tournament_game_enters_the_standings_once(store: Store) -> None:
    tournament = new_id("t")
    await store.add_entrant(tournament, entrant("e1", "Ada"), None)
    await store.add_entrant(tournament, entrant("e2", "Bea"), None)
    played = new_record(tournament=tournament, round=1, entrant="e1", player="Ada")
    assert await store.create_deal(played, TTL) is None
    found = await store.get_deal(played.deal_id)
    assert found is not None
    assert (found.tournament, found.round, found.entrant, found.player) == (
        tournament,
        1,
        "e1",
        "Ada",
    )
    moved = await store.append_move(played.deal_id, 0, "a1", None, TTL, None, tournament=tournament)
    assert moved.outcome == "appended"
    assert Standing("Ada", 0, 0) in await store.standings(tournament)  # not finished yet
    done = await store.append_move(
        played.deal_id, 1, "b1", FINISHED_AT, TTL, 37, tournament=tournament
    )
    assert done.outcome == "appended"
    again = await store.append_move(
        played.deal_id, 2, "c1", FINISHED_AT, TTL, 37, tournament=tournament
    )
    assert again.outcome == "wrong-index"
    second = new_record(tournament=tournament, round=2, entrant="e1", player="Ada")
    await store.create_deal(second, TTL)
    submitted = await store.submit_log(
        second.deal_id, ["a1"], FINISHED_AT, False, TTL, 5, tournament=tournament
    )
    assert submitted.outcome == "appended"
    casual = new_record()  # not a tournament's: a total changes nothing
    await store.create_deal(casual, TTL)
    await store.append_move(casual.deal_id, 0, "a1", FINISHED_AT, TTL, 99)
    lines = sorted(await store.standings(tournament), key=lambda s: s.player)
    assert lines == [Standing("Ada", 42, 2), Standing("Bea", 0, 0)]
    results = sorted(await store.results(tournament), key=lambda r: r.round)
    assert results == [
        GameResult("Ada", 1, played.deal_id, 37, FINISHED_AT, "a1 b1", True),
        GameResult("Ada", 2, second.deal_id, 5, FINISHED_AT, "a1", False),
    ]
    assert await store.results(new_id("t")) == []
    if isinstance(store, RedisStore):  # results outlive the deals, which expire
        assert await store._redis.ttl(f"{layout.tournament(tournament)}:results") == -1


async def test_a_tournament_closes_once(store: Store) -> None:
    record = TournamentRecord(
        tournament_id=new_id("t"),
        organizer_id="0123456789abcdef",
        name='Closing "quotes" / ünïcode',
        variant="poker-squares",
        options={"scoring": {"full-house": 1}, "diagonals": False},
        rounds=1,
        opens_at=1_700_000_000,
        closes_at=1_900_000_000,
        salt="ab" * 16,
        created_at=1_700_000_000,
    )
    await store.create_tournament(record)
    assert await store.close_tournament(record.tournament_id, 1_800_000_000) is True
    assert await store.close_tournament(record.tournament_id, 1_800_000_000) is True  # resent
    assert await store.close_tournament(record.tournament_id, 1_800_000_001) is False
    assert await store.close_tournament(new_id("t"), 1_800_000_000) is False
    closed = await store.get_tournament(record.tournament_id)
    assert closed == msgspec.structs.replace(record, closed_at=1_800_000_000)


async def test_a_players_move_after_the_close_is_refused(store: Store) -> None:
    record = TournamentRecord(
        tournament_id=new_id("t"),
        organizer_id="0123456789abcdef",
        name="Close race",
        variant="poker-squares",
        options={},
        rounds=1,
        opens_at=1_700_000_000,
        closes_at=1_900_000_000,
        salt="ab" * 16,
        created_at=1_700_000_000,
    )
    tid = record.tournament_id
    await store.create_tournament(record)
    game = new_record(tournament=tid, round=1, entrant="e1", player="Ada")
    assert await store.create_deal(game, TTL) is None
    open_ = OpenTournament(tid, record.closes_at)
    moved = await store.append_move(game.deal_id, 0, "a1", None, TTL, open_tournament=open_)
    assert moved == Appended("appended", 1)
    whole = new_record(tournament=tid, round=1, entrant="e2", player="Bea")
    assert await store.create_deal(whole, TTL) is None
    past = OpenTournament(tid, int(time.time()) - 1)  # its closing time has passed
    late = await store.append_move(game.deal_id, 1, "b1", None, TTL, open_tournament=past)
    assert late.outcome == "closed"
    late_log = await store.submit_log(whole.deal_id, ["a1"], FINISHED_AT, False, TTL, 5, None, past)
    assert late_log.outcome == "closed"
    assert await store.close_tournament(tid, 1_800_000_000) is True
    refused = await store.append_move(game.deal_id, 1, "b1", None, TTL, open_tournament=open_)
    assert refused.outcome == "closed"
    refused_log = await store.submit_log(
        whole.deal_id, ["a1"], FINISHED_AT, False, TTL, 5, None, open_
    )
    assert refused_log.outcome == "closed"
    assert await store.results(tid) == []  # neither result was recorded
    completion = await store.append_move(game.deal_id, 1, "b1 c1", None, TTL)  # the close's own
    assert completion.outcome == "appended"
    found = await store.get_deal(game.deal_id)
    assert found is not None
    assert found.moves == ["a1", "b1", "c1"]


# --- a write run twice (its reply lost, the command resent) -------------------------


async def test_a_write_run_twice_is_recognised_as_its_own(store: Store) -> None:
    owner = new_id("client")
    assert await store.create_deal(new_record(owner=owner), TTL, None, 2) is None
    record = new_record(owner=owner)
    assert await store.create_deal(record, TTL, None, 2) is None
    assert await store.create_deal(record, TTL, None, 2) is None  # at the cap: its own deal
    assert await store.append_move(record.deal_id, 0, "a1", None, TTL) == Appended("appended", 1)
    assert await store.create_deal(record, TTL) is None  # and it is left as it is
    found = await store.get_deal(record.deal_id)
    assert found is not None
    assert found.moves == ["a1"]

    organizer = new_organizer_record()
    assert await store.add_organizer(organizer) is True
    assert await store.add_organizer(organizer) is True
    other = new_organizer_record(name=organizer.name)  # another id, the same name
    assert await store.add_organizer(other) is False

    tournament, entrant_id = new_id("t"), new_id("e")
    assert (await store.add_entrant(tournament, entrant(entrant_id, "Ada"), 1)).outcome == "added"
    assert (await store.add_entrant(tournament, entrant(entrant_id, "Ada"), 1)).outcome == "added"
    taken = await store.add_entrant(tournament, entrant(new_id("e"), "Ada"), None)
    assert taken.outcome == "name-taken"
    assert await store.standings(tournament) == [Standing("Ada", 0, 0)]


# --- lockstep rounds ----------------------------------------------------------------------


def seat_record(tournament: str, player: str, round_number: int = 1) -> DealRecord:
    return new_record(
        tournament=tournament, round=round_number, entrant=player, player=player, lockstep=True
    )


async def test_seats_are_taken_until_the_round_starts(store: Store) -> None:
    tournament = new_id("t")
    ada, bea = seat_record(tournament, "Ada"), seat_record(tournament, "Bea")
    for record in (ada, bea):
        assert await store.create_deal(record, TTL) is None
    waiting = await store.round_state(tournament, 1)
    assert (waiting.seats, waiting.started_at, waiting.call) == (2, None, -1)
    assert sorted(await store.round_seats(tournament, 1)) == sorted([ada.deal_id, bea.deal_id])
    found = await store.get_deal(ada.deal_id)
    assert found is not None
    assert found.lockstep
    refused = await store.append_move(
        ada.deal_id, 0, "a1", None, TTL, placement=Placement(tournament, 1)
    )
    assert (refused.outcome, refused.call) == ("not-called", -1)
    started = await store.start_round(tournament, 1, 2, 60_000, "AS")
    assert started is not None
    assert (started.call, started.turns, started.card_ms, started.placed) == (0, 2, 60_000, 0)
    assert started.deadline == started.called_at + 60_000
    assert await store.start_round(tournament, 1, 2, 60_000, "AS") is None  # once
    with pytest.raises(RoundStarted):
        await store.create_deal(seat_record(tournament, "Cy"), TTL)
    assert (await store.round_state(tournament, 1)).seats == 2
    assert await store.round_calls(tournament, 1) == [CallRecord(0, "AS", started.called_at)]


async def test_the_last_placement_of_a_call_calls_the_next_card(store: Store) -> None:
    tournament = new_id("t")
    ada, bea = seat_record(tournament, "Ada"), seat_record(tournament, "Bea")
    for record in (ada, bea):
        await store.create_deal(record, TTL)
    await store.start_round(tournament, 1, 2, 60_000, "AS")
    player = Placement(tournament, 1, "player", (), "KD")
    first = await store.append_move(ada.deal_id, 0, "a1", None, TTL, placement=player)
    assert (first.outcome, first.call) == ("appended", 0)
    ahead = await store.append_move(ada.deal_id, 1, "b1", None, TTL, placement=player)
    assert (ahead.outcome, ahead.call) == ("not-called", 0)
    early = await store.append_move(
        bea.deal_id, 0, "a1", None, TTL, placement=Placement(tournament, 1, "auto", (0,), "KD")
    )
    assert early.outcome == "early"  # a placement for the player waits for the deadline
    second = await store.append_move(bea.deal_id, 0, "e5", None, TTL, placement=player)
    assert (second.outcome, second.call) == ("appended", 1)
    calls = await store.round_calls(tournament, 1)
    assert [(c.index, c.card) for c in calls] == [(0, "AS"), (1, "KD")]
    assert [(c.index, c.card) for c in await store.round_calls(tournament, 1, after=0)] == [
        (1, "KD")
    ]
    last = Placement(tournament, 1, "player", (), None)
    await store.append_move(ada.deal_id, 1, "b1", FINISHED_AT, TTL, placement=last)
    done = await store.append_move(bea.deal_id, 1, "d5", FINISHED_AT, TTL, placement=last)
    assert done.outcome == "appended"
    finished = await store.round_state(tournament, 1)
    assert finished.finished
    assert len(await store.round_calls(tournament, 1)) == 2


@OWN_REDIS
async def test_a_late_call_takes_placements_for_players_only(store: Store) -> None:
    tournament = new_id("t")
    ada, bea = seat_record(tournament, "Ada"), seat_record(tournament, "Bea")
    for record in (ada, bea):
        await store.create_deal(record, TTL)
    await store.start_round(tournament, 1, 3, 1, None)  # a 1 ms deadline: past at once
    await asyncio.sleep(0.01)
    assert (await store.due_rounds(10)).count((tournament, 1)) == 1
    late = await store.append_move(
        ada.deal_id, 0, "a1", None, TTL, placement=Placement(tournament, 1, "player")
    )
    assert late.outcome == "late"
    for record in (ada, bea):
        placed = await store.append_move(
            record.deal_id, 0, "a1", None, TTL, placement=Placement(tournament, 1, "auto", (0,))
        )
        assert placed.outcome == "appended"
    state = await store.round_state(tournament, 1)
    assert (state.call, state.placed) == (1, 0)
    found = await store.get_deal(bea.deal_id)
    assert found is not None
    assert found.auto_placed == [0]
    closing = Placement(tournament, 1, "closing", (1, 2))
    rest = await store.append_move(bea.deal_id, 1, "b1 c1", FINISHED_AT, TTL, placement=closing)
    assert (rest.outcome, rest.count) == ("appended", 3)
    found = await store.get_deal(bea.deal_id)
    assert found is not None
    assert (found.moves, found.auto_placed, found.finished_at) == (
        ["a1", "b1", "c1"],
        [0, 1, 2],
        FINISHED_AT,
    )
    await store.finish_round(tournament, 1)
    assert (await store.round_state(tournament, 1)).finished
    assert (tournament, 1) not in await store.due_rounds(100)


@OWN_REDIS
async def test_rounds_with_a_start_time_are_due_from_it(store: Store) -> None:
    tournament = new_id("t")
    now_ms = int(time.time() * 1000)
    await store.schedule_round(tournament, 1, now_ms - 60_000)
    await store.schedule_round(tournament, 2, now_ms + 3_600_000)
    due = await store.due_rounds(1000)
    assert (tournament, 1) in due
    assert (tournament, 2) not in due
    empty = await store.start_round(tournament, 1, 25, 60_000, "AS")  # nobody seated
    assert empty is not None
    assert empty.finished
    assert (tournament, 1) not in await store.due_rounds(1000)
    await store.drop_due(tournament, 2)


@OWN_REDIS
async def test_a_round_put_off_is_due_later_and_only_if_still_due(store: Store) -> None:
    # every time a minute or more from the store's clock (Redis's TIME): no edge to race
    tournament = new_id("t")
    now_ms = int(time.time() * 1000)
    await store.schedule_round(tournament, 1, now_ms - 60_000)
    await store.schedule_round(tournament, 2, now_ms + 3_600_000)
    assert (tournament, 1) in await store.due_rounds(1000)
    await store.put_off_round(tournament, 1, 60_000)
    assert (tournament, 1) not in await store.due_rounds(1000)  # due again in a minute
    await store.put_off_round(tournament, 2, -3_600_000)  # never earlier than it is due
    await store.schedule_round(tournament, 1, now_ms - 60_000)
    assert (tournament, 2) not in await store.due_rounds(1000)
    assert (tournament, 1) in await store.due_rounds(1000, resting=["zz"])
    resting = await store.due_rounds(1000, resting=[id_tag(tournament)])
    assert all(found != tournament for found, _ in resting)  # its tag rests
    await store.drop_due(tournament, 1)
    await store.put_off_round(tournament, 1, -60_000)  # finished meanwhile: not due again
    assert (tournament, 1) not in await store.due_rounds(1000)
    await store.drop_due(tournament, 2)


async def test_round_news_tells_every_subscriber(store: Store) -> None:
    tournament = new_id("t")
    record = seat_record(tournament, "Ada")
    await store.create_deal(record, TTL)
    news: list[tuple[str, int]] = []

    async def listen() -> None:
        async for key in store.round_news():
            if key[0] == tournament:
                news.append(key)
                if len(news) == 2:
                    return

    listener = asyncio.create_task(listen())
    await asyncio.sleep(0.2)  # subscribed
    await store.start_round(tournament, 1, 2, 60_000, "AS")
    await store.append_move(
        record.deal_id, 0, "a1", None, TTL, placement=Placement(tournament, 1, "player", (), "KD")
    )
    await asyncio.wait_for(listener, 5)
    assert news == [(tournament, 1), (tournament, 1)]


async def test_a_cancelled_call_is_cancelled(store: Store) -> None:
    """redis-py may swallow a cancel and answer anyway: the store turns it back into one,
    so a stopping keeper (or a caller gone away) is not carried on by a late answer."""
    for step in range(60):
        call = asyncio.create_task(store.due_rounds(10))
        await asyncio.sleep(0.0001 * (step % 20))
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
            assert not call.cancelling(), f"step {step}: answered though cancelled"


async def test_a_round_keeps_its_first_par(store: Store) -> None:
    tournament = f"t_{uuid.uuid4().hex[:12]}"
    assert await store.round_pars(tournament) == {}
    expires = int(time.time()) + TTL
    first = await store.record_round_par(tournament, 2, b'{"score": 10}', expires)
    assert first == b'{"score": 10}'
    racing = await asyncio.gather(
        *(
            store.record_round_par(tournament, 2, f'{{"score": {n}}}'.encode(), expires)
            for n in range(5)
        )
    )
    assert racing == [b'{"score": 10}'] * 5  # the first par stays, whoever computed it again
    await store.record_round_par(tournament, 1, b'{"score": 7}', expires)
    assert await store.round_pars(tournament) == {1: b'{"score": 7}', 2: b'{"score": 10}'}
    assert await store.round_pars(f"{tournament}x") == {}


@OWN_REDIS
async def test_late_placements_place_many_seats_in_one_step(store: Store) -> None:
    """``place_late``: past the deadline, each seat still at the call, counted once.

    A finishing seat's receipt entries are pooled for the log in the same step.
    """
    tournament = new_id("t")
    seats = [seat_record(tournament, name) for name in ("Ada", "Bea", "Cy", "Dee")]
    for record in seats:
        await store.create_deal(record, TTL)
    ada, bea, cy, dee = (record.deal_id for record in seats)
    await store.start_round(tournament, 1, 2, 1, "AS")  # a 1 ms deadline: past at once
    await asyncio.sleep(0.01)
    first = await store.append_move(
        bea, 0, "e5", None, TTL, placement=Placement(tournament, 1, "auto", (0,), "KD")
    )
    assert first.outcome == "appended"
    wrong_call = [LatePlacement(ada, "a1")]
    assert await store.place_late(tournament, 1, 1, TTL, "KD", wrong_call) == []
    placed = await store.place_late(
        tournament, 1, 0, TTL, "KD", [LatePlacement(d, "a1") for d in (ada, bea, cy)]
    )
    assert placed == [ada, cy]  # Bea's card was placed already: it stands
    state = await store.round_state(tournament, 1)
    assert (state.call, state.placed) == (0, 3)  # Dee is still to place
    missing = new_deal_id(id_tag(tournament))
    assert await store.move_counts([ada, bea, dee, missing]) == [1, 1, 0, -1]
    found = await store.get_deal(bea)
    assert found is not None
    assert (found.moves, found.auto_placed) == (["e5"], [0])
    assert await store.place_late(tournament, 1, 0, TTL, "KD", [LatePlacement(dee, "b1")]) == [dee]
    called = await store.round_state(tournament, 1)
    assert (called.call, called.placed) == (1, 0)
    assert [(c.index, c.card) for c in await store.round_calls(tournament, 1)] == [
        (0, "AS"),
        (1, "KD"),
    ]
    await asyncio.sleep(0.01)
    ending = Ending(b"\x00\xc4packed\xff", "receipt of Ada", b'{"ada":1}\n{"ada":2}')
    last = [
        LatePlacement(ada, "a2", FINISHED_AT, 37, ending),
        LatePlacement(bea, "b2", FINISHED_AT, 12),
        LatePlacement(cy, "c2", FINISHED_AT, None),  # a dead end: no total, no result
        LatePlacement(dee, "d2", FINISHED_AT, 5, Ending(b"dee", None, b'{"dee":1}')),
    ]
    assert await store.pooled(100) == []
    assert await store.place_late(tournament, 1, 1, TTL, None, last) == [ada, bea, cy, dee]
    pooled = await store.pooled(100)
    assert [entry for batch in pooled for entry in batch.entries] == [
        b'{"ada":1}',
        b'{"ada":2}',
        b'{"dee":1}',
    ]
    assert (await store.round_state(tournament, 1)).finished
    assert len(await store.round_calls(tournament, 1)) == 2
    assert await store.move_counts([ada, bea]) == [-1, -1]
    found = await store.get_deal(dee)
    assert found is not None
    assert (found.moves, found.auto_placed, found.finished_at) == (
        ["b1", "d2"],
        [0, 1],
        FINISHED_AT,
    )
    results = {result.player: result for result in await store.results(tournament)}
    assert {player: result.total for player, result in results.items()} == {
        "Ada": 37,
        "Bea": 12,
        "Dee": 5,
    }
    assert results["Ada"].receipt == "receipt of Ada"
    found = await store.get_deal(ada)
    assert found is not None
    assert found.ending is not None
    assert found.ending.stored == ending.stored


async def test_late_placements_wait_for_the_deadline(store: Store) -> None:
    tournament = new_id("t")
    record = seat_record(tournament, "Ada")
    await store.create_deal(record, TTL)
    assert (
        await store.place_late(tournament, 1, 0, TTL, "KD", [LatePlacement(record.deal_id, "a1")])
        == []
    )
    await store.start_round(tournament, 1, 2, 60_000, "AS")
    early = [LatePlacement(record.deal_id, "a1")]
    assert await store.place_late(tournament, 1, 0, TTL, "KD", early) == []
    assert await store.move_counts([record.deal_id]) == [0]
    assert (await store.round_state(tournament, 1)).placed == 0


async def test_a_batch_of_seats_is_claimed_once_until_its_lease_ends(store: Store) -> None:
    tournament = new_id("t")
    assert await store.claim_seats(tournament, 1, 0, 0, 200)
    assert not await store.claim_seats(tournament, 1, 0, 0, 200)
    assert await store.claim_seats(tournament, 1, 0, 1, 200)  # another batch
    assert await store.claim_seats(tournament, 1, 1, 0, 200)  # another call
    assert await store.claim_seats(tournament, 2, 0, 0, 200)  # another round
    claims = await asyncio.gather(*(store.claim_seats(tournament, 3, 0, 0, 200) for _ in range(8)))
    assert claims.count(True) == 1
    await asyncio.sleep(0.3)
    assert await store.claim_seats(tournament, 1, 0, 0, 200)  # its taker is presumed gone


async def test_a_lockstep_tournaments_entries_stay_closed_while_its_first_round_plays(
    store: Store,
) -> None:
    """Entries close when round 1 starts, not when it finishes: with a seat in it, the
    round is started and playing (not finished), and an entry is refused."""
    tournament = new_id("t")
    ada = await store.add_entrant(tournament, entrant("e1", "Ada"), None, until_first_round=True)
    assert ada.outcome == "added"
    assert await store.create_deal(seat_record(tournament, "e1"), TTL) is None
    started = await store.start_round(tournament, 1, 25, 60_000, "AS")
    assert started is not None
    assert (started.seats, started.call, started.finished) == (1, 0, False)  # playing
    late = await store.add_entrant(tournament, entrant("e2", "Bea"), None, until_first_round=True)
    assert late.outcome == "entries-closed"
    assert await store.entrant_of_key(tournament, "bea") is None
    assert [line.player for line in await store.standings(tournament)] == ["Ada"]
