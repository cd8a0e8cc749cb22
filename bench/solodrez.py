"""SoloDrez solver: how many random deals it decides within a budget, and how fast.

Deals: 100 fixed seeds (server seed ``i.to_bytes(32, "big")``, client seed ``bench``,
i = 0..N-1) dealt by ``SoloDrez.deal_cards``. Each deal is solved by
``cardproof.solvers.solodrez.solve(game, budget=2.0)``; the wall time around the call is
the time to a decision. Printed: the share decided (won or lost), won and lost; median
and p90 time over the decided deals; states expanded per second over all deals; the
winning lines' lengths; the worst overrun of the budget. Every winning line is played
through the engine (``SoloDrez.replay``) and must win.

The named peer, measured in the same run on the same deals with the same budget, is a
plain search written here: depth-first with a visited set keyed on the columns' figures
in their real order (no column-order dedup), moves in the engine's order (removes, then
transfers by source column, run length, destination; runs found with the engine's
``run_heads``), no move ordering, the same 10,000-move line bound. Its wins are
replayed too, and where both decide a deal they must agree. Ratio lines compare the
two.

Run: ``.venv/bin/python bench/solodrez.py [--deals N] [--budget S] [--plain-deals K]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from _common import load_average, median, percentile, print_machine, verdict
from cardproof.cards import Card
from cardproof.errors import IllegalMove
from cardproof.games.solodrez import MAX_MOVES, SoloDrez, SoloDrezMove, run_heads
from cardproof.pokerdrez import NEUTRAL, PAWN, POKERDREZ_DECK
from cardproof.progress import bar
from cardproof.solvers.solodrez import solve

CLIENT_SEED = "bench"
TARGET_DECIDED = 0.90
TARGET_MEDIAN_MS = 200.0
CHECK_EVERY = 128

Columns = tuple[tuple[int, ...], ...]


def deal(i: int) -> tuple[Card, ...]:
    """Deal ``i`` of the benchmark: a fixed seed pair."""
    options = SoloDrez.parse_options(None)
    return SoloDrez.deal_cards(i.to_bytes(32, "big"), CLIENT_SEED, options)


def replays_to_a_win(cards: Sequence[Card], moves: Sequence[SoloDrezMove]) -> bool:
    """Whether ``moves`` played from the deal by the engine win it."""
    try:
        return SoloDrez.replay(cards, None, moves).won
    except IllegalMove:
        return False


# --- the plain search -------------------------------------------------------------------


def plain_moves(columns: Columns) -> list[tuple[int, int, int]]:
    """Legal moves in the engine's order: removes, then transfers by (source, length, target).

    A move is ``(a, 0, -1)`` for a remove, ``(a, n, b)`` for a transfer.
    """
    found = [(a, 0, -1) for a, column in enumerate(columns) if column == (0, 1, 2, 3, 4, 5)]
    for a, source in enumerate(columns):
        for n in range(1, min(6, len(source)) + 1):
            heads = run_heads(source[-n:])
            if heads is None:
                break
            lo, hi = heads
            for b, target in enumerate(columns):
                if b == a:
                    continue
                if not target:
                    legal = lo == 0
                else:
                    top = target[-1]
                    legal = top != PAWN and hi != 0 and (top == NEUTRAL or lo <= top + 1 <= hi)
                if legal:
                    found.append((a, n, b))
    return found


def plain_search(cards: Sequence[Card], budget: float) -> tuple[str, list[SoloDrezMove], int]:
    """Depth-first search, visited set on the real column order, no ordering, no dedup."""
    deadline = time.perf_counter() + budget
    game = SoloDrez.new(cards)
    root: Columns = tuple(
        tuple(POKERDREZ_DECK[card.index].figure for card in column) for column in game.columns
    )
    figures = sum(f != NEUTRAL for column in root for f in column)
    seen = {root}
    stack: list[tuple[Columns, int, tuple[int, int, int] | None, int]] = [(root, 0, None, figures)]
    path: list[tuple[int, int, int]] = []
    expanded = 0
    capped = False
    while stack:
        if not expanded % CHECK_EVERY and time.perf_counter() > deadline:
            return "unknown", [], expanded
        columns, depth, step, left = stack.pop()
        del path[max(depth - 1, 0) :]
        if step is not None:
            path.append(step)
        if not left:
            moves = [
                SoloDrezMove(remove=a) if n == 0 else SoloDrezMove(from_=a, count=n, to=b)
                for a, n, b in path
            ]
            return "won", moves, expanded
        expanded += 1
        if depth >= MAX_MOVES:
            capped = True
            continue
        children = []
        for a, n, b in plain_moves(columns):
            after = list(columns)
            if n == 0:
                after[a] = ()
            else:
                after[b] = columns[b] + columns[a][-n:]
                after[a] = columns[a][:-n]
            child = tuple(after)
            if child not in seen:
                seen.add(child)
                children.append((child, depth + 1, (a, n, b), left - 6 * (n == 0)))
        stack.extend(reversed(children))  # the engine's first move is searched first
    return ("unknown" if capped else "lost"), [], expanded


# --- main -------------------------------------------------------------------------------


class Tally:
    """Results of one searcher over the deals."""

    def __init__(self) -> None:
        self.results: list[str] = []
        self.seconds: list[float] = []
        self.states = 0
        self.lengths: list[int] = []
        self.bad_lines = 0

    def add(self, result: str, seconds: float, states: int) -> None:
        self.results.append(result)
        self.seconds.append(seconds)
        self.states += states

    def share(self, *results: str) -> float:
        return sum(r in results for r in self.results) / len(self.results)

    def decided_seconds(self) -> list[float]:
        return [s for r, s in zip(self.results, self.seconds, strict=True) if r != "unknown"]

    def line(self, name: str) -> str:
        decided = self.decided_seconds()
        times = (
            f"median {median(decided) * 1e3:.1f} ms, p90 {percentile(decided, 0.9) * 1e3:.1f} ms"
            if decided
            else "no deal decided"
        )
        return (
            f"{name}: decided {self.share('won', 'lost'):.1%} (won {self.share('won'):.1%}, "
            f"lost {self.share('lost'):.1%}, unknown {self.share('unknown'):.1%}); "
            f"time to a decision {times}; "
            f"{self.states / sum(self.seconds):,.0f} states/s"
        )


def compare_plain(
    deals: Sequence[Sequence[Card]], solver: Tally, budget: float
) -> tuple[Tally, int]:
    """Run the plain search on ``deals`` and print it beside the solver's figures."""
    plain = Tally()
    plain_count = len(deals)
    disagree = 0
    with bar(len(deals), "plain search", unit="deal") as done:  # on a terminal only
        for i, cards in enumerate(deals):
            start = time.perf_counter()
            result, moves, states = plain_search(cards, budget)
            seconds = time.perf_counter() - start
            plain.add(result, seconds, states)
            if result == "won":
                plain.lengths.append(len(moves))
                if not replays_to_a_win(cards, moves):
                    plain.bad_lines += 1
                    done.print(f"  PROBLEM: deal {i}: the plain search's line does not win")
            theirs = solver.results[i]
            if "unknown" not in (result, theirs) and result != theirs:
                disagree += 1
                done.print(f"  !!! deal {i}: solver says {theirs}, plain search says {result} !!!")
            done.advance()
    print(f"plain search on the first {plain_count} deals, same budget:")
    print(plain.line("plain "))
    if plain.lengths:
        print(
            f"  winning lines: median {median(plain.lengths):.0f} moves, max "
            f"{max(plain.lengths)}; replayed: {len(plain.lengths) - plain.bad_lines} win, "
            f"{plain.bad_lines} fail; disagreements with the solver: {disagree}"
        )
    same = Tally()
    for r, s in zip(solver.results[:plain_count], solver.seconds[:plain_count], strict=True):
        same.add(r, s, 0)
    both = [
        (p, s)
        for p, s, rp, rs in zip(
            plain.seconds, same.seconds, plain.results, same.results, strict=True
        )
        if "unknown" not in (rp, rs)
    ]
    print(
        f"ratio plain/solver, mean wall time per deal (unknowns count as the budget): "
        f"{sum(plain.seconds) / sum(same.seconds):.1f}"
    )
    if both:
        ratio = median([p / s for p, s in both])
        print(f"ratio plain/solver, per deal, median over the {len(both)} both decide: {ratio:.1f}")
    print(
        f"decided: solver {same.share('won', 'lost'):.1%}, plain "
        f"{plain.share('won', 'lost'):.1%} (same deals)"
    )
    print()
    return plain, disagree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals (default 100)")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per deal (2.0)")
    parser.add_argument(
        "--plain-deals", type=int, default=None, help="deals for the plain search (all)"
    )
    args = parser.parse_args()
    plain_count = args.deals if args.plain_deals is None else min(args.plain_deals, args.deals)

    print_machine("bench/solodrez.py: SoloDrez solver, won / lost / unknown within a budget")
    print(
        f"{args.deals} deals (server seed i.to_bytes(32, 'big'), client seed {CLIENT_SEED!r}), "
        f"budget {args.budget:g} s each"
    )
    deals = [deal(i) for i in range(args.deals)]

    solver = Tally()
    overruns: list[float] = []
    with bar(len(deals), "solver", unit="deal") as done:  # on a terminal only
        for i, cards in enumerate(deals):
            game = SoloDrez.new(cards)
            start = time.perf_counter()
            solution = solve(game, budget=args.budget)
            seconds = time.perf_counter() - start
            solver.add(solution.result, seconds, solution.states_searched)
            if solution.result == "won":
                solver.lengths.append(len(solution.moves))
                if not replays_to_a_win(cards, solution.moves):
                    solver.bad_lines += 1
                    done.print(f"  PROBLEM: deal {i}: the solver's line does not win on replay")
            elif solution.result == "unknown":
                overruns.append(seconds - args.budget)
                searched = solution.states_searched
                done.print(f"  deal {i}: unknown after {seconds:.2f} s, {searched} states")
            done.advance()
    print(solver.line("solver"))
    print(
        f"  winning lines: median {median(solver.lengths):.0f} moves, max "
        f"{max(solver.lengths)}; replayed by the engine: {len(solver.lengths) - solver.bad_lines}"
        f" win, {solver.bad_lines} fail"
    )
    if overruns:
        print(f"  unknowns: worst time past the budget {max(overruns) * 1e3:.1f} ms")
    print()

    plain, disagree = Tally(), 0
    if plain_count:
        plain, disagree = compare_plain(deals[:plain_count], solver, args.budget)
    decided = solver.share("won", "lost")
    decided_ms = median(solver.decided_seconds()) * 1e3
    problems = solver.bad_lines + plain.bad_lines + disagree
    print(f"load average at the end: {load_average()}")
    print(verdict(f"decided >= {TARGET_DECIDED:.0%}", decided >= TARGET_DECIDED, f"{decided:.1%}"))
    print(
        verdict(
            f"median time to a decision <= {TARGET_MEDIAN_MS:.0f} ms",
            decided_ms <= TARGET_MEDIAN_MS,
            f"{decided_ms:.1f} ms",
        )
    )
    print(verdict("every winning line replays to a win", problems == 0, f"{problems} problems"))


if __name__ == "__main__":
    main()
