"""The log's tiles as the service reads them: through the store, with a small cache.

The store keeps each tile's widest form; a narrower (older) form of a tile is a prefix
of it, so one cached copy serves every width up to its own, and never goes stale: tiles
only grow. The sequencer's folds and the receipts' proofs read here; so do the
``/log/tile/...`` answers (uncached: a reader of the log asks for each tile once).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Final, TypeVar

from cardproof.tlog.tiles import ENTRIES, Tile, TileReader, unpack_bundle
from cardproof.tlog.tree import HASH_SIZE, consistency_proof, inclusion_proof
from cardproof_service.store import Store, TileKey

CACHED_TILES: Final = 1024
"""Tiles kept in memory at most (8 KiB a hash tile, up to 1 MiB an entry bundle)."""
MAX_READS: Final = 64
"""Store reads one fold or proof may need at most (a few per tile level, in practice)."""

T = TypeVar("T")


class Missing(KeyError):
    """A tile the cache lacks (or holds narrower than asked): read it, then try again."""

    def __init__(self, key: TileKey) -> None:
        """The tile's key."""
        super().__init__(key)
        self.key = key


def width_of(key: TileKey, data: bytes) -> int:
    """How many hashes (or entries, for a bundle) a stored tile holds."""
    if key[0] == ENTRIES:
        return sum(1 for _ in unpack_bundle(data))
    return len(data) // HASH_SIZE


def prefix(tile: Tile, data: bytes) -> bytes | None:
    """``tile`` (its first ``width`` hashes or entries) from a wider form, or ``None``."""
    if tile.level != ENTRIES:
        end = tile.width * HASH_SIZE
        return data[:end] if len(data) >= end else None
    at = 0
    for _ in range(tile.width):
        if at + 2 > len(data):
            return None
        at += 2 + int.from_bytes(data[at : at + 2], "big")
    return data[:at] if at <= len(data) else None


def reader(tiles: Mapping[TileKey, bytes]) -> Callable[[Tile], bytes]:
    """Reads tiles from ``tiles`` (their widest forms): :class:`Missing` if absent or narrower."""

    def read(tile: Tile) -> bytes:
        key = (tile.level, tile.index)
        held = tiles.get(key)
        found = None if held is None else prefix(tile, held)
        if found is None:
            raise Missing(key)
        return found

    return read


class TileCache:
    """Tiles read from the store (or written by this replica's folds), the oldest dropped.

    A tile written again (the right edge, at each fold) counts as new.
    """

    def __init__(self, store: Store, limit: int = CACHED_TILES) -> None:
        """An empty cache over ``store``."""
        self.store = store
        self.limit = limit
        self._tiles: OrderedDict[TileKey, bytes] = OrderedDict()

    def keep(self, key: TileKey, data: bytes) -> None:
        """Keep a tile's bytes, unless a wider form is kept already."""
        held = self._tiles.pop(key, None)
        self._tiles[key] = data if held is None or len(data) >= len(held) else held
        while len(self._tiles) > self.limit:
            self._tiles.popitem(last=False)

    async def fetch(self, key: TileKey) -> None:
        """Read a tile from the store into the cache."""
        [data] = await self.store.read_tiles([key])
        if data is None:
            raise LookupError(f"the store holds no tile {key}")
        self.keep(key, data)

    async def through(self, work: Callable[[Callable[[Tile], bytes]], T]) -> T:
        """Run ``work`` on a reader of this cache, reading what it misses, and again."""
        for _ in range(MAX_READS):
            try:
                return work(reader(self._tiles))
            except Missing as missing:
                await self.fetch(missing.key)
        raise LookupError(f"a tile read needed more than {MAX_READS} tiles")

    async def through_thread(self, work: Callable[[Callable[[Tile], bytes]], T]) -> T:
        """:meth:`through`, ``work`` in a thread on a copy of the cache (a fold's hashing)."""
        for _ in range(MAX_READS):
            try:
                return await asyncio.to_thread(work, reader(dict(self._tiles)))
            except Missing as missing:
                await self.fetch(missing.key)
        raise LookupError(f"a fold needed more than {MAX_READS} tiles")

    async def inclusion(self, index: int, size: int) -> list[bytes]:
        """The audit path of entry ``index`` in the tree of ``size`` entries."""
        return await self.through(
            lambda read: inclusion_proof(index, size, TileReader(size, read).subtree)
        )

    async def consistency(self, old: int, size: int) -> list[bytes]:
        """The proof that the tree of ``size`` entries extends the tree of ``old``."""
        return await self.through(
            lambda read: consistency_proof(old, size, TileReader(size, read).subtree)
        )


__all__ = ["Missing", "TileCache", "prefix", "reader", "width_of"]
