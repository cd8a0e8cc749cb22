"""One game at the terminal, from deal to receipt (:func:`run`).

The session that draws a deal's kind of view (:func:`session_for`), the game played to
its end, and serpent's par.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from cardproof.client import Client, Game, Options
from cardproof.errors import CardproofError
from cardproof.games import SerpentPatience
from cardproof.games import variant as variant_class
from cardproof.games.grid import GridView
from cardproof.games.repeat_poker import RowsView
from cardproof.games.reserve_poker import ReserveView
from cardproof.games.solodrez import SoloDrez, SoloDrezView
from cardproof.models import View
from cardproof.play.grid import GridPlay
from cardproof.play.repeat import RepeatPlay
from cardproof.play.reserve import ReservePlay
from cardproof.play.shared import PLAYABLE, Session, Terminal, show_receipt
from cardproof.play.solodrez import SoloDrezPlay
from cardproof.words import plural, printable


def session_for(game: Game[View], term: Terminal) -> Session:
    """The session that draws ``game``'s kind of view."""
    if isinstance(game.visible, SoloDrezView):
        return SoloDrezPlay(game, term)
    if isinstance(game.visible, RowsView):
        return RepeatPlay(game, term)
    if isinstance(game.visible, ReserveView):
        return ReservePlay(game, term)
    return GridPlay(game, term)


def run(
    client: Client,
    variant: str,
    *,
    input: TextIO | None = None,
    output: TextIO | None = None,
    client_seed: str | None = None,
    options: Options = None,
    server_url: str | None = None,
    receipt_out: str | Path | None = None,
    color: bool | None = None,
) -> int:
    """Play one game of ``variant`` through ``client``, reading moves from ``input``.

    ``server_url`` names the server in the hint on checking the receipt; ``None`` means
    an embedded server (:func:`embedded_client`), whose throwaway key set is printed
    instead. The receipt (the compact JWS) is written to ``receipt_out``, by default
    ``receipt-<deal id>.jws`` in the current directory (with an embedded server, its key
    set beside it, ``receipt-<deal id>.keys.json``).
    ``color`` is automatic when ``None`` (on for a terminal, off under ``NO_COLOR``).
    ``input`` and ``output`` are standard input and output when ``None`` (the streams
    :mod:`sys` holds when the game starts, not when this module was imported).

    Returns 0 when the game ended scored and its receipt was shown; 1 when the player
    quit (``q``, or the end of the input) or a serpent path reached a dead end, so there
    is no receipt; 2 when the server could not be used (unreachable, refused the deal).
    """
    term = Terminal(input or sys.stdin, output or sys.stdout, color)
    if variant not in PLAYABLE:
        named = json.dumps(variant, ensure_ascii=False)
        term.say(f"cardproof play knows {', '.join(PLAYABLE)}; not {named}")
        return 2
    try:
        game = client.deal(variant, options, client_seed=client_seed)
        session = session_for(game, term)
    except CardproofError as error:
        term.say(f"cannot open a deal: {printable(str(error))}")
        return 2
    state = game.state
    title = variant_class(variant).title
    table = f", table {session.table.name}" if session.table is not None else ""
    term.say(f"cardproof play: {title} ({variant}){table}")
    committed = (
        "the server committed to its seed before it saw yours"
        if state.committed_before_client_seed
        else "not committed before your seed"
    )
    term.say(
        f"Deal {printable(state.deal_id)}: server seed hash "
        f"{printable(state.server_seed_hash[:16])}...,"
    )
    seed = printable(json.dumps(state.client_seed, ensure_ascii=False))
    term.paragraph(f"your seed {seed} ({committed})", indent="  ")
    term.say("Type ? for help, q to quit.")
    try:
        finished = session.loop()
    except KeyboardInterrupt:
        term.say()
        finished = False
    except CardproofError as error:
        term.say(f"the server failed: {printable(str(error))}")
        term.say(f"(deal {printable(game.deal_id)}, next move {game.next_index})")
        return 2
    if not finished:
        played = plural(game.next_index, "move" if variant == SoloDrez.id else "card")
        term.say(f"Quit: deal {printable(game.deal_id)} is left unfinished after {played};")
        term.say("  an unfinished game has no receipt.")
        return 1
    session.final()
    if variant == SerpentPatience.id:
        _show_par(client, game, term)
    if game.score is None:
        term.say()
        term.paragraph(session.unscored_text())
        return 1
    return show_receipt(client, game, term, server_url, receipt_out)


def _show_par(client: Client, game: Game[View], term: Terminal) -> None:
    """Serpent's par: the deal's exact best score (the service's solver), beside the game's."""
    first = game.played.views.get(0)
    if not isinstance(first, GridView) or first.next is None:
        return
    try:
        best = client.solve(
            SerpentPatience.id, [first.next, *first.later], options=game.state.options
        )
    except CardproofError as error:
        term.say(f"Par unavailable: {printable(str(error))}")
        return
    yours = "unscored" if game.score is None else plural(game.score.total, "point")
    term.say(
        f"Par for this deal: {plural(best.score.total, 'point')}, the best possible (you: {yours})."
    )
