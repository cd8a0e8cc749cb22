"""Per-client limits: the rate limit (429, Retry-After, RateLimit headers) and the cap on
games in flight, in one process, across replicas on Redis, and while Redis is down."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from redis import Redis

from cardproof import Client
from cardproof.errors import RateLimitedError
from cardproof_service import Settings, create_app
from cardproof_service.front import examples
from cardproof_service.plumbing import limits
from cardproof_service.plumbing.keys import Keys
from cardproof_service.plumbing.limits import address_id
from cardproof_service.plumbing.settings import SettingsError
from cardproof_service.store import Hits, MemoryStore
from cardproof_service.store.redis import RedisStore
from conftest import TEST_KEYS, free_port, organizer_key, own_deployment, served
from redis_server import private_redis

RATE_HEADERS = ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy")
CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


@contextmanager
def limited_app(keys: Keys = TEST_KEYS, **settings: Any) -> Iterator[TestClient[Litestar]]:
    """A test client on an app with the given limits (memory store unless ``store``)."""
    store = settings.pop("store", None)
    app = create_app(Settings(warm_up=False, **settings), keys=keys, store=store)
    with TestClient(app) as client:
        yield client


def metric(client: httpx.Client | TestClient[Litestar], line_start: str) -> float:
    """The value of the one /metrics sample whose line starts with ``line_start`` (0 if none)."""
    lines = [x for x in client.get("/metrics").text.splitlines() if x.startswith(line_start)]
    assert len(lines) <= 1, lines
    return float(lines[0].rsplit(" ", 1)[1]) if lines else 0.0


def test_a_client_over_the_rate_limit_gets_429_with_when_to_come_back() -> None:
    with limited_app(rate_limit=3, rate_window=3600, max_games_in_flight=0) as client:
        refused_before = metric(client, 'cardproof_rate_limited_total{reason="rate"}')
        answers = [client.get("/v1/variants") for _ in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 200]
        assert [a.headers["ratelimit-remaining"] for a in answers] == ["2", "1", "0"]
        for answer in answers:
            assert answer.headers["ratelimit-limit"] == "3"
            assert answer.headers["ratelimit-policy"] == "3;w=3600"
            assert 0 < int(answer.headers["ratelimit-reset"]) <= 3600

        refused = client.post("/v1/score", json={"variant": "poker-squares", "layout": []})
        assert refused.status_code == 429
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.headers["retry-after"] == refused.headers["ratelimit-reset"]
        assert refused.headers["ratelimit-remaining"] == "0"
        assert refused.headers["x-request-id"]  # refusals are logged and traced like the rest
        problem = refused.json()
        assert (problem["status"], problem["type"], problem["code"]) == (
            429,
            "/problems/rate-limited",
            "rate-limited",
        )
        assert "3 requests per 3600 s" in problem["detail"]

        # probes and metrics are never limited, and say nothing of the limit
        for path in ("/healthz", "/readyz", "/metrics"):
            answer = client.get(path)
            assert answer.status_code == 200, path
            assert not set(RATE_HEADERS) & set(answer.headers), path
        assert metric(client, 'cardproof_rate_limited_total{reason="rate"}') == refused_before + 1
        counted = 'cardproof_http_requests_total{method="POST",route="/v1/score",status="429"}'
        assert metric(client, counted) >= 1


def test_the_limit_starts_again_with_the_next_window() -> None:
    with limited_app(rate_limit=1, rate_window=1, max_games_in_flight=0) as client:
        deadline = time.monotonic() + 5
        while client.get("/v1/variants").status_code != 429:  # two in one window
            assert time.monotonic() < deadline
        time.sleep(float(client.get("/v1/variants").headers["retry-after"]) + 0.05)
        assert client.get("/v1/variants").status_code == 200


def test_a_client_is_a_keyed_hash_of_its_address() -> None:
    def of(host: str, key: bytes = TEST_KEYS.master) -> str:
        return address_id(host, key)

    assert of("10.0.0.1") == of("10.0.0.1")
    assert len({of("10.0.0.1"), of("10.0.0.2"), of("::1")}) == 3
    assert "10.0.0.1" not in of("10.0.0.1")
    assert of("10.0.0.1") != of("10.0.0.1", bytes(32))  # the master key salts it


def test_an_ipv6_client_is_its_slash_64() -> None:
    def of(host: str) -> str:
        return address_id(host, TEST_KEYS.master)

    assert of("2001:db8:1:2::1") == of("2001:db8:1:2:ffff:ffff:ffff:ffff") == of("2001:DB8:1:2::9")
    assert of("2001:db8:1:2::1") != of("2001:db8:1:3::1")  # the next /64 is another client
    assert of("::ffff:203.0.113.7") == of("203.0.113.7")
    assert of("203.0.113.7") != of("203.0.113.8")


def test_one_ipv6_network_shares_one_limit_and_an_untrusted_proxy_is_ignored() -> None:
    # each server a deployment of its own: on REDIS_URL, counts of no other server or run
    env = {
        **own_deployment(),
        "CARDPROOF_RATE_LIMIT": "3",
        "CARDPROOF_RATE_WINDOW": "3600",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",  # the test is the proxy
    }
    with served(env=env) as base_url, httpx.Client(base_url=base_url) as client:
        hosts = [f"2001:db8:7:7:{n:x}::1" for n in range(1, 5)]  # four addresses, one /64
        statuses = [
            client.get("/v1/variants", headers={"x-forwarded-for": host}).status_code
            for host in hosts
        ]
        assert statuses == [200, 200, 200, 429]
        other = client.get("/v1/variants", headers={"x-forwarded-for": "2001:db8:7:8::1"})
        assert other.status_code == 200
    for untrusted in (
        {**env, **own_deployment(), "FORWARDED_ALLOW_IPS": "192.0.2.1"},
        {**own_deployment(), **{k: v for k, v in env.items() if k != "FORWARDED_ALLOW_IPS"}},
    ):
        # a proxy that is not the test, and the default: no proxy is trusted, not even 127.0.0.1
        with served(env=untrusted) as base_url, httpx.Client(base_url=base_url) as client:
            statuses = [
                client.get(
                    "/v1/variants", headers={"x-forwarded-for": f"203.0.113.{n}"}
                ).status_code
                for n in range(1, 5)
            ]
            assert statuses == [200, 200, 200, 429]  # every header ignored: one client


def test_the_pause_after_a_failing_store_doubles_up_to_30_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])  # the clock the limiter reads
    store = CountingBrokenCounter()
    limiter = limits.RateLimiter(store, Settings(rate_limit=5, rate_window=60), TEST_KEYS.master)
    scope: Any = {"type": "http", "path": "/v1/variants", "client": ("192.0.2.1", 1)}
    pauses = []
    for _ in range(8):
        assert asyncio.run(limiter._count(scope)) is None  # uncounted, let through
        calls = store.calls
        clock[0] += 0.5
        assert asyncio.run(limiter._count(scope)) is None
        assert store.calls == calls  # inside the pause: the store is left alone
        pause = limiter._store_down_until - (clock[0] - 0.5)
        pauses.append(round(pause, 3))
        clock[0] += pause  # the pause is over: the next count tries the store again
    assert pauses == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    store.broken = False
    assert asyncio.run(limiter._count(scope)) is not None  # counted again
    assert limiter._pause == limits.FIRST_PAUSE  # and the next failure pauses 1 s again


class CountingBrokenCounter(MemoryStore):
    """A store whose counter fails while ``broken``, counting the calls it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.broken = True

    async def count_request(self, client: str, window: int, weight: int = 1) -> Hits:
        self.calls += 1
        if self.broken:
            raise RuntimeError("counter broken")
        return await super().count_request(client, window, weight)


def test_addresses_behind_a_trusted_proxy_are_separate_clients() -> None:
    """uvicorn takes the client from X-Forwarded-For of a trusted proxy (127.0.0.1)."""
    env = {
        **own_deployment(),  # on REDIS_URL, counts of no other server or run
        "CARDPROOF_RATE_LIMIT": "2",
        "CARDPROOF_RATE_WINDOW": "3600",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",  # the test is the proxy
    }
    with served(env=env) as base_url, httpx.Client(base_url=base_url) as client:

        def statuses(address: str) -> list[int]:
            headers = {"x-forwarded-for": address}
            return [client.get("/v1/variants", headers=headers).status_code for _ in range(3)]

        assert statuses("203.0.113.7") == [200, 200, 429]
        assert statuses("203.0.113.8") == [200, 200, 429]


def test_replicas_on_one_redis_share_each_clients_count(monkeypatch: pytest.MonkeyPatch) -> None:
    # the count is what is tested, not its time bound (0.25 s: a busy machine went past it
    # once, and the request was let through uncounted, as it should be)
    monkeypatch.setattr(limits, "COUNT_TIMEOUT", 10.0)
    with private_redis() as redis:  # a fresh Redis: no earlier count in the window
        settings: dict[str, Any] = {"rate_limit": 4, "rate_window": 3600}
        with (
            limited_app(store=RedisStore.from_url(redis.url), **settings) as first,
            limited_app(store=RedisStore.from_url(redis.url), **settings) as second,
        ):
            # both test clients call from "testclient": one client on two replicas
            answers = [
                replica.get("/v1/variants") for replica in (first, second, first, second, first)
            ]
            assert [a.status_code for a in answers] == [200, 200, 200, 200, 429]
            assert [a.headers["ratelimit-remaining"] for a in answers] == ["3", "2", "1", "0", "0"]


def test_deployments_on_one_redis_count_their_clients_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client's id is keyed by the master key, which is each deployment's own: two
    deployments on one Redis (one client calling both) keep two counts."""
    monkeypatch.setattr(limits, "COUNT_TIMEOUT", 10.0)  # the count is tested, not its time
    other = Keys(master=bytes(range(1, 33)), signing=TEST_KEYS.signing)
    with private_redis() as redis:
        settings: dict[str, Any] = {"rate_limit": 2, "rate_window": 3600}
        with (
            limited_app(store=RedisStore.from_url(redis.url), **settings) as first,
            limited_app(other, store=RedisStore.from_url(redis.url), **settings) as second,
        ):
            assert [first.get("/v1/variants").status_code for _ in range(3)] == [200, 200, 429]
            answers = [second.get("/v1/variants") for _ in range(3)]
            assert [a.status_code for a in answers] == [200, 200, 429]  # its own two
            assert [a.headers["ratelimit-remaining"] for a in answers] == ["1", "0", "0"]
            with Redis.from_url(redis.url) as admin:
                assert len(list(admin.scan_iter("cardproof:rate:*"))) == 2


def test_the_limit_lets_requests_through_while_the_store_is_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store is stopped, so each count is refused at once: with the count's quarter
    second made ten, a busy machine's slow count is not mistaken for the outage."""
    monkeypatch.setattr(limits, "COUNT_TIMEOUT", 10.0)
    with private_redis() as redis:
        store = RedisStore.from_url(redis.url, timeout=10.0)
        with limited_app(store=store, rate_limit=100, rate_window=3600) as client:
            before = int(client.get("/v1/variants").headers["ratelimit-remaining"])
            assert client.get("/v1/variants").headers["ratelimit-remaining"] == str(before - 1)
            redis.stop()
            started = time.monotonic()
            for _ in range(5):  # pure endpoints answer, uncounted, and fast
                answer = client.get("/v1/variants")
                assert answer.status_code == 200
                assert "ratelimit-limit" not in answer.headers
            assert time.monotonic() - started < 3
            assert client.post("/v1/deals", json={"variant": "poker-squares"}).status_code == 503


def test_a_frozen_store_does_not_hold_up_the_pure_endpoints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with private_redis() as redis:
        # a store that would hold a request 20 s: a count that waited for it is told from
        # the limiter's quarter second by a margin no busy machine closes
        store = RedisStore.from_url(redis.url, timeout=20.0)
        with limited_app(store=store, rate_limit=100, rate_window=3600) as client:
            # counting works (given ten seconds a count, so a busy machine's slow count is
            # not taken for the outage), then the quarter second is what is tested
            monkeypatch.setattr(limits, "COUNT_TIMEOUT", 10.0)
            counted = int(client.get("/v1/variants").headers["ratelimit-remaining"])
            after = client.get("/v1/variants").headers.get("ratelimit-remaining")
            assert after == str(counted - 1), (counted, after)
            monkeypatch.undo()
            redis.pause()  # connections stay open, nothing answers
            try:
                waits = []
                for _ in range(6):
                    started = time.monotonic()
                    assert client.get("/v1/variants").status_code == 200
                    waits.append(time.monotonic() - started)
                    time.sleep(0.3)
                # a quarter-second count at most (the store's 20 s never waited for)
                assert max(waits) < 5.0, waits
                assert sum(waits) < 10.0, waits
            finally:
                redis.resume()


class BrokenCounter(MemoryStore):
    """A store whose counting fails as no store should: a bug, not an outage."""

    async def count_request(self, client: str, window: int, weight: int = 1) -> Hits:
        raise RuntimeError("counter broken")


def test_any_failure_to_count_lets_the_request_through() -> None:
    with limited_app(store=BrokenCounter(), rate_limit=1, rate_window=3600) as client:
        for _ in range(3):
            answer = client.get("/v1/variants")
            assert answer.status_code == 200  # answered, not a 500 and not limited
            assert "ratelimit-limit" not in answer.headers


def test_a_redis_refusing_writes_is_unavailable_not_a_bug() -> None:
    with private_redis() as redis:
        store = RedisStore.from_url(redis.url, timeout=1.0)
        with limited_app(store=store, rate_limit=100, rate_window=3600) as client:
            deal = client.post("/v1/deals", json={"variant": "poker-squares"})
            assert deal.status_code == 201
            with Redis.from_url(redis.url) as admin:  # a replica now: it refuses writes
                admin.replicaof("127.0.0.1", free_port())
            refused = client.post("/v1/deals", json={"variant": "poker-squares"})
            assert refused.status_code == 503, refused.text
            assert refused.headers["retry-after"]
            assert client.get(f"/v1/deals/{deal.json()['deal_id']}").status_code == 200  # reads
            assert client.get("/v1/variants").status_code == 200  # the limiter lets it by
            with Redis.from_url(redis.url) as admin:
                admin.replicaof("NO", "ONE")


def play_out(client: TestClient[Litestar], deal_id: str) -> None:
    """Play a poker-squares deal to its end, row by row."""
    for index, cell in enumerate(CELLS):
        answer = client.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
        assert answer.status_code == 200, answer.text
    assert answer.json()["finished"] is True


def test_a_client_holds_at_most_its_cap_of_games_in_flight() -> None:
    with limited_app(rate_limit=0, max_games_in_flight=2) as client:
        deal = {"variant": "poker-squares"}
        first, second = (client.post("/v1/deals", json=deal) for _ in range(2))
        assert (first.status_code, second.status_code) == (201, 201)
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        committed = {**deal, "commitment_id": commitment, "client_seed": "a seed of mine"}
        refused = client.post(
            "/v1/deals", json=committed, headers={"idempotency-key": "key-k-0123456789"}
        )
        assert refused.status_code == 429
        problem = refused.json()
        assert (problem["type"], problem["code"]) == ("/problems/too-many-games", "too-many-games")
        assert "2 games in flight" in problem["detail"]
        assert 0 < int(refused.headers["retry-after"]) <= 24 * 3600
        assert metric(client, 'cardproof_rate_limited_total{reason="games-in-flight"}') >= 1

        play_out(client, first.json()["deal_id"])  # a finished game no longer counts
        again = client.post(
            "/v1/deals", json=committed, headers={"idempotency-key": "key-k-0123456789"}
        )
        assert again.status_code == 201  # the refused request claimed nothing
        # a retry of an accepted request gets its deal back, even at the cap
        retried = client.post(
            "/v1/deals", json=committed, headers={"idempotency-key": "key-k-0123456789"}
        )
        assert retried.status_code == 201
        assert retried.json()["deal_id"] == again.json()["deal_id"]
        assert client.post("/v1/deals", json=deal).status_code == 429
        # pure endpoints do not count against the cap
        assert client.get("/v1/variants").status_code == 200


def test_a_client_opens_at_most_its_daily_quota_of_deals() -> None:
    with limited_app(rate_limit=0, max_games_in_flight=0, daily_deal_quota=3) as client:
        for _ in range(3):
            assert client.post("/v1/deals", json={"variant": "poker-squares"}).status_code == 201
        refused = client.post("/v1/deals", json={"variant": "poker-squares"})
        assert refused.status_code == 429
        assert refused.json()["code"] == "daily-quota"
        day_left = 86_400 - int(time.time()) % 86_400
        assert abs(int(refused.headers["retry-after"]) - day_left) <= 2
        assert metric(client, 'cardproof_rate_limited_total{reason="daily-quota"}') >= 1
        assert client.post("/v1/score", json=examples.SCORE).status_code == 200  # only deals count


def test_an_organizer_makes_at_most_its_daily_quota_of_tournaments_and_invite_codes() -> None:
    """One key a day: its tournaments and its invite codes, at creation and after; past
    either a 429 (`organizer-quota`) that stores nothing; another organizer's day is its
    own."""
    app = create_app(
        Settings(
            warm_up=False,
            rate_limit=0,
            organizer_tournaments_per_day=3,
            organizer_invites_per_day=10,
        ),
        keys=TEST_KEYS,
    )
    now = datetime.now(UTC)
    window = {"opens_at": now.isoformat(), "closes_at": (now + timedelta(days=1)).isoformat()}
    public = {"name": "Daily", "variant": "poker-squares", "rounds": 1, **window}
    invited = {**public, "entry": "invite", "invites": 6}
    with TestClient(app) as client:
        owner, other = organizer_key(app, "Quota Club"), organizer_key(app, "Other Club")

        def create(body: dict[str, Any], key: str = owner) -> httpx.Response:
            return client.post("/v1/tournaments", json=body, headers={"Authorization": key})

        first = create(invited)  # 1 tournament, 6 codes
        assert first.status_code == 201, first.text
        tid = first.json()["tournament"]["tournament_id"]
        refused = create({**invited, "invites": 5})  # 6 + 5 codes > 10: nothing stored
        assert refused.status_code == 429, refused.text
        problem = refused.json()
        assert problem["code"] == "organizer-quota"
        assert "6 of its 10 invite codes a day" in problem["detail"]
        day_left = 86_400 - int(time.time()) % 86_400
        assert abs(int(refused.headers["retry-after"]) - day_left) <= 2
        more = f"/v1/tournaments/{tid}/invites"
        too_many = client.post(more, json={"count": 5}, headers={"Authorization": owner})
        assert (too_many.status_code, too_many.json()["code"]) == (429, "organizer-quota")
        given = client.post(more, json={"count": 4}, headers={"Authorization": owner})
        assert given.status_code == 201, given.text  # 10 of 10
        assert create(public).status_code == 201  # the second tournament (no codes)
        assert create(public).status_code == 201  # the third
        over = create(public)
        assert (over.status_code, over.json()["code"]) == (429, "organizer-quota")
        assert "made 3 of its 3 tournaments a day" in over.json()["detail"]
        listed = client.get("/v1/tournaments", headers={"Authorization": owner}).json()
        assert len(listed["tournaments"]) == 3  # the refused ones were never stored
        assert create(invited, other).status_code == 201  # another organizer's own day
        assert metric(client, 'cardproof_rate_limited_total{reason="organizer-quota"}') >= 3


def test_the_sdk_reports_a_long_wait_as_rate_limited() -> None:
    app = create_app(
        Settings(warm_up=False, rate_limit=1, rate_window=86_400, max_games_in_flight=0),
        keys=TEST_KEYS,
    )
    with TestClient(app) as http:
        client = Client(base_url=str(http.base_url), http_client=http, max_retries=2)
        left = 86_400 - time.time() % 86_400
        if left < 70:  # windows start at midnight: both requests in one, a long wait left
            time.sleep(left + 0.1)
        client.variants()
        with pytest.raises(RateLimitedError) as refused:
            client.variants()
        assert refused.value.status == 429
        assert refused.value.code == "rate-limited"
        assert refused.value.retry_after is not None
        assert refused.value.retry_after > 60  # more than the client waits: final at once


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("CARDPROOF_RATE_LIMIT", "-1", "0 or more"),
        ("CARDPROOF_RATE_LIMIT", "many", "a number"),
        ("CARDPROOF_RATE_WINDOW", "0", "more than 0"),
        ("CARDPROOF_MAX_GAMES_IN_FLIGHT", "-5", "0 or more"),
    ],
)
def test_limit_settings_are_checked(name: str, text: str, message: str) -> None:
    with pytest.raises(SettingsError, match=f"{name} must be {message}"):
        Settings.from_env({name: text})


def test_limit_settings_default_on_and_turn_off_with_0() -> None:
    defaults = Settings.from_env({})
    assert (defaults.rate_limit, defaults.rate_window, defaults.max_games_in_flight) == (
        1200,
        60,
        100,
    )
    assert defaults == Settings(organizers_file=defaults.organizers_file)
    off = Settings.from_env({"CARDPROOF_RATE_LIMIT": "0", "CARDPROOF_MAX_GAMES_IN_FLIGHT": "0"})
    assert (off.rate_limit, off.max_games_in_flight) == (0, 0)


def test_a_game_moved_on_another_replica_stays_in_flight_as_long_as_it_lives() -> None:
    """A game opened on one replica and played on another (from the store, then from that
    replica's cache) keeps its place among its client's games in flight as its moves
    keep it alive: its entry there expires later after each move, on either path."""
    with private_redis() as redis:
        settings: dict[str, Any] = {"rate_limit": 0, "max_games_in_flight": 2}
        with (
            limited_app(store=RedisStore.from_url(redis.url), **settings) as first,
            limited_app(store=RedisStore.from_url(redis.url), **settings) as second,
            Redis.from_url(redis.url) as admin,
        ):
            deal_id = first.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
            (games,) = list(admin.scan_iter("cardproof:{c.*}:in-flight"))

            def expires() -> float:
                found = admin.zscore(games, deal_id)
                assert found is not None
                return float(found)

            opened = expires()
            for index in range(3):  # the first move from the store, then from the cache
                time.sleep(1.1)  # Redis TIME counts whole seconds here
                moved = second.post(
                    f"/v1/deals/{deal_id}/moves", json={"index": index, "move": CELLS[index]}
                )
                assert moved.status_code == 200, moved.text
                assert expires() >= opened + index + 1
