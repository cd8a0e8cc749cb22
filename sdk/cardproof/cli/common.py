"""What every ``cardproof`` subcommand shares: the server setting, exit codes, argument types.

Kept free of the SDK's heavier modules, so that building the parser (``cardproof --help``)
imports nothing but the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
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


def moment_arg(text: str) -> datetime:
    """A ``--opens``/``--closes`` value: ISO 8601 with a time zone, or ``now``."""
    if text == "now":
        return datetime.now(UTC)
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} needs a time zone, like Z or +02:00")
    return value
