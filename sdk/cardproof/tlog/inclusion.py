"""A receipt found in the log: its entry, its inclusion proof, a checkpoint, checked offline.

The service answers a receipt with ``log``: ``{index, entry, checkpoint, proof}`` (the
entry and the proof's hashes in base64, the checkpoint as its signed note). A verifier
that holds the log's verifier key, and a policy of witnesses it trusts, checks here
that:

1. the checkpoint is signed by the log's key, and its origin is that key's name;
2. enough of the trusted witnesses cosigned it (the policy's quorum), each once;
3. the entry is a ``receipt`` entry naming this very receipt (the SHA-256 of its compact
   JWS) and stating what its payload and header say: the deal, the kind, the variant,
   the score's total, ``iat``, ``kid`` (and the tournament of a tournament game);
4. the entry is at ``index`` in the checkpoint's tree (RFC 9162 section 2.1.3.2).

The answer says when the quorum of witnesses had seen the tree holding the receipt:
a time no signer can backdate, which :func:`check_retirement` holds against the
signing key's retirement. The receipt's own signature is :mod:`cardproof.receipts`'.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import msgspec

from cardproof.receipts import JWKS
from cardproof.tlog.entries import (
    EntryError,
    ReceiptEntry,
    parse_entry,
    receipt_digest,
    receipt_entry,
)
from cardproof.tlog.note import COSIGNATURE_V1, Checkpoint, NoteError, Verifier, open_note
from cardproof.tlog.tree import ProofError, check_inclusion, leaf_hash


class LogProof(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A receipt's place in the log, as the service answers it."""

    index: int
    entry: str
    """The entry's bytes, base64."""
    checkpoint: str
    """A checkpoint whose tree holds the entry: a signed note."""
    proof: list[str]
    """The entry's audit path in that tree, base64 hashes, from the leaf's end up."""


class LogProofError(ValueError):
    """A receipt the log does not vouch for; ``code`` says which check failed."""

    def __init__(self, code: str, message: str) -> None:
        """Keep the check's code beside its message."""
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class WitnessPolicy:
    """Which witnesses a verifier trusts, and how many must have cosigned."""

    witnesses: tuple[Verifier, ...]
    quorum: int

    def __post_init__(self) -> None:
        """A quorum the listed witnesses can reach, of cosigning keys."""
        if not 0 <= self.quorum <= len(self.witnesses):
            raise ValueError(f"a quorum of {self.quorum} from {len(self.witnesses)} witnesses")
        if any(w.kind != COSIGNATURE_V1 for w in self.witnesses):
            raise ValueError("a witness key is a cosignature/v1 key (type 0x04)")


NO_WITNESSES = WitnessPolicy((), 0)


@dataclass(frozen=True)
class Logged:
    """A receipt the log holds: where, in which tree, and since when (by the witnesses)."""

    index: int
    size: int
    origin: str
    entry: ReceiptEntry
    cosigned_at: int | None
    """When the quorum of witnesses had all seen a tree holding it (the latest of the
    quorum's earliest times); ``None`` under a policy of no witnesses."""


def _b64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise LogProofError("malformed", f"{what} is not base64") from None


def check_in_log(
    receipt: str, log: LogProof, log_key: Verifier, policy: WitnessPolicy = NO_WITNESSES
) -> Logged:
    """Check that the log holds ``receipt``, with the checks this module lists.

    :class:`LogProofError` names the first check that fails.
    """
    try:
        opened = open_note(log.checkpoint, [log_key, *policy.witnesses])
        checkpoint = Checkpoint.parse(opened.text)
    except NoteError as error:
        raise LogProofError("checkpoint", f"the checkpoint: {error}") from None
    if not any(s.verifier == log_key for s in opened.signatures):
        raise LogProofError("checkpoint", "the checkpoint is not signed by the log's key")
    if checkpoint.origin != log_key.name:
        raise LogProofError(
            "checkpoint", f"the checkpoint is of {checkpoint.origin!r}, not {log_key.name!r}"
        )
    times = sorted(s.timestamp for s in opened.signatures if s.timestamp is not None)
    if len(times) < policy.quorum:
        raise LogProofError(
            "witnesses",
            f"{len(times)} of the trusted witnesses cosigned the checkpoint; "
            f"{policy.quorum} needed",
        )
    data = _b64(log.entry, "the entry")
    try:
        entry = parse_entry(data)
    except EntryError as error:
        raise LogProofError("entry", f"the entry: {error}") from None
    if not isinstance(entry, ReceiptEntry):
        raise LogProofError("entry", "the entry is not a receipt's")
    _check_entry(receipt, entry)
    proof = [_b64(node, "a proof hash") for node in log.proof]
    try:
        check_inclusion(log.index, checkpoint.size, leaf_hash(data), proof, checkpoint.root)
    except ProofError as error:
        raise LogProofError("inclusion", f"the entry is not in the tree: {error}") from None
    cosigned_at = times[policy.quorum - 1] if policy.quorum else None
    return Logged(log.index, checkpoint.size, checkpoint.origin, entry, cosigned_at)


def _check_entry(receipt: str, entry: ReceiptEntry) -> None:
    """The entry names this receipt and says what it says."""
    if not receipt.isascii():  # a compact JWS is base64url and dots
        raise LogProofError("entry", "the receipt is not a compact JWS (not ASCII)")
    if entry.receipt != receipt_digest(receipt.strip()):
        raise LogProofError("entry", "the entry names another receipt")
    try:
        stated = receipt_entry(receipt)
    except EntryError as error:
        raise LogProofError("entry", str(error)) from None
    for member in ReceiptEntry.__struct_fields__:
        value = getattr(stated, member)
        if getattr(entry, member) != value:
            raise LogProofError(
                "entry",
                f"the entry's {member} is {getattr(entry, member)!r}; the receipt says {value!r}",
            )


def check_retirement(logged: Logged, jwks: JWKS, *, grace: int = 0) -> None:
    """Refuse a receipt first cosigned after its key's retirement (the JWK's ``exp``).

    The witnesses' time, not the receipt's own ``iat``, decides: a retired key that
    leaked can sign a receipt dated before its retirement, but no witness saw that
    receipt in the log before then. ``grace`` allows for the log's sequencing delay.
    """
    key = next((k for k in jwks.keys if k.kid == logged.entry.kid), None)
    if key is None or key.exp is None:
        return
    if logged.cosigned_at is None:
        raise LogProofError("retired-key", "the key is retired: a witness's time is needed")
    if logged.cosigned_at > key.exp + grace:
        raise LogProofError(
            "retired-key",
            f"the receipt was first cosigned at {logged.cosigned_at}, after its key was "
            f"retired at {key.exp}",
        )


__all__ = [
    "NO_WITNESSES",
    "LogProof",
    "LogProofError",
    "Logged",
    "WitnessPolicy",
    "check_in_log",
    "check_retirement",
]
