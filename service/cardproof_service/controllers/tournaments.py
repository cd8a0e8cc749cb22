"""``/v1/tournaments``: tournaments that deal every entrant the same committed deals."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import Parameter

from cardproof.models import Tournament, TournamentCreated, TournamentRequest
from cardproof_service import examples
from cardproof_service.bodies import read_body
from cardproof_service.organizers import authenticate
from cardproof_service.problems import problem_responses
from cardproof_service.tournaments import Tournaments

TournamentIdParameter = Annotated[
    str, Parameter(description="The tournament id from POST /v1/tournaments.", max_length=64)
]


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
            e422="A variant option it does not take (`unknown-option`), `closes_at` not after "
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
        responses=problem_responses(
            400,
            401,
            403,
            404,
            503,
            e401="An invite-only tournament is read with its organizer's key.",
            e403="An invite-only tournament of another organizer (`not-your-tournament`).",
            e404="No such tournament (`unknown-tournament`).",
        ),
    )
    async def read(
        self, request: Request[Any, Any, Any], tournament_id: TournamentIdParameter
    ) -> Tournament:
        """The tournament, its round seed hashes, and the seeds once it has closed."""
        authorization = request.headers.get("authorization")
        return await tournaments_of(request).read(tournament_id, authorization)
