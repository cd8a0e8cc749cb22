"""``cardproof play``: a grid variant played in the terminal, move by move, on a server.

The game is the server's: every move goes to it, and its answer says what is visible
now, so the terminal shows only what the player may see and the finished game gets a
signed receipt anyone can check. :func:`run` is the whole game over two text streams
(so it runs as well on ``io.StringIO`` as on a terminal); :func:`embedded_client`
starts a server in-process, with a throwaway signing key, for playing without one.

The running score counts only lines whose five cells are filled and final; in
``poker-patience`` a row is final once the layout spans 5 columns (and a column once it
spans 5 rows), so lines there are named by their offset from the first card.
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import os
import re
import secrets
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final, TextIO

import msgspec

from cardproof.cards import Card
from cardproof.client import Client, Game, Options
from cardproof.errors import BadRequestError, CardproofError, IllegalMoveError
from cardproof.games import variant as variant_class
from cardproof.games.grid import (
    COLUMN_LETTERS,
    DIAGONAL_LINES,
    ROW_AND_COLUMN_LINES,
    SIZE,
    GridView,
)
from cardproof.hands import PointTable, Score, score_hands

PLAYABLE: Final = ("poker-squares", "poker-patience", "serpent-patience")
"""The variants this module can draw: the three 5x5 grid games."""
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

    The absolute variants score fixed lines (``row 1`` .. ``col 5``, and the diagonals
    when asked); in ``poker-patience`` the rows are known once the layout spans 5
    columns and the columns once it spans 5 rows (named by offset: ``row -1``).
    """
    if variant != "poker-patience":
        lines = ROW_AND_COLUMN_LINES + (DIAGONAL_LINES if diagonals else ())
        return [(name, [divmod(i, SIZE) for i in cells]) for name, cells in lines]
    rows = sorted({r for r, _ in placed})
    cols = sorted({c for _, c in placed})
    found: list[tuple[str, list[Coord]]] = []
    if cols and cols[-1] - cols[0] == SIZE - 1:
        span = range(cols[0], cols[-1] + 1)
        found += [(f"row {r}", [(r, c) for c in span]) for r in rows]
    if rows and rows[-1] - rows[0] == SIZE - 1:
        span = range(rows[0], rows[-1] + 1)
        found += [(f"col {c}", [(r, c) for r in span]) for c in cols]
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
        """A card, red for hearts and diamonds when colour is on."""
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


class _Play:
    """One game in progress: the server's handle and what the terminal shows of it."""

    def __init__(self, game: Game, term: _Terminal) -> None:
        self.game = game
        self.term = term
        self.variant = game.variant
        settings: Any = variant_class(game.variant).parse_options(game.state.options)
        self.table: PointTable = settings.table
        self.diagonals = bool(getattr(settings, "diagonals", False))
        self.placed = placed_cards(self.view)
        self.last: Coord | None = None

    @property
    def view(self) -> GridView:
        """The game's view (the terminal game plays the grid variants only)."""
        view = self.game.visible
        if not isinstance(view, GridView):
            raise TypeError(f"{self.variant} is not a grid game")
        return view

    # --- drawing --------------------------------------------------------------------

    def grid_lines(self) -> list[str]:
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
        for line in self.grid_lines():
            term.say(line)
        score = running_score(self.variant, self.placed, self.table, diagonals=self.diagonals)
        scoring = ", ".join(f"{h.line} {h.category} {h.points}" for h in score.hands if h.points)
        lines = f"{len(score.hands)} complete line" + ("" if len(score.hands) == 1 else "s")
        term.paragraph(
            f"Score so far: {score.total} from {lines}" + (f" ({scoring})" if scoring else ""),
            indent="  ",
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

    def play(self, text: str) -> bool:
        """Send one move; ``True`` if the server took it, else the reason is shown."""
        move = "".join(text.split())
        try:
            self.game.play(move)
        except IllegalMoveError as error:
            reason = re.sub(r"^move \d+ ", "", error.detail or error.title)
            self.term.say(f"  illegal move {reason}")
            return False
        except BadRequestError as error:
            reason = re.sub(r"^move: ", "", error.detail or error.title)
            self.term.say(f"  {reason}; type ? for help")
            return False
        placed = placed_cards(self.view)
        new = placed.keys() - self.placed.keys()
        self.last = next(iter(new)) if len(new) == 1 else None
        self.placed = placed
        return True

    def loop(self) -> bool:
        """Play until the game is over (``True``) or the player quits (``False``)."""
        changed = True
        while not self.game.finished:
            if changed:
                self.show()
            answer = self.term.ask(self.prompt())
            if answer is None or answer.strip().lower() in QUIT:
                return False
            command = answer.strip().lower()
            if command in HELP:
                self.term.paragraph(HELP_TEXT[self.variant], indent="  ")
                self.term.paragraph(COMMANDS_HELP, indent="  ")
                changed = False
            elif not command:
                changed = False
            else:
                changed = self.play(answer)
        return True

    def final(self) -> None:
        """The finished layout and the server's score, hand by hand."""
        term = self.term
        term.say()
        term.say(f"{self.variant}: game over")
        for line in self.grid_lines():
            term.say(line)
        score = self.game.score
        if score is None:
            return
        term.say()
        term.say(f"Final score: {score.total} (table {self.table.name})")
        for hand in score.hands:
            cards = " ".join(hand.cards)
            term.say(f"  {hand.line:<11} {cards:<15} {hand.category:<16} {hand.points:>5}")
        if self.variant == "poker-patience" and self.placed:
            top = min(r for r, _ in self.placed)
            left = min(c for _, c in self.placed)
            term.paragraph(
                "(the server numbers the final square's rows and columns 1-5 from its "
                f"top-left: row 1 is row {top} and col 1 is col {left} in the offsets above)",
                indent="  ",
            )


def run(
    client: Client,
    variant: str,
    *,
    input: TextIO = sys.stdin,
    output: TextIO = sys.stdout,
    client_seed: str | None = None,
    options: Options = None,
    server_url: str | None = None,
    receipt_out: str | Path | None = None,
    color: bool | None = None,
) -> int:
    """Play one game of ``variant`` through ``client``, reading moves from ``input``.

    ``server_url`` names the server in the hint on checking the receipt; ``None`` means
    an embedded server (:func:`embedded_client`), whose throwaway key set is printed
    instead. ``receipt_out`` also writes the receipt (the compact JWS) to that file.
    ``color`` is automatic when ``None`` (on for a terminal, off under ``NO_COLOR``).

    Returns 0 when the game ended scored and its receipt was shown; 1 when the player
    quit (``q``, or the end of the input) or a serpent path reached a dead end, so there
    is no receipt; 2 when the server could not be used (unreachable, refused the deal).
    """
    term = _Terminal(input, output, color)
    if variant not in PLAYABLE:
        term.say(f"cardproof play knows {', '.join(PLAYABLE)}; not {variant!r}")
        return 2
    try:
        game = client.deal(variant, options, client_seed=client_seed)
    except CardproofError as error:
        term.say(f"cannot open a deal: {error}")
        return 2
    state = game.state
    title = variant_class(variant).title
    session = _Play(game, term)
    term.say(f"cardproof play: {title} ({variant}), table {session.table.name}")
    committed = (
        "the server committed to its seed before it saw yours"
        if state.committed_before_client_seed
        else "not committed before your seed"
    )
    term.say(f"Deal {state.deal_id}: server seed hash {state.server_seed_hash[:16]}...,")
    term.say(f"  your seed {state.client_seed!r} ({committed})")
    term.say("Type ? for help, q to quit.")
    try:
        finished = session.loop()
    except KeyboardInterrupt:
        term.say()
        finished = False
    except CardproofError as error:
        term.say(f"the server failed: {error}")
        term.say(f"(deal {game.deal_id}, next move {game.next_index})")
        return 2
    if not finished:
        cards = f"{game.next_index} card" + ("" if game.next_index == 1 else "s")
        term.say(f"Quit: deal {game.deal_id} is left unfinished after {cards};")
        term.say("  an unfinished game has no receipt.")
        return 1
    session.final()
    if game.score is None:
        term.say()
        term.paragraph(
            f"Dead end at {session.cell_text(session.last)}: no empty cell is next to the "
            "last card, so this path cannot be completed; a serpent game that is not "
            "completed is not scored, and has no receipt."
        )
        return 1
    return _show_receipt(client, game, term, server_url, receipt_out)


def _show_receipt(
    client: Client,
    game: Game,
    term: _Terminal,
    server_url: str | None,
    receipt_out: str | Path | None,
) -> int:
    """Fetch the receipt, print it (and write it), and say how to check it."""
    try:
        token = game.receipt().receipt
    except CardproofError as error:
        term.say(f"cannot fetch the receipt of deal {game.deal_id}: {error}")
        return 2
    term.say()
    term.say(f"Receipt: {token}")
    if receipt_out is not None:
        Path(receipt_out).write_text(token + "\n")
        term.say(f"The receipt is written to {receipt_out}.")
        where = str(receipt_out)
    else:
        where = "FILE"
        term.say("To keep it, save the text after 'Receipt: ' to a FILE (or use --receipt-out).")
    if server_url is not None:
        term.say(f"Check it: cardproof verify {where} --url {server_url}")
        return 0
    term.paragraph(
        "This game ran on an embedded server: its receipt is signed by a throwaway key made "
        "for this run only, so no server vouches for it and checking it with --url will "
        "fail. Its deal, replay and score can still be checked offline: save the key set "
        "below as KEYS.json, then run:"
    )
    term.say(f"  cardproof verify {where} --jwks KEYS.json")
    try:
        keys = msgspec.json.encode(client.jwks()).decode()
    except CardproofError as error:  # pragma: no cover - the embedded server is in-process
        term.say(f"cannot fetch the key set: {error}")
        return 2
    term.say(f"Key set: {keys}")
    return 0


@contextlib.contextmanager
def embedded_client() -> Iterator[Client]:
    """A :class:`Client` on a server run in-process, with throwaway keys, until the block ends.

    The server keeps deals in memory and signs with a key made for this block only: no
    key file is written, and its receipts are checkable only with its key set (printed
    by :func:`run`). Needs the ``service`` extra.
    """
    from litestar.testing import TestClient

    from cardproof.receipts import SigningKey
    from cardproof_service.app import create_app
    from cardproof_service.keys import Keys
    from cardproof_service.settings import Settings

    keys = Keys(master=secrets.token_bytes(32), signing=SigningKey.generate())
    app = create_app(Settings(warm_up=False), keys=keys)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not one log line per move
    with TestClient(app) as http, Client(base_url=str(http.base_url), http_client=http) as client:
        yield client
