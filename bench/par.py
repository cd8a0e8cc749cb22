"""Hindsight par of poker-squares: best found, proven bound and time, against hill-climbing.

``--deals`` seeded deals (100 by default: seeds 0..N-1, the first 25 cards of a shuffled
deck) are solved by :func:`cardproof.solvers.hindsight.solve` with the default budget
(2 s), as POST /v1/solve does in a solver process. Printed per table: the share of
deals proven optimal, the share within 2% of their bound, the median and 95th
percentile seconds, the mean gap to the bound; and the peers measured in the same run:
plain swap hill-climbing (20,000 steps, the answer's floor) with its mean score and
seconds, and the ratio of the solver's mean to it. The exact method (CP-SAT over the
core relaxation) is the bound's own half: its figures are the bound's.

The issue's goal (>= 95% of deals optimal or within 2% of their bound in 2 s, median
<= 500 ms) is printed beside the figures, met or not.

Run: ``.venv/bin/python bench/par.py [--deals N] [--budget S] [--tables american,british]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from _common import print_machine
from cardproof.cards import Card
from cardproof.hands import TABLES
from cardproof.solvers.hindsight import hill_climb, solve, warm


def deal(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck[:25]


def main() -> None:
    """Parse the arguments, solve, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--tables", default="american,british")
    args = parser.parse_args()
    warm()
    print_machine("bench/par.py: poker-squares hindsight par")
    print(f"{args.deals} seeded deals (seeds 0..{args.deals - 1}), budget {args.budget} s each")
    print()
    for name in args.tables.split(","):
        table = TABLES[name]
        gaps, seconds, scores, climbs, climb_seconds = [], [], [], [], []
        optimal = within = 0
        for seed in range(args.deals):
            cards = deal(seed)
            found = solve([Card(i) for i in cards], table, budget=args.budget)
            started = time.perf_counter()
            climbed, _ = hill_climb(cards, table.points, seed=seed)
            climb_seconds.append(time.perf_counter() - started)
            climbs.append(climbed)
            scores.append(found.score)
            seconds.append(found.seconds)
            gap = (found.upper_bound - found.score) / max(1, abs(found.upper_bound))
            gaps.append(gap)
            optimal += found.optimal
            within += found.optimal or gap <= 0.02
            if found.score < climbed:
                print(f"  deal {seed}: solver {found.score} below hill-climbing {climbed}")
        n = args.deals
        median = statistics.median(seconds)
        p95 = sorted(seconds)[max(0, int(0.95 * n) - 1)]
        share = within / n
        print(f"table {name}")
        print(
            f"  solver         mean {statistics.mean(scores):7.1f}   optimal {optimal / n:6.1%}   "
            f"within 2% of bound {share:6.1%}   mean gap {statistics.mean(gaps):6.1%}"
        )
        print(f"                 median {median:.3f} s   p95 {p95:.3f} s")
        print(
            f"  hill-climbing  mean {statistics.mean(climbs):7.1f}   "
            f"median {statistics.median(climb_seconds):.3f} s (20,000 steps)"
        )
        ratio = statistics.mean(scores) / statistics.mean(climbs)
        print(f"  ratio solver/hill-climbing mean score {ratio:.3f}")
        goal = share >= 0.95 and median <= 0.5
        print(
            f"  goal (>= 95% within 2% in {args.budget} s, median <= 0.5 s): "
            f"{'met' if goal else 'NOT met'}"
        )
        print()


if __name__ == "__main__":
    main()
