"""Tournaments through the API: organizer keys, creation, round commitments, privacy."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.tournaments.standings as standings_module
from cardproof.deal import standard_deck
from cardproof.receipts import ReceiptError, verify_receipt
from cardproof.tournaments import ExportError, verify_export
from cardproof_service import Settings, create_app
from cardproof_service.deals.commitments import round_commitment_id
from cardproof_service.deals.service import Deals
from cardproof_service.store import OrganizerRecord, Store, TournamentRecord
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS, organizer_key
from redis_server import redis_url_or_skip

HttpClient = TestClient[Litestar]


def moment(hours: float) -> str:
    """RFC 3339 time ``hours`` from now."""
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def new_tournament(**changes: Any) -> dict[str, Any]:
    """An async poker-squares tournament: each entrant plays at their own pace.

    A hidden variant is async only by invitation, so it makes invite codes, and
    :func:`enter` spends them (test_lockstep.py plays the lockstep format).
    """
    body = {
        "name": "Spring Open",
        "variant": "poker-squares",
        "options": {"scoring": "british"},
        "rounds": 3,
        "opens_at": moment(-1),
        "closes_at": moment(24),
        "format": "async",
        "entry": "invite",
        "invites": 40,
        **changes,
    }
    if body["entry"] == "public" and "invites" not in changes:
        del body["invites"]
    return body


def public_lockstep(**changes: Any) -> dict[str, Any]:
    """A public lockstep tournament (the default of a hidden variant), for what is not play."""
    return new_tournament(format="lockstep", entry="public", **changes)


_CODES: dict[str, list[str]] = {}
"""Unused invite codes of the tournaments the tests made, by tournament id."""


@pytest.fixture(scope="module")
def rival(app: Litestar) -> str:
    return organizer_key(app, "Rival Club")


def test_creating_a_tournament_needs_an_organizer_key(client: HttpClient) -> None:
    unknown = "Bearer cpo_" + "0" * 16 + "_" + "A" * 43  # a key's form, never issued
    for headers, code in (
        ({}, "credential-missing"),
        ({"Authorization": "Bearer cpo_nope"}, "credential-malformed"),
        ({"Authorization": "Basic x"}, "credential-malformed"),
        ({"Authorization": unknown}, "credential-invalid"),
    ):
        answer = client.post("/v1/tournaments", json=new_tournament(), headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["code"] == code, headers


def test_a_tournament_commits_to_every_round_seed(client: HttpClient, owner: str) -> None:
    answer = client.post(
        "/v1/tournaments", json=public_lockstep(max_entrants=500), headers={"Authorization": owner}
    )
    assert answer.status_code == 201, answer.text
    created = answer.json()
    assert created["invite_code"] is None
    assert (created["tournament"]["format"], created["tournament"]["card_seconds"]) == (
        "lockstep",
        60,
    )
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
    closed = client.get(f"/v1/tournaments/{past.tournament_id}", headers={"Authorization": owner})
    closed = closed.json()
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


# --- entries, round games, standings ------------------------------------------------------

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


def open_tournament(client: HttpClient, owner: str, **changes: Any) -> dict[str, Any]:
    answer = client.post(
        "/v1/tournaments", json=new_tournament(**changes), headers={"Authorization": owner}
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    keep_codes(created)
    return created


_READERS: dict[str, str] = {}
"""An invite code kept unused per tournament, to read it with (:func:`reader`)."""


def keep_codes(created: dict[str, Any]) -> None:
    """Remember a new tournament's invite codes for :func:`enter` and :func:`reader`."""
    codes = list(created["invite_codes"])
    tid = created["tournament"]["tournament_id"]
    if codes:
        _READERS[tid] = codes.pop()
    _CODES[tid] = codes


def reader(tournament_id: str) -> dict[str, str]:
    """Headers that read the tournament: an invite code of it, if it is invite-only."""
    code = _READERS.get(tournament_id)
    return {} if code is None else {"X-Invite-Code": code}


def enter(client: HttpClient, tournament_id: str, name: str, **extra: Any) -> Any:
    """Enter ``name``; an invite-only tournament's next unused code unless one is given."""
    codes = _CODES.get(tournament_id)
    if codes and "invite_code" not in extra:
        extra["invite_code"] = codes.pop(0)
    return client.post(f"/v1/tournaments/{tournament_id}/entries", json={"name": name, **extra})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_round(
    client: HttpClient, tournament_id: str, token: str, round_number: int, cells: list[str]
) -> dict[str, Any]:
    """Open the entrant's round and play ``cells``; the last answer."""
    opened = client.post(
        f"/v1/tournaments/{tournament_id}/rounds/{round_number}/deal",
        json={},
        headers=bearer(token),
    )
    assert opened.status_code == 201, opened.text
    deal = opened.json()
    answer: dict[str, Any] = {"deal_id": deal["deal_id"], "view": deal["view"]}
    for index, cell in enumerate(cells):
        moved = client.post(
            f"/v1/deals/{deal['deal_id']}/moves",
            json={"index": index, "move": cell},
            headers=bearer(token),
        )
        assert moved.status_code == 200, moved.text
        answer = {"deal_id": deal["deal_id"], **moved.json()}
    return answer


def play_lockstep(
    http: Any, owner: str, tid: str, round_number: int, plays: dict[str, list[str]]
) -> dict[str, dict[str, Any]]:
    """Seat every token of ``plays``, start the round, place each card in turn.

    Each entrant places card i (``plays[token][i]``) before any places card i+1, as a
    lockstep round wants; returns each token's last answer.
    """
    deals = {}
    for token in plays:
        opened = http.post(
            f"/v1/tournaments/{tid}/rounds/{round_number}/deal", json={}, headers=bearer(token)
        )
        assert opened.status_code == 201, opened.text
        deals[token] = opened.json()["deal_id"]
    started = http.post(
        f"/v1/tournaments/{tid}/rounds/{round_number}/start",
        json={},
        headers={"Authorization": owner},
    )
    assert started.status_code == 200, started.text
    answers: dict[str, dict[str, Any]] = {}
    for index in range(max(len(cells) for cells in plays.values())):
        for token, cells in plays.items():
            if index < len(cells):
                moved = http.post(
                    f"/v1/deals/{deals[token]}/moves",
                    json={"index": index, "move": cells[index]},
                    headers=bearer(token),
                )
                assert moved.status_code == 200, moved.text
                answers[token] = {"deal_id": deals[token], **moved.json()}
    return answers


def test_entrants_get_the_same_cards_and_standings_count_finished_games(
    client: HttpClient, owner: str
) -> None:
    tournament = open_tournament(client, owner, rounds=2)["tournament"]
    tid = tournament["tournament_id"]
    tokens = {}
    for name in ("Ada", "Bea", "Cy"):
        entry = enter(client, tid, name)
        assert entry.status_code == 201, entry.text
        assert entry.json()["token"].startswith("cpe_")
        tokens[name] = entry.json()["token"]
    ada = play_round(client, tid, tokens["Ada"], 1, CELLS)
    bea = play_round(client, tid, tokens["Bea"], 1, CELLS)
    assert ada["finished"]
    assert bea["finished"]
    assert ada["view"] == bea["view"]  # the same deal: the same cards in the same cells
    assert ada["score"] == bea["score"]
    half = play_round(client, tid, tokens["Cy"], 1, CELLS[:10])  # not finished: not counted
    assert not half["finished"]
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    total = ada["score"]["total"]
    assert standings["status"] == "open"
    lines = {line["name"]: line for line in standings["entrants"]}
    assert lines["Ada"] == {"rank": 1, "name": "Ada", "total": total, "games_finished": 1}
    assert lines["Bea"]["rank"] == 1  # a tie shares the rank
    assert lines["Cy"] == {"rank": 3, "name": "Cy", "total": 0, "games_finished": 0}
    assert [line["name"] for line in standings["entrants"]] == ["Ada", "Bea", "Cy"]
    nets_only = client.get(f"/v1/tournaments/{tid}/settlement", headers=reader(tid)).json()
    assert nets_only["nets"] == {"Ada": total, "Bea": total, "Cy": -2 * total}
    assert nets_only["payments"] == []  # payments come on request
    assert nets_only["standings"] == standings["entrants"]
    settled = client.get(
        f"/v1/tournaments/{tid}/settlement?payments=true", headers=reader(tid)
    ).json()
    assert settled["nets"] == {"Ada": total, "Bea": total, "Cy": -2 * total}
    assert settled["next_cursor"] is None
    assert {(p["payer"], p["payee"], p["amount"]) for p in settled["payments"]} == {
        ("Cy", "Ada", total),
        ("Cy", "Bea", total),
    }


def test_a_round_is_played_once_per_entrant(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    first = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    assert first.status_code == 201
    again = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    body = again.json()
    assert (again.status_code, body["code"], body["deal_id"]) == (
        409,
        "round-played",
        first.json()["deal_id"],
    )
    other_round = client.post(
        f"/v1/tournaments/{tid}/rounds/2/deal", json={}, headers=bearer(token)
    )
    assert other_round.status_code == 201
    missing = client.post(f"/v1/tournaments/{tid}/rounds/4/deal", json={}, headers=bearer(token))
    assert (missing.status_code, missing.json()["code"]) == (404, "unknown-round")


def test_entering_twice_or_past_the_limit_is_refused(client: HttpClient, owner: str) -> None:
    created = client.post(
        "/v1/tournaments", json=public_lockstep(max_entrants=2), headers={"Authorization": owner}
    )
    tid = created.json()["tournament"]["tournament_id"]
    assert enter(client, tid, "Ada").status_code == 201
    twice = enter(client, tid, "Ada")
    assert (twice.status_code, twice.json()["code"]) == (409, "name-taken")
    assert enter(client, tid, "Bea").status_code == 201
    full = enter(client, tid, "Cy")
    assert (full.status_code, full.json()["code"]) == (409, "full")
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    assert sorted(line["name"] for line in standings["entrants"]) == ["Ada", "Bea"]


def test_an_invite_only_tournament_takes_its_code(client: HttpClient, owner: str) -> None:
    created = open_tournament(client, owner, entry="invite")
    tid = created["tournament"]["tournament_id"]
    _CODES.pop(tid)  # entered by hand here
    for extra in ({}, {"invite_code": "guess"}):
        refused = enter(client, tid, "Eve", **extra)
        assert (refused.status_code, refused.json()["code"]) == (403, "bad-invite-code")
    assert enter(client, tid, "Ada", invite_code=created["invite_code"]).status_code == 201


def test_tokens_are_checked(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    other = open_tournament(client, owner)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    foreign = enter(client, other, "Ada").json()["token"]
    head, _, tag = token.rpartition(".")
    forged_tag = head + "." + ("A" if tag[0] != "A" else "B") + tag[1:]
    forged_name = token.replace(token.split(".")[1], "0" * 16, 1)
    url = f"/v1/tournaments/{tid}/rounds/1/deal"
    for headers, code in (
        ({}, "credential-missing"),
        (bearer("cpe_junk"), "credential-malformed"),
        (bearer(forged_tag), "credential-invalid"),
        (bearer(forged_name), "credential-invalid"),
    ):
        answer = client.post(url, json={}, headers=headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.json()["code"] == code, headers
    wrong = client.post(url, json={}, headers=bearer(foreign))
    assert (wrong.status_code, wrong.json()["code"]) == (403, "other-tournament")
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    assert [line["games_finished"] for line in standings["entrants"]] == [0]  # nothing recorded


def test_a_games_moves_take_its_entrants_own_token(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    bea = enter(client, tid, "Bea").json()["token"]
    game = play_round(client, tid, ada, 1, CELLS[:23])
    url = f"/v1/deals/{game['deal_id']}/moves"
    middle = {"index": 23, "move": CELLS[23]}  # the game is this process's cached copy now
    assert client.post(url, json=middle).status_code == 401
    taken = client.post(url, json=middle, headers=bearer(bea))
    assert (taken.status_code, taken.json()["code"]) == (403, "other-entrant")
    assert client.post(url, json=middle, headers=bearer(ada)).json()["index"] == 23
    last = {"index": 24, "move": CELLS[24]}  # one move before the end
    assert client.post(url, json=last).status_code == 401
    stolen = client.post(url, json=last, headers=bearer(bea))
    assert (stolen.status_code, stolen.json()["code"]) == (403, "other-entrant")
    whole_log = {
        "variant": "poker-squares",
        "options": {"scoring": "british"},
        "deal": {"deal_id": game["deal_id"]},
        "moves": " ".join(CELLS),
    }
    whole = client.post("/v1/verify", json=whole_log, headers=bearer(bea))
    assert (whole.status_code, whole.json()["code"]) == (403, "other-entrant")  # caller first
    own = client.post("/v1/verify", json=whole_log, headers=bearer(ada))
    assert (own.status_code, own.json()["code"]) == (409, "not-the-played-log")
    lines = {
        line["name"]: line
        for line in client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()[
            "entrants"
        ]
    }
    assert lines["Ada"]["games_finished"] == 0  # nothing was recorded
    assert client.post(url, json=last, headers=bearer(ada)).json()["finished"] is True


def test_an_unplayed_game_cannot_be_submitted_whole_by_another(
    client: HttpClient, owner: str
) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    bea = enter(client, tid, "Bea").json()["token"]
    opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(ada))
    body = {
        "variant": "poker-squares",
        "options": {"scoring": "british"},
        "deal": {"deal_id": opened.json()["deal_id"]},
        "moves": " ".join(CELLS),
    }
    stolen = client.post("/v1/verify", json=body, headers=bearer(bea))
    assert (stolen.status_code, stolen.json()["code"]) == (403, "other-entrant")
    assert client.post("/v1/verify", json=body).status_code == 401
    mine = client.post("/v1/verify", json=body, headers=bearer(ada))  # hidden: played blind only
    assert (mine.status_code, mine.json()["code"]) == (409, "not-the-played-log")
    state = client.get(f"/v1/deals/{opened.json()['deal_id']}", headers=bearer(ada)).json()
    assert (state["next_index"], state["finished"]) == (0, False)


def test_no_move_after_the_close(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    game = play_round(client, tid, ada, 1, CELLS[:5])
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    late = client.post(
        f"/v1/deals/{game['deal_id']}/moves",
        json={"index": 5, "move": CELLS[5]},
        headers=bearer(ada),
    )
    assert (late.status_code, late.json()["code"]) == (409, "closed")


def test_entry_is_refused_before_the_opening(client: HttpClient, owner: str) -> None:
    later = open_tournament(client, owner, opens_at=moment(1), closes_at=moment(2))
    tid = later["tournament"]["tournament_id"]
    refused = enter(client, tid, "Ada")
    assert (refused.status_code, refused.json()["code"]) == (409, "not-open")


def test_a_closed_tournament_reveals_the_seed_of_every_receipt(
    client: HttpClient, owner: str
) -> None:
    tid = open_tournament(client, owner, closes_at=moment(2.5 / 3600))["tournament"][
        "tournament_id"
    ]
    token = enter(client, tid, "Ada").json()["token"]
    game = play_round(client, tid, token, 1, CELLS)
    jwks = client.get("/.well-known/jwks.json").json()
    assert client.get(f"/v1/deals/{game['deal_id']}/receipt").status_code == 401
    during = client.get(f"/v1/deals/{game['deal_id']}/receipt", headers=bearer(token)).json()
    payload = during["payload"]
    assert (payload["server_seed"], payload["tournament"], payload["player"]) == (None, tid, "Ada")
    with pytest.raises(ReceiptError) as unreplayed:  # no seed yet: never a silent pass
        verify_receipt(during["receipt"], jwks)
    assert unreplayed.value.code == "seed-not-revealed"
    assert not verify_receipt(during["receipt"], jwks, signature_only=True).replayed
    time.sleep(max(0.0, closes_in(client, tid)) + 0.1)
    after = client.get(f"/v1/deals/{game['deal_id']}/receipt", headers=bearer(token)).json()
    revealed = client.get(f"/v1/tournaments/{tid}", headers=reader(tid)).json()["rounds"][0][
        "server_seed"
    ]
    assert after["payload"]["server_seed"] == revealed
    checked = verify_receipt(after["receipt"], jwks)
    assert checked.replayed
    assert checked.payload.score.total == game["score"]["total"]
    late = enter(client, tid, "Bea")
    assert (late.status_code, late.json()["code"]) == (409, "closed")
    expired = client.post(f"/v1/tournaments/{tid}/rounds/2/deal", json={}, headers=bearer(token))
    assert expired.status_code == 401
    assert "expired" in expired.json()["detail"]
    assert expired.json()["code"] == "credential-expired"


def closes_in(client: HttpClient, tournament_id: str) -> float:
    """Seconds until the tournament closes."""
    closes = client.get(f"/v1/tournaments/{tournament_id}", headers=reader(tournament_id))
    closes = closes.json()["closes_at"]
    return datetime.fromisoformat(closes).timestamp() - time.time()


def test_two_replicas_on_one_redis_see_the_same_standings() -> None:
    with redis_url_or_skip() as url, contextlib.ExitStack() as stack:
        replicas = []
        for _ in range(2):
            store = RedisStore.from_url(url)
            app = create_app(Settings(warm_up=False), keys=TEST_KEYS, store=store)
            replicas.append(stack.enter_context(TestClient(app=app)))
        first, second = replicas
        key, record = new_organizer(f"Replica Club {time.time_ns()}")
        assert asyncio.run(add_organizer_to(url, record))
        created = first.post(
            "/v1/tournaments", json=new_tournament(), headers={"Authorization": f"Bearer {key}"}
        )
        keep_codes(created.json())
        tid = created.json()["tournament"]["tournament_id"]
        token = enter(second, tid, "Ada").json()["token"]  # entered on one replica
        game = play_round(first, tid, token, 1, CELLS)  # played on the other
        for replica in replicas:
            lines = replica.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()[
                "entrants"
            ]
            assert lines == [
                {"rank": 1, "name": "Ada", "total": game["score"]["total"], "games_finished": 1}
            ]


async def add_organizer_to(url: str, record: OrganizerRecord) -> bool:
    """Store an organizer in the Redis at ``url`` (as ``cardproof keys organizer`` does)."""
    store = RedisStore.from_url(url)
    try:
        return await store.add_organizer(record)
    finally:
        await store.close()


# --- closing and the export ---------------------------------------------------------------


def played_and_closed(client: HttpClient, owner: str) -> tuple[str, dict[str, Any]]:
    """A tournament with two entrants' finished games and one unfinished, closed; its export."""
    tid = open_tournament(client, owner, rounds=2)["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    bea = enter(client, tid, "Bea").json()["token"]
    play_round(client, tid, ada, 1, CELLS)
    play_round(client, tid, ada, 2, CELLS[::-1])
    play_round(client, tid, bea, 1, CELLS[5:] + CELLS[:5])
    play_round(client, tid, bea, 2, CELLS[:3])  # unfinished: not in the record
    early = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid))
    assert (early.status_code, early.json()["code"]) == (409, "not-closed")
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed"
    assert all(r["server_seed"] for r in closed.json()["rounds"])
    export = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid))
    assert export.status_code == 200, export.text
    return tid, export.json()


def test_only_the_organizer_closes_a_tournament_once(
    client: HttpClient, owner: str, rival: str
) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    url = f"/v1/tournaments/{tid}/close"
    assert client.post(url, json={}).status_code == 401
    other = client.post(url, json={}, headers={"Authorization": rival})
    assert (other.status_code, other.json()["code"]) == (403, "not-your-tournament")
    assert client.post(url, json={}, headers={"Authorization": owner}).status_code == 200
    again = client.post(url, json={}, headers={"Authorization": owner})
    assert (again.status_code, again.json()["code"]) == (409, "closed")
    late = enter(client, tid, "Ada")
    assert (late.status_code, late.json()["code"]) == (409, "closed")


def test_the_export_verifies_end_to_end(client: HttpClient, owner: str) -> None:
    tid, export = played_and_closed(client, owner)
    assert export["format"] == "cardproof-tournament-export-v1"
    assert [(g["player"], g["round"]) for g in export["games"]] == [
        ("Ada", 1),
        ("Ada", 2),
        ("Bea", 1),
    ]
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()[
        "entrants"
    ]
    assert export["standings"] == standings
    check = verify_export(msgspec.json.encode(export), client.get("/.well-known/jwks.json").json())
    assert check.games == 3
    assert [line.name for line in check.standings] == [line["name"] for line in standings]


def test_a_closed_round_shows_its_par_and_each_game_its_share(
    client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # pars solved at the close
    tid, export = played_and_closed(client, owner)
    pars = {par["round"]: par for par in export["pars"]}
    assert sorted(pars) == [1, 2]
    seeds = {r["round"]: r["server_seed"] for r in export["tournament"]["rounds"]}
    salt = export["tournament"]["salt"]
    best = {1: 0, 2: 0}
    for game in export["games"]:
        best[game["round"]] = max(best[game["round"]], game["total"])
        par = pars[game["round"]]
        assert game["percent_of_par"] == round(100 * game["total"] / par["score"], 1)
    for number, par in pars.items():
        assert best[number] <= par["score"] <= par["upper_bound"]
        # another search of the round's 25 cards agrees with the par's proof: neither
        # finds a grid above the other's bound, and a par called optimal is never beaten
        cards = standard_deck(bytes.fromhex(seeds[number]), salt)[:25]
        solved = client.post(
            "/v1/solve",
            json={
                "variant": "poker-squares",
                "cards": [c.text for c in cards],
                "options": export["tournament"]["options"],
                "budget": 0.5,
            },
        ).json()
        assert solved["score"]["total"] <= par["upper_bound"]
        assert par["score"] <= solved["upper_bound"]
        if par["optimal"]:
            assert solved["score"]["total"] <= par["score"]
        # the solver's grid beats these games (cells in order): the par is never theirs
        assert (par["by"], par["method"]) == ("solver", "branch-and-bound")
        assert par["score"] > best[number]
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    assert standings["pars"] == export["pars"]
    assert "pars_pending" not in standings
    whole = pars[1]["score"] + pars[2]["score"]
    for line in standings["entrants"]:
        assert line["percent_of_par"] == round(100 * line["total"] / whole, 1)
    # the par's log is a real game on the round's deal: /v1/verify scores it so
    replayed = client.post(
        "/v1/verify",
        json={
            "variant": "poker-squares",
            "deal": {"server_seed": seeds[1], "client_seed": salt},
            "moves": pars[1]["moves"],
            "options": export["tournament"]["options"],
        },
    )
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["score"]["total"] == pars[1]["score"]
    # each entrant's games, with their share of par, in the standings on request
    for name in ("Ada", "Bea"):
        asked = client.get(
            f"/v1/tournaments/{tid}/standings", params={"player": name}, headers=reader(tid)
        )
        assert asked.status_code == 200, asked.text
        mine = asked.json()
        assert mine["player"] == name
        assert mine["entrants"] == standings["entrants"]
        assert mine["games"] == [
            {"round": g["round"], "total": g["total"], "percent_of_par": g["percent_of_par"]}
            for g in export["games"]
            if g["player"] == name
        ]
    assert "games" not in standings
    assert "player" not in standings


def test_an_entrants_games_are_listed_after_the_close_only(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    play_round(client, tid, token, 1, CELLS)
    accented = enter(client, tid, "Jose\u0301").json()  # decomposed, as macOS types it
    url = f"/v1/tournaments/{tid}/standings"
    early = client.get(url, params={"player": "Ada"}, headers=reader(tid))
    assert (early.status_code, early.json()["code"]) == (409, "not-closed")
    assert "total" not in early.text  # not a game's total before everyone has played
    assert client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    after = client.get(url, params={"player": "Ada"}, headers=reader(tid)).json()
    assert [game["round"] for game in after["games"]] == [1]
    assert "percent_of_par" not in after["games"][0]  # the par is not solved yet
    # any spelling that names Ada at entry finds her: case, width, spaces, confusables
    for spelling in ("ada", " Ada ", "ＡＤＡ", "AdA", "Αda"):
        found = client.get(url, params={"player": spelling}, headers=reader(tid))
        assert found.status_code == 200, (spelling, found.text)
        assert found.json()["player"] == "Ada"  # the name as entered
        assert found.json()["games"] == after["games"]
    for spelling in ("Jos\u00e9", "Jose\u0301", "JOSÉ"):
        found = client.get(url, params={"player": spelling}, headers=reader(tid)).json()
        assert found["player"] == accented["name"], spelling
        assert "games" not in found  # none finished (an empty list is left out)
    for spelling in ("Ad", "Bea", "Adam"):
        other = client.get(url, params={"player": spelling}, headers=reader(tid))
        assert (other.status_code, other.json()["code"]) == (404, "unknown-entrant"), spelling
        assert repr(spelling) in other.json()["detail"]
    for bad in ("", "x" * 65, "A\x01da"):  # no name by the spec's pattern and bounds
        refused = client.get(url, params={"player": bad}, headers=reader(tid))
        assert refused.status_code == 400, bad
        assert "player" in refused.json()["detail"], refused.json()
    for bad, code in [
        ("   ", "empty-name"),
        ("A\u200bda", "invisible-character"),
        ("A\x85da", "invisible-character"),
    ]:  # no name by the rules of entry, which answers the same 422
        refused = client.get(url, params={"player": bad}, headers=reader(tid))
        assert (refused.status_code, refused.json()["code"]) == (422, code), bad
        assert refused.json()["field"] == "player"


def test_player_is_a_name_in_the_spec_as_an_entrys_name_is() -> None:
    spec = json.loads((Path(__file__).parent.parent / "openapi" / "openapi.json").read_text())
    standings = spec["paths"]["/v1/tournaments/{tournament_id}/standings"]["get"]
    (player,) = [p["schema"] for p in standings["parameters"] if p["name"] == "player"]
    entry = spec["paths"]["/v1/tournaments/{tournament_id}/entries"]["post"]["requestBody"]
    ref = entry["content"]["application/json"]["schema"]["$ref"]
    name = spec["components"]["schemas"][ref.rpartition("/")[2]]["properties"]["name"]
    for key in ("pattern", "minLength", "maxLength"):
        assert player[key] == name[key], key
    assert "422" in standings["responses"]


def test_pars_wait_for_the_results_to_settle(client: HttpClient, owner: str) -> None:
    tid, export = played_and_closed(client, owner)  # read at once after the close
    assert "pars" not in export  # a result may still land: nothing solved yet
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    assert standings["pars_pending"] == 2
    assert "pars" not in standings
    assert "percent_of_par" not in standings["entrants"][0]


def test_an_open_tournament_has_no_par_yet(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    play_round(client, tid, token, 1, CELLS)
    standings = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    assert "pars" not in standings
    assert "percent_of_par" not in standings["entrants"][0]


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        (lambda e: e["games"][0].update(total=e["games"][0]["total"] + 1), "the export says"),
        (lambda e: e["games"][1].update(moves="a1 a1"), "does not replay"),
        (lambda e: e["tournament"]["rounds"][0].update(server_seed="00" * 32), "commitment"),
        (lambda e: e["standings"][0].update(total=10_000), "standings differ"),
        (lambda e: e["games"].append(dict(e["games"][0])), "a second game"),
        (lambda e: e["games"][0].update(receipt=e["games"][2]["receipt"]), "another game"),
        (lambda e: e["pars"][0].update(score=e["pars"][0]["score"] + 1), "its log scores"),
        (lambda e: e["pars"][1].update(moves="a1 a1"), "its log does not replay"),
        (lambda e: e["games"][0].update(percent_of_par=99.9), "% of par"),
        (lambda e: e["pars"][0].update(score=-1, upper_bound=-1), "above its round's par"),
        (lambda e: e["standings"][0].update(percent_of_par=1.0), "standings differ"),
    ],
)
def test_a_tampered_export_does_not_verify(
    client: HttpClient, owner: str, tamper: Any, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # the export carries the pars
    _, export = played_and_closed(client, owner)
    tamper(export)
    with pytest.raises(ExportError) as refused:
        verify_export(msgspec.json.encode(export))
    assert any(words in problem for problem in refused.value.problems), refused.value.problems
    assert words in str(refused.value)


def test_cardproof_verify_checks_an_export_file(
    client: HttpClient, owner: str, tmp_path: Path
) -> None:
    _, export = played_and_closed(client, owner)
    good = tmp_path / "export.json"
    good.write_bytes(msgspec.json.encode(export))
    command = [str(Path(sys.executable).parent / "cardproof"), "verify", "--tournament"]
    checked = subprocess.run([*command, str(good)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "verified: 3 games" in checked.stdout
    assert "Ada" in checked.stdout
    export["games"][0]["total"] += 1
    bad = tmp_path / "tampered.json"
    bad.write_bytes(msgspec.json.encode(export))
    refused = subprocess.run([*command, str(bad)], capture_output=True, text=True, check=False)
    assert refused.returncode == 1
    assert "NOT VERIFIED: Ada, round 1" in refused.stdout


def test_a_retried_entry_or_round_gets_the_same_answer(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
    tid = tid["tournament_id"]
    url = f"/v1/tournaments/{tid}/entries"
    first = client.post(
        url, json={"name": "Ada"}, headers={"Idempotency-Key": "entry-key-1-0123456789"}
    )
    again = client.post(
        url, json={"name": "Ada"}, headers={"Idempotency-Key": "entry-key-1-0123456789"}
    )
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()  # the same entrant, the same token
    for headers in ({"Idempotency-Key": "entry-key-2-0123456789"}, {}):
        other = client.post(url, json={"name": "Ada"}, headers=headers)
        assert (other.status_code, other.json()["code"]) == (409, "name-taken")
    token = first.json()["token"]
    round_url = f"/v1/tournaments/{tid}/rounds/1/deal"
    opened = client.post(
        round_url, json={}, headers={**bearer(token), "Idempotency-Key": "round-key-1-0123456789"}
    )
    retried = client.post(
        round_url, json={}, headers={**bearer(token), "Idempotency-Key": "round-key-1-0123456789"}
    )
    assert opened.status_code == retried.status_code == 201
    assert retried.json()["deal_id"] == opened.json()["deal_id"]
    second = client.post(
        round_url, json={}, headers={**bearer(token), "Idempotency-Key": "round-key-2-0123456789"}
    )
    assert (second.status_code, second.json()["code"]) == (409, "round-played")
    lines = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()["entrants"]
    assert [line["name"] for line in lines] == ["Ada"]  # entered once


def test_an_invite_only_tournament_is_read_with_its_invite_code(
    client: HttpClient, owner: str
) -> None:
    created = open_tournament(client, owner, entry="invite")
    tid = created["tournament"]["tournament_id"]
    code = {"X-Invite-Code": created["invite_code"]}
    for path in ("", "/standings", "/settlement"):
        assert client.get(f"/v1/tournaments/{tid}{path}", headers=code).status_code == 200
        wrong = client.get(f"/v1/tournaments/{tid}{path}", headers={"X-Invite-Code": "guess"})
        assert wrong.status_code == 401, path
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    revealed = client.get(f"/v1/tournaments/{tid}", headers=code).json()["rounds"]
    assert all(r["server_seed"] for r in revealed)
    assert client.get(f"/v1/tournaments/{tid}/export", headers=code).status_code == 200
    assert client.get(f"/tournaments/{tid}", headers=code).status_code == 200  # the page too


# --- an organizer's list of tournaments --------------------------------------------------


def listed_pages(client: HttpClient, owner: str, limit: int) -> list[list[dict[str, Any]]]:
    """Every page of ``GET /v1/tournaments`` for ``owner``, following ``next_cursor``."""
    pages: list[list[dict[str, Any]]] = []
    query: dict[str, Any] = {"limit": limit}
    while True:
        answer = client.get("/v1/tournaments", params=query, headers={"Authorization": owner})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert len(body["tournaments"]) <= limit
        pages.append(body["tournaments"])
        if body["next_cursor"] is None:
            return pages
        query["cursor"] = body["next_cursor"]
        assert len(pages) < 10, "the cursor goes round"


def lists_only_its_own_newest_first(client: HttpClient, owner: str, rival: str) -> None:
    """Three tournaments of ``owner`` (fresh) and one of ``rival``: the owner's, by page."""
    made = [
        open_tournament(client, owner, name=f"Listed {n}", entry="public", format="lockstep")
        for n in range(3)
    ]
    open_tournament(client, rival, name="Not yours")
    ids = [created["tournament"]["tournament_id"] for created in reversed(made)]
    pages = listed_pages(client, owner, 2)
    assert [len(page) for page in pages] == [2, 1]
    assert [line["tournament_id"] for page in pages for line in page] == ids
    first = pages[0][0]
    newest = made[-1]["tournament"]
    assert first == {
        "tournament_id": newest["tournament_id"],
        "name": "Listed 2",
        "variant": "poker-squares",
        "options": newest["options"],
        "status": "open",
        "format": "lockstep",
        "entry": "public",
        "rounds": 3,
        "opens_at": newest["opens_at"],
        "closes_at": newest["closes_at"],
        "created_at": newest["created_at"],
        "closed_at": None,
    }
    closed = client.post(
        f"/v1/tournaments/{ids[0]}/close", json={}, headers={"Authorization": owner}
    )
    assert closed.status_code == 200
    again = client.get("/v1/tournaments?limit=1", headers={"Authorization": owner}).json()
    assert again["tournaments"][0]["status"] == "closed"
    assert again["tournaments"][0]["closed_at"] == closed.json()["closed_at"]


def test_an_organizer_lists_its_own_tournaments_newest_first(
    client: HttpClient, app: Litestar
) -> None:
    owner = organizer_key(app, f"Lister {time.time_ns()}")
    rival = organizer_key(app, f"Other Lister {time.time_ns()}")
    lists_only_its_own_newest_first(client, owner, rival)
    fresh = organizer_key(app, f"Nothing Yet {time.time_ns()}")
    empty = client.get("/v1/tournaments", headers={"Authorization": fresh})
    assert empty.json() == {"tournaments": [], "next_cursor": None}


def test_an_organizer_lists_its_tournaments_on_redis() -> None:
    with (
        redis_url_or_skip() as url,
        TestClient(
            app=create_app(Settings(warm_up=False), keys=TEST_KEYS, store=RedisStore.from_url(url))
        ) as client,
    ):
        keys = []
        for name in ("Redis Lister", "Redis Rival"):
            key, record = new_organizer(f"{name} {time.time_ns()}")
            assert asyncio.run(add_organizer_to(url, record))
            keys.append(f"Bearer {key}")
        lists_only_its_own_newest_first(client, *keys)


@pytest.mark.parametrize(
    ("query", "headers", "status"),
    [
        ("", {}, 401),
        ("", {"Authorization": "Bearer cpo_nope"}, 401),
        ("", {"Authorization": "Bearer cpe_an_entrants_token"}, 401),
        ("?limit=0", None, 400),
        ("?limit=101", None, 400),
        ("?limit=ten", None, 400),
        ("?cursor=not-a-cursor", None, 400),
        ("?cursor=" + "1" * 16 + ":" + "x" * 65, None, 400),
        ("?limt=5", None, 400),
        ("?=0", None, 400),
    ],
)
def test_listing_tournaments_takes_a_key_and_a_bounded_page(
    client: HttpClient, owner: str, query: str, headers: dict[str, str] | None, status: int
) -> None:
    answer = client.get(
        "/v1/tournaments" + query, headers={"Authorization": owner} if headers is None else headers
    )
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    if status == 401:  # as every organizer endpoint answers without a key
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.json()["type"] == "/problems/unauthorized"
    else:  # a 400 names the parameter
        assert answer.json()["field"] == query[1:].partition("=")[0]


def test_options_on_the_tournaments_path_allows_its_get_and_its_post(client: HttpClient) -> None:
    answer = client.options("/v1/tournaments")
    assert answer.status_code == 204
    assert answer.headers["allow"] == "GET, HEAD, OPTIONS, POST"


@pytest.mark.parametrize("written", ["1e2", "100.0", "010", "+10", "1_0", " 10", "١٠", "-0"])
def test_a_whole_number_is_written_in_plain_digits(
    client: HttpClient, owner: str, written: str
) -> None:
    """One spelling of a number: an exponent, a point, a sign, a leading zero, an
    underscore, a space or another script's digits is a 400 naming the parameter (Python
    and msgspec would read each as a number), in the query and in the path alike."""
    tid = open_tournament(client, owner, format="lockstep")["tournament"]["tournament_id"]
    asked = {
        "limit": ("/v1/tournaments?limit=" + written, {"Authorization": owner}),
        "after": (f"/v1/tournaments/{tid}/rounds/1/calls?wait=0&after={written}", reader(tid)),
        "round_number": (f"/v1/tournaments/{tid}/rounds/{written}", reader(tid)),
    }
    for field, (url, headers) in asked.items():
        answer = client.get(url, headers=headers)
        if field == "round_number" and not written.strip("+-_ 0123456789١٠"):
            pass  # a segment Python's int reads: the route is found, the spelling refused
        elif field == "round_number":  # no number at all: no route
            assert answer.status_code == 404, (url, answer.text)
            continue
        assert answer.status_code == 400, (url, answer.text)
        problem = answer.json()
        assert (problem["field"], problem["type"]) == (field, "/problems/parse-error")
        assert "plain digits" in problem["detail"]
    plain = client.get(f"/v1/tournaments/{tid}/rounds/1", headers=reader(tid))
    assert plain.status_code == 200, plain.text
    listed = client.get("/v1/tournaments?limit=10", headers={"Authorization": owner})
    assert listed.status_code == 200
    anonymous = client.get("/v1/tournaments?limit=" + written)  # the key is asked for first
    assert anonymous.status_code == 401
