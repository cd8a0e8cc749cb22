"""Write ``points-v1.json``: test vectors of the ``cardproof-points-v1`` point systems.

Run from the repository root::

    .venv/bin/python tests/vectors/make_points.py

Each vector gives a seed pair, a system and the table it draws (category id to points,
five of a kind left out: it is always 0). ``tests/test_tables.py`` checks the file
against an independent implementation and against :mod:`cardproof.tables`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cardproof.tables import ALGORITHM, GENERATED, generate

OUTPUT = Path(__file__).with_name("points-v1.json")
SEEDS: tuple[tuple[bytes, str], ...] = (
    (bytes(range(32)), "alice"),
    (bytes(32), "bob"),
    (b"\xff" * 32, "a" * 256),
    (hashlib.sha256(b"cardproof points 1").digest(), "Zoë 🂡 日本語"),
    (hashlib.sha256(b"cardproof points 2").digest(), "x"),
)


def vectors() -> dict[str, Any]:
    """Every system on every seed pair."""
    cases = []
    for server_seed, client_seed in SEEDS:
        for system in GENERATED:
            points = generate(system, server_seed, client_seed).as_mapping()
            del points["five-of-a-kind"]
            cases.append(
                {
                    "server_seed": server_seed.hex(),
                    "client_seed": client_seed,
                    "system": system,
                    "points": points,
                }
            )
    return {"algorithm": ALGORITHM, "stream": "points-v1", "vectors": cases}


if __name__ == "__main__":
    OUTPUT.write_text(json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUTPUT}")
