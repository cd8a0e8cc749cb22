"""``/v1/commitments`` and ``/v1/deals``: committed deals played blind, move by move."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import Parameter

from cardproof.models import (
    Commitment,
    CommitmentRequest,
    DealRequest,
    DealState,
    MoveRequest,
    MoveResult,
    ReceiptResponse,
)
from cardproof_service.deals import Deals
from cardproof_service.front import examples
from cardproof_service.front.bodies import authorization_of, read_body
from cardproof_service.front.errors import problem_responses
from cardproof_service.front.openapi import ENTRANT_IF_TOURNAMENT
from cardproof_service.plumbing import IdempotencyKey, client_id

DealIdParameter = Annotated[
    str, Parameter(description="The deal id from POST /v1/deals.", max_length=64)
]


def deals_of(request: Request[Any, Any, Any]) -> Deals:
    """The app's deals service."""
    deals: Deals = request.app.state.deals
    return deals


class CommitmentsController(Controller):
    """Server seed commitments."""

    path = "/v1/commitments"
    tags = ("deals",)

    @post(
        "",
        operation_id="createCommitment",
        status_code=201,
        summary="Commit to a server seed",
        responses=problem_responses(400, 413, 503),
        opt={"body": CommitmentRequest, "example": {}},
    )
    async def commit(self, request: Request[Any, Any, Any]) -> Commitment:
        """A fresh commitment: use its id once, in POST /v1/deals, before it expires."""
        await read_body(request, CommitmentRequest)
        return deals_of(request).commit()


class DealsController(Controller):
    """Deals, their moves and their receipts."""

    path = "/v1/deals"
    tags = ("deals",)

    @post(
        "",
        operation_id="createDeal",
        status_code=201,
        summary="Open a deal",
        responses=problem_responses(
            400,
            404,
            409,
            413,
            422,
            503,
            e404="No such commitment (`unknown-commitment`) or it expired (`expired-commitment`).",
            e409="The commitment was used for another deal (`commitment-used`).",
            e422="An option the variant does not take (`unknown-option`), a client seed over "
            "256 UTF-8 bytes (`client-seed-too-long`), a commitment without a client seed "
            "(`client-seed-required`), an `Idempotency-Key` sent before with "
            "another request (`idempotency-key-reused`).",
            e429="Too many requests (`rate-limited`); this client holds as many unfinished "
            "deals as it may (`too-many-games`, `CARDPROOF_MAX_GAMES_IN_FLIGHT`): finish one or "
            "come back after `Retry-After` seconds, when the oldest expires; or it opened as "
            "many deals today as it may (`daily-quota`, `CARDPROOF_DAILY_DEAL_QUOTA`): come "
            "back after `Retry-After` seconds, when the day (UTC) ends.",
        ),
        opt={"body": DealRequest, "example": examples.DEAL},
    )
    async def create(
        self, request: Request[Any, Any, Any], idempotency_key: IdempotencyKey = None
    ) -> DealState:
        """Deal from a commitment (claimed once) and a client seed.

        The view shows only what is due now. Without a commitment the deal is casual and
        its receipt says ``committed_before_client_seed: false``. A request resent with
        the same ``Idempotency-Key`` gets the same deal, for 24 hours.
        """
        body = await read_body(request, DealRequest)
        deals = deals_of(request)
        client = client_id(request.scope, deals.keys.master)
        return await deals.create(body, idempotency_key, client)

    @get(
        "/{deal_id:str}",
        operation_id="getDeal",
        summary="Read a deal",
        security=ENTRANT_IF_TOURNAMENT,
        responses=problem_responses(
            400,
            401,
            403,
            404,
            503,
            e401="A tournament game without its entrant's token (`Authorization: Bearer "
            "cpe_...`), or with a forged one.",
            e403="A tournament game with another entrant's token (`other-entrant`).",
        ),
    )
    async def read(self, request: Request[Any, Any, Any], deal_id: DealIdParameter) -> DealState:
        """The deal as its player may see it now; a tournament game only for its entrant."""
        authorization = authorization_of(request)
        return await deals_of(request).state(deal_id, authorization)

    @post(
        "/{deal_id:str}/moves",
        operation_id="playMove",
        security=ENTRANT_IF_TOURNAMENT,
        status_code=200,
        summary="Play one move",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            422,
            503,
            e401="A tournament game without its entrant's token, or with a forged or expired "
            "one (`Authorization: Bearer cpe_...`).",
            e403="A tournament game with another entrant's token (`other-entrant`) or one of "
            "another tournament (`other-tournament`).",
            e404="No such deal, or it expired (`unknown-deal`).",
            e409="`index` is not the next one (`wrong-index`, with `next_index`), another move "
            "holds that index (`move-conflict`: the first one stands), the game is over "
            "(`game-over`), or its tournament has closed (`closed`).",
            e422="An illegal move, with `move_index` and a `code` (`cell-taken`, `off-board`, "
            "`not-adjacent`, `outside-square`, `first-not-origin`, `wrong-move-shape`).",
        ),
        opt={"body": MoveRequest, "example": {"index": 0, "move": {"row": 2, "col": 2}}},
    )
    async def play(self, request: Request[Any, Any, Any], deal_id: DealIdParameter) -> MoveResult:
        """Append a move if ``index`` is the next one (else 409).

        The same move sent again for the same index gets the same answer; a different
        one gets 409 and the first one stands. A tournament game's moves take its
        entrant's token.
        """
        body = await read_body(request, MoveRequest)
        return await deals_of(request).play(deal_id, body, authorization_of(request))

    @get(
        "/{deal_id:str}/receipt",
        operation_id="getReceipt",
        security=ENTRANT_IF_TOURNAMENT,
        summary="The signed receipt of a finished deal",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            422,
            503,
            e401="A tournament game without its entrant's token, or with a forged one.",
            e403="A tournament game with another entrant's token (`other-entrant`).",
            e409="The game is not over yet (`not-finished`).",
            e422="The game ended at a dead end and is not scored (`incomplete`).",
        ),
    )
    async def receipt(
        self, request: Request[Any, Any, Any], deal_id: DealIdParameter
    ) -> ReceiptResponse:
        """The compact JWS and its payload; the server seed is revealed in it.

        Its ``kind`` says what it proves; a tournament game's receipt is its entrant's,
        and carries the seed once the tournament has closed.
        """
        authorization = authorization_of(request)
        return await deals_of(request).receipt(deal_id, authorization)
