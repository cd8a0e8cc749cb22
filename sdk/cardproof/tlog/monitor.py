"""A monitor of a cardproof log: every entry read, the tree rebuilt, forks and rollbacks caught.

A monitor keeps, per log, the last checkpoint it verified (:class:`Seen`). Each check:

1. reads the checkpoint and verifies it: signed by the log's key, its origin the key's
   name, cosigned by the witnesses of its policy (their quorum) (``bad-signature``,
   ``witnesses``);
2. refuses a tree smaller than the one seen (``rollback``), or of the same size with
   another root (``fork``);
3. rebuilds the root of the tree seen from the log's tiles (its right edge): another
   root is another history of what the log showed (``fork``);
4. reads every new entry from the entry bundles, each an entry in its one spelling
   (``bad-entry``, by index), the old entries of the bundle the log grew from still
   the ones the tree seen holds (``fork``);
5. folds them into the tree as the log's sequencer does (:func:`cardproof.tlog.fold.fold`)
   and requires every hash tile served to be the one rebuilt (``bad-tile``) and the
   checkpoint's root to be the tree's (``fork``: the log signed a tree its tiles and
   entries do not make, so what it shows one reader is not what it signed for another).

Steps 3 and 4 read only the right edge of the tree seen: a log could rewrite its old full
bundles and tiles under an honest checkpoint and only a fresh monitor would see it. So a
check with something seen also re-reads a sample of the full bundles seen before
(:data:`SAMPLE`, chosen at random where the log cannot guess them). Step 3 proved the
hashes it read of the tree seen: from the one of the largest perfect subtree holding a
sampled bundle down, each full hash tile on the way must make the hash verified above it
(``bad-tile``), and the bundle's 256 entries the level-0 tile so verified (``fork``: not
the entries of the tree seen). A ``full`` check instead reads and folds every entry from
0, as a fresh monitor does, the tree of the size seen rebuilt on the way and required to
have the root seen (``fork``).

Memory stays bounded whatever the log's size: the entries are folded 64 bundles at a
time, a full tile is compared with the log's as soon as it is made and then dropped, and
only the tree's right edge (a partial tile a level, the partial bundle) is kept between
folds. :mod:`cardproof.cli.log` reads the log over HTTP and keeps what was seen on disk.
"""

from __future__ import annotations

import base64
import contextlib
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Final

import msgspec

from cardproof.tlog.entries import Entry, EntryError, parse_entry
from cardproof.tlog.fold import fold
from cardproof.tlog.note import Checkpoint, NoteError, Verifier, open_note
from cardproof.tlog.tiles import (
    ENTRIES,
    TILE_HEIGHT,
    TILE_WIDTH,
    Tile,
    TileReader,
    pack_bundle,
    parse_tile_path,
    tile_path,
    tiles_of,
    unpack_bundle,
    width_at,
)
from cardproof.tlog.tree import EMPTY_ROOT, HASH_SIZE, leaf_hash, node_hash, root_hash

FOLD_BUNDLES: Final = 64
"""Entry bundles folded at a time (16,384 entries)."""
SAMPLE: Final = 4
"""Full bundles seen before that a check re-reads, at random: a bundle and a tile or two each."""

Fetch = Callable[[str], bytes]
"""Reads a path under the log's prefix (``checkpoint``, ``tile/0/000.p/5``): its bytes.

It raises :class:`MonitorError` with the code ``bad-tile`` when the log does not serve
a tile (a partial tile is then read from its full tile), any other code when the log
cannot be read now."""
Progress = Callable[[int, int], None]
"""Hears ``(done, total)``: the new entries read so far, of how many."""
EachEntry = Callable[[int, Entry], None]
"""Hears each new entry with its index, as it is read (it may raise :class:`MonitorError`)."""


class MonitorError(Exception):
    """A check the log failed; ``code`` names which (``fork``, ``rollback``, ...)."""

    def __init__(self, code: str, message: str) -> None:
        """Keep the code beside the message."""
        super().__init__(message)
        self.code = code
        self.message = message


class Seen(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a monitor keeps of a log: its key, and the last checkpoint verified."""

    origin: str
    vkey: str
    size: int
    root: str
    """The root hash, base64."""
    checkpoint: str
    """The checkpoint note as it was read (its cosignatures too)."""
    url: str = ""
    """Where it was read (``cardproof log check --url``), if a reader says."""


@dataclass
class Checked:
    """What one check found."""

    seen: Seen
    old_size: int
    cosigned: list[str]
    """The names of the policy's witnesses that cosigned the checkpoint."""
    unchecked: list[str] = field(default_factory=list)
    """The names on the checkpoint's other signature lines (keys not given: not verified)."""
    kinds: Counter[str] = field(default_factory=Counter)
    """The new entries, by type."""
    resampled: int = 0
    """How many full bundles seen before were re-read (the sample)."""
    full: bool = False
    """Whether every entry was re-read from entry 0 (``full``), not only the new ones."""


class Monitor:
    """Checks one log read through ``fetch``, against its key and a witness policy."""

    def __init__(
        self,
        fetch: Fetch,
        key: Verifier,
        witnesses: Sequence[Verifier] = (),
        quorum: int = 0,
    ) -> None:
        """A monitor of the log of ``key``, requiring ``quorum`` of ``witnesses``."""
        if not 0 <= quorum <= len(witnesses):
            raise ValueError(f"a quorum of {quorum} from {len(witnesses)} witnesses")
        self.fetch = fetch
        self.key = key
        self.witnesses = list(witnesses)
        self.quorum = quorum

    def checkpoint(self) -> tuple[str, Checkpoint, list[str], list[str]]:
        """The log's checkpoint, verified: its note, contents, witnesses, unchecked signers.

        The witnesses are the names of the policy's that cosigned; the unchecked signers
        the names on its lines of keys not given (so not verified).
        """
        note = self.fetch("checkpoint").decode("utf-8", "replace")
        try:
            opened = open_note(note, [self.key, *self.witnesses])
            checkpoint = Checkpoint.parse(opened.text)
        except NoteError as error:
            raise MonitorError("bad-signature", f"the checkpoint: {error}") from None
        if not any(s.verifier == self.key for s in opened.signatures):
            raise MonitorError("bad-signature", "the checkpoint is not signed by the log's key")
        if checkpoint.origin != self.key.name:
            raise MonitorError(
                "bad-signature",
                f"the checkpoint is of {checkpoint.origin!r}, not of {self.key.name!r}",
            )
        cosigned = [s.verifier.name for s in opened.signatures if s.verifier != self.key]
        if len(cosigned) < self.quorum:
            raise MonitorError(
                "witnesses",
                f"{len(cosigned)} of your witnesses cosigned the checkpoint; {self.quorum} needed",
            )
        unchecked = [line.split(" ")[1] for line in opened.unknown]
        return note, checkpoint, cosigned, unchecked

    def check(
        self,
        seen: Seen | None,
        progress: Progress | None = None,
        each: EachEntry | None = None,
        *,
        sample: int = SAMPLE,
        full: bool = False,
    ) -> Checked:
        """Check the log against what was ``seen`` (``None``: everything, from entry 0).

        ``progress`` hears of each bundle read, ``each`` of each entry read. ``sample``
        full bundles seen before are re-read (at random, 0: none); ``full`` reads every
        entry from 0 instead (``each`` hears them all). Raises :class:`MonitorError` at
        the first failed check.
        """
        if sample < 0:
            raise ValueError(f"a sample of {sample} bundles")
        note, checkpoint, cosigned, unchecked = self.checkpoint()
        old = 0 if seen is None else seen.size
        old_root = EMPTY_ROOT if seen is None else base64.b64decode(seen.root)
        if checkpoint.size < old:
            raise MonitorError(
                "rollback",
                f"the log shows {checkpoint.size} entries; it showed {old} before: a rollback",
            )
        if seen is not None and checkpoint.size == old and checkpoint.root != old_root:
            raise MonitorError(
                "fork",
                f"the log shows the root {_b64(checkpoint.root)} for its {old} entries; it "
                f"showed {_b64(old_root)} before: a fork",
            )
        root = _b64(checkpoint.root)
        found = Checked(
            Seen(self.key.name, self.key.vkey, checkpoint.size, root, note),
            old,
            cosigned,
            unchecked,
            full=full,
        )
        tiles = _Tiles(self.fetch)
        reader = TileReader(old, tiles.read)  # the tree seen, its tiles kept as read
        if old:
            with _bad_tile():
                rebuilt = root_hash(old, reader.subtree)
            if rebuilt != old_root:
                raise MonitorError(
                    "fork",
                    f"the log's tiles now make the root {_b64(rebuilt)} of its first {old} "
                    f"entries; it showed {_b64(old_root)}: a fork",
                )
        if not full:
            seen_bundles = old // TILE_WIDTH
            chosen = random.SystemRandom().sample(range(seen_bundles), min(sample, seen_bundles))
            for index in sorted(chosen):
                _resample(tiles, reader, old, index)
            found.resampled = len(chosen)
        start = 0 if full else old
        size, made = start, EMPTY_ROOT if full else old_root
        for batch in self._new_entries(tiles, found, start, checkpoint.size, progress, each):
            with _bad_tile():
                folded = fold(size, tiles.read, batch)
            tiles.made(folded.tiles)
            size, made = folded.size, folded.root
            if size == old and made != old_root:  # full: the tree seen, rebuilt
                raise MonitorError(
                    "fork",
                    f"the log's first {old} entries now make the root {_b64(made)}; it "
                    f"showed {_b64(old_root)}: a fork",
                )
        if made != checkpoint.root:
            raise MonitorError(
                "fork",
                f"the log's {checkpoint.size} entries make the root {_b64(made)}; its "
                f"checkpoint signs {root}: it signed a tree it does not serve (a fork)",
            )
        for tile in tiles_of(checkpoint.size, start):
            if not tile.full:  # a full one was compared as it was made
                tiles.compare(tile, tiles.edge[(tile.level, tile.index)])
        return found

    def _new_entries(
        self,
        tiles: _Tiles,
        found: Checked,
        old: int,
        size: int,
        progress: Progress | None,
        each: EachEntry | None,
    ) -> Iterator[list[bytes]]:
        """The entries from ``old`` on, from the bundles, in batches of :data:`FOLD_BUNDLES`.

        Each is checked and heard of (``each``) as its bundle is read; the new ones (from
        the size seen) are counted by type. A batch also ends at the size seen, so that a
        ``full`` check folds the tree seen on the way.
        """
        batch: list[bytes] = []
        end_bundle = (size + TILE_WIDTH - 1) // TILE_WIDTH
        for index in range(old // TILE_WIDTH, end_bundle):
            tile = Tile(ENTRIES, index, width_at(0, index, size))
            path = tile_path(tile)
            try:
                entries = list(unpack_bundle(tiles.get(path)))
            except ValueError as error:
                raise MonitorError("bad-tile", f"{path}: {error}") from None
            if len(entries) != tile.width:
                raise MonitorError(
                    "bad-tile", f"{path} holds {len(entries)} entries, not {tile.width}"
                )
            skip = max(0, old - index * TILE_WIDTH)
            if skip:  # the entries it showed before: still the ones its tree holds
                with _bad_tile():
                    held = TileReader(old, tiles.read).tile(0, index)
                if b"".join(leaf_hash(entry) for entry in entries[:skip]) != held:
                    raise MonitorError(
                        "fork", f"{path} holds other entries before {old} than the log showed"
                    )
                tiles.edge[(ENTRIES, index)] = pack_bundle(entries[:skip])  # for the fold
            first = index * TILE_WIDTH + skip
            for at, data in enumerate(entries[skip:], first):
                try:
                    entry = parse_entry(data)
                except EntryError as error:
                    raise MonitorError("bad-entry", f"entry {at}: {error}") from None
                if at >= found.old_size:
                    found.kinds[str(type(entry).__struct_config__.tag)] += 1
                if each is not None:
                    each(at, entry)
            seen_end = found.old_size - index * TILE_WIDTH
            if old < found.old_size and 0 < seen_end <= tile.width:  # the tree seen ends here
                yield batch + entries[:seen_end]
                batch = entries[seen_end:]
            else:
                batch += entries[skip:]
            if progress is not None:
                progress(index * TILE_WIDTH + tile.width - old, size - old)
            last = index == end_bundle - 1
            if batch and (len(batch) >= FOLD_BUNDLES * TILE_WIDTH or last):
                yield batch
                batch = []


def _resample(tiles: _Tiles, reader: TileReader, old: int, index: int) -> None:
    """Re-read the full bundle ``index`` of the tree seen, of ``old`` entries.

    ``reader`` rebuilt the root seen, so the hashes it read of the largest perfect subtree
    holding the bundle are the tree seen's. From there down, each full hash tile on the
    way must make the hash verified above it (``bad-tile``); the bundle's entries must
    make the bundle's hash so verified (``fork``: they are not the entries of the tree
    seen, whether its level-0 tile was rewritten with them or not), and its level-0 tile
    must be their leaf hashes (``bad-tile``).
    """
    bundle = tile_path(Tile(ENTRIES, index, TILE_WIDTH))
    try:
        entries = list(unpack_bundle(tiles.get(bundle)))
    except ValueError as error:
        raise MonitorError("bad-tile", f"{bundle}: {error}") from None
    if len(entries) != TILE_WIDTH:
        raise MonitorError("bad-tile", f"{bundle} holds {len(entries)} entries, not {TILE_WIDTH}")
    leaves = b"".join(leaf_hash(entry) for entry in entries)
    first = index * TILE_WIDTH
    height = TILE_HEIGHT  # up to the largest perfect subtree in the tree seen holding it
    while ((first >> (height + 1)) + 1) << (height + 1) <= old:
        height += 1
    top = height // TILE_HEIGHT
    with _bad_tile():
        verified = reader.subtree(TILE_HEIGHT * top, first >> (TILE_HEIGHT * top))
        for level in range(top - 1, 0, -1):
            above = first >> (TILE_HEIGHT * (level + 1))  # the node the tile's hashes make
            data = reader.tile(level, above)
            if _tile_root(data) != verified:
                raise MonitorError(
                    "bad-tile",
                    f"tile {tile_path(Tile(level, above, TILE_WIDTH))} is not the one its "
                    "entries make",
                )
            at = (first >> (TILE_HEIGHT * level)) % TILE_WIDTH
            verified = data[at * HASH_SIZE : (at + 1) * HASH_SIZE]
        if _tile_root(leaves) != verified:
            raise MonitorError(
                "fork", f"{bundle} holds other entries than the tree of {old} seen: a fork"
            )
        if reader.tile(0, index) != leaves:
            raise MonitorError(
                "bad-tile",
                f"tile {tile_path(Tile(0, index, TILE_WIDTH))} is not the one its entries make",
            )


def _tile_root(data: bytes) -> bytes:
    """The hash of the subtree a full tile's 256 hashes make."""
    hashes = [data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE)]
    while len(hashes) > 1:
        hashes = [node_hash(hashes[i], hashes[i + 1]) for i in range(0, len(hashes), 2)]
    return hashes[0]


class _Tiles:
    """Tiles as the monitor reads them: the right edge of the tree it folded, else the log's.

    Bounded: the edge holds a partial tile a level and the partial bundle, and the log's
    tiles kept are the ones the tree seen is rebuilt from (its right edge too).
    """

    def __init__(self, fetch: Fetch) -> None:
        self.fetch = fetch
        self.edge: dict[tuple[int, int], bytes] = {}
        """The partial tiles (and bundle) of the tree folded so far, by level and index."""
        self.served: dict[Tile, bytes] = {}
        """The log's tiles read for a fold (the right edge of the tree seen)."""

    def get(self, path: str) -> bytes:
        """A path of the log (a partial tile it no longer serves: cut from its full tile)."""
        try:
            return self.fetch(path)
        except MonitorError as error:
            tile = parse_tile_path(path)
            if error.code != "bad-tile" or tile.full:
                raise
            return _cut(tile, self.fetch(tile_path(Tile(tile.level, tile.index, TILE_WIDTH))))

    def read(self, tile: Tile) -> bytes:
        """A tile for a fold: the edge folded if it holds it, else the log's."""
        held = self.edge.get((tile.level, tile.index))
        if held is not None:
            return _cut(tile, held)
        data = self.served.get(tile)
        if data is None:
            data = self.served[tile] = self.get(tile_path(tile))
        return data

    def made(self, tiles: dict[str, bytes]) -> None:
        """Take what a fold made: partial tiles as the edge, full ones compared and dropped."""
        for path, data in tiles.items():
            tile = parse_tile_path(path)
            if not tile.full:
                self.edge[(tile.level, tile.index)] = data
                continue
            self.edge.pop((tile.level, tile.index), None)
            if tile.level != ENTRIES:
                self.compare(tile, data)

    def compare(self, tile: Tile, made: bytes) -> None:
        """``bad-tile`` unless the log serves ``tile`` as it was rebuilt."""
        path = tile_path(tile)
        if self.get(path) != _cut(tile, made):
            raise MonitorError("bad-tile", f"tile {path} is not the one its entries make")


def _cut(tile: Tile, data: bytes) -> bytes:
    """The first ``tile.width`` hashes (or entries, of a bundle) of a wider tile's bytes."""
    if tile.level == ENTRIES:
        return pack_bundle(list(islice(unpack_bundle(data), tile.width)))
    return data[: tile.width * HASH_SIZE]


@contextlib.contextmanager
def _bad_tile() -> Iterator[None]:
    """A tile of the wrong size or a bundle cut short (``ValueError``) as ``bad-tile``."""
    try:
        yield
    except ValueError as error:
        raise MonitorError("bad-tile", str(error)) from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


__all__ = [
    "FOLD_BUNDLES",
    "SAMPLE",
    "Checked",
    "EachEntry",
    "Fetch",
    "Monitor",
    "MonitorError",
    "Progress",
    "Seen",
]
