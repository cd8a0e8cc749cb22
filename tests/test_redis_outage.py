"""A Redis outage under a served replica (docs/architecture.md).

While Redis is down, pure endpoints (score, solve, verify of a revealed seed pair or a
card order) keep answering, stateful ones answer 503 problem+json with ``Retry-After``
and ``/readyz`` says not-ready; once Redis is back, the replica is ready again and no
acknowledged move is lost. The private Redis keeps an append-only file fsynced on
every write, so its data survives a restart (even after a crash).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from cardproof.games import PokerSquares, replay_log
from cardproof.receipts import verify_receipt
from cardproof_service.front import examples
from conftest import served
from redis_server import RedisServer, private_redis

DEADLINE = 10.0
"""Seconds the replica may take to be ready again once Redis is back."""
SERVER_SEED = "5e" * 32
CLIENT_SEED = "outage"


def ok(response: httpx.Response, status: int = 200) -> Any:
    """The JSON body of a response that has ``status``."""
    assert response.status_code == status, response.text
    return response.json()


def unavailable(response: httpx.Response) -> None:
    """A 503 problem+json that says when to try again."""
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert int(response.headers["retry-after"]) >= 1
    problem = response.json()
    assert (problem["status"], problem["type"]) == (503, "/problems/unavailable")


def play(client: httpx.Client, deal_id: str, log: list[str], upto: int) -> dict[str, Any]:
    """Play moves ``len(log)``..``upto - 1`` on random empty cells; return the last answer."""
    state = ok(client.get(f"/v1/deals/{deal_id}"))
    assert state["next_index"] == len(log)
    layout: list[list[str | None]] = state["view"]["layout"]
    result: dict[str, Any] = {}
    chooser = random.Random(len(log))
    while len(log) < upto:
        empty = [(r, c) for r, row in enumerate(layout) for c, card in enumerate(row) if not card]
        row, col = chooser.choice(empty)
        body = {"index": len(log), "move": {"row": row, "col": col}}
        result = ok(client.post(f"/v1/deals/{deal_id}/moves", json=body))
        assert result["index"] == len(log)
        log.append("abcde"[col] + str(row + 1))
        layout = result["view"]["layout"]
    return result


def seed_pair_verify_body() -> tuple[dict[str, Any], int]:
    """A whole poker-squares log on a revealed seed pair, and the score it must get."""
    options = PokerSquares.parse_options(None)
    cards = PokerSquares.deal_cards(bytes.fromhex(SERVER_SEED), CLIENT_SEED, options)
    cells = [f"{col}{row}" for col in "abcde" for row in "12345"]
    random.Random(7).shuffle(cells)
    expected = replay_log(PokerSquares.id, cards, options, " ".join(cells)).score().total
    body = {
        "variant": PokerSquares.id,
        "deal": {"server_seed": SERVER_SEED, "client_seed": CLIENT_SEED},
        "moves": " ".join(cells),
    }
    return body, expected


def wait_until_ready(client: httpx.Client) -> None:
    """Poll ``/readyz`` until it answers 200, for at most ``DEADLINE`` seconds."""
    deadline = time.monotonic() + DEADLINE
    while (response := client.get("/readyz")).status_code != 200:
        assert time.monotonic() < deadline, f"not ready {DEADLINE} s after Redis came back"
        time.sleep(0.1)
    assert response.json() == {"status": "ready", "checks": {"store": "redis: ok"}}


@pytest.mark.parametrize("outage", ["stop", "kill"])
def test_an_outage_answers_what_it_can_and_loses_no_acknowledged_move(outage: str) -> None:
    with (
        private_redis("--appendonly", "yes", "--appendfsync", "always") as redis,
        served(
            "--log-level",
            "critical",
            env={"REDIS_URL": redis.url, "CARDPROOF_STORE_TIMEOUT": "0.5"},
        ) as base_url,
        httpx.Client(base_url=base_url, timeout=10) as client,
    ):
        wait_until_ready(client)
        commitment = ok(client.post("/v1/commitments", json={}), 201)
        deal_id = ok(
            client.post(
                "/v1/deals",
                json={
                    "variant": "poker-squares",
                    "commitment_id": commitment["commitment_id"],
                    "client_seed": "a seed of mine",
                },
            ),
            201,
        )["deal_id"]
        log: list[str] = []
        play(client, deal_id, log, upto=10)
        jwks = ok(client.get("/.well-known/jwks.json"))
        pure = {
            "/v1/score": examples.SCORE,
            "/v1/solve": examples.SOLVE,
            "/v1/verify": examples.VERIFY,  # an explicit card order: unsigned practice
        }
        before = {path: ok(client.post(path, json=body)) for path, body in pure.items()}

        stopping: dict[str, Callable[[RedisServer], None]] = {
            "stop": RedisServer.stop,
            "kill": RedisServer.kill,
        }
        stopping[outage](redis)

        answered_in = time.monotonic()
        for path, body in pure.items():
            assert ok(client.post(path, json=body)) == before[path], path
        seed_body, expected_total = seed_pair_verify_body()
        verified = ok(client.post("/v1/verify", json=seed_body))
        assert verified["score"]["total"] == expected_total
        jwks_now = ok(client.get("/.well-known/jwks.json"))
        checked = verify_receipt(verified["receipt"], jwks_now, allow=["practice"])
        assert checked.replayed
        assert (checked.payload.blind, checked.payload.committed_before_client_seed) == (
            False,
            False,
        )
        assert ok(client.get("/healthz")) == {"status": "ok"}

        # Commitment ids carry their own expiry and MAC: making one writes nothing, so it
        # still answers 201 while Redis is down (commitments.py, Commitments.commit).
        during = ok(client.post("/v1/commitments", json={}), 201)
        unavailable(client.post(f"/v1/deals/{deal_id}/moves", json={"index": 10, "move": "c3"}))
        unavailable(client.get(f"/v1/deals/{deal_id}"))
        unavailable(client.get(f"/v1/deals/{deal_id}/receipt"))
        unavailable(client.post("/v1/deals", json={"variant": "poker-squares"}))
        unavailable(
            client.post(
                "/v1/deals",
                json={
                    "variant": "poker-squares",
                    "commitment_id": during["commitment_id"],
                    "client_seed": "a seed of mine",
                },
            )
        )
        unavailable(
            client.post(
                "/v1/verify",
                json={"variant": "poker-squares", "deal": {"deal_id": deal_id}, "moves": "a1"},
            )
        )
        not_ready = client.get("/readyz")
        assert not_ready.status_code == 503, not_ready.text
        assert not_ready.json()["status"] == "not-ready"
        assert not_ready.json()["checks"]["store"].startswith("redis: unavailable")
        assert time.monotonic() - answered_in < 10  # no request waited long on Redis

        redis.start()
        wait_until_ready(client)
        state = ok(client.get(f"/v1/deals/{deal_id}"))
        assert (state["next_index"], state["moves"], state["finished"]) == (
            10,
            " ".join(log),
            False,
        )
        # the refused deal request recorded nothing: its commitment is still unused
        ok(
            client.post(
                "/v1/deals",
                json={
                    "variant": "poker-squares",
                    "commitment_id": during["commitment_id"],
                    "client_seed": "a seed of mine",
                },
            ),
            201,
        )

        last = play(client, deal_id, log, upto=25)
        assert last["finished"] is True
        receipt = ok(client.get(f"/v1/deals/{deal_id}/receipt"))
        checked = verify_receipt(receipt["receipt"], jwks)
        assert checked.replayed
        assert checked.payload.moves == " ".join(log)
        assert checked.payload.server_seed_hash == commitment["server_seed_hash"]
        assert checked.payload.score.total == last["score"]["total"]
