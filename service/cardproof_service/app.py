"""The app factory: controllers, problem details, limits, the OpenAPI document."""

from __future__ import annotations

import threading

from litestar import Litestar

from cardproof.solvers import serpent
from cardproof_service.controllers import (
    HealthController,
    ScoringController,
    SolveController,
    VariantsController,
    VerifyController,
)
from cardproof_service.openapi import install_exact_schemas, openapi_config
from cardproof_service.problems import problem_details_plugin
from cardproof_service.settings import Settings


def _warm_up() -> None:
    """Build the serpent solver's path table in a thread, so the first solve is fast."""
    threading.Thread(target=serpent.prepare, name="cardproof-warm-up", daemon=True).start()


def create_app(settings: Settings | None = None) -> Litestar:
    """Build the cardproof app (settings from the environment unless given)."""
    settings = settings or Settings.from_env()
    app = Litestar(
        route_handlers=[
            VariantsController,
            ScoringController,
            VerifyController,
            SolveController,
            HealthController,
        ],
        plugins=[problem_details_plugin()],
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        on_startup=[_warm_up] if settings.warm_up else [],
    )
    install_exact_schemas(app)
    return app
