"""``serpent-patience``: Serpent Poker Patience, docs/rules.md section 4.

All 25 cards are shown before play (an open variant) and laid in their fixed order;
each card after the first goes into an empty cell orthogonally next to the cell of
the card before it, so a finished layout is a rook's path of single steps through
all 25 cells. A path can reach a dead end before 25 cards: such a game is over but
incomplete, and is not scored.

>>> from cardproof.cards import STANDARD_DECK
>>> game = SerpentPatience.new(STANDARD_DECK)
>>> game.play(Cell.parse("a1")); game.play(Cell.parse("c1"))
Traceback (most recent call last):
...
cardproof.errors.IllegalMove: move 1 (c1): c1 is not next to a1, the cell of the card before
"""

from __future__ import annotations

from cardproof.games.grid import SIZE, Cell, GridPlacementGame, TableOption
from cardproof.hands import CustomTable, TableName
from cardproof.tables import GeneratedName


class SerpentOptions(TableOption, frozen=True, forbid_unknown_fields=True):
    """``scoring``: a table name, a custom table or a drawn system (default ``british``)."""

    scoring: TableName | GeneratedName | CustomTable = "british"


NEIGHBOURS = tuple(
    tuple(
        (r + dr) * SIZE + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
    )
    for r in range(SIZE)
    for c in range(SIZE)
)
"""Per cell number, its orthogonal neighbours' cell numbers."""


class SerpentPatience(GridPlacementGame):
    """Serpent Poker Patience: a rook's path of single steps, table ``british``."""

    id = "serpent-patience"
    title = "Serpent Poker Patience"
    information = "open"
    description = (
        "The first 25 cards of a shuffled deck are shown face up in a fixed order and laid "
        "on a 5x5 board in that order: the first anywhere, each later card in an empty "
        "cell orthogonally next to the cell of the card before it (a rook's path through "
        "all 25 cells). A path that reaches a dead end cannot be completed and is not "
        "scored. Rows and columns are scored with the british table by default (the table "
        "may be chosen, as for the other grid games). Every deal has an exact best score: "
        "POST /v1/solve computes it."
    )
    options_type = SerpentOptions
    steps_to_a_neighbour = True

    @classmethod
    def turns(cls, options: TableOption) -> int | None:
        """``None``: a path can reach a dead end before its 25th card."""
        return None

    def legal_moves(self) -> list[Cell]:
        """The empty cells next to the last one (any cell for the first card)."""
        placed = len(self._moves)
        if placed == SIZE * SIZE:
            return []
        if not placed:
            return [Cell(row=i // SIZE, col=i % SIZE) for i in range(SIZE * SIZE)]
        last = self._moves[-1]
        return [
            Cell(row=i // SIZE, col=i % SIZE)
            for i in NEIGHBOURS[last.row * SIZE + last.col]
            if self.cells[i] is None
        ]

    def is_over(self) -> bool:
        """After 25 cards, or at a dead end (no empty cell next to the last one)."""
        placed = len(self._moves)
        if placed == SIZE * SIZE:
            return True
        if not placed:
            return False
        last = self._moves[-1]
        cells = self.cells
        return all(cells[i] is not None for i in NEIGHBOURS[last.row * SIZE + last.col])

    def incomplete_reason(self) -> str:
        """A short log, or a dead end."""
        if self._moves and self.is_over():
            return (
                f"dead end after {len(self._moves)} cards: no empty cell is next to "
                f"{self._moves[-1].text}; a serpent game that cannot be completed is not scored"
            )
        return super().incomplete_reason()
