"""Which 32-byte strings are Ed25519 public keys a receipt verifier trusts (RFC 8032).

OpenSSL (through ``cryptography``) loads any 32 bytes as an Ed25519 public key and checks
signatures with the cofactorless equation ``[S]B = R + [k]A``. That accepts keys no
honest signer has: the identity, whose "signature" ``B || 1`` verifies every message,
the other points of small order, encodings with ``y >= p``, and points outside the
group of prime order ``L``. :func:`is_strict_public_key` refuses them all, so a key set
that holds such a key (by mistake or by malice) verifies nothing with it
(docs/protocol.md section 4.5, step 2).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

P: Final = 2**255 - 19
"""The field prime."""
L: Final = 2**252 + 27742317777372353535851937790883648493
"""The order of the base point's group (RFC 8032 section 5.1)."""
D: Final = -121665 * pow(121666, -1, P) % P
SQRT_M1: Final = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]
"""A point in extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z."""
IDENTITY: Final[Point] = (0, 1, 1, 0)


def decode_point(encoded: bytes) -> Point | None:
    """The point a 32-byte encoding names, or ``None`` if it names none canonically.

    Refused: a length other than 32, ``y >= p`` (a second spelling of ``y - p``), a
    ``y`` with no ``x`` on the curve, and ``x = 0`` with the sign bit set (a second
    spelling of the same point).

    >>> decode_point(bytes([1]) + bytes(31)) == IDENTITY
    True
    >>> decode_point((P + 1).to_bytes(32, "little")) is None  # the identity, spelt y = p + 1
    True
    """
    if len(encoded) != 32:
        return None
    value = int.from_bytes(encoded, "little")
    y, sign = value & ((1 << 255) - 1), value >> 255
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    if x2 == 0:
        return None if sign else (0, y, 1, 0)
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def encode_point(point: Point) -> bytes:
    """The canonical 32-byte encoding of ``point`` (RFC 8032 section 5.1.2).

    >>> encode_point(IDENTITY).hex()
    '0100000000000000000000000000000000000000000000000000000000000000'
    >>> encode_point(decode_point(bytes(32))) == bytes(32)
    True
    """
    x_, y_, z, _ = point
    inverse = pow(z, -1, P)
    x, y = x_ * inverse % P, y_ * inverse % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def add(a: Point, b: Point) -> Point:
    """``a + b`` (RFC 8032 section 5.1.4, the complete addition formulas)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    e1 = (y1 - x1) * (y2 - x2) % P
    e2 = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = e2 - e1, dd - c, dd + c, e2 + e1
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def multiply(scalar: int, point: Point) -> Point:
    """``[scalar] point``, by double and add."""
    result = IDENTITY
    while scalar:
        if scalar & 1:
            result = add(result, point)
        point = add(point, point)
        scalar >>= 1
    return result


def is_identity(point: Point) -> bool:
    """Whether ``point`` is the neutral element (x = 0, y = 1)."""
    x, y, z, _ = point
    return x % P == 0 and (y - z) % P == 0


@lru_cache(maxsize=64)
def is_strict_public_key(encoded: bytes) -> bool:
    """Whether ``encoded`` is a public key of the prime-order group, as RFC 8032 makes them.

    That is: the canonical encoding of a point ``A`` other than the identity, with
    ``[L]A`` the identity (no small-order component).

    >>> is_strict_public_key(bytes.fromhex(
    ...     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
    True
    >>> is_strict_public_key(bytes([1]) + bytes(31))  # the identity: order 1
    False
    >>> is_strict_public_key(bytes(32))  # y = 0: a point of order 4
    False
    """
    point = decode_point(encoded)
    return point is not None and not is_identity(point) and is_identity(multiply(L, point))


__all__ = [
    "IDENTITY",
    "L",
    "P",
    "add",
    "decode_point",
    "encode_point",
    "is_strict_public_key",
    "multiply",
]
