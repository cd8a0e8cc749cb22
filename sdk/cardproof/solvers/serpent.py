"""Exact par for ``serpent-patience``: the best score of a deal and a layout reaching it.

A finished serpent layout is a directed rook's path through all 25 cells (there are
8,648) with card ``i`` in the path's ``i``-th cell. A line's hand depends only on
*which deal positions* land in its five cells, so each path reduces to ten keys
(sorted 5-tuples of positions), and its score to the set of those keys: a path and its
transpose, for one, make the same set. The 8,648 paths make 1,081 sets of 2,427
distinct keys. Per deal the solver evaluates each key once with the hand trie (a
level at a time over the keys' shared prefixes), then takes the set whose ten values
sum highest, all in C-level ``map`` calls. The path table is built once per process
(from the paths starting in 6 cells, mapped by the square's 8 symmetries).

>>> from cardproof.cards import STANDARD_DECK
>>> from cardproof.hands import TABLES
>>> solution = solve(STANDARD_DECK[:25], TABLES["british"])
>>> solution.score.total, len(solution.path)
(122, 25)
>>> len(_table().sums), len(_table().steps[-1][1](range(25)))  # key sets, keys
(1081, 2427)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import repeat
from operator import call, getitem, itemgetter
from typing import Any, Final

from cardproof.cards import Card
from cardproof.games.grid import ROW_AND_COLUMN_LINES, SIZE, score_grid
from cardproof.games.serpent_patience import NEIGHBOURS
from cardproof.hands import TRIE, PointTable, Score

CELLS: Final = SIZE * SIZE
PATH_COUNT: Final = 8648
"""Directed Hamiltonian rook paths of the 5x5 grid."""


def _paths_from(start: int) -> list[tuple[int, ...]]:
    """Every directed rook path through all cells that starts at ``start`` (DFS)."""
    found: list[tuple[int, ...]] = []
    path = [start]

    def extend(cell: int, used: int) -> None:
        if len(path) == CELLS:
            found.append(tuple(path))
            return
        for nxt in NEIGHBOURS[cell]:
            if not used >> nxt & 1:
                path.append(nxt)
                extend(nxt, used | 1 << nxt)
                path.pop()

    extend(start, 1 << start)
    return found


def _symmetries() -> list[list[int]]:
    """The 8 symmetries of the square as cell permutations (4 rotations, 4 reflections)."""
    last = SIZE - 1

    def image(transform: int, r: int, c: int) -> int:
        for _ in range(transform % 4):  # quarter turns
            r, c = c, last - r
        if transform >= 4:  # then a mirror
            c = last - c
        return r * SIZE + c

    return [[image(t, i // SIZE, i % SIZE) for i in range(CELLS)] for t in range(8)]


@cache
def all_paths() -> tuple[tuple[int, ...], ...]:
    """The 8,648 directed rook paths, sorted (built once per process)."""
    starts = (0, 1, 2, 6, 7, 12)  # one cell of each orbit under the 8 symmetries
    paths = {
        tuple(sym[cell] for cell in path)
        for start in starts
        for path in _paths_from(start)
        for sym in _symmetries()
    }
    return tuple(sorted(paths))


@dataclass(frozen=True)
class _Table:
    steps: tuple[tuple[itemgetter[Any], itemgetter[Any]], ...]
    """Per trie level 1..5, getters of the parent nodes and of the next deal positions.

    The distinct sorted 5-tuples of deal positions that some line of some path holds
    (the keys) share prefixes; level ``L`` lists the distinct ``L``-prefixes, each as
    (its parent ``L-1``-prefix, its last position). Walking the trie for all of them a
    level at a time is a few C-level ``map`` calls per deal, not a Python loop per key.
    """
    sums: tuple[itemgetter[Any], ...]
    """Per distinct set of ten keys, a getter of their values (the paths sharing it merged)."""
    first_path: tuple[int, ...]
    """Per distinct set of ten keys, the first path (in sorted order) that holds it."""


_TABLE_LOCK = threading.Lock()
_BUILT: dict[str, _Table] = {}


def _table() -> _Table:
    """The path table, built once per process even when several threads ask at once."""
    table = _BUILT.get("table")
    if table is None:
        with _TABLE_LOCK:
            table = _BUILT.get("table")
            if table is None:
                table = _BUILT["table"] = _build_table()
    return table


def _build_table() -> _Table:
    ids: dict[tuple[int, ...], int] = {}
    line_sets: dict[tuple[int, ...], int] = {}
    for index, path in enumerate(all_paths()):
        when = [0] * CELLS
        for position, cell in enumerate(path):
            when[cell] = position
        line_ids = tuple(
            sorted(
                ids.setdefault(tuple(sorted(when[cell] for cell in line)), len(ids))
                for _, line in ROW_AND_COLUMN_LINES
            )
        )
        line_sets.setdefault(line_ids, index)  # dicts keep order: first paths ascending
    keys = list(ids)
    steps = []
    parents: dict[tuple[int, ...], int] = {(): 0}
    for length in range(1, 6):
        prefixes = list(dict.fromkeys(key[:length] for key in keys))
        steps.append(
            (
                itemgetter(*(parents[prefix[:-1]] for prefix in prefixes)),
                itemgetter(*(prefix[-1] for prefix in prefixes)),
            )
        )
        parents = {prefix: i for i, prefix in enumerate(prefixes)}
    assert list(parents) == keys, "the last level lists the keys in their order"
    return _Table(
        tuple(steps), tuple(itemgetter(*ids) for ids in line_sets), tuple(line_sets.values())
    )


@dataclass(frozen=True)
class SerpentPar:
    """The best score of a deal, with one path that reaches it."""

    score: Score
    path: tuple[int, ...]
    """Cell numbers (``row * 5 + col``) in play order."""
    layout: tuple[Card, ...]
    """The finished grid, row by row."""


def best_path(cards: Sequence[Card], table: PointTable) -> tuple[int, tuple[int, ...]]:
    """The best total and the first path (in sorted order) that reaches it."""
    if len(cards) < CELLS:
        raise ValueError(f"a serpent deal has {CELLS} cards, not {len(cards)}")
    deal = [card.index for card in cards[:CELLS]]
    tables = _table()
    nodes: Sequence[Any] = [TRIE]
    for parent_of, position_of in tables.steps:
        nodes = list(map(getitem, parent_of(nodes), position_of(deal)))
    values = list(map(table.points.__getitem__, nodes))
    totals = list(map(sum, map(call, tables.sums, repeat(values))))
    best = max(totals)
    return best, all_paths()[tables.first_path[totals.index(best)]]


def solve(cards: Sequence[Card], table: PointTable) -> SerpentPar:
    """The exact best score of the first 25 cards, and a layout that reaches it."""
    _, path = best_path(cards, table)
    grid: list[Card] = [cards[0]] * CELLS
    for position, cell in enumerate(path):
        grid[cell] = cards[position]
    return SerpentPar(score_grid(grid, table), path, tuple(grid))


def prepare() -> None:
    """Build the path table now (about a second, once per process) instead of on first use."""
    _table()
