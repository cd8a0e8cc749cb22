"""``POST /v1/verify``: replay a whole move log on a deal and score it."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post
from litestar.exceptions import HTTPException

from cardproof.errors import ParseError, RuleError
from cardproof.models import VerifyRequest, VerifyResult
from cardproof_service.front import examples
from cardproof_service.front.bodies import authorization_of, read_body
from cardproof_service.front.controllers.deals import deals_of
from cardproof_service.front.errors import problem_responses
from cardproof_service.front.openapi import ENTRANT_IF_TOURNAMENT
from cardproof_service.plumbing import VERIFY_FAILURES


class VerifyController(Controller):
    """Whole-log verification."""

    path = "/v1/verify"
    tags = ("verification",)

    @post(
        "",
        operation_id="verifyLog",
        security=ENTRANT_IF_TOURNAMENT,
        status_code=200,
        summary="Replay and score a complete log",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            422,
            503,
            e401="A whole log for an unplayed tournament game without its entrant's token.",
            e403="A whole log for another entrant's tournament game (`other-entrant`).",
            e404="No such deal, or it expired (`unknown-deal`).",
            e409="The deal was played, or is being played, with another log (`deal-played`); "
            "its tournament has closed (`closed`); a lockstep round's seat, played one called "
            "card at a time, whose game is not over (`lockstep-seat`).",
            e422="An illegal move, named by `move_index` with a `code` (`cell-taken`, "
            "`off-board`, `not-adjacent`, `outside-square`, `first-not-origin`, "
            "`wrong-move-shape`, `game-over`); a log too short or a dead end (`incomplete`); a "
            "bad deal (`bad-deal-form`, `duplicate-card`, `too-few-cards`); options that differ "
            "from the deal's (`options-mismatch`).",
        ),
        opt={"body": VerifyRequest, "example": examples.VERIFY},
    )
    async def verify(self, request: Request[Any, Any, Any]) -> VerifyResult:
        """Replay every move under the variant's rules; an illegal move is a 422 naming it.

        A revealed seed pair or a deal id gives a signed receipt; a card order does not.
        Every refusal counts in ``cardproof_verify_failures`` by its problem code.
        """
        try:
            body = await read_body(request, VerifyRequest)
            return await deals_of(request).verify(body, authorization_of(request))
        except ParseError:
            VERIFY_FAILURES.labels("unreadable").inc()
            raise
        except RuleError as error:
            VERIFY_FAILURES.labels(error.code).inc()
            raise
        except HTTPException as error:  # 404, 409 (with a code), 413, 401, 403
            code = error.extra.get("code") if isinstance(error.extra, dict) else None
            VERIFY_FAILURES.labels(str(code or error.status_code)).inc()
            raise
