"""The memory store's transparency log: its pool of entries, lease, tiles and checkpoint.

One process holds it all, so the pool is one list and the lease is always the one
sequencer's; the steps still check what the Redis store checks (the lease's holder, the
size a fold started from, tiles that only grow), so that both pass one contract.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from cardproof_service.store.memory.core import MemoryCore
from cardproof_service.store.records import LogConflict, LogState, Pooled, TileKey

LEAF_KEY = 16
"""Bytes of a leaf hash the index keys an entry by (collisions: 2^-128 a pair)."""


class MemoryLog(MemoryCore):
    """The log's state in dicts."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """An empty log, nothing pooled."""
        super().__init__(organizers_file)
        self._pool: list[bytes] = []
        """Pooled entries, oldest first."""
        self._pool_dropped = 0
        """Entries dropped from the pool so far (a drop names the count it read)."""
        self._lease: tuple[str, float] | None = None
        self._log = LogState()
        self._tiles: dict[TileKey, bytes] = {}
        self._leaves: dict[bytes, int] = {}
        self._log_due: dict[str, int] = {}

    def _pool_ending(self, log: bytes) -> None:
        """Pool an ending's entries (one a line), in the step that stores it."""
        if log:
            self._pool.extend(log.split(b"\n"))

    async def pool_entries(self, pool: str, entries: Sequence[bytes]) -> None:
        """Pool ``entries`` (one pool here, whatever ``pool`` says)."""
        self._pool.extend(entries)

    async def pooled(self, limit: int, *, sweep: bool = False) -> list[Pooled]:
        """The oldest ``limit`` pooled entries."""
        taken = self._pool[:limit]
        return [Pooled("", len(taken), taken, self._pool_dropped)] if taken else []

    async def drop_pooled(self, taken: Sequence[Pooled]) -> None:
        """Drop the oldest entries, as many as were taken, unless dropped meanwhile."""
        for batch in taken:
            if batch.dropped == self._pool_dropped:
                del self._pool[: batch.taken]
                self._pool_dropped += batch.taken

    async def take_lease(self, holder: str, ms: int) -> bool:
        """The lease, unless another holder's has not yet run out."""
        now = time.monotonic()
        if self._lease is not None and self._lease[0] != holder and self._lease[1] > now:
            return False
        self._lease = (holder, now + ms / 1000)
        return True

    async def log_state(self) -> LogState:
        """The log as it is."""
        return self._log

    async def commit_fold(
        self,
        holder: str,
        old_size: int,
        state: LogState,
        tiles: dict[TileKey, bytes],
        leaves: dict[bytes, int],
    ) -> None:
        """Every check first, then every write: one step."""
        if self._lease is None or self._lease[0] != holder:
            raise LogConflict("the sequencer's lease is another's")
        if self._log.size != old_size:
            raise LogConflict(f"the log is of {self._log.size} entries, not {old_size}")
        for key, data in tiles.items():
            held = self._tiles.get(key, b"")
            if not data.startswith(held):
                raise LogConflict(f"tile {key} would change what it held")
        self._tiles.update(tiles)
        self._leaves.update({leaf[:LEAF_KEY]: index for leaf, index in leaves.items()})
        self._log = state

    async def read_tiles(self, keys: Sequence[TileKey]) -> list[bytes | None]:
        """Each tile as held."""
        return [self._tiles.get(key) for key in keys]

    async def leaf_indexes(self, leaves: Sequence[bytes]) -> list[int | None]:
        """Each entry's index, by its leaf hash."""
        return [self._leaves.get(leaf[:LEAF_KEY]) for leaf in leaves]

    async def add_cosigned(self, size: int, cosigned: str) -> bool:
        """Keep the cosigned checkpoint if the log has not grown since."""
        if self._log.size != size:
            return False
        self._log = LogState(size, self._log.checkpoint, cosigned)
        return True

    async def log_due(self, key: str, at_ms: int) -> None:
        """Keep the earlier of the two times."""
        self._log_due[key] = min(at_ms, self._log_due.get(key, at_ms))

    async def logs_due(self, at_ms: int, limit: int) -> list[tuple[str, int]]:
        """The earliest due keys."""
        due = sorted((at, key) for key, at in self._log_due.items() if at <= at_ms)
        return [(key, at) for at, key in due[:limit]]

    async def log_done(self, key: str, at_ms: int, later_ms: int | None = None) -> None:
        """Forget or move ``key``, if still due at ``at_ms``."""
        if self._log_due.get(key) != at_ms:
            return
        if later_ms is None:
            del self._log_due[key]
        else:
            self._log_due[key] = later_ms
