"""Two ``cardproof serve`` replicas on one Redis: any replica answers any request.

Both processes get the same fixed keys (``SERVER_KEYS``), so they derive the same server
seeds and sign with the same key. Redis is ``REDIS_URL`` or a private redis-server, and
then a private Redis Cluster of three masters (``CARDPROOF_REDIS_MODE=cluster``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from cardproof.games import PokerSquares
from cardproof.receipts import verify_receipt
from conftest import served
from redis_server import redis_cluster, redis_url_or_skip

Replicas = tuple[httpx.Client, httpx.Client]


@contextmanager
def redis_of(mode: str) -> Iterator[dict[str, str]]:
    """The settings of a service on one Redis (``standalone``) or on a Redis Cluster."""
    if mode == "cluster":
        with redis_cluster() as cluster:
            yield {"REDIS_URL": cluster.url, "CARDPROOF_REDIS_MODE": "cluster"}
        return
    with redis_url_or_skip() as url:
        yield {"REDIS_URL": url}


@pytest.fixture(scope="module", params=["standalone", "cluster"])
def replicas(request: pytest.FixtureRequest) -> Iterator[Replicas]:
    """Clients of replicas A and B, both on one Redis, or on one Redis Cluster."""
    with redis_of(request.param) as store:
        env = {**store, "CARDPROOF_DEAL_TTL": "600"}
        with (
            served("--log-level", "warning", env=env) as a,
            served("--log-level", "warning", env=env) as b,
            httpx.Client(base_url=a, timeout=10) as client_a,
            httpx.Client(base_url=b, timeout=10) as client_b,
        ):
            yield client_a, client_b


def ok(response: httpx.Response, status: int = 200) -> Any:
    """The JSON body of a response that has ``status``."""
    assert response.status_code == status, response.text
    return response.json()


def empty_cell(layout: list[list[str | None]]) -> dict[str, int]:
    """The first empty cell of a poker-squares view's layout, as a move object."""
    return next(
        {"row": row, "col": col}
        for row, cells in enumerate(layout)
        for col, card in enumerate(cells)
        if card is None
    )


def test_both_replicas_are_ready_on_redis(replicas: Replicas) -> None:
    for client in replicas:
        assert ok(client.get("/readyz")) == {"status": "ready", "checks": {"store": "redis: ok"}}


def test_a_game_played_across_both_replicas_verifies_offline(replicas: Replicas) -> None:
    a, b = replicas
    commitment = ok(a.post("/v1/commitments", json={}), 201)
    deal = ok(
        b.post(
            "/v1/deals",
            json={
                "variant": "poker-squares",
                "options": {"scoring": "british", "diagonals": True},
                "commitment_id": commitment["commitment_id"],
                "client_seed": "two replicas",
            },
        ),
        201,
    )
    assert deal["server_seed_hash"] == commitment["server_seed_hash"]
    assert deal["committed_before_client_seed"] is True
    deal_id, view = deal["deal_id"], deal["view"]
    shown = [view["next"]]
    log: list[str] = []
    result: dict[str, Any] = {}
    for index in range(25):
        here, there = (a, b) if index % 2 == 0 else (b, a)
        cell = empty_cell(view["layout"])
        body = {"index": index, "move": cell}
        result = ok(here.post(f"/v1/deals/{deal_id}/moves", json=body))
        assert (result["index"], result["finished"]) == (index, index == 24)
        log.append("abcde"[cell["col"]] + str(cell["row"] + 1))
        view = result["view"]
        shown.append(view["next"])
        if index % 6 == 0:  # a retry on the other replica gets the same answer
            assert ok(there.post(f"/v1/deals/{deal_id}/moves", json=body)) == result
            other_cell = {"row": 4 - cell["row"], "col": 4 - cell["col"]}
            if other_cell == cell:  # the centre
                other_cell = {"row": 0, "col": 0}
            other = {"index": index, "move": other_cell}
            conflict = there.post(f"/v1/deals/{deal_id}/moves", json=other)
            assert conflict.status_code == 409, conflict.text
            assert conflict.json()["code"] == "move-conflict"
            ahead = there.post(
                f"/v1/deals/{deal_id}/moves", json={"index": index + 2, "move": other["move"]}
            )
            assert ahead.status_code == 409, ahead.text
            assert ahead.json()["code"] in {"wrong-index", "game-over"}

    state = ok(b.get(f"/v1/deals/{deal_id}"))
    assert (state["next_index"], state["finished"], state["moves"]) == (25, True, " ".join(log))
    assert state["score"] == result["score"]

    receipt = ok(a.get(f"/v1/deals/{deal_id}/receipt"))
    assert ok(b.get(f"/v1/deals/{deal_id}/receipt")) == receipt  # the same token everywhere
    jwks = ok(b.get("/.well-known/jwks.json"))
    verified = verify_receipt(receipt["receipt"], jwks)
    assert verified.replayed is True
    payload = verified.payload
    assert payload.deal_id == deal_id
    assert payload.server_seed_hash == commitment["server_seed_hash"]
    assert payload.client_seed == "two replicas"
    assert payload.moves == " ".join(log)
    assert payload.score.total == result["score"]["total"]
    assert payload.options == {"scoring": "british", "diagonals": True}
    assert (payload.blind, payload.committed_before_client_seed) == (True, True)

    assert payload.server_seed is not None  # each replica showed the card the seeds deal
    options = PokerSquares.parse_options(payload.options)
    cards = PokerSquares.deal_cards(bytes.fromhex(payload.server_seed), "two replicas", options)
    assert shown == [card.text for card in cards[:25]] + [None]


def test_a_commitment_claimed_on_one_replica_is_refused_on_the_other(replicas: Replicas) -> None:
    a, b = replicas
    commitment_id = ok(b.post("/v1/commitments", json={}), 201)["commitment_id"]
    request = {
        "variant": "poker-squares",
        "commitment_id": commitment_id,
        "client_seed": "a seed of mine",
    }
    ok(a.post("/v1/deals", json=request), 201)
    for client in (b, a):
        refused = client.post("/v1/deals", json=request)
        assert refused.status_code == 409, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == "commitment-used"


def test_a_casual_deal_resent_to_the_other_replica_is_the_first_deal(replicas: Replicas) -> None:
    """A casual deal's retry (the same ``Idempotency-Key``) on the other replica finds the
    claim its first attempt wrote: the same deal, as it is now; another body is a 422."""
    a, b = replicas
    headers = {"Idempotency-Key": f"casual-{uuid.uuid4()}"}  # Redis may outlive a run
    body = {"variant": "poker-squares"}
    first = ok(a.post("/v1/deals", json=body, headers=headers), 201)
    assert ok(b.post("/v1/deals", json=body, headers=headers), 201) == first
    deal_id = first["deal_id"]
    ok(
        b.post(
            f"/v1/deals/{deal_id}/moves",
            json={"index": 0, "move": empty_cell(first["view"]["layout"])},
        )
    )
    again = ok(a.post("/v1/deals", json=body, headers=headers), 201)
    assert (again["deal_id"], again["next_index"]) == (deal_id, 1)
    assert again == ok(b.get(f"/v1/deals/{deal_id}"))
    refused = b.post("/v1/deals", json={**body, "client_seed": "x"}, headers=headers)
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "idempotency-key-reused"
    other = ok(
        b.post("/v1/deals", json=body, headers={"Idempotency-Key": f"casual-{uuid.uuid4()}"}), 201
    )
    assert other["deal_id"] != deal_id
