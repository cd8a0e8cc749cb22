"""Deck derivation ``cardproof-shuffle-v1`` (docs/protocol.md section 3) and its test vectors.

The reference below is written from the byte-for-byte description in the module
docstring of :mod:`cardproof.deal`, with :mod:`hashlib` and :mod:`hmac` only; it
shares no code with the engine.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import struct
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof import deal
from cardproof.cards import ALL_CARDS

VECTORS_DIR = Path(__file__).parent / "vectors"
VECTORS_FILE = VECTORS_DIR / "shuffle-v1.json"

# --- the independent reference ---------------------------------------------------------

REF_ALGORITHM = b"cardproof-shuffle-v1"
REF_SIZES = {"standard-52": 52, "joker-53": 53, "pokerdrez-56": 56}
REF_TEXTS_52 = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]  # docs/rules.md 1
REF_TEXTS = {
    "standard-52": REF_TEXTS_52,
    "joker-53": [*REF_TEXTS_52, "JK"],
    # docs/rules.md section 7: colours 1..9, each J Q T B N P, then X1 X2
    "pokerdrez-56": [f + str(colour) for colour in range(1, 10) for f in "JQTBNP"] + ["X1", "X2"],
}


def ref_seed_hash(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def ref_stream_key(server_seed: bytes, client_seed: str, deck_type: str, stream: str) -> bytes:
    message = (
        REF_ALGORITHM
        + b"\x00"
        + deck_type.encode("ascii")
        + b"\x00"
        + stream.encode("ascii")
        + b"\x00"
        + client_seed.encode("utf-8")
    )
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def ref_block(key: bytes, counter: int) -> bytes:
    return hmac.new(key, struct.pack(">Q", counter), hashlib.sha256).digest()


def ref_bytes(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from ref_block(key, counter)
        counter += 1


class RefDraws:
    def __init__(self, key: bytes) -> None:
        self.stream = ref_bytes(key)
        self.words_read = 0

    def u32(self) -> int:
        self.words_read += 1
        return int.from_bytes(bytes(next(self.stream) for _ in range(4)), "big")

    def below(self, n: int) -> int:
        limit = 2**32 - (2**32 % n)
        while True:
            x = self.u32()
            if x < limit:
                return x % n


def ref_shuffle(deck_type: str, server_seed: bytes, client_seed: str, stream: str) -> list[int]:
    draws = RefDraws(ref_stream_key(server_seed, client_seed, deck_type, stream))
    deck = list(range(REF_SIZES[deck_type]))
    for i in range(len(deck) - 1, 0, -1):
        j = draws.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# --- the vectors file -------------------------------------------------------------------


def load_vectors() -> dict[str, Any]:
    content: dict[str, Any] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
    return content


def load_make_vectors() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_vectors_for_test", VECTORS_DIR / "make_vectors.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VECTORS: list[dict[str, Any]] = load_vectors()["vectors"]
VECTOR_IDS = [f"{v['deck_type']}-{i}" for i, v in enumerate(VECTORS)]


def test_vectors_file_covers_each_deck_type_with_varied_seeds() -> None:
    content = load_vectors()
    assert content["algorithm"] == "cardproof-shuffle-v1" == deal.ALGORITHM
    for deck_type in REF_SIZES:
        entries = [v for v in VECTORS if v["deck_type"] == deck_type]
        assert len(entries) >= 5, deck_type
        assert len({v["server_seed"] for v in entries}) >= 4
        assert len({v["client_seed"] for v in entries}) >= 4
        assert len({v["stream"] for v in entries}) >= 3
        assert any(not v["client_seed"].isascii() for v in entries)
        assert any(len(v["client_seed"].encode()) == 256 for v in entries)
        assert {v["stream"] for v in entries} >= {"deal", "level-2"}
    assert set(REF_SIZES) == {v["deck_type"] for v in VECTORS}
    keys = {
        "algorithm",
        "deck_type",
        "server_seed",
        "server_seed_hash",
        "client_seed",
        "stream",
        "stream_key",
        "first_block",
        "order",
        "cards",
    }
    assert all(set(v) == keys for v in VECTORS)


@pytest.mark.parametrize("entry", VECTORS, ids=VECTOR_IDS)
def test_vector_against_the_reference(entry: dict[str, Any]) -> None:
    server_seed = bytes.fromhex(entry["server_seed"])
    client_seed, deck_type, stream = entry["client_seed"], entry["deck_type"], entry["stream"]
    assert entry["algorithm"] == "cardproof-shuffle-v1"
    assert len(server_seed) == 32
    assert entry["server_seed_hash"] == ref_seed_hash(server_seed)
    key = ref_stream_key(server_seed, client_seed, deck_type, stream)
    assert entry["stream_key"] == key.hex()
    assert entry["first_block"] == ref_block(key, 0).hex()
    order = ref_shuffle(deck_type, server_seed, client_seed, stream)
    assert entry["order"] == order
    assert sorted(order) == list(range(REF_SIZES[deck_type]))
    assert entry["cards"] == [REF_TEXTS[deck_type][i] for i in order]


@pytest.mark.parametrize("entry", VECTORS, ids=VECTOR_IDS)
def test_vector_against_the_engine(entry: dict[str, Any]) -> None:
    server_seed = bytes.fromhex(entry["server_seed"])
    client_seed, deck_type, stream = entry["client_seed"], entry["deck_type"], entry["stream"]
    assert deal.seed_hash(server_seed) == entry["server_seed_hash"]
    assert deal.stream_key(server_seed, client_seed, deck_type, stream).hex() == entry["stream_key"]
    order = deal.shuffle(deck_type, server_seed, client_seed, stream=stream)
    assert list(order) == entry["order"]
    if deck_type == "pokerdrez-56":
        drez = deal.pokerdrez_deck(server_seed, client_seed, stream=stream)
        assert [c.text for c in drez] == entry["cards"]
    else:
        assert [ALL_CARDS[i].text for i in order] == entry["cards"]
        cards = deal.standard_deck(
            server_seed, client_seed, jokers=deck_type == "joker-53", stream=stream
        )
        assert [c.text for c in cards] == entry["cards"]


def test_below_vectors_exercise_rejection_sampling() -> None:
    below = load_vectors()["below"]
    rejected_somewhere = False
    for entry in below:
        key, n = bytes.fromhex(entry["stream_key"]), entry["n"]
        ref = RefDraws(key)
        assert [ref.below(n) for _ in entry["values"]] == entry["values"]
        rejected_somewhere |= ref.words_read > len(entry["values"])
        engine = deal.UniformDraws(key)
        assert [engine.below(n) for _ in entry["values"]] == entry["values"]
        assert all(0 <= v < n for v in entry["values"])
    assert rejected_somewhere


@pytest.mark.parametrize("n", [2**31 + 1, 3 * 2**30, 2**32 - 1, 1, 2, 7, 2**32])
def test_uniform_draws_against_the_reference(n: int) -> None:
    key = hashlib.sha256(f"draws {n}".encode()).digest()
    ref, engine = RefDraws(key), deal.UniformDraws(key)
    assert [engine.below(n) for _ in range(200)] == [ref.below(n) for _ in range(200)]


def test_uniform_draws_mix_bounds_on_one_stream() -> None:
    key = hashlib.sha256(b"mixed").digest()
    ref, engine = RefDraws(key), deal.UniformDraws(key)
    bounds = [5, 2**31 + 1, 52, 3 * 2**30 + 1, 1, 2**32] * 20
    assert [engine.below(n) for n in bounds] == [ref.below(n) for n in bounds]


@pytest.mark.parametrize("n", [0, -1, 2**32 + 1])
def test_uniform_draws_refuse_bad_bounds(n: int) -> None:
    with pytest.raises(ValueError, match="n must be"):
        deal.UniformDraws(bytes(32)).below(n)


def test_vectors_file_is_what_make_vectors_writes() -> None:
    module = load_make_vectors()
    assert module.render() == VECTORS_FILE.read_text(encoding="utf-8")


def test_pokerdrez_deck_follows_games_md() -> None:
    # the vectors name the pokerdrez cards by docs/rules.md section 7; the engine should too
    from cardproof.pokerdrez import POKERDREZ_DECK, POKERDREZ_TEXTS

    assert list(POKERDREZ_TEXTS) == REF_TEXTS["pokerdrez-56"]
    assert [card.index for card in POKERDREZ_DECK] == list(range(56))
    assert sum(card.is_neutral for card in POKERDREZ_DECK) == 2


# --- the engine's derivation ------------------------------------------------------------


def test_seed_hash_is_hex_sha256() -> None:
    assert deal.seed_hash(bytes(32)) == hashlib.sha256(bytes(32)).hexdigest()
    assert deal.seed_hash(bytes(32)).startswith("66687aadf862bd77")
    seed = bytes(range(32))
    assert deal.seed_hash(seed) == ref_seed_hash(seed)


def test_deck_sizes() -> None:
    assert deal.DECK_SIZES == REF_SIZES


@settings(max_examples=60, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.text(min_size=1, max_size=40).filter(lambda s: len(s.encode()) <= 256),
    st.sampled_from(sorted(REF_SIZES)),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", max_size=12),
)
def test_shuffle_is_a_permutation_and_matches_the_reference(
    server_seed: bytes, client_seed: str, deck_type: str, stream: str
) -> None:
    order = deal.shuffle(deck_type, server_seed, client_seed, stream=stream)
    assert sorted(order) == list(range(REF_SIZES[deck_type]))
    assert list(order) == ref_shuffle(deck_type, server_seed, client_seed, stream)
    assert order == deal.shuffle(deck_type, server_seed, client_seed, stream=stream)


def test_default_stream_is_deal() -> None:
    seed = bytes(range(32))
    assert deal.shuffle("standard-52", seed, "alice") == deal.shuffle(
        "standard-52", seed, "alice", stream="deal"
    )


def test_each_input_changes_the_order() -> None:
    seed = bytes(range(32))
    base = deal.shuffle("standard-52", seed, "alice", stream="deal")
    others = [
        deal.shuffle("standard-52", seed, "alicf", stream="deal"),
        deal.shuffle("standard-52", seed, "alice ", stream="deal"),
        deal.shuffle("standard-52", seed, "alice", stream="level-2"),
        deal.shuffle("standard-52", seed, "alice", stream="Deal"),
        deal.shuffle("standard-52", bytes([1]) + seed[1:], "alice", stream="deal"),
        deal.shuffle("standard-52", seed[:31] + b"\x00", "alice", stream="deal"),
        deal.shuffle("joker-53", seed, "alice", stream="deal")[:52],
    ]
    for other in others:
        assert other != base
    # the label boundaries are kept apart by NUL separators
    assert deal.stream_key(seed, "2x", "standard-52", "level-") != deal.stream_key(
        seed, "x", "standard-52", "level-2"
    )


def test_standard_deck_uses_the_matching_deck_type() -> None:
    seed = bytes(range(32))
    plain = deal.standard_deck(seed, "carol")
    assert [c.index for c in plain] == list(deal.shuffle("standard-52", seed, "carol"))
    joker = deal.standard_deck(seed, "carol", jokers=True, stream="round-3")
    assert [c.index for c in joker] == ref_shuffle("joker-53", seed, "carol", "round-3")
    assert sum(c.is_joker for c in joker) == 1


@pytest.mark.parametrize(
    ("server_seed", "client_seed", "deck_type", "stream"),
    [
        (bytes(31), "alice", "standard-52", "deal"),
        (bytes(33), "alice", "standard-52", "deal"),
        (b"", "alice", "standard-52", "deal"),
        (bytes(32), "", "standard-52", "deal"),
        (bytes(32), "a" * 257, "standard-52", "deal"),
        (bytes(32), "é" * 129, "standard-52", "deal"),  # 258 UTF-8 bytes
        (bytes(32), "alice", "standard-54", "deal"),
        (bytes(32), "alice", "", "deal"),
        (bytes(32), "alice", "STANDARD-52", "deal"),
        (bytes(32), "alice", "standard-52", "de\x00al"),
        (bytes(32), "alice", "standard-52", "\x00"),
        (bytes(32), "alice", "standard-52", "niveau-é"),
    ],
)
def test_bad_inputs_are_refused(
    server_seed: bytes, client_seed: str, deck_type: str, stream: str
) -> None:
    with pytest.raises(ValueError, match=r"."):
        deal.shuffle(deck_type, server_seed, client_seed, stream=stream)
    with pytest.raises(ValueError, match=r"seed|deck type|stream"):
        deal.stream_key(server_seed, client_seed, deck_type, stream)


def test_client_seed_limits_are_in_utf8_bytes() -> None:
    seed = bytes(32)
    assert len(deal.shuffle("standard-52", seed, "a" * 256)) == 52
    assert len(deal.shuffle("standard-52", seed, "é" * 128)) == 52  # 256 bytes
    assert len(deal.shuffle("standard-52", seed, "x")) == 52


def chi_square(counts: Counter[int], size: int, total: int) -> float:
    expected = total / size
    return sum((counts[k] - expected) ** 2 / expected for k in range(size))


def test_first_and_last_positions_are_roughly_uniform() -> None:
    total, size = 5000, 52
    first: Counter[int] = Counter()
    last: Counter[int] = Counter()
    seed = hashlib.sha256(b"chi-square").digest()
    for i in range(total):
        order = deal.shuffle("standard-52", seed, f"player-{i}")
        first[order[0]] += 1
        last[order[-1]] += 1
    # 51 degrees of freedom: mean 51, standard deviation about 10; fixed seeds, so
    # the outcome is deterministic, and a biased shuffle lands far above 120
    assert chi_square(first, size, total) < 120
    assert chi_square(last, size, total) < 120
    assert len(first) == size
    assert len(last) == size


def test_first_words_are_the_streams_first_words() -> None:
    """The fast path's blocks (HMAC keyed once, copied) equal the stream read word by word."""
    key = deal.stream_key(bytes(range(32)), "alice", "standard-52", "deal")
    stream = deal._words(key)
    assert deal._first_words(key, 9) == tuple(next(stream) for _ in range(72))


def test_a_rejected_word_sends_the_shuffle_to_the_stream_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Step 4's rejection: the fast path gives way to reading the stream word by word.

    No real deal is known to hit a rejection (about 1 in 6 million do), so the first words
    are replaced by ones holding a word every draw rejects; the answer must be the
    word-by-word reader's, which skips it, and that reader matches the reference.
    """
    seed = bytes(range(32))
    key = deal.stream_key(seed, "alice", "standard-52", "deal")
    real = deal._first_words(key, 7)
    rejected = (real[0], 2**32 - 1, *real[2:])
    asked: list[tuple[bytes, int]] = []

    def stream_reader(key: bytes, size: int) -> tuple[int, ...]:
        asked.append((key, size))
        return tuple(range(size))

    monkeypatch.setattr(deal, "_COMPILED", None)  # the Python path (the C one: test_deal_kernel)
    monkeypatch.setattr(deal, "_first_words", lambda key, blocks: rejected)
    monkeypatch.setattr(deal, "_shuffle_stream", stream_reader)
    assert deal.shuffle("standard-52", seed, "alice") == tuple(range(52))
    assert asked == [(key, 52)]
    monkeypatch.undo()
    assert list(deal._shuffle_stream(key, 52)) == ref_shuffle("standard-52", seed, "alice", "deal")
