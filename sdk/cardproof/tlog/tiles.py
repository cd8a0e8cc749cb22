"""Tiles (C2SP tlog-tiles): the tree served as static files of 256 hashes, and entry bundles.

A tile at level ``L`` holds up to 256 consecutive hashes of perfect subtrees of height
``8 * L`` (level 0: the leaf hashes); a full tile is 8,192 bytes and never changes, the
rightmost tiles of a tree are partial (``.p/<W>``, ``W`` from 1 to 255). An entry
bundle holds the entries behind a level-0 tile, each a big-endian ``uint16`` length and
its bytes. Paths spell a tile's index in groups of three digits, all but the last
prefixed ``x``:

>>> tile_path(Tile(0, 1234067, 256))
'tile/0/x001/x234/067'
>>> tile_path(Tile(ENTRIES, 5, 112))
'tile/entries/005.p/112'
>>> parse_tile_path('tile/1/x001/002.p/17')
Tile(level=1, index=1002, width=17)
>>> [tile_path(t) for t in tiles_of(70_000)][-4:]  # as C2SP's example has it
['tile/0/273.p/112', 'tile/1/000', 'tile/1/001.p/17', 'tile/2/000.p/1']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from cardproof.tlog.tree import HASH_SIZE, node_hash

TILE_HEIGHT: Final = 8
TILE_WIDTH: Final = 1 << TILE_HEIGHT
ENTRIES: Final = -1
"""The level an entry bundle is named under (``tile/entries/...``)."""
MAX_ENTRY: Final = 0xFFFF
"""The longest entry a bundle can carry: its length is a ``uint16``."""

_PATH = re.compile(r"tile/(0|[1-9][0-9]?|entries)/((?:x[0-9]{3}/)*)([0-9]{3})(?:\.p/([0-9]+))?")


@dataclass(frozen=True)
class Tile:
    """A tile: its level (:data:`ENTRIES` for an entry bundle), index and width (1 to 256)."""

    level: int
    index: int
    width: int

    @property
    def full(self) -> bool:
        """Whether the tile holds all its 256 hashes (and so never changes)."""
        return self.width == TILE_WIDTH


def tile_path(tile: Tile) -> str:
    """The tile's path under a log's prefix (``tile/<L>/<N>[.p/<W>]``)."""
    digits = f"{tile.index:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    index = "/".join([*(f"x{g}" for g in groups[:-1]), groups[-1]])
    level = "entries" if tile.level == ENTRIES else str(tile.level)
    partial = "" if tile.full else f".p/{tile.width}"
    return f"tile/{level}/{index}{partial}"


def parse_tile_path(path: str) -> Tile:
    """The tile a path names, in its one spelling (``ValueError`` for any other)."""
    found = _PATH.fullmatch(path)
    if found is None:
        raise ValueError(f"not a tile path: {path!r}")
    level = ENTRIES if found[1] == "entries" else int(found[1])
    groups = [g[1:] for g in found[2].split("/") if g] + [found[3]]
    width = TILE_WIDTH if found[4] is None else int(found[4])
    if found[4] is not None and (found[4][0] == "0" or not 1 <= width < TILE_WIDTH):
        raise ValueError(f"a partial tile is 1 to 255 hashes wide: {path!r}")
    if level > 63:
        raise ValueError(f"a tile level is 0 to 63: {path!r}")
    tile = Tile(level, int("".join(groups)), width)
    if tile_path(tile) != path:
        raise ValueError(f"not the tile path's one spelling (a leading zero?): {path!r}")
    return tile


def width_at(level: int, index: int, size: int) -> int:
    """How wide the tile ``index`` of ``level`` is in a tree of ``size`` (0: not there yet)."""
    hashes = size >> (TILE_HEIGHT * max(level, 0))
    return max(0, min(TILE_WIDTH, hashes - index * TILE_WIDTH))


def tiles_of(size: int, old: int = 0) -> list[Tile]:
    """The tiles a tree of ``size`` has that a tree of ``old`` lacks, level by level.

    Each level's new full tiles, then its partial one (if any): what a log writes when it
    grows from ``old`` to ``size``, or all of it from 0. Entry bundles go as level 0.
    """
    found: list[Tile] = []
    level = 0
    while size >> (TILE_HEIGHT * level):
        hashes, had = size >> (TILE_HEIGHT * level), old >> (TILE_HEIGHT * level)
        first = had // TILE_WIDTH  # the tile that grew, or the first new one
        for index in range(first, (hashes + TILE_WIDTH - 1) // TILE_WIDTH):
            width = width_at(level, index, size)
            if width != width_at(level, index, old):
                found.append(Tile(level, index, width))
        level += 1
    return found


def tile_hashes(tile: Tile, subtrees: Callable[[int, int], bytes]) -> bytes:
    """The bytes of a hash tile: each of its hashes, from the tree's perfect subtrees."""
    height = TILE_HEIGHT * tile.level
    first = tile.index * TILE_WIDTH
    return b"".join(subtrees(height, first + i) for i in range(tile.width))


class TileReader:
    """The perfect subtrees of a tree of ``size``, read from its tiles (:data:`Subtrees`).

    ``read(tile)`` returns a hash tile's bytes: the full tile or, for the rightmost ones,
    the partial tile the tree's size calls for. Each tile read is kept for the reader's
    life (one proof reads a handful).
    """

    def __init__(self, size: int, read: Callable[[Tile], bytes]) -> None:
        """A reader of the tree of ``size`` through ``read``."""
        self.size = size
        self.read = read
        self.kept: dict[Tile, bytes] = {}

    def tile(self, level: int, index: int) -> bytes:
        """A hash tile of this tree, checked to be as wide as the size says."""
        width = width_at(level, index, self.size)
        if width == 0:
            raise ValueError(f"tile {index} of level {level} is not in a tree of {self.size}")
        tile = Tile(level, index, width)
        data = self.kept.get(tile)
        if data is None:
            data = self.read(tile)
            if len(data) != width * HASH_SIZE:
                raise ValueError(f"{tile_path(tile)} is {len(data)} bytes, not {width * 32}")
            self.kept[tile] = data
        return data

    def subtree(self, height: int, index: int) -> bytes:
        """The hash of the perfect subtree of ``height`` at ``index``, from one tile."""
        level, rest = divmod(height, TILE_HEIGHT)
        first = index << rest  # its hashes in the level's tiles
        data = self.tile(level, first // TILE_WIDTH)
        at = first % TILE_WIDTH
        hashes = [data[i * HASH_SIZE : (i + 1) * HASH_SIZE] for i in range(at, at + (1 << rest))]
        while len(hashes) > 1:
            hashes = [node_hash(hashes[i], hashes[i + 1]) for i in range(0, len(hashes), 2)]
        return hashes[0]


def pack_bundle(entries: Sequence[bytes]) -> bytes:
    """An entry bundle: each entry as a big-endian ``uint16`` length and its bytes."""
    out = bytearray()
    for entry in entries:
        if len(entry) > MAX_ENTRY:
            raise ValueError(f"an entry of {len(entry)} bytes: a bundle takes {MAX_ENTRY}")
        out += len(entry).to_bytes(2, "big") + entry
    return bytes(out)


def unpack_bundle(data: bytes) -> Iterator[bytes]:
    """The entries of a bundle, in order (``ValueError`` if it is cut short)."""
    at = 0
    while at < len(data):
        if at + 2 > len(data):
            raise ValueError("an entry bundle ends inside a length")
        length = int.from_bytes(data[at : at + 2], "big")
        if at + 2 + length > len(data):
            raise ValueError("an entry bundle ends inside an entry")
        yield data[at + 2 : at + 2 + length]
        at += 2 + length


__all__ = [
    "ENTRIES",
    "MAX_ENTRY",
    "TILE_HEIGHT",
    "TILE_WIDTH",
    "Tile",
    "TileReader",
    "pack_bundle",
    "parse_tile_path",
    "tile_hashes",
    "tile_path",
    "tiles_of",
    "unpack_bundle",
    "width_at",
]
