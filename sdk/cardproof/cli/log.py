"""``cardproof log check``: monitor a service's transparency log (:mod:`cardproof.tlog.monitor`).

The log's key is ``--key``, else the one the service answered the first time (kept, and
any other key later refused). What was verified is kept per log under
``$XDG_STATE_HOME/cardproof/logs/`` (``--state``), written only once a check passed, so
the next check reads only the new entries and proves the log still extends what was
seen. ``--deep`` also asks the service about each new entry's game or tournament.
Exit status: 0 the log checks out; 1 a check failed (printed: which, and where); 2 bad
arguments, or the service could not be read.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from cardproof.tlog.entries import (
    Entry,
    ReceiptEntry,
    RoundCommitment,
    RoundReveal,
    Settlement,
    receipt_digest,
    receipt_entry,
    settlement_entry,
)
from cardproof.tlog.monitor import Checked, Monitor, MonitorError, Seen
from cardproof.tlog.note import NoteError, Verifier
from cardproof.words import plural

if TYPE_CHECKING:
    import httpx


def default_state() -> Path:
    """``$XDG_STATE_HOME/cardproof/logs`` (an absolute one), else under ``~/.local/state``."""
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "cardproof" / "logs"


def state_file(folder: Path, origin: str) -> Path:
    """Where what was seen of the log ``origin`` is kept: a name made from the origin.

    >>> state_file(Path("s"), "cards.example.org/log").name[:22]
    'cards.example.org_log-'
    """
    readable = re.sub(r"[^A-Za-z0-9._-]", "_", origin)[:80]
    return folder / f"{readable}-{hashlib.sha256(origin.encode()).hexdigest()[:8]}.json"


def _save(path: Path, seen: Seen) -> None:
    """Write ``seen`` to a new file, synced, then put it in place of the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=".log-")
    with os.fdopen(handle, "wb") as out:
        out.write(msgspec.json.encode(seen))
        out.flush()
        os.fsync(out.fileno())
    os.replace(name, path)


def check(args: argparse.Namespace) -> int:
    """``log check``: verify the log at ``--url`` against what was seen of it before."""
    import httpx

    base = args.url.rstrip("/")
    folder = Path(args.state) if args.state else default_state()
    try:
        witnesses = [Verifier.parse(vkey) for vkey in args.witness or ()]
        quorum = len(witnesses) if args.quorum is None else args.quorum
        pinned = Verifier.parse(args.key) if args.key else None
    except NoteError as error:
        print(f"cardproof log check: {error}", file=sys.stderr)
        return 2
    with httpx.Client(timeout=30, follow_redirects=False) as client:

        def fetch(path: str) -> bytes:
            answer = client.get(f"{base}/log/{path}")
            if answer.status_code != 200:
                raise MonitorError(
                    "bad-tile" if path.startswith("tile/") else "unreadable",
                    f"GET {base}/log/{path}: {answer.status_code} {answer.text[:200]!r}",
                )
            return answer.content

        try:
            served = Verifier.parse(fetch("key").decode().strip())
            key = pinned or served
            path = state_file(folder, key.name)
            seen = _load(path)
            if seen is not None and seen.vkey != key.vkey:
                raise MonitorError(
                    "key-changed",
                    f"the log {key.name} was signed by {seen.vkey} when last checked; now "
                    f"{key.vkey} (pass --key to say which to trust)",
                )
            if seen is None and pinned is None:
                print(f"trusting the log key {key.vkey} on first use", file=sys.stderr)
            monitor = Monitor(fetch, key, witnesses, quorum)
            from cardproof.progress import bar

            with bar(None, f"reading {key.name}", unit="entry") as drawn:
                found = monitor.check(seen, drawn.at, keep=args.deep)
            deep = _deep(client, base, found) if args.deep else ""
        except MonitorError as error:
            if error.code == "unreadable":
                print(f"cardproof log check: {error.message}", file=sys.stderr)
                return 2
            print(f"LOG CHECK FAILED ({error.code}): {error.message}", file=sys.stderr)
            return 1
        except (httpx.HTTPError, NoteError, ValueError) as error:
            print(f"cardproof log check: cannot read {base}: {error}", file=sys.stderr)
            return 2
    _save(path, found.seen)
    print(_summary(found, len(witnesses)) + deep)
    return 0


def _load(path: Path) -> Seen | None:
    """What was seen of a log, if it was checked before (``MonitorError``: an unreadable file)."""
    if not path.exists():
        return None
    try:
        return msgspec.json.decode(path.read_bytes(), type=Seen)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as error:
        raise MonitorError(
            "unreadable", f"{path} is not what a check of the log kept: {error}"
        ) from None


def _summary(found: Checked, witnesses: int) -> str:
    """The line a passed check prints."""
    seen = found.seen
    new = seen.size - found.old_size
    line = f"log {seen.origin}: {plural(seen.size, 'entry', 'entries')} ({new} new"
    if new:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(found.kinds.items()))
        line += f": {kinds}"
    line += ")"
    if found.old_size:
        line += f", consistent with the {found.old_size} seen before"
    if witnesses:
        line += f"; {len(found.cosigned)} of {witnesses} witnesses cosigned"
    elif found.cosigned:
        line += f"; cosigned by {', '.join(found.cosigned)}"
    return line


def _deep(client: httpx.Client, base: str, found: Checked) -> str:
    """Each new entry held against the service: its receipt, its tournament's seeds, totals.

    Entries whose game or tournament the service no longer shows (or only to its players)
    are counted, not failed. ``MonitorError`` (``bad-game``) for a mismatch.
    """
    compared = unread = 0
    tournaments: dict[str, dict[str, Any] | None] = {}

    def tournament(tid: str) -> dict[str, Any] | None:
        if tid not in tournaments:
            answer = client.get(f"{base}/v1/tournaments/{tid}")
            tournaments[tid] = answer.json() if answer.status_code == 200 else None
        return tournaments[tid]

    for index, entry in found.entries:
        said = _deep_one(client, base, entry, tournament)
        if said is None:
            unread += 1
        elif said:
            raise MonitorError("bad-game", f"entry {index}: {said}")
        else:
            compared += 1
    return f"; deep: {compared} compared with the service, {unread} it no longer shows"


def _deep_one(
    client: httpx.Client,
    base: str,
    entry: Entry,
    tournament: Callable[[str], dict[str, Any] | None],
) -> str | None:
    """What is wrong with one entry by the service ('' nothing; ``None``: not shown)."""
    if isinstance(entry, ReceiptEntry):
        if entry.tournament is not None:
            return None  # a tournament game's receipt: its entrant's to read
        answer = client.get(f"{base}/v1/deals/{entry.deal}/receipt")
        if answer.status_code != 200:
            return None
        token = str(answer.json()["receipt"])
        if receipt_digest(token) != entry.receipt:
            return f"deal {entry.deal}'s receipt at the service is not the one logged"
        if receipt_entry(token) != entry:
            return f"deal {entry.deal}'s receipt says other than its entry"
        return ""
    shown = tournament(entry.tournament)
    if shown is None:
        return None
    if isinstance(entry, (RoundCommitment, RoundReveal)):
        rounds = {r["round"]: r for r in shown.get("rounds", [])}
        commitment = rounds.get(entry.round)
        if commitment is None:
            return f"tournament {entry.tournament} has no round {entry.round}"
        if isinstance(entry, RoundCommitment):
            if commitment["server_seed_hash"] != entry.server_seed_hash:
                return f"round {entry.round} of {entry.tournament}: another seed hash"
            return ""
        if commitment.get("server_seed") not in (None, entry.server_seed):
            return f"round {entry.round} of {entry.tournament}: another seed revealed"
        return "" if commitment.get("server_seed") else None
    if isinstance(entry, Settlement):
        answer = client.get(f"{base}/v1/tournaments/{entry.tournament}/settlement")
        if answer.status_code != 200:
            return None
        totals = {line["name"]: line["total"] for line in answer.json()["standings"]}
        if settlement_entry(entry.tournament, totals) != entry:
            return f"tournament {entry.tournament}'s settlement is not the one logged"
        return ""
    return None


__all__ = ["check", "default_state", "state_file"]
