"""Solver searches, bounded: a process pool of their own, a cap per client, a short queue.

A solodrez search may take its whole budget (up to 10 s) of one core, and remembers up
to ``CARDPROOF_SOLVER_MAX_STATES`` positions. So searches never run on the event loop or
in the thread pool other requests share: they run in a pool of ``CARDPROOF_SOLVER_WORKERS``
processes (started on the first search, with ``spawn``). A client may have
``CARDPROOF_SOLVER_PER_CLIENT`` searches running or waiting at once (429
``too-many-searches`` past it), and the pool takes ``CARDPROOF_SOLVER_QUEUE`` waiting
searches beyond those running (503 ``solver-busy`` past it): both answered at once, with
``Retry-After``. The counts are this process's: each replica bounds its own pool.

The serpent solver is exact and takes milliseconds once its path table is built (at
start-up): it runs in a worker thread as before.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from cardproof.errors import RuleError
from cardproof.games import Game, SerpentPatience, SoloDrez, variant
from cardproof.games.grid import SIZE, Cell
from cardproof.models import SerpentSolution, SoloDrezSolution, SolveRequest
from cardproof.pokerdrez import parse_pokerdrez_cards
from cardproof.solvers import serpent, solodrez
from cardproof_service.settings import Settings

SOLVABLE = (SerpentPatience.id, SoloDrez.id)


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
    return cls.new(cls.parse_cards(body.cards, field="cards"), body.options, field="cards")


def solve_deal(
    body: SolveRequest, max_states: int = solodrez.MAX_STATES
) -> SerpentSolution | SoloDrezSolution:
    """Serpent par of ``body.cards`` (first 25), or a solodrez search within the budget."""
    game = game_of(body)
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
            )
        return self._pool

    def _retry_after(self) -> int:
        """Seconds until the first running search ends, at most."""
        soonest = min(self._deadlines.values(), default=time.monotonic())
        return max(1, math.ceil(soonest - time.monotonic()))

    async def solve(self, body: SolveRequest, client: str) -> SerpentSolution | SoloDrezSolution:
        """Solve ``body``: a solodrez search in the pool, within the bounds; serpent in a thread."""
        if body.variant != SoloDrez.id:
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
        """Stop the pool's processes (searches still waiting are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["SOLVABLE", "SolverBusy", "Solvers", "TooManySearches", "solve_deal"]
