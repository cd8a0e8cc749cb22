"""``POST /v1/verify``: replay a whole move log on a deal and score it."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, post

from cardproof.cards import parse_cards
from cardproof.games import replay_log
from cardproof.models import VerifyRequest, VerifyResult, check_log_text
from cardproof_service import examples
from cardproof_service.bodies import read_body
from cardproof_service.problems import problem_responses


def verify_practice(body: VerifyRequest) -> VerifyResult:
    """Replay a log on an explicit card order; the result is unsigned (practice)."""
    cards = parse_cards(body.deal.cards, field="deal.cards")
    moves = check_log_text(body.moves) if isinstance(body.moves, str) else body.moves
    game = replay_log(body.variant, cards, body.options, moves)
    score = game.score()
    return VerifyResult(
        variant=game.id,
        options=msgspec.to_builtins(game.options),
        moves=game.log_text(),
        score=score,
        receipt=None,
    )


class VerifyController(Controller):
    """Whole-log verification."""

    path = "/v1/verify"
    tags = ("verification",)

    @post(
        "",
        status_code=200,
        summary="Replay and score a complete log",
        responses=problem_responses(400, 413, 422),
        opt={"body": VerifyRequest, "example": examples.VERIFY},
    )
    async def verify(self, request: Request[Any, Any, Any]) -> VerifyResult:
        """Replay every move under the variant's rules; an illegal move is a 422 naming it."""
        return verify_practice(await read_body(request, VerifyRequest))
