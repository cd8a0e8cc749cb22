"""A monitor of a cardproof log: every entry read, the tree rebuilt, forks and rollbacks caught.

A monitor keeps, per log, the last checkpoint it verified (:class:`Seen`). Each check:

1. reads the checkpoint and verifies it: signed by the log's key, its origin the key's
   name, cosigned by the witnesses of its policy (their quorum);
2. refuses a tree smaller than the one seen (``rollback``), or of the same size with
   another root (``fork``);
3. rebuilds the tree seen from the log's tiles (its root must be the one seen: else the
   log now shows another history, ``fork``), reads every new entry from the entry
   bundles, checks each is an entry in its one spelling (``bad-entry``, by index), folds
   them into the tree as the log's sequencer does (:func:`cardproof.tlog.fold.fold`),
   and requires the checkpoint's root (``bad-tree``: the checkpoint does not commit to
   the entries served) and every hash tile served to be the ones rebuilt
   (``bad-tile``).

The tree is folded a bundle at a time, keeping only hash tiles (32 bytes an entry) and
the one bundle that grows: a million entries take about 32 MB. :mod:`cardproof.cli.log`
reads the log over HTTP and keeps what was seen on disk.
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

import msgspec

from cardproof.tlog.entries import Entry, EntryError, parse_entry
from cardproof.tlog.fold import fold
from cardproof.tlog.note import Checkpoint, NoteError, Verifier, open_note
from cardproof.tlog.tiles import (
    ENTRIES,
    TILE_WIDTH,
    Tile,
    TileReader,
    parse_tile_path,
    tile_path,
    tiles_of,
    unpack_bundle,
    width_at,
)
from cardproof.tlog.tree import leaf_hash, root_hash

FOLD_BUNDLES: Final = 64
"""Entry bundles folded at a time (16,384 entries)."""

Fetch = Callable[[str], bytes]
"""Reads a path under the log's prefix (``checkpoint``, ``tile/0/000.p/5``): its bytes, or
:class:`MonitorError` when the log does not serve it."""


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


@dataclass
class Checked:
    """What one check found."""

    seen: Seen
    old_size: int
    cosigned: list[str]
    """The names of the policy's witnesses that cosigned the checkpoint."""
    kinds: Counter[str] = field(default_factory=Counter)
    """The new entries, by type."""
    entries: list[tuple[int, Entry]] = field(default_factory=list)
    """The new entries with their indexes, if asked for (:meth:`Monitor.check` ``keep``)."""


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

    def checkpoint(self) -> tuple[str, Checkpoint, list[str]]:
        """The log's checkpoint, verified: its note, its contents, its witnesses' names."""
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
        return note, checkpoint, cosigned

    def check(
        self,
        seen: Seen | None,
        progress: Callable[[int, int], None] | None = None,
        *,
        keep: bool = False,
    ) -> Checked:
        """Check the log against what was ``seen`` (``None``: everything, from entry 0).

        ``progress(done, total)`` hears of each bundle read; ``keep`` keeps the new entries
        in the answer (for checks of each against the service). Raises
        :class:`MonitorError` at the first failed check.
        """
        note, checkpoint, cosigned = self.checkpoint()
        old = 0 if seen is None else seen.size
        old_root = None if seen is None else base64.b64decode(seen.root)
        if checkpoint.size < old:
            raise MonitorError(
                "rollback",
                f"the log shows {checkpoint.size} entries; it showed {old} before: a rollback",
            )
        if checkpoint.size == old and checkpoint.root != old_root and seen is not None:
            raise MonitorError(
                "fork",
                f"the log shows another root for its {old} entries than it showed before: a fork",
            )
        found = Checked(
            Seen(self.key.name, self.key.vkey, checkpoint.size, _b64(checkpoint.root), note),
            old,
            cosigned,
        )
        tiles = _Tiles(self.fetch)
        if old and old_root is not None:
            try:
                rebuilt = root_hash(old, TileReader(old, tiles.read).subtree)
            except (KeyError, ValueError) as error:
                raise MonitorError(
                    "fork", f"the tree of {old} entries it showed: {error}"
                ) from None
            if rebuilt != old_root:
                raise MonitorError(
                    "fork",
                    f"the log's tiles now hold another tree of its first {old} entries than "
                    "the one it showed: a fork",
                )
        size, root = old, old_root
        for first, batch in self._new_entries(tiles, old, checkpoint.size, progress):
            for offset, data in enumerate(batch):
                try:
                    entry = parse_entry(data)
                except EntryError as error:
                    raise MonitorError("bad-entry", f"entry {first + offset}: {error}") from None
                found.kinds[str(type(entry).__struct_config__.tag)] += 1
                if keep:
                    found.entries.append((first + offset, entry))
            folded = fold(size, tiles.read, batch)
            tiles.made(folded.tiles)
            size, root = folded.size, folded.root
        if size != checkpoint.size or (size and root != checkpoint.root):
            raise MonitorError(
                "bad-tree",
                f"the checkpoint's root is not the tree of the {checkpoint.size} entries the "
                "log serves",
            )
        for tile in tiles_of(checkpoint.size, old):
            if tiles.served(tile) != tiles.ours(tile):
                raise MonitorError(
                    "bad-tile", f"tile {tile_path(tile)} is not the one its entries make"
                )
        return found

    def _new_entries(
        self,
        tiles: _Tiles,
        old: int,
        size: int,
        progress: Callable[[int, int], None] | None,
    ) -> Iterator[tuple[int, list[bytes]]]:
        """The entries from ``old`` to ``size``, from the bundles, a batch at a time."""
        batch: list[bytes] = []
        start = old
        first_bundle, end_bundle = old // TILE_WIDTH, (size + TILE_WIDTH - 1) // TILE_WIDTH
        for index in range(first_bundle, end_bundle):
            width = width_at(0, index, size)
            path = tile_path(Tile(ENTRIES, index, width))
            try:
                entries = list(unpack_bundle(tiles.fetch_once(path)))
            except ValueError as error:
                raise MonitorError("bad-tile", f"{path}: {error}") from None
            if len(entries) != width:
                raise MonitorError("bad-tile", f"{path} holds {len(entries)} entries, not {width}")
            skip = max(0, old - index * TILE_WIDTH)
            if skip:  # the entries it showed before: still the ones its tree holds
                held = TileReader(old, tiles.read).tile(0, index)
                if b"".join(leaf_hash(entry) for entry in entries[:skip]) != held:
                    raise MonitorError(
                        "fork", f"{path} holds other entries before {old} than the log showed"
                    )
            batch += entries[skip:]
            if progress is not None:
                progress(index * TILE_WIDTH + width - old, size - old)
            if len(batch) >= FOLD_BUNDLES * TILE_WIDTH or index == end_bundle - 1:
                yield start, batch
                start += len(batch)
                batch = []


class _Tiles:
    """Tiles as the monitor reads them: the ones it rebuilt first, else the log's."""

    def __init__(self, fetch: Fetch) -> None:
        self.fetch = fetch
        self.kept: dict[tuple[int, int], bytes] = {}
        """Hash tiles rebuilt (their widest form) and the bundle that grows."""
        self.fetched: dict[str, bytes] = {}

    def fetch_once(self, path: str) -> bytes:
        """A path of the log, fetched once.

        A partial tile the log no longer serves is read from its full tile, as C2SP
        tlog-tiles lets a client do.
        """
        data = self.fetched.get(path)
        if data is None:
            try:
                data = self.fetch(path)
            except MonitorError:
                tile = parse_tile_path(path)
                if tile.full:
                    raise
                full = self.fetch(tile_path(Tile(tile.level, tile.index, TILE_WIDTH)))
                if tile.level == ENTRIES:
                    data = _bundle_prefix(full, tile.width)
                else:
                    data = full[: tile.width * 32]
            if path.startswith("tile/") and not path.startswith("tile/entries/"):
                self.fetched[path] = data  # a hash tile may be read again; a bundle not
        return data

    def read(self, tile: Tile) -> bytes:
        """A tile for a fold: the one rebuilt if any (a prefix of it), else the log's."""
        held = self.kept.get((tile.level, tile.index))
        if held is not None:
            if tile.level == ENTRIES:
                return _bundle_prefix(held, tile.width)
            if len(held) >= tile.width * 32:
                return held[: tile.width * 32]
        return self.fetch_once(tile_path(tile))

    def made(self, tiles: dict[str, bytes]) -> None:
        """Keep what a fold made: hash tiles, and a bundle only while it grows."""
        for path, data in tiles.items():
            tile = parse_tile_path(path)
            if tile.level == ENTRIES and tile.full:
                self.kept.pop((tile.level, tile.index), None)
            else:
                self.kept[(tile.level, tile.index)] = data

    def ours(self, tile: Tile) -> bytes:
        """A hash tile as rebuilt, at ``tile``'s width."""
        return self.kept.get((tile.level, tile.index), b"")[: tile.width * 32]

    def served(self, tile: Tile) -> bytes:
        """A hash tile as the log serves it."""
        return self.fetch_once(tile_path(tile))


def _bundle_prefix(bundle: bytes, width: int) -> bytes:
    """The first ``width`` entries of a bundle, as their bundle."""
    at = 0
    for _ in range(width):
        at += 2 + int.from_bytes(bundle[at : at + 2], "big")
    return bundle[:at]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


__all__ = ["Checked", "Fetch", "Monitor", "MonitorError", "Seen"]
