"""The standings page ``GET /tournaments/{id}``: in-process checks, then headless Chromium.

The browser test drives Debian's ``/usr/bin/chromium`` (``make browser`` installs it)
through Playwright against a real ``cardproof serve`` process. Without Chromium it is
skipped, or fails when a browser is required (``CI``, ``REQUIRE_BROWSER`` or
``REQUIRE_REDIS=1``, which ``.ci/run`` sets).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.front.pages as pages_module
import cardproof_service.front.standings_parts as parts_module
import cardproof_service.tournaments.standings as standings_module
from cardproof.games import variant
from cardproof.models import StandingLine, Standings, Tournament
from cardproof_service.deals.commitments import round_commitment_id
from cardproof_service.deals.service import Deals
from cardproof_service.front.pages import GATE_POLICY, render
from cardproof_service.store import GameResult
from conftest import CHROMIUM_ARGS, chromium_or_skip, organizer_key, served
from test_tournaments_api import (
    _READERS,
    CELLS,
    keep_codes,
    new_tournament,
    open_tournament,
    play_lockstep,
    reader,
)

HttpClient = TestClient[Litestar]

ROUND_ORDERS = {1: CELLS, 2: CELLS[::-1], 3: CELLS[5:] + CELLS[:5]}
"""The cells each round is played in: every entrant plays a round the same way."""
ROUNDS_PLAYED = {"Ada": 1, "Bea": 3, "Cy": 2}
"""Rounds 1..n per entrant: totals Bea >= Cy >= Ada, unlike the order of entry."""


@pytest.fixture(scope="module")
def owner(app: Litestar) -> str:
    return organizer_key(app, "Page Club")


@pytest.fixture(scope="module")
def rival(app: Litestar) -> str:
    return organizer_key(app, "Other Page Club")


def played(http: httpx.Client | HttpClient, owner: str, **changes: Any) -> str:
    """A public lockstep tournament whose entrants finished ``ROUNDS_PLAYED`` rounds.

    Round n is played by those who play n rounds or more, in ``ROUND_ORDERS[n]``.
    """
    body = new_tournament(format="lockstep", entry="public", **changes)
    created = http.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    tid: str = created.json()["tournament"]["tournament_id"]
    tokens = {}
    for name in ROUNDS_PLAYED:
        entry = http.post(f"/v1/tournaments/{tid}/entries", json={"name": name})
        assert entry.status_code == 201, entry.text
        tokens[name] = entry.json()["token"]
    for round_number in range(1, max(ROUNDS_PLAYED.values()) + 1):
        plays = {
            tokens[name]: ROUND_ORDERS[round_number]
            for name, rounds in ROUNDS_PLAYED.items()
            if rounds >= round_number
        }
        answers = play_lockstep(http, owner, tid, round_number, plays)
        assert all(answer["finished"] for answer in answers.values())
    return tid


def page_rows(page: str) -> list[tuple[int, str, int, int]]:
    """The standings rows of a page: (rank, name, total, games) from their data- attributes."""
    pattern = (
        r'<tr class="entrant" data-rank="(\d+)" data-name="([^"]*)" '
        r'data-total="(-?\d+)" data-games="(\d+)"[ >]'
    )
    return [(int(r), n, int(t), int(g)) for r, n, t, g in re.findall(pattern, page)]


def api_rows(http: httpx.Client | HttpClient, tid: str) -> list[tuple[int, str, int, int]]:
    answer = http.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid))
    assert answer.status_code == 200, answer.text
    return [
        (e["rank"], e["name"], e["total"], e["games_finished"]) for e in answer.json()["entrants"]
    ]


def assert_best_first(rows: list[tuple[int, str, int, int]]) -> None:
    """Bea (3 rounds) >= Cy (2) >= Ada (1): a round scoring 0 (rare) would tie two of them."""
    totals = {name: total for _, name, total, _ in rows}
    assert totals["Bea"] >= totals["Cy"] >= totals["Ada"]
    assert [total for _, _, total, _ in rows] == sorted(totals.values(), reverse=True)
    assert {name: games for _, name, _, games in rows} == ROUNDS_PLAYED


def wait_for_pars(http: Any, tid: str) -> dict[str, Any]:
    """The standings once every round's par is solved (in the background after the close)."""
    deadline = time.monotonic() + 60
    while True:
        standings: dict[str, Any] = http.get(
            f"/v1/tournaments/{tid}/standings", headers=reader(tid)
        ).json()
        if "pars_pending" not in standings:
            return standings
        assert time.monotonic() < deadline, standings
        time.sleep(0.1)


def seeds(deals: Deals, tid: str, rounds: int = 3) -> list[str]:
    return [deals.server_seed(round_commitment_id(tid, n)).hex() for n in range(1, rounds + 1)]


# --- in process ----------------------------------------------------------------------------


def test_an_open_tournament_shows_standings_and_totals_but_no_grids(
    app: Litestar, client: HttpClient, owner: str
) -> None:
    tid = played(client, owner)
    answer = client.get(f"/tournaments/{tid}", headers=reader(tid))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["referrer-policy"] == "no-referrer"  # its address names it
    page = answer.text
    rows = page_rows(page)
    assert rows == api_rows(client, tid)
    assert_best_first(rows)
    assert '<meta http-equiv="refresh" content="15">' in page
    assert 'id="grids-hidden"' in page
    assert 'class="card' not in page  # a finished grid would show the round's deal
    assert page.count('<tr class="result"') == sum(ROUNDS_PLAYED.values())
    deals: Deals = app.state.deals
    assert not any(seed in page for seed in seeds(deals, tid))
    for commitment in client.get(f"/v1/tournaments/{tid}", headers=reader(tid)).json()["rounds"]:
        assert commitment["server_seed_hash"] in page
    assert "<script" not in page
    assert "http://" not in page
    assert "https://" not in page


def test_a_closed_tournament_shows_its_seeds_and_every_finished_grid(
    app: Litestar, client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # pars solved at the close
    tid = played(client, owner)
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    pending = client.get(f"/tournaments/{tid}", headers=reader(tid)).text
    if 'id="pars-pending"' in pending:  # the pars are solved after the close: reload till then
        assert 'http-equiv="refresh"' in pending
    standings = wait_for_pars(client, tid)
    page = client.get(f"/tournaments/{tid}", headers=reader(tid)).text
    assert page_rows(page) == api_rows(client, tid)
    deals: Deals = app.state.deals
    assert all(seed in page for seed in seeds(deals, tid))
    assert 'http-equiv="refresh"' not in page
    pars = re.findall(r'<tr class="par" data-round="(\d)" data-score="(-?\d+)"', page)
    assert pars == [(str(p["round"]), str(p["score"])) for p in standings["pars"]]
    percents = re.findall(r'data-name="([^"]+)"[^>]*data-percent="([\d.]+)"', page)
    assert percents == [(e["name"], str(e["percent_of_par"])) for e in standings["entrants"]]
    assert page.count("% of par)</h3>") == sum(ROUNDS_PLAYED.values())
    assert 'id="grids-hidden"' not in page
    games = sum(ROUNDS_PLAYED.values())
    assert page.count('<section class="game"') == games
    cards = re.findall(r'class="card (?:red|black|joker)" data-card="(\w\w)"', page)
    assert len(cards) == 25 * games
    assert 'class="card empty"' not in page
    # every entrant's round 1 is the same deal played the same way: the same 25 cards
    assert cards[:25] == cards[75:100] == cards[125:150]
    assert len(set(cards[:25])) == 25


def shown_words(page: str) -> str:
    """The page's text as a person reads it: tags, and their attributes, left out."""
    return re.sub(r"<[^>]*>", " ", re.sub(r"<style>.*?</style>", " ", page, flags=re.DOTALL))


def test_live_is_said_only_while_a_round_is_being_played(
    client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Open and playing: "Rounds, live"; open and between rounds, closed, settled: never."""
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # pars solved at the close
    live = re.compile(r"\blive\b", re.IGNORECASE)
    between = played(client, owner)  # every round played to its end, still open
    page = client.get(f"/tournaments/{between}", headers=reader(between)).text
    assert "<h2>Rounds</h2>" in page
    assert not live.search(shown_words(page))
    body = new_tournament(format="lockstep", entry="public")
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    tid = created.json()["tournament"]["tournament_id"]
    entry = client.post(f"/v1/tournaments/{tid}/entries", json={"name": "Ada"})
    play_lockstep(client, owner, tid, 1, {entry.json()["token"]: CELLS[:3]})  # 3 of 25 placed
    playing = client.get(f"/tournaments/{tid}").text
    assert "<h2>Rounds, live</h2>" in playing
    assert '<meta http-equiv="refresh" content="2">' in playing
    for closing in (tid, between):
        closed = client.post(
            f"/v1/tournaments/{closing}/close", json={}, headers={"Authorization": owner}
        )
        assert closed.status_code == 200, closed.text
        first = client.get(f"/tournaments/{closing}", headers=reader(closing)).text
        wait_for_pars(client, closing)
        settled = client.get(f"/tournaments/{closing}", headers=reader(closing)).text
        for page in (first, settled):  # closed (pars perhaps pending), then settled
            assert 'id="status">closed<' in page
            assert "<h2>Rounds</h2>" in page
            assert "each card was called" in page
            assert not live.search(shown_words(page)), live.search(shown_words(page))


def test_a_settled_page_is_drawn_once_and_a_large_field_is_paged(
    client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # pars solved at the close
    monkeypatch.setattr(pages_module, "PAGE_SIZE", 2)  # three entrants: two pages
    tid = played(client, owner)
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    wait_for_pars(client, tid)
    first = client.get(f"/tournaments/{tid}", headers=reader(tid))
    second = client.get(f"/tournaments/{tid}?page=2", headers=reader(tid))
    assert (first.status_code, second.status_code) == (200, 200)
    rows = api_rows(client, tid)
    assert page_rows(first.text) == rows[:2]
    assert page_rows(second.text) == rows[2:]
    assert 'rel="next" href="/tournaments/' in first.text
    assert 'rel="prev"' not in first.text
    assert 'rel="prev" href="/tournaments/' in second.text
    assert 'rel="next"' not in second.text
    for page, lines in ((first.text, rows[:2]), (second.text, rows[2:])):
        assert page.count('<section class="game"') == sum(ROUNDS_PLAYED[line[1]] for line in lines)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a settled page was drawn again")

    monkeypatch.setattr(pages_module, "render", never)  # kept: no drawing, no replay
    monkeypatch.setattr(parts_module, "replay_log", never)
    assert client.get(f"/tournaments/{tid}", headers=reader(tid)).text == first.text
    assert client.get(f"/tournaments/{tid}?page=2", headers=reader(tid)).text == second.text
    past = client.get(f"/tournaments/{tid}?page=3", headers=reader(tid))
    assert (past.status_code, past.json()["code"]) == (404, "no-page")
    refused = client.get(f"/tournaments/{tid}?page=0", headers=reader(tid))
    assert refused.status_code == 400
    assert refused.json()["field"] == "page"  # the field as the address names it
    assert refused.json()["detail"].startswith("page: ")
    hidden = open_tournament(client, owner, entry="invite")["tournament"]["tournament_id"]
    assert client.get(f"/tournaments/{hidden}").status_code == 401  # access checked each time


def test_the_pages_kept_weigh_at_most_their_budget(
    app: Litestar, client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    monkeypatch.setattr(pages_module, "PAGE_SIZE", 2)
    tid = played(client, owner)
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    wait_for_pars(client, tid)
    drawn: list[int] = []
    draw = pages_module.render

    def counted(*args: Any, **kwargs: Any) -> str:
        drawn.append(kwargs["page"])
        return draw(*args, **kwargs)

    monkeypatch.setattr(pages_module, "render", counted)
    first = client.get(f"/tournaments/{tid}", headers=reader(tid)).text
    monkeypatch.setattr(pages_module, "KEPT_BYTES", len(first) + 10)  # room for one page
    for number in (1, 1, 2, 2, 1):
        assert (
            client.get(f"/tournaments/{tid}?page={number}", headers=reader(tid)).status_code == 200
        )
    assert drawn == [1, 2, 1]  # page 2 pushed page 1 out; each kept page drawn once
    kept: pages_module.StandingsPages = app.state.standings_pages
    assert sum(len(page.html) for page in kept._kept.values()) <= len(first) + 10


def test_an_open_page_is_drawn_once_per_state_of_the_tournament(
    client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Views of an unchanged tournament reuse its page; an entrant more draws it again."""
    body = new_tournament(format="lockstep", entry="public")
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    tid = created.json()["tournament"]["tournament_id"]
    drawn: list[int] = []
    draw = pages_module.render

    def counted(*args: Any, **kwargs: Any) -> str:
        drawn.append(kwargs["page"])
        return draw(*args, **kwargs)

    monkeypatch.setattr(pages_module, "render", counted)
    assert client.post(f"/v1/tournaments/{tid}/entries", json={"name": "Ada"}).status_code == 201
    first = client.get(f"/tournaments/{tid}").text
    assert client.get(f"/tournaments/{tid}").text == first
    assert drawn == [1]
    assert client.post(f"/v1/tournaments/{tid}/entries", json={"name": "Bea"}).status_code == 201
    again = client.get(f"/tournaments/{tid}").text
    assert drawn == [1, 1]
    assert [row[1] for row in page_rows(again)] == ["Ada", "Bea"]
    assert [row[1] for row in page_rows(first)] == ["Ada"]


def test_names_are_escaped(client: HttpClient, owner: str) -> None:
    body = new_tournament(name='<b onmouseover="x">Bold</b> & co', format="lockstep")
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    tid = created.json()["tournament"]["tournament_id"]
    name = '<script>alert("hi")</script>'
    entry = client.post(
        f"/v1/tournaments/{tid}/entries",
        json={"name": name, "invite_code": created.json()["invite_codes"][0]},
    )
    assert entry.status_code == 201, entry.text
    play_lockstep(client, owner, tid, 1, {entry.json()["token"]: ROUND_ORDERS[1]})
    _READERS[tid] = created.json()["invite_codes"][1]
    page = client.get(f"/tournaments/{tid}", headers=reader(tid)).text
    assert "<script" not in page
    assert "<b " not in page
    assert "&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt;" in page
    assert "&lt;b onmouseover=&quot;x&quot;&gt;Bold&lt;/b&gt; &amp; co" in page
    [(_, api_name, total, _)] = api_rows(client, tid)
    assert api_name == name
    assert page_rows(page) == [(1, escape(name), total, 1)]


def test_an_unknown_tournament_is_a_404_problem(client: HttpClient) -> None:
    answer = client.get("/tournaments/t_nothing")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "unknown-tournament"


def test_an_invite_only_page_is_its_organizers_like_the_api(
    client: HttpClient, owner: str, rival: str
) -> None:
    tid = open_tournament(client, owner, entry="invite")["tournament"]["tournament_id"]
    for url in (f"/tournaments/{tid}", f"/v1/tournaments/{tid}"):
        anonymous = client.get(url)
        assert anonymous.status_code == 401, url
        assert anonymous.headers["www-authenticate"].startswith("Bearer")
        other = client.get(url, headers={"Authorization": rival})
        assert (other.status_code, other.json()["code"]) == (403, "not-your-tournament")
        assert client.get(url, headers={"Authorization": owner}).status_code == 200
    # a browser following the link sends no header: the page asks for the code or the entry
    gate = client.get(f"/tournaments/{tid}", headers={"Accept": "text/html"})
    assert gate.status_code == 401
    assert gate.headers["content-type"].startswith("text/html")
    assert gate.headers["content-security-policy"] == GATE_POLICY
    assert "Invite code or entry token" in gate.text
    assert '<script type="module" src="/static/web/standings.js">' in gate.text
    assert client.get("/static/web/standings.js").status_code == 200
    api = client.get(f"/v1/tournaments/{tid}", headers={"Accept": "text/html"})
    assert api.headers["content-type"] == "application/problem+json"  # the API is the API


def test_the_page_is_not_in_the_api_schema(client: HttpClient) -> None:
    paths = client.get("/schema/openapi.json").json()["paths"]
    assert not any(path.startswith("/tournaments") for path in paths)


def test_a_variant_without_a_grid_shows_its_log(
    client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = new_tournament(variant="repeat-poker", options={}, rounds=1)
    created = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert created.status_code == 201, created.text
    keep_codes(created.json())
    tid = created.json()["tournament"]["tournament_id"]
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    tournament = msgspec.convert(
        client.get(f"/v1/tournaments/{tid}", headers=reader(tid)).json(), Tournament
    )
    seed = bytes.fromhex(tournament.rounds[0].server_seed or "")
    cls = variant(tournament.variant)
    options = cls.resolve_options(cls.parse_options(tournament.options), seed, tournament.salt)
    game = cls.new(cls.deal_cards(seed, tournament.salt, options), options)
    while not game.is_over():
        game.play(game.legal_moves()[0])
    total = game.score().total
    result = GameResult("Ada", 1, "d_x", total, 0, game.log_text(), True)
    standings = Standings(tid, "closed", 1, [StandingLine(1, "Ada", total, 1)])

    def no_replay(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a log variant's game was replayed to draw the page")

    monkeypatch.setattr(parts_module, "replay_log", no_replay)
    page = render(tournament, standings, [result])
    assert 'class="card' not in page
    tokens = game.log_text().split()
    shown = " ".join(tokens[: parts_module.LOG_SHOWN])
    assert f'<p class="log" data-moves="{len(tokens)}"><code>{shown}</code>' in page
    assert f"Ada, round 1: {total}</h3>" in page
    monkeypatch.setattr(parts_module, "LOG_SHOWN", 5)  # a long log: its first moves, then where
    page = render(tournament, standings, [result])
    assert f"<code>{' '.join(tokens[:5])}</code>" in page
    assert f"and {len(tokens) - 5:,} moves more ({len(tokens):,} in all" in page
    assert f"/v1/tournaments/{tid}/export" in page
    # a solodrez log counts its columns 1 to 9, as the play page does (the API's from 0)
    solodrez = msgspec.structs.replace(tournament, variant="solodrez")
    logged = msgspec.structs.replace(result, moves="3:2>5 r4 0:1>8 stop")
    drawn = render(solodrez, standings, [logged])
    shown = "2 from column 4 to 6 &middot; remove column 5 &middot; 1 from column 1 to 9"
    assert f"<code>{shown} &middot; stop</code>" in drawn
    assert "3:2&gt;5" not in drawn
    # pars still being solved, none known: the note, and no empty table under it
    solving = render(tournament, msgspec.structs.replace(standings, pars_pending=1), [result])
    assert 'id="pars-pending"' in solving
    assert 'id="pars"' not in solving


# --- in headless Chromium --------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A ``cardproof serve`` process on the memory store and an organizer key for it."""
    organizers = tmp_path / "organizers.json"
    env = {"CARDPROOF_ORGANIZERS_FILE": str(organizers), "REDIS_URL": ""}
    with served("--log-level", "warning", env=env) as base_url:
        clean = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        made = subprocess.run(
            [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create", "Club"],
            capture_output=True,
            text=True,
            env={**clean, **env},
            timeout=60,
            check=False,
        )
        assert made.returncode == 0, made.stderr
        yield base_url, f"Bearer {made.stdout.strip()}"


def test_the_page_in_headless_chromium(server: tuple[str, str], tmp_path: Path) -> None:
    executable = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    base_url, owner = server
    started = time.monotonic()
    with httpx.Client(base_url=base_url, timeout=10) as http:
        tid = played(http, owner)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1200, "height": 900})
                loaded = page.goto(f"{base_url}/tournaments/{tid}")
                assert loaded is not None
                assert loaded.status == 200
                assert page.locator("#status").text_content() == "open"

                def dom_rows() -> list[tuple[int, str, int, int]]:
                    rows = page.locator("#standings tr.entrant")
                    return [
                        (
                            int(row.get_attribute("data-rank") or ""),
                            row.get_attribute("data-name") or "",
                            int(row.get_attribute("data-total") or ""),
                            int(row.get_attribute("data-games") or ""),
                        )
                        for row in rows.all()
                    ]

                assert dom_rows() == api_rows(http, tid)
                assert_best_first(dom_rows())
                assert page.locator("#grids-hidden").is_visible()
                assert page.locator(".card").count() == 0
                assert page.locator("code.seed").count() == 0
                page.screenshot(path=str(tmp_path / "standings-open.png"), full_page=True)

                closed = http.post(
                    f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
                )
                assert closed.status_code == 200, closed.text
                page.reload()
                assert page.locator("#status").text_content() == "closed"
                assert dom_rows() == api_rows(http, tid)
                revealed = [r["server_seed"] for r in closed.json()["rounds"]]
                assert page.locator("code.seed").all_inner_texts() == revealed
                games = sum(ROUNDS_PLAYED.values())
                assert page.locator("section.game").count() == games
                assert page.locator("section.game .card").count() == 25 * games
                assert page.locator(".card.empty").count() == 0
                shot = tmp_path / "standings.png"
                page.screenshot(path=str(shot), full_page=True)
            finally:
                browser.close()
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) > 20_000
    assert time.monotonic() - started < 30
