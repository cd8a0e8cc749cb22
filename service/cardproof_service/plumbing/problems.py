"""Problems: the RFC 9457 problem-details errors every part of the service raises.

A problem is ``application/problem+json`` with ``type``, ``title``, ``status`` and
``detail``; rule errors add ``code`` and ``field``, illegal moves add ``move_index``.
The helpers here make them (404 :func:`not_found`, 409 :func:`conflict`, 401
:func:`unauthorized`, a 429 or 503 to :func:`come_back` from); the web front turns
every other exception into one and documents them in the spec
(:mod:`cardproof_service.front.errors`).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, Final

import msgspec
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.models import Problem
from cardproof_service.plumbing.metrics import RATE_LIMITED

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem(
    status: int, detail: str, *, type_: str = "about:blank", **extra: Any
) -> ProblemDetailsException:
    """A problem-details exception with the standard title of ``status``.

    ``extra`` holds members the ``Problem`` schema declares, and no other: a client
    generated from the spec reads every member it may get.
    """
    check_members(extra)
    return ProblemDetailsException(
        status_code=status,
        title=HTTPStatus(status).phrase,
        detail=detail,
        type_=type_,
        extra={k: v for k, v in extra.items() if v is not None},
    )


PROBLEM_MEMBERS: Final = frozenset(field.encode_name for field in msgspec.structs.fields(Problem))
"""The members the spec's ``Problem`` declares: those a problem answer may carry."""


def check_members(extra: dict[str, Any]) -> None:
    """Refuse (``ValueError``) a problem member that ``Problem`` does not declare."""
    undeclared = set(extra) - PROBLEM_MEMBERS
    if undeclared:
        raise ValueError(f"problem members not declared in Problem: {sorted(undeclared)}")


def not_found(detail: str, code: str) -> ProblemDetailsException:
    """404 naming what is missing."""
    return problem(404, detail, type_="/problems/not-found", code=code)


def conflict(detail: str, code: str, **extra: Any) -> ProblemDetailsException:
    """409: the request does not fit the resource's state."""
    return problem(409, detail, type_="/problems/conflict", code=code, **extra)


def problem_body(status: int, detail: str, *, type_: str, **extra: Any) -> bytes:
    """The JSON of a problem answered outside the plugin (by a middleware), in its form."""
    check_members(extra)
    fields = {"status": status, "type": type_, "title": HTTPStatus(status).phrase}
    return msgspec.json.encode({**fields, "detail": detail, **extra})


UNAUTHORIZED_CODES: Final = {
    "credential-missing": "no `Authorization` header",
    "credential-malformed": "not `Bearer` and a key or token of the form asked for",
    "credential-invalid": "a key or token the service never issued (or no longer knows)",
    "credential-expired": "an entrant token past its tournament's close",
}
"""The ``code`` of a 401, what it means (the spec's 401 descriptions list them)."""


def unauthorized(detail: str, realm: str, code: str) -> ProblemDetailsException:
    """401 with ``WWW-Authenticate: Bearer``: a credential missing, malformed or refused.

    ``code`` says which (one of :data:`UNAUTHORIZED_CODES`).
    """
    if code not in UNAUTHORIZED_CODES:
        raise ValueError(f"not a 401 code: {code}")
    refused = problem(401, detail, type_="/problems/unauthorized", code=code)
    refused.headers = {"WWW-Authenticate": f'Bearer realm="{realm}"'}
    return refused


def come_back(
    status: int, detail: str, code: str, retry_after: int, *, limited: str | None = None
) -> ProblemDetailsException:
    """A refusal to come back from after ``retry_after`` seconds (429 or 503).

    ``limited``: the reason a 429 counts under in ``cardproof_rate_limited_total``.
    """
    if limited is not None:
        RATE_LIMITED.labels(limited).inc()
    refused = problem(status, detail, type_=f"/problems/{code}", code=code)
    refused.headers = {"retry-after": str(retry_after)}
    return refused
