"""Deck derivation ``cardproof-shuffle-v1``: from a seed pair to a deck order.

The deck is a function of (server seed, client seed, deck type, stream label,
algorithm id) and nothing else, so anyone holding the revealed seeds can re-derive
it. Byte for byte:

1. ``server_seed`` is 32 bytes; the commitment to it is ``hex(SHA-256(server_seed))``.
   ``client_seed`` is a string of 1 to 256 UTF-8 bytes. ``deck_type`` is one of
   ``standard-52``, ``joker-53``, ``pokerdrez-56``; ``stream`` is an ASCII label that
   separates independent shuffles of one deal (``deal``, ``level-2``, ``round-3``).
   Neither label contains a NUL byte.
2. Key: ``K = HMAC-SHA256(key=server_seed, msg=b"cardproof-shuffle-v1" || 0x00 ||
   deck_type || 0x00 || stream || 0x00 || utf8(client_seed))``.
3. Byte stream: ``HMAC-SHA256(K, u64be(0)) || HMAC-SHA256(K, u64be(1)) || ...``
   (counter mode, 32 bytes a block, counter as 8 bytes big-endian).
4. A uniform integer in ``[0, n)``: read the next 4 stream bytes as a big-endian
   unsigned 32-bit ``x``; if ``x >= 2**32 - (2**32 mod n)`` discard it and read again
   (rejection sampling, so no modulo bias); else the value is ``x mod n``.
5. Shuffle (Fisher-Yates, Durstenfeld): start from the canonical deck order (see
   :mod:`cardproof.cards`); for ``i`` from ``size - 1`` down to ``1``, draw ``j``
   uniform in ``[0, i + 1)`` and swap positions ``i`` and ``j``.
6. The result's position 0 is the first card dealt.

Test vectors for all three deck types live in ``tests/vectors/shuffle-v1.json``.

>>> seed = bytes(range(32))
>>> order = shuffle("standard-52", seed, "alice")
>>> len(order), sorted(order) == list(range(52)), order == shuffle("standard-52", seed, "alice")
(52, True, True)
>>> order == shuffle("standard-52", seed, "alice", stream="level-2")
False
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Callable, Iterator
from itertools import count
from operator import ge, mod
from typing import Final

from cardproof.cards import ALL_CARDS, Card
from cardproof.pokerdrez import POKERDREZ_DECK, PokerdrezCard

ALGORITHM: Final = "cardproof-shuffle-v1"
"""The id every receipt carries for this derivation."""
DECK_SIZES: Final[dict[str, int]] = {"standard-52": 52, "joker-53": 53, "pokerdrez-56": 56}
"""Deck types and their sizes."""
SEED_BYTES: Final = 32
MAX_CLIENT_SEED_BYTES: Final = 256


def seed_hash(server_seed: bytes) -> str:
    """The public commitment to a server seed: hex SHA-256.

    >>> seed_hash(bytes(32))[:16]
    '66687aadf862bd77'
    """
    return hashlib.sha256(server_seed).hexdigest()


def stream_key(server_seed: bytes, client_seed: str, deck_type: str, stream: str) -> bytes:
    """Step 2: the HMAC key of one shuffle's byte stream."""
    message = _stream_message(server_seed, client_seed, deck_type, stream)
    return hmac.digest(server_seed, message, "sha256")


def _stream_message(server_seed: bytes, client_seed: str, deck_type: str, stream: str) -> bytes:
    """Step 2's message, once every input is checked (``ValueError`` names the wrong one)."""
    if len(server_seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes, not {len(server_seed)}")
    if deck_type not in DECK_SIZES:
        raise ValueError(f"unknown deck type {deck_type!r}")
    client = client_seed.encode("utf-8")
    if not 1 <= len(client) <= MAX_CLIENT_SEED_BYTES:
        raise ValueError(f"a client seed is 1 to {MAX_CLIENT_SEED_BYTES} UTF-8 bytes")
    if "\0" in stream or not stream.isascii():
        raise ValueError("a stream label is ASCII without NUL")
    return b"\0".join((ALGORITHM.encode(), deck_type.encode(), stream.encode(), client))


def _words(key: bytes) -> Iterator[int]:
    """Steps 3 and 4's raw material: the byte stream read as big-endian u32 words.

    A block is 32 bytes, so a word never straddles two blocks.
    """
    for counter in count():
        yield from _EIGHT_WORDS.unpack(hmac.digest(key, counter.to_bytes(8, "big"), "sha256"))


def _first_words(key: bytes, blocks: int) -> tuple[int, ...]:
    """The stream's first ``blocks`` blocks as u32 words, the same as :func:`_words` gives.

    HMAC's inner and outer hashes are keyed once and copied for each block (RFC 2104:
    ``H((K ^ opad) || H((K ^ ipad) || m))``), about half the cost of a fresh HMAC a block.
    """
    padded = key.ljust(_HASH_BLOCK, b"\0")  # stream keys are 32 bytes: never hashed first
    inner = hashlib.sha256(padded.translate(_IPAD))
    outer = hashlib.sha256(padded.translate(_OPAD))
    stream = bytearray()
    for counter in range(blocks):
        step = inner.copy()
        step.update(counter.to_bytes(8, "big"))
        final = outer.copy()
        final.update(step.digest())
        stream += final.digest()
    return struct.unpack(f">{8 * blocks}I", stream)


_EIGHT_WORDS: Final = struct.Struct(">8I")
_TWO_32: Final = 2**32
_HASH_BLOCK: Final = 64  # SHA-256's block size in bytes
_IPAD: Final = bytes(b ^ 0x36 for b in range(256))
_OPAD: Final = bytes(b ^ 0x5C for b in range(256))
_DRAW_BOUNDS: Final = {
    size: (range(size, 1, -1), tuple(_TWO_32 - _TWO_32 % n for n in range(size, 1, -1)))
    for size in DECK_SIZES.values()
}
"""Per deck size, each draw's ``n`` and its rejection limit (step 4), in draw order."""


class UniformDraws:
    """Step 4: unbiased integers drawn from one stream."""

    def __init__(self, key: bytes) -> None:
        """Draws from the stream keyed by ``key`` (see :func:`stream_key`)."""
        self._words = _words(key)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection sampling."""
        if not 1 <= n <= _TWO_32:
            raise ValueError("n must be in 1..2**32")
        limit = _TWO_32 - (_TWO_32 % n)
        for x in self._words:
            if x < limit:
                return x % n
        raise AssertionError("the stream is endless")  # pragma: no cover


def draws(server_seed: bytes, client_seed: str, deck_type: str, stream: str) -> UniformDraws:
    """The uniform draws of one stream (for a shuffle, or a die roll on its own stream)."""
    return UniformDraws(stream_key(server_seed, client_seed, deck_type, stream))


def _compiled_shuffle() -> Callable[[bytes, bytes, int], tuple[int, ...] | None] | None:
    """The service's compiled fast path (``cardproof_par._deal``), if installed.

    The SDK alone runs the Python one below; both give the same orders and leave a
    rejected word to :func:`_shuffle_stream` (``tests/test_deal_kernel.py``).
    """
    try:
        from cardproof_par._deal import shuffle as compiled
    except ImportError:
        return None
    return compiled


_COMPILED: Final = _compiled_shuffle()


def shuffle(
    deck_type: str, server_seed: bytes, client_seed: str, *, stream: str = "deal"
) -> tuple[int, ...]:
    """Step 5: the shuffled order of the deck, as canonical indices.

    The fast path reads one word per draw from the first blocks, computed at once: in C
    where the service installed it (the stream key too: about 1 us against 16), else
    here with step 4 as C-level maps. A word that step 4 rejects (about 1 deal in 6
    million has one) sends the whole shuffle to :func:`_shuffle_stream`, which reads the
    stream word by word.
    """
    message = _stream_message(server_seed, client_seed, deck_type, stream)
    size = DECK_SIZES[deck_type]
    if _COMPILED is not None:
        order = _COMPILED(server_seed, message, size)
    else:
        order = _first_words_shuffle(hmac.digest(server_seed, message, "sha256"), size)
    if order is None:
        return _shuffle_stream(hmac.digest(server_seed, message, "sha256"), size)
    return order


def _first_words_shuffle(key: bytes, size: int) -> tuple[int, ...] | None:
    """Step 5 on the stream's first words, or ``None`` if step 4 rejects one of them."""
    words = _first_words(key, (size + 6) // 8)  # size - 1 draws, 8 words a block
    bounds = _DRAW_BOUNDS[size]  # the draws' n, size down to 2, in C-level maps below
    if any(map(ge, words, bounds[1])):
        return None
    deck = list(range(size))
    for i, j in zip(range(size - 1, 0, -1), map(mod, words, bounds[0]), strict=True):
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def _shuffle_stream(key: bytes, size: int) -> tuple[int, ...]:
    """Step 5 read word by word from the stream keyed by ``key`` (any number rejected)."""
    draws = UniformDraws(key)
    deck = list(range(size))
    for i in range(size - 1, 0, -1):
        j = draws.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def standard_deck(
    server_seed: bytes, client_seed: str, *, jokers: bool = False, stream: str = "deal"
) -> tuple[Card, ...]:
    """The shuffled 52-card deck (or 53 with the joker) as cards."""
    order = shuffle(
        "joker-53" if jokers else "standard-52", server_seed, client_seed, stream=stream
    )
    return tuple(map(ALL_CARDS.__getitem__, order))


def pokerdrez_deck(
    server_seed: bytes, client_seed: str, *, stream: str = "deal"
) -> tuple[PokerdrezCard, ...]:
    """The shuffled 56-card Pokerdrez deck (``pokerdrez-56``) as cards."""
    order = shuffle("pokerdrez-56", server_seed, client_seed, stream=stream)
    return tuple(map(POKERDREZ_DECK.__getitem__, order))
