"""The ``Idempotency-Key`` header: a POST resent with the same key gets its first answer.

The endpoints that honour one (opening a deal, entering a tournament, opening a round)
declare it with :data:`IdempotencyKey`, so it is checked and documented in one place.
A key is 16 to 200 visible ASCII characters (the SDK sends a UUID): a short key could be
guessed, and a guessed key would replay someone else's answer. Replays are honoured for
:data:`REPLAY_WINDOW` seconds (24 hours).
"""

from __future__ import annotations

from typing import Annotated, Final

from litestar.params import HeaderParameter

REPLAY_WINDOW: Final = 24 * 3600
"""Seconds a request resent with the same ``Idempotency-Key`` still gets its first answer."""
KEY_PATTERN: Final = r"^[\x21-\x7e]{16,200}$"
KEY_RULE: Final = "an Idempotency-Key is 16 to 200 visible ASCII characters (send a UUID)"

IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=16,
        max_length=200,
        pattern=KEY_PATTERN,
        description="16 to 200 visible ASCII characters, fresh for each request (a UUID): "
        "the same request resent with the same key within 24 hours gets its first answer.",
    ),
]
"""The header as a handler parameter: a key of another shape is a 400 naming it."""

__all__ = ["KEY_PATTERN", "KEY_RULE", "REPLAY_WINDOW", "IdempotencyKey"]
