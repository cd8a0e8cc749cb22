"""``/v1/tournaments/{id}/rounds/{n}``: a round's game, and the lockstep rounds' calls.

An entrant opens their game on a round here (any format); a lockstep round is started by
its organizer (or its start time), and its calls are followed by server-sent events or
long polls.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, Parameter, QueryParameter
from litestar.response import Stream

from cardproof.models import DealState, RoundCalls, RoundDealRequest, RoundStartRequest, RoundStatus
from cardproof_service.deals import entrant_offered
from cardproof_service.front.bodies import authorization_of, read_body
from cardproof_service.front.controllers.tournaments import (
    READ_ERRORS,
    TournamentIdParameter,
    access_of,
    entries_of,
    tournaments_of,
)
from cardproof_service.front.errors import problem_responses
from cardproof_service.front.openapi import ENTRANT_ONLY, ORGANIZER_ONLY, TOURNAMENT_READERS
from cardproof_service.front.site import asked_for_head
from cardproof_service.lockstep import MAX_WAIT
from cardproof_service.plumbing import IdempotencyKey, client_id
from cardproof_service.tournaments import organizer_offered

RoundParameter = Annotated[int, Parameter(description="The round, from 1.", ge=1, le=50)]


async def until_gone(request: Request[Any, Any, Any]) -> None:
    """Return once the client has gone away (``http.disconnect``): a long poll stops."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class RoundsController(Controller):
    """A tournament's rounds: the entrant's game on each, and lockstep rounds' calls."""

    path = "/v1/tournaments"
    tags = ("tournaments",)

    @post(
        "/{tournament_id:str}/rounds/{round_number:int}/deal",
        operation_id="openRoundGame",
        security=ENTRANT_ONLY,
        guards=[entrant_offered],
        status_code=201,
        summary="Open the entrant's game on a round",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            503,
            e401="No entrant token, a forged one, or one that expired (`Authorization: "
            "Bearer cpe_...`).",
            e403="A token of another tournament (`other-tournament`).",
            e404="No such tournament (`unknown-tournament`) or round (`unknown-round`).",
            e409="The entrant opened this round already (`round-played`, with its "
            "`deal_id`), or the tournament is not open (`not-open`, `closed`).",
        ),
        opt={"body": RoundDealRequest, "example": {}},
    )
    async def open_round(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        round_number: RoundParameter,
        idempotency_key: IdempotencyKey = None,
    ) -> DealState:
        """The entrant's game on ``round_number``, dealt the same cards as every entrant's.

        It is played through ``/v1/deals/{deal_id}/moves`` like any deal (blind, for a
        hidden variant); its receipt names the tournament and the player, and shows the
        server seed once the tournament has closed.
        """
        await read_body(request, RoundDealRequest)
        authorization = authorization_of(request)
        return await entries_of(request).open_round(
            tournament_id, round_number, authorization, idempotency_key
        )

    @post(
        "/{tournament_id:str}/rounds/{round_number:int}/start",
        operation_id="startRound",
        security=ORGANIZER_ONLY,
        guards=[organizer_offered],
        status_code=200,
        summary="Start a lockstep round now (its organizer)",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            503,
            e403="Another organizer's tournament (`not-your-tournament`).",
            e404="No such tournament (`unknown-tournament`) or round (`unknown-round`).",
            e409="The round has started already (`round-started`), the one before it has "
            "not (`round-order`: rounds start in order), nobody is seated in it "
            "(`no-seats`), the tournament is async (`not-lockstep`), not open (`not-open`) "
            "or closed (`closed`).",
        ),
        opt={"body": RoundStartRequest, "example": {}},
    )
    async def start_round(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        round_number: RoundParameter,
    ) -> RoundStatus:
        """Call card 0 to every seated entrant at once; nobody more is seated after this.

        Entrants are seated as they open their game of the round. Card i+1 is called when
        every seat has placed card i, or when `card_seconds` have passed since card i was
        called; a card not placed by then is placed for its player by the variant's first
        legal move (the receipt lists it in `auto_placed`).
        """
        await read_body(request, RoundStartRequest)
        authorization = authorization_of(request)
        return await tournaments_of(request).start_round(tournament_id, round_number, authorization)

    @get(
        "/{tournament_id:str}/rounds/{round_number:int}",
        operation_id="getRound",
        security=TOURNAMENT_READERS,
        summary="A lockstep round's status",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            503,
            e404="No such tournament (`unknown-tournament`) or round (`unknown-round`).",
            e409="The tournament is async: nothing is called (`not-lockstep`).",
            **{k: v for k, v in READ_ERRORS.items() if k != "e404"},
        ),
    )
    async def round_status(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        round_number: RoundParameter,
    ) -> RoundStatus:
        """Waiting, playing (the call, its card, deadline and placements) or finished."""
        return await tournaments_of(request).round_status(
            tournament_id, round_number, access_of(request)
        )

    @get(
        "/{tournament_id:str}/rounds/{round_number:int}/calls",
        operation_id="getRoundCalls",
        security=TOURNAMENT_READERS,
        summary="A lockstep round's calls: server-sent events, or a long poll",
        responses={
            200: ResponseSpec(
                data_container=RoundCalls,
                description="The calls after `after` (a long poll), or with `Accept: "
                "text/event-stream` a stream of `call` events (data: a Call; id: its index) "
                "ending with an `end` event (data: the RoundStatus). `HEAD` answers at once, "
                "without waiting.",
                generate_examples=False,
            ),
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                429,
                503,
                e404="No such tournament (`unknown-tournament`) or round (`unknown-round`).",
                e409="The tournament is async: nothing is called (`not-lockstep`).",
                e429="This client (or entrant, by its token) holds its share of the round's "
                "event streams and long polls in this server (`listener-share`, "
                "`CARDPROOF_LISTENERS_PER_CLIENT`), or this address its cap across rounds "
                "(`listeners-per-address`, `CARDPROOF_LISTENERS_PER_ADDRESS`; a seated "
                "entrant's first stream of its round is let in past it): end one, or try "
                "again after `Retry-After`.",
                e503="The store is unavailable, or this server follows as many rounds as it "
                "may (`too-many-listeners`; the last tenth of its room is kept for seated "
                "entrants' first streams): try again after `Retry-After`.",
                **{k: v for k, v in READ_ERRORS.items() if k != "e404"},
            ),
        },
    )
    async def round_calls(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        round_number: RoundParameter,
        after: Annotated[
            int,
            QueryParameter(
                name="after",
                ge=-1,
                le=10_000,
                description="Only the calls with a higher index (-1: from card 0).",
            ),
        ] = -1,
        wait: Annotated[
            float,
            QueryParameter(
                name="wait",
                ge=0,
                le=MAX_WAIT,
                description="Long poll: seconds to wait for a call after `after`.",
            ),
        ] = 25.0,
        last_event_id: Annotated[
            str | None,
            HeaderParameter(
                name="Last-Event-ID",
                max_length=8,
                pattern="^[0-9]{1,5}$",
                description="An event stream resumed: the index of the last call received.",
            ),
        ] = None,
    ) -> Response[Any]:
        """Each card as it is called, to every seat at once: public, as the dealer names it.

        With `Accept: text/event-stream` the answer is a stream of `call` events and a
        final `end` event; otherwise it waits up to `wait` seconds for a call after
        `after` (or the round's end) and answers the calls and the round's status.
        """
        tournaments = tournaments_of(request)
        access = access_of(request)
        client = client_id(request.scope, request.app.state.keyring.master)
        if "text/event-stream" in request.headers.get("accept", ""):
            start = int(last_event_id) if last_event_id is not None else after
            events = await tournaments.round_stream(
                tournament_id, round_number, access, start, client=client
            )
            return Stream(
                events,
                media_type="text/event-stream",
                headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            )
        if asked_for_head(request.scope):  # the status and headers now: no body to wait for
            wait = 0.0
        gone = asyncio.ensure_future(until_gone(request))
        try:
            calls = await tournaments.round_calls(
                tournament_id, round_number, access, after, wait, gone, client=client
            )
        finally:
            gone.cancel()
        return Response(calls, headers={"Cache-Control": "no-store"})


__all__ = ["RoundsController"]
