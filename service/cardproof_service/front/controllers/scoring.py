"""``POST /v1/score``: score a finished layout (no deal, no signature)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post

from cardproof.cards import parse_cards
from cardproof.errors import RuleError
from cardproof.games import variant
from cardproof.games.grid import GridGame
from cardproof.hands import Score
from cardproof.models import ScoreRequest
from cardproof_service.front import examples
from cardproof_service.front.bodies import read_body
from cardproof_service.front.errors import problem_responses


def score_layout(body: ScoreRequest) -> Score:
    """Score a 5x5 layout under the variant's options (checks cards and options)."""
    cls = variant(body.variant)
    if not issubclass(cls, GridGame):
        raise RuleError(
            "no-layout", f"{cls.id} is not played on a 5x5 grid: use /v1/verify", field="variant"
        )
    options = cls.parse_options(body.options)
    cards = []
    for r, row in enumerate(body.layout):
        cards.extend(parse_cards(row, field=f"layout[{r}]"))
    cls.check_cards(cards, locate=lambda i: f"layout[{i // 5}][{i % 5}]")
    return cls.score_layout(cards, options)


class ScoringController(Controller):
    """Pure scoring for apps that deal themselves."""

    path = "/v1/score"
    tags = ("scoring",)

    @post(
        "",
        operation_id="scoreLayout",
        status_code=200,
        summary="Score a finished layout",
        responses=problem_responses(
            400,
            413,
            422,
            e422="A card twice (`duplicate-card`), a joker in a game without one "
            "(`card-not-in-deck`), an option the variant does not take (`unknown-option`), a "
            "variant not played on a 5x5 grid (`no-layout`).",
        ),
        opt={"body": ScoreRequest, "example": examples.SCORE},
    )
    async def score(self, request: Request[Any, Any, Any]) -> Score:
        """Score a 5x5 grid: rows, columns (and diagonals where the options say)."""
        return score_layout(await read_body(request, ScoreRequest))
