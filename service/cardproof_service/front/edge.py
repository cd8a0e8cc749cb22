"""The one ASGI layer around the router: what every request and every answer goes through.

- **Observability:** a request id, echoed in ``X-Request-ID``; one access line; the
  request counted and timed by its route (:mod:`cardproof_service.plumbing.observability`).
- **Safe headers:** a credential or ``Idempotency-Key`` named twice is refused (400);
  ``nosniff`` goes on every answer and ``no-store`` on an answer to a credential
  (:func:`.site.once_headers`, :func:`.site.secured`).
- **HEAD:** answered wherever GET is, as the GET (a copy of the scope, marked with
  :data:`.site.HEAD_REQUEST`), with its status and headers and no body; from then on the
  client reads as gone, so an event stream stops. An ``Allow`` that lists GET (a 405,
  an OPTIONS answer) lists HEAD too.
- **The API reference** (``/schema``): its HTML gets the reference's policy
  (:func:`.controllers.web.reference_headers`).
- **404:** the HTML page for a browser whose ``Accept`` prefers it, problem details for
  the rest, whichever part of Litestar drew it (:func:`.site.not_found_start`).

Around the router, not per route: unknown paths (404) and methods (405) get all of it.
These were five nested layers, each a coroutine and a send closure per request; as one
they cost about a third as much, some 12 us of every light request here (issue 42).
Each rule's words stay in its own module; this one only applies them, in their order.
"""

from __future__ import annotations

import time
from typing import Final

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    HTTPScope,
    Message,
    Receive,
    ReceiveMessage,
    Scope,
    Send,
)

from cardproof_service.front.controllers.web import reference_headers
from cardproof_service.front.site import (
    HEAD_REQUEST,
    not_found_answer,
    not_found_start,
    once_headers,
    secured,
    wants_page,
)
from cardproof_service.plumbing import REQUEST_ID_HEADER, RequestMetrics, log_access, request_id_of

_ID_NAME: Final = REQUEST_ID_HEADER.encode("ascii")


def edge_layer(app: ASGIApp) -> ASGIApp:
    """``app`` (the router) with every rule above applied to each HTTP request."""
    metrics = RequestMetrics()

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        start = time.perf_counter()
        answer = _Answer(scope, send, request_id.encode("latin-1"))
        inner = scope
        try:
            answer.private, refusal = once_headers(scope)
            if refusal is not None:  # before the router sees anything of it
                await answer.refuse(refusal)
            elif answer.head:
                inner = scope.copy()
                inner["method"] = "GET"
                inner["state"] = {**scope.get("state", {}), HEAD_REQUEST: True}
                await app(inner, answer.receiving(receive), answer.send)
            else:
                await app(scope, receive, answer.send)
        finally:
            seconds = time.perf_counter() - start
            route = inner.get("path_template") or "unmatched"  # the GET's, for a HEAD
            metrics.observe(route, scope["method"], answer.status, seconds)
            log_access(request_id, scope["method"], scope["path"], answer.status, seconds)

    return wrapped


class _Answer:
    """One request's answer on its way out: each rule applied to its start, in order."""

    __slots__ = (
        "allow",
        "answered",
        "body",
        "head",
        "held",
        "out",
        "page",
        "private",
        "request_id",
        "schema",
        "scope",
        "status",
    )

    def __init__(self, scope: HTTPScope, out: Send, request_id: bytes) -> None:
        self.scope = scope
        self.out = out
        self.request_id = request_id
        self.status = 500
        """The status answered (500 until one is: an exception the router let through)."""
        self.private = False
        self.head = scope["method"] == "HEAD"
        self.allow = scope["method"] == "OPTIONS"
        """Whether an ``Allow`` may need HEAD (an OPTIONS answer; any 405 too)."""
        self.schema = scope["path"].startswith("/schema")
        self.answered = False
        """A HEAD's headers went: its client reads as gone from then on."""
        self.held: list[tuple[bytes, bytes]] | None = None
        """A 404's headers, held while its body is read, to answer in the other form."""
        self.page = False
        self.body = bytearray()

    async def send(self, message: Message) -> None:
        """What the router sends: a 404 may be held and answered anew, the rest goes on."""
        if message["type"] == "http.response.start":
            if message["status"] == 404:
                self.page = wants_page(self.scope)
                headers, hold = not_found_start(list(message.get("headers", ())), self.page)
                if hold:
                    self.held = headers
                    return
                message["headers"] = headers
            await self._start(message)
        elif self.held is not None and message["type"] == "http.response.body":
            self.body.extend(message.get("body", b""))
            if message.get("more_body", False):
                return
            path = self.scope["path"]
            headers, content = not_found_answer(self.held, bytes(self.body), path, self.page)
            await self._start({"type": "http.response.start", "status": 404, "headers": headers})
            await self._body({"type": "http.response.body", "body": content, "more_body": False})
        else:
            await self._body(message)

    async def refuse(self, problem: bytes) -> None:
        """A 400 answered here, its ``problem`` body as the router would have sent it."""
        headers = [
            (b"content-type", b"application/problem+json"),
            (b"content-length", str(len(problem)).encode()),
        ]
        await self._start({"type": "http.response.start", "status": 400, "headers": headers})
        await self._body({"type": "http.response.body", "body": problem, "more_body": False})

    def receiving(self, receive: Receive) -> Receive:
        """A HEAD's ``receive``: gone once its headers went (an event stream then stops)."""

        async def receiving() -> ReceiveMessage:
            if self.answered:
                return {"type": "http.disconnect"}
            return await receive()

        return receiving

    async def _start(self, message: HTTPResponseStartEvent) -> None:
        """An answer's start, with every header rule applied, out; a HEAD's empty body."""
        self.status = status = message["status"]
        headers = list(message.get("headers", ()))
        if status == 405 or self.allow:
            headers = _allowing_head(headers)
        if self.schema:
            headers = reference_headers(headers)
        names = {name.lower() for name, _ in headers}
        if _ID_NAME in names:  # the answer's own is replaced by the request's
            headers = [pair for pair in headers if pair[0].lower() != _ID_NAME]
        headers.append((_ID_NAME, self.request_id))
        secured(headers, names, self.private)
        message["headers"] = headers
        await self.out(message)
        if self.head:
            self.answered = True
            await self.out({"type": "http.response.body", "body": b"", "more_body": False})

    async def _body(self, message: Message | HTTPResponseBodyEvent) -> None:
        """A body part out (none for a HEAD: its answer ended with the headers)."""
        if not self.head:
            await self.out(message)


def _allowing_head(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` whose ``Allow``, if it lists GET, lists HEAD right after it."""
    for index, (name, value) in enumerate(headers):
        if name.lower() == b"allow":
            allowed = [method.strip() for method in value.decode("latin-1").split(",")]
            if "GET" in allowed and "HEAD" not in allowed:
                allowed.insert(allowed.index("GET") + 1, "HEAD")
                headers[index] = (name, ", ".join(allowed).encode("latin-1"))
            break
    return headers


__all__ = ["edge_layer"]
