"""The door (cardproof_service.door): deadlines, limits, connection caps, h2c and HTTP/2.

Each test talks to a real ``cardproof serve`` over raw sockets (a slow or huge client is
something no HTTP library will play), with the door's settings shortened so that a
deadline passes in a second or two; the defaults are checked apart.
"""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cardproof_service.front.examples import SCORE
from cardproof_service.plumbing import DoorSettings, Settings
from conftest import served, served_process

pytestmark = pytest.mark.serial
"""Latencies under a flood of 20,000 connections, and deadlines: run alone (`make test`)."""

SHORT = {
    "CARDPROOF_HEADER_TIMEOUT": "1",
    "CARDPROOF_BODY_TIMEOUT": "1",
    "CARDPROOF_BODY_MIN_RATE": "1000",
    "CARDPROOF_KEEPALIVE_TIMEOUT": "1",
    "CARDPROOF_SEND_TIMEOUT": "2",
    "CARDPROOF_CONNECTIONS_PER_ADDRESS": "40",
}
"""Deadlines a test can wait out, and a cap a test can reach."""
SLACK = 3.0
"""Seconds a deadline may be late by on a loaded machine (timers, scheduling)."""
SCORE_BODY = json.dumps(SCORE).encode()


@pytest.fixture(scope="module")
def door() -> Iterator[tuple[str, int]]:
    """A server with :data:`SHORT` settings: its host and port."""
    with served("--log-level", "warning", env={"REDIS_URL": "", **SHORT}) as url:
        host, port = url.removeprefix("http://").split(":")
        yield host, int(port)


def connect(address: tuple[str, int], source: str = "127.0.0.1") -> socket.socket:
    """A TCP connection from ``source`` (any 127/8 address is this host's)."""
    sock = socket.socket()
    sock.settimeout(10 + SLACK)
    sock.bind((source, 0))
    sock.connect(address)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes (or resets) the connection."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def status_of(answer: bytes) -> int:
    """The status code of an HTTP/1.1 answer."""
    return int(answer.split(b" ", 2)[1])


def problem_of(answer: bytes) -> dict[str, object]:
    """The problem+json body of an HTTP/1.1 answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower()
    problem: dict[str, object] = json.loads(body)
    return problem


def healthz(address: tuple[str, int], source: str = "127.0.0.1") -> float:
    """Seconds a fresh connection takes to get ``/healthz`` answered 200."""
    began = time.perf_counter()
    with connect(address, source) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = read_all(sock)
    assert status_of(answer) == 200, answer[:200]
    return time.perf_counter() - began


def test_the_defaults_are_the_documented_ones() -> None:
    door = DoorSettings()
    assert (door.header_timeout, door.body_timeout, door.body_min_rate) == (10, 10, 1024)
    assert (door.keepalive_timeout, door.send_timeout) == (5, 30)
    assert (door.max_request_line, door.max_header_bytes, door.max_headers) == (8192, 16384, 100)
    assert (door.connections_per_address, door.h2_max_streams) == (256, 100)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert door.max_connections == min(50_000, soft - 512)
    assert Settings.from_env({}).door == DoorSettings()
    assert DoorSettings.from_env({"CARDPROOF_HEADER_TIMEOUT": "2.5"}).header_timeout == 2.5
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for name in DoorSettings.__dataclass_fields__:
        assert f"| `CARDPROOF_{name.upper()}` |" in readme, name


@pytest.mark.parametrize(
    ("request_bytes", "status", "names"),
    [
        (b"GET /" + b"a" * 8200 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "MAX_REQUEST_LINE"),
        (b"GET / HTTP/1.1\r\nX-Big: " + b"a" * 17000 + b"\r\n\r\n", 431, "MAX_HEADER_BYTES"),
        (
            b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(101)) + b"\r\n",
            431,
            "MAX_HEADERS",
        ),
    ],
    ids=["target", "header-bytes", "header-count"],
)
def test_heads_over_a_limit_are_refused_naming_it(
    door: tuple[str, int], request_bytes: bytes, status: int, names: str
) -> None:
    with connect(door) as sock:
        sock.sendall(request_bytes)
        answer = read_all(sock)
    assert status_of(answer) == status
    problem = problem_of(answer)
    assert problem["status"] == status
    assert f"CARDPROOF_{names}" in str(problem["detail"])


def test_heads_just_within_the_limits_are_served(door: tuple[str, int]) -> None:
    # 98 fields, with Host and Connection 100
    fields = b"".join(b"X-%02d: %s\r\n" % (n, b"v" * 150) for n in range(98))
    with connect(door) as sock:
        sock.sendall(b"GET /healthz?" + b"q" * 8000 + b" HTTP/1.1\r\nHost: x\r\n" + fields)
        sock.sendall(b"Connection: close\r\n\r\n")
        assert status_of(read_all(sock)) == 200


def test_an_endless_header_is_refused_at_its_limit_not_held(door: tuple[str, int]) -> None:
    """A header line that never ends (64 MB offered) is refused within about 30 KB."""
    with connect(door) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nX-Big: ")
        sent = 0
        try:
            while sent < 64 * 2**20:
                sock.sendall(b"a" * 65536)
                sent += 65536
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(sock)
    assert sent < 8 * 2**20, "the server kept reading an endless header"
    assert not answer or status_of(answer) == 431


def test_slow_and_silent_clients_are_cut_off_while_others_are_served(
    door: tuple[str, int],
) -> None:
    """36 clients, each trickling a head, a body or nothing, are all gone in time."""
    slow_heads = [connect(door) for _ in range(12)]
    slow_bodies = [connect(door) for _ in range(12)]
    silent = [connect(door) for _ in range(12)]
    for sock in slow_heads:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
    for sock in slow_bodies:
        sock.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{")
    began = time.monotonic()
    for _ in range(4):  # a byte every 0.5 s: far below the 1000 bytes a second asked
        time.sleep(0.5)
        for sock in slow_heads + slow_bodies:
            with contextlib.suppress(OSError):  # cut off already
                sock.sendall(b"X" if sock in slow_heads else b" ")
        assert healthz(door, "127.0.0.2") < 1.0
    answers = [read_all(sock) for sock in slow_heads + slow_bodies + silent]
    assert time.monotonic() - began < 1 + 1 + SLACK
    for answer in answers[:24]:
        assert status_of(answer) == 408, answer[:100]
        assert "CARDPROOF_" in str(problem_of(answer)["detail"])
    assert answers[24:] == [b""] * 12  # nothing said, nothing answered
    for sock in slow_heads + slow_bodies + silent:
        sock.close()


def test_a_body_at_its_minimum_rate_is_read_whole(door: tuple[str, int]) -> None:
    """1,500 bytes a second over three windows (the minimum is 1,000): served."""
    body = SCORE_BODY.ljust(4000)
    with connect(door) as sock:
        sock.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
        sock.sendall(b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
        for start in range(0, len(body), 750):
            sock.sendall(body[start : start + 750])
            time.sleep(0.5)
        answer = read_all(sock)
    assert status_of(answer) == 200
    assert b'"total":210' in answer


def test_an_idle_keep_alive_connection_is_closed(door: tuple[str, int]) -> None:
    with connect(door) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        began = time.monotonic()
        answer = read_all(sock)
    assert status_of(answer) == 200
    assert 0.8 < time.monotonic() - began < 1 + SLACK


def test_a_client_that_does_not_read_its_answers_is_cut_off(door: tuple[str, int]) -> None:
    """Pipelined requests for the spec, never read: closed after the send timeout."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(door)
    request = b"GET /schema/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
    sock.sendall(request * 50)
    time.sleep(2 + SLACK)
    sock.settimeout(10)
    read = len(read_all(sock))
    sock.close()
    spec = len(httpx.get(f"http://{door[0]}:{door[1]}/schema/openapi.json").content)
    assert read < 50 * spec, "the server wrote every answer: the client was never cut off"


def test_connections_over_an_address_cap_are_closed_and_others_still_served(
    door: tuple[str, int],
) -> None:
    held = [connect(door) for _ in range(40)]
    try:
        over = connect(door)
        with contextlib.suppress(OSError):  # closed already
            over.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_all(over) == b"", "a connection over the cap was kept"
        over.close()
        assert healthz(door, "127.0.0.2") < 1.0  # another address is not held back
        held.pop().close()
        time.sleep(0.2)
        assert healthz(door) < 1.0  # room again for the first address
    finally:
        for sock in held:
            sock.close()


def test_refused_and_slow_connections_count_in_the_rate_limit() -> None:
    """Over the cap 30 times: the address's next request is answered 429."""
    env = {
        "REDIS_URL": "",
        **SHORT,
        "CARDPROOF_CONNECTIONS_PER_ADDRESS": "5",
        "CARDPROOF_RATE_LIMIT": "20",
    }
    with served("--log-level", "warning", env=env) as url:
        host, port = url.removeprefix("http://").split(":")
        address = (host, int(port))
        assert httpx.get(f"{url}/v1/variants").status_code == 200
        held = [connect(address) for _ in range(5)]
        for _ in range(30):
            with connect(address) as over:
                read_all(over)
        for sock in held:
            sock.close()
        time.sleep(1.5)  # charged every half second
        refused = httpx.get(f"{url}/v1/variants")
        assert refused.status_code == 429, refused.text


H2C_HEAD = (
    b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
    b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n"
)


@pytest.mark.parametrize("framing", ["length", "chunked"])
def test_an_h2c_offer_is_served_as_http1_with_its_body(door: tuple[str, int], framing: str) -> None:
    """Java's HttpClient and curl --http2 offer h2c on every request: the body arrives."""
    if framing == "length":
        request = H2C_HEAD + b"Content-Length: %d\r\n\r\n" % len(SCORE_BODY) + SCORE_BODY
    else:
        half = len(SCORE_BODY) // 2
        chunks = b"".join(
            b"%x\r\n%s\r\n" % (len(part), part) for part in (SCORE_BODY[:half], SCORE_BODY[half:])
        )
        request = H2C_HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
    then = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    head = len(request) - len(SCORE_BODY) if framing == "length" else request.index(b"\r\n\r\n") + 4
    with connect(door) as sock:
        sock.sendall(request[:40])
        time.sleep(0.05)
        sock.sendall(request[40:head])
        time.sleep(0.1)  # the app starts on the head alone: the body follows
        sock.sendall(request[head:] + then)  # the next request right behind it
        answer = read_all(sock)
    first, _, rest = answer.partition(b"HTTP/1.1 200 OK\r\n")
    assert first == b""
    assert b'"total":210' in rest
    assert rest.count(b"HTTP/1.1 200 OK") == 1
    assert rest.endswith(b'{"status":"ok"}')


def test_http2_with_prior_knowledge_serves_requests_on_one_connection(
    door: tuple[str, int],
) -> None:
    url = f"http://{door[0]}:{door[1]}"
    with httpx.Client(http1=False, http2=True, base_url=url) as client:
        scored = client.post("/v1/score", json=SCORE)
        assert scored.http_version == "HTTP/2"
        assert scored.json()["total"] == 210
        spec = client.get("/schema/openapi.json")  # larger than a flow control window
        assert len(spec.content) > 65_535
        assert spec.json()["openapi"].startswith("3.")
        refused = client.get("/healthz", headers={"x-big": "a" * 17000})
        assert refused.status_code == 431
        assert "CARDPROOF_MAX_HEADER_BYTES" in refused.json()["detail"]
        assert client.get("/healthz").status_code == 200  # the connection goes on


async def test_http2_streams_run_at_once() -> None:
    """Forty requests in flight on one HTTP/2 connection, all answered."""
    import asyncio

    with served("--log-level", "warning", env={"REDIS_URL": "", **SHORT}) as url:
        async with httpx.AsyncClient(http1=False, http2=True, base_url=url) as client:
            answers = await asyncio.gather(
                *(client.post("/v1/score", json=SCORE) for _ in range(40))
            )
    assert {answer.json()["total"] for answer in answers} == {210}
    assert {answer.http_version for answer in answers} == {"HTTP/2"}


def test_a_slow_http2_body_is_answered_408(door: tuple[str, int]) -> None:
    import h2.config
    import h2.connection
    import h2.events

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    with connect(door) as sock:
        sock.sendall(conn.data_to_send())
        headers = [
            (":method", "POST"),
            (":path", "/v1/score"),
            (":scheme", "http"),
            (":authority", "x"),
            ("content-length", "5000"),
        ]
        conn.send_headers(1, headers)
        conn.send_data(1, b"{")
        sock.sendall(conn.data_to_send())
        began = time.monotonic()
        status = None
        while status is None:
            data = sock.recv(65536)
            assert data, "closed without an answer"
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status = dict(event.headers)[b":status"]
            sock.sendall(conn.data_to_send())
    assert status == b"408"
    assert time.monotonic() - began < 1 + SLACK


def test_http2_peers_that_reset_streams_without_end_are_cut_off(door: tuple[str, int]) -> None:
    """The "rapid reset" attack: streams opened and cancelled by the thousand."""
    import h2.config
    import h2.connection
    import h2.exceptions

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    headers = [(":method", "GET"), (":path", "/healthz"), (":scheme", "http"), (":authority", "x")]

    def open_and_cancel(sock: socket.socket) -> None:
        sock.sendall(conn.data_to_send())
        for stream in range(1, 2 * 20_000, 2):  # cut off after 1,000: the rest is refused
            conn.send_headers(stream, headers)
            conn.reset_stream(stream)
            sock.sendall(conn.data_to_send())

    with connect(door) as sock, pytest.raises((BrokenPipeError, ConnectionResetError)):
        open_and_cancel(sock)


def test_one_address_holding_twenty_thousand_connections_holds_no_other(tmp_path: Path) -> None:
    """127.0.0.1 opens 20,000 connections and trickles bytes into those kept; meanwhile a
    fresh connection from 127.0.0.2 gets /healthz with p99 under 100 ms."""
    import subprocess
    import sys

    with served_process("--log-level", "warning", env={"REDIS_URL": ""}) as (url, _server):
        host, port = url.removeprefix("http://").split(":")
        address = (host, int(port))
        flooders = [
            subprocess.Popen(
                [sys.executable, str(Path(__file__).parent / "flood.py"), host, port, "10000"],
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        try:
            opened = [
                int(str(flooder.stdout and flooder.stdout.readline()).split()[1])
                for flooder in flooders
            ]
            assert sum(opened) == 20_000
            times = sorted(healthz(address, "127.0.0.2") for _ in range(300))
        finally:
            for flooder in flooders:
                flooder.terminate()
                flooder.wait(timeout=30)
    p99 = times[int(len(times) * 0.99) - 1]
    assert p99 < 0.1, f"/healthz p99 {p99 * 1000:.1f} ms from another address"


def test_the_book_caps_addresses_and_the_process_but_not_trusted_proxies() -> None:
    from cardproof_service.door.connections import Connections

    book = Connections(DoorSettings(connections_per_address=2, max_connections=5), "10.0.0.0/8")
    assert [book.open("192.0.2.1") for _ in range(3)] == ["192.0.2.1", "192.0.2.1", None]
    # one IPv6 subscriber's /64 is one address, whichever of its addresses it sends from
    assert book.open("2001:db8::1") == book.open("2001:db8::2") == "2001:db8::/64"
    assert book.open("2001:db8::3") is None
    assert book.open("10.1.2.3") == "10.1.2.3"  # the proxy: exempt from the address cap
    assert book.open("10.1.2.3") is None  # but not from the process's: 5 open
    book.close("192.0.2.1")
    assert book.open("10.1.2.3") == "10.1.2.3"
    assert (book.total, book.by_address["192.0.2.1"]) == (5, 1)
    everyone = Connections(DoorSettings(connections_per_address=1), "*")
    assert everyone.open("192.0.2.1") == everyone.open("192.0.2.1") == "192.0.2.1"


def test_http2_bodies_the_app_never_read_give_their_window_back(door: tuple[str, int]) -> None:
    """404s answered before their 60 KB bodies were read: the connection's window (64 KiB)
    would be spent after the first, and the next body could never be sent."""
    url = f"http://{door[0]}:{door[1]}"
    with httpx.Client(http1=False, http2=True, base_url=url, timeout=5) as client:
        for _ in range(5):
            assert client.post("/v1/nowhere", content=b"x" * 60_000).status_code == 404


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /healthz\r\n\r\n", 505),  # HTTP/0.9
        (b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505),  # HTTP/2 needs its preface
        (b"GET /healthz HTTP/1.1\r\n\r\n", 400),  # no Host (RFC 9112 3.2)
        (b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        (b"CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n", 400),  # a target httptools cannot read
        (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", 400),  # TLS spoken to plain HTTP
    ],
    ids=["http0.9", "http2.0-line", "no-host", "two-hosts", "connect", "tls"],
)
def test_what_is_not_http1_is_a_problem_answer(
    door: tuple[str, int], request_bytes: bytes, status: int
) -> None:
    with connect(door) as sock:
        sock.sendall(request_bytes)
        answer = read_all(sock)
    assert status_of(answer) == status
    assert problem_of(answer)["status"] == status


def test_http1_pipelining_is_capped(door: tuple[str, int]) -> None:
    """100 requests written at once: 32 queue behind the first, then the rest is not read."""
    with connect(door) as sock:
        sock.sendall(b"GET /schema/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * 100)
        answer = read_all(sock)
    assert answer.count(b"HTTP/1.1 200 OK") == 33  # the one answered, the 32 queued
    assert b"HTTP/1.1 429" not in answer  # the rest is not read: the connection closes


def test_an_http2_body_after_its_answer_is_dropped_within_its_window(
    door: tuple[str, int],
) -> None:
    """A 404 answered before its body: the rest of the body is dropped, the stream's window
    stays shut (at most one window more is read), the connection's is given back: the
    next stream's body still gets through (RFC 9113 8.1)."""
    import h2.config
    import h2.connection
    import h2.events

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()

    def head(path: str) -> list[tuple[str, str]]:
        return [(":method", "POST"), (":path", path), (":scheme", "http"), (":authority", "x")]

    sent, answers = 0, {}
    with connect(door) as sock:
        sock.sendall(conn.data_to_send())
        conn.send_headers(1, head("/v1/nowhere"))
        sock.settimeout(0.05)
        began = time.monotonic()
        while time.monotonic() - began < 0.5:  # as much body as the windows let through
            room = min(conn.local_flow_control_window(1), 16_384)
            if room > 0:
                conn.send_data(1, b"x" * room)
                sent += room
            sock.sendall(conn.data_to_send())
            with contextlib.suppress(TimeoutError):
                for event in conn.receive_data(sock.recv(65536)):
                    if isinstance(event, h2.events.ResponseReceived):
                        answers[event.stream_id] = dict(event.headers)[b":status"]
        conn.send_headers(3, [*head("/v1/score"), ("content-type", "application/json")])
        conn.send_data(3, SCORE_BODY, end_stream=True)
        sock.sendall(conn.data_to_send())
        while 3 not in answers and time.monotonic() - began < 5:
            with contextlib.suppress(TimeoutError):
                for event in conn.receive_data(sock.recv(65536)):
                    if isinstance(event, h2.events.ResponseReceived):
                        answers[event.stream_id] = dict(event.headers)[b":status"]
            sock.sendall(conn.data_to_send())
    assert answers == {1: b"404", 3: b"200"}
    assert sent <= 3 * 65_535  # the first window, the one the app's answer gave back, no more
