"""``cardproof play``: a game in the terminal, or an entrant's seat in a lockstep round."""

from __future__ import annotations

import argparse
import contextlib
import sys
from urllib.parse import quote

from cardproof.cli.common import URL_ENV, entry_path, entry_token, needs_service
from cardproof.client import Client
from cardproof.errors import APIError, CardproofError


def run(args: argparse.Namespace) -> int:

    from cardproof.client import Client
    from cardproof.play import embedded_client, run

    if args.tournament is not None:
        return _play_round(args, Client)
    if args.variant is None:
        print("cardproof play: name a VARIANT, or --tournament ID", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        if args.url is not None:
            client = stack.enter_context(Client(base_url=args.url))
        else:
            try:
                client = stack.enter_context(embedded_client())
            except ImportError:  # pragma: no cover - depends on the install
                return needs_service("play")
        return run(
            client,
            args.variant,
            client_seed=args.seed,
            options=args.options,
            server_url=args.url,
            receipt_out=args.receipt_out,
        )


def _play_round(args: argparse.Namespace, client_type: type[Client]) -> int:
    """``cardproof play --tournament ID [--round N]``: the entrant's seat, live.

    Without ``--round``, the first round of the tournament that is not over.
    """
    from cardproof.play import run_round

    if args.url is None:
        print(
            f"cardproof play --tournament needs the server (--url or ${URL_ENV})", file=sys.stderr
        )
        return 2
    path = entry_path(args.entry_file, args.tournament, "cardproof play")
    try:
        token = entry_token(path, args.tournament)
    except (OSError, ValueError) as error:
        print(
            f"cardproof play: cannot read the entry in {path} ({error}); enter with "
            f"cardproof tournament enter {args.tournament} --name NAME, or name the file "
            "with --entry-file",
            file=sys.stderr,
        )
        return 2
    # the round is followed on a client of its own, in a thread of its own (_RoundWatch)
    with client_type(base_url=args.url) as client, client_type(base_url=args.url) as follower:
        try:
            number = _round_to_play(client, args, token)
        except _NoSeat as error:
            print(f"cardproof play: {error}", file=sys.stderr)
            return error.code
        return run_round(
            client,
            follower,
            args.tournament,
            number,
            token,
            args.url,
            args.receipt_out,
            entry_file=args.entry_file,
        )


class _NoSeat(Exception):
    """No round to take a seat in (said), and the exit status that says why."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _round_to_play(client: Client, args: argparse.Namespace, token: str) -> int:
    """The round to take a seat in: ``--round``, else the first round not over.

    A tournament not played in lockstep has no seat to take (:class:`_NoSeat`, exit 1),
    nor one whose rounds are all over.
    """
    tid = args.tournament
    try:
        tournament = client.tournament(tid, token=token)
        if tournament.format != "lockstep":
            raise _NoSeat(
                f"{tid} is played at each entrant's own pace (async), not card by card: "
                "cardproof play --tournament takes a seat in a lockstep round; play its "
                "rounds with the SDK, Client.play_round(tournament_id, round, token)",
                1,
            )
        if args.round is not None:
            return int(args.round)
        rounds = len(tournament.rounds)
        for number in range(1, rounds + 1):
            if client.round_status(tid, number, token=token).status != "finished":
                print(
                    f"cardproof play: round {number} of {rounds}, the first not over "
                    "(--round N takes another)",
                    file=sys.stderr,
                )
                return number
    except CardproofError as error:
        if args.round is not None:  # the seat says what is wrong, if anything is
            return int(args.round)
        refused = isinstance(error, APIError) and error.status < 500
        raise _NoSeat(f"cannot read tournament {tid}: {error}", 1 if refused else 2) from None
    standings = f"{args.url.rstrip('/')}/tournaments/{quote(tid, safe='')}"
    raise _NoSeat(f"every round of {tid} is over: the standings are at {standings}", 1)
