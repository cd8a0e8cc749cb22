"""reserve-poker: the reserve variant of Repeat Poker (docs/rules.md sections 1 and 6).

The checks here lean on a small model written from the rules text alone (round-robin
columns, gravity, the face-up rule) and on a reference hand evaluator that tries every
card for the joker, so the engine is compared with something it does not share code
with.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardproof.cards import JOKER, JOKER_DECK, STANDARD_DECK, Card, parse_cards
from cardproof.deal import draws, standard_deck
from cardproof.errors import IllegalMove, ParseError, RuleError
from cardproof.games.grid import DIAGONAL_LINES, ROW_AND_COLUMN_LINES, Cell, GridGame
from cardproof.games.reserve_poker import (
    MOVES_BY_TEXT,
    ReserveMove,
    ReserveOptions,
    ReservePoker,
    ReserveView,
)
from cardproof.hands import TABLES, Score
from reference_hands import ref_category

SEED = bytes(range(32))
VERSIONS = (1, 2, 3, 4, 5, 6)

# docs/rules.md section 1, the `reserve` column, typed in from the document
RESERVE_POINTS = {
    "royal-flush": 30,
    "five-of-a-kind": 28,
    "straight-flush": 24,
    "four-of-a-kind": 20,
    "full-house": 18,
    "flush": 14,
    "straight": 10,
    "three-of-a-kind": 8,
    "two-pair": 4,
    "one-pair": 2,
    "high-card": 0,
}
CATEGORY_ORDER = [
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
LINE_NAMES = [
    *(f"row {r}" for r in range(1, 6)),
    *(f"col {c}" for c in "abcde"),
    "diagonal \\",
    "diagonal /",
]


def mv(text: str) -> ReserveMove:
    return ReservePoker.parse_move(text)


def texts(cards: Sequence[Card]) -> list[str]:
    return [c.text for c in cards]


def seeded_deal(client_seed: str = "alice") -> tuple[Card, ...]:
    return ReservePoker.deal_cards(SEED, client_seed, ReserveOptions())


# --- an independent model of the rules --------------------------------------------


class Model:
    """The rules of docs/rules.md section 6, written out plainly."""

    def __init__(self, deck: Sequence[Card], version: int) -> None:
        self.version = version
        self.columns = [[deck[i] for i in range(53) if i % 4 == f] for f in range(4)]
        self.grid: list[list[Card | None]] = [[None] * 5 for _ in range(5)]

    def play(self, f: int, c: int) -> Card:
        card = self.columns[f].pop()  # the bottom: the last dealt
        row = max(r for r in range(5) if self.grid[r][c] is None)  # lowest empty cell
        self.grid[row][c] = card
        return card

    def face_up(self, column: list[Card]) -> list[Card]:
        if self.version == 5:
            return list(column)
        if self.version == 6:
            return []
        return column[-self.version :]

    def face_down(self) -> list[Card]:
        down = []
        for column in self.columns:
            up = self.face_up(column)
            down.extend(column[: len(column) - len(up)])
        return down

    def legal(self) -> set[tuple[int, int]]:
        return {
            (f, c) for f in range(4) if self.columns[f] for c in range(5) if self.grid[0][c] is None
        }

    def view(self) -> ReserveView:
        reserve = []
        for column in self.columns:
            up = self.face_up(column)
            hidden = len(column) - len(up)
            shown: list[str | None] = [None] * hidden
            shown.extend(texts(up))
            reserve.append(tuple(shown))
        grid = tuple(tuple(c.text if c else None for c in row) for row in self.grid)
        return ReserveView(grid=grid, reserve=tuple(reserve), version=self.version)


def reference_best(cards: Sequence[Card]) -> str:
    """The joker tried as each of the 52 cards; the most points, ties to the higher category."""
    fixed = [(c.rank, c.suit) for c in cards if not c.is_joker]
    if len(fixed) == 5:
        return ref_category(fixed)
    found = {ref_category([*fixed, (r, s)]) for r in range(13) for s in range(4)}
    return max(found, key=lambda cat: (RESERVE_POINTS[cat], CATEGORY_ORDER.index(cat)))


def reference_lines(grid: Sequence[Sequence[Card | None]]) -> list[list[Card]]:
    """The 12 scored lines of a full grid: rows, columns, both long diagonals."""
    cells: list[Card] = []
    for row in grid:
        for card in row:
            assert card is not None
            cells.append(card)
    rows = [cells[5 * r : 5 * r + 5] for r in range(5)]
    cols = [cells[c::5] for c in range(5)]
    return [*rows, *cols, [cells[6 * i] for i in range(5)], [cells[4 + 4 * i] for i in range(5)]]


def reference_total(grid: Sequence[Sequence[Card | None]]) -> int:
    return sum(RESERVE_POINTS[reference_best(line)] for line in reference_lines(grid))


def deal_for(rows: Sequence[str]) -> tuple[list[Card], list[ReserveMove]]:
    """A deal and a 25-move log that build exactly this grid (rows top to bottom).

    Placement ``p`` drops into grid column ``p % 5``, so the grid fills bottom row first;
    the first 14 cards come from reserve column 0 (deck positions 52, 48, ..., 0), the
    other 11 from column 1 (49, 45, ...). The remaining cards fill the rest in order.
    """
    wanted = [Card.parse(t) for row in rows for t in row.split()]
    assert len(wanted) == 25
    order = [wanted[(4 - p // 5) * 5 + p % 5] for p in range(25)]
    positions = [52 - 4 * p for p in range(14)] + [49 - 4 * k for k in range(11)]
    deck: list[Card | None] = [None] * 53
    for position, card in zip(positions, order, strict=True):
        deck[position] = card
    rest = iter([c for c in JOKER_DECK if c not in set(wanted)])
    cards = [card if card is not None else next(rest) for card in deck]
    moves = [mv(f"{0 if p < 14 else 1}>{p % 5}") for p in range(25)]
    return cards, moves


# --- deck, deal, options ------------------------------------------------------------


def test_class_attributes() -> None:
    assert ReservePoker.id == "reserve-poker"
    assert ReservePoker.title == "Repeat Poker, the reserve variant"
    assert ReservePoker.information == "hidden"
    assert (ReservePoker.deck_type, ReservePoker.cards_used) == ("joker-53", 53)
    assert issubclass(ReservePoker, GridGame)
    description = ReservePoker.description
    for phrase in ("Decision", "round-robin", "column 0 gets 14", "wild", "open deal", "5x5"):
        assert phrase in description


def test_round_robin_deal_canonical_order() -> None:
    game = ReservePoker.new(JOKER_DECK, {"version": 5})
    view = game.visible()
    assert [len(column) for column in view.reserve] == [14, 13, 13, 13]
    for f in range(4):
        assert list(view.reserve[f]) == texts(JOKER_DECK[f::4])
    assert view.reserve[0][-1] == "JK"  # card 52 goes to column 52 % 4 == 0, last
    assert view.reserve[1][-1] == "QS"  # card 49
    assert view.grid == ((None,) * 5,) * 5


def test_seeded_deal_is_the_joker_deck() -> None:
    cards = seeded_deal()
    assert cards == standard_deck(SEED, "alice", jokers=True)
    assert len(cards) == 53
    assert set(cards) == set(JOKER_DECK)
    assert cards != seeded_deal("bob")
    # the version does not change the deal (the die roll has its own stream)
    for version in (*VERSIONS, "random"):
        assert ReservePoker.deal_cards(SEED, "alice", ReserveOptions(version=version)) == cards
    game = ReservePoker.new(cards, {"version": 5})
    for f in range(4):
        assert list(game.visible().reserve[f]) == texts(cards[f::4])


def test_check_cards_allows_the_joker_refuses_duplicates_and_short_decks() -> None:
    ReservePoker.check_cards(JOKER_DECK)
    ReservePoker.new(list(reversed(JOKER_DECK)))
    with pytest.raises(RuleError) as duplicate:
        ReservePoker.new([*JOKER_DECK[:52], JOKER_DECK[3]])
    assert (duplicate.value.code, duplicate.value.field) == ("duplicate-card", "deal.cards[52]")
    with pytest.raises(RuleError) as short:
        ReservePoker.new(STANDARD_DECK)
    assert short.value.code == "too-few-cards"


def test_options() -> None:
    assert ReservePoker.parse_options(None) == ReserveOptions(version=1)
    assert ReservePoker.parse_options({"version": 4}).version == 4
    assert ReservePoker.parse_options({"version": "random"}).version == "random"
    assert msgspec.to_builtins(ReserveOptions()) == {"version": 1}
    options = ReserveOptions(version=3)
    assert options.table == TABLES["reserve"]
    assert options.diagonals is True
    for bad in ({"version": 0}, {"version": 7}, {"version": "dice"}, {"version": True}):
        with pytest.raises(RuleError) as error:
            ReservePoker.parse_options(bad)
        assert (error.value.code, error.value.field) == ("bad-option", "options.version")
    with pytest.raises(RuleError) as direct:  # a struct built directly is not validated
        ReservePoker.new(JOKER_DECK, ReserveOptions(version=9))
    assert (direct.value.code, direct.value.field) == ("bad-option", "options.version")
    with pytest.raises(RuleError) as unknown:
        ReservePoker.parse_options({"scoring": "american"})
    assert (unknown.value.code, unknown.value.field) == ("unknown-option", "options.scoring")


def test_random_version_resolves_from_the_seeds() -> None:
    random_options = ReserveOptions(version="random")
    rolled = ReservePoker.resolve_options(random_options, SEED, "alice")
    assert rolled.version in VERSIONS
    assert ReservePoker.resolve_options({"version": "random"}, SEED, "alice") == rolled
    expected = draws(SEED, "alice", "joker-53", "version").below(6) + 1
    assert rolled.version == expected
    seen = {
        ReservePoker.resolve_options(random_options, SEED, f"player {i}").version
        for i in range(120)
    }
    assert seen == set(VERSIONS)
    # a chosen version needs no seeds and stays as it is
    chosen = ReserveOptions(version=6)
    assert ReservePoker.resolve_options(chosen, None, None) is chosen
    assert ReservePoker.resolve_options(None, None, None) == ReserveOptions(version=1)


@pytest.mark.parametrize(("server_seed", "client_seed"), [(None, None), (SEED, None), (None, "a")])
def test_random_version_needs_seeds(server_seed: bytes | None, client_seed: str | None) -> None:
    with pytest.raises(RuleError) as error:
        ReservePoker.resolve_options({"version": "random"}, server_seed, client_seed)
    assert (error.value.code, error.value.field) == ("random-needs-seeds", "options.version")


def start_random(way: str) -> ReservePoker:
    if way == "new":
        return ReservePoker.new(JOKER_DECK, {"version": "random"})
    if way == "replay":
        return ReservePoker.replay(JOKER_DECK, ReserveOptions(version="random"), [])
    return ReservePoker(JOKER_DECK, ReserveOptions(version="random"))


@pytest.mark.parametrize("way", ["new", "replay", "constructor"])
def test_a_game_never_runs_with_version_random(way: str) -> None:
    with pytest.raises(RuleError) as error:
        start_random(way)
    assert (error.value.code, error.value.field) == ("random-needs-seeds", "options.version")


# --- moves and their text -------------------------------------------------------------


def test_move_text_round_trip() -> None:
    assert len(MOVES_BY_TEXT) == 20
    for text, move in MOVES_BY_TEXT.items():
        assert re.fullmatch(ReservePoker.move_token, text)
        assert ReservePoker.move_text(move) == text
        assert ReservePoker.parse_move(text) is move
        assert ReservePoker.move_from_text(f" {text} ", 0) is move
    assert mv("0>4") == ReserveMove(from_=0, to=4)
    assert msgspec.json.encode(ReserveMove(from_=2, to=3)) == b'{"from":2,"to":3}'
    assert msgspec.json.decode(b'{"from":2,"to":3}', type=ReserveMove) == mv("2>3")
    assert ReservePoker.move_from_object({"from": 1, "to": 0}, 0) == mv("1>0")
    assert ReservePoker.move_from_object(mv("3>4"), 0) == mv("3>4")
    for text in ("4>0", "0>5", "-1>0", "04", "0-4", "0 > 4", "", "a1"):
        assert not re.fullmatch(ReservePoker.move_token, text)
        with pytest.raises(ParseError):
            ReservePoker.parse_move(text)
    with pytest.raises(ParseError):
        ReservePoker.parse_move(4)  # type: ignore[arg-type]


def test_log_round_trip() -> None:
    rng = random.Random(7)
    game = ReservePoker.new(seeded_deal(), {"version": 2})
    while not game.is_over():
        game.play(rng.choice(game.legal_moves()))
    log = game.log_text()
    assert len(log.split()) == 25
    assert ReservePoker.parse_log(log) == list(game.moves)
    assert ReservePoker.format_log(ReservePoker.parse_log(f"  {log}\n")) == log
    objects = [msgspec.to_builtins(m) for m in game.moves]
    assert objects[0].keys() == {"from", "to"}
    assert [ReservePoker.move_from_object(o, i) for i, o in enumerate(objects)] == list(game.moves)


@pytest.mark.parametrize(
    ("obj", "index"),
    [({"from": 0}, 2), ({"from": 0, "to": 1, "row": 1}, 0), ({"from": "0", "to": 1}, 5), ([], 1)],
)
def test_wrong_move_shape(obj: Any, index: int) -> None:
    with pytest.raises(IllegalMove) as error:
        ReservePoker.move_from_object(obj, index)
    assert (error.value.code, error.value.move_index) == ("wrong-move-shape", index)


def test_wrong_token_in_a_log() -> None:
    with pytest.raises(IllegalMove) as error:
        ReservePoker.parse_log("0>1 1>2 9>9 2>2")
    assert (error.value.code, error.value.move_index) == ("wrong-move-shape", 2)


# --- the rules --------------------------------------------------------------------------


def test_only_the_bottom_card_is_taken() -> None:
    cards = seeded_deal()
    game = ReservePoker.new(cards, {"version": 5})
    game.play(mv("1>0"))
    view = game.visible()
    assert view.grid[4][0] == cards[49].text  # column 1's last-dealt card
    assert list(view.reserve[1]) == texts(cards[1:49:4])
    game.play(mv("1>1"))
    assert game.visible().grid[4][1] == cards[45].text
    game.play(mv("0>0"))
    assert game.visible().grid[3][0] == cards[52].text


def test_gravity_and_the_column_full_limit() -> None:
    cards = seeded_deal()
    game = ReservePoker.new(cards, {"version": 1})
    order = ["0>3", "1>3", "2>3", "3>3", "0>3"]
    bottoms = [cards[52], cards[49], cards[50], cards[51], cards[48]]
    for i, text in enumerate(order):
        game.play(mv(text))
        column = [row[3] for row in game.visible().grid]
        assert column == [None] * (4 - i) + [c.text for c in reversed(bottoms[: i + 1])]
    assert [row[3] for row in game.visible().grid] == texts(bottoms[::-1])
    assert all(move.to != 3 for move in game.legal_moves())
    with pytest.raises(IllegalMove) as error:
        game.play(mv("1>3"))
    assert (error.value.code, error.value.move_index) == ("column-full", 5)
    assert error.value.field == "moves[5]"
    assert len(game.moves) == 5  # the refused move changed nothing
    game.play(mv("1>4"))
    assert game.visible().grid[4][4] == cards[45].text


def test_build_a_grid_with_the_helper() -> None:
    rows = [
        "2C 3C 4C 5C 6C",
        "2D 3D 4D 5D 6D",
        "2H 3H JK 5H 6H",
        "2S 3S 4S 5S 6S",
        "7C 7D 7H 7S 8C",
    ]
    cards, moves = deal_for(rows)
    game = ReservePoker.replay(cards, None, moves)
    assert [" ".join(str(t) for t in row) for row in game.visible().grid] == rows


def error_of(moves: Sequence[ReserveMove], version: int = 1) -> IllegalMove:
    with pytest.raises(IllegalMove) as error:
        ReservePoker.replay(seeded_deal(), {"version": version}, moves)
    return error.value


EMPTY_COLUMN_3 = [mv(f"3>{i % 5}") for i in range(13)]
FULL_GRID = [mv(f"{i % 4}>{i % 5}") for i in range(25)]


@pytest.mark.parametrize(
    ("moves", "code", "index"),
    [
        ([ReserveMove(from_=4, to=0)], "off-board", 0),
        ([mv("0>0"), ReserveMove(from_=-1, to=0)], "off-board", 1),
        ([mv("0>0"), mv("1>1"), ReserveMove(from_=2, to=5)], "off-board", 2),
        ([ReserveMove(from_=0, to=-1)], "off-board", 0),
        ([*EMPTY_COLUMN_3, mv("3>0")], "reserve-empty", 13),
        ([*[mv("0>1")] * 5, mv("2>1")], "column-full", 5),
        ([*FULL_GRID, mv("0>0")], "game-over", 25),
        ([*FULL_GRID, ReserveMove(from_=9, to=9)], "game-over", 25),
    ],
)
def test_error_codes_with_move_index(moves: list[ReserveMove], code: str, index: int) -> None:
    error = error_of(moves)
    assert (error.code, error.move_index, error.field) == (code, index, f"moves[{index}]")
    # the same through play(): the state is left as it was
    game = ReservePoker.new(seeded_deal(), {"version": 1})
    for move in moves[:-1]:
        game.play(move)
    before = game.visible()
    with pytest.raises(IllegalMove) as played:
        game.play(moves[-1])
    assert (played.value.code, played.value.move_index) == (code, index)
    assert game.visible() == before
    assert len(game.moves) == index


def test_a_move_of_another_variant_is_refused() -> None:
    game = ReservePoker.new(JOKER_DECK)
    with pytest.raises(IllegalMove) as error:
        game.play(Cell(row=0, col=0))  # type: ignore[arg-type]
    assert error.value.code == "wrong-move-shape"


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_face_up_count_is_kept_after_each_take(version: int) -> None:
    cards = seeded_deal("face up")
    game = ReservePoker.new(cards, {"version": version})
    column = list(cards[0::4])
    for take in range(14):
        shown = game.visible().reserve[0]
        assert len(shown) == len(column)
        up = min(version, len(column))
        assert shown[len(column) - up :] == tuple(texts(column[len(column) - up :]))
        assert shown[: len(column) - up] == (None,) * (len(column) - up)
        game.play(mv(f"0>{take % 5}"))
        taken = column.pop()
        assert taken.text in [t for row in game.visible().grid for t in row]
        if len(column) >= version:  # the lowest face-down card was turned face up
            assert game.visible().reserve[0][len(column) - version] == column[-version].text
    assert game.visible().reserve[0] == ()
    assert all(move.from_ != 0 for move in game.legal_moves())
    for f in (1, 2, 3):  # the untouched columns keep their bottom `version` cards up
        shown = game.visible().reserve[f]
        assert shown == (None,) * (13 - version) + tuple(texts(cards[f::4][13 - version :]))


def test_version_5_all_face_up_version_6_all_face_down() -> None:
    cards = seeded_deal("open and shut")
    rng = random.Random(5)
    open_game = ReservePoker.new(cards, {"version": 5})
    shut_game = ReservePoker.new(cards, {"version": 6})
    while not open_game.is_over():
        open_view, shut_view = open_game.visible(), shut_game.visible()
        assert all(text is not None for column in open_view.reserve for text in column)
        assert all(text is None for column in shut_view.reserve for text in column)
        assert open_view.grid == shut_view.grid
        assert [len(c) for c in open_view.reserve] == [len(c) for c in shut_view.reserve]
        move = rng.choice(open_game.legal_moves())
        open_game.play(move)
        shut_game.play(move)
    assert shut_game.visible().version == 6
    assert sum(len(c) for c in shut_game.visible().reserve) == 28
    assert open_game.score() == shut_game.score()


# --- the end and the score -------------------------------------------------------------


def test_incomplete_logs_are_not_scored() -> None:
    for n in (0, 1, 24):
        game = ReservePoker.replay(seeded_deal(), None, FULL_GRID[:n])
        assert not game.is_over()
        assert not game.is_complete()
        assert game.legal_moves()
        with pytest.raises(RuleError) as error:
            game.score()
        assert (error.value.code, error.value.field) == ("incomplete", "moves")
        assert f"{n} moves" in error.value.message


def test_the_end_after_25_cards() -> None:
    game = ReservePoker.replay(seeded_deal(), None, FULL_GRID)
    assert game.is_over()
    assert game.is_complete()
    assert game.legal_moves() == []
    assert sum(len(column) for column in game.visible().reserve) == 28
    with pytest.raises(IllegalMove) as error:
        game.play(mv("0>0"))
    assert (error.value.code, error.value.move_index) == ("game-over", 25)
    score = game.score()
    assert [hand.line for hand in score.hands] == LINE_NAMES


JOKER_HANDS = [
    ("2C 5D JK 9H KS", "one-pair"),
    ("2C 2D JK 9H KS", "three-of-a-kind"),
    ("5C 6D JK 8H 9S", "straight"),
    ("AC 2D JK 4H 5S", "straight"),  # the joker as a 3, the ace low
    ("2H 5H JK 9H KH", "flush"),
    ("KC KD JK 9H 9S", "full-house"),  # two pair + joker: never two pair
    ("KC KD JK KH 9S", "four-of-a-kind"),
    ("5H 6H JK 8H 9H", "straight-flush"),
    ("KH QH JK TH AH", "royal-flush"),
    ("TS JS JK KS AS", "royal-flush"),  # the joker as QS
    ("KS QS JK TS 9S", "straight-flush"),  # the joker as JS: 9..K
    ("KS JS JK TS QS", "royal-flush"),  # AS (30) beats 9S (a straight flush, 24)
    ("AC AD JK AH AS", "five-of-a-kind"),
    ("7C 7D JK 7H 7S", "five-of-a-kind"),
]


@pytest.mark.parametrize(("hand", "category"), JOKER_HANDS)
def test_the_joker_is_wild_in_every_category(hand: str, category: str) -> None:
    """The joker in the centre cell is in row 3, col 3 and both diagonals."""
    held = set(hand.split())
    others = [c.text for c in STANDARD_DECK if c.text not in held]
    rng = random.Random(hand)
    rng.shuffle(others)
    rows = [" ".join(others[5 * r : 5 * r + 5]) for r in range(4)]
    rows.insert(2, hand)
    cards, moves = deal_for(rows)
    game = ReservePoker.replay(cards, {"version": 6}, moves)
    score = game.score()
    assert len(score.hands) == 12
    by_line = {h.line: h for h in score.hands}
    row = by_line["row 3"]
    assert (row.cards, row.category, row.points) == (
        tuple(hand.split()),
        category,
        RESERVE_POINTS[category],
    )
    grid = [parse_cards(r.split()) for r in rows]
    for name, line in zip(LINE_NAMES, reference_lines(grid), strict=True):
        assert by_line[name].category == reference_best(line), name
    assert score.total == reference_total(grid)
    for name in ("col c", "diagonal \\", "diagonal /"):
        assert "JK" in by_line[name].cards
    assert score == ReservePoker.score_layout(
        [c for r in grid for c in r], ReserveOptions(version=2)
    )


def test_twelve_hands_without_the_joker() -> None:
    rows = [
        "AS KS QS JS TS",
        "2C 3C 4C 5C 6C",
        "9D 9H 9C 9S 2D",
        "7H 7D 7C 4D 4H",
        "3S 8S 5S 6S 2S",
    ]
    cards, moves = deal_for(rows)
    score = ReservePoker.replay(cards, None, moves).score()
    categories = {h.line: h.category for h in score.hands}
    assert categories["row 1"] == "royal-flush"
    assert categories["row 2"] == "straight-flush"
    assert categories["row 3"] == "four-of-a-kind"
    assert categories["row 4"] == "full-house"
    assert categories["row 5"] == "flush"
    assert [categories[f"diagonal {d}"] for d in "\\/"] == ["high-card", "high-card"]
    assert score.total == reference_total([parse_cards(r.split()) for r in rows])


def test_score_layout_scores_the_diagonals() -> None:
    cells = [*JOKER_DECK[:24], JOKER]
    score = ReservePoker.score_layout(cells, ReservePoker.parse_options({"version": "random"}))
    assert [h.line for h in score.hands] == LINE_NAMES
    assert score.hands[-2].line == DIAGONAL_LINES[0][0]
    assert [h.line for h in score.hands[:10]] == [name for name, _ in ROW_AND_COLUMN_LINES]


# --- every version, any legal policy, any seed ---------------------------------------------


def check_view(game: ReservePoker, model: Model) -> None:
    view = game.visible()
    assert view == model.view()
    encoded = msgspec.json.encode(view).decode()
    assert encoded.startswith('{"kind":"reserve"')
    for card in model.face_down():
        assert f'"{card.text}"' not in encoded, (len(game.moves), card)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    server_seed=st.binary(min_size=32, max_size=32),
    client_seed=st.text(
        st.characters(codec="utf-8", exclude_characters="\0"), min_size=1, max_size=40
    ),
    version=st.sampled_from([*VERSIONS, "random"]),
    rnd=st.randoms(use_true_random=False),
)
def test_any_legal_game_replays_to_the_same_score(
    server_seed: bytes, client_seed: str, version: int | str, rnd: random.Random
) -> None:
    options = ReservePoker.resolve_options({"version": version}, server_seed, client_seed)
    assert options.version in VERSIONS
    assert version == "random" or options.version == version
    cards = ReservePoker.deal_cards(server_seed, client_seed, options)
    game = ReservePoker.new(cards, options)
    assert isinstance(options.version, int)
    model = Model(cards, options.version)
    while not game.is_over():
        check_view(game, model)
        legal = game.legal_moves()
        assert legal, "the player can never get stuck before 25 cards"
        assert {(m.from_, m.to) for m in legal} == model.legal()
        move = rnd.choice(legal)
        game.play(move)
        model.play(move.from_, move.to)
    check_view(game, model)
    assert len(game.moves) == 25
    assert game.legal_moves() == []
    score = game.score()
    assert score.total == reference_total(model.grid)
    replayed = ReservePoker.replay(cards, options, ReservePoker.parse_log(game.log_text()))
    assert replayed.score() == score
    assert isinstance(score, Score)
    objects = [msgspec.to_builtins(m) for m in game.moves]
    again = ReservePoker.replay(
        cards,
        msgspec.to_builtins(options),
        [ReservePoker.move_from_object(o, i) for i, o in enumerate(objects)],
    )
    assert again.score() == score
    assert again.visible() == game.visible()
