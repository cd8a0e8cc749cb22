"""The HTTP transport the SDK makes for itself: every socket read bounded by the try's deadline.

httpx bounds each read, not a request: a server sending its status line and headers a
byte at a time, each within the read timeout, would hold a synchronous client for hours.
The async client bounds a whole try with ``asyncio.timeout``; the sync one cannot
interrupt a blocking read, so this transport gives each read, write and connect only
the time left before the deadline of the try under way (:func:`deadline`). It wraps
httpcore's own network backend (httpcore's public interface for custom backends); a
client given its own ``http_client`` keeps that client's transport.

:func:`exchange` (and :func:`exchange_async`, with ``asyncio.timeout``) is the one loop
every fetch of the SDK and the CLI runs: send under the try's deadline, try again as the
request core says, read the final answer under its cap. A try sent from the main thread
runs in a helper thread (:func:`clear_of_ctrl_c`), so that a Ctrl-C never lands inside
httpcore.
"""

from __future__ import annotations

import asyncio
import contextvars
import ssl
import threading
import time
import typing
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial

import httpcore
import httpx

from cardproof.core import AnswerReader, RequestCore

_T = typing.TypeVar("_T")
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("cardproof_deadline", default=None)
"""The try under way: when it must end (monotonic), and how long it was given."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Give the reads of this thread (or task) ``seconds`` in all from now."""
    token = _DEADLINE.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _late() -> httpcore.ReadTimeout:
    """The error of a try past its deadline, worded as the client's own."""
    given = _DEADLINE.get()
    return httpcore.ReadTimeout(f"the answer took more than {given[1] if given else 0:g} s")


def _left(timeout: float | None) -> float | None:
    """The timeout for one read: the smaller of its own and what is left of the try."""
    given = _DEADLINE.get()
    if given is None:
        return timeout
    left = given[0] - time.monotonic()
    if left <= 0:
        raise _late()
    return left if timeout is None else min(timeout, left)


def _bounded(operation: typing.Callable[[float | None], _T], timeout: float | None) -> _T:
    """Run ``operation`` with its share of the try; a timeout past the deadline says so."""
    try:
        return operation(_left(timeout))
    except httpcore.TimeoutException:
        given = _DEADLINE.get()
        if given is not None and time.monotonic() >= given[0]:
            raise _late() from None
        raise


class _Stream(httpcore.NetworkStream):
    """A network stream whose every operation waits at most what the try has left."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _bounded(lambda left: self._inner.read(max_bytes, left), timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _bounded(lambda left: self._inner.write(buffer, left), timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's backend, its streams bounded by the try's deadline."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _left(timeout), local_address, socket_options)
        return _Stream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, _left(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bounded_transport() -> httpx.HTTPTransport:
    """Httpx's transport, each socket operation held to the deadline of :func:`deadline`.

    httpx builds its httpcore pool itself and takes no backend, so the pool's backend is
    wrapped after the fact; ``tests/test_client_bounds.py`` fails if httpx changes that.
    """
    transport = httpx.HTTPTransport()
    pool = transport._pool  # httpx offers no other way to pass a backend
    pool._network_backend = _Backend(pool._network_backend)
    return transport


Answer = Callable[[httpx.Response, bytes], _T]
"""What a fetch makes of its final answer and the body read: a result, or an error raised."""


class _Try(typing.NamedTuple, typing.Generic[_T]):
    """One try's end: the final answer, or the wait before the next try."""

    final: bool
    value: _T | None
    wait: float


def clear_of_ctrl_c(work: Callable[[], _T]) -> _T:
    """Run ``work`` where no Ctrl-C lands: in a helper thread when called from the main one.

    Python raises ``KeyboardInterrupt`` in the main thread between any two bytecodes.
    Inside httpcore's connection pool it can land after a lock was taken and before the
    block that frees it begins: the request's own clean-up then waits for that lock
    forever, and a command stopped with Ctrl-C hangs instead (``tournament round
    --watch``, once in about 200 stops on a busy machine). So the main thread only waits
    here, where the interrupt is raised cleanly, and the try it leaves goes on in its
    thread (a daemon) until its deadline. From any other thread (no signal lands there)
    ``work`` runs in place.
    """
    if threading.current_thread() is not threading.main_thread():
        return work()
    outcome: list[tuple[bool, typing.Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as error:  # handed to the caller, whatever it is
            outcome.append((False, error))
        finally:
            done.set()

    context = contextvars.copy_context()  # the caller's deadline and other context
    threading.Thread(target=context.run, args=(run,), name="cardproof-try", daemon=True).start()
    done.wait()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return typing.cast(_T, value)


def exchange(
    http: httpx.Client,
    build: Callable[[], httpx.Request],
    core: RequestCore,
    *,
    limit: int,
    seconds: float,
    answer: Answer[_T],
) -> _T:
    """Send ``build()`` until an answer is final, then ``answer`` of it and its body.

    Each try gets ``seconds`` in all (each socket operation its share, under
    :func:`bounded_transport`; the body's pace checked as it comes) and reads at most
    ``limit`` bytes (:class:`~cardproof.core.AnswerReader`). ``core`` decides whether a
    status or a transport failure is tried again and after how long; a final transport
    failure is raised as :class:`~cardproof.errors.TransportError`. Each try runs clear of
    Ctrl-C (:func:`clear_of_ctrl_c`).
    """
    attempt = 0
    while True:
        request = build()
        reader = AnswerReader(request, limit=limit, seconds=seconds)
        tried = clear_of_ctrl_c(
            partial(_one_try, http, request, reader, core, attempt, seconds, answer)
        )
        if tried.final:
            return typing.cast(_T, tried.value)
        time.sleep(tried.wait)
        attempt += 1


def _one_try(
    http: httpx.Client,
    request: httpx.Request,
    reader: AnswerReader,
    core: RequestCore,
    attempt: int,
    seconds: float,
    answer: Answer[_T],
) -> _Try[_T]:
    """One try of :func:`exchange`: its final answer, or how long to wait before the next."""
    try:
        with deadline(seconds):  # each read's share (bounded_transport)
            response = http.send(request, stream=True)
            try:
                wait = core.retry_delay(response, attempt)
                if wait is None:
                    for chunk in response.iter_bytes():
                        reader.add(chunk)
                    reader.check_time()
                    return _Try(True, answer(response, reader.content), 0.0)
            finally:
                response.close()
    except httpx.TransportError as error:
        wait = core.transport_retry(error, attempt)
    return _Try(False, None, wait)


async def exchange_async(
    http: httpx.AsyncClient,
    build: Callable[[], httpx.Request],
    core: RequestCore,
    *,
    limit: int,
    seconds: float,
    answer: Answer[_T],
) -> _T:
    """:func:`exchange` on an ``httpx.AsyncClient``: each try in ``asyncio.timeout``."""
    attempt = 0
    while True:
        request = build()
        reader = AnswerReader(request, limit=limit, seconds=seconds)
        try:
            async with asyncio.timeout(seconds):  # the whole try, headers too
                response = await http.send(request, stream=True)
                try:
                    wait = core.retry_delay(response, attempt)
                    if wait is None:
                        async for chunk in response.aiter_bytes():
                            reader.add(chunk)
                        return answer(response, reader.content)
                finally:
                    await response.aclose()
        except TimeoutError:
            wait = core.transport_retry(reader.timed_out(), attempt)
        except httpx.TransportError as error:
            wait = core.transport_retry(error, attempt)
        await asyncio.sleep(wait)
        attempt += 1
