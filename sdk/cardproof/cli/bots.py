"""``cardproof bots run``: a player class seated at committed blind deals."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from cardproof.cli.common import needs_service
from cardproof.client import Client
from cardproof.errors import CardproofError
from cardproof.progress import Bar, bar
from cardproof.words import plural


def run(args: argparse.Namespace) -> int:
    """``cardproof bots run MODULE:CLASS``: a bot at ``--games`` deals, its mean score."""
    import importlib

    from cardproof.bots import BotError, Player, play_games
    from cardproof.play import embedded_client

    if args.games < 1:
        print("cardproof bots run: --games is 1 or more", file=sys.stderr)
        return 2
    if not 0 <= args.par_budget <= 10:
        print("cardproof bots run: --par-budget is 0 to 10 seconds", file=sys.stderr)
        return 2
    module_name, _, class_name = args.player.partition(":")
    try:
        player = getattr(importlib.import_module(module_name), class_name)()
    except Exception as error:  # any fault of the player's module or class
        print(
            f"cardproof bots run: cannot make a player of {args.player}: {error}", file=sys.stderr
        )
        return 2
    if not isinstance(player, Player):
        print(
            f"cardproof bots run: {args.player} has no start(setup) and place(turn)",
            file=sys.stderr,
        )
        return 2
    receipts = Path(args.receipts)
    with contextlib.ExitStack() as stack:
        try:
            client = stack.enter_context(
                Client(base_url=args.url) if args.url is not None else embedded_client(limits=False)
            )
            if args.url is None:  # every run's key kept: older receipts still check
                _add_keys(receipts / "keys.json", client.jwks())
            with bar(args.games, "games", unit="game") as games:  # on a terminal only
                report = play_games(
                    client,
                    player,
                    games=args.games,
                    options={"scoring": args.scoring},
                    receipts=receipts,
                    par_budget=args.par_budget or None,
                    told=_told(games),
                )
        except ImportError:  # pragma: no cover - depends on the install
            return needs_service("bots run")
        except BotError as error:
            print(f"cardproof bots run: {error}", file=sys.stderr)
            return 1
        except (CardproofError, OSError) as error:
            print(f"cardproof bots run: {error}", file=sys.stderr)
            return 2
    print(
        f"{args.player} on {plural(len(report.scores), 'committed blind deal')} of "
        f"{args.variant}, scoring {args.scoring}: mean score {report.mean:.1f} "
        f"(95% interval {report.mean - report.half_width:.1f} to "
        f"{report.mean + report.half_width:.1f}), in {report.seconds:.1f} s"
    )
    if report.mean_percent is not None:
        half = report.percent_half_width
        print(
            f"mean percentage of par {report.mean_percent:.1f}% (95% interval "
            f"{report.mean_percent - half:.1f}% to {report.mean_percent + half:.1f}%; mean par "
            f"{sum(report.pars) / len(report.pars):.1f}, hindsight par in {args.par_budget:g} s "
            "a deal)"
        )
    if report.without_par:
        print(
            f"no par for {plural(len(report.without_par), 'game')} (first: {report.without_par[0]})"
        )
    print(f"receipts: {plural(len(report.receipts), 'file')} in {receipts}/")
    return 0


def _told(games: Bar) -> Callable[[int, int], None]:
    """What ``play_games`` tells after each game: the bar moved on, the mean so far beside it."""
    scores: list[int] = []

    def told(number: int, total: int) -> None:
        scores.append(total)
        games.advance(note=f"mean {sum(scores) / len(scores):.1f}")

    return told


def _add_keys(path: Path, jwks: Any) -> None:
    """Write ``jwks``'s keys to the key set file at ``path``, keeping the keys already there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    keys: list[Any] = []
    if path.exists():
        try:
            keys = list(msgspec.json.decode(path.read_bytes()).get("keys", []))
        except (msgspec.DecodeError, AttributeError, TypeError):
            keys = []  # not a key set: replaced
    known = {key.get("kid") for key in keys if isinstance(key, dict)}
    new = [key for key in msgspec.to_builtins(jwks)["keys"] if key.get("kid") not in known]
    path.write_bytes(msgspec.json.encode({"keys": keys + new}) + b"\n")
