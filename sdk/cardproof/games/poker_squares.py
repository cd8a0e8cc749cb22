"""``poker-squares``: Poker Squares (Poker Solitaire), docs/rules.md section 2.

The first 25 cards of the deck are turned up one at a time; each goes into any
empty cell of a 5x5 grid and never moves. After 25 placements the 5 rows and 5
columns (and, with ``diagonals``, the 2 long diagonals) are scored.

>>> from cardproof.cards import STANDARD_DECK
>>> game = PokerSquares.new(STANDARD_DECK)
>>> game.play(Cell.parse("c3")); game.visible().next
'3C'
>>> game.play(Cell.parse("c3"))
Traceback (most recent call last):
...
cardproof.errors.IllegalMove: move 1 (c3): cell c3 is taken
"""

from __future__ import annotations

from cardproof.games.grid import SIZE, Cell, GridPlacementGame, TableOption


class PokerSquaresOptions(TableOption, frozen=True, forbid_unknown_fields=True):
    """Options of poker-squares.

    ``scoring``: a table name or a custom table (default ``american``);
    ``diagonals``: also score the two long diagonals (12 hands instead of 10).
    """

    diagonals: bool = False


class PokerSquares(GridPlacementGame):
    """Poker Squares: any empty cell, 10 (or 12) hands, table ``american`` by default."""

    id = "poker-squares"
    title = "Poker Squares"
    information = "hidden"
    description = (
        "The first 25 cards of a shuffled 52-card deck are turned up one at a time; place "
        "each in any empty cell of a 5x5 grid (row 0 on top, col 0 on the left; text form "
        "'c3' = column c, row 3). A placed card never moves. The 5 rows and 5 columns are "
        "scored, and the 2 long diagonals with the option diagonals: true. Default table: "
        "american; any named table or a custom one may be chosen."
    )
    options_type = PokerSquaresOptions

    def legal_moves(self) -> list[Cell]:
        """Every empty cell."""
        if self.is_over():
            return []
        return [Cell(row=i // SIZE, col=i % SIZE) for i, c in enumerate(self.cells) if c is None]

    def is_over(self) -> bool:
        """After 25 placements."""
        return len(self._moves) == SIZE * SIZE
