"""The one layer around the router (``front/edge.py``), message by message.

The API tests (``test_head``, ``test_observability``, ``test_site_pages``...) see what a
client sees through an HTTP client, which ends an answer on its own; these hold the
layer to the ASGI messages it sends: a HEAD's answer ends with its headers, its client
then reads as gone, the request's id replaces one the route set, and a HEAD is counted
under the GET's route.
"""

from __future__ import annotations

from typing import Any, cast

from litestar.types import Message, Receive, Scope, Send
from prometheus_client import REGISTRY

from cardproof_service.front.edge import edge_layer
from cardproof_service.front.site import HEAD_REQUEST

REQUEST_ID = "edge-test-0001"


def http_scope(method: str, path: str = "/healthz") -> Scope:
    """A plain HTTP request's scope carrying a sane ``X-Request-ID`` of its own."""
    headers = [(b"host", b"x"), (b"x-request-id", REQUEST_ID.encode())]
    return cast(Scope, {"type": "http", "method": method, "path": path, "headers": headers})


async def run(app: Any, scope: Scope, inbox: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``app`` behind the edge: every message it sends out, in order."""
    sent: list[dict[str, Any]] = []

    async def send(message: Message) -> None:
        sent.append(dict(message))

    async def receive() -> Any:
        return inbox.pop(0) if inbox else {"type": "http.request", "body": b"", "more_body": False}

    await edge_layer(app)(scope, receive, send)
    return sent


async def test_a_head_answer_ends_with_its_headers_and_drops_the_get_s_body() -> None:
    seen: list[dict[str, Any]] = []

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(dict(scope))
        start = {"type": "http.response.start", "status": 200, "headers": [(b"x-a", b"1")]}
        await send(cast(Message, start))
        await send({"type": "http.response.body", "body": b"hello ", "more_body": True})
        await send({"type": "http.response.body", "body": b"world", "more_body": False})

    sent = await run(route, http_scope("HEAD"), [])
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert (sent[1]["body"], sent[1]["more_body"]) == (b"", False)
    assert (b"x-a", b"1") in sent[0]["headers"]
    assert seen[0]["method"] == "GET"
    assert seen[0]["state"][HEAD_REQUEST] is True
    get = await run(route, http_scope("GET"), [])  # a GET gets every part
    assert [m.get("body") for m in get[1:]] == [b"hello ", b"world"]


async def test_a_head_client_reads_as_gone_once_its_headers_went() -> None:
    heard: list[str] = []

    async def stream(scope: Scope, receive: Receive, send: Send) -> None:
        heard.append((await receive())["type"])  # before the answer: the client's own
        start = {"type": "http.response.start", "status": 200, "headers": []}
        await send(cast(Message, start))
        heard.append((await receive())["type"])  # after: gone, so a stream stops

    waiting: list[dict[str, Any]] = [{"type": "http.request", "body": b"", "more_body": False}] * 2
    await run(stream, http_scope("HEAD", "/v1/tournaments/t_1/rounds/1/calls"), list(waiting))
    assert heard == ["http.request", "http.disconnect"]
    heard.clear()
    await run(stream, http_scope("GET", "/v1/tournaments/t_1/rounds/1/calls"), list(waiting))
    assert heard == ["http.request", "http.request"]


async def test_the_request_s_id_replaces_one_the_route_set() -> None:
    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"X-Request-ID", b"the-route-s-own"), (b"content-type", b"text/plain")]
        start = {"type": "http.response.start", "status": 200, "headers": headers}
        await send(cast(Message, start))
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})

    sent = await run(route, http_scope("GET"), [])
    ids = [value for name, value in sent[0]["headers"] if name.lower() == b"x-request-id"]
    assert ids == [REQUEST_ID.encode()]


async def test_a_head_is_counted_under_the_get_s_route() -> None:
    template = "/edge-test/{thing}"

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        scope["path_template"] = template  # as Litestar's router sets it
        start = {"type": "http.response.start", "status": 200, "headers": []}
        await send(cast(Message, start))
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    labels = {"route": template, "method": "HEAD", "status": "200"}
    before = REGISTRY.get_sample_value("cardproof_http_requests_total", labels) or 0.0
    await run(route, http_scope("HEAD", "/edge-test/1"), [])
    after = REGISTRY.get_sample_value("cardproof_http_requests_total", labels)
    assert after == before + 1
