"""``repeat-poker``: Repeat Poker, docs/rules.md section 5.

All 52 cards of a shuffled deck are turned up one at a time, each placed at the end
of one of the ``rows`` rows (1..5, default 5). A row that reaches 5 cards is scored
at once with the ``repeat`` table, and the cards that make its hand are removed; the
kickers stay and the row fills again. A row left incomplete when the deck runs out
scores nothing. With ``levels: 5`` the game is the ladder: 5 rows, then 4, 3, 2 and
1, each level with its own freshly shuffled deck (stream ``deal``, then ``level-2``
.. ``level-5``). A move is a row, ``{"row": r}`` with ``r`` 0-based; its text form
is ``r1`` .. ``r5`` (1-based).

A pair removes its 2 cards and keeps the 3 kickers:

>>> from cardproof.cards import STANDARD_DECK, parse_cards
>>> first = parse_cards("AH AD 7C 4S 9D".split())
>>> deck = first + [card for card in STANDARD_DECK if card not in first]  # 2C 3C 4C ..
>>> game = RepeatPoker.new(deck, {"rows": 1})
>>> for _ in range(5): game.play(RowMove(row=0))
>>> hand = game.visible().scored[0]
>>> hand.category, hand.points, hand.removed, game.visible().rows
('one-pair', 20, ('AH', 'AD'), (('7C', '4S', '9D'),))

**Decision** (high card): a full row with no poker hand scores 0 and loses its single
highest card (aces high), so that the row stays in play:

>>> game.play(RowMove(row=0)); game.play(RowMove(row=0))  # 2C, 3C: 7C 4S 9D 2C 3C
>>> game.visible().scored[-1].removed, game.visible().rows
(('9D',), (('7C', '4S', '2C', '3C'),))

The rule text's "all 5 cards in other cases" can also be read to cover such a row:
option ``high_card: "clear-row"`` removes all five.

>>> cleared = RepeatPoker.new(deck, {"rows": 1, "high_card": "clear-row"})
>>> for _ in range(7): cleared.play(RowMove(row=0))
>>> cleared.visible().scored[-1].removed, cleared.visible().rows
(('7C', '4S', '9D', '2C', '3C'), ((),))

A straight, flush, full house, straight flush or royal flush removes all 5 cards;
two pair 4, three of a kind 3, four of a kind 4. Rows past the level's count are off
the board:

>>> game.play(RepeatPoker.parse_move("r2"))
Traceback (most recent call last):
...
cardproof.errors.IllegalMove: move 7 (r2): row 2 is off the board: this level has 1 row
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Final, Literal, Self, cast

import msgspec
from msgspec import UNSET, Meta, UnsetType

from cardproof.cards import Card, CardShown
from cardproof.deal import standard_deck
from cardproof.errors import ParseError, RuleError
from cardproof.games.base import Game, require_text
from cardproof.hands import CATEGORY_IDS, TABLES, TRIE, CategoryId, HandScore, PointTable, Score

DECK: Final = 52
"""Cards in each level's deck."""
ROW_LENGTH: Final = 5
MAX_ROWS: Final = 5
LADDER: Final = (5, 4, 3, 2, 1)
"""Rows per level of the full ladder (``levels: 5``)."""
ROW_TOKEN: Final = r"[rR][1-5]"
"""A row in text form, for log parsing and the API's log pattern."""

_CATEGORY_IDS: Final = cast(tuple[CategoryId, ...], CATEGORY_IDS)
_ROW_NAMES: Final = tuple(f"row {r + 1}" for r in range(MAX_ROWS))
_REMOVES_ALL: Final = frozenset({4, 5, 6, 8, 9})
"""Category numbers whose 5 cards all go: straight, flush, full house, straight and royal
flush. High card (0) loses its highest card; the others (pair, two pair, three and four
of a kind) lose the cards whose rank appears more than once in the row."""


def level_stream(level: int) -> str:
    """The shuffle stream of a level (1-based): ``deal`` for level 1, then ``level-k``."""
    return "deal" if level == 1 else f"level-{level}"


def _shifted(locate: Callable[[int], str], start: int) -> Callable[[int], str]:
    """``locate`` for a slice of the cards that starts at ``start``."""
    return lambda i: locate(start + i)


class RepeatOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Options of repeat-poker.

    ``rows``: how many rows (1..5, default 5); ``levels``: 1 (default) or 5, the ladder
    of 5, 4, 3, 2 and 1 rows (``rows`` is then 5 or left out); ``high_card``: what a
    full row with no poker hand loses, ``drop-top`` (the default, also when left out)
    its highest card, or ``clear-row`` all five. Left out, ``high_card`` stays out of a
    deal's and a receipt's options, so that a verifier older than the option reads the
    receipts of the games it knows. The table is always ``repeat``.
    """

    rows: Annotated[int, Meta(ge=1, le=MAX_ROWS)] = MAX_ROWS
    levels: Literal[1, 5] = 1
    high_card: Literal["drop-top", "clear-row"] | UnsetType = UNSET

    def __post_init__(self) -> None:
        """``drop-top`` said is ``drop-top`` left out: one spelling of the default."""
        if self.high_card == "drop-top":
            msgspec.structs.force_setattr(self, "high_card", UNSET)

    @property
    def table(self) -> PointTable:
        """The point table: always ``repeat``."""
        return TABLES["repeat"]

    @property
    def rows_per_level(self) -> tuple[int, ...]:
        """How many rows each level has: ``(rows,)``, or the ladder 5, 4, 3, 2, 1."""
        return LADDER if self.levels == len(LADDER) else (self.rows,)


class RowMove(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Place the card in a row: ``row`` is 0-based (row 0 is the first row)."""

    row: int

    @property
    def text(self) -> str:
        """``r`` then the 1-based row number: ``{"row": 2}`` is ``r3``."""
        if not 0 <= self.row < MAX_ROWS:
            return f"row={self.row}"  # off the board: still printable in an error
        return f"r{self.row + 1}"


ROW_MOVES: Final = tuple(RowMove(row=r) for r in range(MAX_ROWS))
MOVES_BY_TEXT: Final = {
    spelling: ROW_MOVES[r] for r in range(MAX_ROWS) for spelling in (f"r{r + 1}", f"R{r + 1}")
}
"""Every move by its text forms (``r3`` and ``R3``)."""


class RowsView(msgspec.Struct, frozen=True, tag_field="kind", tag="rows"):
    """What a repeat-poker player may see: the current level's rows and the card now due.

    ``rows`` holds the current level's rows, each card in the order it was placed (the
    kickers of a scored row first). ``next`` is the card to place now (``null`` once the
    game is over); ``level`` the current level (1-based); ``cards_left`` how many cards
    of this level are still to come, ``next`` included. ``scored`` lists every hand
    scored so far, in order, with its level and the cards it removed.
    """

    rows: tuple[tuple[CardShown, ...], ...]
    next: CardShown | None
    level: int
    cards_left: int
    scored: tuple[HandScore, ...]


class RepeatPoker(Game[RowMove, RepeatOptions]):
    """Repeat Poker: rows scored and emptied as they fill, 52 cards a level."""

    id = "repeat-poker"
    title = "Repeat Poker"
    information = "hidden"
    description = (
        "All 52 cards of a shuffled deck are turned up one at a time; place each at the end of "
        "one of the rows (option rows, 1..5, default 5; a move is {row: r}, 0-based, text form "
        "'r1'..'r5'), each holding up to 5 cards. When a row reaches 5 cards it is scored at once "
        "with the repeat table and the cards that make the hand are removed, the kickers stay: a "
        "pair removes 2 cards, two pair 4, three of a kind 3, four of a kind 4, a straight, "
        "flush, full house, straight flush or royal flush all 5. Decision: a row with no poker "
        "hand (high card) scores 0 and its single highest card (aces high) is removed (option "
        "high_card: 'drop-top', the default); the rules remove only a hand's cards, and a "
        "high-card hand is its top card, the other four being kickers. The rule text's 'all 5 "
        "cards in other cases' can also be read to cover such a row: option high_card: "
        "'clear-row' removes all five. Rows left incomplete when the deck runs out score nothing. "
        "With levels: 5 the game is the ladder of 5, 4, 3, 2 and 1 rows, each level with its own "
        "freshly shuffled deck from the same seeds (streams 'deal', 'level-2' .. 'level-5'); the "
        "score is the sum of the levels, and the result shows each level's total."
    )
    deck_type: ClassVar[str] = "standard-52"
    cards_used: ClassVar[int] = DECK
    """Per level: a game uses ``DECK * levels`` cards (see :meth:`cards_needed`)."""
    move_type: ClassVar[type[RowMove]] = RowMove
    options_type: ClassVar[type[RepeatOptions]] = RepeatOptions
    move_token: ClassVar[str] = ROW_TOKEN
    moves_by_text: ClassVar[Mapping[str, RowMove]] = MOVES_BY_TEXT

    def __init__(self, cards: Sequence[Card], options: RepeatOptions) -> None:
        super().__init__(cards, options)
        self._ladder = options.rows_per_level
        self._needed = DECK * len(self._ladder)
        self.cards = tuple(cards[: self._needed])
        self._points = options.table.points
        self._clear_high_card = options.high_card == "clear-row"  # left out: drop-top
        self._level = 1
        self._rows: list[list[Card]] = [[] for _ in range(self._ladder[0])]
        self._hands: list[HandScore] = []
        self._level_totals = [0] * len(self._ladder)

    # --- construction -------------------------------------------------------------

    @classmethod
    def turns(cls, options: RepeatOptions) -> int | None:
        """Every card of every level is placed: 52 a level."""
        return cls.cards_needed(options)

    @classmethod
    def cards_needed(cls, options: RepeatOptions) -> int:
        """How many cards a game with these options uses: 52 a level."""
        return DECK * len(options.rows_per_level)

    @classmethod
    def new(
        cls,
        cards: Sequence[Card],
        options: RepeatOptions | Mapping[str, Any] | None = None,
        *,
        field: str = "deal.cards",
    ) -> Self:
        """A new game on an explicit card order: 52 cards a level, none twice in a level.

        The options are read first, since they say how many cards the game needs.
        """
        parsed = cls.parse_options(options)
        needed = cls.cards_needed(parsed)
        if len(cards) < needed:
            levels = len(parsed.rows_per_level)
            raise RuleError(
                "too-few-cards",
                f"{cls.id} with {levels} level{'s' * (levels > 1)} needs {needed} cards, "
                f"got {len(cards)}",
                field=field,
            )
        cls.check_cards(cards, locate=lambda i: f"{field}[{i}]")
        return cls(cards, parsed)

    @classmethod
    def parse_options(cls, options: msgspec.Struct | Mapping[str, Any] | None) -> RepeatOptions:
        """Options as for every variant; ``rows`` other than 5 with ``levels: 5`` is refused."""
        parsed = super().parse_options(options)
        if parsed.levels != 1 and parsed.rows != MAX_ROWS:
            raise RuleError(
                "bad-option",
                f"options.rows: with levels {parsed.levels} the rows are the ladder "
                f"5, 4, 3, 2, 1; leave rows out (or set it to 5), not {parsed.rows}",
                field="options.rows",
            )
        return parsed

    @classmethod
    def deal_cards(
        cls, server_seed: bytes, client_seed: str, options: RepeatOptions
    ) -> tuple[Card, ...]:
        """Each level's deck in turn: level 1 from stream ``deal``, level k from ``level-k``.

        A one-level game deals exactly like the ladder's first level.
        """
        levels = len(options.rows_per_level)
        return tuple(
            card
            for level in range(1, levels + 1)
            for card in standard_deck(server_seed, client_seed, stream=level_stream(level))
        )

    @classmethod
    def check_cards(
        cls, cards: Sequence[Card], locate: Callable[[int], str] = lambda i: f"deal.cards[{i}]"
    ) -> None:
        """Each level's 52 cards distinct and no joker; a card may come again in a later level."""
        for start in range(0, len(cards), DECK):
            super().check_cards(cards[start : start + DECK], locate=_shifted(locate, start))

    # --- moves and their text -----------------------------------------------------------

    @classmethod
    def parse_move(cls, text: str) -> RowMove:
        """``r1`` .. ``r5`` (either case): the row, 1-based."""
        move = MOVES_BY_TEXT.get(require_text(text, "a row"))
        if move is None:
            raise ParseError(f"{text!r} is not a row: write r then a row number 1..5, like 'r3'")
        return move

    @classmethod
    def move_text(cls, move: RowMove) -> str:
        """``r3``."""
        return move.text

    # --- playing -------------------------------------------------------------------------

    def _try(self, move: RowMove) -> tuple[str, str] | None:
        placed = len(self._moves)
        if placed >= self._needed:
            return "game-over", "every card is placed"
        r = move.row
        rows = self._rows
        if not 0 <= r < len(rows):
            count = len(rows)
            where = f"row {r + 1}" if 0 <= r < MAX_ROWS else f"row index {r}"
            return "off-board", (
                f"{where} is off the board: this level has {count} row{'s' * (count > 1)}"
            )
        row = rows[r]
        if len(row) >= ROW_LENGTH:  # not reached in play: a full row loses cards at once
            return "row-full", f"row {r + 1} already holds {ROW_LENGTH} cards"
        row.append(self.cards[placed])
        if len(row) == ROW_LENGTH:
            self._score_row(r, row)
        placed += 1
        if placed % DECK == 0 and placed < self._needed:
            self._level += 1
            self._rows = [[] for _ in range(self._ladder[self._level - 1])]
        return None

    def _score_row(self, r: int, row: list[Card]) -> None:
        """Score the full row ``r`` and remove, in place, the cards that make its hand."""
        a, b, c, d, e = row
        category: int = TRIE[a.index][b.index][c.index][d.index][e.index]
        texts = (a.text, b.text, c.text, d.text, e.text)
        removed: tuple[str, ...]
        if category == 0 and self._clear_high_card:
            removed = texts
            row.clear()
        elif category == 0:  # high card: the ranks are distinct, so the highest is unique
            ranks = (a.rank, b.rank, c.rank, d.rank, e.rank)
            top = ranks.index(max(ranks))
            removed = (texts[top],)
            del row[top]
        elif category in _REMOVES_ALL:
            removed = texts
            row.clear()
        else:  # pair, two pair, three or four of a kind: the cards whose rank repeats
            count = (a.rank, b.rank, c.rank, d.rank, e.rank).count
            removed = tuple([card.text for card in row if count(card.rank) > 1])
            row[:] = [card for card in row if count(card.rank) == 1]
        points = self._points[category]
        level = self._level
        self._level_totals[level - 1] += points
        self._hands.append(
            HandScore(_ROW_NAMES[r], texts, _CATEGORY_IDS[category], points, level, removed)
        )

    def legal_moves(self) -> list[RowMove]:
        """Every row of the current level with fewer than 5 cards."""
        if self.is_over():
            return []
        return [ROW_MOVES[r] for r, row in enumerate(self._rows) if len(row) < ROW_LENGTH]

    def is_over(self) -> bool:
        """After the last level's 52nd card."""
        return len(self._moves) >= self._needed

    def is_complete(self) -> bool:
        """Every level played out (the player can never get stuck)."""
        return self.is_over()

    def incomplete_reason(self) -> str:
        """How many moves the log has, and how many the game needs."""
        levels = len(self._ladder)
        return (
            f"the log has {len(self._moves)} moves; {self.id} with {levels} "
            f"level{'s' * (levels > 1)} needs {self._needed}"
        )

    def _score(self) -> Score:
        return Score(sum(self._level_totals), tuple(self._hands), levels=tuple(self._level_totals))

    @property
    def level(self) -> int:
        """The current level, 1-based (the last one once the game is over)."""
        return self._level

    def next_card(self) -> Card | None:
        """The card to place now, or ``None`` once the game is over."""
        placed = len(self._moves)
        return self.cards[placed] if placed < self._needed else None

    def visible(self) -> RowsView:
        """The current level's rows, the card to place and the hands scored so far."""
        placed = len(self._moves)
        upcoming = self.next_card()
        return RowsView(
            rows=tuple(tuple(card.text for card in row) for row in self._rows),
            next=upcoming.text if upcoming is not None else None,
            level=self._level,
            cards_left=self._level * DECK - placed if placed < self._needed else 0,
            scored=tuple(self._hands),
        )


__all__ = ["ROW_TOKEN", "RepeatOptions", "RepeatPoker", "RowMove", "RowsView", "level_stream"]
