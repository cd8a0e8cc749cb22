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

The package: :mod:`~cardproof.play.shared` (the terminal, the session every screen is
built on, help, running scores, the receipt), one module per variant family's session
(:mod:`~cardproof.play.grid`, :mod:`~cardproof.play.repeat`,
:mod:`~cardproof.play.reserve`, :mod:`~cardproof.play.solodrez`), one game from deal to
receipt in :mod:`~cardproof.play.game`, the in-process server in
:mod:`~cardproof.play.embedded` and the lockstep round table in
:mod:`~cardproof.play.round`. What other modules use is named here.
"""

from __future__ import annotations

from cardproof.play.embedded import embedded_client
from cardproof.play.game import run, session_for
from cardproof.play.grid import placed_cards, playable_cells
from cardproof.play.reserve import FACE_DOWN, RESERVE_VISIBILITY
from cardproof.play.round import LATE, WATCH_WAIT, run_round
from cardproof.play.shared import (
    COMMANDS_HELP,
    HELP,
    HELP_TEXT,
    PLAYABLE,
    QUIT,
    Coord,
    receipt_path,
    running_score,
    scored_lines,
)
from cardproof.play.solodrez import HINT_BUDGET

__all__ = [
    "COMMANDS_HELP",
    "FACE_DOWN",
    "HELP",
    "HELP_TEXT",
    "HINT_BUDGET",
    "LATE",
    "PLAYABLE",
    "QUIT",
    "RESERVE_VISIBILITY",
    "WATCH_WAIT",
    "Coord",
    "embedded_client",
    "placed_cards",
    "playable_cells",
    "receipt_path",
    "run",
    "run_round",
    "running_score",
    "scored_lines",
    "session_for",
]
