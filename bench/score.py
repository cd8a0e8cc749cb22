"""Verify and score one complete poker-squares game in-process.

One iteration is what a verifier does with a finished game: parse the 25-move text log
(``"a1 b1 c1 ..."``, cells in a fixed random order), replay it on the 25-card deal
(``random.Random(2026)``) with default options, and score it::

    PokerSquares.replay(cards, None, PokerSquares.parse_log(text)).score()

Reports the median and best microseconds per game over batches (default 20 x 200),
a per-stage breakdown, and, when the target is missed (or with ``--profile``), the top
cProfile costs.

Run: ``.venv/bin/python bench/score.py [--batches N] [--size M] [--profile]``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import time
from collections.abc import Callable, Sequence

from _common import load_average, median, print_machine, verdict
from cardproof.cards import STANDARD_DECK, Card
from cardproof.games import PokerSquares
from cardproof.games.grid import COLUMN_LETTERS, ROW_AND_COLUMN_LINES, SIZE
from cardproof.hands import TABLES, classify_indices

SEED = 2026
TARGET_US = 30.0


def make_game(seed: int) -> tuple[list[Card], str]:
    """A deal (first 25 cards of a random permutation) and a full log in text form."""
    rng = random.Random(seed)
    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    cells = [f"{COLUMN_LETTERS[c]}{r + 1}" for r in range(SIZE) for c in range(SIZE)]
    rng.shuffle(cells)
    return deck[: SIZE * SIZE], " ".join(cells)


def expected_total(cards: Sequence[Card], text: str) -> int:
    """The game's american total computed independently of the engine's game classes."""
    grid = [0] * (SIZE * SIZE)
    for card, token in zip(cards, text.split(), strict=True):
        grid[(int(token[1]) - 1) * SIZE + COLUMN_LETTERS.index(token[0])] = card.index
    points = TABLES["american"].points
    return sum(
        points[classify_indices([grid[i] for i in line])] for _, line in ROW_AND_COLUMN_LINES
    )


def per_call_us(run: Callable[[], object], batches: int, size: int) -> list[float]:
    """Microseconds per call of ``run``, one figure per batch of ``size`` calls."""
    figures = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(size):
            run()
        figures.append((time.perf_counter_ns() - start) / size / 1e3)
    return figures


def profile(run: Callable[[], object], calls: int, top: int) -> None:
    """Print the top cProfile entries of ``calls`` calls of ``run`` (by own time)."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        run()
    profiler.disable()
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order)
        stats.print_stats(top)
        lines = out.getvalue().splitlines()
        start = next(i for i, line in enumerate(lines) if "ncalls" in line)
        print(f"cProfile, {calls} games, top {top} by {order} (times include profiler overhead):")
        for line in lines[start:]:
            if line.strip():
                print("  " + line.rstrip())
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20, help="batches (default 20)")
    parser.add_argument("--size", type=int, default=200, help="games per batch (default 200)")
    parser.add_argument("--profile", action="store_true", help="always print the profile")
    args = parser.parse_args()

    print_machine("bench/score.py: verify and score a poker-squares game")
    cards, text = make_game(SEED)
    print(f"deal: {' '.join(c.text for c in cards)}")
    print(f"log:  {text}")

    def game() -> int:
        return PokerSquares.replay(cards, None, PokerSquares.parse_log(text)).score().total

    total = game()
    expected = expected_total(cards, text)
    print(f"score (american): {total}; independent check: {expected}")
    if total != expected:
        print("  !!! SCORE MISMATCH !!!")
    per_call_us(game, 1, 200)  # warm up
    print()

    figures = per_call_us(game, args.batches, args.size)
    game_median, game_best = median(figures), min(figures)
    print(f"parse_log + replay + score, {args.batches} batches of {args.size} games:")
    print(
        f"  median {game_median:.1f} us/game, best {game_best:.1f} us, worst {max(figures):.1f} us"
    )
    print()

    moves = PokerSquares.parse_log(text)
    finished = PokerSquares.replay(cards, None, moves)
    stages: dict[str, Callable[[], object]] = {
        "parse_log(text)": lambda: PokerSquares.parse_log(text),
        "PokerSquares.new(cards)": lambda: PokerSquares.new(cards),
        "  of which parse_options(None)": lambda: PokerSquares.parse_options(None),
        "replay(cards, None, moves)": lambda: PokerSquares.replay(cards, None, moves),
        "score() of the finished game": finished.score,
    }
    print("stages (median us per call, 10 batches of 200 calls; informational):")
    for name, run in stages.items():
        print(f"  {name:<32} {median(per_call_us(run, 10, 200)):>7.1f}")
    print()

    met = game_median <= TARGET_US
    if args.profile or not met:
        profile(game, 2000, 15)

    print(f"load average at the end: {load_average()} (2 logical CPUs; other work skews figures)")
    print(verdict(f"median <= {TARGET_US:.0f} us/game", met, f"{game_median:.1f} us"))
    print(verdict("score matches the independent check", total == expected, f"{total}"))


if __name__ == "__main__":
    main()
