"""The lockstep round table (:func:`run_round`): an entrant's seat, live.

The round is followed in a thread of its own (:class:`_RoundWatch`) and drawn on a
terminal whose status line and clock change under what the player types
(:class:`_Screen`).
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import math
import os
import re
import select
import shlex
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from cardproof.client import Client, Round
from cardproof.errors import APIError, CardproofError, ConflictError
from cardproof.games import variant as variant_class
from cardproof.models import Call, RoundStatus
from cardproof.play.game import session_for
from cardproof.play.shared import HELP, HELP_TEXT, QUIT, Session, Terminal, show_receipt
from cardproof.words import plural, printable

WATCH_WAIT: Final = 1.0
"""Seconds each long poll of a round's calls waits: a new call is seen at once, and the
counts on screen are at most this old."""
LATE: Final = frozenset({"auto-placed", "deadline-passed"})
"""A move's 409 codes when its card's deadline had passed: the server places the card."""
SEAT_HELP: Final = (
    "At the seat: type your move when the clock shows; a card you leave is placed for you "
    "at its deadline. q leaves the seat (the cards left are placed for you as their "
    "deadlines pass); ? or help shows this."
)
_STYLE: Final = re.compile(r"\x1b\[[0-9;]*m")
"""A colour escape (a red card): it takes no room on the line."""


class _CallOver(Exception):
    """The call being answered ended (every seat placed it, or its deadline passed)."""


def _progress(status: RoundStatus) -> tuple[int, int, int, int]:
    """How far a round has got: no later status of it is behind (a stale answer may be)."""
    phase = ("waiting", "playing", "finished").index(status.status)
    return phase, -1 if status.call is None else status.call, status.placed, status.seats


class _RoundWatch:
    """A lockstep round as its calls' long poll tells it, followed in a thread of its own.

    Each answer (a new call at once, else the round as it stands after ``WATCH_WAIT``
    seconds) is kept and wakes :meth:`wait`, so the terminal shows what the round does as
    it does it, whatever the player is typing. ``client`` is the watch's own: the player's
    moves go through the seat's.
    """

    def __init__(self, client: Client, seat: Round) -> None:
        self._client = client
        self._seat = seat
        self._lock = threading.Lock()
        self._status = seat.status()
        self._seen = time.monotonic()
        self.cards: dict[int, str | None] = {}
        """The card of every call seen, by index (``None``: reserve-poker's turns)."""
        self._failed: Exception | None = None
        self._wake, self._waker = os.pipe()
        os.set_blocking(self._waker, False)
        self._holders = 2
        """The threads using the pipe (this one until the block ends, and the watch's):
        the last to let go closes it, so nobody waits for a long poll to end."""
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="round-watch", daemon=True)

    def __enter__(self) -> _RoundWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._let_go()

    def _let_go(self) -> None:
        """One thread is done with the pipe; the last closes it."""
        with self._lock:
            self._holders -= 1
            last = self._holders == 0
        if last:
            os.close(self._wake)
            os.close(self._waker)

    def _follow(self) -> None:
        """The watch's thread: the calls until the round ends, or the block does."""
        try:
            self._follow_calls()
        except Exception as error:  # raised in the main thread, by wait
            if not self._stopping.is_set():
                self._failed = error
                self._poke()
        finally:
            self._let_go()

    def _follow_calls(self) -> None:
        seat, after = self._seat, -1
        while not self._stopping.is_set():
            answer = self._client.round_calls(
                seat.tournament_id, seat.round, after=after, wait=WATCH_WAIT, token=seat.game.token
            )
            after = max([after, *(call.index for call in answer.calls)])
            self.take(answer.status, answer.calls)
            if answer.status.status == "finished":
                return

    def _poke(self) -> None:
        with contextlib.suppress(BlockingIOError):  # a full pipe wakes the reader already
            os.write(self._waker, b".")

    def take(self, status: RoundStatus, calls: Sequence[Call] = ()) -> None:
        """Keep ``status`` unless a later one is kept already, and wake :meth:`wait`.

        The cards of ``calls`` and of the status's call are kept too.
        """
        with self._lock:
            for call in calls:
                self.cards[call.index] = call.card
            if _progress(status) >= _progress(self._status):
                self._status, self._seen = status, time.monotonic()
                if status.call is not None:
                    self.cards[status.call] = status.card
        self._poke()

    @property
    def status(self) -> RoundStatus:
        """The round as last told."""
        with self._lock:
            return self._status

    def past(self, call: int | None) -> bool:
        """Whether the round has gone on from ``call``: the next card called, or the end."""
        status = self.status
        return status.status == "finished" or status.call != call

    def left(self) -> float | None:
        """Seconds to the called card's deadline, by the server's clock (None if none)."""
        with self._lock:
            status, seen = self._status, self._seen
        if status.status != "playing" or status.seconds_left is None:
            return None
        return max(0.0, status.seconds_left - (time.monotonic() - seen))

    def wait(self, timeout: float, reading: int | None = None) -> bool:
        """Until the round changes, ``timeout`` passes or file ``reading`` has input: if it has.

        A failure of the watch is raised here, in the thread that waits.
        """
        files = [self._wake] if reading is None else [self._wake, reading]
        ready, _, _ = select.select(files, [], [], timeout)
        if self._wake in ready:
            os.read(self._wake, 4096)
        if self._failed is not None:
            raise self._failed
        return reading in ready


class _Screen:
    """A live round's terminal: lines said, one line redrawn below them, keys read as typed.

    At a terminal (input and output ttys, ``TERM`` set and not ``dumb``) that line is
    rewritten whenever it changes, its clock every second, and keys are read one at a time
    and shown on it (the terminal does not echo them), so it can change under what is being
    typed. Elsewhere (a pipe, a file, a dumb terminal) a status line is written when its
    text changes, and the input is read a line at a time.
    """

    def __init__(self, term: Terminal, watch: _RoundWatch) -> None:
        self.term = term
        self.watch = watch
        self.fd = term.input.fileno()
        self.keyboard = term.input.isatty()
        """Whether a person types the input (a script's is typed ahead)."""
        self.live = (
            self.keyboard
            and term.output.isatty()
            and os.environ.get("TERM", "dumb") not in {"", "dumb"}
        )
        self._line: str | None = None
        """The unfinished line under the cursor (None: the cursor starts a line)."""
        self._asking = False
        """Whether that line is a question (kept when it ends; a status line is erased)."""
        self._said: str | None = None
        """Not live: the status line written last, written again only once it changes."""
        self._typed = ""
        self._unread = ""
        """What was read and not yet taken."""
        self._ended = False
        """The input has ended (or ^D was typed on an empty line)."""
        self._escape = 0
        """An escape sequence (an arrow key) being skipped: 1 after ESC, 2 within it."""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._saved: list[Any] | None = None

    def __enter__(self) -> _Screen:
        if self.live:
            import termios

            self._saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ECHO | termios.ICANON)  # each key as typed, shown by the line
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()
        if self._saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def hold(self, text: str) -> None:
        """Show ``text`` on the status line until the round changes or the clock ticks."""
        if self.live:
            self._draw(self._clock() + text)
        elif text != self._said:
            self.term.say(self._clock() + text)
            self._said = text
        self.watch.wait(self._tick())

    def end(self) -> None:
        """End the line under the cursor, so that what follows starts a line of its own.

        A question stays on screen; a status line is erased (it would soon be out of date).
        """
        if self._line is not None:
            erase = self.live and not self._asking
            self.term.output.write("\r\x1b[K" if erase else "\n")
            self.term.output.flush()
        self._line, self._asking, self._said = None, False, None

    def ask(self, prompt: str, over: Callable[[], bool]) -> str | None:
        """The player's line, the clock before ``prompt`` ticking; None at the end of the input.

        Raises :class:`_CallOver` once ``over()``, without waiting for the line.
        """
        self.end()
        self._asking = True
        if self.keyboard:
            self._forget()
        if not self.live:
            self._line = self._clock() + prompt
            self.term.output.write(self._line)
            self.term.output.flush()
        while (line := self._take()) is None and not self._ended:
            if over():
                self.end()
                self._typed = ""  # it was meant for the card that is gone
                raise _CallOver
            if self.live:
                self._draw(self._clock() + prompt, self._typed)
            if self.watch.wait(self._tick(), self.fd):
                self._fill()
        if line is not None and self.live:
            self._draw(self._clock() + prompt, line)
        elif line is not None:
            if self.term.echo:  # a script's moves show in the transcript
                self.term.output.write(line + "\n")
            self._line = None  # the line typed ended it
        self.end()
        return line

    def _forget(self) -> None:
        """Drop the keys pressed before the question: they cannot be meant for its card."""
        import termios

        termios.tcflush(self.fd, termios.TCIFLUSH)
        self._unread = ""

    def _clock(self) -> str:
        """The seconds left to place the called card, as a line starts with them."""
        left = self.watch.left()
        return "" if left is None else f"[{math.ceil(left):>3} s left] "

    def _tick(self) -> float:
        """Seconds until the clock shows the next second (one, without a clock)."""
        left = self.watch.left()
        return 1.0 if not left else left - math.ceil(left) + 1.005

    def _draw(self, text: str, typed: str = "") -> None:
        """Rewrite the live line: ``text``, then as much of ``typed`` as fits, the cursor last."""
        room = shutil.get_terminal_size().columns - 1 - len(_STYLE.sub("", text))
        line = text + (typed[-room:] if room > 0 else "")
        if line != self._line:
            self.term.output.write(f"\r{line}\x1b[K")
            self.term.output.flush()
            self._line = line

    def _fill(self) -> None:
        """Take in what the input holds now (it is ready: this does not wait)."""
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the terminal is gone
            data = b""
        if not data:
            self._ended = True
        self._unread += self._decoder.decode(data, final=not data)

    def _take(self) -> str | None:
        """A whole line of what was read, if there is one (at a terminal, keys edit it)."""
        if not self.live:
            line, newline, rest = self._unread.partition("\n")
            if not newline and not (self._ended and line):
                return None
            self._unread = rest
            return line
        while self._unread:
            key, self._unread = self._unread[0], self._unread[1:]
            if self._key(key):
                line, self._typed = self._typed, ""
                return line
        return None

    def _key(self, key: str) -> bool:
        """Edit the typed line with one key; whether the key ends it (Enter)."""
        if self._escape == 1:  # after ESC: [ or O opens a sequence (an arrow key)
            self._escape = 2 if key in "[O" else 0
            return False
        if self._escape == 2:  # skipped to its final byte (A for the up arrow)
            self._escape = 0 if "@" <= key <= "~" else 2
            return False
        if key == "\x1b":
            self._escape = 1
        elif key in "\r\n":
            return True
        elif key in "\x7f\b":
            self._typed = self._typed[:-1]
        elif key == "\x15":  # ^U: the whole line
            self._typed = ""
        elif key == "\x17":  # ^W: the last word
            self._typed = re.sub(r"\S*\s*$", "", self._typed)
        elif key == "\x04" and not self._typed:  # ^D on an empty line: the end of the input
            self._ended = True
        elif key.isprintable():
            self._typed += key
        return False


def run_round(
    client: Client,
    follower: Client,
    tournament_id: str,
    round_number: int,
    token: str,
    server_url: str,
    receipt_out: str | None,
    entry_file: str | None = None,
) -> int:
    """The entrant's seat in a lockstep round, live (``cardproof play --tournament``).

    ``entry_file``: the entry named with ``--entry-file``, named again in the next round's
    command (none: the entry is found where ``tournament enter`` writes it).

    ``follower`` follows the round (:class:`_RoundWatch`) while ``client`` plays. Returns
    as :func:`run` does: 0 scored, its receipt written; 1 the player left
    the seat, the game was not scored, or the server refused the seat (a closed
    tournament, say); 2 the server could not be used.
    """
    term = Terminal(sys.stdin, sys.stdout, None)
    try:
        seat = client.join_round(tournament_id, round_number, token)
        game, session = seat.game, session_for(seat.game, term)  # a variant it knows
        title = variant_class(game.variant).title
    except CardproofError as error:
        term.say(f"cannot take a seat in round {round_number}: {printable(str(error))}")
        return 1 if isinstance(error, APIError) else 2
    term.say(f"cardproof play: round {round_number} of tournament {tournament_id}, {title}")
    term.paragraph(
        "Lockstep: each card is called to every seat at once, once all have placed the one "
        "before or its deadline passed; a card you leave is placed for you at its deadline. "
        "Type ? for help, q to leave the seat."
    )
    try:
        with _RoundWatch(follower, seat) as watch, _Screen(term, watch) as screen:
            finished = _play_calls(client, seat, session, watch, screen)
    except KeyboardInterrupt:
        finished = False
    except CardproofError as error:
        term.say(f"the server failed: {printable(str(error))}")
        return 2
    if not finished:
        term.say(f"Left the seat after {game.next_index} of the round's cards;")
        term.say("  the rest are placed for you as their deadlines pass.")
        return 1
    session.final()
    if game.score is None:
        return 1
    shown = show_receipt(client, game, term, server_url, receipt_out)
    _tell_next(client, term, tournament_id, round_number, token, server_url, entry_file)
    return shown


def _tell_next(
    client: Client,
    term: Terminal,
    tournament_id: str,
    round_number: int,
    token: str,
    url: str,
    entry_file: str | None = None,
) -> None:
    """What the player can do next: the standings page, and the next round's seat.

    The tournament is read with the entrant's token; if it cannot be, the standings
    page alone is named.
    """
    tid = printable(tournament_id)
    term.say(f"Standings: {printable(url.rstrip('/'))}/tournaments/{tid}")
    try:
        tournament = client.tournament(tournament_id, token=token)
    except CardproofError:
        return
    if tournament.status != "closed" and round_number < len(tournament.rounds):
        term.say(
            f"Round {round_number + 1} of {len(tournament.rounds)}: take your seat before it "
            "starts (nobody is seated once it has):"
        )
        named = f" --entry-file {shlex.quote(printable(entry_file))}" if entry_file else ""
        term.say(
            f"  cardproof play --tournament {tid} --round {round_number + 1} --url {url}{named}"
        )
    elif tournament.status != "closed":
        term.say("That was the last round: the standings are final once the tournament closes.")


def _play_calls(
    client: Client, seat: Round, session: Session, watch: _RoundWatch, screen: _Screen
) -> bool:
    """The round's calls as they come, until the game is over (True) or the player leaves.

    What the round does shows as it happens: the seats taken before the start, the clock
    while the player types, how many seats have still to place the card once the player
    has, each card the server placed for the player when its deadline passed, and a close
    of the tournament that ended the round early (said once, with the cards it placed).
    """
    game, term = seat.game, session.term
    told = game.next_index  # the moves before it: the player's, or said to be placed for them
    shown: int | None = None  # the call on screen
    while not game.finished:
        status = watch.status
        if status.status == "waiting":
            at = status.starts_at
            starts = f" (it starts by itself at {printable(at)})" if at else ""
            screen.hold(f"Seated: {status.seats} so far; waiting for the start{starts}...")
        elif watch.past(shown):  # a new call, or the end: the game is read again
            screen.end()
            seat.sync()
            if status.status == "finished" and status.closed:
                told = _tell_closed(client, session, status, told)
            told = _tell_placed(session, watch, told)
            if game.finished or status.status == "finished":
                break
            if shown is None:
                term.say(f"The round is on: {plural(status.seats, 'seat')} taken.")
            session.show()
            shown = status.call
        elif status.call == game.next_index:  # the player's card
            try:
                answer = screen.ask(session.prompt(), functools.partial(watch.past, shown))
            except _CallOver:
                continue
            if answer is None or answer.strip().lower() in QUIT:
                return False
            command = answer.strip().lower()
            if command in HELP:
                term.paragraph(HELP_TEXT[game.variant], indent="  ")
                term.paragraph(SEAT_HELP, indent="  ")
            elif command and not session.command(command):
                if _place(session, answer):
                    told = game.next_index
                watch.take(seat.status())  # the round after the move, without waiting
        else:  # placed: the other seats are placing theirs
            waiting = status.seats - status.placed
            screen.hold(f"placed; waiting for {waiting} of {status.seats}")
    return True


def _place(session: Session, answer: str) -> bool:
    """Send the player's move; whether it was placed (if not, the reason was said).

    A move that came after its card's deadline finds the card placed by the server: that
    is said with the others (:func:`_tell_placed`) once the round goes on.
    """
    try:
        return session.play(answer)
    except ConflictError as error:
        if error.code not in LATE:
            raise
        return False


def _tell_closed(client: Client, session: Session, status: RoundStatus, told: int) -> int:
    """Say, once, that the tournament's close ended the round; the next move to tell.

    The moves from ``told`` on were placed by the server at the close (or at deadlines
    just before it), to finish the game: they are told as one, not as timeouts.
    """
    game, term = session.game, session.term
    try:
        shown = client.tournament(status.tournament_id, token=game.token)
        organizer = shown.closed_at is not None
    except CardproofError:
        organizer = None
    who = {
        True: "The organizer closed the tournament",
        False: "The tournament reached its closing time",
        None: "The tournament closed",
    }[organizer]
    left = game.next_index - told
    placed = (
        f" The server placed your remaining {plural(left, 'card')} to finish your game, each "
        "at the first place the rules allow."
        if left
        else ""
    )
    term.say()
    term.paragraph(
        f"{who}: round {status.round} ended after {status.called} of its {status.calls} cards "
        f"were called.{placed}"
    )
    if left:
        session.moved()
    return game.next_index


def _tell_placed(session: Session, watch: _RoundWatch, told: int) -> int:
    """Say where each move from ``told`` on was placed for the player; the next to tell.

    Those moves are the server's: their cards' deadlines passed before the player moved.
    The board takes them in.
    """
    game, term = session.game, session.term
    for index in range(told, game.next_index):
        card = watch.cards.get(index)
        shown = term.card(card) if card else f"card {index + 1}"
        term.say(f"Time's up: {shown} was placed for you at {printable(game.played.moves[index])}")
    if told < game.next_index:
        session.moved()
    return game.next_index
