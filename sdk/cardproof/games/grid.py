"""Parts shared by the 5x5 grid variants: cells, lines, the grid view, grid scoring.

Cells are numbered ``row * 5 + col`` with row 0 the top row and col 0 the left
column. A cell's text form is its column letter then its row number: ``a1`` is the
top-left cell, ``e5`` the bottom-right.

>>> Cell.parse("c3"), Cell(row=0, col=4).text
(Cell(row=2, col=2), 'e1')
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Final

import msgspec

from cardproof.cards import Card
from cardproof.errors import ParseError, RuleError
from cardproof.hands import CustomTable, PointTable, Score, TableName, score_lines

SIZE: Final = 5
COLUMN_LETTERS: Final = "abcde"
CELL_TOKEN: Final = r"[a-eA-E][1-5]"
"""A cell in text form, for log parsing and the API's log pattern."""


class Cell(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An absolute cell of the 5x5 grid (row 0 on top, col 0 on the left)."""

    row: int
    col: int

    @property
    def text(self) -> str:
        """Column letter then row number: ``{"row": 2, "col": 0}`` is ``a3``."""
        if not (0 <= self.row < SIZE and 0 <= self.col < SIZE):
            return f"{self.row},{self.col}"  # off the board: still printable in an error
        return f"{COLUMN_LETTERS[self.col]}{self.row + 1}"

    @staticmethod
    def parse(text: str) -> Cell:
        """Read ``c3`` (either case)."""
        cell = CELLS_BY_TEXT.get(text) if isinstance(text, str) else None
        if cell is None:
            raise ParseError(
                f"{text!r} is not a cell: write a column a..e then a row 1..5, like 'c3'"
            )
        return cell


CELLS_BY_TEXT: Final = {
    spelling: Cell(row=r, col=c)
    for r in range(SIZE)
    for c in range(SIZE)
    for spelling in (f"{COLUMN_LETTERS[c]}{r + 1}", f"{COLUMN_LETTERS[c].upper()}{r + 1}")
}
"""Every cell by its text forms (``c3`` and ``C3``)."""


class GridView(msgspec.Struct, frozen=True):
    """What a player of a grid variant may see: the layout and the cards now due.

    ``layout`` holds rows top to bottom, ``null`` for an empty cell. ``next`` is the card
    to place now (``null`` once the game is over). ``later`` lists the cards after it,
    in order, for open variants only; a hidden variant never shows them. For
    ``poker-patience`` ``origin`` is the (row, col) of ``layout[0][0]`` relative to the
    first card placed, and ``layout`` spans only the cards placed so far.
    """

    layout: tuple[tuple[str | None, ...], ...]
    next: str | None
    later: tuple[str, ...] = ()
    origin: tuple[int, int] | None = None


def _lines() -> tuple[tuple[str, tuple[int, ...]], ...]:
    rows = tuple((f"row {r + 1}", tuple(r * SIZE + c for c in range(SIZE))) for r in range(SIZE))
    cols = tuple((f"col {c + 1}", tuple(r * SIZE + c for r in range(SIZE))) for c in range(SIZE))
    return rows + cols


ROW_AND_COLUMN_LINES: Final = _lines()
"""The ten scored lines: ``row 1``..``row 5`` then ``col 1``..``col 5``, as cell numbers."""
DIAGONAL_LINES: Final = (
    ("diagonal 1", tuple(i * (SIZE + 1) for i in range(SIZE))),
    ("diagonal 2", tuple((i + 1) * (SIZE - 1) for i in range(SIZE))),
)
"""The two long diagonals: top-left to bottom-right, then top-right to bottom-left."""


_LINE_GETTERS: Final = tuple((name, itemgetter(*cells)) for name, cells in ROW_AND_COLUMN_LINES)
_LINE_GETTERS_WITH_DIAGONALS: Final = _LINE_GETTERS + tuple(
    (name, itemgetter(*cells)) for name, cells in DIAGONAL_LINES
)


class TableOption(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Base of option sets that choose a point table: a table name or a custom table."""

    scoring: TableName | CustomTable = "american"

    @property
    def table(self) -> PointTable:
        """The point table these options name."""
        return PointTable.from_option(self.scoring)


def score_grid(cells: Sequence[Card], table: PointTable, *, diagonals: bool = False) -> Score:
    """Score a full 5x5 grid given as 25 cards, row by row.

    >>> from cardproof.cards import STANDARD_DECK
    >>> score = score_grid(STANDARD_DECK[:25], PointTable.from_option("american"))
    >>> score.hands[0].cards, score.hands[0].category, score.total  # 4 straight flushes
    (('2C', '3C', '4C', '5C', '6C'), 'straight-flush', 300)
    """
    if len(cells) != SIZE * SIZE:
        raise RuleError("incomplete", f"a grid has 25 cells, not {len(cells)}", field="layout")
    lines = _LINE_GETTERS_WITH_DIAGONALS if diagonals else _LINE_GETTERS
    return score_lines(cells, lines, table)


def rows_of(cells: Sequence[Card | None], width: int = SIZE) -> tuple[tuple[str | None, ...], ...]:
    """Cells as rows of card texts (``None`` for empty), for views and solutions."""
    texts = [c.text if c is not None else None for c in cells]
    return tuple(tuple(texts[i : i + width]) for i in range(0, len(texts), width))
