"""Strict request-body decoding with the shared msgspec types.

Litestar's own body parsing coerces loosely (``"1"`` becomes ``1``) and drops the
location of an error; cardproof decodes the raw body itself, strictly, so the
schema in the spec is exactly what is enforced and every 400 names its field. One
allowance follows JSON Schema: a number with a zero fraction (``2.0``) is an integer.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from litestar import Request

from cardproof_service.problems import from_decode_error

T = TypeVar("T")


def _integral(value: Any) -> Any:
    """``value`` with every float that has no fraction turned into an int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


def decode_body(raw: bytes, body_type: type[T]) -> T:
    """Decode ``raw`` JSON as ``body_type`` strictly (a ``ParseError`` naming the field)."""
    try:
        return msgspec.json.decode(raw, type=body_type, strict=True)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as error:
        raise from_decode_error(error) from None
    try:  # the slow path, only for bodies that failed: 2.0 where an integer is due
        generic = msgspec.json.decode(raw)
    except msgspec.DecodeError as error:  # not JSON at all: say so
        raise from_decode_error(error) from None
    try:
        return msgspec.convert(_integral(generic), body_type, strict=True)
    except msgspec.ValidationError as error:  # names the first field that is really wrong
        raise from_decode_error(error) from None


async def read_body(request: Request[Any, Any, Any], body_type: type[T]) -> T:
    """Decode the request body as ``body_type`` (400 naming the field if it does not fit)."""
    return decode_body(await request.body(), body_type)
