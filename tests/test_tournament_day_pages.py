"""The pages of a lockstep tournament day, phase by phase, in headless Chromium.

One real ``cardproof serve`` (memory store) for the module, as tests/test_tournament_day.py.
A day is played as a person plays it: the organizer's page at 1280 wide, Ann on a phone
(390 x 844), Cy at 1280 wide, Bob through the API. Each page must say what a person needs
where they look: the seat's button in the words the page uses everywhere, the organizer's
line in one form from round to round, a hint before the Start button appears, a Close
action that asks first, the standings linked, the tournament's name while seated, the
result and the close's explanation on the phone's first screen, the closed state, the
par once it is known, and a receipt saved before the close verified in full after it, on
``/verify`` and on the page that played it. Then the notices of an idle seat, the invite
gate on a phone, and how ``/verify`` counts a solodrez log that ends with a stop.
Screenshots go to ``CARDPROOF_SCREENSHOTS`` if set (to look at).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from test_tournament_day import PHONE, WIDE, open_page
from test_tournament_day import create as create_day
from test_web import ROW_ORDER, SNAKE, serve_with_organizer

CY = ROW_ORDER[::-1]


@pytest.fixture(scope="module")
def organized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``cardproof serve`` on the memory store with an organizer; its URL and key."""
    directory = tmp_path_factory.mktemp("organizers")
    with serve_with_organizer(directory, "Day Club", CARDPROOF_PAR_BUDGET="0.3") as served:
        yield served


def create(base_url: str, key: str, **fields: Any) -> dict[str, Any]:
    """A lockstep poker-squares tournament open now, 30 s a card (``fields`` change it)."""
    return create_day(base_url, f"Bearer {key}", **{"card_seconds": 30, **fields})


def box(page: Any, selector: str) -> dict[str, float]:
    """An element's box, in the viewport as it stands (the page not scrolled)."""
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return dict(found)


def on_first_screen(page: Any, *selectors: str) -> None:
    """Each element is drawn whole within the first screen, the page not scrolled."""
    from playwright.sync_api import expect

    assert page.evaluate("() => window.scrollY") == 0
    for selector in selectors:
        expect(page.locator(selector).first).to_be_visible()
        where = box(page, selector)
        assert where["y"] >= 0, (selector, where)
        assert where["y"] + where["height"] <= page.viewport_size["height"], (selector, where)


def shoot(page: Any, name: str) -> None:
    """A screenshot of the page to look at, if CARDPROOF_SCREENSHOTS names a folder."""
    folder = os.environ.get("CARDPROOF_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


class Bob:
    """An entrant who plays through the API: enters, takes seats, places cards."""

    def __init__(self, base_url: str, tid: str) -> None:
        self.base_url, self.tid = base_url, tid
        entered = httpx.post(f"{base_url}/v1/tournaments/{tid}/entries", json={"name": "Bob"})
        assert entered.status_code == 201, entered.text
        self.headers = {"Authorization": f"Bearer {entered.json()['token']}"}
        self.deal = ""

    def sit(self, round_number: int) -> None:
        seated = httpx.post(
            f"{self.base_url}/v1/tournaments/{self.tid}/rounds/{round_number}/deal",
            json={},
            headers={**self.headers, "Idempotency-Key": str(uuid.uuid4())},
        )
        assert seated.status_code == 201, seated.text
        self.deal = seated.json()["deal_id"]

    def place(self, index: int) -> None:
        placed = httpx.post(
            f"{self.base_url}/v1/deals/{self.deal}/moves",
            json={"index": index, "move": SNAKE[index]},
            headers=self.headers,
        )
        assert placed.status_code == 200, placed.text


def test_a_lockstep_day_reads_right_on_every_page(
    chromium: Any, organized: tuple[str, str]
) -> None:
    from playwright.sync_api import expect

    base_url, key = organized
    tid = create(base_url, key)["tournament"]["tournament_id"]
    url = f"{base_url}/play?tournament={tid}"
    standings_page = f"/tournaments/{tid}"

    # the organizer: a link to the standings, a Close action, and a hint where Start will be
    organizer = open_page(chromium, url, WIDE)
    organizer.get_by_text("Organizing this tournament?").click()
    organizer.get_by_label("Organizer's key").fill(key)
    organizer.get_by_role("button", name="Organize", exact=True).click()
    seated = organizer.locator("#t-seated")
    hint = organizer.locator("#t-start-hint")
    expect(seated).to_have_text("Round 1: nobody has entered yet; nobody seated yet.")
    expect(hint).to_have_text(
        "The Start round 1 button appears here once an entrant takes a seat (on their page: "
        "Take your seat for round 1)."
    )
    expect(organizer.get_by_role("button", name="Start round 1")).to_be_hidden()
    expect(organizer.get_by_role("link", name="Standings page")).to_have_attribute(
        "href", standings_page
    )
    close = organizer.get_by_role("button", name="Close the tournament…")
    expect(close).to_be_visible()

    # Ann on a phone, Cy at 1280, Bob by the API: the seat's button says what it does
    ann = open_page(chromium, url, PHONE)
    cy = open_page(chromium, url, WIDE)
    for page, name in ((ann, "Ann"), (cy, "Cy")):
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Enter", exact=True).click()
        expect(page.locator("#t-entered")).to_have_text(f"Entered as {name}.")
        expect(page.locator("#t-note")).to_have_text(
            "Round 1 starts when the organizer starts it: take your seat before then."
        )
        expect(page.get_by_role("button", name="Play round 1")).to_have_count(0)
    bob = Bob(base_url, tid)
    expect(seated).to_have_text("Round 1: 3 entered (Ann, Bob, Cy); nobody seated yet.")
    for page in (ann, cy):
        page.get_by_role("button", name="Take your seat for round 1").click()
        expect(page.locator("#deadline")).to_have_text("Seated: waiting for the first call.")
    # seated, the phone still names the tournament, on its first screen with the grid
    expect(ann.locator("h1")).to_have_text("Day Cup")
    on_first_screen(ann, "h1", "#deadline", "#grid")
    bob.sit(1)
    expect(seated).to_have_text("Round 1: 3 entered (Ann, Bob, Cy); 3 seated.")
    expect(hint).to_contain_text("Start round 1 calls its first card to the 3 seated")
    shoot(organizer, "day-organizer-seated-1280")
    organizer.get_by_role("button", name="Start round 1").click()
    for step in range(25):
        for page in (ann, cy):
            expect(page.locator("#next-label")).to_have_text(f"Card {step + 1} of 25")
        bob.place(step)
        ann.get_by_role("button", name=ROW_ORDER[step], exact=True).click()
        cy.get_by_role("button", name=CY[step], exact=True).click()

    # after round 1: the phone's result on its first screen; the organizer's line keeps its form
    final = ann.locator("#final-score")
    expect(final).to_have_text(re.compile(r"^Final score: \d+$"))
    total = int(str(final.text_content()).split()[-1])
    expect(ann.locator("#deadline")).to_have_text(f"The round is over. Your final score: {total}.")
    expect(ann.get_by_role("status")).to_have_text(re.compile(r"^Not verified yet: "))
    expect(cy.get_by_role("status")).to_have_text(re.compile(r"^Not verified yet: "))
    on_first_screen(ann, "#deadline", "#grid", "#final-score")
    shoot(ann, "day-after-round-1-390")
    expect(seated).to_have_text("Round 2: 3 entered (Ann, Bob, Cy); nobody seated yet.")
    expect(hint).to_contain_text("The Start round 2 button appears here once an entrant")
    receipt = ann.get_by_label("Receipt (compact JWS)").input_value()

    # /verify, the tournament open: not yet, and why
    checker = open_page(chromium, f"{base_url}/verify", PHONE)
    checker.get_by_label("Receipt", exact=True).fill(receipt)
    checker.get_by_role("button", name="Verify").click()
    verdict = checker.get_by_role("status")
    expect(verdict).to_have_text(
        re.compile(r'^Not verified yet: the signature holds; "Day Cup" is still open \(it closes')
    )
    expect(verdict).to_have_class("pending")

    # round 2: Ann sits and places a card; Cy stays on round 1's result; then the close
    ann.get_by_role("button", name="Take your seat for round 2").click()
    bob.sit(2)
    expect(seated).to_have_text("Round 2: 3 entered (Ann, Bob, Cy); 2 seated.")
    organizer.get_by_role("button", name="Start round 2").click()
    expect(ann.locator("#next-label")).to_have_text("Card 1 of 25")
    bob.place(0)
    ann.get_by_role("button", name="a1", exact=True).click()
    expect(seated).to_contain_text("Round 2: card 2 of 25 called")
    close.click()  # asked first: keeping it open closes nothing
    dialog = organizer.get_by_role("dialog")
    expect(dialog).to_contain_text("Close the tournament now?")
    dialog.get_by_role("button", name="Keep it open").click()
    expect(dialog).to_be_hidden()
    assert httpx.get(f"{base_url}/v1/tournaments/{tid}").json()["status"] == "open"
    close.click()
    dialog.get_by_role("button", name="Close it now").click()
    expect(organizer.locator("#t-closed")).to_contain_text("This tournament is closed")
    expect(close).to_be_hidden()
    tournament = httpx.get(f"{base_url}/v1/tournaments/{tid}").json()
    assert tournament["status"] == "closed"

    # the phone after the close: its name, the closed state linking the standings, and the
    # close's explanation, its score and its grid on the first screen
    expect(ann.locator("#deadline")).to_contain_text(
        "The organizer closed the tournament after 2 of the round's 25 cards were called"
    )
    expect(ann.locator("#deadline")).to_contain_text("Your final score: ")
    expect(ann.locator("#t-closed")).to_contain_text("This tournament is closed")
    expect(ann.locator("#t-closed").get_by_role("link", name="standings page")).to_have_attribute(
        "href", standings_page
    )
    expect(ann.locator("h1")).to_have_text("Day Cup")
    expect(ann.locator("#t-yours")).to_contain_text("Your games, Ann")
    on_first_screen(ann, "h1", "#t-closed", "#deadline", "#grid")
    shoot(ann, "day-closed-live-390")
    # Cy's page kept round 1's result: its receipt is now checked with the revealed seed
    expect(cy.get_by_role("status")).to_have_text(re.compile(r"^Verified: "))
    expect(cy.get_by_role("status")).to_contain_text("revealed by the closed tournament")
    # /verify, the receipt saved before the close: verified in full now
    checker.get_by_role("button", name="Verify").click()
    expect(verdict).to_have_text("Verified: every check below holds.")
    checks = checker.locator("#checks li")
    expect(checks.filter(has_text="revealed by the closed tournament")).to_have_count(1)
    expect(checks.filter(has_text="score the receipt's total")).to_have_count(1)
    expect(checks.filter(has_text="standings count it: Ann, round 1")).to_have_count(1)
    shoot(checker, "day-verify-after-close-390")

    # the par, once solved, on the pages already open (they ask again until it is known)
    deadline = time.monotonic() + 90
    standings_url = f"{base_url}/v1/tournaments/{tid}/standings"
    while len((standings := httpx.get(standings_url).json()).get("pars", [])) < 2:
        assert time.monotonic() < deadline, standings
        time.sleep(0.5)
    pars = {par["round"]: par["score"] for par in standings["pars"]}
    expect(ann.locator("#t-yours figcaption").first).to_contain_text(
        f"Round 1: {total} (par {pars[1]} ", timeout=15_000
    )
    expect(ann.locator("#par")).to_contain_text(f"Round 2's par {pars[2]} (")
    expect(cy.locator("#par")).to_contain_text(f"Round 1's par {pars[1]} (", timeout=15_000)
    expect(ann.locator("#t-pars-pending")).to_have_count(0)

    # reloaded, the phone shows the closed tournament: the player's own games first
    ann.reload()
    ann.wait_for_selector("body[data-ready]")
    expect(ann.locator("#t-closed")).to_contain_text("This tournament is closed")
    on_first_screen(ann, "h1", "#t-closed", "#t-yours-title", "#t-yours figure")
    expect(ann.locator("#t-yours figcaption").nth(1)).to_contain_text(
        "Round 2 (cut short by the close: 2 of 25 cards called, the rest placed for you)"
    )
    expect(ann.locator("#t-after table").first).to_contain_text("% of par")
    shoot(ann, "day-closed-390")
    for page in (organizer, ann, cy, checker):
        page.context.close()


def test_an_idle_seats_notices_replace_each_other_and_go(
    chromium: Any, organized: tuple[str, str]
) -> None:
    """A card placed for an idle seat is said once, in one line that is replaced, never
    one that grows; a one-off message goes at the next call."""
    from playwright.sync_api import expect

    base_url, key = organized
    tid = create(base_url, key, rounds=1, card_seconds=2)["tournament"]["tournament_id"]
    phone = open_page(chromium, f"{base_url}/play?tournament={tid}", PHONE)
    phone.get_by_label("Your name").fill("Ann")
    phone.get_by_role("button", name="Enter", exact=True).click()
    message = phone.locator("#message")
    expect(message).to_contain_text("Your entry's token is kept in this browser")
    phone.get_by_role("button", name="Take your seat for round 1").click()
    expect(message).to_have_text("Your game of round 1 is open here.")
    started = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/rounds/1/start",
        json={},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert started.status_code == 200, started.text
    expect(phone.locator("#next-label")).to_have_text("Card 1 of 25")
    expect(message).to_have_text("")  # the call came: the seat's notice went
    auto = phone.locator("#t-auto")
    expect(auto).to_have_text(
        re.compile(r"^Placed for you when time ran out: \S+ at a1\.$"), timeout=8000
    )
    expect(message).to_have_text(re.compile(r"^Time's up: \S+ was placed for you at a1\.$"))
    for cell, count in (("b1", 2), ("c1", 3)):  # one line, the latest, and how many
        expect(auto).to_have_text(
            re.compile(
                rf"^Placed for you when time ran out: \S+ at {cell} \({count} cards so far\)\.$"
            ),
            timeout=8000,
        )
        expect(message).to_have_text(
            re.compile(rf"^Time's up: \S+ was placed for you at {cell}\.$")
        )
    phone.get_by_role("button", name="e5", exact=True).click()  # the seat plays again
    expect(message).to_have_text("Played e5.")
    expect(auto).to_have_text(
        re.compile(r"^Placed for you when time ran out: \S+ at [a-e]\d \(\d+ cards so far\)\.$")
    )
    phone.context.close()


def test_the_invite_gate_keeps_the_command_whole_and_links_in_the_sites_colour(
    chromium: Any, organized: tuple[str, str]
) -> None:
    from playwright.sync_api import expect

    base_url, key = organized
    tid = create(base_url, key, entry="invite", invites=1, rounds=1)["tournament"]["tournament_id"]
    page = open_page(chromium, f"{base_url}/tournaments/{tid}", PHONE)
    expect(page.locator("h1")).to_have_text("An invite-only tournament")
    command = page.locator("code", has_text="cardproof tournament")
    expect(command).to_have_text("cardproof tournament enter")
    # each word of the command on one line: it wraps at its spaces only
    lines = command.evaluate(
        """code => {
            const text = code.firstChild;
            const words = [];
            let at = 0;
            for (const word of text.data.split(" ")) {
                const range = document.createRange();
                range.setStart(text, at);
                range.setEnd(text, at + word.length);
                const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                words.push([word, tops.size]);
                at += word.length + 1;
            }
            return words;
        }"""
    )
    assert lines == [["cardproof", 1], ["tournament", 1], ["enter", 1]], lines
    link = page.get_by_role("link", name="tournament page")
    assert link.evaluate("a => getComputedStyle(a).color") == "rgb(28, 79, 138)"
    shoot(page, "day-gate-390")
    page.context.close()


def solodrez_one_move_then_stop(base_url: str) -> str:
    """A committed solodrez receipt of one legal move, then a stop."""
    from cardproof.games.solodrez import SoloDrez
    from cardproof.pokerdrez import parse_pokerdrez_cards

    with httpx.Client(base_url=base_url, timeout=30) as http:
        commitment = http.post("/v1/commitments", json={}).json()
        dealt = http.post(
            "/v1/deals",
            json={
                "variant": "solodrez",
                "commitment_id": commitment["commitment_id"],
                "client_seed": "one move then stop",
            },
        ).json()
        columns = [parse_pokerdrez_cards(column) for column in dealt["view"]["columns"]]
        game = SoloDrez.from_columns(columns)
        move = next(m for m in game.legal_moves() if SoloDrez.move_text(m) != "stop")
        for index, text in enumerate((SoloDrez.move_text(move), "stop")):
            played = http.post(
                f"/v1/deals/{dealt['deal_id']}/moves", json={"index": index, "move": text}
            )
            assert played.status_code == 200, played.text
        receipt = str(http.get(f"/v1/deals/{dealt['deal_id']}/receipt").json()["receipt"])
    return receipt


def test_verify_counts_a_solodrez_stop_apart_from_the_moves(
    chromium: Any, organized: tuple[str, str]
) -> None:
    from playwright.sync_api import expect

    base_url, _ = organized
    receipt = solodrez_one_move_then_stop(base_url)
    page = open_page(chromium, f"{base_url}/verify", PHONE)
    page.get_by_label("Receipt", exact=True).fill(receipt)
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_role("status")).to_have_text(re.compile(r"^Verified"))
    expect(page.locator("#kind")).to_contain_text("receipt: 1 move, then stop, total ")
    expect(page.locator("#details")).to_contain_text(", 1 move, then stop, ")
    expect(page.locator("#checked-result")).to_have_text(
        re.compile(r"^Not won: \d of 9 series removed; stopped after 1 move, with 56 cards")
    )
    assert "2 moves" not in str(page.locator("main").inner_text())
    page.context.close()
