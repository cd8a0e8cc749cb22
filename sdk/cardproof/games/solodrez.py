"""``solodrez``: SoloDrez, played with the 56-card Pokerdrez deck, docs/rules.md section 7.

All 56 cards are dealt face up, round-robin, into 9 columns (card ``i`` to column
``i % 9``), so columns 0 and 1 hold 7 cards and the others 6. A column is listed from
its first card (on the table) to its last (the exposed one). Figures, high to low:
Joker ``J``, Queen ``Q``, Tower ``T``, Bishop ``B``, Knight ``N``, Pawn ``P``; colours
never matter; the neutrals ``X1`` and ``X2`` are wild.

A *run* is a sequence of cards each one figure below the one before; a neutral stands
for the figure its place needs. Moves (text form in brackets):

- ``{"from": a, "count": n, "to": b}`` (``a:n>b``): move the last ``n`` cards of column
  ``a``, which must be a run, onto column ``b``, whose last card must be one figure
  above the run's first. A neutral there stands for whatever figure makes that true;
  nothing goes onto a Pawn; a Joker-headed run goes only into an empty column, and an
  empty column takes only a Joker-headed run.
- ``{"remove": a}`` (``r4``): column ``a`` holds exactly one clean series ``J Q T B N P``
  (no neutral, nothing else): the six cards leave the game.
- ``{"stop": true}`` (``stop``): end the game as it stands.

>>> from cardproof.pokerdrez import parse_pokerdrez_cards
>>> columns = ["J1 Q1 T1", "B2 N2 P2", "X1", "J3", "Q3", "T3 B3 N3 P3", "Q4", "P4", "J4"]
>>> game = SoloDrez.from_columns([parse_pokerdrez_cards(c.split()) for c in columns])

``B2 N2 P2`` goes onto ``T1``; the column is then one clean series, and leaves:

>>> game.play(SoloDrez.parse_move("1:3>0"))
>>> game.play(SoloDrez.parse_move("r0"))
>>> game.visible().columns[:2], game.series_removed
(((), ()), 1)

A neutral on its own is a run that can stand for any figure; here it goes onto ``J3``
as a Queen, and ``T3 B3 N3 P3`` then goes onto it, the neutral standing for a Queen
again (its role is fixed only for the move being made):

>>> game.play(SoloDrez.parse_move("2:1>3"))
>>> game.play(SoloDrez.parse_move("5:4>3"))
>>> game.visible().columns[3]
('J3', 'X1', 'T3', 'B3', 'N3', 'P3')

That column is a whole series, but with a neutral in it, so it cannot be removed. A
Joker-headed run goes only into an empty column, and an empty column takes nothing
else; nothing goes onto a Pawn; a run goes onto a card one figure above its head:

>>> from cardproof.errors import IllegalMove
>>> def refusal(text: str) -> str:
...     try:
...         game.play(SoloDrez.parse_move(text))
...     except IllegalMove as error:
...         return f"{error.code}: {error.message.partition(': ')[2]}"
...     return "played"
>>> print(refusal("r3"))
not-a-series: column 3 is not one clean series J Q T B N P: it holds a neutral (X1)
>>> print(refusal("8:1>6"))
joker-needs-empty: a run headed by a Joker goes only into an empty column; column 6 holds 1 card
>>> print(refusal("6:1>0"))  # doctest: +ELLIPSIS
empty-needs-joker: column 0 is empty, and an empty column takes only a run headed by a Joker;...
>>> print(refusal("6:1>7"))
onto-pawn: nothing goes onto a Pawn (column 7 ends in P4)
>>> for text in ("8:1>0", "4:1>6"):
...     print(refusal(text))
played
not-one-higher: the run starts with a Queen, so it needs a Joker under it: column 6 ends in Q4
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

import msgspec

from cardproof.cards import Card
from cardproof.deal import pokerdrez_deck
from cardproof.errors import IllegalMove, ParseError
from cardproof.games.base import Game, require_text
from cardproof.hands import Score
from cardproof.pokerdrez import (
    FIGURE_NAMES,
    FIGURES,
    NEUTRAL,
    PAWN,
    POKERDREZ_DECK,
    PokerdrezCard,
    PokerdrezCardShown,
)
from cardproof.words import plural

COLUMNS: Final = 9
SERIES: Final = len(FIGURES)
"""Cards in a series, Joker to Pawn; also the longest possible run."""
MAX_MOVES: Final = 10_000
"""The longest log a verifier replays; the game ends there as it stands."""
MOVE_TOKEN: Final = r"[0-8]:[0-9]{1,2}>[0-8]|r[0-8]|stop"
_FIGURE: Final = tuple(card.figure for card in POKERDREZ_DECK)
"""A card's figure by its index (0 Joker .. 5 Pawn, 6 neutral)."""


class SoloDrezOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """SoloDrez has no options."""


class SoloDrezMove(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
):
    """One SoloDrez move: a transfer ``{from, count, to}``, ``{remove}`` or ``{stop: true}``.

    >>> SoloDrez.move_text(SoloDrezMove(from_=3, count=2, to=5)), SoloDrezMove(stop=True).kind
    ('3:2>5', 'stop')
    >>> SoloDrezMove(from_=3, to=5)
    Traceback (most recent call last):
    ...
    ValueError: a solodrez move is {from, count, to}, {remove} or {stop: true}
    """

    from_: int | None = msgspec.field(default=None, name="from")
    count: int | None = None
    to: int | None = None
    remove: int | None = None
    stop: bool | None = None

    def __post_init__(self) -> None:
        """Refuse a mixture of shapes (msgspec reports it as a validation error)."""
        transfer = (self.from_, self.count, self.to)
        if None not in transfer and self.remove is None and self.stop is None:
            if self.count is not None and self.count < 1:
                raise ValueError("count is at least 1")
            return
        if all(v is None for v in transfer) and (self.remove is None) != (self.stop is None):
            if self.stop is False:
                raise ValueError('"stop" is only ever true')
            return
        raise ValueError("a solodrez move is {from, count, to}, {remove} or {stop: true}")

    @property
    def kind(self) -> str:
        """``transfer``, ``remove`` or ``stop``."""
        if self.stop:
            return "stop"
        return "transfer" if self.remove is None else "remove"


STOP: Final = SoloDrezMove(stop=True)
REMOVES: Final = tuple(SoloDrezMove(remove=a) for a in range(COLUMNS))


class SoloDrezView(msgspec.Struct, frozen=True, tag_field="kind", tag="columns"):
    """What a SoloDrez player sees: everything (an open variant).

    ``columns``: the 9 columns, each from its first card (on the table) to its last (the
    exposed one). ``series_removed``: complete series taken out so far (0..9).
    """

    columns: tuple[tuple[PokerdrezCardShown, ...], ...]
    series_removed: int


def run_heads(figures: Sequence[int]) -> tuple[int, int] | None:
    """The figures the first card of ``figures`` can stand for, if they form a run.

    The answer is an interval ``(lo, hi)``: one figure when some card is not a neutral,
    every figure that leaves room down to the Pawn when all are neutrals; ``None``
    when the cards are no run.

    >>> run_heads([1, 2, 3]), run_heads([1, NEUTRAL, 3]), run_heads([NEUTRAL, NEUTRAL])
    ((1, 1), (1, 1), (0, 4))
    >>> run_heads([NEUTRAL, 0]), run_heads([2, 4]), run_heads([4, 5, NEUTRAL])
    (None, None, None)
    """
    n = len(figures)
    head: int | None = None
    for k, figure in enumerate(figures):
        if figure != NEUTRAL:
            if head is None:
                head = figure - k
            elif figure - k != head:
                return None
    if head is None:
        return (0, SERIES - n) if n <= SERIES else None
    return (head, head) if head >= 0 and head + n - 1 <= PAWN else None


class SoloDrez(Game[SoloDrezMove, SoloDrezOptions]):
    """SoloDrez: build the nine Joker-to-Pawn series in nine columns and take them out."""

    id = "solodrez"
    title = "SoloDrez (Pokerdrez deck)"
    information = "open"
    description = (
        "The 56-card Pokerdrez deck: figures Joker J, Queen Q, Tower T, Bishop B, Knight N, "
        "Pawn P (high to low) in nine colours 1..9 (card text like 'Q3'), and two neutrals "
        "X1, X2 that are wild. All cards are dealt face up, round-robin into 9 columns "
        "(columns 0 and 1 get 7 cards, the others 6); a column's last card is exposed. "
        "Colours never matter. A run is a sequence of cards each one figure below the one "
        "before; a neutral stands for the figure its place needs. Moves: {from: a, count: n, "
        "to: b} (text 'a:n>b') moves the last n cards of column a, which must be a run, onto "
        "column b, whose last card must be one figure above the run's first (a neutral "
        "there stands for whatever makes that true; nothing goes onto a Pawn; a run headed "
        "by a Joker goes only into an empty column, and an empty column takes only such a "
        "run); {remove: a} (text 'r4') takes out column a when it is exactly one clean "
        "series J Q T B N P, with no neutral; {stop: true} (text 'stop') ends the game. The "
        "game is won when all 9 series are out (the neutrals then go too); otherwise it "
        "ends when no move is left, when the player stops, or after 10,000 moves (Decision: "
        "the rules bound a verified log at 10,000 moves; a game that reaches the bound ends "
        "there as it stands). Score: series_removed (0..9)."
    )
    deck_type: ClassVar[str] = "pokerdrez-56"
    card_type: ClassVar[type[Card]] = PokerdrezCard
    cards_used: ClassVar[int] = 56
    options_type = SoloDrezOptions
    move_type: ClassVar[type[SoloDrezMove]] = SoloDrezMove
    move_token: ClassVar[str] = MOVE_TOKEN

    def __init__(self, cards: Sequence[Card], options: SoloDrezOptions) -> None:
        super().__init__(cards, options)
        self.columns: list[list[Card]] = [list(self.cards[c::COLUMNS]) for c in range(COLUMNS)]
        """Each column first card first: the last is the exposed one."""
        self.figures_left = sum(_FIGURE[card.index] != NEUTRAL for card in self.cards)
        """Figure cards still on the table: the game is won when none is."""
        self.series_removed = 0
        self.stopped = False
        self._stuck_at: tuple[int, bool] = (-1, False)
        """(log length, stuck) of the last no-move-left check."""

    @classmethod
    def from_columns(cls, columns: Sequence[Sequence[Card]]) -> SoloDrez:
        """A game on a position of 9 columns, for puzzles and tests: not a deal.

        Any Pokerdrez cards, none twice; the game is won when no figure card is left.
        A real deal (7, 7, then 6 cards a column) has a deck order: :meth:`deal_of`.
        """
        if len(columns) != COLUMNS:
            raise ValueError(f"a position has {COLUMNS} columns, not {len(columns)}")
        cards = [card for column in columns for card in column]
        cls.check_cards(cards, locate=lambda i: f"columns, card {i}")
        game = cls(cards, SoloDrezOptions())
        game.columns = [list(column) for column in columns]
        return game

    @classmethod
    def deal_of(cls, columns: Sequence[Sequence[Card]]) -> list[Card]:
        """The deck order that deals these 9 columns (7, 7, then 6 cards each).

        >>> from cardproof.pokerdrez import POKERDREZ_DECK
        >>> deck = list(POKERDREZ_DECK)
        >>> SoloDrez.deal_of(SoloDrez.new(deck).columns) == deck
        True
        """
        sizes = [len(column) for column in columns]
        if sizes != [7, 7] + [6] * (COLUMNS - 2):
            raise ValueError(f"a deal's columns hold 7, 7, then 6 cards each, not {sizes}")
        return [columns[i % COLUMNS][i // COLUMNS] for i in range(cls.cards_used)]

    # --- the deck -----------------------------------------------------------------

    @classmethod
    def deal_cards(
        cls, server_seed: bytes, client_seed: str, options: SoloDrezOptions
    ) -> tuple[Card, ...]:
        """The shuffled Pokerdrez deck (``pokerdrez-56``, stream ``deal``)."""
        return pokerdrez_deck(server_seed, client_seed)

    # --- moves --------------------------------------------------------------------

    @classmethod
    def parse_move(cls, text: str) -> SoloDrezMove:
        """``a:n>b``, ``rA`` or ``stop``.

        >>> SoloDrez.parse_move("3:2>5"), SoloDrez.parse_move("r4"), SoloDrez.parse_move("stop")
        (SoloDrezMove(from_=3, count=2, to=5), SoloDrezMove(remove=4), SoloDrezMove(stop=True))
        """
        text = require_text(text, "a solodrez move").strip()
        if text == "stop":
            return STOP
        if len(text) == 2 and text[0] == "r" and text[1] in "012345678":
            return REMOVES[int(text[1])]
        source, _, rest = text.partition(":")
        count, _, target = rest.partition(">")
        if (
            len(source) == 1
            and source in "012345678"
            and len(target) == 1
            and target in "012345678"
            and count.isdigit()
            and count.isascii()
            and 1 <= len(count) <= 2
            and int(count) >= 1
        ):
            return SoloDrezMove(from_=int(source), count=int(count), to=int(target))
        raise ParseError(
            f"{text!r} is not a solodrez move: write 'a:n>b' (from column a, n cards, to "
            "column b; columns 0..8), 'r4' (remove column 4) or 'stop'"
        )

    @classmethod
    def move_text(cls, move: SoloDrezMove) -> str:
        """``3:2>5``, ``r4`` or ``stop``."""
        if move.stop:
            return "stop"
        if move.remove is not None:
            return f"r{move.remove}"
        return f"{move.from_}:{move.count}>{move.to}"

    def play(self, move: SoloDrezMove) -> None:
        """Make ``move``; the log is bounded at :data:`MAX_MOVES` moves."""
        index = len(self._moves)
        if index >= MAX_MOVES:
            raise IllegalMove(
                "too-many-moves",
                f"move {index}: a solodrez log holds at most {MAX_MOVES:,} moves",
                move_index=index,
            )
        super().play(move)

    def _try(self, move: SoloDrezMove) -> tuple[str, str] | None:
        if self.stopped or not self.figures_left or len(self._moves) >= MAX_MOVES:
            return "game-over", "the game is over"
        if move.stop:
            if self.is_stuck():
                return "game-over", "the game is over: no move is left"
            self.stopped = True
            return None
        if move.remove is not None:
            return self._remove(move.remove)
        return self._transfer(move.from_, move.count, move.to)  # type: ignore[arg-type]

    def _transfer(self, a: int, n: int, b: int) -> tuple[str, str] | None:
        reason = self.transfer_refusal(a, n, b)
        if reason is not None:
            return reason
        source = self.columns[a]
        self.columns[b].extend(source[-n:])
        del source[-n:]
        return None

    def transfer_refusal(self, a: int, n: int, b: int) -> tuple[str, str] | None:
        """Why moving ``n`` cards from column ``a`` to column ``b`` is illegal now (or None)."""
        if not (0 <= a < COLUMNS and 0 <= b < COLUMNS):
            return "off-board", f"columns are 0..{COLUMNS - 1}"
        if a == b:
            return "same-column", f"a run moves to another column, not back onto column {a}"
        source, target = self.columns[a], self.columns[b]
        if n > len(source):
            held = f"holds {plural(len(source), 'card')}" if source else "is empty"
            return "too-many-cards", f"column {a} {held}, not {n}"
        moving = source[-n:]
        heads = run_heads([_FIGURE[card.index] for card in moving])
        if heads is None:
            texts = " ".join(card.text for card in moving)
            cards = plural(n, "card")
            return "not-a-run", f"the last {cards} of column {a} ({texts}) are not a run"
        lo, hi = heads
        if not target:
            if lo != 0:
                return "empty-needs-joker", (
                    f"column {b} is empty, and an empty column takes only a run headed by a "
                    f"Joker; this one starts with {_figure_name(moving[0], lo)}"
                )
            return None
        last = target[-1]
        under = _FIGURE[last.index]
        if under == PAWN:
            return "onto-pawn", f"nothing goes onto a Pawn (column {b} ends in {last.text})"
        if hi == 0:
            return "joker-needs-empty", (
                f"a run headed by a Joker goes only into an empty column; column {b} holds "
                f"{plural(len(target), 'card')}"
            )
        if under == NEUTRAL:
            return None  # it stands for the figure above the run's head (which is not a Joker)
        if lo <= under + 1 <= hi:
            return None
        needed = FIGURE_NAMES[lo - 1] if lo == hi else "a card one figure above it"
        starts = _figure_name(moving[0], lo) if lo == hi else "a neutral"
        return "not-one-higher", (
            f"the run starts with {starts}, so it needs {_article(needed)} under it: column "
            f"{b} ends in {last.text}"
        )

    def _remove(self, a: int) -> tuple[str, str] | None:
        if not 0 <= a < COLUMNS:
            return "off-board", f"columns are 0..{COLUMNS - 1}"
        column = self.columns[a]
        figures = [_FIGURE[card.index] for card in column]
        if figures == [0, 1, 2, 3, 4, 5]:
            column.clear()
            self.series_removed += 1
            self.figures_left -= SERIES
            if not self.figures_left:  # won: the neutrals (all that is left) go too
                for rest in self.columns:
                    rest.clear()
            return None
        if not column:
            why = "it is empty"
        elif NEUTRAL in figures:
            why = f"it holds a neutral ({column[figures.index(NEUTRAL)].text})"
        else:
            why = f"it holds {' '.join(card.text for card in column)}"
        return "not-a-series", f"column {a} is not one clean series J Q T B N P: {why}"

    def transfers(self) -> list[SoloDrezMove]:
        """Every legal transfer now, by source column, then run length, then destination."""
        found: list[SoloDrezMove] = []
        for a, source in enumerate(self.columns):
            for n in range(1, min(SERIES, len(source)) + 1):
                if run_heads([_FIGURE[card.index] for card in source[-n:]]) is None:
                    break  # a longer tail holds this one: no run either
                found.extend(
                    SoloDrezMove(from_=a, count=n, to=b)
                    for b in range(COLUMNS)
                    if b != a and self.transfer_refusal(a, n, b) is None
                )
        return found

    def removes(self) -> list[SoloDrezMove]:
        """Every legal remove now."""
        return [
            REMOVES[a]
            for a, column in enumerate(self.columns)
            if [_FIGURE[card.index] for card in column] == [0, 1, 2, 3, 4, 5]
        ]

    def legal_moves(self) -> list[SoloDrezMove]:
        """Removes, transfers, then ``stop`` (empty once the game is over)."""
        if self.is_over():
            return []
        return [*self.removes(), *self.transfers(), STOP]

    def is_stuck(self) -> bool:
        """Whether no transfer or remove is legal (checked once per position)."""
        at, stuck = self._stuck_at
        if at != len(self._moves):
            stuck = not (self.removes() or self._any_transfer())
            self._stuck_at = (len(self._moves), stuck)
        return stuck

    def _any_transfer(self) -> bool:
        for a, source in enumerate(self.columns):
            for n in range(1, min(SERIES, len(source)) + 1):
                if run_heads([_FIGURE[card.index] for card in source[-n:]]) is None:
                    break
                if any(b != a and self.transfer_refusal(a, n, b) is None for b in range(COLUMNS)):
                    return True
        return False

    @property
    def won(self) -> bool:
        """Whether every figure card is out (in a deal: all nine series)."""
        return not self.figures_left

    def is_over(self) -> bool:
        """Won, stopped, at the 10,000-move bound, or no move left."""
        return self.won or self.stopped or len(self._moves) >= MAX_MOVES or self.is_stuck()

    def is_complete(self) -> bool:
        """Every ended game scores (stopping is how a game that cannot be won ends)."""
        return self.is_over()

    def incomplete_reason(self) -> str:
        """The game is still going: finish it, or end it with ``stop``."""
        return (
            f"the game is not over after {plural(len(self._moves), 'move')}: moves are still "
            'possible; end it with {"stop": true} (text: stop)'
        )

    def _score(self) -> Score:
        return Score(
            total=self.series_removed,
            hands=(),
            won=self.won,
            series_removed=self.series_removed,
        )

    def visible(self) -> SoloDrezView:
        """The whole layout (every card is face up)."""
        return SoloDrezView(
            columns=tuple(tuple(card.text for card in column) for column in self.columns),
            series_removed=self.series_removed,
        )


def _figure_name(card: Card, head: int) -> str:
    """``a Queen``, or ``X1 (as a Queen)`` for a neutral standing for one."""
    name = _article(FIGURE_NAMES[head])
    return f"{card.text} (as {name})" if _FIGURE[card.index] == NEUTRAL else name


def _article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "AEIOU" else f"a {noun}"


def ending_words(score: Score, log: Sequence[str]) -> str:
    """How a solodrez game ended, in the play page's words, and in how many moves.

    A ``stop`` moves no card: it is said, not counted (the page's ``Move N`` is the move
    to make, and a stop ends the game there).

    >>> ended = Score(total=2, hands=(), series_removed=2, won=False)
    >>> ending_words(ended, ["3:2>5", "r4", "stop"])
    'Not won: 2 of 9 series removed, in 2 moves; then stopped.'
    >>> ending_words(Score(total=9, hands=(), series_removed=9, won=True), ["r0"] * 9)
    'Won: all nine series removed, in 9 moves.'
    """
    moves = plural(sum(1 for move in log if move != "stop"), "move")
    if score.won:
        return f"Won: all nine series removed, in {moves}."
    removed = score.total if score.series_removed is None else score.series_removed
    why = "then stopped" if log and log[-1] == "stop" else "then no move was left"
    if len(log) >= MAX_MOVES:
        why = f"the log's bound, {MAX_MOVES:,} moves, reached"
    return f"Not won: {removed} of {COLUMNS} series removed, in {moves}; {why}."


__all__ = [
    "COLUMNS",
    "MAX_MOVES",
    "SoloDrez",
    "SoloDrezMove",
    "SoloDrezOptions",
    "SoloDrezView",
    "ending_words",
    "run_heads",
]
