"""Whole numbers in a path or a query are written one way: plain digits.

Litestar reads an ``int`` query parameter as msgspec does without strictness (``1e2``
and ``100.0`` are 100) and an ``int`` path segment with Python's ``int`` (``01``,
``+1``, ``1_0``, `` 1`` and other scripts' digits pass). One value would then have many
spellings, each a cache key, a log line and a rate-limit bucket of its own, and a typo
would be read as a number. So before a route reads its parameters (after its guards: a
caller without a credential still hears 401 first), each whole-number parameter must be
written as :data:`WHOLE_NUMBER` says, or the request is a 400 naming it.

>>> bool(WHOLE_NUMBER.fullmatch("100")), bool(WHOLE_NUMBER.fullmatch("-1"))
(True, True)
>>> [bool(WHOLE_NUMBER.fullmatch(text)) for text in ("1e2", "100.0", "01", "+1", "-0", "٥")]
[False, False, False, False, False, False]
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

from litestar import Request
from litestar.handlers import HTTPRouteHandler
from litestar.params import ParameterKwarg

from cardproof_service.plumbing import problem

WHOLE_NUMBER: Final = re.compile(r"0|-?[1-9][0-9]{0,17}")
"""A whole number as the spec's examples write it: ASCII digits, no leading zero, an
optional minus; no exponent, point, plus, underscore or space."""

_PATH_PARAMETER: Final = re.compile(r"\{(\w+)(?::\w+)?\}")


@cache
def whole_number_parameters(
    handler: HTTPRouteHandler, template: str
) -> tuple[tuple[str, int], ...]:
    """The handler's whole-number parameters: (path name, segment) or (query name, -1).

    A path parameter is found by its place among the ``/`` segments of ``template``
    (the route's path, ``/rounds/{round_number}``).
    """
    fields = handler.parsed_fn_signature.parameters
    found: list[tuple[str, int]] = []
    in_path: set[str] = set()
    for index, segment in enumerate(template.split("/")):
        match = _PATH_PARAMETER.fullmatch(segment)
        if match is not None:
            in_path.add(match[1])
            field = fields.get(match[1])
            if field is not None and field.annotation is int:
                found.append((match[1], index))
    for name, field in fields.items():
        if field.annotation is not int or name in in_path:
            continue
        kwarg = field.kwarg_definition
        if kwarg is None:  # a plain annotation: Litestar reads it from the query
            found.append((name, -1))
        elif isinstance(kwarg, ParameterKwarg) and kwarg.header is None and kwarg.cookie is None:
            found.append((kwarg.query or getattr(kwarg, "name", None) or name, -1))
    return tuple(found)


async def whole_numbers_as_written(request: Request[Any, Any, Any]) -> None:
    """Refuse (400) a whole-number parameter not written in plain digits.

    Run as the app's ``before_request``: the route's guards have let it in, its
    parameters are not read yet. A coroutine, as Litestar runs a plain function in
    a worker thread.
    """
    handler = request.route_handler
    template: str = request.scope.get("path_template") or ""
    if not isinstance(handler, HTTPRouteHandler):
        return
    segments: list[str] | None = None
    for name, place in whole_number_parameters(handler, template):
        if place < 0:
            written = request.query_params.getall(name, [])
        else:
            segments = segments if segments is not None else request.scope["path"].split("/")
            written = [segments[place]] if place < len(segments) else []
        for text in written:
            if not WHOLE_NUMBER.fullmatch(text):
                raise problem(
                    400,
                    f"{name}: expected a whole number in plain digits, like 3, got {text[:20]!r}",
                    type_="/problems/parse-error",
                    field=name,
                )


__all__ = ["WHOLE_NUMBER", "whole_number_parameters", "whole_numbers_as_written"]
