"""Each closed round's par: solved once in the background after the close, kept in the store.

A round's par is the best score known for its deal: the solver's (poker-squares and
poker-patience hindsight within ``CARDPROOF_PAR_BUDGET`` seconds, serpent-patience's
exact par) or an entrant's finished game, whichever is higher, with the log that
reaches it and the solver's proven upper bound. Seeds are secret until the close, so
nothing is solved before it.

The first read of a closed tournament's standings (or export), once its results have
settled, starts one background task per tournament in this process. The tasks take
turns (one tournament, one round at a time, under one client id of the solver pool, so
users' searches keep the rest of the pool); each solves the rounds without a par and
keeps each par in the store, where the first kept wins: replicas that solved the same
round at once all show one par, and a round kept meanwhile is skipped. A busy pool
stops a task until its ``Retry-After``. Until then the standings say how many rounds
are pending.

Each par says how it was solved (``method``: the exact search, its relaxation fallback,
or serpent's path table); a par kept before the exact search existed decodes as
``earlier-solver`` and stays as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from cardproof.games import PokerPatience, PokerSquares, SerpentPatience, variant
from cardproof.models import (
    HindsightSolution,
    Options,
    ParMethod,
    RoundPar,
    SerpentSolution,
    SolveRequest,
)
from cardproof.tournaments import round_deal
from cardproof_service.deals import (
    Commitments,
    SolverBusy,
    Solvers,
    TooManySearches,
    round_commitment_id,
)
from cardproof_service.plumbing import now, tournament_closed
from cardproof_service.store import GameResult, Store, TournamentRecord

PAR_VARIANTS = (PokerSquares.id, PokerPatience.id, SerpentPatience.id)
"""The variants whose rounds have a par (a solver for a known deal)."""

log = logging.getLogger("cardproof.pars")
_DECODER = msgspec.json.Decoder(RoundPar)


async def results_of(store: Store, tournament_id: str, batch: int) -> AsyncIterator[GameResult]:
    """Every finished game's result, read ``batch`` at a time (never all at once)."""
    keys = sorted(await store.result_keys(tournament_id))
    for start in range(0, len(keys), batch):
        for result in await store.results(tournament_id, keys[start : start + batch]):
            yield result


async def best_games(store: Store, tournament_id: str) -> dict[int, GameResult]:
    """Each round's best finished game (the first of equals), read a batch at a time."""
    best: dict[int, GameResult] = {}
    async for result in results_of(store, tournament_id, 200):
        if result.round not in best or result.total > best[result.round].total:
            best[result.round] = result
    return best


@dataclass(frozen=True)
class Solved:
    """The solver's answer for a round's deal: its grid's score and log, and its bound."""

    score: int
    bound: int
    moves: str
    method: ParMethod


def round_par(number: int, solved: Solved, best: GameResult | None) -> RoundPar:
    """The par: the solver's grid, or the round's best game when it scores more.

    The bound is the solver's, raised to a game above it (which only a solver bug
    allows: the par then says ``optimal: false``, never a bound below a real game).

    >>> solved = Solved(100, 110, "a1 b1", "branch-and-bound")
    >>> round_par(1, solved, None).score, round_par(1, solved, None).by
    (100, 'solver')
    """
    score, moves = solved.score, solved.moves
    by: Literal["solver", "entrant"] = "solver"
    if best is not None and best.total > score:
        score, moves, by = best.total, best.moves, "entrant"
    bound = max(solved.bound, score)
    return RoundPar(
        round=number,
        score=score,
        upper_bound=bound,
        optimal=score == solved.bound,
        moves=moves,
        by=by,
        method=solved.method,
    )


PAR_CLIENT = "par"
"""The solver pool's client id of all par work: at most one search of it at a time (a
process's pars take their turn, so users' searches keep the rest of the pool)."""
EXPORT_WAIT = 30.0
"""Seconds an export waits for pars being solved in its process before going out without."""


@dataclass
class Pars:
    """Round pars: read from the store, solved in the background where missing."""

    store: Store
    commitments: Commitments
    solvers: Solvers
    budget: float
    _running: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    _turn: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(1))
    """One tournament's pars solved at a time in this process, one round at a time."""
    _retry_at: dict[str, float] = field(default_factory=dict)
    """A tournament whose solving met a busy pool: not started again before then."""

    async def known(
        self, record: TournamentRecord, settled_after: int
    ) -> tuple[dict[int, RoundPar], int]:
        """The pars kept so far, by round, and how many rounds are still pending.

        Starts the background solving of the missing ones (once per tournament and
        process), once ``settled_after`` seconds have passed since the close: a result
        may still be recorded until then, and the par is the best of those too. Nothing
        before the close, nothing for a variant without a solver.
        """
        if record.variant not in PAR_VARIANTS or not tournament_closed(record):
            return {}, 0
        kept = {
            r: _DECODER.decode(par)
            for r, par in (await self.store.round_pars(record.tournament_id)).items()
        }
        missing = [r for r in range(1, record.rounds + 1) if r not in kept]
        closed_at = record.closed_at if record.closed_at is not None else record.closes_at
        settled = now() - closed_at > settled_after
        tid = record.tournament_id
        retry = self._retry_at.get(tid, 0.0)
        if missing and settled and tid not in self._running and time.monotonic() >= retry:
            task = asyncio.create_task(self._solve(record))
            self._running[tid] = task
            task.add_done_callback(lambda _: self._running.pop(tid, None))
        return kept, len(missing)

    async def wait(self, tournament_id: str, seconds: float = EXPORT_WAIT) -> None:
        """Until this process's solving of the tournament's pars ends, at most ``seconds``."""
        task = self._running.get(tournament_id)
        if task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), seconds)

    async def _solve(self, record: TournamentRecord) -> None:
        tid = record.tournament_id
        try:
            async with self._turn:
                best = await best_games(self.store, tid)
                for number in range(1, record.rounds + 1):
                    if number in await self.store.round_pars(tid):
                        continue  # kept meanwhile (another replica solved it)
                    par = await self._par(record, number, best.get(number))
                    await self.store.record_round_par(
                        tid, number, msgspec.json.encode(par), record.expires_at
                    )
            self._retry_at.pop(tid, None)
        except (SolverBusy, TooManySearches) as busy:
            self._retry_at[tid] = time.monotonic() + busy.retry_after
            log.info("pars of %s wait %s s: the solvers are busy", tid, busy.retry_after)
        except Exception:  # a store outage: the next read starts again
            self._retry_at[tid] = time.monotonic() + 5
            log.exception("pars of %s failed", tid)

    async def _par(
        self, record: TournamentRecord, number: int, best: GameResult | None
    ) -> RoundPar:
        """The solver's answer for the round's deal, against the round's best game."""
        seed = self.commitments.server_seed(round_commitment_id(record.tournament_id, number))
        options, deck = round_deal(record.variant, record.options, seed, record.salt)
        request = SolveRequest(
            variant=record.variant,
            cards=[card.text for card in deck],
            options=msgspec.convert(msgspec.to_builtins(options), Options),
            budget=self.budget,
        )
        solution: Any = await self.solvers.solve(request, PAR_CLIENT)
        if isinstance(solution, HindsightSolution):
            solved = Solved(
                solution.score.total, solution.upper_bound, solution.log, solution.method
            )
        else:
            assert isinstance(solution, SerpentSolution)
            cls = variant(record.variant)
            moves = cls.format_log(
                [cls.move_from_object(m, i) for i, m in enumerate(solution.moves)]
            )
            solved = Solved(solution.score.total, solution.score.total, moves, "serpent-paths")
        par = round_par(number, solved, best)
        if par.score > solved.bound:  # a game above a proven bound: a solver bug, shown
            log.error(
                "round %s of %s: a game scores %s, above the bound %s",
                number,
                record.tournament_id,
                par.score,
                solved.bound,
            )
        return par

    def close(self) -> None:
        """Cancel the background tasks (the app stops)."""
        for task in self._running.values():
            task.cancel()
        self._running.clear()


__all__ = [
    "EXPORT_WAIT",
    "PAR_CLIENT",
    "PAR_VARIANTS",
    "Pars",
    "Solved",
    "best_games",
    "results_of",
    "round_par",
]
