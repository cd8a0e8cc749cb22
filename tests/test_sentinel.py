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
import uuid
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import Client
from cardproof.errors import CardproofError
from cardproof_service import Settings, create_app
from cardproof_service.store import Claim, DailyQuota, DealRecord, StoreUnavailable
from cardproof_service.store import keys as layout
from cardproof_service.store.redis import RedisStore
from conftest import TEST_KEYS, UNLIMITED, served
from redis_server import RedisServer, private_redis, sentinel_group

CELLS = [f"{c}{r}" for r in "12345" for c in "abcde"]


def caught_up(primary: RedisServer) -> None:
    """Once a frozen replica is resumed: until it confirms a write again (it reconnects and
    takes the writes it missed first, which may outlast one request's WAIT)."""
    deadline = time.monotonic() + 20
    with redis.Redis(port=primary.port, socket_timeout=5) as admin:
        while True:
            admin.set("cardproof:test:caught-up", 1)
            if int(admin.execute_command("WAIT", 1, 500)) >= 1:
                return
            assert time.monotonic() < deadline, "the replica never caught up"


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
                caught_up(primary)
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
    it, so it waits for the replica too (a move, and a deal under an ``Idempotency-Key``,
    committed or casual: resends of a casual one find its first deal, none opens another)."""
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
            deals_before = stored_deals(primary)
            replica.pause()
            try:
                assert client.post(f"/v1/deals/{deal_id}/moves", json=move).status_code == 503
                resent = client.post(f"/v1/deals/{deal_id}/moves", json=move)
                assert resent.status_code == 503, resent.text  # stored, not yet safe
                key = {"Idempotency-Key": "7d1c1b2a-0f0e-4d0c-8b0a-090807060504"}
                commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
                body = {
                    "variant": "poker-squares",
                    "commitment_id": commitment,
                    "client_seed": "a seed of mine",
                }
                assert client.post("/v1/deals", json=body, headers=key).status_code == 503
                again = client.post("/v1/deals", json=body, headers=key)
                assert again.status_code == 503, again.text
                casual = {"Idempotency-Key": "0e5c8f4a-35b1-4e8e-9a52-6b1f0c7d2e19"}
                for _ in range(2):  # stored, not yet safe
                    refused = client.post(
                        "/v1/deals", json={"variant": "poker-squares"}, headers=casual
                    )
                    assert refused.status_code == 503, refused.text
            finally:
                replica.resume()
            caught_up(primary)
            assert client.post(f"/v1/deals/{deal_id}/moves", json=move).status_code == 200
            assert client.post("/v1/deals", json=body, headers=key).status_code == 201
            retried = [
                client.post("/v1/deals", json={"variant": "poker-squares"}, headers=casual)
                for _ in range(2)
            ]
            assert [r.status_code for r in retried] == [201, 201], retried[0].text
            assert retried[0].json() == retried[1].json()
            assert stored_deals(primary) == deals_before + 2  # the committed one, the casual one


def stored_deals(server: RedisServer) -> int:
    """How many deals ``server`` holds."""
    with redis.Redis(port=server.port, socket_timeout=5) as admin:
        return sum(1 for _ in admin.scan_iter(match="cardproof:*:deal:*", count=1000))


def synced_app(primary_url: str, **limits: int) -> TestClient[Litestar]:
    """An app on ``primary_url`` acknowledging only what its replica has (``MIN_REPLICAS=1``)."""
    settings = Settings(
        warm_up=False,
        redis_url=primary_url,
        redis_min_replicas=1,
        store_timeout=1.0,
        **{**UNLIMITED, **limits},
    )
    return TestClient(app=create_app(settings, keys=TEST_KEYS))


def first_deal(client: TestClient[Litestar], variant: str) -> dict[str, object]:
    """A deal, once the replica has synced (until then every write is a 503)."""
    deadline = time.monotonic() + 20
    while (created := client.post("/v1/deals", json={"variant": variant})).status_code == 503:
        assert time.monotonic() < deadline, "the replica never synced"
        time.sleep(0.1)
    assert created.status_code == 201, created.text
    answer: dict[str, object] = created.json()
    return answer


def test_a_resent_last_move_takes_its_game_out_of_flight() -> None:
    """A last move refused with 503 (stored; its replica did not confirm it, so the game
    never left its client's games in flight) and then resent: the resend finishes the job,
    and the client may open a game again."""
    with (
        private_redis() as primary,
        private_redis("--replicaof", "127.0.0.1", str(primary.port)) as replica,
        synced_app(primary.url, max_games_in_flight=1) as client,
    ):
        deal_id = first_deal(client, "poker-squares")["deal_id"]
        for index, cell in enumerate(CELLS[:-1]):
            moved = client.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
            assert moved.status_code == 200, moved.text
        last = {"index": 24, "move": CELLS[24]}
        replica.pause()
        try:
            assert client.post(f"/v1/deals/{deal_id}/moves", json=last).status_code == 503
        finally:
            replica.resume()
        caught_up(primary)
        assert client.post("/v1/deals", json={"variant": "poker-squares"}).status_code == 429
        resent = client.post(f"/v1/deals/{deal_id}/moves", json=last)
        assert resent.status_code == 200, resent.text
        assert resent.json()["finished"] is True
        assert client.post("/v1/deals", json={"variant": "poker-squares"}).status_code == 201


def test_a_resent_whole_log_is_confirmed_before_its_answer() -> None:
    """A whole log refused with 503 (stored, not confirmed) and resent while the replica is
    still behind is not acknowledged from the stored copy; once confirmed, it is, and the
    game is out of its client's games in flight."""
    with (
        private_redis() as primary,
        private_redis("--replicaof", "127.0.0.1", str(primary.port)) as replica,
        synced_app(primary.url, max_games_in_flight=1) as client,
    ):
        deal = first_deal(client, "serpent-patience")
        view = deal["view"]
        assert isinstance(view, dict)
        cards = [view["next"], *view["later"]]
        solved = client.post("/v1/solve", json={"variant": "serpent-patience", "cards": cards})
        body = {
            "variant": "serpent-patience",
            "deal": {"deal_id": deal["deal_id"]},
            "moves": solved.json()["moves"],
        }
        replica.pause()
        try:
            assert client.post("/v1/verify", json=body).status_code == 503
            again = client.post("/v1/verify", json=body)
            assert again.status_code == 503, again.text  # stored, not yet safe
        finally:
            replica.resume()
        caught_up(primary)
        verified = client.post("/v1/verify", json=body)
        assert verified.status_code == 200, verified.text
        assert verified.json()["score"] == solved.json()["score"]
        assert client.post("/v1/deals", json={"variant": "poker-squares"}).status_code == 201


class PausingStore(RedisStore):
    """A store that freezes the replica right after a deal's count was confirmed."""

    replica: RedisServer | None = None

    async def _admit_deal(self, *args: Any, **kwargs: Any) -> None:
        await super()._admit_deal(*args, **kwargs)
        if self.replica is not None:
            self.replica.pause()


def test_a_refused_deal_keeps_its_count_only_if_a_resend_can_find_it() -> None:
    """With the replica frozen before the count, nothing is confirmed: the deal is refused
    and its count given back. Frozen after the count, the deal is written but refused: a
    committed deal keeps its count (in flight, of the day), since the resent request
    finds it by its claim; a casual one gives it back (nobody was told its id)."""
    with (
        private_redis() as primary,
        private_redis("--replicaof", "127.0.0.1", str(primary.port)) as replica,
        redis.Redis.from_url(primary.url) as admin,
    ):
        owner = "client-pausing"
        quota = DailyQuota(owner, 10, 20_000, 600)
        today = layout.deals_today(owner, 20_000)

        def record() -> tuple[DealRecord, Claim]:
            commitment = f"c_{uuid.uuid4().hex}"
            deal = DealRecord(
                deal_id=layout.new_deal_id(layout.id_tag(commitment)),
                variant="poker-squares",
                options={},
                commitment_id=commitment,
                client_seed="seed",
                committed=True,
                created_at=int(time.time()),
                owner=owner,
            )
            return deal, Claim(commitment, b"first", 600)

        def counted(deal: DealRecord) -> tuple[bool, bool, int]:
            return (
                admin.exists(layout.deal(deal.deal_id)) == 1,
                admin.zscore(layout.in_flight(owner), deal.deal_id) is not None,
                int(admin.get(today) or 0),
            )

        async def run() -> None:
            store = PausingStore.from_url(primary.url, timeout=1.0, min_replicas=1)
            try:
                for _ in range(200):  # until the replica has synced
                    try:
                        await store.confirm_deal("d_sync")
                        break
                    except StoreUnavailable:
                        await asyncio.sleep(0.1)
                before, claim = record()
                replica.pause()
                try:
                    with pytest.raises(StoreUnavailable):
                        await store.create_deal(before, 600, claim, 5, quota)
                finally:
                    replica.resume()
                caught_up(primary)
                assert counted(before) == (False, False, 0)

                async def refused_after_its_count(committed: bool) -> DealRecord:
                    deal, claim = record()
                    store.replica = replica  # frozen once the count is confirmed
                    try:
                        with pytest.raises(StoreUnavailable):
                            await store.create_deal(
                                deal, 600, claim if committed else None, 5, quota
                            )
                    finally:
                        store.replica = None
                        replica.resume()
                    caught_up(primary)
                    return deal

                committed = await refused_after_its_count(True)
                assert counted(committed) == (True, True, 1)
                resent = msgspec.structs.replace(
                    committed, deal_id=layout.new_deal_id(layout.id_tag(committed.commitment_id))
                )
                claim = Claim(committed.commitment_id, b"resent", 600)
                assert await store.create_deal(resent, 600, claim, 5, quota) == b"first"
                assert int(admin.get(today) or 0) == 1  # the resend found it: no new count
                casual = await refused_after_its_count(False)
                assert counted(casual) == (True, False, 1)
            finally:
                await store.close()

        asyncio.run(run())
