"""The transparency log as the rest of the service sees it: read, proved, sequenced.

``Log`` answers ``/log/checkpoint``, ``/log/tile/...`` and ``/log/key``, gives a receipt
its place in the log (an inclusion proof against the latest checkpoint), and runs this
replica's sequencer. The checkpoint is signed with the log key (``CARDPROOF_LOG_KEY``),
named by the log's origin (``CARDPROOF_LOG_ORIGIN``); docs/protocol.md section 7 has
the formats.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence

from cardproof.tlog.entries import Entry, encode_entry, receipt_entry
from cardproof.tlog.inclusion import LogProof
from cardproof.tlog.note import Signer
from cardproof.tlog.tiles import ENTRIES, TILE_WIDTH, parse_tile_path, unpack_bundle
from cardproof.tlog.tree import leaf_hash
from cardproof_service.log.sequencer import Duty, Sequencer, empty_checkpoint
from cardproof_service.log.tiles import TileCache, prefix
from cardproof_service.log.witnesses import Witnesses
from cardproof_service.plumbing import Keys, Settings
from cardproof_service.store import Store


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Log:
    """The log as this replica reads it, and this replica's sequencer."""

    def __init__(self, store: Store, keys: Keys, settings: Settings) -> None:
        """The log of ``store``, signed with the keys' log key under the settings' origin."""
        self.store = store
        self.enabled = settings.log
        """``CARDPROOF_LOG``: off, nothing is pooled or folded, and no receipt is proved."""
        if not self.enabled:
            logging.getLogger("cardproof.log").warning(
                "CARDPROOF_LOG=off: no transparency log is kept; receipts signed now are in "
                "no log, and `cardproof verify --url` refuses them"
            )
        self.signer = Signer(settings.origin, keys.log_seed)
        self.tiles = TileCache(store)
        witnesses = Witnesses(settings.log_witnesses, self.signer.verifier, store, self.tiles)
        self.sequencer = Sequencer(store, self.signer, self.tiles, settings.log_interval, witnesses)

    def begin(self) -> None:
        """Start this replica's sequencer (one replica folds at a time)."""
        if self.enabled:
            self.sequencer.begin()

    async def end(self) -> None:
        """Stop the sequencer."""
        await self.sequencer.end()

    def on_due(self, duty: Duty) -> None:
        """What the sequencer pools for a due key (:meth:`due`); one duty for the log."""
        self.sequencer.duty = duty

    async def pool(self, pool: str, entries: Sequence[Entry]) -> None:
        """Pool ``entries`` for the next fold (under the tag ``pool``)."""
        if self.enabled:
            await self.store.pool_entries(pool, [encode_entry(entry) for entry in entries])

    async def due(self, key: str, at_ms: int) -> None:
        """Have the sequencer's duty run for ``key`` from ``at_ms`` on (never later)."""
        if self.enabled:
            await self.store.log_due(key, at_ms)

    @property
    def key(self) -> str:
        """The log's note verifier key: ``origin+keyid+base64``."""
        return self.signer.verifier.vkey

    async def checkpoint(self) -> str:
        """The latest checkpoint, with the witnesses' cosignatures once it has them."""
        state = await self.store.log_state()
        return state.cosigned or state.checkpoint or empty_checkpoint(self.signer)

    async def tile(self, path: str) -> bytes | None:
        """The tile or entry bundle at ``path`` (``tile/...``), or ``None``: no such tile.

        Each in its one spelling; a partial tile as it was (a prefix of the tile as it is
        now). The store writes a fold's tiles and its checkpoint in one step, so a tile
        as wide as asked is one of a checkpoint's trees.
        """
        try:
            tile = parse_tile_path(path)
        except ValueError:
            return None
        [data] = await self.store.read_tiles([(tile.level, tile.index)])
        return None if data is None else prefix(tile, data)

    async def proof(self, receipt: str) -> LogProof | None:
        """Where the log holds ``receipt``, with its audit path; ``None`` until it does."""
        return await self.proof_of(leaf_hash(encode_entry(receipt_entry(receipt))))

    async def proof_of(self, leaf: bytes) -> LogProof | None:
        """The entry of leaf hash ``leaf``, its place and audit path; ``None``: not logged.

        Against the latest checkpoint (cosigned if it is); the entry is read back from its
        bundle, so the answer is the log's own.
        """
        [index] = await self.store.leaf_indexes([leaf])
        if index is None:
            return None
        state = await self.store.log_state()
        if state.checkpoint is None or index >= state.size:
            return None
        [bundle] = await self.store.read_tiles([(ENTRIES, index // TILE_WIDTH)])
        entries = list(unpack_bundle(bundle or b""))
        if len(entries) <= index % TILE_WIDTH:
            return None
        entry = entries[index % TILE_WIDTH]
        if leaf_hash(entry) != leaf:  # another entry with the same 16 first bytes
            return None
        path = await self.tiles.inclusion(index, state.size)
        return LogProof(
            index=index,
            entry=_b64(entry),
            checkpoint=state.cosigned or state.checkpoint,
            proof=[_b64(node) for node in path],
        )


__all__ = ["Log"]
