"""The grid variants: properties for every variant and concrete rules (docs/rules.md 2-4, 8)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

import msgspec
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cardproof.cards import JOKER, STANDARD_DECK, Card, parse_cards
from cardproof.errors import IllegalMove, ParseError, RuleError
from cardproof.games import (
    VARIANTS,
    Cell,
    Game,
    GridView,
    Offset,
    PokerPatience,
    PokerSquares,
    SerpentPatience,
    replay_log,
    variant,
)
from cardproof.hands import Category, PointTable, Score, classify

VARIANT_IDS = ["poker-patience", "poker-squares", "serpent-patience"]
"""The grid variants this file covers (the others have test files of their own)."""

OPTION_CHOICES: dict[str, list[dict[str, Any] | None]] = {
    "poker-squares": [
        None,
        {},
        {"diagonals": True},
        {"scoring": "british"},
        {"scoring": "repeat", "diagonals": True},
        {"scoring": {"flush": -5, "straight": 40, "one-pair": 1}},
    ],
    "poker-patience": [None, {"scoring": "american"}, {"scoring": {"one-pair": 3, "flush": -2}}],
    "serpent-patience": [None, {"scoring": "reserve"}, {"scoring": {"two-pair": -7}}],
}

# docs/rules.md section 1 table, the columns used below
AMERICAN = {"high-card": 0, "one-pair": 2, "four-of-a-kind": 50, "royal-flush": 100}
BRITISH = {"high-card": 0, "one-pair": 1, "straight-flush": 30}

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def move(cls: type[Game[Any, Any]], row: int, col: int) -> Any:
    return cls.move_type(row=row, col=col)


def cards_of(text: str) -> list[Card]:
    return parse_cards(text.split())


def view_cards(view: GridView) -> list[str]:
    return [text for row in view.layout for text in row if text is not None]


def check_view(game: Game[Any, Any], deck: Sequence[Card]) -> None:
    """What ``visible()`` shows at this point, for any variant."""
    n = len(game.moves)
    view = game.visible()
    assert isinstance(view, GridView)
    encoded = msgspec.json.encode(view).decode()
    due = deck[n].text if n < 25 else None
    assert view.next == due
    assert sorted(view_cards(view)) == sorted(c.text for c in deck[:n])
    if game.information == "hidden":
        assert view.later == ()
        for card in deck[n + 1 :]:
            assert card.text not in encoded, (n, card)
    else:
        assert view.later == tuple(c.text for c in deck[n + 1 : 25])
        for card in deck[25:]:
            assert card.text not in encoded, (n, card)


def check_refusals(game: Game[Any, Any]) -> None:
    """Every move not in ``legal_moves()`` is refused, and leaves the game as it was."""
    n = len(game.moves)
    legal = game.legal_moves()
    assert len(set(legal)) == len(legal)
    assert all(isinstance(m, game.move_type) for m in legal)
    legal_set = set(legal)
    for row in range(-6, 7):
        for col in range(-6, 7):
            candidate = move(type(game), row, col)
            if candidate in legal_set:
                continue
            with pytest.raises(IllegalMove) as info:
                game.play(candidate)
            assert info.value.move_index == n
            assert info.value.code
            assert info.value.field == f"moves[{n}]"
            assert f"move {n}" in info.value.message
    assert len(game.moves) == n
    other = Offset if game.move_type is Cell else Cell
    with pytest.raises(IllegalMove) as info:
        game.play(other(row=0, col=0))
    assert info.value.code == "wrong-move-shape"
    assert info.value.move_index == n


# --- properties of every variant (docs/rules.md section 8) ---------------------------------

DEFAULT_TABLE = {
    "poker-squares": "american",
    "poker-patience": "british",
    "serpent-patience": "british",
}
"""docs/rules.md sections 2-4."""


def expected_lines(variant_id: str, deck: Sequence[Card], moves: Sequence[Any]) -> dict[str, Any]:
    """The cards of each scored line of a finished game, worked out from the moves."""
    placed = {(m.row, m.col): deck[i].text for i, m in enumerate(moves)}
    top = min(r for r, _ in placed)
    left = min(c for _, c in placed)
    if variant_id != "poker-patience":
        assert (top, left) == (0, 0)
    grid = [[placed[(top + r, left + c)] for c in range(5)] for r in range(5)]
    lines = {f"row {r + 1}": tuple(grid[r]) for r in range(5)}
    lines |= {f"col {'abcde'[c]}": tuple(grid[r][c] for r in range(5)) for c in range(5)}
    lines["diagonal \\"] = tuple(grid[i][i] for i in range(5))
    lines["diagonal /"] = tuple(grid[i][4 - i] for i in range(5))
    return lines


def choose(game: Game[Any, Any], rnd: random.Random, greedy: bool) -> Any:
    """A legal move: at random, or (serpent) the step with fewest free cells onward."""
    legal = game.legal_moves()
    if not (greedy and game.moves and isinstance(game, SerpentPatience)):
        return rnd.choice(legal)
    used = {(m.row, m.col) for m in game.moves}

    def onward(m: Cell) -> int:
        steps = [(m.row + dr, m.col + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        return sum(1 for r, c in steps if 0 <= r < 5 and 0 <= c < 5 and (r, c) not in used)

    last = len(game.moves) == 24
    return min(legal, key=lambda m: (onward(m) == 0 and not last, onward(m), rnd.random()))


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@SETTINGS
@given(
    deck=st.permutations(STANDARD_DECK),
    rnd=st.randoms(use_true_random=False),
    choice=st.integers(0, 5),
    greedy=st.booleans(),
)
def test_random_legal_play(
    variant_id: str, deck: list[Card], rnd: random.Random, choice: int, greedy: bool
) -> None:
    cls = VARIANTS[variant_id]
    options = OPTION_CHOICES[variant_id][choice % len(OPTION_CHOICES[variant_id])]
    game = cls.new(deck, options)
    while not game.is_over():
        check_view(game, deck)
        check_refusals(game)
        game.play(choose(game, rnd, greedy))
    check_view(game, deck)
    event(f"complete: {game.is_complete()}")
    moves = list(game.moves)
    assert game.legal_moves() == []

    # the log's text form round-trips, move by move and whole
    for m in moves:
        assert cls.parse_move(cls.move_text(m)) == m
    text = cls.format_log(moves)
    assert game.log_text() == text
    assert cls.parse_log(text) == moves
    assert len(text.split()) == len(moves)

    # playing after the end
    with pytest.raises(IllegalMove) as info:
        game.play(move(cls, 0, 0))
    assert info.value.code == "game-over"
    assert info.value.move_index == len(moves)

    # a log cut short is incomplete, not scored
    cut = rnd.randrange(len(moves))
    short = cls.replay(deck, options, moves[:cut])
    assert not short.is_over()
    with pytest.raises(RuleError) as rule:
        short.score()
    assert rule.value.code == "incomplete"
    assert rule.value.field == "moves"

    if not game.is_complete():
        # only serpent can run into a dead end
        assert variant_id == "serpent-patience"
        assert len(moves) < 25
        with pytest.raises(RuleError) as rule:
            game.score()
        assert rule.value.code == "incomplete"
        assert "dead end" in rule.value.message
        replayed = cls.replay(deck, options, moves)
        assert replayed.is_over()
        assert not replayed.is_complete()
        return

    assert len(moves) == 25
    score = game.score()
    assert isinstance(score, Score)
    diagonals = bool(options and options.get("diagonals"))
    assert len(score.hands) == (12 if diagonals else 10)
    assert score.total == sum(h.points for h in score.hands)
    # replay from the log, as objects and as text: the identical score
    assert cls.replay(deck, options, moves).score() == score
    assert cls.replay(deck, options, cls.parse_log(text)).score() == score
    assert replay_log(variant_id, deck, options, text).score() == score
    objects = msgspec.to_builtins(moves)
    assert replay_log(variant_id, deck, options, objects).score() == score
    # each line holds the cards the moves put there, scored under the chosen table
    lines = expected_lines(variant_id, deck, moves)
    assert {h.line: h.cards for h in score.hands} == {
        name: cards for name, cards in lines.items() if diagonals or "diagonal" not in name
    }
    scoring = (options or {}).get("scoring", DEFAULT_TABLE[variant_id])
    table = PointTable.from_option(scoring)
    for hand in score.hands:
        assert hand.category == classify(cards_of(" ".join(hand.cards))).id
        assert hand.points == table[Category.from_id(hand.category)]


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@settings(max_examples=8, deadline=None)
@given(deck=st.permutations(STANDARD_DECK), rnd=st.randoms(use_true_random=False))
def test_every_listed_move_is_accepted(
    variant_id: str, deck: list[Card], rnd: random.Random
) -> None:
    cls = VARIANTS[variant_id]
    game = cls.new(deck)
    while not game.is_over():
        for candidate in game.legal_moves():
            trial = cls.replay(deck, None, game.moves)
            trial.play(candidate)
            assert trial.moves[-1] == candidate
        game.play(rnd.choice(game.legal_moves()))


@pytest.mark.parametrize("variant_id", ["poker-squares", "poker-patience"])
@settings(max_examples=40, deadline=None)
@given(deck=st.permutations(STANDARD_DECK), rnd=st.randoms(use_true_random=False))
def test_hidden_variants_never_get_stuck(
    variant_id: str, deck: list[Card], rnd: random.Random
) -> None:
    cls = VARIANTS[variant_id]
    game = cls.new(deck)
    for _ in range(25):
        legal = game.legal_moves()
        assert legal
        game.play(rnd.choice(legal))
    assert game.is_over()
    assert game.is_complete()


# --- registry and construction -----------------------------------------------------------


def test_registry_matches_games_md() -> None:
    assert VARIANTS["poker-squares"] is PokerSquares
    assert VARIANTS["poker-patience"] is PokerPatience
    assert VARIANTS["serpent-patience"] is SerpentPatience
    for variant_id, cls in VARIANTS.items():
        assert cls.id == variant_id
        assert variant(variant_id) is cls
    for variant_id in VARIANT_IDS:
        assert VARIANTS[variant_id].deck_type == "standard-52"
        assert VARIANTS[variant_id].cards_used == 25
    assert PokerSquares.information == "hidden"
    assert PokerPatience.information == "hidden"
    assert SerpentPatience.information == "open"


def test_unknown_variant() -> None:
    with pytest.raises(RuleError) as info:
        variant("poker-square")
    assert info.value.code == "unknown-variant"
    assert info.value.field == "variant"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_too_few_cards(variant_id: str) -> None:
    cls = VARIANTS[variant_id]
    with pytest.raises(RuleError) as info:
        cls.new(STANDARD_DECK[:24])
    assert info.value.code == "too-few-cards"
    assert info.value.field == "deal.cards"
    assert cls.new(STANDARD_DECK[:25]).cards == STANDARD_DECK[:25]


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_duplicate_card_in_the_deal(variant_id: str) -> None:
    cls = VARIANTS[variant_id]
    cards = list(STANDARD_DECK[:30])
    cards[17] = cards[4]
    with pytest.raises(RuleError) as info:
        cls.new(cards)
    assert info.value.code == "duplicate-card"
    assert "deal.cards[4]" in info.value.message
    assert "deal.cards[17]" in info.value.message
    assert info.value.field == "deal.cards[17]"
    # beyond the 25 cards used, a duplicate is still a broken deal
    cards = [*STANDARD_DECK[:26], STANDARD_DECK[0]]
    with pytest.raises(RuleError) as info:
        cls.new(cards, field="cards")
    assert info.value.code == "duplicate-card"
    assert info.value.field == "cards[26]"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_joker_is_not_in_the_deck(variant_id: str) -> None:
    cls = VARIANTS[variant_id]
    cards = list(STANDARD_DECK[:25])
    cards[3] = JOKER
    with pytest.raises(RuleError) as info:
        cls.new(cards)
    assert info.value.code == "card-not-in-deck"
    assert info.value.field == "deal.cards[3]"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_unknown_option(variant_id: str) -> None:
    cls = VARIANTS[variant_id]
    with pytest.raises(RuleError) as info:
        cls.new(STANDARD_DECK, {"x": 1})
    assert info.value.code == "unknown-option"
    assert info.value.field == "options.x"


@pytest.mark.parametrize("variant_id", ["poker-patience", "serpent-patience"])
def test_diagonals_is_only_a_poker_squares_option(variant_id: str) -> None:
    with pytest.raises(RuleError) as info:
        VARIANTS[variant_id].new(STANDARD_DECK, {"diagonals": True})
    assert info.value.code == "unknown-option"
    assert info.value.field == "options.diagonals"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@pytest.mark.parametrize(
    "options",
    [{"scoring": "hoyle"}, {"scoring": {"flush": 1001}}, {"scoring": {"flushes": 1}}],
)
def test_bad_option_values(variant_id: str, options: dict[str, Any]) -> None:
    with pytest.raises(RuleError) as info:
        VARIANTS[variant_id].new(STANDARD_DECK, options)
    assert info.value.code
    assert info.value.field is not None
    assert info.value.field.startswith("options")


def test_bad_diagonals_value() -> None:
    with pytest.raises(RuleError) as info:
        PokerSquares.new(STANDARD_DECK, {"diagonals": "yes"})
    assert info.value.field is not None
    assert info.value.field.startswith("options")


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
@pytest.mark.parametrize(
    "obj",
    [
        {"row": 1},
        {"col": 1},
        {},
        {"row": "1", "col": 0},
        {"row": 1.0, "col": 0},
        {"row": True, "col": 0},
        {"row": None, "col": 0},
        {"row": 1, "col": 0, "x": 1},
        {"from": 0, "count": 1, "to": 2},
    ],
)
def test_move_from_object_wrong_shape(variant_id: str, obj: Mapping[str, Any]) -> None:
    cls = VARIANTS[variant_id]
    with pytest.raises(IllegalMove) as info:
        cls.move_from_object(obj, 3)
    assert info.value.code == "wrong-move-shape"
    assert info.value.move_index == 3
    assert info.value.field == "moves[3]"


@pytest.mark.parametrize("obj", [[1, 2], "a1", None, 7])
def test_move_from_object_not_an_object(obj: Any) -> None:
    # a JSON value that is not an object at all is a wrong shape too
    for cls in VARIANTS.values():
        with pytest.raises(IllegalMove) as info:
            cls.move_from_object(obj, 0)
        assert info.value.code == "wrong-move-shape"


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_move_from_object_reads_a_move(variant_id: str) -> None:
    cls = VARIANTS[variant_id]
    assert cls.move_from_object({"row": 2, "col": 3}, 0) == move(cls, 2, 3)


@pytest.mark.parametrize(
    ("cls", "text", "index"),
    [
        (PokerSquares, "a1 b2 0,1 c3", 2),
        (SerpentPatience, "a1 a2 -1,0", 2),
        (PokerPatience, "0,0 1,1 c3", 2),
        (PokerPatience, "b2", 0),
        (PokerSquares, "a1 f1", 1),
        (PokerSquares, "a1 a6", 1),
        (PokerPatience, "0,0 0,5", 1),
    ],
)
def test_parse_log_names_the_bad_token(cls: type[Game[Any, Any]], text: str, index: int) -> None:
    with pytest.raises(IllegalMove) as info:
        cls.parse_log(text)
    assert info.value.move_index == index
    assert info.value.code == "wrong-move-shape"
    assert repr(text.split()[index]) in info.value.message


def test_parse_log_white_space_and_case() -> None:
    assert PokerSquares.parse_log("") == []
    assert PokerSquares.parse_log("  a1\n\tE5  ") == [Cell(row=0, col=0), Cell(row=4, col=4)]
    assert PokerPatience.parse_log(" 0,0 -1,+1 ") == [Offset(row=0, col=0), Offset(row=-1, col=1)]


def test_replay_names_the_first_illegal_move() -> None:
    with pytest.raises(IllegalMove) as info:
        PokerSquares.replay(STANDARD_DECK, None, PokerSquares.parse_log("a1 b1 c1 b1 d1"))
    assert info.value.move_index == 3
    assert info.value.code == "cell-taken"


# --- poker-squares (docs/rules.md section 2) -----------------------------------------------------


def test_cell_text_form() -> None:
    assert Cell.parse("c3") == Cell(row=2, col=2)
    assert Cell.parse("A1") == Cell(row=0, col=0)
    assert Cell(row=0, col=4).text == "e1"
    assert Cell(row=4, col=0).text == "a5"
    for row in range(5):
        for col in range(5):
            cell = Cell(row=row, col=col)
            assert Cell.parse(cell.text) == cell
            assert cell.text == "abcde"[col] + str(row + 1)
    for bad in ["", "f1", "a0", "a6", "1a", "c33", "c 3", "0,0"]:
        with pytest.raises(ParseError):
            PokerSquares.parse_move(bad)


def test_poker_squares_cell_taken_and_off_board() -> None:
    game = PokerSquares.new(STANDARD_DECK)
    game.play(Cell.parse("c3"))
    with pytest.raises(IllegalMove) as info:
        game.play(Cell.parse("c3"))
    assert info.value.code == "cell-taken"
    assert info.value.move_index == 1
    for row, col in [(5, 0), (0, 5), (-1, 2), (2, -1)]:
        with pytest.raises(IllegalMove) as info:
            game.play(Cell(row=row, col=col))
        assert info.value.code == "off-board"
        assert info.value.move_index == 1
    assert game.moves == (Cell(row=2, col=2),)


DIAGONAL_LAYOUT = [
    "AS 2C 4D 6H QC",
    "5C KS 7D QD 8H",
    "9C 3D QS 2H 4S",
    "6S QH 8D JS 5D",
    "3C 7C 9D TD TS",
]
"""Diagonal \\ is a royal flush (AS KS QS JS TS), diagonal / four queens and 3C; row 5
holds the only pair; every other row and column is high card."""


def layout_deck(rows: list[str]) -> list[Card]:
    cards = cards_of(" ".join(rows))
    rest = [c for c in STANDARD_DECK if c not in cards]
    return cards + rest


def play_row_major(options: dict[str, Any] | None) -> Score:
    game = PokerSquares.new(layout_deck(DIAGONAL_LAYOUT), options)
    for i in range(25):
        game.play(Cell(row=i // 5, col=i % 5))
    return game.score()


def test_poker_squares_rows_columns_and_default_table() -> None:
    score = play_row_major(None)
    names = [h.line for h in score.hands]
    assert names == [f"row {i}" for i in range(1, 6)] + [f"col {c}" for c in "abcde"]
    by_line = {h.line: h for h in score.hands}
    assert by_line["row 1"].cards == tuple(DIAGONAL_LAYOUT[0].split())
    assert by_line["col b"].cards == ("2C", "KS", "3D", "QH", "7C")
    assert by_line["row 5"].category == "one-pair"
    others = [h for h in score.hands if h.line != "row 5"]
    assert all(h.category == "high-card" for h in others)
    assert score.total == AMERICAN["one-pair"]  # american is the default


def test_poker_squares_diagonals() -> None:
    score = play_row_major({"diagonals": True})
    assert len(score.hands) == 12
    assert [h.line for h in score.hands[10:]] == ["diagonal \\", "diagonal /"]
    diagonal_1, diagonal_2 = score.hands[10], score.hands[11]
    assert diagonal_1.cards == ("AS", "KS", "QS", "JS", "TS")  # top-left to bottom-right
    assert diagonal_1.category == "royal-flush"
    assert diagonal_2.cards == ("QC", "QD", "QS", "QH", "3C")  # top-right to bottom-left
    assert diagonal_2.category == "four-of-a-kind"
    assert score.total == (
        AMERICAN["one-pair"] + AMERICAN["royal-flush"] + AMERICAN["four-of-a-kind"]
    )
    assert play_row_major({"diagonals": False}).total == AMERICAN["one-pair"]
    british = play_row_major({"diagonals": True, "scoring": "british"})
    assert british.total == 1 + 30 + 16


def test_poker_squares_view_at_the_start() -> None:
    game = PokerSquares.new(STANDARD_DECK)
    view = game.visible()
    assert view.layout == ((None,) * 5,) * 5
    assert view.next == "2C"
    assert view.later == ()


# --- poker-patience (docs/rules.md section 3) ----------------------------------------------------


def test_offset_text_form() -> None:
    assert PokerPatience.move_text(Offset(row=-1, col=2)) == "-1,2"
    assert PokerPatience.parse_move("-1,2") == Offset(row=-1, col=2)
    assert PokerPatience.parse_move("+1,-0") == Offset(row=1, col=0)
    assert PokerPatience.parse_move("-4,4") == Offset(row=-4, col=4)
    for row in range(-4, 5):
        for col in range(-4, 5):
            offset = Offset(row=row, col=col)
            assert PokerPatience.parse_move(PokerPatience.move_text(offset)) == offset
    for bad in ["", "1;2", "5,0", "0,-5", "1, 2", "a1", "1,2,3", "--1,2"]:
        with pytest.raises(ParseError):
            PokerPatience.parse_move(bad)


def test_poker_patience_first_move_is_the_origin() -> None:
    game = PokerPatience.new(STANDARD_DECK)
    assert game.legal_moves() == [Offset(row=0, col=0)]
    with pytest.raises(IllegalMove) as info:
        game.play(Offset(row=1, col=0))
    assert info.value.code == "first-not-origin"
    assert info.value.move_index == 0
    with pytest.raises(IllegalMove) as info:
        game.play(Offset(row=5, col=0))
    assert info.value.code == "off-board"
    game.play(Offset(row=0, col=0))
    assert game.visible().origin == (0, 0)


def test_poker_patience_adjacency_is_eight_neighbours() -> None:
    game = PokerPatience.new(STANDARD_DECK)
    game.play(Offset(row=0, col=0))
    ring = [(r, c) for r in (-1, 0, 1) for c in (-1, 0, 1) if (r, c) != (0, 0)]
    expected = {Offset(row=r, col=c) for r, c in ring}
    assert set(game.legal_moves()) == expected
    for row, col in [(0, 2), (2, 0), (-2, -2), (2, 1), (-1, 3)]:
        with pytest.raises(IllegalMove) as info:
            game.play(Offset(row=row, col=col))
        assert info.value.code == "not-adjacent"
        assert info.value.move_index == 1
    with pytest.raises(IllegalMove) as info:
        game.play(Offset(row=0, col=0))
    assert info.value.code == "cell-taken"
    game.play(Offset(row=1, col=1))  # diagonal touch
    game.play(Offset(row=2, col=2))
    game.play(Offset(row=-1, col=-1))
    assert game.moves[-1] == Offset(row=-1, col=-1)


def test_poker_patience_stays_within_five_by_five() -> None:
    game = PokerPatience.new(STANDARD_DECK)
    for col in range(5):
        game.play(Offset(row=0, col=col))
    for row, col in [(0, -1), (1, -1), (-1, 5), (0, 5)]:
        with pytest.raises(IllegalMove) as info:
            game.play(Offset(row=row, col=col))
        assert info.value.code in {"outside-square", "off-board"}
        if abs(col) <= 4:
            assert info.value.code == "outside-square"
    for row in range(1, 5):
        game.play(Offset(row=row, col=0))
    with pytest.raises(IllegalMove) as info:
        game.play(Offset(row=-1, col=0))
    assert info.value.code == "outside-square"
    assert all(m.row in range(0, 5) and m.col in range(0, 5) for m in game.legal_moves())


def test_poker_patience_never_far_off_board() -> None:
    game = PokerPatience.new(STANDARD_DECK)
    for row in range(0, -5, -1):
        game.play(Offset(row=row, col=0))
    assert game.moves[-1] == Offset(row=-4, col=0)
    with pytest.raises(IllegalMove) as info:
        game.play(Offset(row=-5, col=0))
    assert info.value.code in {"off-board", "outside-square"}


def square_order(top: int, left: int) -> list[tuple[int, int]]:
    """The cells of the 5x5 square at (top, left), nearest the origin first."""
    cells = [(r, c) for r in range(top, top + 5) for c in range(left, left + 5)]
    assert (0, 0) in cells
    return sorted(cells, key=lambda rc: (max(abs(rc[0]), abs(rc[1])), rc))


def test_poker_patience_final_square_orientation() -> None:
    top, left = -2, -1
    wanted = {
        (top + i, left + j): card
        for i, row in enumerate(DIAGONAL_LAYOUT)
        for j, card in enumerate(cards_of(row))
    }
    order = square_order(top, left)
    deck = [wanted[cell] for cell in order]
    deck += [c for c in STANDARD_DECK if c not in deck]
    game = PokerPatience.new(deck)
    for row, col in order:
        game.play(Offset(row=row, col=col))
    assert game.is_complete()
    view = game.visible()
    assert view.origin == (top, left)
    assert view.next is None
    assert [" ".join(str(t) for t in row) for row in view.layout] == DIAGONAL_LAYOUT
    score = game.score()
    by_line = {h.line: h for h in score.hands}
    assert len(score.hands) == 10
    for i in range(5):
        assert by_line[f"row {i + 1}"].cards == tuple(DIAGONAL_LAYOUT[i].split())
        column = tuple(DIAGONAL_LAYOUT[r].split()[i] for r in range(5))
        assert by_line[f"col {'abcde'[i]}"].cards == column
    assert by_line["row 5"].category == "one-pair"
    assert score.total == BRITISH["one-pair"]  # british is the default
    american = PokerPatience.replay(deck, {"scoring": "american"}, game.moves).score()
    assert american.total == AMERICAN["one-pair"]


def test_poker_patience_view_is_the_bounding_box() -> None:
    game = PokerPatience.new(STANDARD_DECK)
    start = game.visible()
    assert start.layout == ()
    assert start.next == "2C"
    assert start.origin == (0, 0)
    for text in ["0,0", "0,1", "1,-1", "-1,2"]:
        game.play(PokerPatience.parse_move(text))
    view = game.visible()
    assert view.origin == (-1, -1)
    assert view.layout == (
        (None, None, None, "5C"),
        (None, "2C", "3C", None),
        ("4C", None, None, None),
    )
    assert view.next == "6C"
    assert view.later == ()


# --- serpent-patience (docs/rules.md section 4) --------------------------------------------------


def test_serpent_steps_are_orthogonal() -> None:
    game = SerpentPatience.new(STANDARD_DECK)
    assert len(game.legal_moves()) == 25
    game.play(Cell.parse("b2"))
    assert set(game.legal_moves()) == {Cell.parse(t) for t in ("b1", "b3", "a2", "c2")}
    for text in ["a1", "c1", "a3", "c3", "b4", "d2"]:
        with pytest.raises(IllegalMove) as info:
            game.play(Cell.parse(text))
        assert info.value.code == "not-adjacent"
        assert info.value.move_index == 1
    with pytest.raises(IllegalMove) as info:
        game.play(Cell.parse("b2"))
    assert info.value.code == "cell-taken"
    game.play(Cell.parse("b1"))
    with pytest.raises(IllegalMove) as info:
        game.play(Cell.parse("b2"))  # next to b1, but taken
    assert info.value.code == "cell-taken"
    with pytest.raises(IllegalMove) as info:
        game.play(Cell(row=-1, col=1))
    assert info.value.code == "off-board"


def test_serpent_dead_end() -> None:
    game = SerpentPatience.new(STANDARD_DECK)
    for text in ["b1", "b2", "a2", "a1"]:
        game.play(Cell.parse(text))
    assert game.is_over()
    assert not game.is_complete()
    assert game.legal_moves() == []
    with pytest.raises(RuleError) as info:
        game.score()
    assert info.value.code == "incomplete"
    assert "dead end" in info.value.message
    with pytest.raises(IllegalMove) as illegal:
        game.play(Cell.parse("a3"))
    assert illegal.value.code == "game-over"
    assert illegal.value.move_index == 4


def test_serpent_short_log_is_incomplete_not_a_dead_end() -> None:
    game = SerpentPatience.new(STANDARD_DECK)
    game.play(Cell.parse("c3"))
    with pytest.raises(RuleError) as info:
        game.score()
    assert info.value.code == "incomplete"
    assert "dead end" not in info.value.message
    assert not game.is_over()


BOUSTROPHEDON = [Cell(row=r, col=c if r % 2 == 0 else 4 - c) for r in range(5) for c in range(5)]


def test_serpent_full_path_score() -> None:
    game = SerpentPatience.replay(STANDARD_DECK, None, BOUSTROPHEDON)
    assert game.is_over()
    assert game.is_complete()
    score = game.score()
    by_line = {h.line: h for h in score.hands}
    # row 1: 2C..6C, row 2 (right to left): 7C..JC, row 3: QC KC AC 2D 3D,
    # row 4 (right to left): 4D..8D, row 5: 9D..KD
    assert by_line["row 1"].cards == ("2C", "3C", "4C", "5C", "6C")
    assert by_line["row 2"].cards == ("JC", "TC", "9C", "8C", "7C")
    assert by_line["row 3"].cards == ("QC", "KC", "AC", "2D", "3D")
    assert by_line["col a"].cards == ("2C", "JC", "QC", "8D", "9D")
    assert by_line["col b"].cards == ("3C", "TC", "KC", "7D", "TD")
    assert by_line["col d"].cards == ("5C", "8C", "2D", "5D", "QD")
    expected = {
        "row 1": "straight-flush",
        "row 2": "straight-flush",
        "row 3": "high-card",  # Q-K-A-2-3 does not wrap
        "row 4": "straight-flush",
        "row 5": "straight-flush",
        "col a": "high-card",
        "col b": "one-pair",
        "col c": "high-card",
        "col d": "one-pair",
        "col e": "high-card",
    }
    assert {line: h.category for line, h in by_line.items()} == expected
    assert score.total == 4 * BRITISH["straight-flush"] + 2 * BRITISH["one-pair"]  # british
    view = game.visible()
    assert view.next is None
    assert view.later == ()


def test_serpent_view_shows_every_later_card() -> None:
    deck = list(reversed(STANDARD_DECK))
    game = SerpentPatience.new(deck)
    view = game.visible()
    assert view.next == deck[0].text
    assert view.later == tuple(c.text for c in deck[1:25])
    game.play(Cell.parse("a1"))
    view = game.visible()
    assert view.next == deck[1].text
    assert view.later == tuple(c.text for c in deck[2:25])
    assert view.layout[0][0] == deck[0].text


@pytest.mark.parametrize("variant_id", sorted(VARIANTS))
def test_a_dealt_deck_replays_as_a_checked_one(variant_id: str) -> None:
    """``dealt=True`` skips only the deck check: the game is the one a checked deck gives."""
    cls = variant(variant_id)
    seed, client_seed = bytes(range(32)), "dealt"
    options = cls.resolve_options(cls.parse_options(None), seed, client_seed)
    cards = cls.deal_cards(seed, client_seed, options)
    game = cls.new(cards, options)
    for _ in range(5):
        if game.is_over():
            break
        game.play(game.legal_moves()[0])
    log = game.log_text()
    checked = replay_log(variant_id, cards, options, log)
    trusted = replay_log(variant_id, cards, options, log, dealt=True)
    assert trusted.log_text() == checked.log_text() == log
    assert trusted.visible() == checked.visible()


def test_a_finished_games_score_is_reckoned_once_and_is_the_replays() -> None:
    game = PokerSquares.new(list(STANDARD_DECK))
    while not game.is_over():
        game.play(game.legal_moves()[0])
    first = game.score()
    assert game.score() is first  # its answer, receipt and total ask: reckoned once
    replayed = replay_log(game.id, game.cards, game.options, game.log_text())
    assert replayed.score() == first
    game._scored = (len(game.moves) - 1, Score(total=-1, hands=()))  # at another length
    assert game.score() == first  # not taken for this one


_PLACEMENT_CELLS = st.builds(
    Cell,
    row=st.integers(min_value=-1, max_value=5),
    col=st.integers(min_value=-1, max_value=5),
)
"""Cells on the board and just off it."""


def _path_from(rnd: random.Random, length: int) -> list[Cell]:
    """A rook's walk of single steps (it may step back onto a cell: then it is refused)."""
    row, col = rnd.randrange(5), rnd.randrange(5)
    walk = [Cell(row=row, col=col)]
    for _ in range(length - 1):
        dr, dc = rnd.choice(((0, 1), (0, -1), (1, 0), (-1, 0)))
        row, col = min(4, max(0, row + dr)), min(4, max(0, col + dc))
        walk.append(Cell(row=row, col=col))
    return walk


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant_id=st.sampled_from(["poker-squares", "serpent-patience"]),
    deck=st.permutations(STANDARD_DECK),
    rnd=st.randoms(use_true_random=False),
    shape=st.sampled_from(["free", "permutation", "path"]),
    cells=st.lists(_PLACEMENT_CELLS, max_size=27),
    length=st.integers(min_value=0, max_value=27),
    dealt=st.booleans(),
    cut=st.integers(min_value=20, max_value=52),
)
def test_placement_replay_in_one_pass_is_move_by_move_play(
    variant_id: str,
    deck: list[Card],
    rnd: random.Random,
    shape: str,
    cells: list[Cell],
    length: int,
    dealt: bool,
    cut: int,
) -> None:
    """A placement game's whole-log replay (one pass when every move is plainly legal)
    ends as playing each move does: the same cells and log, or the same refusal (a
    ``dealt`` game's cards are not checked: it may hold fewer than 25)."""
    cls = variant(variant_id)
    if dealt:
        deck = deck[:cut]
    if shape == "permutation":  # every cell once: legal in poker-squares, seldom a path
        board = [Cell(row=i // 5, col=i % 5) for i in range(25)]
        rnd.shuffle(board)
        log = board[: min(length, 25)]
    elif shape == "path":
        log = _path_from(rnd, max(1, length))
    else:
        log = cells
    game = cls.new(deck) if not dealt else cls(deck, cls.parse_options(None))
    refusal: IllegalMove | None = None
    for move in log:
        try:
            game.play(move)
        except IllegalMove as error:
            refusal = error
            break
    event(f"{variant_id} {shape}: {'refused' if refusal else 'legal'}")
    if refusal is not None:
        with pytest.raises(IllegalMove) as raised:
            cls.replay(deck, None, log, dealt=dealt)
        assert (raised.value.code, raised.value.move_index, str(raised.value)) == (
            refusal.code,
            refusal.move_index,
            str(refusal),
        )
        return
    replayed: Any = cls.replay(deck, None, iter(log), dealt=dealt)
    assert replayed.cells == cast(Any, game).cells
    assert replayed.moves == game.moves
    assert replayed.is_over() == game.is_over()
    if game.is_complete():
        assert replayed.score() == game.score()


@pytest.mark.parametrize("variant_id", ["poker-squares", "serpent-patience"])
def test_placement_replay_of_a_dealt_hand_too_short(variant_id: str) -> None:
    """A ``dealt`` hand is not checked, so a log longer than it is refused at the first
    move with no card left, in one pass as move by move."""
    cls = variant(variant_id)
    snake = [Cell(row=r, col=c if r % 2 == 0 else 4 - c) for r in range(5) for c in range(5)]
    with pytest.raises(IllegalMove) as raised:
        cls.replay(STANDARD_DECK[:24], None, snake, dealt=True)
    assert (raised.value.code, raised.value.move_index) == ("game-over", 24)
