"""The door's own answers: problems it sends before (or instead of) the app.

A request cut off at the door (headers too large or too slow, a body too slow) gets a
problem+json answer like any of the app's, naming the limit and its setting, then the
connection is closed: what else the client sent is not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus

from cardproof_service.plumbing import PROBLEM_MEDIA_TYPE, problem_body


@dataclass(frozen=True)
class Refusal(Exception):
    """A request the door refuses: its status, its problem code and what was wrong."""

    status: int
    code: str
    detail: str

    def body(self) -> bytes:
        """The problem+json body."""
        return problem_body(
            self.status, self.detail, type_=f"/problems/{self.code}", code=self.code
        )

    def http1(self) -> bytes:
        """The whole HTTP/1.1 answer, closing the connection."""
        body = self.body()
        head = (
            f"HTTP/1.1 {self.status} {HTTPStatus(self.status).phrase}\r\n"
            f"content-type: {PROBLEM_MEDIA_TYPE}\r\n"
            f"content-length: {len(body)}\r\n"
            "connection: close\r\n\r\n"
        )
        return head.encode("ascii") + body

    def h2_headers(self) -> list[tuple[bytes, bytes]]:
        """The HTTP/2 answer's headers (the body is :meth:`body`)."""
        return [
            (b":status", str(self.status).encode()),
            (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
            (b"content-length", str(len(self.body())).encode()),
        ]


def too_slow_headers(seconds: float) -> Refusal:
    """408: the request line and headers did not arrive in time."""
    return Refusal(
        408,
        "request-timeout",
        f"the request's line and headers took more than {seconds:g} s to arrive "
        "(CARDPROOF_HEADER_TIMEOUT)",
    )


def too_slow_body(rate: int, seconds: float) -> Refusal:
    """408: the body came slower than its minimum rate."""
    return Refusal(
        408,
        "request-timeout",
        f"the request's body came slower than {rate} bytes a second over {seconds:g} s "
        "(CARDPROOF_BODY_MIN_RATE, CARDPROOF_BODY_TIMEOUT)",
    )


def target_too_long(limit: int) -> Refusal:
    """414: the request's target (path and query) is too long."""
    return Refusal(
        414,
        "uri-too-long",
        f"the request's target is longer than {limit} bytes (CARDPROOF_MAX_REQUEST_LINE)",
    )


def headers_too_large(limit: int) -> Refusal:
    """431: the headers' bytes are over the limit."""
    return Refusal(
        431,
        "headers-too-large",
        f"the request's headers are larger than {limit} bytes (CARDPROOF_MAX_HEADER_BYTES)",
    )


def too_many_headers(limit: int) -> Refusal:
    """431: more header fields than the limit."""
    return Refusal(
        431,
        "headers-too-large",
        f"the request has more than {limit} header fields (CARDPROOF_MAX_HEADERS)",
    )


def unreadable(reason: str = "") -> Refusal:
    """400: the bytes are not an HTTP/1.1 request (the parser's reason: a fixed phrase)."""
    said = f" ({reason.rstrip('.').lower()})" if reason else ""
    return Refusal(400, "bad-request", f"the request cannot be read as HTTP/1.1{said}")


def unreadable_h2(reason: str) -> Refusal:
    """400: an HTTP/2 request HTTP forbids (RFC 9113 8.1.1: a malformed one)."""
    return Refusal(400, "bad-request", f"the request is malformed: {reason}")


def version_unsupported(version: str) -> Refusal:
    """505: HTTP/1.0 and 1.1 are spoken here (HTTP/2 with its preface, not a request line)."""
    return Refusal(
        505,
        "version-not-supported",
        f"HTTP/{version[:8]} is not served: speak HTTP/1.1, or HTTP/2 with prior knowledge",
    )


def one_host(count: int) -> Refusal:
    """400: an HTTP/1.1 request must carry exactly one ``Host`` header (RFC 9112 3.2)."""
    return Refusal(
        400, "bad-request", f"an HTTP/1.1 request needs exactly one Host header, not {count}"
    )


def pipeline_full(most: int) -> Refusal:
    """429: more pipelined requests queued than a connection may hold."""
    return Refusal(
        429,
        "pipeline-full",
        f"more than {most} requests queued on one connection: wait for the answers",
    )


__all__ = [
    "Refusal",
    "headers_too_large",
    "one_host",
    "pipeline_full",
    "target_too_long",
    "too_many_headers",
    "too_slow_body",
    "too_slow_headers",
    "unreadable",
    "unreadable_h2",
    "version_unsupported",
]
