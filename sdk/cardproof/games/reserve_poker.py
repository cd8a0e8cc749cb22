"""``reserve-poker``: Repeat Poker, the reserve variant, docs/rules.md section 6.

The 53 cards (the 52 and a joker) are dealt round-robin, left to right, into 4
reserve columns: card ``i`` of the deal goes to column ``i % 4``, so column 0 gets 14
cards and columns 1..3 get 13 (**Decision**: the rules say one column has 14 without
naming it; round-robin dealing puts it first). The *bottom* of a column is its
last-dealt card, the only one that can be taken.

A move ``{"from": f, "to": c}`` (text ``f>c``) takes the bottom card of reserve
column ``f`` (0..3) and drops it into grid column ``c`` (0..4) of a 5x5 grid, where it
falls, as in Connect Four, to the lowest empty cell. After 25 cards the game is over
(28 stay in the reserve) and 12 hands are scored with the ``reserve`` table: the 5
rows, the 5 columns and the 2 long diagonals; the joker is wild.

The option ``version`` says which reserve cards are face up: 1..4 the bottom 1..4 of
each column, 5 all (an open deal), 6 none (a card is seen only once placed), or
``"random"``, a die roll derived from the seeds (:meth:`ReservePoker.resolve_options`).
Here, in the canonical deck order, column 0 is ``2C 6C TC ... 7S JS JK``, and with
version 2 its bottom two cards are face up:

>>> from cardproof.cards import JOKER_DECK
>>> game = ReservePoker.new(JOKER_DECK, {"version": 2})
>>> [len(column) for column in game.visible().reserve]
[14, 13, 13, 13]
>>> game.visible().reserve[0][-3:]
(None, 'JS', 'JK')

The joker dropped into grid column 2 falls to the bottom row; the next card dropped
there lands on top of it. Taking a face-up card turns the lowest face-down card of
its column face up, so two stay face up:

>>> game.play(ReservePoker.parse_move("0>2"))
>>> game.visible().grid[3:]
((None, None, None, None, None), (None, None, 'JK', None, None))
>>> game.visible().reserve[0][-3:]
(None, '7S', 'JS')
>>> game.play(ReservePoker.parse_move("0>2"))
>>> game.visible().grid[3:]
((None, None, 'JS', None, None), (None, None, 'JK', None, None))

A grid column holds 5 cards:

>>> for text in ["1>2", "2>2", "3>2"]: game.play(ReservePoker.parse_move(text))
>>> game.play(ReservePoker.parse_move("1>2"))
Traceback (most recent call last):
...
cardproof.errors.IllegalMove: move 5 (1>2): grid column 2 (col c) is full (5 cards)

The player can never get stuck: before the 25th card the reserve still holds at
least 29 cards (so some column is not empty) and the grid has an empty cell (so some
grid column is not full).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Final, Literal

import msgspec
from msgspec import Meta

from cardproof.cards import Card, CardShown
from cardproof.deal import draws
from cardproof.errors import ParseError, RuleError
from cardproof.games.base import Information, require_text
from cardproof.games.grid import COLUMN_LETTERS, SIZE, GridGame, rows_of
from cardproof.hands import TABLES, PointTable, Score

RESERVE_COLUMNS: Final = 4
"""Reserve columns, dealt round-robin: column 0 gets 14 cards, the others 13."""
DECK_TYPE: Final = "joker-53"
VERSION_STREAM: Final = "version"
"""The draw stream of the ``"random"`` version's die roll (``cardproof-shuffle-v1``)."""
MOVE_TOKEN: Final = r"[0-3]>[0-4]"
RESERVE_TABLE: Final[PointTable] = TABLES["reserve"]
_GRID_CELLS: Final = SIZE * SIZE
_FACE_UP: Final = {1: 1, 2: 2, 3: 3, 4: 4, 5: 53, 6: 0}
"""Per version, how many cards at the bottom of each reserve column are face up."""

Version = Annotated[int, Meta(ge=1, le=6)]


class ReserveOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Options of reserve-poker.

    ``version``: which reserve cards are face up: 1..4 the bottom 1..4 cards of each
    column, 5 all of them (an open deal), 6 none (a card is seen once placed); or
    ``"random"``: a die roll derived from the deal's seeds. The table is always
    ``reserve``, and the 2 long diagonals are always scored.
    """

    version: Version | Literal["random"] = 1

    @property
    def table(self) -> PointTable:
        """The ``reserve`` table, always."""
        return RESERVE_TABLE

    @property
    def diagonals(self) -> bool:
        """Always: 12 hands (what :meth:`GridGame.score_layout` reads)."""
        return True


class ReserveMove(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Take the bottom card of reserve column ``from`` (0..3); drop it into grid column ``to``."""

    from_: int = msgspec.field(name="from")
    to: int

    @property
    def text(self) -> str:
        """``from>to``: ``0>4``."""
        return f"{self.from_}>{self.to}"


class ReserveView(msgspec.Struct, frozen=True, tag_field="kind", tag="reserve"):
    """What a reserve-poker player may see.

    ``grid``: the 5x5 grid, rows top to bottom, ``null`` for an empty cell (cards fall
    to the bottom row, row 4). ``reserve``: the 4 reserve columns, each first-dealt
    first, so its last entry is the card that can be taken; ``null`` for a face-down
    card. ``version``: the visibility version the game is played with (1..6).
    """

    grid: tuple[tuple[CardShown | None, ...], ...]
    reserve: tuple[tuple[CardShown | None, ...], ...]
    version: int


MOVES: Final = tuple(
    tuple(ReserveMove(from_=f, to=c) for c in range(SIZE)) for f in range(RESERVE_COLUMNS)
)
"""``MOVES[f][c]``: every legal-looking move, shared."""
MOVES_BY_TEXT: Final[dict[str, ReserveMove]] = {m.text: m for row in MOVES for m in row}


class ReservePoker(GridGame[ReserveMove, ReserveOptions]):
    """Repeat Poker's reserve variant: 4 reserve columns, a gravity grid, 12 hands."""

    id = "reserve-poker"
    title = "Repeat Poker, the reserve variant"
    information = "hidden"
    description = (
        "A shuffled 53-card deck (the 52 cards and a joker) is dealt round-robin, left to "
        "right, into 4 reserve columns, so column 0 gets 14 cards and columns 1..3 get 13 "
        "(Decision: the rules say one column has 14 without naming it; round-robin dealing "
        "puts it first). Only the bottom (last-dealt) card of a reserve column can be "
        "taken. A move {from: f, to: c} (text 'f>c', like '0>4') takes the bottom card of "
        "reserve column f (0..3) and drops it into column c (0..4) of a 5x5 grid, where it "
        "falls to the lowest empty cell, as in Connect Four; a grid column holds 5 cards. "
        "Option version: 1..4, the bottom 1..4 cards of each reserve column are face up, "
        "and taking one turns the next face-down card up; 5, all cards are face up (an "
        "open deal: the player sees every card before playing); 6, all are face down (a "
        "card is seen once placed); 'random', a die roll (1..6) derived from the deal's "
        "seeds (stream 'version'). After 25 cards the 12 hands "
        "(5 rows, 5 columns, 2 long diagonals) are scored with the reserve table; the "
        "joker is wild: it counts as whichever card scores best, a duplicate allowed "
        "(five of a kind)."
    )
    deck_type: ClassVar[str] = DECK_TYPE
    cards_used: ClassVar[int] = 53
    options_type = ReserveOptions
    move_type: ClassVar[type[ReserveMove]] = ReserveMove
    move_token: ClassVar[str] = MOVE_TOKEN
    moves_by_text: ClassVar[Mapping[str, ReserveMove]] = MOVES_BY_TEXT

    def __init__(self, cards: Sequence[Card], options: ReserveOptions) -> None:
        version = options.version
        if version == "random":
            raise RuleError(
                "random-needs-seeds",
                "version 'random' is a die roll on the deal's seeds: resolve it "
                "(ReservePoker.resolve_options) before playing",
                field="options.version",
            )
        if version not in _FACE_UP:  # a struct built directly is not validated
            raise RuleError(
                "bad-option",
                f"version must be 1..6 or 'random', not {version!r}",
                field="options.version",
            )
        super().__init__(cards, options)
        self.version: int = version
        dealt = self.cards
        self.reserve: list[list[Card]] = [
            list(dealt[f::RESERVE_COLUMNS]) for f in range(RESERVE_COLUMNS)
        ]
        """The reserve columns, first-dealt first: ``pop()`` takes the bottom card."""
        self.cells: list[Card | None] = [None] * _GRID_CELLS
        """The grid, row by row (row 0 on top)."""
        self.next_cell: list[int] = list(range(_GRID_CELLS - SIZE, _GRID_CELLS))
        """Per grid column, the cell a card dropped there lands in (negative once full)."""

    # --- options ------------------------------------------------------------------

    @classmethod
    def information_of(cls, options: ReserveOptions) -> Information:
        """Version 5 shows every card from the start: an open deal."""
        return "open" if options.version == 5 else "hidden"

    @classmethod
    def informations(cls, options: ReserveOptions) -> frozenset[Information]:
        """A ``"random"`` version may roll any of 1..6, so be hidden or open (version 5).

        >>> sorted(ReservePoker.informations(ReserveOptions(version="random")))
        ['hidden', 'open']
        >>> sorted(ReservePoker.informations(ReserveOptions(version=3)))
        ['hidden']
        """
        if options.version == "random":
            return frozenset(cls.information_of(ReserveOptions(version=v)) for v in range(1, 7))
        return frozenset({cls.information_of(options)})

    @classmethod
    def information_by_option(cls) -> dict[str, dict[str, Information]]:
        """Version 5 is open (and so is a ``"random"`` version that rolls a 5)."""
        return {"version": {"5": "open"}}

    @classmethod
    def resolve_options(
        cls,
        options: ReserveOptions | Mapping[str, Any] | None,
        server_seed: bytes | None,
        client_seed: str | None,
    ) -> ReserveOptions:
        """The options with ``"random"`` replaced by its die roll; others as they are.

        The roll is ``draws(server_seed, client_seed, "joker-53", "version").below(6) + 1``.
        ``None`` seeds (an explicit card order) cannot roll: ``RuleError('random-needs-seeds')``.

        >>> ReservePoker.resolve_options({"version": 3}, None, None).version
        3
        >>> ReservePoker.resolve_options({"version": "random"}, bytes(32), "alice").version
        1
        """
        parsed: ReserveOptions = cls.parse_options(options)
        if parsed.version != "random":
            return parsed
        if server_seed is None or client_seed is None:
            raise RuleError(
                "random-needs-seeds",
                "version 'random' is a die roll on the deal's seeds; a deal given as an "
                "explicit card order must name a version 1..6",
                field="options.version",
            )
        roll = draws(server_seed, client_seed, DECK_TYPE, VERSION_STREAM).below(6) + 1
        return ReserveOptions(version=roll)

    # --- moves --------------------------------------------------------------------

    @classmethod
    def parse_move(cls, text: str) -> ReserveMove:
        """``f>c``: reserve column 0..3, then grid column 0..4."""
        move = MOVES_BY_TEXT.get(require_text(text, "a reserve-poker move"))
        if move is None:
            raise ParseError(
                f"{text!r} is not a move: write a reserve column 0..3, '>', then a grid "
                "column 0..4, like '0>4'"
            )
        return move

    @classmethod
    def move_text(cls, move: ReserveMove) -> str:
        """``0>4``."""
        return f"{move.from_}>{move.to}"

    def _try(self, move: ReserveMove) -> tuple[str, str] | None:
        f, c = move.from_, move.to
        if 0 <= f < 4 and 0 <= c < 5:  # the fast path of every replay
            column, cell = self.reserve[f], self.next_cell[c]
            if column and cell >= 0:
                self.next_cell[c] = cell - 5
                self.cells[cell] = column.pop()
                return None
        return self._refusal(f, c)

    def _refusal(self, f: int, c: int) -> tuple[str, str]:
        """Why taking from reserve column ``f`` into grid column ``c`` is illegal now."""
        if not 0 <= f < RESERVE_COLUMNS:
            return "off-board", f"from must be a reserve column 0..3, got {f}"
        if not 0 <= c < SIZE:
            return "off-board", f"to must be a grid column 0..4, got {c}"
        if not self.reserve[f]:
            return "reserve-empty", f"reserve column {f} is empty"
        return "column-full", f"grid column {c} (col {COLUMN_LETTERS[c]}) is full (5 cards)"

    def legal_moves(self) -> list[ReserveMove]:
        """Every (non-empty reserve column, non-full grid column) pair."""
        if self.is_over():
            return []
        open_columns = [c for c in range(SIZE) if self.next_cell[c] >= 0]
        return [
            MOVES[f][c] for f in range(RESERVE_COLUMNS) if self.reserve[f] for c in open_columns
        ]

    def is_over(self) -> bool:
        """After 25 cards (the player cannot get stuck earlier)."""
        return len(self._moves) == _GRID_CELLS

    # --- score and view -------------------------------------------------------------

    def _score(self) -> Score:
        return self.score_layout(self.cells, self.options)  # type: ignore[arg-type]

    def face_down(self, column: int) -> int:
        """How many cards at the top of reserve column ``column`` are face down now."""
        held = len(self.reserve[column])
        return max(0, held - _FACE_UP[self.version])

    def visible(self) -> ReserveView:
        """The grid, and the reserve with its face-down cards as ``null``."""
        reserve = []
        for f, column in enumerate(self.reserve):
            down = self.face_down(f)
            reserve.append((None,) * down + tuple(card.text for card in column[down:]))
        return ReserveView(rows_of(self.cells), tuple(reserve), self.version)


__all__ = [
    "MOVES_BY_TEXT",
    "ReserveMove",
    "ReserveOptions",
    "ReservePoker",
    "ReserveView",
]
