"""What every part of the memory store stands on: its settings, its clock, ping and close.

The memory store is one object made of parts, one per kind of record (deals, moves,
tournaments, organizers, rounds, limits), each keeping its own dicts. Each step runs
without an ``await`` inside it, so it is atomic on the event loop, whichever parts'
dicts it reads and writes.
"""

from __future__ import annotations

import time
from pathlib import Path


def now_ms() -> int:
    """The clock of lockstep rounds: milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class MemoryCore:
    """The base of every part: each part's ``__init__`` passes the settings on to it."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """Nothing kept here: organizers.py keeps ``organizers_file``."""

    async def ping(self) -> None:
        """Always answers."""

    async def close(self) -> None:
        """Nothing to release."""
