"""The transparency log: every result the service vouches for, in an append-only tree.

It keeps every receipt the service signs, every tournament round's seed commitment and
reveal, and every settlement. Entries wait in the store's pool: a receipt's is pooled in
the step that stores it, a round's commitment before its tournament is created, its
reveal and the settlement by the sequencer once the tournament has closed
(:class:`~.sequencer.Due`). One replica at a time folds them into the tree twice a second
(:mod:`.sequencer`), reading the tree's edge through a small cache of tiles
(:mod:`.tiles`); :mod:`.service` serves the checkpoint, the tiles and the log's key, and
proves a receipt's place. The formats are C2SP's (tlog-tiles, tlog-checkpoint,
signed-note), made by :mod:`cardproof.tlog`; docs/protocol.md section 7 says what each
holds.
"""

from cardproof_service.log.sequencer import Due
from cardproof_service.log.service import Log

__all__ = ["Due", "Log"]
