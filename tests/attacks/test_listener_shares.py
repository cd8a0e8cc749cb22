"""One client cannot take every listener of a round: a share per client, a cap per process.

A client once opened 10,150 event streams on a waiting round; every other entrant's long
poll then got 503, and the streams past the cap were answered 200 and broken off. Now a
client holds at most its share of one round's streams and long polls (429
``listener-share`` past it), the process at most its cap (503 ``too-many-listeners``),
both answered as problems before any byte of a stream, and a stream that ends, or whose
client goes away, gives its place back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.testing import TestClient

import cardproof_service.lockstep.calls as calls_module
from cardproof_service import Settings, create_app
from cardproof_service.lockstep.calls import Calls
from cardproof_service.plumbing.limits import address_id
from cardproof_service.tournaments.tournaments import Access
from conftest import TEST_KEYS, UNLIMITED, organizer_key, served
from test_tournaments_api import bearer, enter, new_tournament

SHARE = 3
STREAM = {"Accept": "text/event-stream"}


@pytest.fixture
def shared_app() -> Litestar:
    limits = {**UNLIMITED, "listeners_per_client": SHARE}
    return create_app(Settings(warm_up=False, **limits), keys=TEST_KEYS)


def waiting_round(client: TestClient[Litestar] | httpx.Client, owner: str) -> str:
    body = new_tournament(format="lockstep", entry="public")
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    tid: str = created.json()["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]  # type: ignore[arg-type]
    seated = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    assert seated.status_code == 201, seated.text
    return tid


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status  # checked before reading: a 200 stream never ends
    answer.read()
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == code
    assert int(answer.headers["retry-after"]) >= 1


def stream_refusal(app: Litestar, tid: str, client: str) -> int | None:
    """The status an event stream of round 1 is refused with, before any byte (None: 200).

    Asked of the service itself: an in-process test client reads a 200 stream to its end,
    which a waiting round's stream never reaches (the served test below asks over HTTP).
    """
    tournaments = app.state.tournaments
    try:
        events = asyncio.run(tournaments.round_stream(tid, 1, Access(), -1, client=client))
    except ProblemDetailsException as refusal:
        return refusal.status_code
    asyncio.run(events.aclose())
    return None


def test_past_its_share_a_client_gets_429_and_others_still_listen(shared_app: Litestar) -> None:
    owner = organizer_key(shared_app, "Share Club")
    with TestClient(app=shared_app) as client:
        tid = waiting_round(client, owner)
        calls: Calls = shared_app.state.tournaments.calls
        me = address_id("testclient", TEST_KEYS.master)  # the test client's address
        held = [calls.admit((tid, 1), me) for _ in range(SHARE)]  # three open listeners
        url = f"/v1/tournaments/{tid}/rounds/1/calls"
        assert stream_refusal(shared_app, tid, me) == 429  # before a stream is made

        refused(client.get(f"{url}?wait=0"), 429, "listener-share")
        other_round = waiting_round(client, owner)  # a share is per round
        polled = client.get(f"/v1/tournaments/{other_round}/rounds/1/calls?wait=0")
        assert polled.status_code == 200, polled.text
        calls.admit((tid, 1), "another client")()  # another client has room
        held.pop()()
        again = client.get(f"{url}?wait=0")  # a place given back is free again
        assert again.status_code == 200, again.text
        for release in held:
            release()
        assert calls._listeners == 0


def test_past_the_process_cap_a_stream_is_503_never_200(
    shared_app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = organizer_key(shared_app, "Cap Club")
    monkeypatch.setattr(calls_module, "MAX_LISTENERS", 2)
    with TestClient(app=shared_app) as client:
        tid = waiting_round(client, owner)
        calls: Calls = shared_app.state.tournaments.calls
        held = [calls.admit((tid, 1), f"client {n}") for n in range(2)]
        url = f"/v1/tournaments/{tid}/rounds/1/calls"
        assert stream_refusal(shared_app, tid, "a third client") == 503
        refused(client.get(f"{url}?wait=0"), 503, "too-many-listeners")
        for release in held:
            release()
        assert client.get(f"{url}?wait=0").status_code == 200


def test_a_release_counts_once() -> None:
    calls = Calls(store=None, rounds=None, share=1)  # type: ignore[arg-type]
    release = calls.admit(("t", 1), "me")
    release()
    release()  # a second call (the stream's end, then its finalizer) gives nothing back twice
    assert calls._listeners == 0
    calls.admit(("t", 1), "me")
    with pytest.raises(ProblemDetailsException) as full:
        calls.admit(("t", 1), "me")
    assert full.value.status_code == 429


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    organizers = tmp_path_factory.mktemp("organizers") / "organizers.json"
    env = {
        "CARDPROOF_ORGANIZERS_FILE": str(organizers),
        "REDIS_URL": "",
        "CARDPROOF_LISTENERS_PER_CLIENT": str(SHARE),
    }
    with served("--log-level", "warning", env=env) as url:
        import os
        import subprocess
        import sys
        from pathlib import Path

        made = subprocess.run(
            [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create", "S"],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=60,
            check=True,
        )
        yield url, f"Bearer {made.stdout.strip()}"


def test_real_streams_past_the_share_are_refused_and_a_closed_one_frees_its_place(
    server: tuple[str, str],
) -> None:
    url, owner = server
    with httpx.Client(base_url=url, timeout=10) as client, ExitStack() as streams:
        tid = waiting_round(client, owner)
        path = f"/v1/tournaments/{tid}/rounds/1/calls"
        opened: list[Any] = []
        for _ in range(SHARE):
            stream = streams.enter_context(client.stream("GET", path, headers=STREAM))
            assert stream.status_code == 200
            opened.append(stream)
        with client.stream("GET", path, headers=STREAM) as past:
            refused(past, 429, "listener-share")
        opened[0].close()  # the client goes away: its place comes back
        deadline = time.monotonic() + 10
        while True:
            answer = client.get(f"{path}?wait=0")
            if answer.status_code == 200:
                break
            assert answer.status_code == 429, answer.text
            assert time.monotonic() < deadline, "a closed stream kept its place"
            time.sleep(0.2)
