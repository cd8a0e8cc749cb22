"""Hindsight par for poker-squares and poker-patience: the best grid, and a proven bound.

With all 25 cards known, the best score of a deal is a max over 25! grids. With the
service's compiled kernel (``cardproof_par``, C, built by ``make``) the answer is exact
(:func:`_solve_exact`, ``method`` ``branch-and-bound``):

- **a strong grid first:** many short simulated-annealing runs over swaps;
- **then a branch-and-bound** proving in turn that no grid beats 1.5, 1.25, 1.08 and
  1.02 times that grid's score, then the score itself (:data:`LADDER`); a better grid
  met on the way becomes the best. Rows are chosen best first from the deal's 53,130
  hands (only grids whose rows score at least their columns: a grid and its transpose
  score the same), each column is bounded by the first category, best points first,
  that it could still form from the rows chosen, and the columns of a row partition
  that survives are searched card by card (docs/rules.md section 10);
- **if the budget ends first,** the bound is the last target proven, or what the grids
  not yet searched can still reach; when even the first target was not proven, the
  CP-SAT relaxation below takes the rest of the budget.

Without the kernel (``pip install cardproof`` alone, or ``exact=False``) the answer is
the method before it (:func:`_solve_relaxed`, ``method`` ``relaxation``): swap
hill-climbing (:func:`hill_climb`, 20,000 steps from a fresh shuffle, also the peer of
``bench/par.py``) and annealing in Python, and a bound from a relaxation solved by
CP-SAT (OR-Tools). A grid's rows and columns are interchangeable, so the relaxation has
no cell numbers at all: it picks up to five *cores* for the rows and five for the
columns, a core being the cards that make a line's category (the two cards of a pair,
the five of a flush). Every grid maps to a choice that obeys the relaxation's rules,
worth at least the grid's score, so the relaxation's optimum (or CP-SAT's bound on it,
when the budget runs out first) is an upper bound. Its rules, each true of every grid:

- a card is in at most one row core and at most one column core;
- two cards share at most one line (a row and a column meet in one cell);
- a five-card row core and a five-card column core share exactly one card;
- from a suit of ``n`` cards at most 1 (n <= 8), 2 (n <= 12) or 3 flush lines;
- (symmetry) rows hold at least as many five-card cores as columns.

A line the relaxation leaves without a core counts the table's high-card points, and a
category below high card is never picked: for any table, a grid's line is worth at most
what its core (or no core) counts. With the diagonals on (either method), two lines the
search does not see are bounded by the best single line twice.

``optimal`` is true when the best found reaches the bound. poker-patience places the
cards in deal order, each touching one laid before: the exact search only takes grids
that can be laid so; :func:`patience_moves` finds the order of rows and columns (or the
transpose) that lays one (a legal order always exists for the grid in deal order, row
by row). Reordering keeps the rows' and columns' points, not the diagonals': with them
on, the answer is the grid as laid, scored as laid, and annealing keeps only grids that
lay where they stand.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from types import ModuleType
from typing import Final

from cardproof.cards import Card
from cardproof.hands import TRIE, PointTable
from cardproof.models import HindsightMethod

SIZE: Final = 5
CELLS: Final = SIZE * SIZE
MAX_CROSSED: Final = 900
"""Five-card cores past which the relaxation leaves out their crossing rule (a valid,
looser bound: the rule only tightens it), so that no deal builds millions of clauses."""
HILL_STEPS: Final = 20_000
"""Steps of the plain swap hill-climbing every answer starts from (the issue's floor)."""

_ROWS: Final = tuple(tuple(range(r * SIZE, r * SIZE + SIZE)) for r in range(SIZE))
_COLS: Final = tuple(tuple(range(c, CELLS, SIZE)) for c in range(SIZE))
_DIAGONALS: Final = ((0, 6, 12, 18, 24), (4, 8, 12, 16, 20))


def _lines(diagonals: bool) -> tuple[tuple[int, ...], ...]:
    return _ROWS + _COLS + (_DIAGONALS if diagonals else ())


@dataclass(frozen=True)
class Hindsight:
    """The best grid found for a deal, its score, and the proven upper bound.

    ``grid`` holds card indices row by row; ``moves`` (poker-patience only) the offsets
    that lay it in deal order.
    """

    score: int
    grid: tuple[int, ...]
    upper_bound: int
    optimal: bool
    seconds: float
    moves: tuple[tuple[int, int], ...] | None = None
    method: HindsightMethod = "branch-and-bound"


class _Scorer:
    """Points of a line (sorted card indices), cached: the hot path of the searches."""

    def __init__(self, points: Sequence[int]) -> None:
        self.points = tuple(points)
        self.cache: dict[tuple[int, ...], int] = {}

    def line(self, cards: Iterable[int]) -> int:
        key = tuple(sorted(cards))
        found = self.cache.get(key)
        if found is None:
            a, b, c, d, e = key
            found = self.cache[key] = self.points[TRIE[a][b][c][d][e]]
        return found

    def grid(self, grid: Sequence[int], lines: Sequence[Sequence[int]]) -> int:
        return sum(self.line(grid[i] for i in line) for line in lines)


def _cell_lines(lines: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    return [tuple(k for k, line in enumerate(lines) if cell in line) for cell in range(CELLS)]


def hill_climb(
    cards: Sequence[int],
    points: Sequence[int],
    *,
    steps: int = HILL_STEPS,
    seed: int = 0,
    diagonals: bool = False,
) -> tuple[int, list[int]]:
    """Plain swap hill-climbing: from a shuffled grid, keep each swap that does not lose.

    The floor of every hindsight answer, and ``bench/par.py``'s peer.

    >>> from cardproof.hands import TABLES
    >>> score, grid = hill_climb(range(25), TABLES["american"].points, steps=2000)
    >>> score >= 4 * 75, sorted(grid) == list(range(25))  # 2C..8D: straight flushes to find
    (True, True)
    """
    return _search(cards, points, steps=steps, seed=seed, diagonals=diagonals)


def _search(
    cards: Sequence[int],
    points: Sequence[int],
    *,
    steps: int | None = None,
    deadline: float | None = None,
    seed: int = 0,
    diagonals: bool = False,
    start: Sequence[int] | None = None,
    temperature: tuple[float, float] | None = None,
    history: list[tuple[int, list[int]]] | None = None,
) -> tuple[int, list[int]]:
    """Swap search: hill-climbing (no temperature) or annealing, by steps or until a deadline.

    ``history`` collects each new best grid on the way (poker-patience tries them in
    turn when the best cannot be laid in deal order).
    """
    scorer = _Scorer(points)
    lines = _lines(diagonals)
    through = _cell_lines(lines)
    rng = random.Random(seed)
    grid = list(start) if start is not None else list(cards)
    if start is None:
        rng.shuffle(grid)
    values = [scorer.line(grid[i] for i in line) for line in lines]
    current = sum(values)
    best, best_grid = current, grid[:]
    started = time.perf_counter()
    hot, cold = temperature or (0.0, 0.0)
    heat = hot
    randrange, uniform = rng.randrange, rng.random
    step = 0
    while True:
        if steps is not None and step >= steps:
            break
        if step & 255 == 0 and deadline is not None:
            now = time.perf_counter()
            if now >= deadline:
                break
            if hot:
                heat = hot * (cold / hot) ** ((now - started) / max(1e-9, deadline - started))
        step += 1
        i, j = randrange(CELLS), randrange(CELLS)
        if i == j:
            continue
        touched = set(through[i]) | set(through[j])
        grid[i], grid[j] = grid[j], grid[i]
        new = {k: scorer.line(grid[c] for c in lines[k]) for k in touched}
        delta = sum(new[k] - values[k] for k in touched)
        if delta >= 0 or (heat and uniform() < math.exp(delta / heat)):
            for k in touched:
                values[k] = new[k]
            current += delta
            if current > best:
                best, best_grid = current, grid[:]
                if history is not None:
                    history.append((best, best_grid))
        else:
            grid[i], grid[j] = grid[j], grid[i]
    return best, best_grid


# --- the relaxation -----------------------------------------------------------------


@dataclass(frozen=True)
class _Core:
    cards: tuple[int, ...]
    value: int
    """Points over high card."""


def _cores(cards: Sequence[int], points: Sequence[int]) -> list[_Core]:
    """Every core of the deal whose category scores above high card.

    >>> from cardproof.hands import TABLES
    >>> deal = [c.index for c in map(Card.parse, "AS AH AD KS KH 2C 3C 4C 5C 6C".split())]
    >>> cores = _cores(deal, TABLES["american"].points)
    >>> max(core.value for core in cores), len([c for c in cores if c.value == 25])
    (75, 1)
    """
    high = points[0]
    found: dict[tuple[int, ...], int] = {}

    def add(core: Iterable[int]) -> None:
        key = tuple(sorted(core))
        if len(key) == 5:
            category = TRIE[key[0]][key[1]][key[2]][key[3]][key[4]]
        else:  # a rank core: pairs, two pairs, trips, quads
            counts = sorted(sum(1 for c in key if c % 13 == r) for r in {c % 13 for c in key})
            category = {(2,): 1, (2, 2): 2, (3,): 3, (4,): 7}[tuple(counts)]
        value = points[category] - high
        if value > 0:
            found[key] = value

    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for card in cards:
        by_rank.setdefault(card % 13, []).append(card)
        by_suit.setdefault(card // 13, []).append(card)
    groups: dict[int, list[tuple[int, tuple[int, ...]]]] = {2: [], 3: [], 4: []}
    for rank, held in by_rank.items():
        for size in (2, 3, 4):
            groups[size].extend((rank, g) for g in itertools.combinations(held, size))
    for size in (2, 3, 4):
        for _, group in groups[size]:
            add(group)
    for (r1, g1), (r2, g2) in itertools.combinations(groups[2], 2):
        if r1 != r2:
            add(g1 + g2)
    for r1, g1 in groups[3]:
        for r2, g2 in groups[2]:
            if r1 != r2:
                add(g1 + g2)
    for low in range(-1, 9):  # straights, the wheel (A2345) first
        ranks = [12, 0, 1, 2, 3] if low == -1 else list(range(low, low + 5))
        if all(r in by_rank for r in ranks):
            for combo in itertools.product(*(by_rank[r] for r in ranks)):
                add(combo)
    for held in by_suit.values():
        for combo in itertools.combinations(held, 5):
            add(combo)
    return [_Core(key, value) for key, value in found.items()]


def _flush_lines(count: int) -> int:
    """Most flush lines a grid can draw from ``count`` cards of one suit (two share <= 1)."""
    return 0 if count < 5 else 1 if count <= 8 else 2 if count <= 12 else 3


@dataclass(frozen=True)
class _Relaxed:
    bound: int
    """The relaxation's upper bound over the ten lines (high card included)."""
    rows: list[_Core]
    cols: list[_Core]
    """The cores of its best solution, for a grid to realize."""


def _relax(
    cards: Sequence[int],
    points: Sequence[int],
    grid: Sequence[int],
    deadline: float,
    seed: int,
    *,
    crossing: bool = True,
) -> _Relaxed | None:
    """Solve the core relaxation until ``deadline``; ``None`` if CP-SAT stated no bound.

    ``grid``: the best grid found. Its cores are the search's first solution (a hint),
    and its score a floor: the relaxation's optimum is at least that, so CP-SAT may
    prune below it. A bound counts only with a solution (status optimal or feasible):
    without one CP-SAT's stated bound means nothing.
    """
    from ortools.sat.python import cp_model  # the service's extra; imported where used

    high = points[0]
    cores = _cores(cards, points)
    if not cores:  # no category beats high card: no line scores more than it
        return _Relaxed(2 * SIZE * high, [], [])
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"row{i}") for i in range(len(cores))]
    y = [model.new_bool_var(f"col{i}") for i in range(len(cores))]
    by_card: dict[int, list[int]] = {card: [] for card in cards}
    by_pair: dict[tuple[int, int], list[int]] = {}
    for i, core in enumerate(cores):
        for card in core.cards:
            by_card[card].append(i)
        for pair in itertools.combinations(core.cards, 2):
            by_pair.setdefault(pair, []).append(i)
    five = [i for i, core in enumerate(cores) if len(core.cards) == SIZE]
    for family in (x, y):
        model.add(sum(family) <= SIZE)
        for held in by_card.values():
            if len(held) > 1:
                model.add_at_most_one(family[i] for i in held)
    # a five-card row core and a five-card column core meet (pairs keep it to one card);
    # the clauses grow as the square of such cores, so a freak deal goes without them
    if crossing and len(five) <= MAX_CROSSED:
        masks = {i: sum(1 << c for c in cores[i].cards) for i in five}
        for i in five:
            for j in five:
                if not masks[i] & masks[j]:
                    model.add_bool_or([x[i].Not(), y[j].Not()])
    for held in by_pair.values():  # also keeps one core out of a row and a column at once
        model.add_at_most_one([x[i] for i in held] + [y[i] for i in held])
    suits: dict[int, int] = {}
    for card in cards:
        suits[card // 13] = suits.get(card // 13, 0) + 1
    for suit, count in suits.items():
        flushes = [i for i in five if all(c // 13 == suit for c in cores[i].cards)]
        if flushes:
            model.add(sum(x[i] + y[i] for i in flushes) <= _flush_lines(count))
    model.add(sum(x[i] for i in five) >= sum(y[i] for i in five))
    objective = sum(core.value * (x[i] + y[i]) for i, core in enumerate(cores))
    index = {core.cards: i for i, core in enumerate(cores)}
    rows, cols = _cores_of(grid, index, cores), _cores_of(_transposed(grid), index, cores)
    if sum(len(cores[i].cards) == SIZE for i in rows) < sum(
        len(cores[i].cards) == SIZE for i in cols
    ):
        rows, cols = cols, rows  # the transpose obeys the symmetry rule
    for i in range(len(cores)):
        model.add_hint(x[i], i in rows)
        model.add_hint(y[i], i in cols)
    floor = sum(cores[i].value for i in rows + cols)
    model.add(objective >= floor)
    model.maximize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, deadline - time.perf_counter())
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed % (1 << 31)
    if not crossing:  # the quick model: searched at once, the hint its first solution
        solver.parameters.cp_model_presolve = False
    status = solver.solve(model)
    reached = solver.best_objective_bound
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE) or not math.isfinite(reached):
        return None
    bound = min(math.floor(reached + 1e-6) + 2 * SIZE * high, 2 * SIZE * max(points[:10]))
    return _Relaxed(
        bound,
        [core for i, core in enumerate(cores) if solver.boolean_value(x[i])],
        [core for i, core in enumerate(cores) if solver.boolean_value(y[i])],
    )


def _cores_of(
    grid: Sequence[int], index: dict[tuple[int, ...], int], cores: list[_Core]
) -> list[int]:
    """The core of each row of ``grid`` that has one (its best: the line's category's)."""
    found = []
    for r in range(SIZE):
        line = grid[r * SIZE : r * SIZE + SIZE]
        held = [
            index[key]
            for k in (2, 3, 4, 5)
            for key in map(tuple, map(sorted, itertools.combinations(line, k)))
            if key in index
        ]
        if held:
            found.append(max(held, key=lambda i: (cores[i].value, len(cores[i].cards))))
    return found


def _transposed(grid: Sequence[int]) -> list[int]:
    return [grid[c * SIZE + r] for r in range(SIZE) for c in range(SIZE)]


def _realize(
    cards: Sequence[int], rows: Sequence[_Core], cols: Sequence[_Core]
) -> list[int] | None:
    """A grid with each chosen row core in a row and each column core in a column.

    A bipartite matching of cards to cells (a core's card may only go to its line's
    cells); ``None`` if there is none.
    """
    row_of = {card: r for r, core in enumerate(rows) for card in core.cards}
    col_of = {card: c for c, core in enumerate(cols) for card in core.cards}
    allowed = []
    for card in cards:
        rs = [row_of[card]] if card in row_of else range(SIZE)
        cs = [col_of[card]] if card in col_of else range(SIZE)
        allowed.append([r * SIZE + c for r in rs for c in cs])
    holder: dict[int, int] = {}  # cell -> position in cards

    def augment(i: int, seen: set[int]) -> bool:
        for cell in allowed[i]:
            if cell in seen:
                continue
            seen.add(cell)
            if cell not in holder or augment(holder[cell], seen):
                holder[cell] = i
                return True
        return False

    order = sorted(range(len(cards)), key=lambda i: len(allowed[i]))
    if not all(augment(i, set()) for i in order):
        return None
    grid = [0] * CELLS
    for cell, i in holder.items():
        grid[cell] = cards[i]
    return grid


# --- poker-patience: laying a grid in deal order ---------------------------------------


def patience_moves(
    grid: Sequence[int], deal: Sequence[int]
) -> tuple[list[int], list[tuple[int, int]]] | None:
    """Rows and columns of ``grid`` reordered (or transposed) so the deal lays it legally.

    Each card after the first must touch (8 ways) a card laid before it. Returns the
    grid as laid and each card's offset from the first; ``None`` if no order of rows
    and columns allows it. Rows and columns keep their places where they can, so a grid
    that lays as it stands is laid unchanged (reordering keeps the rows' and columns'
    score, not the diagonals').

    >>> deal = list(range(25))
    >>> laid, moves = patience_moves(deal, deal)
    >>> moves[:3]
    [(0, 0), (0, 1), (0, 2)]
    """
    position = {card: cell for cell, card in enumerate(grid)}
    for transpose in (False, True):
        spots = []
        for card in deal:
            r, c = divmod(position[card], SIZE)
            spots.append((c, r) if transpose else (r, c))
        found = _lay(spots)
        if found is not None:
            row_at, col_at = found
            laid = [0] * CELLS
            moves = []
            r0, c0 = row_at[spots[0][0]], col_at[spots[0][1]]
            for card, (r, c) in zip(deal, spots, strict=True):
                laid[row_at[r] * SIZE + col_at[c]] = card
                moves.append((row_at[r] - r0, col_at[c] - c0))
            return laid, moves
    return None


def _lay(spots: Sequence[tuple[int, int]]) -> tuple[dict[int, int], dict[int, int]] | None:
    """Place abstract rows and columns on 0..4 so that each spot touches an earlier one."""
    row_at: dict[int, int] = {}
    col_at: dict[int, int] = {}

    def place(i: int) -> bool:
        if i == len(spots):
            return True
        r, c = spots[i]
        row_choices = [row_at[r]] if r in row_at else _free(row_at, r)
        col_choices = [col_at[c]] if c in col_at else _free(col_at, c)
        for pr in row_choices:
            for pc in col_choices:
                if i and not any(
                    abs(row_at[r2] - pr) <= 1 and abs(col_at[c2] - pc) <= 1 for r2, c2 in spots[:i]
                ):
                    continue
                new_r, new_c = r not in row_at, c not in col_at
                row_at[r], col_at[c] = pr, pc
                if place(i + 1):
                    return True
                if new_r:
                    del row_at[r]
                if new_c:
                    del col_at[c]
        return False

    return (row_at, col_at) if place(0) else None


def _free(placed: dict[int, int], own: int) -> list[int]:
    """The places no row (or column) holds yet, its own place first."""
    free = [p for p in range(SIZE) if p not in placed.values()]
    return sorted(free, key=lambda p: p != own)


# --- the solver ----------------------------------------------------------------------


def compiled() -> ModuleType | None:
    """The compiled kernel (``cardproof_par``, the service's C extension), if installed."""
    try:
        from cardproof_par import _kernel
    except ImportError:
        return None
    return _kernel


def warm() -> None:
    """Load the kernel and CP-SAT now (a solver process's start), not inside a budget.

    Without them the process still serves the other searches.
    """
    compiled()
    with contextlib.suppress(ImportError):
        from ortools.sat.python import cp_model  # noqa: F401


def solve(
    cards: Sequence[Card],
    table: PointTable,
    *,
    budget: float = 2.0,
    diagonals: bool = False,
    patience: bool = False,
    seed: int | None = None,
    exact: bool = True,
) -> Hindsight:
    """The best grid found for the first 25 ``cards`` within ``budget`` seconds, and a bound.

    ``patience``: the grid must be laid in deal order (poker-patience). ``seed`` (by
    default drawn from the cards) makes the searches repeatable. With the compiled kernel
    the search is exact (:func:`_solve_exact`); without it, or with ``exact=False`` (the
    benchmark's peer), hill-climbing and the CP-SAT relaxation (:func:`_solve_relaxed`).

    >>> from cardproof.cards import STANDARD_DECK
    >>> from cardproof.hands import TABLES
    >>> found = solve(STANDARD_DECK[:25], TABLES["american"], budget=2)
    >>> found.score <= found.upper_bound, found.score >= 4 * 75
    (True, True)
    """
    started = time.perf_counter()
    deal = [card.index for card in cards[:CELLS]]
    if len(deal) != CELLS or len(set(deal)) != CELLS:
        raise ValueError("hindsight takes 25 distinct cards")
    if seed is None:
        seed = int.from_bytes(bytes(deal), "big") % (1 << 61)
    kernel = compiled() if exact else None
    solver = _solve_relaxed if kernel is None else partial(_solve_exact, kernel)
    score, grid, bound = solver(deal, table.points, budget, diagonals, patience, seed, started)
    moves: tuple[tuple[int, int], ...] | None = None
    if patience:
        laid = patience_moves(grid, deal)
        if laid is None:  # every grid offered here lays: a bug
            raise RuntimeError("hindsight's poker-patience grid cannot be laid in deal order")
        grid, offsets = laid
        moves = tuple(offsets)
        # the grid as laid is the answer: its rows and columns may have moved, and with
        # them the diagonals, so its score is counted again
        score = _Scorer(table.points).grid(grid, _lines(diagonals))
    if score > bound:
        raise RuntimeError(f"hindsight bound {bound} below a grid scoring {score}: a bug")
    return Hindsight(
        score=score,
        grid=tuple(grid),
        upper_bound=bound,
        optimal=score == bound,
        seconds=time.perf_counter() - started,
        moves=moves,
        method="relaxation" if kernel is None else "branch-and-bound",
    )


LADDER: Final = (1.5, 1.25, 1.08, 1.02, 1.0)
"""The targets the exact search proves in turn, as multiples of the best grid's score:
the first ones are quick and give a bound however hard the deal, the last one proves it."""
FIRST_SHARE: Final = 0.5
"""The share of the budget the first target may take; if it does not finish, the CP-SAT
relaxation (the method before the exact search) takes the rest, when that is at least
:data:`RELAX_SECONDS`."""
RELAX_SECONDS: Final = 0.5
"""The least time worth giving CP-SAT: its model takes a while to build, and a shorter
run seldom states a bound at all."""
ANNEAL_STEPS: Final = 50_000
"""Swaps per annealing run (about 4 ms in C); ``16 x budget`` runs, 2 to 64: many short
runs find the best grid more often than a few long ones (about 8% of the budget)."""
MARGIN: Final = 0.03
"""Seconds kept back from the budget for the engine's replay of the answer."""


def _above(score: int, slack: float) -> int:
    """The target ``slack`` above ``score``, for negative scores too (never below it)."""
    return score + math.floor(abs(score) * (slack - 1.0))


def _solve_exact(
    kernel: ModuleType,
    deal: list[int],
    points: Sequence[int],
    budget: float,
    diagonals: bool,
    patience: bool,
    seed: int,
    started: float,
) -> tuple[int, list[int], int]:
    """Annealing, then the branch-and-bound proving the targets of :data:`LADDER` in turn.

    Returns the best grid's score (all lines), the grid, and the proven bound. The
    search proves rows and columns; with the diagonals on, two more lines are bounded by
    the best line twice.
    """
    table = tuple(points[:10])
    end = started + budget - MARGIN
    runs = max(2, min(64, round(16 * budget)))
    lines = _lines(diagonals)
    scorer = _Scorer(points)
    _, found = kernel.anneal(
        deal,
        table,
        steps=ANNEAL_STEPS,
        restarts=runs,
        seed=seed,
        diagonals=diagonals,
        patience=patience,
        seconds=max(0.0, end - time.perf_counter()),
    )
    grid = list(found) if found is not None else list(deal)  # the deal row by row always lays
    plain = kernel.score_grid(grid, table)
    bound: int | None = None
    stuck = False  # the first target was not proven in its share
    for rung, slack in enumerate(LADDER):
        target = _above(plain, slack)
        if bound is not None and target >= bound:
            continue  # already proven
        left = end - time.perf_counter()
        if rung == 0:
            left = min(left, FIRST_SHARE * budget)
        score, better, finished, reached, _ = kernel.search(
            deal, table, grid, target=target, seconds=max(0.0, left), patience=patience
        )
        if score > plain:
            plain, grid = score, list(better)
        bound = reached if bound is None else min(bound, reached)
        stuck = not finished and rung == 0
        if not finished or bound <= plain:
            break
    assert bound is not None
    if stuck and end - time.perf_counter() >= RELAX_SECONDS:
        relaxed, realized = _relaxation(deal, points, grid, end, seed)
        bound = min(bound, relaxed)
        for other in realized:
            other_plain = kernel.score_grid(other, table)
            if other_plain > plain and (not patience or patience_moves(other, deal) is not None):
                plain, grid = other_plain, other
    if diagonals:
        bound += 2 * max(points[:10])
        if patience:  # the grid as laid: reordering it for the deal moves its diagonals
            grid = _laid(grid, deal)
        if found is not None and scorer.grid(found, lines) > scorer.grid(grid, lines):
            grid = list(found)  # annealing's grids with the diagonals lay where they stand
    return scorer.grid(grid, lines), grid, bound


def _laid(grid: Sequence[int], deal: Sequence[int]) -> list[int]:
    """``grid`` as poker-patience lays it in deal order (rows and columns reordered)."""
    laid = patience_moves(grid, deal)
    if laid is None:  # every grid offered here lays: a bug
        raise RuntimeError("hindsight's poker-patience grid cannot be laid in deal order")
    return laid[0]


def _relaxation(
    deal: list[int], points: Sequence[int], grid: Sequence[int], until: float, seed: int
) -> tuple[int, list[list[int]]]:
    """CP-SAT's bound on rows and columns by ``until``, and the grids it realizes.

    The bound is the best line ten times when CP-SAT is missing or states nothing.

    Two models: without the crossing rule first (smaller, often solved at once), then
    with it (tighter, larger: it may not finish presolving); the lower bound wins.
    """
    top = max(points[:10])  # the best line (five of a kind cannot be dealt)
    bound = top * 2 * SIZE
    realized: list[list[int]] = []
    scorer = _Scorer(points)
    plain = _lines(False)
    for crossing, share in ((False, 0.6), (True, 1.0)):
        until_now = time.perf_counter() + share * max(0.0, until - time.perf_counter())
        try:
            relaxed = _relax(deal, points, grid, until_now, seed, crossing=crossing)
        except ImportError:  # OR-Tools is the service's extra
            break
        if relaxed is not None:
            bound = min(bound, relaxed.bound)
            if relaxed.rows or relaxed.cols:
                other = _realize(deal, relaxed.rows, relaxed.cols)
                if other is not None:
                    realized.append(other)
        best = max([scorer.grid(grid, plain)] + [scorer.grid(g, plain) for g in realized])
        if best >= bound:
            break  # a grid reaches the bound: proven
    return bound, realized


def _solve_relaxed(
    deal: list[int],
    points: Sequence[int],
    budget: float,
    diagonals: bool,
    patience: bool,
    seed: int,
    started: float,
) -> tuple[int, list[int], int]:
    """Without the kernel: Python searches for 40% of the budget, then CP-SAT's bound.

    Hill-climbing and annealing find the grid; the relaxation (:func:`_relaxation`)
    bounds it: the method before the exact search.
    """
    deadline = started + budget
    lines = _lines(diagonals)
    scorer = _Scorer(points)
    candidates: list[tuple[int, list[int]]] = []

    def offer(grid: list[int]) -> None:
        candidates.append((scorer.grid(grid, lines), grid))

    offer(list(deal))  # row by row in deal order: always a legal poker-patience layout
    search_until = started + max(0.1, 0.4 * budget)
    history: list[tuple[int, list[int]]] = []
    heat = (8.0 * _spread(points), 0.3 * _spread(points))
    round_ = 0
    while round_ == 0 or time.perf_counter() < search_until:
        offer(hill_climb(deal, points, seed=seed + 2 * round_, diagonals=diagonals)[1])
        now = time.perf_counter()
        annealed = _search(
            deal,
            points,
            deadline=min(search_until, now + max(0.05, 0.25 * (search_until - started))),
            seed=seed + 2 * round_ + 1,
            diagonals=diagonals,
            start=max(candidates)[1],
            temperature=heat,
            history=history if patience else None,
        )
        offer(annealed[1])
        round_ += 1
    candidates.extend(history[-64:])
    plain = _lines(False)  # the relaxation's ten lines: its floor is the best grid's score there
    floor_grid = max(candidates, key=lambda found: scorer.grid(found[1], plain))[1]
    bound, realized = _relaxation(deal, points, floor_grid, deadline - 0.02 * budget, seed)
    for grid in realized:
        offer(grid)
    if diagonals:
        bound += 2 * max(points[:10])
    if patience:  # the deal-order grid (a candidate) always lays: the best as laid
        laid = [patience_moves(grid, deal) for _, grid in candidates]
        candidates = [(scorer.grid(found[0], lines), found[0]) for found in laid if found]
    candidates.sort(key=lambda found: -found[0])
    score, grid = candidates[0]
    return score, grid, bound


def _spread(points: Sequence[int]) -> float:
    """The table's scale, for the annealing's temperature (american: about 1)."""
    values = sorted(set(points[:10]))
    return max(1.0, (values[-1] - values[0]) / 100)


__all__ = [
    "HILL_STEPS",
    "LADDER",
    "Hindsight",
    "compiled",
    "hill_climb",
    "patience_moves",
    "solve",
    "warm",
]
