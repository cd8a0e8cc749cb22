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
from collections.abc import Iterator
from itertools import count
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
    if len(server_seed) != SEED_BYTES:
        raise ValueError(f"a server seed is {SEED_BYTES} bytes, not {len(server_seed)}")
    if deck_type not in DECK_SIZES:
        raise ValueError(f"unknown deck type {deck_type!r}")
    client = client_seed.encode("utf-8")
    if not 1 <= len(client) <= MAX_CLIENT_SEED_BYTES:
        raise ValueError(f"a client seed is 1 to {MAX_CLIENT_SEED_BYTES} UTF-8 bytes")
    if "\0" in stream or not stream.isascii():
        raise ValueError("a stream label is ASCII without NUL")
    message = b"\0".join((ALGORITHM.encode(), deck_type.encode(), stream.encode(), client))
    return hmac.digest(server_seed, message, "sha256")


def _words(key: bytes) -> Iterator[int]:
    """Steps 3 and 4's raw material: the byte stream read as big-endian u32 words.

    A block is 32 bytes, so a word never straddles two blocks.
    """
    for counter in count():
        yield from _EIGHT_WORDS.unpack(hmac.digest(key, counter.to_bytes(8, "big"), "sha256"))


_EIGHT_WORDS: Final = struct.Struct(">8I")
_TWO_32: Final = 2**32


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


def shuffle(
    deck_type: str, server_seed: bytes, client_seed: str, *, stream: str = "deal"
) -> tuple[int, ...]:
    """Step 5: the shuffled order of the deck, as canonical indices."""
    words = _words(stream_key(server_seed, client_seed, deck_type, stream))
    deck = list(range(DECK_SIZES[deck_type]))
    for i in range(len(deck) - 1, 0, -1):  # step 4 inline: this is every deal's hot path
        n = i + 1
        limit = _TWO_32 - (_TWO_32 % n)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def standard_deck(
    server_seed: bytes, client_seed: str, *, jokers: bool = False, stream: str = "deal"
) -> tuple[Card, ...]:
    """The shuffled 52-card deck (or 53 with the joker) as cards."""
    order = shuffle(
        "joker-53" if jokers else "standard-52", server_seed, client_seed, stream=stream
    )
    return tuple(ALL_CARDS[i] for i in order)


def pokerdrez_deck(
    server_seed: bytes, client_seed: str, *, stream: str = "deal"
) -> tuple[PokerdrezCard, ...]:
    """The shuffled 56-card Pokerdrez deck (``pokerdrez-56``) as cards."""
    order = shuffle("pokerdrez-56", server_seed, client_seed, stream=stream)
    return tuple(POKERDREZ_DECK[i] for i in order)
