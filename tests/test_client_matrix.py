"""The clients people use, against a real ``cardproof serve`` (issue 40, item 1).

Each client plays one committed poker-squares game end to end with POSTs (commitment,
deal, 25 moves, receipt; the receipt verified offline and its score replayed locally)
and reads a lockstep round's server-sent events (its first ``call``). The matrix: curl
over HTTP/1.1, with an ``Upgrade: h2c`` offer (``--http2``) and with HTTP/2 prior
knowledge; Java's ``java.net.http.HttpClient`` with its default settings (it offers
``Upgrade: h2c``; ``tests/clients/Play.java``, compiled here with javac); Node's built-in
``fetch`` (``tests/clients/play.mjs``); httpx speaking HTTP/2 with prior knowledge; and
Python's ``urllib.request``. Each says which HTTP version it spoke where it can, and the
test holds it to it: prior knowledge is HTTP/2; an h2c offer may be served as HTTP/1.1
(its body intact) or upgraded. Then HTTP/1.1 keep-alive and pipelining on a raw socket.

A client missing from the machine fails its test, naming what installs it (``make
java``): no skipped test hides a client nobody tried.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import h11
import httpx
import msgspec
import pytest

from cardproof.client import Client
from cardproof.games import variant
from cardproof.receipts import JWKS, Expected, verify_receipt
from conftest import served
from event_stream import server_sent_events

CLIENTS_DIR = Path(__file__).parent / "clients"
CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]
"""Every poker-squares cell, row by row: a whole game in 25 moves."""
GAME_STEPS = ["commit", "deal", *["move"] * 25, "receipt"]
GAME_STATUSES = [201, 201, *[200] * 25, 200]
TIMEOUT = 20
"""Seconds any one client run may take (a whole game is well under one)."""
HTTP1 = frozenset({"1.1"})
HTTP2 = frozenset({"2"})
EITHER = frozenset({"1.1", "2"})
UNSAID = frozenset({"-"})
"""Node's fetch does not say which version it spoke (undici: HTTP/1.1 on http://)."""


@dataclass(frozen=True)
class Exchange:
    """One request and its answer, as a client reported it.

    ``step``: ``commit``, ``deal``, ``move``, ``receipt`` or ``event``; ``version``:
    ``1.1``, ``2`` or ``-`` (unsaid); ``body``: the answer's body on one line (an
    event's: its name, a space, its data).
    """

    step: str
    version: str
    status: int
    body: str


@dataclass(frozen=True)
class Matrix:
    """The module's server: its URL, a lockstep round in play, what a client must see."""

    base_url: str
    calls_url: str
    first_call: dict[str, Any]
    jwks: JWKS
    work: Path
    """A directory of the module's own (Play.java's classes)."""


def tool(name: str, installs: str) -> str:
    """The program ``name`` on PATH, or the test fails saying what installs it."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not on PATH: {installs}", pytrace=False)
    return path


def no_proxy_env() -> dict[str, str]:
    """This environment without proxy settings: every client talks to 127.0.0.1 itself."""
    return {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}


def run(command: list[str]) -> str:
    """A client program's output (it exits 0, or the test fails with its output)."""
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT, env=no_proxy_env()
    )
    assert done.returncode == 0, (
        f"{command[0]} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    )
    return done.stdout


def reported(output: str) -> list[Exchange]:
    """A client program's lines ``STEP VERSION STATUS BODY``, as exchanges."""
    exchanges = []
    for line in output.splitlines():
        step, version, status, body = line.split(" ", 3)
        exchanges.append(Exchange(step, version, int(status), body))
    return exchanges


def first_event(lines: Iterable[str]) -> tuple[str, str] | None:
    """The first server-sent event with data in ``lines`` (without their line ends)."""
    return next(server_sent_events(lines), None)


def event_exchange(version: str, status: int, event: tuple[str, str] | None) -> Exchange:
    body = "(ended) -" if event is None else f"{event[0]} {event[1]}"
    return Exchange("event", version, status, body)


def member(exchange: Exchange, name: str) -> str:
    """A string member of an answer's JSON body (or the test fails showing the answer)."""
    try:
        value = json.loads(exchange.body)[name]
    except (ValueError, KeyError, TypeError):
        raise AssertionError(f"no {name} in the answer: {exchange}") from None
    assert isinstance(value, str), exchange
    return value


def move_body(index: int) -> dict[str, Any]:
    return {"index": index, "move": CELLS[index]}


def deal_body(commitment_id: str, client_seed: str) -> dict[str, Any]:
    return {"variant": "poker-squares", "commitment_id": commitment_id, "client_seed": client_seed}


# --- curl ------------------------------------------------------------------------------

MARK = "@@cardproof-exchange@@"
"""What curl writes after each answer's body (``-w``), with its version and status."""


Send = Callable[[str, str, "dict[str, Any] | None"], Exchange]
"""One exchange of a game: its step, its URL and its JSON body (``None`` for a GET)."""


def play_game(base: str, client_seed: str, send: Send) -> None:
    """A whole committed poker-squares game through ``send``: commit, deal, 25 moves, receipt."""
    commitment = member(send("commit", f"{base}/v1/commitments", {}), "commitment_id")
    dealt = send("deal", f"{base}/v1/deals", deal_body(commitment, client_seed))
    deal_id = member(dealt, "deal_id")
    for index in range(25):
        send("move", f"{base}/v1/deals/{deal_id}/moves", move_body(index))
    send("receipt", f"{base}/v1/deals/{deal_id}/receipt", None)


def curl_transfers(
    flag: str, transfers: list[tuple[str, str, dict[str, Any] | None]]
) -> list[Exchange]:
    """``(step, url, JSON body or None for a GET)`` transfers in order, by curl.

    They are joined by ``--next`` in one run, so curl keeps its connection between them;
    but with prior knowledge each has a run (a connection) of its own: Debian 12's curl
    7.88.1 fails a reused prior-knowledge connection itself, before it sends anything
    ("Error in the HTTP2 framing layer", curl/curl#10634, fixed in 8.0.0 by #10643).
    """
    if flag == "--http2-prior-knowledge" and len(transfers) > 1:
        return [exchange for one in transfers for exchange in curl_transfers(flag, [one])]
    curl = tool("curl", "apt-get install curl (Debian's curl, with HTTP/2 by nghttp2)")
    command = [curl]
    for number, (_, url, body) in enumerate(transfers):
        if number:
            command.append("--next")
        command += [flag, "-sS", "--noproxy", "*", "--max-time", str(TIMEOUT), url]
        command += ["-w", f"\\n{MARK} %{{http_version}} %{{response_code}}\\n"]
        if body is not None:
            command += ["-H", "Content-Type: application/json"]
            command += ["--data-binary", json.dumps(body)]
    output = run(command)
    answers = re.findall(rf"(.*?)\n{MARK} (\S+) (\d+)\n", output, flags=re.DOTALL)
    assert len(answers) == len(transfers), output
    return [
        Exchange(step, version, int(status), body)
        for (step, _, _), (body, version, status) in zip(transfers, answers, strict=True)
    ]


def curl_game(flag: str) -> Callable[[Matrix, str], list[Exchange]]:
    def game(matrix: Matrix, client_seed: str) -> list[Exchange]:
        base = matrix.base_url
        commit = curl_transfers(flag, [("commit", f"{base}/v1/commitments", {})])
        commitment = member(commit[0], "commitment_id")
        deal = curl_transfers(
            flag, [("deal", f"{base}/v1/deals", deal_body(commitment, client_seed))]
        )
        deal_id = member(deal[0], "deal_id")
        moves_url = f"{base}/v1/deals/{deal_id}/moves"
        moves = curl_transfers(flag, [("move", moves_url, move_body(i)) for i in range(25)])
        receipt = curl_transfers(flag, [("receipt", f"{base}/v1/deals/{deal_id}/receipt", None)])
        return commit + deal + moves + receipt

    return game


def curl_events(flag: str) -> Callable[[Matrix], Exchange]:
    def events(matrix: Matrix) -> Exchange:
        curl = tool("curl", "apt-get install curl (Debian's curl, with HTTP/2 by nghttp2)")
        command = [curl, flag, "-sS", "-N", "-i", "--noproxy", "*", "--max-time", str(TIMEOUT)]
        command += ["-H", "Accept: text/event-stream", matrix.calls_url]
        with subprocess.Popen(command, stdout=subprocess.PIPE, env=no_proxy_env()) as process:
            assert process.stdout is not None
            try:
                lines = (raw.decode().rstrip("\r\n") for raw in process.stdout)
                version, status = "", 0
                while status < 200:  # a 101 Switching Protocols comes first if upgraded
                    status_line = next(lines, "(curl's output ended)")
                    match = re.fullmatch(r"HTTP/([0-9.]+) (\d{3}).*", status_line)
                    assert match is not None, status_line
                    version, status = match[1], int(match[2])
                    while next(lines, ""):  # the head's fields, to its blank line
                        pass
                return event_exchange(version, status, first_event(lines))
            finally:
                process.terminate()  # the stream goes on until the round ends

    return events


# --- Java's java.net.http.HttpClient, default settings -----------------------------------


def java_play(matrix: Matrix) -> list[str]:
    """``java -cp CLASSES Play``: Play.java compiled once into the module's directory."""
    installs = "`make java` installs Debian's default-jdk-headless"
    java = tool("java", installs)
    classes = matrix.work / "java"
    if not (classes / "Play.class").exists():
        javac = tool("javac", installs)
        run([javac, "-d", str(classes), str(CLIENTS_DIR / "Play.java")])
    return [java, "-cp", str(classes), "Play"]


def java_game(matrix: Matrix, client_seed: str) -> list[Exchange]:
    return reported(run([*java_play(matrix), "game", matrix.base_url, client_seed]))


def java_events(matrix: Matrix) -> Exchange:
    return reported(run([*java_play(matrix), "events", matrix.calls_url]))[0]


# --- Node's fetch ------------------------------------------------------------------------

NODE = "install Node.js 20+ (`make test` needs it already, for the web client's npm ci)"


def node_game(matrix: Matrix, client_seed: str) -> list[Exchange]:
    node = tool("node", NODE)
    return reported(
        run([node, str(CLIENTS_DIR / "play.mjs"), "game", matrix.base_url, client_seed])
    )


def node_events(matrix: Matrix) -> Exchange:
    node = tool("node", NODE)
    return reported(run([node, str(CLIENTS_DIR / "play.mjs"), "events", matrix.calls_url]))[0]


# --- httpx over HTTP/2 with prior knowledge ----------------------------------------------


def httpx_version(response: httpx.Response) -> str:
    return {"HTTP/1.1": "1.1", "HTTP/2": "2"}.get(response.http_version, response.http_version)


def h2_client() -> httpx.Client:
    """httpx speaking HTTP/2 only: on http:// that is prior knowledge (no upgrade)."""
    return httpx.Client(http1=False, http2=True, timeout=TIMEOUT, trust_env=False)


def httpx_game(matrix: Matrix, client_seed: str) -> list[Exchange]:
    exchanges = []
    with h2_client() as client:

        def send(step: str, url: str, body: dict[str, Any] | None) -> Exchange:
            response = client.get(url) if body is None else client.post(url, json=body)
            exchange = Exchange(step, httpx_version(response), response.status_code, response.text)
            exchanges.append(exchange)
            return exchange

        play_game(matrix.base_url, client_seed, send)
    return exchanges


def httpx_events(matrix: Matrix) -> Exchange:
    headers = {"Accept": "text/event-stream"}
    with h2_client() as client, client.stream("GET", matrix.calls_url, headers=headers) as answer:
        return event_exchange(
            httpx_version(answer), answer.status_code, first_event(answer.iter_lines())
        )


# --- Python's urllib.request -------------------------------------------------------------

URLLIB = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""urllib's opener without proxies (it would read them from the environment)."""


def urllib_version(number: int) -> str:
    return {10: "1.0", 11: "1.1"}.get(number, str(number))


def urllib_game(matrix: Matrix, client_seed: str) -> list[Exchange]:
    exchanges = []

    def send(step: str, url: str, body: dict[str, Any] | None) -> Exchange:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with URLLIB.open(request, timeout=TIMEOUT) as response:
                text = response.read().decode()
                exchange = Exchange(step, urllib_version(response.version), response.status, text)
        except urllib.error.HTTPError as error:  # a 4xx or 5xx: kept, for the checks to show
            exchange = Exchange(step, "1.1", error.code, error.read().decode())
        exchanges.append(exchange)
        return exchange

    play_game(matrix.base_url, client_seed, send)
    return exchanges


def urllib_events(matrix: Matrix) -> Exchange:
    request = urllib.request.Request(matrix.calls_url, headers={"Accept": "text/event-stream"})
    with URLLIB.open(request, timeout=TIMEOUT) as response:
        lines = (raw.decode().rstrip("\r\n") for raw in response)
        return event_exchange(urllib_version(response.version), response.status, first_event(lines))


# --- the matrix --------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpClient:
    """A client of the matrix: how it plays a game, reads events, what versions it may speak."""

    game: Callable[[Matrix, str], list[Exchange]]
    events: Callable[[Matrix], Exchange]
    versions: frozenset[str]
    why: str = ""


CLIENTS = {
    "curl-http1.1": HttpClient(curl_game("--http1.1"), curl_events("--http1.1"), HTTP1),
    "curl-http2-upgrade": HttpClient(
        curl_game("--http2"),
        curl_events("--http2"),
        EITHER,
        "an Upgrade: h2c offer is served as HTTP/1.1 with its body, or upgraded",
    ),
    "curl-http2-prior-knowledge": HttpClient(
        curl_game("--http2-prior-knowledge"), curl_events("--http2-prior-knowledge"), HTTP2
    ),
    "java-httpclient": HttpClient(
        java_game, java_events, EITHER, "java.net.http offers Upgrade: h2c by default"
    ),
    "node-fetch": HttpClient(node_game, node_events, UNSAID),
    "httpx-h2": HttpClient(httpx_game, httpx_events, HTTP2),
    "urllib": HttpClient(urllib_game, urllib_events, HTTP1),
}


def new_organizer_key(organizers_env: dict[str, str]) -> str:
    """``cardproof keys organizer create`` into the organizers file the server reads."""
    command = [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create"]
    made = subprocess.run(
        [*command, "Matrix Club"],
        capture_output=True,
        text=True,
        env={**os.environ, **organizers_env},
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Matrix]:
    """One server for the module, with a lockstep round started (its card 0 called)."""
    work = tmp_path_factory.mktemp("client-matrix")
    env = {"CARDPROOF_ORGANIZERS_FILE": str(work / "organizers.json"), "REDIS_URL": ""}
    key = new_organizer_key(env)
    with (
        served("--log-level", "warning", env=env) as base_url,
        Client(base_url=base_url, api_key=key) as organizer,
        Client(base_url=base_url) as player,
    ):
        now = datetime.now(UTC)
        created = organizer.create_tournament(
            "Client Matrix Cup",
            "poker-squares",
            rounds=1,
            opens_at=now - timedelta(minutes=1),
            closes_at=now + timedelta(hours=1),
            format="lockstep",
        )
        tid = created.tournament.tournament_id
        entry = player.enter(tid, "Ada")
        player.join_round(tid, 1, entry.token)
        organizer.start_round(tid, 1)
        calls = player.round_calls(tid, 1, after=-1, wait=0).calls
        assert calls, "the started round called no card"
        yield Matrix(
            base_url=base_url,
            calls_url=f"{base_url}/v1/tournaments/{tid}/rounds/1/calls",
            first_call=msgspec.to_builtins(calls[0]),
            jwks=player.jwks(),
            work=work,
        )


def assert_versions(name: str, exchanges: list[Exchange]) -> None:
    client = CLIENTS[name]
    spoken = {exchange.version for exchange in exchanges}
    assert spoken <= client.versions, (
        f"{name} spoke HTTP {sorted(spoken)}; expected {sorted(client.versions)} {client.why}"
    )


def check_game(matrix: Matrix, client_seed: str, exchanges: list[Exchange]) -> None:
    """A whole committed game: every answer, the receipt verified and its score replayed."""
    assert [e.step for e in exchanges] == GAME_STEPS, exchanges
    for exchange, status in zip(exchanges, GAME_STATUSES, strict=True):
        assert exchange.status == status, exchange
    commit, deal, *moves, receipt = (json.loads(e.body) for e in exchanges)
    assert deal["server_seed_hash"] == commit["server_seed_hash"]
    assert deal["client_seed"] == client_seed
    assert deal["committed_before_client_seed"] is True
    assert [move["index"] for move in moves] == list(range(25))
    assert [move["finished"] for move in moves] == [False] * 24 + [True]
    verified = verify_receipt(
        receipt["receipt"],
        matrix.jwks,
        expect=Expected(
            deal_id=deal["deal_id"],
            server_seed_hash=commit["server_seed_hash"],
            client_seed=client_seed,
            variant="poker-squares",
            moves=" ".join(CELLS),
        ),
    )
    payload = verified.payload
    assert verified.replayed
    assert payload.kind == "committed-blind"
    assert payload.server_seed is not None
    server_seed = bytes.fromhex(payload.server_seed)
    assert hashlib.sha256(server_seed).hexdigest() == commit["server_seed_hash"]
    rules = variant("poker-squares")
    settings = rules.parse_options(payload.options)
    deck = rules.deal_cards(server_seed, client_seed, settings)
    local = rules.new(deck, settings)
    for cell in CELLS:
        local.play(rules.parse_move(cell))
    assert local.score() == payload.score  # the rules' score, replayed here
    assert moves[-1]["score"]["total"] == payload.score.total
    assert receipt["payload"]["score"]["total"] == payload.score.total


@pytest.mark.parametrize("name", CLIENTS)
def test_a_client_plays_a_committed_game_end_to_end(matrix: Matrix, name: str) -> None:
    client_seed = f"matrix-{name}-{secrets.token_hex(4)}"
    exchanges = CLIENTS[name].game(matrix, client_seed)
    check_game(matrix, client_seed, exchanges)
    assert_versions(name, exchanges)


@pytest.mark.parametrize("name", CLIENTS)
def test_a_client_reads_a_lockstep_round_s_calls_as_events(matrix: Matrix, name: str) -> None:
    event = CLIENTS[name].events(matrix)
    assert event.status == 200, event
    event_name, _, data = event.body.partition(" ")
    assert event_name == "call", event
    assert json.loads(data) == matrix.first_call
    assert_versions(name, [event])


# --- HTTP/1.1 keep-alive and pipelining on one socket ------------------------------------


def http11_request(method: str, target: str, body: bytes = b"", *, close: bool = False) -> bytes:
    head = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"]
    if method == "POST":
        head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    if close:
        head.append("Connection: close")
    return "\r\n".join([*head, "", ""]).encode() + body


class Answers:
    """HTTP/1.1 answers read off one socket in order, each whole (h11 frames them)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.parser = h11.Connection(h11.CLIENT)

    def next(self, method: str) -> tuple[int, dict[str, str], bytes]:
        """The next answer: its status, fields and whole body."""
        if self.parser.our_state is h11.DONE and self.parser.their_state is h11.DONE:
            self.parser.start_next_cycle()
        # h11 reads an answer only after its request: this one is for its state alone.
        self.parser.send(h11.Request(method=method, target="/", headers=[("Host", "x")]))
        self.parser.send(h11.EndOfMessage())
        status, fields, body = 0, {}, b""
        while True:
            event = self.parser.next_event()
            if event is h11.NEED_DATA:
                chunk = self.sock.recv(65536)
                assert chunk, "the connection closed before the answer was whole"
                self.parser.receive_data(chunk)
            elif isinstance(event, h11.Response):
                status = event.status_code
                fields = {k.decode(): v.decode() for k, v in event.headers}
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                return status, fields, body
            else:
                raise AssertionError(f"unexpected {event!r}")


def test_http11_keep_alive_and_pipelined_requests_are_answered_in_order(matrix: Matrix) -> None:
    host, port = matrix.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        answers = Answers(sock)
        sock.sendall(http11_request("GET", "/healthz"))
        status, fields, _ = answers.next("GET")
        assert status == 200
        assert fields.get("connection", "keep-alive").lower() != "close"
        # Then three at once, on the same connection, before reading any answer: a body
        # between two requests without, and the last asks to close.
        sock.sendall(
            http11_request("POST", "/v1/commitments", b"{}")
            + http11_request("GET", "/v1/deals/d_unknown")
            + http11_request("GET", "/healthz", close=True)
        )
        committed = answers.next("POST")
        unknown = answers.next("GET")
        health = answers.next("GET")
        assert [committed[0], unknown[0], health[0]] == [201, 404, 200]
        assert json.loads(committed[2])["commitment_id"].startswith("c_")
        assert json.loads(unknown[2])["code"] == "unknown-deal"
        assert json.loads(health[2])["status"] == "ok"
        assert sock.recv(65536) == b""  # closed as asked, nothing after the last answer
