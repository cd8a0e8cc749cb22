"""The compiled shuffle (``cardproof_par._deal``) against the Python one and the reference.

The service installs the C fast path (``make``); the SDK alone runs the Python one. Both
must give every deal the same order, and both must leave a rejected word (step 4) to the
word-by-word stream reader. A real deal with such a word was found by search (about 1 in
6 million deals have one) and is kept here, so the rejection is tested on real bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
from typing import Any

import pytest
from cardproof_par import _deal
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof import deal
from test_deal import VECTOR_IDS, VECTORS, ref_shuffle

REJECTED_DEALS = [
    # (deck type, server seed, client seed)
    (
        "standard-52",
        "5ff6a9d2dbb0f181c44de962fa2eac07371868d20b285d576a48a9824becc19b",
        "r3599485",
    ),
    (
        "pokerdrez-56",
        "61381f62b18505196f8bfb8db2fa2456c20ce6ec987c6966114e9ef199ac35a8",
        "r13207826",
    ),
]
"""Real deals whose fast path meets a rejected word (found with the kernel, checked by
the reference reader below)."""


@pytest.fixture
def python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``cardproof.deal`` as the SDK alone runs it: no compiled shuffle."""
    monkeypatch.setattr(deal, "_COMPILED", None)


def test_the_service_s_install_has_the_compiled_shuffle() -> None:
    """``make`` builds it: a build that quietly failed (it is optional) is caught here."""
    assert deal._COMPILED is _deal.shuffle


def test_without_the_kernel_the_sdk_runs_the_python_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "cardproof_par._deal", None)  # as if not installed
    assert deal._compiled_shuffle() is None


@pytest.mark.parametrize("entry", VECTORS, ids=VECTOR_IDS)
def test_the_vectors_on_the_compiled_path(entry: dict[str, Any]) -> None:
    server_seed = bytes.fromhex(entry["server_seed"])
    deck_type, stream = entry["deck_type"], entry["stream"]
    message = deal._stream_message(server_seed, entry["client_seed"], deck_type, stream)
    order = _deal.shuffle(server_seed, message, deal.DECK_SIZES[deck_type])
    assert list(order or ()) == entry["order"]


@pytest.mark.parametrize("entry", VECTORS, ids=VECTOR_IDS)
@pytest.mark.usefixtures("python_path")
def test_the_vectors_on_the_python_path(entry: dict[str, Any]) -> None:
    server_seed = bytes.fromhex(entry["server_seed"])
    order = deal.shuffle(
        entry["deck_type"], server_seed, entry["client_seed"], stream=entry["stream"]
    )
    assert list(order) == entry["order"]


@settings(max_examples=300, deadline=None)
@given(
    server_seed=st.binary(min_size=32, max_size=32),
    client_seed=st.text(min_size=1, max_size=40).filter(lambda s: len(s.encode()) <= 256),
    deck_type=st.sampled_from(sorted(deal.DECK_SIZES)),
    stream=st.sampled_from(["deal", "level-2", "round-3", "x"]),
)
def test_both_paths_give_every_deal_the_same_order(
    server_seed: bytes, client_seed: str, deck_type: str, stream: str
) -> None:
    compiled = deal.shuffle(deck_type, server_seed, client_seed, stream=stream)
    saved, deal._COMPILED = deal._COMPILED, None  # type: ignore[misc]
    try:
        python = deal.shuffle(deck_type, server_seed, client_seed, stream=stream)
    finally:
        deal._COMPILED = saved  # type: ignore[misc]
    assert compiled == python
    assert sorted(compiled) == list(range(deal.DECK_SIZES[deck_type]))


@pytest.mark.parametrize(("deck_type", "seed", "client_seed"), REJECTED_DEALS)
def test_a_real_rejected_word_goes_to_the_stream_reader_on_both_paths(
    deck_type: str, seed: str, client_seed: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server_seed = bytes.fromhex(seed)
    key = deal.stream_key(server_seed, client_seed, deck_type, "deal")
    size = deal.DECK_SIZES[deck_type]
    message = deal._stream_message(server_seed, client_seed, deck_type, "deal")
    assert _deal.shuffle(server_seed, message, size) is None  # the C fast path gives way
    words = deal._first_words(key, (size + 6) // 8)
    limits = deal._DRAW_BOUNDS[size][1]
    assert any(word >= limit for word, limit in zip(words, limits, strict=False))
    expected = ref_shuffle(deck_type, server_seed, client_seed, "deal")
    assert list(deal.shuffle(deck_type, server_seed, client_seed)) == expected
    monkeypatch.setattr(deal, "_COMPILED", None)
    assert list(deal.shuffle(deck_type, server_seed, client_seed)) == expected


@pytest.mark.parametrize(
    ("seed", "message", "size"),
    [
        (bytes(31), b"m", 52),
        (bytes(33), b"m", 52),
        (bytes(32), b"m", 1),
        (bytes(32), b"m", 65),
        ("x" * 32, b"m", 52),
        (bytes(32), "m", 52),
    ],
)
def test_the_kernel_refuses_what_no_deal_asks(seed: Any, message: Any, size: int) -> None:
    with pytest.raises((ValueError, TypeError)):
        _deal.shuffle(seed, message, size)


def test_unknown_decks_and_bad_seeds_are_value_errors_on_both_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for compiled in (deal._COMPILED, None):
        monkeypatch.setattr(deal, "_COMPILED", compiled)
        with pytest.raises(ValueError, match="unknown deck type"):
            deal.shuffle("tarot-78", bytes(32), "alice")
        with pytest.raises(ValueError, match="a server seed is 32 bytes"):
            deal.shuffle("standard-52", bytes(31), "alice")


def test_the_kernel_holds_no_reference_to_its_inputs() -> None:
    """The buffers are released on every path (a leak would pin every deal's seed)."""
    seed, message = hashlib.sha256(b"refcount").digest(), b"cardproof-shuffle-v1\0m"
    before = sys.getrefcount(seed), sys.getrefcount(message)
    for size in (52, 53, 56, 1):
        with contextlib.suppress(ValueError):
            _deal.shuffle(seed, message, size)
    assert (sys.getrefcount(seed), sys.getrefcount(message)) == before
