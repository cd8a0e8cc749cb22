"""Late placements in batches: many idle seats, one store step a batch, sized for the loop.

At a call's deadline the idle seats' cards are placed :data:`~cardproof_service.lockstep.late.
SEAT_BATCH` at a time (made small here so that a few seats make several batches): each
batch in one ``place_late`` step, its moves decided inline when the batch is small and in
the replay threads when it is not (issue 42), its games
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

import cardproof_service.deals.games as games_module
import cardproof_service.lockstep.late as late
from cardproof.games import variant
from cardproof.models import MoveRequest
from cardproof.receipts import verify_receipt
from cardproof.tournaments import round_deal
from cardproof_service import Settings, create_app
from cardproof_service.lockstep.rounds import Rounds
from cardproof_service.store import LatePlacement, MemoryStore, Store, StoreUnavailable
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS, UNLIMITED, Clock, organizer_key
from redis_server import RedisServer, private_redis
from test_lockstep_clock import (
    game,
    seat_all,
    start,
    status,
    tournament,
)
from test_tournaments_api import CELLS, add_organizer_to, bearer

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
    rounds: Rounds = app.state.rounds

    async def idle() -> None:
        return None

    rounds.keep = idle  # type: ignore[method-assign]
    return app


class Steps:
    """What a store was asked: each ``place_late`` step's seats, and the seats read whole."""

    def __init__(self, store: Store) -> None:
        self.placed: list[list[str]] = []
        self.read: list[str] = []
        self.counted: list[str] = []
        place_late, get_deals, move_counts = store.place_late, store.get_deals, store.move_counts

        async def counted_place(*args: Any) -> list[str]:
            seats: list[LatePlacement] = args[-1]
            self.placed.append([seat.deal_id for seat in seats])
            return await place_late(*args)

        async def counted_read(deal_ids: list[str]) -> Any:
            self.read.extend(deal_ids)
            return await get_deals(deal_ids)

        async def counted_counts(deal_ids: list[str]) -> Any:
            self.counted.extend(deal_ids)
            return await move_counts(deal_ids)

        setattr(store, "place_late", counted_place)  # noqa: B010  (a method of this store only)
        setattr(store, "get_deals", counted_read)  # noqa: B010
        setattr(store, "move_counts", counted_counts)  # noqa: B010


@pytest.fixture
def memory_app() -> Litestar:
    return held_app(MemoryStore())


def await_prepared(app: Litestar, tid: str, call: int) -> None:
    """Wait (a moment at most) for the round's placements of ``call`` to be decided ahead."""
    placements: late.LatePlacements = app.state.rounds.late
    for _ in range(200):
        ready = placements.prepared.get((tid, 1))
        if ready is not None and ready[0] == call:
            return
        time.sleep(0.01)
    raise AssertionError(f"call {call} was not decided ahead")


def forget_ahead(app: Litestar, tid: str) -> None:
    """Drop the cards decided ahead at the round's start (once decided)."""
    await_prepared(app, tid, 0)
    app.state.rounds.late.prepared.clear()


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


@pytest.mark.parametrize("bound", [games_module.REPLAY_ON_LOOP, 0], ids=["small", "large"])
def test_idle_seats_are_placed_a_batch_a_step_where_their_size_says_and_replayed_once(
    memory_app: Litestar, clock: Clock, monkeypatch: pytest.MonkeyPatch, bound: int
) -> None:
    """Ten seats are small work, decided inline; with the bound at 0 (every batch large,
    as in a crowded round) they are decided in the replay threads."""
    monkeypatch.setattr(games_module, "REPLAY_ON_LOOP", bound)
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
        await_prepared(memory_app, tid, 0)  # card 0 decided ahead for every seat at the start
        idle = [seats[name][1] for name in NAMES if name != NAMES[3]]
        assert sorted(steps.read) == sorted(deal for _, deal in seats.values())
        assert threads
        off_loop = [name.startswith("cardproof-replay") for name in threads]
        assert off_loop == [bound == 0] * len(threads), threads
        steps.read.clear()
        active = seats[NAMES[3]]  # places its own card 0: the other nine idle
        move(client, active, 0, "e5")
        clock.ms += 2000
        first = status(client, tid)
        assert (first["call"], first["placed"]) == (1, 0)
        assert first["card"] == called_next(memory_app, tid)
        offered = sorted(deal for step in steps.placed for deal in step)
        assert offered == sorted(idle)  # the active seat's own move put it out of the nine
        assert sorted(len(step) for step in steps.placed) == [1, 4, 4]  # decided: 4 a step
        assert steps.read == steps.counted == []  # nothing read or counted at the deadline
        assert game(client, active)["moves"] == "e5"
        expected = first_legal_cells(memory_app, tid, idle[0], 1)
        for name in NAMES:
            found = game(client, seats[name])
            if name == NAMES[3]:
                assert (found["moves"], found["next_index"]) == ("e5", 1)
            else:
                assert found["moves"].split() == expected, name
        steps.placed.clear()
        steps.read.clear()
        move(client, active, 1, "a1")
        await_prepared(memory_app, tid, 1)  # the nine idle seats' card 1, decided ahead
        clock.ms += 2000
        second = status(client, tid)
        assert (second["call"], second["placed"]) == (2, 0)
        assert steps.read == steps.counted == []  # 1 placed + 9 ahead: nothing to find
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
        placements: late.LatePlacements = memory_app.state.rounds.late
        for call in range(25):
            if 0 < call < 24:
                await_prepared(memory_app, tid, call)
            if call == 24:  # a finishing card is never decided ahead: signed as it is placed
                for _ in range(100):
                    if not placements._preparing:  # whatever was to be decided is
                        break
                    time.sleep(0.01)
                assert (tid, 1) not in placements.prepared
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


@pytest.mark.parametrize("ahead", [False, True])
def test_a_players_move_that_came_first_stands(
    memory_app: Litestar, clock: Clock, monkeypatch: pytest.MonkeyPatch, ahead: bool
) -> None:
    """A player's last-moment move lands after its seat was found idle (its count read, or
    its card decided ahead) and before the store step: the step leaves it be."""
    store: Store = memory_app.state.store
    steps = Steps(store)
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Race Club")
        tid = tournament(client, owner)
        seats = seat_all(client, tid, NAMES[:3])
        start(client, tid, owner)
        if ahead:
            await_prepared(memory_app, tid, 0)
        else:
            forget_ahead(memory_app, tid)
        racer = seats[NAMES[1]]
        hooked = "place_late" if ahead else "move_counts"
        step = getattr(store, hooked)

        async def racing(*args: Any) -> Any:
            found = await step(*args) if not ahead else None
            clock.ms -= 1  # the racer's move lands just before its deadline...
            request = MoveRequest(0, "e5")
            playing = memory_app.state.deals.playing
            await playing.play(racer[1], request, bearer(racer[0])["Authorization"])
            clock.ms += 1
            return found if not ahead else await step(*args)  # ...the seat found idle

        monkeypatch.setattr(store, hooked, racing)
        clock.ms += 2000
        after = status(client, tid)
        assert (after["call"], after["placed"]) == (1, 0)  # three placed card 0, once each
        assert game(client, racer)["moves"] == "e5"
        offered = [deal for step in steps.placed for deal in step]
        others = [seats[name][1] for name in (NAMES[0], NAMES[2])]
        assert sorted(offered) == sorted([*others, racer[1]] if ahead else others)
        calls = asyncio.run(store.round_calls(tid, 1))
        assert [call.index for call in calls] == [0, 1]


def test_cards_decided_ahead_yield_to_the_players_own_moves(
    memory_app: Litestar, clock: Clock
) -> None:
    """A seat decided ahead that places its own card keeps it; a seat that fell idle since
    is placed all the same (at once, or at the next look)."""
    store: Store = memory_app.state.store
    steps = Steps(store)
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Ahead Club")
        tid = tournament(client, owner)
        names = NAMES[:4]
        seats = seat_all(client, tid, names)
        start(client, tid, owner)
        ada, bea, cy, dee = (seats[name] for name in names)
        move(client, dee, 0, "e5")  # Dee places card 0; the other three idle
        clock.ms += 2000
        assert status(client, tid)["call"] == 1
        await_prepared(memory_app, tid, 1)  # Ada, Bea and Cy: card 1 decided ahead
        move(client, ada, 1, "e4")  # Ada comes back; Dee falls idle
        steps.counted.clear()
        clock.ms += 2000
        first = status(client, tid)
        if first["call"] == 1:  # placed 1 + ahead 3 make 4 seats: Dee is found at the next look
            second = status(client, tid)
            assert second["call"] == 2
        assert game(client, ada)["moves"].split()[1] == "e4"
        expected = first_legal_cells(memory_app, tid, "", 2)
        for seat in (bea, cy):
            assert game(client, seat)["moves"].split() == expected
        assert game(client, dee)["moves"].split() == ["e5", "a1"]
        calls = asyncio.run(store.round_calls(tid, 1))
        assert [call.index for call in calls] == [0, 1, 2]
        move(client, bea, 2, "e3")  # Bea places her own card 2; Ada, Cy and Dee idle
        clock.ms += 2000
        third = status(client, tid)
        third = third if third["call"] == 3 else status(client, tid)
        assert third["call"] == 3
        assert game(client, bea)["moves"].split()[2] == "e3"


def test_a_last_move_is_signed_on_the_cached_copy_with_the_cards_placed_for_the_player(
    memory_app: Litestar, clock: Clock
) -> None:
    """The whole round's last moves come at once: each signs its receipt with no read."""
    store: Store = memory_app.state.store
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Last Club")
        tid = tournament(client, owner)
        seats = seat_all(client, tid, NAMES[:2])
        start(client, tid, owner)
        ada, bea = seats[NAMES[0]], seats[NAMES[1]]
        clock.ms += 2000  # card 0 placed for both at a1
        assert status(client, tid)["call"] == 1
        for index in range(1, 24):
            move(client, ada, index, CELLS[index])
            move(client, bea, index, CELLS[index])
        move(client, bea, 24, CELLS[24])
        reads: list[str] = []
        get_deal = store.get_deal

        async def counted(deal_id: str) -> Any:
            reads.append(deal_id)
            return await get_deal(deal_id)

        setattr(store, "get_deal", counted)  # noqa: B010
        move(client, ada, 24, CELLS[24])
        setattr(store, "get_deal", get_deal)  # noqa: B010
        assert reads == []  # the last move: played and signed on the cached copy
        token, deal_id = ada
        answer = client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token))
        assert answer.status_code == 200, answer.text
        jwks = client.get("/.well-known/jwks.json").json()
        seed = memory_app.state.deals.commitments.server_seed(f"{tid}:round-1")
        verified = verify_receipt(answer.json()["receipt"], jwks, server_seed=seed.hex())
        assert verified.payload.auto_placed == [0]
        assert verified.payload.moves == " ".join(CELLS)
        assert verified.payload.score.total == game(client, ada)["score"]["total"]
        assert (status(client, tid)["status"]) == "finished"


def test_a_closed_round_keeps_nothing_decided_ahead(memory_app: Litestar, clock: Clock) -> None:
    """What was decided ahead for a round its tournament closed on is let go, so that it
    takes none of the room (``LATE_GAMES``) the other rounds decide in."""
    with TestClient(app=memory_app) as client:
        owner = organizer_key(memory_app, "Closing Club")
        tid = tournament(client, owner)
        seat_all(client, tid, NAMES[:3])
        start(client, tid, owner)
        await_prepared(memory_app, tid, 0)
        closed = client.post(
            f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
        )
        assert closed.status_code == 200, closed.text
        assert (tid, 1) not in memory_app.state.rounds.late.prepared
        assert status(client, tid)["status"] == "finished"


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
        forget_ahead(apps[0], tid)  # as if another replica had started it: nothing ahead
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
        forget_ahead(app, tid)
        # a replica took batch 1 of call 0 and died: nobody else may place it for 5 s (a
        # lease far past the 1 s deadline, so that a busy machine's pauses cannot end it)
        claimed = time.monotonic()
        assert on_redis(redis.url, lambda store: store.claim_seats(tid, 1, 0, 1, 5000))
        time.sleep(1.1)
        waiting = status(client, tid)
        assert (waiting["call"], waiting["placed"]) == (0, 6)  # batches 0 and 2 placed
        assert time.monotonic() - claimed < 5  # read while the lease held
        after = status(client, tid)
        while after["call"] == 0:  # the lease ends: the batch left is placed, card 1 called
            assert time.monotonic() - claimed < 30, after
            time.sleep(0.2)
            after = status(client, tid)
        assert time.monotonic() - claimed >= 5  # not before the lease ended
        assert (after["call"], after["placed"]) == (1, 0)
        calls = on_redis(redis.url, lambda store: store.round_calls(tid, 1))
        assert [call.index for call in calls] == [0, 1]
        ids = [deal_id for _, deal_id in seats.values()]
        for found in on_redis(redis.url, lambda store: store.get_deals(ids)):
            assert found.auto_placed == [0], found.player


def redis_deck(app: Litestar, url: str, tid: str) -> tuple[Any, Any, list[Any]]:
    """The round's variant, options and deck (the tournament read from the Redis at ``url``)."""
    record = on_redis(url, lambda store: store.get_tournament(tid))
    assert record is not None
    seed = app.state.deals.commitments.server_seed(f"{tid}:round-1")
    options, deck = round_deal(record.variant, record.options, seed, record.salt)
    return variant(record.variant), options, list(deck)


def deadline_on(client: HttpClient, tid: str, call: int) -> None:
    """Wait out the current call's deadline (1 s a card), then have ``client``'s replica
    place it: the round stands at ``call`` after."""
    time.sleep(1.1)
    found = status(client, tid)
    assert (found["call"], found["placed"]) == (call, 0), found


def placed_for_idle_seats(app: Litestar, url: str, tid: str, ids: list[str], calls: int) -> None:
    """Every seat idle from the start holds the first legal move of each of ``calls`` calls,
    and the round called the deck's cards in order."""
    cls, options, deck = redis_deck(app, url, tid)
    played = cls(deck, options)
    for _ in range(calls):
        played.play(played.legal_moves()[0])
    expected = [played.move_text(move) for move in played.moves]
    for found in on_redis(url, lambda store: store.get_deals(ids)):
        assert (found.moves, found.auto_placed) == (expected, list(range(calls))), found.player
    stored = on_redis(url, lambda store: store.round_calls(tid, 1))
    cards = [str(card) for card in deck[: calls + 1]]
    assert [(call.index, call.card) for call in stored] == list(enumerate(cards))


def test_cards_decided_ahead_for_a_call_another_replica_placed_are_not_placed_at_the_next(
    redis: RedisServer,
) -> None:
    """Replica A places call 0 and decides call 1 ahead; replica B places call 1 (it had
    nothing decided); at call 2, A's cards for call 1 are not for it, though every seat
    stands at index 2 and the store's index check would let them in."""
    with ExitStack() as stack:
        apps = [held_app(RedisStore.from_url(redis.url)) for _ in range(2)]
        a, b = (stack.enter_context(TestClient(app=app)) for app in apps)
        tid, owner, seats = redis_round(a, redis.url, 3)
        start(a, tid, owner)
        await_prepared(apps[0], tid, 0)
        deadline_on(a, tid, 1)  # A places card 0 (decided at the start)...
        await_prepared(apps[0], tid, 1)  # ...and decides card 1 ahead
        deadline_on(b, tid, 2)  # B places card 1 itself
        held = apps[0].state.rounds.late.prepared[(tid, 1)]
        assert (held[0], len(held[1])) == (1, 3)  # A still holds its cards for call 1
        deadline_on(a, tid, 3)
        ids = [deal_id for _, deal_id in seats.values()]
        placed_for_idle_seats(apps[0], redis.url, tid, ids, 3)


def test_a_kept_game_another_replica_moved_on_is_read_again(
    redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replica A places call 0 and keeps the idle games at index 1; replica B places
    call 1; at call 2, A's copies are a card behind: A reads the games again rather than
    decide on its copies (whose move the store's index check would let in)."""
    monkeypatch.setattr(late, "LATE_GAMES", 0)  # nothing decided ahead: the games are kept
    with ExitStack() as stack:
        apps = [held_app(RedisStore.from_url(redis.url)) for _ in range(2)]
        a, b = (stack.enter_context(TestClient(app=app)) for app in apps)
        tid, owner, seats = redis_round(a, redis.url, 3)
        start(a, tid, owner)
        deadline_on(a, tid, 1)  # A places card 0 and keeps the three games
        kept: late.LateGames = apps[0].state.rounds.late.kept
        assert len(kept) == 3
        deadline_on(b, tid, 2)  # B places card 1: A's copies stand at index 1
        assert len(kept) == 3
        deadline_on(a, tid, 3)
        ids = [deal_id for _, deal_id in seats.values()]
        placed_for_idle_seats(apps[0], redis.url, tid, ids, 3)


def test_a_round_whose_batch_a_dead_replica_claimed_goes_on_within_seconds(
    redis: RedisServer,
) -> None:
    """Replica A claims the round's batch at the deadline and dies before placing it
    (its store fails under it, and it stops): replica B places the batch once A's lease
    is over, within seconds, not minutes. Whatever the lease, the round waits no longer."""
    with ExitStack() as stack:
        dying, living = (held_app(RedisStore.from_url(redis.url)) for _ in range(2))
        b = stack.enter_context(TestClient(app=living))
        with TestClient(app=dying) as a:
            tid, owner, seats = redis_round(a, redis.url, 3)
            start(a, tid, owner)
            forget_ahead(dying, tid)  # no card decided ahead: A takes the batch in the store
            store: Store = dying.state.store

            async def dies(deal_ids: list[str]) -> list[int]:
                raise StoreUnavailable("replica A died with the batch in hand")

            setattr(store, "move_counts", dies)  # noqa: B010  (a method of this store only)
            time.sleep(1.1)
            claimed = time.monotonic()
            died = a.get(f"/v1/tournaments/{tid}/rounds/1")
            assert died.status_code == 503, died.text
        waiting = status(b, tid)  # A's claim holds for now
        assert (waiting["call"], waiting["placed"]) == (0, 0)
        while (found := status(b, tid))["call"] == 0:
            assert time.monotonic() - claimed < 8.0, f"the round is stalled: {found}"
            time.sleep(0.2)
        assert (found["call"], found["placed"]) == (1, 0)
        ids = [deal_id for _, deal_id in seats.values()]
        placed_for_idle_seats(dying, redis.url, tid, ids, 1)
