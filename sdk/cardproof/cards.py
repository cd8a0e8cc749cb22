"""Playing cards: values, parsing and the canonical text form (docs/rules.md section 1).

A :class:`Card` is an immutable value with a dense ``index``: the card's place in the
canonical deck order (suits C, D, H, S, each ranks 2..A; the joker, where present,
is 52). The engine works on indices; text appears only at the edges.

>>> Card.parse("10h"), Card.parse("a♠"), Card.parse("JK")
(Card('TH'), Card('AS'), Card('JK'))
>>> str(Card.parse("td")), Card.parse("2C").index, Card.parse("AS").index
('TD', 0, 51)
>>> Card.parse("1H")
Traceback (most recent call last):
...
cardproof.errors.ParseError: '1H' is not a card: write rank then suit, like 'AH', 'TD' or '10D'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Final

from msgspec import Meta

from cardproof.errors import ParseError, RuleError

RANKS: Final = "23456789TJQKA"
"""Rank letters, low to high; a rank's number is its position (2 is 0, ace is 12)."""
SUITS: Final = "CDHS"
"""Suit letters in canonical order."""
JOKER_INDEX: Final = 52
"""Index of the joker, after the 52 standard cards."""

_SUIT_SYMBOLS: Final = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}

CARD_PATTERN: Final = r"^(?:(?:[2-9TtJjQqKkAa]|10)[CcDdHhSs♣♦♥♠]|[Jj][Kk])(?![\s\S])"
r"""Regular expression of every accepted spelling of a card (used in the API schema).

It ends in ``(?![\s\S])``, not ``$``: Python's ``$`` also matches before a final newline."""
CANONICAL_CARD_PATTERN: Final = r"^(?:[2-9TJQKA][CDHS]|JK)(?![\s\S])"
"""A card as cardproof writes it (``TD``, ``JK``): the one spelling a server's answer uses."""
CardShown = Annotated[
    str,
    Meta(
        pattern=CANONICAL_CARD_PATTERN,
        description="A card in its canonical text: rank (2-9, T, J, Q, K, A) then suit "
        "(C D H S); JK is the joker.",
    ),
]
"""A card in an answer: anything else (an escape a terminal would obey) is refused."""


class Card:
    """One playing card; instances are shared, immutable and compare by identity.

    >>> Card.parse("QS").rank, Card.parse("QS").suit, Card.parse("QS").is_joker
    (10, 3, False)
    """

    __slots__ = ("index", "rank", "suit", "text")
    index: int
    rank: int
    suit: int
    text: str

    def __new__(cls, index: int) -> Card:
        """Return the shared card with this canonical index (0..52)."""
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index <= JOKER_INDEX:
            return ALL_CARDS[index]
        raise ValueError(f"no card has index {index!r}")

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        rank, suit = (-1, -1) if index == JOKER_INDEX else (index % 13, index // 13)
        text = "JK" if index == JOKER_INDEX else RANKS[rank] + SUITS[suit]
        for name, value in (("index", index), ("rank", rank), ("suit", suit), ("text", text)):
            object.__setattr__(card, name, value)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    @property
    def is_joker(self) -> bool:
        """Whether this is the joker."""
        return self.index == JOKER_INDEX

    @staticmethod
    def parse(text: str) -> Card:
        """Read a card: rank then suit, ``10`` for ``T``, any case, suit symbols allowed."""
        if not isinstance(text, str):
            raise ParseError(f"{text!r} is not a card: expected a string like 'AH'")
        card = _BY_TEXT.get(text)
        if card is None:
            raise ParseError(
                f"{text!r} is not a card: write rank then suit, like 'AH', 'TD' or '10D'"
            )
        return card

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card._make(i) for i in range(JOKER_INDEX + 1))
"""Every card by canonical index: the 52 standard cards, then the joker."""
JOKER: Final = ALL_CARDS[JOKER_INDEX]

STANDARD_DECK: Final[tuple[Card, ...]] = ALL_CARDS[:52]
"""The 52-card deck in canonical order: suits C, D, H, S, each 2..A."""
JOKER_DECK: Final[tuple[Card, ...]] = ALL_CARDS
"""The 53-card deck: the standard deck, then the joker."""


def _spellings() -> dict[str, Card]:
    """Every accepted spelling: ``10`` for ``T``, either case, suit symbols; ``JK``."""
    table: dict[str, Card] = {spelling: JOKER for spelling in ("JK", "Jk", "jK", "jk")}
    for card in STANDARD_DECK:
        rank_letter, suit_letter = card.text[0], card.text[1]
        ranks = {rank_letter, rank_letter.lower()} | ({"10"} if rank_letter == "T" else set())
        symbol = next(k for k, v in _SUIT_SYMBOLS.items() if v == suit_letter)
        for rank in ranks:
            for suit in (suit_letter, suit_letter.lower(), symbol):
                table[rank + suit] = card
    return table


_BY_TEXT: Final = _spellings()


def parse_cards(
    texts: Iterable[str], *, field: str = "cards", card_type: type[Card] | None = None
) -> list[Card]:
    """Parse a sequence of card texts, naming the position of the first bad one.

    ``card_type`` reads another deck's cards (:class:`cardproof.pokerdrez.PokerdrezCard`).

    >>> parse_cards(["AH", "x"])
    Traceback (most recent call last):
    ...
    cardproof.errors.ParseError: 'x' is not a card: write rank then suit, like 'AH', 'TD' or '10D'
    """
    parse = (card_type or Card).parse
    cards = []
    for i, text in enumerate(texts):
        try:
            cards.append(parse(text))
        except ParseError as error:
            raise error.at(f"{field}[{i}]") from None
    return cards


def require_distinct(
    cards: Sequence[Card], *, locate: Callable[[int], str] = lambda i: f"cards[{i}]"
) -> None:
    """Raise ``RuleError('duplicate-card')`` naming both places a card appears.

    ``locate`` turns a position into the name of its place in the request.

    >>> require_distinct([Card.parse("AH"), Card.parse("2C"), Card.parse("ah")])
    Traceback (most recent call last):
    ...
    cardproof.errors.RuleError: AH appears twice (cards[0] and cards[2])
    """
    seen: dict[int, int] = {}
    for i, card in enumerate(cards):
        first = seen.setdefault(card.index, i)
        if first != i:
            raise RuleError(
                "duplicate-card",
                f"{card} appears twice ({locate(first)} and {locate(i)})",
                field=locate(i),
            )
