"""The called game pinned to the millisecond, on a store clock the test holds.

Lockstep rounds read every time from the store's clock (Redis's, or the memory store's
``now_ms``). Here the memory store's clock stands still until the test moves it, so each
rule is checked at its exact edge: a card is placed for an idle seat at its deadline and
not a millisecond before, only for the seats that have not placed it, a scheduled round
starts at its time to the millisecond, every call states its deadline as its card's
seconds after its call, the close completes the open games at once, and no round says a
negative time is left.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof_service.lockstep.rounds import Rounds
from cardproof_service.store import RoundState
from conftest import Clock, organizer_key
from test_tournaments_api import CELLS, bearer, enter, new_tournament

HttpClient = TestClient[Litestar]


def tournament(client: HttpClient, owner: str, **changes: Any) -> str:
    body = new_tournament(**{"format": "lockstep", "entry": "public", "card_seconds": 2, **changes})
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    return str(created.json()["tournament"]["tournament_id"])


def seat_all(client: HttpClient, tid: str, names: list[str]) -> dict[str, tuple[str, str]]:
    seats = {}
    for name in names:
        token = enter(client, tid, name).json()["token"]
        opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
        assert opened.status_code == 201, opened.text
        seats[name] = (token, opened.json()["deal_id"])
    return seats


def status(client: HttpClient, tid: str) -> dict[str, Any]:
    answer = client.get(f"/v1/tournaments/{tid}/rounds/1")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def game(client: HttpClient, seat: tuple[str, str]) -> dict[str, Any]:
    """A seat's deal as stored (reading it moves no round on)."""
    token, deal_id = seat
    found: dict[str, Any] = client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()
    return found


def start(client: HttpClient, tid: str, owner: str) -> None:
    started = client.post(
        f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
    )
    assert started.status_code == 200, started.text


def place(client: HttpClient, seat: tuple[str, str], index: int) -> None:
    token, deal_id = seat
    placed = client.post(
        f"/v1/deals/{deal_id}/moves",
        json={"index": index, "move": CELLS[index]},
        headers=bearer(token),
    )
    assert placed.status_code == 200, placed.text


def ms(text: str) -> int:
    """An RFC 3339 time with milliseconds, as milliseconds since the epoch."""
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


@pytest.mark.parametrize("idle_first", [True, False])
def test_an_idle_seat_gets_its_card_at_the_deadline_and_no_one_else_does(
    held_app: Litestar, held: HttpClient, clock: Clock, idle_first: bool
) -> None:
    owner = organizer_key(held_app, "Clock Club")
    tid = tournament(held, owner)
    names = ["Idle", "Ada", "Bea"] if idle_first else ["Ada", "Bea", "Idle"]
    seats = seat_all(held, tid, names)
    start(held, tid, owner)
    called_at = clock.ms
    place(held, seats["Ada"], 0)
    place(held, seats["Bea"], 0)
    clock.ms = called_at + 2000 - 1  # a millisecond before the deadline: nothing happens
    before = status(held, tid)
    assert (before["call"], before["placed"], before["seconds_left"]) == (0, 2, 0.001)
    assert game(held, seats["Idle"])["moves"] == ""
    clock.ms = called_at + 2000  # the deadline: the idle seat's card is placed
    store = held_app.state.store
    place_late = store.place_late
    placed: list[str] = []

    async def counted(tid: str, number: int, call: int, *args: Any) -> Any:
        done = await place_late(tid, number, call, *args)
        placed.extend(done)
        return done

    store.place_late = counted  # the seats that placed card 0 get nothing placed
    try:
        after = status(held, tid)
    finally:
        del store.place_late
    assert placed == [seats["Idle"][1]]
    assert (after["call"], after["placed"]) == (1, 0)
    assert ms(after["called_at"]) == called_at + 2000
    assert game(held, seats["Idle"])["moves"] == "a1"
    for name in ("Ada", "Bea"):  # they placed card 0: card 1 is theirs to place
        assert game(held, seats[name])["moves"] == CELLS[0], name
        assert game(held, seats[name])["next_index"] == 1, name


def test_every_call_states_its_deadline_as_its_cards_seconds_after_it(
    held_app: Litestar, held: HttpClient, clock: Clock
) -> None:
    owner = organizer_key(held_app, "Deadline Club")
    tid = tournament(held, owner, card_seconds=7)
    seats = seat_all(held, tid, ["Ada"])
    start(held, tid, owner)
    for index in range(3):
        clock.ms += 1234  # each card placed a while after its call
        place(held, seats["Ada"], index)
    now = status(held, tid)
    assert ms(now["deadline"]) - ms(now["called_at"]) == 7000
    assert now["seconds_left"] == 7.0
    polled = held.get(f"/v1/tournaments/{tid}/rounds/1/calls?after=-1&wait=0").json()["calls"]
    assert [call["index"] for call in polled] == [0, 1, 2, 3]
    for call in polled:
        assert ms(call["deadline"]) - ms(call["called_at"]) == 7000, call
    # the event stream's calls are the same Call values (lockstep.call_of), encoded once


def test_a_scheduled_round_starts_at_its_time_to_the_millisecond(
    held_app: Litestar, held: HttpClient, clock: Clock
) -> None:
    owner = organizer_key(held_app, "Schedule Club")
    at = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)
    tid = tournament(held, owner, rounds=1, round_starts=[at.isoformat()])
    seat_all(held, tid, ["Ada"])
    start_ms = int(at.timestamp()) * 1000
    clock.ms = start_ms - 1
    assert status(held, tid)["status"] == "waiting"
    clock.ms = start_ms
    playing = status(held, tid)
    assert (playing["status"], playing["call"]) == ("playing", 0)
    assert ms(playing["called_at"]) == start_ms


def test_the_close_completes_the_open_games_at_once(
    held_app: Litestar, held: HttpClient, clock: Clock
) -> None:
    owner = organizer_key(held_app, "Closing Club")
    tid = tournament(held, owner)
    seats = seat_all(held, tid, ["Ada", "Bea"])
    start(held, tid, owner)
    place(held, seats["Ada"], 0)
    closed = held.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    for name in ("Ada", "Bea"):  # read as stored: nothing else has moved the round on
        stored = game(held, seats[name])
        assert (stored["finished"], stored["next_index"]) == (True, 25), name
    standings = held.get(f"/v1/tournaments/{tid}/standings").json()["entrants"]
    assert {line["name"]: line["games_finished"] for line in standings} == {"Ada": 1, "Bea": 1}


def test_no_round_says_a_negative_time_is_left(held_app: Litestar, held: HttpClient) -> None:
    owner = organizer_key(held_app, "Late Club")
    tid = tournament(held, owner)
    seat_all(held, tid, ["Ada"])
    start(held, tid, owner)
    rounds: Rounds = held_app.state.rounds
    store = held_app.state.store
    record = asyncio.run(store.get_tournament(tid))
    state: RoundState = asyncio.run(store.round_state(tid, 1))
    # read after the deadline, before anyone placed the card
    late = msgspec.structs.replace(state, now=state.deadline + 5_000)
    described = asyncio.run(rounds.describe(record, 1, late))
    assert described.seconds_left == 0


# --- entries close at round 1's start time, whether or not the round was started -----------


def scheduled(held_app: Litestar, held: HttpClient, clock: Clock) -> tuple[str, int]:
    """A lockstep tournament whose round 1 starts in five minutes, Ada seated: (id, start ms).

    Nothing has started it when its time comes: the keeper rests (``held_app``), and
    the test asks nothing that would start it before what it checks.
    """
    owner = organizer_key(held_app, "Start Time Club")
    at = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=5)
    tid = tournament(held, owner, rounds=1, round_starts=[at.isoformat()])
    seat_all(held, tid, ["Ada"])
    start_ms = int(at.timestamp()) * 1000
    clock.ms = start_ms - 1
    assert held.get(f"/v1/tournaments/{tid}").json()["entries_closed_at"] is None
    assert enter(held, tid, "Bea").status_code == 201  # a millisecond before: still open
    clock.ms = start_ms
    state = asyncio.run(held_app.state.store.round_state(tid, 1))
    assert state.started_at is None  # its time has come, and nobody has started it
    return tid, start_ms


def test_an_entry_after_round_ones_start_time_is_refused_while_the_keeper_rests(
    held_app: Litestar, held: HttpClient, clock: Clock
) -> None:
    """The entry itself starts a round whose time has come, then is refused: a late
    entrant is never seated in the standings of a round they could not play."""
    tid, start_ms = scheduled(held_app, held, clock)
    late = enter(held, tid, "Cy")
    assert late.status_code == 409, late.text
    assert late.json()["code"] == "entries-closed"
    assert ms(late.json()["started_at"]) == start_ms
    playing = status(held, tid)
    assert (playing["status"], ms(playing["called_at"])) == ("playing", start_ms)
    standings = held.get(f"/v1/tournaments/{tid}/standings").json()["entrants"]
    assert sorted(line["name"] for line in standings) == ["Ada", "Bea"]


def test_a_passed_start_time_shows_the_entries_closed_before_the_round_starts(
    held_app: Litestar, held: HttpClient, clock: Clock
) -> None:
    """``entries_closed_at`` is round 1's start time once it has passed, even before any
    replica has started the round (reading the tournament starts nothing)."""
    tid, start_ms = scheduled(held_app, held, clock)
    clock.ms = start_ms + 1500
    shown = held.get(f"/v1/tournaments/{tid}").json()["entries_closed_at"]
    assert shown is not None
    assert ms(shown) == start_ms
    assert asyncio.run(held_app.state.store.round_state(tid, 1)).started_at is None
    late = enter(held, tid, "Cy")
    assert late.status_code == 409, late.text
    assert late.json()["code"] == "entries-closed"
