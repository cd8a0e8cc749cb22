"""Bots: players that play committed blind deals over the API, and the runner that seats them.

A :class:`Player` is told, once each deal is dealt, the variant, its options and the point
table the deal scores with (a table drawn from the seeds, ``scoring: "ameritish"``, is
known only then: :mod:`cardproof.tables`); then each card as it is turned up, with the
empty cells it may go to and the time left, and answers a cell (``c3``). It is told what
a person at the table sees and nothing more: the server shows a card only when it is due,
and :func:`play_games` checks each game's receipt against the game played. (A bot in the
same process as an embedded server could read that server's memory: a run meant to show
that a bot plays blind is made against a server in another process.)

Two baselines ship: :class:`RandomPlayer` and :class:`MonteCarloPlayer` (greedy: each
empty cell tried with random completions of the grid from the cards not yet seen).
``cardproof bots run cardproof.bots:MonteCarloPlayer --games 200`` plays them from the
command line. Poker Squares only for now (Neller's Parameterized Poker Squares game).

>>> player = RandomPlayer(seed=7)
>>> player.start(Setup("poker-squares", {}, TABLES["american"], diagonals=False))
>>> player.place(Turn(Card.parse("AH"), 0, ("a1", "b1"), None)) in {"a1", "b1"}
True
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from cardproof.cards import STANDARD_DECK, Card
from cardproof.errors import CardproofError
from cardproof.games import variant
from cardproof.games.grid import DIAGONAL_LINES, ROW_AND_COLUMN_LINES, SIZE, Cell
from cardproof.hands import TABLES, TRIE, PointTable
from cardproof.receipts import receipt_file_name

if TYPE_CHECKING:
    from cardproof.client import Client, Game
    from cardproof.games import GridView
    from cardproof.models import ReceiptResponse
    from cardproof.receipts import ReceiptPayload

VARIANTS: Final = ("poker-squares",)
"""The variants bots play (each card to any empty cell)."""
CELL_NAMES: Final = tuple(Cell(row=i // SIZE, col=i % SIZE).text for i in range(SIZE * SIZE))
"""Cell texts by index, row by row (``a1`` .. ``e5``)."""
_INDEX_OF_CELL: Final = {name: i for i, name in enumerate(CELL_NAMES)}


@dataclass(frozen=True)
class Setup:
    """What a player is told once a deal is dealt."""

    variant: str
    options: Mapping[str, Any]
    """The deal's options as the server resolved them (a drawn table is a custom one)."""
    table: PointTable
    diagonals: bool


@dataclass(frozen=True)
class Turn:
    """One card to place."""

    card: Card
    index: int
    """The move's index: 0 for the first card."""
    empty: tuple[str, ...]
    """The empty cells, each a legal move (``a1`` .. ``e5``, row by row)."""
    seconds_left: float | None
    """Time left for this move (``None``: no clock)."""


@runtime_checkable
class Player(Protocol):
    """A bot: told the game at its start, then asked for a cell for each card."""

    def start(self, setup: Setup) -> None:
        """A new deal: its variant, options and table."""

    def place(self, turn: Turn) -> str:
        """The cell for ``turn.card``: one of ``turn.empty``."""


class RandomPlayer:
    """Any empty cell, at random (seeded for repeatable runs)."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def start(self, setup: Setup) -> None:
        """Nothing to prepare."""

    def place(self, turn: Turn) -> str:
        """A random empty cell."""
        return self._random.choice(turn.empty)


class MonteCarloPlayer:
    """Greedy with rollouts: each empty cell scored by random completions of the grid.

    For each empty cell, ``rollouts`` times: the card goes there and the other empty
    cells take cards drawn at random from those not seen yet; the cell with the best
    mean final score is chosen (the first such in row order).
    """

    def __init__(self, rollouts: int = 24, seed: int | None = None) -> None:
        self.rollouts = rollouts
        self._random = random.Random(seed)
        self._points: tuple[int, ...] = TABLES["american"].points
        self._lines: tuple[tuple[int, ...], ...] = tuple(c for _, c in ROW_AND_COLUMN_LINES)
        self._grid: list[int] = []
        self._unseen: set[int] = set()

    def start(self, setup: Setup) -> None:
        """A fresh grid and deck; the deal's table and lines."""
        self._points = setup.table.points
        lines = ROW_AND_COLUMN_LINES + (DIAGONAL_LINES if setup.diagonals else ())
        self._lines = tuple(cells for _, cells in lines)
        self._grid = [-1] * (SIZE * SIZE)
        self._unseen = {card.index for card in STANDARD_DECK}

    def place(self, turn: Turn) -> str:
        """The empty cell whose random completions score best on average."""
        card = turn.card.index
        self._unseen.discard(card)
        empty = [_INDEX_OF_CELL[name] for name in turn.empty]
        best, best_mean = empty[0], -math.inf
        if len(empty) > 1:
            pool = list(self._unseen)
            for cell in empty:
                others = [c for c in empty if c != cell]
                grid = self._grid.copy()
                grid[cell] = card
                total = 0
                for _ in range(self.rollouts):
                    for where, drawn in zip(
                        others, self._random.sample(pool, len(others)), strict=True
                    ):
                        grid[where] = drawn
                    total += self._score(grid)
                if total / self.rollouts > best_mean:
                    best, best_mean = cell, total / self.rollouts
        self._grid[best] = card
        return CELL_NAMES[best]

    def _score(self, grid: list[int]) -> int:
        points, trie = self._points, TRIE
        return sum(
            points[trie[grid[a]][grid[b]][grid[c]][grid[d]][grid[e]]]
            for a, b, c, d, e in self._lines
        )


@dataclass
class Report:
    """What a run of games gave: scores, and with par each game's percentage of its par."""

    scores: list[int] = field(default_factory=list)
    receipts: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    pars: list[int] = field(default_factory=list)
    """Each game's par (the best score known for its deal), where it was asked for."""
    percents: list[float] = field(default_factory=list)
    """Each game's score as a percentage of its par (games whose par is above 0)."""
    without_par: list[str] = field(default_factory=list)
    """Games whose par was asked and not given, and why."""

    @property
    def mean(self) -> float:
        """The mean score."""
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def half_width(self) -> float:
        """Half the 95% interval of the mean (normal approximation; 0 under 2 games)."""
        return _half_width(self.scores)

    @property
    def mean_percent(self) -> float | None:
        """The mean percentage of par; ``None`` without par."""
        return statistics.fmean(self.percents) if self.percents else None

    @property
    def percent_half_width(self) -> float:
        """Half the 95% interval of the mean percentage of par."""
        return _half_width(self.percents)


def _half_width(values: list[int] | list[float]) -> float:
    """Half the 95% interval of a mean (normal approximation; 0 under 2 values)."""
    if len(values) < 2:
        return 0.0
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def game_par(client: Client, payload: ReceiptPayload, *, budget: float) -> int:
    """The par of a finished committed game's deal: hindsight par, or the game if higher.

    The deal's cards come from the receipt's revealed seeds (and its drawn table from
    its options); the server's solver gets ``budget`` seconds. The game is itself a
    grid of these cards, so a par below it is raised to it.
    """
    if payload.server_seed is None:
        raise BotError(f"deal {payload.deal_id}: the receipt does not reveal its seed yet")
    cls = variant(payload.variant)
    options = cls.parse_options(payload.options)
    deck = cls.deal_cards(bytes.fromhex(payload.server_seed), payload.client_seed, options)
    solution = client.solve(
        "poker-squares",
        [card.text for card in deck[:25]],
        options=dict(payload.options),
        budget=budget,
    )
    return max(solution.score.total, payload.score.total)


class BotError(CardproofError):
    """A player broke the protocol (a cell that is not empty, not a cell at all)."""


def play_games(
    client: Client,
    player: Player,
    *,
    games: int,
    options: Mapping[str, Any] | None = None,
    receipts: Path | None = None,
    seconds_per_move: float | None = None,
    told: Callable[[int, int], None] | None = None,
    par_budget: float | None = None,
) -> Report:
    """``player`` plays ``games`` committed blind poker-squares deals on ``client``'s server.

    Each receipt is checked against the game played (:meth:`Game.receipt`); with
    ``receipts`` it is written there as ``receipt-<deal id>.jws``. ``told(game, total)`` is
    called after each game. ``seconds_per_move`` is the clock the player is told of.
    ``par_budget``: each deal's par is asked of the server's solver (:func:`game_par`,
    that many seconds) and the report gets each game's percentage of it.
    """
    report = Report()
    started = time.monotonic()
    if receipts is not None:
        receipts.mkdir(parents=True, exist_ok=True)
    for number in range(1, games + 1):
        game = client.deal("poker-squares", options=dict(options or {}))
        signed = play_game(game, player, seconds_per_move)
        total = signed.payload.score.total
        report.scores.append(total)
        if par_budget is not None:
            try:
                par = game_par(client, signed.payload, budget=par_budget)
            except CardproofError as error:  # no par (a busy or older server): the games go on
                report.without_par.append(f"deal {game.deal_id}: {error}")
            else:
                report.pars.append(par)
                if par > 0:
                    report.percents.append(100 * total / par)
        if receipts is not None:
            path = receipts / receipt_file_name(game.deal_id)
            path.write_text(signed.receipt + "\n")
            report.receipts.append(path)
        if told is not None:
            told(number, total)
    report.seconds = time.monotonic() - started
    return report


def play_game(
    game: Game[GridView], player: Player, seconds_per_move: float | None
) -> ReceiptResponse:
    """``player`` plays ``game`` (a poker-squares deal, tournament round or not) to its end.

    The receipt is checked against the game played (:meth:`Game.receipt`) and returned.
    """
    settings = variant(game.variant).parse_options(game.state.options)
    setup = Setup(game.variant, game.state.options, settings.table, bool(settings.diagonals))
    try:
        player.start(setup)
    except Exception as error:  # the player's own fault, named as such
        raise BotError(
            f"deal {game.deal_id}: the player's start failed: {_fault(error)}"
        ) from error
    while not game.finished:
        view = game.visible
        if view.next is None:  # pragma: no cover - a blind poker-squares deal shows it
            raise BotError(f"deal {game.deal_id} shows no card to place")
        empty = _empty_cells(cell for row in view.layout for cell in row)
        turn = Turn(Card.parse(view.next), game.next_index, empty, seconds_per_move)
        try:
            move = player.place(turn)
        except Exception as error:
            raise BotError(
                f"move {game.next_index}: the player's place failed: {_fault(error)}"
            ) from error
        if move not in empty:
            raise BotError(
                f"move {game.next_index}: the player chose {_answer(move)}, not one of the empty "
                f"cells {', '.join(empty)}"
            )
        game.play(move)
    return game.receipt()


def _fault(error: Exception) -> str:
    """A player's exception as a person reads it: ``RuntimeError: out of ideas``.

    >>> _fault(KeyError("no table")), _fault(ValueError())
    ('KeyError: no table', 'ValueError')
    """
    one = error.args[0] if len(error.args) == 1 else None
    text = str(one) if isinstance(error, KeyError) else str(error)  # not the key's repr
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _answer(move: object) -> str:
    """What a player answered, as JSON writes it (``"z9"``, ``null``, ``7``), or its type."""
    try:
        return json.dumps(move, ensure_ascii=False)
    except (TypeError, ValueError):
        return f"a {type(move).__name__}"


def _empty_cells(cells: Iterable[str | None]) -> tuple[str, ...]:
    """The names of the empty cells of a layout read row by row."""
    return tuple(name for name, card in zip(CELL_NAMES, cells, strict=True) if card is None)


__all__ = [
    "BotError",
    "MonteCarloPlayer",
    "Player",
    "RandomPlayer",
    "Report",
    "Setup",
    "Turn",
    "game_par",
    "play_game",
    "play_games",
]
