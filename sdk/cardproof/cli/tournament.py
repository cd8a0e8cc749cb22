"""``cardproof tournament``: organizers create, invite, start, close and export; players enter."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final
from urllib.parse import quote

import msgspec

from cardproof.cli.common import entry_file_name, own_entry, private_entries_dir
from cardproof.client import Client
from cardproof.errors import APIError, CardproofError, MalformedAnswerError, TransportError
from cardproof.models import RoundStatus, Standings, Tournament, TournamentSummary
from cardproof.words import card_label, plural, printable, shows_suits

_ACTIONS: dict[str, Callable[[Client, argparse.Namespace], int]]
"""Each ``cardproof tournament`` subcommand's action, by name (filled in below)."""

_ORGANIZER_ONLY = frozenset({"create", "list", "close", "invites", "start"})
_READERS = frozenset({"show", "standings", "round", "export"})
"""The commands that read a tournament: an invite-only one with the player's entry (its
token), found where ``tournament enter`` wrote it, when no organizer key is given."""
WATCH_WAIT: Final = 10.0
"""Seconds ``round --watch`` lets a long poll wait for the next call: the seated and
placed counts are read again at least this often while no card is called."""
SHOWN_ENTRANTS: Final = 200
"""Entrants ``show`` lists at most (the standings list them all)."""


def _print_tournament(tournament: Tournament) -> None:
    """A tournament as the organizer checks it: settings, window, round commitments."""
    t = tournament
    closed = f" (closed {t.closed_at})" if t.closed_at else ""
    limit = f", at most {plural(t.max_entrants, 'entrant')}" if t.max_entrants is not None else ""
    print(f"tournament  {t.tournament_id}")
    print(f"name        {printable(t.name)}")
    print(f"organizer   {printable(t.organizer)}")
    print(f"variant     {t.variant} {json.dumps(t.options, sort_keys=True)}")
    print(f"status      {t.status}")
    print(f"window      {t.opens_at} to {t.closes_at}{closed}")
    print(f"entry       {t.entry}{limit}")
    played = "each at their own pace"
    if t.format == "lockstep":
        played = f"every card called to all seats at once, {t.card_seconds} s to place it"
    print(f"format      {t.format}: {played}")
    if t.round_starts:
        starts = ", ".join(f"{n} at {at}" for n, at in enumerate(t.round_starts, start=1))
        print(f"starts      each round by itself: {starts}")
    if t.format == "lockstep":  # said before anyone tries to enter late
        entries = "open until round 1 starts"
        if t.entries_closed_at is not None:
            entries = f"closed at {t.entries_closed_at}, when round 1 started"
        elif t.status == "closed":
            entries = "closed with the tournament (round 1 never started)"
        print(f"entries     {entries}")
    print(f"deals       {t.algorithm}, salt {t.salt}")
    print(f"round  {'server_seed_hash (committed)':<64}  server_seed")
    for line in t.rounds:
        seed = line.server_seed or "(revealed at the close)"
        print(f"{line.round:>5}  {line.server_seed_hash:<64}  {seed}")


def _create(client: Client, args: argparse.Namespace) -> int:
    created = client.create_tournament(
        args.name,
        args.variant,
        rounds=args.rounds,
        opens_at=args.opens,
        closes_at=args.closes,
        options=args.options,
        max_entrants=args.max_entrants,
        entry="invite" if args.invite or args.invites else "public",
        invites=args.invites,
        format=args.format,
        card_seconds=args.card_seconds,
        round_starts=args.round_starts,
    )
    _print_tournament(created.tournament)
    base, tid = args.url.rstrip("/"), quote(created.tournament.tournament_id, safe="")
    print(f"join        {base}/play?tournament={tid}  (send it to the players)")
    print(f"standings   {base}/tournaments/{tid}")
    _print_invites(created.invite_codes)  # last: shown this once
    return 0


def _print_invites(codes: list[str]) -> None:
    """Invite codes, one a line (shown this once)."""
    for code in codes:
        print(f"invite code {code}")
    if codes:
        print("# invite codes are shown this once; each enters one entrant", file=sys.stderr)


def _invites(client: Client, args: argparse.Namespace) -> int:
    _print_invites(client.create_invites(args.id, args.count))
    return 0


def _enter(client: Client, args: argparse.Namespace) -> int:
    """Enter a tournament; the entry, with its token (shown this once), goes to a new file.

    The file is made (owner-only, never over another) before the entry is asked for, so a
    token the server hands out always has somewhere to go; were writing it to fail after
    all, the token is printed instead.
    """
    try:
        path = Path(args.entry_file or private_entries_dir() / entry_file_name(args.id))
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ValueError(
            f"{path} exists (an entry's token may be kept there): name another --entry-file"
        ) from None
    except OSError as error:
        raise ValueError(f"cannot make {error.filename}: {error.strerror}") from None
    with os.fdopen(fd, "wb") as out:
        try:
            invite = args.invite or os.environ.get("CARDPROOF_INVITE_CODE") or None
            entry = client.enter(args.id, args.name, invite_code=invite)
        except BaseException:
            out.close()
            path.unlink(missing_ok=True)
            raise
        try:
            out.write(msgspec.json.format(msgspec.json.encode(entry)) + b"\n")
        except OSError as error:
            print(f"cannot write {path} ({error.strerror}): your token is {entry.token}")
            return 1
    name = json.dumps(entry.name)
    print(f"Entered {entry.tournament_id} as {name} (entrant {entry.entrant_id}).")
    print(f"Your entry is saved in {path}. Keep that file: its token is shown nowhere else.")
    print(f"The token opens your games until the tournament closes ({entry.expires_at}).")
    try:
        tournament: Tournament | None = client.tournament(args.id, token=entry.token)
    except CardproofError:  # entered all the same: the next steps in general words
        tournament = None
    for line in _next_steps(tournament, args.id, path, args.url, named=bool(args.entry_file)):
        print(line)
    return 0


def _next_steps(
    tournament: Tournament | None, tournament_id: str, path: Path, url: str, *, named: bool
) -> list[str]:
    """What an entrant does next, after ``tournament enter``: the exact command to type.

    The entry is found by itself where ``enter`` writes it; one written elsewhere
    (``--entry-file``) is named in every command.
    """
    base, tid = url.rstrip("/"), shlex.quote(tournament_id)
    file_option = f" --entry-file {shlex.quote(str(path))}" if named else ""
    lines = [
        "cardproof play, verify and tournament show, standings and round read it from there "
        "by themselves: you need not open it."
        if not named
        else f"Give --entry-file {shlex.quote(str(path))} to cardproof play, verify and "
        "tournament show, standings and round: they read your token from it."
    ]
    if tournament is not None and tournament.format != "lockstep":
        lines.append(
            "This tournament is played at each entrant's own pace (async): cardproof play "
            "--tournament takes seats in lockstep rounds only; play its rounds with the SDK, "
            "Client.play_round(tournament_id, round, token), the token in that file."
        )
    else:
        rounds = f" of {len(tournament.rounds)}" if tournament is not None else ""
        starts = "when the organizer starts it"
        if tournament is not None and tournament.round_starts:
            starts = f"at {tournament.round_starts[0]}, or sooner if the organizer starts it"
        lines += [
            f"Next: take your seat in round 1{rounds} now, and wait there for its first card "
            f"(it is called {starts}; nobody is seated once a round has started):",
            f"  cardproof play --tournament {tid} --round 1 --url {shlex.quote(base)}{file_option}",
            "When a round ends, cardproof play says the command for the next one.",
        ]
    lines.append(f"Standings: {base}/tournaments/{quote(tournament_id, safe='')}")
    return lines


def _show(client: Client, args: argparse.Namespace) -> int:
    _print_tournament(client.tournament(args.id, token=args.token))
    _print_entrants(client.standings(args.id, token=args.token))
    return 0


def _print_entrants(standings: Standings) -> None:
    """The entrants by rank, as the standings page lists them, with their games finished.

    ``SHOWN_ENTRANTS`` at most; the standings list them all.
    """
    lines = standings.entrants
    if not lines:
        print("entrants    0")
        return
    print(f"entrants    {len(lines)}, by rank (as the standings page lists them):")
    print(f"  {'rank':>4}  {'name':<24} {'games':>5}")
    for line in lines[:SHOWN_ENTRANTS]:
        print(f"  {line.rank:>4}  {printable(line.name):<24} {line.games_finished:>5}")
    if len(lines) > SHOWN_ENTRANTS:
        print(
            f"  and {len(lines) - SHOWN_ENTRANTS} more: "
            f"cardproof tournament standings {shlex.quote(standings.tournament_id)}"
        )


def _list(client: Client, args: argparse.Namespace) -> int:
    """The organizer's tournaments, newest first: a page, or every page with ``--all``."""
    if not 1 <= args.limit <= 100:
        raise ValueError("--limit is 1 to 100")
    page = client.tournaments(limit=args.limit, cursor=args.cursor)
    lines = list(page.tournaments)
    while args.all and page.next_cursor is not None:
        page = client.tournaments(limit=args.limit, cursor=page.next_cursor)
        lines += page.tournaments
    if not lines:
        print("no tournaments listed" + (" after this cursor" if args.cursor else ""))
    else:
        width = min(32, max(4, *(len(printable(line.name)) for line in lines)))
        print(f"{'tournament':<22}  {'name':<{width}}  {'variant':<17} {'status':<9} window")
        for line in lines:
            print(_summary_line(line, width))
    if page.next_cursor is not None:
        print(
            f"more: cardproof tournament list --cursor {page.next_cursor}"
            + (f" --limit {args.limit}" if args.limit != 20 else ""),
            file=sys.stderr,
        )
    return 0


def _summary_line(line: TournamentSummary, width: int) -> str:
    """One tournament of the list; a name longer than the column is cut with an ellipsis."""
    name = printable(line.name)
    name = name if len(name) <= width else name[: width - 1] + "…"
    return (
        f"{line.tournament_id:<22}  {name:<{width}}  {line.variant:<17} {line.status:<9} "
        f"{line.opens_at} to {line.closes_at}"
    )


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _standings(client: Client, args: argparse.Namespace) -> int:
    standings = client.standings(args.id, player=args.player, token=args.token)
    entrants = standings.entrants
    print(
        f"tournament {standings.tournament_id}: {standings.status}, "
        f"{plural(standings.rounds, 'round')}, "
        f"{plural(len(entrants), 'entrant')}"
    )
    with_par = any(line.percent_of_par is not None for line in entrants)  # as the page does
    # as the page's table: rank, name, total, the games finished, and the share of par
    print(f"{'rank':>4}  {'name':<24} {'total':>8}  games" + ("  % of par" if with_par else ""))
    for line in entrants:
        print(
            f"{line.rank:>4}  {printable(line.name):<24} {line.total:>8}  "
            f"{line.games_finished:>5}"
            + (f"  {_percent(line.percent_of_par):>8}" if with_par else "")
        )
    if standings.pars_pending:
        print(f"pars: {plural(standings.pars_pending, 'round')} still being solved")
    for par in standings.pars:
        proof = "optimal" if par.optimal else f"bound {par.upper_bound}"
        if par.method == "earlier-solver":
            proof += ", earlier solver"
        print(f"round {par.round} par {par.score} ({proof}, by the {par.by})")
    if standings.player is not None:
        print(f"games of {standings.player}:")
        for game in standings.games:
            print(f"  round {game.round}: {game.total} ({_percent(game.percent_of_par)} of par)")
    return 0


def _print_round(status: RoundStatus) -> None:
    """A lockstep round's status, a line (flushed: ``--watch`` may be piped)."""
    print(_round_line(status), flush=True)


def _round_line(status: RoundStatus) -> str:
    """A lockstep round's status, a line."""
    where = f"round {status.round}: {status.status}, {status.seats} seated"
    if status.status == "playing" and status.call is not None:
        card = f" {_card(status.card)}" if status.card else ""
        where += (
            f"; card {status.call + 1} of {status.calls}{card} called, "
            f"{status.placed} of {status.seats} placed it, {status.seconds_left:.0f} s left"
        )
    elif status.starts_at is not None and status.status == "waiting":
        where += f"; starts by itself at {status.starts_at}"
    elif status.status == "finished":
        where += f"; {status.called} of {status.calls} cards called"
        if status.closed:
            where += ", ended early: the tournament closed"
    return where


def _card(text: str) -> str:
    """A card as the pages show it: ``10♣`` (``10C`` where the output has no suit symbols)."""
    return card_label(printable(text), symbols=shows_suits(sys.stdout))


def _start(client: Client, args: argparse.Namespace) -> int:
    """Start a lockstep round; say that it started, and what comes next."""
    status = client.start_round(args.id, args.round)
    try:
        tournament = client.tournament(args.id)
    except CardproofError as error:  # started all the same: said, with what is known
        print(f"Started round {status.round} of {printable(args.id)}.")
        _print_round(status)
        print(f"(its tournament could not be read again: {error})", file=sys.stderr)
        return 0
    for line in _started_lines(tournament, status, args.url):
        print(line)
    return 0


def _started_lines(tournament: Tournament, status: RoundStatus, url: str) -> list[str]:
    """What ``tournament start`` says: the round started, its call, what players do next."""
    tid, n, rounds = shlex.quote(tournament.tournament_id), status.round, len(tournament.rounds)
    server = f" --url {shlex.quote(url)}"
    lines = [
        f"Started round {n} of {rounds} of {json.dumps(tournament.name, ensure_ascii=False)} "
        f"({printable(tournament.tournament_id)}).",
        _round_line(status),
    ]
    if status.status == "playing":
        card = f", {_card(status.card)}," if status.card else ""
        lines.append(
            f"Its first card{card} is called now to the {plural(status.seats, 'seated player')}: "
            f"each has {tournament.card_seconds} s to place it (a card left is placed for "
            "them at its deadline), and the next card is called once every seat has placed it."
        )
        lines.append(
            "Seated players place it where they sit (the play page, or cardproof play "
            f"--tournament); entrants not seated now sit round {n} out."
            + (" Entries are closed." if n == 1 else "")
        )
    else:  # nobody was seated: the round is over at once
        lines.append(f"Round {n} is over: nobody was seated.")
    lines.append(f"Follow it: cardproof tournament round {tid} {n} --watch{server}")
    if n < rounds:
        lines.append(f"Then round {n + 1}: cardproof tournament start {tid} {n + 1}{server}")
    else:
        lines.append(
            f"That is the last round: the standings are final once the tournament closes "
            f"({tournament.closes_at}; sooner with cardproof tournament close {tid}{server})."
        )
    return lines


def _round(client: Client, args: argparse.Namespace) -> int:
    """The round's status line; with ``--watch``, a line each time it moves on, to its end."""
    try:
        status = client.round_status(args.id, args.round, token=args.token)
        _print_round(status)
        if args.watch:
            _watch(client, args, status)
    except KeyboardInterrupt:  # Ctrl-C stops a watch, even as it shows its first line
        if not args.watch:
            raise
        print(file=sys.stderr)  # the next prompt starts on a line of its own, after ^C
    return 0


def _watch(client: Client, args: argparse.Namespace, status: RoundStatus) -> None:
    """Follow a round until it finishes: a line each time it moves on.

    Each step is a long poll of the round's calls (it answers as soon as a card after the
    last one shown is called, or the round ends, else after ``WATCH_WAIT`` seconds), so
    the watch costs a request per call, or per ``WATCH_WAIT`` while none is called.
    """
    shown = (status.status, status.call, status.placed, status.seats)
    while status.status != "finished":
        after = -1 if status.call is None else status.call
        status = client.round_calls(
            args.id, args.round, after=after, wait=WATCH_WAIT, token=args.token
        ).status
        now = (status.status, status.call, status.placed, status.seats)
        if now != shown:
            _print_round(status)
            shown = now


def _close(client: Client, args: argparse.Namespace) -> int:
    _print_tournament(client.close_tournament(args.id))
    return 0


def _export(client: Client, args: argparse.Namespace) -> int:
    export = client.export_tournament(args.id, token=args.token)
    text = msgspec.json.format(msgspec.json.encode(export), indent=2) + b"\n"
    if args.output in (None, "-"):
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
        return 0
    try:
        Path(args.output).write_bytes(text)
    except OSError as error:
        print(f"cannot write {args.output}: {error}", file=sys.stderr)
        return 2
    print(
        f"wrote {args.output}: {plural(len(export.games), 'game')}; re-check it with "
        f"cardproof verify --tournament {args.output}",
        file=sys.stderr,
    )
    return 0


_ACTIONS = {
    "create": _create,
    "list": _list,
    "invites": _invites,
    "enter": _enter,
    "show": _show,
    "standings": _standings,
    "start": _start,
    "round": _round,
    "close": _close,
    "export": _export,
}


def _invite_only(tournament_id: str, entry: Path) -> str:
    """Why an invite-only tournament could not be read, and what reads it, in plain words."""
    tid = shlex.quote(tournament_id)
    return (
        f"{tournament_id} is invite-only: an entrant reads it with their entry, and there is "
        f"none in {entry}. Enter with cardproof tournament enter {tid} --name NAME --invite "
        "CODE, or name your entry file with --entry-file FILE. (Its organizer reads it with "
        "the organizer key: --key or CARDPROOF_ORGANIZER_KEY.)"
    )


def run(args: argparse.Namespace) -> int:
    """Run one ``cardproof tournament`` command: 0 done, 1 refused (4xx), 2 unreachable.

    An answer the SDK cannot read (a field out of its form) is 2, as an unusable server.
    """
    action = _ACTIONS[args.tournament_command]
    command = f"cardproof tournament {args.tournament_command}"
    key = args.key or os.environ.get("CARDPROOF_ORGANIZER_KEY") or None
    if key is None and args.tournament_command in _ORGANIZER_ONLY:
        print(
            f"{command}: this needs the organizer key: --key or CARDPROOF_ORGANIZER_KEY "
            "(cardproof keys organizer create NAME makes one)",
            file=sys.stderr,
        )
        return 2
    args.token, entry = None, None
    try:
        if key is None and args.tournament_command in _READERS:
            entry, args.token = own_entry(args.entry_file, args.id, command)
        with Client(base_url=args.url, api_key=key) as client:
            return action(client, args)
    except ValueError as error:  # a bad argument the SDK caught before sending
        print(f"{command}: {error}", file=sys.stderr)
        return 2
    except MalformedAnswerError as error:  # a 2xx, so not "refused"
        print(f"{command}: {args.url} gave an answer out of form: {error.detail}", file=sys.stderr)
        return 2
    except APIError as error:
        if error.status == 401 and entry is not None and args.token is None:
            print(f"{command}: {_invite_only(args.id, entry)}", file=sys.stderr)
            return 1
        code = f" {error.code}" if error.code else ""
        print(
            f"{command}: refused ({error.status}{code}): {error.detail or error.title}",
            file=sys.stderr,
        )
        if error.status in (401, 403) and args.token is not None:
            print(f"{command}: (read with the entry in {entry})", file=sys.stderr)
        return 1 if error.status < 500 else 2
    except TransportError as error:
        print(f"{command}: cannot reach {args.url}: {error}", file=sys.stderr)
        return 2
