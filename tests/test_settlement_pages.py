"""The settlement answers in linear size: nets and standings; payments only by page.

The pairwise payments of n entrants number up to n * (n - 1) / 2 (half a million for
1,000 entrants, eight million for 4,000), so a default answer never lists them; a page
holds at most 1,000, generated from the sorted totals.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.tournaments.standings as standings_module
from cardproof import Client
from cardproof.tournaments import payments, settle
from cardproof_service import Settings, create_app
from cardproof_service.store import MemoryStore, Standing
from conftest import TEST_KEYS, UNLIMITED, organizer_key
from test_tournaments_api import new_tournament, open_tournament, reader


class Field(MemoryStore):
    """A memory store whose every tournament has the same ``scores`` (and counts reads)."""

    def __init__(self, scores: dict[str, int]) -> None:
        super().__init__()
        self.scores = scores
        self.reads = 0

    async def standings(self, tournament_id: str) -> list[Standing]:
        self.reads += 1
        return [Standing(name, total, 3) for name, total in self.scores.items()]


@contextmanager
def field_of(scores: dict[str, int]) -> Iterator[tuple[TestClient[Litestar], str, Field, str]]:
    """An app whose tournament has these final totals; its id, its store, its organizer."""
    store = Field(scores)
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS, store=store)
    with TestClient(app) as client:
        owner = organizer_key(app, "Settlement Club")
        created = open_tournament(client, owner, format="lockstep", entry="public")
        yield client, created["tournament"]["tournament_id"], store, owner


def spread(count: int) -> dict[str, int]:
    rng = random.Random(count)
    return {f"entrant {i:05d}": rng.randrange(-3000, 3000) for i in range(count)}


def test_the_default_answer_grows_linearly_with_the_entrants() -> None:
    sizes = {}
    for count in (1000, 4000):
        with field_of(spread(count)) as (client, tid, _, _):
            answer = client.get(f"/v1/tournaments/{tid}/settlement", headers=reader(tid))
            assert answer.status_code == 200
            assert answer.json()["payments"] == []
            assert len(answer.json()["nets"]) == count
            sizes[count] = len(answer.content)
    ratio = sizes[4000] / sizes[1000]
    assert 3.5 < ratio < 4.6, sizes  # linear; the payments would have made it about 16
    assert sizes[4000] < 1_000_000


def test_every_payment_comes_once_page_by_page() -> None:
    scores = spread(70)
    scores["tied"] = scores["entrant 00003"]
    with field_of(scores) as (client, tid, _, _):
        pages = []
        cursor = None
        while True:
            query = "payments=true&limit=700" + (f"&cursor={cursor}" if cursor else "")
            page = client.get(
                f"/v1/tournaments/{tid}/settlement?{query}", headers=reader(tid)
            ).json()
            assert len(page["payments"]) <= 700
            pages.append(page)
            cursor = page["next_cursor"]
            if cursor is None:
                break
        listed = [(p["payer"], p["payee"], p["amount"]) for page in pages for p in page["payments"]]
        assert listed == [(p.payer, p.payee, p.amount) for p in payments(scores)]
        assert len(pages) == 4  # 2,415 payments, 700 a page
        assert pages[0]["nets"] == settle(scores)
        default = client.get(
            f"/v1/tournaments/{tid}/settlement?payments=true", headers=reader(tid)
        ).json()
        assert len(default["payments"]) == 1000
        for bad in ("x", "1", "1.x", "-1.2", "9" * 30):
            refused = client.get(
                f"/v1/tournaments/{tid}/settlement?payments=true&cursor={bad}", headers=reader(tid)
            )
            assert refused.status_code == 400, bad
        for limit in ("0", "1001", "many"):
            refused = client.get(
                f"/v1/tournaments/{tid}/settlement?payments=true&limit={limit}", headers=reader(tid)
            )
            assert refused.status_code == 400, limit


def test_the_sdk_reads_every_page() -> None:
    scores = spread(50)
    with field_of(scores) as (client, tid, _, _):
        transport = httpx.MockTransport(lambda request: _forward(client, request))
        with Client(base_url="http://sdk", http_client=httpx.Client(transport=transport)) as sdk:
            assert list(sdk.all_payments(tid)) == payments(scores)
            assert sdk.settlement(tid).nets == settle(scores)


def _forward(client: TestClient[Litestar], request: httpx.Request) -> httpx.Response:
    answer = client.get(str(request.url.raw_path, "ascii"))
    return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)


def test_a_closed_tournaments_standings_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with field_of(spread(30)) as (client, tid, store, owner):
        monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # no grace: kept at once
        client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
        deadline = time.monotonic() + 60  # the rounds' pars are solved first, in the background
        while "pars_pending" in client.get(f"/v1/tournaments/{tid}/standings").json():
            assert time.monotonic() < deadline
            time.sleep(0.1)
        reads = store.reads
        for _ in range(5):
            assert (
                client.get(f"/v1/tournaments/{tid}/settlement", headers=reader(tid)).status_code
                == 200
            )
            assert (
                client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).status_code
                == 200
            )
        assert store.reads == reads  # kept since the read that found every par


def test_a_tournament_field_has_a_default_and_a_ceiling() -> None:
    settings = Settings(warm_up=False, default_max_entrants=50, max_entrants=80, **UNLIMITED)
    app = create_app(settings, keys=TEST_KEYS)
    with TestClient(app) as client:
        owner = organizer_key(app, "Field Club")
        unnamed = open_tournament(client, owner)["tournament"]
        assert unnamed["max_entrants"] == 50
        assert open_tournament(client, owner, max_entrants=80)["tournament"]["max_entrants"] == 80
        too_many = client.post(
            "/v1/tournaments",
            json={**new_tournament(), "max_entrants": 81},
            headers={"Authorization": owner},
        )
        assert (too_many.status_code, too_many.json()["code"]) == (422, "too-many-entrants")
