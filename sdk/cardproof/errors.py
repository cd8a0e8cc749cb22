"""Errors shared by the rules engine, the service and the client.

Two families, as in a chess library:

* :class:`ParseError`: the input cannot be read at all (a bad card, a bad move text).
  The service answers 400.
* :class:`RuleError` and its child :class:`IllegalMove`: the input reads fine but the
  rules forbid it here (a duplicate card, a move onto a taken cell). The service
  answers 422, with the move's index and a machine ``code`` for illegal moves.

The HTTP client raises :class:`APIError` subclasses built from problem+json bodies.
"""

from __future__ import annotations

from typing import Any, Final


class CardproofError(Exception):
    """Base class of every error cardproof raises on purpose."""


class ParseError(CardproofError, ValueError):
    """Text or an object that cannot be read as the value it should be (HTTP 400).

    ``field`` is a JSON-path-like location (``layout[2][3]``) when the caller knows it.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def at(self, field: str) -> ParseError:
        """Return the same error located at ``field`` (kept if already located)."""
        return ParseError(self.message, field=self.field or field)


class ServiceExtraMissingError(CardproofError, ModuleNotFoundError):
    """The service (``cardproof_service``) was imported where its extra is not installed.

    Still a ``ModuleNotFoundError``, whose ``name`` is the module missing; ``cardproof``
    commands that need the service say it in one line, with :attr:`INSTALL`.
    """

    INSTALL: Final = "pip install 'cardproof[service]'"
    """The command that installs the service extra."""


class RuleError(CardproofError):
    """Well-formed input that the rules do not allow (HTTP 422).

    ``code`` is a stable kebab-case machine code; ``field`` locates the input.
    """

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


class IllegalMove(RuleError):
    """A move that is well formed but not legal at its place in the log."""

    def __init__(self, code: str, message: str, *, move_index: int) -> None:
        super().__init__(code, message, field=f"moves[{move_index}]")
        self.move_index = move_index


class APIError(CardproofError):
    """An error answer from a cardproof server, built from its problem+json body."""

    def __init__(
        self,
        status: int,
        title: str,
        detail: str = "",
        *,
        type_: str = "about:blank",
        body: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {title}: {detail}" if detail else f"{status} {title}")
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type_
        self.body = body or {}
        self.retry_after = retry_after
        self.code: str | None = self.body.get("code")
        self.field: str | None = self.body.get("field")


class BadRequestError(APIError):
    """400: the request could not be read (bad JSON, bad card, unknown field)."""


class UnauthorizedError(APIError):
    """401: a missing, malformed or unknown organizer key or entrant token."""


class ForbiddenError(APIError):
    """403: a valid credential, but not for this resource (another organizer's tournament)."""


class NotFoundError(APIError):
    """404: no such resource."""


class ConflictError(APIError):
    """409: the request conflicts with the resource's state."""


class PayloadTooLargeError(APIError):
    """413: the request body is over the server's limit."""


class UnprocessableError(APIError):
    """422: well-formed, but the rules do not allow it."""


class IllegalMoveError(UnprocessableError):
    """422 for a move: carries ``move_index`` and ``code``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        index = self.body.get("move_index")
        self.move_index: int | None = index if isinstance(index, int) else None


class RateLimitedError(APIError):
    """429: too many requests; ``retry_after`` says when to come back."""


class ServerError(APIError):
    """5xx: the server failed or is unavailable."""


class MalformedAnswerError(APIError):
    """A 2xx answer that is not what the API says it holds: refused as it is read.

    Not JSON, a field missing, or a value out of its form (:mod:`cardproof.models` holds
    every id, card, time and digest to the one spelling the service writes), so that a
    broken or hostile server cannot hand the caller a deal id that climbs out of a
    folder, or a card that carries an escape a terminal would obey. ``status`` is the
    answer's; ``detail`` says what could not be read, and where.
    """


class TransportError(CardproofError):
    """The server could not be reached (connection refused, timeout, broken stream)."""


class AnswerTooLargeError(TransportError):
    """The server's answer is larger than this call allows: refused, not read to its end.

    Each call has a cap by kind (a key set 1 MiB, a game's answers 4 MiB), so a broken
    or hostile server cannot fill the client's memory with an endless answer.
    """
