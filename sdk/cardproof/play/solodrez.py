"""solodrez at the terminal (:class:`SoloDrezPlay`).

Nine columns, everything face up, and the solver's ``hint``.
"""

from __future__ import annotations

from typing import Final

from cardproof.games.solodrez import SoloDrez, SoloDrezView
from cardproof.hands import Score
from cardproof.play.shared import Session
from cardproof.pokerdrez import parse_pokerdrez_cards
from cardproof.words import plural, printable

HINT_BUDGET: Final = 3.0
"""Seconds the solodrez ``hint`` may search."""


class SoloDrezPlay(Session):
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
