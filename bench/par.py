"""Hindsight par of poker-squares: the exact search against CP-SAT and hill-climbing.

``--deals`` seeded deals (200 by default: seeds 0..N-1, the first 25 cards of a shuffled
deck) are solved per table by :func:`cardproof.solvers.hindsight.solve` with the
default budget (2 s), as POST /v1/solve does in a solver process; a deal not proven
optimal nor within 2% of its bound is solved again with ``--long`` seconds (10). Its
peers, measured on the same deals in the same run:

- ``cp-sat``: the method before the exact search (``solve(..., exact=False)``:
  hill-climbing and annealing in Python, then CP-SAT's bound on the core relaxation),
  with the same budget;
- ``hill-climbing``: plain swap hill-climbing, 20,000 steps from a shuffle.

Printed per table: the share of deals proven optimal and within 2% of their bound in
the budget (and in ``--long`` seconds), median and 95th percentile seconds, mean score,
mean gap to the bound, each peer's figures, the ratios, and the issue's targets, met or
not. Deals run ``--workers`` at a time (one process each; 1 by default, so that no two
searches share a core).

Run: ``.venv/bin/python bench/par.py [--deals N] [--budget S] [--long S] [--workers N]
[--tables american,british] [--no-cp-sat]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from _common import print_machine
from cardproof.cards import Card
from cardproof.hands import TABLES
from cardproof.progress import iterate
from cardproof.solvers.hindsight import compiled, hill_climb, solve, warm

TARGETS = {
    "american": "optimal or within 2% in 2 s >= 95%, optimal >= 85%, median <= 0.5 s",
    "british": "within 2% in 2 s >= 50%, in 10 s >= 90%",
}


def deal(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck[:25]


@dataclass(frozen=True)
class Answer:
    """One method's answer for one deal."""

    score: int
    bound: int
    optimal: bool
    seconds: float

    @property
    def within(self) -> bool:
        """Proven optimal, or the bound within 2% of the score."""
        return self.optimal or self.bound <= self.score + abs(self.score) * 0.02

    @property
    def gap(self) -> float:
        return (self.bound - self.score) / max(1, abs(self.bound))


@dataclass(frozen=True)
class Deal:
    """Every method's answers for one deal."""

    seed: int
    exact: Answer
    long: Answer | None
    cp_sat: Answer | None
    climb: int
    climb_seconds: float


def run(seed: int, table: str, budget: float, long: float, cp_sat: bool) -> Deal:
    """Solve one deal with every method (in a worker process)."""
    warm()
    cards = [Card(i) for i in deal(seed)]
    chosen = TABLES[table]

    def answer(seconds: float, *, exact: bool = True) -> Answer:
        found = solve(cards, chosen, budget=seconds, exact=exact)
        return Answer(found.score, found.upper_bound, found.optimal, found.seconds)

    exact = answer(budget)
    again = None if exact.within or long <= budget else answer(long)
    peer = answer(budget, exact=False) if cp_sat else None
    started = time.perf_counter()
    climbed, _ = hill_climb(deal(seed), chosen.points, seed=seed)
    return Deal(seed, exact, again, peer, climbed, time.perf_counter() - started)


def share(flags: list[bool]) -> str:
    return f"{sum(flags) / max(1, len(flags)):6.1%}"


def report(table: str, deals: list[Deal], budget: float, long: float) -> None:
    """Print one table's figures, its peers' and its targets."""
    n = len(deals)
    exact = [d.exact for d in deals]
    seconds = sorted(a.seconds for a in exact)
    median = statistics.median(seconds)
    p95 = seconds[max(0, int(0.95 * n) - 1)]
    within = [a.within for a in exact]
    optimal = [a.optimal for a in exact]
    within_long = [d.exact.within or (d.long is not None and d.long.within) for d in deals]
    mean = statistics.mean(a.score for a in exact)
    print(f"table {table} ({n} deals)")
    print(
        f"  exact search   optimal {share(optimal)}   within 2% {share(within)} in {budget} s, "
        f"{share(within_long)} in {long} s"
    )
    print(
        f"                 median {median:.3f} s   p95 {p95:.3f} s   mean score {mean:.1f}   "
        f"mean gap {statistics.mean(a.gap for a in exact):6.2%}"
    )
    peers = [d.cp_sat for d in deals if d.cp_sat is not None]
    if peers:
        peer_seconds = statistics.median(a.seconds for a in peers)
        print(
            f"  cp-sat (before) optimal {share([a.optimal for a in peers])}   within 2% "
            f"{share([a.within for a in peers])}   median {peer_seconds:.3f} s   mean score "
            f"{statistics.mean(a.score for a in peers):.1f}   mean gap "
            f"{statistics.mean(a.gap for a in peers):6.2%}"
        )
        better = sum(d.exact.score > d.cp_sat.score for d in deals if d.cp_sat is not None)
        print(f"                 the exact search's grid scores more on {better} deals")
    climbs = [d.climb for d in deals]
    print(
        f"  hill-climbing  mean score {statistics.mean(climbs):.1f}   "
        f"median {statistics.median(d.climb_seconds for d in deals):.3f} s (20,000 steps)"
    )
    print(f"  ratio exact/hill-climbing mean score {mean / statistics.mean(climbs):.3f}")
    if table == "american":
        met = sum(within) >= 0.95 * n and sum(optimal) >= 0.85 * n and median <= 0.5
    elif table == "british":
        met = sum(within) >= 0.5 * n and sum(within_long) >= 0.9 * n
    else:
        met = True
    print(f"  target ({TARGETS.get(table, 'none')}): {'met' if met else 'NOT met'}")
    print()


def main() -> None:
    """Parse the arguments, solve, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--long", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--tables", default="american,british")
    parser.add_argument("--no-cp-sat", dest="cp_sat", action="store_false")
    args = parser.parse_args()
    if compiled() is None:
        raise SystemExit("the compiled kernel is not installed: run `make test` or `make run`")
    print_machine("bench/par.py: poker-squares hindsight par")
    print(
        f"{args.deals} seeded deals (seeds 0..{args.deals - 1}), budget {args.budget} s each "
        f"(again with {args.long} s when not within 2%), {args.workers} at a time"
    )
    print()
    with ProcessPoolExecutor(args.workers) as pool:
        for table in args.tables.split(","):
            jobs = [
                pool.submit(run, seed, table, args.budget, args.long, args.cp_sat)
                for seed in range(args.deals)
            ]
            done = [job.result() for job in iterate(jobs, f"{table} deals", unit="deal")]
            report(table, done, args.budget, args.long)


if __name__ == "__main__":
    main()
