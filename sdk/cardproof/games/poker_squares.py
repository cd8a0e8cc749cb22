"""``poker-squares``: Poker Squares (Poker Solitaire), GAMES.md section 2.

The first 25 cards of the deck are turned up one at a time; each goes into any
empty cell of a 5x5 grid and never moves. After 25 placements the 5 rows and 5
columns (and, with ``diagonals``, the 2 long diagonals) are scored.

>>> from cardproof.cards import STANDARD_DECK
>>> game = PokerSquares.new(STANDARD_DECK)
>>> game.play(Cell.parse("c3")); game.visible().next
'3C'
>>> game.play(Cell.parse("c3"))
Traceback (most recent call last):
...
cardproof.errors.IllegalMove: move 1 (c3): cell c3 already holds 2C
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from cardproof.cards import Card
from cardproof.games.base import Game
from cardproof.games.grid import (
    CELL_TOKEN,
    CELLS_BY_TEXT,
    SIZE,
    Cell,
    GridView,
    TableOption,
    rows_of,
    score_grid,
)
from cardproof.hands import Score


class PokerSquaresOptions(TableOption, frozen=True, forbid_unknown_fields=True):
    """Options of poker-squares.

    ``scoring``: a table name or a custom table (default ``american``);
    ``diagonals``: also score the two long diagonals (12 hands instead of 10).
    """

    diagonals: bool = False


class GridPlacementGame(Game[Cell, TableOption]):
    """A hidden-order 5x5 game where each card is placed in an absolute cell."""

    move_type: ClassVar[type[Cell]] = Cell
    move_token: ClassVar[str] = CELL_TOKEN
    moves_by_text: ClassVar[Mapping[str, Cell]] = CELLS_BY_TEXT
    cards_used: ClassVar[int] = SIZE * SIZE
    deck_type: ClassVar[str] = "standard-52"
    steps_to_a_neighbour: ClassVar[bool] = False
    """Whether each card after the first must go orthogonally next to the one before."""

    def __init__(self, cards: tuple[Card, ...] | list[Card], options: TableOption) -> None:
        super().__init__(cards, options)
        self.cells: list[Card | None] = [None] * (SIZE * SIZE)
        self.table = options.table

    @classmethod
    def parse_move(cls, text: str) -> Cell:
        """A cell in text form, ``c3``."""
        return Cell.parse(text)

    @classmethod
    def move_text(cls, move: Cell) -> str:
        """``c3``."""
        return move.text

    def _try(self, move: Cell) -> tuple[str, str] | None:
        row, col = move.row, move.col
        if not (0 <= row < SIZE and 0 <= col < SIZE):
            return "off-board", f"row and col must be 0..4, got row {row}, col {col}"
        cell = row * SIZE + col
        held = self.cells[cell]
        if held is not None:
            return "cell-taken", f"cell {move.text} already holds {held}"
        placed = len(self._moves)
        if placed >= len(self.cards):
            return "game-over", "every card is placed"
        if self.steps_to_a_neighbour and placed:
            last = self._moves[-1]
            if abs(last.row - row) + abs(last.col - col) != 1:
                return "not-adjacent", (
                    f"{move.text} is not next to {last.text}, the cell of the card before"
                )
        self.cells[cell] = self.cards[placed]
        return None

    def next_card(self) -> Card | None:
        """The card to place now, or ``None`` once the grid is full."""
        placed = len(self._moves)
        return self.cards[placed] if placed < len(self.cards) else None

    def is_complete(self) -> bool:
        """All 25 cards placed."""
        return len(self._moves) == SIZE * SIZE

    def incomplete_reason(self) -> str:
        """How many moves the log lacks."""
        return f"the log has {len(self._moves)} moves; {self.id} needs 25"

    def _score(self) -> Score:
        diagonals = bool(getattr(self.options, "diagonals", False))
        return score_grid(self.cells, self.table, diagonals=diagonals)  # type: ignore[arg-type]

    def visible(self) -> GridView:
        """The grid so far and the card to place (later cards only if open)."""
        upcoming = self.cards[len(self._moves) :]
        later = tuple(c.text for c in upcoming[1:]) if self.information == "open" else ()
        return GridView(rows_of(self.cells), upcoming[0].text if upcoming else None, later)


class PokerSquares(GridPlacementGame):
    """Poker Squares: any empty cell, 10 (or 12) hands, table ``american`` by default."""

    id = "poker-squares"
    title = "Poker Squares"
    information = "hidden"
    description = (
        "The first 25 cards of a shuffled 52-card deck are turned up one at a time; place "
        "each in any empty cell of a 5x5 grid (row 0 on top, col 0 on the left; text form "
        "'c3' = column c, row 3). A placed card never moves. The 5 rows and 5 columns are "
        "scored, and the 2 long diagonals with the option diagonals: true. Default table: "
        "american; any named table or a custom one may be chosen."
    )
    options_type = PokerSquaresOptions

    def legal_moves(self) -> list[Cell]:
        """Every empty cell."""
        if self.is_over():
            return []
        return [Cell(row=i // SIZE, col=i % SIZE) for i, c in enumerate(self.cells) if c is None]

    def is_over(self) -> bool:
        """After 25 placements."""
        return len(self._moves) == SIZE * SIZE
