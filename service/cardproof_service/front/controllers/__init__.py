"""One controller per resource."""

from cardproof_service.front.controllers.deals import CommitmentsController, DealsController
from cardproof_service.front.controllers.health import HealthController
from cardproof_service.front.controllers.keys import KeysController
from cardproof_service.front.controllers.log import LogController
from cardproof_service.front.controllers.metrics import MetricsController
from cardproof_service.front.controllers.pages import PagesController
from cardproof_service.front.controllers.rounds import RoundsController
from cardproof_service.front.controllers.scoring import ScoringController
from cardproof_service.front.controllers.solve import SolveController
from cardproof_service.front.controllers.tournaments import TournamentsController
from cardproof_service.front.controllers.variants import VariantsController
from cardproof_service.front.controllers.verify import VerifyController
from cardproof_service.front.controllers.web import WebController, static_router

__all__ = [
    "CommitmentsController",
    "DealsController",
    "HealthController",
    "KeysController",
    "LogController",
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
