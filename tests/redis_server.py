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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
    """Whether a server on ``port`` answers PING with PONG (not LOADING, not refused)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
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
