"""``cardproof log check``: monitor a service's transparency log (:mod:`cardproof.tlog.monitor`).

The log's key is ``--key``, else the one the service answered the first time (trusted on
first use, and kept): a later answer of another key, or of a key of another name at the
same URL, is refused (``key-changed``) unless ``--key`` names the one to trust. What was
verified is kept per log under ``$XDG_STATE_HOME/cardproof/logs/`` (``--state``),
written only once a check passed, so the next check reads only the new entries (and
``--sample`` old bundles at random; ``--full``: every entry again) and proves the log
still extends what was seen. A check holds an exclusive lock on its log's state file (a
``.lock`` file beside it) from before it reads the state to after it writes it, so two
checks of one log never interleave. ``--deep`` also asks the service about each new
entry's game or tournament. Exit status: 0 the log checks out; 1 a check failed
(printed: which, and where); 2 bad arguments, the service could not be read, or another
check of the log held its state.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from cardproof.errors import (
    AnswerTooLargeError,
    APIError,
    CardproofError,
    ForbiddenError,
    NotFoundError,
    UnauthorizedError,
)
from cardproof.receipts import CommitmentMismatchError, ReceiptError
from cardproof.tlog.entries import (
    Entry,
    EntryError,
    ReceiptEntry,
    RoundCommitment,
    Settlement,
    receipt_digest,
    receipt_entry,
    settlement_entry,
)
from cardproof.tlog.monitor import SAMPLE, Checked, Fetch, Monitor, MonitorError, Seen
from cardproof.tlog.note import COSIGNATURE_V1, NoteError, Verifier
from cardproof.tlog.tiles import MAX_ENTRY, TILE_WIDTH
from cardproof.words import plural

if TYPE_CHECKING:
    import httpx

    from cardproof.client import Client
    from cardproof.models import Tournament

TIMEOUT: Final = 30.0
"""Seconds a request to the service may take (each try)."""
LARGEST: Final = max(64 * 1024, TILE_WIDTH * (2 + MAX_ENTRY))
"""The most bytes read of one answer: a bundle of 256 of the longest entries a bundle carries."""
NOT_SHOWN: Final = (NotFoundError, UnauthorizedError, ForbiddenError)
"""The service no longer keeps it (404), or shows it only to its players (401, 403)."""
LOCK_WAIT: Final = 5.0
"""Seconds a check waits for another check of the same log to let go of its state."""


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


def check(args: argparse.Namespace) -> int:
    """``log check``: verify the log at ``--url`` against what was seen of it before."""
    import httpx

    from cardproof.client import Client
    from cardproof.progress import bar
    from cardproof.transport import bounded_transport

    base = args.url.rstrip("/")
    folder = Path(args.state) if args.state else default_state()
    try:
        witnesses = list(dict.fromkeys(Verifier.parse(vkey) for vkey in args.witness or ()))
        pinned = Verifier.parse(args.key) if args.key else None
    except NoteError as error:
        return _fail(f"cardproof log check: {error}")
    if any(witness.kind != COSIGNATURE_V1 for witness in witnesses):
        return _fail("cardproof log check: a --witness key is a cosignature/v1 key (type 0x04)")
    quorum = len(witnesses) if args.quorum is None else args.quorum
    if not 0 <= quorum <= len(witnesses):
        return _fail(f"cardproof log check: --quorum {quorum} of {len(witnesses)} --witness")
    sample = SAMPLE if args.sample is None else args.sample
    if sample < 0:
        return _fail(f"cardproof log check: --sample {sample}: 0 or more bundles")
    timeout = httpx.Timeout(TIMEOUT, connect=10)
    with (
        httpx.Client(timeout=timeout, follow_redirects=True, transport=bounded_transport()) as http,
        contextlib.ExitStack() as held,
    ):
        fetch = _fetcher(http, base)
        try:
            key = _key(fetch, pinned)
            path = state_file(folder, key.name)
            held.enter_context(_locked(path))  # until what was seen is kept
            seen = _trust(key, path, folder, base, pinned)
            client = Client(base_url=base, timeout=TIMEOUT, http_client=http)
            deep = _Deep(client) if args.deep else None
            monitor = Monitor(fetch, key, witnesses, quorum)
            with bar(None, f"reading {key.name}", unit="entry") as drawn:
                found = monitor.check(seen, drawn.at, deep, sample=sample, full=args.full)
        except MonitorError as error:
            if error.code in ("unreadable", "locked"):
                return _fail(f"cardproof log check: {error.message}")
            return _fail(f"LOG CHECK FAILED ({error.code}): {error.message}", 1)
        except (CardproofError, httpx.HTTPError, httpx.InvalidURL) as error:
            return _fail(f"cardproof log check: cannot read {base}: {error}")
        try:
            _save(path, msgspec.structs.replace(found.seen, url=base))
        except OSError as error:
            return _fail(
                f"cardproof log check: the log checks out, but {path} cannot be kept: {error}"
            )
    print(_summary(found, len(witnesses)) + (deep.summary() if deep else ""))
    return 0


def _fail(message: str, status: int = 2) -> int:
    print(message, file=sys.stderr)
    return status


def _fetcher(http: httpx.Client, base: str) -> Fetch:
    """Reads the log's paths, a failing try tried again as the SDK's client does.

    A tile the log does not serve (404) is ``bad-tile``; an answer it cannot give now
    (other statuses, once the tries are spent) is ``unreadable``, and so is an answer
    larger than :data:`LARGEST`.
    """
    from cardproof.core import RequestCore
    from cardproof.transport import exchange

    retries = RequestCore(
        base_url=base, api_key=None, timeout=TIMEOUT, max_retries=3, backoff=0.5, max_backoff=10
    )

    def fetch(path: str) -> bytes:
        url = f"{base}/log/{path}"
        try:
            return exchange(
                http,
                lambda: http.build_request("GET", url),
                retries,
                limit=LARGEST,
                seconds=TIMEOUT,
                answer=functools.partial(_answer, path=path),
            )
        except AnswerTooLargeError as error:
            raise MonitorError("unreadable", str(error)) from None

    return fetch


def _answer(answer: httpx.Response, body: bytes, path: str) -> bytes:
    """The body of a final answer to a read of ``path``, or the :class:`MonitorError` it is."""
    url = answer.request.url
    if answer.status_code == 200:
        return body
    said = f"GET {url}: {answer.status_code} {body[:200]!r}"
    if answer.status_code == 404 and path.startswith("tile/"):
        raise MonitorError("bad-tile", f"{said} (the log does not serve it)")
    raise MonitorError("unreadable", said)


def _key(fetch: Fetch, pinned: Verifier | None) -> Verifier:
    """The log's key: ``pinned`` (``--key``), else the one the service answers."""
    if pinned is not None:
        return pinned
    answered = fetch("key").decode("utf-8", "replace").strip()
    try:
        return Verifier.parse(answered)
    except NoteError as error:
        raise MonitorError("bad-key", f"the log's key: {error}") from None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the state file ``path`` (``flock`` on ``path`` + ``.lock``).

    Another check of the same log holding it is waited for :data:`LOCK_WAIT` seconds,
    then ``locked``: two checks would otherwise both read the state, and the one that
    saves last would undo what the other kept. The lock file is left in place (removing
    it would let a third check lock a new file while the second holds the old one).
    """
    try:
        import fcntl
    except ImportError:
        raise MonitorError(
            "locked", f"cannot lock {path}: no file locks here (fcntl: POSIX only)"
        ) from None
    lock = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise MonitorError("locked", f"cannot lock {path}: {error}") from None
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise MonitorError(
                        "locked",
                        f"another `cardproof log check` of this log is running ({path})",
                    ) from None
                time.sleep(0.05)
            except OSError as error:
                raise MonitorError("locked", f"cannot lock {path}: {error}") from None
        yield
    finally:
        os.close(handle)  # and the lock with it


def _trust(
    key: Verifier, path: Path, folder: Path, base: str, pinned: Verifier | None
) -> Seen | None:
    """What was seen of the log of ``key`` (kept in ``path``), its key checked.

    ``pinned`` (``--key``) is trusted whatever was seen; else the key the service
    answers, which must be the one seen before of its log, and, for a log first seen,
    not another than the one last seen at ``base`` (``key-changed``).
    """
    seen = _load(path)
    before = seen if seen is not None else _seen_at(folder, base)
    if before is not None and before.vkey != key.vkey:
        if pinned is None:
            raise MonitorError(
                "key-changed",
                f"{base} answers the log key {key.vkey}; the log seen there was signed by "
                f"{before.vkey} (pass --key with the key to trust, or remove "
                f"{state_file(folder, before.origin)})",
            )
        print(f"the log's key is {key.vkey} (--key); it was {before.vkey}", file=sys.stderr)
    if before is None and pinned is None:
        print(f"trusting the log key {key.vkey} on first use (to keep in {path})", file=sys.stderr)
    return seen


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


def _seen_at(folder: Path, base: str) -> Seen | None:
    """The log last seen at ``base`` (of any origin), if any."""
    found: list[Seen] = []
    for path in folder.glob("*.json") if folder.is_dir() else ():
        with contextlib.suppress(OSError, msgspec.DecodeError, msgspec.ValidationError):
            seen = msgspec.json.decode(path.read_bytes(), type=Seen)
            if seen.url == base:
                found.append(seen)
    return max(found, key=lambda seen: seen.size, default=None)


def _save(path: Path, seen: Seen) -> None:
    """Write ``seen`` to a new file, synced, then put it in place of the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=".log-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(msgspec.json.encode(seen))
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError):  # the rename, kept (not on every system)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


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
        if found.full:
            line += " (all re-read)"
        elif found.resampled:
            line += f" (re-read {plural(found.resampled, 'old bundle')})"
    if witnesses:
        line += f"; {len(found.cosigned)} of {witnesses} witnesses cosigned"
    if found.unchecked:
        line += f"; also signed by {', '.join(found.unchecked)} (not checked: no --witness)"
    return line


class _Deep:
    """``--deep``: each new entry held against the service as it is read.

    A receipt entry's deal must answer the very receipt it names, saying what the entry
    says (and placing it where the log does); a round's commitment and reveal must be the
    tournament's; a settlement the digest of the settlement its standings make. What the
    service no longer keeps, or shows only to its players (a tournament game's receipt,
    an invite-only tournament), is counted, not failed; a disagreement is ``bad-game``.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.compared = self.unshown = 0
        self.tournament = functools.lru_cache(maxsize=256)(self._tournament)

    def __call__(self, index: int, entry: Entry) -> None:
        """Hold one entry against the service."""
        try:
            said = self._disagreement(index, entry)
        except NOT_SHOWN:
            self.unshown += 1
            return
        except CommitmentMismatchError as error:
            said = f"the service's tournament {getattr(entry, 'tournament', '')}: {error}"
        if said is None:
            self.unshown += 1
        elif said:
            raise MonitorError("bad-game", f"entry {index}: {said}")
        else:
            self.compared += 1

    def summary(self) -> str:
        """What the deep check found, for the summary line."""
        return f"; deep: {self.compared} compared with the service, {self.unshown} not shown"

    def _tournament(self, tournament_id: str) -> Tournament | None:
        try:
            return self.client.tournament(tournament_id)
        except NOT_SHOWN:
            return None

    def _disagreement(self, index: int, entry: Entry) -> str | None:
        """What the service says otherwise than ``entry`` ('' nothing; ``None`` not shown)."""
        if isinstance(entry, ReceiptEntry):
            return None if entry.tournament is not None else self._receipt(index, entry)
        shown = self.tournament(entry.tournament)
        if shown is None:
            return None
        where = f"tournament {entry.tournament}"
        if isinstance(entry, Settlement):
            standings = self.client.settlement(entry.tournament).standings
            totals = {line.name: line.total for line in standings}
            if settlement_entry(entry.tournament, totals) != entry:
                return f"{where}'s settlement is not the one logged"
            return ""
        rounds = {r.round: r for r in shown.rounds}
        round_ = rounds.get(entry.round)
        if round_ is None:
            return f"{where} has no round {entry.round}"
        if isinstance(entry, RoundCommitment):
            if round_.server_seed_hash != entry.server_seed_hash:
                return f"round {entry.round} of {where} commits to another seed hash"
            return ""
        if round_.server_seed is None:
            return None
        if round_.server_seed != entry.server_seed:
            return f"round {entry.round} of {where} reveals another seed"
        return ""

    def _receipt(self, index: int, entry: ReceiptEntry) -> str:
        """What the service's receipt of the entry's deal says otherwise than the entry."""
        try:
            answer = self.client.receipt(entry.deal)
        except APIError as error:
            if isinstance(error, NOT_SHOWN) or error.status >= 500 or error.status == 429:
                raise
            return f"deal {entry.deal} has no receipt at the service ({error})"
        if receipt_digest(answer.receipt.strip()) != entry.receipt:
            return f"deal {entry.deal}'s receipt at the service is not the one logged"
        try:
            said = receipt_entry(answer.receipt)
        except (ReceiptError, EntryError) as error:
            return f"deal {entry.deal}'s receipt is not one the log takes: {error}"
        if said != entry:
            return f"deal {entry.deal}'s receipt says otherwise than its entry"
        if answer.log is not None and answer.log.index != index:
            return f"deal {entry.deal}'s receipt is at index {answer.log.index}, says the service"
        return ""


__all__ = ["check", "default_state", "state_file"]
