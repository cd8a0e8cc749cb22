"""Tournaments through the API: organizer keys, creation, round commitments, privacy."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof_service.deals import Deals
from cardproof_service.organizers import new_organizer
from cardproof_service.store import Store, TournamentRecord
from cardproof_service.tournaments import round_commitment_id

HttpClient = TestClient[Litestar]


def organizer_key(app: Litestar, name: str) -> str:
    """A fresh organizer in the app's store, and its key as an Authorization header."""
    key, record = new_organizer(name)
    store: Store = app.state.store
    assert asyncio.run(store.add_organizer(record))
    return f"Bearer {key}"


def moment(hours: float) -> str:
    """RFC 3339 time ``hours`` from now."""
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def new_tournament(**changes: Any) -> dict[str, Any]:
    return {
        "name": "Spring Open",
        "variant": "poker-squares",
        "options": {"scoring": "british"},
        "rounds": 3,
        "opens_at": moment(-1),
        "closes_at": moment(24),
        **changes,
    }


@pytest.fixture(scope="module")
def owner(app: Litestar) -> str:
    return organizer_key(app, "Owner Club")


@pytest.fixture(scope="module")
def rival(app: Litestar) -> str:
    return organizer_key(app, "Rival Club")


def test_creating_a_tournament_needs_an_organizer_key(client: HttpClient) -> None:
    for headers in ({}, {"Authorization": "Bearer cpo_nope"}, {"Authorization": "Basic x"}):
        answer = client.post("/v1/tournaments", json=new_tournament(), headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.headers["content-type"].startswith("application/problem+json")


def test_a_tournament_commits_to_every_round_seed(client: HttpClient, owner: str) -> None:
    answer = client.post(
        "/v1/tournaments", json=new_tournament(max_entrants=500), headers={"Authorization": owner}
    )
    assert answer.status_code == 201, answer.text
    created = answer.json()
    assert created["invite_code"] is None
    tournament = created["tournament"]
    assert (tournament["organizer"], tournament["status"], tournament["entry"]) == (
        "Owner Club",
        "open",
        "public",
    )
    assert (tournament["variant"], tournament["options"]) == (
        "poker-squares",
        {"scoring": "british", "diagonals": False},  # every option, as the deals record them
    )
    assert tournament["max_entrants"] == 500
    assert tournament["algorithm"] == "cardproof-shuffle-v1"
    assert len(tournament["salt"]) == 32
    rounds = tournament["rounds"]
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert all(r["server_seed"] is None for r in rounds)  # not before the close
    hashes = {r["server_seed_hash"] for r in rounds}
    assert len(hashes) == 3
    assert all(len(h) == 64 for h in hashes)
    public = client.get(f"/v1/tournaments/{tournament['tournament_id']}")  # no key needed
    assert public.json() == tournament


def test_a_closed_tournament_reveals_seeds_that_match_its_commitments(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    created = client.post(
        "/v1/tournaments", json=new_tournament(), headers={"Authorization": owner}
    ).json()["tournament"]
    store: Store = app.state.store
    record = asyncio.run(store.get_tournament(created["tournament_id"]))
    assert record is not None
    past = TournamentRecord(
        **{
            **{f: getattr(record, f) for f in record.__struct_fields__},
            "tournament_id": record.tournament_id + "x",
            "opens_at": 1_700_000_000,
            "closes_at": 1_700_086_400,
        }
    )
    asyncio.run(store.create_tournament(past))
    closed = client.get(f"/v1/tournaments/{past.tournament_id}").json()
    assert closed["status"] == "closed"
    deals: Deals = app.state.deals
    for entry in closed["rounds"]:
        seed = bytes.fromhex(entry["server_seed"])
        assert hashlib.sha256(seed).hexdigest() == entry["server_seed_hash"]
        assert seed == deals.server_seed(round_commitment_id(past.tournament_id, entry["round"]))


def test_a_scheduled_tournament_says_so(client: HttpClient, owner: str) -> None:
    body = new_tournament(opens_at=moment(2), closes_at=moment(3))
    tournament = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert tournament.json()["tournament"]["status"] == "scheduled"


def test_an_invite_only_tournament_is_its_organizers_to_read(
    client: HttpClient, owner: str, rival: str
) -> None:
    answer = client.post(
        "/v1/tournaments", json=new_tournament(entry="invite"), headers={"Authorization": owner}
    ).json()
    assert isinstance(answer["invite_code"], str)
    assert len(answer["invite_code"]) >= 16
    url = f"/v1/tournaments/{answer['tournament']['tournament_id']}"
    anonymous = client.get(url)
    assert anonymous.status_code == 401
    other = client.get(url, headers={"Authorization": rival})
    assert (other.status_code, other.json()["code"]) == (403, "not-your-tournament")
    mine = client.get(url, headers={"Authorization": owner})
    assert mine.status_code == 200
    assert "invite_code" not in mine.json()  # the code is shown once, at creation


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"closes_at": moment(-2)}, "bad-window", "closes_at"),
        ({"opens_at": moment(-3), "closes_at": moment(-2)}, "closes-in-past", "closes_at"),
        ({"options": {"rows": 3}}, "unknown-option", "options.rows"),
    ],
)
def test_rules_of_a_new_tournament_are_422(
    client: HttpClient, owner: str, changes: dict[str, Any], code: str, field: str
) -> None:
    answer = client.post(
        "/v1/tournaments", json=new_tournament(**changes), headers={"Authorization": owner}
    )
    body = answer.json()
    assert (answer.status_code, body["code"], body["field"]) == (422, code, field)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"opens_at": "2026-12-01T18:00:00"}, "opens_at"),  # no time zone
        ({"rounds": 0}, "rounds"),
        ({"variant": "klondike"}, "variant"),
        ({"entry": "secret"}, "entry"),
        ({"prize": 100}, "prize"),
    ],
)
def test_unreadable_tournaments_are_400(
    client: HttpClient, owner: str, changes: dict[str, Any], field: str
) -> None:
    answer = client.post(
        "/v1/tournaments", json=new_tournament(**changes), headers={"Authorization": owner}
    )
    assert (answer.status_code, answer.json()["field"]) == (400, field)


def test_an_unknown_tournament_is_404(client: HttpClient) -> None:
    answer = client.get("/v1/tournaments/t_nothing")
    assert (answer.status_code, answer.json()["code"]) == (404, "unknown-tournament")
