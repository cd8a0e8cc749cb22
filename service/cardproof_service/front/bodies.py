"""Strict request-body decoding with the shared msgspec types.

Litestar's own body parsing coerces loosely (``"1"`` becomes ``1``) and drops the
location of an error; cardproof decodes the raw body itself, strictly, so the
schema in the spec is exactly what is enforced and every 400 names its field. One
allowance follows JSON Schema: a number with a zero fraction (``2.0``) is an integer.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.exceptions import ClientException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge

from cardproof.errors import ParseError
from cardproof_service.front.errors import from_decode_error

T = TypeVar("T")


def _integral(value: Any) -> Any:
    """``value`` with every float that has no fraction turned into an int (no recursion)."""
    root = [value]
    stack: list[tuple[list[Any] | dict[str, Any], Any]] = [(root, 0)]
    while stack:
        container, key = stack.pop()
        item = container[key]
        if isinstance(item, float) and item.is_integer():
            container[key] = int(item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            stack.extend((item, k) for k in item)
    return root[0]


def decode_body(raw: bytes, body_type: type[T]) -> T:
    """Decode ``raw`` JSON as ``body_type`` strictly (a ``ParseError`` naming the field)."""
    try:
        return msgspec.json.decode(raw, type=body_type, strict=True)
    except msgspec.ValidationError as error:
        typed_error = error
    except msgspec.DecodeError as error:
        raise from_decode_error(error, body_type) from None
    except (UnicodeDecodeError, RecursionError) as error:
        raise ParseError(f"the body is not valid JSON: {error.__class__.__name__}") from None
    try:  # the slow path, only for bodies that failed: 2.0 where an integer is due
        generic = _integral(msgspec.json.decode(raw))
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        raise from_decode_error(
            typed_error, body_type
        ) from None  # the typed decode's error is the real one
    try:
        return msgspec.convert(generic, body_type, strict=True)
    except msgspec.ValidationError as error:  # with integral floats allowed: the real fault
        raise from_decode_error(error, body_type) from None


async def read_body(request: Request[Any, Any, Any], body_type: type[T]) -> T:
    """Decode the request body as ``body_type`` (400 naming the field if it does not fit)."""
    return decode_body(await raw_body(request), body_type)


def authorization_of(request: Request[Any, Any, Any]) -> str | None:
    """The request's ``Authorization`` header, read straight from the scope.

    The request is known to name it once at most (``site.safe_headers`` refuses two), so
    the first is the one; Litestar's header object, built for this alone, cost more than
    the rest of a move's reading.
    """
    for name, value in request.scope["headers"]:
        if len(name) == 13 and name.lower() == b"authorization":
            return value.decode("latin-1")
    return None


async def raw_body(request: Request[Any, Any, Any]) -> bytes:
    """The request body, read straight from the ASGI messages: 413 past the size limit.

    What ``Request.body()`` does (an announced length over the limit is refused before
    anything is read, and so is a body that grows past it), without its async generator
    and header objects: on every POST this is about a tenth of the framework's cost.
    """
    limit = request.route_handler.resolve_request_max_body_size() or math.inf
    for name, value in request.scope["headers"]:
        if name == b"content-length":
            try:
                announced = int(value)
            except ValueError:
                raise ClientException(f"Invalid content-length: {value!r}") from None
            if announced > limit:
                raise RequestEntityTooLarge
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await request.receive()
        if event["type"] == "http.disconnect":
            raise ClientException("the client disconnected before the body was read")
        body: bytes = event.get("body", b"")  # type: ignore[assignment]
        if body:
            size += len(body)
            if size > limit:
                raise RequestEntityTooLarge
            chunks.append(body)
        if not event.get("more_body", False):
            return b"".join(chunks)
