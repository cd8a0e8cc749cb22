"""GET /metrics: Prometheus text with requests, latencies, games, verify failures and store
calls, counted by route template and summed over the workers of `cardproof serve`."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import httpx
from litestar import Litestar
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from cardproof_service import Settings, create_app
from cardproof_service.store.redis import RedisStore
from conftest import TEST_KEYS, UNLIMITED, answering_pids, served
from redis_server import private_redis, redis_url_or_skip

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: httpx.Client | TestClient[Litestar]) -> Samples:
    """Every sample of /metrics by (name, labels), parsed as Prometheus parses it."""
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value (0 when it has not been counted yet)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    """How much a sample grew between two scrapes."""
    return value(after, name, **labels) - value(before, name, **labels)


def play(client: httpx.Client | TestClient[Litestar], deal_id: str, cells: Iterable[str]) -> None:
    """Play ``cells`` in order from index 0."""
    for index, cell in enumerate(cells):
        answer = client.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
        assert answer.status_code == 200, answer.text


def test_requests_are_counted_and_timed_by_route_template(client: TestClient[Litestar]) -> None:
    before = scrape(client)
    deal_id = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
    assert client.get(f"/v1/deals/{deal_id}").status_code == 200
    assert client.get("/v1/deals/d_missing").status_code == 404
    after = scrape(client)
    route = "/v1/deals/{deal_id}"
    assert delta(before, after, "cardproof_http_requests_total", route=route, method="GET",
                 status="200") == 1  # fmt: skip
    assert delta(before, after, "cardproof_http_requests_total", route=route, method="GET",
                 status="404") == 1  # fmt: skip
    timed = {"route": route, "method": "GET"}
    assert delta(before, after, "cardproof_http_request_duration_seconds_count", **timed) == 2
    assert delta(before, after, "cardproof_http_request_duration_seconds_bucket", le="+Inf",
                 **timed) == 2  # fmt: skip
    assert not any(deal_id in str(labels) for _, labels in after)  # ids never become labels


def test_requests_no_route_takes_are_counted_too(client: TestClient[Litestar]) -> None:
    before = scrape(client)
    assert client.get("/no/such/path").status_code == 404
    assert client.delete("/v1/variants").status_code == 405
    after = scrape(client)
    assert delta(before, after, "cardproof_http_requests_total", route="unmatched", method="GET",
                 status="404") == 1  # fmt: skip
    assert delta(before, after, "cardproof_http_requests_total", route="unmatched",
                 method="DELETE", status="405") == 1  # fmt: skip


SNAKE = " ".join(f"{c}{r}" for r in "12345" for c in ("abcde" if r in "135" else "edcba"))
"""A path through every cell of the grid: a whole serpent-patience game."""


def test_games_started_and_finished_are_counted_by_variant(client: TestClient[Litestar]) -> None:
    before = scrape(client)
    deal_id = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
    play(client, deal_id, CELLS[:24])
    middle = scrape(client)
    assert delta(before, middle, "cardproof_games_started_total", variant="poker-squares") == 1
    assert delta(before, middle, "cardproof_games_finished_total", variant="poker-squares") == 0
    play(client, deal_id, CELLS)  # the first 24 again: the same answers, counted once
    after = scrape(client)
    assert delta(middle, after, "cardproof_games_finished_total", variant="poker-squares") == 1
    # a whole log on an unplayed open deal finishes a game too
    other = client.post("/v1/deals", json={"variant": "serpent-patience"}).json()["deal_id"]
    whole = {"variant": "serpent-patience", "deal": {"deal_id": other}, "moves": SNAKE}
    assert client.post("/v1/verify", json=whole).status_code == 200
    last = scrape(client)
    assert delta(after, last, "cardproof_games_finished_total", variant="serpent-patience") == 1


def test_verify_failures_are_counted_by_code(client: TestClient[Litestar]) -> None:
    before = scrape(client)
    cards = {"server_seed": "00" * 32, "client_seed": "x"}
    refusals = {
        "cell-taken": {"variant": "poker-squares", "deal": cards, "moves": "a1 a1"},
        "incomplete": {"variant": "poker-squares", "deal": cards, "moves": "a1"},
        "unreadable": {"variant": "poker-squares", "deal": cards, "moves": 7},
        "unknown-deal": {"variant": "poker-squares", "deal": {"deal_id": "d_no"}, "moves": "a1"},
    }
    for code, body in refusals.items():
        assert client.post("/v1/verify", json=body).status_code in {400, 404, 422}, code
    after = scrape(client)
    for code in refusals:
        assert delta(before, after, "cardproof_verify_failures_total", code=code) == 1, code


def test_store_calls_are_timed_and_failures_counted() -> None:
    with private_redis() as redis:
        store = RedisStore.from_url(redis.url, timeout=0.5)
        app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS, store=store)
        with TestClient(app) as client:
            before = scrape(client)
            deal_id = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
            redis.stop()
            assert client.get(f"/v1/deals/{deal_id}").status_code == 503
            after = scrape(client)
    on_redis = {"store": "redis"}
    assert delta(before, after, "cardproof_store_call_duration_seconds_count",
                 operation="create_deal", **on_redis) == 1  # fmt: skip
    assert delta(before, after, "cardproof_store_errors_total", operation="get_deal",
                 **on_redis) == 1  # fmt: skip
    assert delta(before, after, "cardproof_store_errors_total", operation="create_deal",
                 **on_redis) == 0  # fmt: skip


def test_two_workers_report_their_sum(tmp_path: Path) -> None:
    """Whichever worker answers the scrape, it counts every worker's requests."""
    log = tmp_path / "serve.log"
    with (
        redis_url_or_skip() as url,
        served(
            "--workers", "2", "--log-level", "info", env={"REDIS_URL": url}, log=log
        ) as base_url,
    ):
        requests = 60
        route = {"route": "/v1/variants", "method": "GET", "status": "200"}
        for _ in range(requests):  # a new connection each: the workers share them out
            assert httpx.get(f"{base_url}/v1/variants").status_code == 200
        for _ in range(10):  # each scrape, whichever worker answers it, sees all of them
            with httpx.Client(base_url=base_url) as probe:
                samples = scrape(probe)
            counted = value(samples, "cardproof_http_requests_total", **route)
            assert counted == requests
        time.sleep(0.3)  # request lines are written at most 0.1 s late
    assert len(answering_pids(log, "/v1/variants")) == 2  # both workers counted some
    assert len(answering_pids(log, "/metrics")) >= 1
