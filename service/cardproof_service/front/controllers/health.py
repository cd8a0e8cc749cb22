"""``/healthz`` (the process answers) and ``/readyz`` (this replica can serve)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.openapi.datastructures import ResponseSpec

from cardproof.models import Health, Readiness
from cardproof_service.front.errors import probe_responses
from cardproof_service.store import Store, StoreUnavailable

_NOT_READY = ResponseSpec(
    data_container=Readiness, description="Not ready: a dependency does not answer."
)


class HealthController(Controller):
    """Liveness and readiness probes."""

    tags = ("operations",)

    @get(
        "/healthz",
        operation_id="getHealth",
        summary="Liveness probe",
        cache=False,
        responses=probe_responses(),
    )
    async def healthz(self) -> Health:
        """Answers while the process is up."""
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="getReadiness",
        summary="Readiness probe",
        cache=False,
        responses={**probe_responses(), 503: _NOT_READY},
    )
    async def readyz(self, request: Request[Any, Any, Any]) -> Response[Readiness]:
        """Ready (200) when every dependency this replica needs answers, else 503."""
        store: Store = request.app.state.store
        try:
            await store.ping()
        except StoreUnavailable as error:
            checks = {"store": f"{store.name}: unavailable ({error})"}
            return Response(Readiness(status="not-ready", checks=checks), status_code=503)
        return Response(Readiness(status="ready", checks={"store": f"{store.name}: ok"}))
