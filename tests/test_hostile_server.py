"""Every CLI command that asks a server, against a hostile one: it gives up in time, reads
no more than its cap, and prints no hidden character the server sent.

The hostile server is :func:`test_client_bounds.hostile`, a real socket server, with five
behaviours: a real ``cardproof serve`` behind it whose every answer has an escape, a
carriage return, BEL, a bidi override and a C1 control appended to each of its strings
(``poisoned``); a 404 problem whose words carry them (``problem``); a body that never ends
(``endless``); a body, or headers, a byte every 50 ms (``trickle``, ``trickled_headers``).
Each command runs in-process (``cardproof.cli.main``), its tries cut to a second and one
retry so that a trickle ends soon, in a thread: a hang fails the test instead of holding it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sys
import threading
import time
import tracemalloc
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import msgspec
import pytest

import cardproof.cli.log as log_cli
import cardproof.client as client_module
import cardproof.endpoints as endpoints
import test_client_bounds
from cardproof.cards import Card
from cardproof.cli import main
from cardproof.client import Client
from cardproof.core import RequestCore
from cardproof.endpoints import GAME_LIMIT, KEY_LIMIT, TOURNAMENT_LIMIT
from cardproof.errors import MalformedAnswerError
from cardproof.pokerdrez import POKERDREZ_DECK
from cardproof.words import HIDDEN_CATEGORIES
from conftest import free_port, served
from test_cli_screen import HOSTILE, problem
from test_client_bounds import Behaviour, Served, endless, hostile, trickle, trickled_headers
from test_tournament_cli import new_organizer_key

SQUARES = [f"{col}{row}" for row in "12345" for col in "abcde"]
SNAKE = [f"{col}{row}" for row in "12345" for col in ("abcde" if row in "135" else "edcba")]
SLACK = 16 << 20
"""What the socket buffers may hold beyond what the client read (both ends)."""
TRY = 1.0
"""Each try's seconds, in these tests (one retry: a trickled command ends in a few)."""
ENDLESS_TRY = 20.0
"""Each try's seconds against an endless answer (:func:`quick`)."""


# --- the hostile server -----------------------------------------------------------------


class Asked(NamedTuple):
    """A request as the hostile server read it."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes


_ASKED: dict[socket.socket, Asked] = {}


def _read_and_keep(conn: socket.socket) -> None:
    """Read a whole request (head and body) and keep it for the behaviour to answer."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    first, *lines = head.decode("latin-1").split("\r\n")
    method, target, _ = first.split(" ", 2)
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines)
    }
    while len(body) < int(headers.get("content-length", "0")):
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    _ASKED[conn] = Asked(method, target, headers, body)


@pytest.fixture(autouse=True)
def _requests_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hostile server keeps what it was asked (``poisoned`` forwards it)."""
    monkeypatch.setattr(test_client_bounds, "_read_request", _read_and_keep)


def poison(value: Any) -> Any:
    """``value`` (parsed JSON) with :data:`HOSTILE` after each of its strings."""
    if isinstance(value, str):
        return value + HOSTILE
    if isinstance(value, list):
        return [poison(item) for item in value]
    if isinstance(value, dict):
        return {key: poison(item) for key, item in value.items()}
    return value


FORWARDED = ("authorization", "x-invite-code", "content-type", "idempotency-key", "accept")


def forwarded(upstream: str, *, poisoning: bool) -> Behaviour:
    """Ask ``upstream`` what was asked; answer as it did, every string poisoned if ``poisoning``."""

    def answer(conn: socket.socket, served: Served) -> None:
        asked = _ASKED[conn]
        headers = {name: asked.headers[name] for name in FORWARDED if name in asked.headers}
        real = httpx.request(
            asked.method, upstream + asked.target, headers=headers, content=asked.body, timeout=60
        )
        kind = real.headers.get("content-type", "application/octet-stream")
        body = real.content
        if poisoning and "json" in kind:
            body = json.dumps(poison(real.json())).encode()
        elif poisoning and kind.startswith("text/"):
            body = (real.text + HOSTILE).encode()
        served.send(
            conn,
            f"HTTP/1.1 {real.status_code} {real.reason_phrase or 'Whatever'}\r\n"
            f"content-type: {kind}\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n".encode()
            + body,
        )

    return answer


def switched(where: str, behaviour: Behaviour, upstream: str) -> Behaviour:
    """``behaviour`` for the requests whose target starts with ``where``; the others honest."""
    honest = forwarded(upstream, poisoning=False)

    def answer(conn: socket.socket, served: Served) -> None:
        asked = _ASKED.get(conn)
        if asked is None:  # the client hung up before it asked
            return
        try:
            (behaviour if asked.target.startswith(where) else honest)(conn, served)
        finally:
            _ASKED.pop(conn, None)

    return answer


# --- the world the commands ask about -----------------------------------------------------


@dataclass
class World:
    """A real server and what the commands name on it: tournaments, an entry, receipts."""

    url: str
    port: int
    """Where the hostile server listens: the receipts' issuer (``verify`` compares them)."""
    key: str
    folder: Path
    lockstep: str
    """An open lockstep tournament (poker-squares), Ada entered."""
    invite: str
    """An open invite-only tournament."""
    closed: str
    """A closed serpent-patience tournament, with Bo's game."""
    entry: Path
    receipt: Path
    """A committed deal's receipt."""
    tournament_receipt: Path
    export: Path

    def fresh(self, **settings: Any) -> str:
        """A new tournament on the real server (for a command that changes one)."""
        now = datetime.now(UTC)
        with Client(base_url=self.url, api_key=self.key) as organizer:
            made = organizer.create_tournament(
                "Fresh Cup",
                settings.pop("variant", "poker-squares"),
                rounds=1,
                opens_at=now,
                closes_at=now + timedelta(hours=1),
                **settings,
            )
        return made.tournament.tournament_id


def _private(path: Path, data: bytes) -> Path:
    """``data`` in a new file only its owner reads and writes (an entry file's rule)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("hostile")
    port = free_port()
    env = {
        "CARDPROOF_ORGANIZERS_FILE": str(folder / "organizers.json"),
        "REDIS_URL": "",
        "CARDPROOF_ISSUER": f"http://127.0.0.1:{port}",
    }
    key = new_organizer_key(env, "Hostile Club")
    with served("--log-level", "warning", env=env) as url:
        now = datetime.now(UTC)
        later = now + timedelta(hours=1)
        with Client(base_url=url, api_key=key) as organizer, Client(base_url=url) as player:
            lockstep = organizer.create_tournament(
                "Hostile Cup", "poker-squares", rounds=1, opens_at=now, closes_at=later,
                format="lockstep", card_seconds=600,
            ).tournament.tournament_id  # fmt: skip
            invite = organizer.create_tournament(
                "Invite Cup", "poker-squares", rounds=1, opens_at=now, closes_at=later,
                entry="invite", format="async",
            ).tournament.tournament_id  # fmt: skip
            closed = organizer.create_tournament(
                "Closed Cup", "serpent-patience", rounds=1, opens_at=now, closes_at=later
            ).tournament.tournament_id
            entry = _private(
                folder / "ada.json", msgspec.json.encode(player.enter(lockstep, "Ada"))
            )
            game = player.play_round(closed, 1, player.enter(closed, "Bo").token)
            for move in SNAKE:
                game.play(move)
            tournament_receipt = folder / "bo.jws"
            tournament_receipt.write_text(game.receipt().receipt + "\n")
            organizer.close_tournament(closed)
            export = folder / "export.json"
            export.write_bytes(msgspec.json.encode(organizer.export_tournament(closed)))
            deal = player.deal("poker-squares")
            for move in SQUARES:
                deal.play(move)
            receipt = folder / "deal.jws"
            receipt.write_text(deal.receipt().receipt + "\n")
        yield World(
            url, port, key, folder, lockstep, invite, closed, entry, receipt,
            tournament_receipt, export,
        )  # fmt: skip


# --- the commands -------------------------------------------------------------------------


class Run(NamedTuple):
    """A command line, what it reads on standard input, the largest answer it may read, and
    where the hostility starts (the requests whose target starts so; the others honest)."""

    argv: list[str]
    stdin: str | None
    cap: int
    where: str = ""


Command = Callable[[World, Path], Run]
_names = iter(range(10**6))
ORGANIZER_ONLY = frozenset({"create", "list", "invites", "start", "close"})


def _tournament(*words: str, where: str = "") -> Command:
    """``cardproof tournament WORDS`` (``{...}`` filled from the world), the key if it needs it."""

    def run(world: World, tmp: Path) -> Run:
        fill = {
            "lockstep": world.lockstep,
            "invite": world.invite,
            "closed": world.closed,
            "fresh": world.fresh() if "{fresh}" in words else "",
            "entry": str(tmp / "entry.json"),
            "name": f"Cy {next(_names)}",
            "output": str(tmp / "export.json"),
        }
        argv = ["tournament", *(word.format(**fill) for word in words)]
        if words[0] in ORGANIZER_ONLY:
            argv += ["--key", world.key]
        return Run(argv, None, TOURNAMENT_LIMIT, where.format(**fill))

    return run


def _play(where: str = "") -> Command:
    return lambda w, tmp: Run(["play", "poker-squares"], "\n".join(SQUARES), GAME_LIMIT, where)


def _seat(where: str = "") -> Command:
    def run(w: World, tmp: Path) -> Run:
        argv = ["play", "--tournament", w.lockstep, "--round", "1", "--entry-file", str(w.entry)]
        return Run(argv, "\n".join(SQUARES), TOURNAMENT_LIMIT, where.format(lockstep=w.lockstep))

    return run


def _bots(where: str = "") -> Command:
    def run(w: World, tmp: Path) -> Run:
        argv = [
            *("bots", "run", "cardproof.bots:RandomPlayer", "--games", "1"),
            *("--par-budget", "0", "--receipts", str(tmp / "receipts")),
        ]
        return Run(argv, None, GAME_LIMIT, where)

    return run


def _log(*flags: str, where: str = "") -> Command:
    return lambda w, tmp: Run(
        ["log", "check", *flags, "--state", str(tmp / "logs")], None, log_cli.LARGEST, where
    )


COMMANDS: dict[str, Command] = {
    "verify": lambda w, tmp: Run(["verify", str(w.receipt)], None, KEY_LIMIT),
    "verify, the deal": lambda w, tmp: Run(
        ["verify", str(w.receipt)], None, GAME_LIMIT, "/v1/deals/"
    ),
    "verify, the log": lambda w, tmp: Run(["verify", str(w.receipt)], None, KEY_LIMIT, "/log/"),
    "verify, a tournament's": lambda w, tmp: Run(
        ["verify", str(w.tournament_receipt)], None, TOURNAMENT_LIMIT, "/v1/tournaments/"
    ),
    "verify --jwks URL": lambda w, tmp: Run(
        ["verify", str(w.receipt), "--no-log", "--jwks", "JWKS"], None, KEY_LIMIT
    ),
    "verify --tournament": lambda w, tmp: Run(
        ["verify", "--tournament", str(w.export)], None, KEY_LIMIT
    ),
    "verify --tournament, the tournament": lambda w, tmp: Run(
        ["verify", "--tournament", str(w.export)], None, TOURNAMENT_LIMIT, "/v1/tournaments/"
    ),
    "log check": _log(),
    "log check --deep, the service": lambda w, tmp: Run(
        ["log", "check", "--deep", "--state", str(tmp / "logs")], None, TOURNAMENT_LIMIT, "/v1/"
    ),
    "play": _play(),
    "play, the moves": _play(where="/v1/deals/d_"),
    "play --tournament": _seat(),
    "play --tournament, the round": _seat(where="/v1/tournaments/{lockstep}/rounds/"),
    "bots run": _bots(),
    "bots run, the moves": _bots(where="/v1/deals/d_"),
    "tournament create": _tournament(
        *("create", "New Cup", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", "+1h", "--invite"),
    ),
    "tournament list": _tournament("list", "--all"),
    "tournament invites": _tournament("invites", "{invite}", "--count", "2"),
    "tournament enter": _tournament(
        "enter", "{lockstep}", "--name", "{name}", "--entry-file", "{entry}"
    ),
    "tournament show": _tournament("show", "{lockstep}"),
    "tournament show, the entrants": _tournament(
        "show", "{lockstep}", where="/v1/tournaments/{lockstep}/standings"
    ),
    "tournament standings": _tournament("standings", "{closed}"),
    "tournament start": _tournament("start", "{fresh}", "1"),
    "tournament round": _tournament("round", "{lockstep}", "1"),
    "tournament round --watch": _tournament("round", "{lockstep}", "1", "--watch"),
    "tournament close": _tournament("close", "{fresh}"),
    "tournament export": _tournament("export", "{closed}", "-o", "{output}"),
}
"""Every command that asks a server (``serve`` and ``witness serve`` are servers; ``keys``
and ``store`` ask none), with the arguments that take it there; some a second time, the
server hostile only once the command is past its first questions."""


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Each try a second, one retry: the SDK's clients, ``fetch_bytes``, ``log check``.

    Against an endless answer each try has :data:`ENDLESS_TRY`: there the size cap, not
    the clock, must end it, and reading a 64 MiB cap can take a busy machine more than a
    second. An export's cap comes down to a tournament's (1 GiB would take this test's
    memory).
    """
    made = RequestCore.__init__
    params = getattr(request.node, "callspec", None)
    seconds = ENDLESS_TRY if params and params.params.get("mode") == "endless" else TRY

    def init(self: RequestCore, **settings: Any) -> None:
        settings["timeout"] = min(settings["timeout"], seconds)
        settings["max_retries"] = min(settings["max_retries"], 1)
        made(self, **settings)

    monkeypatch.setattr(RequestCore, "__init__", init)
    defaults = client_module.fetch_bytes.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "timeout", seconds)
    monkeypatch.setattr(log_cli, "TIMEOUT", seconds)
    monkeypatch.setattr(endpoints, "EXPORT_LIMIT", TOURNAMENT_LIMIT)


class Outcome(NamedTuple):
    """How a command ended: its status (``None``: it raised), what it said, how long, how
    much memory it held at most."""

    status: int | None
    out: str
    err: str
    seconds: float
    peak: int


def run_cli(
    run: Run, url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Outcome:
    """``cardproof ARGV --url URL`` in a thread (60 s at most), ``run.stdin`` its input."""
    argv = [url + "/.well-known/jwks.json" if arg == "JWKS" else arg for arg in run.argv]
    read, write = os.pipe()
    os.write(write, (run.stdin or "").encode() + b"\n")
    os.close(write)
    stdin = os.fdopen(read)
    monkeypatch.setattr(sys, "stdin", stdin)
    status: list[int] = []
    capsys.readouterr()
    tracemalloc.start()
    started = time.monotonic()
    thread = threading.Thread(target=lambda: status.append(main([*argv, "--url", url])))
    thread.daemon = True
    try:
        thread.start()
        thread.join(60)
        seconds = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not thread.is_alive(), f"{argv} still runs after 60 s"
    stdin.close()
    out, err = capsys.readouterr()
    return Outcome(status[0] if status else None, out, err, seconds, peak)


@contextlib.contextmanager
def hostile_at(
    port: int, behaviour: Behaviour, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, Served]]:
    """:func:`test_client_bounds.hostile` on ``port``: the URL the world's receipts name.

    ``socket.create_server`` sets ``SO_REUSEADDR``, so the port is taken again at once.
    """
    real = socket.create_server

    def on_port(address: tuple[str, int], **settings: Any) -> socket.socket:
        return real(("127.0.0.1", port), **settings)

    with monkeypatch.context() as patch:
        patch.setattr(socket, "create_server", on_port)
        with hostile(behaviour) as found:
            patch.undo()
            yield found


def hidden(text: str) -> list[str]:
    """The hidden characters of ``text`` but line breaks and tabs (what a terminal obeys)."""
    return sorted(
        {char for char in text if unicodedata.category(char) in HIDDEN_CATEGORIES} - {"\n", "\t"}
    )


MODES: dict[str, Callable[[str], Behaviour]] = {
    "poisoned": lambda upstream: forwarded(upstream, poisoning=True),
    "problem": lambda upstream: problem,
    "endless": lambda upstream: endless,
    "trickle": lambda upstream: trickle,
    "trickled_headers": lambda upstream: trickled_headers,
}


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize("mode", list(MODES))
def test_a_hostile_server_gets_no_hidden_character_through_nor_past_the_bounds(
    name: str,
    mode: str,
    world: World,
    quick: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = COMMANDS[name](world, tmp_path)
    behaviour = switched(run.where, MODES[mode](world.url), world.url)
    with hostile_at(world.port, behaviour, monkeypatch) as (url, served):
        outcome = run_cli(run, url, capsys, monkeypatch)
    said = outcome.out + outcome.err
    assert hidden(said) == [], said
    assert outcome.status is not None, said  # no traceback
    if not run.where:  # hostile from the first question: the command fails, and says why
        assert outcome.status != 0, said
        assert said.strip(), said
        if mode == "problem":
            assert "\\u001b" in said, said  # the server's words, shown escaped
    assert not re.search(r"refused \(2\d\d", said), said  # an answer out of form is no refusal
    if mode == "endless":
        assert "bytes" in said, said
        # each try reads at most the cap; a try that a busy machine cannot read within
        # its second is tried once more, so the server may send the cap twice
        assert served.sent < 2 * (run.cap + SLACK)
        assert outcome.peak < run.cap + SLACK
    elif mode.startswith("trickle"):
        assert f"more than {TRY:g} s" in said, said
        assert outcome.seconds < 8 * TRY + 4, said  # two tries of the call, and a backoff


# --- cardproof play, refused along the way ---------------------------------------------------


Rule = tuple[str, str, int, dict[str, Any]]
"""A request to refuse (its method, a pattern of its target), its status, and more fields."""


def refusing(upstream: str, *rules: Rule) -> Behaviour:
    """The first request matching each rule (method, target pattern) is refused with that
    status, a problem whose words (and the rule's fields) carry :data:`HOSTILE`; the rest
    go to ``upstream`` and come back as it answered."""
    left = list(rules)
    lock = threading.Lock()
    honest = forwarded(upstream, poisoning=False)

    def answer(conn: socket.socket, served: Served) -> None:
        asked = _ASKED.pop(conn, None)
        if asked is None:
            return
        with lock:
            rule = next(
                (r for r in left if r[0] == asked.method and re.search(r[1], asked.target)), None
            )
            if rule is not None:
                left.remove(rule)
        if rule is None:
            _ASKED[conn] = asked
            honest(conn, served)
            return
        body = json.dumps(
            {
                "type": "about:blank" + HOSTILE,
                "title": "Refused" + HOSTILE,
                "status": rule[2],
                "detail": "no" + HOSTILE,
                **rule[3],
            }
        ).encode()
        served.send(
            conn,
            f"HTTP/1.1 {rule[2]} Refused\r\ncontent-type: application/problem+json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
            + body,
        )

    return answer


MOVES = r"^/v1/deals/d_[^/]+/moves$"


@pytest.mark.parametrize(
    ("variant", "moves", "rules", "said"),
    [
        (
            "poker-squares",
            ["a1", "a1", *SQUARES],
            [
                ("POST", MOVES, 422, {"move_index": 0, "detail": "move 0 (a1)" + HOSTILE}),
                ("POST", MOVES, 400, {"detail": "move: bad" + HOSTILE}),
                ("GET", r"/receipt$", 403, {}),
            ],
            [
                "illegal move (a1)\\u001b",
                "bad\\u001b[2K\\u000d\\u001b[32mverified\\u0007\\u202e\\u009b; type ? for help",
                "cannot fetch the receipt of deal d_",
            ],
        ),
        (
            "poker-squares",
            SQUARES,
            [("POST", MOVES, 409, {"code": "busy" + HOSTILE})],
            ["the server failed: 409 Refused\\u001b"],
        ),
        (
            "serpent-patience",
            SNAKE,
            [("POST", r"^/v1/solve$", 403, {})],
            ["Par unavailable: 403 Refused\\u001b"],
        ),
    ],
)
def test_play_tells_each_refusal_escaped(
    variant: str,
    moves: list[str],
    rules: list[Rule],
    said: list[str],
    world: World,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # the receipt, if any, is written here
    run = Run(["play", variant], "\n".join(moves), GAME_LIMIT)
    with hostile_at(world.port, refusing(world.url, *rules), monkeypatch) as (url, _):
        outcome = run_cli(run, url, capsys, monkeypatch)
    assert hidden(outcome.out + outcome.err) == [], outcome.out
    for words in said:
        assert words in outcome.out, outcome.out


def test_a_seat_whose_round_the_server_refuses_to_show_is_left_escaped(
    world: World,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seated (the round's deal opened), then the round's status refused: the seat says so."""
    with Client(base_url=world.url) as player:
        entry = player.enter(world.lockstep, f"Di {next(_names)}")
    path = _private(tmp_path / "entry.json", msgspec.json.encode(entry))
    argv = ["play", "--tournament", world.lockstep, "--round", "1", "--entry-file", str(path)]
    rule: Rule = ("GET", rf"^/v1/tournaments/{world.lockstep}/rounds/1$", 409, {})
    with hostile_at(world.port, refusing(world.url, rule), monkeypatch) as (url, _):
        outcome = run_cli(Run(argv, "", TOURNAMENT_LIMIT), url, capsys, monkeypatch)
    assert hidden(outcome.out + outcome.err) == [], outcome.out
    assert outcome.status == 2, outcome.out
    assert "the server failed: 409 Refused\\u001b" in outcome.out, outcome.out


# --- each form refuses what a terminal would obey -------------------------------------------

FREE_TEXT = re.compile(
    r"""^(?:\[\]\.)?(?:
      .*options\b.*                         # variant options: JSON the variant checks itself
    | client_seed                           # the player's own seed, any text
    | payload\..*                           # a receipt's payload: checked by its signature
    | (?:log\.)?(?:entry|checkpoint|proof.*)  # a log proof: checked against the log's key
    | (?:jwks\.)?keys\[\]\.(?:kty|crv|x|use|alg)  # a key's other members: checked as keys
    | title | description | unfinished      # a variant's words
    | payments\[\]\.(?:payer|payee)         # names, as the settlement's nets name them
    )$""",
    re.VERBOSE,
)
"""Paths of an answer whose strings are free text: shown escaped, never refused."""
NAMES = re.compile(r"^(?:.*\.)?(?:name|organizer|player|entrants\[\]\.name)$")
"""Names: no control character (C0, DEL) in them, but any other character of a name."""
POISONS = {
    "ESC": "\x1b[2K",
    "CR": "\r",
    "BEL": "\x07",
    "newline": "\n",
    "DEL": "\x7f",
    "bidi": "\u202e\u2066",
    "C1": "\u009b",
}
SERPENT_DEAL = [Card(index).text for index in range(25)]
SOLODREZ_DEAL = [card.text for card in POKERDREZ_DECK]


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Each string in ``value`` (parsed JSON): its path with ``[]`` for an index, and its keys.

    Only the first of a list's items is walked (its others have the same form).
    """
    if isinstance(value, str):
        yield path.lstrip("."), ()
    elif isinstance(value, dict):
        for key, item in value.items():
            for found, keys in leaves(item, f"{path}.{key}"):
                yield found, (key, *keys)
    elif isinstance(value, list) and value:
        for found, keys in leaves(value[0], f"{path}[]"):
            yield found, (0, *keys)


def poisoned_at(value: Any, keys: tuple[Any, ...], poison: str) -> Any:
    """A copy of ``value`` with ``poison`` added to the string at ``keys``."""
    copy = json.loads(json.dumps(value))
    node = copy
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] += poison
    return copy


def test_each_answer_s_ids_cards_times_and_names_refuse_hidden_characters(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every answer the SDK reads, each string in turn: out of form, a MalformedAnswerError.

    The answers are the real server's, read through the SDK (every kind a CLI command
    reads); each string of each is given each of :data:`POISONS` alone (an escape, a
    carriage return, BEL, a final newline, DEL, bidi overrides, a C1 control). An id, card,
    time, digest or log refuses them all; a name all but the last two; free text
    (:data:`FREE_TEXT`) none.
    """
    read: list[tuple[bytes, Any]] = []
    decode = RequestCore.decode

    def kept(response: httpx.Response, content: bytes, result_type: Any) -> Any:
        if response.is_success and result_type is not str:
            read.append((content, result_type))
        return decode(response, content, result_type)

    monkeypatch.setattr(RequestCore, "decode", staticmethod(kept))
    every_kind(world)
    checked, taken = 0, []
    for content, result_type in read:
        answer = json.loads(content)
        for path, keys in leaves(answer):
            if FREE_TEXT.match(path):
                continue
            for kind, poison in POISONS.items():
                if kind in ("bidi", "C1") and NAMES.match(path):
                    continue
                body = json.dumps(poisoned_at(answer, keys, poison)).encode()
                try:
                    decode(httpx.Response(200), body, result_type)
                except MalformedAnswerError:
                    checked += 1
                else:
                    taken.append(f"{getattr(result_type, '__name__', result_type)} {path} {kind}")
    assert taken == [], "\n".join(taken)
    assert checked > 300


def game_done(player: Client) -> str:
    """A committed poker-squares deal played to its end: its id."""
    game = player.deal("poker-squares")
    for move in SQUARES:
        game.play(move)
    return game.deal_id


def every_kind(world: World) -> None:
    """Read each kind of answer once, through the SDK, from the world's real server."""
    now = datetime.now(UTC)
    with (
        Client(base_url=world.url, api_key=world.key) as organizer,
        Client(base_url=world.url) as player,
    ):
        player.variants()
        game = player.deal("poker-squares")
        game.play("a1")
        player.read_deal(game.deal_id)
        repeat = player.deal("repeat-poker", {"rows": 1})
        for _ in range(5):
            repeat.play("r1")  # a row scored: a hand in the view
        player.deal("reserve-poker", {"version": 5})
        solodrez = player.deal("solodrez")
        solodrez.play("stop")
        solodrez.receipt()
        player.solve("serpent-patience", SERPENT_DEAL)
        player.solve("poker-squares", SERPENT_DEAL, budget=0.1)
        player.solve("solodrez", SOLODREZ_DEAL, budget=0.1)
        player.verify("serpent-patience", " ".join(SNAKE), cards=SERPENT_DEAL)
        player.verify("poker-squares", " ".join(SQUARES), deal_id=game_done(player))
        player.jwks()
        player.tournament(world.lockstep)
        player.standings(world.closed, player="Bo")
        player.settlement(world.closed, payments=True)
        organizer.export_tournament(world.closed)
        organizer.tournaments(limit=1)  # a page after it: its cursor
        organizer.create_invites(world.invite, 1)
        created = organizer.create_tournament(
            "Called Cup", "poker-squares", rounds=1, opens_at=now,
            closes_at=now + timedelta(hours=1), format="lockstep", card_seconds=600,
            round_starts=[now + timedelta(minutes=30)], entry="invite",
        )  # fmt: skip
        tid = created.tournament.tournament_id
        player.round_status(tid, 1, invite_code=created.invite_code)
        entry = player.enter(tid, "Eve", invite_code=created.invite_code)
        player.play_round(tid, 1, entry.token)
        organizer.start_round(tid, 1)
        player.round_calls(tid, 1, wait=0, token=entry.token)
        player.log_proof(world.receipt.read_text().strip())
