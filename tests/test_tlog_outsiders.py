"""Go's own transparency-log code checks cardproof's tree, tiles, proofs and checkpoints.

``tests/outsiders/tlog/main.go`` uses ``golang.org/x/mod/sumdb/note`` and ``sumdb/tlog``
(Debian's ``golang-go`` and ``golang-golang-x-mod-dev``, which ``make`` installs): it
opens a checkpoint signed by :mod:`cardproof.tlog.note`, hashes the entries of the
bundles :mod:`cardproof.tlog.tiles` packs into a tree of its own, whose root must be the
checkpoint's and whose tiles must be the ones cut here, byte for byte, and checks the
inclusion and consistency proofs :mod:`cardproof.tlog.tree` makes, which must also be
the very proofs tlog makes. A changed tile, bundle, proof, root or signature is refused.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from attack_kit import committed_receipt
from cardproof.tlog.entries import RoundCommitment, encode_entry
from cardproof.tlog.note import Checkpoint, Signer, sign_note
from cardproof.tlog.tiles import (
    ENTRIES,
    Tile,
    TileReader,
    pack_bundle,
    tile_hashes,
    tile_path,
    tiles_of,
)
from cardproof.tlog.tree import MemoryTree, consistency_proof, leaf_hash
from cardproof_service.app import create_app
from cardproof_service.plumbing import Settings
from cardproof_service.store import MemoryStore
from conftest import TEST_KEYS, UNLIMITED

SOURCE = Path(__file__).resolve().parent / "outsiders" / "tlog"
GOPATH = Path("/usr/share/gocode")
X_MOD = GOPATH / "src" / "golang.org" / "x" / "mod" / "sumdb" / "tlog"


@pytest.fixture(scope="module")
def tlogcheck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The outsider program, built once with Go in GOPATH mode from Debian's sources."""
    go = shutil.which("go")
    assert go, "Go is missing: `make test` installs it"
    assert X_MOD.is_dir(), "golang.org/x/mod is missing: `make test` installs it"
    out = tmp_path_factory.mktemp("go")
    env = {
        **os.environ,
        "GO111MODULE": "off",
        "GOPATH": str(GOPATH),
        "GOCACHE": str(out / "cache"),
        "GOFLAGS": "",
    }
    subprocess.run(
        [go, "build", "-o", str(out / "tlogcheck"), "."],
        cwd=SOURCE,
        env=env,
        check=True,
        timeout=300,
    )
    return out / "tlogcheck"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Log:
    """A log of ``size`` entries as a server would publish it: tiles and a checkpoint."""

    def __init__(self, size: int, signer: Signer) -> None:
        self.entries = [f'{{"entry":{i}}}'.encode() for i in range(size)]
        self.tree = MemoryTree([leaf_hash(e) for e in self.entries])
        self.signer = signer
        self.tiles: dict[str, bytes] = {}
        for tile in tiles_of(size):
            self.tiles[tile_path(tile)] = tile_hashes(tile, self.tree.subtree)
            if tile.level == 0:
                start = tile.index * 256
                bundle = pack_bundle(self.entries[start : start + tile.width])
                self.tiles[tile_path(Tile(ENTRIES, tile.index, tile.width))] = bundle

    def checkpoint(self, size: int | None = None, signer: Signer | None = None) -> str:
        size = self.tree.size if size is None else size
        text = Checkpoint(self.signer.name, size, self.tree.root(size)).text()
        return sign_note(text, [signer or self.signer])

    def job(self, indexes: list[int], olds: list[int]) -> dict[str, Any]:
        size = self.tree.size
        return {
            "vkey": self.signer.verifier.vkey,
            "checkpoint": self.checkpoint(),
            "tiles": {path: b64(data) for path, data in self.tiles.items()},
            "inclusion": [
                {
                    "index": i,
                    "leaf": b64(leaf_hash(self.entries[i])),
                    "proof": [b64(h) for h in self.tree.inclusion(i, size)],
                }
                for i in indexes
            ],
            "consistency": [
                {
                    "old": old,
                    "old_root": b64(self.tree.root(old)),
                    "proof": [b64(h) for h in self.tree.consistency(old, size)],
                }
                for old in olds
            ],
        }


def check(tlogcheck: Path, job: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(tlogcheck)], input=json.dumps(job), capture_output=True, text=True, timeout=120
    )


SIGNER = Signer.generate("cardproof.example/log")


@pytest.mark.parametrize("size", [1, 2, 3, 255, 256, 257, 511, 513, 65_536, 70_001])
def test_go_s_tlog_accepts_the_tiles_and_proofs(tlogcheck: Path, size: int) -> None:
    log = Log(size, SIGNER)
    rng = random.Random(size)
    indexes = sorted({0, size - 1, *rng.sample(range(size), min(size, 12))})
    olds = sorted({1, size, *(rng.randint(1, size) for _ in range(12))})
    answer = check(tlogcheck, log.job(indexes, olds))
    assert (answer.returncode, answer.stdout) == (0, "ok\n"), answer.stderr


@pytest.fixture(scope="module")
def log_1000() -> Log:
    return Log(1000, SIGNER)


def test_go_refuses_a_checkpoint_signed_by_another_key(tlogcheck: Path, log_1000: Log) -> None:
    job = log_1000.job([5], [7])
    job["checkpoint"] = log_1000.checkpoint(signer=Signer.generate(SIGNER.name))
    answer = check(tlogcheck, job)
    assert answer.returncode == 1
    assert answer.stdout.startswith("checkpoint:")


@pytest.mark.parametrize(
    ("path", "at", "said"),
    [
        ("tile/0/001", 40, "tile tile/0/001 is not the tree's"),
        ("tile/1/000.p/3", 0, "tile tile/1/000.p/3 is not the tree's"),
        ("tile/entries/002", 5, "the entries' root is not the checkpoint's"),
    ],
)
def test_go_refuses_a_changed_tile_or_bundle(
    tlogcheck: Path, log_1000: Log, path: str, at: int, said: str
) -> None:
    job = log_1000.job([300], [7])
    data = bytearray(log_1000.tiles[path])
    data[at] ^= 1
    job["tiles"][path] = b64(bytes(data))
    answer = check(tlogcheck, job)
    assert (answer.returncode, answer.stdout) == (1, said + "\n")


def test_go_refuses_a_missing_or_a_stray_tile(tlogcheck: Path, log_1000: Log) -> None:
    job = log_1000.job([], [])
    del job["tiles"]["tile/0/003.p/232"]
    assert check(tlogcheck, job).stdout == "tile tile/0/003.p/232 is not the tree's\n"
    job = log_1000.job([], [])
    job["tiles"]["tile/0/003.p/231"] = job["tiles"]["tile/0/003.p/232"][:-44]
    assert check(tlogcheck, job).stdout == "tile tile/0/003.p/231 is not one of the tree's\n"


@pytest.mark.parametrize("kind", ["inclusion", "consistency"])
def test_go_refuses_a_changed_proof(tlogcheck: Path, log_1000: Log, kind: str) -> None:
    job = log_1000.job([300], [300])
    proof = job[kind][0]["proof"]
    raw = bytearray(base64.b64decode(proof[2]))
    raw[0] ^= 1
    proof[2] = b64(bytes(raw))
    answer = check(tlogcheck, job)
    assert answer.returncode == 1
    assert answer.stdout.startswith(f"{kind} ")


def test_go_refuses_a_forked_history(tlogcheck: Path, log_1000: Log) -> None:
    """A log that rewrote entry 10 proves nothing about the head a reader saw before."""
    forked = Log(1000, SIGNER)
    forked.entries[10] = b"rewritten"
    forked.tree = MemoryTree([leaf_hash(e) for e in forked.entries])
    job = log_1000.job([], [])
    job["consistency"] = [
        {
            "old": 500,
            "old_root": b64(forked.tree.root(500)),
            "proof": [b64(h) for h in log_1000.tree.consistency(500)],
        }
    ]
    answer = check(tlogcheck, job)
    assert answer.returncode == 1
    assert answer.stdout.startswith("consistency with 500")


def test_go_checks_the_log_vectors(tlogcheck: Path) -> None:
    vectors = json.loads((SOURCE.parents[1] / "vectors" / "log-v1.json").read_text())
    tree = vectors["tree"]
    job = {
        "vkey": vectors["log_vkey"],
        "checkpoint": vectors["checkpoint"],  # the witness's line is a key Go does not know
        "tiles": vectors["tiles"],
        "inclusion": [
            {"index": i, "leaf": b64(leaf_hash(e.encode())), "proof": tree["inclusion"][i]}
            for i, e in enumerate(tree["entries"])
        ],
        "consistency": [
            {"old": n, "old_root": tree["roots"][n], "proof": tree["consistency"][n]}
            for n in range(1, tree["size"] + 1)
        ],
    }
    answer = check(tlogcheck, job)
    assert (answer.returncode, answer.stdout) == (0, "ok\n"), answer.stderr


def test_go_checks_the_service_s_own_log(tlogcheck: Path) -> None:
    """The log a running service serves: its tiles, a receipt's proof, two checkpoints."""
    app = create_app(
        Settings(warm_up=False, log_interval=0.02, **UNLIMITED), keys=TEST_KEYS, store=MemoryStore()
    )
    with TestClient(app=app) as client:
        store = app.state.store
        first = [encode_entry(RoundCommitment(f"t_{n:020x}", 1, f"{n:064x}")) for n in range(300)]
        asyncio.run(store.pool_entries("Ab", first))  # as other games' receipts would be
        old = wait_for_size(client, 300)
        receipt = client.get(
            f"/v1/deals/{committed_deal(client)}/receipt"
        ).json()  # the 301st entry, once folded
        more = [encode_entry(RoundCommitment(f"t_{n:020x}", 2, f"{n:064x}")) for n in range(260)]
        asyncio.run(store.pool_entries("Cd", more))
        wait_for_size(client, 561)
        logged = client.get(f"/v1/deals/{receipt['payload']['deal_id']}/receipt").json()["log"]
        checkpoint = client.get("/log/checkpoint").text
        size = Checkpoint.parse(checkpoint.split("\n\n")[0] + "\n").size
        tiles = {}
        for tile in tiles_of(size):
            for level in (tile.level, ENTRIES) if tile.level == 0 else (tile.level,):
                path = tile_path(Tile(level, tile.index, tile.width))
                tiles[path] = client.get(f"/log/{path}").content
        reader = TileReader(size, lambda t: tiles[tile_path(t)])
        job = {
            "vkey": client.get("/log/key").text.strip(),
            "checkpoint": checkpoint,
            "tiles": {path: b64(data) for path, data in tiles.items()},
            "inclusion": [
                {
                    "index": logged["index"],
                    "leaf": b64(leaf_hash(base64.b64decode(logged["entry"]))),
                    "proof": logged["proof"],
                }
            ],
            "consistency": [
                {
                    "old": old.size,
                    "old_root": b64(old.root),
                    "proof": [b64(h) for h in consistency_proof(old.size, size, reader.subtree)],
                }
            ],
        }
    assert logged["checkpoint"] == checkpoint
    answer = check(tlogcheck, job)
    assert (answer.returncode, answer.stdout) == (0, "ok\n"), answer.stderr


def wait_for_size(client: TestClient[Litestar], size: int) -> Checkpoint:
    """The service's checkpoint once its log holds ``size`` entries (5 s at most)."""
    deadline = time.monotonic() + 5
    while True:
        note = client.get("/log/checkpoint").text
        checkpoint = Checkpoint.parse(note.split("\n\n")[0] + "\n")
        if checkpoint.size >= size:
            return checkpoint
        assert time.monotonic() < deadline, f"the log holds {checkpoint.size} entries, not {size}"
        time.sleep(0.02)


def committed_deal(client: TestClient[Litestar]) -> str:
    """A committed poker-squares deal played to its end, logged; its id."""
    token = committed_receipt(client)
    deal_id = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))["deal_id"]
    wait_for_size(client, 301)
    return str(deal_id)
