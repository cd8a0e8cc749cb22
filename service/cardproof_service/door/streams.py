"""One HTTP/2 stream as one ASGI request: its body in, its answer out, its deadlines.

The body's DATA frames are kept until the app reads them and only then acknowledged to
the peer (its flow control window opens again), so an app that reads slowly holds a
client back rather than the client filling the process. While the body is being sent,
each ``body_timeout`` window must bring ``body_min_rate`` bytes a second (or the body's
end) unless the app is the one not reading; else the stream is answered 408. The answer
goes out in DATA frames no larger than the peer's window and frame size allow, waiting
for WINDOW_UPDATE frames (and for the socket to drain) in between.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import Any, Final, Protocol

import h2.connection
import h2.errors
import h2.exceptions
from uvicorn.server import ServerState

from cardproof_service.door import replies
from cardproof_service.door.rates import body_balance
from cardproof_service.plumbing import DoorSettings

log = logging.getLogger("cardproof.door")
HOP_BY_HOP: Final = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"upgrade"}
)
"""Headers HTTP/2 forbids in an answer (they belong to HTTP/1.1's connection)."""
SERVER_ERROR: Final = replies.Refusal(500, "internal", "the server failed to answer")


class Connection(Protocol):
    """What a stream uses of its HTTP/2 connection (``http2.Http2Protocol``)."""

    loop: asyncio.AbstractEventLoop
    door: DoorSettings
    h2: h2.connection.H2Connection
    server_state: ServerState
    writable: asyncio.Event
    """Set while the socket takes writes (cleared while the client does not read)."""

    def flush(self) -> None:
        """Write what h2 has to send."""

    def report(self) -> None:
        """Charge the client an offence."""

    def finished(self, stream: Stream) -> None:
        """The stream's task is done."""


class Stream:
    """One request on an HTTP/2 connection."""

    def __init__(
        self,
        connection: Connection,
        stream_id: int,
        scope: dict[str, Any],
        *,
        ended: bool,
        key: str,
    ) -> None:
        """A stream whose headers arrived (``ended``: with no body), counted under ``key``."""
        self.connection = connection
        self.id = stream_id
        self.key = key
        self.scope = scope
        self.chunks: list[bytes] = []
        self.unacknowledged = 0
        """Flow-controlled bytes received and not yet read by the app."""
        self.more_body = not ended
        self.body_read = False
        """The body's last message went to the app."""
        self.disconnected = False
        self.started = False
        self.complete = False
        self.event = asyncio.Event()
        """Set when a body chunk, the body's end or the client's leaving is news."""
        self.window = asyncio.Event()
        """Set when the peer opened its flow control window."""
        self.window_bytes = self.credit = 0
        self.watch: asyncio.TimerHandle | None = None
        if self.more_body:
            self.watch = connection.loop.call_later(connection.door.body_timeout, self.body_window)

    def start(self, app: Any) -> None:
        """Run the app on this request (a task of the server's, like HTTP/1.1's)."""
        task = self.connection.loop.create_task(self.run(app), context=contextvars.Context())
        tasks = self.connection.server_state.tasks
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def run(self, app: Any) -> None:
        """The app's call; a failure before the answer is a 500, after it a reset."""
        try:
            await app(self.scope, self.receive, self.send)
        except Exception:
            log.exception("the app failed on an HTTP/2 stream")
            if not self.started and not self.disconnected:
                self.send_refusal(SERVER_ERROR)
        finally:
            if not self.complete and not self.disconnected:
                self.reset()
            self.stop_watch()
            self.release()
            self.connection.finished(self)

    def release(self) -> None:
        """Give back the window of body bytes the app never read.

        Its answer came first, or the client left: without this the connection's window
        would shrink for good.
        """
        if self.unacknowledged:
            read, self.unacknowledged = self.unacknowledged, 0
            self.chunks.clear()
            self.connection.h2.acknowledge_received_data(read, self.id)
            self.connection.flush()

    # the request's body

    def received(self, data: bytes, flow_controlled: int) -> None:
        """A DATA frame of this stream."""
        self.chunks.append(data)
        self.unacknowledged += flow_controlled
        self.window_bytes += len(data)
        self.event.set()

    def ended(self) -> None:
        """The body is complete."""
        self.more_body = False
        self.stop_watch()
        self.event.set()

    def gone(self) -> None:
        """The client reset the stream or left."""
        self.disconnected = True
        self.stop_watch()
        self.event.set()
        self.window.set()

    def window_opened(self) -> None:
        """The peer sent a WINDOW_UPDATE (for this stream or the connection)."""
        self.window.set()

    def stop_watch(self) -> None:
        """Cancel the body's deadline."""
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None

    def body_window(self) -> None:
        """A body's window ends: enough came (or the app is not reading), else 408."""
        self.watch = None
        door = self.connection.door
        if self.disconnected or not self.more_body:
            return
        self.credit, enough = body_balance(self.window_bytes, self.credit, door)
        if enough or self.unacknowledged:
            self.window_bytes = 0
            self.watch = self.connection.loop.call_later(door.body_timeout, self.body_window)
            return
        self.connection.report()
        if not self.started:
            self.send_refusal(replies.too_slow_body(door.body_min_rate, door.body_timeout))
        self.gone()  # the app reads the client as gone
        self.reset()

    async def receive(self) -> dict[str, Any]:
        """The next ASGI message: body read so far, or (once all read) the client's leaving."""
        while not (self.disconnected or self.complete or (not self.body_read and self.news())):
            self.event.clear()
            await self.event.wait()
        if self.disconnected or self.complete or self.body_read:
            return {"type": "http.disconnect"}
        body = b"".join(self.chunks)
        self.chunks.clear()
        if self.unacknowledged:
            read, self.unacknowledged = self.unacknowledged, 0
            self.connection.h2.acknowledge_received_data(read, self.id)
            self.connection.flush()
        self.body_read = not self.more_body
        return {"type": "http.request", "body": body, "more_body": self.more_body}

    def news(self) -> bool:
        """Whether the body has something for the app: a chunk, or its end."""
        return bool(self.chunks) or not self.more_body

    # the answer

    async def send(self, message: dict[str, Any]) -> None:
        """Send the app's answer: headers, then data within the flow control windows."""
        if self.disconnected:
            return
        kind = message["type"]
        if kind == "http.response.start" and not self.started:
            self.started = True
            headers = [(b":status", str(message["status"]).encode())]
            headers += [
                (name.lower(), value)
                for name, value in message.get("headers", [])
                if name.lower() not in HOP_BY_HOP
            ]
            self.connection.h2.send_headers(self.id, headers)
            self.connection.flush()
        elif kind == "http.response.body" and self.started and not self.complete:
            more = bool(message.get("more_body", False))
            await self.send_data(bytes(message.get("body", b"")), end=not more)
            if not more:
                self.complete = True
                self.event.set()  # a receive() waiting for the client's leaving returns

    async def send_data(self, data: bytes, *, end: bool) -> None:
        """Send ``data`` as the windows allow; with ``end``, end the stream."""
        h2conn = self.connection.h2
        while data and not self.disconnected:
            await self.connection.writable.wait()
            if self.disconnected:
                return
            try:
                room = min(
                    h2conn.local_flow_control_window(self.id),
                    h2conn.max_outbound_frame_size,
                    len(data),
                )
            except h2.exceptions.StreamClosedError:
                self.gone()
                return
            if room <= 0:
                self.window.clear()
                try:
                    async with asyncio.timeout(self.connection.door.send_timeout):
                        await self.window.wait()
                except TimeoutError:  # the client keeps its window shut: cut off
                    self.connection.report()
                    self.gone()
                    self.reset(h2.errors.ErrorCodes.CANCEL)
                    return
                continue
            h2conn.send_data(self.id, data[:room])
            data = data[room:]
            self.connection.flush()
        if end and not self.disconnected:
            h2conn.end_stream(self.id)
            self.connection.flush()

    def send_refusal(self, refusal: replies.Refusal) -> None:
        """Answer the door's (or the 500) problem at once, ending the stream."""
        self.started = self.complete = True
        try:
            self.connection.h2.send_headers(self.id, refusal.h2_headers())
            self.connection.h2.send_data(self.id, refusal.body(), end_stream=True)
        except h2.exceptions.ProtocolError:  # the stream closed meanwhile: nothing to say
            return
        self.connection.flush()

    def reset(self, code: int = h2.errors.ErrorCodes.INTERNAL_ERROR) -> None:
        """Reset the stream (an answer cut short, or a body no longer wanted)."""
        try:
            self.connection.h2.reset_stream(self.id, code)
        except h2.exceptions.ProtocolError:
            return  # closed already
        self.connection.flush()


__all__ = ["Stream"]
