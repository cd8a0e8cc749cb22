"""The transparency log: every receipt the service signs, in an append-only tree.

Entries wait in the store's pool (a receipt's is pooled in the step that stores it);
one replica at a time folds them into the tree once a second (:mod:`.sequencer`),
reading the tree's edge through a small cache of tiles (:mod:`.tiles`); :mod:`.service`
serves the checkpoint, the tiles and the log's key, and proves a receipt's place. The
formats are C2SP's (tlog-tiles, tlog-checkpoint, signed-note), made by
:mod:`cardproof.tlog`; docs/protocol.md section 7 says what each holds.
"""

from cardproof_service.log.service import Log

__all__ = ["Log"]
