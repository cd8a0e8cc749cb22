"""No process outlives the server that started it.

``cardproof serve`` starts a pool of solver processes on its first search. Stopped by
SIGTERM (as a supervisor, ``docker stop`` or Kubernetes stops it), the server ends them,
a search running or not; killed outright it cannot, and each solver process ends itself
once it sees its parent gone. Each test starts the server as the leader of a process
group of its own: every process it starts joins that group, so all of them can be found
afterwards, adopted by init or not.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from cardproof_service.deals.solving import PARENT_WATCH
from conftest import served_process
from leftovers import Process, alive, all_processes, read_process
from redis_server import redis_url_or_skip

HARD_DECK = (Path(__file__).parent / "data" / "solodrez-hard-deck.txt").read_text().split()
"""A solodrez deal whose search takes its whole budget (tests/test_solver_bounds.py)."""
SEARCH = {"variant": "solodrez", "cards": HARD_DECK, "budget": 10}
"""A search that is still running when the server is stopped."""
SPAWNED = "multiprocessing.spawn import spawn_main"
"""What the command line of a process started by ``multiprocessing`` (spawn) holds."""
T = TypeVar("T")


def group(pgid: int) -> list[Process]:
    """The live processes of process group ``pgid``."""
    return alive(process for process in all_processes().values() if process.pgid == pgid)


def solver_processes(server: int, workers: int) -> list[Process]:
    """The server's solver processes: spawned by the app's process (a uvicorn worker
    spawned by the server when there are several)."""
    members = group(server)
    apps = {server}
    if workers > 1:
        apps = {p.pid for p in members if p.ppid == server and SPAWNED in p.command}
    return [p for p in members if p.ppid in apps and SPAWNED in p.command]


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user and system), 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(found: Callable[[], T], what: str, timeout: float = 30.0) -> T:
    """``found()`` once it is true, polling; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not (value := found()):
        assert time.monotonic() < deadline, f"no {what} in {timeout} s"
        time.sleep(0.05)
    return value


@contextmanager
def searching(
    workers: int, env: dict[str, str]
) -> Iterator[tuple[subprocess.Popen[bytes], list[Process]]]:
    """A server (a group leader) whose solver processes are running a search.

    Yields the server and its solver processes once one of them has spent a CPU
    second on the search; whatever is left of the group at the end is killed, so that a
    failing test leaves nothing behind either.
    """
    args = ("--workers", str(workers), "--log-level", "warning")
    env = {"CARDPROOF_SOLVER_WORKERS": "2", **env}
    with (
        ThreadPoolExecutor(1) as requests,  # ended last: its request ends with the server
        served_process(*args, env=env, new_session=True) as (url, server),
    ):
        try:
            answer: Future[httpx.Response] = requests.submit(
                httpx.post, f"{url}/v1/solve", json=SEARCH, timeout=60
            )
            solvers = wait_for(lambda: solver_processes(server.pid, workers), "solver process")
            spent = {p.pid: cpu_seconds(p.pid) for p in solvers}
            wait_for(
                lambda: any(cpu_seconds(pid) > seconds + 1 for pid, seconds in spent.items()),
                "solver process at work",
            )
            assert not answer.done(), answer.result()  # the search is still running
            yield server, solvers
        finally:
            with suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)


def read_process_again(process: Process) -> Process | None:
    """``process`` as it is now; ``None`` once it is gone (and its pid perhaps reused)."""
    now = read_process(process.pid)
    return now if now is not None and now.key == process.key else None


def left_behind(pgid: int, timeout: float) -> list[Process]:
    """The group's processes still alive after ``timeout`` s (sooner once none is)."""
    deadline = time.monotonic() + timeout
    while (left := group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """``REDIS_URL`` or a private redis-server, for the server with several workers."""
    with redis_url_or_skip() as url:
        yield url


@pytest.mark.parametrize("workers", [1, 2])
def test_a_server_stopped_by_sigterm_ends_its_solver_processes(
    workers: int, request: pytest.FixtureRequest
) -> None:
    # one worker on the memory store (whatever REDIS_URL the tests run with), or two on Redis
    redis = request.getfixturevalue("redis_url") if workers > 1 else ""
    with searching(workers, {"REDIS_URL": redis}) as (server, solvers):
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) in {0, -signal.SIGTERM}  # a clean stop
        # gone as the server exits: it ended them itself, it did not leave them to end
        gone = [read_process_again(p) for p in solvers]
        assert gone == [None] * len(solvers), gone
        # and nothing else is left (the pool's resource tracker goes once they all have)
        assert left_behind(server.pid, timeout=5.0) == []


def test_solver_processes_end_themselves_when_their_server_is_killed() -> None:
    with searching(1, {"REDIS_URL": ""}) as (server, solvers):
        server.kill()  # no clean-up at all: its children are orphans, adopted by init
        server.wait(timeout=30)
        assert left_behind(server.pid, timeout=PARENT_WATCH + 5) == []
        assert alive(p for p in map(read_process_again, solvers) if p is not None) == []
