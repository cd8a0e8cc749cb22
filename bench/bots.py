"""Bots: the two baseline players of cardproof.bots on the same committed deals, with their par.

Each table's ``--games`` committed blind poker-squares deals (200 by default) are the
rounds of tournaments on an embedded server (the app in-process, memory store, throwaway
keys; up to 50 rounds a tournament): every player enters each tournament and plays every
round, so all players meet the same deals, and the receipts are checked against the
games played. After the close the server solves each round's par (hindsight, best found
within ``--par-budget`` seconds, or an entrant's game if better), and the standings give
each game's percentage of it. Tables: American, British and Ameritish (drawn per round
from its seeds). Printed: per table and player the mean score with its 95% interval,
the mean percentage of par with its interval and the seconds per deal; the mean par of
the deals (and how many were proven optimal); and the ratio of the Monte Carlo player's
mean to the random player's (the peer, measured in the same run).

Run: ``.venv/bin/python bench/bots.py [--games N] [--rollouts R] [--par-budget S]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from datetime import UTC, datetime, timedelta

from _common import print_machine
from cardproof.bots import MonteCarloPlayer, Player, RandomPlayer, play_game
from cardproof.client import Client
from cardproof.models import RoundPar
from cardproof.play import embedded_client
from cardproof.progress import Bar, bar

TABLES = ("american", "british", "ameritish")
ROUNDS_MAX = 50


def half_width(values: list[float]) -> float:
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def play_table(
    client: Client, players: dict[str, Player], table: str, games: int, done: Bar
) -> tuple[dict[str, list[int]], dict[str, list[float]], dict[str, float], list[RoundPar]]:
    """Every player on every round of enough tournaments; scores, percentages, seconds, pars."""
    scores: dict[str, list[int]] = {name: [] for name in players}
    percents: dict[str, list[float]] = {name: [] for name in players}
    seconds = dict.fromkeys(players, 0.0)
    pars: list[RoundPar] = []
    left = games
    while left:
        rounds = min(ROUNDS_MAX, left)
        left -= rounds
        now = datetime.now(UTC)
        created = client.create_tournament(
            f"bench {table} {time.time_ns()}",
            "poker-squares",
            rounds=rounds,
            opens_at=now,
            closes_at=now + timedelta(days=1),
            options={"scoring": table},
            format="async",
            entry="invite",  # a hidden variant's async rounds: one invite code an entrant
            invites=len(players),
        )
        tid = created.tournament.tournament_id
        for (name, player), code in zip(players.items(), created.invite_codes, strict=True):
            token = client.enter(tid, name, invite_code=code).token
            started = time.monotonic()
            for number in range(1, rounds + 1):
                game = client.play_round(tid, number, token, variant="poker-squares")
                scores[name].append(play_game(game, player, None).payload.score.total)
                done.advance()
            seconds[name] += time.monotonic() - started
        client.close_tournament(tid)
        while (standings := client.standings(tid)).pars_pending:
            time.sleep(0.5)
        pars.extend(standings.pars)
        for exported in client.export_tournament(tid).games:  # each game's share of its par
            if exported.percent_of_par is not None:
                percents[exported.player].append(exported.percent_of_par)
    return scores, percents, seconds, pars


def main() -> None:
    """Parse the arguments, play, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="deals per table")
    parser.add_argument("--rollouts", type=int, default=24, help="Monte Carlo rollouts a cell")
    parser.add_argument("--par-budget", type=float, default=1.0, help="seconds per round's par")
    args = parser.parse_args()
    print_machine("bench/bots.py: baseline players on the same committed blind deals")
    print(
        f"{args.games} committed blind poker-squares deals per table, the same for every "
        f"player; par solved in {args.par_budget:g} s a deal"
    )
    print()
    print(
        f"{'table':<10} {'player':<14} {'mean':>7} {'95% interval':>17} "
        f"{'% of par':>9} {'95% interval':>15} {'s/deal':>7}"
    )
    with embedded_client(limits=False, organizer="bench", par_budget=args.par_budget) as client:
        for table in TABLES:
            players: dict[str, Player] = {
                "random": RandomPlayer(seed=1),
                "monte-carlo": MonteCarloPlayer(rollouts=args.rollouts, seed=1),
            }
            with bar(args.games * len(players), f"{table} games", unit="game") as done:
                scores, percents, seconds, pars = play_table(
                    client, players, table, args.games, done
                )
            for name in players:
                mean, half = (
                    statistics.fmean(scores[name]),
                    half_width(list(map(float, scores[name]))),
                )
                share, share_half = statistics.fmean(percents[name]), half_width(percents[name])
                low, high = mean - half, mean + half
                print(
                    f"{table:<10} {name:<14} {mean:>7.1f} {low:>8.1f} to {high:>5.1f} "
                    f"{share:>8.1f}% {share - share_half:>6.1f} to {share + share_half:>5.1f} "
                    f"{seconds[name] / args.games:>7.3f}"
                )
            proven = sum(par.optimal for par in pars)
            mean_par = statistics.fmean(par.score for par in pars)
            by_entrant = sum(par.by == "entrant" for par in pars)
            print(
                f"{table:<10} {'par':<14} {mean_par:>7.1f}   ({proven} of {len(pars)} proven "
                f"optimal, {by_entrant} reached by a player)"
            )
            peer = statistics.fmean(scores["random"])
            ratio = statistics.fmean(scores["monte-carlo"]) / peer if peer else float("inf")
            print(f"{table:<10} {'ratio mc/random':<14} {ratio:>7.2f}")
    print()


if __name__ == "__main__":
    main()
