"""``cardproof play`` at a real terminal: its questions asked through a pseudo-terminal.

The prompts that guard a player (``q`` asks before forfeiting; serpent asks before a
move that leaves the path no way on) are answered as a person types them, keystroke
lines into a pty, reading what the program writes back until each question appears.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

CARDPROOF = str(Path(sys.executable).parent / "cardproof")


class Terminal:
    """A program on a pseudo-terminal: type a line, wait for a text.

    ``term``: the terminal type it is told (``dumb`` by default: plain lines; a lockstep
    round redraws its clock on any other).
    """

    def __init__(self, *args: str, cwd: Path, term: str = "dumb") -> None:
        self.main, follower = pty.openpty()
        env = {k: v for k, v in os.environ.items() if k != "CARDPROOF_URL"}
        self.process = subprocess.Popen(
            [CARDPROOF, *args],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            cwd=cwd,
            env={**env, "TERM": term, "NO_COLOR": "1"},
            close_fds=True,
        )
        os.close(follower)
        self.seen = ""

    def expect(self, text: str, timeout: float = 30) -> str:
        """Read until ``text`` has been written (fail with what was seen, else)."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"no {text!r} within {timeout} s; the screen:\n{self.seen[-2000:]}"
            ready, _, _ = select.select([self.main], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.main, 4096)
                except OSError:  # the program ended
                    chunk = b""
                if not chunk:
                    assert text in self.seen, f"ended before {text!r}:\n{self.seen[-2000:]}"
                self.seen += chunk.decode(errors="replace")
        found, _, self.seen = self.seen.partition(text)
        return found + text

    def type(self, line: str) -> None:
        self.keys(line + "\n")

    def keys(self, keys: str) -> None:
        """Press ``keys``, with no Enter unless they end with one."""
        os.write(self.main, keys.encode())

    def close(self) -> int:
        code = self.process.wait(timeout=30)
        os.close(self.main)
        return code

    def kill(self) -> None:
        """End the program if it still runs (after a test failed half-way)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_q_asks_before_forfeiting_at_a_terminal(tmp_path: Path) -> None:
    terminal = Terminal("play", "poker-squares", "--seed", "at a terminal", cwd=tmp_path)
    try:
        terminal.expect("Place ")
        terminal.type("a1")
        terminal.expect("Place ")
        terminal.type("q")
        terminal.expect("Quitting forfeits deal d_")
        terminal.expect("Quit? [y/N] ")
        terminal.type("n")  # changed my mind: the game goes on
        terminal.expect("Place ")
        terminal.type("b1")
        terminal.expect("Place ")
        terminal.type("q")
        terminal.expect("[y/N] ")
        terminal.type("y")
        terminal.expect("left unfinished after 2 cards")
    finally:
        code = terminal.close()
    assert code == 1  # quit: no receipt
    assert list(tmp_path.iterdir()) == []  # and no receipt file


def test_serpent_asks_before_a_dead_end_at_a_terminal(tmp_path: Path) -> None:
    terminal = Terminal("play", "serpent-patience", "--seed", "a corner", cwd=tmp_path)
    try:
        for cell in ("b1", "b2", "a2"):
            terminal.expect("Place ")
            terminal.type(cell)
        terminal.expect("Place ")
        terminal.type("a1")  # boxed in by a2 and b1
        terminal.expect("a1 leaves no way on")
        terminal.expect("[y/N] ")
        terminal.type("n")
        terminal.expect("Place ")  # asked again for the same card: a1 was not sent
        terminal.type("a3")  # the way on instead
        terminal.expect("Place ")
        terminal.type("q")
        terminal.expect("[y/N] ")
        terminal.type("y")
        terminal.expect("left unfinished after 4 cards")
    finally:
        code = terminal.close()
    assert code == 1
