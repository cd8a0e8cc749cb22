"""``POST /v1/solve``: the best play of a known deal (serpent-patience par)."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Controller, Request, post

from cardproof.cards import parse_cards
from cardproof.errors import RuleError
from cardproof.games import SerpentPatience, variant
from cardproof.games.grid import SIZE, Cell
from cardproof.models import SerpentSolution, SolveRequest
from cardproof.solvers import serpent
from cardproof_service import examples
from cardproof_service.bodies import read_body
from cardproof_service.problems import problem_responses

SOLVABLE = (SerpentPatience.id,)


def solve_deal(body: SolveRequest) -> SerpentSolution:
    """The exact best serpent layout of ``body.cards`` (first 25)."""
    cls = variant(body.variant)
    if cls.id not in SOLVABLE:
        raise RuleError(
            "no-solver",
            f"no solver for {cls.id}; /v1/solve solves: {', '.join(SOLVABLE)}",
            field="variant",
        )
    game = cls.new(parse_cards(body.cards, field="cards"), body.options, field="cards")
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
            "fewer cards than the game uses (`too-few-cards`), an option the variant does not "
            "take (`unknown-option`).",
        ),
        opt={"body": SolveRequest, "example": examples.SOLVE},
    )
    async def solve(self, request: Request[Any, Any, Any]) -> SerpentSolution:
        """For serpent-patience: the exact best score, a layout reaching it and its moves."""
        body = await read_body(request, SolveRequest)
        return await asyncio.to_thread(solve_deal, body)  # milliseconds of CPU: off the loop


__all__ = ["SOLVABLE", "SolveController"]
