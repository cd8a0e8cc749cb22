"""Tournament games: kept as long as their tournament, read only by their entrant.

With a deal TTL shorter than a tournament, a game paused mid-round used to expire and
its round was lost; its view and receipt could be read by anyone holding its deal id.
Here the deal TTL is one second, on the memory store and on a real Redis.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from attack_kit import CELLS, HttpClient, bearer, enter, open_tournament, reader
from cardproof_service import Settings, create_app
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS, UNLIMITED
from redis_server import redis_url_or_skip


@contextmanager
def short_lived_app(store: str) -> Iterator[tuple[HttpClient, str]]:
    """An app whose deals expire one second after their last move; an organizer's key."""
    key, record = new_organizer(f"Lifetime Club {time.time_ns()}")
    if store == "memory":
        app: Litestar = create_app(Settings(warm_up=False, deal_ttl=1, **UNLIMITED), keys=TEST_KEYS)
        assert asyncio.run(app.state.store.add_organizer(record))
        with TestClient(app=app) as client:
            yield client, f"Bearer {key}"
        return
    with redis_url_or_skip() as url:

        async def add() -> bool:
            redis_store = RedisStore.from_url(url)
            try:
                return await redis_store.add_organizer(record)
            finally:
                await redis_store.close()

        assert asyncio.run(add())
        settings = Settings(warm_up=False, deal_ttl=1, **UNLIMITED)
        app = create_app(settings, keys=TEST_KEYS, store=RedisStore.from_url(url))
        with TestClient(app=app) as client:
            yield client, f"Bearer {key}"


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_a_paused_tournament_game_outlives_the_deal_ttl(store: str) -> None:
    with short_lived_app(store) as (client, owner):
        tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
        token = enter(client, tid, "Ada").json()["token"]
        opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
        deal_id = opened.json()["deal_id"]
        url = f"/v1/deals/{deal_id}/moves"
        for index, cell in enumerate(CELLS[:10]):
            moved = client.post(url, json={"index": index, "move": cell}, headers=bearer(token))
            assert moved.status_code == 200, moved.text
        casual = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
        time.sleep(2.2)  # twice the deal TTL: a casual deal is gone, the tournament game is not
        assert client.get(f"/v1/deals/{casual}").status_code == 404
        for index, cell in enumerate(CELLS[10:], start=10):
            moved = client.post(url, json={"index": index, "move": cell}, headers=bearer(token))
            assert moved.status_code == 200, moved.text
            if index == 17:
                time.sleep(1.5)  # another pause, after a move: still kept
        assert moved.json()["finished"] is True
        time.sleep(1.5)
        assert client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token)).status_code == 200
        line = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()[
            "entrants"
        ][0]
        assert (line["name"], line["games_finished"]) == ("Ada", 1)


def test_a_tournament_game_is_read_by_its_entrant_only() -> None:
    with short_lived_app("memory") as (client, owner):
        tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
        ada = enter(client, tid, "Ada").json()["token"]
        bea = enter(client, tid, "Bea").json()["token"]
        opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(ada))
        deal_id = opened.json()["deal_id"]
        for index, cell in enumerate(CELLS):
            url = f"/v1/deals/{deal_id}/moves"
            client.post(url, json={"index": index, "move": cell}, headers=bearer(ada))
        for path in (f"/v1/deals/{deal_id}", f"/v1/deals/{deal_id}/receipt"):
            assert client.get(path).status_code == 401
            assert client.get(path, headers={"Authorization": owner}).status_code == 401
            other = client.get(path, headers=bearer(bea))
            assert (other.status_code, other.json()["code"]) == (403, "other-entrant")
            assert client.get(path, headers=bearer(ada)).status_code == 200
        client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
        after = client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(ada))  # still hers
        assert after.status_code == 200
        assert after.json()["payload"]["server_seed"] is not None
        assert client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(bea)).status_code == 403
