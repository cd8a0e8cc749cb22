"""Serpent-patience par: the exact solver against a fair exhaustive search.

Measures ``cardproof.solvers.serpent.solve(cards, TABLES["british"])`` on 50 random deals
(``random.Random(2026)``; a deal is the first 25 cards of a random permutation of the
standard deck): the one-time path-table build (``serpent.prepare()``) on its own, then
median / p90 / max per deal. The peer is a fair exhaustive search written here: the
8,648 directed Hamiltonian rook paths of the 5x5 grid listed once (by DFS, outside the
timing, as the solver's table is), then per deal every path's ten lines scored with
cardproof's own classifier (``classify_indices`` and the table's points), the best kept.
It runs on the first few deals, checked against the solver's best total. For reference,
the older plain search that also enumerates the paths again for every deal is timed on
one deal.

Run: ``.venv/bin/python bench/serpent.py [--deals N] [--plain-deals K]``
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from _common import load_average, median, percentile, print_machine, verdict
from cardproof.cards import STANDARD_DECK, Card
from cardproof.games import SerpentPatience
from cardproof.games.grid import ROW_AND_COLUMN_LINES, Cell, score_grid
from cardproof.hands import TABLES, PointTable, classify_indices
from cardproof.progress import iterate
from cardproof.solvers import serpent

SEED = 2026
SIZE = 5
CELLS = SIZE * SIZE
PATHS = 8648
TARGET_SOLVER_MS = 1.5
TARGET_RATIO = 20.0

Scorer = Callable[[list[Card], PointTable], int]


def deals(count: int, seed: int) -> list[list[Card]]:
    """``count`` deals: the first 25 cards of a random permutation of the standard deck."""
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        deck = list(STANDARD_DECK)
        rng.shuffle(deck)
        result.append(deck[:CELLS])
    return result


# --- the plain search ---------------------------------------------------------------------


def neighbours() -> list[list[int]]:
    """Orthogonal neighbours of each cell (``row * 5 + col``)."""
    return [
        [
            (r + dr) * SIZE + c + dc
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
        ]
        for r in range(SIZE)
        for c in range(SIZE)
    ]


def score_by_grid(grid: list[Card], table: PointTable) -> int:
    """The grid's total by the engine's ``score_grid`` (10 lines)."""
    return score_grid(grid, table).total


def plain_search(
    cards: Sequence[Card], table: PointTable, scorer: Scorer
) -> tuple[int, int, tuple[int, ...]]:
    """Enumerate every directed rook path by DFS (per deal) and score each layout.

    Returns the best total, the number of paths seen and the first path reaching it.
    """
    adjacent = neighbours()
    used = [False] * CELLS
    path: list[int] = []
    best = -(10**9)
    best_path: tuple[int, ...] = ()
    count = 0

    def extend(cell: int) -> None:
        nonlocal best, best_path, count
        if len(path) == CELLS:
            count += 1
            grid: list[Card] = [cards[0]] * CELLS
            for position, at in enumerate(path):
                grid[at] = cards[position]
            total = scorer(grid, table)
            if total > best:
                best, best_path = total, tuple(path)
            return
        for nxt in adjacent[cell]:
            if not used[nxt]:
                used[nxt] = True
                path.append(nxt)
                extend(nxt)
                path.pop()
                used[nxt] = False

    for start in range(CELLS):
        used[start] = True
        path.append(start)
        extend(start)
        path.pop()
        used[start] = False
    return best, count, best_path


def fair_search(
    cards: Sequence[Card], table: PointTable, paths: Sequence[tuple[int, ...]]
) -> tuple[int, tuple[int, ...]]:
    """The best total over ``paths`` (listed once): each path's ten lines classified.

    Card ``i`` lies on the path's ``i``-th cell; a line's hand is the five cards on its
    cells, classified by ``classify_indices`` and scored by the table.
    """
    deal = [card.index for card in cards[:CELLS]]
    points = table.points
    lines = [cells for _, cells in ROW_AND_COLUMN_LINES]
    best, best_path = -(10**9), paths[0]
    grid = [0] * CELLS
    for path in paths:
        for position, cell in enumerate(path):
            grid[cell] = deal[position]
        total = 0
        for a, b, c, d, e in lines:
            total += points[classify_indices((grid[a], grid[b], grid[c], grid[d], grid[e]))]
        if total > best:
            best, best_path = total, path
    return best, best_path


def plain_paths() -> set[tuple[int, ...]]:
    """Every directed rook path, by the same plain DFS (for the path-set check)."""
    adjacent = neighbours()
    found: set[tuple[int, ...]] = set()
    path: list[int] = []

    def extend(cell: int) -> None:
        if len(path) == CELLS:
            found.add(tuple(path))
            return
        for nxt in adjacent[cell]:
            if nxt not in path:
                path.append(nxt)
                extend(nxt)
                path.pop()

    for start in iterate(range(CELLS), "path starts", unit="cell"):  # a bar on a terminal
        path.append(start)
        extend(start)
        path.pop()
    return found


def replay_total(cards: Sequence[Card], path: Sequence[int], table: PointTable) -> int:
    """Play ``path`` as a serpent-patience game (the rules engine checks it) and score it."""
    moves = [Cell(row=cell // SIZE, col=cell % SIZE) for cell in path]
    return SerpentPatience.replay(cards, {"scoring": table.name}, moves).score().total


# --- main -----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50, help="solver deals (default 50)")
    parser.add_argument("--plain-deals", type=int, default=5, help="plain-search deals (5)")
    args = parser.parse_args()

    print_machine("bench/serpent.py: serpent-patience exact par")
    table = TABLES["british"]
    all_deals = deals(args.deals, SEED)

    start = time.perf_counter()
    serpent.prepare()
    prepare_ms = (time.perf_counter() - start) * 1e3
    print(f"serpent.prepare() (one-time path table, this process): {prepare_ms:.0f} ms")

    solver_ms: list[float] = []
    solver_best: list[int] = []
    problems = 0
    for cards in all_deals:
        times = []
        for _ in range(3):  # best of 3 per deal: the machine is noisy
            start = time.perf_counter()
            solution = serpent.solve(cards, table)
            times.append((time.perf_counter() - start) * 1e3)
        solver_ms.append(min(times))
        solver_best.append(solution.score.total)
        if replay_total(cards, solution.path, table) != solution.score.total:
            problems += 1
            print(f"  PROBLEM: the solver's path does not replay to {solution.score.total}")
    print(
        f"serpent.solve on {len(all_deals)} deals (best of 3 each), table british: "
        f"median {median(solver_ms):.2f} ms, p90 {percentile(solver_ms, 0.9):.2f} ms, "
        f"max {max(solver_ms):.2f} ms, min {min(solver_ms):.2f} ms"
    )
    print(
        f"  best totals: median {median(solver_best):.0f}, min {min(solver_best)}, "
        f"max {max(solver_best)}; solver paths replayed by SerpentPatience: "
        f"{len(all_deals) - problems} ok, {problems} wrong"
    )
    print()

    found = plain_paths()
    same_set = found == set(serpent.all_paths())
    print(
        f"plain DFS finds {len(found)} directed paths (expected {PATHS}); "
        f"same set as the solver's all_paths(): {same_set}"
    )
    if len(found) != PATHS or not same_set:
        print("  !!! PATH SET MISMATCH !!!")
        problems += 1

    paths = sorted(found)
    fair_ms: list[float] = []
    print(
        "fair exhaustive search (paths listed once, classify_indices), first "
        f"{args.plain_deals} deals:"
    )
    print(f"  {'deal':>4} {'solver':>7} {'fair best':>10} {'fair ms':>8}")
    for number, cards in enumerate(all_deals[: args.plain_deals]):
        start = time.perf_counter()
        best, _ = fair_search(cards, table, paths)
        fair_ms.append((time.perf_counter() - start) * 1e3)
        print(f"  {number:>4} {solver_best[number]:>7} {best:>10} {fair_ms[-1]:>8.1f}")
        if best != solver_best[number]:
            problems += 1
            print(f"  !!! MISMATCH on deal {number}: the fair search differs from the solver !!!")
    start = time.perf_counter()
    plain_best, count, _ = plain_search(all_deals[0], table, score_by_grid)
    plain_ms = (time.perf_counter() - start) * 1e3
    if plain_best != solver_best[0] or count != PATHS:
        problems += 1
    print(
        f"  (for reference, the old plain search that enumerates the paths per deal and "
        f"scores with score_grid: {plain_ms:.0f} ms on deal 0)"
    )
    print()

    solver_median = median(solver_ms)
    fair_median = median(fair_ms)
    ratio = fair_median / solver_median
    print(f"median solver ms:                 {solver_median:.2f}")
    print(f"median fair search ms:            {fair_median:.1f}")
    print(f"ratio fair search / solver:       {ratio:.1f}")
    print(f"problems (mismatches, bad replays): {problems}")
    print()
    print(f"load average at the end: {load_average()} (2 logical CPUs; other work skews figures)")
    print(
        verdict(
            f"solver median <= {TARGET_SOLVER_MS} ms",
            solver_median <= TARGET_SOLVER_MS,
            f"{solver_median:.2f} ms",
        )
    )
    print(
        verdict(
            f"ratio fair search/solver >= {TARGET_RATIO:.0f}",
            ratio >= TARGET_RATIO,
            f"{ratio:.1f} (the paths listed once, the same classifier)",
        )
    )
    print(verdict("the searches agree with the solver", problems == 0, f"{problems} problems"))


if __name__ == "__main__":
    main()
