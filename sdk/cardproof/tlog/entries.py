"""cardproof's log entries: one small canonical JSON document per fact the log keeps.

Each entry is a JSON object with no white space, its members in the order defined here,
``type`` first, absent optional members left out. One fact has exactly one spelling, so
the leaf hash of an entry names the fact: :func:`parse_entry` refuses any other
spelling (reordered members, spaces, an unknown member, a number as a string).

- ``receipt``: a receipt the service signed, named by the SHA-256 of its compact JWS
  (lower-case hex), with what a monitor checks without it: the deal, the receipt's kind,
  the variant, the score's total, ``iat`` and the signing key's ``kid``; a tournament
  game's tournament too.
- ``round-commitment``: a tournament round's server seed hash, when the round is made.
- ``round-reveal``: the round's server seed, when the tournament closes.
- ``settlement``: the SHA-256 of a closed tournament's settlement document
  (:func:`settlement_document`: its final totals, from which the nets and payments
  follow).

>>> entry = RoundCommitment("t_1", 1, "ab" * 32)
>>> encode_entry(entry)[:60]
b'{"type":"round-commitment","tournament":"t_1","round":1,"ser'
>>> parse_entry(encode_entry(entry)) == entry
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Annotated, Final

import msgspec

from cardproof.receipts import ReceiptPayload, decode_receipt

HEX64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}\\Z")]
"""A SHA-256 (or a 32-byte seed) as lower-case hex."""
ID = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern="^[!-~]+\\Z")]
MAX_ENTRY_BYTES: Final = 4096
"""The longest entry cardproof writes or reads (a bundle could carry 65,535 bytes)."""


class ReceiptEntry(
    msgspec.Struct, tag="receipt", tag_field="type", forbid_unknown_fields=True, frozen=True,
    omit_defaults=True,
):  # fmt: skip
    """A signed receipt, by the hash of its compact JWS."""

    receipt: HEX64
    deal: ID
    kind: ID
    variant: ID
    score: int
    iat: int
    kid: ID
    tournament: ID | None = None


class RoundCommitment(
    msgspec.Struct, tag="round-commitment", tag_field="type", forbid_unknown_fields=True,
    frozen=True,
):  # fmt: skip
    """A tournament round's committed server seed, by its hash."""

    tournament: ID
    round: Annotated[int, msgspec.Meta(ge=1)]
    server_seed_hash: HEX64


class RoundReveal(
    msgspec.Struct, tag="round-reveal", tag_field="type", forbid_unknown_fields=True,
    frozen=True,
):  # fmt: skip
    """A tournament round's server seed, revealed at the close."""

    tournament: ID
    round: Annotated[int, msgspec.Meta(ge=1)]
    server_seed: HEX64


class Settlement(
    msgspec.Struct, tag="settlement", tag_field="type", forbid_unknown_fields=True,
    frozen=True,
):  # fmt: skip
    """A closed tournament's settlement, by the SHA-256 of its document."""

    tournament: ID
    digest: HEX64


Entry = ReceiptEntry | RoundCommitment | RoundReveal | Settlement

_DECODER: Final = msgspec.json.Decoder(Entry)


class EntryError(ValueError):
    """Bytes that are not an entry in its one spelling."""


def encode_entry(entry: Entry) -> bytes:
    """The entry's one spelling."""
    return msgspec.json.encode(entry)


def parse_entry(data: bytes) -> Entry:
    """The entry these bytes spell (:class:`EntryError` for any other bytes)."""
    if len(data) > MAX_ENTRY_BYTES:
        raise EntryError(f"an entry is at most {MAX_ENTRY_BYTES} bytes")
    try:
        entry: Entry = _DECODER.decode(data)
    except msgspec.ValidationError as error:
        raise EntryError(f"not a log entry: {error}") from None
    except (msgspec.DecodeError, UnicodeDecodeError):  # not JSON, or not UTF-8
        raise EntryError("a log entry is a JSON object in UTF-8") from None
    if encode_entry(entry) != data:
        raise EntryError("not the entry's one spelling (member order, spaces, escapes)")
    return entry


def settlement_document(tournament: str, totals: Mapping[str, int]) -> bytes:
    """A closed tournament's settlement document: every entrant's final total.

    JSON with no white space: ``{"tournament": ID, "totals": [[name, total], ...]}``, the
    names in code point order. The nets and the pairwise payments follow from the totals
    (:func:`cardproof.tournaments.settle`), so this is what a settlement entry pins.

    >>> settlement_document("t_1", {"bo": 5, "al": 9})
    b'{"tournament":"t_1","totals":[["al",9],["bo",5]]}'
    """
    ordered = [[name, totals[name]] for name in sorted(totals)]
    return msgspec.json.encode({"tournament": tournament, "totals": ordered})


def settlement_entry(tournament: str, totals: Mapping[str, int]) -> Settlement:
    """The entry a closed tournament's settlement is logged as (its document's SHA-256)."""
    digest = hashlib.sha256(settlement_document(tournament, totals)).hexdigest()
    return Settlement(tournament, digest)


def receipt_digest(receipt: str) -> str:
    """How an entry names a receipt: the SHA-256 of its compact JWS, lower-case hex."""
    return hashlib.sha256(receipt.encode("ascii")).hexdigest()


def receipt_entry(receipt: str) -> ReceiptEntry:
    """The entry a receipt (a compact JWS) is logged as: what its header and payload say.

    The signer writes it from the receipt it signed, a verifier compares the logged one
    with it: one mapping for both.
    """
    header, payload = decode_receipt(receipt)
    return signed_entry(receipt, str(header.get("kid") or ""), payload)


def signed_entry(receipt: str, kid: str, payload: ReceiptPayload) -> ReceiptEntry:
    """:func:`receipt_entry` of a receipt its signer just made, without reading it back.

    ``payload`` is what it signed and ``kid`` its key's: the one mapping, for both.
    """
    if payload.deal_id is None or payload.kind is None:
        raise EntryError("a receipt of no deal (practice, or older than kinds) is not logged")
    return ReceiptEntry(
        receipt=receipt_digest(receipt.strip()),
        deal=payload.deal_id,
        kind=payload.kind,
        variant=payload.variant,
        score=payload.score.total,
        iat=payload.issued,
        kid=kid,
        tournament=payload.tournament,
    )


__all__ = [
    "MAX_ENTRY_BYTES",
    "Entry",
    "EntryError",
    "ReceiptEntry",
    "RoundCommitment",
    "RoundReveal",
    "Settlement",
    "encode_entry",
    "parse_entry",
    "receipt_digest",
    "receipt_entry",
    "settlement_document",
    "settlement_entry",
    "signed_entry",
]
