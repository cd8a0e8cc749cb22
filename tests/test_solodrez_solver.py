"""The SoloDrez solver (docs/rules.md sections 7, 10) against hand-built deals, the engine and a
brute force.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from cardproof.cards import Card
from cardproof.games.solodrez import MAX_MOVES, SoloDrez, SoloDrezMove
from cardproof.pokerdrez import NEUTRAL, POKERDREZ_DECK, parse_pokerdrez_cards
from cardproof.solvers.solodrez import (
    ColumnInfo,
    SearchResult,
    _apply,
    _shorten,
    solve,
)

OPTIONS = SoloDrez.parse_options(None)

CardColumns = Sequence[Sequence[Card]]


def columns(*rows: str) -> list[list[Card]]:
    return [parse_pokerdrez_cards(row.split()) for row in rows]


def seeded(i: int) -> tuple[Card, ...]:
    return SoloDrez.deal_cards(bytes([i]) * 32, "solver-test", OPTIONS)


def texts(solution: SearchResult) -> list[str]:
    return [SoloDrez.move_text(move) for move in solution.moves]


def figure(card: Card) -> int:
    return POKERDREZ_DECK[card.index].figure


def key(position: CardColumns) -> tuple[tuple[int, ...], ...]:
    """Figures by column, columns sorted: colours and column order never matter."""
    return tuple(sorted(tuple(figure(card) for card in column) for column in position))


def brute_force(position: CardColumns) -> tuple[bool, int]:
    """(winnable, canonical positions reached) by a plain DFS over the engine's own moves.

    The engine lists the legal removes and transfers of each position; a move is then
    made by hand on tuples of cards. Positions are deduplicated by :func:`key`.
    """
    engine = SoloDrez.from_columns(position)
    start = tuple(tuple(column) for column in position)
    seen = {key(start)}
    stack = [start]
    while stack:
        cols = stack.pop()
        if all(figure(card) == NEUTRAL for column in cols for card in column):
            return True, len(seen)
        engine.columns = [list(column) for column in cols]
        for move in [*engine.removes(), *engine.transfers()]:
            after = list(cols)
            if move.remove is not None:
                after[move.remove] = ()
            else:
                assert move.from_ is not None
                assert move.count is not None
                assert move.to is not None
                after[move.to] = cols[move.to] + cols[move.from_][-move.count :]
                after[move.from_] = cols[move.from_][: -move.count]
            if key(after) not in seen:
                seen.add(key(after))
                stack.append(tuple(after))
    return False, len(seen)


def plays_to_a_win(position: CardColumns, moves: Sequence[SoloDrezMove]) -> bool:
    game = SoloDrez.from_columns(position)
    for move in moves:
        game.play(move)  # raises on an illegal move
    return game.won


# --- hand-built deals ---------------------------------------------------------------------

# Seven columns hold a series each (P3 and P4 swapped: colours never matter); columns 0
# and 1 hold a series on or around a neutral. Fewest moves to win: 9 removes, one move
# of 0's series into an empty column, two to get X2 out from under B2 N2 P2.
EASY = columns(
    "X1 J1 Q1 T1 B1 N1 P1",
    "J2 Q2 T2 X2 B2 N2 P2",
    "J3 Q3 T3 B3 N3 P4",
    "J4 Q4 T4 B4 N4 P3",
    "J5 Q5 T5 B5 N5 P5",
    "J6 Q6 T6 B6 N6 P6",
    "J7 Q7 T7 B7 N7 P7",
    "J8 Q8 T8 B8 N8 P8",
    "J9 Q9 T9 B9 N9 P9",
)

# Every column ends in a Pawn and none is a clean series: nothing can move at all.
STUCK = columns(
    "X1 J1 Q1 T1 B1 N1 P1",
    "X2 J2 Q2 T2 B2 N2 P2",
    *(f"Q{c} J{c} T{c} B{c} N{c} P{c}" for c in range(3, 10)),
)


def test_a_deal_won_in_a_few_moves() -> None:
    deck = SoloDrez.deal_of(EASY)
    game = SoloDrez.new(deck)
    solution = solve(game)
    assert solution.result == "won"
    assert 12 <= len(solution.moves) <= 14, texts(solution)
    assert solution.moves[-1].remove is not None
    replayed = SoloDrez.replay(deck, None, solution.moves)
    assert replayed.won
    assert replayed.score().series_removed == 9
    assert solution.states_searched >= 1
    assert solution.seconds < 1.0


def test_a_deal_with_no_move_is_lost() -> None:
    game = SoloDrez.new(SoloDrez.deal_of(STUCK))
    assert game.is_over()
    assert not game.won
    solution = solve(game)
    assert solution.result == "lost"
    assert solution.moves == ()
    assert solution.states_searched == 1


def test_a_real_deal_proved_lost_agrees_with_brute_force() -> None:
    # seed 233 is a shuffled deal that cannot be won: 220 positions are reachable
    game = SoloDrez.new(seeded(233))
    solution = solve(game, budget=10.0)
    assert solution.result == "lost"
    assert solution.moves == ()
    assert brute_force(game.columns) == (False, 220)
    assert solution.states_searched == 220


def test_solving_mid_game_uses_the_current_position_and_leaves_the_game_alone() -> None:
    cards = seeded(5)
    game = SoloDrez.new(cards)
    for _ in range(4):  # the engine's first legal transfer, four times
        game.play(next(move for move in game.legal_moves() if move.count))
    before_view, before_moves = game.visible(), game.moves
    solution = solve(game)
    assert game.visible() == before_view
    assert game.moves == before_moves
    assert not game.is_over()
    assert solution.result == "won"
    # the line continues the game's log: replayed after it, it wins
    assert SoloDrez.replay(cards, None, [*before_moves, *solution.moves]).won
    # and played on a copy of the current position, it wins too
    assert plays_to_a_win(game.columns, solution.moves)


def test_a_game_already_won_or_stopped() -> None:
    rows = ["J1 Q1 T1 B1 N1 P1", "X1", "", "", "", "", "", "", ""]
    game = SoloDrez.from_columns(columns(*rows))
    game.play(SoloDrezMove(remove=0))
    assert game.won
    assert solve(game).result == "won"
    assert solve(game).moves == ()
    stopped = SoloDrez.new(seeded(5))
    stopped.play(SoloDrezMove(stop=True))
    assert solve(stopped).result == "lost"


def test_a_win_beyond_the_move_bound_is_unknown_not_lost() -> None:
    # X1 shuffles between column 2 and T1 until the log is nearly full; the win needs 2 moves
    rows = ["J1 Q1 T1", "B1 N1 P1", "X1", "", "", "", "", "", ""]
    out, back = SoloDrezMove(from_=2, count=1, to=0), SoloDrezMove(from_=0, count=1, to=2)
    two_left = SoloDrez.from_columns(columns(*rows))
    for i in range(MAX_MOVES - 2):
        two_left.play(out if i % 2 == 0 else back)
    solution = solve(two_left)
    assert solution.result == "won"
    assert texts(solution) == ["1:3>0", "r0"]
    two_left.play(out)  # one move left: the win is out of reach, but it is not "lost"
    capped = solve(two_left)
    assert capped.result == "unknown"
    assert capped.moves == ()
    assert capped.seconds < 1.0


def test_a_line_with_a_detour_is_shortened_and_kept_at_the_deadline() -> None:
    game = SoloDrez.new(SoloDrez.deal_of(EASY))
    root = tuple(bytes(figure(card) for card in column) for column in game.columns)
    # P1 steps onto X1 and back (a detour), then the shortest line, 12 moves
    steps = [(2, 0, -1), (0, 6, 2), (2, 1, 0), (0, 1, 2)]
    steps += [(a, 0, -1) for a in range(3, 9)] + [(2, 0, -1)]
    steps += [(1, 4, 0), (0, 3, 1), (1, 0, -1)]
    states = [root]
    for step in steps:
        states.append(_apply(states[-1], step))
    assert all(f == NEUTRAL for column in states[-1] for f in column)  # no figure left

    def moves(line: list[tuple[int, int, int]]) -> list[SoloDrezMove]:
        return [
            SoloDrezMove(remove=a) if n == 0 else SoloDrezMove(from_=a, count=n, to=b)
            for a, n, b in line
        ]

    infos: dict[bytes, ColumnInfo] = {}
    kept = _shorten(states, steps, infos, deadline=0.0)
    assert kept == steps
    shorter = _shorten(states, steps, infos, deadline=time.perf_counter() + 5)
    assert len(shorter) == 12
    assert plays_to_a_win(EASY, moves(shorter))
    assert plays_to_a_win(EASY, moves(kept))
    assert len(kept) == 14


# --- budgets ------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [0.0, 1e-4])
def test_a_tiny_budget_gives_unknown_promptly(budget: float) -> None:
    game = SoloDrez.new(seeded(120))  # a deal the solver does not decide in a second
    start = time.perf_counter()
    solution = solve(game, budget=budget)
    wall = time.perf_counter() - start
    assert solution.result == "unknown"
    assert solution.moves == ()
    assert wall < budget + 0.05
    assert solution.seconds <= wall


def test_the_budget_is_kept_on_a_hard_deal() -> None:
    game = SoloDrez.new(seeded(120))
    start = time.perf_counter()
    solution = solve(game, budget=0.3)
    wall = time.perf_counter() - start
    assert solution.result == "unknown"
    assert solution.states_searched > 1000
    assert 0.25 < wall < 0.35  # it stops a little early, to free its tables in time


# --- random deals -------------------------------------------------------------------------


def test_seeded_deals_are_won_by_lines_the_engine_accepts() -> None:
    won = 0
    for i in range(12):
        cards = seeded(i)
        solution = solve(SoloDrez.new(cards), budget=0.5)
        assert solution.result != "lost"  # all twelve are winnable
        if solution.result == "won":
            won += 1
            assert len(solution.moves) <= MAX_MOVES
            assert SoloDrez.replay(cards, None, solution.moves).won
    assert won >= 10


def test_solving_in_threads_gives_the_same_lines() -> None:
    games = [SoloDrez.new(seeded(i)) for i in range(4)]
    alone = [solve(game).moves for game in games]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda game: solve(game).moves, games))
    assert together == alone


# --- against a brute force over the engine's moves -----------------------------------------


def small_position(rng: random.Random, series: int, neutrals: int, drop: int) -> list[list[Card]]:
    """``series`` series (random colours), ``drop`` of their cards left out, and neutrals.

    The cards are shuffled and dealt round-robin into the nine columns.
    """
    colours = rng.sample(range(9), series)
    cards: list[Card] = [POKERDREZ_DECK[colour * 6 + f] for colour in colours for f in range(6)]
    rng.shuffle(cards)
    cards = cards[drop:] + rng.sample(POKERDREZ_DECK[54:], neutrals)
    rng.shuffle(cards)
    return [cards[c::9] for c in range(9)]


CASES = [
    # (series, neutrals, cards left out): complete sets are won, broken ones lost
    *((2, 1, 0, seed) for seed in range(6)),
    *((3, 2, 0, seed) for seed in range(4)),
    *((1, 1, 1, seed) for seed in range(3)),
    *((2, 0, 1, seed) for seed in range(8)),
]


@pytest.mark.parametrize(("series", "neutrals", "drop", "seed"), CASES)
def test_solve_agrees_with_brute_force(series: int, neutrals: int, drop: int, seed: int) -> None:
    position = small_position(random.Random(seed), series, neutrals, drop)
    winnable, reachable = brute_force(position)
    solution = solve(SoloDrez.from_columns(position), budget=10.0)
    assert solution.result == ("won" if winnable else "lost")
    if winnable:
        assert plays_to_a_win(position, solution.moves)
    else:
        assert solution.moves == ()
        # lost means every reachable position was searched: exactly the brute force's
        assert solution.states_searched == reachable


def test_a_won_line_is_a_shortest_one_when_the_search_can_tell() -> None:
    """Seven clean series, two more under the neutrals: 11 moves, not the 12 of a greedy line."""
    cards = [f"{figure}{colour}" for figure in "JQTBNP" for colour in range(1, 10)] + ["X1", "X2"]
    game = SoloDrez.new(parse_pokerdrez_cards(cards))
    found = solve(game, budget=1.0)
    assert found.result == "won"
    assert len(found.moves) == 11
    for move in found.moves:
        game.play(move)
    assert game.won
