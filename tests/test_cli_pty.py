"""``cardproof`` at a real terminal: its questions and progress bars, through a pty.

The prompts that guard a player (``q`` asks before forfeiting; serpent asks before a
move that leaves the path no way on; solodrez's ``stop`` asks before it ends the game)
are answered as a person types them, keystroke lines into a pty, reading what the
program writes back until each question appears. ``bots run`` draws its progress bar
there (and only there: tests/test_progress.py pipes it).
"""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

CARDPROOF = str(Path(sys.executable).parent / "cardproof")


class Terminal:
    """A program on a pseudo-terminal: type a line, wait for a text.

    ``term``: the terminal type it is told (``dumb`` by default: plain lines; a lockstep
    round redraws its clock on any other). ``CI`` is not passed on: a person's terminal
    is not a CI run's (which gets no progress bars).
    """

    def __init__(
        self,
        *args: str,
        cwd: Path,
        term: str = "dumb",
        columns: int = 100,
        env: dict[str, str] | None = None,
    ) -> None:
        self.main, follower = pty.openpty()
        rows_columns = struct.pack("HHHH", 24, columns, 0, 0)  # a size, as a person's has
        fcntl.ioctl(follower, termios.TIOCSWINSZ, rows_columns)
        environ = {k: v for k, v in os.environ.items() if k not in ("CARDPROOF_URL", "CI")}
        self.process = subprocess.Popen(
            [CARDPROOF, *args],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            cwd=cwd,
            env={**environ, "TERM": term, "NO_COLOR": "1", **(env or {})},
            close_fds=True,
        )
        os.close(follower)
        self.seen = ""
        # a read may end inside a character (a suit's three UTF-8 bytes): kept for the next
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

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
                self.seen += self.decoder.decode(chunk)
        found, _, self.seen = self.seen.partition(text)
        return found + text

    def type(self, line: str) -> None:
        self.keys(line + "\n")

    def keys(self, keys: str) -> None:
        """Press ``keys``, with no Enter unless they end with one."""
        os.write(self.main, keys.encode())

    def close(self) -> int:
        """Wait for the program to end by itself (it was told to): its exit code."""
        code = self.process.wait(timeout=30)
        self.kill()
        return code

    def kill(self) -> None:
        """End the program if it still runs (after a test failed half-way), and the pty."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.main >= 0:
            os.close(self.main)
            self.main = -1

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *failed: object) -> None:
        """A test that failed half-way ends its program now, not after a 30 s wait."""
        self.kill()


def test_q_asks_before_forfeiting_at_a_terminal(tmp_path: Path) -> None:
    with Terminal("play", "poker-squares", "--seed", "at a terminal", cwd=tmp_path) as terminal:
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
        code = terminal.close()
    assert code == 1  # quit: no receipt
    assert list(tmp_path.iterdir()) == []  # and no receipt file


def test_serpent_asks_before_a_dead_end_at_a_terminal(tmp_path: Path) -> None:
    with Terminal("play", "serpent-patience", "--seed", "a corner", cwd=tmp_path) as terminal:
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
        code = terminal.close()
    assert code == 1


def test_solodrez_stop_asks_first_at_a_terminal(tmp_path: Path) -> None:
    with Terminal("play", "solodrez", "--seed", "a stop", cwd=tmp_path) as terminal:
        terminal.expect("hint, stop: ")
        terminal.type("stop")
        terminal.expect("scored as it stands")
        terminal.expect("Stop? [y/N] ")
        terminal.type("")  # Enter alone: no, the game goes on
        terminal.expect("hint, stop: ")
        terminal.type("stop")
        terminal.expect("Stop? [y/N] ")
        terminal.type("y")
        terminal.expect("Not won: 0 of 9 series removed, in 0 moves; then stopped.")
        terminal.expect("Receipt: written to receipt-d_")
        code = terminal.close()
    assert code == 0


def solodrez_board(screen: str) -> list[list[str]]:
    """The columns of the last solodrez board drawn on ``screen`` (headed ``1 .. 9``)."""
    lines = screen.split("    1   2   3   4   5   6   7   8   9")[-1].splitlines()[1:]
    columns: list[list[str]] = [[] for _ in range(9)]
    for line in lines:
        if not line.startswith("   "):
            break  # the prompt
        for c, column in enumerate(columns):
            card = line[2 + 4 * c : 5 + 4 * c].strip()
            if card and card != "-":
                column.append(card)
    return columns


def test_solodrez_counts_its_columns_1_to_9_at_a_terminal(tmp_path: Path) -> None:
    """The board, the moves typed, the hint and the server's refusals count columns from 1,
    as the page does (the API's move texts count from 0); a hint wraps at the terminal's
    width between words."""
    from cardproof.games.solodrez import SoloDrez
    from cardproof.pokerdrez import parse_pokerdrez_cards

    width = 40
    with Terminal("play", "solodrez", "--seed", "a stop", cwd=tmp_path, columns=width) as terminal:
        board = solodrez_board(terminal.expect("hint, stop: "))
        position = SoloDrez.from_columns([parse_pokerdrez_cards(c) for c in board])
        terminal.type("hint")
        told = terminal.expect("hint, stop: ")
        hint = told[told.index("  hint: ") :].rsplit("\n", 1)[0].replace("\r", "")
        lines = hint.splitlines()
        assert len(lines) > 1, lines  # wrapped
        assert all(len(line) < width for line in lines), lines
        words = " ".join(line.strip() for line in lines)
        assert re.fullmatch(  # no word cut in two
            r"hint: .* \([\d,]+ positions searched\)(; 'stop' ends the game with \d series)?",
            words,
        ), words
        advised = re.match(
            r"hint: (\d) (\d+) (\d) \(move \d+ cards? from column \1 to column \3\)", words
        )
        runs = [m for m in position.legal_moves() if m.remove is None and m.stop is None]
        if advised is not None:  # the solver found a win: its first move, counted from 1
            source, count, target = (int(n) for n in advised.groups())
        else:  # none found in time (a loaded machine): a legal move instead
            assert words.startswith(("hint: no win found", "hint: this position cannot")), words
            run = runs[0]
            source, count, target = (run.from_ or 0) + 1, run.count or 0, (run.to or 0) + 1
        assert SoloDrez.parse_move(f"{source - 1}:{count}>{target - 1}") in runs
        terminal.type(f"{source} {count} {target}")  # typed back as the board counts
        after = solodrez_board(terminal.expect("hint, stop: "))
        assert after[target - 1][-count:] == board[source - 1][-count:]
        assert after[source - 1] == board[source - 1][:-count]
        terminal.type("0 1 2")
        terminal.expect("columns are numbered 1 to 9, as the board shows them")
        terminal.type("5 1 5")  # the server's detail counts from 0: said from 1
        terminal.expect("illegal move (5 1 5):")
        refused = " ".join(terminal.expect("hint, stop:").split())
        assert refused.startswith("a run moves to another column, not back onto column 5 "), refused
        terminal.type("?")
        terminal.expect("Columns 1-9 are shown top to")
        terminal.type("q")
        terminal.expect("Quit? [y/N] ")
        terminal.type("y")
        terminal.expect("no receipt")
        code = terminal.close()
    assert code == 1


def test_cards_show_as_the_page_shows_them_at_a_terminal(tmp_path: Path) -> None:
    """``10♣``, as the play page writes a card, not the API's ``TC``; where the terminal's
    encoding has no suit symbols, the rank as on the page and the suit's letter (``10C``)."""
    with Terminal("play", "poker-squares", "--seed", "ten of clubs", cwd=tmp_path) as terminal:
        board = terminal.expect("Place ", timeout=60) + terminal.expect(": ")
        assert re.search(r"Place (10|[2-9JQKA])[♣♦♥♠]: $", board), board
        for cell in ("a1", "b1", "c1", "d1", "e1"):
            terminal.type(cell)
            board = terminal.expect("Place ")
        row = re.search(r"(?m)^  1  (.*)$", board)
        assert row is not None, board
        cards = row[1].replace("[", " ").replace("]", " ").split()
        assert len(cards) == 5, row[1]
        assert all(re.fullmatch(r"(10|[2-9JQKA])[♣♦♥♠]", card) for card in cards), row[1]
        terminal.type("q")
        terminal.expect("[y/N] ")
        terminal.type("y")
        terminal.expect("left unfinished")
        assert terminal.close() == 1
    with Terminal(
        *("play", "poker-squares", "--seed", "ten of clubs"),
        cwd=tmp_path,
        env={"PYTHONIOENCODING": "ascii"},
    ) as plain:
        prompt = plain.expect("Place ", timeout=60) + plain.expect(": ")
        assert re.search(r"Place (10|[2-9JQKA])[CDHS]: $", prompt), prompt
        plain.type("q")
        plain.expect("[y/N] ")
        plain.type("y")
        plain.expect("left unfinished")
        assert plain.close() == 1


def test_bots_run_draws_a_progress_bar_at_a_terminal(tmp_path: Path) -> None:
    with Terminal(
        "bots", "run", "cardproof.bots:RandomPlayer", "--games", "3", "--par-budget", "0",
        cwd=tmp_path, term="xterm",
    ) as terminal:  # fmt: skip
        screen = terminal.expect("in receipts/", timeout=60)
        code = terminal.close()
    assert code == 0, screen
    report, _, _ = screen.rpartition("cardproof.bots:RandomPlayer on 3 committed blind deals")
    assert "games:   0%|" in report  # the bar, drawn on standard error as the games begin
    assert "0/3 [" in report
    for number in (1, 2, 3):  # redrawn in place after each game, with the mean so far
        assert re.search(
            rf"\r\s*games: +\d+%\|[^\r]*\| {number}/3 \[[^\r]*, mean \d+\.\d\]", report
        )
    assert report.endswith("\r")  # cleared before the report: it starts on a clean line
