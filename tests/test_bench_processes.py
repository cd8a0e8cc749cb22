"""The benches leave nothing running: a bench stopped any way takes its servers with it.

A bench starts ``cardproof serve`` and ``redis-server`` through ``bench/service.py``'s
``started``: each in its own process group (stopped at the end), and each told by Linux
to end when the bench process ends, so a bench killed with ``kill -9`` (whose ``finally``
never runs) leaves no server behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPT = """
import sys, time
from pathlib import Path
sys.path.insert(0, {bench!r})
from service import started
with started([sys.executable, "-c", "import time; time.sleep(120)"], {{}}, Path({log!r})) as p:
    print(p.pid, flush=True)
    time.sleep(120)
"""


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, reaped by nobody yet, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_killed_bench_takes_its_child_with_it(tmp_path: Path) -> None:
    """SIGKILL the bench process: the child it started ends within seconds."""
    script = SCRIPT.format(bench=str(BENCH), log=str(tmp_path / "child.log"))
    bench = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = 0
    try:
        assert bench.stdout is not None
        child = int(bench.stdout.readline())
        assert alive(child)
        os.kill(bench.pid, signal.SIGKILL)
        bench.wait(timeout=10)
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child), "the bench's child outlived it"
    finally:
        bench.kill()
        bench.wait(timeout=10)
        if child and alive(child):
            os.kill(child, signal.SIGKILL)
