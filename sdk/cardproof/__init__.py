"""cardproof: committed deals, rules checking and verified scores for poker solitaires.

The rules engine (``cards``, ``hands``, ``deal``, ``games``, ``solvers``) is pure
Python; ``Client`` and ``AsyncClient`` talk to a cardproof server.

Each name below is imported on first use (PEP 562), so ``import cardproof``, and the
``cardproof`` command that starts with it, load neither the HTTP client nor the rules
engine until they are needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cardproof.version import VERSION

__version__ = VERSION

if TYPE_CHECKING:
    from cardproof.cards import Card
    from cardproof.client import AsyncClient, AsyncGame, AsyncRound, Client, Game, Round
    from cardproof.errors import (
        AnswerTooLargeError,
        APIError,
        BadRequestError,
        CardproofError,
        ConflictError,
        ForbiddenError,
        IllegalMove,
        IllegalMoveError,
        MalformedAnswerError,
        NotFoundError,
        ParseError,
        PayloadTooLargeError,
        RateLimitedError,
        RuleError,
        ServerError,
        ServiceExtraMissingError,
        TransportError,
        UnauthorizedError,
        UnprocessableError,
    )
    from cardproof.games import VARIANTS, variant
    from cardproof.hands import TABLES, Category, PointTable, Score
    from cardproof.receipts import (
        CommitmentMismatchError,
        Expected,
        ReceiptError,
        ReceiptKind,
        verify_receipt,
    )

_HOMES: dict[str, str] = {
    "APIError": "cardproof.errors",
    "AnswerTooLargeError": "cardproof.errors",
    "AsyncClient": "cardproof.client",
    "AsyncGame": "cardproof.client",
    "AsyncRound": "cardproof.client",
    "BadRequestError": "cardproof.errors",
    "Card": "cardproof.cards",
    "CardproofError": "cardproof.errors",
    "Category": "cardproof.hands",
    "Client": "cardproof.client",
    "CommitmentMismatchError": "cardproof.receipts",
    "ConflictError": "cardproof.errors",
    "Expected": "cardproof.receipts",
    "ForbiddenError": "cardproof.errors",
    "Game": "cardproof.client",
    "IllegalMove": "cardproof.errors",
    "IllegalMoveError": "cardproof.errors",
    "MalformedAnswerError": "cardproof.errors",
    "NotFoundError": "cardproof.errors",
    "ParseError": "cardproof.errors",
    "PayloadTooLargeError": "cardproof.errors",
    "PointTable": "cardproof.hands",
    "RateLimitedError": "cardproof.errors",
    "ReceiptError": "cardproof.receipts",
    "ReceiptKind": "cardproof.receipts",
    "Round": "cardproof.client",
    "RuleError": "cardproof.errors",
    "ServiceExtraMissingError": "cardproof.errors",
    "Score": "cardproof.hands",
    "ServerError": "cardproof.errors",
    "TABLES": "cardproof.hands",
    "TransportError": "cardproof.errors",
    "UnauthorizedError": "cardproof.errors",
    "UnprocessableError": "cardproof.errors",
    "VARIANTS": "cardproof.games",
    "variant": "cardproof.games",
    "verify_receipt": "cardproof.receipts",
}
"""Where each public name lives, imported when it is first read."""

__all__ = [
    "TABLES",
    "VARIANTS",
    "APIError",
    "AnswerTooLargeError",
    "AsyncClient",
    "AsyncGame",
    "AsyncRound",
    "BadRequestError",
    "Card",
    "CardproofError",
    "Category",
    "Client",
    "CommitmentMismatchError",
    "ConflictError",
    "Expected",
    "ForbiddenError",
    "Game",
    "IllegalMove",
    "IllegalMoveError",
    "MalformedAnswerError",
    "NotFoundError",
    "ParseError",
    "PayloadTooLargeError",
    "PointTable",
    "RateLimitedError",
    "ReceiptError",
    "ReceiptKind",
    "Round",
    "RuleError",
    "Score",
    "ServerError",
    "ServiceExtraMissingError",
    "TransportError",
    "UnauthorizedError",
    "UnprocessableError",
    "variant",
    "verify_receipt",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module when the name is first read, and keep the name."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'cardproof' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted({*globals(), *__all__})
