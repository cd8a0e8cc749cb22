"""Ctrl-C during a request of the synchronous SDK (and so of the CLI) never hangs it.

Python raises ``KeyboardInterrupt`` in the main thread between any two bytecodes; inside
httpcore's connection pool it once landed between a lock taken and the block that frees
it, and the request's own clean-up then waited for that lock forever
(``cardproof tournament round --watch`` hung after Ctrl-C about once in 200 stops on a
busy machine). Each try sent from the main thread now runs in a helper thread
(``cardproof.transport.clear_of_ctrl_c``), and the main thread waits where an interrupt
lands cleanly.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from cardproof import TransportError
from cardproof.client import Client


def test_a_try_from_the_main_thread_runs_in_a_helper_thread() -> None:
    """httpcore never runs on the main thread, where a Ctrl-C lands; from any other
    thread a try runs in place."""
    senders: list[threading.Thread] = []

    def answer(request: httpx.Request) -> httpx.Response:
        senders.append(threading.current_thread())
        return httpx.Response(200, json={"status": "ok"})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with Client(base_url="http://cardproof.test", http_client=http, max_retries=0) as client:
        assert threading.current_thread() is threading.main_thread()
        client.health()
        assert senders[-1] is not threading.main_thread()
        assert senders[-1].daemon  # a try left by a Ctrl-C never holds the exit
        elsewhere = threading.Thread(target=client.health)
        elsewhere.start()
        elsewhere.join()
        assert senders[-1] is elsewhere


def test_an_error_of_the_try_reaches_the_caller_as_it_was() -> None:
    """What the helper thread raises is raised in the caller, the same object."""
    refused = httpx.ConnectError("refused here")

    def answer(request: httpx.Request) -> httpx.Response:
        raise refused

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with (
        Client(base_url="http://cardproof.test", http_client=http, max_retries=0) as client,
        pytest.raises(TransportError, match="refused here") as raised,
    ):
        client.health()
    assert raised.value.__cause__ is refused


@contextmanager
def silent_until_told() -> Iterator[tuple[str, list[socket.socket], threading.Event]]:
    """A server that holds every connection unanswered until ``answering`` is set, then
    answers ``/healthz``: its base URL, the connections it holds, and that event."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    answering = threading.Event()

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            if not answering.is_set():
                held.append(conn)  # read nothing, answer nothing
                continue
            conn.recv(65536)
            body = b'{"status":"ok"}'
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n"
                + b"content-length: %d\r\n\r\n%s" % (len(body), body)
            )
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", held, answering
    finally:
        listener.close()
        for conn in held:
            conn.close()


def interrupt_once_held(held: list[socket.socket]) -> None:
    """SIGINT this process once the server holds a connection (the request waits)."""
    deadline = time.monotonic() + 30
    while not held and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)


def test_ctrl_c_while_waiting_for_an_answer_stops_the_call_and_the_client_goes_on() -> None:
    """SIGINT to this process while a request waits on a silent server: the call raises
    ``KeyboardInterrupt`` at once, and the next request of the same client is answered."""
    with (
        silent_until_told() as (url, held, answering),
        Client(base_url=url, timeout=30, max_retries=0) as client,
    ):
        # an xdist worker ignores SIGINT (Ctrl-C is its controller's): Python's own handler
        # here, as in any program run from a terminal
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            threading.Thread(target=interrupt_once_held, args=(held,), daemon=True).start()
            start = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                client.health()
        finally:
            signal.signal(signal.SIGINT, previous)
        assert held, "the request was interrupted before it reached the server"
        assert time.monotonic() - start < 10
        answering.set()
        assert client.health().status == "ok"
