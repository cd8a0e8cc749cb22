"""The log's part of the store contract (base.py ``LogStore``): memory, Redis, Cluster.

Entries are pooled in the step that stores a game's ending, or by ``pool_entries``;
one lease holder at a time commits a fold, in one step that writes nothing unless the
lease is its own, the log is of the size it started from and every tile only grows;
pools are dropped only as read. Each test runs on a private, flushed Redis (the log's
keys are the deployment's, not a test's).
"""

from __future__ import annotations

import asyncio
import time

import pytest

import test_store_contract as contract
from cardproof_service.store import DealRecord, Ending, LogConflict, LogState, Store
from cardproof_service.store.keys import new_deal_id
from test_store_contract import FINISHED_AT, TTL

store = contract.store
"""The contract's stores (memory, Redis, Cluster), with the servers they run on."""
redis_url, own_redis_url, cluster_url = (
    contract.redis_url,
    contract.own_redis_url,
    contract.cluster_url,
)

pytestmark = pytest.mark.own_redis


def record(tag: str = "Lg") -> DealRecord:
    return DealRecord(
        deal_id=new_deal_id(tag),
        variant="poker-squares",
        options={},
        commitment_id="c_x",
        client_seed="seed",
        committed=False,
        created_at=int(time.time()),
    )


def entries_of(pooled: list) -> list[bytes]:  # type: ignore[type-arg]
    return [entry for batch in pooled for entry in batch.entries]


async def test_a_finishing_move_pools_its_entries_in_its_step(store: Store) -> None:
    deal = record()
    await store.create_deal(deal, TTL)
    await store.append_move(deal.deal_id, 0, "a1", None, TTL)
    assert await store.pooled(100) == []  # not finished: nothing to log
    ending = Ending(b"packed", None, b'{"n":1}\n{"n":2}')
    refused = await store.append_move(deal.deal_id, 5, "b1", FINISHED_AT, TTL, ending=ending)
    assert refused.outcome == "wrong-index"
    assert await store.pooled(100) == []  # refused: nothing pooled
    done = await store.append_move(deal.deal_id, 1, "b1", FINISHED_AT, TTL, ending=ending)
    assert done.outcome == "appended"
    assert entries_of(await store.pooled(100)) == [b'{"n":1}', b'{"n":2}']
    again = await store.append_move(deal.deal_id, 1, "b1", FINISHED_AT, TTL, ending=ending)
    assert again.outcome == "wrong-index"  # a resend pools nothing twice
    assert entries_of(await store.pooled(100)) == [b'{"n":1}', b'{"n":2}']


async def test_a_whole_log_pools_its_entries(store: Store) -> None:
    deal = record("Wh")
    await store.create_deal(deal, TTL)
    ending = Ending(b"packed", None, b'{"w":1}')
    done = await store.submit_log(deal.deal_id, ["a1"], FINISHED_AT, False, TTL, ending=ending)
    assert done.outcome == "appended"
    assert entries_of(await store.pooled(100)) == [b'{"w":1}']


async def test_pools_are_read_oldest_first_and_dropped_once(store: Store) -> None:
    await store.pool_entries("Aa", [b"1", b"2"])
    await store.pool_entries("Bb", [b"3"])
    await store.pool_entries("Aa", [b"4"])
    taken = await store.pooled(100)
    assert sorted(entries_of(taken)) == [b"1", b"2", b"3", b"4"]
    for batch in taken:  # each pool in the order it was pooled
        assert batch.entries == sorted(batch.entries)
    await store.pool_entries("Aa", [b"5"])  # pooled after the read: stays
    await store.drop_pooled(taken)
    assert entries_of(await store.pooled(100)) == [b"5"]
    await store.drop_pooled(taken)  # dropped already: a second drop drops nothing more
    left = await store.pooled(100)
    assert entries_of(left) == [b"5"]
    await store.drop_pooled(left)
    assert await store.pooled(100, sweep=True) == []


async def test_a_pool_read_by_two_sequencers_is_dropped_by_the_first_only(store: Store) -> None:
    await store.pool_entries("Cc", [b"x"])
    first = await store.pooled(100)
    second = await store.pooled(100)
    await store.drop_pooled(first)
    await store.pool_entries("Cc", [b"y"])
    await store.drop_pooled(second)  # read before the first drop: drops nothing now
    assert entries_of(await store.pooled(100)) == [b"y"]


async def test_the_lease_is_one_holder_s_until_it_runs_out(store: Store) -> None:
    assert await store.take_lease("one", 300)
    assert await store.take_lease("one", 300)  # renewed
    assert not await store.take_lease("two", 300)
    await asyncio.sleep(0.4)
    assert await store.take_lease("two", 300)
    assert not await store.take_lease("one", 300)


async def test_a_fold_is_committed_whole_or_not_at_all(store: Store) -> None:
    assert await store.log_state() == LogState()
    assert await store.take_lease("seq", 5000)
    tiles = {(0, 0): b"a" * 64, (-1, 0): b"\x00\x01x\x00\x01y"}
    leaves = {b"L" * 32: 0, b"M" * 32: 1}
    with pytest.raises(LogConflict):  # not the lease's holder
        await store.commit_fold("other", 0, LogState(2, "cp2"), tiles, leaves)
    with pytest.raises(LogConflict):  # not the log's size
        await store.commit_fold("seq", 1, LogState(2, "cp2"), tiles, leaves)
    assert await store.log_state() == LogState()
    assert await store.read_tiles([(0, 0), (-1, 0)]) == [None, None]
    assert await store.leaf_indexes([b"L" * 32]) == [None]
    await store.commit_fold("seq", 0, LogState(2, "cp2"), tiles, leaves)
    assert await store.log_state() == LogState(2, "cp2")
    assert await store.read_tiles([(0, 0), (-1, 0), (1, 0)]) == [b"a" * 64, tiles[(-1, 0)], None]
    assert await store.leaf_indexes([b"M" * 32, b"L" * 32, b"N" * 32]) == [1, 0, None]
    rewritten = {(0, 0): b"b" * 96}
    with pytest.raises(LogConflict):  # a tile that would change what it held
        await store.commit_fold("seq", 2, LogState(3, "cp3"), rewritten, {b"N" * 32: 2})
    assert await store.log_state() == LogState(2, "cp2")
    assert await store.leaf_indexes([b"N" * 32]) == [None]
    grown = {(0, 0): b"a" * 64 + b"c" * 32}
    await store.commit_fold("seq", 2, LogState(3, "cp3"), grown, {b"N" * 32: 2})
    assert await store.read_tiles([(0, 0)]) == [grown[(0, 0)]]


async def test_cosignatures_are_kept_for_the_checkpoint_they_sign(store: Store) -> None:
    assert await store.take_lease("seq", 5000)
    await store.commit_fold("seq", 0, LogState(1, "cp1"), {}, {})
    assert await store.add_cosigned(1, "cp1+w")
    assert await store.log_state() == LogState(1, "cp1", "cp1+w")
    assert not await store.add_cosigned(0, "old+w")  # the log grew past it
    await store.commit_fold("seq", 1, LogState(2, "cp2"), {}, {})
    assert await store.log_state() == LogState(2, "cp2")  # a new checkpoint: none yet


async def test_what_is_due_is_read_by_its_time_and_forgotten_once_done(store: Store) -> None:
    await store.log_due("t_b", 2_000)
    await store.log_due("t_a", 1_000)
    await store.log_due("t_c", 9_000)
    assert await store.logs_due(500, 10) == []
    assert await store.logs_due(2_000, 10) == [("t_a", 1_000), ("t_b", 2_000)]
    assert await store.logs_due(2_000, 1) == [("t_a", 1_000)]  # the earliest first
    await store.log_due("t_c", 1_500)  # asked again earlier: the earlier time
    await store.log_due("t_a", 5_000)  # asked again later: never postponed
    assert await store.logs_due(2_000, 10) == [("t_a", 1_000), ("t_c", 1_500), ("t_b", 2_000)]
    await store.log_done("t_a", 1_000)
    await store.log_done("t_b", 2_000, later_ms=8_000)  # not yet: put off
    assert await store.logs_due(2_000, 10) == [("t_c", 1_500)]
    assert await store.logs_due(8_000, 10) == [("t_c", 1_500), ("t_b", 8_000)]


async def test_a_due_key_asked_again_meanwhile_is_not_forgotten(store: Store) -> None:
    await store.log_due("t_x", 4_000)
    [(key, at)] = await store.logs_due(4_000, 10)
    await store.log_due("t_x", 3_000)  # closed early while the sequencer worked
    await store.log_done(key, at)  # done as due at 4,000: the 3,000 stays
    assert await store.logs_due(4_000, 10) == [("t_x", 3_000)]
    await store.log_done("t_x", 3_000, later_ms=3_500)
    await store.log_done("t_x", 3_000)  # a second sequencer's stale answer: no effect
    assert await store.logs_due(4_000, 10) == [("t_x", 3_500)]
