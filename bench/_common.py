"""Shared helpers for the cardproof benchmarks: machine header, statistics, target lines.

Not a benchmark itself; imported by ``bench/hands.py``, ``bench/serpent.py`` and
``bench/score.py`` (each run as ``.venv/bin/python bench/<name>.py``).
"""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

SDK = Path(__file__).resolve().parent.parent / "sdk"
if SDK.is_dir() and str(SDK) not in sys.path:  # run from a checkout without an install
    sys.path.insert(0, str(SDK))


def cpu_model() -> str:
    """The CPU model name from ``/proc/cpuinfo`` ("unknown" where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown"
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware", "cpu model"):
            return value.strip()
    return "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages ("n/a" where there are none)."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def print_machine(title: str) -> None:
    """Print the benchmark's title and the machine it runs on."""
    load = load_average()
    print(f"== {title}")
    print(f"machine:   {platform.machine()} (platform.processor(): {platform.processor()!r})")
    print(f"cpu:       {cpu_model()} ({os.cpu_count()} logical CPUs, load avg {load})")
    print(
        f"python:    {platform.python_implementation()} {platform.python_version()} "
        f"({sys.executable})"
    )
    print(f"platform:  {platform.platform()}")
    print()


def time_ns(run: Callable[[], object]) -> int:
    """Wall time of one call of ``run`` in nanoseconds (after a ``gc.collect()``)."""
    gc.collect()
    start = time.perf_counter_ns()
    run()
    return time.perf_counter_ns() - start


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0..1) of ``values``."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    """The median of ``values``."""
    return statistics.median(values)


def verdict(name: str, ok: bool, detail: str) -> str:
    """One closing line: ``target <name>: <detail> -> met`` (or ``NOT met``)."""
    return f"target {name}: {detail} -> {'met' if ok else 'NOT met'}"
