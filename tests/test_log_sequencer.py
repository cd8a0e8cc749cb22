"""The sequencer: every pooled entry in the log once, whoever folds and whatever dies.

In process: two sequencers on one Redis racing for the lease, a fold that dies before
its commit, one that dies after it and before its pools are dropped. As processes:
``cardproof serve`` on a private Redis killed (SIGKILL) again and again while entries
are pooled; after each restart the log still verifies, no entry is lost or logged
twice, and no tile ever held other bytes than it holds at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import signal
import threading
import time
from collections.abc import AsyncIterator

import httpx
import pytest
import redis

from cardproof.tlog.entries import RoundCommitment, encode_entry
from cardproof.tlog.note import Checkpoint, Verifier, open_note
from cardproof.tlog.tiles import ENTRIES, Tile, tile_hashes, tile_path, tiles_of, unpack_bundle
from cardproof.tlog.tree import MemoryTree, leaf_hash
from cardproof_service.log import Due, Log
from cardproof_service.log.sequencer import RETRY_DUTY_MS, ForeignLog
from cardproof_service.plumbing import Settings
from cardproof_service.store import LogConflict, MemoryStore, RedisStore, Store
from cardproof_service.store import keys as layout
from conftest import TEST_KEYS, served_process
from redis_server import private_redis


def entry(n: int) -> bytes:
    return encode_entry(RoundCommitment(f"t_{n:020x}", 1, f"{n:064x}"))


@pytest.fixture
async def redis_store() -> AsyncIterator[Store]:
    with private_redis() as server:
        store = RedisStore.from_url(server.url)
        try:
            yield store
        finally:
            await store.close()


async def logged_entries(log: Log) -> tuple[Checkpoint, list[bytes]]:
    """The log's checkpoint (verified) and its entries, read from its bundles."""
    checkpoint = Checkpoint.parse(open_note(await log.checkpoint(), [log.signer.verifier]).text)
    found: list[bytes] = []
    for index in range((checkpoint.size + 255) // 256):
        width = min(256, checkpoint.size - index * 256)
        bundle = await log.tile(tile_path(Tile(ENTRIES, index, width)))
        assert bundle is not None
        found += list(unpack_bundle(bundle))
    tree = MemoryTree([leaf_hash(e) for e in found])
    assert tree.root() == checkpoint.root
    for tile in tiles_of(checkpoint.size):
        assert await log.tile(tile_path(tile)) == tile_hashes(tile, tree.subtree)
    return checkpoint, found


def new_log(store: Store) -> Log:
    return Log(store, TEST_KEYS, Settings(warm_up=False, log_interval=0.01))


async def step_as_run(log: Log) -> None:
    """One step as the sequencer's loop takes it: a fold refused (its lease ran out
    meanwhile, as on a busy machine, and the other replica took it) leaves its entries
    pooled for the next."""
    with contextlib.suppress(LogConflict):
        await log.sequencer.step()


async def test_two_sequencers_log_each_entry_once(redis_store: Store) -> None:
    one, two = new_log(redis_store), new_log(redis_store)
    pooled = []
    for n in range(600):
        pooled.append(entry(n))
        await redis_store.pool_entries(random.choice(["Ab", "Cd", "Ef"]), [entry(n)])
        if n % 50 == 0:
            await asyncio.gather(step_as_run(one), step_as_run(two))
    await redis_store.take_lease(one.sequencer.holder, 1)  # one's lease runs out: two's turn
    await asyncio.sleep(0.01)
    while await redis_store.pooled(1, sweep=True):
        await asyncio.gather(step_as_run(one), step_as_run(two))
    _, found = await logged_entries(one)
    assert sorted(found) == sorted(pooled)


async def test_a_fold_that_dies_before_its_commit_leaves_its_entries_pooled(
    redis_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = new_log(redis_store)
    await redis_store.pool_entries("Ab", [entry(1), entry(2)])
    await log.sequencer.step()
    await redis_store.pool_entries("Ab", [entry(3)])

    async def dies(*args: object) -> None:
        raise ConnectionError("the sequencer died")

    monkeypatch.setattr(redis_store, "commit_fold", dies)
    with pytest.raises(ConnectionError):
        await log.sequencer.step()
    monkeypatch.undo()
    assert (await redis_store.log_state()).size == 2
    await log.sequencer.step()
    _, found = await logged_entries(log)
    assert found == [entry(1), entry(2), entry(3)]


async def test_a_fold_that_dies_before_dropping_its_pools_logs_nothing_twice(
    redis_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = new_log(redis_store)
    await redis_store.pool_entries("Ab", [entry(1), entry(2)])

    async def dies(*args: object) -> None:
        raise ConnectionError("the sequencer died")

    monkeypatch.setattr(redis_store, "drop_pooled", dies)
    with pytest.raises(ConnectionError):
        await log.sequencer.step()
    monkeypatch.undo()
    assert (await redis_store.log_state()).size == 2
    await redis_store.pool_entries("Ab", [entry(3), entry(1)])  # entry 1 again: a resend
    await new_log(redis_store).sequencer.step()  # the lease is the first's: nothing yet
    await log.sequencer.step()
    _, found = await logged_entries(log)
    assert found == [entry(1), entry(2), entry(3)]
    assert await redis_store.pooled(10, sweep=True) == []


async def test_an_entry_pooled_but_not_marked_is_found_by_a_sweep(redis_store: Store) -> None:
    """A writer that died between its step and its mark: the next sequencer sweeps."""
    log = new_log(redis_store)
    await redis_store.pool_entries("Zz", [entry(7)])
    await redis_store._redis.srem(layout.LOG_POOLS, "Zz")  # type: ignore[attr-defined]
    assert await redis_store.pooled(10) == []  # unmarked: only a sweep finds it
    await log.sequencer.step()  # its first fold sweeps every pool
    _, found = await logged_entries(log)
    assert found == [entry(7)]


POOLED = 12_000
"""Entries the writer pools in all (about a thousand a second, as games would)."""


def test_a_sequencer_killed_again_and_again_loses_and_rewrites_nothing() -> None:
    """SIGKILL ``cardproof serve`` while it folds; restart it; the log stays one history."""
    with private_redis() as server:
        env = {
            "REDIS_URL": server.url,
            "CARDPROOF_LOG_INTERVAL": "0.05",
            "CARDPROOF_LOG_ORIGIN": "cardproof.test/log",  # one name, whatever the port
        }
        pooled: list[bytes] = []
        stop = threading.Event()

        def pool() -> None:  # as the service's writers do: pool in a tag, then mark it
            with redis.Redis.from_url(server.url) as writer:
                while not stop.is_set() and len(pooled) < POOLED:
                    tag = random.choice(["Ab", "Cd", "Ef", "Gh"])
                    items = [entry(len(pooled) + i) for i in range(random.randint(1, 10))]
                    writer.rpush(layout.log_pool(tag), b"\n".join(items))
                    writer.sadd(layout.LOG_POOLS, tag)
                    pooled.extend(items)
                    time.sleep(0.005)

        reader = Reader()
        writer = threading.Thread(target=pool)
        writer.start()
        try:
            for _ in range(6):
                with served_process("--log-level", "error", env=env) as (url, process):
                    for _ in range(random.randint(1, 6)):
                        time.sleep(0.1)
                        reader.read(url)
                    process.send_signal(signal.SIGKILL)
                    process.wait()
        finally:
            stop.set()
            writer.join()
        with served_process("--log-level", "error", env=env) as (url, _):
            deadline = time.monotonic() + 30
            while reader.read(url) < len(pooled) and time.monotonic() < deadline:
                time.sleep(0.1)
            entries = reader.entries(url)
    assert len(entries) == len(pooled) == len(set(pooled))
    assert sorted(entries) == sorted(pooled)  # none lost, none twice


class Reader:
    """Reads a served log as a monitor does, holding each tile to what it was before."""

    def __init__(self) -> None:
        self.size = 0
        self.seen: dict[tuple[int, int], bytes] = {}
        self.http = httpx.Client(timeout=10)

    def read(self, url: str) -> int:
        """The checkpoint, verified, and every tile that grew since: each extends its past."""
        vkey = self.http.get(f"{url}/log/key").text.strip()
        note = self.http.get(f"{url}/log/checkpoint").text
        checkpoint = Checkpoint.parse(open_note(note, [Verifier.parse(vkey)]).text)
        assert checkpoint.size >= self.size, "the log rolled back"
        for tile in tiles_of(checkpoint.size, self.size):
            levels = (tile.level, ENTRIES) if tile.level == 0 else (tile.level,)
            for level in levels:
                path = tile_path(Tile(level, tile.index, tile.width))
                data = self.http.get(f"{url}/log/{path}").content
                before = self.seen.get((level, tile.index), b"")
                assert data.startswith(before), f"{path} is not what it was"
                self.seen[(level, tile.index)] = data
        self.size = checkpoint.size
        return self.size

    def entries(self, url: str) -> list[bytes]:
        """Every entry of the log; their tree's root is the checkpoint's."""
        found: list[bytes] = []
        for index in range((self.size + 255) // 256):
            found += list(unpack_bundle(self.seen[(ENTRIES, index)]))
        tree = MemoryTree([leaf_hash(e) for e in found])
        note = self.http.get(f"{url}/log/checkpoint").text
        assert Checkpoint.parse(note.split("\n\n")[0] + "\n").root == tree.root()
        for (level, index), data in self.seen.items():
            if level >= 0:
                width = len(data) // 32
                assert data == tile_hashes(Tile(level, index, width), tree.subtree)
        return found


@pytest.mark.parametrize("other", ["key", "origin"])
async def test_a_replica_with_another_key_or_origin_leaves_the_log_alone(
    redis_store: Store, other: str
) -> None:
    log = new_log(redis_store)
    await redis_store.pool_entries("Ab", [entry(1)])
    await log.sequencer.step()
    keys = dataclasses.replace(TEST_KEYS, log=bytes([2]) * 32) if other == "key" else TEST_KEYS
    origin = "elsewhere.example/log" if other == "origin" else None
    stranger = Log(redis_store, keys, Settings(warm_up=False, log_origin=origin))
    await redis_store.pool_entries("Ab", [entry(2)])
    await redis_store.take_lease(log.sequencer.holder, 1)  # the first's lease runs out
    await asyncio.sleep(0.01)
    with pytest.raises(ForeignLog, match="CARDPROOF_LOG_KEY"):
        await stranger.sequencer.step()
    assert (await redis_store.log_state()).size == 1
    await redis_store.take_lease(stranger.sequencer.holder, 1)
    await asyncio.sleep(0.01)
    await log.sequencer.step()  # the log's own replicas go on
    _, found = await logged_entries(log)
    assert found == [entry(1), entry(2)]


async def test_a_due_key_is_pooled_once_and_a_failing_one_put_off() -> None:
    """Each due key is asked for once; one that fails waits a minute, the others go on."""
    store = MemoryStore()
    log = new_log(store)
    asked: list[str] = []

    async def duty(key: str) -> Due:
        asked.append(key)
        if key == "t_bad":
            raise RuntimeError("a bug in one tournament")
        if key == "t_later":
            return Due(later_ms=int(time.time() * 1000) + 3_600_000)
        return Due("Ab", [entry(7)])

    log.on_due(duty)
    for key in ("t_bad", "t_good", "t_later"):
        await log.due(key, 1_000)
    await log.due("t_future", int(time.time() * 1000) + 60_000)
    await log.sequencer.step()  # the duties pool...
    await log.sequencer.step()  # ...and the next fold sequences
    assert sorted(asked) == ["t_bad", "t_good", "t_later"]
    _, found = await logged_entries(log)
    assert found == [entry(7)]
    later = dict(await store.logs_due(int(time.time() * 1000) + 3_700_000, 10))
    assert set(later) == {"t_bad", "t_later", "t_future"}
    assert later["t_bad"] >= int(time.time() * 1000) + RETRY_DUTY_MS - 5_000
    await log.sequencer.step()
    assert len(asked) == 3  # nothing asked again before its time
