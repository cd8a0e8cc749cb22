"""A lockstep round over two ``cardproof serve`` processes on one Redis.

Moves for one round reach different replicas, calls are followed on the other, an
entrant idles (its cards are placed by whichever replica finds the deadline past), one
replica is killed mid-round and the other carries the round to its end, and Redis
itself goes away and comes back with the round's deadlines honoured from stored times.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from cardproof.receipts import verify_receipt
from cardproof.tournaments import round_deal
from cardproof_service.tournaments.organizers import new_organizer
from conftest import served_process
from event_stream import server_sent_events
from redis_server import RedisServer, private_redis
from test_tournaments_api import CELLS, add_organizer_to

CARD_SECONDS = 1


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def organizer(url: str) -> dict[str, str]:
    """A new organizer in the Redis at ``url``, as an Authorization header."""
    key, record = new_organizer(f"Lockstep Club {time.time_ns()}")
    assert asyncio.run(add_organizer_to(url, record))
    return {"Authorization": f"Bearer {key}"}


def lockstep_tournament(client: httpx.Client, owner: dict[str, str]) -> str:
    now = datetime.now(UTC)
    body = {
        "name": "Replicated Cup",
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": (now - timedelta(minutes=1)).isoformat(),
        "closes_at": (now + timedelta(hours=1)).isoformat(),
        "card_seconds": CARD_SECONDS,
    }
    created = ok(client.post("/v1/tournaments", json=body, headers=owner), 201)["tournament"]
    assert created["format"] == "lockstep"
    return str(created["tournament_id"])


def seat(client: httpx.Client, tid: str, name: str) -> tuple[str, str]:
    """Enter and seat ``name``: (token, deal id)."""
    token = ok(client.post(f"/v1/tournaments/{tid}/entries", json={"name": name}), 201)["token"]
    deal = ok(
        client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token)), 201
    )
    return token, deal["deal_id"]


def place(client: httpx.Client, token: str, deal_id: str, index: int, move: str) -> Any:
    """Place move ``index`` of a seat's game; the answer (200 or the test fails)."""
    body = {"index": index, "move": move}
    return ok(client.post(f"/v1/deals/{deal_id}/moves", json=body, headers=bearer(token)))


def call_index(client: httpx.Client, tid: str) -> int:
    status = ok(client.get(f"/v1/tournaments/{tid}/rounds/1"))
    return 25 if status["status"] == "finished" else int(status["call"])


def wait_for_call(client: httpx.Client, tid: str, index: int, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while call_index(client, tid) < index:
        assert time.monotonic() < deadline, f"call {index} did not come"
        time.sleep(0.05)


class Listener(threading.Thread):
    """Follows a round's calls as server-sent events, recording each (event, data)."""

    def __init__(self, base_url: str, tid: str) -> None:
        super().__init__(daemon=True)
        self.url = f"{base_url}/v1/tournaments/{tid}/rounds/1/calls"
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.connected = threading.Event()
        self.cut: httpx.HTTPError | None = None
        """How the stream ended, if the server closed it before its ``end`` event."""

    def run(self) -> None:
        try:
            self._follow()
        except httpx.HTTPError as error:
            self.cut = error

    def _follow(self) -> None:
        headers = {"Accept": "text/event-stream"}
        with httpx.stream("GET", self.url, headers=headers, timeout=60) as stream:
            self.connected.set()
            for name, data in server_sent_events(stream.iter_lines()):
                self.events.append((name, json.loads(data)))
                if name == "end":
                    return


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with private_redis("--appendonly", "yes", "--appendfsync", "always") as server:
        yield server


def replica_env(redis: RedisServer) -> dict[str, str]:
    return {"REDIS_URL": redis.url, "CARDPROOF_STORE_TIMEOUT": "0.5"}


def test_a_round_over_two_replicas_with_an_idle_entrant(redis: RedisServer) -> None:
    owner = organizer(redis.url)
    with (
        served_process("--log-level", "warning", env=replica_env(redis)) as (url_a, _),
        served_process("--log-level", "warning", env=replica_env(redis)) as (url_b, _),
        httpx.Client(base_url=url_a, timeout=10) as a,
        httpx.Client(base_url=url_b, timeout=10) as b,
    ):
        tid = lockstep_tournament(a, owner)
        ada, ada_deal = seat(a, tid, "Ada")
        bea, bea_deal = seat(b, tid, "Bea")
        idle, idle_deal = seat(a, tid, "Idle")
        listener = Listener(url_b, tid)  # calls followed on the replica the start is not
        listener.start()
        assert listener.connected.wait(10)
        started = ok(a.post(f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=owner))
        assert (started["seats"], started["call"]) == (3, 0)
        idle_until = 3  # Idle sleeps through cards 0..2, then plays
        for index in range(25):
            place(a, ada, ada_deal, index, CELLS[index])
            place(b, bea, bea_deal, index, CELLS[24 - index])
            if index >= idle_until:
                game = ok(b.get(f"/v1/deals/{idle_deal}", headers=bearer(idle)))
                free = next(
                    f"{'abcde'[c]}{r + 1}"
                    for r, row in enumerate(game["view"]["layout"])
                    for c, card in enumerate(row)
                    if card is None
                )
                place(a, idle, idle_deal, index, free)
            wait_for_call(b if index % 2 else a, tid, index + 1, seconds=5 * CARD_SECONDS + 5)
        listener.join(15)
        assert [name for name, _ in listener.events] == ["call"] * 25 + ["end"]
        assert [data["index"] for _, data in listener.events[:25]] == list(range(25))
        assert listener.events[-1][1]["status"] == "finished"
        for client in (a, b):
            assert ok(client.get(f"/v1/tournaments/{tid}/rounds/1"))["status"] == "finished"
        long_poll = ok(a.get(f"/v1/tournaments/{tid}/rounds/1/calls?after=20"))
        assert [c["index"] for c in long_poll["calls"]] == [21, 22, 23, 24]

        closed = ok(a.post(f"/v1/tournaments/{tid}/close", json={}, headers=owner))
        seed = bytes.fromhex(closed["rounds"][0]["server_seed"])
        _, deck = round_deal("poker-squares", closed["options"], seed, closed["salt"])
        assert [data["card"] for _, data in listener.events[:25]] == [c.text for c in deck[:25]]
        jwks = ok(b.get("/.well-known/jwks.json"))
        for token, deal_id, auto in ((ada, ada_deal, []), (idle, idle_deal, [0, 1, 2])):
            receipt = ok(b.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token)))
            checked = verify_receipt(receipt["receipt"], jwks)
            assert checked.replayed
            assert checked.payload.auto_placed == auto
        standings = ok(b.get(f"/v1/tournaments/{tid}/standings"))["entrants"]
        assert sorted(line["games_finished"] for line in standings) == [1, 1, 1]


def test_a_replica_killed_mid_round_stalls_nothing(redis: RedisServer) -> None:
    owner = organizer(redis.url)
    with (
        served_process("--log-level", "critical", env=replica_env(redis)) as (url_a, process_a),
        served_process("--log-level", "warning", env=replica_env(redis)) as (url_b, _),
        httpx.Client(base_url=url_a, timeout=10) as a,
        httpx.Client(base_url=url_b, timeout=10) as b,
    ):
        tid = lockstep_tournament(a, owner)
        ada, ada_deal = seat(a, tid, "Ada")
        bea, bea_deal = seat(b, tid, "Bea")
        ok(a.post(f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=owner))
        for index in range(5):
            place(a, ada, ada_deal, index, CELLS[index])
            place(b, bea, bea_deal, index, CELLS[index])
        place(a, ada, ada_deal, 5, CELLS[5])
        process_a.kill()  # mid-call: Bea has not placed card 5, and never will
        process_a.wait(10)
        wait_for_call(b, tid, 6, seconds=CARD_SECONDS + 5)  # B's keeper places it for her
        for index in range(6, 25):
            place(b, ada, ada_deal, index, CELLS[index])
            place(b, bea, bea_deal, index, CELLS[index])
        assert ok(b.get(f"/v1/tournaments/{tid}/rounds/1"))["status"] == "finished"
        receipt = ok(b.get(f"/v1/deals/{bea_deal}/receipt", headers=bearer(bea)))
        assert receipt["payload"]["auto_placed"] == [5]


def test_a_redis_outage_mid_round_keeps_every_placement_and_the_stored_deadlines(
    redis: RedisServer,
) -> None:
    owner = organizer(redis.url)
    with (
        served_process("--log-level", "critical", env=replica_env(redis)) as (url, _),
        httpx.Client(base_url=url, timeout=10) as client,
    ):
        tid = lockstep_tournament(client, owner)
        ada, ada_deal = seat(client, tid, "Ada")
        bea, bea_deal = seat(client, tid, "Bea")
        ok(client.post(f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=owner))
        for index in range(3):
            for token, deal_id in ((ada, ada_deal), (bea, bea_deal)):
                place(client, token, deal_id, index, CELLS[index])
        place(client, ada, ada_deal, 3, "e5")
        redis.stop()
        refused = client.post(
            f"/v1/deals/{bea_deal}/moves", json={"index": 3, "move": "d1"}, headers=bearer(bea)
        )
        assert refused.status_code == 503, refused.text
        assert client.get(f"/v1/tournaments/{tid}/rounds/1").status_code == 503
        time.sleep(CARD_SECONDS + 0.5)  # card 3's deadline passes while Redis is away
        redis.start()
        wait_for_call(client, tid, 4, seconds=15)  # placed for Bea from the stored time
        bea_game = ok(client.get(f"/v1/deals/{bea_deal}", headers=bearer(bea)))
        assert bea_game["moves"].split() == ["a1", "b1", "c1", "d1"]  # the first empty cell
        ada_game = ok(client.get(f"/v1/deals/{ada_deal}", headers=bearer(ada)))
        assert ada_game["moves"].split() == ["a1", "b1", "c1", "e5"]  # acknowledged: kept
        late = client.post(
            f"/v1/deals/{bea_deal}/moves", json={"index": 3, "move": "e5"}, headers=bearer(bea)
        )
        assert (late.status_code, late.json()["code"]) == (409, "auto-placed")


def test_a_stopping_server_closes_its_event_streams_and_long_polls(redis: RedisServer) -> None:
    """Listeners do not hold a stopping replica up: it closes them after its grace."""
    owner = organizer(redis.url)
    with served_process("--log-level", "critical", env=replica_env(redis)) as (url, process):
        with httpx.Client(base_url=url, timeout=10) as client:
            tid = lockstep_tournament(client, owner)
            seat(client, tid, "Ada")
        listener = Listener(url, tid)
        listener.start()
        assert listener.connected.wait(10)
        poll = threading.Thread(
            target=lambda: httpx.get(
                f"{url}/v1/tournaments/{tid}/rounds/1/calls?wait=55", timeout=60
            ),
            daemon=True,
        )
        poll.start()
        time.sleep(0.5)
        stopping = time.monotonic()
        process.terminate()
        process.wait(20)
        assert time.monotonic() - stopping < 12  # the grace (5 s), not the poll's 55 s
        listener.join(5)
        assert listener.cut is not None  # closed by the server; the client resumes elsewhere
