"""The servers ``bench/service.py --servers`` compares, each serving the same app.

Not a benchmark itself. Each :class:`Candidate` says how to start one server on a port
with one worker (the command line, and what it needs to keep 10,000 idle connections
open for the memory part). The uvicorn candidates other than ``cardproof serve`` are
``cardproof serve`` itself with uvicorn's HTTP protocol (and loop) swapped: this file run
as ``python bench/servers.py --http httptools --loop auto serve --port N ...`` wraps
``uvicorn.run`` so that ``cardproof serve`` starts exactly as it does, logging, timeouts
and all, except for the protocol class it passes. That isolates the door's cost
(``cardproof_service.door``), and h11's.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import _common  # noqa: F401  (puts sdk/ on sys.path for a run from a checkout)

APP = "cardproof_service.app:create_app"
IDLE_SECONDS = 600
"""The idle (keep-alive) timeout given to every server for the memory part, which holds
its connections open for longer than the servers' defaults (5 s; Granian's 30 s)."""

IDLE_BACKPRESSURE = 20_000
"""Granian's ``--backpressure`` in the memory part (its default, 1,024, is the most
connections a worker holds open at once)."""

GRANIAN_DEFAULT = "--runtime-mode st --http 1"
"""The Granian options the comparison runs by default: the configuration that used the
least CPU per request in ``--granian-sweep`` (README, "Server choice")."""

GRANIAN_SWEEP = (
    "",
    "--runtime-mode st",
    "--task-impl rust",
    "--runtime-mode st --task-impl rust",
    "--runtime-mode st --http 1",
    "--runtime-mode st --task-impl rust --http 1",
    "--runtime-mode st --loop asyncio",
)
"""Granian configurations ``--granian-sweep`` compares (its defaults for ASGI being the
multi-threaded Rust runtime, the uvloop loop and asyncio tasks)."""


def venv_bin(name: str) -> str:
    """An executable beside this Python's (the virtualenv's ``bin``)."""
    return str(Path(sys.executable).parent / name)


def no_env(idle: bool) -> dict[str, str]:
    """No environment beyond the bench's own."""
    return {}


@dataclass(frozen=True)
class Candidate:
    """One server to start: its name as printed, and how to start it on a port."""

    key: str
    name: str
    argv: Callable[[int, bool], list[str]]
    """``(port, idle) -> argv``; ``idle`` keeps idle connections open for minutes."""
    env: Callable[[bool], dict[str, str]] = field(default=no_env)
    """``idle -> environment`` beyond the bench's own (keys, limits off)."""
    note: str = ""


def serve_argv(port: int) -> list[str]:
    """``cardproof serve``'s own options: one worker, at ``--log-level warning``."""
    return ["serve", "--port", str(port), "--workers", "1", "--log-level", "warning"]


def door_env(idle: bool) -> dict[str, str]:
    """``cardproof serve``'s idle timeout (``CARDPROOF_KEEPALIVE_TIMEOUT``) for the memory part."""
    return {"CARDPROOF_KEEPALIVE_TIMEOUT": str(IDLE_SECONDS)} if idle else {}


def swapped(http: str, loop: str, app: str = APP) -> Callable[[int, bool], list[str]]:
    """``cardproof serve`` with uvicorn's ``http`` protocol and ``loop`` in place of its own
    (``keep``: its own), serving ``app``'s factory (cardproof's unless given)."""

    def argv(port: int, idle: bool) -> list[str]:
        command = [sys.executable, str(Path(__file__).resolve()), "--http", http, "--loop", loop]
        return [*command, "--app", app, *serve_argv(port)]

    return argv


def bare_candidate() -> Candidate:
    """``cardproof serve`` as it is (door, loop, logging), serving ``bench/bare_app.py``."""
    return Candidate(
        "bare",
        "bare Litestar",
        swapped("keep", "auto", "bare_app:create_app"),
        note="a bare Litestar app (bench/bare_app.py) served exactly as cardproof serve serves",
    )


def granian(options: str) -> Candidate:
    """Granian's ASGI interface, one worker, with ``options`` (e.g. ``--runtime-mode st``)."""

    def argv(port: int, idle: bool) -> list[str]:
        command = [venv_bin("granian"), "--interface", "asgi", "--factory"]
        command += ["--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--no-ws"]
        command += ["--log-level", "warning", *shlex.split(options)]
        if idle:  # its longest: an idle HTTP/1 connection waits for a head this long
            command += ["--http1-header-read-timeout", "60000"]
            # a connection holds one of the worker's backpressure slots for as long as it is
            # open: by default backlog / workers, 1,024, and the 1,025th waits unserved
            command += ["--backpressure", str(IDLE_BACKPRESSURE)]
        return [*command, APP]

    name = f"granian {options}".strip() if options else "granian (defaults)"
    loop = "asyncio" if "--loop asyncio" in options else "uvloop"
    note = (
        f"hyper (Rust) for HTTP, the app on {loop}; the memory part adds --backpressure "
        f"{IDLE_BACKPRESSURE} (by default a worker holds 1,024 connections at most)"
    )
    return Candidate(f"granian {options}".strip(), name, argv, note=note)


def hypercorn_argv(port: int, idle: bool) -> list[str]:
    """Hypercorn, one worker process on uvloop (its ``uvloop`` worker class)."""
    command = [venv_bin("hypercorn"), "-k", "uvloop", "-w", "1", "-b", f"127.0.0.1:{port}"]
    command += ["--log-level", "warning"]
    if idle:
        command += ["--keep-alive", str(IDLE_SECONDS)]
    return [*command, f"{APP}()"]


def serve_candidate() -> Candidate:
    """``cardproof serve`` as it is (the door when it has one, else uvicorn's httptools)."""
    try:
        import cardproof_service.door  # noqa: F401
    except ImportError:
        note = "uvicorn, httptools, uvloop"
    else:
        note = "uvicorn with the door (cardproof_service.door: httptools, uvloop, h2)"

    def argv(port: int, idle: bool) -> list[str]:
        return [venv_bin("cardproof"), *serve_argv(port)]

    return Candidate("serve", "cardproof serve", argv, door_env, note)


def candidates(granian_options: list[str]) -> list[Candidate]:
    """The comparison's servers: ``cardproof serve`` first (the ratios' reference)."""
    return [
        serve_candidate(),
        Candidate(
            "httptools",
            "uvicorn httptools",
            swapped("httptools", "auto"),
            door_env,
            "cardproof serve with uvicorn's own httptools protocol (uvloop): no door",
        ),
        Candidate(
            "serve-asyncio",
            "cardproof serve, asyncio loop",
            swapped("keep", "asyncio"),
            door_env,
            "cardproof serve (the door) on the stock asyncio loop instead of uvloop",
        ),
        Candidate(
            "h11",
            "uvicorn h11",
            swapped("h11", "asyncio"),
            door_env,
            "cardproof serve with uvicorn's h11 protocol on the stock asyncio loop",
        ),
        *(granian(options) for options in granian_options),
        Candidate("hypercorn", "hypercorn uvloop", hypercorn_argv, note="h11 and h2, uvloop"),
    ]


def main() -> int:
    """Run ``cardproof serve`` with uvicorn's ``--http`` protocol and ``--loop``."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument(
        "--http", required=True, help="uvicorn's http= (httptools, h11; keep: the door)"
    )
    parser.add_argument("--loop", required=True, help="uvicorn's loop= (auto, asyncio, uvloop)")
    parser.add_argument(
        "--app", default=APP, help="the app factory served instead of cardproof's (module:name)"
    )
    parser.add_argument("serve", nargs=argparse.REMAINDER, help="the cardproof command line")
    args = parser.parse_args()
    import uvicorn

    from cardproof.cli import main as cardproof

    run = uvicorn.run

    def swapped_run(app: str, **options: Any) -> None:
        if args.http != "keep":
            options["http"] = args.http
        options["loop"] = args.loop
        run(args.app, **options)

    with mock.patch.object(uvicorn, "run", swapped_run):
        return cardproof(args.serve)


if __name__ == "__main__":
    sys.exit(main())
