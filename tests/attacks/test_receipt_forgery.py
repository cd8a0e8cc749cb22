"""Receipts that say more than they prove: re-spelled tokens and minted ones.

A receipt is only worth its exact bytes. Another spelling of a signed token (``+`` and
``/`` for ``-`` and ``_``, padding, stray low bits in a last character) must not verify,
so nobody can pass one receipt off as several. A receipt of a seed pair the player chose
(found offline to give a good deck) or of a casual deal is genuine, but it proves the
arithmetic, not a fair deal: verifiers refuse it unless told to accept that kind, and
the command line says what a receipt is before its score.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from attack_kit import CELLS, HttpClient, committed_receipt
from cardproof.receipts import ReceiptError, decode_receipt, verify_receipt
from conftest import TEST_KEYS

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@pytest.fixture
def jwks(client: HttpClient) -> dict[str, object]:
    found: dict[str, object] = client.get("/.well-known/jwks.json").json()
    return found


def respellings(token: str) -> set[str]:
    """Texts a lenient base64 decoder reads as the same header, payload and signature."""
    header, payload, signature = token.split(".")
    found = set()
    for index, part in enumerate((header, payload, signature)):
        parts = [header, payload, signature]
        variants = {
            part.replace("-", "+").replace("_", "/"),
            part + "=",
            part + "==",
            part[:5] + "\n" + part[5:],
            part[:5] + " " + part[5:],
        }
        variants |= {part[:-1] + last for last in ALPHABET}  # the last character's spare bits
        for variant in variants - {part}:
            parts[index] = variant
            found.add(".".join(parts))
    return found


def test_a_re_spelled_receipt_does_not_verify(client: HttpClient, jwks: dict[str, object]) -> None:
    token = committed_receipt(client)
    assert verify_receipt(token, jwks).replayed
    tried = 0
    for other in respellings(token):
        with pytest.raises(ReceiptError) as refused:
            verify_receipt(other, jwks)
        assert refused.value.code in {"malformed", "bad-signature"}, other
        tried += 1
    assert tried > 150


def test_a_minted_practice_receipt_is_refused_unless_asked_for(
    client: HttpClient, jwks: dict[str, object], tmp_path: Path
) -> None:
    # a seed pair "searched offline": whatever it is, the server signs what it replays
    body = {
        "variant": "poker-squares",
        "options": {"scoring": {"high-card": 1000, "one-pair": 1000, "two-pair": 1000}},
        "deal": {"server_seed": "11" * 32, "client_seed": "searched"},
        "moves": " ".join(CELLS),
    }
    minted = client.post("/v1/verify", json=body).json()
    assert minted["payload"]["kind"] == "practice"
    with pytest.raises(ReceiptError) as refused:
        verify_receipt(minted["receipt"], jwks)
    assert refused.value.code == "kind-not-allowed"
    assert verify_receipt(minted["receipt"], jwks, allow=["practice"]).replayed
    keys = tmp_path / "jwks.json"
    keys.write_text(json.dumps(jwks))
    saved = tmp_path / "minted.jws"
    saved.write_text(minted["receipt"])
    cardproof = str(Path(sys.executable).parent / "cardproof")
    run = [cardproof, "verify", str(saved), "--jwks", str(keys)]
    plain = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert plain.returncode == 1
    assert "NOT VERIFIED (kind-not-allowed)" in plain.stdout
    allowed = subprocess.run([*run, "--allow-practice"], capture_output=True, text=True, timeout=60)
    assert allowed.returncode == 0, allowed.stdout
    assert "kind practice" in allowed.stdout
    assert "high-card 1000" in allowed.stdout  # the table that made the score, in full


def test_a_receipt_of_another_version_or_a_mislabelled_kind_is_refused(
    client: HttpClient, jwks: dict[str, object]
) -> None:
    token = committed_receipt(client)
    _, payload = decode_receipt(token)
    old = msgspec.structs.replace(payload, version=1, kind=None)
    with pytest.raises(ReceiptError) as refused:
        verify_receipt(TEST_KEYS.signing.sign(old), jwks)
    assert refused.value.code == "bad-version"
    casual_as_committed = msgspec.structs.replace(payload, committed_before_client_seed=False)
    with pytest.raises(ReceiptError) as mislabelled:
        verify_receipt(TEST_KEYS.signing.sign(casual_as_committed), jwks)
    assert mislabelled.value.code == "kind-mismatch"
