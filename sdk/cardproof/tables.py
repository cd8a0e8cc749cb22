"""Point systems drawn from a deal's seeds: ``cardproof-points-v1``.

Neller's Parameterized Poker Squares (the EAAI-2016 student AI competition) scores with
point systems drawn at random, so that no player can be tuned to one table. cardproof
draws them from the deal's own derivation: nobody knows the table before the deal is
committed (the server seed) and the player has chosen (the client seed), and anyone
holding the revealed seeds draws it again. Byte for byte:

1. The draws are ``cardproof-shuffle-v1``'s (see :mod:`cardproof.deal`, steps 2 to 4):
   deck type ``standard-52``, stream ``points-v1``; ``draw(n)`` is the next uniform
   integer in ``[0, n)``.
2. Categories are drawn in the order high card, one pair, two pair, three of a kind,
   straight, flush, full house, four of a kind, straight flush, royal flush (five of a
   kind, which needs a joker, scores 0).
3. ``ameritish``: first the royal flush, ``R = 30 + draw(71)`` (30..100). Then each other
   category ``c``, from high card to straight flush: with ``a = american[c] * R / 100``
   and ``b = british[c] * R / 30`` (the two tables scaled so that their royal flush is
   ``R``), ``lo = floor(min(a, b))`` and ``hi = ceil(max(a, b))``, its points are
   ``lo + draw(hi - lo + 1)``.
4. ``random``: each category in order, ``draw(256) - 128`` (-128..127).
5. ``hypercorner``: each category in order, ``2 * draw(2) - 1`` (-1 or 1).
6. ``single-hand``: ``c = draw(10)``; category ``c`` (in the order of step 2) scores 1,
   every other 0.

Test vectors live in ``tests/vectors/points-v1.json``.

>>> table = generate("hypercorner", bytes(range(32)), "alice")
>>> sorted(set(table.points[:10])), table.points[10]
([-1, 1], 0)
>>> generate("hypercorner", bytes(range(32)), "alice") == table  # the seeds decide
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Final, Literal, get_args

from cardproof.deal import draws
from cardproof.errors import RuleError
from cardproof.hands import TABLES, Category, PointTable

ALGORITHM: Final = "cardproof-points-v1"
"""The id of this derivation (its stream is ``points-v1``)."""
STREAM: Final = "points-v1"
DECK_TYPE: Final = "standard-52"
GeneratedName = Literal["ameritish", "random", "hypercorner", "single-hand"]
"""The point systems drawn from the seeds."""
GENERATED: Final[tuple[str, ...]] = get_args(GeneratedName)
DRAWN: Final = tuple(c for c in Category if c is not Category.FIVE_OF_A_KIND)
"""The categories drawn, high card first (step 2)."""
LOWEST: Final[dict[str, int]] = {
    "ameritish": 0,
    "random": -128,
    "hypercorner": -1,
    "single-hand": 0,
}
"""The lowest points each system can draw for a category (what an unfinished game counts by,
before a round's table is known)."""
_AMERICAN: Final = TABLES["american"]
_BRITISH: Final = TABLES["british"]


def generate(system: str, server_seed: bytes, client_seed: str) -> PointTable:
    """The point table ``system`` draws from the seed pair (see the module).

    The table's name is the system's; its points are indexed by :class:`Category`.
    """
    stream = draws(server_seed, client_seed, DECK_TYPE, STREAM)
    points = dict.fromkeys(Category, 0)
    if system == "ameritish":
        royal = 30 + stream.below(71)
        for category in DRAWN[:-1]:
            a = Fraction(_AMERICAN[category] * royal, 100)
            b = Fraction(_BRITISH[category] * royal, 30)
            low, high = math.floor(min(a, b)), math.ceil(max(a, b))
            points[category] = low + stream.below(high - low + 1)
        points[Category.ROYAL_FLUSH] = royal
    elif system == "random":
        for category in DRAWN:
            points[category] = stream.below(256) - 128
    elif system == "hypercorner":
        for category in DRAWN:
            points[category] = 2 * stream.below(2) - 1
    elif system == "single-hand":
        points[DRAWN[stream.below(len(DRAWN))]] = 1
    else:
        raise ValueError(f"{system!r} is not a generated point system: {', '.join(GENERATED)}")
    return PointTable(system, tuple(points[category] for category in Category))


def is_generated(scoring: object) -> bool:
    """Whether an options ``scoring`` value names a system drawn from the seeds.

    >>> is_generated("ameritish"), is_generated("american"), is_generated({"flush": 1})
    (True, False, False)
    """
    return isinstance(scoring, str) and scoring in GENERATED


def needs_seeds(system: str) -> RuleError:
    """The error for a generated system where no seeds are known (an explicit card order)."""
    return RuleError(
        "generated-needs-seeds",
        f"{system!r} is a point system drawn from the deal's seeds ({ALGORITHM}): it is "
        "known once a deal is dealt from a seed pair, not for an explicit card order or a "
        "bare layout; name a table or give a custom one",
        field="options.scoring",
    )


__all__ = ["ALGORITHM", "GENERATED", "LOWEST", "GeneratedName", "generate", "is_generated"]
