"""Folding entries into a tiled tree, batch after batch, makes the tree's own tiles."""

from __future__ import annotations

import random

import pytest

from cardproof.tlog.fold import fold
from cardproof.tlog.tiles import (
    ENTRIES,
    Tile,
    pack_bundle,
    parse_tile_path,
    tile_hashes,
    tile_path,
    tiles_of,
)
from cardproof.tlog.tree import MemoryTree, leaf_hash


def whole(entries: list[bytes]) -> dict[str, bytes]:
    """Every tile and bundle of the tree of ``entries``, cut from scratch."""
    tree = MemoryTree([leaf_hash(e) for e in entries])
    out = {}
    for tile in tiles_of(len(entries)):
        out[tile_path(tile)] = tile_hashes(tile, tree.subtree)
        if tile.level == 0:
            start = tile.index * 256
            bundle = Tile(ENTRIES, tile.index, tile.width)
            out[tile_path(bundle)] = pack_bundle(entries[start : start + tile.width])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_batches_fold_into_the_tiles_of_the_whole_tree(seed: int) -> None:
    rng = random.Random(seed)
    published: dict[Tile, bytes] = {}
    entries: list[bytes] = []
    tree = MemoryTree()
    while len(entries) < 70_000:
        batch = [rng.randbytes(rng.randint(0, 40)) for _ in range(rng.choice([1, 7, 255, 3000]))]
        folded = fold(len(entries), published.__getitem__, batch)
        entries += batch
        for path, data in folded.tiles.items():
            tile = parse_tile_path(path)
            if tile.full:
                assert published.get(tile, data) == data  # a full tile never changes
            published[tile] = data
        assert folded.size == len(entries)
        for entry in batch:
            tree.append(leaf_hash(entry))
        assert folded.root == tree.root()
    current = {tile_path(t): d for t, d in published.items() if t in set(tiles_of(len(entries)))}
    current |= {
        tile_path(t): d
        for t, d in published.items()
        if t.level == ENTRIES and Tile(0, t.index, t.width) in set(tiles_of(len(entries)))
    }
    assert current == whole(entries)


NOTHING: dict[Tile, bytes] = {}


def test_a_fold_from_nothing_and_a_fold_of_nothing() -> None:
    folded = fold(0, NOTHING.__getitem__, [b"a", b"b", b"c"])
    assert sorted(folded.tiles) == ["tile/0/000.p/3", "tile/entries/000.p/3"]
    again = fold(
        3,
        lambda t: folded.tiles[f"tile/{'entries' if t.level < 0 else t.level}/000.p/{t.width}"],
        [],
    )
    assert (again.size, again.root, again.tiles) == (3, folded.root, {})


def test_a_short_bundle_is_refused() -> None:
    folded = fold(0, NOTHING.__getitem__, [b"a", b"b", b"c"])
    published = {parse_tile_path(p): d for p, d in folded.tiles.items()}
    published[Tile(ENTRIES, 0, 3)] = pack_bundle([b"a", b"b"])
    with pytest.raises(ValueError, match="holds 2 entries, not 3"):
        fold(3, published.__getitem__, [b"d"])
