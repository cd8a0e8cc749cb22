"""A write checked before the close but stored after it: refused, and no result recorded.

The service checks that a tournament is open, then replays and signs, then stores. The
red team raced 120 whole-log submissions (``POST /v1/verify`` of a serpent game) against
the organizer's close: up to 103 were stored after the close, answered 200, and counted
in the closed tournament's standings. Here the interleaving is forced: the store closes
the tournament just before the write reaches it (a whole log, or one move on the fast
path), on the memory store and on a real Redis. The write must answer ``409 closed`` and
leave the standings as they were.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from litestar.testing import TestClient

from attack_kit import CELLS, HttpClient, bearer, enter, open_tournament, reader
from cardproof_service import Settings, create_app
from cardproof_service.store import MemoryStore
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS, UNLIMITED
from redis_server import redis_url_or_skip


class CloseFirst:
    """Mixin: the next write to a game of ``armed`` closes that tournament just before."""

    armed: str | None = None

    async def _close_first(self) -> None:
        if self.armed is not None:
            tournament, self.armed = self.armed, None
            assert await self.close_tournament(tournament, int(time.time()))  # type: ignore[attr-defined]

    async def submit_log(self, *args: Any, **kwargs: Any) -> Any:
        await self._close_first()
        return await super().submit_log(*args, **kwargs)  # type: ignore[misc]

    async def append_move(self, *args: Any, **kwargs: Any) -> Any:
        await self._close_first()
        return await super().append_move(*args, **kwargs)  # type: ignore[misc]


class MemoryCloseFirst(CloseFirst, MemoryStore):
    """The memory store, closing first."""


class RedisCloseFirst(CloseFirst, RedisStore):
    """The Redis store, closing first."""


@contextmanager
def racing_app(kind: str) -> Iterator[tuple[HttpClient, str, CloseFirst]]:
    """An app on a store that closes first when armed; an organizer's key; the store."""
    key, record = new_organizer(f"Race Club {time.time_ns()}")
    settings = Settings(warm_up=False, **UNLIMITED)
    if kind == "memory":
        memory = MemoryCloseFirst()
        assert asyncio.run(memory.add_organizer(record))
        with TestClient(app=create_app(settings, keys=TEST_KEYS, store=memory)) as client:
            yield client, f"Bearer {key}", memory
        return
    with redis_url_or_skip() as url:

        async def add() -> bool:
            setup = RedisStore.from_url(url)
            try:
                return await setup.add_organizer(record)
            finally:
                await setup.close()

        assert asyncio.run(add())
        racing = RedisCloseFirst.from_url(url)
        assert isinstance(racing, RedisCloseFirst)
        with TestClient(app=create_app(settings, keys=TEST_KEYS, store=racing)) as client:
            yield client, f"Bearer {key}", racing


def finished_games(client: HttpClient, tid: str) -> int:
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    return sum(line["games_finished"] for line in standings["entrants"])


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_whole_log_stored_after_the_close_is_refused(kind: str) -> None:
    with racing_app(kind) as (client, owner, store):
        options = {"scoring": "british"}
        created = open_tournament(
            client, owner, variant="serpent-patience", options=options, rounds=1
        )
        tid = created["tournament"]["tournament_id"]
        token = enter(client, tid, "Ada").json()["token"]
        game = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
        view = game.json()["view"]
        cards = [view["next"], *view["later"]]
        solved = client.post(
            "/v1/solve", json={"variant": "serpent-patience", "cards": cards, "options": options}
        ).json()
        body = {
            "variant": "serpent-patience",
            "options": options,
            "deal": {"deal_id": game.json()["deal_id"]},
            "moves": solved["moves"],
        }
        store.armed = tid
        late = client.post("/v1/verify", json=body, headers=bearer(token))
        assert (late.status_code, late.json()["code"]) == (409, "closed")
        assert store.armed is None  # the close did run between the check and the write
        assert finished_games(client, tid) == 0


@pytest.mark.parametrize("kind", ["memory", "redis"])
def test_a_cached_move_stored_after_the_close_is_refused(kind: str) -> None:
    with racing_app(kind) as (client, owner, store):
        tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
        token = enter(client, tid, "Ada").json()["token"]
        deal_id = client.post(
            f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token)
        ).json()["deal_id"]
        url = f"/v1/deals/{deal_id}/moves"
        for index, cell in enumerate(CELLS[:23]):
            moved = client.post(url, json={"index": index, "move": cell}, headers=bearer(token))
            assert moved.status_code == 200
        store.armed = tid
        late = client.post(url, json={"index": 23, "move": CELLS[23]}, headers=bearer(token))
        assert (late.status_code, late.json()["code"]) == (409, "closed")
        assert store.armed is None
        state = client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()
        assert state["next_index"] == 23  # the move was not stored
        assert finished_games(client, tid) == 0
