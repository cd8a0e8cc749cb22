"""Late placements in batches: many idle seats, one store step a batch, none on the loop.

At a call's deadline the idle seats' cards are placed :data:`~cardproof_service.late.
SEAT_BATCH` at a time (made small here so that a few seats make several batches): each
batch in one ``place_late`` step, its moves decided in the replay threads, its games
replayed only the first time (this process keeps them at their next index), a player's
move that came first left standing. Two replicas over one Redis share a deadline's
batches (each taken once, every seat placed once, the next card called once), and a
batch taken by a replica that died is placed by another once its lease is over.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any, TypeVar

import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.late as late
from cardproof.games import variant
from cardproof.tournaments import round_deal
from cardproof_service import Settings, create_app
from cardproof_service.lockstep import Rounds
from cardproof_service.organizers import new_organizer
from cardproof_service.store import LatePlacement, MemoryStore, Store
from cardproof_service.store.redis import RedisStore
from conftest import TEST_KEYS, UNLIMITED, Clock, organizer_key
from redis_server import RedisServer, private_redis
from test_lockstep_clock import (
    game,
    seat_all,
    start,
    status,
    tournament,
)
from test_tournaments_api import add_organizer_to, bearer

HttpClient = TestClient[Litestar]
T = TypeVar("T")
NAMES = [f"Seat {n:02d}" for n in range(10)]


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four seats a batch: ten seats make three."""
    monkeypatch.setattr(late, "SEAT_BATCH", 4)


def held_app(store: Store) -> Litestar:
    """An app whose keeper is idle: only requests move its rounds on."""
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS, store=store)
    rounds: Rounds = app.state.deals.rounds

    async def idle() -> None:
        return None

    rounds.keep = idle  # type: ignore[method-assign]
    return app


class Steps:
    """What a store was asked: each ``place_late`` step's seats, and the seats read whole."""

    def __init__(self, store: Store) -> None:
        self.placed: list[list[str]] = []
        self.read: list[str] = []
        place_late, get_deals = store.place_late, store.get_deals

        async def counted_place(*args: Any) -> list[str]:
            seats: list[LatePlacement] = args[-1]
            self.placed.append([seat.deal_id for seat in seats])
            return await place_late(*args)

        async def counted_read(deal_ids: list[str]) -> Any:
            self.read.extend(deal_ids)
            return await get_deals(deal_ids)

        setattr(store, "place_late", counted_place)  # noqa: B010  (a method of this store only)
        setattr(store, "get_deals", counted_read)  # noqa: B010


@pytest.fixture
def memory_app() -> Litestar:
    return held_app(MemoryStore())


def move(client: HttpClient, seat: tuple[str, str], index: int, text: str) -> None:
    """A seat's own move (200, or the test fails)."""
    token, deal_id = seat
    body = {"index": index, "move": text}
    placed = client.post(f"/v1/deals/{deal_id}/moves", json=body, headers=bearer(token))
    assert placed.status_code == 200, placed.text


def called_next(app: Litestar, tid: str) -> str:
    """The round's card 1: the second card of its deck, whoever placed what."""
    record = asyncio.run(app.state.store.get_tournament(tid))
    seed = app.state.deals.commitments.server_seed(f"{tid}:round-1")
    _, deck = round_deal(record.variant, record.options, seed, record.salt)
    return str(deck[1])


def first_legal_cells(app: Litestar, tid: str, deal_id: str, upto: int) -> list[str]:
    """The moves a seat idle from the start has after ``upto`` calls: first legal each time."""
    record = asyncio.run(app.state.store.get_tournament(tid))
    seed = app.state.deals.commitments.server_seed(f"{tid}:round-1")
    options, deck = round_deal(record.variant, record.options, seed, record.salt)
    played = variant(record.variant)(deck, options)
    for _ in range(upto):
        played.play(played.legal_moves()[0])
    return [played.move_text(move) for move in played.moves]


def test_idle_seats_are_placed_a_batch_a_step_off_the_loop_and_replayed_once(
    memory_app: Litestar, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    store: Store = memory_app.state.store
    steps = Steps(store)
    threads: list[str] = []
    decide = late.LatePlacements._decide

    def watched(self: late.LatePlacements, *args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return decide(self, *args)

    monkeypatch.setattr(late.LatePlacements, "_decide", watched)
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Batch Club")
        tid = tournament(client, owner)
        seats = seat_all(client, tid, NAMES)
        start(client, tid, owner)
        active = seats[NAMES[3]]  # places its own card 0: the other nine idle
        client.post(
            f"/v1/deals/{active[1]}/moves",
            json={"index": 0, "move": "e5"},
            headers=bearer(active[0]),
        ).raise_for_status()
        clock.ms += 2000
        first = status(client, tid)
        assert (first["call"], first["placed"]) == (1, 0)
        assert first["card"] == called_next(memory_app, tid)
        idle = [seats[name][1] for name in NAMES if name != NAMES[3]]
        offered = sorted(deal for step in steps.placed for deal in step)
        assert offered == sorted(idle)  # the active seat is never offered
        assert [len(step) for step in steps.placed] == [3, 4, 2]  # batch 0 holds the active one
        assert sorted(steps.read) == sorted(idle)  # read (and replayed) once, the first time
        assert threads
        assert all(name.startswith("cardproof-replay") for name in threads)
        expected = first_legal_cells(memory_app, tid, idle[0], 1)
        for name in NAMES:
            found = game(client, seats[name])
            if name == NAMES[3]:
                assert (found["moves"], found["next_index"]) == ("e5", 1)
            else:
                assert found["moves"].split() == expected, name
        steps.placed.clear()
        steps.read.clear()
        client.post(
            f"/v1/deals/{active[1]}/moves",
            json={"index": 1, "move": "a1"},
            headers=bearer(active[0]),
        ).raise_for_status()
        clock.ms += 2000
        second = status(client, tid)
        assert (second["call"], second["placed"]) == (2, 0)
        assert steps.read == []  # every idle game was kept at its next index
        assert sorted(deal for step in steps.placed for deal in step) == sorted(idle)
        expected = first_legal_cells(memory_app, tid, idle[0], 2)
        stored = asyncio.run(store.get_deal(idle[-1]))
        assert stored is not None
        assert (stored.moves, stored.auto_placed) == (expected, [0, 1])


def test_an_idle_round_plays_to_its_end_with_receipts_and_standings(
    memory_app: Litestar, clock: Clock
) -> None:
    """Every card placed late, to the last: each game finished, signed and counted."""
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Idle Club")
        tid = tournament(client, owner)
        seats = seat_all(client, tid, NAMES[:6])
        start(client, tid, owner)
        for call in range(25):
            clock.ms += 2000
            now = status(client, tid)
            assert now["status"] == ("finished" if call == 24 else "playing"), call
        expected = first_legal_cells(memory_app, tid, "", 25)
        totals = set()
        for name in NAMES[:6]:
            token, deal_id = seats[name]
            found = game(client, seats[name])
            assert (found["moves"].split(), found["finished"]) == (expected, True)
            receipt = client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token))
            assert receipt.status_code == 200, receipt.text
            assert receipt.json()["payload"]["auto_placed"] == list(range(25))
            totals.add(found["score"]["total"])
        standings = client.get(f"/v1/tournaments/{tid}/standings").json()["entrants"]
        assert {line["total"] for line in standings} == totals
        assert [line["games_finished"] for line in standings] == [1] * 6


def test_a_players_move_that_came_first_stands(
    memory_app: Litestar, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counts read before a player's last-moment move: the store step leaves it be."""
    store: Store = memory_app.state.store
    counts = store.move_counts
    steps = Steps(store)
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Race Club")
        tid = tournament(client, owner)
        seats = seat_all(client, tid, NAMES[:3])
        start(client, tid, owner)
        racer = seats[NAMES[1]]

        async def stale(deal_ids: list[str]) -> list[int]:
            found = await counts(deal_ids)
            clock.ms -= 1  # the racer's move lands just before its deadline...
            moved = memory_app.state.deals.playing
            from cardproof.models import MoveRequest

            await moved.play(racer[1], MoveRequest(0, "e5"), bearer(racer[0])["Authorization"])
            clock.ms += 1
            return found  # ...after its count was read

        monkeypatch.setattr(store, "move_counts", stale)
        clock.ms += 2000
        after = status(client, tid)
        assert (after["call"], after["placed"]) == (1, 0)  # three placed card 0, once each
        assert game(client, racer)["moves"] == "e5"
        offered = [deal for step in steps.placed for deal in step]
        assert sorted(offered) == sorted(seats[name][1] for name in (NAMES[0], NAMES[2]))
        calls = asyncio.run(store.round_calls(tid, 1))
        assert [call.index for call in calls] == [0, 1]


# --- two replicas over one Redis ------------------------------------------------------------


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with private_redis() as server:
        yield server


def on_redis(url: str, step: Callable[[RedisStore], Awaitable[T]]) -> T:
    """``step`` on a store of its own over the Redis at ``url`` (the apps' are in use)."""

    async def run() -> T:
        store = RedisStore.from_url(url)
        try:
            return await step(store)
        finally:
            await store.close()

    return asyncio.run(run())


def redis_round(
    client: HttpClient, url: str, seats: int
) -> tuple[str, str, dict[str, tuple[str, str]]]:
    """A lockstep tournament over Redis (1 s a card) with ``seats`` seated: id, owner, seats."""
    key, record = new_organizer(f"Replica Club {uuid.uuid4().hex}")
    assert asyncio.run(add_organizer_to(url, record))
    owner = f"Bearer {key}"
    tid = tournament(client, owner, card_seconds=1)
    return tid, owner, seat_all(client, tid, NAMES[:seats])


def test_two_replicas_share_a_deadlines_batches(redis: RedisServer) -> None:
    with ExitStack() as stack:
        apps = [held_app(RedisStore.from_url(redis.url)) for _ in range(2)]
        clients = [stack.enter_context(TestClient(app=app)) for app in apps]
        steps = [Steps(app.state.store) for app in apps]
        tid, owner, seats = redis_round(clients[0], redis.url, 10)
        start(clients[0], tid, owner)
        time.sleep(1.1)
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda c: status(c, tid), clients * 3))
        assert {answer["call"] for answer in answers[-2:]} == {1}
        taken = [step for replica in steps for step in replica.placed]
        assert len(taken) == 3  # each batch taken once, by one replica or the other
        placed = sorted(deal for step in taken for deal in step)
        assert placed == sorted(deal_id for _, deal_id in seats.values())
        calls = on_redis(redis.url, lambda store: store.round_calls(tid, 1))
        assert [call.index for call in calls] == [0, 1]  # called once
        ids = [deal_id for _, deal_id in seats.values()]
        for found in on_redis(redis.url, lambda store: store.get_deals(ids)):
            assert (len(found.moves), found.auto_placed) == (1, [0]), found.player


def test_a_batch_its_taker_left_is_placed_once_its_lease_ends(redis: RedisServer) -> None:
    app = held_app(RedisStore.from_url(redis.url))
    with TestClient(app=app) as client:
        tid, owner, seats = redis_round(client, redis.url, 10)
        start(client, tid, owner)
        # a replica took batch 1 of call 0 and died: nobody else may place it for 1.6 s
        assert on_redis(redis.url, lambda store: store.claim_seats(tid, 1, 0, 1, 1600))
        time.sleep(1.1)
        waiting = status(client, tid)
        assert (waiting["call"], waiting["placed"]) == (0, 6)  # batches 0 and 2 placed
        time.sleep(0.6)
        after = status(client, tid)
        assert (after["call"], after["placed"]) == (1, 0)
        calls = on_redis(redis.url, lambda store: store.round_calls(tid, 1))
        assert [call.index for call in calls] == [0, 1]
        ids = [deal_id for _, deal_id in seats.values()]
        for found in on_redis(redis.url, lambda store: store.get_deals(ids)):
            assert found.auto_placed == [0], found.player
