"""Poker hands: categories, point tables, the wild joker, scores (docs/rules.md section 1)."""

from __future__ import annotations

import itertools
import random
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof import hands
from cardproof.cards import JOKER, STANDARD_DECK, Card, parse_cards
from cardproof.errors import RuleError
from cardproof.hands import (
    CATEGORY_IDS,
    TABLES,
    Category,
    PointTable,
    best_category,
    classify,
    classify_indices,
    score_hands,
)
from reference_hands import ref_category

# --- an independent reference, written from docs/rules.md section 1 ----------------------

ORDER = [
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
"""Categories low to high, as docs/rules.md lists them."""
RANKS = "23456789TJQKA"
SUITS = "CDHS"

# docs/rules.md section 1, "Point tables" (None where the table has no entry: '–').
GAMES_MD_TABLE: dict[str, tuple[int | None, int | None, int | None, int | None]] = {
    #                  american british repeat reserve
    "royal-flush": (100, 30, 1000, 30),
    "five-of-a-kind": (None, None, None, 28),
    "straight-flush": (75, 30, 750, 24),
    "four-of-a-kind": (50, 16, 500, 20),
    "full-house": (25, 10, 250, 18),
    "flush": (20, 5, 200, 14),
    "straight": (15, 12, 150, 10),
    "three-of-a-kind": (10, 6, 100, 8),
    "two-pair": (5, 3, 50, 4),
    "one-pair": (2, 1, 20, 2),
    "high-card": (0, 0, 0, 0),
}
TABLE_NAMES = ("american", "british", "repeat", "reserve")


def games_md_points(name: str) -> dict[str, int]:
    column = TABLE_NAMES.index(name)
    return {cat: row[column] or 0 for cat, row in GAMES_MD_TABLE.items()}


def rank_suit(card: Card) -> tuple[int, int]:
    return RANKS.index(card.text[0]), SUITS.index(card.text[1])


def hand(text: str) -> list[Card]:
    return parse_cards(text.split())


def joker_replacements(cards: Sequence[Card]) -> list[str]:
    """The category of the hand for each of the 52 cards the joker may become."""
    fixed = [rank_suit(c) for c in cards if not c.is_joker]
    assert len(fixed) == 4
    return [ref_category([*fixed, rank_suit(card)]) for card in STANDARD_DECK]


def ref_best(replacements: Sequence[str], points: Mapping[str, int]) -> str:
    """Brute force: the replacement with most points, ties to the higher category."""
    return max(replacements, key=lambda cat: (points[cat], ORDER.index(cat)))


def ref_best_with_joker(cards: Sequence[Card], points: Mapping[str, int]) -> str:
    return ref_best(joker_replacements(cards), points)


# --- categories --------------------------------------------------------------------


def test_category_order_and_ids_follow_games_md() -> None:
    assert list(CATEGORY_IDS) == ORDER
    assert [c.id for c in sorted(Category)] == ORDER
    for category in Category:
        assert Category.from_id(category.id) is category


def test_unknown_category_id() -> None:
    with pytest.raises(RuleError) as info:
        Category.from_id("Flush")
    assert info.value.code == "unknown-category"
    assert "'Flush'" in info.value.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AH KD 9C 7S 3H", "high-card"),
        ("2C 3D 4H 5S 7C", "high-card"),
        ("AH AD 9C 7S 3H", "one-pair"),
        ("2C 2D 5H 9S KC", "one-pair"),
        ("7C 7D 2H 2S 9C", "two-pair"),
        ("9C 9D 9H 4S 5C", "three-of-a-kind"),
        ("AD 2C 3H 4S 5D", "straight"),
        ("5D 4C 3S 2H AD", "straight"),
        ("TC JD QH KS AD", "straight"),
        ("6C 7D 8H 9S TC", "straight"),
        ("KD 8D 5D 3D 2D", "flush"),
        ("2H 4H 6H 8H TH", "flush"),
        ("AH KH QH JH 9H", "flush"),
        ("9C 9D 9H 4S 4C", "full-house"),
        ("AC AD AH AS 2C", "four-of-a-kind"),
        ("AH 2H 3H 4H 5H", "straight-flush"),
        ("9H TH JH QH KH", "straight-flush"),
        ("2S 3S 4S 5S 6S", "straight-flush"),
        ("TH JH QH KH AH", "royal-flush"),
        ("AS KS QS JS TS", "royal-flush"),
        # nothing wraps around
        ("QC KD AH 2S 3C", "high-card"),
        ("KC AD 2H 3S 4C", "high-card"),
        ("JC QD KH AS 2C", "high-card"),
        ("QS KS AS 2S 3H", "high-card"),
        ("QS KS AS 2S 3S", "flush"),
        ("KH AH 2H 3H 4H", "flush"),
    ],
)
def test_classify_concrete_hands(text: str, expected: str) -> None:
    cards = hand(text)
    assert classify(cards).id == expected
    assert ref_category([rank_suit(c) for c in cards]) == expected
    assert Category(classify_indices([c.index for c in cards])).id == expected
    assert best_category(cards, TABLES["american"]).id == expected


def test_royal_flush_is_not_a_straight_flush_and_vice_versa() -> None:
    for suit in SUITS:
        royal = hand(" ".join(r + suit for r in "TJQKA"))
        assert classify(royal) is Category.ROYAL_FLUSH
        for low in range(0, 8):  # 2..6 up to 9..K
            cards = hand(" ".join(RANKS[low + i] + suit for i in range(5)))
            assert classify(cards) is Category.STRAIGHT_FLUSH
        wheel = hand(" ".join(r + suit for r in "A2345"))
        assert classify(wheel) is Category.STRAIGHT_FLUSH


def test_a_straight_flush_is_counted_once() -> None:
    score = score_hands([("row 1", hand("5C 6C 7C 8C 9C"))], TABLES["british"])
    assert score.hands[0].category == "straight-flush"
    assert score.total == 30


def test_classify_refuses_a_joker_and_wrong_sizes() -> None:
    with pytest.raises(ValueError, match="joker"):
        classify([*hand("AH KH QH JH"), JOKER])
    with pytest.raises(ValueError, match="5 cards"):
        classify(hand("AH KH QH JH"))
    with pytest.raises(ValueError, match="5 cards"):
        classify(hand("AH KH QH JH TH 9H"))
    with pytest.raises(ValueError, match="one joker"):
        best_category([*hand("AH KH QH"), JOKER, JOKER], TABLES["reserve"])
    with pytest.raises(ValueError, match="5 cards"):
        best_category(hand("AH KH QH JH"), TABLES["reserve"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(STANDARD_DECK), min_size=5, max_size=5, unique=True), st.data())
def test_order_of_cards_does_not_matter(cards: list[Card], data: st.DataObject) -> None:
    expected = ref_category([rank_suit(c) for c in cards])
    assert classify(cards).id == expected
    permuted = data.draw(st.permutations(cards))
    assert classify(permuted).id == expected
    assert Category(classify_indices([c.index for c in permuted])).id == expected


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["AH 2H 3H 4H 5H", "QC KD AH 2S 3C", "9C 9D 9H 4S 4C", "TH JH QH KH AH"]))
def test_order_of_cards_does_not_matter_for_special_hands(text: str) -> None:
    cards = hand(text)
    expected = classify(cards)
    for permutation in itertools.permutations(cards):
        assert classify(permutation) is expected


# --- point tables ------------------------------------------------------------------


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_named_tables_are_the_games_md_tables(name: str) -> None:
    table = TABLES[name]
    assert table.name == name
    assert table.as_mapping() == games_md_points(name)
    for category in Category:
        assert table[category] == games_md_points(name)[category.id]
    assert PointTable.from_option(name) == table


def test_there_are_exactly_the_four_named_tables() -> None:
    assert set(TABLES) == set(TABLE_NAMES)


def test_british_straight_outscores_flush_and_full_house() -> None:
    british = TABLES["british"]
    assert british[Category.STRAIGHT] > british[Category.FULL_HOUSE] > british[Category.FLUSH]


def test_custom_table_left_out_categories_score_zero() -> None:
    table = PointTable.custom({"full-house": 7, "flush": -3, "five-of-a-kind": 1000})
    assert table.name == "custom"
    expected = dict.fromkeys(ORDER, 0) | {"full-house": 7, "flush": -3, "five-of-a-kind": 1000}
    assert table.as_mapping() == expected
    assert PointTable.custom({}).as_mapping() == dict.fromkeys(ORDER, 0)
    assert PointTable.from_option({"one-pair": -1000}).as_mapping()["one-pair"] == -1000


@pytest.mark.parametrize("value", [1001, -1001, 10**6, 2.0, "5", True, None])
def test_custom_table_refuses_bad_points(value: Any) -> None:
    with pytest.raises(RuleError) as info:
        PointTable.custom({"flush": 1, "straight": value})
    assert info.value.code == "bad-points"
    assert info.value.field == "options.scoring.straight"
    with pytest.raises(RuleError) as info:
        PointTable.from_option({"straight": value})
    assert info.value.field == "options.scoring.straight"


@pytest.mark.parametrize("key", ["Flush", "flushes", "royal", "", "five_of_a_kind"])
def test_custom_table_refuses_unknown_categories(key: str) -> None:
    with pytest.raises(RuleError) as info:
        PointTable.custom({key: 5})
    assert info.value.code == "unknown-category"
    assert info.value.field == f"options.scoring.{key}"


def test_unknown_table_name() -> None:
    with pytest.raises(RuleError) as info:
        PointTable.from_option("hoyle")
    assert info.value.code == "unknown-table"
    assert info.value.field == "options.scoring"


def test_score_hands_uses_the_table() -> None:
    hands = [
        ("row 1", hand("2c 2d 5h 9s kc")),
        ("row 2", hand("TC JD QH KS AD")),
        ("col 1", hand("KD 8D 5D 3D 2D")),
    ]
    for name in TABLE_NAMES:
        points = games_md_points(name)
        score = score_hands(hands, TABLES[name])
        assert [h.line for h in score.hands] == ["row 1", "row 2", "col 1"]
        assert [h.category for h in score.hands] == ["one-pair", "straight", "flush"]
        assert score.hands[0].cards == ("2C", "2D", "5H", "9S", "KC")
        assert [h.points for h in score.hands] == [
            points["one-pair"],
            points["straight"],
            points["flush"],
        ]
        assert score.total == points["one-pair"] + points["straight"] + points["flush"]
    custom = score_hands(hands, PointTable.custom({"straight": -4, "flush": 9}))
    assert [h.points for h in custom.hands] == [0, -4, 9]
    assert custom.total == 5


# --- the wild joker ------------------------------------------------------------------


def test_four_aces_and_the_joker_make_five_of_a_kind() -> None:
    cards = [*hand("AH AD AC AS"), JOKER]
    assert best_category(cards, TABLES["reserve"]) is Category.FIVE_OF_A_KIND
    score = score_hands([("row 1", cards)], TABLES["reserve"])
    assert score.hands[0].cards == ("AH", "AD", "AC", "AS", "JK")
    assert score.hands[0].category == "five-of-a-kind"
    assert score.total == 28
    # american has no five of a kind (0 points): the joker makes four of a kind (50)
    assert best_category(cards, TABLES["american"]) is Category.FOUR_OF_A_KIND


def test_royal_flush_made_with_the_joker() -> None:
    for text in ("KH QH JH TH", "AH QH JH TH", "AS KS QS JS", "TD JD QD AD"):
        cards = [*hand(text), JOKER]
        assert best_category(cards, TABLES["reserve"]) is Category.ROYAL_FLUSH
        assert best_category(list(reversed(cards)), TABLES["american"]) is Category.ROYAL_FLUSH


def test_joker_ties_go_to_the_higher_category() -> None:
    # british: royal flush and straight flush both score 30: the royal is taken
    assert best_category([*hand("KH QH JH TH"), JOKER], TABLES["british"]) is Category.ROYAL_FLUSH
    # 2H 3H 4H 6H + joker: 5H straight flush, 5C straight, KH flush
    cards = [*hand("2H 3H 4H 6H"), JOKER]
    same = PointTable.custom({"straight": 7, "flush": 7})
    assert best_category(cards, same) is Category.FLUSH
    straight_more = PointTable.custom({"straight": 8, "flush": 7})
    assert best_category(cards, straight_more) is Category.STRAIGHT
    assert best_category(cards, TABLES["british"]) is Category.STRAIGHT_FLUSH


def test_joker_avoids_negative_points() -> None:
    cards = [JOKER, *hand("2C 7D 9H KS")]
    assert best_category(cards, PointTable.custom({"one-pair": -5})) is Category.HIGH_CARD
    assert best_category(cards, TABLES["british"]) is Category.ONE_PAIR
    everything_bad = PointTable.custom({c: -1 for c in ORDER})
    assert best_category(cards, everything_bad) is Category.ONE_PAIR  # ties -> higher


def random_custom_table(rng: random.Random) -> PointTable:
    mapping = {c: rng.randint(-1000, 1000) for c in ORDER if rng.random() < 0.8}
    if rng.random() < 0.3:  # small values make ties likely
        mapping = {c: rng.randint(-2, 2) for c in ORDER}
    return PointTable.custom(mapping)


def test_joker_against_brute_force_on_random_hands() -> None:
    rng = random.Random(20240531)
    seen: Counter[str] = Counter()
    for _ in range(3000):
        cards: list[Card] = rng.sample(STANDARD_DECK, 4)
        cards.insert(rng.randrange(5), JOKER)
        tables = [TABLES[name] for name in TABLE_NAMES]
        tables += [random_custom_table(rng) for _ in range(3)]
        replacements = joker_replacements(cards)
        for table in tables:
            expected = ref_best(replacements, table.as_mapping())
            assert best_category(cards, table).id == expected, (cards, table)
            seen[expected] += 1
    # the sample reaches most categories, so the check is not vacuous
    assert {"one-pair", "two-pair", "straight", "flush", "three-of-a-kind"} <= set(seen)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(STANDARD_DECK), min_size=4, max_size=4, unique=True),
    st.integers(0, 4),
    st.one_of(
        st.sampled_from(TABLE_NAMES).map(lambda name: TABLES[name]),
        st.dictionaries(st.sampled_from(ORDER), st.integers(-1000, 1000)).map(PointTable.custom),
        st.dictionaries(st.sampled_from(ORDER), st.integers(-1, 1)).map(PointTable.custom),
    ),
)
def test_joker_against_brute_force_property(
    four: list[Card], place: int, table: PointTable
) -> None:
    cards = [*four[:place], JOKER, *four[place:]]
    assert best_category(cards, table).id == ref_best_with_joker(cards, table.as_mapping())


def test_joker_brute_force_on_hands_that_can_be_made_special() -> None:
    # four cards that leave room for five of a kind, straight flushes, royals, full houses
    texts = [
        "AH AD AC AS",
        "2C 2D 2H 2S",
        "KH QH JH TH",
        "AH 2H 3H 4H",
        "AH 2H 3H 5H",
        "9S TS JS KS",
        "9C 9D 4H 4S",
        "9C 9D 9H 4S",
        "5C 6C 7C 8D",
        "2D 4D 6D 8D",
        "TC JC QC AC",
    ]
    rng = random.Random(7)
    tables = [TABLES[name] for name in TABLE_NAMES] + [random_custom_table(rng) for _ in range(40)]
    for text in texts:
        cards = [*hand(text), JOKER]
        for table in tables:
            assert best_category(cards, table).id == ref_best_with_joker(
                cards, table.as_mapping()
            ), (text, table)


def test_without_a_joker_best_category_is_classify() -> None:
    rng = random.Random(3)
    for _ in range(500):
        cards = rng.sample(STANDARD_DECK, 5)
        table = random_custom_table(rng)
        assert best_category(cards, table) is classify(cards)


# --- every hand, against treys -------------------------------------------------------

KNOWN_TOTALS = {
    "high-card": 1302540,
    "one-pair": 1098240,
    "two-pair": 123552,
    "three-of-a-kind": 54912,
    "straight": 10200,
    "flush": 5108,
    "full-house": 3744,
    "four-of-a-kind": 624,
    "straight-flush": 36,
    "royal-flush": 4,
}
TREYS_CLASS = {
    0: "royal-flush",  # treys 0.1.8 has a royal class; older versions rank it SF 1
    1: "straight-flush",
    2: "four-of-a-kind",
    3: "full-house",
    4: "flush",
    5: "straight",
    6: "three-of-a-kind",
    7: "two-pair",
    8: "one-pair",
    9: "high-card",
}


@pytest.mark.slow
def test_every_five_card_hand_against_treys() -> None:
    from treys import Card as TreysCard
    from treys import Evaluator

    evaluator = Evaluator()
    treys_ints = [TreysCard.new(c.text[0] + c.text[1].lower()) for c in STANDARD_DECK]
    orders = list(itertools.permutations(range(5)))
    categories = CATEGORY_IDS
    counts = [0] * len(categories)
    wrong: list[tuple[tuple[int, ...], str, str]] = []
    for n, combo in enumerate(itertools.combinations(range(52), 5)):
        a, b, c, d, e = orders[n % 120]  # feed the cards in every order, in turn
        ours = classify_indices((combo[a], combo[b], combo[c], combo[d], combo[e]))
        counts[ours] += 1
        rank = evaluator.evaluate([treys_ints[i] for i in combo], [])
        theirs = TREYS_CLASS[evaluator.get_rank_class(rank)]
        if rank == 1:
            theirs = "royal-flush"
        if categories[ours] != theirs:
            wrong.append((combo, categories[ours], theirs))
    assert wrong[:10] == []
    assert dict(zip(categories, counts, strict=True)) == KNOWN_TOTALS | {"five-of-a-kind": 0}
    assert sum(counts) == 2598960


def test_the_shipped_trie_is_the_one_the_rules_build() -> None:
    """hand_trie.bin, loaded at import, is exactly what _build_trie makes: `make tables`."""
    built, reachable = hands._build_trie()
    shipped = hands._TRIE_FILE.read_bytes()
    assert hands.pack_trie(built, reachable) == shipped, "stale hand_trie.bin: run make tables"
    assert reachable == hands.REACHABLE
    assert hands.TRIE is not built  # loaded from the file, not built at import
    for hand in itertools.islice(itertools.combinations(range(52), 4), 0, None, 97):
        a, b, c, d = hand
        for e in (0, 13, 26, 39, 51, 52):
            if e not in hand:
                assert hands.TRIE[a][b][c][d][e] == built[a][b][c][d][e], (hand, e)


def test_a_packed_trie_keeps_its_shared_nodes_and_refuses_other_bytes() -> None:
    trie, _ = hands.unpack_trie(hands._TRIE_FILE.read_bytes())
    assert trie[0][14] is trie[13][1]  # 2C 3D and 2D 3C lead to one node: mixed, ranks 2 3
    assert trie[0][1] is not trie[13][1]  # 2C 3C is a suited node of its own
    with pytest.raises(ValueError, match="not a packed hand trie"):
        hands.unpack_trie(zlib.compress(b"something else"))
    with pytest.raises(ValueError, match="left over"):
        hands.unpack_trie(zlib.compress(zlib.decompress(hands._TRIE_FILE.read_bytes()) + b"x"))
