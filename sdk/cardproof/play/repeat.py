"""repeat-poker at the terminal (:class:`RepeatPlay`).

Rows scored and emptied as they fill, level by level.
"""

from __future__ import annotations

from cardproof.client import Game
from cardproof.games.repeat_poker import DECK as REPEAT_DECK
from cardproof.games.repeat_poker import ROW_LENGTH as REPEAT_ROW_LENGTH
from cardproof.games.repeat_poker import RowsView
from cardproof.hands import HandScore, Score
from cardproof.models import View
from cardproof.play.shared import CARD_WIDTH, Session, Terminal
from cardproof.words import plural, printable


def _hand_text(term: Terminal, hand: HandScore, *, level: bool) -> str:
    """One repeat-poker hand: ``row 1: A♥ A♦ 7♣ 4♠ 9♦, one-pair 20, removed A♥ A♦``."""
    line = printable(hand.line)
    where = f"level {hand.level} {line}" if level and hand.level else line
    removed = f", removed {term.cards(hand.removed)}" if hand.removed else ""
    cards, category = term.cards(hand.cards), printable(hand.category)
    return f"{where}: {cards}, {category} {hand.points}{removed}"


class RepeatPlay(Session):
    """repeat-poker: rows scored and emptied as they fill, 52 cards a level."""

    def __init__(self, game: Game[View], term: Terminal) -> None:
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
            slots = [self.term.card(card, width=CARD_WIDTH) for card in row]  # padded after colour
            slots += [f"{'.':^{CARD_WIDTH}}"] * (REPEAT_ROW_LENGTH - len(row))
            lines.append((f"  r{r + 1}   " + " ".join(slots)).rstrip())
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
            term.paragraph(f"{label}: {_hand_text(term, view.scored[-1], level=levels > 1)}", "  ")

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
            cards = self.term.cards(hand.cards)
            removed = self.term.cards(hand.removed or ())
            category = printable(hand.category)
            self.term.say(
                f"  {where:<8} {cards:<19} {category:<16} {hand.points:>5}  removed {removed}"
            )
        self.term.say("  (the rows left incomplete at the end of a level score nothing)")
