"""The CLI prints no hidden character that someone else wrote: a server's, or a file's.

An escape sequence, a carriage return or a bidi override in a server's answer or in a
crafted receipt could erase the CLI's own line and print a fake "verified" in its place.
Every command but the ones that draw the terminal themselves (``play``, the servers)
writes through :class:`cardproof.screen.PrintableStream`, which shows each such
character as ``\\uXXXX``.
"""

from __future__ import annotations

import base64
import io
import json
import socket
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof.cli.verify as verify_cli
from attack_kit import committed_receipt
from cardproof.cli import build_parser, main
from cardproof.screen import PrintableStream
from test_client_bounds import Served, hostile

HOSTILE = "\x1b[2K\r\x1b[32mverified\x07\u202e\u009b"
"""Erase the line, go back to its start, print a green word, ring, reverse, a C1 CSI."""
SHOWN = ("\x1b", "\r", "\x07", "\u202e", "\u009b")


def _clean(text: str) -> None:
    for char in SHOWN:
        assert char not in text, repr(text)
    assert "\\u001b" in text


def test_the_stream_escapes_every_hidden_character_but_line_breaks_and_tabs() -> None:
    raw = io.StringIO()
    stream = PrintableStream(raw)
    assert stream.write("a\tb\n" + HOSTILE + "\n") == len("a\tb\n" + HOSTILE + "\n")
    assert raw.getvalue() == ("a\tb\n\\u001b[2K\\u000d\\u001b[32mverified\\u0007\\u202e\\u009b\n")


def _forged_issuer(token: str) -> str:
    """``token`` with its payload's ``iss`` made hostile (its signature then fails)."""
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["iss"] = "https://cards.example" + HOSTILE
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def test_a_crafted_issuer_in_verify_s_hint_is_shown_not_obeyed(
    client: TestClient[Litestar],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    monkeypatch.delenv("CARDPROOF_URL", raising=False)
    monkeypatch.setattr(verify_cli, "DEFAULT_BASE_URL", f"http://127.0.0.1:{port}")
    receipt = tmp_path / "receipt.jws"
    receipt.write_text(_forged_issuer(committed_receipt(client)))
    assert main(["verify", str(receipt)]) == 2
    out, err = capsys.readouterr()
    assert "the receipt says it was issued by https://cards.example\\u001b[2K" in err
    _clean(out + err)


def problem(conn: socket.socket, served: Served) -> None:
    """A 404 problem whose title and detail carry escapes."""
    body = json.dumps(
        {"status": 404, "title": "Not Found" + HOSTILE, "detail": "no " + HOSTILE}
    ).encode()
    served.send(
        conn,
        b"HTTP/1.1 404 Not Found\r\ncontent-type: application/problem+json\r\n"
        b"content-length: %d\r\n\r\n" % len(body) + body,
    )


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "show", "t_x\x1b[31m"],
        ["tournament", "standings", "t_x"],
        ["tournament", "round", "t_x", "1"],
        ["verify", "RECEIPT"],
        ["log", "check", "--state", "STATE"],
    ],
)
def test_a_hostile_server_s_words_reach_the_terminal_escaped(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    receipt = tmp_path / "receipt.jws"
    receipt.write_text("eyJhbGciOiJFZERTQSJ9.e30.c2ln\n")
    argv = [
        str(receipt) if arg == "RECEIPT" else str(tmp_path) if arg == "STATE" else arg
        for arg in command
    ]
    with hostile(problem) as (url, _):
        status = main([*argv, "--url", url])
    assert status != 0
    out, err = capsys.readouterr()
    _clean(out + err)


def test_the_commands_that_draw_the_terminal_keep_it() -> None:
    parser = build_parser()
    witness = ["witness", "serve", "--key", "k", "--log", "v"]
    for argv in (["play", "poker-squares"], ["serve"], witness):
        assert getattr(parser.parse_args(argv), "own_screen", False), argv
    for argv in (["verify", "r"], ["tournament", "show", "t"], ["log", "check", "--url", "u"]):
        assert not getattr(parser.parse_args(argv), "own_screen", False), argv
