"""solodrez at the terminal (:class:`SoloDrezPlay`).

Nine columns, everything face up, and the solver's ``hint``.
"""

from __future__ import annotations

import re
from typing import Final

from cardproof.games.solodrez import COLUMNS, SoloDrez, SoloDrezView, ending_words
from cardproof.hands import Score
from cardproof.play.shared import Session
from cardproof.pokerdrez import parse_pokerdrez_cards
from cardproof.words import plural, printable

HINT_BUDGET: Final = 3.0
"""Seconds the solodrez ``hint`` may search."""
_RUN: Final = re.compile(r"(\d+)\s*(?::|\s)\s*(\d+)\s*(?:>|\s)\s*(\d+)")
"""A move of a run as typed: ``a n b`` or ``a:n>b``, columns counted from 1."""
_REMOVE: Final = re.compile(r"r\s*(\d+)")
"""A series removed, as typed: ``r a`` or ``ra``, the column counted from 1."""


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
        lines = ["  " + " ".join(f"{c + 1:>3}" for c in range(len(columns)))]
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
        """The API's move for the player's, whose columns count from 1 as the board's do.

        ``3 2 5`` (or ``3:2>5``) moves 2 cards from column 3 to column 5: the API's
        ``2:2>4``, whose columns count from 0; ``r 4`` (or ``r4``) is ``r3``.
        """
        text = answer.strip().lower()
        if (run := _RUN.fullmatch(text)) is not None:
            source, count, target = (int(number) for number in run.groups())
            return f"{source - 1}:{count}>{target - 1}"
        if (remove := _REMOVE.fullmatch(text)) is not None:
            return f"r{int(remove[1]) - 1}"
        return "".join(text.split())

    def refusal(self, answer: str, reason: str) -> str:
        """The server's reason in the board's numbering (the API counts columns from 0).

        ``(3:2>5): ... column 5 ends in P4``, for ``4 2 6`` typed, reads ``(4 2 6): ...
        column 6 ends in P4``: the move as typed, not the API's text of it.
        """
        reason = re.sub(r"^\([^)]*\): ", "", reason)
        renumbered = re.sub(r"\bcolumn (\d)\b", lambda n: f"column {int(n[1]) + 1}", reason)
        return f"({' '.join(answer.split())}): {renumbered}"

    def unreadable(self, answer: str, reason: str) -> str:
        """A move that is none, as typed, with the board's numbering (not the API's text)."""
        typed = " ".join(answer.split())
        return (
            f"{typed!r} is not a move: type 'a n b' (n cards from column a to column b, "
            f"columns 1-{COLUMNS}), 'r a' (remove column a), hint or stop"
        )

    def before_move(self, answer: str) -> bool:
        """``stop`` is sent only if confirmed: it ends the game for good, scored as it stands.

        A move naming a column outside 1-9 is not sent: the board's numbering is said.
        """
        text = answer.strip().lower()
        found = _RUN.fullmatch(text) or _REMOVE.fullmatch(text)
        if found is not None:
            groups = found.groups()
            columns = (groups[0], groups[2]) if len(groups) == 3 else groups
            if not all(1 <= int(column) <= COLUMNS for column in columns):
                self.term.say(f"  columns are numbered 1 to {COLUMNS}, as the board shows them")
                return False
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
            first = found.moves[0]  # its columns count from 0; the board's from 1
            if first.remove is not None:
                column = first.remove + 1
                advice = f"r {column} (remove the series in column {column})"
            else:
                source, target = (first.from_ or 0) + 1, (first.to or 0) + 1
                count = first.count or 0
                advice = (
                    f"{source} {count} {target} (move {plural(count, 'card')} from column "
                    f"{source} to column {target})"
                )
            away = plural(len(found.moves), "move")
            self.term.paragraph(f"hint: {advice}; a win is {away} away ({searched})", "  ")
        elif found.result == "lost":
            self.term.paragraph(
                f"hint: this position cannot be won ({searched}); 'stop' ends the game with "
                f"{self.view.series_removed} series",
                "  ",
            )
        else:
            self.term.paragraph(f"hint: no win found within {HINT_BUDGET:.0f} s ({searched})", "  ")
        return True

    def breakdown(self, score: Score) -> None:
        """The ending in the page's words, with the moves counted as the page counts them."""
        self.term.say("  " + ending_words(score, self.game.played.moves))
