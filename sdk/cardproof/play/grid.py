"""The 5x5 grid games at the terminal: poker-squares, poker-patience, serpent-patience.

:class:`GridPlay` draws them; with it, the cells a view holds and where a card may go.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from cardproof.client import Game
from cardproof.games.grid import COLUMN_LETTERS, SIZE, GridView
from cardproof.hands import Score
from cardproof.models import View
from cardproof.play.shared import Coord, Session, Terminal, grid_lines, running_score
from cardproof.words import plural


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


class GridPlay(Session):
    """A 5x5 grid game: poker-squares, poker-patience or serpent-patience."""

    def __init__(self, game: Game[View], term: Terminal) -> None:
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
        last = None if self.last is None else (rows.index(self.last[0]), cols.index(self.last[1]))
        return grid_lines(
            self.term,
            [[self.placed.get((row, col)) for col in cols] for row in rows],
            row_labels,
            col_labels,
            last=last,
            marked={
                (r, c)
                for r, row in enumerate(rows)
                for c, col in enumerate(cols)
                if mark_playable and (row, col) in playable
            },
        )

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
            later = " ".join(term.card(c) for c in view.later)  # coloured, as on the board
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
