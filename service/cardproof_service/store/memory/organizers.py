"""The memory store's organizers: the one thing kept outside the process.

Organizers must outlive the process and be added from outside it (``cardproof keys
organizer create``): they live in a JSON file (only hashes), which the store reads
again whenever it has changed.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from cardproof_service.store.memory.core import MemoryCore
from cardproof_service.store.records import OrganizerRecord

_ORGANIZERS = msgspec.json.Decoder(list[OrganizerRecord])


class MemoryOrganizers(MemoryCore):
    """Organizers, read from and written to ``organizers_file``."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """Organizers in ``organizers_file`` (none without one), not read yet."""
        super().__init__(organizers_file)
        self._organizers_file = organizers_file
        self._organizers: dict[str, OrganizerRecord] = {}
        self._organizers_seen: tuple[int, int] | None = None
        """(mtime in ns, size) of the organizers file when it was last read."""

    def _read_organizers(self) -> dict[str, OrganizerRecord]:
        """The organizers, read again from the file if it changed since the last read."""
        path = self._organizers_file
        if path is None:
            return self._organizers
        try:
            stat = path.stat()
        except FileNotFoundError:
            return self._organizers
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._organizers_seen:
            records = _ORGANIZERS.decode(path.read_bytes()) if stat.st_size else []
            self._organizers = {record.organizer_id: record for record in records}
            self._organizers_seen = seen
        return self._organizers

    async def add_organizer(self, record: OrganizerRecord) -> bool:
        """Add to the file (written whole, then renamed into place) and to memory."""
        organizers = self._read_organizers()
        if organizers.get(record.organizer_id) == record:
            return True  # the same organizer again
        if any(known.name == record.name for known in organizers.values()):
            return False
        organizers[record.organizer_id] = record
        path = self._organizers_file
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            draft = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            draft.write_bytes(msgspec.json.encode(sorted(organizers.values(), key=_by_name)))
            os.chmod(draft, 0o600)
            draft.replace(path)
            stat = path.stat()
            self._organizers_seen = (stat.st_mtime_ns, stat.st_size)
        return True

    async def get_organizer(self, organizer_id: str) -> OrganizerRecord | None:
        """The organizer, from the file as it is now."""
        return self._read_organizers().get(organizer_id)


def _by_name(record: OrganizerRecord) -> str:
    return record.name
