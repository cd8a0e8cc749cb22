"""The SDK and CLI against a hostile server: endless answers and trickled bytes are cut off.

A real socket server (a thread) plays the server: it answers with a body that never
ends, or sends one byte at a time below the read timeout. Each client must give up
within its bounds: an answer over its call's cap is :class:`AnswerTooLargeError` once
about the cap has been read, and a try slower than its timeout in all is a
:class:`TransportError` soon after the timeout, however often bytes arrive.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest

from cardproof import AnswerTooLargeError, TransportError
from cardproof.cli import main
from cardproof.client import AsyncClient, Client, fetch_bytes
from cardproof.endpoints import KEY_LIMIT

Behaviour = Callable[[socket.socket, "Served"], None]


class Served:
    """What the hostile server sent, counted across its connections."""

    def __init__(self) -> None:
        self.sent = 0
        self.stop = threading.Event()

    def send(self, conn: socket.socket, data: bytes) -> bool:
        """Send ``data``; ``False`` once the client hung up or the test ended."""
        if self.stop.is_set():
            return False
        try:
            conn.sendall(data)
        except OSError:
            return False
        self.sent += len(data)
        return True


def _read_request(conn: socket.socket) -> None:
    """Read up to the end of the request's headers (the calls here send no body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return
        data += chunk


@contextmanager
def hostile(behaviour: Behaviour) -> Iterator[tuple[str, Served]]:
    """A server at the yielded URL answering every connection with ``behaviour``."""
    served = Served()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]

    def serve() -> None:
        while not served.stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    def handle(conn: socket.socket) -> None:
        with conn:
            _read_request(conn)
            behaviour(conn, served)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}", served
    finally:
        served.stop.set()
        thread.join()
        listener.close()


def endless(conn: socket.socket, served: Served) -> None:
    """A 200 whose body never ends (no length: it lasts until the connection closes)."""
    served.send(conn, b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n[")
    chunk = b'"x",' * 16384
    while served.send(conn, chunk):
        pass


def trickle(conn: socket.socket, served: Served) -> None:
    """A 200 whose body comes one byte every 50 ms, well within any read timeout."""
    served.send(conn, b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n")
    while served.send(conn, b"x"):
        time.sleep(0.05)


def trickled_headers(conn: socket.socket, served: Served) -> None:
    """A status line and headers that come one byte every 50 ms, never ending."""
    for byte in b"HTTP/1.1 200 OK\r\nx-slow: ":
        if not served.send(conn, bytes([byte])):
            return
        time.sleep(0.05)
    while served.send(conn, b"a"):
        time.sleep(0.05)


def test_an_endless_answer_is_refused_at_its_cap() -> None:
    with hostile(endless) as (url, served), Client(base_url=url, max_retries=0) as client:
        with pytest.raises(AnswerTooLargeError, match="1,048,576 bytes"):
            client.log_key()
        with pytest.raises(AnswerTooLargeError, match="1,048,576 bytes"):
            client.jwks()
    # what was read is about the cap (the socket buffers hold a few MB more at most)
    assert served.sent < KEY_LIMIT + 16 * 1024 * 1024


def sized(size: int) -> Behaviour:
    """A 200 of exactly ``size`` bytes of text, with its length."""

    def answer(conn: socket.socket, served: Served) -> None:
        served.send(conn, b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % size)
        served.send(conn, b"a" * size)

    return answer


def test_the_cap_is_exact() -> None:
    with hostile(sized(KEY_LIMIT)) as (url, _), Client(base_url=url, max_retries=0) as client:
        assert len(client.log_key()) == KEY_LIMIT
    with (
        hostile(sized(KEY_LIMIT + 1)) as (url, _),
        Client(base_url=url, max_retries=0) as client,
        pytest.raises(AnswerTooLargeError),
    ):
        client.log_key()


def test_an_answer_over_its_cap_is_not_tried_again() -> None:
    with hostile(endless) as (url, _), Client(base_url=url, max_retries=3) as client:
        started = time.monotonic()
        with pytest.raises(AnswerTooLargeError, match="4,194,304 bytes"):
            client.variants()
        assert time.monotonic() - started < 5


async def test_the_async_client_caps_answers_too() -> None:
    with hostile(endless) as (url, _):
        async with AsyncClient(base_url=url, max_retries=0) as client:
            with pytest.raises(AnswerTooLargeError):
                await client.log_checkpoint()


def test_a_trickled_answer_times_out_in_all_not_per_read() -> None:
    with hostile(trickle) as (url, _), Client(base_url=url, timeout=1, max_retries=0) as client:
        started = time.monotonic()
        with pytest.raises(TransportError, match="more than 1 s"):
            client.log_checkpoint()
        # the deadline is checked as each byte arrives: a little past one second
        assert 1 <= time.monotonic() - started < 4


def test_the_sync_client_bounds_trickled_headers_too() -> None:
    """Each socket read gets only what is left of the try (``bounded_transport``)."""
    with (
        hostile(trickled_headers) as (url, _),
        Client(base_url=url, timeout=1, max_retries=0) as client,
    ):
        started = time.monotonic()
        pool = ThreadPoolExecutor(1)  # a hang fails the test rather than holding it
        try:
            with pytest.raises(TransportError, match="more than 1 s"):
                pool.submit(client.log_key).result(timeout=10)
        finally:
            pool.shutdown(wait=False)
        assert 1 <= time.monotonic() - started < 3


def test_a_document_fetched_by_url_bounds_trickled_headers() -> None:
    with hostile(trickled_headers) as (url, _):
        started = time.monotonic()
        with pytest.raises(TransportError):
            fetch_bytes(url + "/keys.json", limit=KEY_LIMIT, timeout=1)
        assert time.monotonic() - started < 3


def test_cardproof_log_check_gives_up_on_trickled_headers(
    tmp_path: object, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cardproof.cli.log as log_cli

    monkeypatch.setattr(log_cli, "TIMEOUT", 1.0)
    with hostile(trickled_headers) as (url, _):
        started = time.monotonic()
        status = main(["log", "check", "--url", url, "--state", str(tmp_path)])
        elapsed = time.monotonic() - started
    assert status == 2, capsys.readouterr()
    assert elapsed < 4 * 1.5 + 10 + 5  # four tries of a second, and their backoff


async def test_the_async_client_bounds_trickled_headers_too() -> None:
    with hostile(trickled_headers) as (url, _):
        async with AsyncClient(base_url=url, timeout=1, max_retries=0) as client:
            started = time.monotonic()
            with pytest.raises(TransportError, match="more than 1 s"):
                await asyncio.wait_for(client.log_key(), 30)
            assert 1 <= time.monotonic() - started < 4


def test_a_document_fetched_by_url_is_capped_and_timed() -> None:
    with hostile(endless) as (url, _), pytest.raises(AnswerTooLargeError):
        fetch_bytes(url + "/keys.json", limit=KEY_LIMIT)
    with hostile(trickle) as (url, _):
        started = time.monotonic()
        with pytest.raises(TransportError):
            fetch_bytes(url + "/keys.json", limit=KEY_LIMIT, timeout=1)
        assert time.monotonic() - started < 4


def test_cardproof_verify_refuses_an_endless_key_set(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    receipt = Path(str(tmp_path)) / "receipt.jws"
    receipt.write_text("eyJhbGciOiJFZERTQSJ9.e30.c2ln\n")
    with hostile(endless) as (url, served):
        started = time.monotonic()
        status = main(["verify", str(receipt), "--url", url])
        assert time.monotonic() - started < 10
    assert status == 2
    err = capsys.readouterr().err
    assert "cannot fetch the key set" in err
    assert "1,048,576 bytes" in err
    assert served.sent < KEY_LIMIT + 16 * 1024 * 1024


def test_cardproof_log_check_gives_up_on_a_trickled_checkpoint(
    tmp_path: object, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cardproof.cli.log as log_cli

    monkeypatch.setattr(log_cli, "TIMEOUT", 1.0)
    with hostile(trickle) as (url, _):
        started = time.monotonic()
        status = main(["log", "check", "--url", url, "--state", str(tmp_path)])
        elapsed = time.monotonic() - started
    assert status == 2, capsys.readouterr()
    # four tries (the first and three retries), each cut a little past its second
    assert elapsed < 4 * 3 + 10 + 5
    assert "more than 1 s" in capsys.readouterr().err


def test_cardproof_log_check_refuses_an_endless_checkpoint(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with hostile(endless) as (url, _):
        status = main(["log", "check", "--url", url, "--state", str(tmp_path)])
    assert status == 2
    assert "bytes" in capsys.readouterr().err
