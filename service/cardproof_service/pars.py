"""Each closed round's par: solved once in the background after the close, kept in the store.

A round's par is the best score known for its deal: the solver's (poker-squares and
poker-patience hindsight within ``CARDPROOF_PAR_BUDGET`` seconds, serpent-patience's
exact par) or an entrant's finished game, whichever is higher, with the log that
reaches it and the solver's proven upper bound. Seeds are secret until the close, so
nothing is solved before it.

The first read of a closed tournament's standings (or export) starts one background
task per tournament in this process; it solves the rounds without a par one by one in
the solver pool (under the pool's bounds: a busy pool stops it, and the next read starts
it again) and keeps each par in the store, where the first kept wins: replicas that
solved the same round at once all show one par. Until then the standings say how many
rounds are pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardproof.games import PokerPatience, PokerSquares, SerpentPatience, variant
from cardproof.models import (
    HindsightSolution,
    Options,
    RoundPar,
    SerpentSolution,
    SolveRequest,
)
from cardproof.tournaments import round_deal
from cardproof_service.deals import Deals, round_commitment_id, tournament_closed
from cardproof_service.solving import SolverBusy, Solvers, TooManySearches
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


@dataclass
class Pars:
    """Round pars: read from the store, solved in the background where missing."""

    store: Store
    deals: Deals
    solvers: Solvers
    budget: float
    _running: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    async def known(self, record: TournamentRecord) -> tuple[dict[int, RoundPar], int]:
        """The pars kept so far, by round, and how many rounds are still pending.

        Starts the background solving of the missing ones (once per tournament and
        process). Nothing before the close, nothing for a variant without a solver.
        """
        if record.variant not in PAR_VARIANTS or not tournament_closed(record):
            return {}, 0
        kept = {
            r: _DECODER.decode(par)
            for r, par in (await self.store.round_pars(record.tournament_id)).items()
        }
        missing = [r for r in range(1, record.rounds + 1) if r not in kept]
        if missing and record.tournament_id not in self._running:
            task = asyncio.create_task(self._solve(record, missing))
            self._running[record.tournament_id] = task
            task.add_done_callback(lambda _: self._running.pop(record.tournament_id, None))
        return kept, len(missing)

    async def wait(self, tournament_id: str) -> None:
        """Until this process's solving of the tournament's pars (if any) ends."""
        task = self._running.get(tournament_id)
        if task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(task)

    async def _solve(self, record: TournamentRecord, rounds: list[int]) -> None:
        try:
            best: dict[int, GameResult] = {}  # each round's best game, read a batch at a time
            async for result in results_of(self.store, record.tournament_id, 200):
                if result.round not in best or result.total > best[result.round].total:
                    best[result.round] = result
            for number in rounds:
                game = best.get(number)
                par = await self._par(
                    record, number, game.total if game else None, game.moves if game else ""
                )
                await self.store.record_round_par(
                    record.tournament_id, number, msgspec.json.encode(par), record.expires_at
                )
        except (SolverBusy, TooManySearches):
            log.info("pars of %s wait: the solvers are busy", record.tournament_id)
        except Exception:  # a store outage: the next read starts again
            log.exception("pars of %s failed", record.tournament_id)

    async def _par(
        self, record: TournamentRecord, number: int, entrant_total: int | None, entrant_moves: str
    ) -> RoundPar:
        """The solver's answer for the round's deal, or the best entrant's game if higher."""
        seed = self.deals.server_seed(round_commitment_id(record.tournament_id, number))
        options, deck = round_deal(record.variant, record.options, seed, record.salt)
        request = SolveRequest(
            variant=record.variant,
            cards=[card.text for card in deck],
            options=msgspec.convert(msgspec.to_builtins(options), Options),
            budget=self.budget,
        )
        solution: Any = await self.solvers.solve(request, f"par:{record.tournament_id}")
        if isinstance(solution, HindsightSolution):
            score, bound, moves = solution.score.total, solution.upper_bound, solution.log
        else:
            assert isinstance(solution, SerpentSolution)
            cls = variant(record.variant)
            score, bound, moves = (
                solution.score.total,
                solution.score.total,
                cls.format_log([cls.move_from_object(m, i) for i, m in enumerate(solution.moves)]),
            )
        by: Any = "solver"
        if entrant_total is not None and entrant_total > score:
            score, moves, by = entrant_total, entrant_moves, "entrant"
        bound = max(bound, score)  # an entrant's game is a grid: the bound holds it already
        return RoundPar(
            round=number, score=score, upper_bound=bound, optimal=score == bound, moves=moves, by=by
        )

    def close(self) -> None:
        """Cancel the background tasks (the app stops)."""
        for task in self._running.values():
            task.cancel()
        self._running.clear()


__all__ = ["PAR_VARIANTS", "Pars", "results_of"]
