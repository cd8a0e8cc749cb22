"""The standings page: one self-contained HTML document per tournament.

Server-rendered by plain string building (every value through :func:`html.escape`),
with inline CSS, no script and no external asset but the site's icon; the site's header
(:func:`~cardproof_service.front.site.site_header`) on top. Until the gate shows a tournament's
logs (its close) the page refreshes itself with totals only: every entrant is dealt the
same cards, so a finished grid would show a round's deal to those yet to play it. Then
it shows the revealed round seeds and each finished game drawn from its move log.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Final
from urllib.parse import quote

import msgspec

from cardproof.models import (
    RoundStatus,
    Standings,
    Tournament,
)
from cardproof_service.deals import Gate
from cardproof_service.front.site import FAVICON_LINK, HEADER_STYLE, site_header
from cardproof_service.front.standings_parts import (
    calls_html,
    card_html,
    game_html,
    grid_html,
    paging_html,
    pars_html,
    results_table,
    rounds_html,
    standings_html,
)
from cardproof_service.plumbing import not_found
from cardproof_service.store import GameResult
from cardproof_service.tournaments import Access, Scoreboard, Tournaments

PAGE_SIZE: Final = 100
"""Entrants a page lists, with their games: a large field is paged."""
KEPT_BYTES: Final = 64 * 1024 * 1024
"""What the pages of settled tournaments a process keeps may weigh in all (least recently
read go first; a page heavier than that is drawn each time)."""
REFRESH_SECONDS: Final = 15
"""How often an open (or scheduled) tournament's page reloads itself."""
LIVE_REFRESH_SECONDS: Final = 2
"""How often it reloads while a lockstep round is being played (its calls are live)."""

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
"""The page needs nothing but its inline style and the site's icon: no script, font, frame."""

_STYLE: Final = """
body { font: 15px/1.45 system-ui, "DejaVu Sans", sans-serif; margin: 0; background: #f4f1ea;
  color: #1d1d1b; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { margin: 0 0 4px; font-size: 26px; }
h2 { margin: 28px 0 10px; font-size: 19px; border-bottom: 2px solid #d8d2c4; }
.meta { color: #5b5a55; margin: 0 0 6px; }
.status { display: inline-block; padding: 1px 9px; border-radius: 10px; font-weight: 600;
  font-size: 13px; text-transform: uppercase; letter-spacing: .04em; }
.status-open { background: #d5f0d8; color: #14621f; }
.status-scheduled { background: #fbefc6; color: #735c00; }
.status-closed { background: #e2e0f5; color: #3a3380; }
.note { background: #fffbe9; border-left: 4px solid #e0b400; padding: 8px 12px; }
table { border-collapse: collapse; background: #fff; }
th, td { padding: 5px 12px; text-align: left; border-bottom: 1px solid #e5e1d6; }
th { background: #ebe6da; font-size: 13px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px/1.3 ui-monospace, "DejaVu Sans Mono", monospace; word-break: break-all; }
code.command { word-break: normal; overflow-wrap: normal; }
main a { color: #1c4f8a; }
main a:focus-visible { outline: 3px solid #b35c00; outline-offset: 2px; }
.games { display: flex; flex-wrap: wrap; gap: 18px; }
.game { background: #fff; border: 1px solid #d8d2c4; border-radius: 8px; padding: 10px; }
.game h3 { margin: 0 0 8px; font-size: 15px; }
.grid { display: grid; grid-template-columns: repeat(5, 38px); gap: 4px; }
.card { width: 38px; height: 52px; border-radius: 5px; border: 1px solid #a9a397;
  background: #fff; display: flex; flex-direction: column; align-items: center;
  justify-content: center; font-weight: 700; font-size: 15px; line-height: 1.05;
  box-shadow: 0 1px 1px rgba(0, 0, 0, .12); }
.card .suit { font-size: 17px; }
.card.red { color: #c1121f; }
.card.black { color: #1d1d1b; }
.card.joker { color: #6a2c91; font-size: 12px; }
.card.empty { background: #efece4; border-style: dashed; box-shadow: none; }
.log { max-width: 260px; }
footer { margin-top: 32px; color: #77746c; font-size: 13px; }
"""


def render(
    tournament: Tournament,
    standings: Standings,
    results: Sequence[GameResult],
    rounds: Sequence[RoundStatus] = (),
    *,
    page: int = 1,
    pages: int = 1,
) -> str:
    """A page of ``tournament``: ``standings`` lists its entrants, ``results`` their games.

    ``rounds``: a lockstep tournament's rounds as they stand; while one is being played
    the page reloads every :data:`LIVE_REFRESH_SECONDS`, to follow its calls. ``page``
    of ``pages``: links to the pages before and after it.
    """
    closed = tournament.status == "closed"
    live = any(status.status == "playing" for status in rounds)
    every = LIVE_REFRESH_SECONDS if live else REFRESH_SECONDS
    settled = closed and not standings.pars_pending  # pars still solving: reload to show them
    refresh = "" if settled else f'<meta http-equiv="refresh" content="{every}">'
    calls = ""
    if rounds:  # live only while a round is played: never once the tournament is closed
        heading = "Rounds, live" if live and not closed else "Rounds"
        was, had = ("was", "had") if closed else ("is", "have")
        calls = (
            f"<h2>{heading}</h2><p>Lockstep: each card {was} called to every seat at once, when "
            f"all {had} placed the one before or its {tournament.card_seconds} s deadline "
            "passed.</p>" + calls_html(rounds)
        )
    options = ", ".join(
        f"{k}: {msgspec.json.encode(v).decode()}" for k, v in sorted(tournament.options.items())
    )
    pars = {par.round: par for par in standings.pars}
    if closed:
        games = (
            '<div class="games" id="games">'
            + "".join(game_html(tournament, r, pars) for r in results)
            + "</div>"
            if results
            else "<p>No game was finished.</p>"
        )
        games_note = (
            "<p>Each game is replayed from its move log on the deck of its round, dealt "
            "from the revealed seed and the salt.</p>"
        )
    else:
        games = results_table(results) if results else "<p>No finished games yet.</p>"
        games_note = (
            '<p class="note" id="grids-hidden">Finished grids are shown once the tournament '
            "closes: every entrant is dealt the same cards, so a finished grid would show a "
            "round's deal to entrants who have not played it yet. Totals only until then; "
            f"this page refreshes every {every} seconds.</p>"
        )
    closed_line = f" &middot; closed {escape(tournament.closed_at)}" if tournament.closed_at else ""
    play_words = (
        "Every grid, round by round, in your browser"
        if tournament.status == "closed"
        else "Enter, or play your rounds, in your browser"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{refresh}<title>{escape(tournament.name)}: standings · cardproof</title>"
        f"{FAVICON_LINK}<style>{_STYLE}{HEADER_STYLE}</style></head><body>{site_header()}<main>"
        f'<h1 id="name">{escape(tournament.name)}</h1>'
        f'<p class="meta"><span class="status status-{escape(tournament.status)}" '
        f'id="status">{escape(tournament.status)}</span> &middot; '
        f"{escape(tournament.variant)} ({escape(options)}) &middot; "
        f"{len(tournament.rounds)} round{'s' if len(tournament.rounds) != 1 else ''} &middot; "
        f"organized by {escape(tournament.organizer)}</p>"
        f'<p class="meta">Opens {escape(tournament.opens_at)} &middot; closes '
        f"{escape(tournament.closes_at)}{closed_line} &middot; salt "
        f"<code>{escape(tournament.salt)}</code> &middot; {escape(tournament.algorithm)}</p>"
        f'<p class="meta"><a id="play" href="/play?tournament={quote(tournament.tournament_id)}">'
        f"{play_words}</a></p>"
        f"<h2>Standings</h2>{standings_html(standings.entrants)}"
        f"{paging_html(tournament, page, pages)}{pars_html(standings)}{calls}"
        f"<h2>Games</h2>{games_note}{games}"
        f"<h2>Round commitments</h2>{rounds_html(tournament.rounds)}"
        f"<footer>Tournament <code>{escape(tournament.tournament_id)}</code>: the same data "
        f"as <code>/v1/tournaments/{escape(tournament.tournament_id)}</code> and its "
        "<code>/standings</code>.</footer>"
        "</main></body></html>\n"
    )


GATE_POLICY: Final = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The invite-only gate (:func:`invite_gate`): the standings page's inline style, and one
script of this origin that reads the page again with the reader's credential."""


def invite_gate(tournament_id: str) -> str:
    """The standings page of an invite-only tournament, to a browser that sent no credential.

    A browser cannot send the ``X-Invite-Code`` or ``Authorization`` header a link does not
    carry: the page asks for the invite code or the entry's token (or finds the entry this
    browser made on ``/play``), and its script (``/static/web/standings.js``) reads the
    standings page with it and shows it in place. The credential stays in the browser:
    the entry's token where ``/play`` keeps it, a code given here in this tab only.
    """
    tid = escape(tournament_id)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>An invite-only tournament: standings · cardproof</title>"
        f"{FAVICON_LINK}<style>{_STYLE}{HEADER_STYLE}{_GATE_STYLE}</style>"
        '<script type="module" src="/static/web/standings.js"></script></head>'
        f'<body>{site_header()}<main id="gate" data-tournament="{tid}">'
        "<h1>An invite-only tournament</h1>"
        "<p>Its standings are for its entrants and those invited. Give the invite code you "
        "were sent, or your entry's token (<code>cpe_...</code>: "
        '<code class="command">cardproof tournament enter</code> keeps it in its entry file). '
        "Entered on this "
        "browser's "
        f'<a href="/play?tournament={quote(tournament_id)}">tournament page</a>? The '
        "standings open by themselves.</p>"
        '<p class="gate-form"><label for="credential">Invite code or entry token</label> '
        '<input id="credential" autocomplete="off" spellcheck="false" maxlength="200"> '
        '<button type="button" id="open">Show the standings</button></p>'
        '<p id="said" role="status"></p>'
        f"<footer>Tournament <code>{tid}</code>.</footer>"
        "</main></body></html>\n"
    )


_GATE_STYLE: Final = """
.gate-form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.gate-form label { font-weight: 600; }
.gate-form input { font: inherit; padding: 5px 7px; border: 1px solid #77736a; border-radius: 4px;
  min-width: 0; flex: 1 1 220px; }
.gate-form button { font: inherit; background: #1c4f8a; color: #fff; border: 0; border-radius: 5px;
  padding: 7px 14px; cursor: pointer; }
#said { color: #a1101a; font-weight: 600; }
#said:empty { display: none; }
"""


@dataclass(frozen=True, slots=True)
class Kept:
    """A rendered page, with the state it was rendered from (its fingerprint)."""

    html: str
    fingerprint: bytes
    settled: bool
    """Rendered once the tournament was settled: it can no longer change."""


class StandingsPages:
    """The standings pages of this process; one per app.

    A page lists :data:`PAGE_SIZE` entrants and their games (``?page=N``). Each page is
    kept with the state it was drawn from (the tournament, the page's standings lines
    and the rounds as they stood): a view whose state is the same is answered with it,
    no rendering and no replay. Once a tournament is settled (closed, every par known)
    its pages cannot change: a view reads no more than the tournament and its standings.
    Pages weigh :data:`KEPT_BYTES` in all at most (least recently read go first). Who
    may read is checked on every view all the same.
    """

    def __init__(self) -> None:
        """No page kept yet."""
        self._kept: OrderedDict[tuple[str, int], Kept] = OrderedDict()
        self._weight = 0  # the characters of the pages kept

    async def page(
        self,
        tournaments: Tournaments,
        scoreboard: Scoreboard,
        tournament_id: str,
        access: Access,
        number: int = 1,
    ) -> str:
        """Page ``number`` of a tournament the caller may read (404 past the last)."""
        tournament = await tournaments.read(tournament_id, access)
        standings = await scoreboard.standings(tournament_id, access)
        settled = tournament.status == "closed" and not standings.pars_pending
        key = (tournament_id, number)
        kept = self._kept.get(key)
        if kept is not None and settled and kept.settled:
            self._kept.move_to_end(key)
            return kept.html
        pages = max(1, -(-len(standings.entrants) // PAGE_SIZE))
        if not 1 <= number <= pages:
            raise not_found(f"page: this tournament's standings have {pages} page(s)", "no-page")
        lines = standings.entrants[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
        listed = msgspec.structs.replace(standings, entrants=lines)
        statuses = await tournaments.round_statuses(tournament_id, access)
        fingerprint = _ENCODER.encode((tournament, listed, statuses, pages))
        if kept is not None and kept.fingerprint == fingerprint:
            self._kept.move_to_end(key)
            return kept.html
        rounds = range(1, len(tournament.rounds) + 1)
        wanted = [(line.name, n) for line in lines for n in rounds]
        place = {line.name: index for index, line in enumerate(lines)}
        shown = Gate.logs_shown(await tournaments.store.get_tournament(tournament_id))
        results = sorted(
            await tournaments.store.results(tournament_id, wanted) if wanted else [],
            key=lambda r: (place.get(r.player, len(place)), r.player, r.round),
        )
        results = results if shown else [msgspec.structs.replace(r, moves="") for r in results]
        # a closed tournament's grids are drawn here: CPU work, kept off the event loop
        html = await asyncio.to_thread(
            render, tournament, listed, results, statuses, page=number, pages=pages
        )
        self._keep(key, Kept(html, fingerprint, settled))
        return html

    def _keep(self, key: tuple[str, int], kept: Kept) -> None:
        """Keep a page (in place of the one it renews), within :data:`KEPT_BYTES`."""
        if len(kept.html) > KEPT_BYTES:
            return
        old = self._kept.pop(key, None)
        if old is not None:
            self._weight -= len(old.html)
        self._kept[key] = kept
        self._weight += len(kept.html)
        while self._weight > KEPT_BYTES:
            self._weight -= len(self._kept.popitem(last=False)[1].html)


_ENCODER: Final = msgspec.msgpack.Encoder()
"""Encodes a page's state into its fingerprint."""


__all__ = [
    "CONTENT_SECURITY_POLICY",
    "GATE_POLICY",
    "Kept",
    "StandingsPages",
    "card_html",
    "grid_html",
    "invite_gate",
    "render",
]
