"""The embedded store: one process, state in dicts, expiry on read.

Organizers are the one thing that must outlive the process and be added from outside
it (``cardproof keys organizer create``): they live in a JSON file (only hashes), which
the store reads again whenever it has changed.

The store is one object made of parts, one per kind of record, each with its own
dicts, on core.py: deals.py, moves.py, tournaments.py, organizers.py, rounds.py,
limits.py and log.py (the transparency log's pool, tiles and checkpoint).
"""

from __future__ import annotations

from cardproof_service.store.memory.moves import MemoryMoves
from cardproof_service.store.memory.organizers import MemoryOrganizers


class MemoryStore(MemoryMoves, MemoryOrganizers):
    """A store for a single process (``cardproof serve`` without ``REDIS_URL``).

    Each step runs without an ``await`` inside it, so it is atomic on the event loop.
    Moves stand on deals and the log, deals on rounds and limits, rounds on tournaments.
    """

    name = "memory"


__all__ = ["MemoryStore"]
