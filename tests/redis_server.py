"""Real redis-server processes for tests: a private one per block, or ``REDIS_URL``.

Redis-backed tests never use a mock. ``redis_url_or_skip()`` yields ``REDIS_URL`` when it
is set, else the URL of a private server started from ``PATH``; ``private_redis()``
always starts a private one (for tests that stop, restart or fill Redis). Without a
``redis-server`` the test is skipped, or fails when ``REQUIRE_REDIS=1`` (CI).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import pytest

from conftest import free_port

START_TIMEOUT = 10.0
"""Seconds a redis-server may take to answer PING after it is started."""
STOP_TIMEOUT = 10.0
"""Seconds a redis-server may take to exit after SIGTERM before it is killed."""


def _redis_server_or_skip() -> str:
    """The path of ``redis-server``; skip without one, or fail if Redis is required."""
    path = shutil.which("redis-server")
    if path is not None:
        return path
    message = "redis-server is not on PATH and REDIS_URL is not set"
    if os.environ.get("REQUIRE_REDIS") == "1":
        pytest.fail(f"{message}, but REQUIRE_REDIS=1: install Redis (7+)", pytrace=False)
    pytest.skip(message)


def _answers_ping(port: int) -> bool:
    """Whether a server on ``port`` answers PING with PONG (not LOADING, not refused);
    one that asks for a password first (``-NOAUTH``) answers too."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


class RedisServer:
    """One redis-server process on a fixed port and directory; it can be stopped and restarted."""

    def __init__(
        self, executable: str, port: int, directory: Path, extra_args: tuple[str, ...]
    ) -> None:
        self.port = port
        self.directory = directory
        self._command = [
            executable,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            *extra_args,  # later arguments win: "--appendonly yes" keeps data over a restart
        ]
        self._process: subprocess.Popen[bytes] | None = None
        self._log = directory / "redis.log"

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        """Whether the process is up (it may be paused)."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the server (again, on the same port) and wait until it answers PING."""
        assert not self.running, "redis-server is running already"
        with self._log.open("ab") as log:
            self._process = subprocess.Popen(
                self._command, stdout=log, stderr=subprocess.STDOUT, cwd=self.directory
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers_ping(self.port):
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"redis-server on port {self.port} exited with {self._process.returncode}:\n"
                    + self._log.read_text(errors="replace")[-2000:]
                )
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server on port {self.port} did not answer in time")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop the server (SIGTERM: an append-only file is flushed) and wait for it."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGCONT)  # a paused server cannot handle SIGTERM
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)

    def kill(self) -> None:
        """Crash the server (SIGKILL): only what is on disk already survives a restart."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open but nothing answers."""
        assert self._process is not None
        assert self.running
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Undo :meth:`pause`."""
        assert self._process is not None
        assert self.running
        self._process.send_signal(signal.SIGCONT)


@contextmanager
def private_redis(*extra_args: str) -> Iterator[RedisServer]:
    """A redis-server of its own on a free port, in a temporary directory, until the block ends.

    It starts with ``--save '' --appendonly no`` (nothing on disk) unless ``extra_args``
    say otherwise. Skips (or fails, with ``REQUIRE_REDIS=1``) without ``redis-server``.
    """
    executable = _redis_server_or_skip()
    with tempfile.TemporaryDirectory(prefix="cardproof-redis-") as directory:
        for attempt in range(3):  # the free port may be taken before the server binds it
            server = RedisServer(executable, free_port(), Path(directory), extra_args)
            try:
                server.start()
                break
            except RuntimeError:
                if attempt == 2:
                    raise
        try:
            yield server
        finally:
            server.stop()


@contextmanager
def redis_url_or_skip() -> Iterator[str]:
    """``REDIS_URL`` when set, else a private server's URL, for tests that only read and write.

    Tests that stop, restart or fill Redis use :func:`private_redis` instead. Tests on
    ``REDIS_URL`` must not flush it: they keep to keys of their own.
    """
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    with private_redis() as server:
        yield server.url


SERVICE: Final = "cardproof"
"""The name the test sentinels monitor the primary under."""


class SentinelGroup:
    """A primary, a replica of it, and three sentinels watching them (all private)."""

    def __init__(self, executable: str, directory: Path, password: str | None = None) -> None:
        self.directory = directory
        self.password = password
        auth = () if password is None else ("--requirepass", password, "--masterauth", password)
        self.primary = RedisServer(executable, free_port(), _own(directory, "a"), auth)
        self.primary.start()
        replica_of = ("--replicaof", "127.0.0.1", str(self.primary.port), *auth)
        self.replica = RedisServer(executable, free_port(), _own(directory, "b"), replica_of)
        self.replica.start()
        _wait_for(lambda: _linked(self.replica.port, password), "the replica to sync")
        self.sentinels: list[subprocess.Popen[bytes]] = []
        self.sentinel_ports: list[int] = []
        for name in ("s1", "s2", "s3"):
            port = free_port()
            folder = _own(directory, name)
            config = folder / "sentinel.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {folder}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary.port} 2\n"
                # 2 s, not 1: on a busy 2-core machine a loaded primary that answers a
                # little late was marked down, and a third failover nobody asked for split
                # the service's reads (old primary) from its writes (new one): the
                # failover test's rare 409s (issue 37)
                f"sentinel down-after-milliseconds {SERVICE} 2000\n"
                f"sentinel failover-timeout {SERVICE} 4000\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
                + ("" if password is None else f"requirepass {password}\n")
                + ("" if password is None else f"sentinel auth-pass {SERVICE} {password}\n")
            )
            with (folder / "sentinel.log").open("ab") as log:
                self.sentinels.append(
                    subprocess.Popen(
                        [executable, str(config), "--sentinel"],
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        cwd=folder,
                    )
                )
            self.sentinel_ports.append(port)
        _wait_for(lambda: all(_answers_ping(p) for p in self.sentinel_ports), "the sentinels")
        _wait_for(lambda: self.sees_replica(), "the sentinels to find the replica")

    @property
    def url(self) -> str:
        """The service's ``sentinel://`` URL (``CARDPROOF_REDIS_MODE=sentinel``)."""
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        secret = "" if self.password is None else f":{self.password}@"
        return f"sentinel://{secret}{hosts}/{SERVICE}/0"

    def sentinel(self, *command: str) -> Any:
        """One command to the first sentinel that answers."""
        import redis

        failure: Exception = RuntimeError("no sentinel answers")
        for port in self.sentinel_ports:
            try:
                with redis.Redis(
                    port=port, socket_timeout=2, decode_responses=True, password=self.password
                ) as client:
                    return client.execute_command(*command)
            except redis.ResponseError:
                raise  # it answered: a refusal
            except redis.RedisError as error:
                failure = error
        raise RuntimeError(f"no sentinel answers: {failure}")

    def failover(self) -> int:
        """A failover the sentinels run now (retried while they find no good replica yet);
        the new primary's port once they name it."""
        import redis

        before = self.primary_port()
        deadline = time.monotonic() + 30
        while True:
            try:
                self.sentinel("SENTINEL", "FAILOVER", SERVICE)
                break
            except redis.ResponseError:  # NOGOODSLAVE, INPROG: not yet
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        _wait_for(lambda: self.primary_port() != before, "the sentinels to name a new primary")
        return self.primary_port()

    def primary_port(self) -> int:
        """The port of the server the sentinels name as primary now."""
        _host, port = self.sentinel("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
        return int(port)

    def sees_replica(self) -> bool:
        """Whether the sentinels know a replica of the primary."""
        try:
            return bool(self.sentinel("SENTINEL", "REPLICAS", SERVICE))
        except RuntimeError:
            return False

    def server_on(self, port: int) -> RedisServer:
        """The data server on ``port`` (the primary or the replica)."""
        return self.primary if self.primary.port == port else self.replica

    def close(self) -> None:
        """Stop the sentinels, then the servers."""
        for process in self.sentinels:
            process.terminate()
        for process in self.sentinels:
            process.wait(timeout=STOP_TIMEOUT)
        self.replica.stop()
        self.primary.stop()


def _own(directory: Path, name: str) -> Path:
    folder = directory / name
    folder.mkdir()
    return folder


def _linked(port: int, password: str | None = None) -> bool:
    """Whether the server on ``port`` is a replica whose link to its primary is up."""
    import redis

    try:
        with redis.Redis(
            port=port, socket_timeout=1, decode_responses=True, password=password
        ) as client:
            info = client.info("replication")
            return bool(info.get("role") == "slave" and info.get("master_link_status") == "up")
    except redis.RedisError:
        return False


def _wait_for(ready: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


@contextmanager
def sentinel_group(password: str | None = None) -> Iterator[SentinelGroup]:
    """:class:`SentinelGroup` in a temporary directory until the block ends (with
    ``password``, every server and sentinel asks for it)."""
    executable = _redis_server_or_skip()
    with tempfile.TemporaryDirectory(prefix="cardproof-sentinel-") as directory:
        group = SentinelGroup(executable, Path(directory), password)
        try:
            yield group
        finally:
            group.close()


class RedisClusterGroup:
    """A private Redis Cluster: three masters, each with ``replicas`` replicas
    (``redis-server --cluster-enabled yes`` per node, joined by ``redis-cli --cluster
    create``). Nodes time out after ``node_timeout_ms``: a killed master's replica takes
    over about that long after."""

    def __init__(
        self, executable: str, directory: Path, replicas: int = 0, node_timeout_ms: int = 1000
    ) -> None:
        cli = shutil.which("redis-cli") or str(Path(executable).with_name("redis-cli"))
        self.nodes: list[RedisServer] = []
        for number in range(3 * (1 + replicas)):
            folder = _own(directory, f"n{number}")
            args = (
                *("--cluster-enabled", "yes", "--cluster-config-file", str(folder / "nodes.conf")),
                *("--cluster-node-timeout", str(node_timeout_ms)),
            )
            for attempt in range(5):  # a free port may be taken before the node binds it
                node = RedisServer(executable, _cluster_port(), folder, args)
                try:
                    node.start()
                    break
                except RuntimeError:
                    if attempt == 4:
                        raise
            self.nodes.append(node)
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        command = [cli, "--cluster", "create", *addresses]
        command += ["--cluster-replicas", str(replicas), "--cluster-yes"]
        created = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if created.returncode != 0:
            self.close()
            raise RuntimeError(
                f"redis-cli --cluster create failed:\n{created.stdout}{created.stderr}"
            )
        _wait_for(self.ready, "the cluster to cover every slot on every node")

    @property
    def url(self) -> str:
        """One node's URL (``CARDPROOF_REDIS_MODE=cluster``: the client learns the rest)."""
        return self.nodes[0].url

    def ready(self) -> bool:
        """Whether every running node says the cluster is up and knows every node, and
        every replica's link to its master is up."""
        import redis

        for node in self.nodes:
            if not node.running:
                continue
            try:
                with redis.Redis(port=node.port, socket_timeout=1, decode_responses=True) as c:
                    info = c.cluster("info")
                    if info.get("cluster_state") != "ok" or int(
                        info.get("cluster_known_nodes", 0)
                    ) < len(self.nodes):
                        return False
                    replication = c.info("replication")
                    if replication.get("role") == "slave" and (
                        replication.get("master_link_status") != "up"
                    ):
                        return False
            except redis.RedisError:
                return False
        return True

    def master_of(self, key: str) -> RedisServer:
        """The node that serves ``key``'s slot now."""
        import redis

        for node in self.nodes:
            if not node.running:
                continue
            with redis.Redis(port=node.port, socket_timeout=1) as client:
                slot = int(client.cluster("keyslot", key))
                for start, end, master, *_ in client.cluster("slots"):
                    if start <= slot <= end:
                        return self._on(int(master[1]))
        raise RuntimeError("no running node")

    def replicas_of(self, master: RedisServer) -> list[RedisServer]:
        """The replicas ``master`` has now."""
        import redis

        with redis.Redis(port=master.port, socket_timeout=1, decode_responses=True) as client:
            info = client.info("replication")
        return [
            self._on(int(value["port"]))
            for name, value in info.items()
            if name.startswith("slave") and isinstance(value, dict)
        ]

    def _on(self, port: int) -> RedisServer:
        return next(node for node in self.nodes if node.port == port)

    def close(self) -> None:
        """Stop every node."""
        for node in self.nodes:
            node.stop()


def _cluster_port() -> int:
    """A free port for a cluster node: at most 55535, with its bus port (10000 higher)
    free too."""
    while True:
        port = free_port()
        if port > 55535:
            port = 20000 + port % 30000
        try:
            for candidate in (port, port + 10000):
                with socket.socket() as taken:
                    taken.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port


@contextmanager
def redis_cluster(replicas: int = 0) -> Iterator[RedisClusterGroup]:
    """:class:`RedisClusterGroup` in a temporary directory until the block ends."""
    executable = _redis_server_or_skip()
    with tempfile.TemporaryDirectory(prefix="cardproof-cluster-") as directory:
        group = RedisClusterGroup(executable, Path(directory), replicas)
        try:
            yield group
        finally:
            group.close()
