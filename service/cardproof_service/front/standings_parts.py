"""The standings page's parts: each table, grid and game log as HTML.

Plain string building, every value through :func:`html.escape`; :mod:`.pages` puts the
parts together into the page (and keeps it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any, Final
from urllib.parse import quote

from cardproof.cards import Card
from cardproof.games import (
    PokerPatience,
    PokerSquares,
    ReservePoker,
    ReserveView,
    SerpentPatience,
    replay_log,
)
from cardproof.models import (
    RoundCommitment,
    RoundPar,
    RoundStatus,
    StandingLine,
    Standings,
    Tournament,
)
from cardproof.tournaments import percent_of_par, round_deal
from cardproof_service.store import GameResult

GRID_VARIANTS: Final = frozenset(
    cls.id for cls in (PokerSquares, PokerPatience, SerpentPatience, ReservePoker)
)
"""The variants whose finished games the page draws as grids (the others show their log)."""
LOG_SHOWN: Final = 60
"""Moves of a log variant's game a page shows (the export has every log whole)."""
_SUITS: Final = {
    "C": ("\u2663", "black"),
    "D": ("\u2666", "red"),
    "H": ("\u2665", "red"),
    "S": ("\u2660", "black"),
}
"""Each suit letter's symbol and colour."""


def card_html(text: str | None) -> str:
    """One card as an HTML element (an empty cell for ``None``).

    >>> card_html("TH")
    '<span class="card red" data-card="TH">10<span class="suit">♥</span></span>'
    >>> card_html(None)
    '<span class="card empty" data-card=""></span>'
    """
    if text is None:
        return '<span class="card empty" data-card=""></span>'
    card = Card.parse(text)
    if card.is_joker:
        return f'<span class="card joker" data-card="{escape(card.text)}">JOKER</span>'
    rank, suit = card.text[0], card.text[1]
    symbol, colour = _SUITS[suit]
    label = "10" if rank == "T" else rank
    return (
        f'<span class="card {colour}" data-card="{escape(card.text)}">'
        f'{escape(label)}<span class="suit">{symbol}</span></span>'
    )


def grid_html(rows: Sequence[Sequence[str | None]]) -> str:
    """A grid of cards, rows top to bottom, five to a row."""
    cells = "".join(card_html(cell) for row in rows for cell in row)
    return f'<div class="grid">{cells}</div>'


def _finished_view(tournament: Tournament, result: GameResult) -> Any:
    """The final view of a finished game, replayed from the revealed seed of its round."""
    commitment = tournament.rounds[result.round - 1]
    if commitment.server_seed is None:  # only after the close, which reveals every seed
        raise ValueError("a game is drawn only once its round's seed is revealed")
    seed = bytes.fromhex(commitment.server_seed)
    options, cards = round_deal(tournament.variant, tournament.options, seed, tournament.salt)
    return replay_log(tournament.variant, cards, options, result.moves).visible()


def game_html(tournament: Tournament, result: GameResult, pars: dict[int, RoundPar]) -> str:
    """One finished game: its cards (a grid variant) or its log, its total, its share of par.

    Only a grid is replayed (25 moves at most, on a deck dealt once per round); a log
    variant's game (up to 10,000 solodrez moves) is shown as its log, never replayed.
    """
    if tournament.variant in GRID_VARIANTS:
        view = _finished_view(tournament, result)
        body = grid_html(view.grid if isinstance(view, ReserveView) else view.layout)
    else:
        body = _log_html(tournament, result.moves)
    percent = percent_of_par(result.total, pars.get(result.round))
    share = f" ({_percent(percent)} of par)" if percent is not None else ""
    return (
        f'<section class="game" data-player="{escape(result.player)}" '
        f'data-round="{result.round}" data-total="{result.total}">'
        f"<h3>{escape(result.player)}, round {result.round}: {result.total}{share}</h3>"
        f"{body}</section>"
    )


def _log_html(tournament: Tournament, moves: str) -> str:
    """A log variant's game: its first :data:`LOG_SHOWN` moves, and where the rest is.

    A log may hold 10,000 moves: shown whole, a page of 100 entrants of a long
    tournament would weigh hundreds of megabytes.
    """
    tokens = moves.split()
    if tournament.variant == "solodrez":  # columns counted 1 to 9, as on the play page
        shown = " &middot; ".join(escape(_solodrez_words(move)) for move in tokens[:LOG_SHOWN])
    else:
        shown = escape(" ".join(tokens[:LOG_SHOWN]))
    rest = ""
    if len(tokens) > LOG_SHOWN:
        export = f"/v1/tournaments/{quote(tournament.tournament_id)}/export"
        rest = (
            f' <span class="more">&hellip; and {len(tokens) - LOG_SHOWN:,} moves more '
            f"({len(tokens):,} in all: every log is in <code>{escape(export)}</code>)</span>"
        )
    return f'<p class="log" data-moves="{len(tokens)}"><code>{shown}</code>{rest}</p>'


def _solodrez_words(move: str) -> str:
    """A solodrez move of the API's log (columns 0 to 8) as people count columns, 1 to 9.

    >>> [_solodrez_words(m) for m in ("3:2>5", "r4", "stop", "0:1>8")]
    ['2 from column 4 to 6', 'remove column 5', 'stop', '1 from column 1 to 9']
    """
    run = re.fullmatch(r"([0-8]):([1-9][0-9]*)>([0-8])", move)
    if run:
        return f"{run[2]} from column {int(run[1]) + 1} to {int(run[3]) + 1}"
    removal = re.fullmatch(r"r([0-8])", move)
    return f"remove column {int(removal[1]) + 1}" if removal else move


def _percent(value: float | None) -> str:
    return "&ndash;" if value is None else f"{value:.1f}%"


def standings_html(lines: Sequence[StandingLine]) -> str:
    with_par = any(line.percent_of_par is not None for line in lines)
    rows = [
        f'<tr class="entrant" data-rank="{line.rank}" data-name="{escape(line.name)}" '
        f'data-total="{line.total}" data-games="{line.games_finished}"'
        + (f' data-percent="{line.percent_of_par}"' if line.percent_of_par is not None else "")
        + f'><td class="num">{line.rank}</td><td>{escape(line.name)}</td>'
        f'<td class="num">{line.total}</td><td class="num">{line.games_finished}</td>'
        + (f'<td class="num">{_percent(line.percent_of_par)}</td>' if with_par else "")
        + "</tr>"
        for line in lines
    ]
    if not rows:
        rows = ['<tr><td colspan="4">No finished games yet.</td></tr>']
    par_head = '<th class="num">% of par</th>' if with_par else ""
    return (
        '<table id="standings"><thead><tr><th class="num">Rank</th><th>Entrant</th>'
        f'<th class="num">Total</th><th class="num">Games finished</th>{par_head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def paging_html(tournament: Tournament, page: int, pages: int) -> str:
    """Links to the pages before and after this one, when the field takes more than one."""
    if pages == 1:
        return ""
    path = f"/tournaments/{quote(tournament.tournament_id)}"
    links = [f"Page {page} of {pages}"]
    if page > 1:
        links.insert(0, f'<a rel="prev" href="{path}?page={page - 1}">Previous</a>')
    if page < pages:
        links.append(f'<a rel="next" href="{path}?page={page + 1}">Next</a>')
    return f'<nav class="pages" id="pages">{" &middot; ".join(links)}</nav>'


def pars_html(standings: Standings) -> str:
    """Each closed round's par: the best score known, its bound, and whose game it is."""
    if not standings.pars and not standings.pars_pending:
        return ""
    rows = "".join(
        f'<tr class="par" data-round="{par.round}" data-score="{par.score}" '
        f'data-bound="{par.upper_bound}" data-optimal="{str(par.optimal).lower()}">'
        f'<td class="num">{par.round}</td><td class="num">{par.score}</td>'
        f'<td class="num">{par.upper_bound}</td>'
        f"<td>{'proven best' if par.optimal else 'best found'}"
        f"{' (earlier solver)' if par.method == 'earlier-solver' else ''}</td>"
        f"<td>{'the solver' if par.by == 'solver' else 'an entrant'}</td></tr>"
        for par in standings.pars
    )
    pending = (
        f'<p class="note" id="pars-pending">{standings.pars_pending} round'
        f"{'s are' if standings.pars_pending != 1 else ' is'} still being solved; this page "
        "shows them once they are.</p>"
        if standings.pars_pending
        else ""
    )
    table = (  # none while every round is still being solved: no empty table
        '<table id="pars"><thead><tr><th class="num">Round</th><th class="num">Par</th>'
        '<th class="num">Upper bound</th><th>Par is</th><th>Reached by</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        if standings.pars
        else ""
    )
    return (
        "<h2>Par</h2><p>Each round's par is the best score known for its deal (the solver's "
        "or an entrant's game), with the solver's proven upper bound; a game's share of par "
        f"is its total over its round's par.</p>{pending}{table}"
    )


def rounds_html(rounds: Iterable[RoundCommitment]) -> str:
    rows = []
    for commitment in rounds:
        seed = (
            f'<code class="seed">{escape(commitment.server_seed)}</code>'
            if commitment.server_seed is not None
            else "<em>revealed when the tournament closes</em>"
        )
        rows.append(
            f'<tr class="round" data-round="{commitment.round}">'
            f'<td class="num">{commitment.round}</td>'
            f"<td><code>{escape(commitment.server_seed_hash)}</code></td><td>{seed}</td></tr>"
        )
    return (
        '<table id="rounds"><thead><tr><th class="num">Round</th>'
        "<th>Server seed hash (committed at creation)</th><th>Server seed</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def calls_html(rounds: Sequence[RoundStatus]) -> str:
    """Each lockstep round: waiting, playing (its call, public as a dealer's), or finished."""
    rows = []
    for status in rounds:
        if status.status == "playing" and status.call is not None:
            card = card_html(status.card) if status.card else ""
            left = f"{status.seconds_left:.0f}" if status.seconds_left is not None else "?"
            where = (
                f'card <span class="call">{status.call + 1}</span> of {status.calls} called '
                f'{card} &middot; <span class="placed">{status.placed}</span> of '
                f"{status.seats} placed it &middot; deadline {escape(status.deadline or '')} "
                f'(<span class="left">{left}</span> s left)'
            )
        elif status.status == "waiting":
            starts = f", starts by itself at {escape(status.starts_at)}" if status.starts_at else ""
            where = f"waiting for its start &middot; {status.seats} seated{starts}"
        elif status.called == 0 and status.seats == 0:
            where = "finished &middot; nobody was seated, no card called"
        elif status.closed:
            where = (
                f"cut short by the tournament's close &middot; {status.seats} seated, "
                f"{status.called} of {status.calls} cards called (the rest of each game "
                "was placed for its player at the close)"
            )
        else:
            where = (
                f"finished &middot; {status.seats} seated, "
                f"{status.called} of {status.calls} cards called"
            )
        rows.append(
            f'<tr class="lockstep" data-round="{status.round}" data-status="{status.status}">'
            f'<td class="num">{status.round}</td><td>{where}</td></tr>'
        )
    return (
        '<table id="calls"><thead><tr><th class="num">Round</th><th>Where it stands</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def results_table(results: Sequence[GameResult]) -> str:
    rows = "".join(
        f'<tr class="result" data-player="{escape(r.player)}" data-round="{r.round}">'
        f'<td>{escape(r.player)}</td><td class="num">{r.round}</td>'
        f'<td class="num">{r.total}</td></tr>'
        for r in results
    )
    return (
        '<table id="results"><thead><tr><th>Entrant</th><th class="num">Round</th>'
        f'<th class="num">Total</th></tr></thead><tbody>{rows}</tbody></table>'
    )


__all__ = [
    "GRID_VARIANTS",
    "LOG_SHOWN",
    "calls_html",
    "card_html",
    "game_html",
    "grid_html",
    "paging_html",
    "pars_html",
    "results_table",
    "rounds_html",
    "standings_html",
]
