"""One address cannot take a replica's listener room: a cap per address, room kept for seats.

Found by attack (issue 37): one address took all 10,000 listener slots of a replica, 250
entries in a public tournament x 10 rounds x the share of 4 per token (the share was
counted per token and round, and every entry mints a token). A real entrant then got
``503 too-many-listeners``. Now every listener also counts against its address, across
rounds (``CARDPROOF_LISTENERS_PER_ADDRESS``, 429 ``listeners-per-address`` past it), and
the last :data:`~cardproof_service.lockstep.calls.SEAT_RESERVE` of a process's room is kept for
seats' first listeners: a seated entrant's first stream of its round gets in while the
process has any room, past its address's cap too (its neighbours behind one NAT may hold
the cap).

The streams are asked of the service (``Tournaments.round_stream``, as the controller
does) in the app's own loop, and kept unread: a stream counts from its making (before
its first byte) until it ends or is dropped. On the memory store and on Redis: whether
an entrant is seated is read from the store.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from litestar import Litestar
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.testing import TestClient

import cardproof_service.lockstep.calls as calls_module
from cardproof_service import Settings, create_app
from cardproof_service.lockstep.calls import Calls
from cardproof_service.plumbing.limits import address_id
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from cardproof_service.tournaments.tournaments import Access
from conftest import TEST_KEYS, UNLIMITED, organizer_key
from redis_server import redis_url_or_skip
from test_tournaments_api import add_organizer_to, bearer, enter, new_tournament

HttpClient = TestClient[Litestar]
SHARE = Settings().listeners_per_client
PER_ADDRESS = Settings().listeners_per_address
"""The defaults: the attack below is made against them (a raised cap lets it through)."""
MALLORY = address_id("198.51.100.66", TEST_KEYS.master)
ADA = address_id("198.51.100.7", TEST_KEYS.master)
CLIFF = address_id("198.51.100.9", TEST_KEYS.master)
Listened = AsyncIterator[bytes] | ProblemDetailsException


@contextmanager
def app_on(store: str) -> Iterator[tuple[HttpClient, str]]:
    """A test client of an app with the default listener limits, and an organizer's key.

    Entries are not limited per address here: the listener rules must hold without it
    (entries made from many addresses can all be followed from one).
    """
    limits = {**UNLIMITED, "listeners_per_client": SHARE, "listeners_per_address": PER_ADDRESS}
    settings = Settings(warm_up=False, **limits)
    if store == "memory":
        app = create_app(settings, keys=TEST_KEYS)
        owner = organizer_key(app, "Room Club")
        with TestClient(app=app) as client:
            yield client, owner
        return
    with redis_url_or_skip() as url:
        app = create_app(settings, keys=TEST_KEYS, store=RedisStore.from_url(url))
        key, record = new_organizer(f"Room Club {time.time_ns()}")
        assert asyncio.run(add_organizer_to(url, record))
        with TestClient(app=app) as client:
            yield client, f"Bearer {key}"


def lockstep(client: HttpClient, owner: str, rounds: int) -> str:
    body = new_tournament(format="lockstep", entry="public", rounds=rounds)
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    tid: str = created.json()["tournament"]["tournament_id"]
    return tid


def seated(client: HttpClient, tid: str, name: str, rounds: range) -> str:
    """A new entrant's token, seated in ``rounds`` (its game of each opened)."""
    entry = enter(client, tid, name)
    assert entry.status_code == 201, entry.text
    token: str = entry.json()["token"]
    for number in rounds:
        opened = client.post(
            f"/v1/tournaments/{tid}/rounds/{number}/deal", json={}, headers=bearer(token)
        )
        assert opened.status_code == 201, opened.text
    return token


def listen(client: HttpClient, tid: str, asks: list[tuple[int, str, str | None]]) -> list[Listened]:
    """Ask for an event stream of round ``n`` from ``address`` (with a token), per ask.

    Each answer: the stream (made, unread: it holds its place), or the refusal.
    """
    tournaments = client.app.state.tournaments

    async def ask() -> list[Listened]:
        answers: list[Listened] = []
        for number, address, token in asks:
            access = Access(f"Bearer {token}") if token else Access()
            try:
                answers.append(
                    await tournaments.round_stream(tid, number, access, -1, client=address)
                )
            except ProblemDetailsException as refusal:
                answers.append(refusal)
        return answers

    answers: list[Listened] = client.blocking_portal.call(ask)
    return answers


def why(answer: Listened) -> tuple[int, str] | None:
    """``None`` for a stream let in; the status and code of a refusal."""
    if isinstance(answer, ProblemDetailsException):
        extra = answer.extra if isinstance(answer.extra, dict) else {}
        return answer.status_code, str(extra.get("code"))
    return None


def calls_of(client: HttpClient) -> Calls:
    calls: Calls = client.app.state.tournaments.calls
    return calls


def let_go(client: HttpClient, *held: list[Any]) -> None:
    """Drop the streams made (each gives its place back): every count back to nothing."""
    for answers in held:
        answers.clear()
    gc.collect()
    calls = calls_of(client)
    assert (calls._listeners, calls._held, calls._addresses) == (0, {}, {})


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_one_address_with_many_entries_cannot_starve_a_seated_entrant(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack, scaled to a replica of 400 places: 25 entries x 4 rounds x 5 streams.

    Seats in rounds ahead of the next to start keep no room past the address's cap.
    """
    monkeypatch.setattr(calls_module, "MAX_LISTENERS", 400)  # 40 kept for seats
    entries, rounds = 25, range(1, 5)
    with app_on(store) as (client, owner):
        tid = lockstep(client, owner, len(rounds))
        tokens = [seated(client, tid, f"Sock {n}", rounds) for n in range(entries)]
        ada = seated(client, tid, "Ada", range(1, 2))
        fay = seated(client, tid, "Fay", range(1, 2))  # Mallory's neighbour, behind her NAT
        asks: list[tuple[int, str, str | None]] = [
            (number, MALLORY, token)
            for token in tokens
            for number in rounds
            for _ in range(SHARE + 1)  # one past the token's share, too
        ]
        asks += [(number, MALLORY, None) for number in rounds for _ in range(SHARE)]
        mallory = listen(client, tid, asks)
        refused = Counter(why(answer) for answer in mallory)
        let_in = refused.pop(None)
        assert (429, "listeners-per-address") in refused, refused
        assert set(refused) <= {(429, "listeners-per-address"), (429, "listener-share")}
        # each seat's first stream of round 1 (the next to start), and the cap: seats in
        # rounds further ahead keep no room past the cap (found by the red team: seated
        # in 50 rounds, four entries held 200 streams past it)
        assert entries <= let_in <= entries + PER_ADDRESS
        over = listen(client, tid, [(1, MALLORY, None), (2, MALLORY, tokens[-1])])
        assert [why(answer) for answer in over] == [(429, "listeners-per-address")] * 2
        started = client.post(
            f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
        )
        assert started.status_code == 200, started.text
        # round 1 under way: round 2 is next, its seats' first streams get in again
        ahead = listen(client, tid, [(2, MALLORY, tokens[-1]), (3, MALLORY, tokens[-1])])
        assert [why(answer) for answer in ahead] == [None, (429, "listeners-per-address")]

        others = listen(client, tid, [(1, ADA, ada), (1, MALLORY, fay), (1, CLIFF, None)])
        assert [why(answer) for answer in others] == [None, None, None]  # Ada, Fay, Cliff
        let_go(client, mallory, over, ahead, others)


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_the_last_tenth_of_the_room_is_for_seats_first_streams(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calls_module, "MAX_LISTENERS", 20)  # 18 for anyone, 2 kept for seats
    with app_on(store) as (client, owner):
        tid = lockstep(client, owner, 2)
        ada, bea, cy = (seated(client, tid, name, range(1, 2)) for name in ("Ada", "Bea", "Cy"))
        dee = seated(client, tid, "Dee", range(2, 3))  # seated in round 2 only
        crowd = listen(
            client,
            tid,
            [(1, address_id(f"192.0.2.{n}", TEST_KEYS.master), None) for n in range(18)],
        )
        assert [why(answer) for answer in crowd] == [None] * 18
        room = "too-many-listeners"
        late = listen(
            client,
            tid,
            [
                (1, CLIFF, None),  # anyone else: the rest is kept
                (1, CLIFF, dee),  # a token, but not seated in round 1
                (1, ADA, ada),  # a seat's first stream: in
                (1, ADA, ada),  # its second is anyone's
                (1, MALLORY, bea),  # a seat's first, from any address: in (the 20th)
                (1, ADA, cy),  # a seat's first, but the process is full
            ],
        )
        assert [why(answer) for answer in late] == [
            (503, room),
            (503, room),
            None,
            (503, room),
            None,
            (503, room),
        ]
        crowd.pop()  # one of the crowd goes: a seat's first stream takes its place
        gc.collect()
        again = listen(client, tid, [(1, CLIFF, None), (1, ADA, cy)])
        assert [why(answer) for answer in again] == [(503, room), None]
        let_go(client, crowd, late, again)
