"""cardproof: committed deals, rules checking and verified scores for poker solitaires.

The rules engine (``cards``, ``hands``, ``deal``, ``games``, ``solvers``) is pure
Python; ``Client`` and ``AsyncClient`` talk to a cardproof server.
"""

from cardproof.cards import Card
from cardproof.client import AsyncClient, AsyncGame, AsyncRound, Client, Game, Round
from cardproof.errors import (
    APIError,
    BadRequestError,
    CardproofError,
    ConflictError,
    ForbiddenError,
    IllegalMove,
    IllegalMoveError,
    NotFoundError,
    ParseError,
    PayloadTooLargeError,
    RateLimitedError,
    RuleError,
    ServerError,
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
from cardproof.version import VERSION

__version__ = VERSION

__all__ = [
    "TABLES",
    "VARIANTS",
    "APIError",
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
    "TransportError",
    "UnauthorizedError",
    "UnprocessableError",
    "variant",
    "verify_receipt",
]
