"""HTTP/1.1 at the door: uvicorn's httptools protocol with deadlines, limits and h2c.

``cardproof serve`` runs uvicorn with :class:`DoorProtocol` as its HTTP protocol. Over
uvicorn's own it adds:

- a cap on connections per address and per process (:mod:`.connections`): the
  connection over it is closed as soon as it is accepted;
- deadlines: a request's line and headers must arrive within ``header_timeout`` of its
  first byte (a new connection's first request: of the connection), each
  ``body_timeout`` window of a body must bring ``body_min_rate`` bytes a second or its
  end, and an answer the client leaves unread for ``send_timeout`` closes the
  connection (an idle keep-alive connection is uvicorn's ``timeout_keep_alive``);
- limits on the target (414), the headers' bytes and their number (431), checked as the
  parser goes, so a huge header is refused at its limit, never held whole;
- ``Upgrade: h2c`` offers served as HTTP/1.1 with the body intact (httptools' parser
  stops at the end of an upgrade request's headers, as if it had no body: uvicorn then
  answers from an empty body; here the body is parsed as it should have been);
- HTTP/2 with prior knowledge: a connection opening with HTTP/2's preface is handed to
  :class:`~cardproof_service.door.http2.Http2Protocol`;
- what HTTP forbids or the parser cannot read (no ``Host``, HTTP/0.9 or 2.0 request
  lines, a target httptools refuses) is a problem+json answer, never a traceback;
  pipelining queues at most :data:`MOST_PIPELINED` requests; a cut connection is reset
  (:func:`discard`), dropping its unsent answer.

Each client cut off or refused is reported to the rate limiter (``report_offence``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
from functools import lru_cache
from typing import Any, Final

import httptools
from uvicorn._types import ASGI3Application
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from cardproof_service.door import replies
from cardproof_service.door.connections import Connections
from cardproof_service.door.deadlines import Deadline
from cardproof_service.door.http2 import Http2Protocol
from cardproof_service.door.rates import body_balance
from cardproof_service.plumbing import DoorSettings, report_offence

PREFACE: Final = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
"""The first bytes of an HTTP/2 connection with prior knowledge."""
HEAD_SLACK: Final = 4096
"""Bytes a request's head may have beyond its target's and headers' limits (the method,
the version, the separators)."""


@lru_cache(maxsize=1)
def door_settings() -> DoorSettings:
    """The door settings of the process (read once: every connection shares them)."""
    return DoorSettings.from_env()


@lru_cache(maxsize=1)
def connections() -> Connections:
    """The connection book of the process."""
    return Connections(door_settings(), os.environ.get("FORWARDED_ALLOW_IPS", ""))


class DoorProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with the door's deadlines, limits and HTTP/2."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        """Uvicorn's set-up, then the door's per-connection state."""
        super().__init__(config, server_state, app_state, _loop)
        self.door = door_settings()
        self.book = connections()
        self.key: str | None = None
        """The connection's key in the book, once counted."""
        self.deadline = Deadline(self.loop)
        """The deadline of the request's head, or of its body's window."""
        self.send_watch: asyncio.TimerHandle | None = None
        self.start: bytes | None = b""
        """The connection's first bytes, until they show HTTP/2's preface or not."""
        self.in_head = True
        self.head_bytes = 0
        self.target_bytes = 0
        self.header_bytes = 0
        self.header_count = 0
        self.window_bytes = 0
        self.credit = 0
        """Bytes a body sent beyond its rate, up to one window's worth (:func:`body_balance`)."""
        self.began = False
        """A request began in the chunk being parsed."""
        self.hosts = 0
        """``Host`` headers of the request being parsed."""
        self.drained = 0
        """Body bytes that came after the request's answer (dropped)."""
        self.resuming = False
        """Feeding the parser the stand-in head of an h2c request's body."""
        self.refused = False
        self.running: RequestResponseCycle | None = None
        """The request whose app runs (``cycle`` is the last one parsed: with pipelining,
        a later one)."""

    # connections: counted, capped, handed over

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Count the connection (or close it at once over a cap); its head's deadline."""
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        self.key = self.book.open(host)
        if self.key is None:
            self.refused = True
            if host is not None:
                report_offence(host)
            transport.abort()
            return
        self.deadline.set(self.door.header_timeout, self.head_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        """Uncount the connection; stop its deadlines."""
        self.deadline.stop()
        cancel(self.send_watch)
        self.send_watch = None
        if self.key is not None:
            self.book.close(self.key)
            self.key = None
        if self.running is not None and not self.running.response_complete:
            self.running.disconnected = True  # uvicorn tells only the last one parsed
            self.running.message_event.set()
        super().connection_lost(exc)

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        """Start the app on ``cycle``, remembered as the one running."""
        self.running = cycle
        super()._start_asgi_task(cycle, app)

    def to_http2(self, start: bytes) -> None:
        """Hand the connection to HTTP/2 (it opened with the preface); its count goes too."""
        self.deadline.stop()
        cancel(self.send_watch)
        self.send_watch = None
        self.connections.discard(self)
        protocol = Http2Protocol(
            self.config, self.server_state, self.app_state, self.door, self.book, self.key
        )
        self.key = None  # counted by the HTTP/2 protocol from now on
        self.transport.set_protocol(protocol)
        protocol.connection_made(self.transport)
        protocol.data_received(start)

    # reading

    def data_received(self, data: bytes) -> None:
        """Feed the parser, within the head's limits; HTTP/2's preface hands over."""
        if self.refused:
            return
        if self.start is not None:
            data = self.start + data
            if PREFACE.startswith(data[: len(PREFACE)]):
                if len(data) < len(PREFACE):
                    self.start = data  # too little yet to tell
                    return
                self.start = None
                self.to_http2(data)
                return
            self.start = None
        self._unset_keepalive_if_required()
        self.began = False
        self.feed(data)
        if self.refused:
            return
        cycle = self.cycle
        if not self.in_head and not self.deadline.active and cycle and cycle.response_complete:
            # bytes that begin no request (blank lines) stopped the keep-alive deadline
            self.in_head, self.head_bytes = True, len(data)
            self.deadline.set(self.door.header_timeout, self.head_too_slow)
        if self.in_head:
            # a head begun in this chunk counts from the next (a chunk is at most 256 KiB)
            self.head_bytes = 1 if self.began else self.head_bytes + len(data)
            most = self.door.max_request_line + self.door.max_header_bytes + HEAD_SLACK
            if self.head_bytes > most:  # one header line too long to end: refused unread
                self.refuse(replies.headers_too_large(self.door.max_header_bytes))

    def feed(self, data: bytes) -> None:
        """Parse ``data``; go on past an unsupported upgrade's head (see the module).

        What cannot be parsed is a 400 problem; a refusal raised by a callback, its own.
        """
        while True:
            try:
                self.parser.feed_data(data)
                return
            except httptools.HttpParserUpgrade as upgrade:
                data = self.resume_after_upgrade() + data[upgrade.args[0] :]
            except httptools.HttpParserCallbackError as error:
                cause = error.__context__
                if cause is FULL:  # answer those queued, read nothing more, then close
                    self.refused = True
                    report(self.client)
                    self.flow.pause_reading()
                    self.cycle.keep_alive = False  # uvicorn closes after the last queued
                    return
                self.refuse(cause if isinstance(cause, replies.Refusal) else replies.unreadable())
                return
            except httptools.HttpParserError as error:
                self.refuse(replies.unreadable(str(error)))
                return

    def resume_after_upgrade(self) -> bytes:
        """Parse on as HTTP/1.1: a fresh parser, and a stand-in head of the body's framing.

        httptools ended the upgrade request at its headers (and uvicorn started it on
        an empty body, not yet run); fed the stand-in head, then the rest, the parser reads
        the body into the same request (the stand-in's callbacks change nothing).
        """
        self.parser = httptools.HttpRequestParser(self)
        self.parser.set_dangerous_leniencies(lenient_data_after_close=True)
        framing = {name: value for name, value in self.headers if name in FRAMING}
        if not framing or framing.get(b"content-length", b"").strip() == b"0":
            return b""
        self.cycle.more_body = True
        connection = b",".join(value for name, value in self.headers if name == b"connection")
        self.cycle.keep_alive = b"close" not in connection.lower()
        self.resuming = True
        head = b"".join(name + b": " + value + b"\r\n" for name, value in framing.items())
        return b"POST / HTTP/1.1\r\n" + head + b"\r\n"

    def on_message_begin(self) -> None:
        """A new request: its head's limits and deadline start."""
        if self.resuming:
            return
        super().on_message_begin()
        self.in_head = self.began = True
        self.head_bytes = self.target_bytes = self.header_bytes = self.header_count = 0
        self.hosts = self.drained = 0
        if not self.deadline.active:
            self.deadline.set(self.door.header_timeout, self.head_too_slow)

    def on_url(self, url: bytes) -> None:
        """The target, within its limit (414)."""
        if self.resuming:
            return
        self.target_bytes += len(url)
        if self.target_bytes > self.door.max_request_line:
            raise replies.target_too_long(self.door.max_request_line)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        """One header, within the number and bytes allowed (431)."""
        if self.resuming:
            return
        self.header_count += 1
        self.header_bytes += len(name) + len(value)
        if self.header_count > self.door.max_headers:
            raise replies.too_many_headers(self.door.max_headers)
        if self.header_bytes > self.door.max_header_bytes:
            raise replies.headers_too_large(self.door.max_header_bytes)
        if len(name) == 4 and name.lower() == b"host":
            self.hosts += 1
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """The head is in: its deadline stops; a body's first window starts."""
        if self.resuming:
            self.resuming = False
        else:
            self.in_head = False
            version = self.parser.get_http_version()
            if version not in ("1.0", "1.1"):
                raise replies.version_unsupported(version)
            if self.hosts != 1 and version == "1.1":
                raise replies.one_host(self.hosts)  # RFC 9112 3.2
            if len(self.pipeline) >= MOST_PIPELINED:
                raise FULL
            super().on_headers_complete()
        self.deadline.clear()
        if expects_body(self.headers):
            self.window_bytes = self.credit = 0
            self.deadline.set(self.door.body_timeout, self.body_window)

    def on_body(self, body: bytes) -> None:
        """Body bytes count in the window.

        A body that goes on after its answer (a 413's, say) is dropped, and past
        :data:`MOST_DRAINED` bytes not read on: the connection closes.
        """
        if self.cycle.response_complete and not self.resuming:
            self.drained += len(body)  # a body in flight when its answer went: dropped
            if self.drained > MOST_DRAINED:
                self.refused = True  # nothing more is parsed
                self.transport.close()
            return
        self.window_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        """The body is in: its window stops."""
        self.deadline.clear()
        super().on_message_complete()

    # deadlines

    def head_too_slow(self) -> None:
        """The head did not arrive in time: 408 if it began, else closed."""
        if self.transport.is_closing():
            return
        if self.in_head and self.head_bytes == 0 and self.cycle is None:
            self.cut()  # a connection that never said a word: nothing to answer
            return
        self.refuse(replies.too_slow_headers(self.door.header_timeout))

    def body_window(self) -> None:
        """A body's window ends: enough came (or the app is not reading), else 408."""
        if self.transport.is_closing():
            return
        self.credit, enough = body_balance(self.window_bytes, self.credit, self.door)
        if enough or self.flow.read_paused:
            self.window_bytes = 0
            self.deadline.set(self.door.body_timeout, self.body_window)
            return
        refusal = replies.too_slow_body(self.door.body_min_rate, self.door.body_timeout)
        if self.cycle is not None and not self.cycle.response_started:
            self.cycle.response_complete = True  # the app's answer, if any, is not sent
            self.cycle.disconnected = True
            self.cycle.message_event.set()
            self.refuse(refusal)
        else:
            self.cut()

    def pause_writing(self) -> None:
        """The client stopped reading: it has ``send_timeout`` to start again."""
        super().pause_writing()
        if self.send_watch is None:
            self.send_watch = self.loop.call_later(self.door.send_timeout, self.cut)

    def resume_writing(self) -> None:
        """The client reads again."""
        super().resume_writing()
        if self.send_watch is not None:
            self.send_watch.cancel()
            self.send_watch = None

    # endings

    def refuse(self, refusal: replies.Refusal) -> None:
        """Answer ``refusal`` and close; the client's offence is reported."""
        if self.refused or self.transport.is_closing():
            return
        cycle = self.running
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            self.cut()  # an answer is on its way: no room for another
            return
        self.refused = True
        report(self.client)
        self.transport.write(refusal.http1())
        self.transport.close()

    def cut(self) -> None:
        """Close the connection without an answer; the client's offence is reported."""
        if self.transport.is_closing():
            return
        self.refused = True
        report(self.client)
        for cycle in {self.cycle, self.running} - {None}:
            assert cycle is not None
            cycle.disconnected = True  # its app's next write is dropped, not failed
            cycle.message_event.set()
        discard(self.transport)


MOST_PIPELINED: Final = 32
"""Requests one connection may queue behind the one being answered (HTTP/1.1 pipelining);
the parser reads a whole chunk of up to 256 KiB at once, so without a cap tiny requests
would queue by the thousand."""
MOST_DRAINED: Final = 65_536
"""Body bytes dropped after a request's answer before the connection closes: what a
client had in flight when the answer came (it may answer early: a 400 from the headers)."""
FULL: Final = replies.pipeline_full(MOST_PIPELINED)
FRAMING: Final = frozenset({b"content-length", b"transfer-encoding"})
"""The headers that say how a body is framed."""


def expects_body(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether a request with these headers announced a body.

    >>> expects_body([(b"content-length", b"0")]), expects_body([(b"content-length", b"10")])
    (False, True)
    >>> expects_body([(b"transfer-encoding", b"chunked")])
    True
    """
    for name, value in headers:
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip(b" 0")):
            return True
    return False


def cancel(*handles: asyncio.TimerHandle | None) -> None:
    """Cancel the deadlines that are set."""
    for handle in handles:
        if handle is not None:
            handle.cancel()


def discard(transport: asyncio.Transport) -> None:
    """Close now and drop what is unsent (``SO_LINGER`` 0: a reset).

    Else the socket lives on orphaned in the kernel, holding an answer for a client that
    does not read.
    """
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def report(client: tuple[str, int] | None) -> None:
    """Charge ``client`` an offence in the rate limiter."""
    if client:
        report_offence(client[0])


__all__ = ["PREFACE", "DoorProtocol", "connections", "door_settings"]
