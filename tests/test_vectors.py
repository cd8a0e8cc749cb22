"""Vector files against an independent implementation and the code (docs/protocol.md section 6).

``tests/vectors/commitments-v1.json`` (``tests/vectors/make_commitments.py``) holds
commitment ids, server seeds, tournament round seeds and reserve-poker's ``"random"``
version rolls under a test master key (docs/protocol.md sections 3.1, 3.2, 3.6 and 3.8).
``receipts.json``'s repeat-poker receipt is checked here for what section 6 says of it;
``tests/test_web.py`` verifies every receipt of that file.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.deal import pokerdrez_deck, standard_deck
from cardproof.games.reserve_poker import ReservePoker
from cardproof.receipts import SigningKey, decode_receipt, verify_receipt
from cardproof_service.deals.commitments import SEEDS_KEPT, Commitments, round_commitment_id
from cardproof_service.plumbing.keys import Keys

VECTORS_DIR = Path(__file__).parent / "vectors"
VECTORS: dict[str, Any] = json.loads(
    (VECTORS_DIR / "commitments-v1.json").read_text(encoding="utf-8")
)
MASTER = bytes.fromhex(VECTORS["master_key"])
COMMITMENTS = Commitments(keys=Keys(master=MASTER, signing=SigningKey.from_seed(bytes(32))), ttl=1)


def _hmac(key: bytes, *parts: bytes) -> bytes:
    return hmac.digest(key, b"".join(parts), "sha256")


def _seed(commitment_id: str) -> bytes:
    """Section 3.2, written again: HMAC(master, "cardproof-server-seed" 0x00 utf8(id))."""
    return _hmac(MASTER, b"cardproof-server-seed\0", commitment_id.encode("utf-8"))


def _words(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = _hmac(key, counter.to_bytes(8, "big"))
        for k in range(0, 32, 4):
            yield int.from_bytes(block[k : k + 4], "big")
        counter += 1


def _roll(server_seed: bytes, client_seed: str) -> int:
    """Section 3.6, written again: 1 + below(6) on stream ``version``, deck type ``joker-53``."""
    message = b"\0".join([b"cardproof-shuffle-v1", b"joker-53", b"version", client_seed.encode()])
    limit = 2**32 - 2**32 % 6
    x = next(x for x in _words(_hmac(server_seed, message)) if x < limit)
    return 1 + x % 6


def test_the_file_covers_what_section_6_says() -> None:
    assert len(VECTORS["commitments"]) >= 5
    assert len(VECTORS["rounds"]) >= 3
    versions = VECTORS["versions"]
    assert (versions["deck_type"], versions["stream"]) == ("joker-53", "version")
    assert {v["version"] for v in versions["vectors"]} == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("vector", VECTORS["commitments"], ids=lambda v: v["commitment_id"])
def test_a_commitment_id_its_tag_and_its_seed(vector: dict[str, Any]) -> None:
    nonce = bytes.fromhex(vector["nonce"])
    body = nonce + vector["expires_at"].to_bytes(8, "big")
    assert body.hex() == vector["body"]
    tag = _hmac(MASTER, b"cardproof-commitment\0", body)[:12]
    assert tag.hex() == vector["tag"]
    text = "c_" + base64.urlsafe_b64encode(body + tag).decode().rstrip("=")
    assert text == vector["commitment_id"]
    assert len(text) == 50
    seed = _seed(text)
    assert seed.hex() == vector["server_seed"]
    assert hashlib.sha256(seed).hexdigest() == vector["server_seed_hash"]
    # the service's code agrees: it accepts the id, reads its expiry, derives the same seed
    assert COMMITMENTS.expiry(text) == vector["expires_at"]
    assert COMMITMENTS.server_seed(text) == seed
    last = text[-1]
    for other in (text[:-1] + ("A" if last != "A" else "B"), text + "A", text.upper()):
        with pytest.raises(ProblemDetailsException):
            COMMITMENTS.expiry(other)


@pytest.mark.parametrize("vector", VECTORS["rounds"], ids=lambda v: v["commitment_id"])
def test_a_tournament_round_seed(vector: dict[str, Any]) -> None:
    text = round_commitment_id(vector["tournament_id"], vector["round"])
    assert text == f"{vector['tournament_id']}:round-{vector['round']}" == vector["commitment_id"]
    seed = _seed(text)
    assert seed.hex() == vector["server_seed"] == COMMITMENTS.server_seed(text).hex()
    assert hashlib.sha256(seed).hexdigest() == vector["server_seed_hash"]


@pytest.mark.parametrize(
    "vector",
    VECTORS["versions"]["vectors"],
    ids=lambda v: f"{v['server_seed'][:8]}-{v['client_seed']}",
)
def test_a_random_reserve_version(vector: dict[str, Any]) -> None:
    seed = bytes.fromhex(vector["server_seed"])
    assert _roll(seed, vector["client_seed"]) == vector["version"]
    resolved = ReservePoker.resolve_options({"version": "random"}, seed, vector["client_seed"])
    assert resolved.version == vector["version"]


def test_the_repeat_poker_receipt() -> None:
    """Five levels, each dealt from its own stream; the cards shown are the ones dealt."""
    entries = json.loads((VECTORS_DIR / "receipts.json").read_text(encoding="utf-8"))
    entry = next(e for e in entries if decode_receipt(e["receipt"])[1].variant == "repeat-poker")
    payload = verify_receipt(entry["receipt"], entry["jwks"]).payload
    assert payload.options == {"rows": 5, "levels": 5}
    assert payload.score.levels is not None
    assert len(payload.score.levels) == 5
    assert sum(payload.score.levels) == payload.score.total
    assert payload.server_seed is not None
    seed = bytes.fromhex(payload.server_seed)
    for seen in entry["seen"]:
        deck = standard_deck(seed, payload.client_seed, stream=seen["stream"])
        assert deck[seen["index"]].text == seen["card"]
    assert {seen["stream"] for seen in entry["seen"]} == {
        "deal",
        *(f"level-{k}" for k in range(2, 6)),
    }
    for hand in payload.score.hands:
        assert hand.level is not None
        assert hand.removed is not None
        assert set(hand.removed) <= set(hand.cards)


def test_the_solodrez_receipts() -> None:
    """A won game, one stopped after three series, one that ends with no move left; all 56
    cards shown, dealt by stream ``deal`` of the ``pokerdrez-56`` deck, card i to column i
    mod 9."""
    games = json.loads((VECTORS_DIR / "receipts-solodrez.json").read_text(encoding="utf-8"))
    assert all(decode_receipt(e["receipt"])[1].variant == "solodrez" for e in games)
    results = []
    for entry in games:
        payload = verify_receipt(entry["receipt"], entry["jwks"]).payload
        assert (payload.kind, payload.options, payload.score.hands) == ("committed-open", {}, ())
        assert payload.score.total == payload.score.series_removed
        results.append((payload.score.won, payload.moves.endswith(" stop")))
        assert payload.server_seed is not None
        deck = pokerdrez_deck(bytes.fromhex(payload.server_seed), payload.client_seed)
        assert [(s["stream"], s["index"], s["card"]) for s in entry["seen"]] == [
            ("deal", i, card.text) for i, card in enumerate(deck)
        ]
    assert sorted(results) == [(False, False), (False, True), (True, False)]


def test_kept_seeds_are_the_derived_ones_and_only_the_newest_are_kept() -> None:
    """The seeds kept once derived (``SEEDS_KEPT``) answer as a fresh derivation does."""
    commitments = Commitments(keys=COMMITMENTS.keys, ttl=1)
    ids = [f"t_{i:020x}:round-1" for i in range(SEEDS_KEPT + 3)]
    first = [commitments.server_seed(text) for text in ids]
    assert first == [_hmac(MASTER, b"cardproof-server-seed\0", t.encode()) for t in ids]
    assert len(commitments._seeds) == SEEDS_KEPT  # the three oldest went
    assert ids[0] not in commitments._seeds
    assert ids[-1] in commitments._seeds
    assert [commitments.server_seed(text) for text in ids] == first  # kept or derived again
    other = Commitments(keys=Keys(master=bytes(32), signing=COMMITMENTS.keys.signing), ttl=1)
    assert other.server_seed(ids[-1]) != first[-1]  # kept per master key, never shared
