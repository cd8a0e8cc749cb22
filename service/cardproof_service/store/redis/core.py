"""The Redis store's connection, which every part of it shares.

Owns how a client is made (a URL, sentinels, a cluster), how each step is bounded in
time and how Redis's failures become :class:`StoreUnavailable` (503), how a write is
acknowledged by replicas (``WAIT``), and what is about Redis as a whole (readiness,
the key layout's migration, closing). The parts (deals, moves, tournaments, rounds,
limits) build on :class:`RedisCore` and keep their own scripts.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Self, TypeAlias, TypeVar, cast
from urllib.parse import unquote

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    ClusterError,
    MasterDownError,
    MovedError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

import cardproof_service.store.keys as layout
from cardproof_service.store.migrate import Migrated, has_legacy_keys, migrate
from cardproof_service.store.records import StoreUnavailable

T = TypeVar("T")
RedisClient: TypeAlias = "redis.Redis | RedisCluster"
"""What a store is made over: one Redis (or a Sentinel primary), or a Redis Cluster."""
MAX_CONNECTIONS: Final = 64
"""Connections a process keeps to Redis at most (each pub/sub subscription takes one);
with Redis Cluster, to each node."""
ACK_MS: Final = 60_000
"""Milliseconds an ack key lives (it holds nothing; it is written to be waited for)."""
LEGACY_RECHECK: Final = 30.0
"""Seconds between two looks for the first layout's keys, while they are found."""
SENTINEL_MAX_CONNECTIONS: Final = 512
"""Connections to the primary one process may open with sentinels (redis-py has no
blocking pool for them: past this a call fails as unavailable)."""
_REFUSING: Final = (OutOfMemoryError, ReadOnlyError, MasterDownError)
"""Error replies of a Redis that is up but cannot take writes (full, a replica, no
master; also ``MISCONF``: cannot persist): the store is unavailable (503), not a bug."""


class RedisCore:
    """A client of Redis, its time bound and its replicas: what every part stands on."""

    def __init__(self, client: RedisClient, *, timeout: float = 2.0, min_replicas: int = 0) -> None:
        """A store over a ``redis.asyncio`` client (see :meth:`from_url`).

        ``timeout`` bounds each whole call (waiting for a connection, reconnecting,
        retrying), on top of the client's socket timeouts. ``min_replicas``: a write is
        acknowledged only once that many replicas have it (``WAIT``; see :meth:`_written`).
        """
        self._redis = client
        self._cluster_ready = not isinstance(client, RedisCluster)
        self._cluster_lock = asyncio.Lock()
        self._legacy_checked = 0.0
        """When to look for the first layout's keys again (monotonic; ``inf``: never)."""
        self._masters: dict[str, redis.Redis] = {}
        """Plain clients of a cluster's masters, for writes that wait for replicas."""
        self._node_options: dict[str, Any] = {}
        """What a plain client of a cluster master connects with (credentials, TLS)."""
        self._timeout = timeout
        self._min_replicas = min_replicas

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 2.0, min_replicas: int = 0) -> Self:
        """A store on ``url``; each call fails as unavailable after ``timeout`` seconds.

        A command that meets a closed connection is sent once more on a new one: after
        Redis restarts, every pooled connection fails once, and that must not become a
        503 once Redis is back. A write may so run twice (when only its reply was lost),
        and each recognises its own first run: appends check the index, a deal finds
        itself, an entry its own id, an organizer its own name, a close its own time.
        A timeout is not resent.

        At most ``MAX_CONNECTIONS`` connections are open at once; a call beyond them waits
        for one (within ``timeout``) instead of failing: a burst of moves (every seat of a
        lockstep round placing its card) queues rather than answering 503.
        """
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=MAX_CONNECTIONS,
            timeout=timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=10,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        return cls(redis.Redis(connection_pool=pool), timeout=timeout, min_replicas=min_replicas)

    @classmethod
    def from_sentinels(cls, url: str, *, timeout: float = 2.0, min_replicas: int = 0) -> Self:
        """A store on the primary the sentinels of ``url`` name, followed through failovers.

        ``url`` is ``sentinel://[:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB]``: the
        sentinels, the service (master) name they monitor, and the database. A call that
        meets a failover fails as unavailable (503) until the sentinels name the new
        primary, then goes to it.
        """
        hosts, service, db, password = parse_sentinel_url(url)
        credentials = {} if password is None else {"password": password}
        sentinels = Sentinel(  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
            hosts,
            # the sentinels may ask for the password too (auth.sentinel in deploy/sentinel)
            sentinel_kwargs={
                "socket_timeout": timeout,
                "socket_connect_timeout": timeout,
                **credentials,
            },
            socket_timeout=timeout,
        )
        client = sentinels.master_for(
            service,
            db=db,
            password=password,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=10,
            max_connections=SENTINEL_MAX_CONNECTIONS,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        return cls(client, timeout=timeout, min_replicas=min_replicas)

    @classmethod
    def from_cluster(cls, url: str, *, timeout: float = 2.0, min_replicas: int = 0) -> Self:
        """A store on the Redis Cluster that the node of ``url`` belongs to.

        redis-py's cluster client learns every node and slot from that one, sends each
        step to the node of its keys' slot, and follows the cluster's MOVED and ASK
        redirections (a resharding or a failover). A step's keys share one hash tag (see
        :mod:`cardproof_service.store.keys`), so every step runs on one node. With
        ``min_replicas``, a write goes with its ``WAIT`` straight to its slot's master.
        """
        client = RedisCluster.from_url(
            url,
            max_connections=MAX_CONNECTIONS,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=10,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError],
        )
        store = cls(client, timeout=timeout, min_replicas=min_replicas)
        options = parse_url(url)
        store._node_options = {
            name: value
            for name, value in options.items()
            if name in {"username", "password", "connection_class"}
        }
        return store

    async def _written(self, route: str, send: Callable[[Any], Awaitable[Any]]) -> Any:
        """One write, acknowledged only once ``min_replicas`` replicas have it.

        ``send`` runs the write on the client it is given; ``route`` is a key it writes
        (on a cluster, the node of its slot runs it). With replicas asked for, the write,
        a write of :func:`~cardproof_service.store.keys.ack` and a ``WAIT`` go on one
        connection (a pipeline: ``WAIT`` counts that connection's writes; on a cluster, a
        connection to the slot's master). The ack is always a write, so ``WAIT`` also
        confirms what the step found and did not write (a claim, an entry, a move a first
        attempt stored unconfirmed). Fewer replicas confirming within half the call's
        time is :class:`StoreUnavailable`:
        the client is told 503, never that the write is safe. The write may have landed
        all the same: a resent move, deal or entry recognises itself (see
        :meth:`from_url`); a resent close finds the tournament closed (409, its rounds
        completed all the same); a new organizer's name may show as taken.
        """
        if not self._min_replicas:
            return await self._call(lambda: send(self._redis))

        async def durable() -> Any:
            client = self._redis
            if isinstance(client, RedisCluster):
                node = client.get_node_from_key(route)
                if node is None:  # pragma: no cover - get_node_from_key raises instead
                    raise StoreUnavailable("redis: no master holds the slot")
                client = self._master_client(node.host, int(node.port))
            try:
                async with client.pipeline(transaction=False) as pipe:
                    await send(pipe)
                    pipe.set(layout.ack(route), 1, px=ACK_MS)  # WAIT covers all before it
                    pipe.wait(self._min_replicas, max(1, int(self._timeout * 500)))
                    reply, _, confirmed = await pipe.execute()
            except AskError as error:  # MOVED or ASK (redis-py strips the word from its text)
                # not written here. MOVED: the slot moved (a failover, a resharding); the
                # next try goes where the answer named (as redis-py's own client does: a
                # slots map learnt anew from a node gossip has not reached yet would send it
                # back to the old master). ASK: the key left a slot being migrated; until
                # the migration ends, a write to it with its WAIT is refused (503)
                if isinstance(error, MovedError):
                    if isinstance(self._redis, RedisCluster):
                        await self._redis.nodes_manager.move_slot(error)
                    raise StoreUnavailable("redis: the slot moved to another master") from error
                raise StoreUnavailable("redis: the key is being migrated") from error
            except (RedisConnectionError, RedisTimeoutError, OSError):
                if isinstance(self._redis, RedisCluster):  # its master may be gone: learn anew
                    self._cluster_ready = False
                raise
            if int(confirmed) < self._min_replicas:
                raise StoreUnavailable(
                    f"redis: the write reached {confirmed} of {self._min_replicas} replicas in time"
                )
            return reply

        return await self._call(durable)

    def _master_client(self, host: str, port: int) -> redis.Redis:
        """A plain client of one cluster master, kept for its connection pool."""
        name = f"{host}:{port}"
        client = self._masters.get(name)
        if client is None:
            pool = redis.BlockingConnectionPool(
                host=host,
                port=port,
                max_connections=MAX_CONNECTIONS,
                timeout=self._timeout,
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                **self._node_options,
            )
            client = self._masters[name] = redis.Redis(connection_pool=pool)
        return client

    async def _ready(self) -> None:
        """Learn a cluster's nodes and slots: before the first step, after a slot moved.

        redis-py's cluster client learns them on first use, but first uses at once race
        on the new connections (redis-py 8.1: ``AttributeError`` on a half-made one).
        """
        async with self._cluster_lock:
            if not self._cluster_ready:
                cluster = cast(RedisCluster, self._redis)
                if cluster.nodes_manager.slots_cache:  # known before: learn them again
                    await cluster.nodes_manager.initialize()
                else:
                    await cluster.initialize()
                self._cluster_ready = True

    async def _call(self, step: Callable[[], Awaitable[T]]) -> T:
        try:
            async with asyncio.timeout(self._timeout):
                if not self._cluster_ready:
                    await self._ready()
                result = await step()
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # redis-py can swallow a cancel
                raise asyncio.CancelledError
            return result
        except (
            RedisConnectionError,
            RedisTimeoutError,
            OSError,
            TimeoutError,
            ClusterError,  # a cluster that lost a node or a slot's owner, for now
            SlotNotCoveredError,
            TryAgainError,  # a slot being moved: the step is resent by the client
        ) as error:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # redis-py turned a cancel into this
                raise asyncio.CancelledError from error
            raise StoreUnavailable(f"redis: {error.__class__.__name__}") from error
        except ResponseError as error:  # Redis up but refusing writes: down for us too
            if isinstance(error, _REFUSING) or str(error).startswith("MISCONF"):
                raise StoreUnavailable(f"redis: {error.__class__.__name__}") from error
            raise

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless Redis answers with no old key in it.

        A cluster must have every master answer and serve every slot. Keys of the first
        layout (see :mod:`~cardproof_service.store.migrate`) mean a replica upgraded on
        such a Redis would not find the games stored before, so it is not ready until
        ``cardproof store migrate`` has run (looked for again every ``LEGACY_RECHECK``
        seconds while found).
        """
        if isinstance(self._redis, RedisCluster):  # every master answers, and all is served
            cluster = self._redis
            await self._call(lambda: cluster.ping(target_nodes=RedisCluster.PRIMARIES))
            info = cast(dict[str, Any], await self._call(cluster.cluster_info))
            if info.get("cluster_state") != "ok":
                raise StoreUnavailable("redis: the cluster does not serve every slot")
            return
        await self._call(self._redis.ping)
        if self._legacy_checked > time.monotonic():
            return
        legacy = await self._call(lambda: has_legacy_keys(cast(redis.Redis, self._redis)))
        if legacy:
            self._legacy_checked = time.monotonic() + LEGACY_RECHECK
            raise StoreUnavailable(
                "redis: keys of the first layout are there: stop every replica and run "
                "cardproof store migrate"
            )
        self._legacy_checked = float("inf")

    async def migrate_layout(self, progress: Callable[[int, int], None] | None = None) -> Migrated:
        """Rename the first layout's keys to the tagged ones (``cardproof store migrate``).

        ``progress(done, total)`` is told as the old keys are renamed.
        """
        if isinstance(self._redis, RedisCluster):
            raise ValueError("a Redis Cluster never held the first key layout: nothing to do")
        client = self._redis
        done = await migrate(client, progress)
        self._legacy_checked = 0.0
        return done

    async def close(self) -> None:
        """Close the client and its connection pool (given to it: closed here)."""
        for master in self._masters.values():
            with contextlib.suppress(Exception):
                async with asyncio.timeout(self._timeout):
                    await master.aclose()
                    await master.connection_pool.disconnect()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self._timeout):
                await self._redis.aclose()
                if isinstance(self._redis, redis.Redis):  # a cluster client closes its nodes
                    await self._redis.connection_pool.disconnect()


def parse_sentinel_url(url: str) -> tuple[list[tuple[str, int]], str, int, str | None]:
    """``sentinel://[:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB]``, read.

    >>> parse_sentinel_url("sentinel://10.0.0.1:26379,10.0.0.2:26380/cardproof/2")
    ([('10.0.0.1', 26379), ('10.0.0.2', 26380)], 'cardproof', 2, None)
    >>> parse_sentinel_url("sentinel://:s%40cret@s1:26379/main")[1:]
    ('main', 0, 's@cret')
    """
    if not url.startswith("sentinel://"):
        raise ValueError("a sentinel URL starts with sentinel://")
    rest = url.removeprefix("sentinel://")
    password = None
    if "@" in rest:
        credentials, _, rest = rest.rpartition("@")
        password = unquote(credentials.partition(":")[2]) or None
    where, _, path = rest.partition("/")
    parts = [part for part in path.split("/") if part]
    if not where or not parts or len(parts) > 2:
        raise ValueError("a sentinel URL names HOST:PORT[,HOST:PORT...]/SERVICE[/DB]")
    hosts = []
    for host in where.split(","):
        name, _, port = host.rpartition(":")
        if not name or not port.isdigit():
            raise ValueError(f"{host!r} is not HOST:PORT")
        hosts.append((name, int(port)))
    if len(parts) == 2 and not parts[1].isdigit():
        raise ValueError(f"the database is a number, not {parts[1]!r}")
    db = int(parts[1]) if len(parts) == 2 else 0
    return hosts, parts[0], db, password
