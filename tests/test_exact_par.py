"""Exact hindsight par: the compiled kernel's pieces against brute force, its answers proven.

The search (``service/par``) rests on three things, each checked here on its own:

- its scorer: the kernel's categories and grid points agree with the rules engine's;
- its column bound: what a column can still score, against every completion of small
  columns (sound for any table, exact for the named ones);
- poker patience's layering: the kernel's check agrees with the Python backtracking.

Then whole answers: the optimum equals an independent exact method (CP-SAT on a full
model, run offline by ``bench/par_vectors.py``) on every vector, no bound is below any
grid that long annealing finds for its deal (or a grid kept in a vector), and a budget
is kept with a real bound.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cardproof_par import _kernel as kernel
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof.cards import Card
from cardproof.hands import TABLES, PointTable, classify_indices
from cardproof.solvers import hindsight
from cardproof.solvers.hindsight import _lines, _Scorer, patience_moves, solve
from cardproof.tables import GENERATED, generate

VECTORS = json.loads((Path(__file__).parent / "vectors" / "par-exact-v1.json").read_text())
NEGATIVE = PointTable.custom(
    {"high-card": 5, "one-pair": -3, "two-pair": 4, "three-of-a-kind": -10, "straight": 12}
    | {"flush": -6, "full-house": 9, "four-of-a-kind": -20, "straight-flush": 30}
    | {"royal-flush": 40}
)
TEN = st.lists(st.integers(-1000, 1000), min_size=10, max_size=10)


def deal_of(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck[:25]


def points_of(table: PointTable) -> tuple[int, ...]:
    return tuple(table.points[:10])


# --- the scorer ---------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(52)))
def test_the_kernels_categories_are_the_engines(deck: list[int]) -> None:
    hand = sorted(deck[:5])
    assert kernel.category(deck[:5]) == classify_indices(hand)


@settings(max_examples=200, deadline=None)
@given(deck=st.permutations(range(52)), points=TEN, diagonals=st.booleans())
def test_compiled_and_python_scorers_agree_on_random_grids(
    deck: list[int], points: list[int], diagonals: bool
) -> None:
    grid = deck[:25]
    expected = _Scorer([*points, 0]).grid(grid, _lines(diagonals))
    assert kernel.score_grid(grid, points, diagonals) == expected


# --- the column bound, against brute force --------------------------------------------


def completions(
    fixed: list[int], rows: list[list[int]], pool: list[int], p: int
) -> list[list[int]]:
    """Every way to finish the column: one card of each row, ``p`` of the pool."""
    return [
        fixed + list(picked) + list(extra)
        for picked in itertools.product(*rows)
        for extra in itertools.combinations(pool, p)
    ]


def brute_best(
    fixed: list[int], rows: list[list[int]], pool: list[int], p: int, points: Sequence[int]
) -> int:
    return max(points[classify_indices(sorted(c))] for c in completions(fixed, rows, pool, p))


Column = tuple[list[int], list[list[int]], list[int], int]


def cut_column(
    rng: random.Random, cards: list[int], most_fixed: int, row_size: int, spare: int
) -> Column:
    """A column to finish from ``cards``: fixed cards, up to 4 rows, a pool ``spare`` over."""
    f = rng.randint(1, most_fixed)
    m = rng.randint(0, min(4, 5 - f))
    p = 5 - f - m
    fixed, rest = cards[:f], cards[f:]
    rows = []
    for _ in range(m):
        size = rng.randint(1, row_size)
        rows.append(rest[:size])
        rest = rest[size:]
    return fixed, rows, rest[: p + spare], p


def random_column(rng: random.Random) -> Column:
    """Any cards: 1..5 fixed, rows of 1..5 cards, a pool of up to 6 spare."""
    deck = list(range(52))
    rng.shuffle(deck)
    return cut_column(rng, deck, 5, 5, rng.randint(0, 6))


def suited_column(rng: random.Random) -> Column:
    """A column dealt from few ranks and one or two suits: flushes, straights, sets."""
    suits = rng.sample(range(4), rng.randint(1, 2))
    low = rng.randint(0, 7)
    cards = [s * 13 + r for s in suits for r in range(low, low + 6)]
    cards += [s * 13 + 12 for s in suits]  # the ace: the wheel and the royal
    cards += rng.sample([s * 13 + low for s in range(4) if s not in suits], 4 - len(suits))
    cards = list(dict.fromkeys(cards))  # the ace may be in the run already
    rng.shuffle(cards)
    return cut_column(rng, cards, 3, 3, 3)


@pytest.mark.parametrize("make", [random_column, suited_column])
@pytest.mark.parametrize("table", ["american", "british"])
def test_a_columns_bound_is_its_best_completion(make: Any, table: str) -> None:
    # the named tables order their categories so that every check is exact
    rng = random.Random(f"{make.__name__}-{table}")
    points = points_of(TABLES[table])
    exact = 0
    for _ in range(400):
        fixed, rows, pool, p = make(rng)
        if len(pool) < p or any(not row for row in rows):
            continue
        assert kernel.column_best(fixed, rows, pool, p, points) == brute_best(
            fixed, rows, pool, p, points
        ), (fixed, rows, pool, p)
        exact += 1
    assert exact >= 300


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), points=TEN)
def test_a_columns_bound_never_falls_below_a_completion(seed: int, points: list[int]) -> None:
    # any table, negative points included: the bound may be loose, never low
    rng = random.Random(seed)
    for _ in range(20):
        fixed, rows, pool, p = random_column(rng) if rng.random() < 0.5 else suited_column(rng)
        if len(pool) < p or any(not row for row in rows):
            continue
        assert kernel.column_best(fixed, rows, pool, p, points) >= brute_best(
            fixed, rows, pool, p, points
        )


def test_a_full_column_is_worth_its_own_category() -> None:
    points = points_of(TABLES["american"])
    royal = [Card.parse(t).index for t in ["TS", "JS", "QS", "KS", "AS"]]
    assert kernel.column_best(royal, [], [], 0, points) == 100
    wheel = [Card.parse(t).index for t in ["AH", "2S", "3S", "4S", "5S"]]
    assert kernel.column_best(wheel, [], [], 0, points) == 15


def test_a_column_refuses_what_is_not_a_column() -> None:
    with pytest.raises(ValueError, match="fixed"):
        kernel.column_best([1, 2], [[3]], [4, 5], 3, [0] * 10)  # 6 cards
    with pytest.raises(ValueError, match="fixed"):
        kernel.column_best([1, 2], [[2]], [4, 5], 2, [0] * 10)  # a card twice
    with pytest.raises(ValueError, match="distinct card"):
        kernel.column_best([52], [], [], 4, [0] * 10)


# --- poker patience's layering ---------------------------------------------------------


def test_the_kernels_layering_agrees_with_pythons() -> None:
    # most grids lay once rows and columns are reordered (or transposed); some do not
    rng = random.Random(7)
    answers = {True: 0, False: 0}
    for _ in range(800):
        grid = list(range(25))
        rng.shuffle(grid)
        expected = patience_moves(grid, list(range(25))) is not None
        assert kernel.layable(grid) == expected, grid
        answers[expected] += 1
    assert answers[True] > 500
    assert answers[False] > 20


# --- whole answers ----------------------------------------------------------------------


def vector_table(vector: dict[str, Any]) -> PointTable:
    return PointTable(vector["table"], (*vector["points"], 0))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: f"{v['table']}-{v['seed']}")
def test_the_optimum_equals_an_independent_exact_method(vector: dict[str, Any]) -> None:
    cards = [Card.parse(text) for text in vector["cards"]]
    table = vector_table(vector)
    # most take well under a second, one about 15 s (the budget ends once it is proven: a
    # busy machine, two workers and two CPU hogs beside them, took over 30 s)
    found = solve(cards, table, budget=300)
    assert (found.score, found.upper_bound, found.optimal) == (
        vector["optimum"],
        vector["optimum"],
        True,
    )
    # ... and the vector's own grid is a grid of the deal, scoring the optimum
    grid = [Card.parse(text).index for row in vector["grid"] for text in row]
    assert sorted(grid) == sorted(c.index for c in cards)
    assert kernel.score_grid(grid, table.points[:10]) == vector["optimum"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: f"{v['table']}-{v['seed']}")
def test_the_search_alone_reaches_the_optimum_from_a_poor_grid(vector: dict[str, Any]) -> None:
    # no annealing: from the deal laid row by row, every better grid must be found by the
    # search itself, and a pruning that skips the best one shows here
    deal = [Card.parse(text).index for text in vector["cards"]]
    points = vector["points"]
    score, grid, finished, bound, _ = kernel.search(deal, points, deal, seconds=120)
    assert (score, finished, bound) == (vector["optimum"], True, vector["optimum"])
    assert kernel.score_grid(grid, points) == vector["optimum"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: f"{v['table']}-{v['seed']}")
def test_a_search_stopped_below_the_optimum_claims_no_proof(vector: dict[str, Any]) -> None:
    # a deadline already past stops the search after its first nodes, far below the
    # optimum: the bound must cover the grids not searched, never be the unproven target
    deal = [Card.parse(text).index for text in vector["cards"]]
    points, optimum = vector["points"], vector["optimum"]
    for target, seconds in ((None, 0.0), (optimum - 1, 0.0), (optimum - 1, 0.005)):
        aim = {} if target is None else {"target": target}
        score, grid, finished, bound, _ = kernel.search(deal, points, deal, seconds=seconds, **aim)
        assert kernel.score_grid(grid, points) == score <= optimum
        if target is None:
            assert score < optimum  # stopped below it, as the test means
        assert not finished or score == optimum
        assert bound >= optimum, (target, seconds, score, bound)


@pytest.mark.parametrize("seed", [3, 4, 6, 9])
def test_from_a_poor_grid_the_search_reaches_what_solve_proves(seed: int) -> None:
    # british points are small, so the bounds run close to the targets: a bound one
    # point low prunes the best grid here, while annealing alone would have found it
    deal = deal_of(seed)
    points = points_of(TABLES["british"])
    proven = solve([Card(i) for i in deal], TABLES["british"], budget=10)
    assert proven.optimal
    score, _, finished, bound, _ = kernel.search(deal, points, deal, seconds=60)
    assert (score, finished, bound) == (proven.score, True, proven.score)


def long_anneal(
    deal: list[int], points: Sequence[int], seed: int, **options: Any
) -> list[tuple[int, tuple[int, ...]]]:
    """Grids of several long annealing runs (each run's best)."""
    grids = []
    for run in range(4):
        score, grid = kernel.anneal(
            deal, points, steps=300_000, restarts=1, seed=seed * 7 + run, **options
        )
        if grid is not None:
            grids.append((score, grid))
    return grids


@pytest.mark.parametrize(
    ("table", "seed"),
    [("american", 15), ("american", 41), ("british", 2), ("british", 11), ("negative", 3)],
)
def test_no_bound_is_below_a_grid_long_annealing_finds(table: str, seed: int) -> None:
    chosen = NEGATIVE if table == "negative" else TABLES[table]
    deal = deal_of(seed)
    for budget in (0.3, 2.0):
        found = solve([Card(i) for i in deal], chosen, budget=budget)
        for score, grid in long_anneal(deal, points_of(chosen), seed):
            assert score <= found.upper_bound
            assert kernel.score_grid(grid, points_of(chosen)) == score


def test_every_vectors_bound_holds_its_grid_and_annealings() -> None:
    # a short budget: the bound may be loose, never below a grid known for the deal
    for vector in VECTORS["vectors"]:
        table = vector_table(vector)
        cards = [Card.parse(text) for text in vector["cards"]]
        found = solve(cards, table, budget=0.3)
        assert vector["optimum"] <= found.upper_bound
        assert found.score <= vector["optimum"]


@pytest.mark.parametrize("system", GENERATED)
def test_nellers_drawn_tables_are_solved_with_a_real_bound(system: str) -> None:
    # Parameterized Poker Squares: tables drawn from a deal's seeds, negative points too
    table = generate(system, bytes(range(32)), f"client {system}")
    deal = deal_of(len(system))
    found = solve([Card(i) for i in deal], table, budget=1)
    assert found.score == kernel.score_grid(list(found.grid), points_of(table))
    if system != "single-hand":  # one category worth 1: ties everywhere, see the README
        assert found.optimal or found.upper_bound < 10 * max(points_of(table))
    for score, _ in long_anneal(deal, points_of(table), 1):
        assert score <= found.upper_bound


def test_with_the_diagonals_the_bound_counts_them() -> None:
    table = TABLES["american"]
    for seed in (1, 4):
        deal = deal_of(seed)
        found = solve([Card(i) for i in deal], table, budget=1, diagonals=True)
        assert found.score == _Scorer(table.points).grid(list(found.grid), _lines(True))
        for score, _ in long_anneal(deal, points_of(table), seed, diagonals=True):
            assert score <= found.upper_bound


def test_a_negative_table_is_solved_and_proven() -> None:
    deal = deal_of(5)
    found = solve([Card(i) for i in deal], NEGATIVE, budget=5)
    assert found.optimal
    assert found.score == kernel.score_grid(list(found.grid), points_of(NEGATIVE))
    for score, _ in long_anneal(deal, points_of(NEGATIVE), 5):
        assert score <= found.score


@pytest.mark.parametrize("table", ["american", "british"])
def test_poker_patience_is_proven_on_layable_grids(table: str) -> None:
    chosen = TABLES[table]
    for seed in (0, 3):
        deal = deal_of(seed)
        squares = solve([Card(i) for i in deal], chosen, budget=3)
        patience = solve([Card(i) for i in deal], chosen, budget=3, patience=True)
        assert patience.moves is not None
        assert patience.score <= squares.upper_bound  # a layable grid is a grid
        for score, grid in long_anneal(deal, points_of(chosen), seed, patience=True):
            assert kernel.layable([deal.index(card) for card in grid])
            assert score <= patience.upper_bound


def test_a_budget_is_kept_with_a_real_bound() -> None:
    for table in ("american", "british"):
        top = max(TABLES[table].points[:10])
        for seed in range(6):
            started = time.perf_counter()
            found = solve([Card(i) for i in deal_of(seed)], TABLES[table], budget=0.5)
            assert time.perf_counter() - started <= 0.7
            assert found.seconds <= 0.7
            assert found.upper_bound < 10 * top  # never the best line ten times
            assert found.upper_bound <= math.floor(1.5 * found.score)  # the first target


class LowBound:
    """The kernel, but its search states a bound below the grid it returns."""

    def __init__(self, real: ModuleType) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def search(self, *args: Any, **kwargs: Any) -> tuple[int, tuple[int, ...], bool, int, int]:
        score, grid, _, _, nodes = self.real.search(*args, **kwargs)
        return score, grid, True, score - 1, nodes


def test_a_bound_below_a_grid_is_a_bug_never_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hindsight, "compiled", lambda: LowBound(kernel))
    with pytest.raises(RuntimeError, match="below a grid"):
        solve([Card(i) for i in deal_of(0)], TABLES["american"], budget=0.5)


def test_without_the_kernel_the_relaxation_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hindsight, "compiled", lambda: None)
    found = solve([Card(i) for i in deal_of(0)], TABLES["american"], budget=0.5)
    assert found.method == "relaxation"
    assert found.score <= found.upper_bound


# --- the kernel's own inputs: refused with an exception, never read wrong -----------------


class Shrinking:
    """An index that empties the list holding it when read (the list then has no items)."""

    def __init__(self, value: int, holder: list[Any]) -> None:
        self.value, self.holder = value, holder

    def __index__(self) -> int:
        self.holder.clear()
        return self.value


def shrinking(values: Sequence[int]) -> list[Any]:
    """``values`` as a list whose first item clears it when read."""
    held: list[Any] = list(values)
    held[0] = Shrinking(values[0], held)
    return held


DEAL = deal_of(0)
AMERICAN = points_of(TABLES["american"])


def refusals() -> list[tuple[str, Any]]:
    """Each entry point with an argument a list that empties itself while it is read."""
    return [
        ("hand", lambda: kernel.category(shrinking([0, 1, 2, 3, 4]))),
        ("grid", lambda: kernel.score_grid(shrinking(DEAL), AMERICAN)),
        ("points", lambda: kernel.score_grid(DEAL, shrinking(AMERICAN))),
        ("cards", lambda: kernel.anneal(shrinking(DEAL), AMERICAN, steps=10, restarts=1)),
        ("grid", lambda: kernel.search(DEAL, AMERICAN, shrinking(DEAL), seconds=0)),
        ("grid", lambda: kernel.layable(shrinking(list(range(25))))),
        ("fixed", lambda: kernel.column_best(shrinking([0, 1]), [[2]], [3, 4], 2, AMERICAN)),
        ("rows", lambda: kernel.column_best([0], [shrinking([1, 2])], [3, 4, 5], 3, AMERICAN)),
    ]


@pytest.mark.parametrize("index", range(len(refusals())))
def test_a_list_resized_while_the_kernel_reads_it_is_refused(index: int) -> None:
    # the kernel reads a copy, so nothing past the list's end (once a SEGV), and says so
    what, call = refusals()[index]
    with pytest.raises(ValueError, match=f"{what}: the list changed size while it was read"):
        call()


def test_the_rows_list_resized_by_a_nested_index_is_refused() -> None:
    rows: list[Any] = [[1], [2]]
    rows[0] = [Shrinking(1, rows)]  # reading row 1 empties the rows
    with pytest.raises(ValueError, match="rows: the list changed size"):
        kernel.column_best([0], rows, [3, 4, 5], 2, AMERICAN)


@pytest.mark.parametrize("big", [2**32, 2**31, 2**63, 2**64, -(2**32)])
def test_values_are_checked_before_they_are_cut_to_32_bits(big: int) -> None:
    # 2**32 + 8 was card 8 (a royal flush with 9..12), 2**32 + 5 points passed as 5
    royal = [big + 8, 9, 10, 11, 12]
    with pytest.raises(ValueError, match=r"hand: 5 different integers in 0\.\.51"):
        kernel.category(royal)
    points = [big + 5, *AMERICAN[1:]]
    with pytest.raises(ValueError, match=r"points: 10 integers in -10000\.\.10000"):
        kernel.score_grid(DEAL, points)
    with pytest.raises(ValueError, match="points"):
        kernel.search(DEAL, points, DEAL, seconds=0)
    with pytest.raises(ValueError, match="points"):
        kernel.anneal(DEAL, points, steps=10, restarts=1)
    with pytest.raises(ValueError, match="points"):
        kernel.column_best([0], [], [1, 2, 3, 4], 4, points)
    with pytest.raises(ValueError, match="cards"):
        kernel.search([big + DEAL[0], *DEAL[1:]], AMERICAN, DEAL, seconds=0)
    with pytest.raises(ValueError, match="grid"):
        kernel.search(DEAL, AMERICAN, [big + DEAL[0], *DEAL[1:]], seconds=0)
    with pytest.raises(ValueError, match="grid"):
        kernel.score_grid([big + DEAL[0], *DEAL[1:]], AMERICAN)
    with pytest.raises(ValueError, match=r"grid: 25 different integers in 0\.\.24"):
        kernel.layable([big, *range(1, 25)])
    with pytest.raises(ValueError, match="fixed"):
        kernel.column_best([big], [], [1, 2, 3, 4], 4, AMERICAN)


def test_points_are_range_checked_before_they_are_summed() -> None:
    # twelve lines of 2**31 - 1 overflowed score_grid's int; the search's -10000..10000 holds
    for points in ([2**31 - 1] * 10, [-(2**31)] * 10, [10_001] * 10, [-10_001] * 10):
        with pytest.raises(ValueError, match=r"points: 10 integers in -10000\.\.10000"):
            kernel.score_grid(DEAL, points, True)
    assert kernel.score_grid(DEAL, [10_000] * 10, True) == 120_000
    assert kernel.score_grid(DEAL, [-10_000] * 10, True) == -120_000


def test_a_card_twice_is_refused() -> None:
    # five aces of spades were a pair
    with pytest.raises(ValueError, match="hand: 5 different integers"):
        kernel.category([0] * 5)
    with pytest.raises(ValueError, match="hand: 5 different integers"):
        kernel.category([0, 13, 26, 39, 0])
    with pytest.raises(ValueError, match="grid: 25 different integers"):
        kernel.score_grid([DEAL[1], *DEAL[1:]], AMERICAN)
    with pytest.raises(ValueError, match="cards: 25 different integers"):
        kernel.anneal([DEAL[1], *DEAL[1:]], AMERICAN, steps=10, restarts=1)
    with pytest.raises(ValueError, match="grid: 25 different integers"):
        kernel.layable([1, *range(1, 25)])
    assert kernel.category([0, 13, 26, 39, 1]) == 7  # four deuces: the cards, not their ranks


def test_other_than_integers_is_refused_with_a_type_error() -> None:
    with pytest.raises(TypeError, match="hand: a sequence of 5 integers"):
        kernel.category(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.category([0, 1, 2, 3, 4.0])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="hand: 5 values expected"):
        kernel.category([0, 1, 2, 3])


@pytest.mark.parametrize(
    "options",
    [
        {"steps": 10**8, "restarts": 1000},  # an hour with the GIL released
        {"steps": 10**6, "restarts": 101},
        {"steps": -1},
        {"restarts": 0},
        {"seconds": -1.0},
        {"seconds": math.nan},
        {"seconds": 3601.0},
        {"hot": math.inf},
        {"cold": -1.0},
    ],
)
def test_annealing_refuses_absurd_arguments(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"steps|seconds"):
        kernel.anneal(DEAL, AMERICAN, **options)


def test_annealing_keeps_its_time_limit() -> None:
    # 10**8 steps take seconds; a limit of 0.2 s stops it there with the best grid so far
    for patience in (False, True):
        started = time.perf_counter()
        score, grid = kernel.anneal(
            DEAL, AMERICAN, steps=10**8, restarts=1, seconds=0.2, patience=patience
        )
        assert time.perf_counter() - started < 1.5
        assert grid is not None
        assert sorted(grid) == sorted(DEAL)
        assert kernel.score_grid(grid, AMERICAN) == score
    started = time.perf_counter()
    kernel.anneal(DEAL, AMERICAN, steps=10**6, restarts=100, seconds=0.2)
    assert time.perf_counter() - started < 1.5  # the restarts stop at the limit too
