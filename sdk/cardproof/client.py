"""HTTP clients for a cardproof server: :class:`Client` (sync) and :class:`AsyncClient`.

Both sit on one :class:`_Core` that builds requests, decides retries and turns
problem+json answers into typed errors; only the I/O differs. Retries cover
connection errors, timeouts, 429 and 5xx, with jittered exponential backoff that
honours ``Retry-After``; every POST carries an ``Idempotency-Key`` that stays the
same across its retries.

Usage::

    with Client(base_url="http://127.0.0.1:8000") as client:
        print(client.score("poker-squares", layout).total)
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any, Final, TypeVar

import httpx
import msgspec

from cardproof.cards import Card
from cardproof.errors import (
    APIError,
    BadRequestError,
    ConflictError,
    IllegalMoveError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitedError,
    ServerError,
    TransportError,
    UnprocessableError,
)
from cardproof.hands import Score
from cardproof.models import (
    DealSpec,
    Health,
    MoveObject,
    Options,
    Readiness,
    ScoreRequest,
    SerpentSolution,
    SolveRequest,
    VariantInfo,
    VerifyRequest,
    VerifyResult,
)

T = TypeVar("T")

DEFAULT_BASE_URL: Final = "http://127.0.0.1:8000"
RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
_ERRORS: Final[dict[int, type[APIError]]] = {
    400: BadRequestError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableError,
    429: RateLimitedError,
}

CardLike = Card | str
MoveLike = Mapping[str, Any] | MoveObject | msgspec.Struct


def _card_text(card: CardLike) -> str:
    return card.text if isinstance(card, Card) else card


def _options(options: Mapping[str, Any] | Options | None) -> Options:
    if isinstance(options, Options):
        return options
    return msgspec.convert(dict(options or {}), Options)


def _moves(moves: str | Sequence[MoveLike]) -> str | list[MoveObject]:
    if isinstance(moves, str):
        return moves
    return [
        m
        if isinstance(m, MoveObject)
        else msgspec.convert(m if isinstance(m, Mapping) else msgspec.to_builtins(m), MoveObject)
        for m in moves
    ]


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds from now (delta-seconds or an HTTP date), if valid.

    >>> retry_after_seconds("3"), retry_after_seconds(None), retry_after_seconds("soon")
    (3.0, None, None)
    """
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def error_from_response(response: httpx.Response) -> APIError:
    """The typed error for a non-2xx answer, from its problem+json body when present."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    status = response.status_code
    cls = _ERRORS.get(status, ServerError if status >= 500 else APIError)
    if status == 422 and isinstance(body.get("move_index"), int):
        cls = IllegalMoveError
    return cls(
        status,
        str(body.get("title") or response.reason_phrase),
        str(body.get("detail") or ""),
        type_=str(body.get("type") or "about:blank"),
        body=body,
        retry_after=retry_after_seconds(response.headers.get("retry-after")),
    )


class _Core:
    """Settings, request building, retry policy and decoding, free of I/O."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        backoff: float,
        max_backoff: float,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        from cardproof import __version__  # the package imports this module: import late

        self.headers = {
            "user-agent": f"cardproof-python/{__version__}",
            "accept": "application/json",
        }
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"

    def request_args(self, method: str, path: str, body: msgspec.Struct | None) -> dict[str, Any]:
        """Arguments of one logical request (the same for each of its attempts)."""
        headers = dict(self.headers)
        content = None
        if body is not None:
            headers["content-type"] = "application/json"
            content = msgspec.json.encode(body)
        if method == "POST":
            headers["idempotency-key"] = str(uuid.uuid4())
        return {
            "method": method,
            "url": self.base_url + path,
            "headers": headers,
            "content": content,
        }

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry ``attempt`` (1-based).

        ``Retry-After`` wins when the server sent it; otherwise full-jitter exponential
        backoff (uniform in 0..backoff * 2**(attempt-1), capped at ``max_backoff``).
        """
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        return random.uniform(0, min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))

    def outcome(self, response: httpx.Response, attempt: int) -> float | None:
        """``None`` if the response is final, else the delay before trying again."""
        if response.status_code in RETRY_STATUSES and attempt < self.max_retries:
            return self.delay(attempt + 1, retry_after_seconds(response.headers.get("retry-after")))
        return None

    @staticmethod
    def decode(response: httpx.Response, result_type: type[T]) -> T:
        """The typed result of a 2xx answer, else the typed error."""
        if response.is_success:
            return msgspec.json.decode(response.content, type=result_type)
        raise error_from_response(response)


class _Endpoints:
    """The request bodies of each endpoint, shared by both clients."""

    @staticmethod
    def score(variant: str, layout: Sequence[Sequence[CardLike]], options: Any) -> ScoreRequest:
        return ScoreRequest(
            variant=variant,
            layout=[[_card_text(c) for c in row] for row in layout],
            options=_options(options),
        )

    @staticmethod
    def verify(
        variant: str, moves: str | Sequence[MoveLike], cards: Sequence[CardLike], options: Any
    ) -> VerifyRequest:
        return VerifyRequest(
            variant=variant,
            deal=DealSpec(cards=[_card_text(c) for c in cards]),
            moves=_moves(moves),
            options=_options(options),
        )

    @staticmethod
    def solve(variant: str, cards: Sequence[CardLike], options: Any) -> SolveRequest:
        return SolveRequest(
            variant=variant, cards=[_card_text(c) for c in cards], options=_options(options)
        )


class Client:
    """A synchronous cardproof client. Use as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        backoff: float = 0.25,
        max_backoff: float = 30.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        """Settings are keyword-only; ``http_client`` replaces the default transport."""
        self._core = _Core(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool (only if this client created it)."""
        if self._owns_http:
            self._http.close()

    def _call(
        self, method: str, path: str, result_type: type[T], body: msgspec.Struct | None = None
    ) -> T:
        args = self._core.request_args(method, path, body)
        attempt = 0
        while True:
            try:
                response = self._http.request(**args, timeout=self._core.timeout)
            except httpx.TransportError as error:
                if attempt >= self._core.max_retries:
                    raise TransportError(f"{method} {path}: {error!r}") from error
                time.sleep(self._core.delay(attempt + 1, None))
            else:
                wait = self._core.outcome(response, attempt)
                if wait is None:
                    return self._core.decode(response, result_type)
                time.sleep(wait)
            attempt += 1

    def variants(self) -> list[VariantInfo]:
        """Every variant the server knows."""
        return self._call("GET", "/v1/variants", list[VariantInfo])

    def score(
        self,
        variant: str,
        layout: Sequence[Sequence[CardLike]],
        *,
        options: Mapping[str, Any] | Options | None = None,
    ) -> Score:
        """Score a finished 5x5 layout."""
        body = _Endpoints.score(variant, layout, options)
        return self._call("POST", "/v1/score", Score, body)

    def verify(
        self,
        variant: str,
        moves: str | Sequence[MoveLike],
        *,
        cards: Sequence[CardLike],
        options: Mapping[str, Any] | Options | None = None,
    ) -> VerifyResult:
        """Replay and score a complete log on an explicit card order (practice)."""
        body = _Endpoints.verify(variant, moves, cards, options)
        return self._call("POST", "/v1/verify", VerifyResult, body)

    def solve(
        self,
        variant: str,
        cards: Sequence[CardLike],
        *,
        options: Mapping[str, Any] | Options | None = None,
    ) -> SerpentSolution:
        """The best play of a known deal (serpent-patience)."""
        body = _Endpoints.solve(variant, cards, options)
        return self._call("POST", "/v1/solve", SerpentSolution, body)

    def health(self) -> Health:
        """Liveness."""
        return self._call("GET", "/healthz", Health)

    def ready(self) -> Readiness:
        """Readiness (a 503 answer raises :class:`ServerError`)."""
        return self._call("GET", "/readyz", Readiness)


class AsyncClient:
    """The asyncio twin of :class:`Client`: the same methods, awaited."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        backoff: float = 0.25,
        max_backoff: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        """Settings are keyword-only; ``http_client`` replaces the default transport."""
        self._core = _Core(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection pool (only if this client created it)."""
        if self._owns_http:
            await self._http.aclose()

    async def _call(
        self, method: str, path: str, result_type: type[T], body: msgspec.Struct | None = None
    ) -> T:
        args = self._core.request_args(method, path, body)
        attempt = 0
        while True:
            try:
                response = await self._http.request(**args, timeout=self._core.timeout)
            except httpx.TransportError as error:
                if attempt >= self._core.max_retries:
                    raise TransportError(f"{method} {path}: {error!r}") from error
                await asyncio.sleep(self._core.delay(attempt + 1, None))
            else:
                wait = self._core.outcome(response, attempt)
                if wait is None:
                    return self._core.decode(response, result_type)
                await asyncio.sleep(wait)
            attempt += 1

    async def variants(self) -> list[VariantInfo]:
        """Every variant the server knows."""
        return await self._call("GET", "/v1/variants", list[VariantInfo])

    async def score(
        self,
        variant: str,
        layout: Sequence[Sequence[CardLike]],
        *,
        options: Mapping[str, Any] | Options | None = None,
    ) -> Score:
        """Score a finished 5x5 layout."""
        body = _Endpoints.score(variant, layout, options)
        return await self._call("POST", "/v1/score", Score, body)

    async def verify(
        self,
        variant: str,
        moves: str | Sequence[MoveLike],
        *,
        cards: Sequence[CardLike],
        options: Mapping[str, Any] | Options | None = None,
    ) -> VerifyResult:
        """Replay and score a complete log on an explicit card order (practice)."""
        body = _Endpoints.verify(variant, moves, cards, options)
        return await self._call("POST", "/v1/verify", VerifyResult, body)

    async def solve(
        self,
        variant: str,
        cards: Sequence[CardLike],
        *,
        options: Mapping[str, Any] | Options | None = None,
    ) -> SerpentSolution:
        """The best play of a known deal (serpent-patience)."""
        body = _Endpoints.solve(variant, cards, options)
        return await self._call("POST", "/v1/solve", SerpentSolution, body)

    async def health(self) -> Health:
        """Liveness."""
        return await self._call("GET", "/healthz", Health)

    async def ready(self) -> Readiness:
        """Readiness (a 503 answer raises :class:`ServerError`)."""
        return await self._call("GET", "/readyz", Readiness)
