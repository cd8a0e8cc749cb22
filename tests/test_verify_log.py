"""``cardproof verify --url`` and the transparency log: a receipt must be in it.

A real ``cardproof serve`` (the test keys), real games, and receipts minted with the
service's real signing key for games that never happened, as a thief of that key would
sign them: their signatures verify, and the log refuses them ("not in the log"). A
receipt's JSON answer carries its place in the log, which ``verify`` checks offline
with ``--log-key``; a changed proof, another log's key or a witness policy the
checkpoint does not meet are refused.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec

from cardproof.receipts import decode_receipt
from cardproof.tlog.note import COSIGNATURE_V1, Signer
from cardproof_service.store.keys import new_deal_id
from conftest import TEST_KEYS
from test_cli import _cardproof
from test_log_service import finished_deal

SIGNATURE_ONLY = 3


def played(url: str) -> dict[str, Any]:
    """A committed game played to its end on the server: its receipt answer, logged."""
    with httpx.Client(base_url=url, timeout=10) as client:
        deal_id = finished_deal(client)  # type: ignore[arg-type]
        deadline = time.monotonic() + 10
        while True:
            answer: dict[str, Any] = client.get(f"/v1/deals/{deal_id}/receipt").json()
            if answer["log"] is not None or time.monotonic() > deadline:
                return answer


def minted(token: str, **changes: Any) -> str:
    """``token``'s payload with ``changes``, signed with the service's own key."""
    _, payload = decode_receipt(token)
    return TEST_KEYS.signing.sign(msgspec.structs.replace(payload, **changes))


def verify(tmp_path: Path, receipt: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "receipt"
    path.write_text(receipt)
    result = _cardproof("verify", str(path), *args)
    return result.returncode, result.stdout + result.stderr


def test_a_logged_receipt_verifies_with_its_place_in_the_log(
    tmp_path: Path, live_server: str
) -> None:
    answer = played(live_server)
    status, said = verify(tmp_path, answer["receipt"], "--url", live_server)
    assert status == 0, said
    assert f"in the log 127.0.0.1:{live_server.rsplit(':', 1)[1]}/log: entry" in said


def test_a_receipt_minted_with_the_real_key_is_not_in_the_log(
    tmp_path: Path, live_server: str
) -> None:
    """A game that never happened, signed by the service's key: refused by the log alone."""
    token = played(live_server)["receipt"]
    issued = decode_receipt(token)[1].issued
    forged = minted(token, deal_id=new_deal_id("Zz"), issued_at=issued - 3600, iat=issued - 3600)
    status, said = verify(tmp_path, forged, "--url", live_server, "--no-log")
    assert status == 0, said  # its signature and replay hold: only the log tells
    assert "not asked for (--no-log)" in said
    status, said = verify(tmp_path, forged, "--url", live_server)
    assert status == 1, said
    assert "NOT VERIFIED (not-in-log)" in said
    fresh = minted(token, deal_id=new_deal_id("Zy"))  # dated now: it may still be sequenced
    started = time.monotonic()
    status, said = verify(tmp_path, fresh, "--url", live_server)
    assert status == SIGNATURE_ONLY, said  # never a pass
    assert "not in the log yet" in said
    assert time.monotonic() - started < 30
    better = minted(token, score=msgspec.structs.replace(decode_receipt(token)[1].score, total=999))
    status, said = verify(tmp_path, better, "--url", live_server)
    assert status == 1, said  # a logged game's receipt with another score


def test_the_answer_s_place_in_the_log_is_checked_offline(tmp_path: Path, live_server: str) -> None:
    answer = played(live_server)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(httpx.get(f"{live_server}/.well-known/jwks.json").text)
    key = httpx.get(f"{live_server}/log/key").text.strip()
    offline = ("--jwks", str(jwks))
    status, said = verify(tmp_path, json.dumps(answer), *offline, "--log-key", key)
    assert status == 0, said
    assert "in the log" in said
    status, said = verify(tmp_path, json.dumps(answer), *offline)
    assert status == 0, said  # offline, no key: the signature and replay, as before
    assert "its place in the log was not checked" in said
    other = Signer(key.split("+")[0], bytes([2]) * 32).verifier.vkey  # its name, not its key
    status, said = verify(tmp_path, json.dumps(answer), *offline, "--log-key", other)
    assert (status, said.split(":")[0]) == (1, "NOT VERIFIED (log-checkpoint)")
    proof = [base64.b64encode(bytes(32)).decode(), *answer["log"]["proof"][1:]]
    if not answer["log"]["proof"]:  # a log of one entry: a path of none, so add one
        proof = [base64.b64encode(bytes(32)).decode()]
    changed = {**answer, "log": {**answer["log"], "proof": proof}}
    status, said = verify(tmp_path, json.dumps(changed), *offline, "--log-key", key)
    assert (status, said.split(":")[0]) == (1, "NOT VERIFIED (log-inclusion)")
    moved = {**answer, "log": {**answer["log"], "index": answer["log"]["index"] + 1}}
    status, said = verify(tmp_path, json.dumps(moved), *offline, "--log-key", key)
    assert status == 1, said


def test_a_witness_policy_the_checkpoint_does_not_meet_is_refused(
    tmp_path: Path, live_server: str
) -> None:
    answer = played(live_server)
    witness = Signer.generate("w.example", COSIGNATURE_V1).verifier.vkey
    status, said = verify(tmp_path, answer["receipt"], "--url", live_server, "--witness", witness)
    assert (status, said.split(":")[0]) == (1, "NOT VERIFIED (log-witnesses)")
    status, said = verify(
        tmp_path, answer["receipt"], "--url", live_server, "--witness", witness, "--quorum", "0"
    )
    assert status == 0, said
    status, said = verify(tmp_path, answer["receipt"], "--url", live_server, "--witness", "x")
    assert status == 2
    assert "--witness" in said


def test_the_sdk_finds_a_receipt_in_the_log(live_server: str) -> None:
    """``Client.log_proof`` and ``AsyncClient.log_proof``: the server's word, checked here."""
    import asyncio

    from cardproof import AsyncClient, Client
    from cardproof.tlog.inclusion import check_in_log
    from cardproof.tlog.note import Verifier

    token = played(live_server)["receipt"]
    with Client(base_url=live_server) as client:
        key = Verifier.parse(client.log_key())
        proof = client.log_proof(token)
        assert proof is not None
        assert check_in_log(token, proof, key).entry.deal == decode_receipt(token)[1].deal_id
        assert client.log_checkpoint().startswith(f"{key.name}\n")
        assert client.log_proof(minted(token, deal_id=new_deal_id("Zx"))) is None

    async def read() -> None:
        async with AsyncClient(base_url=live_server) as client:
            assert await client.log_key() == key.vkey
            assert await client.log_proof(token) is not None
            assert (await client.log_checkpoint()).startswith(f"{key.name}\n")
            assert await client.log_proof(minted(token, deal_id=new_deal_id("Zw"))) is None

    asyncio.run(read())


def test_verify_holds_the_witnesses_time_against_a_retired_key() -> None:
    """``--witness``: a receipt first cosigned after its key's retirement is refused."""
    from types import SimpleNamespace

    import pytest

    from cardproof.cli.verify import _check_log
    from cardproof.receipts import ReceiptError
    from test_tlog_inclusion import LOG, POLICY, RECEIPT, jwks, logged

    answer = msgspec.to_builtins(logged())
    outcome = SimpleNamespace(
        verified=SimpleNamespace(payload=decode_receipt(RECEIPT)[1]), notes=[]
    )

    def run(exp: int | None, policy: Any = POLICY) -> None:
        keys = msgspec.json.encode(jwks(exp))
        _check_log(outcome, RECEIPT, answer, None, LOG.verifier.vkey, policy, keys)  # type: ignore[arg-type]

    run(None)
    run(1_800_000_260)  # retired after the witnesses saw it (and the grace)
    assert "cosigned by 2 of your witnesses" in outcome.notes[-1]
    with pytest.raises(ReceiptError) as caught:
        run(1_800_000_000)  # retired before any witness saw it in the log
    assert caught.value.code == "log-retired-key"
    from cardproof.tlog.inclusion import NO_WITNESSES

    run(1_800_000_000, NO_WITNESSES)  # no witnesses asked for: no witness time to hold


def test_a_place_in_another_tree_carried_with_the_receipt_is_not_trusted(
    tmp_path: Path, live_server: str
) -> None:
    """The JSON answer's ``log``: a tree signed with the log's key, but not the server's log."""
    from cardproof.tlog.entries import encode_entry, receipt_entry
    from cardproof.tlog.note import Checkpoint, sign_note
    from cardproof.tlog.tree import MemoryTree, leaf_hash

    token = played(live_server)["receipt"]
    issued = decode_receipt(token)[1].issued - 3600
    forged = minted(token, deal_id=new_deal_id("Zv"), issued_at=issued, iat=issued)
    entries = [encode_entry(receipt_entry(forged))]
    tree = MemoryTree([leaf_hash(entry) for entry in entries])
    origin = httpx.get(f"{live_server}/log/key").text.split("+")[0]
    signer = Signer(origin, TEST_KEYS.log_seed)  # the operator's own log key: a split view
    note = sign_note(Checkpoint(origin, 1, tree.root()).text(), [signer])
    log = {"index": 0, "entry": base64.b64encode(entries[0]).decode(), "checkpoint": note}
    answer = json.dumps({"receipt": forged, "log": {**log, "proof": []}})
    jwks = tmp_path / "jwks.json"
    jwks.write_text(httpx.get(f"{live_server}/.well-known/jwks.json").text)
    status, said = verify(tmp_path, answer, "--jwks", str(jwks), "--log-key", signer.verifier.vkey)
    assert status == 0, said  # offline, that tree is all there is to check
    status, said = verify(tmp_path, answer, "--url", live_server)
    assert status == 1, said  # the server's log decides
    assert "NOT VERIFIED (not-in-log)" in said
