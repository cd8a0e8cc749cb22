"""Strict request-body decoding with the shared msgspec types.

Litestar's own body parsing coerces loosely (``"1"`` becomes ``1``) and drops the
location of an error; cardproof decodes the raw body itself, strictly, so the
schema in the spec is exactly what is enforced and every 400 names its field.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from litestar import Request

from cardproof_service.problems import from_decode_error

T = TypeVar("T")


async def read_body(request: Request[Any, Any, Any], body_type: type[T]) -> T:
    """Decode the request body as ``body_type`` (400 naming the field if it does not fit)."""
    raw = await request.body()
    try:
        return msgspec.json.decode(raw, type=body_type, strict=True)
    except msgspec.DecodeError as error:
        raise from_decode_error(error) from None
