"""HTTP/2 at the door: h2c with prior knowledge, each stream one ASGI request.

A connection that opens with HTTP/2's preface (:class:`~.http1.DoorProtocol` sees it) is
served here, with the ``h2`` library's state machine: each stream's headers become an
ASGI ``http`` scope (``http_version`` ``"2"``) run as a task, its DATA frames the
request's body, and the app's answer goes out as HEADERS and DATA within the peer's flow
control windows. The door's limits hold per stream: the target (414), the headers' bytes
and number (431), and a body's minimum rate (408); per connection: at most
``h2_max_streams`` streams at once, the first request within ``header_timeout``, and an
idle connection closed after ``keepalive_timeout`` (each with a GOAWAY). A request's
body is acknowledged to the peer only as the app reads it, so a connection holds at
most one window (64 KiB) of unread body per stream.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from typing import Any, Final, cast

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from uvicorn.config import Config
from uvicorn.protocols.utils import get_local_addr, get_remote_addr
from uvicorn.server import ServerState

from cardproof_service.door import replies
from cardproof_service.door.connections import Connections
from cardproof_service.door.streams import Stream
from cardproof_service.plumbing import DoorSettings, report_offence

log = logging.getLogger("cardproof.door")
MOST_RESETS: Final = 1000
"""Streams a peer may reset on one connection before it is closed (the "rapid reset"
attack opens and cancels streams to make the server start work it never finishes)."""
MOST_CONTROL: Final = 1000
"""Frames that ask for no work of the app (PING, SETTINGS, WINDOW_UPDATE, PRIORITY,
unknown types, empty DATA) a connection may send in a second; past it the connection
ends with GOAWAY ENHANCE_YOUR_CALM, as each costs the event loop a parse and often an
answer (a flood of them would take it from every other client)."""
SLICE: Final = 16_384
"""Bytes of a read fed to h2 at once, so that a flood is caught within one slice's work."""
UNREAD_SLACK: Final = 65_536
"""Bytes a connection may send without completing anything (a header block or a frame)
beyond the headers' limit, before it is closed."""


class Http2Protocol(asyncio.Protocol):
    """One HTTP/2 connection: its h2 state machine and its streams."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        door: DoorSettings,
        book: Connections,
        key: str | None,
    ) -> None:
        """A protocol taking over a connection counted under ``key`` in ``book``."""
        self.config = config
        self.app = config.loaded_app
        self.server_state = server_state
        self.app_state = app_state
        self.door = door
        self.book = book
        self.key = key
        self.loop = asyncio.get_event_loop()
        self.h2 = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding=None)
        )
        most = 2 * (door.max_header_bytes + 32 * door.max_headers)
        self.h2.decoder.max_header_list_size = most  # over this the connection ends
        self.streams: dict[int, Stream] = {}
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.client: tuple[str, int] | None = None
        self.server: tuple[str, int | None] | None = None
        self.watch: asyncio.TimerHandle | None = None
        self.send_watch: asyncio.TimerHandle | None = None
        self.writable = asyncio.Event()
        self.writable.set()
        self.unread = 0
        """Bytes received since the last whole event (a header block, a frame)."""
        self.resets = 0
        self.control = 0
        self.control_since = 0.0
        self.stall: asyncio.TimerHandle | None = None
        """Set while reads bring no whole frame (a header block trickled in CONTINUATIONs)."""
        self.closing = False

    # the connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Send our settings; the first request is due within ``header_timeout``."""
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass of it
        self.server_state.connections.add(self)  # type: ignore[arg-type]
        self.client = get_remote_addr(self.transport)
        self.server = get_local_addr(self.transport)
        self.h2.initiate_connection()
        self.h2.update_settings(
            {h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.door.h2_max_streams}
        )
        self.flush()
        self.watch = self.loop.call_later(self.door.header_timeout, self.idle)

    def connection_lost(self, exc: Exception | None) -> None:
        """Every stream learns the client is gone; the connection is uncounted."""
        self.server_state.connections.discard(self)
        for handle in (self.watch, self.send_watch, self.stall):
            if handle is not None:
                handle.cancel()
        for stream in self.streams.values():
            stream.gone()
        self.streams.clear()
        self.writable.set()  # senders wake, find the client gone, stop
        if self.key is not None:
            self.book.close(self.key)
            self.key = None

    def shutdown(self) -> None:
        """The server stops: no new stream; closed once those in flight are done."""
        self.closing = True
        self.h2.close_connection()
        self.flush()
        if not self.streams:
            self.transport.close()

    def pause_writing(self) -> None:
        """The client stopped reading: senders wait; it has ``send_timeout`` to go on."""
        self.writable.clear()
        if self.send_watch is None:
            self.send_watch = self.loop.call_later(self.door.send_timeout, self.cut)

    def resume_writing(self) -> None:
        """The client reads again."""
        self.writable.set()
        if self.send_watch is not None:
            self.send_watch.cancel()
            self.send_watch = None

    def flush(self) -> None:
        """Write what h2 has to send."""
        data = self.h2.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def cut(self) -> None:
        """Close the connection now; the client's offence is reported."""
        self.report()
        self.transport.abort()

    def report(self) -> None:
        """Charge the client an offence in the rate limiter."""
        if self.client:
            report_offence(self.client[0])

    def idle(self) -> None:
        """No stream in flight for too long (or no first request in time): GOAWAY."""
        self.watch = None
        if self.streams or self.transport.is_closing():
            return
        self.h2.close_connection()
        self.flush()
        self.transport.close()

    def rearm(self) -> None:
        """The idle deadline restarts when the last stream ends."""
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None
        if not self.streams:
            if self.closing:
                self.transport.close()
            else:
                self.watch = self.loop.call_later(self.door.keepalive_timeout, self.idle)

    # reading

    def data_received(self, data: bytes) -> None:
        """Feed h2 a slice at a time; act on its events, within the control frames' budget."""
        for start in range(0, len(data), SLICE):
            if self.transport.is_closing():
                return
            piece = data[start : start + SLICE]
            try:
                events = self.h2.receive_data(piece)
            except h2.exceptions.ProtocolError:
                self.flush()  # h2 has queued a GOAWAY naming the error
                self.report()
                self.transport.close()
                return
            self.unread = 0 if events else self.unread + len(piece)
            if self.unread > self.door.max_header_bytes + UNREAD_SLACK:
                self.cut()  # a header block that never ends
                return
            self.watch_stall(bool(events))
            for event in events:
                self.on_event(event)
            if self.over_budget(events):
                return
            self.flush()

    def over_budget(self, events: list[h2.events.Event]) -> bool:
        """Count the control frames among ``events``; past the budget, GOAWAY and close."""
        now = self.loop.time()
        if now - self.control_since >= 1.0:
            self.control, self.control_since = 0, now
        self.control += sum(1 for event in events if is_control(event))
        if self.control <= MOST_CONTROL:
            return False
        self.h2.close_connection(error_code=h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
        self.flush()
        self.report()
        self.transport.close()
        return True

    def watch_stall(self, progressed: bool) -> None:
        """Reads that complete no frame start the head's deadline; one that does ends it."""
        if progressed:
            if self.stall is not None:
                self.stall.cancel()
                self.stall = None
        elif self.stall is None:
            self.stall = self.loop.call_later(self.door.header_timeout, self.stalled)

    def stalled(self) -> None:
        """No whole frame for ``header_timeout``: cut off, unless a body is what is slow.

        Each body has its own deadline (:meth:`Stream.body_window`).
        """
        self.stall = None
        if any(stream.more_body for stream in self.streams.values()):
            self.stall = self.loop.call_later(self.door.header_timeout, self.stalled)
            return
        self.cut()

    def on_event(self, event: h2.events.Event) -> None:
        """One event of h2's."""
        if isinstance(event, h2.events.RequestReceived):
            self.on_request(event)
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is None:  # a body after its answer: dropped, within a bound
                self.drain(event.flow_controlled_length)
            else:
                stream.received(event.data or b"", event.flow_controlled_length)
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.ended()
        elif isinstance(event, h2.events.StreamReset):
            self.resets += 1
            stream = self.streams.pop(event.stream_id, None)
            if stream is not None:
                stream.gone()
                stream.release()
                self.rearm()
            if self.resets > MOST_RESETS:
                self.cut()
        elif isinstance(event, h2.events.WindowUpdated):
            for stream in self.streams.values():
                stream.window_opened()
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.transport.close()

    def on_request(self, event: h2.events.RequestReceived) -> None:
        """A stream's headers: its limits, then its ASGI task."""
        headers = list(event.headers or [])
        pseudo = {name: value for name, value in headers if name.startswith(b":")}
        fields = [(name, value) for name, value in headers if not name.startswith(b":")]
        target = pseudo.get(b":path", b"/")
        refusal = None
        if len(target) > self.door.max_request_line:
            refusal = replies.target_too_long(self.door.max_request_line)
        elif len(fields) > self.door.max_headers:
            refusal = replies.too_many_headers(self.door.max_headers)
        elif sum(len(name) + len(value) for name, value in fields) > self.door.max_header_bytes:
            refusal = replies.headers_too_large(self.door.max_header_bytes)
        elif not target.startswith(b"/") and target != b"*":
            refusal = replies.unreadable_h2("its :path must begin with /")
        elif event.stream_ended is not None and declared_length(fields) not in (None, 0):
            refusal = replies.unreadable_h2("a content-length with no body")  # RFC 9113 8.1.1
        if refusal is not None:
            self.report()
            self.answer(event.stream_id, refusal)
            return
        key = self.book.open(self.client[0] if self.client else None)
        if key is None:  # a stream holds what a connection does (a file open, a task)
            self.report()
            self.h2.reset_stream(event.stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
            return
        if b":authority" in pseudo and not any(name == b"host" for name, _ in fields):
            fields.insert(0, (b"host", pseudo[b":authority"]))
        path, _, query = target.partition(b"?")
        scope = {
            "type": "http",
            "asgi": {"version": self.config.asgi_version, "spec_version": "2.3"},
            "http_version": "2",
            "server": self.server,
            "client": self.client,
            "scheme": "http",
            "method": pseudo.get(b":method", b"GET").decode("ascii", "replace"),
            "root_path": self.config.root_path,
            "path": self.config.root_path + urllib.parse.unquote(path.decode("ascii", "replace")),
            "raw_path": path,
            "query_string": query,
            "headers": fields,
            "state": self.app_state.copy(),
        }
        ended = event.stream_ended is not None
        stream = Stream(self, event.stream_id, scope, ended=ended, key=key)
        self.streams[event.stream_id] = stream
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None
        stream.start(self.app)

    def drain(self, length: int) -> None:
        """Drop body bytes of a stream already answered.

        The connection's window is given back (the other streams go on); the stream's is
        not, so a client can send at most one window more on it (RFC 9113 8.1 lets the
        server ignore the rest of a body once it has answered).
        """
        if length:
            self.h2.increment_flow_control_window(length)

    def answer(self, stream_id: int, refusal: replies.Refusal) -> None:
        """Answer a stream with the door's refusal, and end it."""
        self.h2.send_headers(stream_id, refusal.h2_headers())
        self.h2.send_data(stream_id, refusal.body(), end_stream=True)
        self.flush()

    def finished(self, stream: Stream) -> None:
        """A stream's task is done: it is forgotten, and uncounted."""
        if self.streams.get(stream.id) is stream:
            del self.streams[stream.id]
        self.book.close(stream.key)
        self.rearm()


def is_control(event: h2.events.Event) -> bool:
    """Whether an event is a frame that asks the app for nothing (see :data:`MOST_CONTROL`)."""
    if isinstance(event, h2.events.DataReceived):
        return not event.data and event.stream_ended is None
    return not isinstance(
        event, h2.events.RequestReceived | h2.events.StreamEnded | h2.events.StreamReset
    )


def declared_length(fields: list[tuple[bytes, bytes]]) -> int | None:
    """A request's ``content-length``, if it has one (h2 has checked its form).

    >>> declared_length([(b"content-length", b"10")]), declared_length([])
    (10, None)
    """
    for name, value in fields:
        if name == b"content-length":
            return int(value) if value.isdigit() else -1
    return None


__all__ = ["Http2Protocol", "declared_length"]
