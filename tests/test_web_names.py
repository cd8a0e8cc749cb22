"""Every control of ``/play`` is named by what it shows, in each of the six variants.

In headless Chromium against a real ``cardproof serve`` (as tests/test_web.py): each
variant is dealt and a few moves are played by the page's own names. Before and after each
move, every visible button and every cell of the page has an accessible name (as
Playwright's aria snapshot reads it: what a screen reader announces) equal to its visible
text (``innerText``, white space collapsed), and not empty. The page's text counts reserve
and solodrez columns from 1 and never shows the API's 0-based move text (``2>4``,
``3:2>5``, ``r4``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from test_web import by_move, solodrez_play, solodrez_said, won_solodrez_deal

CONTROLS = "main button:visible, main [role=cell]:visible, main a[href]:visible"
"""What a person operates or reads cell by cell; hidden parts are nobody's to name."""
WIRE = re.compile(r"\b\d>\d\b|\b\d:\d+>\d\b")
"""The API's 0-based move texts of reserve-poker (``2>4``) and solodrez (``3:2>5``)."""
SNAPSHOT = re.compile(r'^(?P<role>[a-z]+)(?: (?P<name>"(?:[^"\\]|\\.)*"))?')


def accessible(element: Any) -> tuple[str, str]:
    """An element's role and accessible name, from the first line of its aria snapshot."""
    line = str(element.aria_snapshot()).splitlines()[0].removeprefix("- ")
    if line.startswith("'"):  # YAML quotes a key with a colon or a quote in it
        line = line[1 : line.rindex("'")].replace("''", "'")
    found = SNAPSHOT.match(line)
    assert found is not None, line
    name = found.group("name")
    return found.group("role"), json.loads(name) if name else ""


def misnamed(page: Any) -> list[str]:
    """Every visible control or cell whose accessible name is not its visible text."""
    controls = page.locator(CONTROLS)
    texts: list[str] = controls.evaluate_all(
        "els => els.map((el) => el.innerText.replace(/\\s+/g, ' ').trim())"
    )
    assert texts, "no control on the page"
    found = []
    for index, text in enumerate(texts):
        role, name = accessible(controls.nth(index))
        if not name or name != text:
            found.append(f"{role} shows {text!r} but is named {name!r}")
    return found


def check(page: Any, words: str = "") -> None:
    """No control named apart from what it shows; no 0-based move text on the page."""
    assert misnamed(page) == []
    shown = str(page.locator("main").inner_text())
    assert not WIRE.search(shown), WIRE.search(shown)
    if words:
        assert words in shown, (words, shown)


def refused_move(columns: list[list[str]]) -> tuple[int, int]:
    """An exposed card and a column it cannot go on (0-based): one that does not end one
    figure above it, or that ends in a Pawn, neither card a neutral nor a Joker."""
    figures = "JQTBNP"
    for source, column in enumerate(columns):
        card = column[-1][0] if column else "X"
        if card in "XJ":
            continue
        for target, other in enumerate(columns):
            last = other[-1][0] if other else "X"
            if target != source and last != "X" and figures.index(last) != figures.index(card) - 1:
                return source, target
    raise AssertionError(f"no refused move in {columns}")


def dealt(page: Any, base_url: str, variant: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{base_url}/play?variant={variant}")
    page.wait_for_selector("body[data-ready]")
    check(page)  # before a deal: the setup and the empty board
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#next-label")).to_have_text(re.compile(r"^(Card 1 of|Level 1|Move 1)"))


@pytest.mark.parametrize(
    ("variant", "moves"),
    [
        ("poker-squares", ["a1", "b2", "c3"]),
        ("poker-patience", ["0,0", "0,1", "1,0"]),
        ("serpent-patience", ["a1", "a2", "b2"]),
        ("repeat-poker", ["r1", "r2", "r1"]),
    ],
)
def test_cells_and_rows_are_named_by_what_they_show(
    chromium: Any, web_server: str, variant: str, moves: list[str]
) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 1000})
    dealt(page, web_server, variant)
    check(page)
    for move in moves:
        by_move(page, move).click()
        expect(page.locator("#message")).to_have_text(f"Played {move}.")
        check(page, f"Played {move}.")
        name = accessible(by_move(page, move))[1]
        assert name.startswith(f"{move} "), name  # its move, then its card
        assert len(name) > len(move) + 1, name
    page.close()


def test_the_reserve_and_its_gravity_grid_are_named_by_what_they_show(
    chromium: Any, web_server: str
) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 1100})
    dealt(page, web_server, "reserve-poker")
    assert page.locator("main [role=cell]").count() == 25  # every cell of the grid, named
    check(page)
    for source, column in [(1, "a"), (2, "a"), (4, "c")]:
        reserve = page.get_by_role("button", name=re.compile(rf"^Reserve {source} "))
        face_up = str(reserve.locator(".card:not(.back)").last.inner_text())
        assert accessible(reserve)[1].endswith(f" face down {face_up}")  # its face-up card
        reserve.click()
        expect(page.locator("#message")).to_have_text(
            f"Reserve {source} chosen: now a grid column, col a to col e."
        )
        check(page)
        page.get_by_role("button", name=f"col {column}", exact=True).click()
        said = f"Played Reserve {source} to col {column}."
        expect(page.locator("#message")).to_have_text(said)
        check(page, said)
    cell = page.get_by_role("cell", name=re.compile(r"^a4 "))  # the second card into col a
    assert accessible(cell)[1] == str(cell.inner_text()).replace("\n", " ")
    page.close()


def test_solodrez_cards_and_columns_are_named_by_what_they_show(
    chromium: Any, web_server: str
) -> None:
    from playwright.sync_api import expect

    page = chromium.new_page(viewport={"width": 1000, "height": 1200})
    page.goto(f"{web_server}/play?variant=solodrez")
    page.wait_for_selector("body[data-ready]")
    columns, solved = won_solodrez_deal(page, web_server)  # to play its first moves
    check(page)
    for column in range(1, 10):  # the columns are counted from 1, as their names say
        group = page.get_by_role("group", name=f"column {column}", exact=True)
        expect(group.get_by_role("button", name=f"to {column}", exact=True)).to_have_count(1)
        last = group.locator(".pick").last
        assert accessible(last)[1] == columns[column - 1][-1]  # a card is named by its card
    page.get_by_role("button", name="hint").click()
    expect(page.locator("#message")).to_have_text(re.compile(r"^hint: "))
    check(page, "hint: ")
    # a move the rules refuse is explained in the page's numbering, not the API's detail
    source, target = refused_move(columns)
    page.get_by_role("button", name=columns[source][-1], exact=True).click()
    page.get_by_role("button", name=f"to {target + 1}", exact=True).click()
    expect(page.locator("#message")).to_have_text(re.compile(r"^Not moved: "))
    check(page, f"column {target + 1}")
    for move in solved["log"].split()[:4]:
        solodrez_play(page, move)
        said = f"{solodrez_said(move)}."
        expect(page.locator("#message")).to_have_text(said)
        check(page, said)
        assert not re.search(r"\br\d\b", str(page.locator("main").inner_text()))
    page.close()
