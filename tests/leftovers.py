"""Processes a test run leaves behind, found in ``/proc`` (Linux; elsewhere none are).

A test that starts a process must end it: a server, a redis-server, a solver pool's
workers. ``conftest.py`` looks after every test at what this pytest process has started
(its descendants, and the processes of its process group that lost their parent: a
worker whose server died is adopted by init, but keeps its group), and at the end of the
session, after every fixture is torn down, fails the run if any is still alive, naming
each with the test after which it was first seen, then ends it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

PROC: Final = Path("/proc")
OWN_TRACKER: Final = "from multiprocessing.resource_tracker import main"
"""The command of the resource tracker ``multiprocessing`` starts once for a process that
spawns workers (pytest's, for the solver pool of an app in a test): it lasts as long as
that process and ends with it, so pytest's own is not a leftover."""
SETTLE: Final = 10.0
"""Seconds the end-of-session check waits for processes on their way out (a redis-server
or a server just signalled, a pool's resource tracker whose clients just left)."""


@dataclass(frozen=True)
class Process:
    """One process, as ``/proc/PID/stat`` has it."""

    pid: int
    ppid: int
    pgid: int
    state: str
    started: int
    """Clock ticks after boot: with the pid, it names one process (pids are reused)."""
    command: str

    @property
    def key(self) -> tuple[int, int]:
        """The process's identity: its pid and start time."""
        return self.pid, self.started


def read_process(pid: int) -> Process | None:
    """Process ``pid``, or ``None`` if it is gone (or ``/proc`` is not there)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
        command = (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return None
    name_end = stat.rindex(")")  # the name, in parentheses, may hold spaces and ")"
    fields = stat[name_end + 2 :].split()
    return Process(
        pid=pid,
        ppid=int(fields[1]),
        pgid=int(fields[2]),
        state=fields[0],
        started=int(fields[19]),
        command=command.strip() or stat[stat.index("(") : name_end + 1],
    )


def all_processes() -> dict[int, Process]:
    """Every process now, by pid (empty where there is no ``/proc``)."""
    if not PROC.is_dir():
        return {}
    found = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (process := read_process(int(entry.name))) is not None:
            found[process.pid] = process
    return found


def descendants(root: int, table: dict[int, Process]) -> set[int]:
    """The pids of ``root``'s children, their children, and so on."""
    children: dict[int, list[int]] = {}
    for process in table.values():
        children.setdefault(process.ppid, []).append(process.pid)
    found: set[int] = set()
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def alive(processes: Iterable[Process]) -> list[Process]:
    """Those still running: not zombies (dead, only waiting to be reaped)."""
    return [process for process in processes if process.state not in {"Z", "X"}]


@dataclass
class Leftovers:
    """What this process (pytest) has started and not ended yet."""

    me: int = field(default_factory=os.getpid)
    first_seen: dict[tuple[int, int], str] = field(default_factory=dict)
    """Each process seen so far: the test after which it was first seen."""

    def __post_init__(self) -> None:
        table = all_processes()
        self._group = os.getpgrp()
        self._since = table[self.me].started if self.me in table else 0
        ancestors = set()
        pid = table[self.me].ppid if self.me in table else 0
        while pid > 1 and pid in table and pid not in ancestors:
            ancestors.add(pid)
            pid = table[pid].ppid
        self._ancestors = ancestors
        self._before = {process.key for process in table.values()}
        """Whatever ran before the session started is not the session's."""

    def ours(self) -> list[Process]:
        """The live processes this session started: descendants and orphans of its group.

        An orphan is a process of pytest's group that started after pytest did and whose
        parent is neither pytest's descendant nor its ancestor (a shell's ``| tee`` shares
        the group, as the shell's child). Pytest's own resource tracker is no leftover.
        """
        table = all_processes()
        kin = descendants(self.me, table)
        found = []
        for process in table.values():
            if process.pid == self.me or process.key in self._before:
                continue
            if process.ppid == self.me and OWN_TRACKER in process.command:
                continue
            orphan = (
                process.pgid == self._group
                and process.started >= self._since
                and process.ppid not in kin | self._ancestors | {self.me}
            )
            if process.pid in kin or orphan:
                found.append(process)
        return alive(found)

    def note(self, test: str) -> None:
        """Remember the processes first seen after ``test``."""
        for process in self.ours():
            self.first_seen.setdefault(process.key, test)

    def settle(self, timeout: float = SETTLE) -> list[Process]:
        """The processes still alive once those on their way out have had ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while (left := self.ours()) and time.monotonic() < deadline:
            time.sleep(0.1)
        return left

    def describe(self, process: Process) -> str:
        """One line naming ``process`` and the test after which it was first seen."""
        after = self.first_seen.get(process.key, "the last test")
        return f"pid {process.pid} (parent {process.ppid}), after {after}: {process.command}"

    @staticmethod
    def end(processes: Iterable[Process]) -> None:
        """Kill each of ``processes`` that is still that same process."""
        for process in processes:
            now = read_process(process.pid)
            if now is not None and now.key == process.key:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)


__all__ = ["Leftovers", "Process", "all_processes", "descendants", "read_process"]
