"""Every route of the app: one controller per resource, and the static files."""

from __future__ import annotations

from litestar.types import ControllerRouterHandler

from cardproof_service.front.controllers import (
    CommitmentsController,
    DealsController,
    HealthController,
    KeysController,
    LogController,
    MetricsController,
    PagesController,
    RoundsController,
    ScoringController,
    SolveController,
    TournamentsController,
    VariantsController,
    VerifyController,
    WebController,
    static_router,
)


def route_handlers() -> list[ControllerRouterHandler]:
    """The controllers in the order the spec lists their paths, then ``/static``."""
    return [
        VariantsController,
        ScoringController,
        VerifyController,
        SolveController,
        CommitmentsController,
        DealsController,
        TournamentsController,
        RoundsController,
        KeysController,
        LogController,
        HealthController,
        MetricsController,
        PagesController,
        WebController,
        static_router(),
    ]


__all__ = ["route_handlers"]
