"""``poker-patience``: Poker Patience by the Hoyle rules, docs/rules.md section 3.

The first card goes anywhere and defines the origin ``(0, 0)``; every later card
goes into an empty cell touching a card already laid (horizontally, vertically or
diagonally), and the layout may never span more than 5 rows or 5 columns, so it ends
as a 5x5 square. Moves are offsets from the first card, ``r, c`` in -4..4; the text
form is ``row,col`` (``-1,2``). The player can never get stuck before 25 cards.

>>> from cardproof.cards import STANDARD_DECK
>>> game = PokerPatience.new(STANDARD_DECK)
>>> for text in ["0,0", "0,1", "1,-1", "-1,2"]: game.play(PokerPatience.parse_move(text))
>>> game.visible().origin, game.visible().layout[0]
((-1, -1), (None, None, None, '5C'))
>>> game.play(PokerPatience.parse_move("0,3"))
>>> game.play(PokerPatience.parse_move("0,4"))
Traceback (most recent call last):
...
cardproof.errors.IllegalMove: move 5 (0,4): the layout would span 6 columns (-1..4); at most 5
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

import msgspec

from cardproof.cards import Card
from cardproof.errors import ParseError
from cardproof.games.base import require_text
from cardproof.games.grid import SIZE, GridGame, GridView, TableOption, rows_of
from cardproof.hands import CustomTable, Score, TableName
from cardproof.tables import GeneratedName

REACH: Final = SIZE - 1
OFFSET_TOKEN: Final = r"[+-]?[0-4],[+-]?[0-4]"
_NEIGHBOURS: Final = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)


class Offset(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A cell relative to the first card laid: ``row`` down, ``col`` right."""

    row: int
    col: int

    @property
    def text(self) -> str:
        """``row,col``, signed: ``-1,2``."""
        return f"{self.row},{self.col}"


class PokerPatienceOptions(TableOption, frozen=True, forbid_unknown_fields=True):
    """``scoring``: a table name, a custom table or a drawn system (default ``british``)."""

    scoring: TableName | GeneratedName | CustomTable = "british"


class PokerPatience(GridGame[Offset, PokerPatienceOptions]):
    """Poker Patience: 8-neighbour adjacency inside a 5x5 bound, table ``british``."""

    id = "poker-patience"
    title = "Poker Patience (Hoyle)"
    information = "hidden"
    description = (
        "The first 25 cards of a shuffled 52-card deck are turned up one at a time. The "
        "first card goes anywhere and is the origin {row: 0, col: 0}; each later card goes "
        "into an empty cell touching a laid card horizontally, vertically or diagonally, and "
        "the layout may never span more than 5 rows or 5 columns (cells are offsets from the "
        "first card, -4..4; text form 'row,col'). The finished 5x5 square's rows and "
        "columns are scored, with the british (Hoyle) table by default; any named table or "
        "a custom one may be chosen."
    )
    options_type = PokerPatienceOptions
    move_type: ClassVar[type[Offset]] = Offset
    move_token: ClassVar[str] = OFFSET_TOKEN

    def __init__(self, cards: tuple[Card, ...] | list[Card], options: PokerPatienceOptions) -> None:
        super().__init__(cards, options)
        self.placed: dict[tuple[int, int], Card] = {}
        self.rows = (0, -1)  # empty span: (min, max) with min > max
        self.cols = (0, -1)

    @classmethod
    def parse_move(cls, text: str) -> Offset:
        """``row,col``, each -4..4 with an optional sign."""
        text = require_text(text, "an offset")
        if not re.fullmatch(OFFSET_TOKEN, text):
            raise ParseError(
                f"{text!r} is not an offset: write row,col with each -4..4, like '-1,2'"
            )
        row, col = text.split(",")
        return Offset(row=int(row), col=int(col))

    @classmethod
    def move_text(cls, move: Offset) -> str:
        """``-1,2``."""
        return move.text

    @staticmethod
    def _span(span: tuple[int, int], value: int) -> tuple[int, int]:
        low, high = span
        return (value, value) if low > high else (min(low, value), max(high, value))

    def _check(self, move: Offset) -> tuple[str, str] | None:
        """Why ``move`` is illegal now, or ``None`` (the state is not changed)."""
        if not (-REACH <= move.row <= REACH and -REACH <= move.col <= REACH):
            return "off-board", f"row and col must be -4..4, got row {move.row}, col {move.col}"
        if not self.placed:
            if (move.row, move.col) != (0, 0):
                return "first-not-origin", "the first card defines the origin: play 0,0"
            return None
        held = self.placed.get((move.row, move.col))
        if held is not None:
            return "cell-taken", f"cell {move.text} is taken"
        if not any((move.row + dr, move.col + dc) in self.placed for dr, dc in _NEIGHBOURS):
            return "not-adjacent", f"{move.text} touches no card laid so far"
        for name, span, value in (("rows", self.rows, move.row), ("columns", self.cols, move.col)):
            low, high = self._span(span, value)
            if high - low + 1 > SIZE:
                return "outside-square", (
                    f"the layout would span {high - low + 1} {name} ({low}..{high}); at most 5"
                )
        return None

    def _try(self, move: Offset) -> tuple[str, str] | None:
        if len(self._moves) >= self.cards_used:
            return "game-over", "every card is placed"
        reason = self._check(move)
        if reason is None:
            self._place(move)
        return reason

    def _place(self, move: Offset) -> None:
        self.placed[(move.row, move.col)] = self.cards[len(self._moves)]
        self.rows = self._span(self.rows, move.row)
        self.cols = self._span(self.cols, move.col)

    def legal_moves(self) -> list[Offset]:
        """Every empty cell touching the layout that keeps it within 5x5."""
        if self.is_over():
            return []
        if not self.placed:
            return [Offset(row=0, col=0)]
        candidates = {
            (r + dr, c + dc) for r, c in self.placed for dr, dc in _NEIGHBOURS
        } - self.placed.keys()
        moves = [Offset(row=r, col=c) for r, c in sorted(candidates)]
        return [m for m in moves if self._check(m) is None]

    def is_over(self) -> bool:
        """After 25 placements (the rules never leave the player stuck earlier)."""
        return len(self._moves) == SIZE * SIZE

    def square(self) -> list[Card | None]:
        """The layout as rows of its bounding box (``None`` for empty cells)."""
        (top, bottom), (left, right) = self.rows, self.cols
        return [
            self.placed.get((r, c)) for r in range(top, bottom + 1) for c in range(left, right + 1)
        ]

    def _score(self) -> Score:
        return self.score_layout(self.square(), self.options)  # type: ignore[arg-type]

    def visible(self) -> GridView:
        """The layout so far (its bounding box, with its origin) and the card to place."""
        placed = len(self._moves)
        upcoming = self.cards[placed].text if placed < len(self.cards) else None
        if not self.placed:
            return GridView((), upcoming, (), (0, 0))
        width = self.cols[1] - self.cols[0] + 1
        layout = rows_of(self.square(), width)
        return GridView(layout, upcoming, (), (self.rows[0], self.cols[0]))
