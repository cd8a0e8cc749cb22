"""Bots: the two baseline players of cardproof.bots on committed blind deals, per table.

Each player plays ``--games`` committed blind poker-squares deals (200 by default) on an
embedded server (the app in-process, memory store, throwaway keys) through the SDK, as
``cardproof bots run`` does, under the American, British and Ameritish tables (the last
drawn from each deal's seeds). Each receipt is checked against the game played. Printed:
per table and player the mean score with its 95% interval, the seconds per deal, and the
ratio of the Monte Carlo player's mean to the random player's (the peer, measured in the
same run). The deals differ between runs and players (committed deals take fresh server
seeds). Percentages of par are not given: poker-squares has no hindsight par yet.

Run: ``.venv/bin/python bench/bots.py [--games N] [--rollouts R]``
"""

from __future__ import annotations

import argparse

from _common import print_machine
from cardproof.bots import MonteCarloPlayer, Player, RandomPlayer, Report, play_games
from cardproof.play import embedded_client

TABLES = ("american", "british", "ameritish")


def main() -> None:
    """Parse the arguments, play, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="deals per player and table")
    parser.add_argument("--rollouts", type=int, default=24, help="Monte Carlo rollouts a cell")
    args = parser.parse_args()
    print_machine("bench/bots.py: baseline players on committed blind deals")
    print(f"{args.games} committed blind poker-squares deals per player and table")
    print()
    print(f"{'table':<10} {'player':<18} {'mean':>7} {'95% interval':>17} {'s/deal':>7}")
    with embedded_client(limits=False) as client:
        for table in TABLES:
            reports: dict[str, Report] = {}
            players: dict[str, Player] = {
                "random": RandomPlayer(seed=1),
                "monte-carlo": MonteCarloPlayer(rollouts=args.rollouts, seed=1),
            }
            for name, player in players.items():
                report = play_games(client, player, games=args.games, options={"scoring": table})
                reports[name] = report
                low, high = report.mean - report.half_width, report.mean + report.half_width
                print(
                    f"{table:<10} {name:<18} {report.mean:>7.1f} {low:>8.1f} to {high:>5.1f} "
                    f"{report.seconds / args.games:>7.3f}"
                )
            peer = reports["random"].mean
            ratio = reports["monte-carlo"].mean / peer if peer else float("inf")
            print(f"{table:<10} {'ratio mc/random':<18} {ratio:>7.2f}")
    print()


if __name__ == "__main__":
    main()
