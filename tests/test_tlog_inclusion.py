"""A receipt's place in the log, checked offline: every check fails on its own lie."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import msgspec
import pytest

from cardproof.receipts import JWK, JWKS, decode_receipt
from cardproof.tlog.entries import ReceiptEntry, RoundReveal, encode_entry, receipt_digest
from cardproof.tlog.inclusion import (
    LogProof,
    LogProofError,
    WitnessPolicy,
    check_in_log,
    check_retirement,
)
from cardproof.tlog.note import COSIGNATURE_V1, Checkpoint, Signer, sign_note
from cardproof.tlog.tree import MemoryTree, leaf_hash

VECTORS = json.loads((Path(__file__).parent / "vectors" / "receipts.json").read_text())
RECEIPT: str = VECTORS[0]["receipt"]
OTHER_RECEIPT: str = VECTORS[1]["receipt"]
ORIGIN = "cardproof.example/log"
LOG = Signer(ORIGIN, bytes(range(32)))
WITNESSES = [Signer(f"witness.example/w{i}", bytes([i]) * 32, COSIGNATURE_V1) for i in (1, 2, 3)]
TIMES = [1_800_000_300, 1_800_000_100, 1_800_000_200]
INDEX = 5


def entry_of(receipt: str, **changed: object) -> ReceiptEntry:
    """The entry the service writes for ``receipt`` (with ``changed`` members)."""
    header, payload = decode_receipt(receipt)
    entry = ReceiptEntry(
        receipt=receipt_digest(receipt),
        deal=str(payload.deal_id),
        kind=str(payload.kind),
        variant=payload.variant,
        score=payload.score.total,
        iat=payload.issued,
        kid=str(header["kid"]),
        tournament=payload.tournament,
    )
    return msgspec.structs.replace(entry, **changed)


def logged(
    entry: bytes | None = None,
    signers: list[Signer] | None = None,
    witnesses: int = 3,
    size: int = 9,
) -> LogProof:
    """A log of ``size`` entries holding ``entry`` at :data:`INDEX`, and its proof."""
    data = encode_entry(entry_of(RECEIPT)) if entry is None else entry
    entries = [f"entry {i}".encode() for i in range(size)]
    entries[INDEX] = data
    tree = MemoryTree([leaf_hash(e) for e in entries])
    text = Checkpoint(ORIGIN, size, tree.root()).text()
    note = sign_note(text, [LOG] if signers is None else signers)
    for witness, time in list(zip(WITNESSES, TIMES, strict=True))[:witnesses]:
        note += witness.signature_line(text, time)
    proof = [base64.b64encode(h).decode() for h in tree.inclusion(INDEX)]
    return LogProof(INDEX, base64.b64encode(data).decode(), note, proof)


POLICY = WitnessPolicy(tuple(w.verifier for w in WITNESSES), 2)


def test_a_logged_receipt_and_when_a_quorum_saw_it() -> None:
    found = check_in_log(RECEIPT, logged(), LOG.verifier, POLICY)
    assert (found.index, found.size, found.origin) == (INDEX, 9, ORIGIN)
    assert found.entry == entry_of(RECEIPT)
    assert found.cosigned_at == 1_800_000_200  # the second earliest of the three
    assert check_in_log(RECEIPT, logged(witnesses=0), LOG.verifier).cosigned_at is None


@pytest.mark.parametrize(
    ("proof", "policy", "code", "said"),
    [
        (  # another key under the log's name: the witnesses' lines alone are known
            logged(signers=[Signer(ORIGIN, bytes(32))]),
            POLICY,
            "checkpoint",
            "not signed by the log's key",
        ),
        (logged(signers=[Signer(ORIGIN, bytes(32))], witnesses=0), POLICY, "checkpoint", "0 of"),
        (logged(signers=[]), POLICY, "checkpoint", "not signed by the log's key"),
        (logged(witnesses=1), POLICY, "witnesses", "1 of the trusted witnesses"),
        (
            logged(entry=encode_entry(entry_of(OTHER_RECEIPT))),
            POLICY,
            "entry",
            "names another receipt",
        ),
        (
            logged(entry=encode_entry(entry_of(RECEIPT, score=99))),
            POLICY,
            "entry",
            "the entry's score is 99; the receipt says 0",
        ),
        (
            logged(entry=encode_entry(entry_of(RECEIPT, kid="another"))),
            POLICY,
            "entry",
            "the entry's kid",
        ),
        (
            logged(entry=encode_entry(entry_of(RECEIPT, tournament="t_1"))),
            POLICY,
            "entry",
            "the entry's tournament",
        ),
        (
            logged(entry=encode_entry(RoundReveal("t_1", 1, "0" * 64))),
            POLICY,
            "entry",
            "not a receipt's",
        ),
        (logged(entry=b'{"type":"receipt"}'), POLICY, "entry", "the entry: not a log entry"),
    ],
)
def test_each_lie_is_caught(proof: LogProof, policy: WitnessPolicy, code: str, said: str) -> None:
    with pytest.raises(LogProofError, match=said) as caught:
        check_in_log(RECEIPT, proof, LOG.verifier, policy)
    assert caught.value.code == code


def test_a_checkpoint_of_another_origin_is_refused() -> None:
    other = Signer("another.example/log", bytes(range(32)))
    text = Checkpoint("cardproof.example/log", 9, bytes(32)).text()
    proof = msgspec.structs.replace(logged(), checkpoint=sign_note(text, [other]))
    with pytest.raises(LogProofError, match=re.escape("not 'another.example/log'")) as caught:
        check_in_log(RECEIPT, proof, other.verifier)
    assert caught.value.code == "checkpoint"


def test_a_proof_that_does_not_lead_to_the_root_is_refused() -> None:
    good = logged()
    changed = [base64.b64encode(b"\x00" * 32).decode(), *good.proof[1:]]
    for proof in (
        msgspec.structs.replace(good, proof=changed),
        msgspec.structs.replace(good, index=INDEX + 1),
        msgspec.structs.replace(good, proof=good.proof[:-1]),
        msgspec.structs.replace(good, index=9),
    ):
        with pytest.raises(LogProofError, match="not in the tree") as caught:
            check_in_log(RECEIPT, proof, LOG.verifier, POLICY)
        assert caught.value.code == "inclusion"
    with pytest.raises(LogProofError, match="not base64"):
        check_in_log(RECEIPT, msgspec.structs.replace(good, proof=["%%"]), LOG.verifier)


def test_a_policy_must_be_reachable_and_of_witness_keys() -> None:
    with pytest.raises(ValueError, match="a quorum of 4 from 3"):
        WitnessPolicy(POLICY.witnesses, 4)
    with pytest.raises(ValueError, match="type 0x04"):
        WitnessPolicy((LOG.verifier,), 1)


def jwks(exp: int | None) -> JWKS:
    kid = decode_receipt(RECEIPT)[0]["kid"]
    return JWKS([JWK(kty="OKP", kid=kid, crv="Ed25519", x="AAAA", exp=exp)])


def test_a_key_retired_before_the_witnesses_saw_the_receipt_is_refused() -> None:
    found = check_in_log(RECEIPT, logged(), LOG.verifier, POLICY)
    check_retirement(found, jwks(None))
    check_retirement(found, jwks(1_800_000_200))  # retired as the quorum saw it: in time
    check_retirement(found, jwks(1_800_000_150), grace=60)
    with pytest.raises(LogProofError, match="after its key was retired") as caught:
        check_retirement(found, jwks(1_800_000_199))
    assert caught.value.code == "retired-key"
    unwitnessed = check_in_log(RECEIPT, logged(witnesses=0), LOG.verifier)
    with pytest.raises(LogProofError, match="a witness's time is needed"):
        check_retirement(unwitnessed, jwks(1_900_000_000))
