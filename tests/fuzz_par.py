"""A fuzz of the exact par's C kernel (``cardproof_par``), run on a sanitizer build.

``make fuzz-par`` builds the kernel with AddressSanitizer and UBSan and runs this file
on it (not part of ``make test``; ``FUZZ_EXAMPLES`` draws per entry point, 300 unless
set). Hostile arguments to every entry point (values past 32 and 64 bits, a card twice,
lists that an item's ``__index__`` empties, grows or refills, wrong lengths and types,
absurd budgets) must each give an answer or a ValueError, TypeError or OverflowError;
valid ones (points at the +-10000 limits, deadlines already past) must run clean and
agree with the rules engine. A sanitizer's report aborts the run.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardproof.hands import classify_indices
from cardproof.solvers.hindsight import _lines, _Scorer

REFUSED = (ValueError, TypeError, OverflowError)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
EDGES = [2**31 - 1, 2**31, 2**32 + 8, 2**32 + 5, -(2**31) - 1, 2**63, 2**64, 10_000, 10_001]


class Mutating:
    """An index that changes the list holding it when read: empties, grows or refills it."""

    def __init__(self, value: int, how: str) -> None:
        self.value, self.how = value, how
        self.holder: list[Any] = []

    def __index__(self) -> int:
        if self.how == "clear":
            self.holder.clear()
        elif self.how == "grow":
            self.holder.extend(range(1000))
        else:  # refill: the items read so far are freed if nothing else holds them
            self.holder[:] = [Mutating(0, "clear") for _ in self.holder]
        return self.value


@st.composite
def hostile(draw: st.DrawFn, size: int, low: int, high: int) -> Any:
    """A sequence meant to hold ``size`` integers in ``low``..``high``, or not quite."""
    value = st.one_of(
        st.integers(low, high),
        st.integers(low - 3, high + 3),
        st.sampled_from(EDGES),
        st.integers(-(2**70), 2**70),
    )
    other = st.one_of(st.floats(), st.none(), st.text(max_size=2))
    item = value if draw(st.integers(0, 4)) else st.one_of(value, other)  # integers mostly
    length = draw(st.one_of(st.just(size), st.integers(0, size + 3)))
    items: list[Any] = draw(st.lists(item, min_size=length, max_size=length))
    kind = draw(st.sampled_from(["list", "tuple", "iter", "mutating", "not-a-sequence"]))
    if kind == "tuple":
        return tuple(items)
    if kind == "iter":
        return iter(items)
    if kind == "not-a-sequence":
        return draw(st.one_of(st.integers(), st.none(), st.floats()))
    if kind == "mutating" and items:
        at = draw(st.integers(0, len(items) - 1))
        trap = Mutating(draw(st.integers(low, high)), draw(st.sampled_from(["clear", "grow", "x"])))
        items[at] = trap
        trap.holder = items
    return items


def cards_or_hostile(size: int) -> st.SearchStrategy[Any]:
    """``size`` distinct card indices half the time (so that the points are what is hostile)."""
    valid = st.permutations(range(52)).map(lambda deck: deck[:size])
    return st.one_of(valid, hostile(size, 0, 51))


def attempt(call: Callable[[], Any]) -> Any:
    """The call's answer, or None if it was refused with one of the allowed exceptions."""
    try:
        return call()
    except REFUSED:
        return None


def fuzz(strategy: st.SearchStrategy[Any]) -> Callable[[Callable[[Any], None]], Callable[[], None]]:
    """A hypothesis test of ``EXAMPLES`` draws, no database, no deadline."""
    chosen = settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )

    def wrap(test: Callable[[Any], None]) -> Callable[[], None]:
        wrapped: Callable[[], None] = chosen(given(strategy)(test))
        return wrapped

    return wrap


def deal_of(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck[:25]


POINTS = st.lists(
    st.one_of(st.integers(-10_000, 10_000), st.sampled_from([-10_000, 10_000, 0])),
    min_size=10,
    max_size=10,
)


def run(kernel: Any) -> None:
    """Every entry point, hostile arguments then valid ones."""

    @fuzz(st.tuples(cards_or_hostile(5)))
    def category(args: tuple[Any]) -> None:
        found = attempt(lambda: kernel.category(*args))
        assert found is None or 0 <= found <= 9

    @fuzz(st.tuples(cards_or_hostile(25), hostile(10, -10_000, 10_000), st.booleans()))
    def score_grid(args: tuple[Any, Any, bool]) -> None:
        attempt(lambda: kernel.score_grid(*args))

    @fuzz(st.tuples(hostile(25, 0, 24)))
    def layable(args: tuple[Any]) -> None:
        attempt(lambda: kernel.layable(*args))

    @fuzz(
        st.tuples(
            hostile(2, 0, 51),
            st.lists(hostile(2, 0, 51), max_size=6),
            hostile(4, 0, 51),
            st.one_of(st.integers(-2, 7), st.sampled_from([2**31 - 1, -(2**31)])),
            hostile(10, -10_000, 10_000),
        )
    )
    def column_best(args: tuple[Any, ...]) -> None:
        attempt(lambda: kernel.column_best(*args))

    @fuzz(
        st.tuples(
            cards_or_hostile(25),
            hostile(10, -10_000, 10_000),
            st.fixed_dictionaries(
                {},
                optional={
                    "steps": st.integers(-5, 3000) | st.sampled_from([10**8, 2**63 - 1]),
                    "restarts": st.integers(-1, 3) | st.sampled_from([1000, 2**31 - 1]),
                    "seconds": st.floats(allow_nan=True) | st.floats(0, 0.05),
                    "hot": st.floats(allow_nan=True),
                    "cold": st.floats(allow_nan=True),
                    "seed": st.integers(0, 2**64 - 1),
                    "diagonals": st.booleans(),
                    "patience": st.booleans(),
                },
            ),
        )
    )
    def anneal(args: tuple[Any, Any, dict[str, Any]]) -> None:
        cards, points, options = args
        started = time.perf_counter()
        attempt(lambda: kernel.anneal(cards, points, **options))
        assert time.perf_counter() - started < 30, options  # never the hour it once ran

    @fuzz(
        st.tuples(
            cards_or_hostile(25),
            hostile(10, -10_000, 10_000),
            cards_or_hostile(25),
            st.integers(-(2**33), 2**33) | st.integers(-2000, 2000),
            st.floats(allow_nan=True) | st.floats(0, 0.01),
        )
    )
    def search_hostile(args: tuple[Any, ...]) -> None:
        cards, points, grid, target, seconds = args
        attempt(lambda: kernel.search(cards, points, grid, target=target, seconds=seconds))

    @fuzz(
        st.tuples(
            st.integers(0, 10**6),
            POINTS,
            st.booleans(),
            st.booleans(),
            st.integers(-2000, 2000) | st.sampled_from([-(10**6), 10**6]),
        )
    )
    def valid(args: tuple[int, list[int], bool, bool, int]) -> None:
        # valid arguments at the limits: answers agree with the rules engine
        seed, points, diagonals, patience, target = args
        deal = deal_of(seed)
        hand = deal[:5]
        assert kernel.category(hand) == classify_indices(sorted(hand))
        lines = _lines(diagonals)
        assert kernel.score_grid(deal, points, diagonals) == _Scorer([*points, 0]).grid(deal, lines)
        score, grid = kernel.anneal(
            deal, points, steps=500, restarts=2, seed=seed, diagonals=diagonals, patience=patience
        )
        if grid is not None:
            assert kernel.score_grid(grid, points, diagonals) == score
        start = list(grid) if grid is not None and not diagonals else deal
        found, best, _, bound, _ = kernel.search(
            deal, points, start, target=target, seconds=0.002, patience=patience
        )
        assert kernel.score_grid(best, points) == found <= bound
        positions = list(range(25))
        random.Random(seed).shuffle(positions)
        kernel.layable(positions)
        fixed, rows, pool = deal[:2], [deal[2:4], deal[4:7]], deal[7:12]
        assert kernel.column_best(fixed, rows, pool, 1, points) >= min(points)

    for test in (category, score_grid, layable, column_best, anneal, search_hostile, valid):
        started = time.perf_counter()
        test()
        print(f"{test.__name__}: {EXAMPLES} draws in {time.perf_counter() - started:.1f} s")


def main() -> None:
    from cardproof_par import _kernel

    print(f"fuzzing {_kernel.__file__}")
    run(_kernel)


if __name__ == "__main__":
    main()
