"""The exact serpent-patience solver against an independent brute force.

docs/rules.md sections 4 and 10.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import cache

import pytest

from cardproof.cards import STANDARD_DECK, Card
from cardproof.games import Cell, SerpentPatience
from cardproof.games.grid import score_grid
from cardproof.hands import TABLES, PointTable
from cardproof.solvers.serpent import PATH_COUNT, all_paths, best_path, solve

SIZE = 5

CUSTOM = {
    "high-card": 1,
    "one-pair": -3,
    "two-pair": 7,
    "three-of-a-kind": -12,
    "straight": -20,
    "flush": 40,
    "full-house": 100,
}


def neighbours(cell: int) -> list[int]:
    r, c = divmod(cell, SIZE)
    found = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
            found.append((r + dr) * SIZE + c + dc)
    return found


def is_rook_path(path: Sequence[int]) -> bool:
    if sorted(path) != list(range(SIZE * SIZE)):
        return False
    for a, b in itertools.pairwise(path):
        (ra, ca), (rb, cb) = divmod(a, SIZE), divmod(b, SIZE)
        if abs(ra - rb) + abs(ca - cb) != 1:
            return False
    return True


@cache
def dfs_paths() -> frozenset[tuple[int, ...]]:
    """Every directed Hamiltonian rook path of the 5x5 grid, by plain DFS from each cell."""
    adjacent = [neighbours(cell) for cell in range(SIZE * SIZE)]
    found: list[tuple[int, ...]] = []
    path: list[int] = []

    def extend(cell: int, used: int) -> None:
        path.append(cell)
        if len(path) == SIZE * SIZE:
            found.append(tuple(path))
        else:
            for nxt in adjacent[cell]:
                if not used & (1 << nxt):
                    extend(nxt, used | (1 << nxt))
        path.pop()

    for start in range(SIZE * SIZE):
        extend(start, 1 << start)
    paths = frozenset(found)
    assert len(paths) == len(found)
    return paths


def brute_force(cards: Sequence[Card], table: PointTable) -> int:
    best: int | None = None
    for path in dfs_paths():
        grid = [cards[0]] * (SIZE * SIZE)
        for position, cell in enumerate(path):
            grid[cell] = cards[position]
        total = score_grid(grid, table).total
        if best is None or total > best:
            best = total
    assert best is not None
    return best


def test_all_paths_are_the_8648_rook_paths() -> None:
    paths = all_paths()
    assert PATH_COUNT == 8648
    assert len(paths) == 8648
    assert len(set(paths)) == 8648
    assert all(is_rook_path(p) for p in paths)
    assert list(paths) == sorted(paths)


def test_independent_dfs_finds_the_same_paths() -> None:
    assert len(dfs_paths()) == 8648
    assert all(is_rook_path(p) for p in dfs_paths())
    assert set(all_paths()) == dfs_paths()
    # every path read backwards is a path too
    assert {tuple(reversed(p)) for p in dfs_paths()} == dfs_paths()


def test_is_rook_path_rejects_broken_paths() -> None:
    path = all_paths()[0]
    assert is_rook_path(path)
    assert not is_rook_path(path[:-1])
    assert not is_rook_path((path[0], *path[:-1]))  # a cell twice
    assert not is_rook_path(tuple(range(25)))  # row 1 end e1 -> a2 is no step


def check_solution(cards: Sequence[Card], table: PointTable, options: object) -> int:
    solution = solve(cards, table)
    assert is_rook_path(solution.path)
    assert len(solution.layout) == 25
    for position, cell in enumerate(solution.path):
        assert solution.layout[cell] is cards[position]
    assert score_grid(solution.layout, table) == solution.score
    moves = [Cell(row=cell // SIZE, col=cell % SIZE) for cell in solution.path]
    game = SerpentPatience.replay(cards, options, moves)  # type: ignore[arg-type]
    assert game.is_complete()
    assert game.score() == solution.score
    total, path = best_path(cards, table)
    assert total == solution.score.total
    assert path == solution.path
    return solution.score.total


@pytest.mark.parametrize("seed", range(10))
def test_solve_matches_brute_force(seed: int) -> None:
    rng = random.Random(1000 + seed)
    deck = rng.sample(STANDARD_DECK, 52)
    british = check_solution(deck, TABLES["british"], None)
    assert british == brute_force(deck, TABLES["british"])
    custom_table = PointTable.custom(CUSTOM)
    custom = check_solution(deck, custom_table, {"scoring": CUSTOM})
    assert custom == brute_force(deck, custom_table)


def test_solve_the_canonical_deck() -> None:
    # the boustrophedon path makes four straight flushes and two pairs: 122 (british)
    deck = list(STANDARD_DECK)
    assert check_solution(deck, TABLES["british"], None) == 122
    assert brute_force(deck, TABLES["british"]) == 122
    american = check_solution(deck, TABLES["american"], {"scoring": "american"})
    assert american == brute_force(deck, TABLES["american"])


def test_solve_when_every_hand_scores_negative() -> None:
    everything_bad = {c: -1 for c in ("high-card", "one-pair", "two-pair", "three-of-a-kind")}
    table = PointTable.custom(everything_bad)
    deck = random.Random(5).sample(STANDARD_DECK, 25)
    total = check_solution(deck, table, {"scoring": everything_bad})
    assert total == brute_force(deck, table)
    assert total < 0


def test_solve_needs_25_cards() -> None:
    with pytest.raises(ValueError, match="25 cards"):
        solve(STANDARD_DECK[:24], TABLES["british"])
