"""``GET /metrics``: the service's metrics in Prometheus text format."""

from __future__ import annotations

from litestar import Controller, Response, get

from cardproof_service.front.errors import probe_responses
from cardproof_service.plumbing import METRICS_CONTENT_TYPE, exposition


class MetricsController(Controller):
    """Prometheus scrape endpoint (not rate limited)."""

    tags = ("operations",)

    @get(
        "/metrics",
        operation_id="getMetrics",
        summary="Metrics (Prometheus text format)",
        cache=False,
        media_type=METRICS_CONTENT_TYPE,
        responses=probe_responses(),
    )
    async def metrics(self) -> Response[bytes]:
        """Requests, games, verification failures and store calls, summed over workers."""
        return Response(exposition(), media_type=METRICS_CONTENT_TYPE)
