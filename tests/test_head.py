"""HEAD wherever GET: every GET path of the spec, and every GET route of the app (the pages
too, which the spec leaves out), answers HEAD with the GET's status and headers and no body
(RFC 9110 9.3.2), and ``Allow`` lists HEAD beside GET."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

SPEC = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]
VOLATILE = {"x-request-id", "date"}
"""Headers that differ between any two answers."""


def ids(client: TestClient[Litestar], owner: str) -> dict[str, str]:
    """Path parameters that exist: a finished deal, a closed lockstep tournament, round 1."""
    deal = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
    for index, cell in enumerate(CELLS):
        moved = client.post(f"/v1/deals/{deal}/moves", json={"index": index, "move": cell})
        assert moved.status_code == 200, moved.text
    tournament = {
        "name": "Head Open",
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": "2020-01-01T00:00:00Z",
        "closes_at": "2035-01-01T00:00:00Z",
    }
    created = client.post("/v1/tournaments", json=tournament, headers={"Authorization": owner})
    tid = created.json()["tournament"]["tournament_id"]
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    deadline = time.monotonic() + 5  # the deal's receipt in the log: a tile to read
    while client.get("/log/checkpoint").text.split("\n")[1] == "0":
        assert time.monotonic() < deadline, "the log sequenced nothing in 5 s"
        time.sleep(0.05)
    bundle = client.get("/log/tile/entries/000.p/1").content  # a 2-byte length, the entry
    leaf = hashlib.sha256(b"\x00" + bundle[2:]).hexdigest()
    return {
        "deal_id": deal,
        "tournament_id": tid,
        "round_number": "1",
        "tile": "0/000.p/1",
        "leaf": leaf,
    }


def assert_head_alike(client: TestClient[Litestar], template: str, path: str, owner: str) -> None:
    """HEAD ``path`` answers as GET does (200): its status and headers, and no body.

    A path that wants an organizer (401 without one) is read as the organizer.
    """
    headers = {"Authorization": owner} if client.get(path).status_code == 401 else {}
    head = client.head(path, headers=headers)
    got = client.get(path, headers=headers)
    assert got.status_code == 200, (template, got.text)
    assert head.status_code == got.status_code, template
    assert head.content == b"", template
    shown: dict[str, Any] = {k: v for k, v in head.headers.items() if k not in VOLATILE}
    expected = {k: v for k, v in got.headers.items() if k not in VOLATILE}
    if template == "/metrics":  # its counts move with every request, and its length
        shown.pop("content-length")
        expected.pop("content-length")
    assert shown == expected, template


def test_every_get_path_of_the_spec_answers_head_alike(
    client: TestClient[Litestar], owner: str
) -> None:
    paths = [path for path, item in json.loads(SPEC.read_text())["paths"].items() if "get" in item]
    assert len(paths) >= 13, paths
    known = ids(client, owner)
    for template in paths:
        path = re.sub(r"\{(\w+)\}", lambda n: known[n[1]], template)
        assert_head_alike(client, template, path, owner)
    assert client.head("/v1/deals/d_nothing").status_code == 404  # an error alike


PAGES = {"/", "/play", "/verify", "/favicon.ico", "/tournaments/{tournament_id:str}", "/schema"}
"""Routes for people, which the spec leaves out: the route table must have them all."""


def test_every_get_route_of_the_app_answers_head_alike(
    app: Litestar, client: TestClient[Litestar], owner: str
) -> None:
    known = {
        **ids(client, owner),
        "file_path": "web/style.css",  # /static/{file_path:path}
        "path": "swagger",  # /schema/{path:str}: a page of the reference
    }
    templates = sorted(route.path for route in app.routes if "GET" in route.methods)
    assert set(templates) >= PAGES, PAGES - set(templates)
    for template in templates:
        path = re.sub(r"\{(\w+)(?::\w+)?\}", lambda n: known[n[1]], template)
        assert_head_alike(client, template, path, owner)
    html = {"Accept": "text/html,*/*;q=0.8"}  # a browser's 404 is a page: HEAD alike
    head, got = client.head("/nothing", headers=html), client.get("/nothing", headers=html)
    assert (head.status_code, got.status_code) == (404, 404)
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"] == "text/html; charset=utf-8"
    assert head.headers["content-length"] == got.headers["content-length"]


def test_head_of_an_event_stream_ends_with_its_headers(
    client: TestClient[Litestar], owner: str
) -> None:
    tournament = {
        "name": "Head Stream",
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": "2020-01-01T00:00:00Z",
        "closes_at": "2035-01-01T00:00:00Z",
    }
    created = client.post("/v1/tournaments", json=tournament, headers={"Authorization": owner})
    tid = created.json()["tournament"]["tournament_id"]
    # the round waits for its start: a GET would stream until the round ends
    head = client.head(
        f"/v1/tournaments/{tid}/rounds/1/calls", headers={"Accept": "text/event-stream"}
    )
    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/event-stream")
    assert head.content == b""
    # the long poll: a GET waits up to `wait` seconds for a call; HEAD answers at once
    started = time.monotonic()
    polled = client.head(f"/v1/tournaments/{tid}/rounds/1/calls?wait=20")
    assert time.monotonic() - started < 10
    assert polled.status_code == 200
    assert polled.headers["content-type"] == "application/json"
    assert polled.headers["cache-control"] == "no-store"
    assert polled.content == b""


def test_allow_lists_head_wherever_it_lists_get(client: TestClient[Litestar]) -> None:
    refused = client.delete("/.well-known/jwks.json")
    assert refused.status_code == 405
    assert {m.strip() for m in refused.headers["allow"].split(",")} >= {"GET", "HEAD"}
    posted = client.delete("/v1/score")  # a path without GET does not take HEAD either
    assert posted.status_code == 405
    assert "HEAD" not in posted.headers["allow"]
    assert client.head("/v1/score").status_code == 405
    offered = client.options("/.well-known/jwks.json")  # an OPTIONS answer lists them too
    assert offered.status_code in {200, 204}, offered.text
    assert {m.strip() for m in offered.headers["allow"].split(",")} >= {"GET", "HEAD"}
    assert "HEAD" not in client.options("/v1/score").headers["allow"]


def test_a_private_answer_keeps_its_own_caching_and_says_nosniff_once(
    client: TestClient[Litestar],
) -> None:
    keyed = client.get("/log/key", headers={"Authorization": "Bearer someone"})
    assert keyed.status_code == 200, keyed.text
    assert keyed.headers.get_list("cache-control") == ["public, max-age=3600"]
    assert keyed.headers.get_list("x-content-type-options") == ["nosniff"]
    private = client.get("/v1/variants", headers={"Authorization": "Bearer someone"})
    assert private.headers.get_list("cache-control") == ["no-store"]
    reference = client.get("/schema")  # the reference page sets its own nosniff already
    assert reference.headers.get_list("x-content-type-options") == ["nosniff"]
