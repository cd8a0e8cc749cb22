"""Hindsight par of poker-squares and poker-patience: answers verify, bounds hold.

``solve`` is the exact search (its pieces are checked in ``test_exact_par.py``); the
CP-SAT relaxation is its fallback and the answer without the compiled kernel. That
relaxation's bound rests on one lemma per line (a line is worth at most high card plus
the best core inside it), checked here by brute force over every five cards of several
deals under several tables, and on the grid rules of the relaxation, checked by every
grid the searches find never beating the bound; the relaxation also runs on its own (its
two models, and ``solve`` without the kernel) on tables where high card scores and on
nine cards of a suit (two flush lines), a bound below a known grid being unsound.
Special tables whose optimum is known by counting (quads, flushes) must be solved *and
proven*. The poker-patience layer's backtracking is checked against a brute force over
all row and column orders.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from cardproof.cards import STANDARD_DECK, Card
from cardproof.games import Game, PokerPatience, PokerSquares
from cardproof.hands import TABLES, PointTable
from cardproof.solvers import hindsight
from cardproof.solvers.hindsight import SIZE, _cores, _Scorer, hill_climb, patience_moves, solve

Client = TestClient[Any]


def deal_of(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck[:25]


def table_of(points: dict[str, int]) -> PointTable:
    return PointTable.custom(points)


NEGATIVE = table_of(
    {"high-card": 7, "one-pair": -5, "two-pair": 12, "three-of-a-kind": -20, "straight": 30}
    | {"flush": -3, "full-house": 44, "four-of-a-kind": -60, "straight-flush": 90}
)


# --- the lemma, by brute force ----------------------------------------------------------


@pytest.mark.parametrize("table", [TABLES["american"], TABLES["british"], NEGATIVE])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_line_of_a_deal_is_worth_at_most_its_best_core(table: PointTable, seed: int) -> None:
    deal = deal_of(seed)
    points = table.points
    credit = {frozenset(core.cards): core.value for core in _cores(deal, points)}
    scorer = _Scorer(points)
    checked = 0
    for line in itertools.combinations(deal, SIZE):
        best = max(
            (
                credit.get(frozenset(part), 0)
                for k in (2, 3, 4, 5)
                for part in itertools.combinations(line, k)
            ),
            default=0,
        )
        assert scorer.line(line) <= points[0] + best, line
        checked += 1
    assert checked == 53_130


# --- bounds against grids -----------------------------------------------------------------


def grid_score(grid: list[int], table: PointTable, *, diagonals: bool = False) -> int:
    lines = hindsight._lines(diagonals)
    return _Scorer(table.points).grid(grid, lines)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    table=st.sampled_from([TABLES["american"], TABLES["british"], NEGATIVE]),
    diagonals=st.booleans(),
)
def test_no_grid_found_beats_the_bound(seed: int, table: PointTable, diagonals: bool) -> None:
    deal = deal_of(seed)
    found = solve([Card(i) for i in deal], table, budget=0.4, diagonals=diagonals)
    assert grid_score(list(found.grid), table, diagonals=diagonals) == found.score
    assert sorted(found.grid) == sorted(deal)
    assert found.score <= found.upper_bound
    assert found.optimal == (found.score == found.upper_bound)
    rng = random.Random(seed)
    for _ in range(50):
        grid = deal[:]
        rng.shuffle(grid)
        assert grid_score(grid, table, diagonals=diagonals) <= found.upper_bound
    climbed, _ = hill_climb(deal, table.points, steps=3000, seed=seed, diagonals=diagonals)
    assert climbed <= found.upper_bound


def test_the_answer_is_at_least_what_hill_climbing_finds() -> None:
    for seed in range(3):
        deal = deal_of(100 + seed)
        found = solve([Card(i) for i in deal], TABLES["american"], budget=0.5)
        default_seed = int.from_bytes(bytes(deal), "big") % (1 << 61)
        climbed, _ = hill_climb(deal, TABLES["american"].points, seed=default_seed)
        assert found.score >= climbed


@pytest.mark.parametrize("quads", [2, 4, 5])
def test_counting_tables_are_solved_and_proven(quads: int) -> None:
    # only four of a kind scores: the best is one line per full rank, and the bound proves it
    cards = [Card(s * 13 + r) for r in range(quads) for s in range(4)]
    cards += [Card(s * 13 + r) for r in range(quads, 13) for s in range(4)][: 25 - len(cards) : 4]
    cards += [c for c in STANDARD_DECK if c not in cards and c.rank >= quads][: 25 - len(cards)]
    assert len(set(cards)) == 25
    full_ranks = sum(1 for r in range(13) if sum(c.rank == r for c in cards) == 4)
    found = solve(cards, table_of({"four-of-a-kind": 1}), budget=3)
    assert (found.score, found.upper_bound, found.optimal) == (full_ranks, full_ranks, True)


def test_a_table_where_only_high_card_scores_is_proven() -> None:
    # no category beats high card: no core, and the bound is high card ten times
    found = solve(list(STANDARD_DECK[:25]), table_of({"high-card": 3}), budget=1)
    assert (found.score, found.upper_bound, found.optimal) == (30, 30, True)


def test_flush_lines_are_counted_by_suit() -> None:
    # 8, 7, 6 and 4 cards of the four suits: one flush line per suit of five or more, and no
    # more (a second flush of a suit needs nine of its cards)
    counts = {0: 8, 1: 7, 2: 6, 3: 4}
    cards = [Card(suit * 13 + rank) for suit, n in counts.items() for rank in range(n)]
    random.Random(5).shuffle(cards)
    found = solve(cards, table_of({"flush": 1, "straight-flush": 1}), budget=3)
    assert (found.score, found.upper_bound, found.optimal) == (3, 3, True)


# --- the relaxation on its own (the answer without the kernel, and when it stalls) ------


def relaxed_bounds(deal: list[int], table: PointTable, grid: list[int]) -> list[int]:
    """The bound of each of the relaxation's two models that states one in 5 s.

    The quick model (no crossing rule) always does on these small models; the larger one
    may still be presolving on a busy machine, and then states none (a bound is the
    other's).
    """
    bounds = []
    for crossing in (False, True):
        until = time.perf_counter() + 5
        relaxed = hindsight._relax(deal, table.points, grid, until, 0, crossing=crossing)
        assert relaxed is not None or crossing
        if relaxed is not None:
            bounds.append(relaxed.bound)
    return bounds


SPARSE = st.builds(
    lambda high, extra: table_of({"high-card": high} | extra),
    st.integers(1, 60),
    st.dictionaries(
        st.sampled_from(["three-of-a-kind", "four-of-a-kind", "flush", "straight-flush"]),
        st.integers(1, 200),
        max_size=3,
    ),
)
"""Tables where high card scores: few categories above it, so CP-SAT answers at once."""


@st.composite
def suited_deals(draw: st.DrawFn) -> list[int]:
    """25 cards, ``n`` (5..10) of one suit: a suit of nine or more makes two flush lines."""
    suit, n = draw(st.integers(0, 3)), draw(st.integers(5, 10))
    ranks = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n, unique=True))
    others = [c for c in range(52) if c // 13 != suit]
    rest = draw(st.lists(st.sampled_from(others), min_size=25 - n, max_size=25 - n, unique=True))
    return sorted(suit * 13 + r for r in ranks) + rest


def two_suited_lines(deal: list[int]) -> list[int]:
    """The deal laid with its first nine cards (a suit's, by rank) in the top row and left column.

    Nine of a suit: two flush lines (straight flushes if their ranks run), sharing a card.
    """
    grid = [-1] * 25
    for cell, card in zip([1, 2, 3, 4, 0, 5, 10, 15, 20], deal, strict=False):
        grid[cell] = card
    rest = iter(deal[9:])
    return [card if card >= 0 else next(rest) for card in grid]


NINE_SPADES_TEXT = "2S 3S 4S 5S 6S 7S 8S 9S TS 2C 3C 4C 6C 7C 9C 3D 4D 6D 7D 9D 2H 4H 6H 8H TH"
NINE_SPADES = [Card.parse(text).index for text in NINE_SPADES_TEXT.split()]
"""2S..TS, and 16 cards whose suits hold no run of five: one flush line each."""
TWO_SF = table_of(
    {name: 10 for name in ("high-card", "one-pair", "two-pair", "three-of-a-kind", "straight")}
    | {"full-house": 10, "four-of-a-kind": 10, "flush": 30, "straight-flush": 100}
)
"""Every line 10 at least, a flush 30, a straight flush 100."""


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=suited_deals(), table=SPARSE)
@example(deal=NINE_SPADES, table=TWO_SF)  # two straight flushes of nine spades, crossing at 6S
def test_the_relaxation_bounds_grids_where_high_card_scores(
    deal: list[int], table: PointTable
) -> None:
    # the relaxation is an upper bound: no grid of the deal may score above it, counted
    # with high card on every line the cores leave free (ten of them)
    grids = [deal, two_suited_lines(deal), hill_climb(deal, table.points, steps=2000)[1]]
    best = max(grid_score(grid, table) for grid in grids)
    for bound in relaxed_bounds(deal, table, grids[1]):
        assert best <= bound, (best, bound)


def test_nine_cards_of_a_suit_make_two_flush_lines_in_the_relaxation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two straight flushes crossing at 6S and eight lines of 10: 280, above what one flush
    # line per suit allows (a straight flush, three flushes, high card: 250); without the
    # kernel the relaxation must allow both
    deal = NINE_SPADES
    grid = two_suited_lines(deal)
    crossed = grid_score(grid, TWO_SF)
    assert crossed == 2 * 100 + 8 * 10
    assert min(relaxed_bounds(deal, TWO_SF, grid)) >= crossed
    monkeypatch.setattr(hindsight, "compiled", lambda: None)
    found = solve([Card(i) for i in deal], TWO_SF, budget=1)
    assert found.method == "relaxation"
    assert found.score <= found.upper_bound
    assert crossed <= found.upper_bound


def test_the_relaxation_counts_high_card_on_all_ten_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # every line scores high card's points or more on these tables, so every grid scores
    # ten times them: so must the bound, with cores (trips, quads) or without any
    at_least = dict.fromkeys(
        (
            "one-pair",
            "two-pair",
            "straight",
            "flush",
            "full-house",
            "straight-flush",
            "royal-flush",
        ),
        20,
    )
    tables = [
        table_of({"high-card": 3}),
        table_of({"high-card": 20, "three-of-a-kind": 30, "four-of-a-kind": 60} | at_least),
    ]
    monkeypatch.setattr(hindsight, "compiled", lambda: None)
    for table in tables:
        for seed in (1, 3):
            deal = deal_of(seed)
            floor = 10 * table.points[0]
            assert floor <= min(relaxed_bounds(deal, table, deal))
            found = solve([Card(i) for i in deal], table, budget=0.3)
            assert found.method == "relaxation"
            assert floor <= found.score <= found.upper_bound
            if table.points[0] == 3:  # nothing above high card: proven at once
                assert (found.score, found.upper_bound, found.optimal) == (30, 30, True)


# --- poker-patience -----------------------------------------------------------------------


def legal_in_deal_order(laid: list[int], deal: list[int]) -> bool:
    where = {card: divmod(cell, SIZE) for cell, card in enumerate(laid)}
    for i in range(1, len(deal)):
        r, c = where[deal[i]]
        if not any(abs(r - where[d][0]) <= 1 and abs(c - where[d][1]) <= 1 for d in deal[:i]):
            return False
    return True


def brute_force_lays(grid: list[int], deal: list[int]) -> bool:
    for transpose in (False, True):
        base = [grid[c * SIZE + r] for r in range(SIZE) for c in range(SIZE)] if transpose else grid
        for rows in itertools.permutations(range(SIZE)):
            for cols in itertools.permutations(range(SIZE)):
                laid = [base[rows[r] * SIZE + cols[c]] for r in range(SIZE) for c in range(SIZE)]
                if legal_in_deal_order(laid, deal):
                    return True
    return False


@pytest.mark.slow
def test_patience_layering_agrees_with_brute_force() -> None:
    rng = random.Random(7)
    outcomes = set()
    for _ in range(12):
        deal = list(range(25))
        grid = deal[:]
        rng.shuffle(grid)
        if rng.random() < 0.5:  # a grid close to deal order: usually layable
            grid = deal[:]
            for _ in range(rng.randrange(1, 6)):
                i, j = rng.randrange(25), rng.randrange(25)
                grid[i], grid[j] = grid[j], grid[i]
        found = patience_moves(grid, deal)
        assert (found is not None) == brute_force_lays(grid, deal)
        outcomes.add(found is not None)
        if found is not None:
            laid, moves = found
            assert legal_in_deal_order(laid, deal)
            assert grid_score(laid, TABLES["british"]) == grid_score(grid, TABLES["british"])
            assert moves[0] == (0, 0)
    assert outcomes == {True, False}  # both answers were exercised


def laid_by_moves(deal: list[int], moves: tuple[tuple[int, int], ...]) -> list[int]:
    """The grid that laying ``deal`` at ``moves`` (offsets from the first card) makes."""
    top, left = min(r for r, _ in moves), min(c for _, c in moves)
    grid = [-1] * 25
    for card, (r, c) in zip(deal, moves, strict=True):
        grid[(r - top) * SIZE + (c - left)] = card
    return grid


def assert_scores_its_own_grid(deal: list[int], *, exact: bool) -> None:
    """A patience answer with the diagonals: its moves lay its grid, scored as it stands."""
    table = TABLES["american"]
    cards = [Card(i) for i in deal]
    found = solve(cards, table, budget=0.1, diagonals=True, patience=True, exact=exact)
    assert found.moves is not None
    assert laid_by_moves(deal, found.moves) == list(found.grid)
    assert legal_in_deal_order(list(found.grid), deal)
    assert found.score == grid_score(list(found.grid), table, diagonals=True) <= found.upper_bound


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=st.permutations(range(52)))
@example(deck=deal_of(0))
def test_a_patience_answer_with_the_diagonals_scores_its_own_grid(deck: list[int]) -> None:
    # laying a grid in deal order may reorder its rows and columns, which moves the
    # diagonals: the score is the laid grid's (it was the grid's before it was laid)
    assert_scores_its_own_grid(deck[:25], exact=True)


def test_without_the_kernel_a_patience_answer_scores_its_own_grid() -> None:
    assert_scores_its_own_grid(deal_of(1), exact=False)


# --- over HTTP --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("poker-squares", {}),
        ("poker-squares", {"diagonals": True}),
        ("poker-squares", {"scoring": {"flush": 3, "one-pair": -1}}),
        ("poker-patience", {}),
    ],
)
def test_solve_answers_verify_on_the_cards(
    client: Client, variant: str, options: dict[str, Any]
) -> None:
    cards = [Card(i).text for i in deal_of(11)]
    answer = client.post(
        "/v1/solve", json={"variant": variant, "cards": cards, "options": options, "budget": 0.6}
    )
    assert answer.status_code == 200, answer.text
    solution = answer.json()
    assert solution["score"]["total"] <= solution["upper_bound"]
    assert solution["budget"] == 0.6
    assert 0 < solution["seconds"] <= 0.6 + 0.2  # the budget is kept, measured on the server
    assert solution["method"] == "branch-and-bound"
    top = max(PokerSquares.new([Card.parse(c) for c in cards], options).options.table.points)
    assert solution["upper_bound"] < 10 * top + (2 * top if options.get("diagonals") else 0)
    for moves in (solution["moves"], solution["log"]):
        verified = client.post(
            "/v1/verify",
            json={"variant": variant, "deal": {"cards": cards}, "moves": moves, "options": options},
        )
        assert verified.status_code == 200, verified.text
        assert verified.json()["score"] == solution["score"]
    flat = [card for row in solution["layout"] for card in row]
    assert sorted(flat) == sorted(cards[:25])
    cls: type[Game[Any, Any]] = PokerPatience if variant == "poker-patience" else PokerSquares
    game = cls.new([Card.parse(c) for c in cards], options)
    for i, move in enumerate(solution["moves"]):
        game.play(game.move_from_object(move, i))
    assert game.score().total == solution["score"]["total"]


VECTORS = json.loads((Path(__file__).parent / "vectors" / "par-exact-v1.json").read_text())
"""Deals whose optimum CP-SAT proved on a model of its own (test_exact_par.py)."""


def known_optimum(table: str, seed: int) -> tuple[list[str], int]:
    """The cards and proven optimum of the vector of ``table`` and ``seed``, its points
    those of the named table the service knows by that name."""
    (vector,) = [v for v in VECTORS["vectors"] if (v["table"], v["seed"]) == (table, seed)]
    assert tuple(vector["points"]) == TABLES[table].points[:10]
    return vector["cards"], vector["optimum"]


def test_a_par_is_optimal_when_it_is_the_proven_optimum_and_not_before(client: Client) -> None:
    # a deal the search proves in well under a second: optimal, the optimum, bound met
    cards, optimum = known_optimum("american", 7)
    body = {"variant": "poker-squares", "cards": cards, "budget": 10}
    proven = client.post("/v1/solve", json=body).json()
    assert (proven["score"]["total"], proven["upper_bound"], proven["optimal"]) == (
        optimum,
        optimum,
        True,
    )
    assert proven["seconds"] < 10  # it stopped at the proof, not at the budget
    # one it cannot prove in 30 s (its bound stays above the optimum): in half a second
    # it is no optimum, whatever grid it found, and neither side passes the true optimum
    cards, optimum = known_optimum("british", 2)
    body = {"variant": "poker-squares", "cards": cards, "options": {"scoring": "british"}}
    unproven = client.post("/v1/solve", json={**body, "budget": 0.5}).json()
    assert unproven["optimal"] is False
    assert unproven["score"]["total"] <= optimum < unproven["upper_bound"]


def test_solve_refuses_a_drawn_system_and_a_long_budget(client: Client) -> None:
    cards = [Card(i).text for i in deal_of(12)]
    drawn = client.post(
        "/v1/solve",
        json={"variant": "poker-squares", "cards": cards, "options": {"scoring": "ameritish"}},
    )
    assert drawn.status_code == 422, drawn.text
    assert (drawn.json()["code"], drawn.json()["field"]) == (
        "generated-needs-seeds",
        "options.scoring",
    )
    long = client.post(
        "/v1/solve", json={"variant": "poker-patience", "cards": cards, "budget": 11}
    )
    assert long.status_code == 400, long.text
    assert "budget" in long.json()["detail"]
