"""SoloDrez solver: won, lost or unknown within a time budget, with a winning line.

docs/rules.md section 10 asks whether a SoloDrez position can be won. :func:`solve` answers
from a game's current position by an iterative depth-first search (an explicit stack:
its line can run to thousands of moves) over an abstract position:

- a card is reduced to its figure (0 Joker .. 5 Pawn, 6 neutral), a column to a
  ``bytes`` of figures, a position to a tuple of nine columns. Colours never matter
  and the two neutrals are interchangeable, so this loses nothing;
- the transposition table holds *canonical* keys, the position's columns sorted and
  joined: the rules never look at a column's number, so positions that differ only in
  the order of their columns are won or lost together. The search keeps real column
  order along its current line, so the moves it returns replay on the engine as they
  are;
- moves are ordered, best first: removes, a run that completes a series, a run that
  grows a column's clean ``J Q T ...`` base, a run that empties a column or exposes a
  new card, longer runs; moving a run off a card it already fits (a shuffle) and
  breaking a clean base come last. Ordering only changes how soon a win is found.

Reductions, and why each keeps ``lost`` a proof:

- dedup by figure and by canonical key: positions with equal keys have the same moves
  up to renaming columns and same-figure cards, so one of them stands for all;
- of several empty columns only the first is a target, and a whole column never moves
  into an empty one: the others give the same canonical key, the latter the same
  position; undoing the previous move is not generated (it leads back to a known
  position); ``stop`` never helps a win and is not searched.

Not a reduction: taking a remove at once. Removes are tried first, but the other moves
stay in the search: a clean series can be split again to lend its cards as targets,
and we have no proof that an empty column (which takes only a Joker-headed run) is
always worth as much. (Measured: forcing removes changed no answer, nor the states a
lost deal needs, on the deals we tried; in those, no series is ever built.)

``lost`` is claimed only when every reachable position was searched and none is won:
then no line wins, of any length (the search has no depth cap). A winning line is
shortened before it is returned: where a position of the line has a move to a later
one, the moves between are dropped. A line still longer than the verifier's bound
allows (:data:`~cardproof.games.solodrez.MAX_MOVES`, less the moves already played) is
not returned; the search goes on, and if it finds no shorter line the answer is
``unknown``, never ``lost``.

>>> from cardproof.pokerdrez import parse_pokerdrez_cards
>>> rows = ["J1 Q1 T1", "B1 N1 P1", "X1", "", "", "", "", "", ""]
>>> game = SoloDrez.from_columns([parse_pokerdrez_cards(r.split()) for r in rows])
>>> solution = solve(game)
>>> solution.result, [SoloDrez.move_text(m) for m in solution.moves]
('won', ['1:3>0', 'r0'])

Nine Pawns alone: nothing can move (a Pawn goes only onto a Knight), so the one
reachable position is searched and the game is proved lost:

>>> pawns = [parse_pokerdrez_cards([f"P{colour}"]) for colour in range(1, 10)]
>>> solution = solve(SoloDrez.from_columns(pawns))
>>> solution.result, solution.moves, solution.states_searched
('lost', (), 1)
"""

from __future__ import annotations

import time
from typing import Final, Literal

import msgspec

from cardproof.games.solodrez import COLUMNS, MAX_MOVES, SoloDrez, SoloDrezMove
from cardproof.pokerdrez import NEUTRAL, PAWN, POKERDREZ_DECK

SERIES_FIGURES: Final = bytes(range(PAWN + 1))
"""A clean series, Joker to Pawn: the only column a remove takes."""
RUN_MAX: Final = len(SERIES_FIGURES)
EMPTY: Final = 7
"""The "top figure" of an empty column."""
_FIGURE: Final = tuple(card.figure for card in POKERDREZ_DECK)
"""A card's figure by its index."""
SEPARATOR: Final = bytes([EMPTY])
"""Joins the sorted columns into a canonical key (no figure is 7)."""
CHECK_EVERY: Final = 32
"""Expansions between two looks at the clock."""
FREE_SECONDS: Final = 5e-8
"""About the time to free one object of the search: it stops that much earlier."""

State = tuple[bytes, ...]
"""Nine columns of figures, first card first; the last byte is the exposed card."""
Step = tuple[int, int, int]
"""``(from, count, to)`` for a transfer, ``(column, 0, -1)`` for a remove."""
ColumnInfo = tuple[tuple[tuple[int, int, int, bool], ...], int]
"""A column's tail runs ``(n, lo, hi, on_fit)`` by length, and its clean base length."""


class SearchResult(msgspec.Struct, frozen=True):
    """What :func:`solve` found from a position.

    ``result``: ``won`` (``moves`` win from the position), ``lost`` (proved: every
    reachable position was searched) or ``unknown`` (the budget ran out, or the move
    bound cut the search short). ``moves``: the winning line, else empty.
    ``states_searched``: positions expanded. ``seconds``: wall time spent.
    """

    result: Literal["won", "lost", "unknown"]
    moves: tuple[SoloDrezMove, ...]
    states_searched: int
    seconds: float


def column_info(column: bytes) -> ColumnInfo:
    """The tail runs of ``column`` and the length of its clean ``J Q T ...`` base.

    A tail run is ``(n, lo, hi, on_fit)``: the last ``n`` cards form a run whose first
    card can stand for figures ``lo..hi`` (one figure unless all are neutrals), and
    ``on_fit`` says the card under it would extend the run (moving it only shuffles).

    >>> column_info(bytes([0, 1, 3, 4]))
    (((1, 4, 4, True), (2, 3, 3, False)), 2)
    >>> column_info(bytes([2, NEUTRAL]))
    (((1, 0, 5, True), (2, 2, 2, False)), 0)
    """
    runs: list[tuple[int, int, int]] = []
    size = len(column)
    for n in range(1, min(RUN_MAX, size) + 1):
        head = -1
        ok = True
        for k in range(n):
            figure = column[size - n + k]
            if figure != NEUTRAL:
                if head < 0:
                    head = figure - k
                    if head < 0:
                        ok = False
                        break
                elif figure - k != head:
                    ok = False
                    break
        if not ok:
            break
        if head < 0:
            runs.append((n, 0, RUN_MAX - n))
        elif head + n - 1 <= PAWN:
            runs.append((n, head, head))
        else:
            break
    tails = tuple((n, lo, hi, i + 1 < len(runs)) for i, (n, lo, hi) in enumerate(runs))
    base = 0
    while base < size and column[base] == base:
        base += 1
    return tails, base


def _accepting(lo: int, hi: int) -> tuple[int, ...]:
    """The tops (figures, :data:`NEUTRAL`, :data:`EMPTY`) a run headed ``lo..hi`` may go onto."""
    tops = [EMPTY] if lo == 0 else []
    if hi >= 1:
        tops.append(NEUTRAL)
    tops.extend(top for top in range(PAWN) if lo <= top + 1 <= hi)
    return tuple(tops)


ACCEPTING: Final = {
    (lo, hi): _accepting(lo, hi) for lo in range(RUN_MAX) for hi in range(lo, RUN_MAX)
}
"""Read-only: the tops that take a run, by the figures its head can stand for."""


def _info(infos: dict[bytes, ColumnInfo], column: bytes) -> ColumnInfo:
    info = infos.get(column)
    if info is None:
        info = infos[column] = column_info(column)
    return info


def successors(
    state: State, infos: dict[bytes, ColumnInfo], back: Step | None, seen: set[bytes]
) -> list[tuple[int, Step, State]]:
    """The moves from ``state`` to positions not in ``seen``, as ``(priority, step, next)``.

    Their canonical keys are added to ``seen``; the list is unordered. ``infos``
    caches :func:`column_info` by column (one cache per search); ``back``, the move
    that led here reversed, is left out (it returns to a known state).
    """
    found: list[tuple[int, Step, State]] = []
    by_top: list[list[int]] = [[], [], [], [], [], [], [], []]
    for b, column in enumerate(state):
        if not column:
            if not by_top[EMPTY]:  # the other empty columns give the same positions
                by_top[EMPTY].append(b)
        else:
            by_top[column[-1]].append(b)
            if column == SERIES_FIGURES:
                after = list(state)
                after[b] = b""
                key = SEPARATOR.join(sorted(after))
                if key not in seen:
                    seen.add(key)
                    found.append((10_000, (b, 0, -1), tuple(after)))
    for a, source in enumerate(state):
        if not source:
            continue
        runs, base_a = _info(infos, source)
        size = len(source)
        for n, lo, hi, on_fit in runs:
            rest = source[:-n]
            moving = source[-n:]
            gain = -100 * (base_a - len(rest)) if base_a > len(rest) else 0
            if n == size:
                gain += 60
            elif on_fit:
                gain -= 30
            else:
                gain += 30
            for top in ACCEPTING[lo, hi]:
                for b in by_top[top]:
                    if b == a or (top == EMPTY and n == size) or (a, n, b) == back:
                        continue
                    target = state[b]
                    built = target + moving
                    after = list(state)
                    after[a] = rest
                    after[b] = built
                    key = SEPARATOR.join(sorted(after))
                    if key in seen:
                        continue
                    seen.add(key)
                    priority = n + gain
                    if built == SERIES_FIGURES:
                        priority += 1_000
                    else:
                        priority += 100 * (_info(infos, built)[1] - _info(infos, target)[1])
                    found.append((priority, (a, n, b), tuple(after)))
    return found


SHORTEST_UP_TO: Final = 20
"""A won line of at most this many moves is checked for a shorter one, breadth first
(a longer one is kept as shortened: a breadth-first search that deep never ends)."""
SHORTEST_SECONDS: Final = 0.5
"""How long that check may take at most (within the budget)."""
MAX_STATES: Final = 1_000_000
"""Positions a search may remember by default (about 150 MB): its memory bound."""


def solve(game: SoloDrez, *, budget: float = 2.0, max_states: int = MAX_STATES) -> SearchResult:
    """Search from the game's current position (it is not modified) for ``budget`` seconds.

    The transposition table holds at most about ``max_states`` positions: past them the
    search stops as ``unknown``, so a search's memory is bounded as well as its time.

    ``won`` comes with a line that wins when played on from this position (none for a
    game already won); ``lost`` is a proof (a stopped game, or one at the move bound,
    is lost at once); ``unknown`` means the budget ran out first, or every win found
    was further away than the move bound allows. The clock is read every
    :data:`CHECK_EVERY` expansions, and the search stops early enough to free its
    tables, so the call returns within a few milliseconds of the budget. Thread-safe:
    all state is local to the call.
    """
    start = time.perf_counter()
    deadline = start + budget
    if game.won:
        return SearchResult("won", (), 0, time.perf_counter() - start)
    room = MAX_MOVES - len(game.moves)
    if game.stopped or room <= 0:
        return SearchResult("lost", (), 0, time.perf_counter() - start)
    root: State = tuple(bytes(_FIGURE[card.index] for card in column) for column in game.columns)
    figures = sum(figure != NEUTRAL for column in root for figure in column)
    infos: dict[bytes, ColumnInfo] = {}
    seen = {SEPARATOR.join(sorted(root))}
    # The stack holds moves, not positions: ``(depth, from, count, to)`` of a move made
    # on the line's position at ``depth - 1`` (few small objects: freeing them is fast).
    stack: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)]
    path_states: list[State] = []
    path_steps: list[Step] = []
    path_left: list[int] = []
    expanded = 0
    too_long = False  # a win was reached, but by no line short enough for the bound
    while stack:
        # stop early enough to free the table, the stack and the line (about 50 ns an
        # object) within the budget
        if not expanded % CHECK_EVERY and (
            time.perf_counter() + FREE_SECONDS * (len(seen) + len(stack) + 10 * len(path_states))
            > deadline
            or len(seen) > max_states
        ):
            return SearchResult("unknown", (), expanded, time.perf_counter() - start)
        depth, a, n, b = stack.pop()
        del path_states[depth:]
        del path_left[depth:]
        del path_steps[max(depth - 1, 0) :]
        if depth:
            step = (a, n, b)
            state = _apply(path_states[-1], step)
            left = path_left[-1] - (RUN_MAX if n == 0 else 0)
            path_steps.append(step)
        else:
            state, left = root, figures
        path_states.append(state)
        path_left.append(left)
        if not left:
            line = _shorten(path_states, path_steps, infos, deadline)
            if len(line) <= SHORTEST_UP_TO:  # a short win: a shortest one is within reach
                spend = min(deadline, time.perf_counter() + SHORTEST_SECONDS)
                shorter = _shortest(root, figures, len(line), spend, max_states - len(seen))
                line = shorter if shorter is not None else line
            if len(line) <= room:
                moves = tuple(_move(s) for s in line)
                return SearchResult("won", moves, expanded, time.perf_counter() - start)
            too_long = True  # search on: another win may come by a shorter line
            continue
        expanded += 1
        back = (b, n, a) if depth and n else None
        children = successors(state, infos, back, seen)
        children.sort(key=_priority)
        for _, (a, n, b), _ in children:
            stack.append((depth + 1, a, n, b))
    result: Literal["lost", "unknown"] = "unknown" if too_long else "lost"
    return SearchResult(result, (), expanded, time.perf_counter() - start)


def _priority(child: tuple[int, Step, State]) -> int:
    return child[0]


def _move(step: Step) -> SoloDrezMove:
    a, n, b = step
    return SoloDrezMove(remove=a) if n == 0 else SoloDrezMove(from_=a, count=n, to=b)


def _shorten(
    states: list[State], steps: list[Step], infos: dict[bytes, ColumnInfo], deadline: float
) -> list[Step]:
    """A line no longer than ``steps`` that reaches the same final position.

    From each state, jump to the latest state of the line that one move reaches (up to
    column order); the moves are found on the real columns, so they replay as they are.
    At the deadline the rest of the line is kept as it is, renumbered.
    """
    where = {SEPARATOR.join(sorted(state)): i for i, state in enumerate(states)}
    last = len(states) - 1
    line: list[Step] = []
    current, i = states[0], 0
    while i < last:
        if time.perf_counter() > deadline:
            line.extend(_renumber(steps[i:], states[i], current))
            break
        best, best_step, best_state = i, steps[i], current
        for _, step, child in successors(current, infos, None, set()):
            j = where.get(SEPARATOR.join(sorted(child)), -1)
            if j > best:
                best, best_step, best_state = j, step, child
        if best == i:  # not expected: the line's own next position is a successor
            (best_step,) = _renumber(steps[i : i + 1], states[i], current)
            best, best_state = i + 1, _apply(current, best_step)
        line.append(best_step)
        current, i = best_state, best
    return line


def _shortest(
    root: State, figures: int, longest: int, deadline: float, max_states: int
) -> list[Step] | None:
    """A winning line of fewer than ``longest`` moves, the shortest there is, or ``None``.

    Breadth first from ``root``, level by level, positions deduplicated by canonical key:
    the first win met is a shortest one. It gives up (``None``: the caller keeps its
    line) at ``deadline`` or past ``max_states`` positions, so a search stays within its
    budget and memory; for a deal won by clearing series it runs in milliseconds.
    """
    infos: dict[bytes, ColumnInfo] = {}
    root_key = SEPARATOR.join(sorted(root))
    seen = {root_key}
    parents: dict[bytes, tuple[bytes, Step]] = {}
    level: list[tuple[bytes, State, int]] = [(root_key, root, figures)]
    for _ in range(longest - 1):
        following: list[tuple[bytes, State, int]] = []
        for key, state, left in level:
            if time.perf_counter() > deadline or len(seen) > max_states:
                return None
            for _, step, child in successors(state, infos, None, seen):
                child_key = SEPARATOR.join(sorted(child))
                parents[child_key] = (key, step)
                child_left = left - (RUN_MAX if step[1] == 0 else 0)
                if not child_left:
                    line = [step]
                    at = key
                    while at != root_key:
                        at, before = parents[at]
                        line.append(before)
                    return line[::-1]
                following.append((child_key, child, child_left))
        level = following
    return None


def _apply(state: State, step: Step) -> State:
    a, n, b = step
    after = list(state)
    if n == 0:
        after[a] = b""
    else:
        after[b] = state[b] + state[a][-n:]
        after[a] = state[a][:-n]
    return tuple(after)


def _renumber(steps: list[Step], old: State, new: State) -> list[Step]:
    """``steps`` made on ``old``, renamed to the columns of ``new`` (the same up to order)."""
    free = list(range(COLUMNS))
    place = [0] * COLUMNS
    for c, column in enumerate(old):
        k = next(k for k in free if new[k] == column)
        free.remove(k)
        place[c] = k
    return [(place[a], n, b if n == 0 else place[b]) for a, n, b in steps]


__all__ = ["SearchResult", "column_info", "solve"]
