"""Tournament settlement: worked examples, the pairwise rule's properties, bad input."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof.tournaments import Payment, Settlement, payments, settle, settlement

names = st.text(min_size=0, max_size=4)
score_tables = st.dictionaries(names, st.integers(min_value=-50, max_value=50), max_size=12)
# Few distinct values, so that ties are common.
tied_tables = st.dictionaries(names, st.integers(min_value=-2, max_value=2), max_size=12)
tables = st.one_of(score_tables, tied_tables)


def received_minus_paid(scores: Mapping[str, int], paid: list[Payment]) -> dict[str, int]:
    net = dict.fromkeys(scores, 0)
    for payment in paid:
        net[payment.payee] += payment.amount
        net[payment.payer] -= payment.amount
    return net


# --- worked examples ------------------------------------------------------------------


def test_three_players_with_a_tie() -> None:
    scores = {"ann": 10, "bob": 7, "cy": 7}
    assert settle(scores) == {"ann": 6, "bob": -3, "cy": -3}
    assert payments(scores) == [Payment("bob", "ann", 3), Payment("cy", "ann", 3)]


def test_four_distinct_scores_in_documented_order() -> None:
    scores = {"d": 1, "b": 8, "a": 4, "c": 8}
    # total 21, n 4
    assert settle(scores) == {"d": -17, "b": 11, "a": -5, "c": 11}
    assert payments(scores) == [
        Payment("a", "b", 4),
        Payment("d", "b", 7),
        Payment("a", "c", 4),
        Payment("d", "c", 7),
        Payment("d", "a", 3),
    ]


def test_nets_keep_input_order() -> None:
    scores = {"z": 1, "a": 3, "m": 2}
    assert list(settle(scores)) == ["z", "a", "m"]
    assert list(settlement(scores).nets) == ["z", "a", "m"]


def test_all_tied_pay_nothing() -> None:
    scores = {"a": 5, "b": 5, "c": 5}
    assert settle(scores) == {"a": 0, "b": 0, "c": 0}
    assert payments(scores) == []


def test_one_player() -> None:
    assert settle({"solo": 42}) == {"solo": 0}
    assert payments({"solo": 42}) == []
    assert settlement({"solo": 42}) == Settlement(nets={"solo": 0}, payments=[])


def test_empty() -> None:
    assert settle({}) == {}
    assert payments({}) == []
    assert settlement({}) == Settlement(nets={}, payments=[])


def test_negative_scores() -> None:
    scores = {"low": -10, "mid": 0, "high": 5}
    # total -5, n 3
    assert settle(scores) == {"low": -25, "mid": 5, "high": 20}
    assert payments(scores) == [
        Payment("mid", "high", 5),
        Payment("low", "high", 15),
        Payment("low", "mid", 10),
    ]


def test_settlement_combines_both_and_round_trips_as_json() -> None:
    scores = {"ann": 10, "bob": 7, "cy": 7}
    result = settlement(scores)
    assert result.nets == settle(scores)
    assert result.payments == payments(scores)
    encoded = msgspec.json.encode(result)
    assert msgspec.json.decode(encoded) == {
        "nets": {"ann": 6, "bob": -3, "cy": -3},
        "payments": [
            {"payer": "bob", "payee": "ann", "amount": 3},
            {"payer": "cy", "payee": "ann", "amount": 3},
        ],
    }
    assert msgspec.json.decode(encoded, type=Settlement) == result


def test_structs_are_frozen() -> None:
    payment = Payment("a", "b", 1)
    with pytest.raises(AttributeError):
        payment.amount = 2  # type: ignore[misc]


def test_a_thousand_entrants() -> None:
    scores = {f"p{i:04d}": i for i in range(1000)}
    paid = payments(scores)
    assert len(paid) == 1000 * 999 // 2
    assert paid[0] == Payment("p0998", "p0999", 1)
    assert paid[-1] == Payment("p0000", "p0001", 1)
    assert received_minus_paid(scores, paid) == settle(scores)


# --- properties -----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(tables)
def test_nets_sum_to_zero(scores: dict[str, int]) -> None:
    assert sum(settle(scores).values()) == 0


@settings(max_examples=300, deadline=None)
@given(tables)
def test_nets_are_n_times_score_minus_total(scores: dict[str, int]) -> None:
    n, total = len(scores), sum(scores.values())
    nets = settle(scores)
    assert list(nets) == list(scores)
    for name, score in scores.items():
        assert nets[name] == n * score - total


@settings(max_examples=300, deadline=None)
@given(tables)
def test_nets_equal_received_minus_paid(scores: dict[str, int]) -> None:
    assert received_minus_paid(scores, payments(scores)) == settle(scores)


@settings(max_examples=300, deadline=None)
@given(tables)
def test_one_payment_per_pair_with_different_scores(scores: dict[str, int]) -> None:
    paid = payments(scores)
    pairs = Counter(frozenset((p.payer, p.payee)) for p in paid)
    assert all(count == 1 for count in pairs.values())
    expected = {
        frozenset((a, b)) for a in scores for b in scores if a < b and scores[a] != scores[b]
    }
    assert set(pairs) == expected


@settings(max_examples=300, deadline=None)
@given(tables)
def test_payments_are_positive_differences_upwards(scores: dict[str, int]) -> None:
    for payment in payments(scores):
        assert payment.amount > 0
        assert scores[payment.payer] < scores[payment.payee]
        assert payment.amount == scores[payment.payee] - scores[payment.payer]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(names, st.integers(-50, 50), min_size=1, max_size=12))
def test_a_top_scorer_never_pays(scores: dict[str, int]) -> None:
    top = max(scores.values())
    leaders = {name for name, score in scores.items() if score == top}
    assert not any(payment.payer in leaders for payment in payments(scores))
    assert all(settle(scores)[name] >= 0 for name in leaders)


@settings(max_examples=300, deadline=None)
@given(tables)
def test_order_is_the_documented_one(scores: dict[str, int]) -> None:
    keys = [(-scores[p.payee], p.payee, -scores[p.payer], p.payer) for p in payments(scores)]
    assert keys == sorted(keys)


@settings(max_examples=300, deadline=None)
@given(tables, st.randoms(use_true_random=False))
def test_order_does_not_depend_on_input_order(scores: dict[str, int], rng: random.Random) -> None:
    items = list(scores.items())
    rng.shuffle(items)
    shuffled = dict(items)
    assert payments(shuffled) == payments(scores)
    assert settle(shuffled) == settle(scores)
    assert settlement(shuffled).payments == settlement(scores).payments
    assert settlement(shuffled).nets == settlement(scores).nets


@settings(max_examples=200, deadline=None)
@given(tables, st.integers(-1000, 1000))
def test_shifting_every_score_changes_nothing(scores: dict[str, int], shift: int) -> None:
    shifted = {name: score + shift for name, score in scores.items()}
    assert settle(shifted) == settle(scores)
    assert payments(shifted) == payments(scores)


# --- bad input ------------------------------------------------------------------------

BAD_SCORES: list[Any] = [True, False, 1.0, 7.5, "7", None, [7]]


@pytest.mark.parametrize("function", [settle, payments, settlement])
@pytest.mark.parametrize("score", BAD_SCORES)
def test_non_int_scores_are_refused(function: Any, score: Any) -> None:
    with pytest.raises(TypeError, match="must be an int"):
        function({"ann": 10, "bob": score})


@pytest.mark.parametrize("function", [settle, payments, settlement])
@pytest.mark.parametrize("name", [1, None, b"ann", ("a",)])
def test_non_string_names_are_refused(function: Any, name: Any) -> None:
    with pytest.raises(TypeError, match="names must be strings"):
        function({"ann": 10, name: 3})


@pytest.mark.parametrize("function", [settle, payments, settlement])
def test_non_mapping_is_refused(function: Any) -> None:
    with pytest.raises(TypeError, match="must be a mapping"):
        function([("ann", 10)])
