"""Proven-optimal hindsight par of poker-squares deals, by CP-SAT: writes test vectors.

An offline generator, run once by hand (never by the tests): for seeded deals (the
first 25 cards of ``deck = list(range(52)); random.Random(seed).shuffle(deck)``) it
proves the best total score of a 5x5 grid of the 25 cards, the five rows and five
columns scored by a point table (no diagonals), and writes the optimum and a grid
reaching it to ``tests/vectors/par-exact-v1.json``. Those vectors are used by the tests
of the branch-and-bound par solver, so they are made here by other means: an exact
CP-SAT model of the whole grid, whose optimum is taken only when CP-SAT reports
OPTIMAL; every grid written is scored again by the engine (``TRIE`` and the table)
and must equal the optimum.

Run: ``.venv/bin/python bench/par_vectors.py [--american N] [--british N]
[--negative N] [--time-limit S]``: N proven deals per table (seeds 0, 1, 2, ... in
turn; a deal not proven in S seconds is recorded under ``not_proven`` and the next
seed is tried). ``negative`` is a custom table where high card scores and some
categories lose points.

The models. The plain set model (a boolean for each of the C(25,5) = 53,130 hands
as a row and as a column, rows and columns each partitioning the cards, two cards in
at most one chosen line) is exact, but its linear relaxation is weak: on seed 0 CP-SAT
still had a bound of 285 over the optimum 172 after 300 s. Two exact models replace it;
both place the cards on the grid for real (``row[c]``, ``col[c]``, one card a cell,
rows and columns numbered in order of first use by the deal's cards, and the rows
worth at least the columns: a grid, its row and column permutations and its
transpose score the same), and differ in how a line is scored:

- ``cores`` (tables where a line is worth its best core): a core is a set of cards
  that makes a category (the two cards of a pair, a two pair's four, a flush's five);
  a row core is chosen with ``yR[q]``, which forces its cards into one row (and
  ``yC[q]`` into one column), and the objective is ten times the high-card points plus
  the chosen cores' points over high card. It is exact when, for every five cards of
  the deal, their best core is worth what the five are, and two disjoint cores in them
  together are worth no more: then a grid's best choice of cores is its score, and no
  choice is worth more. The generator checks this on all 53,130 hands of each deal
  before using the model (it holds for the american and british tables).
- ``lines`` (any table): each line's score is high card plus a term by ``P``, the
  number of pairs of equal-rank cards in the line (1 pair, 2 two pair, 3 trips,
  4 full house, 6 quads), plus the points of the line if its five cards are a straight,
  flush, full house, straight or royal flush of the deal. Such a five that gains is
  chosen with ``yR``/``yC`` as above; one that loses is reified per line and counted
  whenever its five cards share the line. The formula is checked on all 53,130 hands.

Both carry valid cuts that keep the best grid: a card is in at most one chosen row
core and one column core, two cards share at most one chosen line, at most five row
and five column cores, a five-card row core and a five-card column core are not
disjoint. A hint (the best of a few simulated annealings) gives CP-SAT its first
grid; the proof is CP-SAT's OPTIMAL status alone.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import json
import math
import platform
import random
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ortools.sat.python import cp_model

ROOT: Final = Path(__file__).resolve().parent.parent
SDK: Final = ROOT / "sdk"
if SDK.is_dir() and str(SDK) not in sys.path:  # run from a checkout without an install
    sys.path.insert(0, str(SDK))

from cardproof.cards import Card  # noqa: E402
from cardproof.hands import CATEGORY_IDS, TABLES, TRIE, PointTable  # noqa: E402

OUT: Final = ROOT / "tests" / "vectors" / "par-exact-v1.json"
SIZE: Final = 5
CELLS: Final = SIZE * SIZE
NEGATIVE: Final = PointTable("custom", (5, -3, 4, -10, 12, -6, 9, -20, 30, 40, 0))
"""High card 5, pair -3, two pair 4, trips -10, straight 12, flush -6, full house 9,
quads -20, straight flush 30, royal flush 40 (five of a kind cannot occur)."""
FULL_HOUSE: Final = 6
PAIRS_CATEGORY: Final = {0: 0, 1: 1, 2: 2, 3: 3, 4: FULL_HOUSE, 6: 7}
"""Category of five cards of which ``P`` pairs share a rank (no straight or flush)."""
ANNEAL_STEPS: Final = 150_000
ANNEAL_RUNS: Final = 3


def deal(seed: int) -> list[int]:
    """The first 25 cards of the deck shuffled by ``random.Random(seed)``."""
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck[:CELLS]


def category(cards: Iterable[int]) -> int:
    """Category number of five card indices, by the engine's trie."""
    a, b, c, d, e = sorted(cards)
    result: int = TRIE[a][b][c][d][e]
    return result


def lines_of(grid: Sequence[int]) -> list[list[int]]:
    """The five rows then the five columns of a grid held row by row."""
    rows = [list(grid[r * SIZE : r * SIZE + SIZE]) for r in range(SIZE)]
    cols = [list(grid[c::SIZE]) for c in range(SIZE)]
    return rows + cols


def grid_score(grid: Sequence[int], points: Sequence[int]) -> int:
    """Total points of the ten lines of a grid of card indices."""
    return sum(points[category(line)] for line in lines_of(grid))


def anneal(cards: Sequence[int], points: Sequence[int], seed: int) -> tuple[int, list[int]]:
    """Simulated annealing over swaps of two cells: the best score and grid it saw."""
    rng = random.Random(seed)
    grid = list(cards)
    rng.shuffle(grid)
    current = best = grid_score(grid, points)
    best_grid = list(grid)
    hot, cold = 10.0, 0.2
    for step in range(ANNEAL_STEPS):
        heat = hot * (cold / hot) ** (step / ANNEAL_STEPS)
        i, j = rng.randrange(CELLS), rng.randrange(CELLS)
        if i == j:
            continue
        grid[i], grid[j] = grid[j], grid[i]
        score = grid_score(grid, points)
        if score >= current or rng.random() < math.exp((score - current) / heat):
            current = score
            if current > best:
                best, best_grid = current, list(grid)
        else:
            grid[i], grid[j] = grid[j], grid[i]
    return best, best_grid


def cores(cards: Sequence[int]) -> dict[tuple[int, ...], int]:
    """Every core of the deal (sorted positions in ``cards``) with its category.

    Pairs, trips, quads, two pairs and full houses by rank; every five of one suit
    (flush, straight flush or royal flush) and of five consecutive ranks (straight,
    or a straight flush when also one suit).
    """
    by_rank = [[i for i, c in enumerate(cards) if c % 13 == r] for r in range(13)]
    by_suit = [[i for i, c in enumerate(cards) if c // 13 == s] for s in range(4)]
    found: dict[tuple[int, ...], int] = {}
    pairs: list[tuple[int, tuple[int, ...]]] = []
    trips: list[tuple[int, tuple[int, ...]]] = []
    for rank, held in enumerate(by_rank):
        for pair in itertools.combinations(held, 2):
            found[pair] = 1
            pairs.append((rank, pair))
        for three in itertools.combinations(held, 3):
            found[three] = 3
            trips.append((rank, three))
        for four in itertools.combinations(held, 4):
            found[four] = 7
    for (rank1, pair1), (rank2, pair2) in itertools.combinations(pairs, 2):
        if rank1 != rank2:
            found[tuple(sorted(pair1 + pair2))] = 2
    for rank1, held3 in trips:
        for rank2, held2 in pairs:
            if rank1 != rank2:
                found[tuple(sorted(held3 + held2))] = FULL_HOUSE
    windows = [[12, 0, 1, 2, 3], *([r + k for k in range(5)] for r in range(9))]
    fives: list[tuple[int, ...]] = [
        five for held in by_suit for five in itertools.combinations(held, 5)
    ]
    fives += [five for w in windows for five in itertools.product(*(by_rank[r] for r in w))]
    for five in fives:
        key = tuple(sorted(five))
        found[key] = category(cards[i] for i in key)
    return found


def cores_model_exact(cards: Sequence[int], points: Sequence[int]) -> bool:
    """Whether the ``cores`` model is exact for this deal and table (see the docstring).

    For every five of the 25 cards: the best gaining core inside is worth exactly what
    the five are worth over high card (nothing when none gains, and then the five must
    not lose), and no two disjoint gaining cores inside are worth more together.
    """
    high = points[0]
    gain = {q: points[c] - high for q, c in cores(cards).items() if points[c] > high}
    for hand in itertools.combinations(range(CELLS), 5):
        inside = [
            (frozenset(sub), gain[sub])
            for size in (2, 3, 4, 5)
            for sub in itertools.combinations(hand, size)
            if sub in gain
        ]
        worth = points[category(cards[i] for i in hand)] - high
        if max((g for _, g in inside), default=0) != worth:
            return False
        for (one, g1), (two, g2) in itertools.combinations(inside, 2):
            if not one & two and g1 + g2 > worth:
                return False
    return True


def lines_model_exact(cards: Sequence[int], points: Sequence[int]) -> bool:
    """Whether the ``lines`` model's line formula gives every five of the deal its points."""
    high = points[0]
    fives = {q: points[c] - high for q, c in cores(cards).items() if len(q) == 5}
    for hand in itertools.combinations(range(CELLS), 5):
        pairs = sum(cards[a] % 13 == cards[b] % 13 for a, b in itertools.combinations(hand, 2))
        by_pairs = 0 if pairs == 4 else points[PAIRS_CATEGORY[pairs]] - high
        if high + by_pairs + fives.get(hand, 0) != points[category(cards[i] for i in hand)]:
            return False
    return True


@dataclass
class Grid:
    """The real grid of a model: where each card (a position in the deal) goes."""

    row: list[cp_model.IntVar]
    col: list[cp_model.IntVar]
    cell: list[list[cp_model.IntVar]]
    """``cell[c][p]``: card c is in cell p (row-major)."""
    member: list[list[cp_model.IntVar]]
    """``member[c][line]``: card c is in line (rows 0..4, then columns 5..9)."""


def add_grid(model: cp_model.CpModel) -> Grid:
    """One card a cell, one cell a card; rows and columns numbered by first use."""
    row = [model.new_int_var(0, SIZE - 1, f"row{c}") for c in range(CELLS)]
    col = [model.new_int_var(0, SIZE - 1, f"col{c}") for c in range(CELLS)]
    cell = [[model.new_bool_var(f"x{c}_{p}") for p in range(CELLS)] for c in range(CELLS)]
    member = [[model.new_bool_var(f"m{c}_{k}") for k in range(2 * SIZE)] for c in range(CELLS)]
    for c in range(CELLS):
        model.add_exactly_one(cell[c])
        model.add(row[c] == sum((p // SIZE) * cell[c][p] for p in range(CELLS)))
        model.add(col[c] == sum((p % SIZE) * cell[c][p] for p in range(CELLS)))
        for i in range(SIZE):
            model.add(member[c][i] == sum(cell[c][SIZE * i + j] for j in range(SIZE)))
            model.add(member[c][SIZE + i] == sum(cell[c][SIZE * j + i] for j in range(SIZE)))
    for p in range(CELLS):
        model.add_exactly_one(cell[c][p] for c in range(CELLS))
    for numbers in (row, col):  # value precedence: a row's number is at most 1 + those before
        model.add(numbers[0] == 0)
        seen = numbers[0]
        for c in range(1, CELLS):
            model.add(numbers[c] <= seen + 1)
            most = model.new_int_var(0, SIZE - 1, "")
            model.add_max_equality(most, [seen, numbers[c]])
            seen = most
    return Grid(row, col, cell, member)


def add_choices(
    model: cp_model.CpModel, grid: Grid, chosen: Sequence[tuple[int, ...]]
) -> tuple[list[cp_model.IntVar], list[cp_model.IntVar]]:
    """``yR[k]``/``yC[k]``: core k is chosen in a row/column (its cards share one), and cuts."""
    rows = [model.new_bool_var(f"yR{k}") for k in range(len(chosen))]
    cols = [model.new_bool_var(f"yC{k}") for k in range(len(chosen))]
    by_card: list[list[int]] = [[] for _ in range(CELLS)]
    by_pair: dict[tuple[int, int], list[int]] = {}
    for k, core in enumerate(chosen):
        for a, b in itertools.pairwise(core):
            model.add(grid.row[a] == grid.row[b]).only_enforce_if(rows[k])
            model.add(grid.col[a] == grid.col[b]).only_enforce_if(cols[k])
        for c in core:
            by_card[c].append(k)
        for a, b in itertools.combinations(core, 2):
            by_pair.setdefault((a, b), []).append(k)
    for held in by_card:
        model.add_at_most_one(rows[k] for k in held)
        model.add_at_most_one(cols[k] for k in held)
    for held in by_pair.values():
        model.add_at_most_one([rows[k] for k in held] + [cols[k] for k in held])
    model.add(sum(rows) <= SIZE)
    model.add(sum(cols) <= SIZE)
    sets = [frozenset(core) for core in chosen]
    fives = [k for k, core in enumerate(chosen) if len(core) == SIZE]
    for k1, k2 in itertools.product(fives, fives):
        if not sets[k1] & sets[k2]:
            model.add_bool_or([rows[k1].Not(), cols[k2].Not()])
    return rows, cols


@dataclass
class Built:
    """A model ready to solve, with what is needed to read and hint its grid."""

    model: cp_model.CpModel
    grid: Grid
    chosen: list[tuple[int, ...]]
    gains: list[int]
    rows: list[cp_model.IntVar]
    cols: list[cp_model.IntVar]
    offset: int
    """Points outside the objective (ten lines of high card)."""


def build_cores(cards: Sequence[int], points: Sequence[int]) -> Built:
    """The ``cores`` model: a line is worth its best chosen core."""
    high = points[0]
    model = cp_model.CpModel()
    grid = add_grid(model)
    found = cores(cards)
    chosen = [q for q, c in found.items() if points[c] > high]
    gains = [points[found[q]] - high for q in chosen]
    rows, cols = add_choices(model, grid, chosen)
    in_rows = cp_model.LinearExpr.weighted_sum(rows, gains)
    in_cols = cp_model.LinearExpr.weighted_sum(cols, gains)
    model.add(in_rows >= in_cols)
    model.maximize(in_rows + in_cols)
    return Built(model, grid, chosen, gains, rows, cols, 2 * SIZE * high)


def build_lines(cards: Sequence[int], points: Sequence[int]) -> Built:
    """The ``lines`` model: each line scored by its equal-rank pairs and its five cards."""
    high = points[0]
    model = cp_model.CpModel()
    grid = add_grid(model)
    found = cores(cards)
    fives: list[tuple[int, ...]] = [
        q for q, c in found.items() if len(q) == SIZE and points[c] != high
    ]
    chosen = [q for q in fives if points[found[q]] > high]
    losing = [q for q in fives if points[found[q]] < high]
    rows, cols = add_choices(model, grid, chosen)
    same_rank = [
        (a, b) for a, b in itertools.combinations(range(CELLS), 2) if cards[a] % 13 == cards[b] % 13
    ]
    line_terms: list[list[cp_model.LinearExprT]] = []
    together: dict[tuple[int, int], list[cp_model.IntVar]] = {pair: [] for pair in same_rank}
    for line in range(2 * SIZE):
        share = []
        for a, b in same_rank:  # both: a and b are in this line, exactly
            both = model.new_bool_var("")
            model.add_bool_and([grid.member[a][line], grid.member[b][line]]).only_enforce_if(both)
            model.add_bool_or([grid.member[a][line].Not(), grid.member[b][line].Not(), both])
            share.append(both)
            together[(a, b)].append(both)
        count = {n: model.new_bool_var("") for n in PAIRS_CATEGORY}
        model.add_exactly_one(count.values())
        model.add(sum(share) == sum(n * is_n for n, is_n in count.items()))
        terms: list[cp_model.LinearExprT] = [
            (points[PAIRS_CATEGORY[n]] - high) * is_n
            for n, is_n in count.items()
            if n not in (0, 4) and points[PAIRS_CATEGORY[n]] != high
        ]
        for five in losing:  # counted whenever its five cards share this line
            present = model.new_bool_var("")
            model.add_bool_or([grid.member[c][line].Not() for c in five] + [present])
            terms.append((points[found[five]] - high) * present)
        line_terms.append(terms)
    for held in together.values():  # two cards share at most one line
        model.add_at_most_one(held)
    gains = [points[found[q]] - high for q in chosen]
    in_rows = cp_model.LinearExpr.weighted_sum(rows, gains) + sum(
        cp_model.LinearExpr.sum(t) for t in line_terms[:SIZE]
    )
    in_cols = cp_model.LinearExpr.weighted_sum(cols, gains) + sum(
        cp_model.LinearExpr.sum(t) for t in line_terms[SIZE:]
    )
    model.add(in_rows >= in_cols)
    model.maximize(in_rows + in_cols)
    return Built(model, grid, chosen, gains, rows, cols, 2 * SIZE * high)


def hint(built: Built, cards: Sequence[int], points: Sequence[int], grid: Sequence[int]) -> None:
    """Give CP-SAT a grid (card indices row by row) as its first solution, in canonical form."""
    at = {card: i for i, card in enumerate(cards)}
    lines = [[at[card] for card in line] for line in lines_of(grid)]
    rows, cols = lines[:SIZE], lines[SIZE:]
    if sum(grid_score_positions(rows, cards, points)) < sum(
        grid_score_positions(cols, cards, points)
    ):
        rows, cols = cols, rows  # the transpose: rows worth at least the columns
    row_of, col_of = canonical(rows), canonical(cols)
    g = built.grid
    for c in range(CELLS):
        built.model.add_hint(g.row[c], row_of[c])
        built.model.add_hint(g.col[c], col_of[c])
        for p in range(CELLS):
            built.model.add_hint(g.cell[c][p], p == SIZE * row_of[c] + col_of[c])
        for i in range(SIZE):
            built.model.add_hint(g.member[c][i], row_of[c] == i)
            built.model.add_hint(g.member[c][SIZE + i], col_of[c] == i)
    for ys, group in ((built.rows, rows), (built.cols, cols)):
        best = {best_core(built, set(line)) for line in group} - {None}
        for k, y in enumerate(ys):
            built.model.add_hint(y, k in best)


def grid_score_positions(
    lines: Sequence[Sequence[int]], cards: Sequence[int], points: Sequence[int]
) -> list[int]:
    """Points of each line given as positions in the deal."""
    return [points[category(cards[i] for i in line)] for line in lines]


def canonical(lines: Sequence[Sequence[int]]) -> list[int]:
    """Line number of each position, lines renumbered in order of first use (as the model)."""
    of = {c: i for i, line in enumerate(lines) for c in line}
    number: dict[int, int] = {}
    for c in range(CELLS):
        number.setdefault(of[c], len(number))
    return [number[of[c]] for c in range(CELLS)]


def best_core(built: Built, line: set[int]) -> int | None:
    """The chosen-able core of most gain inside a line, if any."""
    inside = [k for k, core in enumerate(built.chosen) if line.issuperset(core)]
    return max(inside, key=lambda k: built.gains[k], default=None)


@dataclass
class Outcome:
    """What CP-SAT answered for one deal."""

    status: str
    best: int | None
    bound: int | None
    seconds: float
    grid: list[int] | None


def solve(built: Built, cards: Sequence[int], time_limit: float) -> Outcome:
    """Run CP-SAT (two workers); read the grid back as card indices row by row."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 2
    solver.parameters.max_time_in_seconds = time_limit
    status = solver.solve(built.model)
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Outcome(name, None, None, solver.wall_time, None)
    grid = [-1] * CELLS
    for c in range(CELLS):
        grid[SIZE * solver.value(built.grid.row[c]) + solver.value(built.grid.col[c])] = cards[c]
    assert sorted(grid) == sorted(cards), "the model's cells are not a permutation"
    best = built.offset + round(solver.objective_value)
    bound = built.offset + math.floor(solver.best_objective_bound + 1e-6)
    return Outcome(name, best, bound, solver.wall_time, grid)


TABLE_CHOICES: Final = {
    "american": TABLES["american"],
    "british": TABLES["british"],
    "negative": NEGATIVE,
}


def run_deal(seed: int, table: PointTable, time_limit: float) -> dict[str, Any]:
    """Prove one deal under one table; the vector (or the not-proven record)."""
    points = table.points
    cards = deal(seed)
    started = time.perf_counter()
    found, grid = max(anneal(cards, points, seed * 100 + run) for run in range(ANNEAL_RUNS))
    anneal_seconds = time.perf_counter() - started
    if cores_model_exact(cards, points):
        kind, built = "cores", build_cores(cards, points)
    elif lines_model_exact(cards, points):
        kind, built = "lines", build_lines(cards, points)
    else:
        raise AssertionError(f"no exact model for seed {seed} under {points}")
    hint(built, cards, points, grid)
    outcome = solve(built, cards, time_limit)
    record: dict[str, Any] = {
        "seed": seed,
        "table": table.name,
        "points": list(points[:10]),
        "cards": [Card(c).text for c in cards],
    }
    if outcome.status == "OPTIMAL":
        assert outcome.grid is not None
        assert outcome.best is not None
        rescored = grid_score(outcome.grid, points)
        assert rescored == outcome.best, (seed, table.name, rescored, outcome.best)
        assert found <= outcome.best, (seed, table.name, found, outcome.best)
        record["optimum"] = outcome.best
        record["grid"] = [[Card(c).text for c in line] for line in lines_of(outcome.grid)[:SIZE]]
    else:
        record["best_found"] = outcome.best
        record["bound"] = outcome.bound
    record["status"] = outcome.status
    record["model"] = kind
    record["annealing"] = found
    record["solver_seconds"] = round(outcome.seconds, 2)
    print(
        f"  seed {seed:3d} {table.name:8s} {outcome.status:8s} model {kind:5s} "
        f"optimum/best {outcome.best} bound {outcome.bound} annealing {found} "
        f"({anneal_seconds:.1f} s) CP-SAT {outcome.seconds:.1f} s",
        flush=True,
    )
    return record


def write(vectors: list[dict[str, Any]], unproven: list[dict[str, Any]], command: str) -> None:
    """Write the vectors file (after every deal, so an interrupted run keeps its work)."""
    about = (
        "Poker-squares hindsight par (25 known cards, 5 rows + 5 columns, no diagonals), "
        f"each optimum proven by CP-SAT (OR-Tools {importlib.metadata.version('ortools')}, "
        "status OPTIMAL, 2 workers) on an exact model of the "
        "whole grid (see bench/par_vectors.py's docstring), and each grid re-scored by the "
        "engine (cardproof.hands.TRIE and the table) to the optimum. Deal: the first 25 "
        "cards of deck = list(range(52)); random.Random(seed).shuffle(deck). 'points' are "
        "by category number (high card .. royal flush, as 'categories'). 'cards' are in "
        "deal order; 'grid' is 5 rows of 5. 'solver_seconds' is CP-SAT's wall time on "
        f"{platform.machine()} with 2 cores shared; 'annealing' the hint's score. Made by: "
        f"{command}"
    )
    document = {
        "about": about,
        "categories": list(CATEGORY_IDS[:10]),
        "vectors": vectors,
        "not_proven": unproven,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    """Parse the arguments, prove deals table by table, write the vectors."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--american", type=int, default=12, help="proven american deals")
    parser.add_argument("--british", type=int, default=3, help="proven british deals")
    parser.add_argument("--negative", type=int, default=2, help="proven negative-table deals")
    parser.add_argument("--time-limit", type=float, default=1800.0, help="CP-SAT s per deal")
    parser.add_argument("--max-seed", type=int, default=100, help="seeds tried: 0..N-1")
    args = parser.parse_args()
    command = ".venv/bin/python bench/par_vectors.py " + " ".join(sys.argv[1:])
    vectors: list[dict[str, Any]] = []
    unproven: list[dict[str, Any]] = []
    for name, table in TABLE_CHOICES.items():
        wanted: int = getattr(args, name)
        proven = 0
        print(f"{name}: {wanted} deals, points {table.points[:10]}", flush=True)
        for seed in range(args.max_seed):
            if proven >= wanted:
                break
            record = run_deal(seed, table, args.time_limit)
            if record["status"] == "OPTIMAL":
                vectors.append(record)
                proven += 1
            else:
                unproven.append(record)
            write(vectors, unproven, command)
        if proven < wanted:
            print(f"{name}: only {proven} of {wanted} proven", flush=True)
    write(vectors, unproven, command)
    print(f"wrote {OUT.relative_to(ROOT)}: {len(vectors)} proven, {len(unproven)} not", flush=True)


if __name__ == "__main__":
    main()
