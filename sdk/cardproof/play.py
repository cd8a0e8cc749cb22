"""``cardproof play``: a game played in the terminal, move by move, on a server.

The game is the server's: every move goes to it, and its answer says what is visible
now, so the terminal shows only what the player may see and the finished game gets a
signed receipt anyone can check. :func:`run` is the whole game over two text streams
(so it runs as well on ``io.StringIO`` as on a terminal); :func:`embedded_client`
starts a server in-process, with a throwaway signing key, for playing without one.
:func:`run_round` is an entrant's seat in a lockstep round, live: the round followed in
a thread of its own, so the clock ticks, the seated and waiting counts move and a card
placed for the player at its deadline is told at once, whatever the player is typing.

The grid games (poker-squares, poker-patience, serpent-patience) and reserve-poker
show a running score that counts only lines whose five cells are filled and final; in
``poker-patience`` a row is final once the layout spans 5 columns (and a column once it
spans 5 rows), so lines there are named by their offset from the first card. In
reserve-poker the 2 long diagonals count too, and the joker is wild. repeat-poker
scores a row as soon as it fills: its running score is the sum of the hands the server
has scored so far. solodrez shows its nine columns top to bottom and has a ``hint``
command: the solver searches the position for a win (a few seconds at most) and says
the first move of the line it found, or that the position cannot be won.
"""

from __future__ import annotations

import asyncio
import builtins
import codecs
import contextlib
import dataclasses
import functools
import json
import logging
import math
import os
import re
import secrets
import select
import shutil
import sys
import textwrap
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TextIO

import msgspec

from cardproof.cards import Card
from cardproof.client import Client, Game, Options, Round
from cardproof.errors import BadRequestError, CardproofError, ConflictError, IllegalMoveError
from cardproof.games import SerpentPatience
from cardproof.games import variant as variant_class
from cardproof.games.grid import (
    COLUMN_LETTERS,
    DIAGONAL_LINES,
    ROW_AND_COLUMN_LINES,
    SIZE,
    GridView,
)
from cardproof.games.repeat_poker import DECK as REPEAT_DECK
from cardproof.games.repeat_poker import ROW_LENGTH as REPEAT_ROW_LENGTH
from cardproof.games.repeat_poker import RowsView
from cardproof.games.reserve_poker import ReserveView
from cardproof.games.solodrez import SoloDrez, SoloDrezView
from cardproof.hands import HandScore, PointTable, Score, score_hands
from cardproof.models import Call, RoundStatus, View
from cardproof.pokerdrez import parse_pokerdrez_cards
from cardproof.receipts import receipt_file_name
from cardproof.words import plural, printable

PLAYABLE: Final = (
    "poker-squares",
    "poker-patience",
    "serpent-patience",
    "repeat-poker",
    "reserve-poker",
    "solodrez",
)
"""The variants this module can draw: the three 5x5 grid games, the two Repeat Pokers, and
SoloDrez."""
HINT_BUDGET: Final = 3.0
"""Seconds the solodrez ``hint`` may search."""
QUIT: Final = frozenset({"q", "quit", "exit"})
HELP: Final = frozenset({"?", "h", "help"})

Coord = tuple[int, int]
"""A cell: (row, col), absolute from the top-left, or offsets from the first card."""

HELP_TEXT: Final[dict[str, str]] = {
    "poker-squares": (
        "Type a cell: its column letter a-e, then its row number 1-5, like c3 (column c, "
        "row 3). Any empty cell (.) will do; a placed card never moves. After 25 cards "
        "the 5 rows and 5 columns are scored as poker hands."
    ),
    "serpent-patience": (
        "Type a cell: its column letter a-e, then its row number 1-5, like c3 (column c, "
        "row 3). All 25 cards are known and are laid in this order. The first goes "
        "anywhere; each later card must go into an empty cell directly above, below, left "
        "or right of the card laid just before it (shown in [brackets]): the cells marked "
        "+. A path that reaches a dead end before 25 cards ends the game unscored."
    ),
    "poker-patience": (
        "Type row,col: offsets from the first card, like -1,2 (one row above it, two "
        "columns right of it); the numbers around the grid are these offsets. The first "
        "card is always 0,0. Each later card goes into an empty cell touching a laid card "
        "(diagonally too), and the layout may never span more than 5 rows or 5 columns: "
        "the cells marked +. After 25 cards the 5x5 square's rows and columns are scored."
    ),
    "repeat-poker": (
        "Type a row: r then its number, like r2 (or just 2); the card goes at the end of "
        "that row. A row that reaches 5 cards is scored at once as a poker hand (repeat "
        "table) and the cards that make the hand are removed, the others stay: a pair "
        "removes 2 cards, two pair 4, three of a kind 3, four of a kind 4, a straight, "
        "flush, full house, straight flush or royal flush all 5; a row with no hand scores "
        "0 and loses its highest card. All 52 cards are played; a row left incomplete at "
        "the end scores nothing. With levels 5 the levels have 5, 4, 3, 2 and 1 rows, each "
        "with a fresh deck, and the score is their sum."
    ),
    "reserve-poker": (
        "Type f>c (or f c): take the bottom card of reserve column f (0-3) and drop it "
        "into grid column c (0-4), where it falls to the lowest empty cell (marked +), as "
        "in Connect Four. Face-down cards show as ##; in versions 1-4 taking a face-up "
        "card turns the next one in its column face up. After 25 cards the 5 rows, 5 "
        "columns and 2 long diagonals are scored with the reserve table; the joker is "
        "wild. The score so far counts only complete lines."
    ),
    "solodrez": (
        "Columns 0-8 are shown top to bottom; the last card of each is exposed. Type "
        "'a n b' to move the last n cards of column a onto column b (like 3 2 5): they "
        "must be a run (each card one figure below the one before: J Q T B N P; a neutral "
        "X1/X2 stands for any figure), and column b's last card must be one figure above "
        "the run's first (a neutral there stands for whatever fits; nothing goes onto a "
        "Pawn). A run headed by a Joker goes only into an empty column, and an empty column "
        "takes only such a run. Type 'r a' to remove column a when it holds exactly one "
        "series J Q T B N P with no neutral. Type 'hint' for the solver's advice, 'stop' to "
        "end the game as it stands (it asks first). Take out all 9 series to win; the score "
        "is the number of series removed."
    ),
}
COMMANDS_HELP: Final = (
    "? or help shows this; q quits (the deal is left unfinished, with no receipt)."
)

_RED: Final = "\x1b[31m"
_BOLD: Final = "\x1b[1m"
_RESET: Final = "\x1b[0m"


def placed_cards(view: GridView) -> dict[Coord, str]:
    """The cards of a view by cell: absolute, or offsets from the first card (``origin``).

    >>> placed_cards(GridView(layout=(("AH", None), (None, "2C")), next=None, origin=(-1, 0)))
    {(-1, 0): 'AH', (0, 1): '2C'}
    """
    top, left = view.origin or (0, 0)
    return {
        (top + r, left + c): card
        for r, row in enumerate(view.layout)
        for c, card in enumerate(row)
        if card is not None
    }


def scored_lines(
    variant: str, placed: Mapping[Coord, str], *, diagonals: bool = False
) -> list[tuple[str, list[Coord]]]:
    """The lines that will be scored and whose cells are known now, by name.

    The absolute variants score fixed lines (``row 1`` .. ``col e``, and the diagonals
    when asked); in ``poker-patience`` the rows are known once the layout spans 5
    columns and the columns once it spans 5 rows. They are named as the server names the
    final square's lines (``row 2``, ``col c``) once the square is fixed that way, and
    until then by their first cell's offset (``row from -1,0``).
    """
    if variant != "poker-patience":
        lines = ROW_AND_COLUMN_LINES + (DIAGONAL_LINES if diagonals else ())
        return [(name, [divmod(i, SIZE) for i in cells]) for name, cells in lines]
    rows = sorted({r for r, _ in placed})
    cols = sorted({c for _, c in placed})
    found: list[tuple[str, list[Coord]]] = []
    wide = bool(cols) and cols[-1] - cols[0] == SIZE - 1
    tall = bool(rows) and rows[-1] - rows[0] == SIZE - 1
    if wide:
        span = range(cols[0], cols[-1] + 1)
        found += [
            (
                f"row {r - rows[0] + 1}" if tall else f"row from {r},{cols[0]}",
                [(r, c) for c in span],
            )
            for r in rows
        ]
    if tall:
        span = range(rows[0], rows[-1] + 1)
        found += [
            (
                f"col {COLUMN_LETTERS[c - cols[0]]}" if wide else f"col from {rows[0]},{c}",
                [(r, c) for r in span],
            )
            for c in cols
        ]
    return found


def running_score(
    variant: str, placed: Mapping[Coord, str], table: PointTable, *, diagonals: bool = False
) -> Score:
    """The score of the lines already complete (every cell filled and final).

    >>> from cardproof.hands import TABLES
    >>> row = {(0, c): card for c, card in enumerate(["2C", "2D", "5H", "9S", "KC"])}
    >>> running_score("poker-squares", row, TABLES["american"]).hands[0].category
    'one-pair'
    """
    complete = [
        (name, [Card.parse(placed[cell]) for cell in cells])
        for name, cells in scored_lines(variant, placed, diagonals=diagonals)
        if all(cell in placed for cell in cells)
    ]
    return score_hands(complete, table)


def playable_cells(variant: str, placed: Mapping[Coord, str], last: Coord | None) -> set[Coord]:
    """The cells the next card may go to, by the variant's rules (as the server has them).

    >>> sorted(playable_cells("serpent-patience", {(0, 0): "AH"}, (0, 0)))
    [(0, 1), (1, 0)]
    """
    if variant == "poker-patience":
        if not placed:
            return {(0, 0)}
        rows = [r for r, _ in placed]
        cols = [c for _, c in placed]
        near = {
            (r + dr, c + dc) for r, c in placed for dr in (-1, 0, 1) for dc in (-1, 0, 1)
        } - placed.keys()
        return {
            (r, c)
            for r, c in near
            if max(*rows, r) - min(*rows, r) < SIZE and max(*cols, c) - min(*cols, c) < SIZE
        }
    empty = {(r, c) for r in range(SIZE) for c in range(SIZE)} - placed.keys()
    if variant == "serpent-patience" and last is not None:
        r, c = last
        return empty & {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)}
    return empty


class _Terminal:
    """Reading moves and writing lines, on a terminal or on plain streams."""

    def __init__(self, input: TextIO, output: TextIO, color: bool | None) -> None:
        self.input = input
        self.output = output
        self.color = _wants_color(output) if color is None else color
        self.echo = not _isatty(input)
        """Whether to write what was read (a script's moves then show in the transcript)."""
        self.line_editing = input is sys.stdin and output is sys.stdout and not self.echo
        if self.line_editing:
            with contextlib.suppress(ImportError):  # not on every platform
                import readline  # noqa: F401 - gives input() history and editing

    def say(self, text: str = "") -> None:
        self.output.write(text + "\n")

    def paragraph(self, text: str, indent: str = "") -> None:
        for line in textwrap.wrap(
            text, 88, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        ):
            self.say(line)

    def confirm(self, question: str) -> bool:
        """A yes-or-no question: ``y`` or ``yes`` is yes, anything else no.

        The end of the input counts as yes: nothing more can be asked.
        """
        answer = self.ask(question)
        return answer is None or answer.strip().lower() in {"y", "yes"}

    def ask(self, prompt: str) -> str | None:
        """One line from the player, or ``None`` at the end of the input."""
        if self.line_editing:
            try:
                return builtins.input(prompt)
            except EOFError:
                self.say()
                return None
        self.output.write(prompt)
        self.output.flush()
        line = self.input.readline()
        if not line:
            self.say()
            return None
        if self.echo:
            self.output.write(line if line.endswith("\n") else line + "\n")
        return line

    def card(self, text: str, *, bold: bool = False) -> str:
        """A card (the server's text, hidden characters shown), red for hearts and diamonds."""
        text = printable(text)
        if not self.color:
            return text
        styled = (_RED if text[-1] in "HD" else "") + (_BOLD if bold else "") + text
        return styled + _RESET if styled != text else text


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _wants_color(output: TextIO) -> bool:
    return _isatty(output) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class _Session(ABC):
    """One game in progress: the server's handle and what the terminal shows of it.

    The subclasses draw one family of views: :class:`_GridPlay` the 5x5 grid games,
    :class:`_RepeatPlay` repeat-poker's rows, :class:`_ReservePlay` reserve-poker.
    """

    def __init__(self, game: Game[View], term: _Terminal) -> None:
        self.game = game
        self.term = term
        self.variant = game.variant
        """A variant cardproof knows (``variant_class`` refuses any other): shown as it is."""
        self.settings: Any = variant_class(game.variant).parse_options(game.state.options)
        self.table: PointTable | None = getattr(self.settings, "table", None)
        """The point table (none for solodrez, which counts series)."""

    # --- what each family says --------------------------------------------------------

    @abstractmethod
    def show(self) -> None:
        """The board, the running score and the card or cards due."""

    @abstractmethod
    def prompt(self) -> str:
        """The question asked for each move."""

    @abstractmethod
    def board_lines(self) -> list[str]:
        """The board as it is now (also drawn once the game is over)."""

    def move_text(self, answer: str) -> str:
        """The move to send for what the player typed (spaces dropped)."""
        return "".join(answer.split())

    def moved(self) -> None:  # noqa: B027 - optional: most screens have nothing to take in
        """Take in the server's new view after a move it took."""

    def before_move(self, answer: str) -> bool:
        """Whether to send this move (a game may ask first: serpent's dead ends)."""
        return True

    def command(self, command: str) -> bool:
        """Run a command of this game's own (``hint``); ``False`` if ``command`` is none."""
        return False

    def breakdown(self, score: Score) -> None:
        """The server's final score, hand by hand."""
        for hand in score.hands:
            line, cards = printable(hand.line), printable(" ".join(hand.cards))
            category = printable(hand.category)
            self.term.say(f"  {line:<11} {cards:<15} {category:<16} {hand.points:>5}")

    def unscored_text(self) -> str:
        """Why a finished game has no score (only a serpent dead end has none)."""
        return "This game ended unscored, so it has no receipt."

    def score_paragraph(self, score: Score) -> None:
        """``Score so far``: the total of the complete lines, and the lines that score."""
        scoring = ", ".join(f"{h.line} {h.category} {h.points}" for h in score.hands if h.points)
        lines = plural(len(score.hands), "complete line")
        self.term.paragraph(
            f"Score so far: {score.total} from {lines}" + (f" ({scoring})" if scoring else ""),
            indent="  ",
        )

    # --- playing --------------------------------------------------------------------

    def play(self, answer: str) -> bool:
        """Send one move; ``True`` if the server took it, else the reason is shown.

        (A lockstep move that came after its card's deadline is :func:`_place`'s to tell.)
        """
        try:
            self.game.play(self.move_text(answer))
        except IllegalMoveError as error:
            reason = re.sub(r"^move \d+ ", "", error.detail or error.title)
            self.term.say(f"  illegal move {printable(reason)}")
            return False
        except BadRequestError as error:
            reason = re.sub(r"^move: ", "", error.detail or error.title)
            self.term.say(f"  {printable(reason)}; type ? for help")
            return False
        self.moved()
        return True

    def loop(self) -> bool:
        """Play until the game is over (``True``) or the player quits (``False``)."""
        changed = True
        while not self.game.finished:
            if changed:
                self.show()
            answer = self.term.ask(self.prompt())
            if answer is None:
                return False  # the input ended: nothing more can be played
            command = answer.strip().lower()
            if command in QUIT:
                self.term.say(
                    f"  Quitting forfeits deal {printable(self.game.deal_id)}: it stays "
                    "unfinished, with "
                    "no receipt and no second try."
                )
                if self.term.confirm("  Quit? [y/N] "):
                    return False
                changed = False
                continue
            if not self.before_move(answer):
                changed = False
                continue
            if command in HELP:
                self.term.paragraph(HELP_TEXT[self.variant], indent="  ")
                self.term.paragraph(COMMANDS_HELP, indent="  ")
                changed = False
            elif not command or self.command(command):
                changed = False
            else:
                changed = self.play(answer)
        return True

    def final(self) -> None:
        """The finished board and the server's score, hand by hand."""
        term = self.term
        term.say()
        term.say(f"{self.variant}: game over")
        for line in self.board_lines():
            term.say(line)
        score = self.game.score
        if score is None:
            return
        term.say()
        table = f" (table {self.table.name})" if self.table is not None else ""
        term.say(f"Final score: {score.total}{table}")
        self.breakdown(score)


class _GridPlay(_Session):
    """A 5x5 grid game: poker-squares, poker-patience or serpent-patience."""

    def __init__(self, game: Game[View], term: _Terminal) -> None:
        super().__init__(game, term)
        self.diagonals = bool(getattr(self.settings, "diagonals", False))
        self.placed = placed_cards(self.view)
        self.last: Coord | None = None

    @property
    def view(self) -> GridView:
        """The game's view: a grid."""
        view = self.game.visible
        if not isinstance(view, GridView):
            raise TypeError(f"{self.variant} is not a grid game")
        return view

    # --- drawing --------------------------------------------------------------------

    def board_lines(self) -> list[str]:
        """The grid: cards, ``[last]`` card, ``+`` playable, ``.`` empty."""
        playable = playable_cells(self.variant, self.placed, self.last)
        if self.variant == "poker-patience":
            cells = self.placed.keys() | playable
            rows = range(min(r for r, _ in cells), max(r for r, _ in cells) + 1)
            cols = range(min(c for _, c in cells), max(c for _, c in cells) + 1)
            row_labels, col_labels = [str(r) for r in rows], [str(c) for c in cols]
        else:
            rows, cols = range(SIZE), range(SIZE)
            row_labels = [str(r + 1) for r in rows]
            col_labels = list(COLUMN_LETTERS)
        mark_playable = self.variant != "poker-squares"
        lines = ["     " + " ".join(f"{label:>3} " for label in col_labels).rstrip()]
        for row, label in zip(rows, row_labels, strict=True):
            cells_text = []
            for col in cols:
                card = self.placed.get((row, col))
                if card is not None:
                    shown = self.term.card(card)
                    cells_text.append(f"[{shown}]" if (row, col) == self.last else f" {shown} ")
                elif mark_playable and (row, col) in playable:
                    cells_text.append("  + ")
                else:
                    cells_text.append("  . ")
            lines.append(f"{label:>3}  " + " ".join(cells_text).rstrip())
        return lines

    def show(self) -> None:
        """The board, the running score and the cards due."""
        view, term = self.view, self.term
        term.say()
        term.say(f"{self.variant}: card {self.game.next_index + 1} of 25")
        for line in self.board_lines():
            term.say(line)
        self.score_paragraph(
            running_score(self.variant, self.placed, self.settings.table, diagonals=self.diagonals)
        )
        if view.later:
            later = " ".join(term.card(c) for c in view.later)
            term.say(f"  Then ({len(view.later)}): {later}")
        if self.variant == "serpent-patience" and self.last is not None:
            term.say(f"  Next to {self.cell_text(self.last)}: a cell marked +")

    def cell_text(self, cell: Coord | None) -> str:
        """A cell in the variant's move text: ``c3``, or ``-1,2`` for poker-patience."""
        if cell is None:
            return "?"
        row, col = cell
        if self.variant == "poker-patience":
            return f"{row},{col}"
        return f"{COLUMN_LETTERS[col]}{row + 1}"

    def prompt(self) -> str:
        card = self.term.card(self.view.next or "", bold=True)
        if self.variant == "poker-patience" and not self.placed:
            return f"Place {card} (the first card: 0,0): "
        return f"Place {card}: "

    # --- playing --------------------------------------------------------------------

    def moved(self) -> None:
        placed = placed_cards(self.view)
        new = placed.keys() - self.placed.keys()
        self.last = next(iter(new)) if len(new) == 1 else None
        self.placed = placed

    def breakdown(self, score: Score) -> None:
        super().breakdown(score)
        if self.variant == "poker-patience" and self.placed:
            top = min(r for r, _ in self.placed)
            left = min(c for _, c in self.placed)
            self.term.paragraph(
                "(the final square's lines are named as a grid's cells are: rows 1-5 from "
                f"the top, cols a-e from the left; row 1 is offset row {top} and col a is "
                f"offset col {left} above)",
                indent="  ",
            )

    def before_move(self, answer: str) -> bool:
        """Serpent: a move that leaves the path no way on is played only if confirmed."""
        if self.variant != "serpent-patience":
            return True
        found = re.fullmatch(r"([a-e])([1-5])", self.move_text(answer).lower())
        if found is None:
            return True  # the server says what is wrong with it
        cell = (int(found[2]) - 1, COLUMN_LETTERS.index(found[1]))
        if cell not in playable_cells(self.variant, self.placed, self.last):
            return True
        after = {**self.placed, cell: "?"}
        left = SIZE * SIZE - len(after)
        if left == 0 or playable_cells(self.variant, after, cell):
            return True
        self.term.say(
            f"  {self.cell_text(cell)} leaves no way on: the path would stop there with "
            f"{plural(left, 'card')} unplaced, and the game would end unscored."
        )
        return self.term.confirm("  Play it anyway? [y/N] ")

    def unscored_text(self) -> str:
        return (
            f"Dead end at {self.cell_text(self.last)}: no empty cell is next to the "
            "last card, so this path cannot be completed; a serpent game that is not "
            "completed is not scored, and has no receipt."
        )


def _hand_text(hand: HandScore, *, level: bool) -> str:
    """One repeat-poker hand: ``row 1 AH AD 7C 4S 9D one-pair 20, removed AH AD``."""
    line = printable(hand.line)
    where = f"level {hand.level} {line}" if level and hand.level else line
    removed = f", removed {printable(' '.join(hand.removed))}" if hand.removed else ""
    cards, category = printable(" ".join(hand.cards)), printable(hand.category)
    return f"{where}: {cards}, {category} {hand.points}{removed}"


class _RepeatPlay(_Session):
    """repeat-poker: rows scored and emptied as they fill, 52 cards a level."""

    def __init__(self, game: Game[View], term: _Terminal) -> None:
        super().__init__(game, term)
        self.ladder: tuple[int, ...] = self.settings.rows_per_level
        self.shown_level = self.view.level
        """The level of the board last drawn (a new level is announced)."""
        self.fresh = False
        """Whether the last move scored a row."""

    @property
    def view(self) -> RowsView:
        """The game's view: the current level's rows."""
        view = self.game.visible
        if not isinstance(view, RowsView):
            raise TypeError(f"{self.variant} is not played in rows")
        return view

    def board_lines(self) -> list[str]:
        """Each row's cards in the order placed (kickers of a scored row first), 5 slots."""
        lines = []
        for r, row in enumerate(self.view.rows):
            slots = [" " + self.term.card(card) for card in row]  # padded before colour
            slots += ["  ."] * (REPEAT_ROW_LENGTH - len(row))
            lines.append(f"  r{r + 1}  " + " ".join(slots))
        return lines

    def show(self) -> None:
        view, term = self.view, self.term
        levels = len(self.ladder)
        term.say()
        if view.level != self.shown_level:
            done = sum(h.points for h in view.scored if h.level == self.shown_level)
            term.say(
                f"Level {self.shown_level} is over: {plural(done, 'point')}. Level {view.level} "
                f"has {plural(len(view.rows), 'row')} and a fresh deck."
            )
            self.shown_level = view.level
        in_level = REPEAT_DECK - view.cards_left + 1
        term.say(
            f"{self.variant}: level {view.level} of {levels}, card {in_level} of {REPEAT_DECK}"
            f" ({view.cards_left} left in this level, this one included)"
        )
        for line in self.board_lines():
            term.say(line)
        total = sum(h.points for h in view.scored)
        if not view.scored:
            term.say("  No hand scored yet: a row scores when it holds five cards.")
        else:
            by_level = ""
            if levels > 1:
                points = [
                    sum(h.points for h in view.scored if h.level == k)
                    for k in range(1, view.level + 1)
                ]
                totals = (f"level {k}: {plural(n, 'point')}" for k, n in enumerate(points, 1))
                by_level = " (" + ", ".join(totals) + ")"
            scored = plural(len(view.scored), "hand")
            term.say(f"  Score so far: {plural(total, 'point')} from {scored} scored{by_level}")
        if view.scored:
            label = "Just scored" if self.fresh else "Last scored"
            term.paragraph(f"{label}: {_hand_text(view.scored[-1], level=levels > 1)}", "  ")

    def prompt(self) -> str:
        card = self.term.card(self.view.next or "", bold=True)
        return f"Place {card} (r1-r{len(self.view.rows)}): "

    def move_text(self, answer: str) -> str:
        """``r2``; a bare row number (``2``) is taken as ``r2``."""
        move = "".join(answer.split())
        return f"r{move}" if move.isdecimal() else move

    def play(self, answer: str) -> bool:
        before = len(self.view.scored)
        taken = super().play(answer)
        if taken:
            self.fresh = len(self.view.scored) > before
        return taken

    def breakdown(self, score: Score) -> None:
        levels = len(self.ladder)
        if levels > 1 and score.levels:
            self.term.say("  " + ", ".join(f"level {k} {p}" for k, p in enumerate(score.levels, 1)))
        for hand in score.hands:
            line = printable(hand.line)
            where = f"L{hand.level} {line}" if levels > 1 else line
            cards = printable(" ".join(hand.cards))
            removed = printable(" ".join(hand.removed or ()))
            category = printable(hand.category)
            self.term.say(
                f"  {where:<8} {cards:<15} {category:<16} {hand.points:>5}  removed {removed}"
            )
        self.term.say("  (the rows left incomplete at the end of a level score nothing)")


RESERVE_VISIBILITY: Final = {
    1: "the bottom card of each reserve column is face up",
    2: "the bottom 2 cards of each reserve column are face up",
    3: "the bottom 3 cards of each reserve column are face up",
    4: "the bottom 4 cards of each reserve column are face up",
    5: "every reserve card is face up",
    6: "every reserve card is face down: a card is seen once placed",
}
"""What each reserve-poker ``version`` shows."""
FACE_DOWN: Final = "##"
"""A face-down reserve card, as drawn."""


class _ReservePlay(_Session):
    """reserve-poker: 4 reserve columns, a 5x5 gravity grid, 12 hands."""

    def __init__(self, game: Game[View], term: _Terminal) -> None:
        super().__init__(game, term)
        self.placed = self.grid_cards()
        self.last: Coord | None = None

    @property
    def view(self) -> ReserveView:
        """The game's view: the grid and the reserve."""
        view = self.game.visible
        if not isinstance(view, ReserveView):
            raise TypeError(f"{self.variant} has no reserve")
        return view

    def grid_cards(self) -> dict[Coord, str]:
        """The grid's cards by (row, col), row 0 on top."""
        return {
            (r, c): card
            for r, row in enumerate(self.view.grid)
            for c, card in enumerate(row)
            if card is not None
        }

    def reserve_lines(self) -> list[str]:
        """The reserve columns hanging down: first-dealt on top, the one to take at the bottom."""
        columns = self.view.reserve
        lines = ["     " + " ".join(f"{f:>3} " for f in range(len(columns))).rstrip()]
        for depth in range(max(1, *(len(column) for column in columns))):
            cells = []
            for column in columns:
                if depth < len(column):
                    card = column[depth]
                    cells.append(f" {FACE_DOWN if card is None else self.term.card(card)} ")
                else:
                    cells.append(" -- " if depth == 0 else "    ")
            lines.append("     " + " ".join(cells).rstrip())
        return lines

    def board_lines(self) -> list[str]:
        """The grid: cards, ``[last]`` card, ``+`` where a card would land, ``.`` empty."""
        landing = {
            (max(r for r in range(SIZE) if (r, c) not in self.placed), c)
            for c in range(SIZE)
            if (0, c) not in self.placed
        }
        # columns by letter, as cells and lines are named, with the 0-based number a move
        # uses to drop a card there (2>4 drops into col e)
        lines = [
            "     " + " ".join(f"{f'{letter}={c}':>4}" for c, letter in enumerate(COLUMN_LETTERS))
        ]
        for row in range(SIZE):
            cells = []
            for col in range(SIZE):
                card = self.placed.get((row, col))
                if card is not None:
                    shown = self.term.card(card)
                    cells.append(f"[{shown}]" if (row, col) == self.last else f" {shown} ")
                else:
                    cells.append("  + " if (row, col) in landing else "  . ")
            lines.append(f"{row + 1:>3}  " + " ".join(cells).rstrip())
        return lines

    def show(self) -> None:
        view, term = self.view, self.term
        term.say()
        term.say(f"{self.variant}, version {view.version}: card {self.game.next_index + 1} of 25")
        term.say(f"  Reserve ({RESERVE_VISIBILITY.get(view.version, '?')}; ## is face down):")
        for line in self.reserve_lines():
            term.say(line)
        term.say(
            "  Grid (a card falls to the lowest empty cell of its column, marked +; "
            "a move names the column by its number, a=0 .. e=4):"
        )
        for line in self.board_lines():
            term.say(line)
        self.score_paragraph(
            running_score(self.variant, self.placed, self.settings.table, diagonals=True)
        )

    def prompt(self) -> str:
        return "Take f>c (reserve column 0-3 > grid column 0-4): "

    def move_text(self, answer: str) -> str:
        """``f>c``; ``f c`` (a space between) is taken as ``f>c``."""
        spaced = re.fullmatch(r"\s*(\d+)\s*[>\s]\s*(\d+)\s*", answer)
        if spaced is not None:
            return f"{spaced[1]}>{spaced[2]}"
        return "".join(answer.split())

    def moved(self) -> None:
        placed = self.grid_cards()
        new = placed.keys() - self.placed.keys()
        self.last = next(iter(new)) if len(new) == 1 else None
        self.placed = placed

    def breakdown(self, score: Score) -> None:
        super().breakdown(score)
        self.term.paragraph(
            "(lines are named as cells are: rows 1-5 from the top, cols a-e from the left, "
            "so col a is the grid column a move calls 0 (0>0 drops into it); diagonal \\ "
            "runs from a1 to e5, diagonal / from e1 to a5)",
            indent="  ",
        )


class _SoloDrezPlay(_Session):
    """solodrez: nine columns, everything face up; ``hint`` asks the solver."""

    @property
    def view(self) -> SoloDrezView:
        """The game's view: the nine columns."""
        view = self.game.visible
        if not isinstance(view, SoloDrezView):
            raise TypeError(f"{self.variant} has no columns")
        return view

    def board_lines(self) -> list[str]:
        """The columns hanging down, first card on top, the exposed card at the bottom."""
        columns = self.view.columns
        lines = ["  " + " ".join(f"{c:>3}" for c in range(len(columns)))]
        for depth in range(max(1, *(len(column) for column in columns))):
            cells = []
            for column in columns:
                if depth < len(column):
                    cells.append(f" {self.term.card(column[depth])}")
                else:
                    cells.append("  -" if depth == 0 else "   ")
            lines.append("  " + " ".join(cells).rstrip())
        return lines

    def show(self) -> None:
        term = self.term
        term.say()
        removed = self.view.series_removed
        term.say(f"{self.variant}: move {self.game.next_index + 1}, {removed} of 9 series removed")
        for line in self.board_lines():
            term.say(line)

    def prompt(self) -> str:
        return "Move 'a n b', remove 'r a', hint, stop: "

    def move_text(self, answer: str) -> str:
        """``3 2 5`` is ``3:2>5``, ``r 4`` is ``r4``; the text forms are taken as they are."""
        words = answer.split()
        if len(words) == 3 and all(word.isdigit() for word in words):
            return f"{words[0]}:{words[1]}>{words[2]}"
        return "".join(words).lower()

    def before_move(self, answer: str) -> bool:
        """``stop`` is sent only if confirmed: it ends the game for good, scored as it stands."""
        if self.move_text(answer) != "stop":
            return True
        removed = self.view.series_removed
        self.term.paragraph(
            f"Stopping ends deal {printable(self.game.deal_id)} now, for good: it is scored as "
            "it stands, "
            f"with the {plural(removed, 'series', 'series')} removed so far (a win takes all "
            "9), and no move can follow. 'hint' says whether this position can still be won.",
            indent="  ",
        )
        return self.term.confirm("  Stop? [y/N] ")

    def command(self, command: str) -> bool:
        if command != "hint":
            return False
        from cardproof.solvers.solodrez import solve

        columns = [parse_pokerdrez_cards(column) for column in self.view.columns]
        found = solve(SoloDrez.from_columns(columns), budget=HINT_BUDGET)
        searched = f"{found.states_searched:,} positions searched"
        if found.result == "won" and found.moves:
            first = found.moves[0]
            if first.remove is not None:
                advice = f"r {first.remove} (remove the series in column {first.remove})"
            else:
                advice = (
                    f"{first.from_} {first.count} {first.to} (move {first.count} from column "
                    f"{first.from_} to column {first.to})"
                )
            away = plural(len(found.moves), "move")
            self.term.say(f"  hint: {advice}; a win is {away} away ({searched})")
        elif found.result == "lost":
            self.term.say(
                f"  hint: this position cannot be won ({searched}); 'stop' ends the game with "
                f"{self.view.series_removed} series"
            )
        else:
            self.term.say(f"  hint: no win found within {HINT_BUDGET:.0f} s ({searched})")
        return True

    def breakdown(self, score: Score) -> None:
        won = "won: all 9 series removed" if score.won else "not won"
        self.term.say(f"  {score.series_removed} series removed ({won})")


def _session(game: Game[View], term: _Terminal) -> _Session:
    """The session that draws ``game``'s kind of view."""
    if isinstance(game.visible, SoloDrezView):
        return _SoloDrezPlay(game, term)
    if isinstance(game.visible, RowsView):
        return _RepeatPlay(game, term)
    if isinstance(game.visible, ReserveView):
        return _ReservePlay(game, term)
    return _GridPlay(game, term)


def run(
    client: Client,
    variant: str,
    *,
    input: TextIO | None = None,
    output: TextIO | None = None,
    client_seed: str | None = None,
    options: Options = None,
    server_url: str | None = None,
    receipt_out: str | Path | None = None,
    color: bool | None = None,
) -> int:
    """Play one game of ``variant`` through ``client``, reading moves from ``input``.

    ``server_url`` names the server in the hint on checking the receipt; ``None`` means
    an embedded server (:func:`embedded_client`), whose throwaway key set is printed
    instead. The receipt (the compact JWS) is written to ``receipt_out``, by default
    ``receipt-<deal id>.jws`` in the current directory (with an embedded server, its key
    set beside it, ``receipt-<deal id>.keys.json``).
    ``color`` is automatic when ``None`` (on for a terminal, off under ``NO_COLOR``).
    ``input`` and ``output`` are standard input and output when ``None`` (the streams
    :mod:`sys` holds when the game starts, not when this module was imported).

    Returns 0 when the game ended scored and its receipt was shown; 1 when the player
    quit (``q``, or the end of the input) or a serpent path reached a dead end, so there
    is no receipt; 2 when the server could not be used (unreachable, refused the deal).
    """
    term = _Terminal(input or sys.stdin, output or sys.stdout, color)
    if variant not in PLAYABLE:
        named = json.dumps(variant, ensure_ascii=False)
        term.say(f"cardproof play knows {', '.join(PLAYABLE)}; not {named}")
        return 2
    try:
        game = client.deal(variant, options, client_seed=client_seed)
        session = _session(game, term)
    except CardproofError as error:
        term.say(f"cannot open a deal: {printable(str(error))}")
        return 2
    state = game.state
    title = variant_class(variant).title
    table = f", table {session.table.name}" if session.table is not None else ""
    term.say(f"cardproof play: {title} ({variant}){table}")
    committed = (
        "the server committed to its seed before it saw yours"
        if state.committed_before_client_seed
        else "not committed before your seed"
    )
    term.say(
        f"Deal {printable(state.deal_id)}: server seed hash "
        f"{printable(state.server_seed_hash[:16])}...,"
    )
    seed = printable(json.dumps(state.client_seed, ensure_ascii=False))
    term.say(f"  your seed {seed} ({committed})")
    term.say("Type ? for help, q to quit.")
    try:
        finished = session.loop()
    except KeyboardInterrupt:
        term.say()
        finished = False
    except CardproofError as error:
        term.say(f"the server failed: {printable(str(error))}")
        term.say(f"(deal {printable(game.deal_id)}, next move {game.next_index})")
        return 2
    if not finished:
        played = plural(game.next_index, "move" if variant == SoloDrez.id else "card")
        term.say(f"Quit: deal {printable(game.deal_id)} is left unfinished after {played};")
        term.say("  an unfinished game has no receipt.")
        return 1
    session.final()
    if variant == SerpentPatience.id:
        _show_par(client, game, term)
    if game.score is None:
        term.say()
        term.paragraph(session.unscored_text())
        return 1
    return _show_receipt(client, game, term, server_url, receipt_out)


def _show_par(client: Client, game: Game[View], term: _Terminal) -> None:
    """Serpent's par: the deal's exact best score (the service's solver), beside the game's."""
    first = game.played.views.get(0)
    if not isinstance(first, GridView) or first.next is None:
        return
    try:
        best = client.solve(
            SerpentPatience.id, [first.next, *first.later], options=game.state.options
        )
    except CardproofError as error:
        term.say(f"Par unavailable: {printable(str(error))}")
        return
    yours = "unscored" if game.score is None else plural(game.score.total, "point")
    term.say(
        f"Par for this deal: {plural(best.score.total, 'point')}, the best possible (you: {yours})."
    )


def _show_receipt(
    client: Client,
    game: Game[View],
    term: _Terminal,
    server_url: str | None,
    receipt_out: str | Path | None,
) -> int:
    """Fetch the receipt, write it to a file, and say where it is and how to check it.

    The file is ``receipt-<deal id>.jws`` by default; with an embedded server its key set
    goes beside it.
    """
    try:
        token = game.receipt().receipt
        keys = None if server_url is not None else msgspec.json.encode(client.jwks())
    except CardproofError as error:
        term.say(
            f"cannot fetch the receipt of deal {printable(game.deal_id)}: {printable(str(error))}"
        )
        return 2
    path = Path(receipt_out) if receipt_out is not None else receipt_path(game.deal_id)
    key_path = path.with_name(f"{path.stem}.keys.json")
    try:
        path.write_text(token + "\n")
        if keys is not None:
            key_path.write_bytes(keys + b"\n")
    except OSError as error:
        term.say(f"cannot write the receipt to {path}: {error}")
        term.say(f"Receipt: {token}")
        return 2
    term.say()
    term.say(f"Receipt: written to {path}")
    if server_url is not None:
        term.say(f"Check it: cardproof verify {path} --url {server_url}")
        return 0
    term.paragraph(
        "This game ran on an embedded server: its receipt is signed by a throwaway key made "
        "for this run only, so no server vouches for it and checking it with --url will "
        f"fail. Its key set is written beside it, to {key_path}; with it the deal, replay "
        "and score check offline:"
    )
    term.say(f"  cardproof verify {path} --jwks {key_path}")
    return 0


def receipt_path(deal_id: str) -> Path:
    """Where ``cardproof play`` writes a receipt by default: ``receipt-<deal id>.jws``."""
    return Path(receipt_file_name(deal_id))


@contextlib.contextmanager
def embedded_client(
    *, limits: bool = True, organizer: str | None = None, par_budget: float | None = None
) -> Iterator[Client]:
    """A :class:`Client` on a server run in-process, with throwaway keys, until the block ends.

    The server keeps deals in memory and signs with a key made for this block only: no
    key file is written, and its receipts are checkable only with its key set (printed
    by :func:`run`). Needs the ``service`` extra. ``limits=False`` turns the per-client
    limits off (a bot's thousands of moves are its own server's only work).
    ``organizer``: the client is an organizer of that name (it may run tournaments);
    ``par_budget``: the seconds the server solves each closed round's par for.
    """
    from litestar.testing import TestClient

    from cardproof.receipts import SigningKey
    from cardproof_service.app import create_app
    from cardproof_service.plumbing import Keys, Settings
    from cardproof_service.tournaments import new_organizer

    keys = Keys(master=secrets.token_bytes(32), signing=SigningKey.generate())
    settings = Settings(warm_up=False)
    if not limits:
        settings = Settings(warm_up=False, rate_limit=0, max_games_in_flight=0, daily_deal_quota=0)
    if par_budget is not None:
        settings = dataclasses.replace(settings, par_budget=par_budget)
    app = create_app(settings, keys=keys)
    api_key = None
    if organizer is not None:
        api_key, record = new_organizer(organizer)
        asyncio.run(app.state.store.add_organizer(record))  # the memory store: no loop of its own
    quiet = [logging.getLogger(name) for name in ("httpx", "cardproof.access")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:  # not one log line per move on the terminal, while the block runs
        logger.setLevel(logging.WARNING)
    try:
        with (
            TestClient(app) as http,
            Client(base_url=str(http.base_url), http_client=http, api_key=api_key) as client,
        ):
            yield client
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)


# --- a lockstep round, live at the terminal -----------------------------------------------

WATCH_WAIT: Final = 1.0
"""Seconds each long poll of a round's calls waits: a new call is seen at once, and the
counts on screen are at most this old."""
LATE: Final = frozenset({"auto-placed", "deadline-passed"})
"""A move's 409 codes when its card's deadline had passed: the server places the card."""
_STYLE: Final = re.compile(r"\x1b\[[0-9;]*m")
"""A colour escape (a red card): it takes no room on the line."""


class _CallOver(Exception):
    """The call being answered ended (every seat placed it, or its deadline passed)."""


def _progress(status: RoundStatus) -> tuple[int, int, int, int]:
    """How far a round has got: no later status of it is behind (a stale answer may be)."""
    phase = ("waiting", "playing", "finished").index(status.status)
    return phase, -1 if status.call is None else status.call, status.placed, status.seats


class _RoundWatch:
    """A lockstep round as its calls' long poll tells it, followed in a thread of its own.

    Each answer (a new call at once, else the round as it stands after ``WATCH_WAIT``
    seconds) is kept and wakes :meth:`wait`, so the terminal shows what the round does as
    it does it, whatever the player is typing. ``client`` is the watch's own: the player's
    moves go through the seat's.
    """

    def __init__(self, client: Client, seat: Round) -> None:
        self._client = client
        self._seat = seat
        self._lock = threading.Lock()
        self._status = seat.status()
        self._seen = time.monotonic()
        self.cards: dict[int, str | None] = {}
        """The card of every call seen, by index (``None``: reserve-poker's turns)."""
        self._failed: Exception | None = None
        self._wake, self._waker = os.pipe()
        os.set_blocking(self._waker, False)
        self._holders = 2
        """The threads using the pipe (this one until the block ends, and the watch's):
        the last to let go closes it, so nobody waits for a long poll to end."""
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="round-watch", daemon=True)

    def __enter__(self) -> _RoundWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._let_go()

    def _let_go(self) -> None:
        """One thread is done with the pipe; the last closes it."""
        with self._lock:
            self._holders -= 1
            last = self._holders == 0
        if last:
            os.close(self._wake)
            os.close(self._waker)

    def _follow(self) -> None:
        """The watch's thread: the calls until the round ends, or the block does."""
        try:
            self._follow_calls()
        except Exception as error:  # raised in the main thread, by wait
            if not self._stopping.is_set():
                self._failed = error
                self._poke()
        finally:
            self._let_go()

    def _follow_calls(self) -> None:
        seat, after = self._seat, -1
        while not self._stopping.is_set():
            answer = self._client.round_calls(
                seat.tournament_id, seat.round, after=after, wait=WATCH_WAIT, token=seat.game.token
            )
            after = max([after, *(call.index for call in answer.calls)])
            self.take(answer.status, answer.calls)
            if answer.status.status == "finished":
                return

    def _poke(self) -> None:
        with contextlib.suppress(BlockingIOError):  # a full pipe wakes the reader already
            os.write(self._waker, b".")

    def take(self, status: RoundStatus, calls: Sequence[Call] = ()) -> None:
        """Keep ``status`` unless a later one is kept already, and wake :meth:`wait`.

        The cards of ``calls`` and of the status's call are kept too.
        """
        with self._lock:
            for call in calls:
                self.cards[call.index] = call.card
            if _progress(status) >= _progress(self._status):
                self._status, self._seen = status, time.monotonic()
                if status.call is not None:
                    self.cards[status.call] = status.card
        self._poke()

    @property
    def status(self) -> RoundStatus:
        """The round as last told."""
        with self._lock:
            return self._status

    def past(self, call: int | None) -> bool:
        """Whether the round has gone on from ``call``: the next card called, or the end."""
        status = self.status
        return status.status == "finished" or status.call != call

    def left(self) -> float | None:
        """Seconds to the called card's deadline, by the server's clock (None if none)."""
        with self._lock:
            status, seen = self._status, self._seen
        if status.status != "playing" or status.seconds_left is None:
            return None
        return max(0.0, status.seconds_left - (time.monotonic() - seen))

    def wait(self, timeout: float, reading: int | None = None) -> bool:
        """Until the round changes, ``timeout`` passes or file ``reading`` has input: if it has.

        A failure of the watch is raised here, in the thread that waits.
        """
        files = [self._wake] if reading is None else [self._wake, reading]
        ready, _, _ = select.select(files, [], [], timeout)
        if self._wake in ready:
            os.read(self._wake, 4096)
        if self._failed is not None:
            raise self._failed
        return reading in ready


class _Screen:
    """A live round's terminal: lines said, one line redrawn below them, keys read as typed.

    At a terminal (input and output ttys, ``TERM`` set and not ``dumb``) that line is
    rewritten whenever it changes, its clock every second, and keys are read one at a time
    and shown on it (the terminal does not echo them), so it can change under what is being
    typed. Elsewhere (a pipe, a file, a dumb terminal) a status line is written when its
    text changes, and the input is read a line at a time.
    """

    def __init__(self, term: _Terminal, watch: _RoundWatch) -> None:
        self.term = term
        self.watch = watch
        self.fd = term.input.fileno()
        self.keyboard = term.input.isatty()
        """Whether a person types the input (a script's is typed ahead)."""
        self.live = (
            self.keyboard
            and term.output.isatty()
            and os.environ.get("TERM", "dumb") not in {"", "dumb"}
        )
        self._line: str | None = None
        """The unfinished line under the cursor (None: the cursor starts a line)."""
        self._asking = False
        """Whether that line is a question (kept when it ends; a status line is erased)."""
        self._said: str | None = None
        """Not live: the status line written last, written again only once it changes."""
        self._typed = ""
        self._unread = ""
        """What was read and not yet taken."""
        self._ended = False
        """The input has ended (or ^D was typed on an empty line)."""
        self._escape = 0
        """An escape sequence (an arrow key) being skipped: 1 after ESC, 2 within it."""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._saved: list[Any] | None = None

    def __enter__(self) -> _Screen:
        if self.live:
            import termios

            self._saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ECHO | termios.ICANON)  # each key as typed, shown by the line
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def hold(self, text: str) -> None:
        """Show ``text`` on the status line until the round changes or the clock ticks."""
        if self.live:
            self._draw(self._clock() + text)
        elif text != self._said:
            self.term.say(self._clock() + text)
            self._said = text
        self.watch.wait(self._tick())

    def end(self) -> None:
        """End the line under the cursor, so that what follows starts a line of its own.

        A question stays on screen; a status line is erased (it would soon be out of date).
        """
        if self._line is not None:
            erase = self.live and not self._asking
            self.term.output.write("\r\x1b[K" if erase else "\n")
            self.term.output.flush()
        self._line, self._asking, self._said = None, False, None

    def ask(self, prompt: str, over: Callable[[], bool]) -> str | None:
        """The player's line, the clock before ``prompt`` ticking; None at the end of the input.

        Raises :class:`_CallOver` once ``over()``, without waiting for the line.
        """
        self.end()
        self._asking = True
        if self.keyboard:
            self._forget()
        if not self.live:
            self._line = self._clock() + prompt
            self.term.output.write(self._line)
            self.term.output.flush()
        while (line := self._take()) is None and not self._ended:
            if over():
                self.end()
                self._typed = ""  # it was meant for the card that is gone
                raise _CallOver
            if self.live:
                self._draw(self._clock() + prompt, self._typed)
            if self.watch.wait(self._tick(), self.fd):
                self._fill()
        if line is not None and self.live:
            self._draw(self._clock() + prompt, line)
        elif line is not None:
            if self.term.echo:  # a script's moves show in the transcript
                self.term.output.write(line + "\n")
            self._line = None  # the line typed ended it
        self.end()
        return line

    def _forget(self) -> None:
        """Drop the keys pressed before the question: they cannot be meant for its card."""
        import termios

        termios.tcflush(self.fd, termios.TCIFLUSH)
        self._unread = ""

    def _clock(self) -> str:
        """The seconds left to place the called card, as a line starts with them."""
        left = self.watch.left()
        return "" if left is None else f"[{math.ceil(left):>3} s left] "

    def _tick(self) -> float:
        """Seconds until the clock shows the next second (one, without a clock)."""
        left = self.watch.left()
        return 1.0 if not left else left - math.ceil(left) + 1.005

    def _draw(self, text: str, typed: str = "") -> None:
        """Rewrite the live line: ``text``, then as much of ``typed`` as fits, the cursor last."""
        room = shutil.get_terminal_size().columns - 1 - len(_STYLE.sub("", text))
        line = text + (typed[-room:] if room > 0 else "")
        if line != self._line:
            self.term.output.write(f"\r{line}\x1b[K")
            self.term.output.flush()
            self._line = line

    def _fill(self) -> None:
        """Take in what the input holds now (it is ready: this does not wait)."""
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the terminal is gone
            data = b""
        if not data:
            self._ended = True
        self._unread += self._decoder.decode(data, final=not data)

    def _take(self) -> str | None:
        """A whole line of what was read, if there is one (at a terminal, keys edit it)."""
        if not self.live:
            line, newline, rest = self._unread.partition("\n")
            if not newline and not (self._ended and line):
                return None
            self._unread = rest
            return line
        while self._unread:
            key, self._unread = self._unread[0], self._unread[1:]
            if self._key(key):
                line, self._typed = self._typed, ""
                return line
        return None

    def _key(self, key: str) -> bool:
        """Edit the typed line with one key; whether the key ends it (Enter)."""
        if self._escape == 1:  # after ESC: [ or O opens a sequence (an arrow key)
            self._escape = 2 if key in "[O" else 0
            return False
        if self._escape == 2:  # skipped to its final byte (A for the up arrow)
            self._escape = 0 if "@" <= key <= "~" else 2
            return False
        if key == "\x1b":
            self._escape = 1
        elif key in "\r\n":
            return True
        elif key in "\x7f\b":
            self._typed = self._typed[:-1]
        elif key == "\x15":  # ^U: the whole line
            self._typed = ""
        elif key == "\x17":  # ^W: the last word
            self._typed = re.sub(r"\S*\s*$", "", self._typed)
        elif key == "\x04" and not self._typed:  # ^D on an empty line: the end of the input
            self._ended = True
        elif key.isprintable():
            self._typed += key
        return False


def run_round(
    client: Client,
    follower: Client,
    tournament_id: str,
    round_number: int,
    token: str,
    server_url: str,
    receipt_out: str | None,
) -> int:
    """The entrant's seat in a lockstep round, live (``cardproof play --tournament``).

    ``follower`` follows the round (:class:`_RoundWatch`) while ``client`` plays. Returns
    as :func:`run` does: 0 scored, its receipt written; 1 the player left
    the seat, or the game was not scored; 2 the server could not be used.
    """
    term = _Terminal(sys.stdin, sys.stdout, None)
    try:
        seat = client.join_round(tournament_id, round_number, token)
        game, session = seat.game, _session(seat.game, term)  # a variant it knows
        title = variant_class(game.variant).title
    except CardproofError as error:
        term.say(f"cannot take a seat in round {round_number}: {printable(str(error))}")
        return 2
    term.say(f"cardproof play: round {round_number} of tournament {tournament_id}, {title}")
    term.paragraph(
        "Lockstep: each card is called to every seat at once, once all have placed the one "
        "before or its deadline passed; a card you leave is placed for you at its deadline. "
        "Type ? for help, q to leave the seat."
    )
    try:
        with _RoundWatch(follower, seat) as watch, _Screen(term, watch) as screen:
            finished = _play_calls(seat, session, watch, screen)
    except KeyboardInterrupt:
        finished = False
    except CardproofError as error:
        term.say(f"the server failed: {printable(str(error))}")
        return 2
    if not finished:
        term.say(f"Left the seat after {game.next_index} of the round's cards;")
        term.say("  the rest are placed for you as their deadlines pass.")
        return 1
    session.final()
    if game.score is None:
        return 1
    return _show_receipt(client, game, term, server_url, receipt_out)


def _play_calls(seat: Round, session: _Session, watch: _RoundWatch, screen: _Screen) -> bool:
    """The round's calls as they come, until the game is over (True) or the player leaves.

    What the round does shows as it happens: the seats taken before the start, the clock
    while the player types, how many seats have still to place the card once the player
    has, and each card the server placed for the player when its deadline passed.
    """
    game, term = seat.game, session.term
    told = game.next_index  # the moves before it: the player's, or said to be placed for them
    shown: int | None = None  # the call on screen
    while not game.finished:
        status = watch.status
        if status.status == "waiting":
            at = status.starts_at
            starts = f" (it starts by itself at {printable(at)})" if at else ""
            screen.hold(f"Seated: {status.seats} so far; waiting for the start{starts}...")
        elif watch.past(shown):  # a new call, or the end: the game is read again
            screen.end()
            seat.sync()
            told = _tell_placed(session, watch, told)
            if game.finished or status.status == "finished":
                break
            if shown is None:
                term.say(f"The round is on: {plural(status.seats, 'seat')} taken.")
            session.show()
            shown = status.call
        elif status.call == game.next_index:  # the player's card
            try:
                answer = screen.ask(session.prompt(), functools.partial(watch.past, shown))
            except _CallOver:
                continue
            if answer is None or answer.strip().lower() in QUIT:
                return False
            command = answer.strip().lower()
            if command in HELP:
                term.paragraph(HELP_TEXT[game.variant], indent="  ")
            elif command and not session.command(command):
                if _place(session, answer):
                    told = game.next_index
                watch.take(seat.status())  # the round after the move, without waiting
        else:  # placed: the other seats are placing theirs
            waiting = status.seats - status.placed
            screen.hold(f"placed; waiting for {waiting} of {status.seats}")
    return True


def _place(session: _Session, answer: str) -> bool:
    """Send the player's move; whether it was placed (if not, the reason was said).

    A move that came after its card's deadline finds the card placed by the server: that
    is said with the others (:func:`_tell_placed`) once the round goes on.
    """
    try:
        return session.play(answer)
    except ConflictError as error:
        if error.code not in LATE:
            raise
        return False


def _tell_placed(session: _Session, watch: _RoundWatch, told: int) -> int:
    """Say where each move from ``told`` on was placed for the player; the next to tell.

    Those moves are the server's: their cards' deadlines passed before the player moved.
    The board takes them in.
    """
    game, term = session.game, session.term
    for index in range(told, game.next_index):
        card = watch.cards.get(index)
        shown = term.card(card) if card else f"card {index + 1}"
        term.say(f"Time's up: {shown} was placed for you at {printable(game.played.moves[index])}")
    if told < game.next_index:
        session.moved()
    return game.next_index
