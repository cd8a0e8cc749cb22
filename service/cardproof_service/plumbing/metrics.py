"""Prometheus metrics: what is counted and timed, and the ``GET /metrics`` text.

Requests by route template, method and status, with a latency histogram; games started
and finished by variant; ``POST /v1/verify`` refusals by problem code; store calls by
operation, timed, and the ones that failed; requests refused with 429, by reason.

Several worker processes (``cardproof serve --workers N``) each count their own
requests. ``cardproof serve`` then sets ``PROMETHEUS_MULTIPROC_DIR`` to a fresh
directory before the workers start, every worker writes its samples there, and
``/metrics`` (answered by any worker) sums them, as prometheus-client's multiprocess
mode does. An operator who runs the app under another server can set it the same way.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Coroutine
from inspect import isasyncgenfunction
from typing import Any, Final, cast

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

from cardproof_service.store import Store, StoreUnavailable

MULTIPROCESS_DIR: Final = "PROMETHEUS_MULTIPROC_DIR"
METRICS_CONTENT_TYPE: Final = CONTENT_TYPE_LATEST.removesuffix("; charset=utf-8")
"""The exposition's media type; the framework adds the charset of ``text/`` types."""
_FAST_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

REQUESTS: Final = Counter(
    "cardproof_http_requests",
    "HTTP requests answered, by route template, method and status.",
    ["route", "method", "status"],
)
REQUEST_SECONDS: Final = Histogram(
    "cardproof_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template and method.",
    ["route", "method"],
    buckets=(*_FAST_BUCKETS, 2.5, 5.0, 10.0),
)
GAMES_STARTED: Final = Counter(
    "cardproof_games_started", "Deals opened (plain and tournament), by variant.", ["variant"]
)
GAMES_FINISHED: Final = Counter(
    "cardproof_games_finished",
    "Games played to their end, move by move or as a whole log, by variant.",
    ["variant"],
)
VERIFY_FAILURES: Final = Counter(
    "cardproof_verify_failures",
    "Logs POST /v1/verify refused, by problem code (`unreadable` for a 400).",
    ["code"],
)
STORE_SECONDS: Final = Histogram(
    "cardproof_store_call_duration_seconds",
    "Time a store call took (failed ones too), by store and operation.",
    ["store", "operation"],
    buckets=_FAST_BUCKETS,
)
STORE_ERRORS: Final = Counter(
    "cardproof_store_errors",
    "Store calls that failed because the store was unavailable, by store and operation.",
    ["store", "operation"],
)
RATE_LIMITED: Final = Counter(
    "cardproof_rate_limited",
    "Requests refused with 429, by reason (`rate`, `games-in-flight`, `daily-quota`, "
    "`organizer-quota`, ...).",
    ["reason"],
)


def exposition() -> bytes:
    """The metrics in Prometheus text format: every worker's, summed, in multiprocess mode."""
    if os.environ.get(MULTIPROCESS_DIR):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)


class RequestMetrics:
    """Counts and times answered requests; label children are cached per (route, method)."""

    def __init__(self) -> None:
        """No label set seen yet."""
        self._timers: dict[tuple[str, str], Any] = {}
        self._counters: dict[tuple[str, str, int], Any] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        """One answered request."""
        timer = self._timers.get((route, method))
        if timer is None:
            timer = self._timers[route, method] = REQUEST_SECONDS.labels(route, method)
        counter = self._counters.get((route, method, status))
        if counter is None:
            counter = REQUESTS.labels(route, method, str(status))
            self._counters[route, method, status] = counter
        timer.observe(seconds)
        counter.inc()


class _MeteredStore:
    """A store whose every coroutine method is timed and whose failures are counted."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.name = store.name

    def __getattr__(self, operation: str) -> Any:
        method = getattr(self._store, operation)
        if not callable(method) or operation.startswith("_") or isasyncgenfunction(method):
            return method  # a subscription (round_news) is not one call to time
        timer = STORE_SECONDS.labels(self.name, operation)
        errors = STORE_ERRORS.labels(self.name, operation)
        call = cast(Callable[..., Coroutine[Any, Any, Any]], method)

        async def metered(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            except StoreUnavailable:
                errors.inc()
                raise
            finally:
                timer.observe(time.perf_counter() - start)

        setattr(self, operation, metered)  # found directly from now on
        return metered


def metered(store: Store) -> Store:
    """``store`` with every call timed and every unavailable answer counted.

    The metrics are ``cardproof_store_call_duration_seconds`` and
    ``cardproof_store_errors``.
    """
    return cast(Store, _MeteredStore(store))


__all__ = [
    "GAMES_FINISHED",
    "GAMES_STARTED",
    "METRICS_CONTENT_TYPE",
    "RATE_LIMITED",
    "VERIFY_FAILURES",
    "RequestMetrics",
    "exposition",
    "metered",
]
