"""``/healthz`` (the process answers) and ``/readyz`` (this replica can serve)."""

from __future__ import annotations

from litestar import Controller, get

from cardproof.models import Health, Readiness
from cardproof_service.problems import problem_responses


class HealthController(Controller):
    """Liveness and readiness probes."""

    tags = ("operations",)

    @get("/healthz", summary="Liveness probe", cache=False, responses=problem_responses())
    async def healthz(self) -> Health:
        """Answers while the process is up."""
        return Health(status="ok")

    @get("/readyz", summary="Readiness probe", cache=False, responses=problem_responses())
    async def readyz(self) -> Readiness:
        """Answers ready when every dependency this replica needs is reachable."""
        return Readiness(status="ready", checks={"store": "memory"})
