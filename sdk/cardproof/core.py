"""The request core under both clients: settings, headers, retries and typed errors.

:class:`RequestCore` builds each request (its ``Idempotency-Key`` fixed across
retries), decides whether and how long to wait before another try, and turns an
answer into its typed result or a typed :class:`~cardproof.errors.APIError` from its
problem+json body. It does no I/O: :class:`~cardproof.client.Client` and
:class:`~cardproof.async_client.AsyncClient` send with httpx, sleeping as it says.
Retries cover connection errors, timeouts, 429 and 5xx, with full-jitter exponential
backoff that honours ``Retry-After``. No answer is trusted for its size or its pace:
each is read under its call's size cap (:class:`AnswerReader`) and within one deadline
for the whole try, not one per read, so a server trickling bytes cannot hold a client.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any, Final, TypeVar

import httpx
import msgspec

from cardproof.endpoints import ApiCall
from cardproof.errors import (
    AnswerTooLargeError,
    APIError,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    IllegalMoveError,
    MalformedAnswerError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitedError,
    ServerError,
    TransportError,
    UnauthorizedError,
    UnprocessableError,
)
from cardproof.version import VERSION

T = TypeVar("T")

RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
RETRY_TRANSPORT_ERRORS: Final = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
"""Transport failures worth another try; others (a bad URL, a proxy refusal) are final."""
_ERRORS: Final[dict[int, type[APIError]]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableError,
    429: RateLimitedError,
}


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
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, with no claim about the sender's zone
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - time.time())


class AnswerReader:
    """Collects one answer's bytes under a size cap and a deadline for the whole try.

    httpx's timeout bounds each read, so a server sending a byte a second would never
    time out. :class:`~cardproof.async_client.AsyncClient` holds the whole try, headers
    included, to the deadline, and :class:`~cardproof.client.Client` gives each socket
    read only what is left of it (:mod:`cardproof.transport`); both also check it here as
    each chunk arrives (what bounds a ``Client`` given an ``http_client`` of its own, once
    its headers are in). Past the deadline the try fails as a read timeout (tried again
    like one); past the cap it fails as :class:`~cardproof.errors.AnswerTooLargeError`
    (final).
    """

    def __init__(self, request: httpx.Request, *, limit: int, seconds: float) -> None:
        self.request = request
        self.limit = limit
        self.deadline = time.monotonic() + seconds
        self.seconds = seconds
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, chunk: bytes) -> None:
        """Take the next chunk, or raise if the answer is too large or too slow."""
        self._size += len(chunk)
        if self._size > self.limit:
            raise AnswerTooLargeError(
                f"{self.request.method} {self.request.url}: the answer is over "
                f"{self.limit:,} bytes, more than this call allows"
            )
        self._parts.append(chunk)
        self.check_time()

    def timed_out(self) -> httpx.ReadTimeout:
        """The error of a try that outlived its deadline."""
        return httpx.ReadTimeout(
            f"the answer took more than {self.seconds:g} s", request=self.request
        )

    def check_time(self) -> None:
        """Raise a read timeout if the try has outlived its deadline."""
        if time.monotonic() > self.deadline:
            raise self.timed_out()

    @property
    def content(self) -> bytes:
        """Every byte read so far."""
        return b"".join(self._parts)


def error_from_response(response: httpx.Response, content: bytes | None = None) -> APIError:
    """The typed error for a non-2xx answer, from its problem+json body when present.

    ``content`` is the body when it was read apart (a streamed answer), else the
    response's own.
    """
    try:
        body = json.loads(response.content if content is None else content)
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


class RequestCore:
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
        self.headers = {
            "user-agent": f"cardproof-python/{VERSION}",
            "accept": "application/json",
        }
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"

    def request_args(self, call: ApiCall[Any]) -> dict[str, Any]:
        """Arguments of one logical request (the same for each of its attempts)."""
        headers = dict(self.headers)
        if call.authorization is not None:
            headers["authorization"] = call.authorization
        if call.invite_code is not None:
            headers["x-invite-code"] = call.invite_code
        content = None
        if call.body is not None:
            headers["content-type"] = "application/json"
            content = msgspec.json.encode(call.body)
        if call.method == "POST":
            headers["idempotency-key"] = str(uuid.uuid4())
        return {
            "method": call.method,
            "url": self.base_url + call.path,
            "headers": headers,
            "content": content,
            "timeout": self.timeout + call.wait,
        }

    def delay(self, attempt: int) -> float:
        """Full-jitter exponential backoff before retry ``attempt`` (1-based)."""
        return random.uniform(0, min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))

    def retry_delay(self, response: httpx.Response, attempt: int) -> float | None:
        """``None`` if ``response`` is final, else seconds to wait before trying again.

        ``Retry-After`` wins when the server sent it; if it asks for longer than
        ``max_backoff`` the answer is final (the error carries ``retry_after``).
        """
        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
            return None
        asked = retry_after_seconds(response.headers.get("retry-after"))
        if asked is None:
            return self.delay(attempt + 1)
        return asked if asked <= self.max_backoff else None

    def transport_retry(self, error: httpx.TransportError, attempt: int) -> float:
        """The delay before retrying after a transport failure, or raise it as final."""
        if not isinstance(error, RETRY_TRANSPORT_ERRORS) or attempt >= self.max_retries:
            raise TransportError(
                f"{error.request.method} {error.request.url}: {error!r}"
            ) from error
        return self.delay(attempt + 1)

    def reader(self, call: ApiCall[Any], request: httpx.Request) -> AnswerReader:
        """A reader for one try of ``call``: its cap, and its timeout (plus its wait)."""
        return AnswerReader(request, limit=call.limit, seconds=self.timeout + call.wait)

    @staticmethod
    def decode(response: httpx.Response, content: bytes, result_type: type[T]) -> T:
        """The typed result of a 2xx answer whose body is ``content``, else the typed error.

        A 2xx body that is not the type's (a value out of its form included) is
        :class:`~cardproof.errors.MalformedAnswerError`.
        """
        if not response.is_success:
            raise error_from_response(response, content)
        try:
            if result_type is str:  # a text answer (the log's checkpoint and key)
                text: T = content.decode()  # type: ignore[assignment]
                return text
            return msgspec.json.decode(content, type=result_type)
        except (msgspec.DecodeError, UnicodeDecodeError) as error:
            raise MalformedAnswerError(
                response.status_code, "Malformed answer", f"the answer cannot be read: {error}"
            ) from None
