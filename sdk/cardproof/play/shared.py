"""What every ``cardproof play`` session shares.

The terminal, the session every variant's screen is built on, the help, the lines
scored as a game goes, and the receipt at the end.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import sys
import textwrap
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TextIO

import msgspec

from cardproof.cards import Card
from cardproof.client import Client, Game
from cardproof.errors import BadRequestError, CardproofError, IllegalMoveError
from cardproof.games import variant as variant_class
from cardproof.games.grid import COLUMN_LETTERS, DIAGONAL_LINES, ROW_AND_COLUMN_LINES, SIZE
from cardproof.hands import PointTable, Score, score_hands
from cardproof.models import View
from cardproof.receipts import receipt_file_name
from cardproof.words import card_label, plural, printable, shows_suits

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
        "Type a reserve column 1-4 and a grid column a-e, like 2 d (or 2d, 2>d): take the "
        "bottom card of that reserve column and drop it into that grid column, where it "
        "falls to the lowest empty cell (marked +), as in Connect Four. Face-down cards "
        "show as ##; in versions 1-4 taking a face-up "
        "card turns the next one in its column face up. After 25 cards the 5 rows, 5 "
        "columns and 2 long diagonals are scored with the reserve table; the joker is "
        "wild. The score so far counts only complete lines."
    ),
    "solodrez": (
        "Columns 1-9 are shown top to bottom; the last card of each is exposed. Type "
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

PARAGRAPH_WIDTH: Final = 88
"""The widest a wrapped paragraph is (a terminal narrower than this wraps narrower)."""
MIN_WIDTH: Final = 20
"""The narrowest a paragraph is wrapped to, however narrow the terminal claims to be."""
_RED: Final = "\x1b[31m"
_BOLD: Final = "\x1b[1m"
_RESET: Final = "\x1b[0m"


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


CARD_WIDTH: Final = 3
"""The widest a card is shown (``10♣``): a board's cells are this wide, and a space or a
bracket either side."""


def grid_lines(
    term: Terminal,
    cells: Sequence[Sequence[str | None]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    last: Coord | None = None,
    marked: set[Coord] | frozenset[Coord] = frozenset(),
    width: int = CARD_WIDTH,
) -> list[str]:
    """A grid of cards as the pages lay it out: ``[last]`` card, ``+`` marked, ``.`` empty.

    ``cells`` by row then column (indices into ``row_labels`` and ``col_labels``); each
    cell is ``width`` wide (the widest card shown: ``10♣``, or ``Joker``), a space or a
    bracket either side, centred under its column's label.
    """
    lines = ["     " + " ".join(f"{label:^{width + 2}}" for label in col_labels).rstrip()]
    for r, (row, label) in enumerate(zip(cells, row_labels, strict=True)):
        shown = []
        for c, card in enumerate(row):
            if card is not None:
                room = width - len(term.label(card))
                left, right = " " * (room // 2), " " * (room - room // 2)
                face = f"[{term.card(card)}]" if (r, c) == last else f" {term.card(card)} "
                shown.append(left + face + right)
            else:
                mark = "+" if (r, c) in marked else "."
                shown.append(f" {mark:^{width}} ")
        lines.append(f"{label:>3}  " + " ".join(shown).rstrip())
    return lines


class Terminal:
    """Reading moves and writing lines, on a terminal or on plain streams."""

    def __init__(self, input: TextIO, output: TextIO, color: bool | None) -> None:
        self.input = input
        self.output = output
        self.color = _wants_color(output) if color is None else color
        self.symbols = shows_suits(output)
        """Whether cards show their suits' symbols (``10♣``), as the pages do, or letters."""
        self.echo = not _isatty(input)
        """Whether to write what was read (a script's moves then show in the transcript)."""
        self.line_editing = input is sys.stdin and output is sys.stdout and not self.echo
        if self.line_editing:
            with contextlib.suppress(ImportError):  # not on every platform
                import readline  # noqa: F401 - gives input() history and editing

    def say(self, text: str = "") -> None:
        self.output.write(text + "\n")

    def width(self) -> int:
        """Columns a wrapped line fills: 88, or a narrower terminal's columns less one.

        (Less one, so that a full line does not wrap by itself.)
        """
        if not _isatty(self.output):
            return PARAGRAPH_WIDTH
        try:
            columns = os.get_terminal_size(self.output.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return PARAGRAPH_WIDTH
        return max(MIN_WIDTH, min(PARAGRAPH_WIDTH, columns - 1))

    def paragraph(self, text: str, indent: str = "") -> None:
        """``text`` wrapped at word boundaries to :meth:`width`, each line indented."""
        for line in textwrap.wrap(
            text,
            self.width(),
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=False,
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

    def card(self, text: str, *, bold: bool = False, width: int = 0) -> str:
        """A card as the pages show it: ``10♣`` (``10C`` where the output has no symbols).

        Red for hearts and diamonds, padded to ``width`` after its colour; the server's
        text is shown with its hidden characters escaped.
        """
        label = self.label(text)
        padding = " " * (width - len(label))
        if not self.color:
            return label + padding
        red = text[-1:] in ("H", "D")
        styled = (_RED if red else "") + (_BOLD if bold else "") + label
        return (styled + _RESET if styled != label else label) + padding

    def label(self, text: str) -> str:
        """A card as the pages show it, with no colour: ``10♣`` (``10C``), ``Joker``."""
        return card_label(printable(text), symbols=self.symbols)

    def cards(self, texts: Sequence[str]) -> str:
        """Cards as the pages show them, a space apart (no colour: a line of text)."""
        return " ".join(self.label(text) for text in texts)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _wants_color(output: TextIO) -> bool:
    return _isatty(output) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class Session(ABC):
    """One game in progress: the server's handle and what the terminal shows of it.

    The subclasses draw one family of views: :class:`GridPlay` the 5x5 grid games,
    :class:`RepeatPlay` repeat-poker's rows, :class:`ReservePlay` reserve-poker.
    """

    def __init__(self, game: Game[View], term: Terminal) -> None:
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
            line, cards = printable(hand.line), self.term.cards(hand.cards)
            category = printable(hand.category)
            self.term.say(f"  {line:<11} {cards:<19} {category:<16} {hand.points:>5}")

    def refusal(self, answer: str, reason: str) -> str:
        """Why the server refused the move typed as ``answer``: its detail, by default."""
        return reason

    def unreadable(self, answer: str, reason: str) -> str:
        """Why the move typed as ``answer`` could not be read: the detail, by default."""
        return reason

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
            reason = printable(self.refusal(answer, reason))
            said = " " if reason.startswith("(") else ": "  # "(a1): cell a1 is taken"
            self.term.paragraph(f"illegal move{said}{reason}", indent="  ")
            return False
        except BadRequestError as error:
            reason = re.sub(r"^move: ", "", error.detail or error.title)
            reason = printable(self.unreadable(answer, reason))
            self.term.paragraph(f"{reason}; type ? for help", indent="  ")
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


def show_receipt(
    client: Client,
    game: Game[View],
    term: Terminal,
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
        term.say("Check it with:")  # the command on a line of its own, to copy whole
        term.say(f"  cardproof verify {path} --url {server_url}")
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
