"""Five-card poker hands: categories, point tables, joker-wild evaluation, scores.

Classification is a lookup in a card-indexed trie ``T[a][b][c][d][e]``. The trie is a
small automaton: after k cards its state is only (the sorted ranks seen, the single
suit seen or "mixed"), so it has 6,735 shared nodes and answers in five list
subscriptions, whatever the order of the cards.

>>> hand = lambda text: classify(parse_cards(text.split()))
>>> hand("AH KH QH JH TH").id, hand("5D 4C 3S 2H AD").id, hand("QS KS AS 2S 3H").id
('royal-flush', 'straight', 'high-card')
>>> hand("9C 9D 9H 4S 4C").id, hand("7C 7D 2H 2S 9C").id, hand("KD 8D 5D 3D 2D").id
('full-house', 'two-pair', 'flush')

The joker is wild: it becomes whichever card scores best under the table in use, and
it may duplicate a card already in the hand (docs/rules.md section 1).

>>> reserve = TABLES["reserve"]
>>> best_category(parse_cards("AH AD AC AS JK".split()), reserve).id
'five-of-a-kind'
>>> best_category(parse_cards("KH QH JH TH JK".split()), reserve).id
'royal-flush'
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from functools import lru_cache, partial
from operator import itemgetter
from pathlib import Path
from typing import Annotated, Any, Final, Literal, cast

import msgspec

from cardproof.cards import JOKER_INDEX, Card, CardShown, parse_cards
from cardproof.errors import RuleError


class Category(IntEnum):
    """Hand categories, low to high; five of a kind exists only with a joker."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    FIVE_OF_A_KIND = 10

    @property
    def id(self) -> str:
        """The kebab-case API name, ``full-house``."""
        return self.name.lower().replace("_", "-")

    @staticmethod
    def from_id(text: str) -> Category:
        """The category with this API name; ``RuleError('unknown-category')`` if none."""
        try:
            return _CATEGORY_BY_ID[text]
        except KeyError:
            raise RuleError(
                "unknown-category",
                f"{text!r} is not a hand category; known: {', '.join(CATEGORY_IDS)}",
            ) from None


CATEGORIES: Final[tuple[Category, ...]] = tuple(Category)
CATEGORY_IDS: Final = tuple(c.id for c in Category)
"""Category ids by category number (``CATEGORY_IDS[6] == "full-house"``)."""
_CATEGORY_BY_ID: Final = {c.id: c for c in Category}

CategoryId = Literal[
    "high-card",
    "one-pair",
    "two-pair",
    "three-of-a-kind",
    "straight",
    "flush",
    "full-house",
    "four-of-a-kind",
    "straight-flush",
    "royal-flush",
    "five-of-a-kind",
]
"""The category names as a type, for API schemas."""
_CATEGORY_ID_TYPED: Final = cast(tuple[CategoryId, ...], CATEGORY_IDS)
TableName = Literal["american", "british", "repeat", "reserve"]
"""The named point tables of docs/rules.md section 1."""
Points = Annotated[int, msgspec.Meta(ge=-1000, le=1000)]


class CustomTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="kebab"):
    """A custom point table: points (-1000..1000) per category; a category left out scores 0.

    In JSON its keys are the category ids: ``{"full-house": 1, "flush": -1}``.
    """

    high_card: Points = 0
    one_pair: Points = 0
    two_pair: Points = 0
    three_of_a_kind: Points = 0
    straight: Points = 0
    flush: Points = 0
    full_house: Points = 0
    four_of_a_kind: Points = 0
    straight_flush: Points = 0
    royal_flush: Points = 0
    five_of_a_kind: Points = 0


# --- the classifier -------------------------------------------------------------

_MIXED: Final = -1
_EMPTY: Final = 4
_RANK_BIT: Final = tuple(1 << (3 * rank) for rank in range(13))  # 3-bit count per rank


def _category_of_ranks(ranks: tuple[int, ...], flush: bool) -> int:
    """Category of five ranks (sorted ascending) that are or are not one suit."""
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if counts[0] == 5:
        return Category.FIVE_OF_A_KIND.value
    if counts[0] == 4:
        by_ranks = Category.FOUR_OF_A_KIND
    elif counts[:2] == [3, 2]:
        by_ranks = Category.FULL_HOUSE
    elif counts[0] == 3:
        by_ranks = Category.THREE_OF_A_KIND
    elif counts[:2] == [2, 2]:
        by_ranks = Category.TWO_PAIR
    elif counts[0] == 2:
        by_ranks = Category.ONE_PAIR
    else:
        straight = ranks[4] - ranks[0] == 4 or ranks == (0, 1, 2, 3, 12)
        if straight and flush:
            royal = ranks[0] == 8
            return (Category.ROYAL_FLUSH if royal else Category.STRAIGHT_FLUSH).value
        by_ranks = Category.STRAIGHT if straight else Category.HIGH_CARD
    return max(by_ranks, Category.FLUSH).value if flush else by_ranks.value


def _build_trie() -> tuple[list[Any], tuple[tuple[int, ...], ...]]:
    """Build ``T`` so that ``T[a][b][c][d][e]`` is the category number of cards a..e.

    A state is (rank counts packed 3 bits a rank, the one suit seen or mixed); cards of
    a suit the state does not track lead to the same child, so a node's 52 children
    are built from 13 (mixed) or 26 (one suit) distinct ones. Before the fifth card a
    suited state never holds a rank twice (that would be one card twice), so those
    children share the mixed node. A level-4 node is a ``bytes`` of 53: the category
    numbers of the 52 fifth cards and, at index 52, the number in the second result of
    the distinct categories they reach, best first (what a joker in fifth place can
    become). Bytes keep the last level small (53 bytes, not a list of 53 pointers),
    which is what makes the lookup fast: the level-4 nodes then fit the CPU's caches.
    """
    nodes: dict[tuple[int, int, int], list[object]] = {}
    leaves: dict[tuple[int, bool], int] = {}
    fourths: dict[tuple[int, int], bytes] = {}
    reachable: dict[tuple[int, ...], int] = {}

    def leaf(counts: int, flush: bool) -> int:
        found = leaves.get((counts, flush))
        if found is None:
            ranks = tuple(r for r in range(13) for _ in range((counts >> (3 * r)) & 7))
            found = leaves[(counts, flush)] = _category_of_ranks(ranks, flush)
        return found

    def fourth(counts: int, suit: int) -> bytes:
        found = fourths.get((counts, suit))
        if found is None:
            mixed = [leaf(counts + bit, False) for bit in _RANK_BIT]
            same = [leaf(counts + bit, True) for bit in _RANK_BIT] if suit >= 0 else mixed
            fifth = [x for s in range(4) for x in (same if s == suit else mixed)]
            reach = tuple(sorted(set(fifth), reverse=True))
            found = fourths[(counts, suit)] = bytes(
                [*fifth, reachable.setdefault(reach, len(reachable))]
            )
        return found

    def node(depth: int, counts: int, suit: int) -> list[object]:
        key = (depth, counts, suit)
        found = nodes.get(key)
        if found is not None:
            return found
        step: Callable[[int, int], object] = fourth if depth == 3 else partial(node, depth + 1)
        children: list[object]
        if suit == _EMPTY:
            children = [node(1, bit, s) for s in range(4) for bit in _RANK_BIT]
        else:
            mixed: list[object] = [step(counts + bit, _MIXED) for bit in _RANK_BIT]
            same = mixed
            if suit >= 0:  # a rank already held cannot come again in the same suit
                same = [
                    step(counts + bit, suit) if not counts & (7 * bit) else child
                    for bit, child in zip(_RANK_BIT, mixed, strict=True)
                ]
            children = [x for s in range(4) for x in (same if s == suit else mixed)]
        nodes[key] = children
        return children

    return node(0, 0, _EMPTY), tuple(reachable)


_TRIE_FILE: Final = Path(__file__).with_name("hand_trie.bin")
"""The trie as :func:`_build_trie` makes it, packed by :func:`pack_trie` when the package
is made (``make tables``; a test checks it is current): loaded in about 5 ms, where
building it takes about 150 ms, which every command would pay at start."""
_TRIE_MAGIC: Final = b"cardproof-trie-1"
_ROW: Final = 52  # children of a node above the last level; a last-level node is 53 bytes


def pack_trie(trie: list[Any], reachable: tuple[tuple[int, ...], ...]) -> bytes:
    """The trie as bytes: each level's distinct nodes, a node as its children's numbers.

    Layout (little-endian, zlib-compressed): the magic; the count of nodes at levels 4,
    3, 2 and 1 (u32 each); the level-4 nodes (53 bytes each); levels 3, 2, 1 and the
    root as rows of 52 u16 child numbers; then each ``REACHABLE`` tuple as its length
    and its category numbers (a byte each). Shared nodes stay shared when unpacked.
    """
    levels: list[dict[int, int]] = [{} for _ in range(5)]
    rows: list[list[Any]] = [[] for _ in range(5)]

    def number(node: Any, depth: int) -> int:
        known = levels[depth].get(id(node))
        if known is None:
            known = levels[depth][id(node)] = len(rows[depth])
            rows[depth].append(node if depth == 4 else [number(c, depth + 1) for c in node])
        return known

    number(trie, 0)
    out = bytearray(_TRIE_MAGIC)
    for depth in (4, 3, 2, 1):
        out += struct.pack("<I", len(rows[depth]))
    out += b"".join(rows[4])
    for depth in (3, 2, 1, 0):
        for children in rows[depth]:
            out += struct.pack(f"<{_ROW}H", *children)
    out += struct.pack("<H", len(reachable))
    for reach in reachable:
        out += bytes([len(reach), *reach])
    return zlib.compress(bytes(out), 9)


def unpack_trie(packed: bytes) -> tuple[list[Any], tuple[tuple[int, ...], ...]]:
    """The trie and its ``REACHABLE`` from :func:`pack_trie`'s bytes."""
    data = zlib.decompress(packed)
    if not data.startswith(_TRIE_MAGIC):
        raise ValueError("not a packed hand trie")
    at = len(_TRIE_MAGIC)
    counts = struct.unpack_from("<4I", data, at)
    at += 16
    width = _ROW + 1
    below: list[Any] = [data[at + i * width : at + (i + 1) * width] for i in range(counts[0])]
    at += counts[0] * width
    for count in (*counts[1:], 1):
        numbers = array("H", data[at : at + count * _ROW * 2])
        if sys.byteorder == "big":
            numbers.byteswap()
        at += count * _ROW * 2
        below = [[below[j] for j in numbers[i * _ROW : (i + 1) * _ROW]] for i in range(count)]
    (kinds,) = struct.unpack_from("<H", data, at)
    at += 2
    reachable = []
    for _ in range(kinds):
        size = data[at]
        reachable.append(tuple(data[at + 1 : at + 1 + size]))
        at += 1 + size
    if at != len(data):
        raise ValueError("a packed hand trie with bytes left over")
    return below[0], tuple(reachable)


def _load_trie() -> tuple[list[Any], tuple[tuple[int, ...], ...]]:
    """The shipped trie; built afresh only when its file is gone (``make tables`` then)."""
    try:
        packed = _TRIE_FILE.read_bytes()
    except FileNotFoundError:
        return _build_trie()
    return unpack_trie(packed)


def write_trie_file() -> None:
    """Build the trie and write it packed beside this module (run by ``make tables``)."""
    _TRIE_FILE.write_bytes(pack_trie(*_build_trie()))


TRIE, REACHABLE = _load_trie()
"""The trie: ``TRIE[a][b][c][d][e]`` is the category number of five card indices;
``REACHABLE[TRIE[a][b][c][d][52]]`` the categories a joker makes with cards a..d."""
_T: Final = TRIE  # the hot paths below read a short global name


def classify_indices(hand: Sequence[int]) -> int:
    """Category number of five distinct standard card indices (the fast path).

    >>> Category(classify_indices([12, 25, 38, 51, 0])).id  # AC AD AH AS 2C
    'four-of-a-kind'
    """
    return _T[hand[0]][hand[1]][hand[2]][hand[3]][hand[4]]  # type: ignore[no-any-return]


def classify(cards: Sequence[Card]) -> Category:
    """Category of five standard cards (no joker; see :func:`best_category`)."""
    if len(cards) != 5:
        raise ValueError(f"a poker hand has 5 cards, not {len(cards)}")
    v, w, x, y, z = cards
    a, b, c, d, e = v.index, w.index, x.index, y.index, z.index
    if JOKER_INDEX in (a, b, c, d, e):
        raise ValueError("classify() takes no joker; use best_category() with a table")
    return CATEGORIES[_T[a][b][c][d][e]]  # type: ignore[no-any-return]


# --- point tables ----------------------------------------------------------------


class PointTable(msgspec.Struct, frozen=True):
    """Points per category, indexed by :class:`Category`; ``name`` is ``custom`` if unnamed."""

    name: str
    points: tuple[int, ...]

    def __getitem__(self, category: int) -> int:
        return self.points[category]

    def as_mapping(self) -> dict[str, int]:
        """The table as category name to points (the API's form)."""
        return dict(zip(CATEGORY_IDS, self.points, strict=True))

    @staticmethod
    def custom(mapping: Mapping[str, int]) -> PointTable:
        """A table from category names to points (-1000..1000; left out scores 0).

        >>> PointTable.custom({"full-house": 1, "flush": -1}).as_mapping()["flush"]
        -1
        """
        points = [0] * len(CATEGORIES)
        for key, value in mapping.items():
            if not isinstance(value, int) or isinstance(value, bool) or abs(value) > 1000:
                raise RuleError(
                    "bad-points",
                    f"points for {key!r} must be an integer from -1000 to 1000, not {value!r}",
                    field=f"options.scoring.{key}",
                )
            try:
                points[Category.from_id(key)] = value
            except RuleError as error:
                raise RuleError(error.code, error.message, field=f"options.scoring.{key}") from None
        return PointTable("custom", tuple(points))

    @staticmethod
    def from_option(value: str | CustomTable | Mapping[str, int]) -> PointTable:
        """The table an options ``scoring`` value names (a name, or a custom table)."""
        if isinstance(value, CustomTable):
            return PointTable("custom", tuple(getattr(value, f) for f in value.__struct_fields__))
        if isinstance(value, str):
            try:
                return TABLES[value]
            except KeyError:
                raise RuleError(
                    "unknown-table",
                    f"{value!r} is not a point table; known: {', '.join(TABLES)}",
                    field="options.scoring",
                ) from None
        return PointTable.custom(value)


def _table(name: str, *points: int) -> PointTable:
    # points are given high to low as in docs/rules.md: royal .. high card, five of a kind last
    royal, sf, quads, full, flush, straight, trips, two, one, high, five = points
    return PointTable(name, (high, one, two, trips, straight, flush, full, quads, sf, royal, five))


TABLES: Final[dict[str, PointTable]] = {
    "american": _table("american", 100, 75, 50, 25, 20, 15, 10, 5, 2, 0, 0),
    "british": _table("british", 30, 30, 16, 10, 5, 12, 6, 3, 1, 0, 0),
    "repeat": _table("repeat", 1000, 750, 500, 250, 200, 150, 100, 50, 20, 0, 0),
    "reserve": _table("reserve", 30, 24, 20, 18, 14, 10, 8, 4, 2, 0, 28),
}
"""The named tables of docs/rules.md section 1 (five of a kind scores 0 where it has no entry)."""


# --- joker-wild evaluation -----------------------------------------------------------


def best_category(cards: Sequence[Card], table: PointTable) -> Category:
    """Category of five cards where a joker is wild, scored to be best under ``table``.

    The joker stands for whichever card (a duplicate allowed) gives the most points;
    among equal points the higher category is taken. Without a joker this is
    :func:`classify`.
    """
    if len(cards) != 5:
        raise ValueError(f"a poker hand has 5 cards, not {len(cards)}")
    v, w, x, y, z = cards
    return CATEGORIES[_category(table.points, v.index, w.index, x.index, y.index, z.index)]


def _category(points: tuple[int, ...], a: int, b: int, c: int, d: int, e: int) -> int:
    """Category number of five card indices, a joker (index 52) wild under ``points``."""
    if JOKER_INDEX not in (a, b, c, d, e):
        return _T[a][b][c][d][e]  # type: ignore[no-any-return]
    rest = [i for i in (a, b, c, d, e) if i != JOKER_INDEX]
    if len(rest) != 4:
        raise ValueError("a hand may hold one joker at most")
    return _wild_pick(points, REACHABLE[_T[rest[0]][rest[1]][rest[2]][rest[3]][JOKER_INDEX]])


@lru_cache(maxsize=4096)
def _wild_pick(points: tuple[int, ...], reachable: tuple[int, ...]) -> int:
    """The reachable category worth most under ``points`` (ties: the higher category)."""
    return max(reachable, key=lambda category: (points[category], category))


# --- scores ------------------------------------------------------------------------


LineName = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[a-z0-9 \\/-]{1,32}(?![\s\S])",
        description="A scored line, like 'row 1', 'col c' or 'diagonal /'.",
    ),
]
"""A line's name in a score: lower-case letters, digits, spaces and the diagonals' slashes."""


class HandScore(msgspec.Struct, frozen=True, omit_defaults=True):
    """One scored hand: which line, its cards (canonical text), category and points.

    Variants that score rows as they fill (``repeat-poker``) also say which ``level`` the
    hand was made in and which cards it ``removed``; the grid variants leave both out.
    """

    line: LineName
    cards: tuple[CardShown, ...]
    category: CategoryId
    points: int
    level: int | None = None
    removed: tuple[CardShown, ...] | None = None


class Score(msgspec.Struct, frozen=True, omit_defaults=True):
    """A game's score: the total and one entry per scored hand.

    ``levels`` gives each level's total, for variants played in levels. ``won`` and
    ``series_removed`` are solodrez's result (its total is ``series_removed``; it scores
    no hands).
    """

    total: int
    hands: tuple[HandScore, ...]
    levels: tuple[int, ...] | None = None
    won: bool | None = None
    series_removed: int | None = None


def score_hands(named_hands: Sequence[tuple[str, Sequence[Card]]], table: PointTable) -> Score:
    """Score named five-card hands under ``table`` (a joker, if any, is wild).

    >>> s = score_hands([("row 1", parse_cards("2C 2D 5H 9S KC".split()))], TABLES["american"])
    >>> s.total, s.hands[0].category
    (2, 'one-pair')
    """
    cards = [card for _, hand in named_hands for card in hand]
    if len(cards) != 5 * len(named_hands):
        raise ValueError("every poker hand has 5 cards")
    lines = [
        (name, itemgetter(*range(5 * i, 5 * i + 5))) for i, (name, _) in enumerate(named_hands)
    ]
    return score_lines(cards, lines, table)


def score_lines(
    cards: Sequence[Card],
    lines: Sequence[tuple[str, Callable[[Sequence[Any]], Any]]],
    table: PointTable,
) -> Score:
    """Score the named lines of one layout: each ``pick`` takes a line's 5 of ``cards``.

    A layout's cards are read once; each line picks its indices and texts with an
    ``operator.itemgetter`` (this is the hot path of every verification).
    """
    indices = [card.index for card in cards]
    texts = [card.text for card in cards]
    points = table.points
    wild = JOKER_INDEX in indices
    hands = []
    total = 0
    for name, pick in lines:
        a, b, c, d, e = pick(indices)
        category: int = _category(points, a, b, c, d, e) if wild else _T[a][b][c][d][e]
        total += points[category]
        hands.append(HandScore(name, pick(texts), _CATEGORY_ID_TYPED[category], points[category]))
    return Score(total, tuple(hands))


__all__ = [
    "CATEGORIES",
    "CATEGORY_IDS",
    "TABLES",
    "Category",
    "CategoryId",
    "CustomTable",
    "HandScore",
    "PointTable",
    "Score",
    "TableName",
    "best_category",
    "classify",
    "classify_indices",
    "parse_cards",
    "score_hands",
    "score_lines",
]
