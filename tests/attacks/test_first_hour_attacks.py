"""Attacks an outsider found on what the first-hour work added: the tournament list, the
pages and their 404, the CLI's entry files.

Each test reproduces an attack that worked when it was found, and asserts what a user of
the service is owed instead (the CLI's entry-file attacks are in test_tournament_cli.py).
"""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from litestar.types import Message, Receive, Scope, Send

from cardproof_service.front.edge import edge_layer
from conftest import organizer_key

POST = "/v1/tournaments"


def _tournament(**changed: Any) -> dict[str, Any]:
    """A valid tournament request, with ``changed`` fields."""
    return {
        "name": "Attack Cup",
        "variant": "serpent-patience",
        "rounds": 1,
        "opens_at": "2026-01-01T00:00:00Z",
        "closes_at": "2030-01-01T00:00:00Z",
        **changed,
    }


@pytest.mark.parametrize(
    ("field", "moment"),
    [
        ("opens_at", "0001-01-01T00:00:00+23:59"),  # the year 0, in UTC
        ("closes_at", "9999-12-31T23:59:59-23:59"),  # the year 10000, in UTC
        ("closes_at", "9999-12-31T23:59:59.999999Z"),
        ("opens_at", "1969-12-31T23:59:59Z"),
        ("closes_at", "2300-01-01T00:00:00Z"),  # its record would outlive the year 9999 soon
    ],
)
def test_a_time_no_page_can_show_is_refused_and_the_list_stays_whole(
    app: Litestar, client: TestClient[Litestar], field: str, moment: str
) -> None:
    """It was a 500 after the tournament was stored, and every page of the list a 500."""
    key = organizer_key(app, f"Timekeeper {field} {moment}")
    made = client.post(
        "/v1/tournaments", json=_tournament(**{field: moment}), headers={"Authorization": key}
    )
    assert made.status_code == 422, made.text
    assert (made.json()["code"], made.json()["field"]) == ("bad-time", field)
    listed = client.get("/v1/tournaments", params={"limit": 100}, headers={"Authorization": key})
    assert listed.status_code == 200, listed.text
    assert listed.json()["tournaments"] == []  # nothing half-made was kept


@pytest.mark.parametrize(
    "name", ["\x1b]0;pwned\x07x", "red \x1b[31mRED", "a\rb", "\u202ecba", "x\x00"]
)
def test_a_tournament_name_cannot_carry_terminal_escapes_or_bidi_overrides(
    app: Litestar, client: TestClient[Litestar], name: str
) -> None:
    """It was stored and printed raw by `cardproof tournament show` on anyone's terminal."""
    key = organizer_key(app, f"Escaper {name!r}")
    made = client.post(
        "/v1/tournaments", json=_tournament(name=name), headers={"Authorization": key}
    )
    assert made.status_code in (400, 422), made.text
    assert made.json()["field"] == "name"


def test_a_tournament_name_is_shown_as_normalized(
    app: Litestar, client: TestClient[Litestar]
) -> None:
    key = organizer_key(app, "Normalizer")
    made = client.post(
        "/v1/tournaments",
        json=_tournament(name="  Spring   Open "),
        headers={"Authorization": key},
    )
    assert made.status_code == 201, made.text
    assert made.json()["tournament"]["name"] == "Spring Open"


@pytest.mark.parametrize(
    ("path", "shown", "hidden"),
    [
        ("/x%1b%5b31m", "/x%1B%5B31m", "\x1b"),
        ("/x%00y", "/x%00y", "\x00"),
        ("/%E2%80%AEgnp.exe", "/%E2%80%AEgnp.exe", "\u202e"),
        ("/<script>alert(1)</script>", "/%3Cscript%3Ealert(1)%3C/script%3E", "<script"),
    ],
)
def test_the_html_404_shows_a_path_as_an_address_bar_would(
    client: TestClient[Litestar], path: str, shown: str, hidden: str
) -> None:
    """The page echoed a path's controls and bidi overrides raw (escaped, but spoofable)."""
    page = client.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert f"There is no page at {shown}." in page.text
    assert hidden not in page.text


@pytest.mark.parametrize("accept", ["text/html", "text/*", "text/html;q=1e999, */*;q=0.1"])
def test_an_api_404_keeps_its_problem_and_code_for_a_browser(
    client: TestClient[Litestar], accept: str
) -> None:
    """A browser's Accept turned the API's `unknown-tournament` into a page without a code."""
    answer = client.get("/v1/tournaments/t_nonexistent00000000", headers={"Accept": accept})
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "unknown-tournament"
    page = client.get("/tournaments/t_nonexistent00000000", headers={"Accept": "text/html"})
    assert page.headers["content-type"].startswith("text/html")  # the page's address: a page


@pytest.mark.parametrize(
    "path",
    ["/healthz", "/.well-known/jwks.json", "/v1/variants", "/v1/nothing", "/schema/openapi.json"],
)
def test_every_answer_says_nosniff(client: TestClient[Litestar], path: str) -> None:
    answer = client.get(path)
    assert answer.headers["x-content-type-options"] == "nosniff", path


def test_an_answer_to_a_credential_is_never_kept_by_a_shared_cache(
    app: Litestar, client: TestClient[Litestar]
) -> None:
    """An invite-only tournament read with X-Invite-Code could be cached and served to all."""
    key = organizer_key(app, "Private Club")
    made = client.post(
        "/v1/tournaments",
        json=_tournament(entry="invite", invites=1),
        headers={"Authorization": key},
    ).json()
    tid, code = made["tournament"]["tournament_id"], made["invite_codes"][0]
    for path in (f"/v1/tournaments/{tid}", f"/v1/tournaments/{tid}/standings"):
        read = client.get(path, headers={"X-Invite-Code": code})
        assert read.status_code == 200, read.text
        assert read.headers["cache-control"] == "no-store", path
        owned = client.get(path, headers={"Authorization": key})
        assert owned.headers["cache-control"] == "no-store", path
    public = client.get("/v1/variants")
    assert "no-store" not in public.headers.get("cache-control", "")  # public: cacheable


def test_a_cursor_with_a_trailing_newline_is_refused(
    app: Litestar, client: TestClient[Litestar]
) -> None:
    """`$` matched before a final newline, and the page repeated the cursor's tournament."""
    key = organizer_key(app, "Pager")
    for number in range(3):
        client.post(
            "/v1/tournaments",
            json=_tournament(name=f"Cup {number}"),
            headers={"Authorization": key},
        )
    first = client.get("/v1/tournaments", params={"limit": 1}, headers={"Authorization": key})
    cursor = first.json()["next_cursor"]
    bent = client.get(
        "/v1/tournaments",
        params={"limit": 1, "cursor": cursor + "\n"},
        headers={"Authorization": key},
    )
    assert bent.status_code == 400, bent.text
    straight = client.get(
        "/v1/tournaments", params={"limit": 1, "cursor": cursor}, headers={"Authorization": key}
    )
    assert straight.json()["tournaments"][0]["name"] == "Cup 1"


@pytest.mark.parametrize("header", [b"authorization", b"x-invite-code"])
async def test_a_credential_header_given_twice_is_refused(header: bytes) -> None:
    """Two Authorization headers (as uvicorn passes them): the first won here, where a proxy
    in front may read the last."""
    reached: list[Scope] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})

    async def answer(headers: list[tuple[bytes, bytes]]) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def send(message: Message) -> None:
            sent.append(dict(message))

        async def receive() -> Any:
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "method": "GET", "path": "/v1/tournaments", "headers": headers}
        await edge_layer(app)(cast(Scope, scope), receive, send)
        return sent

    refused = await answer([(header, b"Bearer cpo_a"), (b"accept", b"*/*"), (header, b"Bearer b")])
    assert not reached  # refused before the app saw it
    assert refused[0]["status"] == 400
    problem = json.loads(refused[1]["body"])
    assert (problem["code"], problem["field"]) == ("duplicate-header", header.decode())
    assert (b"x-content-type-options", b"nosniff") in refused[0]["headers"]
    once = await answer([(header, b"Bearer cpo_a")])
    assert once[0]["status"] == 200
    assert len(reached) == 1
    assert (b"cache-control", b"no-store") in once[0]["headers"]
