"""Solver searches, bounded: a process pool of their own, a cap per client, a short queue.

A solodrez search may take its whole budget (up to 10 s) of one core, and remembers up
to ``CARDPROOF_SOLVER_MAX_STATES`` positions. So searches never run on the event loop or
in the thread pool other requests share: they run in a pool of ``CARDPROOF_SOLVER_WORKERS``
processes (started on the first search, with ``spawn``). A client may have
``CARDPROOF_SOLVER_PER_CLIENT`` searches running or waiting at once (429
``too-many-searches`` past it), and the pool takes ``CARDPROOF_SOLVER_QUEUE`` waiting
searches beyond those running (503 ``solver-busy`` past it): both answered at once, with
``Retry-After``. The counts are this process's: each replica bounds its own pool.

Hindsight par (poker-squares, poker-patience) takes its whole budget unless it proves
its answer first (the exact search of the compiled kernel, ``cardproof_par``, loaded as a
process starts), so it runs in the same pool under the same bounds.

The serpent solver is exact and takes milliseconds once its path table is built (at
start-up): it runs in a worker thread as before.

The pool ends with the app (its lifespan calls :meth:`Solvers.close`): searches still
running are stopped, not waited for, since nobody is left to read their answers. A solver
process also watches its parent: if the server dies without closing the pool (SIGKILL, a
crash), the process ends itself within ``PARENT_WATCH`` seconds of the search it is in
letting go of the interpreter.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Final

from msgspec import UNSET

from cardproof.cards import Card
from cardproof.errors import RuleError
from cardproof.games import Game, PokerPatience, PokerSquares, SerpentPatience, SoloDrez, variant
from cardproof.games.grid import SIZE, Cell, GridGame
from cardproof.models import (
    HindsightSolution,
    MoveObject,
    SerpentSolution,
    SoloDrezSolution,
    SolveRequest,
)
from cardproof.pokerdrez import parse_pokerdrez_cards
from cardproof.solvers import hindsight, serpent, solodrez
from cardproof_service.plumbing import Settings

SOLVABLE = (SerpentPatience.id, SoloDrez.id, PokerSquares.id, PokerPatience.id)
Solution = SerpentSolution | SoloDrezSolution | HindsightSolution
PARENT_WATCH: Final = 0.5
"""Seconds between a solver process's looks at whether its server is still its parent."""
STOP_WAIT: Final = 5.0
"""Seconds :meth:`Solvers.close` waits for the stopped processes to be gone before it
kills what is left."""


class SolverBusy(Exception):
    """Every solver process is busy and the queue is full; nothing was started."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("the solvers are busy")
        self.retry_after = retry_after


class TooManySearches(Exception):
    """The client has as many searches running or waiting as it may."""

    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__(f"{limit} searches at once")
        self.limit = limit
        self.retry_after = retry_after


def game_of(body: SolveRequest) -> Game[Any, Any]:
    """The deal (or solodrez position) to solve, checked.

    A solvable variant, its deck's cards, its options; exactly one of ``cards`` and
    ``columns``.
    """
    cls = variant(body.variant)
    if cls.id not in SOLVABLE:
        raise RuleError(
            "no-solver",
            f"no solver for {cls.id}; /v1/solve solves: {', '.join(SOLVABLE)}",
            field="variant",
        )
    if (body.cards is UNSET) == (body.columns is UNSET):
        raise RuleError(
            "cards-or-columns",
            "give either cards (a deal) or columns (a solodrez position), not both or neither",
            field="cards",
        )
    if body.columns is not UNSET:
        if cls is not SoloDrez:
            raise RuleError(
                "columns-need-solodrez", "columns is a solodrez position", field="columns"
            )
        columns = [
            parse_pokerdrez_cards(column, field=f"columns[{i}]")
            for i, column in enumerate(body.columns)
        ]
        try:
            return SoloDrez.from_columns(columns)
        except ValueError as error:
            raise RuleError("bad-position", str(error), field="columns") from None
    assert body.cards is not UNSET
    game = cls.new(cls.parse_cards(body.cards, field="cards"), body.options, field="cards")
    if isinstance(game, GridGame):
        game.options.table  # noqa: B018  # a drawn system without seeds: 422 here, not in a worker
    return game


def hindsight_of(game: GridGame[Any, Any], budget: float) -> HindsightSolution:
    """Hindsight par of a poker-squares or poker-patience deal, its moves checked by replay."""
    patience = isinstance(game, PokerPatience)
    found = hindsight.solve(
        game.cards,
        game.options.table,
        budget=budget,
        diagonals=bool(getattr(game.options, "diagonals", False)),
        patience=patience,
    )
    cells = [Card(index) for index in found.grid]
    if patience:
        assert found.moves is not None
        moves = [MoveObject(row=r, col=c) for r, c in found.moves]
    else:
        where = {card: cell for cell, card in enumerate(found.grid)}
        moves = [
            MoveObject(row=where[c.index] // SIZE, col=where[c.index] % SIZE)
            for c in game.cards[:25]
        ]
    replay = type(game).new(list(game.cards), game.options)
    for i, move in enumerate(moves):
        replay.play(replay.move_from_object(move, i))
    score = replay.score()
    if score.total != found.score:  # the engine has the last word on a grid's points
        raise RuntimeError(f"hindsight grid scores {score.total}, the solver said {found.score}")
    return HindsightSolution(
        score=score,
        upper_bound=found.upper_bound,
        optimal=found.optimal,
        layout=[[c.text for c in cells[r * SIZE : (r + 1) * SIZE]] for r in range(SIZE)],
        moves=moves,
        log=replay.log_text(),
        seconds=round(found.seconds, 6),
        budget=budget,
        method=found.method,
    )


def solve_deal(body: SolveRequest, max_states: int = solodrez.MAX_STATES) -> Solution:
    """Serpent par of ``body.cards`` (first 25), hindsight par, or a solodrez search."""
    game = game_of(body)
    if isinstance(game, PokerSquares | PokerPatience):
        return hindsight_of(game, body.budget)
    if isinstance(game, SoloDrez):
        found = solodrez.solve(game, budget=body.budget, max_states=max_states)
        return SoloDrezSolution(
            result=found.result,
            moves=list(found.moves),
            log=SoloDrez.format_log(found.moves),
            states_searched=found.states_searched,
            seconds=round(found.seconds, 6),
            budget=body.budget,
        )
    solution = serpent.solve(game.cards, game.options.table)
    layout = [[c.text for c in solution.layout[r * SIZE : (r + 1) * SIZE]] for r in range(SIZE)]
    moves = [Cell(row=cell // SIZE, col=cell % SIZE) for cell in solution.path]
    return SerpentSolution(score=solution.score, optimal=True, layout=layout, moves=moves)


def _watch_parent(parent: int) -> None:
    """End this process once ``parent`` is no longer its parent (it died: we were adopted)."""
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH)
    os._exit(1)  # no clean-up to do: a search's answer has nobody to go to


def start_solver_process(parent: int) -> None:
    """A solver process's start: watch the server (``parent``), then warm the solvers."""
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    hindsight.warm()


@dataclass
class Solvers:
    """The app's solver pool and its bookkeeping (one per process)."""

    settings: Settings
    _pool: ProcessPoolExecutor | None = None
    _deadlines: dict[int, float] = field(default_factory=dict)
    """Each running or waiting search: when its budget runs out at the latest."""
    _by_client: dict[str, int] = field(default_factory=dict)
    _next: int = 0

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.solver_workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_solver_process,
                initargs=(os.getpid(),),
            )
        return self._pool

    def _retry_after(self) -> int:
        """Seconds until the first running search ends, at most."""
        soonest = min(self._deadlines.values(), default=time.monotonic())
        return max(1, math.ceil(soonest - time.monotonic()))

    async def solve(self, body: SolveRequest, client: str) -> Solution:
        """Solve ``body``: searches in the pool, within the bounds; serpent in a thread."""
        if body.variant == SerpentPatience.id:
            return await asyncio.to_thread(solve_deal, body)
        game_of(body)  # the request's own faults (422) at once, not from a worker
        settings = self.settings
        capacity = settings.solver_workers + settings.solver_queue
        if len(self._deadlines) >= capacity:
            raise SolverBusy(self._retry_after())
        if self._by_client.get(client, 0) >= settings.solver_per_client:
            raise TooManySearches(settings.solver_per_client, self._retry_after())
        self._next += 1
        ticket = self._next
        waiting = max(0, len(self._deadlines) - settings.solver_workers + 1)
        self._deadlines[ticket] = time.monotonic() + body.budget * (1 + waiting)
        self._by_client[client] = self._by_client.get(client, 0) + 1
        try:
            future = self._executor().submit(solve_deal, body, settings.solver_max_states)
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool next
            self.close()
            raise SolverBusy(1) from None
        finally:
            del self._deadlines[ticket]
            left = self._by_client.pop(client) - 1
            if left:
                self._by_client[client] = left

    def close(self) -> None:
        """Stop the pool's processes now: searches waiting are dropped, running ones ended.

        Waiting for a running search (up to its whole budget) would hold up a stopping
        server, and a server that then exits on its signal (as uvicorn's does) would leave
        the processes behind: so each is terminated, and killed if still there after
        ``STOP_WAIT`` seconds. The next search starts a new pool.
        """
        pool, self._pool = self._pool, None
        if pool is None:
            return
        workers = list((pool._processes or {}).values())
        for worker in workers:
            worker.terminate()
        deadline = time.monotonic() + STOP_WAIT
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                worker.kill()
        # the pool sees its workers gone (broken: searches in flight fail) and its thread
        # ends; waiting for it lets the pool's queues go now, not at an exit that a server
        # ending on its signal never reaches
        pool.shutdown(wait=True, cancel_futures=True)


__all__ = [
    "SOLVABLE",
    "Solution",
    "SolverBusy",
    "Solvers",
    "TooManySearches",
    "solve_deal",
    "start_solver_process",
]
