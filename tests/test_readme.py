"""The README is true: every curl and Python example in it runs against a real server,
and every output it shows is what the command prints, shape and all.

A shown output is a fenced block whose info string is ``json output`` or ``text output``,
right after the command block it belongs to. ``…`` stands for what differs from run to
run: in JSON, the string ``"…"`` matches any value, a string holding ``…`` matches any
text there, a list ending in ``"…"`` may go on, and a ``"…"`` key allows more keys; in
text, ``…`` matches any text on its line, and a line that is only ``…`` any lines.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
FENCES = re.findall(r"^```([^\n]*)\n(.*?)^```$", README, flags=re.DOTALL | re.MULTILINE)
"""Every fenced block: (info string, body), in order."""
BLOCKS = [(info, body) for info, body in FENCES if info in ("sh", "python")]
CURLS = [
    line
    for kind, body in BLOCKS
    if kind == "sh" and "for cell in" not in body
    for line in body.splitlines()
    if line.startswith("curl ")
]
SCRIPTS = [body for kind, body in BLOCKS if kind == "sh" and "for cell in" in body]
"""The curl game: it chains answers through variables, so it runs whole, in bash."""
PYTHON = [body for kind, body in BLOCKS if kind == "python"]
DEFAULT = "http://127.0.0.1:8000"
VENV_BIN = str(Path(sys.executable).parent) + "/"
"""Where the README's ``.venv/bin/`` commands are, for a block run in another directory."""
STATE = tempfile.mkdtemp(prefix="cardproof-readme-state-")
"""``$XDG_STATE_HOME`` of the commands run (``cardproof log check`` keeps what it saw)."""


def test_readme_shows_both_make_commands() -> None:
    assert "make run" in README
    assert "make test" in README
    assert len(CURLS) >= 8
    assert len(PYTHON) >= 2


STATED: dict[str, Callable[[dict[str, Any]], bool]] = {
    "/v1/score": lambda body: body["total"] == 210,
    '"a1 b1 a1"': lambda body: (body["code"], body["move_index"]) == ("cell-taken", 2),
    "/v1/commitments": lambda body: body["commitment_id"].startswith("c_"),
    "/.well-known/jwks.json": lambda body: body["keys"][0]["kty"] == "OKP",
    '"budget": 1': lambda body: (body["result"], len(body["moves"])) == ("won", 11),
    '"budget": 0.5': lambda body: (
        body["score"]["total"] <= body["upper_bound"] and len(body["moves"]) == 25
    ),
}
"""What the README says some examples answer."""


@pytest.mark.parametrize("command", CURLS)
def test_curl_examples_run_and_answer_as_stated(command: str, live_server: str) -> None:
    line = command.replace(DEFAULT, live_server)
    out = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", line],
        capture_output=True,
        check=True,
        text=True,
        timeout=30,
    ).stdout
    if "|" in line or command in TEXT_CURLS:  # its shown output is checked below, whole
        return
    body = json.loads(out)
    assert "status" not in body or body.get("status") in ("ok", "ready", 422), body
    for marker, check in STATED.items():
        if marker in command:
            assert check(body), body


def test_every_stated_answer_has_its_example() -> None:
    for marker in STATED:
        assert any(marker in command for command in CURLS), marker


def test_the_curl_game_plays_a_committed_game(live_server: str, tmp_path: Path) -> None:
    (script,) = SCRIPTS
    payload = json.loads(_run_block(script, "sh", live_server, tmp_path))  # JSON, not a repr
    assert (payload["kind"], payload["committed_before_client_seed"]) == ("committed-blind", True)
    assert payload["moves"] == " ".join(f"{c}{r}" for r in "12345" for c in "abcde")
    assert payload["server_seed"] is not None  # revealed at the end
    assert payload["client_seed"] == "my lucky seed"
    kept = json.loads((tmp_path / "receipt.txt").read_text())  # what the next section checks
    verified = subprocess.run(
        [VENV_BIN + "cardproof", "verify", "receipt.txt", "--url", live_server],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert kept["payload"]["deal_id"] in verified.stdout


@pytest.mark.parametrize("code", PYTHON)
def test_python_examples_run(code: str, live_server: str) -> None:
    source = code.replace(DEFAULT, live_server)
    result = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


ELIDED = "…"
OUTPUT_KINDS = ("json output", "text output")


def _shown_outputs() -> list[tuple[str, str, str, str]]:
    """(command block, its language, the kind of output shown, the output) for each one."""
    pairs = []
    for (info, body), (after, shown) in itertools.pairwise(FENCES):
        if after in OUTPUT_KINDS:
            assert info in ("sh", "python"), f"an output shown after a {info!r} block: {shown}"
            pairs.append((body, info, after.split()[0], shown))
    return pairs


SHOWN = _shown_outputs()
TEXT_CURLS = {
    line
    for body, _, kind, _ in SHOWN
    if kind == "text"
    for line in body.splitlines()
    if line.startswith("curl ")
}
"""Curl commands that answer text (the log's key), not JSON."""


def _like(shown: Any, printed: Any, where: str = "$") -> None:
    """Assert the printed JSON value has the shown one's shape and values (``…`` aside)."""
    if shown == ELIDED:
        return
    if isinstance(shown, str) and ELIDED in shown:
        pattern = ".*".join(map(re.escape, shown.split(ELIDED)))
        assert isinstance(printed, str), f"{where}: {printed!r} is not a string"
        assert re.fullmatch(pattern, printed, flags=re.DOTALL), f"{where}: {printed!r} {shown!r}"
        return
    assert type(printed) is type(shown), f"{where}: {printed!r} where {shown!r} is shown"
    if isinstance(shown, dict):
        extra = set(printed) - set(shown)
        assert ELIDED in shown or not extra, f"{where}: printed, not shown: {sorted(extra)}"
        for key, value in shown.items():
            if key != ELIDED:
                assert key in printed, f"{where}: shown, not printed: {key}"
                _like(value, printed[key], f"{where}.{key}")
    elif isinstance(shown, list):
        more = bool(shown) and shown[-1] == ELIDED
        head = shown[:-1] if more else shown
        assert len(printed) >= len(head) if more else len(printed) == len(head), (
            f"{where}: {len(printed)} items printed, {len(head)} shown"
        )
        for index, value in enumerate(head):
            _like(value, printed[index], f"{where}[{index}]")
    else:
        assert printed == shown, f"{where}: {printed!r} printed, {shown!r} shown"


def _text_like(shown: str, printed: str) -> None:
    """Assert the printed text matches the shown lines (``…`` aside), line for line."""
    parts = []
    for line in shown.splitlines():
        if line.strip() == ELIDED:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(map(re.escape, line.split(ELIDED))) + r"\n")
    pattern = "".join(parts)
    assert re.fullmatch(pattern, printed if printed.endswith("\n") else printed + "\n"), (
        f"printed:\n{printed}\nshown:\n{shown}"
    )


def _run_block(body: str, language: str, server: str, where: Path) -> str:
    """What a README command block prints on stdout, run as a reader would run it.

    It runs in ``where`` (a fresh directory: what it writes, ``receipt.txt`` say, is its
    own), ``.venv/bin/`` being this virtualenv's.
    """
    source = body.replace(DEFAULT, server).replace(".venv/bin/", VENV_BIN)
    command = ["bash", "-e", "-o", "pipefail", "-c", source]
    if language == "python":
        command = [sys.executable, "-c", source]
    env = {**os.environ, "XDG_STATE_HOME": STATE}  # what a command keeps: not the user's
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=env, cwd=where
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_readme_shows_outputs_and_no_output_goes_unchecked() -> None:
    assert len(SHOWN) >= 10
    for info, body in FENCES:
        # a block of JSON or text is a checked output, or a terminal session shown as such
        assert info not in ("json", "text", ""), f"a {info!r} block that nothing checks: {body}"
    # an answer shown inline in the prose is not checked: outputs are blocks
    assert not re.search(r"(answers|prints) `[{\[]", README)


@pytest.mark.parametrize(
    ("command", "language", "kind", "shown"),
    SHOWN,
    ids=[f"shown-{i}" for i in range(len(SHOWN))],
)
def test_each_shown_output_is_what_its_command_prints(
    command: str, language: str, kind: str, shown: str, live_server: str, tmp_path: Path
) -> None:
    printed = _run_block(command, language, live_server, tmp_path)
    shown = shown.replace(DEFAULT, live_server)  # the server the README names is this one
    if kind == "json":
        _like(json.loads(shown), json.loads(printed))
    else:
        _text_like(shown, printed)


def test_the_matching_catches_a_wrong_shape() -> None:
    _like({"a": [1, "…"], "b": "c_…", "…": "…"}, {"a": [1, 2, 3], "b": "c_x", "z": None})
    for printed in ({"a": [2], "b": "c_x"}, {"a": [1], "b": "d_x"}, {"a": 1, "b": "c_"}):
        with pytest.raises(AssertionError):
            _like({"a": [1, "…"], "b": "c_…"}, printed)
    with pytest.raises(AssertionError):
        _like({"a": 1}, {"a": 1, "extra": 2})  # a key printed but not shown
    with pytest.raises(AssertionError):
        _like({"a": False}, {"a": 0})  # false is not 0
    _text_like("first …\n…\nlast", "first line\nany\nlines\nlast\n")
    with pytest.raises(AssertionError):
        _text_like("first …\nlast", "first line\nmore\nlast\n")


WRITES = re.compile(r"(?:-o|--output|--receipt-out|--receipts|--entry-file)[ =](\S+)|> (\S+)")
"""Where a README command writes a file: an output option, or a shell redirect."""


def test_files_the_readme_commands_write_are_ignored_by_git() -> None:
    written = {"receipts/keys.json", "receipt-d_x.jws", "receipt-d_x.keys.json"}  # defaults
    for _, body in BLOCKS:
        for option, redirect in WRITES.findall(body):
            name = option or redirect
            if name != "/dev/null" and not name.startswith(("openapi/", "$")):
                written.add(f"{name}/x" if name.endswith("/") else name)
    assert {"r.jws", "spring.json"} <= written
    root = Path(__file__).parent.parent
    found = subprocess.run(
        ["git", "check-ignore", "--no-index", *sorted(written)],
        cwd=root,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert sorted(found) == sorted(written), f"not ignored: {sorted(set(written) - set(found))}"
