"""The gate's rules where the attack of issue 37 went through: a lockstep round that
could deal an open game, a whole log sent for a lockstep seat, a seat that never placed.

Options that may resolve to an open deal are refused for lockstep at creation; a
lockstep seat of an open deal (a tournament kept from before that rule) still sees only
what can be taken; a whole log never plays a lockstep seat (the gate says 409, and the
store's submit step refuses it too); and every lockstep game lasts exactly its round's
calls, so a finished seat never holds a round.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.games import VARIANTS, replay_log, variant
from cardproof.tournaments import round_deal
from cardproof_service import Settings, create_app
from cardproof_service.deals.service import Deals
from cardproof_service.lockstep.rounds import Rounds
from cardproof_service.store import DealRecord, MemoryStore, Store
from conftest import TEST_KEYS, UNLIMITED, Clock, organizer_key
from redis_server import redis_url_or_skip
from test_tournaments_api import bearer, enter, new_tournament

HttpClient = TestClient[Litestar]


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """``REDIS_URL`` or a private server for this module."""
    with redis_url_or_skip() as url:
        yield url


def test_lockstep_refuses_options_a_die_roll_could_make_open(held: HttpClient) -> None:
    """``"version": "random"`` may roll the open version 5: never a lockstep round."""
    owner = organizer_key(held.app, "Gate Club")
    body = new_tournament(
        variant="reserve-poker", options={"version": "random"}, format="lockstep", entry="public"
    )
    refused = held.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert (problem["code"], problem["field"]) == ("lockstep-needs-hidden", "options")
    assert "die roll" in problem["detail"]
    # named exactly, the version is blind whatever the seeds: taken
    for version in (1, 2, 3, 4, 6):
        body["options"] = {"version": version}
        taken = held.post("/v1/tournaments", json=body, headers={"Authorization": owner})
        assert taken.status_code == 201, taken.text
    # without a format, "random" plays async (by invitation: a deal may hide cards)
    body = new_tournament(variant="reserve-poker", options={"version": "random"}, entry="invite")
    del body["format"]
    made = held.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert made.status_code == 201, made.text
    assert made.json()["tournament"]["format"] == "async"


def _legacy_open_round(client: HttpClient, names: list[str]) -> tuple[str, str, dict[str, Any]]:
    """A lockstep reserve-poker tournament kept from before the rule, rolling version 5.

    Made as a version-1 tournament, then its stored options changed to version 5 (what
    a ``"random"`` one rolled one round in six), before anyone is seated.
    """
    owner = organizer_key(client.app, "Legacy Club")
    body = new_tournament(
        variant="reserve-poker",
        options={"version": 1},
        format="lockstep",
        entry="public",
        card_seconds=5,
        rounds=1,
    )
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    tid = created.json()["tournament"]["tournament_id"]
    store: MemoryStore = client.app.state.store
    record = store._tournaments[tid]
    store._tournaments[tid] = msgspec.structs.replace(record, options={"version": 5})
    seats = {}
    for name in names:
        token = enter(client, tid, name).json()["token"]
        opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
        assert opened.status_code == 201, opened.text
        seats[name] = (token, opened.json()["deal_id"], opened.json())
    return tid, owner, seats


def _face_up(view: dict[str, Any]) -> list[str]:
    return [card for column in view["reserve"] for card in column if card is not None]


def _whole_log(client: HttpClient, deal_id: str) -> list[str]:
    """A complete legal log of the seat's deal, from the cards the test derives."""
    deals: Deals = client.app.state.deals
    record = asyncio.run(client.app.state.store.get_deal(deal_id))
    assert record is not None
    game = replay_log(record.variant, deals.games.cards_of(record), record.options, "", dealt=True)
    texts = []
    while not game.is_over():
        move = game.legal_moves()[-1]
        game.play(move)
        texts.append(game.move_text(move))
    return texts


def test_mallorys_open_lockstep_seat_sees_one_card_a_column_and_takes_no_whole_log(
    held: HttpClient, clock: Clock
) -> None:
    """The attack of issue 37, on a round of an open deal kept from before the rule."""
    tid, owner, seats = _legacy_open_round(held, ["Mallory", "Ann", "Bo"])
    token, deal_id, opened = seats["Mallory"]
    assert opened["options"] == {"version": 5}
    assert _face_up(opened["view"]) == []  # before the start: all face down
    log = _whole_log(held, deal_id)
    verify = {
        "variant": "reserve-poker",
        "options": {"version": 5},
        "deal": {"deal_id": deal_id},
        "moves": " ".join(log),
    }
    before = held.post("/v1/verify", json=verify, headers=bearer(token))
    assert (before.status_code, before.json()["code"]) == (409, "lockstep-seat"), before.text
    assert not set(_face_up(opened["view"])) & set(before.text.split())

    started = held.post(
        f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
    )
    assert started.status_code == 200, started.text
    shown = held.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()
    assert [len(c) - c.count(None) for c in shown["view"]["reserve"]] == [1, 1, 1, 1]
    during = held.post("/v1/verify", json=verify, headers=bearer(token))
    assert (during.status_code, during.json()["code"]) == (409, "lockstep-seat"), during.text

    # the honest seats place card 0; Mallory idles: at the deadline hers is placed
    for name in ("Ann", "Bo"):
        ann_token, ann_deal, _ = seats[name]
        placed = held.post(
            f"/v1/deals/{ann_deal}/moves",
            json={"index": 0, "move": "0>0"},
            headers=bearer(ann_token),
        )
        assert placed.status_code == 200, placed.text
    clock.ms += 5_001
    status = held.get(f"/v1/tournaments/{tid}/rounds/1").json()
    assert status["call"] == 1, status  # nobody held the round
    after = held.get(f"/v1/deals/{deal_id}", headers=bearer(token)).json()
    assert after["next_index"] == 1
    still = held.post("/v1/verify", json=verify, headers=bearer(token))
    assert (still.status_code, still.json()["code"]) == (409, "lockstep-seat")


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_the_store_never_takes_a_whole_log_for_a_lockstep_seat(
    backend: str, request: pytest.FixtureRequest
) -> None:
    """The submit step itself refuses a lockstep seat: no path around the gate stores one."""

    async def check() -> None:
        store: Store
        if backend == "memory":
            store = MemoryStore()
        else:
            from cardproof_service.store.redis import RedisStore

            store = RedisStore.from_url(request.getfixturevalue("redis_url"))
        seat = DealRecord(
            deal_id=f"d_gate{random.getrandbits(64):x}",
            variant="poker-squares",
            options={},
            commitment_id="t_x:round-1",
            client_seed="salt",
            committed=True,
            created_at=0,
            tournament=f"t_gate{random.getrandbits(64):x}",
            round=1,
            entrant="e_1",
            player="Mallory",
            lockstep=True,
        )
        plain = msgspec.structs.replace(
            seat, deal_id=seat.deal_id + "p", lockstep=False, tournament=None, round=None
        )
        for record in (seat, plain):
            await store.create_deal(record, 60)
        log = ["a1"] * 25
        refused = await store.submit_log(seat.deal_id, log, 1, True, 60)
        assert refused.outcome == "lockstep"
        stored = await store.get_deal(seat.deal_id)
        assert stored is not None
        assert (stored.moves, stored.finished_at) == ([], None)
        taken = await store.submit_log(plain.deal_id, log, 1, True, 60)
        assert taken.outcome == "appended"  # the same step takes a plain deal's
        if backend == "redis":
            await store.close()

    asyncio.run(check())


def _lockstep_options() -> list[tuple[str, dict[str, Any]]]:
    """Every variant and option value a lockstep round may be made with (blind, called)."""
    found = []
    for variant_id, cls in sorted(VARIANTS.items()):
        candidates: list[dict[str, Any]] = [{}]
        for name, values in cls.information_by_option().items():
            candidates += [{name: int(v) if v.isdigit() else v} for v in values]
        for name in ("version", "rows", "levels"):
            for value in (1, 2, 3, 4, 5, 6, "random"):
                candidates.append({name: value})
        for options in candidates:
            try:
                parsed = cls.parse_options(options)
            except Exception:
                continue
            if cls.informations(parsed) == {"hidden"} and cls.turns(parsed) is not None:
                found.append((variant_id, options))
    return found


LOCKSTEP_OPTIONS = _lockstep_options()


def test_some_options_of_each_called_variant_can_play_lockstep() -> None:
    assert {v for v, _ in LOCKSTEP_OPTIONS} == {
        "poker-squares",
        "poker-patience",
        "repeat-poker",
        "reserve-poker",
    }
    assert ("reserve-poker", {"version": 5}) not in LOCKSTEP_OPTIONS
    assert ("reserve-poker", {"version": "random"}) not in LOCKSTEP_OPTIONS


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LOCKSTEP_OPTIONS), st.binary(min_size=32, max_size=32), st.randoms())
def test_a_lockstep_game_lasts_exactly_its_rounds_calls(
    case: tuple[str, dict[str, Any]], seed: bytes, chooser: random.Random
) -> None:
    """No lockstep game ends before its last call, whatever is played: a seat that has
    finished has placed every call, so it never holds a round."""
    variant_id, options = case
    cls = variant(variant_id)
    resolved, deck = round_deal(variant_id, options, seed, "salt")
    game = cls(deck, resolved)
    turns = cls.turns(resolved)
    assert turns is not None
    for _ in range(turns):
        assert not game.is_over()
        game.play(chooser.choice(game.legal_moves()))
    assert game.is_over()


def test_a_round_a_finished_seat_held_is_not_looked_at_every_tick() -> None:
    """A round frozen by the old hole (a seat finished by a whole log, never placing) is
    put off, not looked at every keeper tick; the close ends it."""
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS, store=MemoryStore())
    rounds: Rounds = app.state.rounds  # its keeper runs
    looks = []
    advance = rounds.advance

    async def counted(record: Any, number: int) -> Any:
        looks.append(number)
        return await advance(record, number)

    rounds.advance = counted  # type: ignore[method-assign]
    with TestClient(app=app) as client:
        owner = organizer_key(app, "Frozen Club")
        body = new_tournament(format="lockstep", entry="public", card_seconds=1, rounds=1)
        made = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
        assert made.status_code == 201, made.text
        tid = made.json()["tournament"]["tournament_id"]
        seats = {}
        for name in ("Mallory", "Ann"):
            token = enter(client, tid, name).json()["token"]
            url = f"/v1/tournaments/{tid}/rounds/1/deal"
            seats[name] = (token, client.post(url, json={}, headers=bearer(token)).json())
        store: MemoryStore = app.state.store
        _, record = store._deals[seats["Mallory"][1]["deal_id"]]
        cells = [f"{c}{r}" for r in range(1, 6) for c in "abcde"]
        record.moves, record.finished_at = cells, 1  # as the old hole stored it
        started = client.post(
            f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
        )
        assert started.status_code == 200, started.text
        ann, ann_game = seats["Ann"]
        moved = client.post(
            f"/v1/deals/{ann_game['deal_id']}/moves",
            json={"index": 0, "move": "a1"},
            headers=bearer(ann),
        )
        assert moved.status_code == 200, moved.text
        time.sleep(1.2)  # the deadline passes: the round is held by the finished seat
        looks.clear()
        time.sleep(1.0)
        assert 0 < len(looks) <= 8, looks  # every 250 ms at most, not every 20 ms tick
        shut = client.post(
            f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
        )
        assert shut.status_code == 200, shut.text
        status = client.get(f"/v1/tournaments/{tid}/rounds/1").json()
        assert status["status"] == "finished"
