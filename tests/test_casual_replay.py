"""One key, one deal: a casual ``POST /v1/deals`` resent with its ``Idempotency-Key``.

A casual deal (no commitment) asked for with an ``Idempotency-Key`` claims a slot derived
from its client and the key, in the store step that writes the deal, so a resend within
the replay window gets the first deal back (its id, its seeds, its state now) on the
memory store and on Redis, counted once against the client's games in flight and its
deals of the day. The same key with another body is ``422 idempotency-key-reused``;
another key, another client or no key is another deal. Two replicas on one Redis:
``tests/test_replicas.py``; a resend after a write its replica did not confirm:
``tests/test_sentinel.py``.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.models import DealRequest
from cardproof_service import Settings, create_app
from cardproof_service.deals.service import Deals
from cardproof_service.plumbing.keys import Keys
from cardproof_service.store.redis import RedisStore
from conftest import TEST_KEYS, UNLIMITED
from redis_server import redis_url_or_skip

KEY = {"Idempotency-Key": "casual-retry-0123456789abcdef"}
OTHER_KEY = {"Idempotency-Key": "casual-other-0123456789abcdef"}
BODY = {"variant": "poker-squares"}  # the server makes the client seed: still one deal


@contextmanager
def app_on(backend: str, **settings: Any) -> Iterator[TestClient[Litestar]]:
    """A test client on a fresh app on the memory store or on Redis (``REDIS_URL`` or a
    private server), with ``settings`` over ``UNLIMITED``. Its master key is its own, so
    that on a shared Redis its client's counts and claims are nobody else's."""
    keys = Keys(master=secrets.token_bytes(32), signing=TEST_KEYS.signing)
    with redis_url_or_skip() if backend == "redis" else _no_url() as url:
        store = RedisStore.from_url(url) if url else None
        app = create_app(
            Settings(warm_up=False, **{**UNLIMITED, **settings}), keys=keys, store=store
        )
        with TestClient(app) as client:
            yield client


@contextmanager
def _no_url() -> Iterator[str]:
    yield ""


def created(response: httpx.Response) -> dict[str, Any]:
    """The body of a ``201``."""
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_casual_deal_resent_with_its_key_is_the_first_deal(backend: str) -> None:
    with app_on(backend) as http:
        first = created(http.post("/v1/deals", json=BODY, headers=KEY))
        again = created(http.post("/v1/deals", json=BODY, headers=KEY))
        assert again == first  # the same deal id, seeds, options and view
        assert first["committed_before_client_seed"] is False  # still a casual deal
        deal_id = first["deal_id"]
        moved = http.post(f"/v1/deals/{deal_id}/moves", json={"index": 0, "move": "a1"})
        assert moved.status_code == 200, moved.text
        later = created(http.post("/v1/deals", json=BODY, headers=KEY))
        assert later == http.get(f"/v1/deals/{deal_id}").json()  # the deal as it is now
        assert (later["deal_id"], later["next_index"], later["moves"]) == (deal_id, 1, "a1")

        fresh = created(http.post("/v1/deals", json=BODY, headers=OTHER_KEY))
        plain = [created(http.post("/v1/deals", json=BODY))["deal_id"] for _ in range(2)]
        ids = {deal_id, fresh["deal_id"], *plain}
        assert len(ids) == 4  # another key, or none, is another deal
        assert fresh["server_seed_hash"] != first["server_seed_hash"]


@pytest.mark.parametrize("backend", ["memory", "redis"])
@pytest.mark.parametrize(
    "changed",
    [{"client_seed": "mine"}, {"variant": "poker-patience"}, {"options": {"scoring": "british"}}],
    ids=["client-seed", "variant", "options"],
)
def test_the_same_key_with_another_body_is_refused(backend: str, changed: dict[str, Any]) -> None:
    with app_on(backend) as http:
        first = created(http.post("/v1/deals", json=BODY, headers=KEY))
        refused = http.post("/v1/deals", json={**BODY, **changed}, headers=KEY)
        assert refused.status_code == 422, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == "idempotency-key-reused"
        # the refusal spoiled nothing: the first request resent still gets its deal
        assert created(http.post("/v1/deals", json=BODY, headers=KEY)) == first


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_resent_casual_deal_is_one_game_in_flight(backend: str) -> None:
    with app_on(backend, max_games_in_flight=2) as http:
        first = created(http.post("/v1/deals", json=BODY, headers=KEY))
        for _ in range(3):
            assert created(http.post("/v1/deals", json=BODY, headers=KEY)) == first
        created(http.post("/v1/deals", json=BODY, headers=OTHER_KEY))  # the second game
        refused = http.post("/v1/deals", json=BODY, headers={"Idempotency-Key": "k" * 16})
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "too-many-games"
        # at the cap, a resend still gets its deal: it costs no place
        assert created(http.post("/v1/deals", json=BODY, headers=KEY)) == first


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_a_resent_casual_deal_is_one_deal_of_the_day(backend: str) -> None:
    with app_on(backend, daily_deal_quota=2) as http:
        first = created(http.post("/v1/deals", json=BODY, headers=KEY))
        for _ in range(3):
            assert created(http.post("/v1/deals", json=BODY, headers=KEY)) == first
        created(http.post("/v1/deals", json=BODY, headers=OTHER_KEY))  # the second of the day
        refused = http.post("/v1/deals", json=BODY, headers={"Idempotency-Key": "k" * 16})
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "daily-quota"
        assert created(http.post("/v1/deals", json=BODY, headers=KEY)) == first


def test_one_key_from_two_clients_is_two_deals() -> None:
    """The claim is the client's: another client sending the same key (one that saw it in
    transit, say) gets a deal of its own, not the first client's deal id."""
    with app_on("memory") as http:
        deals: Deals = http.app.state.deals
        key = KEY["Idempotency-Key"]

        def deal(client: str) -> str:
            request = DealRequest(variant="poker-squares")
            state = http.blocking_portal.call(deals.create, request, key, client)
            return state.deal_id

        alice = deal("client-alice")
        assert deal("client-alice") == alice
        assert deal("client-bob") != alice
