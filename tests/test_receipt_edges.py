"""Receipts at the edges: the answers of docs/protocol.md section 6.6, held by vectors.

``tests/vectors/receipt-edges-v1.json`` (written by ``make_edges.py``) holds receipts and
key sets changed in one way each; :func:`cardproof.verify_receipt` must give each case's
error code, or verify it. The Ed25519 cases also pin what OpenSSL alone does with them.
Beyond the vectors: the move logs the API reads (white space, letter case) and the
Ed25519 key check itself.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.edwards import IDENTITY, L, P, decode_point, encode_point, is_strict_public_key
from cardproof.errors import IllegalMove
from cardproof.games import PokerSquares, RepeatPoker, SoloDrez
from cardproof.games.base import log_tokens
from cardproof.receipts import ReceiptError, b64url_decode, verify_receipt

VECTORS = Path(__file__).parent / "vectors"
FILE = VECTORS / "receipt-edges-v1.json"
CASES: list[dict[str, Any]] = json.loads(FILE.read_text(encoding="utf-8"))["cases"]


def outcome(case: dict[str, Any]) -> str | None:
    """The error code ``verify_receipt`` gives the case, or ``None`` if it verifies."""
    try:
        verify_receipt(case["receipt"], case["jwks"])
    except ReceiptError as error:
        return error.code
    return None


def test_the_file_is_what_its_script_writes() -> None:
    build = runpy.run_path(str(VECTORS / "make_edges.py"))["build"]
    written = json.dumps(build(), indent=2, ensure_ascii=False) + "\n"
    assert FILE.read_text(encoding="utf-8") == written


def test_every_question_but_the_seen_index_has_cases_both_ways() -> None:
    questions = {case["question"] for case in CASES}
    assert questions == set(range(1, 11)) - {7}  # 7 is receipts.json's R10 (its seen cards)
    assert any(case["code"] is None for case in CASES)
    assert len({case["name"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_case_gives_its_code(case: dict[str, Any]) -> None:
    assert outcome(case) == case["code"], case["about"]


@pytest.mark.parametrize(
    "case", [c for c in CASES if "openssl_accepts" in c], ids=lambda c: str(c["name"])
)
def test_openssl_alone_does_what_the_vector_says(case: dict[str, Any]) -> None:
    """Pinned: OpenSSL refuses S >= L and takes any 32 bytes as a key, small order too."""
    signing_input, _, signature = case["receipt"].rpartition(".")
    key = Ed25519PublicKey.from_public_bytes(b64url_decode(case["jwks"]["keys"][-1]["x"]))
    try:
        key.verify(b64url_decode(signature), signing_input.encode("ascii"))
        accepted = True
    except InvalidSignature:
        accepted = False
    assert accepted == case["openssl_accepts"]


def test_the_key_check_refuses_every_small_order_and_non_canonical_encoding() -> None:
    small = [
        encode_point(IDENTITY),
        bytes(32),  # order 4
        (P - 1).to_bytes(32, "little"),  # y = -1: order 2
        bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    ]
    for encoded in small:
        assert decode_point(encoded) is not None
        assert not is_strict_public_key(encoded)
    # y >= p, the sign bit on x = 0, a y with no point: no point at all
    for encoded in ((P + 1).to_bytes(32, "little"), (1 | 1 << 255).to_bytes(32, "little")):
        assert decode_point(encoded) is None
        assert not is_strict_public_key(encoded)
    assert decode_point((2).to_bytes(32, "little")) is None  # y = 2 is not on the curve
    rfc = bytes.fromhex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
    assert is_strict_public_key(rfc)  # RFC 8032 7.1, TEST 2
    assert L % 8 != 0


# --- the logs the API reads --------------------------------------------------------


def test_moves_are_separated_by_json_white_space_only() -> None:
    assert log_tokens("a1 \t\r\nb2") == ["a1", "b2"]
    assert PokerSquares.parse_log(" a1\tb2\n") == PokerSquares.parse_log("a1 b2")
    for space in ("\u00a0", "\u3000", "\ufeff", "\x1c", "\x0b", "\x0c", "\x85"):
        with pytest.raises(IllegalMove) as refused:
            PokerSquares.parse_log(f"a1{space}b2")
        assert refused.value.code == "wrong-move-shape"
        with pytest.raises(IllegalMove):
            PokerSquares.parse_log(f"a1 b2{space}")


def test_which_letter_case_each_variant_reads() -> None:
    assert RepeatPoker.parse_log("R3 r3") == RepeatPoker.parse_log("r3 r3")
    assert PokerSquares.parse_log("C3") == PokerSquares.parse_log("c3")
    for text in ("R4", "STOP", "Stop"):
        with pytest.raises(IllegalMove):
            SoloDrez.parse_log(text)


@pytest.fixture(scope="module")
def http(app: Litestar) -> Any:
    with TestClient(app=app) as client:
        yield client


def test_the_api_reads_logs_as_the_sdk_does(http: TestClient[Litestar]) -> None:
    body = {"variant": "poker-squares", "deal": {"server_seed": "00" * 32, "client_seed": "c"}}
    cells = [f"{c}{r}" for r in "12345" for c in "abcde"]
    good = http.post("/v1/verify", json=body | {"moves": "\t".join(cells).upper() + "\n"})
    assert good.status_code == 200, good.text
    assert good.json()["payload"]["moves"] == " ".join(cells)  # written canonically
    for space in ("\u00a0", "\u3000", "\x1c"):
        answer = http.post("/v1/verify", json=body | {"moves": space.join(cells)})
        assert answer.status_code == 400, (repr(space), answer.text)


def test_one_move_is_read_as_a_log_is(http: TestClient[Litestar]) -> None:
    commitment = http.post("/v1/commitments", json={}).json()
    deal = http.post(
        "/v1/deals",
        json={"variant": "poker-squares", "commitment_id": commitment["commitment_id"]}
        | {"client_seed": "one move"},
    ).json()
    url = f"/v1/deals/{deal['deal_id']}/moves"
    refused = http.post(url, json={"index": 0, "move": "c3\u00a0"})
    assert refused.status_code == 400, refused.text
    read = http.post(url, json={"index": 0, "move": "\tC3\n"})
    assert read.status_code == 200, read.text
