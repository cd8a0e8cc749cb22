"""Write ``log-v1.json``: entries, a small tree, its tiles, proofs, a checkpoint, a cosignature.

Run from the repository root::

    .venv/bin/python tests/vectors/make_log.py

Under fixed test keys (never a deployment's), the file gives what docs/protocol.md
sections 7.1 to 7.3 define:

- ``entries``: one entry of each type, its bytes (as text) and its leaf hash;
- ``settlement``: the settlement document of some totals (the settlement entry's
  ``digest`` is its SHA-256);
- ``tree``: the tree of those entries and three more, its size and root, the
  inclusion proof of each entry and the consistency proof from each smaller size;
- ``tiles``: the tree's tiles and entry bundles by their paths (base64);
- ``checkpoint``: the tree's checkpoint signed by the log key (``log_vkey``) and
  cosigned at a fixed time by a witness (``witness_vkey``).

``tests/test_tlog.py`` checks the file against SHA-256 and Ed25519 directly and against
:mod:`cardproof.tlog`; ``tests/test_tlog_outsiders.py`` has Go's tlog check it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from cardproof.tlog.entries import (
    Entry,
    ReceiptEntry,
    RoundCommitment,
    RoundReveal,
    encode_entry,
    receipt_digest,
    settlement_document,
    settlement_entry,
)
from cardproof.tlog.note import COSIGNATURE_V1, Checkpoint, Signer, sign_note
from cardproof.tlog.tiles import ENTRIES, Tile, pack_bundle, tile_hashes, tile_path, tiles_of
from cardproof.tlog.tree import MemoryTree, leaf_hash

OUTPUT = Path(__file__).with_name("log-v1.json")
ORIGIN = "cardproof.example/log"
LOG_SEED = hashlib.sha256(b"cardproof test log key").digest()
WITNESS_SEED = hashlib.sha256(b"cardproof test witness key").digest()
COSIGNED_AT = 1_795_723_495
TOTALS = {"Zoë": 41, "Ann": 112, "Émile": -3, "bob": 41}
"""A settlement's totals: names out of code point order, one not ASCII, a tie."""


def build() -> dict[str, Any]:
    """The vectors, as the file holds them."""
    seed = hashlib.sha256(b"cardproof test round seed").hexdigest()
    entries: list[Entry] = [
        ReceiptEntry(
            receipt=receipt_digest("eyJhbGciOiJFZERTQSJ9.e30.c2ln"),
            deal="d_Q0FSRFBST09GLVRFU1Q",
            kind="committed-blind",
            variant="poker-squares",
            score=112,
            iat=1_795_723_495,
            kid="kSmXEPqLrTuItVAt9kTiOaGJd7lVz8WZBVcQpD9n_vI",
        ),
        ReceiptEntry(
            receipt=receipt_digest("eyJhbGciOiJFZERTQSJ9.e30.dG91cm5hbWVudA"),
            deal="d_VE9VUk5BTUVOVC1HQU1F",
            kind="tournament",
            variant="serpent-patience",
            score=9,
            iat=1_795_723_496,
            kid="kSmXEPqLrTuItVAt9kTiOaGJd7lVz8WZBVcQpD9n_vI",
            tournament="t_0123456789abcdef0123",
        ),
        RoundCommitment(
            "t_0123456789abcdef0123", 1, hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        ),
        RoundReveal("t_0123456789abcdef0123", 1, seed),
        settlement_entry("t_0123456789abcdef0123", TOTALS),
    ]
    documents = [encode_entry(entry) for entry in entries]
    documents += [encode_entry(entries[0]).replace(b"112", str(n).encode()) for n in (7, 8, 9)]
    tree = MemoryTree([leaf_hash(d) for d in documents])
    size = tree.size
    log = Signer(ORIGIN, LOG_SEED)
    witness = Signer("witness.example/w1", WITNESS_SEED, COSIGNATURE_V1)
    text = Checkpoint(ORIGIN, size, tree.root()).text()
    note = sign_note(text, [log]) + witness.signature_line(text, COSIGNED_AT)
    tiles = {}
    for tile in tiles_of(size):
        tiles[tile_path(tile)] = tile_hashes(tile, tree.subtree)
        bundle = Tile(ENTRIES, tile.index, tile.width)
        tiles[tile_path(bundle)] = pack_bundle(documents[: tile.width])

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return {
        "entries": [{"entry": d.decode(), "leaf_hash": leaf_hash(d).hex()} for d in documents[:5]],
        "settlement": {
            "tournament": "t_0123456789abcdef0123",
            "totals": TOTALS,
            "document": settlement_document("t_0123456789abcdef0123", TOTALS).decode(),
        },
        "tree": {
            "entries": [d.decode() for d in documents],
            "size": size,
            "root": b64(tree.root()),
            "roots": [b64(tree.root(n)) for n in range(size + 1)],
            "inclusion": [[b64(h) for h in tree.inclusion(i)] for i in range(size)],
            "consistency": [[b64(h) for h in tree.consistency(n)] for n in range(size + 1)],
        },
        "tiles": {path: b64(data) for path, data in tiles.items()},
        "log_vkey": log.verifier.vkey,
        "witness_vkey": witness.verifier.vkey,
        "checkpoint": note,
        "cosigned_at": COSIGNED_AT,
    }


def main() -> None:
    """Write the file."""
    OUTPUT.write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
