"""A user's own script type-checks against the installed SDK, as ``mypy --strict`` sees it.

The package is installed (not editable) into a fresh virtual environment, as a user
would: its ``py.typed`` must ship, else mypy says the module is "installed, but missing
library stubs or py.typed marker". Then the README's blind-game example, and a script
that plays every kind of view, must pass ``mypy --strict`` with no cast or narrowing of
their own: ``client.deal("poker-squares")`` gives a game whose ``visible`` is a
``GridView``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLIND_GAME = re.search(
    r"Play a committed deal blind, then check its receipt offline:\n\n```python\n(.*?)```",
    README,
    flags=re.DOTALL,
)
EVERY_VIEW = '''
"""Every kind of view, read with no narrowing: each variant's handle has its own view."""

import asyncio

from cardproof import AsyncClient, Client


def squares(client: Client) -> int:
    game = client.deal("poker-squares", client_seed="typed")
    cells = [f"{col}{row}" for row in "12345" for col in "abcde"]
    while not game.finished:
        card: str | None = game.visible.next
        assert card is not None
        game.play(cells[game.next_index])
    receipt = game.receipt()
    checked = client.verify_receipt(receipt.receipt)
    return checked.payload.score.total


def others(client: Client) -> None:
    rows: list[list[str]] = [list(row) for row in client.deal("repeat-poker").visible.rows]
    level: int = client.deal("repeat-poker").visible.level
    reserve = client.deal("reserve-poker").visible.reserve
    columns = client.deal("solodrez").visible.columns
    patience = client.deal("poker-patience").visible.origin
    print(rows, level, reserve, columns, patience)


async def asynchronous() -> str | None:
    async with AsyncClient(base_url="http://127.0.0.1:8000") as client:
        game = await client.deal("serpent-patience")
        later: list[str] = list(game.visible.later)
        print(later)
        return game.visible.next


def tournament(client: Client, tid: str, token: str) -> str | None:
    game = client.play_round(tid, 1, token, variant="poker-squares")
    return game.visible.next


with Client(base_url="http://127.0.0.1:8000") as client:
    print(squares(client))
    others(client)
print(asyncio.run(asynchronous()))
'''


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the package installed from this checkout."""
    venv = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return python


def mypy_strict(python: Path, script: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` (this checkout's pinned mypy) on ``script``, in ``python``'s env."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "mypy", "--strict", "--no-incremental"),
            *("--python-executable", str(python), str(script)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=script.parent,
        check=False,
    )


def test_the_installed_package_ships_its_type_marker(fresh_python: Path) -> None:
    found = subprocess.run(
        [
            str(fresh_python),
            "-c",
            "import cardproof, pathlib; print(pathlib.Path(cardproof.__file__).parent)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    assert (Path(found.stdout.strip()) / "py.typed").is_file()


def test_the_readme_blind_game_type_checks(fresh_python: Path, tmp_path: Path) -> None:
    assert BLIND_GAME is not None
    script = tmp_path / "blind_game.py"
    script.write_text(BLIND_GAME.group(1), encoding="utf-8")
    checked = mypy_strict(fresh_python, script)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success: no issues found in 1 source file" in checked.stdout


def test_every_view_type_checks_with_no_narrowing(fresh_python: Path, tmp_path: Path) -> None:
    script = tmp_path / "every_view.py"
    script.write_text(EVERY_VIEW, encoding="utf-8")
    checked = mypy_strict(fresh_python, script)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_misread_view_is_caught(fresh_python: Path, tmp_path: Path) -> None:
    """The check has teeth: a grid game's view has no ``columns``."""
    script = tmp_path / "wrong.py"
    script.write_text(
        "from cardproof import Client\n\n"
        "with Client() as client:\n"
        "    print(client.deal('poker-squares').visible.columns)\n",
        encoding="utf-8",
    )
    checked = mypy_strict(fresh_python, script)
    assert checked.returncode == 1
    assert '"GridView" has no attribute "columns"' in checked.stdout


@pytest.mark.parametrize("command", [["keys", "generate"], ["openapi"], ["serve"]], ids=" ".join)
def test_the_sdk_alone_says_what_a_service_command_needs(
    fresh_python: Path, command: list[str]
) -> None:
    """Installed without the service extra: one line naming the install, exit 2."""
    done = subprocess.run(
        [str(fresh_python.parent / "cardproof"), *command],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert re.fullmatch(
        rf"cardproof {command[0]} needs the service extra( \(\w+ is not installed\))?: "
        r"pip install 'cardproof\[service\]'\n",
        done.stderr,
    ), done.stderr
