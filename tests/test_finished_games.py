"""A finished game is read, never replayed: its receipt and final view are stored with its
last move; long replays of games in progress run off the event loop.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.tournaments.standings as standings_module
from cardproof.games import SoloDrez
from cardproof.models import TournamentExport
from cardproof.receipts import verify_receipt
from cardproof.tournaments import verify_export
from cardproof_service import Settings, create_app
from cardproof_service.deals.games import REPLAY_ON_LOOP, Games
from cardproof_service.deals.service import Deals
from conftest import TEST_KEYS, UNLIMITED, organizer_key
from test_tournaments_api import CELLS, bearer, enter, open_tournament, reader


def no_replay(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a finished game was replayed")


def test_a_finished_game_answers_from_what_was_stored(
    client: TestClient[Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
    deal = client.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": "a seed of mine",
        },
    ).json()
    answers = []
    for index, cell in enumerate(CELLS):
        url = f"/v1/deals/{deal['deal_id']}/moves"
        answers.append(client.post(url, json={"index": index, "move": cell}).json())
    first_receipt = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    monkeypatch.setattr(Games, "replay", no_replay)
    state = client.get(f"/v1/deals/{deal['deal_id']}").json()
    assert (state["finished"], state["score"], state["view"]) == (
        True,
        answers[-1]["score"],
        answers[-1]["view"],
    )
    receipt = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    assert receipt == first_receipt  # the same token, read, not signed again
    last = client.post(
        f"/v1/deals/{deal['deal_id']}/moves", json={"index": 24, "move": CELLS[24]}
    ).json()
    assert last == answers[-1]
    verified = client.post(
        "/v1/verify",
        json={
            "variant": "poker-squares",
            "deal": {"deal_id": deal["deal_id"]},
            "moves": " ".join(CELLS),
        },
    ).json()
    assert verified["receipt"] == receipt["receipt"]
    jwks = client.get("/.well-known/jwks.json").json()
    assert verify_receipt(receipt["receipt"], jwks).replayed


def test_a_tournament_game_keeps_both_receipts_and_the_export_reads_them(
    app: Litestar, client: TestClient[Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = organizer_key(app, "Stored Receipts Club")
    tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    deal = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    deal_id = deal.json()["deal_id"]
    for index, cell in enumerate(CELLS):
        url = f"/v1/deals/{deal_id}/moves"
        client.post(url, json={"index": index, "move": cell}, headers=bearer(token))
    monkeypatch.setattr(Games, "replay", no_replay)
    monkeypatch.setattr(standings_module, "replay_log", no_replay)
    during = client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token)).json()
    assert during["payload"]["server_seed"] is None
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    after = client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token)).json()
    assert after["payload"]["server_seed"] is not None
    assert {**after["payload"], "server_seed": None} == during["payload"]
    export = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid)).json()
    assert [game["receipt"] for game in export["games"]] == [after["receipt"]]


def test_a_long_game_in_progress_is_replayed_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS)
    deals: Deals = app.state.deals
    threads: list[str] = []
    replay = Games.replay

    def watched(self: Games, *args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return replay(self, *args)

    with TestClient(app) as client:
        rng = random.Random(1)
        for _ in range(50):  # a deal that takes a long game of back-and-forth moves
            deal = client.post("/v1/deals", json={"variant": "solodrez"}).json()
            record = asyncio.run(deals.store.get_deal(deal["deal_id"]))
            assert record is not None
            game = SoloDrez.new(deals.games.cards_of(record))
            moves: list[str] = []
            while len(moves) < REPLAY_ON_LOOP + 20:
                choices = [m for m in game.legal_moves() if m.stop is not True]
                if not choices:
                    break
                move = rng.choice(choices)
                game.play(move)
                moves.append(SoloDrez.move_text(move))
            if len(moves) == REPLAY_ON_LOOP + 20 and not game.is_over():
                break
        else:
            pytest.fail("no deal took a long game")
        for index, move_text in enumerate(moves):
            url = f"/v1/deals/{deal['deal_id']}/moves"
            assert client.post(url, json={"index": index, "move": move_text}).status_code == 200
        monkeypatch.setattr(Games, "replay", watched)
        state = client.get(f"/v1/deals/{deal['deal_id']}").json()
        assert state["next_index"] == len(moves)
        assert threads
        assert all(name.startswith("cardproof-replay") for name in threads), threads


def test_an_export_streams_its_games_a_batch_at_a_time(
    app: Litestar, client: TestClient[Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = organizer_key(app, "Streaming Club")
    tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
    for number, name in enumerate(("Ada", "Bea", "Cy", "Dee", "Eve")):
        token = enter(client, tid, name).json()["token"]
        deal = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
        cells = CELLS[number:] + CELLS[:number]
        for index, cell in enumerate(cells):
            url = f"/v1/deals/{deal.json()['deal_id']}/moves"
            client.post(url, json={"index": index, "move": cell}, headers=bearer(token))
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # pars solved at the close
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    deadline = time.monotonic() + 60  # the rounds' pars are solved first (they read by 200)
    while (
        "pars_pending" in client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    ):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    batches: list[int] = []
    store = app.state.store
    read = store.results

    async def counted(tournament_id: str, games: Any = None) -> Any:
        found = await read(tournament_id, games)
        batches.append(len(found))
        return found

    monkeypatch.setattr(store, "results", counted)
    monkeypatch.setattr(standings_module, "EXPORT_BATCH", 2)
    monkeypatch.setattr(standings_module, "replay_log", no_replay)
    answer = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid))
    assert answer.status_code == 200
    assert "content-length" not in answer.headers  # streamed
    assert batches[-3:] == [2, 2, 1]  # the games streamed (the pars' and the standings' reads
    assert max(batches) <= 2  # before them are batched too: no read holds every result)
    export = msgspec.json.decode(answer.content, type=TournamentExport)
    assert [game.player for game in export.games] == ["Ada", "Bea", "Cy", "Dee", "Eve"]
    assert verify_export(export).games > 0  # no ExportError
