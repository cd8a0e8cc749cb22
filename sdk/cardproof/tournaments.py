"""Tournament settlement: the traditional pairwise rule for turning scores into payments.

Every player pays every higher-scoring player the difference of their scores; players
with equal scores pay each other nothing. A player's net is therefore what they receive
from everyone below them minus what they pay everyone above them, which adds up to
``n * score - total`` for ``n`` players whose scores sum to ``total``, and the nets of
a table always sum to zero. The server's ``GET /v1/tournaments/{id}/settlement`` returns
the same :class:`Settlement` that :func:`settlement` computes here, so a client can check
it offline.

Three players scoring 10, 7 and 7: each 7 pays the 10 three points, the two 7s pay each
other nothing.

>>> scores = {"ann": 10, "bob": 7, "cy": 7}
>>> settle(scores)
{'ann': 6, 'bob': -3, 'cy': -3}
>>> payments(scores)
[Payment(payer='bob', payee='ann', amount=3), Payment(payer='cy', payee='ann', amount=3)]

Scores may be negative (custom point tables can score below zero); only the differences
matter, so shifting every score by the same amount changes nothing.

>>> settle({"ann": -2, "bob": 5})
{'ann': -7, 'bob': 7}
>>> settle({"ann": 98, "bob": 105})
{'ann': -7, 'bob': 7}
>>> settlement({"ann": -2, "bob": 5}).payments
[Payment(payer='ann', payee='bob', amount=7)]
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

__all__ = ["Payment", "Settlement", "payments", "settle", "settlement"]


class Payment(msgspec.Struct, frozen=True):
    """``payer`` owes ``payee`` ``amount`` points (always positive)."""

    payer: str
    payee: str
    amount: int


class Settlement(msgspec.Struct, frozen=True):
    """A table's settlement: each player's net, and the pairwise payments behind it.

    ``nets`` follows the order of the scores given; ``payments`` the order that
    :func:`payments` documents.
    """

    nets: dict[str, int]
    payments: list[Payment]


def _checked(scores: Mapping[str, int]) -> list[tuple[str, int]]:
    """Return the ``(name, score)`` pairs in input order, or raise ``TypeError``."""
    if not isinstance(scores, Mapping):
        raise TypeError(f"scores must be a mapping of name to score, not {type(scores).__name__}")
    items = list(scores.items())
    for name, score in items:
        if not isinstance(name, str):
            raise TypeError(f"player names must be strings, not {type(name).__name__}: {name!r}")
        if isinstance(score, bool) or not isinstance(score, int):
            raise TypeError(
                f"score of {name!r} must be an int, not {type(score).__name__}: {score!r}"
            )
    return items


def _nets(items: list[tuple[str, int]]) -> dict[str, int]:
    n = len(items)
    total = sum(score for _, score in items)
    return {name: n * score - total for name, score in items}


def _payments(items: list[tuple[str, int]]) -> list[Payment]:
    ranked = sorted(items, key=lambda item: (-item[1], item[0]))
    # below[i]: index in ``ranked`` of the first player scoring strictly less than ranked[i].
    below = [0] * len(ranked)
    end = len(ranked)
    for i in range(len(ranked) - 1, -1, -1):
        if i + 1 < len(ranked) and ranked[i + 1][1] != ranked[i][1]:
            end = i + 1
        below[i] = end
    return [
        Payment(payer, payee, high - low)
        for (payee, high), start in zip(ranked, below, strict=True)
        for payer, low in ranked[start:]
    ]


def settle(scores: Mapping[str, int]) -> dict[str, int]:
    """Return each player's net under the pairwise rule: ``n * score - sum(scores)``.

    The nets sum to zero and come in the order of ``scores``; an empty mapping gives
    ``{}``. Linear in the number of players. Raises ``TypeError`` for a name that is not
    a ``str`` or a score that is not an ``int`` (``bool`` included).
    """
    return _nets(_checked(scores))


def payments(scores: Mapping[str, int]) -> list[Payment]:
    """Return the pairwise payments: each lower scorer pays each higher scorer the difference.

    There is one :class:`Payment` per pair of players with different scores; ties pay
    nothing. The order is fixed so that a server and a client list them alike: by payee
    (highest score first, then name), and for each payee by payer (highest score first,
    then name); names compare as Python strings, by code point.

    Quadratic by nature: ``n`` players with distinct scores make ``n * (n - 1) / 2``
    payments (about 500,000 for 1,000 players). :func:`settle` gives the nets in linear
    time. Raises ``TypeError`` as :func:`settle` does.
    """
    return _payments(_checked(scores))


def settlement(scores: Mapping[str, int]) -> Settlement:
    """Return the :class:`Settlement`: :func:`settle`'s nets and :func:`payments`' list."""
    items = _checked(scores)
    return Settlement(nets=_nets(items), payments=_payments(items))
