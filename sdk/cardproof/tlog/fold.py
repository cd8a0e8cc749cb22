"""Folding: new entries added to a tiled tree, as the tiles and the root they make.

What a log's sequencer runs (as Go's ``tlog.StoredHashes`` and ``NewTiles`` are for the
Go checksum database), kept beside the readers so that both sides share one tree.

A fold reads only what the tree of the old size already published (the tiles a new
subtree hash straddles, and the partial entry bundle that grows) and hashes each new
entry once: it returns every tile and bundle that changes, each under its C2SP path, and
the new root. Full tiles are the same bytes whoever folds the same entries in the same
order, so a fold that is repeated after a crash writes nothing different.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cardproof.tlog.tiles import (
    ENTRIES,
    TILE_WIDTH,
    Tile,
    TileReader,
    pack_bundle,
    tile_hashes,
    tile_path,
    tiles_of,
    unpack_bundle,
    width_at,
)
from cardproof.tlog.tree import leaf_hash, node_hash, root_hash

ReadTile = Callable[[Tile], bytes]
"""Reads a published tile or entry bundle by its coordinates (``KeyError`` if absent)."""


@dataclass
class Folded:
    """What a fold makes: the new size and root, and each changed tile by its path."""

    size: int
    root: bytes
    tiles: dict[str, bytes] = field(default_factory=dict)


class _Grown:
    """The perfect subtrees of the grown tree: old ones read, new ones hashed once."""

    def __init__(self, old: int, read: ReadTile, leaves: Sequence[bytes]) -> None:
        self.old = old
        self.reader = TileReader(old, read)
        self.leaves = leaves
        self.made: dict[tuple[int, int], bytes] = {}

    def subtree(self, height: int, index: int) -> bytes:
        if (index + 1) << height <= self.old:
            return self.reader.subtree(height, index)
        if height == 0:
            return self.leaves[index - self.old]
        found = self.made.get((height, index))
        if found is None:
            left = self.subtree(height - 1, 2 * index)
            found = node_hash(left, self.subtree(height - 1, 2 * index + 1))
            self.made[(height, index)] = found
        return found


def fold(old: int, read: ReadTile, entries: Sequence[bytes]) -> Folded:
    """Add ``entries`` to the tree of ``old`` entries whose tiles ``read`` returns."""
    size = old + len(entries)
    grown = _Grown(old, read, [leaf_hash(entry) for entry in entries])
    folded = Folded(size, root_hash(size, grown.subtree))
    for tile in tiles_of(size, old):
        folded.tiles[tile_path(tile)] = tile_hashes(tile, grown.subtree)
        if tile.level == 0:
            start = tile.index * TILE_WIDTH
            had = width_at(0, tile.index, old)
            kept = list(unpack_bundle(read(Tile(ENTRIES, tile.index, had)))) if had else []
            if len(kept) != had:
                raise ValueError(f"entry bundle {tile.index} holds {len(kept)} entries, not {had}")
            bundle = kept + list(entries[start + len(kept) - old : start + tile.width - old])
            folded.tiles[tile_path(Tile(ENTRIES, tile.index, tile.width))] = pack_bundle(bundle)
    return folded


__all__ = ["Folded", "ReadTile", "fold"]
