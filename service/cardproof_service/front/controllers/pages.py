"""``/tournaments/{id}``: the standings page, HTML for people (not part of the API schema)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, MediaType, Request, Response, get
from litestar.params import Parameter, QueryParameter
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof_service.front.controllers.tournaments import access_of
from cardproof_service.front.pages import (
    CONTENT_SECURITY_POLICY,
    GATE_POLICY,
    StandingsPages,
    invite_gate,
)
from cardproof_service.front.site import prefers_html
from cardproof_service.tournaments import Scoreboard, Tournaments


class PagesController(Controller):
    """Server-rendered pages; errors are problem details, as in the API."""

    path = "/tournaments"
    include_in_schema = False

    @get("/{tournament_id:str}", media_type=MediaType.HTML)
    async def standings(
        self,
        request: Request[Any, Any, Any],
        tournament_id: Annotated[str, Parameter(max_length=64)],
        page: Annotated[int, QueryParameter(ge=1, le=10_000)] = 1,
    ) -> Response[str]:
        """The tournament's standings page, readable as ``GET /v1/tournaments/{id}`` is.

        Public tournaments for anyone, invite-only ones for their organizer
        (``Authorization: Bearer cpo_...``) or with their invite code (``X-Invite-Code``).
        ``?page=N``: a large field's later entrants.
        """
        tournaments: Tournaments = request.app.state.tournaments
        scoreboard: Scoreboard = request.app.state.scoreboard
        pages: StandingsPages = request.app.state.standings_pages
        try:
            html = await pages.page(
                tournaments, scoreboard, tournament_id, access_of(request), page
            )
        except ProblemDetailsException as refused:
            # an invite-only tournament, and a browser that sent no credential: the page
            # asks for the invite code or the entry, and reads itself again with it
            if refused.status_code != 401 or not prefers_html(request.headers.get("accept")):
                raise
            return Response(
                content=invite_gate(tournament_id),
                status_code=401,
                media_type=MediaType.HTML,
                headers={
                    "Content-Security-Policy": GATE_POLICY,
                    "Cache-Control": "no-store",
                    "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "no-referrer",
                    **(refused.headers or {}),
                },
            )
        return Response(
            content=html,
            media_type=MediaType.HTML,
            headers={
                "Content-Security-Policy": CONTENT_SECURITY_POLICY,
                "Cache-Control": "no-store",
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",  # its address names the tournament
            },
        )
