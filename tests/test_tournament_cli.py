"""``cardproof tournament ...`` and ``cardproof verify`` of tournament receipts, end to end,
and a lockstep round played with ``cardproof play --tournament`` at a terminal.

One real ``cardproof serve`` (memory store) for the module; its organizer is made with
``cardproof keys organizer create`` into the organizers file the server reads.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

import cardproof.play.round as round_module
from cardproof.cli.common import entries_dir, private_entries_dir
from cardproof.client import Client, Round
from cardproof.models import TournamentCreated
from cardproof.play.shared import Terminal as PlayTerminal
from cardproof.words import card_label
from conftest import TEST_KEYS, free_port, served
from test_cli_pty import Terminal

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


def cardproof(
    *args: str,
    key: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``cardproof``, with ``key`` as ``CARDPROOF_ORGANIZER_KEY`` when given.

    ``env`` adds to the environment (``XDG_STATE_HOME``: where entries go).
    """
    environ = {k: v for k, v in os.environ.items() if k != "CARDPROOF_ORGANIZER_KEY"}
    if key is not None:
        environ["CARDPROOF_ORGANIZER_KEY"] = key
    command = [str(Path(sys.executable).parent / "cardproof"), *args]
    return subprocess.run(
        command, capture_output=True, text=True, env={**environ, **(env or {})}, timeout=60, cwd=cwd
    )


@pytest.fixture(scope="module")
def organizers_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The module server's store settings: the memory store, an organizers file of its own."""
    return {
        "CARDPROOF_ORGANIZERS_FILE": str(tmp_path_factory.mktemp("store") / "organizers.json"),
        "REDIS_URL": "",
    }


def new_organizer_key(organizers_env: dict[str, str], name: str) -> str:
    """``cardproof keys organizer create NAME`` into the module server's organizers file."""
    command = [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create"]
    made = subprocess.run(
        [*command, name], capture_output=True, text=True, env={**os.environ, **organizers_env}
    )
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


@pytest.fixture(scope="module")
def server(organizers_env: dict[str, str]) -> Iterator[tuple[str, str]]:
    """A served memory-store server and an organizer key it knows: ``(url, key)``."""
    key = new_organizer_key(organizers_env, "CLI Club")
    with served("--log-level", "warning", env=organizers_env) as url:
        yield url, key


def in_an_hour() -> str:
    return (datetime.now(UTC) + timedelta(hours=1)).isoformat()


def open_for_an_hour(client: Client, name: str, **settings: Any) -> TournamentCreated:
    """A poker-squares tournament open from now for an hour, as ``client`` creates it with
    ``settings`` (rounds, format, entry...)."""
    now = datetime.now(UTC)
    return client.create_tournament(
        name, "poker-squares", opens_at=now, closes_at=now + timedelta(hours=1), **settings
    )


def tournament_id(output: str) -> str:
    """The id from a printed tournament (its first line: ``tournament  ID``)."""
    label, tid = output.splitlines()[0].split()
    assert label == "tournament"
    return tid


def test_an_organizer_runs_a_tournament_and_a_player_verifies_after_the_close(
    server: tuple[str, str], tmp_path: Path
) -> None:
    url, key = server
    create = [
        *("tournament", "create", "CLI Open", "--variant", "poker-squares", "--rounds", "2"),
        *("--opens", "now", "--closes", in_an_hour(), "--url", url),
        *("--options", '{"scoring": "british"}', "--max-entrants", "5"),
    ]
    created = cardproof(*create, key=key)
    assert created.returncode == 0, created.stderr
    tid = tournament_id(created.stdout)
    assert created.stdout.count("(revealed at the close)") == 2
    assert "invite code" not in created.stdout
    shown = cardproof("tournament", "show", tid, "--url", url)  # public: no key needed
    assert shown.returncode == 0, shown.stderr
    assert "status      open" in shown.stdout
    assert "at most 5 entrants" in shown.stdout

    assert "format      lockstep: every card called to all seats at once, 60 s" in shown.stdout
    with Client(base_url=url) as player:
        tokens = {name: player.enter(tid, name).token for name in ("Ada", "Bea")}
        seats = {name: player.join_round(tid, 1, token) for name, token in tokens.items()}
        waiting = cardproof("tournament", "round", tid, "1", "--url", url)
        assert waiting.stdout.strip() == "round 1: waiting, 2 seated"
        started = cardproof("tournament", "start", tid, "1", "--url", url, key=key)
        assert started.returncode == 0, started.stderr
        assert "round 1: playing, 2 seated; card 1 of 25" in started.stdout
        assert "0 of 2 placed it" in started.stdout
        assert "entries     open until round 1 starts" in shown.stdout
        after = cardproof("tournament", "show", tid, "--url", url)
        assert re.search(r"entries     closed at \S+Z, when round 1 started", after.stdout)
        late = cardproof(
            *("tournament", "enter", tid, "--name", "Cy", "--url", url),
            *("--entry-file", str(tmp_path / "late.json")),
        )
        assert late.returncode != 0
        assert "entries-closed" in late.stderr + late.stdout
        assert "entries closed when round 1 started" in late.stderr + late.stdout
        assert not (tmp_path / "late.json").exists()  # no file left for a refused entry
        calls = {name: seat.calls() for name, seat in seats.items()}
        for index in range(25):
            for name, cells in (("Ada", CELLS), ("Bea", CELLS[::-1])):
                assert next(calls[name]).index == index
                seats[name].play(cells[index])
        scores = {}
        for name, seat in seats.items():
            assert seat.game.score is not None
            scores[name] = seat.game.score.total
        receipt = tmp_path / "ada.jws"
        receipt.write_text(seats["Ada"].game.receipt().receipt)
    early = cardproof("verify", str(receipt), "--url", url)
    assert early.returncode == 3, early.stderr  # the signature only: not a pass
    assert "still open" in early.stdout
    assert "only the signature, the salt, variant and options were checked" in early.stdout

    standings = cardproof("tournament", "standings", tid, "--url", url)
    assert standings.returncode == 0, standings.stderr
    assert ", 2 rounds, 2 entrants" in standings.stdout.splitlines()[0]
    rows = {line.split()[1]: line.split() for line in standings.stdout.splitlines()[2:]}
    assert rows["Ada"][2:] == [str(scores["Ada"]), "1"]  # games finished, as the page says
    assert rows["Bea"][2:] == [str(scores["Bea"]), "1"]
    ranked = [line.split()[1] for line in standings.stdout.splitlines()[2:]]
    assert ranked == sorted(rows, key=lambda name: (-scores[name], name))  # by rank

    closed = cardproof("tournament", "close", tid, "--url", url, key=key)
    assert closed.returncode == 0, closed.stderr
    assert "status      closed" in closed.stdout
    assert "(revealed at the close)" not in closed.stdout
    again = cardproof("tournament", "close", tid, "--url", url, key=key)
    assert again.returncode == 1
    assert "refused (409 closed)" in again.stderr

    mine = cardproof("tournament", "standings", tid, "--player", "Ada", "--url", url)
    assert mine.returncode == 0, mine.stderr
    # the pars are solved once the results settle: pending, or known by now on a slow run
    assert re.search(
        rf"games of Ada:\n  round 1: {scores['Ada']} \((-|\d+\.\d%) of par\)\n$", mine.stdout
    ), mine.stdout
    nobody = cardproof("tournament", "standings", tid, "--player", "Cy", "--url", url)
    assert nobody.returncode == 1
    assert "refused (404 unknown-entrant)" in nobody.stderr

    export = tmp_path / "export.json"
    exported = cardproof("tournament", "export", tid, "-o", str(export), "--url", url)
    assert exported.returncode == 0, exported.stderr
    checked = cardproof("verify", "--tournament", str(export), "--url", url)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "verified: 2 games" in checked.stdout
    assert f"against the server's key set ({url}/.well-known/jwks.json)" in checked.stdout

    late = cardproof("verify", str(receipt), "--url", url)  # the receipt saved before the close
    assert late.returncode == 0, late.stdout + late.stderr
    assert f"verified: poker-squares, score {scores['Ada']}" in late.stdout
    assert "replayed with round 1's server seed" in late.stdout
    card = r"(?:10|[2-9JQKA])[♣♦♥♠]"  # as the page shows a card, not the API's TC
    assert re.search(rf"(?m)^  row 1 +(?:{card} ){{4}}{card} ", late.stdout), late.stdout


def test_invite_codes_and_refusals(server: tuple[str, str], tmp_path: Path) -> None:
    url, key = server
    create = [
        *("tournament", "create", "Invitational", "--variant", "poker-squares"),
        *("--rounds", "1", "--opens", "now", "--closes", in_an_hour(), "--invite", "--url", url),
    ]
    created = cardproof(*create, key=key)
    assert created.returncode == 0, created.stderr
    code = created.stdout.splitlines()[-1].removeprefix("invite code ")
    tid = tournament_id(created.stdout)
    with Client(base_url=url) as player:
        entry = player.enter(tid, "Ada", invite_code=code)
        token = entry.token
        game = player.play_round(tid, 1, token)
        refused = cardproof("tournament", "start", tid, "1", "--url", url)
        assert refused.returncode == 2  # no organizer key
        assert cardproof("tournament", "start", tid, "1", "--url", url, key=key).returncode == 0
        for cell in CELLS:
            game.play(cell)
        receipt = game.receipt()
    saved = tmp_path / "ada.jws"
    saved.write_text(receipt.receipt)
    elsewhere = msgspec.structs.replace(receipt.payload, server_seed_hash="00" * 32)
    forged = tmp_path / "forged.jws"
    forged.write_text(TEST_KEYS.signing.sign(elsewhere))  # the server's key, another deal
    nowhere = {"XDG_STATE_HOME": str(tmp_path / "no-entries")}
    blind = cardproof("verify", str(saved), "--url", url, env=nowhere)  # no entry on disk
    assert blind.returncode == 3, blind.stdout + blind.stderr  # the signature only
    assert "could not be read" in blind.stdout
    assert f"tournament {tid} is invite-only: verify reads it with your entry" in blind.stderr
    assert "--entry-file FILE" in blind.stderr  # what to pass, in plain words
    assert "organizer key" not in blind.stdout + blind.stderr  # never, to a player
    # the entry cardproof tournament enter would have written: verify finds it by itself
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state)}
    entries = state / "cardproof" / "entries"
    entries.mkdir(parents=True, mode=0o700)
    entry_file = entries / f"cardproof-entry-{tid}.json"
    entry_file.write_bytes(msgspec.json.encode(entry))
    entry_file.chmod(0o600)
    early = cardproof("verify", str(saved), "--url", url, env=env)
    assert early.returncode == 3, early.stdout + early.stderr  # open: no seed to replay yet
    assert "still open" in early.stdout  # but the tournament was read, with the entry
    assert "could not be read" not in early.stdout
    shown = cardproof("tournament", "show", tid, "--url", url, env=env)  # read with it too
    assert shown.returncode == 0, shown.stderr
    assert "     1  Ada " in shown.stdout
    stray = cardproof("verify", str(forged), "--url", url, key=key)
    assert stray.returncode == 1
    assert "NOT VERIFIED (not-in-tournament)" in stray.stdout
    assert cardproof("tournament", "show", tid, "--url", url, key=key).returncode == 0
    unread = cardproof("tournament", "show", tid, "--url", url, env=nowhere)  # no entry
    assert unread.returncode == 1
    assert f"{tid} is invite-only: an entrant reads it with their entry" in unread.stderr

    no_key = cardproof(*create)
    assert no_key.returncode == 2
    assert "CARDPROOF_ORGANIZER_KEY" in no_key.stderr
    impostor = cardproof(*create, "--key", key[:-4] + "AAAA")
    assert impostor.returncode == 1
    assert "this organizer key is not known" in impostor.stderr
    naive = cardproof(*create[:-2], "--closes", "2030-01-01T00:00", key=key)
    assert naive.returncode == 2
    assert "time zone" in naive.stderr
    nobody = cardproof("tournament", "show", tid, "--url", f"http://127.0.0.1:{free_port()}")
    assert nobody.returncode == 2
    assert "cannot reach" in nobody.stderr
    assert cardproof("tournament", "close", tid, "--url", url, key=key).returncode == 0
    organizer = cardproof("verify", str(saved), "--url", url, key=key)
    assert organizer.returncode == 0, organizer.stdout + organizer.stderr
    assert "replayed with round 1's server seed" in organizer.stdout
    mine = cardproof("verify", str(saved), "--url", url, env=env)  # the player's own entry
    assert mine.returncode == 0, mine.stdout + mine.stderr
    assert "replayed with round 1's server seed" in mine.stdout
    assert "the closed tournament's standings count it: Ada, round 1" in mine.stdout
    named = cardproof(
        *("verify", str(saved), "--url", url, "--entry-file", str(entry_file)), env=nowhere
    )
    assert named.returncode == 0, named.stdout + named.stderr
    export = tmp_path / "export.json"
    exported = cardproof("tournament", "export", tid, "-o", str(export), "--url", url, env=env)
    assert exported.returncode == 0, exported.stderr  # read with the entry: no organizer key
    checked = cardproof("verify", "--tournament", str(export), "--url", url, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_player_enters_from_the_command_line_and_keeps_the_token(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """``tournament enter``: the entry goes to a new owner-only file, never over another,
    and a refused entry leaves no file behind; the kept token plays the player's games."""
    url, key = server
    create = [
        *("tournament", "create", "Walk-in Cup", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", in_an_hour(), "--invites", "2", "--url", url),
    ]
    created = cardproof(*create, key=key)
    assert created.returncode == 0, created.stderr
    tid = tournament_id(created.stdout)
    codes = [line.split()[-1] for line in created.stdout.splitlines() if "invite code" in line]
    assert len(codes) == 2
    entry_file = tmp_path / "ada.json"
    entered = cardproof(
        *("tournament", "enter", tid, "--name", "Ada", "--invite", codes[0]),
        *("--entry-file", str(entry_file), "--url", url),
    )
    assert entered.returncode == 0, entered.stderr
    assert str(entry_file) in entered.stdout
    assert entry_file.stat().st_mode & 0o777 == 0o600
    kept = msgspec.json.decode(entry_file.read_bytes())
    assert (kept["tournament_id"], kept["name"]) == (tid, "Ada")
    assert kept["token"] not in entered.stdout  # on disk only
    assert entered.stdout.splitlines()[:3] == [  # plain sentences
        f'Entered {tid} as "Ada" (entrant {kept["entrant_id"]}).',
        f"Your entry is saved in {entry_file}. Keep that file: its token is shown nowhere else.",
        f"The token opens your games until the tournament closes ({kept['expires_at']}).",
    ]
    with Client(base_url=url) as player:
        game = player.play_round(tid, 1, kept["token"])
        assert game.visible.next is None  # type: ignore[union-attr]  # seated, not yet called

    again = cardproof(
        *("tournament", "enter", tid, "--name", "Bea", "--invite", codes[1]),
        *("--entry-file", str(entry_file), "--url", url),
    )
    assert again.returncode == 2
    assert "exists" in again.stderr
    assert msgspec.json.decode(entry_file.read_bytes())["name"] == "Ada"  # untouched

    refused_file = tmp_path / "bea.json"
    refused = cardproof(
        *("tournament", "enter", tid, "--name", "Bea", "--invite", codes[0]),  # used already
        *("--entry-file", str(refused_file), "--url", url),
    )
    assert refused.returncode == 1, refused.stderr
    assert "refused" in refused.stderr
    assert not refused_file.exists()


def test_a_player_plays_a_lockstep_round_live_from_the_command_line(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """``cardproof play --tournament ID --round N``: seated, waits for the start, then
    places each card as it is called, with the seconds left shown; the receipt is kept."""
    url, key = server
    create = [
        *("tournament", "create", "Live Cup", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", in_an_hour(), "--card-seconds", "600", "--url", url),
    ]
    created = cardproof(*create, key=key)
    assert created.returncode == 0, created.stderr
    tid = tournament_id(created.stdout)
    links = dict(
        line.split()[:2] for line in created.stdout.splitlines() if line[:4] in ("join", "stan")
    )
    assert links == {
        "join": f"{url}/play?tournament={tid}",
        "standings": f"{url}/tournaments/{tid}",
    }
    for link in links.values():  # what the organizer sends the players opens
        assert httpx.get(link).status_code == 200, link
    entry_file = tmp_path / "ada.json"
    entered = cardproof(
        "tournament", "enter", tid, "--name", "Ada", "--entry-file", str(entry_file), "--url", url
    )
    assert entered.returncode == 0, entered.stderr
    lines = entered.stdout.splitlines()
    told = next(n for n, line in enumerate(lines) if line.startswith("Next: take your seat"))
    assert lines[told].startswith("Next: take your seat in round 1 of 1 now")
    printed = shlex.split(lines[told + 1])  # the command, on a line of its own
    assert printed == [
        *("cardproof", "play", "--tournament", tid, "--round", "1", "--url", url),
        *("--entry-file", str(entry_file)),  # named, as it is not where enter puts entries
    ]
    receipt = tmp_path / "ada.jws"
    command = [  # the command the entry printed, as the player types it
        str(Path(sys.executable).parent / "cardproof"),
        *printed[1:],
        *("--receipt-out", str(receipt)),
    ]
    assert f"{url}/tournaments/{tid}" in entered.stdout
    env = dict(os.environ)
    player = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    with Client(base_url=url) as watcher:
        deadline = time.monotonic() + 20
        while watcher.round_status(tid, 1).seats < 1:  # the player's seat is taken
            assert time.monotonic() < deadline, "no seat was taken"
            time.sleep(0.1)
        assert cardproof("tournament", "start", tid, "1", "--url", url, key=key).returncode == 0
    out, err = player.communicate("\n".join(CELLS).encode() + b"\n", timeout=60)
    text = out.decode()
    assert player.returncode == 0, text + err.decode()
    assert "Seated: 1 so far; waiting for the start..." in text
    assert "The round is on: 1 seat taken." in text
    assert "s left] Place" in text
    assert "\x1b" not in text  # not a terminal: plain lines, no escapes
    assert "\r" not in text  # and no line redrawn
    assert "Final score:" in text
    assert receipt.exists()
    checked = cardproof("verify", str(receipt), "--url", url)
    assert checked.returncode == 3, checked.stdout + checked.stderr  # the signature only
    assert "still open" in checked.stdout


def at_the_table(
    server: tuple[str, str], tmp_path: Path, card_seconds: int
) -> tuple[str, Terminal]:
    """A lockstep tournament with ``card_seconds`` a card, and Ada entered (``tournament
    enter``) and playing its round 1 at a terminal: ``(tournament id, her terminal)``."""
    url, key = server
    with Client(base_url=url, api_key=key) as organizer:
        created = open_for_an_hour(
            organizer, "Table Cup", rounds=1, format="lockstep", card_seconds=card_seconds
        )
    tid = created.tournament.tournament_id
    entry = str(tmp_path / "ada.json")
    entered = cardproof(
        "tournament", "enter", tid, "--name", "Ada", "--entry-file", entry, "--url", url
    )
    assert entered.returncode == 0, entered.stderr
    play = ("play", "--tournament", tid, "--round", "1", "--entry-file", entry, "--url", url)
    return tid, Terminal(*play, cwd=tmp_path, term="xterm")


def seat(player: Client, tid: str, name: str) -> Round:
    """``name`` entered and seated in round 1."""
    return player.join_round(tid, 1, player.enter(tid, name).token)


def start(server: tuple[str, str], tid: str) -> str | None:
    """Start round 1 (as the organizer): the card called first."""
    url, key = server
    with Client(base_url=url, api_key=key) as organizer:
        return organizer.start_round(tid, 1).card


def clock(shown: str) -> int:
    """The seconds on the clock drawn last in ``shown``, which ends with it (``[  3 s left]
    Place``); the line is redrawn in place (``\\r``), not written again below."""
    _, redrawn, line = shown.rpartition("\r")
    assert redrawn, shown
    return int(line.removeprefix("[").split()[0])


def test_the_seats_taken_count_up_while_the_round_waits(
    server: tuple[str, str], tmp_path: Path
) -> None:
    tid, terminal = at_the_table(server, tmp_path, card_seconds=60)
    try:
        terminal.expect("Seated: 1 so far; waiting for the start...")
        with Client(base_url=server[0]) as player:
            seat(player, tid, "Bea")
            terminal.expect("Seated: 2 so far; waiting for the start...")  # no key pressed
            terminal.type("e5")  # before any card is shown: dropped, not played on the first
            start(server, tid)
            terminal.expect("The round is on: 2 seats taken.")
            terminal.expect("s left] Place ")
            terminal.type("q")
            terminal.expect("Left the seat after 0 of the round's cards;")
            assert terminal.close() == 1
    finally:
        terminal.kill()


def test_the_clock_ticks_while_the_player_thinks(server: tuple[str, str], tmp_path: Path) -> None:
    tid, terminal = at_the_table(server, tmp_path, card_seconds=10)
    try:
        terminal.expect("Seated: 1 so far")
        start(server, tid)
        first = clock(terminal.expect("s left] Place "))
        second = clock(terminal.expect("s left] Place "))  # a second later, nothing typed
        assert 10 >= first > second > 0
        terminal.type("q")
        terminal.expect("Left the seat after ")
        assert terminal.close() == 1
    finally:
        terminal.kill()


def test_the_seats_still_to_place_a_card_count_down(
    server: tuple[str, str], tmp_path: Path
) -> None:
    tid, terminal = at_the_table(server, tmp_path, card_seconds=60)
    try:
        terminal.expect("Seated: 1 so far")
        with Client(base_url=server[0]) as player:
            bea, cy = seat(player, tid, "Bea"), seat(player, tid, "Cy")
            terminal.expect("Seated: 3 so far")
            start(server, tid)
            terminal.expect("s left] Place ")
            terminal.type("a1")
            shown = terminal.expect("placed; waiting for 2 of 3")
            assert "of 3" not in shown.removesuffix("2 of 3")  # her own move counted at once
            for other in (bea, cy):
                next(other.calls())
            bea.play("e5")
            terminal.expect("placed; waiting for 1 of 3")  # Bea's move, shown as it came
            cy.play("e5")
            terminal.expect("poker-squares: card 2 of 25")  # all placed: the next call
            terminal.expect("s left] Place ")
            terminal.type("q")
            terminal.expect("Left the seat after 1 of the round's cards;")
            assert terminal.close() == 1
    finally:
        terminal.kill()


def test_a_card_left_is_placed_for_the_player_who_is_told_where(
    server: tuple[str, str], tmp_path: Path
) -> None:
    tid, terminal = at_the_table(server, tmp_path, card_seconds=2)
    try:
        terminal.expect("Seated: 1 so far")
        with Client(base_url=server[0]) as player:
            seat(player, tid, "Bea")  # seated, and idle: the card is not placed by all
            terminal.expect("Seated: 2 so far")
            card = start(server, tid)
            assert card is not None
            terminal.expect("s left] Place ")
            terminal.keys("c")  # a move begun, never sent: the deadline does not wait for it
            shown = card_label(card)  # as the page shows it: 10♣
            terminal.expect(f"Time's up: {shown} was placed for you at a1")
            terminal.expect("[" + shown)  # the board shows it where the server placed it
            terminal.expect("s left] Place ")
            terminal.type("q")
            terminal.expect("Left the seat after ")
            assert terminal.close() == 1
            token = msgspec.json.decode((tmp_path / "ada.json").read_bytes())["token"]
            assert player.join_round(tid, 1, token).game.played.moves[0] == "a1"
    finally:
        terminal.kill()


def test_help_at_the_seat_shows_the_seats_commands_too(
    server: tuple[str, str], tmp_path: Path
) -> None:
    tid, terminal = at_the_table(server, tmp_path, card_seconds=60)
    try:
        terminal.expect("Seated: 1 so far")
        start(server, tid)
        terminal.expect("s left] Place ")
        terminal.type("?")
        terminal.expect("Type a cell: its column letter")  # the variant's help
        terminal.expect("q leaves the seat")  # and the seat's
        terminal.expect("s left] Place ")
        terminal.type("q")
        terminal.expect("Left the seat after 0 of the round's cards;")
        assert terminal.close() == 1
    finally:
        terminal.kill()


def test_a_close_in_mid_round_is_told_once_as_a_close_not_as_timeouts(
    server: tuple[str, str], tmp_path: Path
) -> None:
    url, key = server
    tid, terminal = at_the_table(server, tmp_path, card_seconds=60)
    try:
        terminal.expect("Seated: 1 so far")
        with Client(base_url=url) as player:
            bea = seat(player, tid, "Bea")
            terminal.expect("Seated: 2 so far")
            start(server, tid)
            for index in range(2):
                terminal.expect(f"poker-squares: card {index + 1} of 25")
                terminal.expect("s left] Place ")
                terminal.type(CELLS[index])
                next(bea.calls())
                bea.play(CELLS[index])
            terminal.expect("poker-squares: card 3 of 25")
            closed = cardproof("tournament", "close", tid, "--url", url, key=key)
            assert closed.returncode == 0, closed.stderr
            assert "entries     closed at " in closed.stdout  # round 1 had started
            assert "open until round 1 starts" not in closed.stdout
            told = terminal.expect("Final score:")
            assert told.count("The organizer closed the tournament") == 1, told
            assert "round 1 ended after 3 of its 25 cards were called." in told
            assert "The server placed your remaining 23 cards" in told
            assert "Time's up" not in told
            terminal.expect("Receipt: written to")
            after = terminal.expect(f"Standings: {url}/tournaments/{tid}")
            assert "--round 2" not in after  # closed: no next round to take
            assert terminal.close() == 0
        line = cardproof("tournament", "round", tid, "1", "--url", url)
        assert line.stdout.strip() == (
            "round 1: finished, 2 seated; 3 of 25 cards called, ended early: the tournament closed"
        )

    finally:
        terminal.kill()


def test_close_says_entries_closed_when_round_one_never_started(server: tuple[str, str]) -> None:
    url, key = server
    made = cardproof(
        *("tournament", "create", "Quiet Cup", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", in_an_hour(), "--format", "lockstep", "--url", url),
        key=key,
    )
    assert made.returncode == 0, made.stderr
    assert "entries     open until round 1 starts" in made.stdout
    closed = cardproof("tournament", "close", tournament_id(made.stdout), "--url", url, key=key)
    assert closed.returncode == 0, closed.stderr
    assert "entries     closed with the tournament (round 1 never started)" in closed.stdout


def test_standings_print_each_entrants_share_of_par_and_a_players_games(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In-process (the embedded server), so the pars are solved at the close."""
    import argparse

    from cardproof.bots import RandomPlayer, play_game
    from cardproof.cli import tournament
    from cardproof.play import embedded_client
    from cardproof_service.tournaments import standings as standings_module

    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    with embedded_client(organizer="CLI Club", par_budget=0.2) as client:
        created = open_for_an_hour(
            client, "Par Open", rounds=2, format="async", entry="invite", invites=1
        )
        tid = created.tournament.tournament_id
        token = client.enter(tid, "Ada", invite_code=created.invite_codes[0]).token
        totals = [
            play_game(
                client.play_round(tid, n, token, variant="poker-squares"),
                RandomPlayer(seed=n),
                None,
            ).payload.score.total
            for n in (1, 2)
        ]
        client.close_tournament(tid)
        deadline = time.monotonic() + 60
        while (standings := client.standings(tid)).pars_pending:
            assert time.monotonic() < deadline, standings
            time.sleep(0.1)
        asked = argparse.Namespace(id=tid, player="Ada", token=None)
        assert tournament._standings(client, asked) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["rank", "name", "total", "games", "%", "of", "par"]
    line = standings.entrants[0]
    assert out[2].split() == ["1", "Ada", str(sum(totals)), "2", f"{line.percent_of_par:.1f}%"]
    for par, printed in zip(standings.pars, out[3:5], strict=True):
        proof = "optimal" if par.optimal else f"bound {par.upper_bound}"
        assert printed == f"round {par.round} par {par.score} ({proof}, by the {par.by})"
    assert out[5] == "games of Ada:"
    for number, (total, par, printed) in enumerate(
        zip(totals, standings.pars, out[6:], strict=True), 1
    ):
        assert printed == f"  round {number}: {total} ({100 * total / par.score:.1f}% of par)"


# --- an organizer's list, times, round starts, watching a round, entry files ---------------


def test_an_organizer_lists_their_own_tournaments_page_by_page(
    server: tuple[str, str], organizers_env: dict[str, str]
) -> None:
    url, _ = server
    mine = new_organizer_key(organizers_env, f"Lister {time.time_ns()}")
    rival = new_organizer_key(organizers_env, f"Rival {time.time_ns()}")
    empty = cardproof("tournament", "list", "--url", url, key=mine)
    assert (empty.returncode, empty.stdout) == (0, "no tournaments listed\n")
    ids = []
    for name in ("First Open", "Second Open", "Third Open"):
        made = cardproof(
            *("tournament", "create", name, "--variant", "poker-squares", "--rounds", "1"),
            *("--opens", "now", "--closes", "+1h", "--url", url),
            key=mine,
        )
        assert made.returncode == 0, made.stderr
        ids.append(tournament_id(made.stdout))
    theirs = cardproof(
        *("tournament", "create", "Not Yours", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", "+1h", "--url", url),
        key=rival,
    )
    assert theirs.returncode == 0, theirs.stderr
    first = cardproof("tournament", "list", "--limit", "2", "--url", url, key=mine)
    assert first.returncode == 0, first.stderr
    header, *rows = first.stdout.splitlines()
    assert header.split() == ["tournament", "name", "variant", "status", "window"]
    assert [row.split()[0] for row in rows] == [ids[2], ids[1]]  # newest first
    assert rows[0].split()[1:5] == ["Third", "Open", "poker-squares", "open"]
    assert re.search(r"open +\S+Z to \S+Z$", rows[0])
    more = re.fullmatch(r"more: cardproof tournament list --cursor (\S+) --limit 2\n", first.stderr)
    assert more is not None, first.stderr
    second = cardproof(
        *("tournament", "list", "--limit", "2", "--cursor", more[1], "--url", url), key=mine
    )
    assert [row.split()[0] for row in second.stdout.splitlines()[1:]] == [ids[0]]
    assert second.stderr == ""  # the last page
    every = cardproof("tournament", "list", "--all", "--limit", "1", "--url", url, key=mine)
    assert [row.split()[0] for row in every.stdout.splitlines()[1:]] == ids[::-1]
    assert "Not Yours" not in every.stdout


def test_listing_needs_the_organizer_key_and_a_page_size_it_takes(
    server: tuple[str, str],
) -> None:
    url, key = server
    keyless = cardproof("tournament", "list", "--url", url)
    assert keyless.returncode == 2
    assert "this needs the organizer key" in keyless.stderr
    wrong = cardproof("tournament", "list", "--url", url, key="cpo_0123456789abcdef_" + "A" * 43)
    assert wrong.returncode == 1
    assert "refused (401" in wrong.stderr
    for bad in ("0", "101"):
        too = cardproof("tournament", "list", "--limit", bad, "--url", url, key=key)
        assert (too.returncode, too.stderr) == (
            2,
            "cardproof tournament list: --limit is 1 to 100\n",
        )
    cursor = cardproof("tournament", "list", "--cursor", "nope", "--url", url, key=key)
    assert cursor.returncode == 1
    assert "refused (400" in cursor.stderr
    assert "next_cursor" in cursor.stderr


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "+2x",
        "2030-12-31T18:00:00",
        "tomorrow-1h",
        "+1h+2m",
        "+999999w",
        "",
        "+1h1h",
        "+30m1h",
    ],
)
def test_a_time_neither_iso_with_a_zone_nor_relative_is_an_argument_error(value: str) -> None:
    refused = cardproof(
        *("tournament", "create", "Bad", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", value),
    )
    assert refused.returncode == 2
    assert "error: argument --closes:" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_relative_times_and_round_starts(server: tuple[str, str]) -> None:
    url, key = server
    before = datetime.now(UTC)
    made = cardproof(
        *("tournament", "create", "Timed Cup", "--variant", "poker-squares", "--rounds", "3"),
        *("--opens", "now", "--closes", "+1d", "--round-starts", "+1h,+1h30m"),
        *("--round-starts", "+2h", "--url", url),
        key=key,
    )
    assert made.returncode == 0, made.stderr
    starts = re.search(
        r"^starts      each round by itself: 1 at (\S+), 2 at (\S+), 3 at (\S+)$", made.stdout, re.M
    )
    assert starts is not None, made.stdout
    for shown, hours in zip(starts.groups(), (1, 1.5, 2), strict=True):
        offset = datetime.fromisoformat(shown) - before
        assert timedelta(hours=hours, seconds=-2) <= offset <= timedelta(hours=hours, seconds=5)
    window = re.search(r"^window      (\S+) to (\S+)$", made.stdout, re.M)
    assert window is not None
    assert datetime.fromisoformat(window[2]) - datetime.fromisoformat(window[1]) == timedelta(
        days=1
    )
    round_status = cardproof("tournament", "round", tournament_id(made.stdout), "2", "--url", url)
    shown_start = re.search(r"starts by itself at (\S+)$", round_status.stdout.strip())
    assert shown_start is not None, round_status.stdout
    assert datetime.fromisoformat(shown_start[1]) == datetime.fromisoformat(starts[2])
    tomorrow = cardproof(
        *("tournament", "create", "Night Cup", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "tomorrow", "--closes", "tomorrow+18h", "--url", url),
        key=key,
    )
    assert tomorrow.returncode == 0, tomorrow.stderr
    midnight = datetime.combine(date.today() + timedelta(days=1), datetime.min.time())
    expected = [(midnight + timedelta(hours=h)).astimezone(UTC) for h in (0, 18)]
    window = re.search(r"^window      (\S+) to (\S+)$", tomorrow.stdout, re.M)
    assert window is not None
    assert [datetime.fromisoformat(moment) for moment in window.groups()] == expected
    assert "status      scheduled" in tomorrow.stdout
    miscounted = cardproof(
        *("tournament", "create", "Miscounted", "--variant", "poker-squares", "--rounds", "2"),
        *("--opens", "now", "--closes", "+1h", "--round-starts", "+10m", "--url", url),
        key=key,
    )
    assert miscounted.returncode == 1
    assert "refused (422 bad-round-starts)" in miscounted.stderr


def test_after_its_game_a_seat_is_told_the_standings_and_the_next_round(
    server: tuple[str, str],
) -> None:
    """What comes next, after the receipt: the standings page, and round n+1's seat while
    there is one (read with the entrant's token: the tournament is invite-only)."""
    url, key = server
    with Client(base_url=url, api_key=key) as organizer:
        created = open_for_an_hour(
            organizer, "Next Cup", rounds=2, format="lockstep", entry="invite", invites=1
        )
    tid = created.tournament.tournament_id
    with Client(base_url=url) as player:
        token = player.enter(tid, "Cy", invite_code=created.invite_codes[0]).token
        told = io.StringIO()
        term = PlayTerminal(io.StringIO(), told, None)
        round_module._tell_next(player, term, tid, 1, token, url + "/")
        assert told.getvalue() == (
            f"Standings: {url}/tournaments/{tid}\n"
            "Round 2 of 2: take your seat before it starts (nobody is seated once it has):\n"
            f"  cardproof play --tournament {tid} --round 2 --url {url}/\n"
        )
        last = io.StringIO()
        round_module._tell_next(player, PlayTerminal(io.StringIO(), last, None), tid, 2, token, url)
        assert "last round" in last.getvalue()
        assert "--round 3" not in last.getvalue()
    with Client(base_url=url, api_key=key) as organizer:
        organizer.close_tournament(tid)
    with Client(base_url=url) as player:
        closed = io.StringIO()
        round_module._tell_next(
            player, PlayTerminal(io.StringIO(), closed, None), tid, 1, token, url
        )
        assert closed.getvalue() == f"Standings: {url}/tournaments/{tid}\n"  # no seat to take


def lockstep_cup(server: tuple[str, str], name: str) -> str:
    """A new public lockstep poker-squares tournament of one round, open an hour: its id."""
    url, key = server
    made = cardproof(
        *("tournament", "create", name, "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", "+1h", "--url", url),
        key=key,
    )
    assert made.returncode == 0, made.stderr
    return tournament_id(made.stdout)


def test_show_lists_the_entrants_by_rank_and_their_games_finished(
    server: tuple[str, str],
) -> None:
    """As the standings page does: by rank (not by name), and the games each finished as a
    count (the page's "games" column), not as "1/1"."""
    url, _ = server
    tid = lockstep_cup(server, "Shown Cup")
    nobody = cardproof("tournament", "show", tid, "--url", url)
    assert nobody.stdout.splitlines()[-1] == "entrants    0"
    with Client(base_url=url) as player:
        zed = seat(player, tid, "Zed")
        player.enter(tid, "Bea")  # entered, never seated: no game finished
        start(server, tid)
        calls = zed.calls()
        for index in range(25):
            assert next(calls).index == index
            zed.play(CELLS[index])
        assert zed.game.score is not None
        assert zed.game.score.total > 0  # ahead of Bea, who is ahead by name
    shown = cardproof("tournament", "show", tid, "--url", url)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-4:] == [
        "entrants    2, by rank (as the standings page lists them):",
        "  rank  name                     games",
        "     1  Zed                          1",
        "     2  Bea                          0",
    ]


def test_start_says_the_round_started_and_what_comes_next(server: tuple[str, str]) -> None:
    """``tournament start`` confirms: the tournament and round started, the card called
    (as the page shows it), what the seated players do, and the organizer's next commands."""
    url, key = server
    made = cardproof(
        *("tournament", "create", "Started Cup", "--variant", "poker-squares", "--rounds", "2"),
        *("--opens", "now", "--closes", "+1h", "--card-seconds", "45", "--url", url),
        key=key,
    )
    assert made.returncode == 0, made.stderr
    tid = tournament_id(made.stdout)
    with Client(base_url=url) as player:
        seat(player, tid, "Ada")
        seat(player, tid, "Bea")
    started = cardproof("tournament", "start", tid, "1", "--url", url, key=key)
    assert started.returncode == 0, started.stderr
    lines = started.stdout.splitlines()
    assert lines[0] == f'Started round 1 of 2 of "Started Cup" ({tid}).'
    card = re.search(r"card 1 of 25 (\S+) called", lines[1])
    assert card is not None, lines[1]
    assert re.fullmatch(r"(10|[2-9JQKA])[♣♦♥♠]", card[1])  # as the page shows it
    said = " ".join(lines[2:])
    assert f"Its first card, {card[1]}, is called now to the 2 seated players: " in said
    assert "each has 45 s to place it" in said
    assert "entrants not seated now sit round 1 out. Entries are closed." in said
    assert f"Follow it: cardproof tournament round {tid} 1 --watch --url {url}" in lines
    assert f"Then round 2: cardproof tournament start {tid} 2 --url {url}" in lines


def test_watching_a_round_follows_it_until_it_ends(server: tuple[str, str]) -> None:
    url, _ = server
    tid = lockstep_cup(server, "Watched Cup")
    command = [str(Path(sys.executable).parent / "cardproof"), "tournament", "round", tid, "1"]
    with Client(base_url=url) as player:
        ada = seat(player, tid, "Ada")
        watch = subprocess.Popen(
            [*command, "--watch", "--url", url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert watch.stdout is not None
            assert watch.stdout.readline() == "round 1: waiting, 1 seated\n"
            start(server, tid)
            calls = ada.calls()
            for index in range(25):
                assert next(calls).index == index
                ada.play(CELLS[index])
            out, err = watch.communicate(timeout=30)
        finally:
            watch.kill()
            watch.wait()
    assert (watch.returncode, err) == (0, "")
    lines = out.splitlines()
    assert lines[-1] == "round 1: finished, 1 seated; 25 of 25 cards called"
    assert lines[0].startswith("round 1: playing, 1 seated; card 1 of 25")
    cards = [int(m[1]) for line in lines if (m := re.search(r"card (\d+) of 25", line))]
    assert cards == sorted(cards)
    assert len(lines) <= 2 * 25 + 1


def test_ctrl_c_stops_watching_quietly(server: tuple[str, str]) -> None:
    url, _ = server
    tid = lockstep_cup(server, "Interrupted Cup")
    command = [str(Path(sys.executable).parent / "cardproof"), "tournament", "round", tid, "1"]
    watch = subprocess.Popen(
        [*command, "--watch", "--url", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert watch.stdout is not None
        assert watch.stdout.readline() == "round 1: waiting, 0 seated\n"
        watch.send_signal(signal.SIGINT)
        _out, err = watch.communicate(timeout=10)
    finally:
        watch.kill()
        watch.wait()
    assert watch.returncode == 0
    assert "Traceback" not in err
    assert err.strip() == ""


def test_an_entry_goes_to_a_private_state_directory_and_play_finds_it(
    server: tuple[str, str], tmp_path: Path
) -> None:
    url, _ = server
    tid = lockstep_cup(server, "Private Cup")
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state)}
    entered = cardproof(
        "tournament", "enter", tid, "--name", "Ada", "--url", url, env=env, cwd=tmp_path
    )
    assert entered.returncode == 0, entered.stderr
    path = state / "cardproof" / "entries" / f"cardproof-entry-{tid}.json"
    assert f"Your entry is saved in {path}." in entered.stdout
    assert "--entry-file" not in entered.stdout  # play finds it there
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (path.parent, path.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert msgspec.json.decode(path.read_bytes())["tournament_id"] == tid
    assert not list(tmp_path.glob("cardproof-entry-*"))  # nothing in the working directory
    again = cardproof("tournament", "enter", tid, "--name", "Bea", "--url", url, env=env)
    assert again.returncode == 2
    assert "exists" in again.stderr
    # play reads it without --entry-file: the round it asks for is refused, not the file
    play = ("play", "--tournament", tid, "--round", "9", "--url", url)
    found = cardproof(*play, env=env, cwd=tmp_path)
    assert "cannot take a seat in round 9" in found.stdout + found.stderr
    assert found.returncode == 1  # refused by the server, as every tournament command says
    assert "cannot read the entry" not in found.stderr
    no_url = cardproof("play", "--tournament", tid, env=env)
    assert (no_url.returncode, no_url.stderr) == (
        2,
        "cardproof play --tournament needs the server (--url or $CARDPROOF_URL)\n",
    )
    # an entry an older cardproof wrote to the working directory is still found, and said so
    legacy = tmp_path / "old"
    legacy.mkdir()
    (legacy / path.name).write_bytes(path.read_bytes())
    elsewhere = {"XDG_STATE_HOME": str(tmp_path / "empty")}
    old = cardproof(*play, env=elsewhere, cwd=legacy)
    assert f"using the entry in ./{path.name}" in old.stderr
    assert "cannot take a seat in round 9" in old.stdout + old.stderr
    missing = cardproof(*play, env=elsewhere, cwd=tmp_path)
    assert missing.returncode == 2
    assert (
        f"cannot read the entry in {tmp_path / 'empty' / 'cardproof' / 'entries'}" in missing.stderr
    )


def test_an_entrant_is_told_the_next_command_and_the_commands_find_the_entry(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """After ``tournament enter``: the entry file and the exact command to type, which finds
    the entry (and, without ``--round``, the round) by itself; show, standings and round
    read an invite-only tournament with it; an async one is said plainly."""
    url, key = server
    made = cardproof(
        *("tournament", "create", "Entry Cup", "--variant", "poker-squares", "--rounds", "2"),
        *("--opens", "now", "--closes", "+1h", "--invites", "2", "--url", url),
        key=key,
    )
    assert made.returncode == 0, made.stderr
    tid = tournament_id(made.stdout)
    codes = [line.split()[-1] for line in made.stdout.splitlines() if "invite code" in line]
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    entered = cardproof(
        *("tournament", "enter", tid, "--name", "Ada", "--invite", codes[0], "--url", url),
        env=env,
    )
    assert entered.returncode == 0, entered.stderr
    path = tmp_path / "state" / "cardproof" / "entries" / f"cardproof-entry-{tid}.json"
    lines = entered.stdout.splitlines()
    assert lines[1].startswith(f"Your entry is saved in {path}.")
    assert lines[3] == (
        "cardproof play, verify and tournament show, standings and round read it from there "
        "by themselves: you need not open it."
    )
    assert lines[4].startswith("Next: take your seat in round 1 of 2 now, and wait there")
    assert lines[5] == f"  cardproof play --tournament {tid} --round 1 --url {url}"
    for command in (("show", tid), ("standings", tid), ("round", tid, "1")):
        read = cardproof("tournament", *command, "--url", url, env=env)  # invite-only
        assert read.returncode == 0, (command, read.stderr)
    terminal = Terminal(
        *("play", "--tournament", tid, "--url", url), cwd=tmp_path, term="xterm", env=env
    )
    try:
        terminal.expect("round 1 of 2, the first not over")  # no --round: found
        terminal.expect("Seated: 1 so far; waiting for the start")
        terminal.process.send_signal(signal.SIGINT)  # Ctrl-C leaves the seat
        terminal.expect("Left the seat after 0 of the round's cards")
        assert terminal.close() == 1
    finally:
        terminal.kill()

    paced = cardproof(
        *("tournament", "create", "Paced Cup", "--variant", "poker-squares", "--rounds", "1"),
        *("--opens", "now", "--closes", "+1h", "--format", "async", "--invite", "--url", url),
        key=key,
    )
    assert paced.returncode == 0, paced.stderr
    aid = tournament_id(paced.stdout)
    code = paced.stdout.splitlines()[-1].removeprefix("invite code ")
    joined = cardproof(
        *("tournament", "enter", aid, "--name", "Ada", "--invite", code, "--url", url), env=env
    )
    assert joined.returncode == 0, joined.stderr
    assert "played at each entrant's own pace (async)" in joined.stdout
    assert "--round 1" not in joined.stdout  # no seat to take in a lockstep round
    seat = cardproof("play", "--tournament", aid, "--url", url, env=env)
    assert seat.returncode == 1
    assert f"cardproof play: {aid} is played at each entrant's own pace (async)" in seat.stderr


def test_entry_directory_follows_xdg_and_is_made_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", "relative/is/ignored")
    assert entries_dir() == tmp_path / "home" / ".local" / "state" / "cardproof" / "entries"
    loose = tmp_path / "xdg" / "cardproof"
    loose.mkdir(parents=True, mode=0o755)
    loose.chmod(0o755)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    made = private_entries_dir()
    assert made == loose / "entries"
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700  # tightened: tokens live below
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_entry_folders_made_under_any_umask_are_private_and_never_symlinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team: umask 000 made XDG_STATE_HOME 0777; a symlinked folder sent tokens away."""
    for umask in (0o000, 0o277):  # the second would leave folders their owner cannot write
        fresh = tmp_path / f"fresh-{umask:o}"
        monkeypatch.setenv("XDG_STATE_HOME", str(fresh / "state"))
        old = os.umask(umask)
        try:
            made = private_entries_dir()
        finally:
            os.umask(old)
        for folder in (made, made.parent, fresh / "state", fresh):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir()
    elsewhere.chmod(0o777)
    for linked in ("entries", "cardproof"):
        state = tmp_path / linked
        (state / "cardproof").mkdir(parents=True)
        target = state / "cardproof" / "entries" if linked == "entries" else state / "cardproof"
        if linked == "cardproof":
            (state / "cardproof").rmdir()
        target.symlink_to(elsewhere, target_is_directory=True)
        monkeypatch.setenv("XDG_STATE_HOME", str(state))
        with pytest.raises(ValueError, match="is a symlink"):
            private_entries_dir()
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o777  # never chmod'ed through a link


def test_play_refuses_an_entry_file_others_may_write(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """Red team: a planted world-writable ./cardproof-entry-ID.json took someone's seat."""
    url, _ = server
    tid = lockstep_cup(server, "Planted Cup")
    with Client(base_url=url) as player:
        entry = player.enter(tid, "Mallory")
    planted = tmp_path / f"cardproof-entry-{tid}.json"
    planted.write_bytes(msgspec.json.encode(entry))
    planted.chmod(0o666)
    play = ("play", "--tournament", tid, "--round", "1", "--url", url)
    refused = cardproof(*play, env={"XDG_STATE_HOME": str(tmp_path / "empty")}, cwd=tmp_path)
    assert refused.returncode == 2
    assert "may be changed by others (mode 0666)" in refused.stderr
    linked = tmp_path / "linked.json"
    linked.symlink_to(planted)
    planted.chmod(0o600)
    through = cardproof(*play, "--entry-file", str(linked), cwd=tmp_path)
    assert through.returncode == 2
    assert "is a symlink" in through.stderr


def test_names_the_server_sends_reach_the_terminal_without_their_controls() -> None:
    """Red team: a tournament name with ESC retitled the window of whoever ran `show`."""
    from cardproof.words import printable

    assert printable("\x1b]0;pwned\x07x") == "\\u001b]0;pwned\\u0007x"
    assert printable("\u202ecba Cup") == "\\u202ecba Cup"
    assert printable("Ünïcode Cup ♠") == "Ünïcode Cup ♠"
