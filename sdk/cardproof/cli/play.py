"""``cardproof play``: a game in the terminal, or an entrant's seat in a lockstep round."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

import msgspec

from cardproof.cli.common import (
    URL_ENV,
    entries_dir,
    entry_file_name,
    needs_service,
    read_entry_file,
)
from cardproof.client import Client


def run(args: argparse.Namespace) -> int:

    from cardproof.client import Client
    from cardproof.play import embedded_client, run

    if args.tournament is not None:
        return _play_round(args, Client)
    if args.variant is None:
        print("cardproof play: name a VARIANT, or --tournament ID --round N", file=sys.stderr)
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


def _entry_path(entry_file: str | None, tournament_id: str) -> Path:
    """The entry to play with: ``--entry-file``, else where ``tournament enter`` writes it.

    An entry written by an older ``cardproof`` to the working directory is used when
    there is none in the entries directory, and said so (it is better moved there).
    """
    if entry_file:
        return Path(entry_file)
    name = entry_file_name(tournament_id)
    path = entries_dir() / name
    if not path.exists() and Path(name).is_file():
        print(
            f"cardproof play: using the entry in ./{name} (cardproof tournament enter now "
            f"keeps entries in {entries_dir()}; move it there, mode 0600)",
            file=sys.stderr,
        )
        return Path(name)
    return path


def _play_round(args: argparse.Namespace, client_type: type[Client]) -> int:
    """``cardproof play --tournament ID --round N``: the entrant's seat, live."""
    from cardproof.play import run_round

    missing = [
        needed
        for needed, given in (
            ("--round N", args.round),
            (f"the server (--url or ${URL_ENV})", args.url),
        )
        if given is None
    ]
    if missing:
        print(f"cardproof play --tournament needs {' and '.join(missing)}", file=sys.stderr)
        return 2
    path = _entry_path(args.entry_file, args.tournament)
    try:
        entry = msgspec.json.decode(read_entry_file(path))
        token = entry["token"]
        if not isinstance(token, str) or entry.get("tournament_id") != args.tournament:
            raise ValueError("not an entry of this tournament")
    except (OSError, ValueError, KeyError, TypeError, msgspec.DecodeError) as error:
        print(
            f"cardproof play: cannot read the entry in {path} ({error}); enter with "
            f"cardproof tournament enter {args.tournament} --name NAME, or name the file "
            "with --entry-file",
            file=sys.stderr,
        )
        return 2
    # the round is followed on a client of its own, in a thread of its own (_RoundWatch)
    with client_type(base_url=args.url) as client, client_type(base_url=args.url) as follower:
        return run_round(
            client, follower, args.tournament, args.round, token, args.url, args.receipt_out
        )
