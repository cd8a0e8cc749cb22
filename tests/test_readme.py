"""The README is true: every curl and Python example in it runs against a real server."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```(sh|python)\n(.*?)```", README, flags=re.DOTALL)
CURLS = [
    line
    for kind, body in BLOCKS
    if kind == "sh"
    for line in body.splitlines()
    if line.startswith("curl ")
]
PYTHON = [body for kind, body in BLOCKS if kind == "python"]
DEFAULT = "http://127.0.0.1:8000"


def test_readme_shows_both_make_commands() -> None:
    assert "make run" in README
    assert "make test" in README
    assert len(CURLS) >= 8
    assert len(PYTHON) >= 2


@pytest.mark.parametrize("command", CURLS)
def test_curl_examples_run(command: str, live_server: str) -> None:
    args = shlex.split(command.replace(DEFAULT, live_server))
    out = subprocess.run(args, capture_output=True, check=True, text=True, timeout=30).stdout
    if not args[-1].endswith("/schema"):
        body = json.loads(out)
        assert "status" not in body or body.get("status") in ("ok", "ready", 422), body


@pytest.mark.parametrize("code", PYTHON)
def test_python_examples_run(code: str, live_server: str) -> None:
    source = code.replace(DEFAULT, live_server)
    result = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
