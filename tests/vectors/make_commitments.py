"""Write ``commitments-v1.json``: commitment ids, server seeds and drawn versions.

Run from the repository root::

    .venv/bin/python tests/vectors/make_commitments.py

Under a fixed test master key (the one of ``conftest.TEST_KEYS``, never a deployment's),
each vector gives what docs/protocol.md sections 3.1, 3.2, 3.6 and 3.8 derive:

- ``commitments``: from a nonce and an expiry time, the id's ``body``, its ``tag``, the
  ``commitment_id``, the ``server_seed`` it stands for and its ``server_seed_hash``;
- ``rounds``: a tournament round's commitment id (``t || ":round-" || n``), its seed and hash;
- ``versions``: reserve-poker's ``"random"`` version rolled on a seed pair (stream
  ``version``, deck type ``joker-53``, ``1 + below(6)``).

``tests/test_vectors.py`` checks the file against an independent
implementation and against ``cardproof_service.deals.commitments`` and the SDK.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cardproof.deal import seed_hash
from cardproof.games.reserve_poker import ReservePoker
from cardproof.receipts import SigningKey, b64url
from cardproof_service.deals.commitments import Commitments, round_commitment_id
from cardproof_service.plumbing.keys import Keys

OUTPUT = Path(__file__).with_name("commitments-v1.json")
MASTER = bytes(range(32))
"""The test master key (``conftest.TEST_KEYS.master``)."""
NONCES: tuple[tuple[bytes, int], ...] = (
    (bytes(16), 0),
    (bytes(range(16)), 1_795_723_495),
    (b"\xff" * 16, 2**64 - 1),
    (hashlib.sha256(b"cardproof commitment 1").digest()[:16], 1_800_000_000),
    (hashlib.sha256(b"cardproof commitment 2").digest()[:16], 4_102_444_800),
)
"""(nonce, expires_at) pairs: the nonce is 16 random bytes in service, fixed here."""
ROUNDS: tuple[tuple[str, int], ...] = (
    ("t_0123", 1),
    ("t_0123", 2),
    ("t_2c81bd34a0f94a4e8a3d", 10),
)
VERSION_CLIENT_SEEDS: tuple[str, ...] = ("alice", "bob", "Zoë 🂡 日本語", "gravity")


def vectors() -> dict[str, Any]:
    """Every commitment, every round, and the version rolls on their seeds."""
    keys = Keys(master=MASTER, signing=SigningKey.from_seed(bytes(32)))
    commitments = Commitments(keys=keys, ttl=3600)
    entries: list[dict[str, Any]] = []
    for nonce, expires_at in NONCES:
        body = nonce + expires_at.to_bytes(8, "big")
        tag = commitments._tag(body)
        commitment_id = "c_" + b64url(body + tag)
        seed = commitments.server_seed(commitment_id)
        assert commitments.expiry(commitment_id) == expires_at
        entries.append(
            {
                "nonce": nonce.hex(),
                "expires_at": expires_at,
                "body": body.hex(),
                "tag": tag.hex(),
                "commitment_id": commitment_id,
                "server_seed": seed.hex(),
                "server_seed_hash": seed_hash(seed),
            }
        )
    rounds: list[dict[str, Any]] = []
    for tournament_id, number in ROUNDS:
        commitment_id = round_commitment_id(tournament_id, number)
        seed = commitments.server_seed(commitment_id)
        rounds.append(
            {
                "tournament_id": tournament_id,
                "round": number,
                "commitment_id": commitment_id,
                "server_seed": seed.hex(),
                "server_seed_hash": seed_hash(seed),
            }
        )
    versions = []
    seeds = [bytes.fromhex(e["server_seed"]) for e in entries + rounds]
    for index, server_seed in enumerate(seeds):
        for client_seed in (VERSION_CLIENT_SEEDS[0], VERSION_CLIENT_SEEDS[1 + index % 3]):
            options = ReservePoker.resolve_options({"version": "random"}, server_seed, client_seed)
            roll = {"server_seed": server_seed.hex(), "client_seed": client_seed}
            versions.append(roll | {"version": options.version})
    return {
        "master_key": MASTER.hex(),
        "commitments": entries,
        "rounds": rounds,
        "versions": {"deck_type": "joker-53", "stream": "version", "vectors": versions},
    }


if __name__ == "__main__":
    OUTPUT.write_text(json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT}")
