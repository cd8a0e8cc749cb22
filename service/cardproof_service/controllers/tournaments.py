"""``/v1/tournaments``: tournaments that deal every entrant the same committed deals."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, Parameter, QueryParameter
from litestar.response import Stream

from cardproof.models import (
    CloseRequest,
    DealState,
    Entry,
    EntryRequest,
    InviteCodes,
    InviteRequest,
    RoundCalls,
    RoundDealRequest,
    RoundStartRequest,
    RoundStatus,
    Standings,
    Tournament,
    TournamentCreated,
    TournamentExport,
    TournamentRequest,
)
from cardproof.tournaments import CURSOR_PATTERN, MAX_PAGE, SettlementPage
from cardproof_service import examples
from cardproof_service.bodies import read_body
from cardproof_service.idempotency import IdempotencyKey
from cardproof_service.lockstep import MAX_WAIT
from cardproof_service.organizers import authenticate
from cardproof_service.problems import problem_responses
from cardproof_service.tournaments import Access, Tournaments

TournamentIdParameter = Annotated[
    str, Parameter(description="The tournament id from POST /v1/tournaments.", max_length=64)
]
RoundParameter = Annotated[int, Parameter(description="The round, from 1.", ge=1, le=50)]
_READ_ERRORS = {
    "e401": "An invite-only tournament is read with its organizer's key, an entrant's token "
    "(`Authorization: Bearer ...`) or one of its invite codes (`X-Invite-Code`).",
    "e403": "An invite-only tournament of another organizer (`not-your-tournament`).",
    "e404": "No such tournament (`unknown-tournament`).",
}


def access_of(request: Request[Any, Any, Any]) -> Access:
    """Who reads: the ``Authorization`` header and the ``X-Invite-Code`` header."""
    headers = request.headers
    return Access(headers.get("authorization"), headers.get("x-invite-code"))


async def _until_gone(request: Request[Any, Any, Any]) -> None:
    """Return once the client has gone away (``http.disconnect``): a long poll stops."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def tournaments_of(request: Request[Any, Any, Any]) -> Tournaments:
    """The app's tournaments service."""
    tournaments: Tournaments = request.app.state.tournaments
    return tournaments


class TournamentsController(Controller):
    """Tournaments: creation by organizers (``Authorization: Bearer cpo_...``), reading."""

    path = "/v1/tournaments"
    tags = ("tournaments",)

    @post(
        "",
        status_code=201,
        summary="Create a tournament (organizers)",
        responses=problem_responses(
            400,
            401,
            413,
            422,
            503,
            e422="A variant option it does not take (`unknown-option`), `max_entrants` over the "
            "service's ceiling (`too-many-entrants`), more `invites` than twice `max_entrants` "
            "(`too-many-invites`), `invites` for a public tournament "
            "(`invites-need-invite-entry`), `closes_at` not after "
            "`opens_at` (`bad-window`) or already past (`closes-in-past`).",
        ),
        opt={"body": TournamentRequest, "example": examples.TOURNAMENT},
    )
    async def create(self, request: Request[Any, Any, Any]) -> TournamentCreated:
        """A tournament whose every round's seed is committed to now, and revealed at close.

        For invite-only entry the answer carries the invite code, this once.
        """
        tournaments = tournaments_of(request)
        organizer = await authenticate(tournaments.store, request.headers.get("authorization"))
        body = await read_body(request, TournamentRequest)
        return await tournaments.create(organizer, body)

    @get(
        "/{tournament_id:str}",
        summary="Read a tournament",
        responses=problem_responses(400, 401, 403, 404, 503, **_READ_ERRORS),
    )
    async def read(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> Tournament:
        """The tournament, its round seed hashes, and the seeds once it has closed."""
        return await tournaments_of(request).read(tournament_id, access_of(request))

    @post(
        "/{tournament_id:str}/entries",
        status_code=201,
        summary="Enter a tournament",
        responses=problem_responses(
            400,
            403,
            404,
            409,
            413,
            422,
            503,
            e400="The body cannot be read, or the `Idempotency-Key` is not 16 to 200 visible "
            "ASCII characters.",
            e403="An invite-only tournament without one of its invite codes "
            "(`bad-invite-code`), or with a code that entered someone already (`invite-used`).",
            e404="No such tournament (`unknown-tournament`).",
            e409="The name, or one that looks like it, has entered already (`name-taken`, "
            "with `taken_by`), the tournament is full (`full`), not open yet (`not-open`) or "
            "closed (`closed`).",
            e422="A name with an invisible or format character (`invisible-character`), or "
            "none visible (`empty-name`); an `Idempotency-Key` used for another entry "
            "(`idempotency-key-reused`).",
        ),
        opt={"body": EntryRequest, "example": {"name": "Ada"}},
    )
    async def enter(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        idempotency_key: IdempotencyKey = None,
    ) -> Entry:
        """An entrant's token: it opens the entrant's game on each round and plays it.

        The answer also shows every round's committed seed hash: the entrant holds the
        tournament to them. A request resent with the same ``Idempotency-Key`` within 24
        hours gets the same entry (and token).
        """
        body = await read_body(request, EntryRequest)
        return await tournaments_of(request).enter(tournament_id, body, idempotency_key)

    @post(
        "/{tournament_id:str}/invites",
        status_code=201,
        summary="Make single-use invite codes (organizers)",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            503,
            e403="Another organizer's tournament (`not-your-tournament`).",
            e404="No such tournament (`unknown-tournament`).",
            e409="A public tournament (`not-invite-only`), a closed one (`closed`), or more "
            "codes than it may have (`too-many-invites`: twice its `max_entrants`, at most "
            "100,000).",
        ),
        opt={"body": InviteRequest, "example": {"count": 10}},
    )
    async def invite(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> InviteCodes:
        """``count`` fresh invite codes, shown this once; each enters one entrant."""
        body = await read_body(request, InviteRequest)
        authorization = request.headers.get("authorization")
        return await tournaments_of(request).invite(tournament_id, body, authorization)

    @post(
        "/{tournament_id:str}/rounds/{round_number:int}/deal",
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
        authorization = request.headers.get("authorization")
        return await tournaments_of(request).open_round(
            tournament_id, round_number, authorization, idempotency_key
        )

    @post(
        "/{tournament_id:str}/rounds/{round_number:int}/start",
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
            e409="The round has started already (`round-started`), nobody is seated in it "
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
        authorization = request.headers.get("authorization")
        return await tournaments_of(request).start_round(tournament_id, round_number, authorization)

    @get(
        "/{tournament_id:str}/rounds/{round_number:int}",
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
            **{k: v for k, v in _READ_ERRORS.items() if k != "e404"},
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
        summary="A lockstep round's calls: server-sent events, or a long poll",
        responses={
            200: ResponseSpec(
                data_container=RoundCalls,
                description="The calls after `after` (a long poll), or with `Accept: "
                "text/event-stream` a stream of `call` events (data: a Call; id: its index) "
                "ending with an `end` event (data: the RoundStatus).",
                generate_examples=False,
            ),
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                503,
                e404="No such tournament (`unknown-tournament`) or round (`unknown-round`).",
                e409="The tournament is async: nothing is called (`not-lockstep`).",
                e503="The store is unavailable, or this server follows as many rounds as it "
                "may (`too-many-listeners`): try again after `Retry-After`.",
                **{k: v for k, v in _READ_ERRORS.items() if k != "e404"},
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
        if "text/event-stream" in request.headers.get("accept", ""):
            start = int(last_event_id) if last_event_id is not None else after
            events = await tournaments.round_stream(tournament_id, round_number, access, start)
            return Stream(
                events,
                media_type="text/event-stream",
                headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            )
        gone = asyncio.ensure_future(_until_gone(request))
        try:
            calls = await tournaments.round_calls(
                tournament_id, round_number, access, after, wait, gone
            )
        finally:
            gone.cancel()
        return Response(calls, headers={"Cache-Control": "no-store"})

    @get(
        "/{tournament_id:str}/standings",
        summary="The standings",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            503,
            e400="A tournament id over 64 characters, or a `player` that is no name "
            "(empty, over 64 characters, invisible characters).",
            e404="No such tournament (`unknown-tournament`), or no entrant of it named "
            "`player` (`unknown-entrant`).",
            e409="`player` on a tournament still open (`not-closed`): an entrant's games are "
            "listed after the close.",
            **{k: v for k, v in _READ_ERRORS.items() if k != "e404"},
        ),
    )
    async def standings(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        player: Annotated[
            str | None,
            QueryParameter(
                name="player",
                min_length=1,
                max_length=64,
                description="Also list this entrant's finished games, each with its "
                "percentage of the round's par, once the tournament has closed. The name is "
                "matched as entry tells names apart (case, width, spacing, look-alike "
                "letters); the answer's `player` is the name as entered.",
            ),
        ] = None,
    ) -> Standings:
        """Every entrant's total over finished games, best first, equal totals sharing a rank.

        With ``player``, that entrant's games too (at most one a round, so the answer stays
        small): how each game compares with its round's par.
        """
        return await tournaments_of(request).standings(
            tournament_id, access_of(request), player=player
        )

    @get(
        "/{tournament_id:str}/settlement",
        summary="The settlement of the standings: nets, and the pairwise payments by page",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            503,
            e400="A malformed `cursor` or `limit`.",
            **{k: v for k, v in _READ_ERRORS.items() if k != "e400"},
        ),
    )
    async def settlement(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentIdParameter,
        payments: Annotated[
            bool,
            QueryParameter(
                name="payments",
                description="Also list the pairwise payments, a page at a time.",
            ),
        ] = False,
        cursor: Annotated[
            str | None,
            QueryParameter(
                name="cursor",
                max_length=21,
                pattern=CURSOR_PATTERN,
                description="Where the page starts: the `next_cursor` of the page before.",
            ),
        ] = None,
        limit: Annotated[
            int,
            QueryParameter(name="limit", ge=1, le=MAX_PAGE, description="Payments a page holds."),
        ] = MAX_PAGE,
    ) -> SettlementPage:
        """Every entrant pays every higher scorer the difference: the nets and standings.

        A net is the number of entrants times the entrant's total, less the sum of all
        totals (the SDK's ``cardproof.tournaments.settle`` computes the same), so the
        answer grows with the entrants. The payments themselves are one per pair, so they
        come only with ``payments=true``, at most 1,000 a page: follow ``next_cursor``.
        """
        return await tournaments_of(request).settlement(
            tournament_id, access_of(request), payments=payments, cursor=cursor, limit=limit
        )

    @post(
        "/{tournament_id:str}/close",
        status_code=200,
        summary="Close a tournament now (its organizer)",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            503,
            e403="Another organizer's tournament (`not-your-tournament`).",
            e404="No such tournament (`unknown-tournament`).",
            e409="The tournament is closed already (`closed`).",
        ),
        opt={"body": CloseRequest, "example": {}},
    )
    async def close(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> Tournament:
        """End entry and play now; the round seeds are revealed from this moment."""
        await read_body(request, CloseRequest)
        authorization = request.headers.get("authorization")
        return await tournaments_of(request).close(tournament_id, authorization)

    @get(
        "/{tournament_id:str}/export",
        summary="The whole record of a closed tournament",
        responses={
            200: ResponseSpec(
                data_container=TournamentExport,
                description="The record, streamed as one JSON document.",
                generate_examples=False,
            ),
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                503,
                e409="The tournament has not closed yet (`not-closed`).",
                **{k: v for k, v in _READ_ERRORS.items() if k != "e409"},
            ),
        },
    )
    async def export(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> Stream:
        """Seeds, every finished game (log, total, receipt), standings and the public keys.

        Streamed as it is read from the store. ``cardproof verify --tournament FILE``
        re-checks it end to end.
        """
        chunks = await tournaments_of(request).export(tournament_id, access_of(request))
        return Stream(chunks, media_type="application/json")
