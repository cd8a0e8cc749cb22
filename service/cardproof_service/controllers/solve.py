"""``POST /v1/solve``: serpent-patience par, and whether a solodrez deal can be won."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Controller, Request, post

from cardproof.errors import RuleError
from cardproof.games import SerpentPatience, SoloDrez, variant
from cardproof.games.grid import SIZE, Cell
from cardproof.models import SerpentSolution, SoloDrezSolution, SolveRequest
from cardproof.solvers import serpent, solodrez
from cardproof_service import examples
from cardproof_service.bodies import read_body
from cardproof_service.problems import problem_responses

SOLVABLE = (SerpentPatience.id, SoloDrez.id)


def solve_deal(body: SolveRequest) -> SerpentSolution | SoloDrezSolution:
    """Serpent par of ``body.cards`` (first 25), or a solodrez search within the budget."""
    cls = variant(body.variant)
    if cls.id not in SOLVABLE:
        raise RuleError(
            "no-solver",
            f"no solver for {cls.id}; /v1/solve solves: {', '.join(SOLVABLE)}",
            field="variant",
        )
    game = cls.new(cls.parse_cards(body.cards, field="cards"), body.options, field="cards")
    if isinstance(game, SoloDrez):
        found = solodrez.solve(game, budget=body.budget)
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


class SolveController(Controller):
    """Solvers."""

    path = "/v1/solve"
    tags = ("solvers",)

    @post(
        "",
        status_code=200,
        summary="Solve a deal",
        responses=problem_responses(
            400,
            413,
            422,
            e422="No solver for the variant (`no-solver`), a card twice (`duplicate-card`), "
            "fewer cards than the game uses (`too-few-cards`), a card of another deck "
            "(`card-not-in-deck`), an option the variant does not take (`unknown-option`).",
        ),
        opt={"body": SolveRequest, "example": examples.SOLVE},
    )
    async def solve(self, request: Request[Any, Any, Any]) -> SerpentSolution | SoloDrezSolution:
        """Serpent-patience: the exact best score, a layout reaching it and its moves.

        Solodrez (``cards``: the 56-card deck order): a search of at most ``budget`` seconds
        (default 2, at most 10) answers ``won`` with a winning move list, ``lost`` when the
        whole reachable state space holds no win, or ``unknown`` when the budget ran out.
        """
        body = await read_body(request, SolveRequest)
        return await asyncio.to_thread(solve_deal, body)  # CPU work: off the event loop


__all__ = ["SOLVABLE", "SolveController"]
