"""The variant registry: variant id to its :class:`~cardproof.games.base.Game` class.

Adding a variant is adding a module and a line here.

>>> sorted(VARIANTS)
['poker-patience', 'poker-squares', 'repeat-poker', 'reserve-poker', 'serpent-patience', 'solodrez']
>>> variant("poker-squares").information
'hidden'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from cardproof.cards import Card
from cardproof.errors import RuleError
from cardproof.games.base import Game
from cardproof.games.grid import Cell, GridView
from cardproof.games.poker_patience import Offset, PokerPatience
from cardproof.games.poker_squares import PokerSquares
from cardproof.games.repeat_poker import RepeatPoker, RowMove, RowsView
from cardproof.games.reserve_poker import ReserveMove, ReservePoker, ReserveView
from cardproof.games.serpent_patience import SerpentPatience
from cardproof.games.solodrez import SoloDrez, SoloDrezMove, SoloDrezView

GameClass = type[Game[Any, Any]]

VARIANTS: Final[dict[str, GameClass]] = {
    cls.id: cls
    for cls in (PokerSquares, PokerPatience, SerpentPatience, RepeatPoker, ReservePoker, SoloDrez)
}


def variant(variant_id: str) -> GameClass:
    """The game class of a variant id; ``RuleError('unknown-variant')`` if none."""
    try:
        return VARIANTS[variant_id]
    except KeyError:
        raise RuleError(
            "unknown-variant",
            f"{variant_id!r} is not a variant; known: {', '.join(VARIANTS)}",
            field="variant",
        ) from None


def parse_moves(
    cls: GameClass, moves: str | Sequence[Mapping[str, Any] | msgspec.Struct]
) -> list[Any]:
    """A log given as text or as move objects, read as the variant's moves (no deck needed).

    A move that is not the variant's is an ``IllegalMove('wrong-move-shape')`` naming its
    index.
    """
    if isinstance(moves, str):
        return cls.parse_log(moves)
    return [cls.move_from_object(obj, i) for i, obj in enumerate(moves)]


def replay_log(
    variant_id: str,
    cards: Sequence[Card],
    options: Mapping[str, Any] | msgspec.Struct | None,
    moves: str | Sequence[Mapping[str, Any] | msgspec.Struct],
    *,
    dealt: bool = False,
) -> Game[Any, Any]:
    """Replay a log given as text or as move objects; errors name the move index.

    ``dealt``: the cards are the variant's ``deal_cards`` of a seed pair (not checked again).
    """
    cls = variant(variant_id)
    return cls.replay(cards, options, parse_moves(cls, moves), dealt=dealt)


__all__ = [
    "VARIANTS",
    "Cell",
    "Game",
    "GameClass",
    "GridView",
    "Offset",
    "PokerPatience",
    "PokerSquares",
    "RepeatPoker",
    "ReserveMove",
    "ReservePoker",
    "ReserveView",
    "RowMove",
    "RowsView",
    "SerpentPatience",
    "SoloDrez",
    "SoloDrezMove",
    "SoloDrezView",
    "parse_moves",
    "replay_log",
    "variant",
]
