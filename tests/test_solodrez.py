"""solodrez: SoloDrez with the 56-card Pokerdrez deck (docs/rules.md sections 7 and 8).

Checked against the rules text: the deck and the deal, runs with neutrals in every
place, each move rule with its refusal code and move index, removes and the win, the
end of a game (stop, no move left, the 10,000-move bound), the text and object forms
of moves, and hypothesis properties. A small reference written from docs/rules.md alone (it
reads figures from the card texts and shares no code with the engine) is compared with
the engine on many random positions.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cardproof.cards import STANDARD_DECK, Card, parse_cards
from cardproof.deal import shuffle
from cardproof.errors import IllegalMove, ParseError, RuleError
from cardproof.games import variant
from cardproof.games.solodrez import MAX_MOVES, SoloDrez, SoloDrezMove, run_heads
from cardproof.pokerdrez import (
    NEUTRAL,
    POKERDREZ_DECK,
    PokerdrezCard,
    parse_pokerdrez_cards,
)

SEED = bytes(range(32))
FIGURES = "JQTBNP"
"""docs/rules.md section 7, high to low: Joker, Queen, Tower, Bishop, Knight, Pawn."""
JOKER, PAWN = 0, 5
STOP = SoloDrezMove(stop=True)
FILLER = ("Q8", "Q9 T9")
"""Columns 7 and 8 of a test position: T9 can go back and forth, so it is never stuck."""

SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    # a failing example is a seed and a policy: shrinking whole games says little more
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


# --- helpers ------------------------------------------------------------------------


def cards(text: str) -> list[Card]:
    return parse_pokerdrez_cards(text.split())


def card(text: str) -> PokerdrezCard:
    return PokerdrezCard.parse(text)


def mv(text: str) -> SoloDrezMove:
    return SoloDrez.parse_move(text)


def position(*columns: str, filler: bool = True) -> SoloDrez:
    """A game on columns given as texts (``""`` is empty); columns 7 and 8 hold FILLER."""
    texts = [*columns, *[""] * (9 - len(columns))]
    if filler:
        assert len(columns) <= 7
        texts[7], texts[8] = FILLER
    return SoloDrez.from_columns([cards(text) for text in texts])


def column_texts(game: SoloDrez) -> list[list[str]]:
    return [[c.text for c in column] for column in game.columns]


Snapshot = tuple[Any, ...]


def snapshot(game: SoloDrez) -> Snapshot:
    return (
        column_texts(game),
        game.visible(),
        game.series_removed,
        game.figures_left,
        game.stopped,
        game.won,
        game.moves,
    )


def refuse(game: SoloDrez, move: SoloDrezMove | str, code: str) -> IllegalMove:
    """Play ``move``, expect ``code`` at the next index, and the state unchanged."""
    if isinstance(move, str):
        move = mv(move)
    before = snapshot(game)
    with pytest.raises(IllegalMove) as info:
        game.play(move)
    assert info.value.code == code, info.value.message
    assert info.value.move_index == len(game.moves)
    assert info.value.field == f"moves[{len(game.moves)}]"
    assert f"move {len(game.moves)}" in info.value.message
    assert snapshot(game) == before
    return info.value


def accept(game: SoloDrez, move: SoloDrezMove | str) -> None:
    if isinstance(move, str):
        move = mv(move)
    assert move in game.legal_moves()
    count = len(game.moves)
    game.play(move)
    assert game.moves[-1] == move
    assert len(game.moves) == count + 1


def deck_with_tail(tails: Sequence[str]) -> list[Card]:
    """A full deal whose columns end with ``tails`` (the rest in canonical order)."""
    wanted = [cards(tail) for tail in tails] + [[] for _ in range(9 - len(tails))]
    used = {c for tail in wanted for c in tail}
    rest = [c for c in POKERDREZ_DECK if c not in used]
    columns: list[list[Card]] = []
    for size, tail in zip([7, 7, *[6] * 7], wanted, strict=True):
        head = size - len(tail)
        columns.append([*rest[:head], *tail])
        del rest[:head]
    assert not rest
    return SoloDrez.deal_of(columns)


# --- the reference: docs/rules.md section 7, written out plainly -------------------------


def ref_figure(c: Card) -> int | None:
    """The figure from the card's text, high (0, Joker) to low (5, Pawn); None: a neutral."""
    letter = c.text[0]
    return None if letter == "X" else FIGURES.index(letter)


def ref_heads(run: Sequence[Card]) -> set[int]:
    """Every figure the first card can stand for, the cards forming a run from it."""
    return {
        head
        for head in range(6)
        if head + len(run) - 1 <= PAWN
        and all(ref_figure(c) in (None, head + i) for i, c in enumerate(run))
    }


def ref_transfer_reasons(columns: Sequence[Sequence[Card]], a: int, n: int, b: int) -> set[str]:
    """Every rule a transfer breaks (empty: legal), named by the engine's codes."""
    if not (0 <= a < 9 and 0 <= b < 9):
        return {"off-board"}
    if a == b:
        return {"same-column"}
    source, target = columns[a], columns[b]
    if n > len(source):
        return {"too-many-cards"}
    heads = ref_heads(source[-n:])
    if not heads:
        return {"not-a-run"}
    if not target:  # an empty column takes only a run whose head is (or stands for) a Joker
        return set() if JOKER in heads else {"empty-needs-joker"}
    reasons = set()
    under = ref_figure(target[-1])
    if under == PAWN:
        reasons.add("onto-pawn")
    if heads == {JOKER}:
        reasons.add("joker-needs-empty")
    # a neutral under the run stands for whatever figure is needed: any head but a Joker
    if not any(head != JOKER and under in (None, head - 1) for head in heads):
        reasons.add("not-one-higher")
    return reasons


def ref_remove_legal(columns: Sequence[Sequence[Card]], a: int) -> bool:
    return 0 <= a < 9 and [c.text[0] for c in columns[a]] == list(FIGURES)


def ref_legal_moves(columns: Sequence[Sequence[Card]]) -> set[SoloDrezMove]:
    found = {SoloDrezMove(remove=a) for a in range(9) if ref_remove_legal(columns, a)}
    for a in range(9):
        for n in range(1, len(columns[a]) + 1):
            if not ref_heads(columns[a][-n:]):
                continue
            for b in range(9):
                if not ref_transfer_reasons(columns, a, n, b):
                    found.add(SoloDrezMove(from_=a, count=n, to=b))
    return found


def candidates() -> list[SoloDrezMove]:
    """Every transfer with count 1..7 between columns 0..8, and every remove."""
    transfers = [
        SoloDrezMove(from_=a, count=n, to=b)
        for a in range(9)
        for n in range(1, 8)
        for b in range(9)
    ]
    return [*transfers, *(SoloDrezMove(remove=a) for a in range(9))]


CANDIDATES = candidates()


def random_position(rnd: random.Random) -> list[list[Card]]:
    """Nine columns rich in runs, neutrals, empty columns and whole series."""
    pool = {f: [c for c in POKERDREZ_DECK if c.text[0] == FIGURES[f]] for f in range(6)}
    for cards_of_figure in pool.values():
        rnd.shuffle(cards_of_figure)
    neutrals = [card("X1"), card("X2")]
    rnd.shuffle(neutrals)
    columns: list[list[Card]] = []
    for _ in range(9):
        column: list[Card] = []
        roll = rnd.random()
        if roll < 0.15:
            columns.append(column)
            continue
        if roll < 0.25 and all(pool[f] for f in range(6)):
            column.extend(pool[f].pop() for f in range(6))  # a whole series
            if rnd.random() < 0.3 and neutrals:
                column.insert(rnd.randrange(7), neutrals.pop())
            columns.append(column)
            continue
        for _ in range(rnd.randint(1, 3)):
            head = rnd.randrange(6)
            for f in range(head, rnd.randint(head, 5) + 1):
                if neutrals and rnd.random() < 0.12:
                    column.append(neutrals.pop())
                    continue
                if rnd.random() < 0.1:
                    f = rnd.randrange(6)  # noise: a card that may break the run
                if pool[f]:
                    column.append(pool[f].pop())
        columns.append(column)
    return columns


def random_near_deal(rnd: random.Random) -> list[Card]:
    """A deal (deck order) close to solved: nine series, two neutrals, a few swaps."""
    colours = list(range(1, 10))
    rnd.shuffle(colours)
    columns = [[card(f"{f}{colour}") for f in FIGURES] for colour in colours]
    columns[0].insert(rnd.randrange(7), card("X1"))
    columns[1].insert(rnd.randrange(7), card("X2"))
    places = [(c, i) for c in range(9) for i in range(len(columns[c]))]
    for _ in range(rnd.randint(0, 6)):
        (c1, i1), (c2, i2) = rnd.sample(places, 2)
        columns[c1][i1], columns[c2][i2] = columns[c2][i2], columns[c1][i1]
    return SoloDrez.deal_of(columns)


# --- 1. the deck and the deal -------------------------------------------------------


def test_deck_has_56_cards_in_canonical_order() -> None:
    texts = [f"{f}{colour}" for colour in range(1, 10) for f in FIGURES] + ["X1", "X2"]
    assert len(POKERDREZ_DECK) == 56
    assert [c.text for c in POKERDREZ_DECK] == texts
    assert [c.index for c in POKERDREZ_DECK] == list(range(56))
    assert len(set(POKERDREZ_DECK)) == 56
    assert [c.figure for c in POKERDREZ_DECK[:6]] == [0, 1, 2, 3, 4, 5]
    assert [c.colour for c in POKERDREZ_DECK[:12]] == [1] * 6 + [2] * 6
    assert [c for c in POKERDREZ_DECK if c.is_neutral] == [card("X1"), card("X2")]
    assert card("X1").figure == card("X2").figure == NEUTRAL
    assert not any(c.is_joker for c in POKERDREZ_DECK)  # the Joker figure is no wild card
    assert SoloDrez.cards_used == 56
    assert SoloDrez.deck_type == "pokerdrez-56"
    assert SoloDrez.information == "open"
    assert variant("solodrez") is SoloDrez


@pytest.mark.parametrize("c", POKERDREZ_DECK, ids=lambda c: c.text)
def test_every_card_parses_in_any_case(c: PokerdrezCard) -> None:
    assert PokerdrezCard.parse(c.text) is c
    assert PokerdrezCard.parse(c.text.lower()) is c
    assert SoloDrez.parse_cards([c.text.lower()], field="deal.cards") == [c]
    assert PokerdrezCard(c.index) is c


@pytest.mark.parametrize(
    "text", ["AH", "2C", "JK", "10H", "X3", "X0", "J0", "Q10", "K1", "", " Q3", "Q3 ", "QQ"]
)
def test_bad_card_texts_are_refused(text: str) -> None:
    with pytest.raises(ParseError):
        PokerdrezCard.parse(text)
    with pytest.raises(ParseError) as info:
        parse_pokerdrez_cards(["J1", text], field="deal.cards")
    assert info.value.field == "deal.cards[1]"


def test_standard_cards_duplicates_and_short_decks_are_refused() -> None:
    deck = list(POKERDREZ_DECK)
    with pytest.raises(RuleError) as info:
        SoloDrez.new([*deck[:55], STANDARD_DECK[0]])
    assert info.value.code == "card-not-in-deck"
    assert info.value.field == "deal.cards[55]"
    with pytest.raises(RuleError) as info:
        SoloDrez.new([*deck[:55], deck[0]])
    assert info.value.field is not None
    with pytest.raises(RuleError) as info:
        SoloDrez.new(deck[:55])
    assert info.value.code == "too-few-cards"
    with pytest.raises(RuleError):
        SoloDrez.from_columns([cards("J1 Q1"), cards("J1"), *[[] for _ in range(7)]])
    with pytest.raises(RuleError) as info:
        SoloDrez.from_columns([parse_cards(["AH"]), *[[] for _ in range(8)]])
    assert info.value.code == "card-not-in-deck"
    with pytest.raises(ValueError, match="9 columns"):
        SoloDrez.from_columns([cards("J1")])


def test_the_deal_is_round_robin_into_columns_of_7_7_and_6() -> None:
    deck = list(POKERDREZ_DECK)
    random.Random(7).shuffle(deck)
    game = SoloDrez.new(deck)
    assert [len(column) for column in game.columns] == [7, 7, 6, 6, 6, 6, 6, 6, 6]
    for i, c in enumerate(deck):
        assert game.columns[i % 9][i // 9] is c
    # the first card of column 0 lies on the table; the last (card 54) is exposed
    assert game.columns[0][0] is deck[0]
    assert game.columns[0][-1] is deck[54]
    assert game.columns[1][-1] is deck[55]
    assert game.columns[8] == deck[8::9]
    assert SoloDrez.deal_of(game.columns) == deck
    view = game.visible()
    assert view.columns == tuple(tuple(c.text for c in deck[i::9]) for i in range(9))
    assert view.series_removed == 0
    assert not game.moves
    with pytest.raises(ValueError, match="7, 7, then 6"):
        SoloDrez.deal_of([deck[:8], deck[8:14], *[deck[14 + 6 * i : 20 + 6 * i] for i in range(7)]])


@pytest.mark.parametrize("client_seed", ["alice", "bob", "x", "ünïcode"])
def test_the_deal_from_seeds_uses_pokerdrez_56(client_seed: str) -> None:
    options = SoloDrez.parse_options(None)
    dealt = SoloDrez.deal_cards(SEED, client_seed, options)
    order = shuffle("pokerdrez-56", SEED, client_seed)
    assert [c.index for c in dealt] == list(order)
    assert list(dealt) == [POKERDREZ_DECK[i] for i in order]
    assert sorted(c.index for c in dealt) == list(range(56))
    assert all(type(c) is PokerdrezCard for c in dealt)
    # not another deck type's shuffle, not another stream
    assert list(order) != list(shuffle("pokerdrez-56", SEED, client_seed, stream="level-2"))
    assert SoloDrez.deal_cards(SEED, client_seed, options) == dealt
    assert SoloDrez.deal_cards(SEED, client_seed + "!", options) != dealt
    game = SoloDrez.new(dealt)
    assert [c.text for c in game.columns[2]] == [c.text for c in dealt[2::9]]


def test_options_are_none() -> None:
    assert SoloDrez.parse_options(None) == SoloDrez.parse_options({})
    with pytest.raises(RuleError) as info:
        SoloDrez.parse_options({"columns": 8})
    assert info.value.code == "unknown-option"


# --- 2. runs ----------------------------------------------------------------------


def run_cases() -> list[tuple[int, int, tuple[int, ...]]]:
    """(head, length, neutral places): every run, with 0, 1 or 2 neutrals anywhere."""
    cases: list[tuple[int, int, tuple[int, ...]]] = []
    for n in range(1, 7):
        for head in range(7 - n):
            for k in range(min(n, 2) + 1):
                if k == n and head:
                    continue  # all neutrals: the head is not fixed, one case is enough
                cases.extend((head, n, places) for places in itertools.combinations(range(n), k))
    return cases


RUN_CASES = run_cases()


def run_of(head: int, n: int, places: tuple[int, ...]) -> list[PokerdrezCard]:
    neutrals = iter(["X1", "X2"])
    return [
        card(next(neutrals) if i in places else f"{FIGURES[head + i]}{i + 1}") for i in range(n)
    ]


def case_id(case: tuple[int, int, tuple[int, ...]]) -> str:
    head, n, places = case
    return " ".join(c.text for c in run_of(head, n, places))


def test_run_cases_cover_every_placement() -> None:
    # 6+5+4+3+2+1 runs, each with no neutral, one in each place, two in each pair of places
    assert len(RUN_CASES) == sum((7 - n) * (1 + n + n * (n - 1) // 2) for n in range(1, 7)) - 9
    assert len({case_id(case) for case in RUN_CASES}) == len(RUN_CASES)


@pytest.mark.parametrize(("head", "n", "places"), RUN_CASES, ids=map(case_id, RUN_CASES))
def test_runs_with_neutrals_in_every_place(head: int, n: int, places: tuple[int, ...]) -> None:
    run = run_of(head, n, places)
    heads = set(range(7 - n)) if len(places) == n else {head}
    assert ref_heads(run) == heads
    assert run_heads([c.figure for c in run]) == (min(heads), max(heads))
    texts = " ".join(c.text for c in run)
    # every tail of a run is a run
    for k in range(1, n + 1):
        assert run_heads([c.figure for c in run[-k:]]) is not None
    # onto each figure (colour 7): legal when it is one above a head the run can have
    for under in range(6):
        game = position(texts, f"{FIGURES[under]}7")
        move = SoloDrezMove(from_=0, count=n, to=1)
        if under != PAWN and under + 1 in heads:
            accept(game, move)
            assert column_texts(game)[1] == [f"{FIGURES[under]}7", *texts.split()]
            assert column_texts(game)[0] == []
        else:
            code = (
                "onto-pawn"
                if under == PAWN
                else "joker-needs-empty"
                if heads == {JOKER}
                else "not-one-higher"
            )
            error = refuse(game, move, code)
            assert error.code in ref_transfer_reasons(game.columns, 0, n, 1)
    # into an empty column: only as a Joker
    game = position(texts, "J7")
    move = SoloDrezMove(from_=0, count=n, to=2)
    if JOKER in heads:
        accept(game, move)
    else:
        refuse(game, move, "empty-needs-joker")
    # onto a neutral (one is free when the run holds fewer than two): any head but a Joker
    if len(places) < 2:
        free = "X2" if places else "X1"
        game = position(texts, f"N7 {free}")
        move = SoloDrezMove(from_=0, count=n, to=1)
        if heads != {JOKER}:
            accept(game, move)
        else:
            refuse(game, move, "joker-needs-empty")


@pytest.mark.parametrize(
    "figures",
    [
        [1, 3],  # a gap
        [2, 1],  # wrong order
        [1, 1],  # the same figure twice
        [0, 1, 2, 3, 4, 5, 5],
        [5, NEUTRAL],  # a neutral below a Pawn
        [NEUTRAL, 0],  # a neutral above a Joker
        [4, NEUTRAL, NEUTRAL],
        [NEUTRAL, NEUTRAL, 1],
        [1, NEUTRAL, 4],  # the neutral cannot be two figures at once
        [0, 1, 2, 3, 4, 5, NEUTRAL],
        [NEUTRAL, 0, 1, 2, 3, 4, 5],
        [NEUTRAL] * 7,  # longer than a series: no run is longer than 6
        [NEUTRAL] * 8,
    ],
)
def test_non_runs(figures: list[int]) -> None:
    assert run_heads(figures) is None


def test_all_neutral_runs_can_head_at_every_figure_with_room() -> None:
    for n in range(1, 7):
        assert run_heads([NEUTRAL] * n) == (0, 6 - n)
    assert run_heads([NEUTRAL, 3]) == (2, 2)
    assert run_heads([NEUTRAL, NEUTRAL, 5]) == (3, 3)
    assert run_heads([0, NEUTRAL, NEUTRAL, 3, NEUTRAL, 5]) == (0, 0)


@pytest.mark.parametrize(
    "texts",
    [
        "Q1 B1",
        "T1 Q1",
        "Q1 Q2",
        "P1 X1",
        "X1 J1",
        "N1 X1 X2",
        "X1 X2 Q1",
        "Q1 X1 N1",
        "J1 Q1 T1 B1 N1 P1 X1",
        "X1 J1 Q1 T1 B1 N1 P1",
        "J1 Q1 T1 B1 N1 P1 P2",
    ],
)
def test_a_tail_that_is_no_run_does_not_move(texts: str) -> None:
    n = len(texts.split())
    for destination in ("", "J7", "X2" if "X2" not in texts else "Q7"):
        game = position(texts, destination)
        assert ref_heads(game.columns[0]) == set()
        refuse(game, SoloDrezMove(from_=0, count=n, to=1), "not-a-run")
        assert not [m for m in game.legal_moves() if m.from_ == 0 and m.count == n]


def test_a_run_in_the_tail_moves_but_not_the_card_above_it() -> None:
    game = position("P5 Q1 T1 B1", "J2")
    refuse(game, "0:4>1", "not-a-run")
    accept(game, "0:3>1")
    assert column_texts(game)[:2] == [["P5"], ["J2", "Q1", "T1", "B1"]]
    # column 1 is now a Joker-headed run: onto a card it cannot go, onto a Pawn least of all
    refuse(game, "1:4>0", "onto-pawn")
    refuse(game, "1:4>7", "joker-needs-empty")
    accept(game, "1:4>2")


# --- 3. the move rules, one by one --------------------------------------------------


def test_too_many_cards_and_an_empty_source() -> None:
    game = position("Q1 T1", "J2", "B3")
    error = refuse(game, "0:3>1", "too-many-cards")
    assert "holds 2 cards" in error.message
    refuse(game, "0:7>1", "too-many-cards")
    refuse(game, SoloDrezMove(from_=0, count=99, to=1), "too-many-cards")
    refuse(game, "3:1>1", "too-many-cards")  # an empty source
    refuse(game, "0:1>2", "not-one-higher")
    accept(game, "0:2>1")
    assert column_texts(game)[:2] == [[], ["J2", "Q1", "T1"]]
    error = refuse(game, "0:1>1", "too-many-cards")  # the source is now empty
    assert error.move_index == 1
    assert "is empty" in error.message


def test_the_destination_must_be_one_figure_higher() -> None:
    game = position("B1", "Q2", "J3", "T4", "N5")
    refuse(game, "0:1>1", "not-one-higher")  # a Bishop on a Queen: two apart
    refuse(game, "0:1>2", "not-one-higher")
    refuse(game, "0:1>4", "not-one-higher")  # one lower, not higher
    accept(game, "0:1>3")
    assert column_texts(game)[3] == ["T4", "B1"]
    error = refuse(game, "1:1>3", "not-one-higher")
    assert error.move_index == 1
    # colours never matter
    accept(game, "1:1>2")
    accept(game, "4:1>3")
    assert column_texts(game)[2:4] == [["J3", "Q2"], ["T4", "B1", "N5"]]


def test_nothing_goes_onto_a_pawn() -> None:
    game = position("P1", "P2", "X1", "N3 X2")
    refuse(game, "0:1>1", "onto-pawn")  # a Pawn onto a Pawn
    refuse(game, "2:1>0", "onto-pawn")  # a neutral would have to stand below a Pawn
    refuse(game, "3:2>1", "onto-pawn")
    refuse(game, "3:1>0", "onto-pawn")  # X2 stands for nothing under P1
    accept(game, "1:1>2")  # onto the neutral, standing for a Knight
    accept(game, "3:1>1")  # a lone neutral goes into an empty column, as a Joker
    refuse(game, "2:2>0", "onto-pawn")
    assert column_texts(game)[:4] == [["P1"], ["X2"], ["X1", "P2"], ["N3"]]


def test_a_neutral_destination_stands_for_whatever_figure_is_needed() -> None:
    for run in ("Q1", "T1", "B1", "N1", "P1", "X2", "Q1 T1 B1 N1 P1", "X2 N1", "B1 X2 P1"):
        game = position(run, "B2 X1")
        accept(game, SoloDrezMove(from_=0, count=len(run.split()), to=1))
        assert column_texts(game)[1] == ["B2", "X1", *run.split()]
    # its role is fixed only for the move being made: a Queen now, a Tower next
    game = position("X1", "J2", "T3 B3", "B4")
    accept(game, "0:1>1")
    accept(game, "2:2>1")  # X1 stood for a Queen
    assert column_texts(game)[1] == ["J2", "X1", "T3", "B3"]
    game = position("X1", "J2", "B3", "T4")
    accept(game, "0:1>1")  # X1 as a Queen, on J2
    accept(game, "2:1>1")  # ... then as a Tower, under B3
    assert column_texts(game)[1] == ["J2", "X1", "B3"]
    refuse(game, "3:1>2", "empty-needs-joker")


def test_neutral_destination_under_a_pawn_or_joker() -> None:
    """The rules let a neutral on top stand for any figure, whatever lies under it."""
    game = position("T1", "P2 X1")
    accept(game, "0:1>1")  # X1 stands for a Queen on a Pawn: only its own move counts
    game = position("N1", "J2 X1")
    accept(game, "0:1>1")


def test_a_joker_headed_run_cannot_go_onto_a_neutral() -> None:
    for run in ("J1", "J1 Q1", "X2 Q1", "J1 X2 T1"):
        game = position(run, "N2 X1")
        refuse(game, SoloDrezMove(from_=0, count=len(run.split()), to=1), "joker-needs-empty")


def test_a_neutral_headed_run_stands_for_the_figure_below_the_destination() -> None:
    game = position("X1 B1", "Q2", "T3", "J4")
    refuse(game, "0:2>2", "not-one-higher")  # X1 must be a Tower: a Queen is needed
    refuse(game, "0:2>3", "not-one-higher")
    accept(game, "0:2>1")
    assert column_texts(game)[1] == ["Q2", "X1", "B1"]
    # an all-neutral run takes the figure below whatever is there, with room to the Pawn
    game = position("X1 X2", "B3", "N4", "J5", "P6")
    refuse(game, "0:2>2", "not-one-higher")  # X2 would be below a Pawn
    refuse(game, "0:2>4", "onto-pawn")
    accept(game, "0:2>1")  # Knight, Pawn
    game = position("X1 X2", "B3", "N4", "J5", "P6")
    accept(game, "0:2>3")  # Queen, Tower
    game = position("X1", "N4")
    accept(game, "0:1>1")  # a lone neutral as a Pawn


def test_a_joker_headed_run_goes_only_into_an_empty_column() -> None:
    game = position("J1", "Q2", "T3", "", "X2 Q1")
    for b in (1, 2):
        error = refuse(game, SoloDrezMove(from_=0, count=1, to=b), "joker-needs-empty")
        assert "Joker" in error.message
    refuse(game, "4:2>1", "joker-needs-empty")  # X2 stands for a Joker (Q1 under it)
    refuse(game, "4:2>2", "joker-needs-empty")
    accept(game, "0:1>3")  # a lone Joker into an empty column
    accept(game, "4:2>0")  # X2 Q1 into the column the Joker left
    assert column_texts(game)[:5] == [["X2", "Q1"], ["Q2"], ["T3"], ["J1"], []]


def test_an_empty_column_takes_only_a_joker_headed_run() -> None:
    game = position("Q1", "T2 B2", "X1 T3", "")
    error = refuse(game, "0:1>3", "empty-needs-joker")
    assert "empty" in error.message
    refuse(game, "1:2>3", "empty-needs-joker")
    refuse(game, "2:2>3", "empty-needs-joker")  # X1 can only be a Queen here
    # a neutral that can stand for a Joker is a Joker-headed run
    for run in ("X1", "X1 X2", "X2 Q3", "X1 Q3 X2", "J4 Q4 T4 B4 N4 P4", "X1 Q1 T1 B1 N1 P1"):
        game = position(run, "", "Q2")
        accept(game, SoloDrezMove(from_=0, count=len(run.split()), to=1))
        assert column_texts(game)[:2] == [[], run.split()]


def test_same_column_and_off_board_columns() -> None:
    game = position("Q1 T1", "J2")
    refuse(game, "0:1>0", "same-column")
    refuse(game, "1:1>1", "same-column")
    for move in (
        SoloDrezMove(from_=9, count=1, to=0),
        SoloDrezMove(from_=0, count=1, to=9),
        SoloDrezMove(from_=-1, count=1, to=0),
        SoloDrezMove(from_=0, count=1, to=-1),
        SoloDrezMove(remove=9),
        SoloDrezMove(remove=-1),
    ):
        refuse(game, move, "off-board")
    # a move object with an off-board column reads, and is refused when played
    move = SoloDrez.move_from_object({"from": 12, "count": 1, "to": 0}, 0)
    refuse(game, move, "off-board")


def test_a_refused_move_leaves_the_state_as_it_was_mid_game() -> None:
    game = position("Q1 T1", "J2", "B3", "", "X1")
    accept(game, "0:2>1")
    accept(game, "4:1>0")
    before = snapshot(game)
    for text in ("0:2>1", "2:1>3", "1:4>3", "r1", "1:3>2", "1:1>1"):
        with pytest.raises(IllegalMove) as info:
            game.play(mv(text))
        assert info.value.move_index == 2
        assert info.value.message
        assert snapshot(game) == before
    with pytest.raises(IllegalMove) as info:
        game.play("0:1>2")  # type: ignore[arg-type]
    assert info.value.code == "wrong-move-shape"
    assert info.value.move_index == 2


# --- 4. remove ----------------------------------------------------------------------


def test_remove_one_clean_series_in_any_colours() -> None:
    game = position("J1 Q2 T3 B4 N5 P6", "J7 Q7 T7 B7 N7 P7")
    assert set(game.removes()) == {SoloDrezMove(remove=0), SoloDrezMove(remove=1)}
    accept(game, "r1")
    assert column_texts(game)[1] == []
    assert game.series_removed == 1
    assert game.visible().series_removed == 1
    accept(game, "r0")
    assert game.series_removed == 2
    assert not game.is_over()  # the filler's figures are still there
    refuse(game, "r0", "not-a-series")  # empty now


@pytest.mark.parametrize(
    "column",
    [
        "J1 X1 T3 B4 N5 P6",  # a neutral standing for the Queen
        "X1 Q2 T3 B4 N5 P6",
        "J1 Q2 T3 B4 N5 X1",
        "P7 J1 Q2 T3 B4 N5 P6",  # a card under it
        "J1 Q2 T3 B4 N5 P6 Q7",  # a card over it
        "J1 Q2 T3 B4 N5 P6 X1",
        "X1 J1 Q2 T3 B4 N5 P6",
        "J1 T3 Q2 B4 N5 P6",  # wrong order
        "P6 N5 B4 T3 Q2 J1",
        "J1 Q2 T3 B4 N5",  # not complete
        "Q2 T3 B4 N5 P6",
        "J1 Q2 T3 B4 N5 P6 J2 Q3 T4 B5 N6 P7",  # two series
        "",
    ],
)
def test_remove_refused(column: str) -> None:
    game = position(column, "J9")
    assert not ref_remove_legal(game.columns, 0)
    error = refuse(game, "r0", "not-a-series")
    assert "column 0" in error.message
    assert SoloDrezMove(remove=0) not in game.legal_moves()


def winning_deal() -> list[Card]:
    columns = [cards(f"J{c} Q{c} T{c} B{c} N{c} P{c}") for c in range(1, 10)]
    columns[0].append(card("X1"))  # a neutral on top of a series
    columns[1].insert(0, card("X2"))  # a neutral under one
    return SoloDrez.deal_of(columns)


WINNING_LOG = "r2 r3 r4 r5 r6 r7 r8 0:1>2 r0 1:6>0 r0"


def test_winning_removes_the_neutrals_and_ends_the_game() -> None:
    deal = winning_deal()
    game = SoloDrez.new(deal)
    refuse(game, "r0", "not-a-series")  # X1 on top
    refuse(game, "r1", "not-a-series")  # X2 under
    moves = SoloDrez.parse_log(WINNING_LOG)
    for i, move in enumerate(moves[:-1]):
        assert not game.is_over()
        accept(game, move)
        assert game.series_removed == sum(m.remove is not None for m in moves[: i + 1])
    # the last remove wins: X2, still on the table, goes too
    assert column_texts(game)[1] == ["X2"]
    assert game.series_removed == 8
    assert not game.won
    with pytest.raises(RuleError) as info:
        game.score()
    assert info.value.code == "incomplete"
    accept(game, moves[-1])
    assert game.won
    assert game.is_over()
    assert game.series_removed == 9
    assert column_texts(game) == [[]] * 9
    assert game.legal_moves() == []
    score = game.score()
    assert (score.total, score.won, score.series_removed, score.hands) == (9, True, 9, ())
    refuse(game, "stop", "game-over")
    refuse(game, "r0", "game-over")
    # the same from a replay of the log, as objects and as text
    again = SoloDrez.replay(deal, None, moves)
    assert again.score() == score
    assert SoloDrez.format_log(again.moves) == WINNING_LOG
    with pytest.raises(IllegalMove) as error:
        SoloDrez.replay(deal, None, [*moves, STOP])
    assert (error.value.code, error.value.move_index) == ("game-over", 11)


def test_score_counts_series_removed_when_stopped() -> None:
    game = position("J1 Q2 T3 B4 N5 P6", "J7 Q7 T7 B7 N7 P7", "J3 Q3")
    accept(game, "r0")
    accept(game, "stop")
    score = game.score()
    assert (score.total, score.won, score.series_removed) == (1, False, 1)
    encoded = msgspec.to_builtins(score)
    assert encoded["won"] is False
    assert encoded["series_removed"] == 1
    assert encoded["total"] == 1


# --- 5. the end of a game -----------------------------------------------------------


def test_stop_ends_the_game_and_nothing_comes_after_it() -> None:
    game = SoloDrez.new(SoloDrez.deal_cards(SEED, "alice", SoloDrez.parse_options(None)))
    assert not game.is_over()
    assert game.legal_moves()[-1] == STOP
    with pytest.raises(RuleError) as info:
        game.score()
    assert info.value.code == "incomplete"
    assert info.value.field == "moves"
    first = game.legal_moves()[0]
    accept(game, first)
    accept(game, "stop")
    assert game.is_over()
    assert game.is_complete()
    assert game.stopped
    assert game.legal_moves() == []
    assert game.score().total == 0
    assert game.score().won is False
    error = refuse(game, "stop", "game-over")
    assert error.move_index == 2
    refuse(game, first, "game-over")


def test_no_legal_move_left_ends_the_game() -> None:
    # every column ends in a Pawn and none is empty: nothing can move
    game = position(*(f"P{c}" for c in range(1, 10)), filler=False)
    assert game.is_over()
    assert game.legal_moves() == []
    assert not game.won
    assert game.score().total == 0
    assert game.score().won is False
    refuse(game, "stop", "game-over")  # nothing is left, not even stop
    refuse(game, "0:1>1", "game-over")
    # ... and a position that gets stuck after a move
    game = position("N1", "P1", *(f"Q{c}" for c in range(2, 9)), filler=False)
    assert game.legal_moves() == [mv("1:1>0"), STOP]
    accept(game, "1:1>0")
    assert game.is_over()
    assert game.legal_moves() == []
    score = game.score()
    assert (score.total, score.won, score.series_removed) == (0, False, 0)
    refuse(game, "stop", "game-over")


def test_a_stuck_deal_is_over_before_the_first_move() -> None:
    # a deal where every column ends in a Pawn and no run can move anywhere
    tails = [f"P{c}" for c in range(1, 10)]
    deal = deck_with_tail(tails)
    game = SoloDrez.new(deal)
    assert game.is_over()
    assert game.score().total == 0
    with pytest.raises(IllegalMove) as info:
        SoloDrez.replay(deal, None, [STOP])
    assert (info.value.code, info.value.move_index) == ("game-over", 0)


def test_a_position_without_figures_is_won() -> None:
    game = position("X1", "X2", filler=False)
    assert game.won
    assert game.is_over()
    assert game.score().won is True
    assert game.score().series_removed == 0


def test_a_log_cut_short_is_incomplete() -> None:
    deal = list(SoloDrez.deal_cards(SEED, "bob", SoloDrez.parse_options(None)))
    game = SoloDrez.new(deal)
    rnd = random.Random(3)
    for _ in range(30):
        game.play(rnd.choice(game.legal_moves()[:-1]))
    game.play(STOP)
    score = game.score()
    for k in (0, 1, 15, 30):
        short = SoloDrez.replay(deal, None, game.moves[:k])
        assert not short.is_complete()
        with pytest.raises(RuleError) as info:
            short.score()
        assert info.value.code == "incomplete"
        assert "stop" in info.value.message
    assert SoloDrez.replay(deal, None, game.moves).score() == score


def test_the_10000_move_bound() -> None:
    deal = deck_with_tail(["Q1", "Q2 T1"])
    shuttle = [mv("1:1>0"), mv("0:1>1")] * (MAX_MOVES // 2)
    assert MAX_MOVES == 10_000
    assert len(shuttle) == MAX_MOVES
    almost = SoloDrez.replay(deal, None, shuttle[:-1])
    assert not almost.is_over()
    with pytest.raises(RuleError):
        almost.score()
    almost.play(shuttle[-1])
    assert almost.is_over()
    game = SoloDrez.replay(deal, None, shuttle)
    assert game.is_over()
    assert game.is_complete()
    assert game.legal_moves() == []
    score = game.score()
    assert (score.total, score.won, score.series_removed) == (0, False, 0)
    for move in (mv("1:1>0"), STOP, mv("r0")):
        error = refuse(game, move, "too-many-moves")
        assert error.move_index == MAX_MOVES
        assert "10,000" in error.message
    for move in (mv("1:1>0"), STOP):
        with pytest.raises(IllegalMove) as info:
            SoloDrez.replay(deal, None, [*shuttle, move])
        assert (info.value.code, info.value.move_index) == ("too-many-moves", MAX_MOVES)
    # a game stopped at the last allowed move scores as well
    stopped = SoloDrez.replay(deal, None, [*shuttle[:-1], STOP])
    assert stopped.stopped
    assert stopped.score().total == 0


# --- 6. text and object forms -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("0:1>1", SoloDrezMove(from_=0, count=1, to=1)),
        ("3:2>5", SoloDrezMove(from_=3, count=2, to=5)),
        ("8:6>0", SoloDrezMove(from_=8, count=6, to=0)),
        ("2:12>3", SoloDrezMove(from_=2, count=12, to=3)),
        ("4:99>4", SoloDrezMove(from_=4, count=99, to=4)),  # reads; the rules refuse it
        ("r0", SoloDrezMove(remove=0)),
        ("r8", SoloDrezMove(remove=8)),
        ("stop", STOP),
    ],
)
def test_move_texts_round_trip(text: str, move: SoloDrezMove) -> None:
    assert SoloDrez.parse_move(text) == move
    assert SoloDrez.parse_move(f"  {text}\n") == move
    assert SoloDrez.move_text(move) == text
    assert SoloDrez.parse_move(SoloDrez.move_text(move)) == move
    assert SoloDrez.move_from_text(text, 4) == move
    assert move.kind == ("stop" if text == "stop" else "remove" if text[0] == "r" else "transfer")


def test_count_with_a_leading_zero_reads_and_writes_canonically() -> None:
    move = SoloDrez.parse_move("1:03>2")
    assert move == SoloDrezMove(from_=1, count=3, to=2)
    assert SoloDrez.move_text(move) == "1:3>2"


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "0:0>1",
        "0:00>1",
        "0:-1>1",
        "9:1>0",
        "0:1>9",
        "0:100>1",
        "0:1>",
        ":1>2",
        "0:>1",
        "01:1>2",
        "0:1>12",
        "0-1>2",
        "0:1<2",
        "0:1:2",
        "0:²>1",
        "0:١>1",
        "r9",
        "r",
        "r01",
        "r-1",
        "R0",
        "STOP",
        "Stop",
        "stop!",
        "stop stop",
        "0:1>2 r3",
        "remove 3",
        "0,1,2",
    ],
)
def test_bad_move_texts(text: str) -> None:
    with pytest.raises(ParseError):
        SoloDrez.parse_move(text)
    with pytest.raises(IllegalMove) as info:
        SoloDrez.move_from_text(text, 7)
    assert (info.value.code, info.value.move_index) == ("wrong-move-shape", 7)


def test_parse_move_refuses_a_non_string() -> None:
    with pytest.raises(ParseError):
        SoloDrez.parse_move(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("obj", "move"),
    [
        ({"from": 0, "count": 1, "to": 1}, SoloDrezMove(from_=0, count=1, to=1)),
        ({"to": 8, "count": 6, "from": 3}, SoloDrezMove(from_=3, count=6, to=8)),
        ({"remove": 4}, SoloDrezMove(remove=4)),
        ({"stop": True}, STOP),
    ],
)
def test_move_objects(obj: dict[str, Any], move: SoloDrezMove) -> None:
    assert SoloDrez.move_from_object(obj, 0) == move
    assert SoloDrez.move_from_object(move, 0) == move
    assert msgspec.to_builtins(move) == obj
    assert msgspec.json.decode(msgspec.json.encode(move), type=SoloDrezMove) == move


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"from": 0, "count": 1},
        {"from": 0, "to": 1},
        {"count": 1, "to": 1},
        {"from": 0, "count": 0, "to": 1},
        {"from": 0, "count": -2, "to": 1},
        {"from": 0, "count": 1, "to": 1, "remove": 2},
        {"from": 0, "count": 1, "to": 1, "stop": True},
        {"remove": 2, "stop": True},
        {"from": 0, "remove": 2},
        {"stop": False},
        {"stop": 1},
        {"stop": "true"},
        {"remove": "3"},
        {"remove": True},
        {"from": 0.0, "count": 1, "to": 1},
        {"from": "0", "count": 1, "to": 1},
        {"from": 0, "count": 1, "to": 1, "extra": 1},
        {"move": "0:1>1"},
        {"from_": 0, "count": 1, "to": 1},
        [0, 1, 1],
        "0:1>1",
        None,
    ],
)
def test_wrong_move_shapes(obj: Any) -> None:
    with pytest.raises(IllegalMove) as info:
        SoloDrez.move_from_object(obj, 5)
    assert (info.value.code, info.value.move_index) == ("wrong-move-shape", 5)
    assert info.value.field == "moves[5]"


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"from_": 0, "count": 1},
        {"from_": 0, "count": 0, "to": 1},
        {"remove": 1, "stop": True},
        {"stop": False},
        {"from_": 0, "count": 1, "to": 1, "remove": 0},
    ],
)
def test_a_move_struct_refuses_a_wrong_shape(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"solodrez move|count|stop"):
        SoloDrezMove(**kwargs)


def test_logs_round_trip_and_a_bad_token_names_its_index() -> None:
    text = "0:1>1 r3 8:6>2 stop"
    moves = SoloDrez.parse_log(text)
    assert moves == [mv("0:1>1"), SoloDrezMove(remove=3), mv("8:6>2"), STOP]
    assert SoloDrez.format_log(moves) == text
    assert SoloDrez.parse_log("  0:1>1\n r3\t8:6>2   stop ") == moves
    assert SoloDrez.parse_log("") == []
    for bad, index in (("0:1>1 r9 stop", 1), ("bogus", 0), ("r0 r1 0:0>1", 2)):
        with pytest.raises(IllegalMove) as info:
            SoloDrez.parse_log(bad)
        assert (info.value.code, info.value.move_index) == ("wrong-move-shape", index)


def test_a_refused_move_in_a_replayed_log_names_its_index() -> None:
    deal = deck_with_tail(["Q1", "Q2 T1"])
    with pytest.raises(IllegalMove) as info:
        SoloDrez.replay(deal, None, SoloDrez.parse_log("1:1>0 0:1>1 0:1>1"))
    assert (info.value.code, info.value.move_index) == ("not-one-higher", 2)
    with pytest.raises(IllegalMove) as info:
        SoloDrez.replay(deal, None, [mv("1:1>0"), {"remove": 0}])  # type: ignore[list-item]
    assert (info.value.code, info.value.move_index) == ("wrong-move-shape", 1)


# --- 7. properties (docs/rules.md section 8) ---------------------------------------------


def check_candidates(game: SoloDrez) -> None:
    """``legal_moves`` is what ``play`` accepts, is what the reference allows."""
    legal = game.legal_moves()
    assert len(set(legal)) == len(legal)
    over = game.is_over()
    assert (STOP in legal) is not over
    if over:
        assert legal == []
    else:
        assert legal[-1] == STOP
    columns = [list(column) for column in game.columns]
    reference = set() if over else ref_legal_moves(columns)
    index = len(game.moves)
    before = snapshot(game)
    work = copy.deepcopy(game)
    accepted = set()
    for move in CANDIDATES:
        error = attempt(work, move)
        if error is None:
            accepted.add(move)
            work = copy.deepcopy(game)  # start again from the position
            continue
        assert error.move_index == index
        assert error.message.startswith(f"move {index}")
        assert len(error.message) > len(f"move {index}: ")
        assert snapshot(work) == before
        if over:
            assert error.code == "game-over"
        elif move.remove is None:
            assert error.code in ref_transfer_reasons(columns, *transfer(move)), error
        else:
            assert error.code == "not-a-series"
    assert snapshot(game) == before
    assert accepted == set(legal) - {STOP}
    assert accepted == reference


def attempt(game: SoloDrez, move: SoloDrezMove) -> IllegalMove | None:
    """Play ``move``; the error if it is refused."""
    try:
        game.play(move)
    except IllegalMove as error:
        return error
    return None


def transfer(move: SoloDrezMove) -> tuple[int, int, int]:
    assert move.from_ is not None
    assert move.count is not None
    assert move.to is not None
    return move.from_, move.count, move.to


@SETTINGS
@given(rnd=st.randoms(use_true_random=False))
def test_legal_moves_is_what_play_accepts_on_random_positions(rnd: random.Random) -> None:
    game = SoloDrez.from_columns(random_position(rnd))
    check_candidates(game)
    # and again after a few legal moves, removes first
    for _ in range(rnd.randint(1, 8)):
        legal = game.legal_moves()
        if not legal:
            break
        removes = [m for m in legal if m.remove is not None]
        game.play(removes[0] if removes else rnd.choice(legal[:-1] or legal))
    check_candidates(game)


def play_randomly(game: SoloDrez, rnd: random.Random, steps: int, check_every: int) -> None:
    for step in range(steps):
        if game.is_over():
            return
        legal = game.legal_moves()
        if step % check_every == 0:
            assert set(legal) - {STOP} == ref_legal_moves(game.columns)
        removes = [m for m in legal if m.remove is not None]
        move = removes[0] if removes and rnd.random() < 0.8 else rnd.choice(legal[:-1] or legal)
        game.play(move)
    if not game.is_over():
        game.play(STOP)


def check_replays(deal: Sequence[Card], game: SoloDrez) -> None:
    assert game.is_over()
    assert game.is_complete()
    score = game.score()
    assert score.total == score.series_removed == game.series_removed
    assert score.won == game.won
    assert score.hands == ()
    moves = list(game.moves)
    again = SoloDrez.replay(deal, None, moves)
    assert column_texts(again) == column_texts(game)
    assert again.visible() == game.visible()
    assert again.score() == score
    text = SoloDrez.format_log(moves)
    assert SoloDrez.parse_log(text) == moves
    assert SoloDrez.replay(deal, None, SoloDrez.parse_log(text)).score() == score
    objects: list[dict[str, Any]] = msgspec.to_builtins(moves)
    parsed = [SoloDrez.move_from_object(obj, i) for i, obj in enumerate(objects)]
    assert parsed == moves
    # played one move at a time, the same
    step = SoloDrez.new(deal)
    for move in moves:
        step.play(move)
    assert step.visible() == game.visible()
    assert step.score() == score
    # a log cut short is incomplete (unless it stops at a dead end or a win)
    if moves:
        short = SoloDrez.replay(deal, None, moves[:-1])
        if not short.is_over():
            with pytest.raises(RuleError) as info:
                short.score()
            assert info.value.code == "incomplete"


@SETTINGS
@given(
    server_seed=st.binary(min_size=32, max_size=32),
    client_seed=st.text(min_size=1, max_size=12),
    rnd=st.randoms(use_true_random=False),
    steps=st.integers(0, 120),
)
def test_random_legal_play_on_random_seeds_replays_identically(
    server_seed: bytes, client_seed: str, rnd: random.Random, steps: int
) -> None:
    deal = SoloDrez.deal_cards(server_seed, client_seed, SoloDrez.parse_options(None))
    game = SoloDrez.new(deal)
    play_randomly(game, rnd, steps, check_every=10)
    check_replays(deal, game)


@SETTINGS
@given(rnd=st.randoms(use_true_random=False), steps=st.integers(0, 150))
def test_random_legal_play_on_near_solved_deals_replays_identically(
    rnd: random.Random, steps: int
) -> None:
    deal = random_near_deal(rnd)
    game = SoloDrez.new(deal)
    play_randomly(game, rnd, steps, check_every=5)
    check_replays(deal, game)
    if game.won:
        assert game.series_removed == 9
        assert column_texts(game) == [[]] * 9


@settings(max_examples=30, deadline=None)
@given(rnd=st.randoms(use_true_random=False))
def test_refused_moves_in_random_play(rnd: random.Random) -> None:
    """Every refused move: its index, a reason, and the state as it was."""
    deal = random_near_deal(rnd) if rnd.random() < 0.5 else list(POKERDREZ_DECK)
    if rnd.random() < 0.5:
        rnd.shuffle(deal)
    game = SoloDrez.new(deal)
    for _ in range(30):
        if game.is_over():
            break
        legal = set(game.legal_moves())
        for move in rnd.sample(CANDIDATES, 15):
            if move in legal:
                continue
            refuse_any(game, move)
        game.play(rnd.choice([*legal - {STOP}] or [STOP]))
    for move in rnd.sample(CANDIDATES, 10):
        if game.is_over():
            refuse(game, move, "game-over")


def refuse_any(game: SoloDrez, move: SoloDrezMove) -> None:
    before = snapshot(game)
    with pytest.raises(IllegalMove) as info:
        game.play(move)
    assert info.value.move_index == len(game.moves)
    assert info.value.code
    assert info.value.message.split(": ", 1)[1]
    assert snapshot(game) == before


# --- 8. the reference on many positions (seeded, no hypothesis) ----------------------


def test_the_reference_agrees_on_many_seeded_positions() -> None:
    rnd = random.Random(20240607)
    checked = 0
    for _ in range(150):
        game = SoloDrez.from_columns(random_position(rnd))
        if game.is_over():
            continue
        engine = set(game.legal_moves()) - {STOP}
        assert engine == ref_legal_moves(game.columns), column_texts(game)
        checked += 1
    assert checked > 100
