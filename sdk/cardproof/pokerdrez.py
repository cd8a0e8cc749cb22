"""The Pokerdrez deck (docs/rules.md section 7): six figures in nine colours, and two neutrals.

A figure is numbered by its place from the top: Joker 0, Queen 1, Tower 2, Bishop 3,
Knight 4, Pawn 5; the two neutrals (wild in play) have figure :data:`NEUTRAL`. A card's
``index`` is its place in the canonical order: colours 1..9, each ``J Q T B N P``, then
``X1 X2``. Colours never matter for play.

>>> PokerdrezCard.parse("q3"), PokerdrezCard.parse("Q3").figure, PokerdrezCard.parse("Q3").colour
(PokerdrezCard('Q3'), 1, 3)
>>> POKERDREZ_DECK[0], POKERDREZ_DECK[5], POKERDREZ_DECK[55], POKERDREZ_DECK[55].is_neutral
(PokerdrezCard('J1'), PokerdrezCard('P1'), PokerdrezCard('X2'), True)
>>> PokerdrezCard.parse("AH")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
cardproof.errors.ParseError: 'AH' is not a Pokerdrez card: write a figure (J Q T B N P) then...
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Final

from msgspec import Meta

from cardproof.cards import CANONICAL_CARD_PATTERN, CARD_PATTERN, Card, parse_cards
from cardproof.errors import ParseError

FIGURES: Final = "JQTBNP"
"""Figure letters, high to low: Joker, Queen, Tower, Bishop, Knight, Pawn."""
FIGURE_NAMES: Final = ("Joker", "Queen", "Tower", "Bishop", "Knight", "Pawn")
PAWN: Final = 5
"""The lowest figure: nothing goes onto a Pawn."""
NEUTRAL: Final = 6
"""The figure number of a neutral card (it stands for whatever figure a run needs)."""
COLOURS: Final = 9
DECK_SIZE: Final = 56
POKERDREZ_CARD_PATTERN: Final = r"^(?:[JQTBNPjqtbnp][1-9]|[Xx][12])(?![\s\S])"
r"""Regular expression of every accepted spelling of a Pokerdrez card (any case)."""
ANY_CARD_PATTERN: Final = f"^(?:{CARD_PATTERN[1:]}|{POKERDREZ_CARD_PATTERN[1:]})"
"""A card of any of cardproof's decks: a standard card, the joker or a Pokerdrez card."""
CANONICAL_POKERDREZ_PATTERN: Final = r"^(?:[JQTBNP][1-9]|X[12])(?![\s\S])"
"""A Pokerdrez card as cardproof writes it (``Q3``, ``X1``)."""
PokerdrezCardShown = Annotated[
    str,
    Meta(
        pattern=CANONICAL_POKERDREZ_PATTERN,
        description="A Pokerdrez card in its canonical text: figure (J Q T B N P) then "
        "colour 1..9, or a neutral X1 / X2.",
    ),
]
"""A Pokerdrez card in an answer, in its one spelling."""
DeckCardShown = Annotated[
    str,
    Meta(
        pattern=f"^(?:{CANONICAL_CARD_PATTERN[1:]}|{CANONICAL_POKERDREZ_PATTERN[1:]})",
        description="A card of the variant's deck in its canonical text: a standard card "
        "('TD', 'JK' the joker) or a Pokerdrez card ('Q3', 'X1').",
    ),
]
"""A card of any deck in an answer (a lockstep call's), in its one spelling."""


class PokerdrezCard(Card):
    """One Pokerdrez card; instances are shared, immutable and compare by identity.

    It is a :class:`~cardproof.cards.Card` so that the engine's deal and log machinery
    takes it like any other card; it has no rank or suit (both ``-1``) and is never the
    wild joker of the standard decks.
    """

    __slots__ = ("colour", "figure")
    figure: int
    """0 (Joker) .. 5 (Pawn), or :data:`NEUTRAL`."""
    colour: int
    """1..9 for a figure card; 1 or 2 for the neutrals ``X1`` and ``X2``."""

    def __new__(cls, index: int) -> PokerdrezCard:
        """Return the shared Pokerdrez card with this canonical index (0..55)."""
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < DECK_SIZE:
            return POKERDREZ_DECK[index]
        raise ValueError(f"no Pokerdrez card has index {index!r}")

    @classmethod
    def _make(cls, index: int) -> PokerdrezCard:
        card = object.__new__(cls)
        if index < FIGURES_IN_DECK:
            figure, colour = index % len(FIGURES), index // len(FIGURES) + 1
            text = f"{FIGURES[figure]}{colour}"
        else:
            figure, colour = NEUTRAL, index - FIGURES_IN_DECK + 1
            text = f"X{colour}"
        values = {"index": index, "rank": -1, "suit": -1, "text": text}
        for name, value in {**values, "figure": figure, "colour": colour}.items():
            object.__setattr__(card, name, value)
        return card

    def __reduce__(self) -> tuple[type[PokerdrezCard], tuple[int]]:
        return (PokerdrezCard, (self.index,))

    @property
    def is_joker(self) -> bool:
        """Never: the Pokerdrez Joker is a figure, not a wild card (the neutrals are wild)."""
        return False

    @property
    def is_neutral(self) -> bool:
        """Whether this is ``X1`` or ``X2``."""
        return self.figure == NEUTRAL

    @staticmethod
    def parse(text: str) -> PokerdrezCard:
        """Read a Pokerdrez card: figure letter then colour (``Q3``), or ``X1``/``X2``; any case."""
        card = _BY_TEXT.get(text.upper()) if isinstance(text, str) else None
        if card is None:
            raise ParseError(
                f"{text!r} is not a Pokerdrez card: write a figure (J Q T B N P) then a colour "
                "1..9, like 'Q3', or X1 / X2 for a neutral"
            )
        return card

    def __repr__(self) -> str:
        return f"PokerdrezCard({self.text!r})"


FIGURES_IN_DECK: Final = len(FIGURES) * COLOURS
"""54: every figure in every colour (the neutrals come after them)."""
POKERDREZ_DECK: Final[tuple[PokerdrezCard, ...]] = tuple(
    PokerdrezCard._make(i) for i in range(DECK_SIZE)
)
"""The 56 cards in canonical order: colours 1..9, each Joker..Pawn; then X1, X2."""
POKERDREZ_TEXTS: Final[tuple[str, ...]] = tuple(card.text for card in POKERDREZ_DECK)
_BY_TEXT: Final = {card.text: card for card in POKERDREZ_DECK}


def parse_pokerdrez_cards(texts: Iterable[str], *, field: str = "cards") -> list[Card]:
    """Parse Pokerdrez card texts, naming the position of the first bad one.

    >>> parse_pokerdrez_cards(["J1", "x2"])
    [PokerdrezCard('J1'), PokerdrezCard('X2')]
    """
    return parse_cards(texts, field=field, card_type=PokerdrezCard)


__all__ = [
    "ANY_CARD_PATTERN",
    "CANONICAL_POKERDREZ_PATTERN",
    "FIGURES",
    "FIGURE_NAMES",
    "NEUTRAL",
    "PAWN",
    "POKERDREZ_CARD_PATTERN",
    "POKERDREZ_DECK",
    "POKERDREZ_TEXTS",
    "DeckCardShown",
    "PokerdrezCard",
    "PokerdrezCardShown",
    "parse_pokerdrez_cards",
]
