"""Shared fixtures: one app per test session, sync and async test clients.

And a check on the whole session (leftovers.py): every process a test starts is gone by
the end, or the run fails naming each one left and the test after which it appeared.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient, TestClient

import cardproof_service.store.memory.moves as memory_moves
import cardproof_service.store.memory.rounds as memory_rounds
from cardproof.games import variant
from cardproof.receipts import SigningKey, verify_receipt
from cardproof_service import Settings, create_app
from cardproof_service.plumbing.keys import Keys
from cardproof_service.store import MemoryStore, Store
from cardproof_service.tournaments.organizers import new_organizer
from leftovers import Leftovers

LEFTOVERS = pytest.StashKey[Leftovers]()


def pytest_configure(config: pytest.Config) -> None:
    """Note what runs before the session, to tell what the session starts.

    An xdist worker takes a process group of its own first: what its tests start is then
    told apart from what the other workers' tests start (``leftovers.py``).
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.setpgid(0, 0)
    config.stash[LEFTOVERS] = Leftovers()
    config.addinivalue_line(
        "markers", "own_redis: on Redis, a private server even when REDIS_URL is set"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """After each test (and the fixtures it ended), note the processes it left running."""
    try:
        return (yield)
    finally:
        item.config.stash[LEFTOVERS].note(item.nodeid)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail the run if a process it started outlives it (once every fixture is torn down)."""
    leftovers = session.config.stash.get(LEFTOVERS, None)
    left = [] if leftovers is None else leftovers.settle()
    if leftovers is None or not left:
        return
    lines = [leftovers.describe(process) for process in left]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("!", f"{len(left)} processes left behind by the tests", red=True)
        for line in lines:
            reporter.write_line(line, red=True)
    else:
        print("processes left behind by the tests:", *lines, sep="\n", file=sys.stderr)
    leftovers.end(left)  # the run fails, and leaves the machine as it found it
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


TEST_KEYS = Keys(
    master=bytes(range(32)), signing=SigningKey.from_seed(bytes(32)), log=bytes([1]) * 32
)
"""Fixed keys for in-process apps (no key file is written)."""
UNLIMITED: dict[str, Any] = {
    "rate_limit": 0,
    "max_games_in_flight": 0,
    "daily_deal_quota": 0,
    "organizer_tournaments_per_day": 0,
    "organizer_invites_per_day": 0,
    "listeners_per_client": 0,
    "listeners_per_address": 0,
    "entries_per_address": 0,
}
"""Settings without the per-client limits: a test suite is one client making thousands of
requests (tests/test_limits.py checks the limits)."""


@pytest.fixture(scope="session")
def app() -> Litestar:
    """The app as `make run` builds it (memory store), without the warm-up thread or limits."""
    return create_app(Settings(warm_up=False, par_budget=0.3, **UNLIMITED), keys=TEST_KEYS)


def organizer_key(app: Litestar, name: str) -> str:
    """A fresh organizer in the app's store, and its key as an Authorization header."""
    key, record = new_organizer(name)
    store: Store = app.state.store
    assert asyncio.run(store.add_organizer(record))
    return f"Bearer {key}"


@pytest.fixture(scope="session")
def owner(app: Litestar) -> str:
    """An organizer of the session's app, as an Authorization header."""
    return organizer_key(app, "Owner Club")


class Clock:
    """The store's clock in milliseconds, moved only by the test."""

    def __init__(self) -> None:
        self.ms = time.time_ns() // 1_000_000

    def __call__(self) -> int:
        return self.ms


def held_app_of() -> Litestar:
    """An app on its own memory store, its lockstep keeper idle: only requests move a
    round on (a test holds every deadline's moment)."""
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS, store=MemoryStore())

    async def idle() -> None:
        return None

    app.state.rounds.keep = idle
    return app


@pytest.fixture
def held_app() -> Litestar:
    """:func:`held_app_of`, for one test."""
    return held_app_of()


@pytest.fixture
def held(held_app: Litestar) -> Iterator[TestClient[Litestar]]:
    """A client of :func:`held_app`."""
    with TestClient(app=held_app) as client:
        yield client


def hold_store_clock(patch: pytest.MonkeyPatch) -> Clock:
    """The memory store's clock held (moved only by the test), until ``patch`` is undone."""
    held = Clock()
    patch.setattr(memory_rounds, "now_ms", held)
    patch.setattr(memory_moves, "now_ms", held)
    return held


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The memory store's clock, held: lockstep rules checked at their exact edges."""
    return hold_store_clock(monkeypatch)


@pytest.fixture
def client(app: Litestar) -> Iterator[TestClient[Litestar]]:
    """A synchronous test client (an httpx.Client) talking to the app in-process."""
    with TestClient(app=app) as test_client:
        yield test_client


@pytest.fixture
async def async_client(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """An asynchronous test client (an httpx.AsyncClient) talking to the app in-process."""
    async with AsyncTestClient(app=app) as test_client:
        yield test_client


SERVER_KEYS = {
    "CARDPROOF_MASTER_KEY": bytes(range(32)).hex(),
    "CARDPROOF_SIGNING_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "CARDPROOF_LOG_KEY": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE",
}
"""The same fixed keys for server processes, through the environment."""


def own_deployment() -> dict[str, str]:
    """``SERVER_KEYS`` with a master key of its own: a served app that is a deployment of
    its own.

    A client's id is a keyed hash of its address under the master key (limits.py), so
    such an app counts its clients (rate windows, games in flight, deals a day) apart
    from every other app on a shared ``REDIS_URL`` and from earlier runs, as two real
    deployments do; apps given the same keys share the counts, as replicas do.
    """
    return {**SERVER_KEYS, "CARDPROOF_MASTER_KEY": secrets.token_hex(32)}


UNLIMITED_ENV = {
    "CARDPROOF_RATE_LIMIT": "0",
    "CARDPROOF_MAX_GAMES_IN_FLIGHT": "0",
    "CARDPROOF_DAILY_DEAL_QUOTA": "0",
    "CARDPROOF_ORGANIZER_TOURNAMENTS_PER_DAY": "0",
    "CARDPROOF_ORGANIZER_INVITES_PER_DAY": "0",
    "CARDPROOF_LISTENERS_PER_CLIENT": "0",
    "CARDPROOF_LISTENERS_PER_ADDRESS": "0",
    "CARDPROOF_ENTRIES_PER_ADDRESS": "0",
}
"""``UNLIMITED`` for server processes (a test's own ``env`` may set limits again)."""


WORKER_PORTS: Final = 1500
"""Ports each pytest-xdist worker picks from, in its own range from 10000 up: below the
kernel's ephemeral ports (32768 on), so no worker takes a port another was handed, nor
one a connection is given; a Redis Cluster node's bus port (10000 higher) stays below
them too, for up to six workers."""
_NEXT_PORT = itertools.count()


# An xdist worker may ignore SIGINT (Ctrl-C is its controller's), and the commands a test
# starts would inherit that: Python's own handler, so a test's Ctrl-C reaches them.
signal.signal(signal.SIGINT, signal.default_int_handler)

BROWSER_UNSAFE_PORTS = frozenset({10080})
"""Ports of the workers' ranges that Chromium refuses to load (``ERR_UNSAFE_PORT``)."""


def free_port() -> int:
    """A TCP port nobody listens on right now (in an xdist worker, one of its own range)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):  # one process: the kernel's pick
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
            return port
    first = 10_000 + int(worker[2:]) * WORKER_PORTS
    for _ in range(WORKER_PORTS):  # in turn, so a port handed out is not handed again soon
        port = first + next(_NEXT_PORT) % WORKER_PORTS
        if port in BROWSER_UNSAFE_PORTS:  # a page there would not load
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {first}..{first + WORKER_PORTS - 1}")


@contextmanager
def served(*args: str, env: dict[str, str] | None = None, log: Path | None = None) -> Iterator[str]:
    """Run ``cardproof serve`` on a free port until the block ends; yield its base URL.

    ``log``: a file that gets the server's output (its JSON lines), for a test to read.
    """
    with served_process(*args, env=env, log=log) as (base_url, _):
        yield base_url


@contextmanager
def served_process(
    *args: str,
    env: dict[str, str] | None = None,
    log: Path | None = None,
    new_session: bool = False,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`served`, also yielding the process (a test may kill it).

    ``new_session``: the server leads a process group of its own (its pid), which every
    process it starts joins: a test can find them all, even once the server is gone.
    """
    port = free_port()
    command = [str(Path(sys.executable).parent / "cardproof"), "serve", "--port", str(port), *args]
    base_env = {**os.environ, "CARDPROOF_WARM_UP": "0", **SERVER_KEYS, **UNLIMITED_ENV}
    output = None if log is None else log.open("wb")
    server = subprocess.Popen(
        command,
        env={**base_env, **(env or {})},
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=new_session,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base_url}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, "cardproof serve exited"
                assert time.monotonic() < deadline, "cardproof serve did not answer in 30 s"
                time.sleep(0.2)
        yield base_url, server
    finally:
        if server.poll() is None:
            server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:  # stuck: killed, not left behind (and the test fails)
            server.kill()
            server.wait()
            raise
        finally:
            if output is not None:
                output.close()


@pytest.fixture(scope="module")
def live_server() -> Iterator[str]:
    """A real ``cardproof serve`` process (one worker) for the tests of one module.

    It serves as ``make run`` does, on the memory store, whatever ``REDIS_URL`` the tests
    run with: the README's examples show its answers (tests on Redis ask for it).
    """
    with served("--log-level", "warning", env={"REDIS_URL": ""}) as base_url:
        yield base_url


def answering_pids(log: Path, path_part: str) -> set[int]:
    """The workers (pids) whose request lines in ``log`` name a path containing ``path_part``."""
    pids = set()
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{") and path_part in line:
            entry = json.loads(line)
            if entry.get("msg") == "request" and path_part in str(entry.get("path", "")):
                pids.add(int(entry["pid"]))
    return pids


def play_blind(
    client: TestClient[Litestar],
    variant_id: str,
    options: dict[str, Any],
    choose: Callable[[dict[str, Any]], str],
) -> tuple[dict[str, Any], list[str]]:
    """Play a whole deal through the API, each move chosen from the view alone.

    Returns the receipt answer and every view the server sent (the deal's first, then
    one per move), then checks each view is exactly the engine's on the revealed deck:
    nothing is shown before the rules make it visible.
    """
    created = client.post("/v1/deals", json={"variant": variant_id, "options": options})
    assert created.status_code == 201, created.text
    deal = created.json()
    views: list[dict[str, Any]] = [deal["view"]]
    moves: list[str] = []
    finished = False
    while not finished:
        move = choose(views[-1])
        answer = client.post(
            f"/v1/deals/{deal['deal_id']}/moves", json={"index": len(moves), "move": move}
        )
        assert answer.status_code == 200, answer.text
        moves.append(move)
        views.append(answer.json()["view"])
        finished = answer.json()["finished"]
    receipt: dict[str, Any] = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    payload = receipt["payload"]
    cls = variant(variant_id)
    settings = cls.parse_options(payload["options"])
    deck = cls.deal_cards(bytes.fromhex(payload["server_seed"]), payload["client_seed"], settings)
    local = cls.new(deck, settings)
    for step, view in enumerate(views):
        assert view == msgspec.json.decode(msgspec.json.encode(local.visible())), step
        if step < len(moves):
            local.play(cls.parse_move(moves[step]))
    jwks = client.get("/.well-known/jwks.json").json()
    assert verify_receipt(receipt["receipt"], jwks, allow=["casual"]).replayed  # no commitment
    return receipt, moves


# --- headless Chromium, for the page tests ------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def chromium_or_skip() -> str:
    """Debian's Chromium; skip without it, or fail where a browser is required."""
    path = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if path is not None:
        return path
    message = "Chromium is not installed (`make browser` installs Debian's chromium)"
    required = (
        bool(os.environ.get("CI"))
        or bool(os.environ.get("REQUIRE_BROWSER"))
        or os.environ.get("REQUIRE_REDIS") == "1"
    )
    if required:
        pytest.fail(f"{message}, but a browser is required here (CI)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Chromium for a test module's pages."""
    executable = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def web_server() -> Iterator[str]:
    """A real ``cardproof serve`` on the memory store, for a test module's pages."""
    with served("--log-level", "warning", env={"REDIS_URL": ""}) as base_url:
        yield base_url
