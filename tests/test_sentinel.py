"""Sentinel: the service follows a failover, and with ``MIN_REPLICAS=1`` loses nothing.

A real primary, a replica and three sentinels (``redis_server.sentinel_group``), and a
real ``cardproof serve`` on them (``CARDPROOF_REDIS_MODE=sentinel``). Players play
committed blind games through the SDK (which retries a 503, honouring ``Retry-After``)
while the sentinels fail over twice: once asked to (``SENTINEL FAILOVER``), once because
the primary was killed (the killed server then comes back, as a replica). Every move the
service acknowledged must be in the deal's log afterwards; ``/readyz`` must say not
ready during the switch and ready after it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient

from cardproof import Client
from cardproof.errors import CardproofError
from cardproof_service import Settings, create_app
from cardproof_service.store import StoreUnavailable
from cardproof_service.store.redis import RedisStore
from conftest import TEST_KEYS, UNLIMITED, served
from redis_server import private_redis, sentinel_group

CELLS = [f"{c}{r}" for r in "12345" for c in "abcde"]


def test_a_write_waits_for_its_replica(tmp_path: Path) -> None:
    """``WAIT``: with the replica frozen, a write is not acknowledged (503), nor lost."""
    with (
        private_redis() as primary,
        private_redis("--replicaof", "127.0.0.1", str(primary.port)) as replica,
    ):

        async def run() -> None:
            store = RedisStore.from_url(primary.url, timeout=1.0, min_replicas=1)
            try:
                for _ in range(50):  # until the replica has synced
                    try:
                        await store.add_invites("t_wait", ["code-0"], 10)
                        break
                    except StoreUnavailable:
                        await asyncio.sleep(0.1)
                else:
                    pytest.fail("the replica never confirmed a write")
                replica.pause()
                try:
                    with pytest.raises(StoreUnavailable, match="replicas"):
                        await store.add_invites("t_wait", ["code-1"], 10)
                finally:
                    replica.resume()
                await store.add_invites("t_wait", ["code-2"], 10)  # confirmed again
            finally:
                await store.close()

        asyncio.run(run())


def test_sentinels_that_ask_for_a_password_are_given_it() -> None:
    """The password in the URL goes to the sentinels as well as to the primary."""
    with sentinel_group(password="s3cr@t") as group:
        url = group.url.replace("s3cr@t", "s3cr%40t")  # as a URL must spell it

        async def run() -> None:
            store = RedisStore.from_sentinels(url, timeout=2.0)
            try:
                await store.ping()
                assert await store.add_invites("t_auth", ["code"], 10)
            finally:
                await store.close()

        asyncio.run(run())


class Load:
    """Players playing committed blind games until told to stop; what was acknowledged."""

    def __init__(self, base_url: str, players: int) -> None:
        self.base_url = base_url
        self.acknowledged: list[tuple[str, int, str]] = []
        self.failed = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.play, daemon=True) for _ in range(players)]

    def play(self) -> None:
        with Client(base_url=self.base_url, max_retries=12, timeout=10) as client:
            while not self.stop.is_set():
                try:
                    game = client.deal("poker-squares")
                    for cell in CELLS:
                        if self.stop.is_set():
                            return
                        answer = game.play(cell)
                        with self.lock:
                            self.acknowledged.append((game.deal_id, answer.index, cell))
                except CardproofError:
                    with self.lock:
                        self.failed += 1  # given up after its retries: nothing acknowledged

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)


def readiness(base_url: str) -> int:
    try:
        return httpx.get(f"{base_url}/readyz", timeout=2).status_code
    except httpx.TransportError:
        return 0


def watch(base_url: str, seconds: float, seen: list[int]) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.append(readiness(base_url))
        time.sleep(0.05)


def test_no_acknowledged_move_is_lost_in_two_failovers(tmp_path: Path) -> None:
    with sentinel_group() as group:
        env = {
            "REDIS_URL": group.url,
            "CARDPROOF_REDIS_MODE": "sentinel",
            "CARDPROOF_REDIS_MIN_REPLICAS": "1",
            "CARDPROOF_STORE_TIMEOUT": "1.0",
        }
        with served("--log-level", "warning", env=env) as base_url, Load(base_url, 4) as load:
            time.sleep(1.5)
            states: list[int] = []
            watcher = threading.Thread(target=watch, args=(base_url, 8, states))
            watcher.start()
            group.failover()  # asked for: the replica becomes the primary
            watcher.join()
            assert 200 in states  # ready before, and again after the switch
            time.sleep(1.0)
            before_kill = len(load.acknowledged)
            killed = group.server_on(group.primary_port())
            killed.kill()  # the primary dies: the sentinels promote the other
            deadline = time.monotonic() + 30
            down: list[int] = []
            while group.primary_port() == killed.port:
                down.append(readiness(base_url))
                assert time.monotonic() < deadline, "no failover after the kill"
                time.sleep(0.1)
            killed.start()  # back, and made a replica of the new primary by the sentinels
            after: list[int] = []
            watch(base_url, 6, after)
            time.sleep(2.0)
        assert load.acknowledged, "no move was acknowledged"
        assert len(load.acknowledged) > before_kill  # play went on after the kill
        assert 503 in down or 503 in states  # not ready during a switch
        assert after[-1] == 200  # ready again after it
        lost = []
        with (
            served("--log-level", "warning", env=env) as check_url,  # a fresh process reads
            httpx.Client(base_url=check_url, timeout=5) as http,
        ):
            logs: dict[str, list[str]] = {}
            for deal_id, index, cell in load.acknowledged:
                if deal_id not in logs:
                    logs[deal_id] = http.get(f"/v1/deals/{deal_id}").json()["moves"].split()
                if index >= len(logs[deal_id]) or logs[deal_id][index] != cell:
                    lost.append((deal_id, index, cell))
        print(
            f"sentinel failovers: {len(load.acknowledged)} moves acknowledged, {len(lost)} lost, "
            f"{states.count(503) + down.count(503)} not-ready probes of "
            f"{len(states) + len(down)}, {load.failed} games given up"
        )
        assert lost == []


def test_a_resent_request_is_not_acknowledged_before_its_first_write_is_safe() -> None:
    """A request refused with 503 (its write landed, its replica did not confirm it) and
    then resent is answered from what the first attempt stored: that answer acknowledges
    it, so it waits for the replica too (a move, and a deal under an ``Idempotency-Key``)."""
    with (
        private_redis() as primary,
        private_redis("--replicaof", "127.0.0.1", str(primary.port)) as replica,
    ):
        settings = Settings(
            warm_up=False,
            redis_url=primary.url,
            redis_min_replicas=1,
            store_timeout=1.0,
            **UNLIMITED,
        )
        app = create_app(settings, keys=TEST_KEYS)
        with TestClient(app=app) as client:
            deadline = time.monotonic() + 20
            while (
                created := client.post("/v1/deals", json={"variant": "poker-squares"})
            ).status_code == 503:
                assert time.monotonic() < deadline, "the replica never synced"
                time.sleep(0.1)
            deal_id = created.json()["deal_id"]
            move = {"index": 0, "move": "a1"}
            replica.pause()
            try:
                assert client.post(f"/v1/deals/{deal_id}/moves", json=move).status_code == 503
                resent = client.post(f"/v1/deals/{deal_id}/moves", json=move)
                assert resent.status_code == 503, resent.text  # stored, not yet safe
                key = {"Idempotency-Key": "7d1c1b2a-0f0e-4d0c-8b0a-090807060504"}
                commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
                body = {"variant": "poker-squares", "commitment_id": commitment}
                assert client.post("/v1/deals", json=body, headers=key).status_code == 503
                again = client.post("/v1/deals", json=body, headers=key)
                assert again.status_code == 503, again.text
            finally:
                replica.resume()
            assert client.post(f"/v1/deals/{deal_id}/moves", json=move).status_code == 200
            assert client.post("/v1/deals", json=body, headers=key).status_code == 201
