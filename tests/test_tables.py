"""Point systems drawn from the seeds (``cardproof-points-v1``, cardproof/tables.py).

The vectors in ``vectors/points-v1.json`` are checked against a second implementation
written here from the module's text alone (HMAC and rejection sampling by hand), and
against the module; then each system's draws stay in their ranges over many seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import struct
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from cardproof.hands import CATEGORY_IDS
from cardproof.tables import GENERATED, generate

VECTORS = json.loads((Path(__file__).parent / "vectors" / "points-v1.json").read_text())
ORDER = list(CATEGORY_IDS[:10])
"""The categories as the API names them, high card first (five of a kind is never drawn)."""
AMERICAN = dict(zip(ORDER, [0, 2, 5, 10, 15, 20, 25, 50, 75, 100], strict=True))
BRITISH = dict(zip(ORDER, [0, 1, 3, 6, 12, 5, 10, 16, 30, 30], strict=True))


def words(server_seed: bytes, client_seed: str) -> Iterator[int]:
    """The ``points-v1`` stream as big-endian u32 words (cardproof-shuffle-v1 steps 2-3)."""
    message = b"\0".join(
        [b"cardproof-shuffle-v1", b"standard-52", b"points-v1", client_seed.encode()]
    )
    key = hmac.new(server_seed, message, hashlib.sha256).digest()
    counter = 0
    while True:
        block = hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        yield from struct.unpack(">8I", block)
        counter += 1


def drawn(server_seed: bytes, client_seed: str, system: str) -> dict[str, int]:
    """The table, by the module's steps, with rejection sampling written out."""
    stream = words(server_seed, client_seed)

    def draw(n: int) -> int:
        limit = 2**32 - 2**32 % n
        return next(x % n for x in stream if x < limit)

    points = dict.fromkeys(ORDER, 0)
    if system == "ameritish":
        royal = 30 + draw(71)
        for category in ORDER[:-1]:
            a = Fraction(AMERICAN[category] * royal, 100)
            b = Fraction(BRITISH[category] * royal, 30)
            low, high = math.floor(min(a, b)), math.ceil(max(a, b))
            points[category] = low + draw(high - low + 1)
        points["royal-flush"] = royal
    elif system == "random":
        points = {category: draw(256) - 128 for category in ORDER}
    elif system == "hypercorner":
        points = {category: 2 * draw(2) - 1 for category in ORDER}
    else:
        points[ORDER[draw(10)]] = 1
    return points


def test_the_vectors_cover_every_system() -> None:
    assert VECTORS["algorithm"] == "cardproof-points-v1"
    assert {case["system"] for case in VECTORS["vectors"]} == set(GENERATED)


@pytest.mark.parametrize("case", VECTORS["vectors"], ids=lambda case: case["system"])
def test_each_vector_is_drawn_by_both_implementations(case: dict[str, Any]) -> None:
    server_seed, client_seed = bytes.fromhex(case["server_seed"]), case["client_seed"]
    assert drawn(server_seed, client_seed, case["system"]) == case["points"]
    table = generate(case["system"], server_seed, client_seed)
    assert table.as_mapping() == {**case["points"], "five-of-a-kind": 0}
    assert table.name == case["system"]


def test_each_system_draws_within_its_ranges() -> None:
    singles = set()
    for n in range(300):
        server_seed, client_seed = hashlib.sha256(n.to_bytes(4, "big")).digest(), f"c{n}"
        ameritish = generate("ameritish", server_seed, client_seed).as_mapping()
        royal = ameritish["royal-flush"]
        assert 30 <= royal <= 100
        for category in ORDER[:-1]:
            ends = (AMERICAN[category] * royal / 100, BRITISH[category] * royal / 30)
            assert math.floor(min(ends)) <= ameritish[category] <= math.ceil(max(ends))
        assert set(generate("random", server_seed, client_seed).points[:10]) <= set(
            range(-128, 128)
        )
        assert set(generate("hypercorner", server_seed, client_seed).points[:10]) <= {-1, 1}
        single = generate("single-hand", server_seed, client_seed).points
        assert sorted(single) == [0] * 10 + [1]
        singles.add(single.index(1))
        assert drawn(server_seed, client_seed, "random") == {
            k: v
            for k, v in generate("random", server_seed, client_seed).as_mapping().items()
            if k != "five-of-a-kind"
        }
    assert singles == set(range(10))  # five of a kind (10) never


def test_a_different_seed_draws_a_different_table() -> None:
    first = generate("random", bytes(32), "alice")
    assert generate("random", bytes(32), "bob") != first
    assert generate("random", b"\x01" * 32, "alice") != first
    with pytest.raises(ValueError, match="not a generated point system"):
        generate("american", bytes(32), "alice")
