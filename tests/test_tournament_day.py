"""A lockstep tournament as people live it, in headless Chromium (issue 41).

One real ``cardproof serve`` (memory store, a 2 s clock a card) and one browser for the
module: an idle phone seat is told each card placed for it, and by whom a round was cut
short; the organizer's page names who has entered and counts who is seated; an unknown
tournament is a plain not-found; an invite-only tournament's standings link opens in a
browser and asks for the invite code or the entry, then shows the standings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from cardproof.cards import Card
from test_web import SYMBOLS, serve_with_organizer

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def organized(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``cardproof serve`` on the memory store with an organizer; its URL and key."""
    directory = tmp_path_factory.mktemp("organizers")
    with serve_with_organizer(directory, "Day Club", CARDPROOF_PAR_BUDGET="0.3") as (url, key):
        yield url, f"Bearer {key}"


def create(base_url: str, owner: str, **fields: Any) -> dict[str, Any]:
    """A tournament open now (lockstep poker-squares unless ``fields`` say otherwise)."""
    now = datetime.now(UTC)
    body = {
        "name": "Day Cup",
        "variant": "poker-squares",
        "rounds": 2,
        "opens_at": (now - timedelta(hours=1)).isoformat(),
        "closes_at": (now + timedelta(hours=2)).isoformat(),
        "format": "lockstep",
        "entry": "public",
        **fields,
    }
    created = httpx.post(f"{base_url}/v1/tournaments", headers={"Authorization": owner}, json=body)
    assert created.status_code == 201, created.text
    found: dict[str, Any] = created.json()
    return found


def label(text: str) -> str:
    """A card as the page labels it: ``10♥``."""
    card = Card.parse(text)
    return f"{'10' if card.text[0] == 'T' else card.text[0]}{SYMBOLS[card.text[1]]}"


def open_page(chromium: Any, url: str, viewport: dict[str, int]) -> Any:
    """``url`` in a fresh context of ``viewport`` (CSS pixels as drawn), once it is ready."""
    page = chromium.new_context(viewport=viewport, device_scale_factor=1).new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    return page


def test_an_idle_phone_seat_is_told_each_card_placed_for_it_and_the_close(
    chromium: Any, organized: tuple[str, str]
) -> None:
    from playwright.sync_api import expect

    base_url, owner = organized
    tid = create(base_url, owner, card_seconds=2)["tournament"]["tournament_id"]
    url = f"{base_url}/play?tournament={tid}"
    organizer = open_page(chromium, url, WIDE)
    expect(organizer.locator("h1")).to_have_text("Day Cup")  # not "Play a committed game"
    organizer.get_by_text("Organizing this tournament?").click()
    organizer.get_by_label("Organizer's key").fill(owner.removeprefix("Bearer "))
    organizer.get_by_role("button", name="Organize").click()
    seated = organizer.locator("#t-seated")
    expect(seated).to_contain_text("Round 1: nobody has entered yet; nobody seated yet.")
    for name in ("Ada", "Bea"):
        entered = httpx.post(f"{base_url}/v1/tournaments/{tid}/entries", json={"name": name})
        assert entered.status_code == 201, entered.text
    phone = open_page(chromium, url, PHONE)
    phone.get_by_label("Your name").fill("Cy")
    phone.get_by_role("button", name="Enter").click()
    expect(phone.locator("#t-entered")).to_have_text("Entered as Cy.")
    expect(phone.locator("#message")).not_to_contain_text("Entered as")  # said once
    # entered, none seated: the organizer reads who has entered, not "nobody seated"
    expect(seated).to_contain_text("Round 1: 3 entered (Ada, Bea, Cy); nobody seated yet.")
    phone.get_by_role("button", name="Take your seat for round 1").click()
    expect(phone.locator("#deadline")).to_have_text("Seated: waiting for the first call.")
    expect(phone.locator("#commitment-line")).to_contain_text(
        "Round 1's commitment (SHA-256 of its server seed, fixed when the tournament was created)"
    )
    expect(phone.locator("#commitment-line")).not_to_contain_text("your seed")
    expect(phone.locator("#message")).to_have_text("Your game of round 1 is open here.")
    expect(seated).to_contain_text("Round 1: 3 entered (Ada, Bea, Cy); 1 seated.")
    organizer.get_by_role("button", name="Start round 1").click()
    status = httpx.get(f"{base_url}/v1/tournaments/{tid}/rounds/1").json()
    first = status["card"]
    expect(phone.locator("#next-label")).to_have_text("Card 1 of 25")
    expect(phone.locator("#deadline")).to_have_text(re.compile(r"^\d+ s left to place it"))
    # the seat does nothing: at the deadline its card is placed for it, and it is told
    told = phone.locator("#message")
    expect(told).to_have_text(f"Time's up: {label(first)} was placed for you at a1.", timeout=8000)
    expect(phone.locator("#t-auto")).to_have_text(
        re.compile(rf"^Placed for you when time ran out: {re.escape(label(first))} at a1")
    )
    expect(phone.get_by_role("button", name=re.compile(r"^a1 "))).to_have_text(
        re.compile(re.escape(label(first)))
    )
    # a second deadline passes: the line says the latest, and the grid still ends on the
    # phone's screen
    expect(phone.locator("#t-auto")).to_have_text(
        re.compile(r"^Placed for you when time ran out: .+ at b1 \(2 cards so far\)\.$"),
        timeout=8000,
    )
    grid = phone.locator("#grid").bounding_box()
    assert grid["y"] + grid["height"] <= PHONE["height"], grid
    # the organizer closes the tournament in mid-round: the seat reads that, not a timeout
    closed = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
    )
    assert closed.status_code == 200, closed.text
    called = httpx.get(f"{base_url}/v1/tournaments/{tid}/rounds/1").json()["called"]
    assert 1 < called < 25
    cut = (
        f"The organizer closed the tournament after {called} of the round's 25 cards were "
        "called: the rest of your game was placed for you"
    )
    expect(phone.locator("#deadline")).to_contain_text(cut)
    expect(phone.locator("#message")).to_have_text(
        "Your game of round 1 is over: the organizer closed the tournament."
    )
    expect(phone.locator("#deadline")).not_to_contain_text("The round is over")
    # the page after the close: when it closed, and round 1 cut short beside its grids
    phone.reload()
    phone.wait_for_selector("body[data-ready]")
    expect(phone.locator("#t-status")).to_contain_text(f"closed at {closed.json()['closed_at']}")
    expect(phone.locator("#t-after h3").first).to_have_text(
        re.compile(rf"^Round 1 \(cut short by the close: {called} of 25 cards called")
    )
    caption = phone.locator("#t-after caption").nth(1)  # "Settlement (each entrant's net)"
    assert caption.bounding_box()["height"] < 40  # on one line (31 px), on a phone
    for context in (phone.context, organizer.context):
        context.close()


def test_an_unknown_tournament_is_a_plain_not_found(
    chromium: Any, organized: tuple[str, str]
) -> None:
    from playwright.sync_api import expect

    base_url, _ = organized
    page = open_page(chromium, f"{base_url}/play?tournament=t_doesnotexist", PHONE)
    expect(page.locator("h1")).to_have_text("No such tournament")
    expect(page.locator("#t-status")).to_contain_text(
        "This server has no tournament t_doesnotexist"
    )
    expect(page.get_by_label("Invite code")).to_be_hidden()
    expect(page.get_by_label("Your name")).to_be_hidden()
    expect(page.get_by_text("Organizing this tournament?")).to_be_hidden()
    assert "invite code" not in (page.locator("main").text_content() or "")
    page.context.close()


def test_an_invite_only_standings_link_asks_for_the_code_or_the_entry(
    chromium: Any, organized: tuple[str, str]
) -> None:
    """The link ``tournament create --invites 2`` prints opens in a browser: it asks for
    the invite code or the entry's token, or finds the entry this browser made, then shows
    the standings; an API client still reads a 401 problem."""
    from playwright.sync_api import expect

    base_url, owner = organized
    created = create(base_url, owner, name="Club Night", entry="invite", invites=2, rounds=1)
    tid, codes = created["tournament"]["tournament_id"], created["invite_codes"]
    ada = httpx.post(
        f"{base_url}/v1/tournaments/{tid}/entries", json={"name": "Ada", "invite_code": codes[0]}
    ).json()
    link = f"{base_url}/tournaments/{tid}"
    problem = httpx.get(link, headers={"Accept": "application/json"})
    assert (problem.status_code, problem.headers["content-type"]) == (
        401,
        "application/problem+json",
    )
    # an invite holder: the code, once a wrong one was refused
    holder = open_page(chromium, link, PHONE)
    expect(holder.locator("h1")).to_have_text("An invite-only tournament")
    assert "needs an organizer key" not in (holder.content())
    holder.get_by_label("Invite code or entry token").fill("not-a-code")
    holder.get_by_role("button", name="Show the standings").click()
    expect(holder.get_by_role("status")).to_have_text(
        "That invite code or token does not open this tournament's standings."
    )
    holder.get_by_label("Invite code or entry token").fill(codes[1])
    holder.get_by_role("button", name="Show the standings").click()
    expect(holder.locator("h1")).to_have_text("Club Night")
    expect(holder.locator("#standings tr.entrant")).to_have_attribute("data-name", "Ada")
    holder.reload()  # the code is kept for this tab: the standings open by themselves
    holder.wait_for_selector("body[data-ready]")
    expect(holder.locator("h1")).to_have_text("Club Night")
    # an entrant of the CLI: the token from its entry file
    cli = open_page(chromium, link, WIDE)
    cli.get_by_label("Invite code or entry token").fill(ada["token"])
    cli.get_by_label("Invite code or entry token").press("Enter")
    expect(cli.locator("#standings")).to_contain_text("Ada")
    # an entrant of this browser: /play keeps the entry, and the standings open by themselves
    bea = open_page(chromium, f"{base_url}/play?tournament={tid}", PHONE)
    bea.get_by_label("Your name").fill("Bea")
    bea.get_by_label("Invite code").fill(codes[1])
    bea.get_by_role("button", name="Enter").click()
    expect(bea.locator("#t-entered")).to_have_text("Entered as Bea.")
    bea.goto(link)
    bea.wait_for_selector("body[data-ready]")
    expect(bea.locator("h1")).to_have_text("Club Night")
    expect(bea.locator("#standings")).to_contain_text("Bea")
    for page in (holder, cli, bea):
        page.context.close()
