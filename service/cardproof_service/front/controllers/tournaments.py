"""``/v1/tournaments``: tournaments that deal every entrant the same committed deals.

Creation, reading, entries, invites, standings, settlement, the close and the export;
a round's game and the lockstep rounds' endpoints are in :mod:`.rounds`.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, HttpMethod, Request, Response, get, post, route
from litestar.datastructures import CacheControlHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter, QueryParameter
from litestar.response import Stream

from cardproof.models import (
    MAX_TOURNAMENTS_PAGE,
    TOURNAMENT_CURSOR_PATTERN,
    CloseRequest,
    Entry,
    EntryRequest,
    InviteCodes,
    InviteRequest,
    Standings,
    Tournament,
    TournamentCreated,
    TournamentExport,
    TournamentList,
    TournamentRequest,
)
from cardproof.tournaments import CURSOR_PATTERN, MAX_PAGE, SettlementPage
from cardproof_service.front import examples
from cardproof_service.front.bodies import authorization_of, read_body
from cardproof_service.front.errors import problem_responses
from cardproof_service.front.openapi import ORGANIZER_ONLY, TOURNAMENT_READERS
from cardproof_service.plumbing import IdempotencyKey, client_id, problem
from cardproof_service.tournaments import (
    NAME_PATTERN,
    Access,
    Entries,
    Scoreboard,
    Tournaments,
    authenticate,
    organizer_offered,
)

TournamentIdParameter = Annotated[
    str, Parameter(description="The tournament id from POST /v1/tournaments.", max_length=64)
]
READ_ERRORS = {
    "e401": "An invite-only tournament is read with its organizer's key, an entrant's token "
    "(`Authorization: Bearer ...`) or one of its invite codes (`X-Invite-Code`).",
    "e403": "An invite-only tournament of another organizer (`not-your-tournament`).",
    "e404": "No such tournament (`unknown-tournament`).",
}


def access_of(request: Request[Any, Any, Any]) -> Access:
    """Who reads: the ``Authorization`` header and the ``X-Invite-Code`` header."""
    headers = request.headers
    return Access(headers.get("authorization"), headers.get("x-invite-code"))


def tournaments_of(request: Request[Any, Any, Any]) -> Tournaments:
    """The app's tournaments service."""
    tournaments: Tournaments = request.app.state.tournaments
    return tournaments


def entries_of(request: Request[Any, Any, Any]) -> Entries:
    """The app's entries service (entrants, invite codes, round games)."""
    entries: Entries = request.app.state.entries
    return entries


def scoreboard_of(request: Request[Any, Any, Any]) -> Scoreboard:
    """The app's standings, settlements and exports."""
    scoreboard: Scoreboard = request.app.state.scoreboard
    return scoreboard


class TournamentsController(Controller):
    """Tournaments: creation by organizers (``Authorization: Bearer cpo_...``), reading."""

    path = "/v1/tournaments"
    tags = ("tournaments",)

    @post(
        "",
        operation_id="createTournament",
        security=ORGANIZER_ONLY,
        guards=[organizer_offered],
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
            "`opens_at` (`bad-window`) or already past (`closes-in-past`), a time more than "
            "ten years ahead (`bad-time`), a name with a character that may show as nothing "
            "(`invisible-character`) or no letter or digit (`empty-name`), `lockstep` with "
            "options that show every card or may deal an open game (`lockstep-needs-hidden`), "
            "a hidden variant `async` and public (`async-needs-invite`).",
            e429="Too many requests from this client (`rate-limited`), or this organizer's "
            "day (UTC) is spent (`organizer-quota`: `CARDPROOF_ORGANIZER_TOURNAMENTS_PER_DAY` "
            "tournaments, `CARDPROOF_ORGANIZER_INVITES_PER_DAY` invite codes): come back after "
            "`Retry-After` seconds.",
        ),
        opt={"body": TournamentRequest, "example": examples.TOURNAMENT},
    )
    async def create(self, request: Request[Any, Any, Any]) -> TournamentCreated:
        """A tournament whose every round's seed is committed to now, and revealed at close.

        For invite-only entry the answer carries the invite code, this once.
        """
        tournaments = tournaments_of(request)
        organizer = await authenticate(tournaments.store, authorization_of(request))
        body = await read_body(request, TournamentRequest)
        return await tournaments.create(organizer, body)

    @route("", http_method=HttpMethod.OPTIONS, include_in_schema=False, status_code=204)
    async def allow(self) -> Response[None]:
        """``Allow`` for ``/v1/tournaments``: its GET and its POST (and HEAD, added later).

        Written out because Litestar (2.25) registers a controller's handlers one at a
        time, in the order of their names, and a path's route keeps the OPTIONS answer
        made for its first handler alone (``Allow: OPTIONS, POST``). This one is named to
        come first, so the route has it from the start.
        """
        return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})

    @get(
        "",
        operation_id="listTournaments",
        security=ORGANIZER_ONLY,
        guards=[organizer_offered],
        summary="List your tournaments (organizers)",
        responses=problem_responses(
            400,
            401,
            503,
            e400="A `limit` outside 1..100, a `cursor` that is no `next_cursor`, or a query "
            "parameter it does not take.",
        ),
    )
    async def listing(
        self,
        request: Request[Any, Any, Any],
        limit: Annotated[
            int,
            QueryParameter(
                name="limit",
                ge=1,
                le=MAX_TOURNAMENTS_PAGE,
                description="Tournaments a page lists at most.",
            ),
        ] = 20,
        cursor: Annotated[
            str | None,
            QueryParameter(
                name="cursor",
                max_length=81,
                pattern=TOURNAMENT_CURSOR_PATTERN,
                description="Where the page starts: the `next_cursor` of the page before.",
            ),
        ] = None,
    ) -> TournamentList:
        """The tournaments the organizer key's organizer created, newest first, by page.

        Each line is a summary (id, name, variant, status, window); read one with
        ``GET /v1/tournaments/{id}``. Follow ``next_cursor`` until it is ``null``. A
        tournament is listed until it expires (its closing time plus the retention);
        tournaments created by a service without this endpoint were never listed.
        """
        unknown = sorted(set(request.query_params) - {"limit", "cursor"})
        if unknown:  # a misspelt `limit` or `cursor` would be silently ignored otherwise
            raise problem(
                400,
                f"unknown query parameter {unknown[0]!r}: this takes limit and cursor",
                type_="/problems/parse-error",
                field=unknown[0],
            )
        authorization = authorization_of(request)
        return await tournaments_of(request).listing(authorization, limit, cursor)

    @get(
        "/{tournament_id:str}",
        operation_id="getTournament",
        security=TOURNAMENT_READERS,
        summary="Read a tournament",
        responses=problem_responses(400, 401, 403, 404, 503, **READ_ERRORS),
    )
    async def read(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> Tournament:
        """The tournament, its round seed hashes, and the seeds once it has closed."""
        return await tournaments_of(request).read(tournament_id, access_of(request))

    @post(
        "/{tournament_id:str}/entries",
        operation_id="enterTournament",
        status_code=201,
        cache_control=CacheControlHeader(no_store=True),  # it carries the entrant's token
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
            "closed (`closed`), a lockstep tournament's first round has started "
            "(`entries-closed`, with `started_at`), or this address has made its limit of "
            "entries in this public tournament (`entries-per-address`, "
            "`CARDPROOF_ENTRIES_PER_ADDRESS`).",
            e422="A name with a character that may show as nothing (a control, format or "
            "default-ignorable character, an other symbol, a mark on no letter: "
            "`invisible-character`), or no letter or digit (`empty-name`); an "
            "`Idempotency-Key` used for another entry "
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
        address = client_id(request.scope, request.app.state.keyring.master)
        return await entries_of(request).enter(tournament_id, body, idempotency_key, address)

    @post(
        "/{tournament_id:str}/invites",
        operation_id="createInvites",
        security=ORGANIZER_ONLY,
        guards=[organizer_offered],
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
            e429="Too many requests from this client (`rate-limited`), or this organizer's "
            "day (UTC) is spent (`organizer-quota`: `CARDPROOF_ORGANIZER_TOURNAMENTS_PER_DAY` "
            "tournaments, `CARDPROOF_ORGANIZER_INVITES_PER_DAY` invite codes): come back after "
            "`Retry-After` seconds.",
        ),
        opt={"body": InviteRequest, "example": {"count": 10}},
    )
    async def invite(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> InviteCodes:
        """``count`` fresh invite codes, shown this once; each enters one entrant."""
        body = await read_body(request, InviteRequest)
        authorization = authorization_of(request)
        return await entries_of(request).invite(tournament_id, body, authorization)

    @get(
        "/{tournament_id:str}/standings",
        operation_id="getStandings",
        security=TOURNAMENT_READERS,
        summary="The standings",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            422,
            503,
            e400="A tournament id over 64 characters, or a `player` that is no name (empty, "
            "over 64 characters, a control character U+0000 to U+001F or U+007F).",
            e422="A `player` that no entrant could be named: a character that may show as "
            "nothing (`invisible-character`), no letter or digit (`empty-name`), over 64 "
            "characters "
            "once normalized (`name-too-long`).",
            e404="No such tournament (`unknown-tournament`), or no entrant of it named "
            "`player` (`unknown-entrant`).",
            e409="`player` on a tournament still open (`not-closed`): an entrant's games are "
            "listed after the close.",
            **{k: v for k, v in READ_ERRORS.items() if k != "e404"},
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
                pattern=NAME_PATTERN,
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
        return await scoreboard_of(request).standings(
            tournament_id, access_of(request), player=player
        )

    @get(
        "/{tournament_id:str}/settlement",
        operation_id="getSettlement",
        security=TOURNAMENT_READERS,
        summary="The settlement of the standings: nets, and the pairwise payments by page",
        responses=problem_responses(
            400,
            401,
            403,
            404,
            503,
            e400="A malformed `cursor` or `limit`.",
            **{k: v for k, v in READ_ERRORS.items() if k != "e400"},
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
        return await scoreboard_of(request).settlement(
            tournament_id, access_of(request), payments=payments, cursor=cursor, limit=limit
        )

    @post(
        "/{tournament_id:str}/close",
        operation_id="closeTournament",
        security=ORGANIZER_ONLY,
        guards=[organizer_offered],
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
        authorization = authorization_of(request)
        return await tournaments_of(request).close(tournament_id, authorization)

    @get(
        "/{tournament_id:str}/export",
        operation_id="exportTournament",
        security=TOURNAMENT_READERS,
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
                **{k: v for k, v in READ_ERRORS.items() if k != "e409"},
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
        chunks = await scoreboard_of(request).export(tournament_id, access_of(request))
        return Stream(chunks, media_type="application/json")
