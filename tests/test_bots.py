"""Bots over the blind API (cardproof/bots.py): the Player protocol, the two baselines,
the runner and ``cardproof bots run``.

Each game is a committed blind deal on the app in-process; a bot is told only what a
person sees (a spy checks every card it was told against the deck the receipt reveals),
and a bot that breaks the protocol is stopped, naming the move.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import Client
from cardproof.bots import (
    CELL_NAMES,
    BotError,
    MonteCarloPlayer,
    Player,
    RandomPlayer,
    Setup,
    Turn,
    game_par,
    play_game,
    play_games,
)
from cardproof.deal import standard_deck
from cardproof.errors import ServerError
from cardproof.games import variant
from cardproof.receipts import verify_receipt
from cardproof.tables import generate


@pytest.fixture
def sdk(client: TestClient[Litestar]) -> Client:
    return Client(base_url=str(client.base_url), http_client=client, max_retries=0)


class Spy(RandomPlayer):
    """A random player that keeps what it was told."""

    def __init__(self) -> None:
        super().__init__(seed=3)
        self.setups: list[Setup] = []
        self.turns: list[Turn] = []

    def start(self, setup: Setup) -> None:
        self.setups.append(setup)

    def place(self, turn: Turn) -> str:
        self.turns.append(turn)
        return super().place(turn)


def test_both_baselines_are_players() -> None:
    assert isinstance(RandomPlayer(), Player)
    assert isinstance(MonteCarloPlayer(), Player)


def test_a_bot_is_told_each_card_as_it_comes_and_nothing_else(sdk: Client, tmp_path: Path) -> None:
    spy = Spy()
    report = play_games(sdk, spy, games=2, options={"scoring": "random"}, receipts=tmp_path)
    assert len(report.receipts) == 2
    assert len(spy.turns) == 50
    for game, path in enumerate(report.receipts):
        payload = verify_receipt(path.read_text().strip(), sdk.jwks()).payload
        seed = bytes.fromhex(payload.server_seed or "")
        deck = standard_deck(seed, payload.client_seed)
        turns = spy.turns[25 * game : 25 * game + 25]
        assert [turn.card for turn in turns] == list(deck[:25])  # each card when due
        assert [turn.index for turn in turns] == list(range(25))
        moves = payload.moves.split()
        for turn, move in zip(turns, moves, strict=True):
            assert move in turn.empty
            assert len(turn.empty) == 25 - turn.index
        setup = spy.setups[game]
        assert setup.table.points == generate("random", seed, payload.client_seed).points
        assert payload.score.total == report.scores[game]


def test_the_monte_carlo_player_beats_the_random_one(sdk: Client) -> None:
    random_player = play_games(sdk, RandomPlayer(seed=1), games=12)
    greedy = play_games(sdk, MonteCarloPlayer(seed=1), games=12)
    assert greedy.mean - greedy.half_width > random_player.mean + random_player.half_width
    assert all(-100 <= score <= 1000 for score in random_player.scores + greedy.scores)


class Cheat(RandomPlayer):
    """Plays its first move twice into one cell, or names no cell at all."""

    def __init__(self, answer: str) -> None:
        super().__init__(seed=1)
        self.answer = answer

    def place(self, turn: Turn) -> str:
        return self.answer if turn.index == 1 else "a1"


@pytest.mark.parametrize("answer", ["a1", "z9", ""])
def test_a_bot_that_breaks_the_protocol_is_stopped_naming_the_move(
    sdk: Client, answer: str
) -> None:
    with pytest.raises(BotError, match=rf'move 1: the player chose "{answer}", not one'):
        play_games(sdk, Cheat(answer), games=1)


def test_the_95_percent_interval() -> None:
    from cardproof.bots import Report

    assert Report(scores=[10]).half_width == 0.0
    report = Report(scores=[10, 20, 30, 40])
    assert report.mean == 25
    assert round(report.half_width, 3) == round(1.96 * 12.9099 / 2, 3)


def test_cells_are_named_row_by_row() -> None:
    assert CELL_NAMES[:6] == ("a1", "b1", "c1", "d1", "e1", "a2")


def _cardproof(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "cardproof"), *args]
    environ = {k: v for k, v in os.environ.items() if k != "CARDPROOF_URL"}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=environ, cwd=cwd, check=False
    )


def test_bots_run_plays_on_an_embedded_server_and_writes_checkable_receipts(
    tmp_path: Path,
) -> None:
    done = _cardproof(
        "bots", "run", "cardproof.bots:MonteCarloPlayer", "--games", "3",
        "--scoring", "ameritish", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "on 3 committed blind deals of poker-squares, scoring ameritish" in done.stdout
    assert "mean score" in done.stdout
    assert "95% interval" in done.stdout
    percent = re.search(r"mean percentage of par (\d+\.\d)% \(95% interval", done.stdout)
    assert percent is not None, done.stdout
    assert 0 < float(percent.group(1)) <= 100  # par is at least the game played
    receipts = sorted((tmp_path / "receipts").glob("receipt-*.jws"))
    assert len(receipts) == 3
    jwks = msgspec.json.decode((tmp_path / "receipts" / "keys.json").read_bytes())
    for path in receipts:
        checked = verify_receipt(path.read_text().strip(), jwks)
        assert checked.replayed
        assert isinstance(checked.payload.options["scoring"], dict)  # the table drawn
    refused = _cardproof("bots", "run", "cardproof.bots:Nobody", "--games", "1", cwd=tmp_path)
    assert refused.returncode == 2
    assert "cannot make a player of cardproof.bots:Nobody" in refused.stderr
    not_a_player = _cardproof("bots", "run", "cardproof.bots:Report", cwd=tmp_path)
    assert not_a_player.returncode == 2
    assert "has no start(setup) and place(turn)" in not_a_player.stderr


def test_a_long_run_on_the_embedded_server_is_not_rate_limited() -> None:
    """A bot's run is its embedded server's only work: 50 deals are over 1,300 requests,
    past the per-client limit of a shared server (1,200 a minute)."""
    import logging

    from cardproof.play import embedded_client

    access = logging.getLogger("cardproof.access")
    before = access.level
    with embedded_client(limits=False) as client:
        report = play_games(client, RandomPlayer(seed=5), games=50)
        assert access.level == logging.WARNING  # no line a move on the terminal
    assert len(report.scores) == 50
    assert access.level == before  # and the process's logging as it was


def test_par_is_asked_per_game_and_is_at_least_the_game(sdk: Client) -> None:
    report = play_games(sdk, RandomPlayer(seed=3), games=3, par_budget=0.3)
    assert len(report.pars) == len(report.percents) == 3
    for score, par, percent in zip(report.scores, report.pars, report.percents, strict=True):
        assert score <= par
        assert percent == pytest.approx(100 * score / par)
    assert report.mean_percent == pytest.approx(sum(report.percents) / 3)
    plain = play_games(sdk, RandomPlayer(seed=3), games=1)
    assert (plain.pars, plain.mean_percent) == ([], None)


def test_a_run_goes_on_when_a_par_is_refused(sdk: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(*args: object, **kwargs: object) -> None:
        raise ServerError(503, "Service Unavailable", "every solver is busy")

    monkeypatch.setattr(sdk, "solve", busy)
    report = play_games(sdk, RandomPlayer(seed=4), games=2, par_budget=0.3)
    assert len(report.scores) == 2  # the games are kept
    assert (report.pars, report.mean_percent) == ([], None)
    assert len(report.without_par) == 2
    assert "every solver is busy" in report.without_par[0]


def test_a_games_par_is_its_deals_hindsight_par(client: TestClient[Litestar]) -> None:
    # the first search starts the solver's processes: on a busy machine, more than the
    # SDK's 10 s default (the search itself keeps its 0.3 s budget)
    sdk = Client(base_url=str(client.base_url), http_client=client, max_retries=0, timeout=60)
    game = sdk.deal("poker-squares")
    signed = play_game(game, RandomPlayer(seed=9), None)
    par = game_par(sdk, signed.payload, budget=0.3)
    assert signed.payload.server_seed is not None
    cls = variant("poker-squares")
    options = cls.parse_options(signed.payload.options)
    deck = cls.deal_cards(
        bytes.fromhex(signed.payload.server_seed), signed.payload.client_seed, options
    )
    solution = sdk.solve("poker-squares", [c.text for c in deck[:25]], budget=0.3)
    assert par >= signed.payload.score.total
    assert par <= solution.upper_bound


class Broken(RandomPlayer):
    """A player whose place fails at its third card."""

    def place(self, turn: Turn) -> str:
        if turn.index == 2:
            raise RuntimeError("out of ideas")
        return super().place(turn)


def test_a_player_that_fails_is_stopped_naming_the_move(sdk: Client) -> None:
    with pytest.raises(BotError, match=r"move 2: the player's place failed: RuntimeError"):
        play_games(sdk, Broken(seed=1), games=1)


def test_a_second_run_into_the_same_folder_keeps_the_first_runs_key(tmp_path: Path) -> None:
    for _ in range(2):  # two embedded servers, two throwaway keys, one folder
        done = _cardproof(
            "bots", "run", "cardproof.bots:RandomPlayer", "--games", "1", cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
    folder = tmp_path / "receipts"
    jwks = msgspec.json.decode((folder / "keys.json").read_bytes())
    assert len(jwks["keys"]) == 2
    receipts = sorted(folder.glob("receipt-*.jws"))
    assert len(receipts) == 2
    for path in receipts:
        assert verify_receipt(path.read_text().strip(), jwks).replayed
    failing = tmp_path / "failing.py"
    failing.write_text(
        "from cardproof.bots import RandomPlayer\n"
        "class Player(RandomPlayer):\n"
        "    def place(self, turn):\n"
        "        raise RuntimeError('no')\n"
    )
    stopped = subprocess.run(
        [str(Path(sys.executable).parent / "cardproof"), "bots", "run", "failing:Player",
         "--games", "1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
        env={**{k: v for k, v in os.environ.items() if k != "CARDPROOF_URL"},
             "PYTHONPATH": str(tmp_path)},
    )  # fmt: skip
    assert stopped.returncode == 1, stopped.stderr
    assert "move 0: the player's place failed" in stopped.stderr
    assert "Traceback" not in stopped.stderr
