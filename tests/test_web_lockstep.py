"""The tournament page ``/play?tournament=ID`` at a lockstep round, in headless Chromium.

Against a real ``cardproof serve`` (as tests/test_web.py): three entrants, one on a
phone's screen (390 x 844) and two at 1280 wide, enter a public lockstep tournament, take
their seats and play round 1 at once, while its organizer watches the seats fill and
starts the round, and a visitor sees entries close. Each page shows only what can be done
now; the phone shows the called card, the countdown, the grid and the placements without
scrolling. Screenshots go to ``CARDPROOF_SCREENSHOTS`` if set (to look at).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from test_web import ROW_ORDER, SNAKE, serve_with_organizer

ROOT = Path(__file__).resolve().parents[1]
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1280, "height": 900}
ORDERS = {"Ada": ROW_ORDER, "Bea": SNAKE, "Cy": ROW_ORDER[::-1]}
"""Each entrant's cells, card by card; Ada plays on the phone."""
CLOSED = (
    "Entries closed at {}, when round 1 started: every entrant is seated before the first call."
)


@pytest.fixture(scope="module")
def organized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``cardproof serve`` on the memory store; its URL and an organizer's key."""
    with serve_with_organizer(tmp_path_factory.mktemp("organizers"), "Club") as organized:
        yield organized


def lockstep_tournament(base_url: str, key: str) -> str:
    """A public two-round lockstep poker-squares tournament, open now; its id."""
    now = datetime.now(UTC)
    created = httpx.post(
        f"{base_url}/v1/tournaments",
        headers={"Authorization": f"Bearer {key}"},
        json={
            "name": "Table Cup",
            "variant": "poker-squares",
            "rounds": 2,
            "opens_at": (now - timedelta(hours=1)).isoformat(),
            "closes_at": (now + timedelta(hours=2)).isoformat(),
            "format": "lockstep",
            "card_seconds": 30,
            "entry": "public",
        },
    )
    assert created.status_code == 201, created.text
    tid: str = created.json()["tournament"]["tournament_id"]
    return tid


def on_screen(page: Any, *selectors: str) -> None:
    """Each element is visible inside the viewport as it stands: nothing to scroll to."""
    from playwright.sync_api import expect

    size = page.viewport_size
    header = page.locator("header").bounding_box()
    assert header is not None
    assert header["y"] == 0, header  # the page is not scrolled
    for selector in selectors:
        expect(page.locator(selector)).to_be_visible()
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert 0 <= box["y"] <= size["height"] - box["height"], (selector, box)
        assert 0 <= box["x"] <= size["width"] - box["width"], (selector, box)


def shoot(page: Any, folder: Path, name: str) -> None:
    """A screenshot of the viewport, and of the whole page."""
    page.screenshot(path=str(folder / f"{name}.png"))
    page.screenshot(path=str(folder / f"{name}-full.png"), full_page=True)
    assert (folder / f"{name}.png").stat().st_size > 10_000


def test_a_lockstep_round_at_three_tables(
    chromium: Any, organized: tuple[str, str], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    base_url, key = organized
    folder = Path(os.environ.get("CARDPROOF_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    tid = lockstep_tournament(base_url, key)
    contexts: list[Any] = []

    def open_page(viewport: dict[str, int]) -> Any:
        context = chromium.new_context(viewport=viewport, device_scale_factor=1)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{base_url}/play?tournament={tid}")
        page.wait_for_selector("body[data-ready]")
        return page

    # the organizer gives its key: the seats of round 1, and no entry form
    organizer = open_page(WIDE)
    organizer.get_by_text("Organizing this tournament?").click()
    organizer.get_by_label("Organizer's key").fill(key)
    organizer.get_by_role("button", name="Organize", exact=True).click()
    seated = organizer.locator("#t-seated")
    start = organizer.get_by_role("button", name="Start round 1")
    expect(seated).to_have_text("Round 1: nobody has entered yet; nobody seated yet.")
    expect(organizer.locator("#t-start-hint")).to_have_text(
        "The Start round 1 button appears here once an entrant takes a seat (on their page: "
        "Take your seat for round 1)."
    )
    expect(start).to_be_hidden()  # nobody to start it for
    expect(organizer.get_by_label("Your name")).to_be_hidden()

    visitor = open_page(WIDE)
    expect(visitor.locator("#t-entered")).to_have_text("Entries close when round 1 starts.")
    expect(visitor.get_by_label("Your name")).to_be_visible()

    players = {name: open_page(PHONE if name == "Ada" else WIDE) for name in ORDERS}
    for count, (name, page) in enumerate(players.items(), start=1):
        expect(page.get_by_role("button", name="Take your seat for round 1")).to_have_count(0)
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Enter", exact=True).click()
        expect(page.locator("#t-entered")).to_have_text(f"Entered as {name}.")
        expect(page.get_by_label("Your name")).to_be_hidden()
        expect(page.get_by_text("Organizing this tournament?")).to_be_hidden()
        page.get_by_role("button", name="Take your seat for round 1").click()
        expect(page.locator("#deadline")).to_have_text("Seated: waiting for the first call.")
        expect(page.get_by_role("button", name="Take your seat for round 1")).to_have_count(0)
        entered = ", ".join(list(ORDERS)[:count])  # who has entered, and how many sit
        expect(seated).to_contain_text(f"Round 1: {count} entered ({entered}); {count} seated.")
        expect(start).to_be_visible()
    expect(players["Ada"].locator("#t-placed")).to_have_text("3 seated so far.")
    shoot(players["Ada"], folder, "seated-390")
    shoot(organizer, folder, "organizer-seated-1280")

    start.click()
    expect(start).to_be_hidden()
    expect(seated).to_have_text("Round 1: card 1 of 25 called, 0 of 3 placed.")
    closed_at = httpx.get(f"{base_url}/v1/tournaments/{tid}").json()["entries_closed_at"]
    expect(visitor.locator("#t-entered")).to_have_text(CLOSED.format(closed_at))
    expect(visitor.get_by_label("Your name")).to_be_hidden()
    expect(visitor.get_by_role("button", name="Enter", exact=True)).to_be_hidden()
    shoot(visitor, folder, "entries-closed-1280")

    # the phone's table: the card, the countdown, the placements and the grid on one screen
    phone, wide = players["Ada"], players["Bea"]
    timer = phone.locator("#deadline")
    expect(timer).to_have_text(re.compile(r"^\d+ s left to place it\.$"))
    expect(phone.locator("#t-placed")).to_have_text("0 of 3 placed")
    on_screen(phone, "#next-card", "#deadline", "#t-placed", "#grid")
    shown = str(timer.text_content())
    status = httpx.get(f"{base_url}/v1/tournaments/{tid}/rounds/1").json()
    left = int(re.findall(r"\d+", shown)[0])
    assert abs(left - status["seconds_left"]) <= 2, (shown, status)  # from the deadline
    polls = re.compile(rf"/v1/tournaments/{tid}/rounds/1$")
    phone.route(polls, lambda route: route.abort())  # no status to redraw it: the clock alone
    expect(timer).not_to_have_text(shown)  # it ticks
    phone.unroute(polls)
    shoot(phone, folder, "round-390")
    shoot(wide, folder, "round-1280")

    for step in range(25):
        for name, page in players.items():
            if (step, name) == (3, "Ada"):  # a reload comes back to the table, at the call
                page.reload()
                page.wait_for_selector("body[data-ready]")
            expect(page.locator("#next-label")).to_have_text(f"Card {step + 1} of 25")
            expect(page.locator("#deadline")).to_have_text(
                re.compile(r"^\d+ s left to place it\.$")
            )
            page.get_by_role("button", name=ORDERS[name][step], exact=True).click()
            if step > 0:
                continue
            if name == "Ada":  # the others see the placement; Ada waits for them
                expect(phone.locator("#t-placed")).to_have_text("Waiting for 2 of 3.")
                expect(timer).to_have_text(
                    re.compile(r"^Placed: the next call comes within \d+ s\.$")
                )
                expect(wide.locator("#t-placed")).to_have_text("1 of 3 placed")
                expect(seated).to_have_text("Round 1: card 1 of 25 called, 1 of 3 placed.")
                on_screen(phone, "#deadline", "#t-placed", "#grid")
                shoot(phone, folder, "placed-390")
            elif name == "Bea":
                expect(phone.locator("#t-placed")).to_have_text("Waiting for 1 of 3.")
                expect(wide.locator("#t-placed")).to_have_text("Waiting for 1 of 3.")
                expect(players["Cy"].locator("#t-placed")).to_have_text("2 of 3 placed")
                shoot(wide, folder, "placed-1280")

    # after the round: its standings, and the next round to take a seat in
    standings = httpx.get(f"{base_url}/v1/tournaments/{tid}/standings").json()["entrants"]
    cells = [str(v) for s in standings for v in (s["rank"], s["name"], s["total"], 1)]
    assert {s["games_finished"] for s in standings} == {1}
    for page in [*players.values(), organizer]:
        expect(page.locator("#t-standings caption")).to_have_text("Standings after round 1")
        expect(page.locator("#t-standings td")).to_have_text(cells)
    for page in players.values():
        expect(page.locator("#deadline")).to_have_text(
            re.compile(r"^The round is over\. Your final score: \d+\.$")
        )
        expect(page.locator("#t-placed")).to_have_text("")
        expect(page.get_by_role("button", name="Take your seat for round 2")).to_be_visible()
    expect(seated).to_have_text("Round 2: 3 entered (Ada, Bea, Cy); nobody seated yet.")
    expect(organizer.get_by_role("button", name="Start round 2")).to_be_hidden()
    shoot(phone, folder, "after-390")
    shoot(wide, folder, "after-1280")
    shoot(organizer, folder, "organizer-1280")

    # round 2 on the phone: the standings after round 1 go below the live call, so the
    # card, the clock and the whole grid are still on one screen
    for name in ("Ada", "Bea"):
        players[name].get_by_role("button", name="Take your seat for round 2").click()
        expect(players[name].locator("#deadline")).to_have_text(
            "Seated: waiting for the first call."
        )
    expect(seated).to_have_text("Round 2: 3 entered (Ada, Bea, Cy); 2 seated.")
    organizer.get_by_role("button", name="Start round 2").click()
    expect(timer).to_have_text(re.compile(r"^\d+ s left to place it\.$"))
    expect(phone.locator("#t-standings caption")).to_have_text("Standings after round 1")
    on_screen(phone, "#next-card", "#deadline", "#t-placed", "#grid")
    grid, table = (
        phone.locator("#grid").bounding_box(),
        phone.locator("#t-standings").bounding_box(),
    )
    assert table["y"] >= grid["y"] + grid["height"], (grid, table)  # a big field's table too
    shoot(phone, folder, "round-2-390")
    for context in contexts:
        context.close()
