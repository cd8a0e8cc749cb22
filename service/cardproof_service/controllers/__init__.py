"""One controller per resource."""

from cardproof_service.controllers.deals import CommitmentsController, DealsController
from cardproof_service.controllers.health import HealthController
from cardproof_service.controllers.keys import KeysController
from cardproof_service.controllers.metrics import MetricsController
from cardproof_service.controllers.pages import PagesController
from cardproof_service.controllers.rounds import RoundsController
from cardproof_service.controllers.scoring import ScoringController
from cardproof_service.controllers.solve import SolveController
from cardproof_service.controllers.tournaments import TournamentsController
from cardproof_service.controllers.variants import VariantsController
from cardproof_service.controllers.verify import VerifyController
from cardproof_service.controllers.web import WebController, static_router

__all__ = [
    "CommitmentsController",
    "DealsController",
    "HealthController",
    "KeysController",
    "MetricsController",
    "PagesController",
    "RoundsController",
    "ScoringController",
    "SolveController",
    "TournamentsController",
    "VariantsController",
    "VerifyController",
    "WebController",
    "static_router",
]
