"""The browser client: ``/play``, ``/verify`` and the offline API reference at ``/schema``.

In-process: the pages and assets are served with a policy that allows this origin only,
the reference loads nothing from outside, the committed build and the types generated
from the spec are current (rebuilt with the pinned tools of ``service/web``), and the
receipts the JS tests verify still verify in Python.

In headless Chromium against a real ``cardproof serve``: a whole committed blind game
of poker-squares by clicks, checked against its receipt through the SDK; the same by
keyboard only; a scan of every DOM snapshot and every answer the page received for a
card before it was due; each variant's rules panel and only its options; "Deal" asking
before it abandons a game, and dealing with a fresh client seed; a solodrez hint drawn on
the board; ``/verify`` with a good and a tampered receipt; a 390-pixel
phone screenshot; and a record of every request the pages made, none outside the origin.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from attack_kit import leaks
from cardproof import verify_receipt
from cardproof.cards import Card
from cardproof.receipts import CommitmentMismatchError, Expected, ReceiptError, decode_receipt
from cardproof.tables import generate
from cardproof_service.front.controllers.web import PAGE_POLICY, STATIC_DIR
from conftest import served

HttpClient = TestClient[Litestar]
ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "service" / "web"
VECTORS = ROOT / "tests" / "vectors" / "receipts.json"
ROW_ORDER = [f"{c}{r}" for r in "12345" for c in "abcde"]
SNAKE = [f"{c}{r}" for r in "12345" for c in ("abcde" if r in "135" else "edcba")]
OFFSETS = [f"{r},{c}" for r in (0, 1, 2, -1, -2) for c in (0, 1, 2, 3, -1)]
OUTSIDE = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.IGNORECASE)
SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
IN_ORDER = {"poker-squares", "poker-patience", "repeat-poker"}
"""Hidden variants that turn up cards in deck order (reserve-poker shows them by place)."""


# --- in process -----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/play", "/verify"])
def test_the_pages_allow_this_origin_only(client: HttpClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert answer.headers["content-security-policy"] == PAGE_POLICY
    assert "script-src 'self'" in PAGE_POLICY
    assert "unsafe-inline" not in PAGE_POLICY
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert not OUTSIDE.search(answer.text)
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', answer.text):
        assert client.get(asset).status_code == 200, asset


def test_the_api_reference_loads_nothing_from_outside(client: HttpClient) -> None:
    page = client.get("/schema")
    assert page.status_code == 200
    assert "<script>" not in page.text  # no inline script: the policy allows none
    assert not OUTSIDE.search(page.text), OUTSIDE.search(page.text)
    for asset in re.findall(r'(?:src|href)="(/static/swagger/[^"]+)"', page.text):
        assert client.get(asset).status_code == 200, asset
    assert len(re.findall(r'(?:src|href)="/static/swagger/', page.text)) == 3
    assert page.headers["content-security-policy"].startswith(
        "default-src 'none'; script-src 'self';"
    )
    assert (page.headers["x-frame-options"], page.headers["x-content-type-options"]) == (
        "DENY",
        "nosniff",
    )
    spec = client.get("/schema/openapi.json")  # the spec itself is data: no page policy
    assert "content-security-policy" not in spec.headers


def test_static_files_stay_inside_their_folder(client: HttpClient) -> None:
    beside = ("/static/../site.py", "/static/web/../../site.py", "/static/%2e%2e/site.py")
    for path in (*beside, "/static/web/../../../app.py"):  # front/site.py, the package's app.py
        assert client.get(path).status_code == 404, path
    missing = client.get("/static/web/nothing.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_the_js_tests_receipts_still_verify_in_python() -> None:
    entries = json.loads(VECTORS.read_text(encoding="utf-8"))
    assert entries
    for entry in entries:
        allow = [entry["kind"]] if entry.get("kind") else []
        asked = Expected(options={"scoring": entry["system"]}) if "system" in entry else None
        if entry.get("lie") == "table":  # re-signed with a table the seeds do not draw
            with pytest.raises(CommitmentMismatchError, match="options"):
                verify_receipt(entry["receipt"], entry["jwks"], allow=allow, expect=asked)
            continue
        if entry.get("lie") == "key-period":  # its key set retired its key before it
            with pytest.raises(ReceiptError, match="after key") as error:
                verify_receipt(entry["receipt"], entry["jwks"], allow=allow, expect=asked)
            assert error.value.code == "key-not-valid"
            continue
        checked = verify_receipt(entry["receipt"], entry["jwks"], allow=allow, expect=asked)
        assert checked.replayed
        assert checked.payload.server_seed_hash == entry["server_seed_hash"]
        assert checked.payload.client_seed == entry["client_seed"]
    assert sum(entry.get("lie") == "table" for entry in entries) == 1
    assert sum(entry.get("lie") == "key-period" for entry in entries) == 1
    assert any(decode_receipt(entry["receipt"])[1].iss for entry in entries)


def _node_tools() -> Path:
    """``service/web``'s pinned tools (``make test`` installs them); fail in CI without."""
    tools = WEB / "node_modules" / ".bin"
    if (tools / "openapi-typescript").exists() and shutil.which("node"):
        return tools
    message = "the web client's tools are not installed (`make web-test` runs npm ci)"
    if os.environ.get("CI") or os.environ.get("REQUIRE_REDIS") == "1":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def test_the_types_generated_from_the_spec_are_current(tmp_path: Path) -> None:
    tools = _node_tools()
    fresh = tmp_path / "api.d.ts"
    script = json.loads((WEB / "package.json").read_text(encoding="utf-8"))["scripts"]["types"]
    command = script.split()  # `npm run types`, the command `make openapi` runs
    command[0] = str(tools / command[0])
    command[command.index("-o") + 1] = str(fresh)
    made = subprocess.run(
        command, cwd=WEB, capture_output=True, text=True, timeout=120, check=False
    )
    assert made.returncode == 0, made.stderr
    committed = (WEB / "src" / "api.d.ts").read_text(encoding="utf-8")
    assert fresh.read_text(encoding="utf-8") == committed, "stale: run `make openapi`"


def test_the_built_assets_in_the_package_are_current(tmp_path: Path) -> None:
    _node_tools()
    built = subprocess.run(
        ["node", "build.mjs", "--out", str(tmp_path)],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    for folder in ("web", "swagger"):
        compared = filecmp.dircmp(tmp_path / folder, STATIC_DIR / folder)
        stale = compared.diff_files + compared.left_only + compared.right_only
        assert not stale, f"static/{folder} is stale ({stale}): run `make web`"
        mismatch = filecmp.cmpfiles(
            tmp_path / folder, STATIC_DIR / folder, compared.common_files, shallow=False
        )[1]
        assert not mismatch, f"static/{folder} differs ({mismatch}): run `make web`"


# --- in headless Chromium ------------------------------------------------------------


class Recorder:
    """Every request a page makes, and every API answer to a POST (URL and text)."""

    def __init__(self, page: Any) -> None:
        self.urls: list[str] = []
        self.answers: list[tuple[str, str]] = []
        page.on("request", lambda request: self.urls.append(request.url))
        page.on("response", self._answer)

    def _answer(self, response: Any) -> None:
        if "/v1/" in response.url and response.request.method == "POST":
            self.answers.append((response.url, response.text()))

    def outside(self, base_url: str) -> list[str]:
        """Requests that left the origin (a blob: download is the page's own)."""
        return [u for u in self.urls if not u.startswith((base_url, "blob:", "data:"))]


def card_forms(card: Card) -> set[str]:
    """How a card can read in the page: its text and its label (10♦, Joker)."""
    if card.text == "JK":
        return {"JK", "Joker"}
    rank = "10" if card.text[0] == "T" else card.text[0]
    return {card.text, f"{rank}{SYMBOLS[card.text[1]]}"}


def named(text: str, card: Card) -> bool:
    """Whether ``text`` names ``card`` in any of its forms, as a whole word."""
    return any(
        re.search(rf"(?<![0-9A-Za-z]){re.escape(form)}(?![0-9A-Za-z])", text)
        for form in card_forms(card)
    )


def by_move(page: Any, move: str) -> Any:
    """The cell or row button of ``move``: its name is its move, then the cards it shows."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(move)}(?: |$)"))


def new_game(
    page: Any, base_url: str, seed: str, variant: str = "poker-squares", **options: Any
) -> str:
    """Open /play, set the seed and options, press Deal; the commitment hash shown."""
    loaded = page.goto(f"{base_url}/play?variant={variant}")
    page.wait_for_selector("body[data-ready]")  # the page's script has set its controls up
    assert loaded is not None
    assert loaded.status == 200
    page.get_by_label("Client seed").fill(seed)
    if options.get("scoring"):
        page.get_by_label("Scoring").select_option(options["scoring"])
    page.get_by_role("button", name="Deal").click()
    from playwright.sync_api import expect

    expect(page.locator("#next-label")).to_have_text(re.compile(r"^(Card 1 of|Level 1|Move 1)"))
    commitment = str(page.locator("#commitment").text_content())
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    return commitment


def wait_for_card(page: Any, number: int) -> None:
    """Until card ``number`` is the one to place; past 25, until the verdict is shown.

    Playwright's locator waits, not page functions: the page's policy forbids eval.
    """
    from playwright.sync_api import expect

    if number <= 25:
        expect(page.locator("#next-label")).to_have_text(re.compile(rf"^Card {number} of 25\b"))
    else:
        expect(page.get_by_role("status")).to_have_text(re.compile(r"^(Verified|Not verified)"))


def finish_and_check(
    page: Any, base_url: str, recorder: Recorder, seen: list[str], total: int = 25
) -> list[Card]:
    """The page's verdict, then the receipt through the SDK; no card shown before its turn.

    ``seen[i]`` is the page as it was before move ``i``: none of the deck's cards ``i + 1``
    to ``total`` may be in it. Every deal and move answer the page received is scanned the
    same way (an answer to move ``i`` may name cards up to ``i + 1``). Returns the deck.
    """
    status = page.get_by_role("status")
    assert status.text_content().startswith("Verified"), status.text_content()
    receipt = page.get_by_label("Receipt (compact JWS)").input_value()
    jwks = httpx.get(f"{base_url}/.well-known/jwks.json").json()
    checked = verify_receipt(receipt, jwks)
    assert checked.replayed
    final = page.locator("#final-score").text_content()
    assert final == f"Final score: {checked.payload.score.total}"
    deck = [Card.parse(text) for text in receipt_deck(checked.payload)]
    for step, snapshot in enumerate(seen):
        early = [card.text for card in deck[step + 1 : total] if named(snapshot, card)]
        assert not early, f"before card {step + 1} was placed the page showed {early}"
    scanned = 0
    for url, body in recorder.answers:
        if (
            not re.search(r"/v1/deals(/[^/]+/moves)?$", url)
            or checked.payload.variant not in IN_ORDER
        ):
            continue
        answer = json.loads(body)
        due = answer["index"] + 2 if "index" in answer else 1
        if due < total:
            assert not leaks(body, deck[due:total]), f"an answer named a card early: {body}"
            scanned += 1
    if checked.payload.variant in IN_ORDER:
        assert scanned >= min(total, 25) - 1  # the deal and the moves were all looked at
    assert not recorder.outside(base_url), recorder.outside(base_url)
    return deck


def receipt_deck(payload: Any) -> list[str]:
    """The deck a receipt's revealed seeds derive (the first level's, for repeat-poker)."""
    from cardproof.deal import standard_deck

    seed = bytes.fromhex(payload.server_seed)
    jokers = payload.variant == "reserve-poker"
    return [card.text for card in standard_deck(seed, payload.client_seed, jokers=jokers)]


def test_a_whole_blind_game_by_clicks(chromium: Any, web_server: str) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 900})
    recorder = Recorder(page)
    new_game(page, web_server, "clicks in Chromium", scoring="british")
    seen = []
    for number, cell in enumerate(ROW_ORDER, start=1):
        seen.append(page.content())
        shown = page.locator("#next-card").text_content()
        assert shown
        page.get_by_role("button", name=cell, exact=True).click()  # empty: named by its move
        wait_for_card(page, number + 1)
        placed = by_move(page, cell).text_content()  # now "a1 10♦": its move, then its card
        assert placed == f"{cell} {shown}"
        if number == 5:
            assert "row 1:" in str(page.locator("#lines").text_content())
    finish_and_check(page, web_server, recorder, seen)
    # the game over: no empty space kept above the grid for a card there is no more
    assert page.locator(".next").bounding_box()["height"] < 5
    receipt = page.get_by_label("Receipt (compact JWS)").input_value()
    jwks = httpx.get(f"{web_server}/.well-known/jwks.json").json()
    assert verify_receipt(receipt, jwks).payload.moves == " ".join(ROW_ORDER)
    page.close()


def test_a_game_under_a_drawn_point_system_shows_and_checks_its_table(
    chromium: Any, web_server: str
) -> None:
    """Scoring "random" (drawn from the deal's seeds): the running score uses the table
    the deal drew, and the receipt, verified in the page, carries that very table."""
    page = chromium.new_page(viewport={"width": 1000, "height": 900})
    recorder = Recorder(page)
    new_game(page, web_server, "a drawn table", scoring="random")
    for number, cell in enumerate(ROW_ORDER, start=1):
        page.get_by_role("button", name=cell, exact=True).click()
        wait_for_card(page, number + 1)
        if number == 5:
            assert "row 1:" in str(page.locator("#lines").text_content())
    finish_and_check(page, web_server, recorder, [])
    receipt = page.get_by_label("Receipt (compact JWS)").input_value()
    jwks = httpx.get(f"{web_server}/.well-known/jwks.json").json()
    payload = verify_receipt(receipt, jwks, expect=Expected(options={"scoring": "random"})).payload
    table = generate("random", bytes.fromhex(payload.server_seed or ""), payload.client_seed)
    assert payload.options["scoring"] == table.as_mapping()
    # the page drew the table again from the revealed seeds (cardproof-points-v1)
    verdict = str(page.get_by_role("status").text_content())
    assert "the random point table drawn by cardproof-points-v1" in verdict, verdict
    page.close()


def test_a_deal_not_showing_the_drawn_table_is_refused_by_the_page(
    chromium: Any, web_server: str
) -> None:
    """A server answering a drawn system with its name (no table, to pick one later) is
    caught at the deal, before a card is placed."""
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 900})

    def named_only(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body["options"]["scoring"] = "random"
        route.fulfill(response=answer, json=body)

    page.route(re.compile(r"/v1/deals$"), named_only)
    page.goto(f"{web_server}/play?variant=poker-squares")
    page.wait_for_selector("body[data-ready]")
    page.get_by_label("Client seed").fill("a lying server")
    page.get_by_label("Scoring").select_option("random")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#message")).to_contain_text("its point table is not the one asked")
    page.close()


VARIANTS = {
    "poker-squares": ("Poker Squares", ["a1", "b1"]),
    "poker-patience": ("Poker Patience (Hoyle)", ["0,0", "0,1"]),
    "serpent-patience": ("Serpent Poker Patience", ["a1", "b1"]),
    "repeat-poker": ("Repeat Poker", ["r1", "r2"]),
    "reserve-poker": ("Repeat Poker, the reserve variant", []),
    "solodrez": ("SoloDrez (Pokerdrez deck)", []),
}
"""Each variant the page plays: its title, and two first moves of its board."""
FIGURES = ["J Joker", "Q Queen", "T Tower", "B Bishop", "N Knight", "P Pawn"]


def test_each_variant_explains_itself_and_offers_only_its_options(
    chromium: Any, web_server: str
) -> None:
    """A rules panel per variant, closed until opened (solodrez's names its figures and
    colours); suit colours only where cards have suits; each variant's options only."""
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 900})
    page.goto(f"{web_server}/play")
    page.wait_for_selector("body[data-ready]")
    own = {"poker-squares": ["Scoring", "Score the two diagonals"], "repeat-poker": ["Levels"]}
    own |= {"poker-patience": ["Scoring"], "serpent-patience": ["Scoring"]}
    own |= {"reserve-poker": ["Version"], "solodrez": []}
    everyone = {label for labels in own.values() for label in labels}
    for variant, (title, _) in VARIANTS.items():
        page.get_by_label("Variant").select_option(variant)
        summary = page.locator("#rules summary")
        expect(summary).to_have_text(f"How to play {title}")
        rules = page.locator("#rules-text")
        expect(rules).to_be_hidden()  # closed: a click opens it
        summary.click()
        expect(rules).to_be_visible()
        assert 2 <= rules.locator("li").count() <= 4
        text = str(rules.text_content())
        assert not re.search(r"\b\d>\d\b|\b\d:\d+>\d\b", text), text  # no 0-based move text
        colours = page.locator("#four-colours")
        if variant == "solodrez":
            assert all(figure in text for figure in FIGURES), text
            assert "a colour from 1 to 9" in text
            assert "X1 and X2 are neutrals" in text
            expect(colours).to_be_hidden()  # its cards have no suits
        else:
            expect(colours).to_be_visible()
        for label in everyone:
            shown = page.get_by_label(label, exact=True)
            expect(shown).to_have_count(1 if label in own[variant] else 0)
        if "Scoring" in own[variant]:  # the grid's tables and drawn systems, no other game's
            names = page.get_by_label("Scoring", exact=True).locator("option").all_text_contents()
            assert names[:2] == ["american", "british"], names
            assert not {"repeat", "reserve"} & set(names), names
        summary.click()
    page.close()


def test_deal_asks_before_abandoning_a_game_and_deals_with_a_fresh_seed(
    chromium: Any, web_server: str
) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 900})
    page.goto(f"{web_server}/play?variant=poker-squares")
    page.wait_for_selector("body[data-ready]")
    seed = page.get_by_label("Client seed")
    first = seed.input_value()
    assert re.fullmatch(r"[0-9a-f]{32}", first)
    page.get_by_role("button", name="Deal").click()
    expect_text(page, "#next-label", "Card 1 of 25")
    dealt = str(page.locator("#message").text_content()).split()[1].rstrip(".")
    assert httpx.get(f"{web_server}/v1/deals/{dealt}").json()["client_seed"] == first
    page.get_by_role("button", name="Deal").click()  # no move yet: nothing to abandon
    expect(page.locator("#message")).not_to_have_text(f"Dealt {dealt}.")
    second = seed.input_value()
    assert second != first  # a fresh seed for every new deal
    dealt = str(page.locator("#message").text_content()).split()[1].rstrip(".")
    assert httpx.get(f"{web_server}/v1/deals/{dealt}").json()["client_seed"] == second
    page.get_by_role("button", name="a1", exact=True).click()
    expect_text(page, "#next-label", "Card 2 of 25")
    dialog = page.get_by_role("dialog")
    page.get_by_role("button", name="Deal").click()  # a game in progress: asked first
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("A game is in progress. Abandon it?")
    page.get_by_role("button", name="Keep playing").click()
    expect(dialog).to_be_hidden()
    expect_text(page, "#next-label", "Card 2 of 25")  # the same game goes on
    assert seed.input_value() == second
    page.get_by_label("Variant").select_option("solodrez")  # another variant: asked too
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")  # keeps the game, and its variant
    expect(dialog).to_be_hidden()
    expect(page.get_by_label("Variant")).to_have_value("poker-squares")
    expect_text(page, "#next-label", "Card 2 of 25")
    page.get_by_role("button", name="b1", exact=True).click()
    expect_text(page, "#next-label", "Card 3 of 25")
    page.get_by_role("button", name="Deal").click()
    page.get_by_role("button", name="Abandon the game").click()
    expect(page.locator("#message")).not_to_have_text(f"Dealt {dealt}.")
    expect(page.locator("#message")).to_have_text(re.compile(r"^Dealt d_"))
    expect_text(page, "#next-label", "Card 1 of 25")
    third = seed.input_value()
    assert third not in (first, second)
    dealt = str(page.locator("#message").text_content()).split()[1].rstrip(".")
    assert httpx.get(f"{web_server}/v1/deals/{dealt}").json()["client_seed"] == third
    seed.fill("my own seed")  # a seed typed in is the one dealt with
    page.get_by_role("button", name="Deal").click()  # no move yet in this one
    expect(page.locator("#message")).not_to_have_text(f"Dealt {dealt}.")
    expect(page.locator("#message")).to_have_text(re.compile(r"^Dealt d_"))
    assert seed.input_value() == "my own seed"
    dealt = str(page.locator("#message").text_content()).split()[1].rstrip(".")
    assert httpx.get(f"{web_server}/v1/deals/{dealt}").json()["client_seed"] == "my own seed"
    page.close()


def test_a_whole_poker_patience_game_by_clicks(chromium: Any, web_server: str) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    recorder = Recorder(page)
    new_game(page, web_server, "floating square", "poker-patience")
    assert page.locator("#grid button").count() == 1  # the first card goes at 0,0 only
    seen = []
    for number, offset in enumerate(OFFSETS, start=1):
        seen.append(page.content())
        page.get_by_role("button", name=offset, exact=True).click()
        wait_for_card(page, number + 1)
        if number == 5:  # a row of five: the square's columns are fixed, the row scores
            assert "row from 0,-1:" in str(page.locator("#lines").text_content())
    assert page.locator("#grid button").count() == 25  # the square, and nothing around it
    finish_and_check(page, web_server, recorder, seen)
    lines = page.locator("#lines li").all_text_contents()  # named at the end as mid-game
    assert len(lines) == 10, lines
    assert all(re.match(r"(row|col) from -?\d,-?\d: ", line) for line in lines), lines
    page.close()


def test_a_serpent_game_with_its_par(chromium: Any, web_server: str) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    recorder = Recorder(page)
    new_game(page, web_server, "a rook's path", "serpent-patience")
    assert page.locator("#later li").count() == 24  # an open variant: every card shown
    for number, cell in enumerate(SNAKE, start=1):
        page.get_by_role("button", name=cell, exact=True).click()
        wait_for_card(page, number + 1)
    finish_and_check(page, web_server, recorder, [])
    from playwright.sync_api import expect

    expect(page.locator("#par")).to_have_text(re.compile(r"^Par for this deal: \d+"))
    par = int(re.findall(r"\d+", str(page.locator("#par").text_content()))[0])
    final = int(str(page.locator("#final-score").text_content()).split(": ")[1])
    assert par >= final
    page.close()


def test_serpent_warns_before_a_dead_end(chromium: Any, web_server: str) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    new_game(page, web_server, "a dead end", "serpent-patience")
    for number, cell in enumerate(["a2", "b2", "b1"], start=1):
        page.get_by_role("button", name=cell, exact=True).click()
        wait_for_card(page, number + 1)
    page.get_by_role("button", name="a1", exact=True).click()  # boxed in: a warning first
    expect(page.locator("#message")).to_contain_text("leaves no way on")
    assert by_move(page, "a1").text_content() == "a1"  # still empty
    page.get_by_role("button", name="a1", exact=True).click()  # again: placed, the end
    expect(page.locator("#final-score")).to_have_text("Final score: none")
    status = page.get_by_role("status")  # said plainly, not as a failed verification
    expect(status).to_have_text(re.compile(r"^The game ended with no legal move .* unscored"))
    expect(status).not_to_have_class("not-verified")
    expect(page.get_by_label("Receipt (compact JWS)")).to_be_hidden()  # no empty box
    expect(page.get_by_role("button", name="Copy the receipt")).to_be_hidden()
    expect(page.get_by_role("link", name="Download the receipt")).to_be_hidden()
    page.close()


def test_a_whole_repeat_poker_level_by_clicks(chromium: Any, web_server: str) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    recorder = Recorder(page)
    new_game(page, web_server, "one level", "repeat-poker")
    seen = []
    for number in range(1, 53):
        seen.append(page.content())
        by_move(page, f"r{number % 5 + 1}").click()
        if number < 52:
            expect_text(page, "#next-label", f"Level 1, card {number + 1} of 52")
    wait_for_card(page, 26)  # the verdict
    finish_and_check(page, web_server, recorder, seen, total=52)
    assert "Score so far" in str(page.locator("#running").text_content())
    page.close()


def test_the_repeat_poker_ladder_deals_each_level_from_its_stream(
    chromium: Any, web_server: str
) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    recorder = Recorder(page)
    loaded = page.goto(f"{web_server}/play?variant=repeat-poker")
    page.wait_for_selector("body[data-ready]")
    assert loaded is not None
    page.get_by_label("Levels", exact=True).select_option("5")
    page.get_by_label("A row with no hand", exact=True).select_option("clear-row")
    page.get_by_role("button", name="Deal").click()
    expect_text(page, "#next-label", "Level 1 of 5, card 1 of 52")
    assert page.locator(".ladder li").count() == 5
    for level, rows in enumerate([5, 4, 3, 2, 1], start=1):
        for number in range(1, 53):
            by_move(page, f"r{number % rows + 1}").click()
            if number < 52:
                expect_text(page, "#next-label", f"Level {level} of 5, card {number + 1} of 52")
            elif level < 5:
                expect_text(page, "#next-label", f"Level {level + 1} of 5, card 1 of 52")
    wait_for_card(page, 26)
    status = str(page.get_by_role("status").text_content())
    assert status.startswith("Verified"), status
    assert "the 260 cards shown are the deck's" in status  # five streams, each checked
    finish_and_check(page, web_server, recorder, [], total=52)
    jwks = httpx.get(f"{web_server}/.well-known/jwks.json").json()
    receipt = page.get_by_label("Receipt (compact JWS)").input_value()
    payload = verify_receipt(receipt, jwks).payload
    assert payload.options["high_card"] == "clear-row"  # as chosen in the page
    high_cards = [hand for hand in payload.score.hands if hand.category == "high-card"]
    assert high_cards
    assert all(len(hand.removed or ()) == 5 for hand in high_cards)
    page.close()


def test_a_whole_reserve_poker_game_by_clicks(chromium: Any, web_server: str) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 1100})
    recorder = Recorder(page)
    new_game(page, web_server, "the reserve", "reserve-poker")
    snapshots: list[tuple[str, list[int]]] = []
    heights = [0] * 5
    for number in range(1, 26):
        lengths = reserve_lengths(page)
        snapshots.append((page.content(), lengths))
        take = next(f for f in ((number + k) % 4 for k in range(4)) if lengths[f])
        drop = next(c for c in ((number + k) % 5 for k in range(5)) if heights[c] < 5)
        # reserve columns are counted from 1 and grid columns lettered, as the page says
        page.get_by_role("button", name=re.compile(rf"^Reserve {take + 1} ")).click()
        page.get_by_role("button", name=f"col {'abcde'[drop]}", exact=True).click()
        if number < 25:
            expect_text(page, "#message", f"Played Reserve {take + 1} to col {'abcde'[drop]}.")
        heights[drop] += 1
        wait_for_card(page, number + 1)
    deck = finish_and_check(page, web_server, recorder, [], total=53)
    for snapshot, lengths in snapshots:  # version 1: only each column's bottom card is up
        down = [deck[i * 4 + f] for f in range(4) for i in range(max(0, lengths[f] - 1))]
        early = [card.text for card in down if named(snapshot, card)]
        assert not early, f"a face-down reserve card was in the page: {early}"
    answers = [body for url, body in recorder.answers if re.search(r"/v1/deals", url)]
    assert len(answers) == 26  # the deal and 25 moves
    for body in answers:  # every place an answer shows face down: not named in it
        reserve = json.loads(body)["view"]["reserve"]
        down = [
            deck[i * 4 + f] for f, col in enumerate(reserve) for i, c in enumerate(col) if c is None
        ]
        assert not leaks(body, down), f"an answer named a face-down card: {body}"
    page.close()


def reserve_lengths(page: Any) -> list[int]:
    """The cards left in each reserve column, as the page shows them (the face-down ones
    as one count, "12 face down")."""
    lengths: list[int] = page.evaluate(
        """() => [...document.querySelectorAll('.reserve-column')].map((column) =>
          [...column.querySelectorAll('.card')].reduce((n, card) =>
            n + (card.classList.contains('back') ? parseInt(card.textContent, 10) : 1), 0))"""
    )
    return lengths


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def solodrez_said(move: str) -> str:
    """What the page says after a solodrez move (columns counted from 1), without its period."""
    if move.startswith("r"):
        return f"Removed the series in column {int(move[1:]) + 1}"
    run, _, to = move.partition(">")
    source, count = run.split(":")
    cards = plural(int(count), "card")
    return f"Moved {cards} from column {int(source) + 1} to column {int(to) + 1}"


def solodrez_play(page: Any, move: str) -> None:
    """Play a solodrez move of the API's text (0-based) by the page's names (1-based)."""
    if move.startswith("r"):
        page.get_by_role("button", name=f"remove column {int(move[1:]) + 1}", exact=True).click()
        return
    run, _, to = move.partition(">")
    card = page.locator(f"#columns button.pick[data-move='{run}']").inner_text()  # e.g. "T2"
    page.get_by_role("button", name=card, exact=True).click()  # a card button is named by its card
    column = page.get_by_role("group", name=f"column {int(to) + 1}", exact=True)
    column.get_by_role("button", name=f"to {int(to) + 1}", exact=True).click()


def solodrez_deal(page: Any, base_url: str) -> tuple[str, list[list[str]]]:
    """Deal solodrez in the page; its deal id and columns, read back from the API."""
    from playwright.sync_api import expect

    before = page.locator("#message").text_content()
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#message")).not_to_have_text(before or "")  # this deal's, not the last
    expect(page.locator("#message")).to_have_text(re.compile(r"^Dealt d_"))
    deal_id = str(page.locator("#message").text_content()).split()[1].rstrip(".")
    view = httpx.get(f"{base_url}/v1/deals/{deal_id}").json()["view"]
    return deal_id, view["columns"]


def won_solodrez_deal(page: Any, base_url: str) -> tuple[list[list[str]], dict[str, Any]]:
    """Deal solodrez in the page until the solver wins the deal (about 94% of deals can
    be won): its columns and the solver's answer."""
    for _ in range(10):
        _, columns = solodrez_deal(page, base_url)
        solved = httpx.post(  # a 2 s search, after the solver pool's start on a busy machine
            f"{base_url}/v1/solve",
            json={"variant": "solodrez", "columns": columns},
            timeout=30,
        ).json()
        if solved["result"] == "won":
            return columns, solved
    raise AssertionError("the solver won none of 10 deals")


def test_a_won_solodrez_game_by_clicks(chromium: Any, web_server: str) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 1200})
    recorder = Recorder(page)
    page.goto(f"{web_server}/play?variant=solodrez")
    page.wait_for_selector("body[data-ready]")
    _, solved = won_solodrez_deal(page, web_server)
    for move in solved["log"].split():
        solodrez_play(page, move)
        expect(page.locator("#message")).to_have_text(
            re.compile(rf"^({re.escape(solodrez_said(move))}\.|The game is over)")
        )
    expect(page.get_by_role("status")).to_have_text(re.compile(r"^(Verified|Not verified)"))
    status = str(page.get_by_role("status").text_content())
    assert status.startswith("Verified"), status
    assert "the 56 cards shown are the deck's" in status
    expect(page.locator("#par")).to_have_text("Won: all nine series removed.")
    receipt = page.get_by_label("Receipt (compact JWS)").input_value()
    jwks = httpx.get(f"{web_server}/.well-known/jwks.json").json()
    checked = verify_receipt(receipt, jwks)
    assert checked.payload.score.won is True
    assert checked.payload.moves == solved["log"]
    assert not recorder.outside(web_server)
    page.close()


def test_solodrez_hint_and_stop(chromium: Any, web_server: str) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 1200})
    page.goto(f"{web_server}/play?variant=solodrez")
    page.wait_for_selector("body[data-ready]")
    message = page.locator("#message")
    for _ in range(5):  # a deal whose hint the solver finds within its budget
        solodrez_deal(page, web_server)
        page.get_by_role("button", name="hint").click()
        expect(message).to_have_text(re.compile(r"^hint: "))
        if re.match(r"hint: (move|remove)", str(message.text_content())):
            break
    said = str(message.text_content())
    # the hint is drawn on the board: the run and the column it goes to, in its words
    run = re.match(r"hint: move (\d+) cards? from column (\d) to column (\d), marked", said)
    removal = re.match(r"hint: remove the series in column (\d), marked", said)
    assert run or removal, said
    hinted = page.locator("#columns .hinted")
    if run:
        count, source, target = (int(n) for n in run.groups())
        picks = page.get_by_role("group", name=f"column {source}", exact=True).locator(".pick")
        marks = ["hinted" in str(picks.nth(i).get_attribute("class")) for i in range(picks.count())]
        assert marks == [False] * (len(marks) - count) + [True] * count, marks
        drop = page.get_by_role("button", name=f"to {target}", exact=True)
        assert "hinted" in str(drop.get_attribute("class"))
        assert hinted.count() == count + 1
        page.locator("#columns .pick.hinted").first.click()  # as hinted: the run, then its column
        drop.click()
        expect(message).to_have_text(
            f"Moved {plural(count, 'card')} from column {source} to column {target}."
        )
    else:
        assert removal is not None
        column = int(removal.group(1))
        remove = page.get_by_role("button", name=f"remove column {column}", exact=True)
        assert "hinted" in str(remove.get_attribute("class"))
        assert hinted.count() == 7  # the six cards of the series and the button
        remove.click()
        expect(message).to_have_text(f"Removed the series in column {column}.")
    expect(hinted).to_have_count(0)  # the position changed: the hint is gone
    page.get_by_role("button", name="stop").click()  # asks first
    expect(page.locator("#message")).to_contain_text("Choose stop again")
    assert page.locator("#result").is_hidden()
    page.get_by_role("button", name="stop").click()
    removed = 1 if removal else 0
    expect(page.locator("#final-score")).to_have_text(f"Final score: {removed}")
    expect(page.locator("#par")).to_have_text(f"Not won: {removed} of 9 series removed.")
    expect(page.get_by_role("status")).to_have_text(re.compile(r"^Verified"))
    page.close()


@contextmanager
def serve_with_organizer(directory: Path, name: str, **settings: str) -> Iterator[tuple[str, str]]:
    """A ``cardproof serve`` on the memory store (``settings`` its extra environment) and a
    new organizer of it, made by the CLI: the server's URL and the organizer's key."""
    env = {
        "CARDPROOF_ORGANIZERS_FILE": str(directory / "organizers.json"),
        "REDIS_URL": "",
        **settings,
    }
    with served("--log-level", "warning", env=env) as base_url:
        clean = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        made = subprocess.run(
            [str(ROOT / ".venv" / "bin" / "cardproof"), "keys", "organizer", "create", name],
            capture_output=True,
            text=True,
            env={**clean, **env},
            timeout=60,
            check=False,
        )
        assert made.returncode == 0, made.stderr
        yield base_url, made.stdout.strip()


@pytest.fixture(scope="module")
def organized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``cardproof serve`` on the memory store with an organizer; its URL and key."""
    directory = tmp_path_factory.mktemp("organizers")
    with serve_with_organizer(directory, "Web Club", CARDPROOF_PAR_BUDGET="0.3") as (url, key):
        yield url, f"Bearer {key}"


def test_a_lockstep_round_live_in_two_browsers(chromium: Any, organized: tuple[str, str]) -> None:
    from datetime import UTC, datetime, timedelta

    from playwright.sync_api import expect

    base_url, owner = organized
    now = datetime.now(UTC)
    created = httpx.post(
        f"{base_url}/v1/tournaments",
        headers={"Authorization": owner},
        json={
            "name": "Browser Cup",
            "variant": "poker-squares",
            "rounds": 1,
            "opens_at": (now - timedelta(hours=1)).isoformat(),
            "closes_at": (now + timedelta(hours=2)).isoformat(),
            "format": "lockstep",
            "entry": "invite",
            "invites": 2,
        },
    )
    assert created.status_code == 201, created.text
    tid = created.json()["tournament"]["tournament_id"]
    codes = created.json()["invite_codes"]
    players = {"Ada": ROW_ORDER, "Bea": SNAKE}
    pages, recorders = {}, {}
    for (name, _), code in zip(players.items(), codes, strict=True):
        page = chromium.new_context(viewport={"width": 1000, "height": 1000}).new_page()
        recorders[name] = Recorder(page)
        page.goto(f"{base_url}/play?tournament={tid}")
        page.wait_for_selector("body[data-ready]")
        expect(page.locator("#t-status")).to_contain_text("invite code")
        page.get_by_label("Your name").fill(name)
        page.get_by_label("Invite code").fill(code)
        page.get_by_role("button", name="Enter").click()
        expect(page.locator("#t-entered")).to_have_text(f"Entered as {name}.")
        page.reload()  # the token is kept in this browser's storage
        page.wait_for_selector("body[data-ready]")
        expect(page.locator("#t-entered")).to_have_text(f"Entered as {name}.")
        expect(page.locator("#t-status")).to_contain_text("lockstep, 60 s a card")
        page.get_by_role("button", name="Take your seat for round 1").click()
        expect(page.locator("#deadline")).to_have_text("Seated: waiting for the first call.")
        assert page.locator("#next-card").text_content() == ""  # no card before its call
        pages[name] = page
    started = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
    )
    assert started.status_code == 200, started.text
    seen: list[str] = []
    for step in range(25):
        for name, order in players.items():
            page = pages[name]
            expect(page.locator("#next-label")).to_have_text(f"Card {step + 1} of 25")
            expect(page.locator("#deadline")).to_have_text(re.compile(r"^\d+ s left to place it"))
            if name == "Ada":
                seen.append(page.content())
            page.get_by_role("button", name=order[step], exact=True).click()
            if step < 24:  # the other seat has not placed it: no next card yet
                expect(page.locator("#message")).to_have_text(f"Played {order[step]}.")
    for page in pages.values():
        status = page.get_by_role("status")
        expect(status).to_have_text(re.compile(r"^Not verified yet: Ed25519"))
        # the normal state while the tournament is open: in the text's own colour, not red
        expect(status).to_have_class("pending")
        assert status.evaluate("e => getComputedStyle(e).color") == "rgb(29, 29, 27)"
    receipt = pages["Ada"].get_by_label("Receipt (compact JWS)").input_value()
    checker = chromium.new_page()  # /verify says the same of an open tournament's receipt
    checker.goto(f"{base_url}/verify")
    checker.get_by_label("Receipt", exact=True).fill(receipt)
    checker.get_by_role("button", name="Verify").click()
    expect(checker.get_by_role("status")).to_have_text(re.compile(r"^Not verified yet: "))
    expect(checker.locator("#checks li").first).to_have_text(re.compile(r"^Ed25519 signature"))
    expect(checker.get_by_role("status")).to_have_class("pending")
    checker.close()
    closed = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
    )
    assert closed.status_code == 200, closed.text
    ada = pages["Ada"]
    ada.reload()
    ada.wait_for_selector("body[data-ready]")
    expect(ada.locator("#t-after table").first).to_contain_text("Ada")
    assert ada.locator("#t-after caption").all_text_contents()[:2] == [
        "Standings",
        "Settlement (each entrant's net)",
    ]
    assert ada.locator(".final-grid").count() == 2  # every grid of round 1
    # once the results have settled the round gets its par: the page shows each share
    url = f"{base_url}/v1/tournaments/{tid}/standings"
    deadline = time.monotonic() + 60
    while not (standings := httpx.get(url, headers={"Authorization": owner}).json()).get("pars"):
        assert time.monotonic() < deadline, standings
        time.sleep(0.5)
    par = standings["pars"][0]
    ada.reload()
    ada.wait_for_selector("body[data-ready]")
    expect(ada.locator("#t-after table").first).to_contain_text("% of par")
    for line in standings["entrants"]:
        expect(ada.locator("#t-after table").first).to_contain_text(
            f"{line['percent_of_par']:.1f}%"
        )
    expect(ada.locator("#t-after h3").first).to_contain_text(f"Round 1: par {par['score']} (")
    captions = ada.locator(".final-grid figcaption").all_text_contents()
    assert len(captions) == 2
    assert all(caption.endswith("of par)") for caption in captions), captions
    seed = bytes.fromhex(closed.json()["rounds"][0]["server_seed"])
    from cardproof.deal import standard_deck

    deck = list(standard_deck(seed, created.json()["tournament"]["salt"]))
    for step, snapshot in enumerate(seen):
        early = [card.text for card in deck[step + 1 : 25] if named(snapshot, card)]
        assert not early, f"before card {step + 1} was called the page showed {early}"
    for name, recorder in recorders.items():
        assert not recorder.outside(base_url), (name, recorder.outside(base_url))


A11Y_SCRIPT = (ROOT / "tests" / "a11y_check.js").read_text(encoding="utf-8")
"""Every visible control has an accessible name; every visible text meets WCAG AA contrast
(4.5:1, 3:1 for large text) against the background it is drawn on."""


def test_the_page_says_entries_close_and_then_that_they_closed(
    chromium: Any, organized: tuple[str, str]
) -> None:
    """Before round 1 starts a visitor reads when entries close; after, no form to try."""
    from datetime import UTC, datetime, timedelta

    from playwright.sync_api import expect

    base_url, owner = organized
    now = datetime.now(UTC)
    created = httpx.post(
        f"{base_url}/v1/tournaments",
        headers={"Authorization": owner},
        json={
            "name": "Closing Cup",
            "variant": "poker-squares",
            "rounds": 1,
            "opens_at": (now - timedelta(hours=1)).isoformat(),
            "closes_at": (now + timedelta(hours=2)).isoformat(),
            "format": "lockstep",
            "entry": "public",
        },
    )
    assert created.status_code == 201, created.text
    tid = created.json()["tournament"]["tournament_id"]
    phone = chromium.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"{base_url}/play?tournament={tid}")
    phone.wait_for_selector("body[data-ready]")
    expect(phone.locator("#t-entered")).to_have_text("Entries close when round 1 starts.")
    expect(phone.get_by_label("Your name")).to_be_visible()
    expect(phone.get_by_label("Invite code")).to_be_hidden()  # a public tournament
    entry = httpx.post(f"{base_url}/v1/tournaments/{tid}/entries", json={"name": "Ada"}).json()
    seated = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/rounds/1/deal",
        json={},
        headers={"Authorization": f"Bearer {entry['token']}"},
    )
    assert seated.status_code == 201, seated.text
    started = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
    )
    assert started.status_code == 200, started.text
    phone.reload()
    phone.wait_for_selector("body[data-ready]")
    closed_at = httpx.get(f"{base_url}/v1/tournaments/{tid}").json()["entries_closed_at"]
    expect(phone.locator("#t-entered")).to_have_text(
        f"Entries closed at {closed_at}, when round 1 started: every entrant is seated "
        "before the first call."
    )
    expect(phone.get_by_label("Your name")).to_be_hidden()
    expect(phone.get_by_role("button", name="Enter")).to_be_hidden()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_control_is_labelled_and_text_meets_aa_contrast(
    chromium: Any, web_server: str, variant: str
) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    new_game(page, web_server, "labels", variant)
    if variant != "solodrez":  # its cards have no suits: no suit colours to choose
        page.locator("#four-colours").check()
    assert page.evaluate(A11Y_SCRIPT) == []
    page.goto(f"{web_server}/verify")
    assert page.evaluate(A11Y_SCRIPT) == []
    page.evaluate(  # the check itself finds what it should: faint text, an unnamed button
        """() => {
        const faint = document.createElement('p');
        faint.textContent = 'faint';
        faint.style.color = '#bbbbbb';
        document.querySelector('main').append(faint, document.createElement('button'));
      }"""
    )
    found = page.evaluate(A11Y_SCRIPT)
    assert any(problem.startswith("contrast") and "faint" in problem for problem in found)
    assert any(problem.startswith("no label: <button") for problem in found)
    page.close()


def expect_text(page: Any, selector: str, text: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator(selector)).to_have_text(text)


def test_a_whole_blind_game_by_keyboard_only(chromium: Any, web_server: str) -> None:
    page = chromium.new_page(viewport={"width": 1000, "height": 900})
    recorder = Recorder(page)
    loaded = page.goto(f"{web_server}/play?variant=poker-squares")
    assert loaded is not None
    assert loaded.status == 200
    page.wait_for_selector("body[data-ready]")
    page.keyboard.press("Tab")  # the variant
    while page.evaluate("document.activeElement.id") != "deal":
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    wait_for_card(page, 1)
    assert page.evaluate("document.activeElement.dataset.move") == "a1"
    seen, order = [], []
    for row in range(5):
        across = ["ArrowRight"] * 4 if row % 2 == 0 else ["ArrowLeft"] * 4
        for column in range(5):
            seen.append(page.content())
            order.append(page.evaluate("document.activeElement.dataset.move"))
            page.keyboard.press("Enter")
            wait_for_card(page, len(order) + 1)
            if column < 4:
                page.keyboard.press(across[column])
        if row < 4:
            page.keyboard.press("ArrowDown")
    snake = [f"{c}{r}" for r in range(1, 6) for c in ("abcde" if r % 2 else "edcba")]
    assert order == snake
    finish_and_check(page, web_server, recorder, seen)
    page.close()


def test_the_verify_page_tells_a_good_receipt_from_a_tampered_one(
    chromium: Any, web_server: str
) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page()
    recorder = Recorder(page)
    with httpx.Client(base_url=web_server) as http:
        receipt = play_in_python(http)
        wait_for_the_log(http, receipt)  # a pass needs the receipt in the log too
    page.goto(f"{web_server}/verify")
    area = page.get_by_label("Receipt", exact=True)
    wrapped = "\n".join(receipt[i : i + 64] for i in range(0, len(receipt), 64))
    area.fill(wrapped)  # as copied from a wrapped terminal
    page.get_by_role("button", name="Verify").click()
    status = page.get_by_role("status")
    expect(status).to_have_text(re.compile(r"^(Verified|Not verified)"))
    assert str(status.text_content()).startswith("Verified"), status.text_content()
    head, body, signature = receipt.split(".")
    payload = json.loads(_b64decode(body))
    # what it checked: each check a line, the kind, the grid and each line's points
    checks = page.locator("#checks li").all_text_contents()
    assert checks[0].startswith("Ed25519 signature by key"), checks
    assert "the deck's cards on the log's cells score the receipt's total" in checks
    expect(page.locator("#kind")).to_have_text(
        f"Poker Squares (poker-squares), a committed-blind receipt: 25 moves, total "
        f"{payload['score']['total']}."
    )
    deck = receipt_deck(
        verify_receipt(receipt, httpx.get(f"{web_server}/.well-known/jwks.json").json()).payload
    )
    cells = page.locator("#checked-grid .card").all_text_contents()
    assert [c.replace("10", "T") for c in cells] == [
        f"{card[0]}{SYMBOLS[card[1]]}" for card in deck[:25]
    ]  # row by row: ROW_ORDER placed the deck in order
    rows = page.locator("#checked-lines tbody tr")
    expect(rows).to_have_count(len(payload["score"]["hands"]))
    for row, hand in zip(rows.all(), payload["score"]["hands"], strict=True):
        cells_of = row.locator("td").all_text_contents()
        assert [cells_of[0], cells_of[2], cells_of[3]] == [
            hand["line"],
            hand["category"],
            str(hand["points"]),
        ]
    expect(page.locator("#checked-total")).to_have_text(str(payload["score"]["total"]))
    for width, height in ((390, 844), (1280, 900)):  # to look at, with CARDPROOF_SCREENSHOTS
        page.set_viewport_size({"width": width, "height": height})
        if os.environ.get("CARDPROOF_SCREENSHOTS"):
            folder = Path(os.environ["CARDPROOF_SCREENSHOTS"])
            page.screenshot(path=str(folder / f"verify-{width}.png"), full_page=True)
    payload["score"]["total"] += 1
    forged = ".".join([head, _b64encode(json.dumps(payload).encode()), signature])
    area.fill(forged)
    page.get_by_role("button", name="Verify").click()
    expect(status).to_have_text(re.compile(r"^Not verified: bad signature"))
    expect(page.locator("#checked")).to_be_hidden()  # nothing of a forged game is shown
    area.fill(receipt[:-5])
    page.get_by_role("button", name="Verify").click()
    expect(status).to_have_text(re.compile(r"^Not verified: (bad signature|malformed)"))
    with httpx.Client(base_url=web_server) as http:  # a practice receipt of this server's
        answer = http.post(
            "/v1/verify",
            json={
                "variant": "poker-squares",
                "deal": {"server_seed": "00" * 32, "client_seed": "my seeds"},
                "moves": " ".join(ROW_ORDER),
                "options": {"scoring": {"high-card": 1000}},
            },
        ).json()
    area.fill(answer["receipt"])
    page.get_by_role("button", name="Verify").click()
    expect(status).to_have_text(re.compile(r"^Not verified: this is a practice receipt"))
    page.get_by_label("a practice receipt").check()  # accepted knowingly: the table is shown
    page.get_by_role("button", name="Verify").click()
    expect(status).to_have_text(re.compile(r"^Verified"))
    total = answer["payload"]["score"]["total"]
    expect(page.locator("#details")).to_contain_text(f"(practice), score {total}")
    expect(page.locator("#details")).to_contain_text("a custom point table")
    assert not recorder.outside(web_server)
    page.close()


@pytest.mark.parametrize(
    ("variant", "moves"),
    [
        ("poker-squares", ROW_ORDER[:7]),
        ("poker-patience", OFFSETS[:2]),
        ("repeat-poker", ["r1", "r2", "r1"]),
        ("reserve-poker", []),
        ("solodrez", []),
    ],
)
def test_a_phone_sized_page_fits(
    chromium: Any, web_server: str, tmp_path: Path, variant: str, moves: list[str]
) -> None:
    page = chromium.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    recorder = Recorder(page)
    new_game(page, web_server, "phone", variant)
    # after Deal the board comes first under the title, the form below it: on screen
    board = page.evaluate("document.getElementById('board').getBoundingClientRect().toJSON()")
    assert page.evaluate("window.scrollY") == 0
    assert board["top"] < 300, board
    if variant == "poker-squares":  # the card to place and the whole grid on one screen
        grid = page.evaluate("document.getElementById('grid').getBoundingClientRect().toJSON()")
        assert grid["bottom"] <= 844, grid
        card = page.evaluate("document.getElementById('next-card').getBoundingClientRect().y")
        assert 0 <= card < grid["top"], (card, grid)
    for cell in moves:
        by_move(page, cell).click()
        expect_text(page, "#message", f"Played {cell}.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot = tmp_path / f"{variant}-390.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    folder = os.environ.get("CARDPROOF_SCREENSHOTS")  # to look at, and the README's picture
    if folder:
        shutil.copy(shot, Path(folder) / shot.name)
    assert not recorder.outside(web_server)
    page.close()


def test_the_api_reference_renders_offline(chromium: Any, web_server: str) -> None:
    page = chromium.new_page()
    recorder = Recorder(page)
    from playwright.sync_api import expect

    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(f"{web_server}/schema")
    expect(page.get_by_text("/v1/deals", exact=True).first).to_be_visible(timeout=20_000)
    assert refused == []  # the policy let everything it needs load
    assert not recorder.outside(web_server), recorder.outside(web_server)
    page.close()


def play_in_python(http: httpx.Client) -> str:
    commitment = http.post("/v1/commitments", json={}).json()
    body = {
        "variant": "poker-squares",
        "commitment_id": commitment["commitment_id"],
        "client_seed": "a seed of mine",
    }
    deal_id = http.post("/v1/deals", json={**body, "client_seed": "verify page"}).json()["deal_id"]
    for index, cell in enumerate(ROW_ORDER):
        http.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
    return str(http.get(f"/v1/deals/{deal_id}/receipt").json()["receipt"])


def wait_for_the_log(http: httpx.Client, receipt: str, seconds: float = 10) -> None:
    """Return once the server's log holds ``receipt`` (it folds twice a second)."""
    deal_id = json.loads(_b64decode(receipt.split(".")[1]))["deal_id"]
    deadline = time.monotonic() + seconds
    while http.get(f"/v1/deals/{deal_id}/receipt").json()["log"] is None:
        assert time.monotonic() < deadline, "the receipt is not in the log"
        time.sleep(0.05)


def _b64decode(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64encode(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def play_solodrez_in_python(http: httpx.Client, *, win: bool) -> str:
    """A committed solodrez game's receipt: won along the solver's line, or stopped at once."""
    for _ in range(6):  # about 94% of deals can be won
        commitment = http.post("/v1/commitments", json={}).json()
        body = {"variant": "solodrez", "commitment_id": commitment["commitment_id"]}
        deal_id = http.post("/v1/deals", json={**body, "client_seed": "verify solodrez"}).json()[
            "deal_id"
        ]
        log = ["stop"]
        if win:
            columns = http.get(f"/v1/deals/{deal_id}").json()["view"]["columns"]
            solved = http.post(
                "/v1/solve", json={"variant": "solodrez", "columns": columns}, timeout=60
            ).json()
            if solved["result"] != "won":
                continue
            log = solved["log"].split()
        for index, move in enumerate(log):
            http.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": move})
        receipt = str(http.get(f"/v1/deals/{deal_id}/receipt").json()["receipt"])
        wait_for_the_log(http, receipt)
        return receipt
    raise AssertionError("no deal the solver wins in 6")


def test_the_verify_page_replays_solodrez_and_refuses_the_edges(
    chromium: Any, web_server: str
) -> None:
    """/verify replays a solodrez receipt: its nine columns numbered 1 to 9 as dealt, each
    series removed, the result; and refuses edge vectors (protocol.md 6.6) with the reason."""
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 390, "height": 844})
    recorder = Recorder(page)
    with httpx.Client(base_url=web_server, timeout=30) as http:
        won = play_solodrez_in_python(http, win=True)
        stopped = play_solodrez_in_python(http, win=False)
    jwks = httpx.get(f"{web_server}/.well-known/jwks.json").json()
    payload = verify_receipt(won, jwks).payload
    from cardproof.deal import pokerdrez_deck

    deck = [
        c.text for c in pokerdrez_deck(bytes.fromhex(str(payload.server_seed)), payload.client_seed)
    ]
    page.goto(f"{web_server}/verify")
    area = page.get_by_label("Receipt", exact=True)
    status = page.get_by_role("status")
    area.fill(won)
    page.get_by_role("button", name="Verify").click()
    expect(status).to_have_text(re.compile(r"^(Verified|Not verified)"))
    assert str(status.text_content()).startswith("Verified"), status.text_content()
    moves = len(payload.moves.split())
    expect(page.locator("#kind")).to_have_text(
        f"SoloDrez (Pokerdrez deck; solodrez), a committed-open receipt: {moves} moves, total 9; "
        "won, 9 of 9 series removed."
    )
    checks = page.locator("#checks li").all_text_contents()
    replayed = "the log replayed on the deck's nine columns removes 9 of 9 series (won)"
    assert f"{replayed}, as the receipt says" in checks
    dealt = page.get_by_role("group", name="the nine columns as dealt")
    for c in range(9):  # column c holds the deck's cards c, c + 9, ... (round-robin)
        column = dealt.get_by_role("list", name=re.compile(rf"^column {c + 1}: "))
        expect(column.get_by_role("listitem")).to_have_text(deck[c::9])
    expect(dealt.locator(".row-name")).to_have_text([str(n) for n in range(1, 10)])
    series = page.locator("#checked-series li")
    expect(series).to_have_count(9)
    removals = [n for n, move in enumerate(payload.moves.split()) if move.startswith("r")]
    first = payload.moves.split()[removals[0]]
    expect(series.first).to_have_text(  # the cards J Q T B N P, each with its colour
        re.compile(rf"^J\d Q\d T\d B\d N\d P\d from column {int(first[1:]) + 1} \(move\s")
    )
    expect(series.first).to_have_text(re.compile(rf"\(move\s{removals[0] + 1}\)$"))
    expect(page.locator("#checked-result")).to_have_text(
        f"Won: all nine series removed in {moves} moves (the neutrals then leave too)."
    )
    expect(page.locator("#checked-lines")).to_be_hidden()  # solodrez scores no lines
    if os.environ.get("CARDPROOF_SCREENSHOTS"):  # to look at
        folder = Path(os.environ["CARDPROOF_SCREENSHOTS"])
        page.screenshot(path=str(folder / "verify-solodrez-390.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
        page.screenshot(path=str(folder / "verify-solodrez-1280.png"), full_page=True)
    area.fill(stopped)  # stopped at once: no series, the columns as it ended
    page.get_by_role("button", name="Verify").click()
    expect(page.locator("#checked-result")).to_have_text(
        "Not won: 0 of 9 series removed; stopped before any move, with 56 cards on the table."
    )
    expect(page.get_by_role("group", name="the nine columns as the game ended")).to_be_visible()
    expect(status).to_have_text(re.compile(r"^Verified"))
    edges = json.loads(Path("tests/vectors/receipt-edges-v1.json").read_text())["cases"]
    reasons = {
        "utf8-invalid-byte": r"malformed: the receipt cannot be read \(a part is not valid UTF-8\)",
        "header-kid-number": r"malformed: the header\'s kid 5 is not a string",
        "grid-hand-level-null": (
            r"malformed: score\.hands\[0\]\.level is null: a hand member is absent or of its type"
        ),
    }
    for name, reason in reasons.items():  # refused before any key is looked for
        area.fill(next(c["receipt"] for c in edges if c["name"] == name))
        page.get_by_role("button", name="Verify").click()
        expect(status).to_have_text(re.compile(rf"^Not verified: {reason}\.$"))
        expect(page.locator("#checked")).to_be_hidden()
    assert not recorder.outside(web_server)
    page.close()
