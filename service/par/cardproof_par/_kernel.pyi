"""Types of the C kernel (``_kernel.c``): cards are indices 0..51, points the 10 of a table."""

from collections.abc import Sequence

def anneal(
    cards: Sequence[int],
    points: Sequence[int],
    *,
    steps: int = 200000,
    restarts: int = 4,
    seed: int = 0,
    diagonals: bool = False,
    patience: bool = False,
    start: Sequence[int] | None = None,
    seconds: float = 10.0,
) -> tuple[int, tuple[int, ...] | None]: ...
def search(
    cards: Sequence[int],
    points: Sequence[int],
    grid: Sequence[int],
    *,
    target: int = ...,
    seconds: float = 2.0,
    patience: bool = False,
) -> tuple[int, tuple[int, ...], bool, int, int]: ...
def score_grid(grid: Sequence[int], points: Sequence[int], diagonals: bool = False) -> int: ...
def category(hand: Sequence[int]) -> int: ...
def column_best(
    fixed: Sequence[int],
    rows: Sequence[Sequence[int]],
    pool: Sequence[int],
    p: int,
    points: Sequence[int],
) -> int: ...
def layable(grid: Sequence[int]) -> bool: ...
