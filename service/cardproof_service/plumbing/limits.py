"""Per-client limits: who the client is, and how many requests it may make per window.

A client is its address as the server sees it (an IPv6 client: its /64): uvicorn takes
it from ``X-Forwarded-For`` only for the proxies ``FORWARDED_ALLOW_IPS`` trusts, so a
header cannot make a new client. The store keeps a keyed hash of the address, never the
address, keyed by the master key: replicas of one deployment share each client's counts
(the rate window, games in flight, deals a day), and deployments that share one Redis,
each with its master key of its own (as each must have: it also derives the seeds), count
their clients apart.

Every request for a route but the probes, ``/metrics`` and the schema counts in the
client's fixed window (``CARDPROOF_RATE_LIMIT`` requests per ``CARDPROOF_RATE_WINDOW``
seconds, shared by every replica through the store). Each answer says where the client stands in
``RateLimit-Limit``, ``RateLimit-Remaining``, ``RateLimit-Reset`` and
``RateLimit-Policy``; one over the limit is a 429 problem with ``Retry-After``. If the
store cannot count within a quarter of a second, or fails in any way, the request goes
through uncounted and the limiter leaves the store alone for a second (doubling while it
keeps failing, up to 30 s): a limit must not turn a store outage into an outage of the
pure endpoints.

What never reaches the app counts too: a connection the door (``cardproof_service.door``)
closed over its address's cap, or cut off for headers or a body too slow, is an offence
(:mod:`.offences`) the limiter charges as one request against its client every
:data:`CHARGE_INTERVAL` seconds; a client that keeps at it is soon answered 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import time
from functools import lru_cache
from typing import Final

from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPResponseStartEvent, Message, Receive, Scope, Send

from cardproof.receipts import b64url
from cardproof_service.plumbing import offences
from cardproof_service.plumbing.metrics import RATE_LIMITED
from cardproof_service.plumbing.problems import PROBLEM_MEDIA_TYPE, problem_body
from cardproof_service.plumbing.settings import Settings
from cardproof_service.store import Store

UNLIMITED_PATHS: Final = frozenset({"/healthz", "/readyz", "/metrics"})
"""Paths no limit applies to."""
UNLIMITED_PREFIXES: Final = ("/schema", "/static/")
"""Nor does it to the API reference and the browser client's assets (files, no work)."""
COUNT_TIMEOUT: Final = 0.25
"""Seconds a count may take; a slower store is treated as down (a pure request must
not wait on a frozen store)."""
FIRST_PAUSE: Final = 1.0
"""Seconds the limiter leaves the store alone after a failed count; each failure in a
row doubles it, up to ``LONGEST_PAUSE``."""
LONGEST_PAUSE: Final = 30.0
CHARGE_INTERVAL: Final = 0.5
"""Seconds between two charges of the door's offences."""
log = logging.getLogger("cardproof.limits")


def client_id(scope: Scope, master_key: bytes) -> str:
    """The client's id: a keyed hash of its address (the same on every replica)."""
    client = scope.get("client")
    return address_id(client[0] if client else "unknown", master_key)


@lru_cache(maxsize=8192)
def address_id(address: str, master_key: bytes) -> str:
    """A keyed hash of a client's network (:func:`client_network`): never the address.

    Kept for the last 8,192 addresses: every request of a client asks for it again (its
    rate count, its games in flight), and each is an HMAC under the master key.
    """
    network = client_network(address)
    digest = hmac.digest(master_key, b"cardproof-client\0" + network.encode(), "sha256")
    return b64url(digest[:12])


@lru_cache(maxsize=8192)
def client_network(address: str) -> str:
    """What one client is: an IPv4 address, or an IPv6 address's /64.

    An IPv6 subscriber usually holds a whole /64 and can send from any of its 2**64
    addresses, so counting per address would not limit anyone; a program on the server's
    own host can send from any loopback address, so they are all one client. An IPv4
    address mapped into IPv6 is that IPv4 address; a text that is no address (a Unix
    socket, a test client's name) stays as it is.

    >>> client_network("2001:db8:1:2:aaaa::1"), client_network("::ffff:192.0.2.7")
    ('2001:db8:1:2::/64', '192.0.2.7')
    >>> client_network("192.0.2.7"), client_network("testclient")
    ('192.0.2.7', 'testclient')
    >>> client_network("127.0.0.2") == client_network("127.9.9.9") == client_network("::1")
    True
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.is_loopback:  # every loopback address is this host: one client, not 16 million
        return "loopback"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def limited(path: str) -> bool:
    """Whether requests for ``path`` count against the rate limit."""
    return path not in UNLIMITED_PATHS and not path.startswith(UNLIMITED_PREFIXES)


class _Refused(Exception):
    """A request over the limit: its 429 problem answer."""

    def __init__(self, headers: list[tuple[str, str]], detail: str) -> None:
        self.headers = headers
        self.detail = detail

    async def send(self, send: Send) -> None:
        """Send the 429 problem+json answer."""
        body = problem_body(429, self.detail, type_="/problems/rate-limited", code="rate-limited")
        headers = [
            (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            *((name.encode(), value.encode()) for name, value in self.headers),
        ]
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": 429,
            "headers": headers,
        }
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})


class RateLimiter:
    """Counts each client's requests in the store and refuses those over the limit."""

    def __init__(self, store: Store, settings: Settings, master_key: bytes) -> None:
        """A limiter of ``settings.rate_limit`` requests per ``settings.rate_window`` s."""
        self._store = store
        self._limit = settings.rate_limit
        self._window = settings.rate_window
        self._master_key = master_key
        self._policy = f"{self._limit};w={self._window}"
        self._store_down_until = 0.0
        self._pause = FIRST_PAUSE
        self._charger: asyncio.Task[None] | None = None

    def begin(self) -> None:
        """Start charging the door's offences (from the app's lifespan)."""
        self._charger = asyncio.get_running_loop().create_task(self._charge_offences())

    async def end(self) -> None:
        """Stop charging (a last batch is charged, if the store answers in time)."""
        if self._charger is not None:
            self._charger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._charger
        await self.charge(offences.take())

    async def _charge_offences(self) -> None:
        """Every :data:`CHARGE_INTERVAL` s, what the door reported since."""
        while True:
            await asyncio.sleep(CHARGE_INTERVAL)
            await self.charge(offences.take())

    async def charge(self, reported: dict[str, int]) -> None:
        """Count each address's offences as that many requests in its window.

        Skipped while the store is down (as counting is): offences are not worth a wait.
        """
        for address, weight in reported.items():
            if time.monotonic() < self._store_down_until:
                return
            client = address_id(address, self._master_key)
            try:
                async with asyncio.timeout(COUNT_TIMEOUT):
                    await self._store.count_request(client, self._window, weight)
            except Exception as error:
                self._store_down_until = time.monotonic() + self._pause
                log.warning("offences not charged for %.0f s: %r", self._pause, error)
                return

    def __call__(self, app: ASGIApp) -> ASGIApp:
        """ASGI middleware: count, refuse over the limit, add the RateLimit headers."""

        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP or not limited(scope["path"]):
                await app(scope, receive, send)
                return
            try:
                headers = await self._count(scope)
            except _Refused as refused:  # answered here: it is a middleware, no handler runs
                await refused.send(send)
                return
            if headers is None:
                await app(scope, receive, send)
                return

            async def send_with_headers(message: Message) -> None:
                if message["type"] == "http.response.start":
                    answer = MutableScopeHeaders.from_message(message)
                    for name, value in headers:
                        answer.add(name, value)
                await send(message)

            await app(scope, receive, send_with_headers)

        return middleware

    async def _count(self, scope: Scope) -> list[tuple[str, str]] | None:
        """The RateLimit headers of this request (429 if it is over); ``None`` uncounted."""
        if time.monotonic() < self._store_down_until:
            return None
        try:
            async with asyncio.timeout(COUNT_TIMEOUT):
                hits = await self._store.count_request(
                    client_id(scope, self._master_key), self._window
                )
        except Exception as error:  # any store trouble: let the request through
            self._store_down_until = time.monotonic() + self._pause
            log.warning("rate limit not counted for %.0f s: %r", self._pause, error)
            self._pause = min(self._pause * 2, LONGEST_PAUSE)
            return None
        self._pause = FIRST_PAUSE
        remaining = max(0, self._limit - hits.count)
        headers = [
            ("ratelimit-limit", str(self._limit)),
            ("ratelimit-remaining", str(remaining)),
            ("ratelimit-reset", str(hits.reset)),
            ("ratelimit-policy", self._policy),
        ]
        if hits.count > self._limit:
            RATE_LIMITED.labels("rate").inc()
            detail = (
                f"over the limit of {self._limit} requests per {self._window} s for this "
                f"client: try again in {hits.reset} s"
            )
            raise _Refused([*headers, ("retry-after", str(hits.reset))], detail)
        return headers


__all__ = ["RateLimiter", "address_id", "client_id", "client_network", "limited"]
