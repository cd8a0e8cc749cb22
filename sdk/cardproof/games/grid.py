"""Parts shared by the 5x5 grid variants: cells, lines, the view, scoring, game bases.

:class:`GridGame` is the base of the three grid variants; :class:`GridPlacementGame`
adds absolute cells (poker-squares, serpent-patience).

Cells are numbered ``row * 5 + col`` with row 0 the top row and col 0 the left
column. A cell's text form is its column letter then its row number: ``a1`` is the
top-left cell, ``e5`` the bottom-right.

>>> Cell.parse("c3"), Cell(row=0, col=4).text
(Cell(row=2, col=2), 'e1')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from operator import itemgetter
from typing import Any, ClassVar, Final, Protocol, Self, TypeVar, cast

import msgspec

from cardproof.cards import Card, CardShown
from cardproof.errors import ParseError, RuleError
from cardproof.games.base import Game
from cardproof.hands import Category, CustomTable, PointTable, Score, TableName, score_lines
from cardproof.tables import LOWEST, GeneratedName, generate, is_generated, needs_seeds

SIZE: Final = 5
COLUMN_LETTERS: Final = "abcde"
CELL_TOKEN: Final = r"[a-eA-E][1-5]"
_CELL_TEXTS: Final = tuple(f"{c}{r + 1}" for r in range(SIZE) for c in COLUMN_LETTERS)
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
        return _CELL_TEXTS[self.row * SIZE + self.col]

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
_POSITIONS: Final = {cell: cell.row * SIZE + cell.col for cell in CELLS_BY_TEXT.values()}
"""Every cell on the board by its number (``row * 5 + col``): a cell off it is not here."""
_STEPS: Final = frozenset(
    (p, q)
    for p in range(SIZE * SIZE)
    for q in range(SIZE * SIZE)
    if abs(p // SIZE - q // SIZE) + abs(p % SIZE - q % SIZE) == 1
)
"""Every pair of cell numbers one orthogonal step apart."""


class GridView(msgspec.Struct, frozen=True, tag_field="kind", tag="grid"):
    """What a player of a grid variant may see: the layout and the cards now due.

    ``layout`` holds rows top to bottom, ``null`` for an empty cell. ``next`` is the card
    to place now (``null`` once the game is over). ``later`` lists the cards after it,
    in order, for open variants only; a hidden variant never shows them. For
    ``poker-patience`` ``origin`` is the (row, col) of ``layout[0][0]`` relative to the
    first card placed, and ``layout`` spans only the cards placed so far.
    """

    layout: tuple[tuple[CardShown | None, ...], ...]
    next: CardShown | None
    later: tuple[CardShown, ...] = ()
    origin: tuple[int, int] | None = None


def _lines() -> tuple[tuple[str, tuple[int, ...]], ...]:
    rows = tuple((f"row {r + 1}", tuple(r * SIZE + c for c in range(SIZE))) for r in range(SIZE))
    cols = tuple(
        (f"col {COLUMN_LETTERS[c]}", tuple(r * SIZE + c for r in range(SIZE))) for c in range(SIZE)
    )
    return rows + cols


ROW_AND_COLUMN_LINES: Final = _lines()
"""The ten scored lines, named as the cells are (column letter, row number from 1):
``row 1``..``row 5`` then ``col a``..``col e``, as cell numbers."""
DIAGONAL_LINES: Final = (
    ("diagonal \\", tuple(i * (SIZE + 1) for i in range(SIZE))),
    ("diagonal /", tuple((i + 1) * (SIZE - 1) for i in range(SIZE))),
)
"""The two long diagonals: ``diagonal \\`` from a1 to e5, ``diagonal /`` from e1 to a5."""


_LINE_GETTERS: Final = tuple((name, itemgetter(*cells)) for name, cells in ROW_AND_COLUMN_LINES)
_LINE_GETTERS_WITH_DIAGONALS: Final = _LINE_GETTERS + tuple(
    (name, itemgetter(*cells)) for name, cells in DIAGONAL_LINES
)


class TableOption(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Base of option sets that choose a point table.

    A table name, a custom table, or a point system drawn from the deal's seeds
    (:mod:`cardproof.tables`), which a deal resolves into the custom table it drew
    (:meth:`GridGame.resolve_options`).
    """

    scoring: TableName | GeneratedName | CustomTable = "american"

    @property
    def table(self) -> PointTable:
        """The point table these options name (a generated system must be resolved first)."""
        if is_generated(self.scoring):
            raise needs_seeds(cast(str, self.scoring))
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


M = TypeVar("M", bound=msgspec.Struct)
O = TypeVar("O", bound=msgspec.Struct)  # noqa: E741


class _Tabled(Protocol):
    """Options that name a point table (and may score the diagonals)."""

    @property
    def table(self) -> PointTable: ...


class GridGame(Game[M, O]):
    """What the 5x5 variants share: 25 cards of a standard deck, scored as a grid."""

    cards_used: ClassVar[int] = SIZE * SIZE
    deck_type: ClassVar[str] = "standard-52"

    @classmethod
    def score_layout(cls, cells: Sequence[Card], options: O) -> Score:
        """Score a finished 5x5 layout (row by row) under these options."""
        diagonals = bool(getattr(options, "diagonals", False))
        return score_grid(cells, cast(_Tabled, options).table, diagonals=diagonals)

    @classmethod
    def turns(cls, options: O) -> int | None:
        """25: one card to a cell, and no 5x5 game ends early (serpent's may: see there)."""
        return SIZE * SIZE

    @classmethod
    def resolve_options(cls, options: O, server_seed: bytes | None, client_seed: str | None) -> O:
        """A point system named in ``scoring`` replaced by the table the seeds draw.

        >>> from cardproof.games import variant
        >>> squares = variant("poker-squares")
        >>> drawn = squares.resolve_options(
        ...     squares.parse_options({"scoring": "single-hand"}), bytes(32), "alice"
        ... )
        >>> sorted(drawn.table.points)[-2:], drawn.table.name
        ([0, 1], 'custom')
        """
        scoring = getattr(options, "scoring", None)
        if not is_generated(scoring):
            return options
        system = cast(str, scoring)
        if server_seed is None or client_seed is None:
            raise needs_seeds(system)
        drawn = generate(system, server_seed, client_seed).as_mapping()
        return msgspec.structs.replace(options, scoring=msgspec.convert(drawn, CustomTable))

    unfinished_rule: ClassVar[str] = (
        "the table's lowest points (over the hands a 52-card deck can make) times the "
        "number of lines scored: 10, or 12 with the diagonals"
    )

    @classmethod
    def worst_total(cls, options: O) -> int:
        """The table's lowest points times the lines scored (docs/rules.md section 9).

        Five of a kind is left out: a 52-card deck cannot make it.

        >>> from cardproof.games import variant
        >>> squares = variant("poker-squares")
        >>> squares.worst_total(squares.parse_options({"scoring": {"flush": -7}}))
        -70
        >>> options = {"scoring": {"flush": -7}, "diagonals": True}
        >>> squares.worst_total(squares.parse_options(options))
        -84
        >>> squares.worst_total(squares.parse_options({}))
        0
        """
        lines = len(DIAGONAL_LINES) + len(ROW_AND_COLUMN_LINES)
        if not getattr(options, "diagonals", False):
            lines = len(ROW_AND_COLUMN_LINES)
        scoring = getattr(options, "scoring", None)
        if is_generated(scoring):  # a round's table is drawn with its deal: the system's worst
            return LOWEST[cast(str, scoring)] * lines
        points = cast(_Tabled, options).table.points[: Category.FIVE_OF_A_KIND]
        return min(points) * lines

    def is_complete(self) -> bool:
        """All 25 cards placed."""
        return len(self._moves) == SIZE * SIZE

    def incomplete_reason(self) -> str:
        """How many moves the log lacks."""
        return f"the log has {len(self._moves)} moves; {self.id} needs 25"


class GridPlacementGame(GridGame[Cell, TableOption]):
    """A hidden-order 5x5 game where each card is placed in an absolute cell."""

    move_type: ClassVar[type[Cell]] = Cell
    move_token: ClassVar[str] = CELL_TOKEN
    moves_by_text: ClassVar[Mapping[str, Cell]] = CELLS_BY_TEXT
    steps_to_a_neighbour: ClassVar[bool] = False
    """Whether each card after the first must go orthogonally next to the one before."""

    def __init__(self, cards: tuple[Card, ...] | list[Card], options: TableOption) -> None:
        super().__init__(cards, options)
        self.cells: list[Card | None] = [None] * (SIZE * SIZE)

    @classmethod
    def replay(
        cls,
        cards: Sequence[Card],
        options: TableOption | Mapping[str, Any] | None,
        moves: Iterable[Cell],
        *,
        dealt: bool = False,
    ) -> Self:
        """Play a whole log at once when every move is plainly legal, else move by move.

        A log is plainly legal when every move is a cell on the board, no cell comes
        twice, no card is placed that the deal lacks, and (serpent) each cell is one step
        from the one before: then each card goes to its cell in one pass. Any other log is
        replayed move by move (:meth:`Game.replay`), which names the first move refused.

        >>> from cardproof.cards import STANDARD_DECK
        >>> from cardproof.games import variant
        >>> serpent = variant("serpent-patience")
        >>> serpent.replay(STANDARD_DECK, None, [Cell.parse("a1"), Cell.parse("a2")]).cells[5]
        Card('3C')
        >>> serpent.replay(STANDARD_DECK, None, [Cell.parse("a1"), Cell.parse("a3")])
        Traceback (most recent call last):
        cardproof.errors.IllegalMove: move 1 (a3): a3 is not next to a1, the cell of the card before
        """
        log = list(moves)
        try:
            positions = list(map(_POSITIONS.get, log))
        except TypeError:  # a move that cannot be a key (not a cell): refused move by move
            positions = [None]
        if (
            None in positions
            or len(set(positions)) != len(positions)
            or len(positions) > len(cards)
            or (cls.steps_to_a_neighbour and not all(map(_STEPS.__contains__, pairwise(positions))))
        ):
            return super().replay(cards, options, log, dealt=dealt)
        game = (
            cls(cast(list[Card], cards), cls.parse_options(options))
            if dealt
            else cls.new(cards, options)
        )
        cells = game.cells
        for position, card in zip(cast(list[int], positions), cards, strict=False):
            cells[position] = card
        game._moves.extend(log)
        return game

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
            return "cell-taken", f"cell {move.text} is taken"
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

    def _score(self) -> Score:
        return self.score_layout(self.cells, self.options)  # type: ignore[arg-type]

    def visible(self) -> GridView:
        """The grid so far and the card to place (later cards only if open)."""
        upcoming = self.cards[len(self._moves) :]
        later = tuple(c.text for c in upcoming[1:]) if self.information == "open" else ()
        return GridView(rows_of(self.cells), upcoming[0].text if upcoming else None, later)
