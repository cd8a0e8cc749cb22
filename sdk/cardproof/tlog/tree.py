"""The Merkle tree of a transparency log: RFC 6962 hashing, audit paths, consistency proofs.

A leaf is ``SHA-256(0x00 || entry)``, a node ``SHA-256(0x01 || left || right)``, and the
tree of ``n`` entries splits at the largest power of two below ``n`` (RFC 6962 section
2.1). Proofs are made here from the hashes of *perfect* subtrees only (``2**h`` entries
from an index that is a multiple of ``2**h``), which is what a log's tiles store
(:mod:`cardproof.tlog.tiles`), and checked by the algorithms of RFC 9162 sections
2.1.3.2 and 2.1.4.2, which need nothing but the proof.

>>> entries = [b"a", b"b", b"c"]
>>> tree = MemoryTree([leaf_hash(e) for e in entries])
>>> root = tree.root(3)
>>> proof = tree.inclusion(1, 3)
>>> check_inclusion(1, 3, leaf_hash(b"b"), proof, root)
>>> check_inclusion(1, 3, leaf_hash(b"x"), proof, root)
Traceback (most recent call last):
...
cardproof.tlog.tree.ProofError: the inclusion proof does not lead to the root
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Final

HASH_SIZE: Final = 32

Subtrees = Callable[[int, int], bytes]
"""The hash of the perfect subtree of height ``h`` at index ``k`` (entries ``k*2**h`` to
``(k+1)*2**h``), as a log stores it."""


class ProofError(ValueError):
    """A proof that does not hold: the log is not what it claims (or the proof was cut)."""


def leaf_hash(entry: bytes) -> bytes:
    """The hash of one entry: ``SHA-256(0x00 || entry)``."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


EMPTY_ROOT: Final = hashlib.sha256(b"").digest()
"""The root of the empty tree (RFC 6962: the hash of the empty string)."""


def split(size: int) -> int:
    """The largest power of two below ``size`` (``size`` > 1): where RFC 6962 splits.

    >>> [split(n) for n in (2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 4, 4, 8]
    """
    return 1 << ((size - 1).bit_length() - 1)


def range_hash(start: int, end: int, subtrees: Subtrees) -> bytes:
    """``MTH(D[start:end])`` for a range that RFC 6962's recursion reaches.

    ``start`` is a multiple of the largest power of two not above ``end - start``, as
    in every range of a proof; the range is split into perfect subtrees.
    """
    size = end - start
    if size == 1 << (size.bit_length() - 1):  # a perfect subtree
        height = size.bit_length() - 1
        return subtrees(height, start >> height)
    k = split(size)
    return node_hash(range_hash(start, start + k, subtrees), range_hash(start + k, end, subtrees))


def root_hash(size: int, subtrees: Subtrees) -> bytes:
    """The root of the tree of the first ``size`` entries."""
    return EMPTY_ROOT if size == 0 else range_hash(0, size, subtrees)


def inclusion_proof(index: int, size: int, subtrees: Subtrees) -> list[bytes]:
    """The audit path of entry ``index`` in the tree of ``size`` (RFC 6962 ``PATH``)."""
    if not 0 <= index < size:
        raise ValueError(f"entry {index} is not in a tree of {size}")
    proof: list[bytes] = []
    start, end = 0, size
    while end - start > 1:  # top down; the path lists the hashes bottom up
        k = split(end - start)
        if index < start + k:
            proof.append(range_hash(start + k, end, subtrees))
            end = start + k
        else:
            proof.append(range_hash(start, start + k, subtrees))
            start += k
    proof.reverse()
    return proof


def consistency_proof(old: int, size: int, subtrees: Subtrees) -> list[bytes]:
    """The proof that the tree of ``old`` entries is a prefix of that of ``size`` (``PROOF``)."""
    if not 0 <= old <= size:
        raise ValueError(f"a tree of {old} cannot grow into one of {size}")
    if old in (0, size):
        return []
    proof: list[bytes] = []
    start, end, whole = 0, size, True  # SUBPROOF(old - start, D[start:end], whole)
    while old != end:
        k = split(end - start)
        if old - start <= k:
            proof.append(range_hash(start + k, end, subtrees))
            end = start + k
        else:
            proof.append(range_hash(start, start + k, subtrees))
            start, whole = start + k, False
    if not whole:  # SUBPROOF(m, D[m], false): the old tree's own last subtree
        proof.append(range_hash(start, end, subtrees))
    proof.reverse()
    return proof


def _check_sizes(proof: Sequence[bytes]) -> None:
    if any(len(node) != HASH_SIZE for node in proof):
        raise ProofError("a proof's hash is not 32 bytes")


def check_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> None:
    """Raise :class:`ProofError` unless ``proof`` takes ``leaf`` at ``index`` to ``root``.

    RFC 9162 section 2.1.3.2, step by step.
    """
    _check_sizes(proof)
    if not 0 <= index < size:
        raise ProofError(f"entry {index} is not in a tree of {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ProofError("the inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof is too short")
    if r != root:
        raise ProofError("the inclusion proof does not lead to the root")


def check_consistency(
    old: int, size: int, old_root: bytes, root: bytes, proof: Sequence[bytes]
) -> None:
    """Raise :class:`ProofError` unless the tree ``old_root`` of ``old`` grew into ``root``.

    RFC 9162 section 2.1.4.2 for ``0 < old < size``; the same tree (``old == size``) takes
    an empty proof and equal roots, and the empty tree is a prefix of every tree.
    """
    _check_sizes(proof)
    if not 0 <= old <= size:
        raise ProofError(f"a tree of {old} cannot grow into one of {size}")
    if old == 0 or old == size:
        if proof:
            raise ProofError("the consistency proof should be empty")
        if old == size and old_root != root:
            raise ProofError("the two roots of one size differ: the log forked")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old tree is a node of the new one
        path.insert(0, old_root)
    fn, sn = old - 1, size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is too short")
    if fr != old_root:
        raise ProofError("the consistency proof does not lead to the old root: the log forked")
    if sr != root:
        raise ProofError("the consistency proof does not lead to the new root")


class MemoryTree:
    """A tree held whole in memory: its leaf hashes, with each perfect subtree's kept once.

    For tests, the monitor's small logs and building tiles; a log's own store keeps tiles.
    """

    def __init__(self, leaves: Sequence[bytes] = ()) -> None:
        """A tree of these leaf hashes (``leaf_hash`` of each entry)."""
        self.levels: list[list[bytes]] = [list(leaves)]
        self._grow()

    def append(self, leaf: bytes) -> int:
        """Add one leaf hash; its index."""
        self.levels[0].append(leaf)
        self._grow()
        return len(self.levels[0]) - 1

    def _grow(self) -> None:
        level = 0
        while len(self.levels[level]) >= 2:
            below = self.levels[level]
            if len(self.levels) == level + 1:
                self.levels.append([])
            above = self.levels[level + 1]
            for k in range(len(above), len(below) // 2):
                above.append(node_hash(below[2 * k], below[2 * k + 1]))
            level += 1

    @property
    def size(self) -> int:
        """How many entries the tree holds."""
        return len(self.levels[0])

    def subtree(self, height: int, index: int) -> bytes:
        """The hash of a perfect subtree (:data:`Subtrees`)."""
        return self.levels[height][index]

    def root(self, size: int | None = None) -> bytes:
        """The root of the first ``size`` entries (all by default)."""
        return root_hash(self.size if size is None else size, self.subtree)

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        """The audit path of ``index`` in the first ``size`` entries."""
        return inclusion_proof(index, self.size if size is None else size, self.subtree)

    def consistency(self, old: int, size: int | None = None) -> list[bytes]:
        """The proof that the first ``old`` entries grew into the first ``size``."""
        return consistency_proof(old, self.size if size is None else size, self.subtree)


__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "MemoryTree",
    "ProofError",
    "Subtrees",
    "check_consistency",
    "check_inclusion",
    "consistency_proof",
    "inclusion_proof",
    "leaf_hash",
    "node_hash",
    "range_hash",
    "root_hash",
    "split",
]
