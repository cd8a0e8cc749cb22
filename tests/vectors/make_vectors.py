"""Write ``shuffle-v1.json``: test vectors of the ``cardproof-shuffle-v1`` deck derivation.

Run from the repository root::

    .venv/bin/python tests/vectors/make_vectors.py

Each vector gives a seed pair, the deck type and stream label, the intermediate
values (the seed hash, the stream key ``K`` of step 2, the first 32 bytes of the
byte stream of step 3) and the result: the deck order as canonical indices and as
card texts. ``below`` vectors exercise the rejection sampling of step 4 with bounds
``n`` large enough that draws are actually rejected (a shuffle of at most 56 cards
almost never rejects one). ``tests/test_deal.py`` checks the file against an
independent implementation and against :mod:`cardproof.deal`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from pathlib import Path
from typing import Any

from cardproof.cards import ALL_CARDS
from cardproof.deal import ALGORITHM, DECK_SIZES, UniformDraws, seed_hash, shuffle, stream_key
from cardproof.pokerdrez import POKERDREZ_TEXTS

OUTPUT = Path(__file__).with_name("shuffle-v1.json")


def card_texts(deck_type: str) -> tuple[str, ...]:
    """The texts of a deck type's cards, by canonical index."""
    if deck_type == "pokerdrez-56":
        return POKERDREZ_TEXTS
    return tuple(card.text for card in ALL_CARDS[: DECK_SIZES[deck_type]])


def _seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


# (server seed, client seed, stream), used for every deck type
CASES: tuple[tuple[bytes, str, str], ...] = (
    (bytes(range(32)), "alice", "deal"),
    (bytes(range(32)), "alice", "level-2"),
    (bytes(32), "bob", "deal"),
    (b"\xff" * 32, "a" * 256, "round-3"),
    (_seed("cardproof vector 1"), "Zoë 🂡 日本語", "deal"),
    (_seed("cardproof vector 2"), "ü" * 128, "level-10"),
    (_seed("cardproof vector 3"), "x", "deal"),
)

BELOW_BOUNDS: tuple[int, ...] = (2**31 + 1, 3 * 2**30 + 7, 5, 56, 2**32)
BELOW_COUNT = 24


def vector(deck_type: str, server_seed: bytes, client_seed: str, stream: str) -> dict[str, Any]:
    """One shuffle vector."""
    key = stream_key(server_seed, client_seed, deck_type, stream)
    order = shuffle(deck_type, server_seed, client_seed, stream=stream)
    texts = card_texts(deck_type)
    return {
        "algorithm": ALGORITHM,
        "deck_type": deck_type,
        "server_seed": server_seed.hex(),
        "server_seed_hash": seed_hash(server_seed),
        "client_seed": client_seed,
        "stream": stream,
        "stream_key": key.hex(),
        "first_block": hmac.digest(key, (0).to_bytes(8, "big"), "sha256").hex(),
        "order": list(order),
        "cards": [texts[i] for i in order],
    }


def below_vector(key: bytes, n: int) -> dict[str, Any]:
    """Successive uniform draws in ``[0, n)`` from one stream key (step 4)."""
    source = UniformDraws(key)
    return {
        "stream_key": key.hex(),
        "n": n,
        "values": [source.below(n) for _ in range(BELOW_COUNT)],
    }


def build() -> dict[str, Any]:
    """The whole file's content."""
    vectors = [
        vector(deck_type, server, client, stream)
        for deck_type in DECK_SIZES
        for server, client, stream in CASES
    ]
    key = bytes.fromhex(vectors[0]["stream_key"])
    return {
        "algorithm": ALGORITHM,
        "description": (
            "Deck derivation test vectors; the byte-for-byte description is "
            "docs/protocol.md section 3.4. 'order' lists canonical card indices, first card "
            "dealt first; 'below' lists successive draws in [0, n) from one stream key, "
            "each list a fresh stream from counter 0."
        ),
        "vectors": vectors,
        "below": [below_vector(key, n) for n in BELOW_BOUNDS],
    }


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _render_object(obj: dict[str, Any], indent: str) -> str:
    """An object one field a line; lists of numbers or texts stay on one line."""
    fields = [f"{indent}  {_dumps(key)}: {_dumps(value)}" for key, value in obj.items()]
    return indent + "{\n" + ",\n".join(fields) + "\n" + indent + "}"


def render() -> str:
    """The file's text (valid JSON, one field a line, each list on one line)."""
    content = build()
    parts = []
    for key, value in content.items():
        if isinstance(value, list):
            items = ",\n".join(_render_object(item, "    ") for item in value)
            parts.append(f"  {_dumps(key)}: [\n{items}\n  ]")
        else:
            parts.append(f"  {_dumps(key)}: {_dumps(value)}")
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    assert json.loads(text) == content
    return text


def main() -> int:
    """Write the file (or, with ``--check``, fail if it is out of date)."""
    text = render()
    if sys.argv[1:] == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is out of date", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
