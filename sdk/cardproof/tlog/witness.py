"""A witness (C2SP tlog-witness): cosigns a log's checkpoint only if it extends what it saw.

For each log it trusts (by the log's verifier key; its origin is the key's name) the
witness keeps the size and root of the last checkpoint it cosigned, durably: a file
replaced atomically and synced before any cosignature leaves. ``add-checkpoint`` takes
the old size, a consistency proof from it and the new checkpoint, and answers as C2SP
says:

- 200 and a timestamped ``cosignature/v1`` line, once the checkpoint is signed by the
  log and proved to extend the recorded one (and recorded);
- 400 a body it cannot read, or an old size above the checkpoint's;
- 403 no valid signature of the log (or a bad one under the log's key);
- 404 a log it does not witness;
- 409 an old size other than the recorded one, with that size (``text/x.tlog.size``);
- 422 a proof that does not hold: a fork, a rewritten tree, an empty tree's wrong root
  (the empty tree, the witness's start, has the hash of the empty string as its root).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cardproof.tlog.note import Checkpoint, NoteError, Signer, Verifier, open_note, split_note
from cardproof.tlog.tree import EMPTY_ROOT, ProofError, check_consistency

MAX_BODY: Final = 64 * 1024
"""The largest ``add-checkpoint`` body a witness reads."""
MAX_PROOF: Final = 63
"""The most consistency proof lines a request may carry (C2SP)."""
SIZE_TYPE: Final = "text/x.tlog.size"


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, content type and body."""

    status: int
    content_type: str
    body: bytes


def _text(status: int, message: str) -> Answer:
    return Answer(status, "text/plain; charset=utf-8", (message + "\n").encode())


class Witness:
    """A witness of some logs, cosigning with ``signer`` (a ``cosignature/v1`` key)."""

    def __init__(
        self,
        signer: Signer,
        logs: Sequence[Verifier],
        state: Path,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Witness ``logs``, recording what it cosigned in the file ``state``."""
        self.signer = signer
        self.logs = {log.name: log for log in logs}
        self.state = state
        self.clock = clock
        self.lock = threading.Lock()
        self.seen: dict[str, tuple[int, bytes]] = {}
        if state.exists():
            try:
                kept = json.loads(state.read_text())
                for origin, head in kept["logs"].items():
                    self.seen[origin] = (int(head["size"]), base64.b64decode(head["root"]))
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                raise ValueError(f"{state} is not a witness's state file: {error!r}") from None

    def _save(self) -> None:
        """Write the record to a new file, sync it, and put it in place of the old one."""
        kept = {
            origin: {"size": size, "root": base64.b64encode(root).decode()}
            for origin, (size, root) in self.seen.items()
        }
        folder = self.state.parent
        handle, name = tempfile.mkstemp(dir=folder, prefix=".witness-")
        with os.fdopen(handle, "w") as out:
            json.dump({"logs": kept}, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, self.state)
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)

    def add_checkpoint(self, body: bytes) -> Answer:
        """Answer one ``POST /add-checkpoint``."""
        if len(body) > MAX_BODY:
            return _text(413, f"the body is over {MAX_BODY} bytes")
        try:
            old, proof, note = _read_request(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            return _text(400, str(error))
        try:
            checkpoint = Checkpoint.parse(split_note(note)[0])
        except NoteError as error:
            return _text(400, f"the checkpoint: {error}")
        log = self.logs.get(checkpoint.origin)
        if log is None:
            return _text(404, f"this witness does not witness {checkpoint.origin!r}")
        try:
            opened = open_note(note, [log])
        except NoteError as error:
            return _text(403, f"the checkpoint is not the log's: {error}")
        checkpoint = Checkpoint.parse(opened.text)
        if old > checkpoint.size:
            return _text(400, f"old size {old} is above the checkpoint's {checkpoint.size}")
        with self.lock:
            size, root = self.seen.get(checkpoint.origin, (0, EMPTY_ROOT))
            if old != size:
                return Answer(409, SIZE_TYPE, f"{size}\n".encode())
            try:
                check_consistency(size, checkpoint.size, root, checkpoint.root, proof)
            except ProofError as error:
                return _text(422, f"the checkpoint does not extend the last cosigned: {error}")
            self.seen[checkpoint.origin] = (checkpoint.size, checkpoint.root)
            self._save()
        line = self.signer.signature_line(opened.text, int(self.clock()))
        return Answer(200, "text/plain; charset=utf-8", line.encode())


def _read_request(body: str) -> tuple[int, list[bytes], str]:
    """The old size, the proof and the checkpoint note of an ``add-checkpoint`` body."""
    head, blank, note = body.partition("\n\n")
    if not blank:
        raise ValueError("the body is an old size line, proof lines, a blank line, a note")
    lines = head.split("\n")
    found = re.fullmatch(r"old (0|[1-9][0-9]{0,19})", lines[0])
    if found is None:
        raise ValueError("the first line is 'old <size>'")
    if len(lines) - 1 > MAX_PROOF:
        raise ValueError(f"at most {MAX_PROOF} consistency proof lines")
    proof = []
    for line in lines[1:]:
        try:
            node = base64.b64decode(line, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"a proof line is a base64 hash: {line[:60]!r}") from None
        if len(node) != 32:
            raise ValueError("a proof line is a 32-byte hash")
        proof.append(node)
    return int(found[1]), proof, note


def request_body(old: int, proof: Sequence[bytes], note: str) -> bytes:
    """The ``add-checkpoint`` body a log sends: old size, proof lines, blank, the note."""
    lines = [f"old {old}", *(base64.b64encode(node).decode() for node in proof)]
    return ("\n".join(lines) + "\n\n" + note).encode()


__all__ = ["MAX_BODY", "MAX_PROOF", "SIZE_TYPE", "Answer", "Witness", "request_body"]
