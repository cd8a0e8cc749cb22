"""Lockstep tournaments (Hoyle's called game) through the API: formats, seats, the start,
calls, deadlines and the placements made for late players, the close, the calls stream."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.cards import Card
from cardproof.games import replay_log
from cardproof.receipts import verify_receipt
from cardproof.tournaments import round_deal
from cardproof_service.deals.commitments import round_commitment_id
from cardproof_service.deals.service import Deals
from event_stream import server_sent_events
from test_tournaments_api import CELLS, bearer, enter, new_tournament, open_tournament, reader

HttpClient = TestClient[Litestar]


def lockstep(client: HttpClient, owner: str, **changes: Any) -> str:
    """A new lockstep poker-squares tournament (the default format), open now."""
    created = open_tournament(client, owner, format="lockstep", entry="public", **changes)
    created = created["tournament"]
    assert (created["format"], created["card_seconds"]) == (
        "lockstep",
        changes.get("card_seconds", 60),
    )
    return str(created["tournament_id"])


def seat(client: HttpClient, tid: str, token: str, round_number: int = 1) -> dict[str, Any]:
    """Open the entrant's game of the round: a seat."""
    opened = client.post(
        f"/v1/tournaments/{tid}/rounds/{round_number}/deal", json={}, headers=bearer(token)
    )
    assert opened.status_code == 201, opened.text
    deal: dict[str, Any] = opened.json()
    return deal


def seated(client: HttpClient, tid: str, names: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Enter and seat each name in round 1: name -> (token, deal id)."""
    seats = {}
    for name in names:
        token = enter(client, tid, name).json()["token"]
        seats[name] = (token, seat(client, tid, token)["deal_id"])
    return seats


def start(client: HttpClient, tid: str, owner: str, round_number: int = 1) -> httpx.Response:
    return client.post(
        f"/v1/tournaments/{tid}/rounds/{round_number}/start",
        json={},
        headers={"Authorization": owner},
    )


def move(client: HttpClient, token: str, deal_id: str, index: int, cell: str) -> httpx.Response:
    return client.post(
        f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell}, headers=bearer(token)
    )


def status(client: HttpClient, tid: str, round_number: int = 1) -> dict[str, Any]:
    answer = client.get(f"/v1/tournaments/{tid}/rounds/{round_number}")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def round_cards(app: Litestar, tid: str, round_number: int = 1) -> list[str]:
    """The round's 25 cards, from its seed (what the test may know and no player may)."""
    deals: Deals = app.state.deals
    record = app.state.store
    tournament = _run(record.get_tournament(tid))
    seed = deals.server_seed(round_commitment_id(tid, round_number))
    _, deck = round_deal(tournament.variant, tournament.options, seed, tournament.salt)
    return [card.text for card in deck[:25]]


def _run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


def wait_for(check: Any, seconds: float = 5.0) -> Any:
    """Poll ``check()`` until it is truthy (the keeper works in the background)."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out")


# --- formats ----------------------------------------------------------------------------


def test_hidden_variants_default_to_lockstep_and_open_ones_to_async(
    client: HttpClient, owner: str
) -> None:
    def created(**changes: Any) -> dict[str, Any]:
        body = new_tournament(entry="public", **changes)
        del body["format"]  # the variant's default
        answer = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
        assert answer.status_code == 201, answer.text
        tournament: dict[str, Any] = answer.json()["tournament"]
        return tournament

    squares = created()
    assert (squares["format"], squares["card_seconds"]) == ("lockstep", 60)
    serpent = created(variant="serpent-patience", options={})
    assert (serpent["format"], serpent["card_seconds"]) == ("async", None)
    invited = open_tournament(client, owner, format="async", entry="invite")["tournament"]
    assert invited["format"] == "async"


@pytest.mark.parametrize(
    ("changes", "status_code", "code"),
    [
        ({"format": "async", "entry": "public"}, 422, "async-needs-invite"),
        ({"format": "lockstep", "variant": "serpent-patience", "options": {}}, 422,
         "lockstep-needs-hidden"),
        ({"format": "lockstep", "variant": "reserve-poker", "options": {"version": 5}}, 422,
         "lockstep-needs-hidden"),
        ({"format": "lockstep", "variant": "solodrez", "options": {}}, 422,
         "lockstep-needs-hidden"),
        ({"format": "turns"}, 400, None),
        ({"card_seconds": 0}, 400, None),
        ({"card_seconds": 601}, 400, None),
        ({"round_starts": []}, 400, None),
        ({"format": "lockstep", "rounds": 2, "round_starts": ["2030-01-01T00:00:00Z"]}, 422,
         "bad-round-starts"),
        ({"format": "async", "entry": "invite", "round_starts": ["2030-01-01T00:00:00Z"] * 3},
         422, "round-starts-need-lockstep"),
    ],
)  # fmt: skip
def test_format_rules_are_checked(
    client: HttpClient, owner: str, changes: dict[str, Any], status_code: int, code: str | None
) -> None:
    answer = client.post(
        "/v1/tournaments", json=new_tournament(**changes), headers={"Authorization": owner}
    )
    assert answer.status_code == status_code, answer.text
    if code is not None:
        assert answer.json()["code"] == code


# --- a round ------------------------------------------------------------------------------


def test_a_lockstep_round_calls_each_card_once_every_seat_placed_the_last(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    tid = lockstep(client, owner)
    cards = round_cards(app, tid)
    seats = seated(client, tid, ["Ada", "Bea", "Cy"])
    unseated = enter(client, tid, "Eve").json()["token"]  # entered, but opens no game
    for token, deal_id in seats.values():  # seated, waiting: no card yet
        view = client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()["view"]
        assert view["next"] is None
    waiting = status(client, tid)
    assert (waiting["status"], waiting["seats"], waiting["calls"], waiting["call"]) == (
        "waiting",
        3,
        25,
        None,
    )
    ada, ada_deal = seats["Ada"]
    early = move(client, ada, ada_deal, 0, "a1")
    assert (early.status_code, early.json()["code"]) == (409, "not-called")
    assert "has not started" in early.json()["detail"]

    assert start(client, tid, owner).status_code == 200
    playing = status(client, tid)
    assert (playing["status"], playing["call"], playing["card"], playing["placed"]) == (
        "playing",
        0,
        cards[0],
        0,
    )
    assert 55 < playing["seconds_left"] <= 60
    again = start(client, tid, owner)
    assert (again.status_code, again.json()["code"]) == (409, "round-started")
    late_entry = enter(client, tid, "Dee")  # entries closed with the first call
    assert (late_entry.status_code, late_entry.json()["code"]) == (409, "entries-closed")
    read = client.get(f"/v1/tournaments/{tid}").json()
    assert late_entry.json()["started_at"] == read["entries_closed_at"]
    late = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(unseated))
    assert (late.status_code, late.json()["code"]) == (409, "round-started")
    assert status(client, tid)["seats"] == 3

    for index in range(25):
        for name, (token, deal_id) in seats.items():
            view = client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()["view"]
            assert view["next"] == cards[index], (name, index)
            placed = move(client, token, deal_id, index, CELLS[index])
            assert placed.status_code == 200, placed.text
            answer = placed.json()
            last_seat = name == "Cy"
            if index < 24:
                # the next card shows only once every seat placed this one
                expected = cards[index + 1] if last_seat else None
                assert answer["view"]["next"] == expected, (name, index)
            if index < 24 and not last_seat:
                ahead = move(client, token, deal_id, index + 1, CELLS[index + 1])
                assert (ahead.status_code, ahead.json()["code"]) == (409, "not-called")
                assert cards[index + 1] not in ahead.text
        if index < 24:
            assert status(client, tid)["call"] == index + 1
            assert status(client, tid)["called"] == index + 2
    finished = status(client, tid)
    assert (finished["status"], finished["called"], finished["closed"]) == ("finished", 25, False)
    standings = client.get(f"/v1/tournaments/{tid}/standings").json()["entrants"]
    assert [line["games_finished"] for line in standings] == [1, 1, 1, 0]
    receipt = client.get(f"/v1/deals/{ada_deal}/receipt", headers=bearer(ada)).json()
    assert receipt["payload"]["auto_placed"] == []
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    assert status(client, tid)["closed"] is False  # played out before the close


def test_a_card_not_placed_by_its_deadline_is_placed_for_its_player(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    tid = lockstep(client, owner, card_seconds=1)
    seats = seated(client, tid, ["Ada", "Idle"])
    ada, ada_deal = seats["Ada"]
    idle, idle_deal = seats["Idle"]
    assert start(client, tid, owner).status_code == 200
    assert move(client, ada, ada_deal, 0, "c3").status_code == 200
    assert status(client, tid)["placed"] == 1
    # at the deadline the keeper places Idle's card and calls the next one: nobody has
    # placed that one yet
    moved_on = wait_for(lambda: (now := status(client, tid))["call"] == 1 and now, seconds=4)
    assert moved_on["placed"] == 0
    game = client.get(f"/v1/deals/{idle_deal}", headers=bearer(idle)).json()
    assert game["moves"] == "a1"  # poker-squares' first legal move: the first empty cell
    assert game["view"]["next"] is not None  # card 1 is called: it shows
    too_late = move(client, idle, idle_deal, 0, "e5")
    body = too_late.json()
    assert (too_late.status_code, body["code"], body["placed"], body["move_index"]) == (
        409,
        "auto-placed",
        "a1",
        0,
    )
    assert "placed for you at a1" in body["detail"]
    # the same move as the placement is no claim either: it was not the player's
    assert move(client, idle, idle_deal, 0, "a1").json()["code"] == "auto-placed"


def test_a_move_that_comes_after_its_deadline_is_refused_and_the_card_placed(
    client: HttpClient, owner: str, app: Litestar
) -> None:
    tid = lockstep(client, owner, card_seconds=1)
    seats = seated(client, tid, ["Ada", "Bea"])
    rounds = app.state.rounds
    rounds_keep = rounds.keep

    async def idle() -> None:  # no keeper: the late move itself finds the deadline past
        return None

    rounds.keep = idle
    try:
        with TestClient(app=app) as quiet:
            assert start(quiet, tid, owner).status_code == 200
            time.sleep(1.1)
            token, deal_id = seats["Ada"]
            late = move(quiet, token, deal_id, 0, "e5")
            assert (late.status_code, late.json()["code"]) == (409, "auto-placed")
            assert late.json()["placed"] == "a1"
            assert status(quiet, tid)["call"] == 1  # Bea's card was placed too
    finally:
        rounds.keep = rounds_keep


def test_the_receipt_lists_the_moves_placed_for_the_player(client: HttpClient, owner: str) -> None:
    tid = lockstep(client, owner, card_seconds=1, rounds=1)
    seats = seated(client, tid, ["Ada", "Bea"])
    ada, ada_deal = seats["Ada"]
    bea, bea_deal = seats["Bea"]
    assert start(client, tid, owner).status_code == 200
    skipped = {3, 4}
    free = list(CELLS)
    for index in range(25):
        assert move(client, ada, ada_deal, index, CELLS[index]).status_code == 200
        if index in skipped:
            wait_for(lambda i=index: status(client, tid).get("call") == i + 1)
            free.remove("a1" if index == 3 else "b1")  # the first empty cells
            continue
        played = move(client, bea, bea_deal, index, free.pop())
        assert played.status_code == 200, played.text
    answer = client.get(f"/v1/deals/{bea_deal}/receipt", headers=bearer(bea)).json()
    payload = answer["payload"]
    assert payload["auto_placed"] == [3, 4]
    assert payload["kind"] == "tournament"
    jwks = client.get("/.well-known/jwks.json").json()
    verified = verify_receipt(answer["receipt"], jwks, signature_only=True)  # seed at the close
    assert verified.payload.auto_placed == [3, 4]


def test_the_close_completes_every_open_game_of_a_started_round(
    client: HttpClient, owner: str
) -> None:
    tid = lockstep(client, owner, rounds=2)
    seats = seated(client, tid, ["Ada", "Bea"])
    ada, ada_deal = seats["Ada"]
    bea, bea_deal = seats["Bea"]
    assert start(client, tid, owner).status_code == 200
    for index in range(3):
        assert move(client, ada, ada_deal, index, CELLS[index]).status_code == 200
        assert move(client, bea, bea_deal, index, CELLS[index]).status_code == 200
    assert move(client, ada, ada_deal, 3, "e5").status_code == 200
    assert (status(client, tid)["called"], status(client, tid)["closed"]) == (4, False)
    started_at = client.get(f"/v1/tournaments/{tid}").json()["entries_closed_at"]
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    assert started_at is not None
    assert closed.json()["entries_closed_at"] == started_at  # closed when round 1 started
    # the round says it was the close that ended it, after 4 of its 25 cards were called
    ended = status(client, tid)
    assert (ended["status"], ended["called"], ended["calls"], ended["closed"]) == (
        "finished",
        4,
        25,
        True,
    )
    calls = client.get(f"/v1/tournaments/{tid}/rounds/1/calls?after=-1&wait=0").json()
    assert (len(calls["calls"]), calls["status"]["closed"]) == (4, True)
    never = status(client, tid, 2)  # round 2 never started: the close finished it, uncalled
    assert (never["status"], never["called"], never["closed"]) == ("finished", 0, True)
    page = client.get(f"/tournaments/{tid}").text  # the standings page says so, not "25 called"
    assert "cut short by the tournament's close &middot; 2 seated, 4 of 25 cards called" in page
    assert "finished &middot; nobody was seated, no card called" in page
    assert "cards called</td>" not in page.replace("4 of 25 cards called", "")
    standings = client.get(f"/v1/tournaments/{tid}/standings").json()["entrants"]
    assert {line["name"]: line["games_finished"] for line in standings} == {"Ada": 1, "Bea": 1}
    receipt = client.get(f"/v1/deals/{bea_deal}/receipt", headers=bearer(bea)).json()
    assert receipt["payload"]["auto_placed"] == list(range(3, 25))
    assert receipt["payload"]["server_seed"] is not None  # closed: revealed
    ada_receipt = client.get(f"/v1/deals/{ada_deal}/receipt", headers=bearer(ada)).json()
    assert ada_receipt["payload"]["auto_placed"] == list(range(4, 25))
    assert ada_receipt["payload"]["moves"].split()[3] == "e5"
    export = client.get(f"/v1/tournaments/{tid}/export").json()
    assert len(export["games"]) == 2


# --- who may start, what anyone sees -------------------------------------------------------


def test_only_the_organizer_starts_a_round(client: HttpClient, owner: str, app: Litestar) -> None:
    from conftest import organizer_key

    tid = lockstep(client, owner)
    token = enter(client, tid, "Ada").json()["token"]
    seat(client, tid, token)
    for headers, code in (
        ({}, 401),
        ({"Authorization": bearer(token)["Authorization"]}, 401),
        ({"Authorization": organizer_key(app, "Other Club")}, 403),
    ):
        refused = client.post(f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=headers)
        assert refused.status_code == code, refused.text
    assert status(client, tid)["status"] == "waiting"
    early = start(client, tid, owner, round_number=2)  # rounds start in order
    assert (early.status_code, early.json()["code"]) == (409, "round-order")
    assert start(client, tid, owner).status_code == 200
    empty = start(client, tid, owner, round_number=2)
    assert (empty.status_code, empty.json()["code"]) == (409, "no-seats")
    missing = start(client, tid, owner, round_number=9)
    assert (missing.status_code, missing.json()["code"]) == (404, "unknown-round")


def test_an_async_tournament_has_no_calls(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner, variant="serpent-patience", options={}, entry="public")
    tid = tid["tournament"]
    for answer in (
        client.get(f"/v1/tournaments/{tid['tournament_id']}/rounds/1"),
        client.get(f"/v1/tournaments/{tid['tournament_id']}/rounds/1/calls?wait=0"),
        start(client, tid["tournament_id"], owner),
    ):
        assert (answer.status_code, answer.json()["code"]) == (409, "not-lockstep")


def test_entries_close_at_the_first_call_and_say_so_before_anyone_tries(
    client: HttpClient, owner: str
) -> None:
    tid = lockstep(client, owner, rounds=2)
    url = f"/v1/tournaments/{tid}/entries"
    key = {"Idempotency-Key": "entry-of-ada-0123456789"}
    first = client.post(url, json={"name": "Ada"}, headers=key)
    assert first.status_code == 201
    assert client.get(f"/v1/tournaments/{tid}").json()["entries_closed_at"] is None
    seated(client, tid, ["Bea"])
    assert start(client, tid, owner).status_code == 200
    shown = client.get(f"/v1/tournaments/{tid}").json()["entries_closed_at"]
    assert shown is not None
    assert status(client, tid)["called_at"] == shown  # closed with the first call
    refused = enter(client, tid, "Cy")
    body = refused.json()
    assert (refused.status_code, body["code"], body["started_at"]) == (409, "entries-closed", shown)
    assert shown in body["detail"]
    resent = client.post(url, json={"name": "Ada"}, headers=key)  # a lost answer, asked again
    assert (resent.status_code, resent.json()) == (201, first.json())
    standings = client.get(f"/v1/tournaments/{tid}/standings").json()["entrants"]
    assert sorted(line["name"] for line in standings) == ["Ada", "Bea"]
    async_tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
    assert enter(client, async_tid, "Ada").status_code == 201
    async_read = client.get(f"/v1/tournaments/{async_tid}", headers=reader(async_tid)).json()
    assert (async_read["format"], async_read["entries_closed_at"]) == ("async", None)


def test_a_round_starts_by_itself_at_its_start_time(client: HttpClient, owner: str) -> None:
    from datetime import UTC, datetime, timedelta

    soon = datetime.now(UTC) + timedelta(seconds=2)
    later = soon + timedelta(hours=1)
    tid = lockstep(client, owner, rounds=2, round_starts=[soon.isoformat(), later.isoformat()])
    seats = seated(client, tid, ["Ada"])
    waiting = status(client, tid)
    assert waiting["status"] == "waiting"
    assert waiting["starts_at"] is not None
    wait_for(lambda: status(client, tid)["status"] == "playing", seconds=6)
    token, _ = seats["Ada"]
    late = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    assert (late.status_code, late.json()["code"]) == (409, "round-played")  # seated once
    refused = enter(client, tid, "Bea")  # the start closed the entries
    assert (refused.status_code, refused.json()["code"]) == (409, "entries-closed")
    assert refused.json()["started_at"] is not None


def test_the_rounds_of_a_tournament_closed_before_they_start_are_no_longer_due(
    client: HttpClient, owner: str, app: Litestar
) -> None:
    """A round with a start time is due from it until it starts; if its tournament closed
    first it never will, and the keeper stops looking at it (else such rounds, due for
    ever, would fill every batch of the keeper's)."""
    from datetime import UTC, datetime, timedelta

    soon = datetime.now(UTC) + timedelta(seconds=1)
    tid = lockstep(client, owner, rounds=2, round_starts=[soon.isoformat()] * 2)
    seated(client, tid, ["Ada"])
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    time.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 0.2)  # due now

    def dropped() -> bool:
        due = _run(app.state.store.due_rounds(1000))
        return all(found != tid for found, _ in due)

    wait_for(dropped, seconds=5)
    never = client.get(f"/v1/tournaments/{tid}/rounds/1/calls?wait=5").json()
    assert (never["status"]["status"], never["calls"]) == ("finished", [])  # none called


def test_a_round_its_tournament_closed_on_before_it_started_ends_its_listeners(
    client: HttpClient, owner: str
) -> None:
    """The closing time passes (no close by the organizer): round 2 never will start, so
    a long poll of it answers at once that it finished, with no card called."""
    from datetime import UTC, datetime, timedelta

    closes = datetime.now(UTC) + timedelta(seconds=1.5)
    tid = lockstep(client, owner, rounds=2, closes_at=closes.isoformat())
    seated(client, tid, ["Ada"])
    waiting = client.get(f"/v1/tournaments/{tid}/rounds/2/calls?wait=0").json()
    assert waiting["status"]["status"] == "waiting"
    time.sleep(max(0.0, (closes - datetime.now(UTC)).total_seconds()) + 0.1)
    began = time.monotonic()
    ended = client.get(f"/v1/tournaments/{tid}/rounds/2/calls?wait=10").json()
    assert time.monotonic() - began < 2
    assert (ended["status"]["status"], ended["calls"]) == ("finished", [])


# --- following the calls ---------------------------------------------------------------------


def test_the_calls_come_as_a_long_poll_and_as_server_sent_events(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    tid = lockstep(client, owner)
    cards = round_cards(app, tid)
    seats = seated(client, tid, ["Ada"])
    token, deal_id = seats["Ada"]
    nothing = client.get(f"/v1/tournaments/{tid}/rounds/1/calls?wait=0.2").json()
    assert (nothing["calls"], nothing["status"]["status"]) == ([], "waiting")
    assert start(client, tid, owner).status_code == 200
    first = client.get(f"/v1/tournaments/{tid}/rounds/1/calls?after=-1&wait=5").json()
    assert [(c["index"], c["card"]) for c in first["calls"]] == [(0, cards[0])]
    for index in range(3):
        assert move(client, token, deal_id, index, CELLS[index]).status_code == 200
    later = client.get(f"/v1/tournaments/{tid}/rounds/1/calls?after=0").json()
    assert [(c["index"], c["card"]) for c in later["calls"]] == [
        (1, cards[1]),
        (2, cards[2]),
        (3, cards[3]),
    ]
    for index in range(3, 25):
        assert move(client, token, deal_id, index, CELLS[index]).status_code == 200
    with client.stream(
        "GET",
        f"/v1/tournaments/{tid}/rounds/1/calls",
        headers={"Accept": "text/event-stream", "Last-Event-ID": "20"},
    ) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = _events(stream.iter_lines())
    assert [(name, data.get("index")) for name, data in events] == [
        ("call", 21),
        ("call", 22),
        ("call", 23),
        ("call", 24),
        ("end", None),
    ]
    assert [data["card"] for _, data in events[:4]] == cards[21:25]
    assert events[-1][1]["status"] == "finished"


def _events(lines: Iterable[str]) -> list[tuple[str, dict[str, Any]]]:
    """Server-sent events as (event, data) pairs, until ``end``."""
    events = []
    for name, data in server_sent_events(lines):
        events.append((name, json.loads(data)))
        if name == "end":
            break
    return events


def test_no_answer_names_a_card_before_its_call(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    """A seat waiting for the others probes every way it has: no uncalled card shows."""
    tid = lockstep(client, owner, rounds=1)
    cards = round_cards(app, tid)
    seats = seated(client, tid, ["Ada", "Bea"])
    ada, ada_deal = seats["Ada"]
    assert start(client, tid, owner).status_code == 200
    assert move(client, ada, ada_deal, 0, "a1").status_code == 200
    uncalled = {Card.parse(card).text for card in cards[1:]}
    probes = [
        client.get(f"/v1/deals/{ada_deal}", headers=bearer(ada)),
        move(client, ada, ada_deal, 0, "a1"),  # the same move again
        move(client, ada, ada_deal, 0, "b1"),
        move(client, ada, ada_deal, 1, "b1"),
        move(client, ada, ada_deal, 1, "a1"),
        move(client, ada, ada_deal, 2, "c1"),
        client.get(f"/v1/deals/{ada_deal}/receipt", headers=bearer(ada)),
        client.post(
            "/v1/verify",
            json={"variant": "poker-squares", "options": {"scoring": "british"},
                  "deal": {"deal_id": ada_deal}, "moves": " ".join(CELLS)},
            headers=bearer(ada),
        ),
        client.get(f"/v1/tournaments/{tid}/rounds/1"),
        client.get(f"/v1/tournaments/{tid}/rounds/1/calls?wait=0"),
        client.get(f"/v1/tournaments/{tid}/standings"),
        client.get(f"/tournaments/{tid}"),
    ]  # fmt: skip
    for answer in probes:
        assert answer.status_code < 500, answer.text
        shown = set(_card_texts(answer.text))
        assert not shown & uncalled, (answer.request.url, shown & uncalled)


def _card_texts(text: str) -> list[str]:
    import re

    return re.findall(r"\b(?:[2-9TJQKA][CDHS])\b", text)


def test_the_replay_of_a_lockstep_game_is_an_ordinary_replay(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    """Nothing in the log marks a placement: the receipt's list is the only trace."""
    tid = lockstep(client, owner, rounds=1, card_seconds=1)
    seats = seated(client, tid, ["Ada"])
    token, deal_id = seats["Ada"]
    assert start(client, tid, owner).status_code == 200
    wait_for(lambda: status(client, tid)["call"] >= 1, seconds=4)
    for index in range(1, 25):
        assert move(client, token, deal_id, index, CELLS[index]).status_code == 200
    payload = client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token)).json()["payload"]
    assert payload["auto_placed"] == [0]
    cards = round_cards(app, tid)
    game = replay_log("poker-squares", [Card.parse(c) for c in cards], {"scoring": "british"},
                      payload["moves"])  # fmt: skip
    assert game.score().total == payload["score"]["total"]


def test_the_standings_page_follows_a_round_live_and_shows_no_grid(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    tid = lockstep(client, owner, rounds=2)
    cards = round_cards(app, tid)
    seats = seated(client, tid, ["Ada", "Bea"])
    waiting = client.get(f"/tournaments/{tid}").text
    assert 'data-round="1" data-status="waiting"' in waiting
    assert "waiting for its start &middot; 2 seated" in waiting
    assert 'content="15"' in waiting  # nothing live yet: the usual reload
    assert start(client, tid, owner).status_code == 200
    for index in range(2):
        for token, deal_id in seats.values():
            assert move(client, token, deal_id, index, CELLS[index]).status_code == 200
    ada, ada_deal = seats["Ada"]
    assert move(client, ada, ada_deal, 2, CELLS[2]).status_code == 200
    page = client.get(f"/tournaments/{tid}").text
    assert 'data-round="1" data-status="playing"' in page
    assert 'card <span class="call">3</span> of 25 called' in page
    assert '<span class="placed">1</span> of 2 placed it' in page
    assert 'content="2"' in page  # a round is live: the page follows it
    assert "s left)" in page
    assert 'data-round="2" data-status="waiting"' in page
    assert 'class="grid"' not in page
    assert 'class="card' in page  # the called card only
    shown = set(_card_texts(page.replace("&#", "")))
    assert not shown & set(cards[3:]), shown & set(cards[3:])
