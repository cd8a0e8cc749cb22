"""The README is true: every curl and Python example in it runs against a real server."""

from __future__ import annotations

import ast
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```(sh|python)\n(.*?)```", README, flags=re.DOTALL)
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
    args = shlex.split(command.replace(DEFAULT, live_server))
    out = subprocess.run(args, capture_output=True, check=True, text=True, timeout=30).stdout
    if args[-1].endswith("/schema"):
        assert "<html" in out.lower()
        return
    body = json.loads(out)
    assert "status" not in body or body.get("status") in ("ok", "ready", 422), body
    for marker, check in STATED.items():
        if marker in command:
            assert check(body), body


def test_every_stated_answer_has_its_example() -> None:
    for marker in STATED:
        assert any(marker in command for command in CURLS), marker


def test_the_curl_game_plays_a_committed_game(live_server: str) -> None:
    (script,) = SCRIPTS
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script.replace(DEFAULT, live_server)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    payload = ast.literal_eval(result.stdout.strip())  # as python3 prints a dict
    assert (payload["kind"], payload["committed_before_client_seed"]) == ("committed-blind", True)
    assert payload["moves"] == " ".join(f"{c}{r}" for r in "12345" for c in "abcde")
    assert payload["server_seed"] is not None  # revealed at the end
    assert payload["client_seed"] == "my lucky seed"


@pytest.mark.parametrize("code", PYTHON)
def test_python_examples_run(code: str, live_server: str) -> None:
    source = code.replace(DEFAULT, live_server)
    result = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
