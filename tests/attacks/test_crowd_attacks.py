"""A crowd at one table: lockstep rounds, their listeners, entries and standings pages.

Attacks of a cheating player or a hostile client on what changed with the called game
(issue 27). Each test says whether it was a finding (fixed since) or pins a defence.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof_service import Settings, create_app
from cardproof_service.lockstep.calls import Calls
from cardproof_service.plumbing.limits import address_id
from conftest import TEST_KEYS, UNLIMITED, organizer_key
from test_tournaments_api import CELLS, bearer, enter, new_tournament

HttpClient = TestClient[Litestar]
SHARE = 4
"""CARDPROOF_LISTENERS_PER_CLIENT's default."""


@pytest.fixture
def shared_app() -> Litestar:
    """An app with the default listener share (the other limits off)."""
    return create_app(
        Settings(warm_up=False, **{**UNLIMITED, "listeners_per_client": SHARE}), keys=TEST_KEYS
    )


@pytest.fixture
def shared(shared_app: Litestar) -> Iterator[tuple[HttpClient, str]]:
    owner = organizer_key(shared_app, "Crowd Club")
    with TestClient(app=shared_app) as client:
        yield client, owner


def lockstep(client: HttpClient, owner: str, **changes: Any) -> str:
    body = new_tournament(format="lockstep", entry="public", **changes)
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    tid: str = created.json()["tournament"]["tournament_id"]
    return tid


def sit(client: HttpClient, tid: str, name: str, round_number: int = 1) -> tuple[str, str]:
    """Enter ``name`` and seat it in the round: (token, deal id)."""
    entered = enter(client, tid, name)
    assert entered.status_code == 201, entered.text
    token: str = entered.json()["token"]
    seated = client.post(
        f"/v1/tournaments/{tid}/rounds/{round_number}/deal", json={}, headers=bearer(token)
    )
    assert seated.status_code == 201, seated.text
    return token, seated.json()["deal_id"]


def start(client: HttpClient, tid: str, owner: str, round_number: int) -> Any:
    return client.post(
        f"/v1/tournaments/{tid}/rounds/{round_number}/start",
        json={},
        headers={"Authorization": owner},
    )


# --- findings: these fail today --------------------------------------------------------


def test_entries_close_when_the_first_round_to_start_starts_not_only_round_1(
    shared: tuple[HttpClient, str],
) -> None:
    """Found by attack, fixed: entries close when round 1 starts, and an organizer could
    start round 2 first.

    Then a newcomer still entered, cannot be seated in round 2 (409 round-started), and
    stands in the standings and the settlement with a round they could never play (its
    worst score), which the entries' close exists to prevent.
    """
    client, owner = shared
    tid = lockstep(client, owner, rounds=2)
    sit(client, tid, "Ada", round_number=2)
    started = start(client, tid, owner, 2)  # rounds start in order: round 1 first
    assert (started.status_code, started.json()["code"]) == (409, "round-order")
    late = enter(client, tid, "Latecomer")
    assert late.status_code == 201, late.text  # nothing started: entries are open
    assert start(client, tid, owner, 1).status_code == 409  # nobody seated in round 1
    sit(client, tid, "Bea")
    assert start(client, tid, owner, 1).status_code == 200
    assert start(client, tid, owner, 2).status_code == 200
    later = enter(client, tid, "Later still")
    assert (later.status_code, later.json()["code"]) == (409, "entries-closed")


def test_an_entrant_can_follow_their_round_whoever_else_shares_their_address(
    shared_app: Litestar, shared: tuple[HttpClient, str]
) -> None:
    """Found by attack, fixed: the listener share was per address and round, whoever asked.

    Players at one venue's Wi-Fi, behind a carrier-grade NAT or one office proxy are one
    client: four listeners (a hostile neighbour's four long polls, or just the first four
    entrants) and every other seated entrant from that address gets 429 listener-share
    on the round they are seated in, and cannot follow the calls. An entrant's own
    token for the round should get them a place of their own.
    """
    client, owner = shared
    tid = lockstep(client, owner, rounds=1)
    token, _ = sit(client, tid, "Ada")
    calls: Calls = shared_app.state.tournaments.calls
    me = address_id("testclient", TEST_KEYS.master)  # the in-process client's address
    held = [calls.admit((tid, 1), me) for _ in range(SHARE)]  # a neighbour's four polls
    try:
        polled = client.get(f"/v1/tournaments/{tid}/rounds/1/calls?wait=0", headers=bearer(token))
        assert polled.status_code == 200, (
            f"a seated entrant with its token: {polled.status_code} {polled.text[:160]}"
        )
    finally:
        for release in held:
            release()


def test_a_closed_tournaments_unplayed_round_ends_its_listeners(
    shared: tuple[HttpClient, str],
) -> None:
    """Found by attack, fixed: a lockstep round never started when its tournament closed said
    `waiting` for ever, and a long poll of it waited its whole `wait` (an event stream
    stayed open its whole hour, no `end` event): a client that follows it waits for a
    card that can never come, and any client can hold listeners on such rounds for the
    tournament's year of retention."""
    client, owner = shared
    tid = lockstep(client, owner, rounds=2)
    token, deal_id = sit(client, tid, "Ada")
    assert start(client, tid, owner, 1).status_code == 200
    for index, cell in enumerate(CELLS):
        moved = client.post(
            f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell}, headers=bearer(token)
        )
        assert moved.status_code == 200, moved.text
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    began = time.monotonic()
    polled = client.get(f"/v1/tournaments/{tid}/rounds/2/calls?wait=3")
    took = time.monotonic() - began
    assert polled.status_code == 200, polled.text
    state = polled.json()["status"]["status"]
    found = f"round 2 of a closed tournament: status {state!r}, the long poll held {took:.1f} s"
    assert state != "waiting", found
    assert took < 1.5, found


def long_solodrez_line(columns: list[list[str]]) -> str:
    """A legal 10,000-move solodrez log on the dealt columns (random transfers)."""
    import random

    from cardproof.games.solodrez import SoloDrez
    from cardproof.pokerdrez import parse_pokerdrez_cards

    solodrez = SoloDrez
    deck = solodrez.deal_of([parse_pokerdrez_cards(column) for column in columns])
    game = solodrez.new(deck, solodrez.parse_options({}))
    rng = random.Random(10_000)
    while not game.is_over():
        moves = game.legal_moves()
        transfers = [m for m in moves if ">" in game.move_text(m)]
        # a position with no transfer takes a remove (never the stop, while one is legal)
        game.play(rng.choice(transfers or moves[:-1] or moves))
    return " ".join(game.move_text(move) for move in game.moves)


def test_a_full_standings_page_fits_the_page_cache(shared: tuple[HttpClient, str]) -> None:
    """Found by attack, fixed: a standings page's weight was bounded only by 100 entrants x 50
    rounds x a 10,000-move log each (about 90 KB of HTML a game): some 450 MB a page,
    over the 64 MiB kept, so it is drawn again on every view. Live (memory store, 2
    CPUs): 50 entrants x 20 rounds of a public solodrez tournament, entered and handed
    in by one client, made a 90 MB page taking 0.8 s a view; six views at once held
    /healthz for 1.1 s and the server at 1 GB RSS. Here one game's share of a page is
    measured and scaled to the largest page the limits allow."""
    client, owner = shared
    body = new_tournament(variant="solodrez", options={}, format="async", entry="public")
    body["rounds"] = 1
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    tid = created.json()["tournament"]["tournament_id"]
    token, deal_id = sit(client, tid, "Ada")
    view = client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()["view"]
    log = long_solodrez_line(view["columns"])
    handed = client.post(
        "/v1/verify",
        json={"variant": "solodrez", "deal": {"deal_id": deal_id}, "moves": log},
        headers=bearer(token),
    )
    assert handed.status_code == 200, handed.text[:300]
    empty_tid = client.post(
        "/v1/tournaments",
        json={**body, "name": "Empty"},
        headers={"Authorization": owner},
    ).json()["tournament"]["tournament_id"]
    sit(client, empty_tid, "Ada")
    for closing in (tid, empty_tid):
        closed = client.post(
            f"/v1/tournaments/{closing}/close", json={}, headers={"Authorization": owner}
        )
        assert closed.status_code == 200, closed.text
    page = client.get(f"/tournaments/{tid}")
    blank = client.get(f"/tournaments/{empty_tid}")
    assert page.status_code == blank.status_code == 200
    per_game = len(page.content) - len(blank.content)
    worst_page = per_game * 100 * 50  # a page's 100 entrants, each with 50 rounds
    assert worst_page <= 64 * 2**20, (
        f"one 10,000-move game adds {per_game / 1e3:.0f} KB to a page: a page of 100 "
        f"entrants x 50 rounds weighs {worst_page / 1e6:.0f} MB, drawn on every view"
    )


# --- defences: these pass today --------------------------------------------------------


@pytest.mark.parametrize("spelling", ["01", "001", "+1", "0001"])
def test_other_spellings_of_a_round_share_its_listener_share(
    shared_app: Litestar, shared: tuple[HttpClient, str], spelling: str
) -> None:
    """DEFENCE. A round number spelled another way is the same round: no fresh share."""
    client, owner = shared
    tid = lockstep(client, owner, rounds=1)
    sit(client, tid, "Ada")
    calls: Calls = shared_app.state.tournaments.calls
    me = address_id("testclient", TEST_KEYS.master)
    held = [calls.admit((tid, 1), me) for _ in range(SHARE)]
    try:
        polled = client.get(f"/v1/tournaments/{tid}/rounds/{spelling}/calls?wait=0")
        assert polled.status_code in (400, 404, 429), polled.text
    finally:
        for release in held:
            release()


def test_no_card_is_placed_twice_early_late_or_by_another_seat(
    shared: tuple[HttpClient, str],
) -> None:
    """DEFENCE. Before the start, for an uncalled card, another move for a placed card,
    another entrant's token: all refused, and the first placement stands."""
    client, owner = shared
    tid = lockstep(client, owner, rounds=1)
    ada, ada_deal = sit(client, tid, "Ada")
    bob, _ = sit(client, tid, "Bob")

    def move(token: str, index: int, cell: str) -> tuple[int, Any]:
        answer = client.post(
            f"/v1/deals/{ada_deal}/moves",
            json={"index": index, "move": cell},
            headers=bearer(token),
        )
        return answer.status_code, answer.json().get("code")

    assert move(ada, 0, "a1") == (409, "not-called")
    assert start(client, tid, owner, 1).status_code == 200
    assert move(bob, 0, "e5")[0] == 403
    assert move(ada, 0, "a1")[0] == 200
    assert move(ada, 1, "b1") == (409, "not-called")
    assert move(ada, 0, "b1") == (409, "move-conflict")
    assert client.get(f"/v1/deals/{ada_deal}", headers=bearer(ada)).json()["moves"] == "a1"
    late = enter(client, tid, "Latecomer")
    assert (late.status_code, late.json()["code"]) == (409, "entries-closed")
