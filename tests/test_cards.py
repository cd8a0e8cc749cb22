"""Cards: parsing, canonical text, decks, immutability (docs/rules.md section 1)."""

from __future__ import annotations

import copy
import itertools
import pickle
import re
from typing import Annotated, Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof.cards import (
    ALL_CARDS,
    CARD_PATTERN,
    JOKER,
    JOKER_DECK,
    STANDARD_DECK,
    Card,
    parse_cards,
    require_distinct,
)
from cardproof.errors import ParseError, RuleError

# Written from docs/rules.md section 1, not from the code.
RANK_LETTERS = "23456789TJQKA"
SUIT_LETTERS = "CDHS"
CANONICAL_52 = [rank + suit for suit in SUIT_LETTERS for rank in RANK_LETTERS]
SUIT_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def documented_spellings() -> dict[str, str]:
    """Every input spelling docs/rules.md allows, mapped to the canonical text."""
    table: dict[str, str] = {}
    for text in CANONICAL_52:
        rank, suit = text[0], text[1]
        ranks = {rank, rank.lower()} | ({"10"} if rank == "T" else set())
        suits = {suit, suit.lower(), SUIT_SYMBOL[suit]}
        for r, s in itertools.product(ranks, suits):
            table[r + s] = text
    for joker in ("JK", "Jk", "jK", "jk"):
        table[joker] = "JK"
    return table


SPELLINGS = documented_spellings()

# The API schema checks CARD_PATTERN the way msgspec does (re.search semantics).
PatternCard = Annotated[str, msgspec.Meta(pattern=CARD_PATTERN)]


def parse_accepts(text: str) -> bool:
    try:
        Card.parse(text)
    except ParseError:
        return False
    return True


def schema_accepts(text: str) -> bool:
    try:
        msgspec.convert(text, PatternCard)
    except msgspec.ValidationError:
        return False
    return True


# --- parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AH", "AH"),
        ("TD", "TD"),
        ("2C", "2C"),
        ("10D", "TD"),
        ("10h", "TH"),
        ("td", "TD"),
        ("aS", "AS"),
        ("qc", "QC"),
        ("K♥", "KH"),
        ("a♠", "AS"),
        ("10♣", "TC"),
        ("7♦", "7D"),
        ("JK", "JK"),
        ("jk", "JK"),
    ],
)
def test_parse_accepts_documented_spellings(text: str, canonical: str) -> None:
    card = Card.parse(text)
    assert str(card) == canonical
    assert card.text == canonical
    assert repr(card) == f"Card({canonical!r})"


def test_every_documented_spelling_parses_to_its_canonical_card() -> None:
    # ranks 2-9: 32 cards x 3 suit forms; T: 4 x (T, t, 10) x 3; J Q K A: 16 x 2 cases x 3
    assert len(SPELLINGS) == 32 * 3 + 4 * 3 * 3 + 16 * 2 * 3 + 4
    for text, canonical in SPELLINGS.items():
        card = Card.parse(text)
        assert card.text == canonical, text
        assert Card.parse(card.text) is card


def test_joker_is_the_joker() -> None:
    card = Card.parse("JK")
    assert card is JOKER
    assert card.is_joker
    assert card.index == 52
    assert not Card.parse("JC").is_joker


@pytest.mark.parametrize(
    "text", ["", "1H", "11H", "AX", "A", "AHH", " AH", "AH ", "T10", "10", "1", "JKK", "KJ"]
)
def test_parse_rejects_bad_text_naming_it(text: str) -> None:
    with pytest.raises(ParseError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert info.value.message == str(info.value)


@pytest.mark.parametrize("value", [None, 5, 12, b"AH", ["AH"]])
def test_parse_rejects_non_strings(value: Any) -> None:
    with pytest.raises(ParseError) as info:
        Card.parse(value)
    assert repr(value) in str(info.value)


def test_parse_error_is_a_value_error_and_has_no_field() -> None:
    with pytest.raises(ValueError, match="'ZZ'") as info:
        Card.parse("ZZ")
    assert isinstance(info.value, ParseError)
    assert info.value.field is None


def test_parse_rejects_unicode_case_folding_lookalikes() -> None:
    # 'ſ' (LATIN SMALL LETTER LONG S) upper-cases to 'S', but docs/rules.md only allows
    # C D H S in either case or the suit symbols; the API pattern rejects it too.
    with pytest.raises(ParseError):
        Card.parse("Aſ")


# --- parse_cards and require_distinct ------------------------------------------------


def test_parse_cards_returns_canonical_cards_in_order() -> None:
    cards = parse_cards(["10h", "a♠", "2c", "JK"])
    assert [c.text for c in cards] == ["TH", "AS", "2C", "JK"]


@pytest.mark.parametrize(
    ("texts", "index"),
    [(["AH", "x"], 1), (["x"], 0), (["AH", "KD", "QS", "1C"], 3), (["AH", "2C", None], 2)],
)
def test_parse_cards_names_the_index_of_the_bad_card(texts: list[Any], index: int) -> None:
    with pytest.raises(ParseError) as info:
        parse_cards(texts)
    assert info.value.field == f"cards[{index}]"
    assert repr(texts[index]) in str(info.value)


def test_parse_cards_uses_the_given_field_name() -> None:
    with pytest.raises(ParseError) as info:
        parse_cards(["AH", "KD", "nope"], field="deal.cards")
    assert info.value.field == "deal.cards[2]"


def test_parse_cards_of_nothing_is_empty() -> None:
    assert parse_cards([]) == []


def test_require_distinct_accepts_distinct_cards() -> None:
    require_distinct(list(JOKER_DECK))
    require_distinct([])


def test_require_distinct_names_both_places() -> None:
    cards = parse_cards(["AH", "2C", "KD", "ah"])
    with pytest.raises(RuleError) as info:
        require_distinct(cards)
    error = info.value
    assert error.code == "duplicate-card"
    assert "AH" in error.message
    assert "cards[0]" in error.message
    assert "cards[3]" in error.message
    assert error.field == "cards[3]"


def test_require_distinct_uses_the_locator() -> None:
    cards = parse_cards(["5S", "6S", "7S", "6♠"])
    with pytest.raises(RuleError) as info:
        require_distinct(cards, locate=lambda i: f"layout[{i // 5}][{i % 5}]")
    assert info.value.code == "duplicate-card"
    assert "layout[0][1]" in info.value.message
    assert "layout[0][3]" in info.value.message
    assert info.value.field == "layout[0][3]"


def test_require_distinct_reports_the_first_repeat() -> None:
    cards = parse_cards(["2C", "3C", "3C", "2C"])
    with pytest.raises(RuleError) as info:
        require_distinct(cards)
    assert "cards[1]" in info.value.message
    assert "cards[2]" in info.value.message


# --- decks ---------------------------------------------------------------------------


def test_standard_deck_order_and_size() -> None:
    assert len(STANDARD_DECK) == 52
    assert [c.text for c in STANDARD_DECK] == CANONICAL_52
    assert [c.index for c in STANDARD_DECK] == list(range(52))
    assert len(set(STANDARD_DECK)) == 52
    assert not any(c.is_joker for c in STANDARD_DECK)


def test_joker_deck_is_standard_deck_then_joker() -> None:
    assert len(JOKER_DECK) == 53
    assert [c.text for c in JOKER_DECK] == [*CANONICAL_52, "JK"]
    assert JOKER_DECK[-1] is JOKER
    assert tuple(ALL_CARDS) == tuple(JOKER_DECK)


def test_rank_and_suit_numbers() -> None:
    for card in STANDARD_DECK:
        assert RANK_LETTERS[card.rank] + SUIT_LETTERS[card.suit] == card.text
    assert Card.parse("2C").rank == 0
    assert Card.parse("AS").rank == 12
    assert Card.parse("QS").suit == 3


def test_card_by_index_is_shared() -> None:
    for i, card in enumerate(ALL_CARDS):
        assert Card(i) is card
    assert Card.parse("AH") is Card.parse("ah") is Card.parse("A♥")


@pytest.mark.parametrize("index", [-1, 53, 100, True, 1.0, "1"])
def test_card_by_bad_index_is_refused(index: Any) -> None:
    with pytest.raises(ValueError, match="no card"):
        Card(index)


def test_cards_sort_in_canonical_order() -> None:
    cards = parse_cards(["AS", "2C", "JK", "TD"])
    assert [c.text for c in sorted(cards)] == ["2C", "TD", "AS", "JK"]


# --- immutability --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["index", "rank", "suit", "text", "other"])
def test_cards_cannot_be_changed(name: str) -> None:
    card = Card.parse("QH")
    with pytest.raises(AttributeError):
        setattr(card, name, 0)
    assert (card.index, card.rank, card.suit, card.text) == (36, 10, 2, "QH")


@pytest.mark.parametrize("name", ["index", "rank", "suit", "text"])
def test_card_attributes_cannot_be_deleted(name: str) -> None:
    card = Card.parse("9S")
    try:
        with pytest.raises(AttributeError):
            delattr(card, name)
    finally:
        # repair the shared card if deletion went through, so later tests see it whole
        if not hasattr(card, name):
            object.__setattr__(card, name, {"index": 46, "rank": 7, "suit": 3, "text": "9S"}[name])
    assert (card.index, card.rank, card.suit, card.text) == (46, 7, 3, "9S")


def test_copies_and_pickles_are_the_same_card() -> None:
    for card in (Card.parse("7D"), JOKER):
        assert copy.copy(card) is card
        assert copy.deepcopy(card) is card
        assert pickle.loads(pickle.dumps(card)) is card


# --- the schema pattern --------------------------------------------------------------


def candidate_texts() -> list[str]:
    alphabet = (
        "23456789TJQKA" + "tjqka" + "10" + "CDHS" + "cdhs" + "♣♦♥♠" + "XxBb" + " \n" + "ſ\u212a"
    )
    texts = [""]
    for length in (1, 2, 3):
        texts.extend("".join(p) for p in itertools.product(alphabet, repeat=length))
    texts.extend(s + t for s in SPELLINGS for t in ("", " ", "\n", "x"))
    texts.extend(t + s for s in SPELLINGS for t in (" ", "\n", "x"))
    return texts


def test_documented_spellings_match_the_pattern() -> None:
    for text in SPELLINGS:
        assert re.fullmatch(CARD_PATTERN, text), text
        assert schema_accepts(text), text


def test_pattern_rejects_a_trailing_newline_like_the_parser() -> None:
    # msgspec (and so the API) applies the pattern with re.search, where '$' also
    # matches before a final newline: 'AH\n' would pass the schema, then fail to parse.
    assert not parse_accepts("AH\n")
    assert not schema_accepts("AH\n")
    assert not schema_accepts("JK\n")


def test_pattern_and_parser_agree_on_candidates() -> None:
    disagreements = [
        text for text in candidate_texts() if parse_accepts(text) != schema_accepts(text)
    ]
    assert disagreements == []


def test_parser_accepts_exactly_the_documented_spellings() -> None:
    accepted = {text for text in candidate_texts() if parse_accepts(text)}
    assert accepted == set(SPELLINGS)


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(max_size=5),
        st.text(alphabet="0123456789TJQKAtjqkaCDHScdhs♣♦♥♠ \n\t", max_size=4),
        st.sampled_from(sorted(SPELLINGS)).flatmap(
            lambda s: st.tuples(st.just(s), st.text(max_size=2), st.text(max_size=2)).map(
                lambda t: t[1] + t[0] + t[2]
            )
        ),
    )
)
def test_pattern_and_parser_agree_on_any_text(text: str) -> None:
    assert parse_accepts(text) == schema_accepts(text)
    assert parse_accepts(text) == (text in SPELLINGS)
    if parse_accepts(text):
        assert Card.parse(text).text == SPELLINGS[text]
