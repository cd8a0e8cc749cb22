"""An independent five-card classifier written from docs/rules.md section 1, for tests only.

It shares nothing with ``cardproof.hands`` (which is a lookup table), so the tests that
compare the two check the engine against the rules, not against itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

RANKS = "23456789TJQKA"


def ref_category(cards: Sequence[tuple[int, int]]) -> str:
    """Category of five (rank, suit) pairs, rank 0 = deuce .. 12 = ace; repeats allowed."""
    ranks = sorted(r for r, _ in cards)
    counts = sorted(Counter(ranks).values(), reverse=True)
    flush = len({s for _, s in cards}) == 1
    distinct = len(set(ranks)) == 5
    straight = distinct and (ranks[4] - ranks[0] == 4 or ranks == [0, 1, 2, 3, 12])
    if counts[0] == 5:
        return "five-of-a-kind"
    if straight and flush:
        return "royal-flush" if ranks[0] == RANKS.index("T") else "straight-flush"
    if counts[0] == 4:
        return "four-of-a-kind"
    if counts[:2] == [3, 2]:
        return "full-house"
    if flush:
        return "flush"
    if straight:
        return "straight"
    if counts[0] == 3:
        return "three-of-a-kind"
    if counts[:2] == [2, 2]:
        return "two-pair"
    if counts[0] == 2:
        return "one-pair"
    return "high-card"
