"""What every ``cardproof`` subcommand shares: the server setting, exit codes, argument types.

Kept free of the SDK's heavier modules, so that building the parser (``cardproof --help``)
imports nothing but the standard library.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import stat
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

SIGNATURE_ONLY: Final = 3
"""``cardproof verify``'s exit status when only the signature could be checked: not 0,
so ``cardproof verify r.jws && accept`` never accepts an unreplayed receipt."""


URL_ENV = "CARDPROOF_URL"
"""The server every command that takes ``--url`` uses when ``--url`` is not given."""


def url_from_env() -> str | None:
    """``$CARDPROOF_URL`` if it is set (and not empty)."""
    return os.environ.get(URL_ENV) or None


def needs_service(command: str) -> int:  # pragma: no cover - depends on the install
    """Say that ``cardproof COMMAND`` without ``--url`` needs the service extra; exit 2."""
    print(
        f"cardproof {command} without --url runs an embedded server, which needs the "
        "service extra: pip install 'cardproof[service]'",
        file=sys.stderr,
    )
    return 2


def json_object(text: str) -> dict[str, Any]:
    """An ``--options`` value: a JSON object, like ``{"levels": 5}``."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("a JSON object is needed, like '{\"version\": 2}'")
    return value


RELATIVE_TIMES: Final = (
    "now, +2h, +30m, +1d, +1h30m (from now; units w d h m s, each once, largest first), "
    "tomorrow (00:00 local time "
    "tomorrow) or tomorrow+18h (18:00 local time tomorrow)"
)
"""The relative forms :func:`moment_arg` takes, as its help and its errors say them."""
_RELATIVE: Final = re.compile(
    r"(now|tomorrow)?((?:\+(?=[0-9])(?:[0-9]{1,6}w)?(?:[0-9]{1,6}d)?(?:[0-9]{1,6}h)?"
    r"(?:[0-9]{1,6}m)?(?:[0-9]{1,6}s)?)?)"
)
"""``now`` or ``tomorrow``, then each unit once at most, largest first (``+1d2h30m``)."""
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def moment_arg(text: str) -> datetime:
    """A ``--opens``/``--closes``/``--round-starts`` time: ISO 8601 with a zone, or relative.

    ``now``; ``+2h``, ``+30m``, ``+1d`` (units ``s m h d w``, each once, largest first,
    summed: ``+1h30m``) from now;
    ``tomorrow``: 00:00 tomorrow in the local time zone, and ``tomorrow+18h``: 18:00
    local time tomorrow (wall-clock time, so a change to or from summer time that night
    does not shift it).
    """
    relative = _RELATIVE.fullmatch(text.strip().lower())
    if relative is not None and text.strip():
        base, offsets = relative.groups()
        seconds = sum(
            int(amount) * _UNITS[unit] for amount, unit in re.findall(r"([0-9]+)([smhdw])", offsets)
        )
        try:
            if base == "tomorrow":  # a naive local wall-clock time, then its zone that day
                midnight = datetime.combine(date.today() + timedelta(days=1), datetime.min.time())
                return (midnight + timedelta(seconds=seconds)).astimezone()
            return datetime.now(UTC) + timedelta(seconds=seconds)
        except (OverflowError, ValueError):
            raise argparse.ArgumentTypeError(f"{json.dumps(text)} is past the year 9999") from None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{json.dumps(text)} is not a time: give ISO 8601 with a time zone, like "
            f"2030-12-31T18:00:00Z, or {RELATIVE_TIMES}"
        ) from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{json.dumps(text)} needs a time zone, like Z or +02:00")
    return value


def moments_arg(text: str) -> list[datetime]:
    """A ``--round-starts`` value: times (as :func:`moment_arg` reads them), comma-separated."""
    parts = [part.strip() for part in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"{json.dumps(text)}: an empty time between commas")
    return [moment_arg(part) for part in parts]


ENTRIES_DIR_NAME: Final = "cardproof/entries"
"""Where entry files go under the user's state directory."""


def entries_dir() -> Path:
    """Where ``cardproof tournament enter`` keeps entries (their tokens): per user, private.

    ``$XDG_STATE_HOME/cardproof/entries`` (an absolute ``XDG_STATE_HOME`` only, as the XDG
    base directory spec says), else ``~/.local/state/cardproof/entries``.
    """
    state = os.environ.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / ENTRIES_DIR_NAME


def entry_file_name(tournament_id: str) -> str:
    """``cardproof-entry-ID.json``, the id made safe for a file name."""
    return f"cardproof-entry-{re.sub(r'[^A-Za-z0-9_-]', '_', tournament_id)[:64]}.json"


def private_entries_dir() -> Path:
    """:func:`entries_dir`, made if need be; it and its ``cardproof`` parent are mode 0700.

    The files hold bearer tokens: nobody but their owner lists or reads them. A folder
    made here is 0700 whatever the umask (the XDG spec asks it of a base directory too);
    ``cardproof`` and ``entries`` must be real folders of this user, not symlinks, so
    that nobody can point the tokens elsewhere or take them from a folder they own.
    """
    entries = entries_dir()
    missing = [folder for folder in (entries, *entries.parents) if not folder.exists()]
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o700)
            os.chmod(folder, 0o700)  # a umask may have taken the owner's bits off too
    for folder in (entries.parent, entries):
        _check_private(folder, directory=True)
        if folder.stat().st_mode & 0o077:
            folder.chmod(0o700)
    return entries


def _check_private(path: Path, *, directory: bool) -> None:
    """Refuse (``ValueError``) a symlink, another user's file, or one others may write."""
    info = path.lstat()
    kind = "folder" if directory else "file"
    if stat.S_ISLNK(info.st_mode):
        raise ValueError(f"{path} is a symlink: an entry {kind} must be a real one")
    if (stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)) is False:
        raise ValueError(f"{path} is not a {kind}")
    if info.st_uid != os.getuid():
        raise ValueError(f"{path} belongs to another user: an entry {kind} must be yours")
    if not directory and info.st_mode & 0o022:
        raise ValueError(
            f"{path} may be changed by others (mode {stat.S_IMODE(info.st_mode):04o}): "
            "an entry file must be writable by you alone (chmod 600)"
        )


def read_entry_file(path: Path) -> bytes:
    """An entry file's bytes, if it is this user's own regular file that only they may write.

    Another user could otherwise plant an entry (their token) for ``cardproof play`` to
    take a seat with, in a shared working directory.
    """
    _check_private(path, directory=False)
    return path.read_bytes()


def entry_path(entry_file: str | None, tournament_id: str, command: str) -> Path:
    """The entry of ``tournament_id``: ``--entry-file``, else where ``tournament enter`` puts it.

    That is :func:`entries_dir`. An entry written by an older ``cardproof`` to the working
    directory is used when there is none there, and said so on stderr (it is better moved).
    """
    if entry_file:
        return Path(entry_file)
    name = entry_file_name(tournament_id)
    path = entries_dir() / name
    if not path.exists() and Path(name).is_file():
        print(
            f"{command}: using the entry in ./{name} (cardproof tournament enter now "
            f"keeps entries in {entries_dir()}; move it there, mode 0600)",
            file=sys.stderr,
        )
        return Path(name)
    return path


def entry_token(path: Path, tournament_id: str) -> str:
    """The token of the entry file ``path``, which must be an entry of ``tournament_id``.

    Raises ``OSError`` (no such file, or one :func:`read_entry_file` refuses: ``ValueError``)
    or ``ValueError`` (not an entry of this tournament).
    """
    entry = json.loads(read_entry_file(path))
    token = entry.get("token") if isinstance(entry, dict) else None
    if not isinstance(token, str) or entry.get("tournament_id") != tournament_id:
        raise ValueError("not an entry of this tournament")
    return token


def own_entry(entry_file: str | None, tournament_id: str, command: str) -> tuple[Path, str | None]:
    """The entry a command reads a tournament with, if the player has one: its path and token.

    A missing file is no entry (``None``); a file that cannot be used is said on stderr,
    and is no entry either. ``--entry-file`` must name a usable one (``ValueError``).
    """
    path = entry_path(entry_file, tournament_id, command)
    try:
        return path, entry_token(path, tournament_id)
    except FileNotFoundError:
        if entry_file:
            raise ValueError(f"no entry file {path}") from None
        return path, None
    except (OSError, ValueError) as error:
        if entry_file:
            raise ValueError(f"cannot use the entry in {path}: {error}") from None
        print(f"{command}: not using the entry in {path}: {error}", file=sys.stderr)
        return path, None
