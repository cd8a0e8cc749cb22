"""One controller per resource."""

from cardproof_service.controllers.health import HealthController
from cardproof_service.controllers.scoring import ScoringController
from cardproof_service.controllers.solve import SolveController
from cardproof_service.controllers.variants import VariantsController
from cardproof_service.controllers.verify import VerifyController

__all__ = [
    "HealthController",
    "ScoringController",
    "SolveController",
    "VariantsController",
    "VerifyController",
]
