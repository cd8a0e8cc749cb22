"""Errors as answers: every exception turned into problem details, and documented in the spec.

Every error the service returns is ``application/problem+json`` (the problems are made in
:mod:`cardproof_service.plumbing.problems`). ``ParseError`` is 400, ``RuleError`` 422;
Litestar's own HTTP errors (404, 405, 413) keep their status; the store's and the
solvers' refusals are 429 or 503 with ``Retry-After``; anything unexpected is a 500 that
names no internals.
"""

from __future__ import annotations

import logging
import re
from http import HTTPStatus
from typing import Any, Final

import msgspec
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)

from cardproof.errors import IllegalMove, ParseError, RuleError
from cardproof.models import Problem
from cardproof_service.deals import SolverBusy, TooManySearches
from cardproof_service.front.expected import reword, reword_parameter
from cardproof_service.plumbing import (
    KEY_RULE,
    PROBLEM_MEDIA_TYPE,
    UNAUTHORIZED_CODES,
    come_back,
    problem,
)
from cardproof_service.store import (
    OverDailyQuota,
    OverOrganizerQuota,
    StoreUnavailable,
    TooManyGames,
)

RETRY_AFTER_SECONDS = 1
log = logging.getLogger("cardproof.service")

_DESCRIPTIONS = {
    400: "The request cannot be read: bad JSON, a wrong type, an unknown field, a bad "
    "card or move text. `field` names the place.",
    401: "This needs an organizer key: `Authorization: Bearer cpo_...` (missing, malformed or "
    "unknown); the answer has `WWW-Authenticate: Bearer`.",
    403: "The key is valid but this resource belongs to another organizer.",
    404: "No such resource (a deal may have expired; a commitment may be unknown or expired).",
    409: "The request conflicts with the resource's state: a commitment used twice, a move "
    "for an index that is not next, a different move for an index already taken, a game "
    "that is over or not over yet.",
    413: "The request body is over the size limit.",
    422: "The request reads fine but breaks a rule: a duplicate card, an option the "
    "variant does not take, an illegal move (`move_index`, `code`), a log too short.",
    429: "Too many requests from this client (`rate-limited`): come back after `Retry-After` "
    "seconds. Every limited answer carries `RateLimit-Limit`, `RateLimit-Remaining`, "
    "`RateLimit-Reset` and `RateLimit-Policy`.",
    500: "The server failed; nothing about the request is at fault.",
    503: "The store is unavailable: try again after `Retry-After` seconds. Pure endpoints "
    "(score, solve, verify of a revealed seed pair or a card order) keep answering.",
}


def from_parse_error(error: ParseError) -> ProblemDetailsException:
    """400 for input that cannot be read."""
    return problem(400, error.message, type_="/problems/parse-error", field=error.field)


def from_rule_error(error: RuleError) -> ProblemDetailsException:
    """422 for input the rules forbid; illegal moves carry their index."""
    if isinstance(error, IllegalMove):
        return problem(
            422,
            error.message,
            type_="/problems/illegal-move",
            code=error.code,
            field=error.field,
            move_index=error.move_index,
        )
    return problem(
        422, error.message, type_="/problems/rule-error", code=error.code, field=error.field
    )


def from_http_exception(error: HTTPException) -> ProblemDetailsException:
    """Litestar's own errors (404, 405, 413, ...) as problem details."""
    if isinstance(error, ProblemDetailsException):
        return error
    if isinstance(error, ValidationException) and isinstance(error.extra, list) and error.extra:
        first = error.extra[0]  # a path, query or header parameter that does not fit
        field = str(first.get("key", "")) or None
        message = str(first.get("message", "invalid value"))
        if field == "idempotency_key":
            field, message = "Idempotency-Key", KEY_RULE
        else:
            message = reword_parameter(message, field or "")
        return from_parse_error(
            ParseError(f"{field}: {message}" if field else message, field=field)
        )
    status = error.status_code
    phrase = HTTPStatus(status).phrase
    detail = (
        error.detail
        if error.detail and error.detail != phrase
        else _DESCRIPTIONS.get(status, phrase)
    )
    converted = problem(status, detail)
    converted.headers = error.headers
    return converted


def from_store_unavailable(error: StoreUnavailable) -> ProblemDetailsException:
    """503 with ``Retry-After`` while the store is down: nothing was recorded."""
    log.warning("store unavailable: %s", error)
    detail = "the store is unavailable; nothing was recorded: try again"
    return come_back(503, detail, "unavailable", RETRY_AFTER_SECONDS)


def from_too_many_games(error: TooManyGames) -> ProblemDetailsException:
    """429: the client holds its cap of unfinished games; nothing was stored."""
    detail = (
        f"this client has {error.limit} games in flight, the most it may: finish one, or "
        f"wait until the oldest expires (in {error.retry_after} s)"
    )
    return come_back(429, detail, "too-many-games", error.retry_after, limited="games-in-flight")


def from_over_daily_quota(error: OverDailyQuota) -> ProblemDetailsException:
    """429: the client opened its quota of deals today; nothing was stored."""
    detail = (
        f"this client has opened {error.limit} deals today (UTC), the most it may: the "
        f"quota starts again in {error.retry_after} s"
    )
    return come_back(429, detail, "daily-quota", error.retry_after, limited="daily-quota")


def from_over_organizer_quota(error: OverOrganizerQuota) -> ProblemDetailsException:
    """429: the organizer made its tournaments, or issued its invite codes, of today."""
    made = "made" if error.what == "tournaments" else "issued"
    kind = "tournaments" if error.what == "tournaments" else "invite codes"
    detail = (
        f"this organizer has {made} {error.used} of its {error.limit} {kind} a day (UTC), "
        f"too few left for this request: the quota starts again in {error.retry_after} s"
    )
    return come_back(429, detail, "organizer-quota", error.retry_after, limited="organizer-quota")


def from_solver_busy(error: SolverBusy) -> ProblemDetailsException:
    """503: every solver is busy and the queue is full; nothing was started."""
    detail = f"every solver is busy and the queue is full: try again in {error.retry_after} s"
    return come_back(503, detail, "solver-busy", error.retry_after)


def from_too_many_searches(error: TooManySearches) -> ProblemDetailsException:
    """429: the client has its cap of searches running or waiting."""
    detail = (
        f"this client has {error.limit} searches running or waiting, the most it may: "
        f"try again in {error.retry_after} s"
    )
    return come_back(429, detail, "too-many-searches", error.retry_after, limited="searches")


def from_unexpected(error: Exception) -> ProblemDetailsException:
    """500 for a bug: logged here, never described to the client."""
    log.error("unhandled error", exc_info=error)
    return problem(500, "the server failed to handle this request")


def from_decode_error(error: msgspec.DecodeError, body_type: Any = None) -> ParseError:
    """A body decode failure as a ``ParseError`` naming the field (``layout[1]``).

    With ``body_type``, the detail says what the field takes in words (its values, or its
    description in the spec), never a regular expression.
    """
    message = str(error)
    if not isinstance(error, msgspec.ValidationError):
        return ParseError(f"the body is not valid JSON: {message}")
    message, _, where = message.partition(" - at `$")
    field = where.rstrip("`").lstrip(".")
    named = re.fullmatch(r"Object (contains unknown|missing required) field `(.*)`", message)
    if named:
        field = f"{field}.{named[2]}" if field else named[2]
        adjective = "unknown" if named[1] == "contains unknown" else "missing required"
        return ParseError(f"{adjective} field {field!r}", field=field)
    if body_type is not None and field:
        message = reword(message, field, body_type)
    return ParseError(f"{field}: {message}" if field else message, field=field or None)


def problem_details_plugin() -> ProblemDetailsPlugin:
    """The plugin that turns every error into problem+json."""
    return ProblemDetailsPlugin(
        ProblemDetailsConfig(
            enable_for_all_http_exceptions=True,
            exception_to_problem_detail_map={
                ParseError: from_parse_error,
                RuleError: from_rule_error,
                HTTPException: from_http_exception,
                StoreUnavailable: from_store_unavailable,
                TooManyGames: from_too_many_games,
                OverDailyQuota: from_over_daily_quota,
                OverOrganizerQuota: from_over_organizer_quota,
                SolverBusy: from_solver_busy,
                TooManySearches: from_too_many_searches,
                Exception: from_unexpected,
            },
        )
    )


def problem_responses(*statuses: int, **described: str) -> dict[int, ResponseSpec]:
    """OpenAPI response entries for the errors an operation can return.

    429 and 500 always: every operation but the probes is rate limited. ``described``
    gives an operation's own text for a status, as ``e422="..."``.
    """
    return _responses((*statuses, 429), described)


def probe_responses() -> dict[int, ResponseSpec]:
    """The error responses of ``/healthz``, ``/readyz`` and ``/metrics`` (not rate limited)."""
    return _responses((), {})


UNAUTHORIZED_NOTE: Final = (
    " `code`: "
    + "; ".join(f"`{code}`, {meaning}" for code, meaning in UNAUTHORIZED_CODES.items())
    + "."
)
"""What every 401's description ends with: the codes a 401 carries."""


def _description(status: int, described: dict[str, str]) -> str:
    """An error response's description: the operation's own, or the general one."""
    text = described.get(f"e{status}", _DESCRIPTIONS[status])
    return text + UNAUTHORIZED_NOTE if status == 401 else text


def _responses(statuses: tuple[int, ...], described: dict[str, str]) -> dict[int, ResponseSpec]:
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=_description(status, described),
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
        )
        for status in sorted({*statuses, 500})
    }
