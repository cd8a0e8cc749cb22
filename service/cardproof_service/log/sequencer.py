"""The sequencer: pooled entries folded into the log's tree, twice a second, by one replica.

Every replica runs one; the store's lease lets one fold at a time (it holds the lease
for a few intervals and renews it at each fold, so another takes over within seconds
of its death). A fold, as the Sunlight logs make theirs:

1. takes the pooled entries (each pool's oldest first), and leaves out those the log
   holds already (a fold whose pools were not dropped before its sequencer died) and
   repeats;
2. hashes them into the tree in a thread (:func:`cardproof.tlog.fold.fold`), reading
   only the right edge of the old tree, and signs the new checkpoint;
3. commits tiles, leaf indexes and checkpoint in one store step, refused if another
   sequencer took over or the log moved: nothing half-written, whatever dies when;
4. drops the entries from their pools.

So an entry pooled is in the log after one fold, or still pooled for the next; a tile
is only ever extended.

After its fold, the sequencer does what is due (:class:`Duty`): a tournament's reveals
and settlement once it closed, which the store keeps until they are pooled, so that they
are logged whoever reads the tournament, and whichever replica dies.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

from cardproof.tlog.entries import MAX_ENTRY_BYTES
from cardproof.tlog.fold import Folded, fold
from cardproof.tlog.note import Checkpoint, NoteError, Signer, open_note, sign_note
from cardproof.tlog.tiles import ENTRIES, parse_tile_path
from cardproof.tlog.tree import EMPTY_ROOT, leaf_hash
from cardproof_service.log.tiles import TileCache
from cardproof_service.log.witnesses import Witnesses
from cardproof_service.store import LogConflict, LogState, Pooled, Store, StoreUnavailable

log = logging.getLogger("cardproof.log")


class ForeignLog(Exception):
    """The store's log is signed by another key or under another origin: not folded."""


BATCH: Final = 20_000
"""Entries one fold takes at most (more wait for the next fold)."""
LEASE_INTERVALS: Final = 5
"""The lease lasts this many fold intervals (at least 2 s): a dead sequencer's lease
runs out within that, and another replica's next try takes it."""
SHUTDOWN_WAIT: Final = 2.0
"""Seconds a stopping app waits for its sequencer's fold to end."""
SWEEP_EVERY: Final = 60.0
"""Seconds between two sweeps of every pool (a writer that died before marking its)."""
DUTIES_A_FOLD: Final = 20
"""Due keys one fold does at most (a tournament's standings are read for each)."""
RETRY_DUTY_MS: Final = 60_000
"""A duty that failed is tried again this much later."""


@dataclass(frozen=True)
class Due:
    """What a duty gives for a due key: entries to pool under ``pool``, or a later time."""

    pool: str = ""
    entries: Sequence[bytes] = ()
    later_ms: int | None = None
    """Not yet (a tournament whose last results are still landing): ask again then."""


Duty = Callable[[str], Awaitable[Due]]
"""What the sequencer calls for a due key (set by the part of the service that names it)."""


def empty_checkpoint(signer: Signer) -> str:
    """The checkpoint of the empty log (what the log shows before its first fold)."""
    return sign_note(Checkpoint(signer.name, 0, EMPTY_ROOT).text(), [signer])


class Sequencer:
    """Folds the pool into the log while this replica holds the lease."""

    def __init__(
        self,
        store: Store,
        signer: Signer,
        tiles: TileCache,
        interval: float = 0.5,
        witnesses: Witnesses | None = None,
    ) -> None:
        """A sequencer signing checkpoints with ``signer`` (its name is the log's origin).

        ``witnesses`` are sent each checkpoint; their cosignatures are kept beside it.
        """
        self.store = store
        self.witnesses = witnesses
        self.signer = signer
        self.tiles = tiles
        self.interval = interval
        self.holder = secrets.token_hex(12)
        self.lease_ms = max(2000, int(interval * LEASE_INTERVALS * 1000))
        self._holding = False
        self._swept = 0.0
        self._task: asyncio.Task[None] | None = None
        self.folded = asyncio.Event()
        """Set after each fold this replica commits (tests and benches wait on it)."""
        self.duty: Duty | None = None
        """What due keys are logged as (none: they wait)."""

    def begin(self) -> None:
        """Start folding in the background (unless this app's sequencer runs already)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="cardproof-log-sequencer")

    async def end(self) -> None:
        """Stop (a fold under way is cancelled: what it took stays pooled).

        Only the lifespan that started the task stops it: an app run twice at once (a
        test's second client) leaves the first run's sequencer to the first.
        """
        task = self._task
        if task is None or task.get_loop() is not asyncio.get_running_loop():
            return
        self._task = None
        task.cancel()
        await asyncio.wait([task], timeout=SHUTDOWN_WAIT)
        if self.witnesses is not None:
            await self.witnesses.end()

    async def _run(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.step()
            except (StoreUnavailable, LogConflict) as error:
                self._holding = False
                log.warning("log fold refused or store unavailable: %s", error)
            except ForeignLog as error:
                self._holding = False
                log.error("%s", error)
            except Exception:  # a bug must not stop the log for good
                self._holding = False
                log.exception("log fold failed")
            await asyncio.sleep(max(0.05, self.interval - (time.monotonic() - started)))

    async def step(self) -> int:
        """One fold if this replica holds (or takes) the lease; the entries it added."""
        if not await self.store.take_lease(self.holder, self.lease_ms):
            self._holding = False
            return 0
        sweep = not self._holding or time.monotonic() - self._swept > SWEEP_EVERY
        self._holding = True
        if sweep:
            self._swept = time.monotonic()
        state = await self.store.log_state()
        if state.checkpoint is None:  # the log's first checkpoint: the empty tree's
            await self.store.commit_fold(
                self.holder, 0, LogState(0, empty_checkpoint(self.signer)), {}, {}
            )
            state = await self.store.log_state()
        self._check_own(state)
        self._witness(state)  # an idle log's checkpoint too, until every witness cosigned
        taken = await self.store.pooled(BATCH, sweep=sweep)
        added = 0
        if taken:
            added = await self._fold(state, taken)
            await self.store.drop_pooled(taken)
            self.folded.set()
            self.folded = asyncio.Event()
        await self._duties()
        return added

    async def _duties(self) -> None:
        """Pool what is due (the next fold sequences it), then forget it or put it off."""
        if self.duty is None:
            return
        current = int(time.time() * 1000)
        for key, at_ms in await self.store.logs_due(current, DUTIES_A_FOLD):
            try:
                due = await self.duty(key)
            except StoreUnavailable:
                raise
            except Exception:  # one bad key must not stop the others, nor the log
                log.exception("log duty %s failed; tried again in a minute", key)
                await self.store.log_done(key, at_ms, current + RETRY_DUTY_MS)
                continue
            if due.entries:
                await self.store.pool_entries(due.pool, due.entries)
            await self.store.log_done(key, at_ms, due.later_ms)

    def _witness(self, state: LogState) -> None:
        """Have the witnesses cosign ``state``'s checkpoint, in the background."""
        if self.witnesses is not None:
            self.witnesses.poke(state)

    def _check_own(self, state: LogState) -> None:
        """Fold only onto a log this key signs, under this origin (:class:`ForeignLog`).

        Replicas configured with another key or origin (or a store shared by two
        deployments) would otherwise sign one tree under two names.
        """
        try:
            text = open_note(state.checkpoint or "", [self.signer.verifier]).text
            if Checkpoint.parse(text).size == state.size:
                return
        except NoteError:
            pass
        raise ForeignLog(
            f"the log in the store is not signed by this replica's log key as "
            f"{self.signer.name!r}: give every replica the CARDPROOF_LOG_KEY and "
            "CARDPROOF_LOG_ORIGIN (or CARDPROOF_PUBLIC_URL) of the replicas that began it"
        )

    async def _new_entries(self, taken: list[Pooled]) -> list[bytes]:
        """The taken entries the log does not hold yet, each once, in pool order."""
        entries = []
        for batch in taken:
            for entry in batch.entries:
                if 0 < len(entry) <= MAX_ENTRY_BYTES:
                    entries.append(entry)
                else:  # never written by the service: kept out of the log, said loudly
                    log.error("a pooled log entry of %d bytes was dropped", len(entry))
        leaves = [leaf_hash(entry) for entry in entries]
        known = await self.store.leaf_indexes(leaves)
        seen: set[bytes] = set()
        new = []
        for entry, leaf, index in zip(entries, leaves, known, strict=True):
            if index is None and leaf not in seen:
                seen.add(leaf)
                new.append(entry)
        return new

    async def _fold(self, state: LogState, taken: list[Pooled]) -> int:
        """Fold what is new among ``taken`` into the log of ``state``, and commit it."""
        new = await self._new_entries(taken)
        if not new:
            return 0
        folded: Folded = await self.tiles.through_thread(lambda read: fold(state.size, read, new))
        checkpoint = sign_note(
            Checkpoint(self.signer.name, folded.size, folded.root).text(), [self.signer]
        )
        tiles = {}
        edge = {}
        for path, data in folded.tiles.items():
            tile = parse_tile_path(path)
            tiles[(tile.level, tile.index)] = data
            if tile.level != ENTRIES or not tile.full:  # a full bundle is never read again
                edge[(tile.level, tile.index)] = data
        leaves = {leaf_hash(entry): state.size + i for i, entry in enumerate(new)}
        await self.store.commit_fold(
            self.holder, state.size, LogState(folded.size, checkpoint), tiles, leaves
        )
        for key, data in edge.items():
            self.tiles.keep(key, data)
        self._witness(LogState(folded.size, checkpoint))
        log.info("log folded %d entries: size %d", len(new), folded.size)
        return len(new)


__all__ = ["Due", "Duty", "ForeignLog", "Sequencer", "empty_checkpoint"]
