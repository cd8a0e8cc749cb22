"""``cardproof play`` draws the terminal itself: each thing a server said is shown escaped.

The SDK refuses an id, a card or a time out of its form as the answer is read
(``test_hostile_server.py`` sees it done); here answers get past that check on purpose:
the client's decoding is wrapped to add an escape, a carriage return, BEL, a bidi override
and a C1 control to chosen fields of each answer it reads (``poisoned_reads``), and the
game must show each such field escaped, at every place it prints one. A change that lets
one place print a field raw fails here.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import Client
from cardproof.core import RequestCore
from cardproof.errors import ServerError
from cardproof.play import run, run_round
from cardproof.words import HIDDEN_CATEGORIES
from conftest import served
from test_cli_screen import HOSTILE
from test_tournament_cli import new_organizer_key

SQUARES = [f"{col}{row}" for row in "12345" for col in "abcde"]


def hidden(text: str) -> list[str]:
    """The hidden characters of ``text`` but line breaks and tabs (what a terminal obeys)."""
    return sorted(
        {char for char in text if unicodedata.category(char) in HIDDEN_CATEGORIES} - {"\n", "\t"}
    )


MARK = "\x1b[31m\x07\u202e\u009b"
"""What each move of a poisoned log gets (no white space: the log keeps its moves)."""


def poison(value: Any, names: frozenset[str], named: bool = False, field: str = "") -> Any:
    """``value`` with :data:`HOSTILE` around each string of a field named in ``names``.

    A log (``moves``) gets :data:`MARK` after each move instead, so that the log read
    next still starts with the one read before (the SDK holds a server to that).
    """
    if isinstance(value, str) and named and field == "moves":
        return " ".join(move + MARK for move in value.split())
    if isinstance(value, str):
        return HOSTILE + value + HOSTILE if named else value
    if isinstance(value, tuple | list):
        return type(value)(poison(item, names, named, field) for item in value)
    if isinstance(value, msgspec.Struct):
        changed = {
            name: poison(getattr(value, name), names, named or name in names, name)
            for name in value.__struct_fields__
        }
        return msgspec.structs.replace(value, **changed)
    return value


Poisoning = Callable[[set[str], bool], None]


@pytest.fixture
def poisoned_reads(monkeypatch: pytest.MonkeyPatch) -> Poisoning:
    """Poison the fields of these names in every answer the SDK reads from now on.

    With ``routed``, a poisoned id in a request's path is taken out again before it is
    sent, as a server that gave it would: the game goes on under it.
    """
    decode, request_args = RequestCore.decode, RequestCore.request_args

    def start(names: set[str], routed: bool) -> None:
        def poisoned(response: Any, content: bytes, result_type: type[Any]) -> Any:
            return poison(decode(response, content, result_type), frozenset(names))

        def routing(core: RequestCore, call: Any) -> dict[str, Any]:
            args = request_args(core, call)
            args["url"] = args["url"].replace(quote(HOSTILE, safe=""), "")
            return args

        monkeypatch.setattr(RequestCore, "decode", staticmethod(poisoned))
        if routed:
            monkeypatch.setattr(RequestCore, "request_args", routing)

    return start


@pytest.fixture
def sdk_client(
    client: TestClient[Litestar], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Client]:
    monkeypatch.chdir(tmp_path)  # the receipt, if any, is written here
    with Client(base_url=str(client.base_url), http_client=client) as sdk:
        yield sdk


def played(
    sdk_client: Client,
    variant: str,
    moves: list[str],
    *,
    seed: str = "hostile",
    options: dict[str, Any] | None = None,
) -> str:
    """What ``cardproof play VARIANT`` shows for ``moves``, then the end of the input."""
    output = io.StringIO()
    run(
        sdk_client,
        variant,
        input=io.StringIO("".join(f"{move}\n" for move in moves)),
        output=output,
        client_seed=seed,
        options=options,
        server_url="http://cards.example",
    )
    return output.getvalue()


REPEAT = ["r1", "r2"] * 26
HANDS = {"line", "cards", "removed", "category"}


@pytest.mark.parametrize(
    ("variant", "moves", "fields", "shown"),
    [
        ("poker-squares", SQUARES, {"server_seed_hash"}, ["server seed hash \\u001b"]),
        ("poker-squares", SQUARES, {"next"}, ["Place \\u001b"]),
        ("poker-squares", SQUARES[:3], {"layout"}, ["  1   \\u001b"]),
        ("poker-squares", SQUARES, HANDS, ["Final score", "  \\u001b"]),
        ("serpent-patience", SQUARES[:1], {"later"}, ["Then (24): \\u001b"]),
        ("repeat-poker", ["r1"] * 5, {"rows", "next"}, ["r1   \\u001b", "Place \\u001b"]),
        ("repeat-poker", ["r1"] * 5, HANDS, ["Just scored: \\u001b"]),
        ("repeat-poker", REPEAT, HANDS, ["Final score", "  \\u001b"]),
        ("reserve-poker", ["1 a", "2 b"], {"grid", "reserve"}, ["\\u001b"]),
        ("solodrez", ["stop", "y"], {"columns"}, ["\\u001b"]),
        # a word longer than the line is not cut: the poisoned id starts a line of its own
        ("solodrez", ["stop", "y"], {"deal_id"}, ["Stopping ends deal\n  \\u001b"]),
        ("poker-squares", SQUARES, {"deal_id"}, ["cannot fetch the receipt of deal \\u001b"]),
        ("poker-squares", ["q", "y"], {"deal_id"}, ["forfeits deal \\u001b", "Quit: deal \\u001b"]),
    ],
)
def test_what_gets_past_the_forms_is_shown_escaped(
    variant: str,
    moves: list[str],
    fields: set[str],
    shown: list[str],
    sdk_client: Client,
    poisoned_reads: Poisoning,
) -> None:
    poisoned_reads(fields, True)
    output = played(sdk_client, variant, moves, options={"rows": 2} if moves == REPEAT else None)
    assert hidden(output) == [], output
    for words in shown:
        assert words in output, output


def test_a_server_failing_mid_game_is_told_escaped(
    sdk_client: Client, poisoned_reads: Poisoning, monkeypatch: pytest.MonkeyPatch
) -> None:
    poisoned_reads({"deal_id"}, True)
    moved = sdk_client.play
    calls = iter(range(100))

    def play(*args: Any, **kwargs: Any) -> Any:
        if next(calls) == 2:
            raise ServerError(503, "Unavailable" + HOSTILE, "down" + HOSTILE)
        return moved(*args, **kwargs)

    monkeypatch.setattr(sdk_client, "play", play)
    output = played(sdk_client, "poker-squares", SQUARES)
    assert hidden(output) == [], output
    assert "Deal \\u001b" in output, output
    assert "the server failed: 503 Unavailable\\u001b" in output, output
    assert "(deal \\u001b" in output, output


def test_a_seed_the_server_echoes_is_shown_escaped(sdk_client: Client) -> None:
    output = played(sdk_client, "poker-squares", ["q", "y"], seed="seed" + HOSTILE)
    assert hidden(output) == [], output
    assert 'your seed "seed\\u001b' in output, output


def test_the_sdk_s_own_refusal_quotes_the_server_escaped(
    sdk_client: Client, poisoned_reads: Poisoning
) -> None:
    """A deal the SDK's checks refuse: the refusal quotes the server, escaped."""
    poisoned_reads({"client_seed"}, True)  # the deal is not the one asked for
    output = played(sdk_client, "poker-squares", SQUARES)
    assert hidden(output) == [], output
    assert output.startswith("cannot open a deal: client_seed: expected 'hostile'"), output


@pytest.fixture(scope="module")
def lockstep_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A real server (a seat follows its round from a thread of its own) and an organizer."""
    env = {
        "CARDPROOF_ORGANIZERS_FILE": str(tmp_path_factory.mktemp("seat") / "organizers.json"),
        "REDIS_URL": "",
    }
    key = new_organizer_key(env, "Seat Club")
    with served("--log-level", "warning", env=env) as url:
        yield url, key


def shows(output: io.StringIO, words: str, seconds: float) -> None:
    """Wait until ``output`` shows ``words``."""
    deadline = time.monotonic() + seconds
    while words not in output.getvalue():
        assert time.monotonic() < deadline, output.getvalue()
        time.sleep(0.05)


def test_a_seat_shows_what_gets_past_the_forms_escaped(
    lockstep_server: tuple[str, str],
    poisoned_reads: Poisoning,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The round's start time while it waits; the card placed for the player, and where."""
    url, key = lockstep_server
    now = datetime.now(UTC)
    with Client(base_url=url, api_key=key) as organizer, Client(base_url=url) as player:
        tid = organizer.create_tournament(
            "Seat Cup", "poker-squares", rounds=1, opens_at=now,
            closes_at=now + timedelta(hours=1), format="lockstep", card_seconds=1,
            round_starts=[now + timedelta(minutes=50)],
        ).tournament.tournament_id  # fmt: skip
        token = player.enter(tid, "Ada").token
        poisoned_reads({"starts_at", "card", "moves"}, False)
        read, write = os.pipe()
        monkeypatch.setattr(sys, "stdin", os.fdopen(read))
        output = io.StringIO()
        monkeypatch.setattr(sys, "stdout", output)
        ended: list[int] = []
        with Client(base_url=url) as seat, Client(base_url=url) as follower:
            thread = threading.Thread(
                target=lambda: ended.append(run_round(seat, follower, tid, 1, token, url, None))
            )
            thread.start()
            try:
                shows(output, "waiting for the start", 20)
                organizer.start_round(tid, 1)
                shows(output, "Time's up", 20)  # its card's second passed: placed for Ada
            finally:
                os.write(write, b"q\n")
                os.close(write)
                thread.join(30)
    text = output.getvalue()
    assert ended == [1], text
    assert hidden(text) == [], text
    assert "(it starts by itself at \\u001b" in text, text
    assert "Time's up: \\u001b" in text, text
    assert "was placed for you at a1\\u001b" in text, text
