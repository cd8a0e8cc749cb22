"""A finished game's ending: its receipts and its last answer, signed once and packed small.

When a game ends, its receipt is signed (a tournament game's twice: without the server
seed for while the tournament is open, with it for after the close) and its last
answer encoded; from then on the game is read, never replayed or signed again. The
store keeps all of it as one zlib-compressed blob (about a kilobyte for poker-squares,
where the tokens and the answer would take over three), and the receipts are put back
together byte for byte when read: ``header.payload.signature``, each as signed.
"""

from __future__ import annotations

import zlib

import msgspec

from cardproof.models import MoveResult, ReceiptResponse
from cardproof.receipts import ReceiptPayload, SigningKey, b64url, b64url_decode
from cardproof.tlog.entries import encode_entry, signed_entry
from cardproof_service.store import Ending


class _Packed(msgspec.Struct, array_like=True):
    """The parts of an ending, before compression."""

    final: bytes
    """The JSON of the last move's answer."""
    header: str = ""
    payload: bytes = b""
    """The receipt's payload JSON, as signed (no seed for a tournament game)."""
    signature: str = ""
    revealed_payload: bytes = b""
    """A tournament game's payload JSON with the server seed, as signed."""
    revealed_signature: str = ""


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Packed)
_FINAL = msgspec.json.Decoder(MoveResult)


def _parts(token: str) -> tuple[str, bytes, str]:
    """A compact JWS's header, payload (the bytes signed) and signature."""
    header, payload, signature = token.split(".")
    return header, b64url_decode(payload), signature


def pack(
    signing: SigningKey,
    last: MoveResult,
    payload: ReceiptPayload | None,
    revealed: ReceiptPayload | None = None,
    *,
    logged: bool = True,
) -> Ending:
    """Sign ``payload`` (and ``revealed``, a tournament game's with its seed) and pack them.

    ``payload`` is ``None`` for a game that ended unscored (a dead end): no receipt.
    Each receipt signed gets its transparency log entry, which the store pools in the
    step that stores the ending (unless the log is off: ``logged``).
    """
    packed = _Packed(final=msgspec.json.encode(last))
    result_receipt = None
    signed: list[tuple[str, ReceiptPayload]] = []
    if payload is not None:
        token = signing.sign(payload)
        packed.header, packed.payload, packed.signature = _parts(token)
        result_receipt = token
        signed.append((token, payload))
        if revealed is not None:
            token = signing.sign(revealed)
            _, packed.revealed_payload, packed.revealed_signature = _parts(token)
            result_receipt = token
            signed.append((token, revealed))
    entries = (signed_entry(token, signing.kid, said) for token, said in signed if logged)
    log = b"\n".join(map(encode_entry, entries))
    return Ending(zlib.compress(_ENCODER.encode(packed), 6), result_receipt, log)


def _unpack(ending: Ending) -> _Packed:
    return _DECODER.decode(zlib.decompress(ending.stored))


def last_answer(ending: Ending) -> MoveResult:
    """The answer the game's last move got."""
    return _FINAL.decode(_unpack(ending).final)


def receipt(ending: Ending, *, revealed: bool) -> ReceiptResponse | None:
    """The stored receipt (``revealed``: a tournament game's with the seed, if it has one).

    ``None`` for a game that ended unscored.
    """
    packed = _unpack(ending)
    payload, signature = packed.payload, packed.signature
    if revealed and packed.revealed_signature:
        payload, signature = packed.revealed_payload, packed.revealed_signature
    if not signature:
        return None
    token = f"{packed.header}.{b64url(payload)}.{signature}"
    return ReceiptResponse(receipt=token, payload=msgspec.json.decode(payload, type=ReceiptPayload))


__all__ = ["last_answer", "pack", "receipt"]
