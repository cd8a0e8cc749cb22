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
from cardproof.play.shared import Coord, Session, Terminal, running_score

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
