"""``POST /v1/solve``: serpent par, poker-squares/poker-patience hindsight par, solodrez."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post

from cardproof.models import SolveRequest
from cardproof_service.deals import Solution, Solvers
from cardproof_service.front import examples
from cardproof_service.front.bodies import read_body
from cardproof_service.front.errors import problem_responses
from cardproof_service.plumbing import client_id


class SolveController(Controller):
    """Solvers."""

    path = "/v1/solve"
    tags = ("solvers",)

    @post(
        "",
        operation_id="solveDeal",
        status_code=200,
        summary="Solve a deal",
        responses=problem_responses(
            400,
            413,
            422,
            503,
            e422="No solver for the variant (`no-solver`), a drawn point system without the "
            "deal's seeds (`generated-needs-seeds`), a card twice (`duplicate-card`), "
            "fewer cards than the game uses (`too-few-cards`), a card of another deck "
            "(`card-not-in-deck`), an option the variant does not take (`unknown-option`), "
            "both or neither of `cards` and `columns` (`cards-or-columns`), `columns` for "
            "another variant than solodrez (`columns-need-solodrez`).",
            e429="Too many requests (`rate-limited`), or this client has as many searches "
            "running or waiting as it may (`too-many-searches`): come back after "
            "`Retry-After` seconds.",
            e503="Every solver is busy and the queue is full (`solver-busy`): come back "
            "after `Retry-After` seconds.",
        ),
        opt={"body": SolveRequest, "example": examples.SOLVE},
    )
    async def solve(self, request: Request[Any, Any, Any]) -> Solution:
        """Serpent-patience: the exact best score, a layout reaching it and its moves.

        Poker-squares and poker-patience with all 25 cards known (hindsight): within
        ``budget`` seconds (default 2, at most 10) in a solver process, the best grid found
        (``score``, ``layout``, ``moves`` that POST /v1/verify accepts on these cards) and
        an ``upper_bound`` no grid of these cards exceeds; ``optimal`` when they meet. A
        drawn point system needs the deal's seeds: give its table as a custom one.

        Solodrez (``cards``: the 56-card deck order; or ``columns``: a position of a game
        under way, its 9 columns as the game's view shows them, for a hint): a search of
        at most ``budget`` seconds (default 2, at most 10) in a solver process answers
        ``won`` with a winning move list from there, ``lost`` when the whole reachable
        state space holds no win, or ``unknown`` when the budget (or the search's memory
        bound) ran out.
        """
        body = await read_body(request, SolveRequest)
        solvers: Solvers = request.app.state.solvers
        return await solvers.solve(body, client_id(request.scope, request.app.state.keyring.master))


__all__ = ["SolveController"]
