"""Plumbing: what every domain stands on: settings, keys, problems, limits, time, metrics, logs.

Nothing here knows a card or a tournament. The settings are read once from the
environment (:mod:`.settings`), the secrets from their variables or files (:mod:`.keys`);
every error is a problem-details exception made here (:mod:`.problems`); a client's
rate window and address (:mod:`.limits`), the one clock (:mod:`.times`), the
``Idempotency-Key`` header (:mod:`.idempotency`), the metrics (:mod:`.metrics`) and the
request logs (:mod:`.observability`) are here too. The domains above import these names
from this package, never from its modules.
"""

from cardproof_service.plumbing.idempotency import KEY_RULE, REPLAY_WINDOW, IdempotencyKey
from cardproof_service.plumbing.keys import KeyConfigError, Keys, generate, load_keys
from cardproof_service.plumbing.limits import RateLimiter, client_id
from cardproof_service.plumbing.metrics import (
    GAMES_FINISHED,
    GAMES_STARTED,
    METRICS_CONTENT_TYPE,
    MULTIPROCESS_DIR,
    VERIFY_FAILURES,
    RequestMetrics,
    exposition,
    metered,
)
from cardproof_service.plumbing.observability import (
    REQUEST_ID_HEADER,
    log_access,
    logging_config,
    request_id_of,
)
from cardproof_service.plumbing.offences import report as report_offence
from cardproof_service.plumbing.problems import (
    PROBLEM_MEDIA_TYPE,
    UNAUTHORIZED_CODES,
    come_back,
    conflict,
    not_found,
    problem,
    problem_body,
    unauthorized,
)
from cardproof_service.plumbing.settings import DoorSettings, Settings, SettingsError
from cardproof_service.plumbing.times import (
    DAY,
    now,
    rfc3339,
    rfc3339_ms,
    tournament_closed,
    tournament_ttl,
)

__all__ = [
    "DAY",
    "GAMES_FINISHED",
    "GAMES_STARTED",
    "KEY_RULE",
    "METRICS_CONTENT_TYPE",
    "MULTIPROCESS_DIR",
    "PROBLEM_MEDIA_TYPE",
    "REPLAY_WINDOW",
    "REQUEST_ID_HEADER",
    "UNAUTHORIZED_CODES",
    "VERIFY_FAILURES",
    "DoorSettings",
    "IdempotencyKey",
    "KeyConfigError",
    "Keys",
    "RateLimiter",
    "RequestMetrics",
    "Settings",
    "SettingsError",
    "client_id",
    "come_back",
    "conflict",
    "exposition",
    "generate",
    "load_keys",
    "log_access",
    "logging_config",
    "metered",
    "not_found",
    "now",
    "problem",
    "problem_body",
    "report_offence",
    "request_id_of",
    "rfc3339",
    "rfc3339_ms",
    "tournament_closed",
    "tournament_ttl",
    "unauthorized",
]
