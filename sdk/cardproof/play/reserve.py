"""reserve-poker at the terminal (:class:`ReservePlay`).

The reserve columns hanging above a 5x5 gravity grid.
"""

from __future__ import annotations

import re
from typing import Final

from cardproof.client import Game
from cardproof.games.grid import COLUMN_LETTERS, SIZE
from cardproof.games.reserve_poker import ReserveView
from cardproof.hands import Score
from cardproof.models import View
from cardproof.play.shared import Coord, Session, Terminal, grid_lines, running_score

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
CELL_WIDTH: Final = len("Joker")
"""How wide a card is drawn: the widest, the joker, as the pages name it."""
RESERVES: Final = 4
"""Reserve columns, counted 1 to 4 at the terminal as on the page (the API's 0 to 3)."""
_MOVE: Final = re.compile(r"\s*(\d+)\s*[>\s]?\s*([a-z])\s*")
"""A move as typed: a reserve column's number, then a grid column's letter."""
_NUMBERS: Final = re.compile(r"\s*\d+\s*[>\s]\s*\d+\s*")
"""Two numbers (the API's form, 0-based): not how the board names a grid column."""


def board_words(reason: str) -> str:
    """A refusal of the server's (which counts columns from 0) as the board names columns.

    >>> board_words("(1>0): grid column 0 (col a) is full (5 cards)")
    'col a is full (5 cards)'
    >>> board_words("(3>2): reserve column 3 is empty")
    'reserve 4 is empty'
    """
    reason = re.sub(r"^\([^)]*\): ", "", reason)
    reason = re.sub(r"\bgrid column \d \((col [a-e])\)", r"\1", reason)
    return re.sub(r"\breserve column (\d)\b", lambda n: f"reserve {int(n[1]) + 1}", reason)


class ReservePlay(Session):
    """reserve-poker: 4 reserve columns, a 5x5 gravity grid, 12 hands."""

    def __init__(self, game: Game[View], term: Terminal) -> None:
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
        width = CELL_WIDTH + 2
        lines = ["     " + " ".join(f"{f + 1:^{width}}" for f in range(len(columns))).rstrip()]
        for depth in range(max(1, *(len(column) for column in columns))):
            cells = []
            for column in columns:
                if depth < len(column):
                    card = column[depth]
                    shown = FACE_DOWN if card is None else self.term.card(card)
                    label = FACE_DOWN if card is None else self.term.label(card)
                    room = CELL_WIDTH - len(label)
                    cells.append(" " * (room // 2 + 1) + shown + " " * (room - room // 2 + 1))
                else:
                    cells.append(f" {'--' if depth == 0 else '':^{CELL_WIDTH}} ")
            lines.append("     " + " ".join(cells).rstrip())
        return lines

    def board_lines(self) -> list[str]:
        """The grid: cards, ``[last]`` card, ``+`` where a card would land, ``.`` empty."""
        landing = {
            (max(r for r in range(SIZE) if (r, c) not in self.placed), c)
            for c in range(SIZE)
            if (0, c) not in self.placed
        }
        # columns by letter, as cells and lines are named and moves name them (2 e)
        return grid_lines(
            self.term,
            [[self.placed.get((row, col)) for col in range(SIZE)] for row in range(SIZE)],
            [str(row + 1) for row in range(SIZE)],
            list(COLUMN_LETTERS),
            last=self.last,
            marked=landing,
            width=CELL_WIDTH,
        )

    def show(self) -> None:
        view, term = self.view, self.term
        term.say()
        term.say(f"{self.variant}, version {view.version}: card {self.game.next_index + 1} of 25")
        term.say(
            f"  Reserve columns 1-{RESERVES} "
            f"({RESERVE_VISIBILITY.get(view.version, '?')}; ## is face down):"
        )
        for line in self.reserve_lines():
            term.say(line)
        term.say("  Grid columns a-e (a card falls to the lowest empty cell of its column, +):")
        for line in self.board_lines():
            term.say(line)
        self.score_paragraph(
            running_score(self.variant, self.placed, self.settings.table, diagonals=True)
        )

    def prompt(self) -> str:
        return "Take from reserve 1-4 into grid column a-e (like 2 d): "

    def move_text(self, answer: str) -> str:
        """The API's move for the player's: ``2 d`` (or ``2d``, ``2>d``) is ``1>3``.

        The terminal counts reserve columns from 1 and letters grid columns, as the
        board and the page do; the API counts both from 0.
        """
        found = _MOVE.fullmatch(answer.lower())
        if found is not None:
            return f"{int(found[1]) - 1}>{ord(found[2]) - ord('a')}"
        return "".join(answer.split())

    def before_move(self, answer: str) -> bool:
        """Whether to send the move: not one that names columns otherwise than the board.

        A reserve column outside 1-4, a grid column outside a-e, or a grid column by
        number: the board's naming is said instead.
        """
        found = _MOVE.fullmatch(answer.lower())
        if found is not None and (
            not 1 <= int(found[1]) <= RESERVES or found[2] not in COLUMN_LETTERS
        ):
            self.term.say(
                f"  reserve columns are 1 to {RESERVES} and grid columns a to e, like 2 d"
            )
            return False
        if _NUMBERS.fullmatch(answer) is not None:
            self.term.say("  name the grid column by its letter, a to e: like 2 d")
            return False
        return True

    def refusal(self, answer: str, reason: str) -> str:
        """The server's reason in the board's naming, after the move as typed."""
        return f"({' '.join(answer.split())}): {board_words(reason)}"

    def moved(self) -> None:
        placed = self.grid_cards()
        new = placed.keys() - self.placed.keys()
        self.last = next(iter(new)) if len(new) == 1 else None
        self.placed = placed

    def breakdown(self, score: Score) -> None:
        super().breakdown(score)
        self.term.paragraph(
            "(lines are named as cells are: rows 1-5 from the top, cols a-e from the left, "
            "as moves name them; diagonal \\ runs from a1 to e5, diagonal / from e1 to a5)",
            indent="  ",
        )
