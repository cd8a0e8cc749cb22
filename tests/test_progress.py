"""Progress bars (cardproof/progress.py): on a terminal only, and tqdm imported only then.

``tests/test_cli_pty.py`` shows the bar of ``cardproof bots run`` at a terminal; here a
pipe gets none (no bar, no carriage return), ``import cardproof`` and ``cardproof --help``
never import tqdm, and a bar shows its counts and note where it is drawn.
"""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardproof.progress import bar, iterate, shown

CARDPROOF = str(Path(sys.executable).parent / "cardproof")
BAR_MARKS = ("\r", "%|", "\u2588", "game/s", "games:")
"""What a drawn bar writes: carriage returns, its frame, its blocks, its rate."""


class Terminal(io.StringIO):
    """A stream that says it is a terminal, keeping what is drawn on it."""

    def isatty(self) -> bool:
        return True


def imported_modules(*args: str) -> str:
    """``python -X importtime`` of ``args``: every module imported, one a line."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stderr


def test_import_cardproof_and_its_help_never_import_tqdm() -> None:
    assert " tqdm" not in imported_modules("-c", "import cardproof, cardproof.progress")
    assert " tqdm" not in imported_modules("-m", "cardproof.cli", "--help")
    assert " tqdm" in imported_modules("-c", "import tqdm")  # the check sees tqdm at all


def test_a_piped_bots_run_draws_no_bar(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CARDPROOF_URL", "CI")}
    script = (
        "import sys\n"
        "from cardproof.cli import main\n"
        "code = main(['bots', 'run', 'cardproof.bots:RandomPlayer', '--games', '3',\n"
        "             '--par-budget', '0'])\n"
        "print('tqdm imported' if 'tqdm' in sys.modules else 'no tqdm', file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "on 3 committed blind deals" in done.stdout
    for mark in BAR_MARKS:
        assert mark not in done.stdout + done.stderr, mark
    assert done.stderr.strip() == "no tqdm"  # not even imported
    cli = subprocess.run(
        [CARDPROOF, "bots", "run", "cardproof.bots:RandomPlayer", "--games", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stderr == ""
    assert "\r" not in cli.stdout


def test_a_bar_is_drawn_only_on_a_terminal_and_never_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    main, follower = pty.openpty()
    with os.fdopen(follower, "w") as terminal:
        assert shown(terminal)
        assert not shown(io.StringIO())
        monkeypatch.setenv("CI", "true")
        assert not shown(terminal)
    os.close(main)


def test_a_bar_counts_and_notes_where_it_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    screen = Terminal()
    with bar(4, "games", unit="game", stream=screen) as games:
        time.sleep(0.15)  # past tqdm's shortest interval between two drawings
        games.advance(note="mean 12.0")
        time.sleep(0.15)
        games.advance(2, note="mean 14.5")
    drawn = screen.getvalue()
    assert "games:   0%|" in drawn
    assert "1/4 [" in drawn
    assert "mean 12.0" in drawn
    assert "3/4 [" in drawn
    assert "mean 14.5" in drawn
    assert "\r" in drawn
    assert drawn.endswith("\r")  # cleared at the end: the report follows on a clean line
    quiet = io.StringIO()
    with bar(4, "games", stream=quiet) as games:  # not a terminal: the same calls, nothing
        games.advance(note="mean 1.0")
        games.at(3, 4)
    assert quiet.getvalue() == ""


def test_a_bar_learns_its_total_as_the_work_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    screen = Terminal()
    with bar(None, "keys", unit="key", stream=screen) as keys:
        keys.at(0, 29)  # the store's migration says how many keys once it has scanned
        time.sleep(0.15)
        keys.at(29, 29)
    assert "0/29" in screen.getvalue()
    assert "29/29" in screen.getvalue()


def test_iterate_yields_every_item_with_or_without_a_bar() -> None:
    assert list(iterate(range(5), "items")) == [0, 1, 2, 3, 4]
    assert list(iterate(iter("abc"), "letters", total=3)) == ["a", "b", "c"]
