"""``GET /metrics``: the service's metrics in Prometheus text format."""

from __future__ import annotations

from litestar import Controller, Response, get

from cardproof_service.metrics import CONTENT_TYPE, exposition
from cardproof_service.problems import probe_responses


class MetricsController(Controller):
    """Prometheus scrape endpoint (not rate limited)."""

    tags = ("operations",)

    @get(
        "/metrics",
        operation_id="getMetrics",
        summary="Metrics (Prometheus text format)",
        cache=False,
        media_type=CONTENT_TYPE,
        responses=probe_responses(),
    )
    async def metrics(self) -> Response[bytes]:
        """Requests, games, verification failures and store calls, summed over workers."""
        return Response(exposition(), media_type=CONTENT_TYPE)
