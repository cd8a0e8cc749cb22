"""The transparency log's offline parts: tree hashes and proofs, tiles, signed notes.

The tree is held to a reference written from RFC 6962's recursive definitions (``MTH``,
``PATH``, ``SUBPROOF``), which shares no code with :mod:`cardproof.tlog.tree`: every size
up to 300, every index and every old size of each, and random pairs up to 100,000. Each
check of a proof is then fed every single change of a good proof. The notes are held to
the vectors of C2SP signed-note and Go's ``note`` package.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import random
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cardproof.tlog.entries import EntryError, encode_entry, parse_entry, settlement_document
from cardproof.tlog.note import (
    COSIGNATURE_V1,
    Checkpoint,
    NoteError,
    Signer,
    Verifier,
    open_note,
    sign_note,
)
from cardproof.tlog.tiles import (
    ENTRIES,
    Tile,
    TileReader,
    pack_bundle,
    parse_tile_path,
    tile_hashes,
    tile_path,
    tiles_of,
    unpack_bundle,
    width_at,
)
from cardproof.tlog.tree import (
    MemoryTree,
    ProofError,
    check_consistency,
    check_inclusion,
    inclusion_proof,
    leaf_hash,
)


def reference(
    entries: Sequence[bytes],
) -> tuple[
    Callable[[int, int], bytes],
    Callable[[int, int, int], list[bytes]],
    Callable[[int, int, int, bool], list[bytes]],
]:
    """RFC 6962 section 2.1, as written there, over ``entries`` (memoized by range)."""

    def largest_power_of_two_below(n: int) -> int:
        k = 1
        while k * 2 < n:
            k *= 2
        return k

    @cache
    def mth(start: int, end: int) -> bytes:
        if end == start:
            return hashlib.sha256(b"").digest()
        if end - start == 1:
            return hashlib.sha256(b"\x00" + entries[start]).digest()
        k = largest_power_of_two_below(end - start)
        return hashlib.sha256(b"\x01" + mth(start, start + k) + mth(start + k, end)).digest()

    def path(m: int, start: int, end: int) -> list[bytes]:
        if end - start <= 1:
            return []
        k = largest_power_of_two_below(end - start)
        if m < k:
            return [*path(m, start, start + k), mth(start + k, end)]
        return [*path(m - k, start + k, end), mth(start, start + k)]

    def subproof(m: int, start: int, end: int, b: bool) -> list[bytes]:
        if m == end - start:
            return [] if b else [mth(start, end)]
        k = largest_power_of_two_below(end - start)
        if m <= k:
            return [*subproof(m, start, start + k, b), mth(start + k, end)]
        return [*subproof(m - k, start + k, end, False), mth(start, start + k)]

    return mth, path, subproof


ENTRIES_300 = [f"entry {i}".encode() for i in range(300)]
TREE_300 = MemoryTree([leaf_hash(e) for e in ENTRIES_300])
MTH_300, PATH_300, SUBPROOF_300 = reference(ENTRIES_300)


@pytest.mark.parametrize("size", range(1, 301))
def test_every_tree_up_to_300_matches_rfc_6962(size: int) -> None:
    root = TREE_300.root(size)
    assert root == MTH_300(0, size)
    for index in range(size):
        proof = TREE_300.inclusion(index, size)
        assert proof == PATH_300(index, 0, size)
        check_inclusion(index, size, leaf_hash(ENTRIES_300[index]), proof, root)
    for old in range(1, size + 1):
        proof = TREE_300.consistency(old, size)
        assert proof == SUBPROOF_300(old, 0, size, True)
        check_consistency(old, size, TREE_300.root(old), root, proof)


def test_random_trees_up_to_100_000_match_rfc_6962() -> None:
    entries = [i.to_bytes(4, "big") for i in range(100_000)]
    tree = MemoryTree([leaf_hash(e) for e in entries])
    mth, path, subproof = reference(entries)
    rng = random.Random(38)
    for _ in range(150):
        size = rng.randint(1, 100_000)
        index, old = rng.randrange(size), rng.randint(1, size)
        root = tree.root(size)
        assert root == mth(0, size)
        assert tree.inclusion(index, size) == path(index, 0, size)
        check_inclusion(index, size, leaf_hash(entries[index]), tree.inclusion(index, size), root)
        assert tree.consistency(old, size) == subproof(old, 0, size, True)
        check_consistency(old, size, tree.root(old), root, tree.consistency(old, size))


def test_the_empty_tree_and_the_same_tree() -> None:
    assert TREE_300.root(0) == hashlib.sha256(b"").digest()
    check_consistency(0, 5, TREE_300.root(0), TREE_300.root(5), [])
    check_consistency(5, 5, TREE_300.root(5), TREE_300.root(5), [])
    with pytest.raises(ProofError, match="forked"):
        check_consistency(5, 5, TREE_300.root(5), TREE_300.root(6), [])
    with pytest.raises(ProofError, match="empty"):
        check_consistency(5, 5, TREE_300.root(5), TREE_300.root(5), [TREE_300.root(5)])


def single_changes(proof: list[bytes]) -> list[list[bytes]]:
    """Every proof one change away: a bit flipped in each hash, one dropped, one added,
    two swapped."""
    changed = []
    for i, node in enumerate(proof):
        flipped = bytes([node[0] ^ 1]) + node[1:]
        changed.append([*proof[:i], flipped, *proof[i + 1 :]])
        changed.append([*proof[:i], *proof[i + 1 :]])
        if i + 1 < len(proof) and proof[i] != proof[i + 1]:
            changed.append([*proof[:i], proof[i + 1], proof[i], *proof[i + 2 :]])
    changed.append([*proof, proof[-1] if proof else bytes(32)])
    changed.append([*proof, bytes(32)])
    return changed


@pytest.mark.parametrize("size", [2, 3, 7, 8, 9, 100, 255, 256, 257, 300])
def test_every_change_to_an_inclusion_proof_is_caught(size: int) -> None:
    rng = random.Random(size)
    for index in {0, size - 1, rng.randrange(size)}:
        proof, root = TREE_300.inclusion(index, size), TREE_300.root(size)
        leaf = leaf_hash(ENTRIES_300[index])
        for bad in single_changes(proof):
            with pytest.raises(ProofError):
                check_inclusion(index, size, leaf, bad, root)
        other = (index + 1) % size
        for wrong in [
            (other, size, leaf, root),  # another index
            (index, size - 1, leaf, TREE_300.root(size - 1)),  # a smaller tree's head
            (index, size, leaf_hash(b"not it"), root),  # another entry
            (index, size, leaf, TREE_300.root(size - 1)),  # another root
            (size, size, leaf, root),  # past the end
        ]:
            w_index, w_size, w_leaf, w_root = wrong
            with pytest.raises(ProofError):
                check_inclusion(w_index, w_size, w_leaf, proof, w_root)
        with pytest.raises(ProofError, match="32 bytes"):
            check_inclusion(index, size, leaf, [p[:31] for p in proof] or [b"x"], root)


@pytest.mark.parametrize(("old", "size"), [(1, 2), (2, 3), (3, 7), (4, 8), (6, 8), (7, 300)])
def test_every_change_to_a_consistency_proof_is_caught(old: int, size: int) -> None:
    proof = TREE_300.consistency(old, size)
    old_root, root = TREE_300.root(old), TREE_300.root(size)
    for bad in single_changes(proof):
        with pytest.raises(ProofError):
            check_consistency(old, size, old_root, root, bad)
    for w_old, w_size, w_old_root, w_root in [
        (old, size, root, old_root),  # the roots swapped
        (old + 1, size, TREE_300.root(old + 1), root),  # another old size
        (old, size - 1, old_root, TREE_300.root(size - 1)),  # another new size
        (size + 1, size, old_root, root),  # a tree that shrank
    ]:
        with pytest.raises(ProofError):
            check_consistency(w_old, w_size, w_old_root, w_root, proof)
    with pytest.raises(ProofError):
        check_consistency(old, size, old_root, root, [])


def test_a_smaller_tree_s_proof_does_not_pass_for_a_bigger_size() -> None:
    """A head that claims more entries than its root holds: the proof is too short."""
    with pytest.raises(ProofError, match="too short"):
        check_consistency(1, 3, TREE_300.root(1), TREE_300.root(2), TREE_300.consistency(1, 2))
    with pytest.raises(ProofError, match="too short"):
        check_inclusion(0, 3, leaf_hash(ENTRIES_300[0]), TREE_300.inclusion(0, 2), TREE_300.root(2))


def test_a_fork_and_a_rollback_fail_consistency() -> None:
    forked = MemoryTree([leaf_hash(e) for e in ENTRIES_300[:100]])
    forked.levels[0][40] = leaf_hash(b"rewritten")
    forked = MemoryTree(forked.levels[0])
    with pytest.raises(ProofError, match="forked"):  # the same first 60, as the fork says
        check_consistency(60, 100, TREE_300.root(60), forked.root(100), forked.consistency(60))
    with pytest.raises(ProofError):  # a log showing 90 after 100 cannot prove it grew
        check_consistency(100, 90, TREE_300.root(100), TREE_300.root(90), [])


# --- tiles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tile", "path"),
    [
        (Tile(0, 0, 256), "tile/0/000"),
        (Tile(0, 1234067, 256), "tile/0/x001/x234/067"),
        (Tile(3, 1000, 1), "tile/3/x001/000.p/1"),
        (Tile(63, 999, 255), "tile/63/999.p/255"),
        (Tile(ENTRIES, 273, 112), "tile/entries/273.p/112"),
    ],
)
def test_a_tile_path_has_one_spelling(tile: Tile, path: str) -> None:
    assert tile_path(tile) == path
    assert parse_tile_path(path) == tile


@pytest.mark.parametrize(
    "path",
    [
        "tile/00/000",
        "tile/64/000",
        "tile/0/00",
        "tile/0/0000",
        "tile/0/x000/001",
        "tile/0/001/",
        "tile/0/001.p/0",
        "tile/0/001.p/256",
        "tile/0/001.p/007",
        "tile/0/x001",
        "tile/entry/001",
        "/tile/0/001",
        "tile/0/001.p/",
        "tile/-1/001",
    ],
)
def test_other_tile_spellings_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match="tile"):
        parse_tile_path(path)


def test_the_tiles_of_a_tree_are_c2sp_s_example() -> None:
    tiles = tiles_of(70_000)
    assert sum(1 for t in tiles if t.level == 0 and t.full) == 273
    assert [t for t in tiles if not t.full] == [Tile(0, 273, 112), Tile(1, 1, 17), Tile(2, 0, 1)]
    assert Tile(1, 0, 256) in tiles
    assert tiles_of(256) == [Tile(0, 0, 256), Tile(1, 0, 1)]
    assert tiles_of(0) == []
    grown = tiles_of(70_100, 70_000)  # the level-0 tile that grew, the rest unchanged
    assert grown == [Tile(0, 273, 212)]
    assert tiles_of(70_144, 70_000) == [Tile(0, 273, 256), Tile(1, 1, 18)]
    assert width_at(0, 274, 70_000) == 0
    assert [width_at(ENTRIES, n, 300) for n in (0, 1, 2)] == [256, 44, 0]  # as level 0


def test_proofs_read_from_tiles_are_the_tree_s() -> None:
    tree = MemoryTree([leaf_hash(i.to_bytes(4, "big")) for i in range(70_000)])
    served: dict[Tile, bytes] = {}
    growth = [(0, 1), (1, 255), (255, 256), (256, 257), (257, 65_536), (65_536, 70_000)]
    for old, size in growth:
        for tile in tiles_of(size, old):
            served[tile] = tile_hashes(tile, tree.subtree)  # what a log writes as it grows
    rng = random.Random(8)
    for size in [1, 2, 255, 256, 257, 65_535, 65_536, 65_537, 70_000]:
        if not any(t.width == width_at(t.level, t.index, size) for t in served):
            continue
        reader = TileReader(size, lambda tile: served.get(tile) or tile_hashes(tile, tree.subtree))
        assert reader.subtree(0, size - 1) == tree.subtree(0, size - 1)
        for index in rng.sample(range(size), min(size, 30)):
            assert TileReader(size, served.__getitem__).subtree(0, index) == tree.subtree(0, index)
            proof = tree.inclusion(index, size)
            assert proof == inclusion_proof(index, size, reader.subtree)


def test_a_tile_of_the_wrong_width_is_refused() -> None:
    tree = MemoryTree([leaf_hash(bytes([i])) for i in range(10)])
    reader = TileReader(10, lambda tile: tile_hashes(Tile(0, 0, 9), tree.subtree))
    with pytest.raises(ValueError, match="not 320"):
        reader.subtree(0, 3)
    with pytest.raises(ValueError, match="not in a tree"):
        TileReader(10, lambda tile: b"").tile(1, 0)


def test_entry_bundles() -> None:
    entries = [b"", b"a", bytes(300), bytes(65_535)]
    bundle = pack_bundle(entries)
    assert bundle[:5] == b"\x00\x00\x00\x01a"
    assert list(unpack_bundle(bundle)) == entries
    for cut in (1, 3, len(bundle) - 1):
        with pytest.raises(ValueError, match="ends inside"):
            list(unpack_bundle(bundle[:cut]))
    with pytest.raises(ValueError, match="65535"):
        pack_bundle([bytes(65_536)])


# --- signed notes -------------------------------------------------------------------

C2SP_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
C2SP_NOTE = (
    "This is an example message.\n\n"
    "\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3"
    "mFXmRKuwHjG1Yu72IneyaQM=\n"
)
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"


def test_the_c2sp_example_note_verifies() -> None:
    verifier = Verifier.parse(C2SP_VKEY)
    assert verifier.vkey == C2SP_VKEY
    opened = open_note(C2SP_NOTE, [verifier])
    assert opened.text == "This is an example message.\n"
    assert [s.verifier for s in opened.signatures] == [verifier]
    with pytest.raises(NoteError, match="does not verify"):
        open_note(C2SP_NOTE.replace("example message", "example massage"), [verifier])


def test_go_s_signer_key_gives_its_verifier_key_and_signs_as_ed25519() -> None:
    signer = Signer.parse(GO_SKEY)
    assert signer.skey == GO_SKEY
    assert signer.verifier.vkey == GO_VKEY
    text = "If you think cryptography is the answer to your problem,\n"
    note = sign_note(text, [signer])
    assert open_note(note, [Verifier.parse(GO_VKEY)]).text == text


def test_a_signer_key_must_be_what_its_id_says() -> None:
    with pytest.raises(NoteError, match="ID"):
        Signer.parse(GO_SKEY.replace("c74f20a3", "c74f20a4"))
    with pytest.raises(NoteError, match="ID"):
        Signer.parse(GO_SKEY.replace("PeterNeumann", "PeterNeuman"))
    with pytest.raises(NoteError, match="not a signer key"):
        Signer.parse(GO_VKEY)


def test_unknown_keys_are_set_aside_and_known_ones_must_verify() -> None:
    log, other = Signer.generate("log.example/a"), Signer.generate("other.example/b")
    twin = Signer.generate("log.example/a")  # the same name, another key (another ID)
    text = Checkpoint("log.example/a", 1, bytes(32)).text()
    note = sign_note(text, [log, other, twin])
    opened = open_note(note, [log.verifier])
    assert [s.verifier for s in opened.signatures] == [log.verifier]
    assert len(opened.unknown) == 2
    with pytest.raises(NoteError, match="0 of the note's signatures"):
        open_note(note, [Signer.generate("nobody.example").verifier])
    with pytest.raises(NoteError, match="2 needed"):
        open_note(note, [log.verifier], required=2)
    forged = note.replace(log.signature_line(text), log.signature_line("another text\n"))
    with pytest.raises(NoteError, match="does not verify"):
        open_note(forged, [log.verifier, other.verifier])
    twice = note + log.signature_line(text)
    with pytest.raises(NoteError, match="twice"):
        open_note(twice, [log.verifier])


def test_a_cosignature_signs_its_time_and_the_checkpoint() -> None:
    witness = Signer.generate("witness.example/w1", COSIGNATURE_V1)
    log = Signer.generate("log.example")
    text = Checkpoint("log.example", 20852163, bytes(range(32))).text()
    note = sign_note(text, [log]) + witness.signature_line(text, 1679315147)
    opened = open_note(note, [log.verifier, witness.verifier], required=2)
    assert [s.timestamp for s in opened.signatures] == [None, 1679315147]
    line = witness.signature_line(text, 1679315147)
    raw = bytearray(base64.b64decode(line.split(" ")[2]))
    assert len(raw) == 76
    raw[11] ^= 1  # another time
    moved = note.replace(line, f"\u2014 witness.example/w1 {base64.b64encode(raw).decode()}\n")
    with pytest.raises(NoteError, match="does not verify"):
        open_note(moved, [witness.verifier])
    assert base64.b64decode(witness.verifier.vkey.split("+", 2)[2])[0] == 0x04
    with pytest.raises(NoteError, match="needs a time"):
        witness.signature_line(text)


@pytest.mark.parametrize(
    ("note", "error"),
    [
        ("no blank line\n\u2014 a b\n", "blank line"),
        ("text\n\n", "at least one signature"),
        ("text\n\n- a AAAA\n", "not a signature line"),
        ("text\n\n\u2014 a+b AAAA\n", "not a signature line"),
        ("te\x01xt\n\n\u2014 a AAAA\n", "control character"),
        ("text\n\n\u2014 a AAAA", "blank line"),
        ("text\n\n" + "\u2014 a AAAA\n" * 33, "at most 32"),
    ],
)
def test_a_malformed_note_is_refused(note: str, error: str) -> None:
    with pytest.raises(NoteError, match=error):
        open_note(note, [Verifier.parse(C2SP_VKEY)])


@pytest.mark.parametrize(
    "text",
    [
        "origin\n01\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
        "origin\n-1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
        "origin\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n",
        "origin\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n",
        "origin\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
        "origin\n1\n",
        "origin\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n",
        "origin\n18446744073709551616\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
        "origin\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=\n",  # stray bits in the base64
    ],
)
def test_a_checkpoint_has_one_spelling(text: str) -> None:
    with pytest.raises(NoteError):
        Checkpoint.parse(text)


def test_a_checkpoint_reads_back_with_its_extensions() -> None:
    checkpoint = Checkpoint("cardproof.example/log", 70_000, bytes(range(32)), ("ext one",))
    assert Checkpoint.parse(checkpoint.text()) == checkpoint


@pytest.mark.parametrize(
    "vkey",
    [
        "example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # another ID
        "example.com/bar+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # another name
        "example.com/foo+530d903a+AgkyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # type 0x02
        "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U",  # cut
        "example.com/foo+530D903A+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # upper hex
        "example.com/foo+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
        "+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
    ],
)
def test_a_verifier_key_must_be_what_its_id_says(vkey: str) -> None:
    with pytest.raises(NoteError):
        Verifier.parse(vkey)


# --- the vectors of docs/protocol.md section 6.5 -----------------------------------------

LOG_VECTORS = Path(__file__).parent / "vectors" / "log-v1.json"


@pytest.fixture(scope="module")
def log_vectors() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(LOG_VECTORS.read_text())
    return loaded


def test_the_log_vectors_are_current(log_vectors: dict[str, Any]) -> None:
    spec = importlib.util.spec_from_file_location("make_log", LOG_VECTORS.with_name("make_log.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.build() == log_vectors, "run .venv/bin/python tests/vectors/make_log.py"


def test_the_log_vectors_entries_have_one_spelling(log_vectors: dict[str, Any]) -> None:
    kinds = []
    for vector in log_vectors["entries"]:
        data = vector["entry"].encode()
        assert hashlib.sha256(b"\x00" + data).hexdigest() == vector["leaf_hash"]
        entry = parse_entry(data)
        assert encode_entry(entry) == data
        kinds.append(json.loads(data)["type"])
        spaced = json.dumps(json.loads(data)).encode()  # the same object, other spacing
        with pytest.raises(EntryError, match="one spelling"):
            parse_entry(spaced)
    assert kinds == ["receipt", "receipt", "round-commitment", "round-reveal", "settlement"]


def test_the_log_vectors_settlement_document(log_vectors: dict[str, Any]) -> None:
    """Written here with the standard library: names in code point order, UTF-8, no spaces."""
    vector = log_vectors["settlement"]
    totals = vector["totals"]
    document = json.dumps(
        {"tournament": vector["tournament"], "totals": [[n, totals[n]] for n in sorted(totals)]},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert vector["document"] == document
    assert sorted(totals) == ["Ann", "Zoë", "bob", "Émile"]  # code points, not letters
    settlement = json.loads(log_vectors["entries"][4]["entry"])
    assert settlement["digest"] == hashlib.sha256(document.encode()).hexdigest()
    assert settlement_document(vector["tournament"], totals) == document.encode()
    reordered = dict(reversed(list(totals.items())))
    assert settlement_document(vector["tournament"], reordered) == document.encode()


def test_the_log_vectors_tree_and_proofs(log_vectors: dict[str, Any]) -> None:
    tree = log_vectors["tree"]
    entries = [e.encode() for e in tree["entries"]]
    mth, path, subproof = reference(entries)

    def decoded(hashes: list[str]) -> list[bytes]:
        return [base64.b64decode(h) for h in hashes]

    assert base64.b64decode(tree["root"]) == mth(0, tree["size"])
    assert [base64.b64decode(r) for r in tree["roots"]] == [mth(0, n) for n in range(9)]
    for index, proof in enumerate(tree["inclusion"]):
        assert decoded(proof) == path(index, 0, tree["size"])
    for old, proof in enumerate(tree["consistency"]):
        expected = [] if old == 0 else subproof(old, 0, tree["size"], True)
        assert decoded(proof) == expected
    tiles = {p: base64.b64decode(d) for p, d in log_vectors["tiles"].items()}
    assert sorted(tiles) == ["tile/0/000.p/8", "tile/entries/000.p/8"]
    assert tiles["tile/0/000.p/8"] == b"".join(mth(i, i + 1) for i in range(8))
    assert list(unpack_bundle(tiles["tile/entries/000.p/8"])) == entries


def test_the_log_vectors_checkpoint_and_cosignature(log_vectors: dict[str, Any]) -> None:
    note = log_vectors["checkpoint"]
    text, _, signatures = note.partition("\n\n")
    text += "\n"
    lines = signatures.splitlines()
    log_name, log_id, log_key = log_vectors["log_vkey"].split("+", 2)
    witness_name, witness_id, witness_key = log_vectors["witness_vkey"].split("+", 2)
    raw_log = base64.b64decode(log_key)
    raw_witness = base64.b64decode(witness_key)
    assert (raw_log[0], raw_witness[0]) == (1, 4)
    assert hashlib.sha256(log_name.encode() + b"\n" + raw_log).digest()[:4].hex() == log_id
    assert (
        hashlib.sha256(witness_name.encode() + b"\n" + raw_witness).digest()[:4].hex() == witness_id
    )
    assert text == f"{log_name}\n8\n{log_vectors['tree']['root']}\n"
    log_sig = base64.b64decode(lines[0].split(" ")[2])
    assert lines[0].startswith(f"\u2014 {log_name} ")
    assert log_sig[:4].hex() == log_id
    Ed25519PublicKey.from_public_bytes(raw_log[1:]).verify(log_sig[4:], text.encode())
    cosig = base64.b64decode(lines[1].split(" ")[2])
    assert cosig[:4].hex() == witness_id
    assert int.from_bytes(cosig[4:12], "big") == log_vectors["cosigned_at"]
    signed = f"cosignature/v1\ntime {log_vectors['cosigned_at']}\n{text}".encode()
    Ed25519PublicKey.from_public_bytes(raw_witness[1:]).verify(cosig[12:], signed)
    verifiers = [
        Verifier.parse(log_vectors["log_vkey"]),
        Verifier.parse(log_vectors["witness_vkey"]),
    ]
    opened = open_note(note, verifiers, required=2)
    assert [s.timestamp for s in opened.signatures] == [None, log_vectors["cosigned_at"]]


ZEROS = b"0" * 64


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b'{"type":"verdict","tournament":"t_1"}', "not a log entry"),
        (b'{"tournament":"t_1","digest":"' + b"0" * 64 + b'","type":"settlement"}', "one spelling"),
        (b'{"type":"settlement","tournament":"t_1","digest":"' + b"A" * 64 + b'"}', "not a log"),
        (
            b'{"type":"round-reveal","tournament":"t_1","round":0,"server_seed":"'
            + b"0" * 64
            + b'"}',
            "not a log",
        ),
        (
            b'{"type":"settlement","tournament":"t\\u005f1","digest":"' + b"0" * 64 + b'"}',
            "one spelling",
        ),
        (b"[1]", "not a log entry"),
        (b'{"type":"settlement","tournament":"t\xff","digest":"' + b"a" * 64 + b'"}', "UTF-8"),
        (b'{"type":"settlement","tournament":"t\\n","digest":"' + b"a" * 64 + b'"}', "not a log"),
        (b'{"type":"settlement","tournament":"t","digest":"' + b"a" * 64 + b'\\n"}', "not a log"),
        (b"{", "JSON object"),
        (b" " * 4097, "at most 4096"),
    ],
)
def test_a_malformed_entry_is_refused(data: bytes, error: str) -> None:
    with pytest.raises(EntryError, match=error):
        parse_entry(data)


@pytest.mark.parametrize("tournament", [None, "t_entries"])
def test_a_signers_entry_is_the_one_a_verifier_reads_from_the_receipt(
    tournament: str | None,
) -> None:
    from cardproof.games import PokerSquares
    from cardproof.receipts import SigningKey
    from cardproof.tlog.entries import receipt_entry, signed_entry
    from cardproof_service.deals.receipts import receipt_payload

    seed = bytes(range(32))
    game = PokerSquares.new(
        PokerSquares.deal_cards(seed, "entries", PokerSquares.parse_options(None))
    )
    while not game.is_over():
        game.play(game.legal_moves()[0])
    payload = receipt_payload(
        game,
        seed,
        "entries",
        deal_id="d_entries",
        kind="tournament" if tournament else "committed-blind",
        blind=True,
        committed=True,
        issued_at=1_700_000_000,
        issuer="https://cardproof.example",
        tournament=tournament,
    )
    key = SigningKey.generate()
    token = key.sign(payload)
    made = signed_entry(token, key.kid, payload)
    assert made == receipt_entry(token)
    assert (made.kid, made.tournament, made.score) == (key.kid, tournament, game.score().total)
    practice = msgspec.structs.replace(payload, deal_id=None, kind="practice")
    with pytest.raises(EntryError):  # a practice receipt names no deal: never logged
        signed_entry(key.sign(practice), key.kid, practice)
