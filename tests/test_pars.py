"""Tournament pars: solved in turns, the best of the solver's grid and the round's games.

Pars are solved in turns, one search of the pool at a time under one client id: users'
searches keep the rest of the solver pool however many closed tournaments are read at
once; a round kept by another replica meanwhile is not solved again. A par is the
round's best game when that beats the solver's grid, with the bound raised to it; a par
kept before the exact search reads as such.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.tournaments.standings as standings_module
from cardproof.models import HindsightSolution, RoundPar
from cardproof_service.store import GameResult
from cardproof_service.tournaments.pars import PAR_CLIENT, Solved, round_par
from test_tournaments_api import (
    CELLS,
    enter,
    open_tournament,
    play_round,
    reader,
)

HttpClient = TestClient[Litestar]


def closed_with_a_game(client: HttpClient, owner: str, rounds: int) -> str:
    tid: str = open_tournament(client, owner, rounds=rounds)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    play_round(client, tid, token, 1, CELLS)
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    return tid


def test_pars_take_turns_under_one_client(
    app: Litestar, client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    solvers = app.state.solvers
    solve = solvers.solve
    seen: list[str] = []
    running = [0, 0]  # now, most at once

    async def counted(body: Any, who: str) -> Any:
        seen.append(who)
        running[0] += 1
        running[1] = max(running)
        try:
            await asyncio.sleep(0.05)  # overlap, if two were let in at once
            return await solve(body, who)
        finally:
            running[0] -= 1

    monkeypatch.setattr(solvers, "solve", counted)
    tournaments = [closed_with_a_game(client, owner, rounds=2) for _ in range(3)]
    for tid in tournaments:  # three closed tournaments read at once: three tasks
        assert (
            client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).status_code == 200
        )
    deadline = time.monotonic() + 90
    for tid in tournaments:
        while (
            "pars_pending"
            in client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
        ):
            assert time.monotonic() < deadline
            time.sleep(0.1)
    assert seen == [PAR_CLIENT] * 6  # every round once
    assert running[1] == 1  # one at a time


def test_a_round_kept_meanwhile_is_not_solved_again(
    app: Litestar, client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    tid = closed_with_a_game(client, owner, rounds=2)
    other = b'{"round":1,"score":1,"upper_bound":999,"optimal":false,"moves":"","by":"solver"}'
    asyncio.run(app.state.store.record_round_par(tid, 1, other, None))  # another replica's
    solvers = app.state.solvers
    solve = solvers.solve
    asked: list[str] = []

    async def counted(body: Any, who: str) -> Any:
        asked.append(body.cards[0])
        return await solve(body, who)

    monkeypatch.setattr(solvers, "solve", counted)
    deadline = time.monotonic() + 60
    while "pars_pending" in (
        standings := client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    ):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert len(asked) == 1  # round 2 only
    kept, solved = standings["pars"]
    assert (kept["round"], kept["score"], kept["upper_bound"]) == (1, 1, 999)  # the other's
    assert (solved["round"], solved["by"], solved["method"]) == (2, "solver", "branch-and-bound")


def test_a_game_above_the_solvers_grid_is_par_and_raises_the_bound(
    app: Litestar, client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a solver that claims a proven best of 1: each round's best game beats it, and the
    # par says so instead of keeping a bound below a real game
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    solvers = app.state.solvers
    solve = solvers.solve

    async def weak(body: Any, who: str) -> Any:
        found = await solve(body, who)
        assert isinstance(found, HindsightSolution)
        low = msgspec.structs.replace(found.score, total=1)
        return msgspec.structs.replace(found, score=low, upper_bound=1, optimal=True)

    monkeypatch.setattr(solvers, "solve", weak)
    tid: str = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
    for i in range(5):  # five ways to lay the same cards: their totals differ
        token = enter(client, tid, f"Player {i}").json()["token"]
        play_round(client, tid, token, 1, CELLS[6 * i :] + CELLS[: 6 * i])
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    export = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid)).json()
    totals = sorted(game["total"] for game in export["games"])
    assert totals[0] < totals[-1]
    best = max(export["games"], key=lambda g: g["total"])
    (par,) = export["pars"]
    assert par["by"] == "entrant"
    assert (par["score"], par["moves"]) == (best["total"], best["moves"])
    assert par["upper_bound"] == best["total"]  # raised to the game, never below it
    assert par["optimal"] is False


def test_a_par_kept_before_the_exact_search_reads_as_such(
    app: Litestar, client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    tid = closed_with_a_game(client, owner, rounds=2)
    old = b'{"round":1,"score":150,"upper_bound":171,"optimal":false,"moves":"","by":"solver"}'
    asyncio.run(app.state.store.record_round_par(tid, 1, old, None))  # stored by an older version
    deadline = time.monotonic() + 60
    while "pars_pending" in (
        standings := client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    ):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    first, second = (msgspec.convert(par, RoundPar) for par in standings["pars"])
    assert (first.score, first.upper_bound, first.method) == (150, 171, "earlier-solver")
    assert second.method == "branch-and-bound"
    page = client.get(f"/tournaments/{tid}", headers=reader(tid))
    assert "best found (earlier solver)" in page.text


def test_a_game_equal_to_the_solvers_grid_leaves_the_solvers_par() -> None:
    # a tie is not a better game: the par stays the solver's grid, its log and its proof
    solved = Solved(120, 120, "a1 b1", "branch-and-bound")
    tie = GameResult("Ada", 1, "d_1", 120, 0, "e5 d4", blind=False)
    par = round_par(1, solved, tie)
    assert (par.score, par.moves, par.by, par.optimal) == (120, "a1 b1", "solver", True)
    above = round_par(1, solved, msgspec.structs.replace(tie, total=121))
    assert (above.score, above.moves, above.by, above.upper_bound) == (121, "e5 d4", "entrant", 121)
