"""The site as a person meets it: the home page, one header on every page, the icon, the 404.

In process, then in headless Chromium (the API reference draws its header in a script;
every page loads without a console error). A 404 is a page for a browser and problem
details for an API client, chosen by ``Accept`` with its q-values, and says
``Vary: Accept`` either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.games import VARIANTS
from cardproof_service.front.controllers.web import STATIC_DIR
from cardproof_service.front.site import (
    FAVICON_LINK,
    NAVIGATION,
    PAGE_POLICY,
    prefers_html,
    site_header,
)
from conftest import CHROMIUM_ARGS, chromium_or_skip
from test_standings_page import played, server

HttpClient = TestClient[Litestar]
PAGES = Path(__file__).resolve().parents[1] / "service" / "web" / "pages"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
"""What Chromium asks for when it navigates."""

__all__ = ["server"]  # the fixture, from the standings page's tests


def standings_path(client: HttpClient, owner: str) -> str:
    tid = played(client, owner)
    return f"/tournaments/{tid}"


# --- in process ----------------------------------------------------------------------------


def test_the_home_page_says_what_cardproof_is_and_where_to_go(client: HttpClient) -> None:
    answer = client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert answer.headers["content-security-policy"] == PAGE_POLICY
    page = answer.text
    assert "<h1>cardproof</h1>" in page
    links = set(re.findall(r'href="([^"]+)"', page))
    assert {"/", "/play", "/verify", "/schema", "/schema/openapi.json"} <= links
    for variant_id in VARIANTS:  # every variant, named and playable from here
        assert f'<a href="/play?variant={variant_id}">' in page, variant_id
        assert f"<code>{variant_id}</code>" in page, variant_id
    assert len(re.findall(r"<dt>", page)) == len(VARIANTS)
    for link in links:
        assert client.get(link).status_code == 200, link


def test_every_page_has_the_one_site_header(client: HttpClient, owner: str) -> None:
    """The same header, its current section marked, on every page a person opens."""
    pages = {
        "/": "/",
        "/play": "/play",
        "/verify": "/verify",
        standings_path(client, owner): None,
    }
    for path, current in pages.items():
        page = client.get(path).text
        assert site_header(current) in page, path
        assert page.count('<header class="site">') == 1, path
        assert FAVICON_LINK in page, path
    missing = client.get("/tournaments/t_nothing", headers={"Accept": BROWSER}).text
    assert site_header() in missing
    assert FAVICON_LINK in missing
    sources = {"index.html": "/", "play.html": "/play", "verify.html": "/verify"}
    for name, current in sources.items():  # the sources, and their built copies, alike
        for folder in (PAGES, STATIC_DIR / "web"):
            assert site_header(current) in (folder / name).read_text(encoding="utf-8"), name
    header = site_header("/verify")
    assert [href for href, _ in NAVIGATION] == ["/play", "/verify", "/schema"]
    assert re.findall(r'href="([^"]+)"', header) == ["/", "/play", "/verify", "/schema"]
    assert header.count('aria-current="page"') == 1
    assert '<a href="/verify" aria-current="page">Verify</a>' in header


def test_the_api_reference_script_draws_the_same_header() -> None:
    script = (PAGES / "swagger-init.js").read_text(encoding="utf-8")
    listed = re.findall(r'\["(/\w*)", "([^"]+)"\]', script)
    assert tuple(listed) == NAVIGATION
    assert "/static/swagger/swagger-nav.css" in script
    assert (STATIC_DIR / "swagger" / "swagger-nav.css").is_file()  # the build copies it there


def test_the_icon_is_served_where_browsers_look(client: HttpClient) -> None:
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.headers["x-content-type-options"] == "nosniff"
    assert icon.headers["content-security-policy"] == "default-src 'none'"
    assert icon.content.startswith(b"<svg ")
    linked = client.get("/static/web/favicon.svg")
    assert linked.status_code == 200
    assert linked.content == icon.content == (PAGES / "favicon.svg").read_bytes()
    assert "img-src 'self'" in PAGE_POLICY  # each page may load it


@pytest.mark.parametrize(
    ("accept", "html"),
    [
        (BROWSER, True),
        ("text/html", True),
        ("text/*", True),
        ("text/html, application/json;q=0.9", True),
        (None, False),
        ("*/*", False),
        ("application/json", False),
        ("application/problem+json", False),
        ("text/html, application/json", False),  # a tie: the API client's form
        ("application/json, text/html", False),
        ("text/html;q=0.5, */*", False),
        ("text/html;q=0, */*;q=0.1", False),
        ("text/html;q=0.4, application/json;q=0.3", True),
        ("image/avif,image/webp,image/*,*/*;q=0.8", False),  # Chromium fetching an image
        ("text/html;q=nonsense, */*;q=0.1", False),  # an unreadable q counts as 0
    ],
)
def test_a_404_is_chosen_by_accept(client: HttpClient, accept: str | None, html: bool) -> None:
    assert prefers_html(accept) is html
    for path in ("/tournaments/t_nothing", "/no/such/page", "/v1/deals/d_nothing"):
        request = client.build_request("GET", path)
        if accept is None:
            del request.headers["accept"]
        else:
            request.headers["accept"] = accept
        answer = client.send(request)
        assert answer.status_code == 404, path
        assert answer.headers["vary"] == "Accept", path
        if html and not path.startswith("/v1/"):  # the API's 404s keep their problem
            assert answer.headers["content-type"] == "text/html; charset=utf-8"
            assert answer.headers["content-security-policy"] == PAGE_POLICY
            assert "<h1>Not found</h1>" in answer.text
            assert int(answer.headers["content-length"]) == len(answer.content)
        else:
            assert answer.headers["content-type"] == "application/problem+json"
            assert answer.json()["status"] == 404


def test_the_404_page_says_what_is_missing_and_escapes_the_path(client: HttpClient) -> None:
    page = client.get("/tournaments/t_nothing", headers={"Accept": BROWSER}).text
    assert '<p id="not-found">no tournament &#x27;t_nothing&#x27;</p>' in page
    odd = client.get('/nothing/<b onclick="x">', headers={"Accept": BROWSER}).text
    assert "<b " not in odd
    assert "There is no page at /nothing/%3Cb%20onclick=%22x%22%3E." in odd


def test_every_404_is_problem_details_for_an_api_client(client: HttpClient) -> None:
    """Litestar draws its own HTML 404 for an unknown page of the reference: not for APIs."""
    for accept in ("application/json", "*/*"):
        answer = client.get("/schema/nothing", headers={"Accept": accept})
        assert answer.status_code == 404
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json() == {
            "status": 404,
            "type": "about:blank",
            "title": "Not Found",
            "detail": "nothing at /schema/nothing",
        }
        assert answer.headers["vary"] == "Accept"
    page = client.get("/schema/nothing", headers={"Accept": BROWSER})
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert site_header() in page.text


def test_other_answers_are_left_alone(client: HttpClient) -> None:
    """Only a 404 is chosen by Accept: a page, an API answer and other errors stay."""
    assert "vary" not in client.get("/play", headers={"Accept": BROWSER}).headers
    variants = client.get("/v1/variants", headers={"Accept": BROWSER})
    assert (variants.status_code, variants.headers["content-type"]) == (200, "application/json")
    refused = client.post("/v1/score", content=b"{", headers={"Accept": BROWSER})
    assert refused.status_code == 400
    assert refused.headers["content-type"] == "application/problem+json"


# --- in headless Chromium --------------------------------------------------------------------


@pytest.fixture
def browser() -> Iterator[Any]:
    executable = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def check_page(browser: Any, base_url: str, path: str, current: str | None) -> None:
    """The page loads with no console error and no failed request, headed and with its icon."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else 0)
    page.on("pageerror", lambda error: errors.append(str(error)))
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    loaded = page.goto(f"{base_url}{path}")
    assert loaded is not None
    assert loaded.status == 200
    header = page.locator("header.site")
    header.wait_for()
    assert header.evaluate("node => node.outerHTML") == site_header(current), path
    icon = page.evaluate("document.querySelector('link[rel=icon]').href")
    assert icon == f"{base_url}/static/web/favicon.svg", path
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    if path == "/schema":
        page.locator(".opblock").first.wait_for(timeout=20_000)
        colour = header.locator("a[href='/play']").evaluate("a => getComputedStyle(a).color")
        assert colour == "rgb(28, 79, 138)"  # swagger-nav.css loaded, under the policy
    page.wait_for_load_state("networkidle")
    assert errors == [], (path, errors)
    assert failed == [], (path, failed)
    page.close()


def test_every_page_loads_cleanly_with_its_header_and_icon(
    browser: Any, server: tuple[str, str]
) -> None:
    base_url, owner = server
    with httpx.Client(base_url=base_url, timeout=10) as http:
        tournament = f"/tournaments/{played(http, owner)}"
    for path, current in (
        ("/", "/"),
        ("/play", "/play"),
        ("/verify", "/verify"),
        ("/schema", "/schema"),
        (tournament, None),
    ):
        check_page(browser, base_url, path, current)
    page = browser.new_page()
    missing = page.goto(f"{base_url}/tournaments/t_nothing")
    assert missing is not None
    assert missing.status == 404
    assert missing.headers["content-type"] == "text/html; charset=utf-8"
    assert page.locator("#not-found").inner_text() == "no tournament 't_nothing'"
    assert page.locator("header.site").evaluate("node => node.outerHTML") == site_header()
    page.close()
