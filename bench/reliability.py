"""Reliability of the HTTP service (issue 7): load, Redis outage, worker kill, AOF restart.

Each scenario runs against real processes on loopback: a private ``redis-server``
started from PATH (its own port and directory) and ``cardproof serve --workers 2`` on
it (fixed keys, warm-up, rate limiting and the games-in-flight cap off). It prints
figures (requests by kind, errors by status, throughput, p50/p99 latency per kind)
and one ``PASS``/``FAIL`` line naming what was checked; the exit status is 1 when a
scenario fails. Scenarios (``--only`` picks some):

- ``load``: ``--users`` concurrent users (one ``httpx.AsyncClient`` each) for
  ``--seconds``, each mixing ``POST /v1/score``, ``POST /v1/verify`` (a whole log on a
  revealed seed pair) and blind poker-squares games (commitment, deal, 25 moves,
  receipt, the receipt checked offline against ``/.well-known/jwks.json``). Zero
  errors: any non-2xx answer, transport error or wrong answer is one.
- ``outage``: the same load; mid-run the private Redis is stopped (SIGTERM) for
  ``--outage-seconds`` and started again on the same port. Score, verify and
  commitments (which write nothing) must answer 2xx throughout; stateful requests 2xx
  or 503 problem+json with ``Retry-After``, and 503 only while Redis is down (until
  ``/readyz`` is 200 again, plus a short grace); no transport error. A user whose game
  step gets a 503 retries the same request after ``Retry-After`` (a move resent with
  the same index and move gets the same answer), doing pure requests meanwhile.
- ``kill``: the same load; mid-run one of the two worker processes is SIGKILLed. The
  server must keep answering (the longest gap without a successful answer is
  reported); requests in flight on the killed worker may fail with a transport error
  (counted apart, and retried: moves are idempotent by index, deals carry an
  ``Idempotency-Key``); any other failure is an error. Whether uvicorn's supervisor
  respawns the worker is reported.
- ``restart``: a private Redis with ``--appendonly yes --appendfsync always``; finished
  blind games, an unfinished one, and a two-round tournament (four entrants who finish
  both rounds, one who stops half-way); then Redis is crashed (SIGKILL) and started
  again: every deal's state and receipt, and the tournament, its standings and
  settlement must be identical. The tournament is then closed, its export taken, Redis
  crashed again, and everything (export included) must again be identical; the
  export must pass ``verify_export``.
- ``schemathesis``: the schemathesis CLI (every check, all phases) against the running
  server on Redis, with an organizer key on every request and the configuration of
  ``tests/test_schemathesis.py``; zero failures.
- ``sentinel``: the same load on a primary, a replica and three sentinels
  (``CARDPROOF_REDIS_MODE=sentinel``, ``CARDPROOF_REDIS_MIN_REPLICAS=1``); at a fifth of
  the run a failover is asked for (``SENTINEL FAILOVER``), a little before half of it the
  primary is SIGKILLed (then started again, a replica). Reported: moves acknowledged, moves lost
  (the audit), how long ``/readyz`` said not ready; refusals must be well-formed 503s.
- ``cluster``: the same load on a Redis Cluster of three masters
  (``CARDPROOF_REDIS_MODE=cluster``). Zero errors, nothing lost (the audit); reported:
  how the keys spread over the masters, each master's commands, and the throughput
  against the ``load`` scenario's on one Redis when both ran.
- ``cluster-failover``: the same load on three masters with a replica each
  (``CARDPROOF_REDIS_MIN_REPLICAS=1``); at two fifths of the run the busiest master is
  SIGKILLed and its replica takes over. Reported like ``sentinel``.

After each load run every game is audited: its stored log (``GET /v1/deals/{id}``)
must hold every move that was acknowledged (none lost) and nothing else than the
player's own moves (none corrupted); unfinished games are finished, and every
receipt is fetched and replayed offline.

``tests/test_reliability.py`` runs the restart, kill and schemathesis scenarios, short,
through the functions here.

Run: ``.venv/bin/python bench/reliability.py [--seconds 60] [--users 16]
[--only load,outage,kill,restart,schemathesis,sentinel,cluster]`` (about six minutes with
the defaults).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
import msgspec

from _common import load_average, percentile, print_machine
from cardproof.progress import Bar, bar
from service import free_port, tail

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from redis_server import (
    RedisClusterGroup,
    RedisServer,
    SentinelGroup,
    private_redis,
    redis_cluster,
    sentinel_group,
)

SERVER_KEYS: dict[str, str] = {
    "CARDPROOF_MASTER_KEY": bytes(range(32)).hex(),
    "CARDPROOF_SIGNING_KEY": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "CARDPROOF_LOG_KEY": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE",
}
"""Fixed keys (the same as ``tests/conftest.py``)."""
SERVER_ENV: dict[str, str] = {
    **SERVER_KEYS,
    "CARDPROOF_WARM_UP": "0",
    "CARDPROOF_RATE_LIMIT": "0",
    "CARDPROOF_MAX_GAMES_IN_FLIGHT": "0",
    "CARDPROOF_DAILY_DEAL_QUOTA": "0",
    "CARDPROOF_LISTENERS_PER_CLIENT": "0",
}
"""The environment of every server: fixed keys, no warm-up, no throttling of the load."""

AOF_ALWAYS = ("--appendonly", "yes", "--appendfsync", "always")
"""Redis persistence as ``deploy/`` runs it: an fsync before every reply, so that an
acknowledged write survives a crash."""

CELLS = 25
COLUMNS = "abcde"
SERVER_SEED = "5e" * 32
"""The revealed seed pair of the verify requests (as ``tests/test_redis_outage.py``)."""
CLIENT_SEED = "outage"
PURE_SHARE = 0.3
"""Share of a user's requests that are pure (score or verify); the rest play games."""
SCORE_SHARE = 2 / 3
"""Of the pure requests, the share that are scores (the rest verifies)."""
REQUEST_TIMEOUT = 10.0
START_TIMEOUT = 30.0
READY_TIMEOUT = 10.0
"""Seconds ``/readyz`` may take to answer 200 once Redis is back."""
RECOVERY_GRACE = 2.0
"""Seconds after ``/readyz`` is 200 again in which a stateful request may still get 503."""
KILL_GRACE = 1.0
"""A transport error counts as "in flight on the killed worker" if its request started
at most this long after the kill."""
MAX_GAP = 2.0
"""The longest the server may go without a successful answer when a worker is killed."""
RESPAWN_WATCH = 20.0
"""Seconds to watch for uvicorn's supervisor starting a replacement worker."""
AUDIT_DEADLINE = 15.0
"""Seconds one audit request may keep being retried (on 503 or a transport error)."""

PURE_KINDS = ("score", "verify")
STATELESS_KINDS = ("score", "verify", "commit")
"""Kinds that touch no store (a commitment id carries its own expiry and MAC)."""
STATEFUL_KINDS = ("deal", "move", "receipt")
KINDS = ("score", "verify", "commit", "deal", "move", "receipt")

PROBLEM_JSON = "application/problem+json"
NEGATIVE_STATUSES = ["400", "401", "404", "405", "406", "409", "413", "415", "422"]
POSITIVE_STATUSES = ["2xx", "401", "403", "404", "409", "422", "429"]


# --- processes ------------------------------------------------------------------------


@dataclass
class Served:
    """A running ``cardproof serve``: its URL, its (supervisor) pid and its log."""

    base_url: str
    pid: int
    log: Path


def cardproof_command() -> str:
    """The ``cardproof`` script next to this interpreter."""
    return str(Path(sys.executable).parent / "cardproof")


@contextmanager
def cardproof_serve(
    redis_url: str, workers: int, log: Path, extra_env: dict[str, str] | None = None
) -> Iterator[Served]:
    """``cardproof serve --workers N`` on ``redis_url`` and a free port, until the block ends."""
    port = free_port()
    command = [cardproof_command(), "serve", "--port", str(port), "--workers", str(workers)]
    command += ["--log-level", "warning"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDPROOF_")}
    env.update(SERVER_ENV, REDIS_URL=redis_url, **(extra_env or {}))
    base_url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                if httpx.get(f"{base_url}/readyz", timeout=1, trust_env=False).is_success:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                raise RuntimeError(f"cardproof serve exited:\n{tail(log)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"cardproof serve did not answer in time:\n{tail(log)}")
            time.sleep(0.1)
        yield Served(base_url, process.pid, log)
    finally:
        for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(process.pid, sig)  # the supervisor and its workers, ours alone
            except ProcessLookupError:
                break
            try:
                process.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def serve_pid(base_url: str) -> int:
    """The pid of the ``cardproof serve`` process listening on ``base_url``'s port.

    For servers started elsewhere (``tests/conftest.py``'s ``served()``): its command line
    names ``serve`` and ``--port PORT``.
    """
    port = str(httpx.URL(base_url).port)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        args = _cmdline(int(entry.name))
        if not any(arg.endswith("cardproof") for arg in args) or "serve" not in args:
            continue
        if any(a == "--port" and b == port for a, b in itertools.pairwise(args)):
            return int(entry.name)
    raise LookupError(f"no cardproof serve process on port {port}")


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux ``/proc/<pid>/task/*/children``)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def worker_pids(pid: int) -> list[int]:
    """uvicorn's worker processes under the supervisor ``pid`` (not its resource tracker)."""
    return sorted(child for child in children(pid) if "spawn_main" in " ".join(_cmdline(child)))


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` so far, or ``None`` if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    if fields and fields[0] == "Z":
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def redis_pid(url: str) -> int | None:
    """The pid of the redis-server serving ``url`` on this machine, if one is found."""
    port = str(httpx.URL(url).port)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            args = " ".join(_cmdline(int(entry.name)))
            if "redis-server" in args and (f":{port}" in args or f"--port {port}" in args):
                return int(entry.name)
    return None


def cpu_seconds(pids: list[int]) -> float:
    """The CPU seconds ``pids`` have used so far (those still running)."""
    return sum(cpu for cpu in map(process_cpu, pids) if cpu is not None)


def organizer_key(redis_url: str) -> str:
    """A fresh organizer key, stored in Redis by ``cardproof keys organizer create``."""
    env = {**os.environ, "REDIS_URL": redis_url}
    made = subprocess.run(
        [cardproof_command(), "keys", "organizer", "create", f"Reliability {time.time_ns()}"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    return made.stdout.strip()


# --- what a game and the pure requests should answer -------------------------------------


def cell_text(cell: int) -> str:
    """A poker-squares cell number (row-major, 0..24) as move text: ``c3``."""
    return f"{COLUMNS[cell % 5]}{cell // 5 + 1}"


def fixtures() -> tuple[dict[str, Any], int, dict[str, Any], int]:
    """The score and verify bodies, and the totals they must get (computed offline)."""
    import cardproof_service.front.examples as examples
    from cardproof.cards import parse_cards
    from cardproof.games import PokerSquares, replay_log

    score_body = examples.SCORE
    cards = [card for row in score_body["layout"] for card in parse_cards(row)]
    options = PokerSquares.parse_options(score_body["options"])
    score_total = PokerSquares.score_layout(cards, options).total
    default = PokerSquares.parse_options(None)
    deck = PokerSquares.deal_cards(bytes.fromhex(SERVER_SEED), CLIENT_SEED, default)
    cells = [cell_text(cell) for cell in random.Random(7).sample(range(CELLS), CELLS)]
    verify_total = replay_log(PokerSquares.id, deck, default, " ".join(cells)).score().total
    verify_body = {
        "variant": PokerSquares.id,
        "deal": {"server_seed": SERVER_SEED, "client_seed": CLIENT_SEED},
        "moves": " ".join(cells),
    }
    return score_body, score_total, verify_body, verify_total


def check_receipt(token: str, jwks: Any, deal_id: str, seed_hash: str, moves: str) -> str | None:
    """What is wrong with a finished game's receipt (``None``: it replays and matches)."""
    from cardproof.receipts import ReceiptError, verify_receipt

    try:
        checked = verify_receipt(token, jwks)
    except ReceiptError as error:
        return f"receipt of {deal_id} does not verify: {error}"
    payload = checked.payload
    if not checked.replayed:
        return f"receipt of {deal_id} was not replayed (no seed)"
    if (payload.deal_id, payload.server_seed_hash, payload.moves) != (deal_id, seed_hash, moves):
        return f"receipt of {deal_id} names another deal, seed or log: {payload.moves!r}"
    if not payload.committed_before_client_seed or not payload.blind:
        return f"receipt of {deal_id} is not committed and blind"
    return None


def problem_503(response: httpx.Response) -> bool:
    """Whether a 503 is problem+json with a ``Retry-After`` of at least a second."""
    try:
        retry_after = int(response.headers.get("retry-after", "0"))
        body = response.json()
    except ValueError:
        return False
    return (
        response.headers.get("content-type", "").startswith(PROBLEM_JSON)
        and retry_after >= 1
        and isinstance(body, dict)
        and body.get("status") == 503
    )


T = TypeVar("T")


def run_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on a fresh event loop: uvloop's (cheaper per request) if installed."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - the service extra installs it
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


# --- the load driver ----------------------------------------------------------------------


@dataclass(slots=True)
class Call:
    """One request: its kind, when it started and ended, its status (None: no answer)."""

    kind: str
    start: float
    end: float
    status: int | None
    detail: str = ""
    well_formed: bool = True
    """For a 503: problem+json with ``Retry-After``."""

    @property
    def ok(self) -> bool:
        """A 2xx answer."""
        return self.status is not None and 200 <= self.status < 300


@dataclass
class GameRecord:
    """One blind game a user opened: its planned cells and what was acknowledged when."""

    deal_id: str
    seed_hash: str
    planned: list[int]
    acked: dict[int, float] = field(default_factory=dict)
    """Move index -> when its 200 arrived."""
    receipt: str | None = None
    hit_503: bool = False

    @property
    def texts(self) -> list[str]:
        """The planned moves as log text."""
        return [cell_text(cell) for cell in self.planned]


class Driver:
    """Concurrent users against one server, every request recorded."""

    def __init__(
        self,
        base_url: str,
        users: int,
        seconds: float,
        seed: int = 0,
        redis_url: str | None = None,
    ) -> None:
        """A load of ``users`` users for ``seconds`` (nothing is sent yet).

        The CPU time of the driver, of the server's workers and of the Redis behind
        ``redis_url`` over the run is measured too (each found in ``/proc``).
        """
        self.base_url = base_url
        self.server_pid = serve_pid(base_url)
        self.redis_url = redis_url
        self.cpu: dict[str, float] = {}
        self.users = users
        self.seconds = seconds
        self.seed = seed
        self.calls: list[Call] = []
        self.games: list[GameRecord] = []
        self.problems: list[str] = []
        """2xx answers whose content was wrong, and other failed checks."""
        self.jwks: Any = None
        self.started_at = 0.0
        self.stop_at = 0.0
        self.score_body, self.score_total, self.verify_body, self.verify_total = fixtures()

    def problem(self, text: str) -> None:
        """Record a failed check."""
        self.problems.append(text[:400])

    async def send(
        self,
        client: httpx.AsyncClient,
        kind: str,
        method: str,
        url: str,
        *,
        json: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[Call, httpx.Response | None]:
        """One timed request, recorded; the response (``None`` on a transport error)."""
        start = time.perf_counter()
        try:
            response = await client.request(method, url, json=json, headers=headers)
        except httpx.HTTPError as error:
            call = Call(kind, start, time.perf_counter(), None, f"{method} {url}: {error!r}")
            self.calls.append(call)
            return call, None
        call = Call(kind, start, time.perf_counter(), response.status_code)
        if not call.ok:
            call.detail = f"{method} {url} -> {response.status_code} {response.text[:300]}"
        if response.status_code == 503:
            call.well_formed = problem_503(response)
        self.calls.append(call)
        return call, response

    async def run(self, disruption: Callable[[Driver], Awaitable[None]] | None = None) -> None:
        """Run the users (and ``disruption`` beside them) until ``seconds`` have passed."""
        async with httpx.AsyncClient(base_url=self.base_url, trust_env=False) as client:
            self.jwks = (await client.get("/.well-known/jwks.json")).json()
        players = [Player(self, index) for index in range(self.users)]
        workers = {pid: process_cpu(pid) or 0.0 for pid in worker_pids(self.server_pid)}
        redis = redis_pid(self.redis_url) if self.redis_url else None
        redis_cpu = process_cpu(redis) if redis is not None else None
        own = time.process_time()
        self.started_at = time.perf_counter()
        self.stop_at = self.started_at + self.seconds
        jobs: list[Awaitable[None]] = [player.run() for player in players]
        if disruption is not None:
            jobs.append(disruption(self))
        with bar(math.ceil(self.seconds), "load", unit="s") as elapsed:  # on a terminal only
            ticker = asyncio.create_task(self._tick(elapsed))
            try:
                await asyncio.gather(*jobs)
            finally:
                ticker.cancel()
                for player in players:
                    await player.client.aclose()
        self.cpu["driver"] = time.process_time() - own
        self.cpu["workers"] = sum(
            (process_cpu(pid) or 0.0) - workers.get(pid, 0.0)
            for pid in worker_pids(self.server_pid)
        )
        if redis is not None and redis_cpu is not None:
            after = process_cpu(redis)
            if after is not None:
                self.cpu["redis"] = after - redis_cpu

    async def _tick(self, elapsed: Bar) -> None:
        """Move the bar on once a second of the run, until it is cancelled at the end."""
        while True:
            await asyncio.sleep(1)
            seconds = time.perf_counter() - self.started_at
            elapsed.at(min(int(seconds), math.ceil(self.seconds)), math.ceil(self.seconds))


class Player:
    """One user: pure requests mixed with blind games, one game at a time."""

    def __init__(self, driver: Driver, index: int) -> None:
        """User ``index`` of ``driver`` (its own connection)."""
        self.driver = driver
        self.index = index
        self.rng = random.Random(driver.seed * 1000 + index)
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        self.client = httpx.AsyncClient(
            base_url=driver.base_url, timeout=REQUEST_TIMEOUT, limits=limits, trust_env=False
        )
        self.stage = "commit"
        self.game: GameRecord | None = None
        self.commitment: tuple[str, str] = ("", "")
        self.idempotency_key = ""
        self.games_started = 0
        self.wait_until = 0.0

    async def run(self) -> None:
        """Send requests until the driver's time is up.

        A 2xx answer that cannot be read (not JSON, a field missing) is a wrong answer:
        it is recorded and the game given up, and the user goes on.
        """
        while (now := time.perf_counter()) < self.driver.stop_at:
            try:
                if now < self.wait_until or self.rng.random() < PURE_SHARE:
                    await self.pure()
                else:
                    await self.game_step()
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                self._abandon(f"an answer that does not read: {error!r}")

    async def pure(self) -> None:
        """One score or verify request; its total must be the one computed offline."""
        driver = self.driver
        if self.rng.random() < SCORE_SHARE:
            kind, path, body, total = "score", "/v1/score", driver.score_body, driver.score_total
        else:
            kind, path, body = "verify", "/v1/verify", driver.verify_body
            total = driver.verify_total
        call, response = await driver.send(self.client, kind, "POST", path, json=body)
        if response is None or not call.ok:
            return
        answer = response.json()
        got = answer.get("total") if kind == "score" else answer.get("score", {}).get("total")
        if got != total or (kind == "verify" and not answer.get("receipt")):
            driver.problem(f"{kind}: total {got}, expected {total}")

    def _retry_later(self, call: Call, response: httpx.Response | None) -> None:
        """After a 503 (wait ``Retry-After``) or no answer (a moment): send it again later."""
        if self.game is not None and call.status == 503:
            self.game.hit_503 = True
        delay = 0.05
        if response is not None:
            try:
                delay = float(response.headers.get("retry-after", "1"))
            except ValueError:
                delay = 1.0
        self.wait_until = time.perf_counter() + delay

    def _abandon(self, why: str) -> None:
        """Give up the current game (the audit finishes it) after an unexpected answer."""
        self.driver.problem(why)
        self.stage, self.game = "commit", None

    async def game_step(self) -> None:
        """The next request of this user's game; a failed one is retried later."""
        driver, client = self.driver, self.client
        if self.stage == "commit":
            call, response = await driver.send(client, "commit", "POST", "/v1/commitments", json={})
            if response is not None and call.ok:
                body = response.json()
                self.commitment = (body["commitment_id"], body["server_seed_hash"])
                self.idempotency_key = uuid.uuid4().hex
                self.games_started += 1
                self.stage = "deal"
            elif call.status not in (None, 503):
                self._abandon(call.detail)
            else:
                self._retry_later(call, response)
            return
        if self.stage == "deal":
            body = {
                "variant": "poker-squares",
                "commitment_id": self.commitment[0],
                "client_seed": f"reliability-{driver.seed}-{self.index}-{self.games_started}",
            }
            headers = {"Idempotency-Key": self.idempotency_key}
            call, response = await driver.send(
                client, "deal", "POST", "/v1/deals", json=body, headers=headers
            )
            if response is not None and call.ok:
                state = response.json()
                if state["server_seed_hash"] != self.commitment[1] or state["next_index"] != 0:
                    self._abandon(f"deal {state['deal_id']}: not the committed seed or not new")
                    return
                planned = self.rng.sample(range(CELLS), CELLS)
                self.game = GameRecord(state["deal_id"], self.commitment[1], planned)
                driver.games.append(self.game)
                self.stage = "move"
            elif call.status not in (None, 503):
                self._abandon(call.detail)
            else:
                self._retry_later(call, response)
            return
        game = self.game
        assert game is not None
        if self.stage == "move":
            index = len(game.acked)
            cell = game.planned[index]
            move = {"index": index, "move": {"row": cell // 5, "col": cell % 5}}
            url = f"/v1/deals/{game.deal_id}/moves"
            call, response = await driver.send(client, "move", "POST", url, json=move)
            if response is not None and call.ok:
                answer = response.json()
                if answer["index"] != index or answer["finished"] != (index == CELLS - 1):
                    self._abandon(f"{url} move {index}: answered {answer!r:.200}")
                    return
                game.acked[index] = call.end
                if answer["finished"]:
                    self.stage = "receipt"
            elif call.status not in (None, 503):
                self._abandon(call.detail)
            else:
                self._retry_later(call, response)
            return
        url = f"/v1/deals/{game.deal_id}/receipt"
        call, response = await driver.send(client, "receipt", "GET", url)
        if response is not None and call.ok:
            token = response.json()["receipt"]
            wrong = check_receipt(
                token, driver.jwks, game.deal_id, game.seed_hash, " ".join(game.texts)
            )
            if wrong is not None:
                self._abandon(wrong)
                return
            game.receipt = token
            self.stage, self.game = "commit", None
        elif call.status not in (None, 503):
            self._abandon(call.detail)
        else:
            self._retry_later(call, response)


# --- the audit after a load run -----------------------------------------------------------


@dataclass
class Audit:
    """Every game of a run, read back, finished and its receipt replayed."""

    games: int = 0
    moves_checked: int = 0
    moves_before: int = 0
    """Acknowledged moves checked that were acknowledged before the disruption."""
    lost: list[str] = field(default_factory=list)
    corrupted: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    finished_now: int = 0
    receipts: int = 0
    retries: int = 0
    hit_503_finished: int = 0


async def _until_ok(
    client: httpx.AsyncClient, audit: Audit, method: str, url: str, body: Any = None
) -> httpx.Response | None:
    """A request, retried on 503 or no answer for ``AUDIT_DEADLINE`` s; None if it fails."""
    deadline = time.monotonic() + AUDIT_DEADLINE
    while True:
        try:
            response = await client.request(method, url, json=body)
            if response.status_code != 503:
                if response.is_success:
                    return response
                audit.failures.append(f"{method} {url} -> {response.status_code} {response.text}")
                return None
        except httpx.HTTPError as error:
            response = None
            if time.monotonic() > deadline:
                audit.failures.append(f"{method} {url}: {error!r}")
                return None
        if time.monotonic() > deadline:
            audit.failures.append(f"{method} {url}: 503 for {AUDIT_DEADLINE:.0f} s")
            return None
        audit.retries += 1
        await asyncio.sleep(0.2)


async def _audit_game(
    client: httpx.AsyncClient, audit: Audit, game: GameRecord, jwks: Any, before: float | None
) -> None:
    """Check one game's stored log against what was acknowledged; finish it; replay it."""
    texts = game.texts
    answer = await _until_ok(client, audit, "GET", f"/v1/deals/{game.deal_id}")
    if answer is None:
        return
    state = answer.json()
    stored = str(state["moves"]).split()
    audit.games += 1
    for index, acked_at in game.acked.items():
        audit.moves_checked += 1
        if before is not None and acked_at < before:
            audit.moves_before += 1
        if index >= len(stored) or stored[index] != texts[index]:
            audit.lost.append(f"{game.deal_id} move {index} ({texts[index]})")
    if stored != texts[: len(stored)] or state["next_index"] != len(stored):
        audit.corrupted.append(f"{game.deal_id}: stored {state['moves']!r}, played {texts!r}")
        return
    if not state["finished"]:
        for index in range(len(stored), CELLS):
            cell = game.planned[index]
            move = {"index": index, "move": {"row": cell // 5, "col": cell % 5}}
            moved = await _until_ok(client, audit, "POST", f"/v1/deals/{game.deal_id}/moves", move)
            if moved is None:
                return
        audit.finished_now += 1
    elif len(stored) != CELLS:
        audit.corrupted.append(f"{game.deal_id}: finished after {len(stored)} moves")
        return
    answer = await _until_ok(client, audit, "GET", f"/v1/deals/{game.deal_id}/receipt")
    if answer is None:
        return
    token = answer.json()["receipt"]
    wrong = check_receipt(token, jwks, game.deal_id, game.seed_hash, " ".join(texts))
    if wrong is None and game.receipt is not None and token != game.receipt:
        wrong = f"receipt of {game.deal_id} changed since the game finished"
    if wrong is not None:
        audit.corrupted.append(wrong)
        return
    audit.receipts += 1
    audit.hit_503_finished += game.hit_503


async def audit_games(
    base_url: str, games: list[GameRecord], jwks: Any, before: float | None = None
) -> Audit:
    """Audit every game (8 at a time): none lost, none corrupted, every receipt replays."""
    audit = Audit()
    queue = list(games)

    async def worker() -> None:
        async with httpx.AsyncClient(
            base_url=base_url, timeout=REQUEST_TIMEOUT, trust_env=False
        ) as client:
            while queue:
                await _audit_game(client, audit, queue.pop(), jwks, before)

    await asyncio.gather(*(worker() for _ in range(8)))
    return audit


# --- reports ---------------------------------------------------------------------------------


@dataclass
class Report:
    """A scenario's figures and checks; it passes when every check does."""

    name: str
    setup: str
    lines: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool]] = field(default_factory=list)
    throughput: float | None = None
    """Requests a second answered 2xx, for a load run (compared across scenarios)."""

    @property
    def passed(self) -> bool:
        """Whether every check passed (and there was at least one)."""
        return bool(self.checks) and all(ok for _, ok in self.checks)

    def check(self, what: str, ok: bool) -> None:
        """Record one check."""
        self.checks.append((what, ok))

    def text(self) -> str:
        """The whole report as printed."""
        out = [f"-- {self.name}: {self.setup}", *(f"  {line}" for line in self.lines)]
        out += [f"  [{'ok' if ok else 'FAILED'}] {what}" for what, ok in self.checks]
        verdict = "PASS" if self.passed else "FAIL"
        failed = [what for what, ok in self.checks if not ok]
        summary = f"{len(self.checks)} checks passed" if self.passed else "; ".join(failed)
        out.append(f"{verdict} {self.name}: {summary}")
        return "\n".join(out)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def kind_table(calls: list[Call], elapsed: float) -> list[str]:
    """Requests, answers by status, req/s and p50/p99/max latency of 2xx answers, per kind."""
    lines = [
        f"{'kind':<9}{'requests':>9}{'2xx':>9}{'non-2xx':>9}{'no answer':>10}"
        f"{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
    ]
    rows: list[tuple[str, list[Call]]] = [(k, [c for c in calls if c.kind == k]) for k in KINDS]
    rows.append(("all", calls))
    for kind, group in rows:
        if not group:
            continue
        good = [c.end - c.start for c in group if c.ok]
        failed = sum(1 for c in group if c.status is not None and not c.ok)
        silent = sum(1 for c in group if c.status is None)
        figures = (
            (f"{_ms(percentile(good, 0.5))}", f"{_ms(percentile(good, 0.99))}", f"{_ms(max(good))}")
            if good
            else ("-", "-", "-")
        )
        lines.append(
            f"{kind:<9}{len(group):>9,}{len(good):>9,}{failed:>9,}{silent:>10,}"
            f"{len(good) / elapsed:>9,.0f}{figures[0]:>9}{figures[1]:>9}{figures[2]:>9}"
        )
    return lines


def statuses(calls: list[Call]) -> str:
    """Failed requests by kind and status ("none" if every one got a 2xx)."""
    counts = Counter(
        f"{c.kind} {c.status if c.status is not None else 'no answer'}" for c in calls if not c.ok
    )
    return ", ".join(f"{key}: {n}" for key, n in sorted(counts.items())) or "none"


def longest_gap(times: list[float], start: float, end: float) -> tuple[float, float]:
    """The longest stretch in ``[start, end]`` without one of ``times``; and where it began."""
    points = [start, *sorted(t for t in times if start <= t <= end), end]
    gap, at = 0.0, start
    for a, b in itertools.pairwise(points):
        if b - a > gap:
            gap, at = b - a, a
    return gap, at


def load_figures(driver: Driver, report: Report) -> float:
    """Add the per-kind table, throughput and errors to ``report``; return the elapsed time."""
    calls = driver.calls
    elapsed = max(c.end for c in calls) - driver.started_at
    report.lines += kind_table(calls, elapsed)
    good = sum(1 for c in calls if c.ok)
    receipts = sum(1 for g in driver.games if g.receipt is not None)
    moves = sum(len(g.acked) for g in driver.games)
    report.lines.append(
        f"throughput: {good / elapsed:,.0f} req/s answered 2xx over {elapsed:.1f} s; "
        f"{receipts:,} games finished with a verified receipt ({receipts / elapsed:.1f}/s), "
        f"{moves:,} moves ({moves / elapsed:,.0f}/s)"
    )
    report.lines.append(
        "CPU over the run: "
        + ", ".join(
            f"{name} {seconds:.1f} s ({seconds / elapsed:.0%} of a core, "
            f"{seconds / max(1, len(calls)) * 1e6:.0f} us per request)"
            for name, seconds in driver.cpu.items()
        )
        + " (workers: those alive at the end; Redis: if it ran the whole time)"
    )
    report.lines.append(f"failed requests by kind and status: {statuses(calls)}")
    for sample in [c.detail for c in calls if not c.ok][:3]:
        report.lines.append(f"  e.g. {sample}")
    for sample in driver.problems[:5]:
        report.lines.append(f"  wrong answer: {sample}")
    return elapsed


def audit_figures(audit: Audit, report: Report, before: str | None = None) -> None:
    """Add the audit line and its checks to ``report``."""
    extra = f" ({audit.moves_before:,} acknowledged before {before})" if before else ""
    report.lines.append(
        f"audit: {audit.games:,} games read back; acknowledged moves checked: "
        f"{audit.moves_checked:,}{extra}, lost: {len(audit.lost)}; corrupted games: "
        f"{len(audit.corrupted)}; {audit.finished_now} unfinished games finished; "
        f"{audit.receipts:,} receipts replayed offline; audit requests retried: {audit.retries}"
    )
    for sample in (audit.lost + audit.corrupted + audit.failures)[:5]:
        report.lines.append(f"  !!! {sample}")
    report.check(
        f"every game audited: {audit.games:,} of them, every receipt replays "
        f"({audit.receipts:,}), no audit request failed",
        not audit.failures and audit.receipts == audit.games and audit.games > 0,
    )
    report.check(
        f"no acknowledged move lost ({audit.moves_checked:,} checked{extra}), no game corrupted",
        not audit.lost and not audit.corrupted,
    )


# --- scenarios -------------------------------------------------------------------------------


def _setup(users: int, seconds: float) -> str:
    return (
        f"{users} users x {seconds:.0f} s, each request {PURE_SHARE * SCORE_SHARE:.0%} score, "
        f"{PURE_SHARE * (1 - SCORE_SHARE):.0%} verify (seed pair), "
        f"{1 - PURE_SHARE:.0%} a step of a blind poker-squares game"
    )


def load_scenario(
    base_url: str, *, seconds: float, users: int, redis_url: str | None = None, seed: int = 1
) -> Report:
    """A sustained mix for ``seconds``: zero errors, throughput and p99 reported."""
    driver = Driver(base_url, users, seconds, seed, redis_url)
    run_loop(driver.run())
    report = Report("load", _setup(users, seconds))
    elapsed = load_figures(driver, report)
    report.throughput = sum(1 for c in driver.calls if c.ok) / elapsed
    audit = run_loop(audit_games(base_url, driver.games, driver.jwks))
    audit_figures(audit, report)
    failed = [c for c in driver.calls if not c.ok]
    report.check(
        f"zero errors: {len(driver.calls):,} requests, {len(failed)} non-2xx or unanswered, "
        f"{len(driver.problems)} wrong answers",
        not failed and not driver.problems,
    )
    return report


@dataclass
class OutageMarks:
    """When the outage happened (``time.perf_counter()``)."""

    stopped: float = 0.0
    down: float = 0.0
    starting: float = 0.0
    up: float = 0.0
    ready: float | None = None
    not_ready_seen: bool = False


def outage_scenario(
    base_url: str,
    redis: RedisServer,
    *,
    seconds: float,
    users: int,
    outage: float = 5.0,
    seed: int = 2,
) -> Report:
    """The load, with Redis stopped (SIGTERM) mid-run for ``outage`` seconds, then started."""
    marks = OutageMarks()

    async def disrupt(driver: Driver) -> None:
        await asyncio.sleep(
            max(0.0, driver.started_at + (seconds - outage) / 2 - time.perf_counter())
        )
        marks.stopped = time.perf_counter()
        await asyncio.to_thread(redis.stop)
        marks.down = time.perf_counter()
        async with httpx.AsyncClient(base_url=base_url, timeout=5, trust_env=False) as client:
            while time.perf_counter() < marks.stopped + outage:
                answer = await client.get("/readyz")
                marks.not_ready_seen |= answer.status_code == 503
                await asyncio.sleep(0.25)
            marks.starting = time.perf_counter()
            await asyncio.to_thread(redis.start)
            marks.up = time.perf_counter()
            streak = 0  # both workers: several 200s in a row
            while streak < 6 and time.perf_counter() < marks.up + READY_TIMEOUT:
                answer = await client.get("/readyz")
                streak = streak + 1 if answer.status_code == 200 else 0
                await asyncio.sleep(0.05)
            if streak >= 6:
                marks.ready = time.perf_counter()

    driver = Driver(base_url, users, seconds, seed, redis.url)
    run_loop(driver.run(disrupt))
    report = Report(
        "outage",
        f"{_setup(users, seconds)}; Redis stopped (SIGTERM) {outage:.0f} s mid-run, then started",
    )
    load_figures(driver, report)
    t0 = driver.started_at
    recovered = marks.ready if marks.ready is not None else marks.up + READY_TIMEOUT
    report.lines.append(
        f"Redis: SIGTERM at {marks.stopped - t0:.1f} s, exited {marks.down - marks.stopped:.2f} s "
        f"later; started again at {marks.starting - t0:.1f} s, answering PING after "
        f"{marks.up - marks.starting:.2f} s; /readyz 200 again "
        + (f"{marks.ready - marks.up:.2f} s after that" if marks.ready else "NEVER")
    )
    calls = driver.calls
    during = [c for c in calls if c.end >= marks.stopped and c.start <= recovered]
    report.lines.append("during the outage (from the SIGTERM until /readyz was 200 again):")
    report.lines += [
        "  " + line for line in kind_table(during, max(recovered - marks.stopped, 1e-3))
    ]
    stateless = [c for c in calls if c.kind in STATELESS_KINDS]
    stateful = [c for c in calls if c.kind in STATEFUL_KINDS]
    refused = [c for c in stateful if c.status == 503]
    allowed = [
        c for c in refused if c.end >= marks.stopped and c.start <= recovered + RECOVERY_GRACE
    ]
    late = [c for c in refused if c.start > recovered + RECOVERY_GRACE]
    early = [c for c in refused if c.end < marks.stopped]
    other = [c for c in stateful if not c.ok and c.status != 503]
    pure_times = [c.end for c in calls if c.kind in PURE_KINDS and c.ok]
    pure_during = [t for t in pure_times if marks.down <= t <= marks.starting]
    gap, gap_at = longest_gap(pure_times, marks.stopped, recovered)
    slowest_503 = max((c.end - c.start for c in refused), default=0.0)
    after = [c for c in stateful if c.ok and c.start > recovered]
    report.lines.append(
        f"pure answers (score, verify) while Redis was down: {len(pure_during):,}; the longest "
        f"gap without one from the SIGTERM to /readyz 200: {_ms(gap)} ms (at {gap_at - t0:.1f} s)"
    )
    report.lines.append(
        f"stateful 503s: {len(refused):,} (slowest {_ms(slowest_503)} ms), "
        f"{sum(not c.well_formed for c in refused)} without problem+json and Retry-After; "
        f"{len(late)} after recovery + {RECOVERY_GRACE:.0f} s; games that got a 503 and "
        f"finished later: {sum(g.hit_503 for g in driver.games if g.receipt)} during the run"
    )
    for c in (late + early)[:5]:
        report.lines.append(
            f"  !!! 503 outside the outage: {c.kind} from {c.start - t0:.2f} s to "
            f"{c.end - t0:.2f} s: {c.detail}"
        )
    audit = run_loop(audit_games(base_url, driver.games, driver.jwks, before=marks.stopped))
    audit_figures(audit, report, before="the outage")
    report.check(
        "score, verify and commitments answered 2xx throughout "
        f"({len(stateless):,} requests, {len(pure_during):,} of them while Redis was down; "
        f"longest gap {_ms(gap)} ms)",
        all(c.ok for c in stateless) and len(pure_during) > 0 and gap < 1.0,
    )
    report.check(
        f"stateful requests answered 2xx or a well-formed 503 ({len(refused):,} 503s, "
        f"{sum(c.well_formed for c in refused):,} of them problem+json with Retry-After; "
        f"{len(other)} other failures)",
        len(refused) > 0 and all(c.well_formed for c in refused) and not other,
    )
    report.check(
        f"503 only while Redis was down: from the SIGTERM to {RECOVERY_GRACE:.0f} s after "
        f"/readyz was 200 again ({len(early)} before, {len(late)} after)",
        len(allowed) == len(refused) and not late and not early,
    )
    report.check(
        "no request went unanswered (transport errors: "
        f"{sum(1 for c in calls if c.status is None)})",
        all(c.status is not None for c in calls),
    )
    report.check(
        f"/readyz said not-ready during the outage and 200 again within {READY_TIMEOUT:.0f} s "
        "of Redis answering",
        marks.not_ready_seen and marks.ready is not None,
    )
    report.check(
        f"recovered: {len(after):,} stateful requests answered 2xx after /readyz was 200 again",
        len(after) > 0,
    )
    report.check(f"no wrong answer ({len(driver.problems)})", not driver.problems)
    return report


@dataclass
class KillMarks:
    """The killed worker and what the supervisor did."""

    workers: list[int] = field(default_factory=list)
    victim: int | None = None
    killed: float = 0.0
    survivor_cpu: float | None = None
    respawned: int | None = None
    respawned_after: float | None = None
    respawned_cpu: float | None = None
    """CPU seconds the replacement worker used by the end of the run (start-up included)."""


def kill_scenario(
    base_url: str, *, seconds: float, users: int, redis_url: str | None = None, seed: int = 3
) -> Report:
    """The load, with one of two workers SIGKILLed mid-run: the other keeps answering."""
    driver = Driver(base_url, users, seconds, seed, redis_url)
    pid = driver.server_pid
    marks = KillMarks()

    async def disrupt(driver: Driver) -> None:
        await asyncio.sleep(max(0.0, driver.started_at + seconds / 2 - time.perf_counter()))
        marks.workers = worker_pids(pid)
        if len(marks.workers) < 2:
            return
        marks.victim = marks.workers[0]
        marks.killed = time.perf_counter()
        os.kill(marks.victim, signal.SIGKILL)
        survivor = marks.workers[1]
        cpu_before = process_cpu(survivor)
        deadline = min(marks.killed + RESPAWN_WATCH, max(driver.stop_at, marks.killed + 5.0))
        while time.perf_counter() < deadline:
            fresh = [w for w in worker_pids(pid) if w not in marks.workers]
            if fresh:
                marks.respawned = fresh[0]
                marks.respawned_after = time.perf_counter() - marks.killed
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(max(0.0, driver.stop_at - time.perf_counter()))
        cpu_after = process_cpu(survivor)
        if cpu_before is not None and cpu_after is not None:
            marks.survivor_cpu = cpu_after - cpu_before
        if marks.respawned is not None:
            marks.respawned_cpu = process_cpu(marks.respawned)

    run_loop(driver.run(disrupt))
    report = Report("kill", f"{_setup(users, seconds)}; one of 2 workers SIGKILLed mid-run")
    load_figures(driver, report)
    calls, t0 = driver.calls, driver.started_at
    if marks.victim is None:
        report.check(f"two workers found under pid {pid} (found {marks.workers})", False)
        return report
    report.lines.append(
        f"workers {marks.workers} under the supervisor {pid}; SIGKILL to {marks.victim} at "
        f"{marks.killed - t0:.1f} s; the other used {marks.survivor_cpu or 0:.2f} s of CPU "
        "from the kill to the end"
    )
    report.lines.append(
        "uvicorn's supervisor respawned the worker: "
        + (
            f"yes, pid {marks.respawned} {marks.respawned_after:.2f} s after the kill; it used "
            f"{marks.respawned_cpu or 0:.2f} s of CPU by the end of the run (start-up included)"
            if marks.respawned_after is not None
            else "no, not while it was watched (until the end of the run, at least 5 s)"
        )
    )
    end = max(c.end for c in calls)
    answered = [c.end for c in calls if c.ok]
    gap, gap_at = longest_gap(answered, t0, end)
    near, near_at = longest_gap(answered, marks.killed, min(end, marks.killed + 5.0))
    report.lines.append(
        f"longest gap without a 2xx answer: {_ms(gap)} ms over the run (at {gap_at - t0:.1f} s), "
        f"{_ms(near)} ms in the 5 s after the kill (at {near_at - t0:.2f} s)"
    )
    silent = [c for c in calls if c.status is None]
    in_flight = [c for c in silent if c.start <= marks.killed + KILL_GRACE]
    report.lines.append(
        f"transport errors: {len(silent)} ({len(in_flight)} on requests started by "
        f"{KILL_GRACE:.0f} s after the kill: in flight on the killed worker), each retried"
    )
    for sample in [c.detail for c in silent][:3]:
        report.lines.append(f"  e.g. {sample}")
    audit = run_loop(audit_games(base_url, driver.games, driver.jwks, before=marks.killed))
    audit_figures(audit, report, before="the kill")
    answered_after = [c for c in calls if c.ok and c.start > marks.killed]
    report.check(
        f"the server kept answering: longest gap without a 2xx answer {_ms(gap)} ms <= "
        f"{MAX_GAP * 1e3:.0f} ms; {len(answered_after):,} answered 2xx after the kill",
        gap <= MAX_GAP and len(answered_after) > 0,
    )
    report.check(
        "every failure was a transport error on a request in flight at the kill "
        f"({len(in_flight)}); no non-2xx answer ({sum(1 for c in calls if c.status and not c.ok)})",
        len(in_flight) == len(silent) and all(c.ok or c.status is None for c in calls),
    )
    report.check(f"no wrong answer ({len(driver.problems)})", not driver.problems)
    return report


@dataclass
class SwitchMarks:
    """The two failovers of the sentinel scenario (``time.perf_counter()``)."""

    asked: float = 0.0
    asked_done: float = 0.0
    killed: float = 0.0
    killed_done: float = 0.0
    back: float = 0.0
    not_ready: list[tuple[float, float]] = field(default_factory=list)
    """Each stretch /readyz was not 200 (from, to)."""


async def watch_readiness(base_url: str, marks: SwitchMarks, stop: asyncio.Event) -> None:
    """Poll ``/readyz`` every 50 ms until ``stop``; each stretch it was not 200 in ``marks``."""
    since: float | None = None
    async with httpx.AsyncClient(base_url=base_url, timeout=2, trust_env=False) as client:
        while not stop.is_set():
            try:
                ok = (await client.get("/readyz")).status_code == 200
            except httpx.TransportError:
                ok = False
            now = time.perf_counter()
            if not ok and since is None:
                since = now
            elif ok and since is not None:
                marks.not_ready.append((since, now))
                since = None
            await asyncio.sleep(0.05)


async def kill_until_switched(
    victim: RedisServer, switched: Callable[[], bool], marks: SwitchMarks
) -> None:
    """SIGKILL ``victim``, wait until ``switched()`` says another server took over, then
    start it again (it comes back a replica); each moment in ``marks``."""
    marks.killed = time.perf_counter()
    await asyncio.to_thread(victim.kill)
    while not await asyncio.to_thread(switched):
        await asyncio.sleep(0.1)
    marks.killed_done = time.perf_counter()
    await asyncio.to_thread(victim.start)
    marks.back = time.perf_counter()


def switch_figures(
    base_url: str, driver: Driver, marks: SwitchMarks, report: Report
) -> tuple[float, list[Call]]:
    """Add how long ``/readyz`` said not ready, the moves acknowledged and refused, and the
    audit (none lost, counting those acknowledged before the kill) to ``report``, with
    the check that every refusal was a well-formed 503; the time not ready and the moves
    acknowledged."""
    t0 = driver.started_at
    not_ready = sum(end - start for start, end in marks.not_ready)
    report.lines.append(
        f"/readyz not ready for {not_ready:.2f} s in all, in {len(marks.not_ready)} stretches: "
        + ", ".join(f"{start - t0:.1f}-{end - t0:.1f} s" for start, end in marks.not_ready)
    )
    calls = driver.calls
    moves = [c for c in calls if c.kind == "move" and c.ok]
    refused = [c for c in calls if c.status == 503]
    other = [c for c in calls if not c.ok and c.status not in (503, None)]
    report.lines.append(
        f"moves acknowledged: {len(moves):,}; 503s: {len(refused):,} "
        f"({sum(not c.well_formed for c in refused)} without problem+json and Retry-After); "
        f"other failures: {len(other)}; transport errors: "
        f"{sum(1 for c in calls if c.status is None)}"
    )
    audit = run_loop(audit_games(base_url, driver.games, driver.jwks, before=marks.killed))
    audit_figures(audit, report, before="the kill")
    report.check(
        f"every refusal a well-formed 503 ({len(refused):,}), no other failure ({len(other)})",
        all(c.well_formed for c in refused) and not other,
    )
    return not_ready, moves


def sentinel_scenario(
    base_url: str, group: SentinelGroup, *, seconds: float, users: int, seed: int = 5
) -> Report:
    """The load on a primary, a replica and three sentinels (``MIN_REPLICAS=1``): a failover
    asked for at a fifth of the run, the primary killed a little before half of it (and
    started again, a replica then: the rest of the run shows play going on once it has
    synced). Nothing acknowledged may be lost; 503s only around the switches."""
    marks = SwitchMarks()

    async def disrupt(driver: Driver) -> None:
        stop = asyncio.Event()
        watcher = asyncio.create_task(watch_readiness(base_url, marks, stop))
        await asyncio.sleep(max(0.0, driver.started_at + seconds / 5 - time.perf_counter()))
        marks.asked = time.perf_counter()
        await asyncio.to_thread(group.failover)
        marks.asked_done = time.perf_counter()
        await asyncio.sleep(max(0.0, driver.started_at + 9 * seconds / 20 - time.perf_counter()))
        victim = group.server_on(group.primary_port())
        await kill_until_switched(victim, lambda: group.primary_port() != victim.port, marks)
        await asyncio.sleep(max(0.0, driver.stop_at - time.perf_counter()))
        stop.set()
        await watcher

    driver = Driver(base_url, users, seconds, seed)
    run_loop(driver.run(disrupt))
    report = Report(
        "sentinel",
        f"{_setup(users, seconds)}; a primary, a replica and 3 sentinels, "
        "CARDPROOF_REDIS_MIN_REPLICAS=1: a failover asked for at 1/5, the primary killed at 9/20",
    )
    load_figures(driver, report)
    t0 = driver.started_at
    report.lines.append(
        f"SENTINEL FAILOVER at {marks.asked - t0:.1f} s, a new primary named "
        f"{marks.asked_done - marks.asked:.2f} s later; the primary SIGKILLed at "
        f"{marks.killed - t0:.1f} s, the other named {marks.killed_done - marks.killed:.2f} s "
        f"later; the killed server started again at {marks.back - t0:.1f} s (a replica then)"
    )
    not_ready, moves = switch_figures(base_url, driver, marks, report)
    report.check(
        "/readyz said not ready during a switch and ready again after "
        f"({len(marks.not_ready)} stretches, {not_ready:.2f} s)",
        bool(marks.not_ready),
    )
    report.check(
        f"play went on after both switches ({sum(c.start > marks.back for c in moves):,} moves "
        "acknowledged after the killed server came back)",
        any(c.start > marks.back for c in moves),
    )
    report.check(f"no wrong answer ({len(driver.problems)})", not driver.problems)
    return report


def cluster_scenario(
    base_url: str,
    cluster: RedisClusterGroup,
    *,
    seconds: float,
    users: int,
    seed: int = 6,
    single: float | None = None,
) -> Report:
    """The load on a Redis Cluster of three masters: zero errors, nothing lost; how the
    keys and the commands spread over the masters; the throughput against ``single``
    (the ``load`` scenario's on one Redis, in requests a second) when given."""
    import redis as redis_client

    def counts() -> list[tuple[int, int]]:
        """Each master's keys and commands processed so far."""
        found = []
        for node in cluster.nodes:
            with redis_client.Redis(port=node.port, socket_timeout=5) as client:
                stats = client.info("stats")
                found.append((int(client.dbsize()), int(stats["total_commands_processed"])))
        return found

    before = counts()
    driver = Driver(base_url, users, seconds, seed)
    run_loop(driver.run())
    after = counts()
    report = Report("cluster", f"{_setup(users, seconds)}; a Redis Cluster of 3 masters")
    elapsed = load_figures(driver, report)
    keys = [k for k, _ in after]
    commands = [a[1] - b[1] for a, b in zip(after, before, strict=True)]
    report.lines.append(
        "keys per master at the end: "
        + ", ".join(f"{k:,}" for k in keys)
        + f" (the largest {max(keys) / max(1, sum(keys)):.0%} of all); commands per master "
        "over the run: " + ", ".join(f"{c:,}" for c in commands)
    )
    good = sum(1 for c in driver.calls if c.ok)
    if single:
        report.lines.append(
            f"throughput {good / elapsed:,.0f} req/s against {single:,.0f} req/s on one Redis "
            f"in this run: ratio cluster/single {good / elapsed / single:.2f}"
        )
    audit = run_loop(audit_games(base_url, driver.games, driver.jwks))
    audit_figures(audit, report)
    failed = [c for c in driver.calls if not c.ok]
    report.check(
        f"zero errors: {len(driver.calls):,} requests, {len(failed)} non-2xx or unanswered, "
        f"{len(driver.problems)} wrong answers",
        not failed and not driver.problems,
    )
    report.check(
        f"every master holds keys ({', '.join(map(str, keys))}) and took commands",
        all(keys) and all(commands),
    )
    return report


def cluster_failover_scenario(
    base_url: str, cluster: RedisClusterGroup, *, seconds: float, users: int, seed: int = 7
) -> Report:
    """The load on a cluster of three masters with a replica each (``MIN_REPLICAS=1``): at
    two fifths of the run the master that holds the most keys is SIGKILLed; its replica
    takes over, and the killed node starts again (a replica then). Nothing acknowledged
    may be lost; 503s only around the switch."""
    import redis as redis_client

    marks = SwitchMarks()

    def busiest() -> RedisServer:
        """The master holding the most keys (a master's INFO and DBSIZE: one look each)."""
        sizes = {}
        for node in cluster.nodes:
            with redis_client.Redis(port=node.port, socket_timeout=2) as client:
                if client.info("replication")["role"] == "master":
                    sizes[node.port] = int(client.dbsize())
        port = max(sizes, key=lambda p: sizes[p])
        return next(node for node in cluster.nodes if node.port == port)

    async def disrupt(driver: Driver) -> None:
        stop = asyncio.Event()
        watcher = asyncio.create_task(watch_readiness(base_url, marks, stop))
        await asyncio.sleep(max(0.0, driver.started_at + 2 * seconds / 5 - time.perf_counter()))
        victim = await asyncio.to_thread(busiest)
        await kill_until_switched(victim, cluster.ready, marks)
        await asyncio.sleep(max(0.0, driver.stop_at - time.perf_counter()))
        stop.set()
        await watcher

    driver = Driver(base_url, users, seconds, seed)
    run_loop(driver.run(disrupt))
    report = Report(
        "cluster-failover",
        f"{_setup(users, seconds)}; a Redis Cluster of 3 masters with a replica each, "
        "CARDPROOF_REDIS_MIN_REPLICAS=1: the busiest master SIGKILLed at 2/5",
    )
    load_figures(driver, report)
    t0 = driver.started_at
    report.lines.append(
        f"the master SIGKILLed at {marks.killed - t0:.1f} s, the cluster whole again "
        f"{marks.killed_done - marks.killed:.2f} s later (its replica promoted); the killed "
        f"node started again at {marks.back - t0:.1f} s (a replica then)"
    )
    not_ready, moves = switch_figures(base_url, driver, marks, report)
    report.check(
        "/readyz said not ready during the switch and ready again after "
        f"({len(marks.not_ready)} stretches, {not_ready:.2f} s)",
        bool(marks.not_ready),
    )
    report.check(
        f"play went on after the switch ({sum(c.start > marks.killed_done for c in moves):,} "
        "moves acknowledged after it)",
        any(c.start > marks.killed_done for c in moves),
    )
    report.check(f"no wrong answer ({len(driver.problems)})", not driver.problems)
    return report


def _moment(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


async def _ok(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> Any:
    """A request that must answer 2xx (retried on 503 for ``READY_TIMEOUT`` s); its JSON."""
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        answer = await client.request(method, url, json=body, headers=headers)
        if answer.status_code != 503 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    if not answer.is_success:
        raise AssertionError(f"{method} {url} -> {answer.status_code} {answer.text}")
    return answer.json()


async def _play(
    client: httpx.AsyncClient, deal_id: str, cells: list[int], start: int, token: str | None
) -> Any:
    """Moves ``start``.. of ``cells`` on a deal; the last answer."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    answer: Any = None
    for index in range(start, len(cells)):
        move = {"index": index, "move": {"row": cells[index] // 5, "col": cells[index] % 5}}
        answer = await _ok(client, "POST", f"/v1/deals/{deal_id}/moves", move, headers)
    return answer


@dataclass
class Acknowledged:
    """What the restart scenario wrote, to read back after each crash."""

    deals: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    tournament: str = ""
    organizer: str = ""
    half_done: tuple[str, list[int], str] = ("", [], "")
    """An entrant's unfinished round game: its deal id, cells and token."""
    open_deal: tuple[str, list[int]] = ("", [])
    """An unfinished casual blind game."""
    tokens: dict[str, str] = field(default_factory=dict)
    """A tournament game's entrant token, by deal id: reading the game takes it."""


async def _write(client: httpx.AsyncClient, ack: Acknowledged) -> None:
    """Blind games (eight finished, one half-played) and a two-round tournament."""
    rng = random.Random(4)

    async def blind_game(number: int, moves: int) -> tuple[str, list[int]]:
        commitment = await _ok(client, "POST", "/v1/commitments", {})
        deal = await _ok(
            client,
            "POST",
            "/v1/deals",
            {
                "variant": "poker-squares",
                "commitment_id": commitment["commitment_id"],
                "client_seed": f"restart-{number}",
            },
        )
        cells = rng.sample(range(CELLS), CELLS)
        await _play(client, deal["deal_id"], cells[:moves], 0, None)
        return deal["deal_id"], cells

    for number in range(8):
        deal_id, _ = await blind_game(number, CELLS)
        ack.deals.append(deal_id)
        ack.finished.append(deal_id)
    ack.open_deal = await blind_game(8, 10)
    ack.deals.append(ack.open_deal[0])

    organizer = {"Authorization": f"Bearer {ack.organizer}"}
    created = await _ok(
        client,
        "POST",
        "/v1/tournaments",
        {
            "name": "Reliability Open",
            "variant": "poker-squares",
            "options": {"scoring": "british"},
            "rounds": 2,
            "opens_at": _moment(-1),
            "closes_at": _moment(2),
            "format": "async",  # each at their own pace: a hidden variant, so by invitation
            "entry": "invite",
            "invites": 5,
        },
        organizer,
    )
    ack.tournament = created["tournament"]["tournament_id"]
    codes = created["invite_codes"]
    for name, code in zip(("Ada", "Bea", "Cy", "Dee", "Eve"), codes, strict=True):
        entry = await _ok(
            client,
            "POST",
            f"/v1/tournaments/{ack.tournament}/entries",
            {"name": name, "invite_code": code},
        )
        token = entry["token"]
        for round_number in (1, 2):
            url = f"/v1/tournaments/{ack.tournament}/rounds/{round_number}/deal"
            bearer = {"Authorization": f"Bearer {token}"}
            deal = await _ok(client, "POST", url, {}, bearer)
            ack.tokens[deal["deal_id"]] = token
            cells = rng.sample(range(CELLS), CELLS)
            ack.deals.append(deal["deal_id"])
            if name == "Eve" and round_number == 2:  # stops half-way: not in the standings
                await _play(client, deal["deal_id"], cells[:12], 0, token)
                ack.half_done = (deal["deal_id"], cells, token)
                continue
            await _play(client, deal["deal_id"], cells, 0, token)
            ack.finished.append(deal["deal_id"])


async def _pars_solved(client: httpx.AsyncClient, tournament_id: str, organizer: str) -> None:
    """Wait until a closed tournament's rounds have their pars (solved after the close)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = await client.get(
            f"/v1/tournaments/{tournament_id}/standings",
            headers={"Authorization": f"Bearer {organizer}"},  # invite-only: the organizer reads
        )
        if answer.status_code == 200 and "pars_pending" not in answer.json():
            return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"the pars of {tournament_id} were not solved in 120 s")


async def _snapshot(client: httpx.AsyncClient, ack: Acknowledged, closed: bool) -> dict[str, Any]:
    """Everything acknowledged, read back: deals, receipts, tournament, standings, settlement."""
    tid = ack.tournament
    seen: dict[str, Any] = {}

    def entrant(deal_id: str) -> dict[str, str] | None:
        token = ack.tokens.get(deal_id)
        return {"Authorization": f"Bearer {token}"} if token else None

    for deal_id in ack.deals:
        url = f"/v1/deals/{deal_id}"
        seen[f"deal {deal_id}"] = await _ok(client, "GET", url, None, entrant(deal_id))
    for deal_id in ack.finished:
        url = f"/v1/deals/{deal_id}/receipt"
        receipt = await _ok(client, "GET", url, None, entrant(deal_id))
        receipt.pop("log", None)  # its place in the log: proved against the latest checkpoint
        seen[f"receipt {deal_id}"] = receipt
    organizer = {"Authorization": f"Bearer {ack.organizer}"}  # invite-only: the organizer reads
    for what in ("", "/standings", "/settlement", *(("/export",) if closed else ())):
        url = f"/v1/tournaments/{tid}{what}"
        seen[f"tournament{what}"] = await _ok(client, "GET", url, None, organizer)
    return seen


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [key for key in before if before[key] != after.get(key)]


async def _wait_ready(client: httpx.AsyncClient) -> float:
    """Poll ``/readyz`` until it answers 200 six times in a row; the seconds it took."""
    start = time.monotonic()
    streak = 0
    while streak < 6:
        if time.monotonic() - start > READY_TIMEOUT:
            raise AssertionError(f"/readyz not 200 within {READY_TIMEOUT:.0f} s")
        streak = streak + 1 if (await client.get("/readyz")).status_code == 200 else 0
        await asyncio.sleep(0.05)
    return time.monotonic() - start


def restart_scenario(base_url: str, redis: RedisServer, organizer: str) -> Report:
    """Finished games and a tournament survive two Redis crashes (AOF, fsync always)."""
    from cardproof.tournaments import ExportError, verify_export

    report = Report(
        "restart",
        "Redis with appendonly yes, appendfsync always; 8 finished blind games, 1 unfinished, "
        "a 2-round tournament (4 entrants finish both rounds, 1 stops half-way); "
        "Redis crashed (SIGKILL) and started, twice",
    )
    ack = Acknowledged(organizer=organizer)

    unavailable: list[str] = []

    async def count_503(response: httpx.Response) -> None:
        if response.status_code == 503 and response.request.url.path != "/readyz":
            unavailable.append(f"{response.request.method} {response.request.url.path}")

    async def run() -> None:
        async with httpx.AsyncClient(
            base_url=base_url,
            timeout=REQUEST_TIMEOUT,
            trust_env=False,
            event_hooks={"response": [count_503]},
        ) as client:
            started = time.monotonic()
            await _write(client, ack)
            first = await _snapshot(client, ack, closed=False)
            standings = first["tournament/standings"]["entrants"]
            report.lines.append(
                f"written in {time.monotonic() - started:.1f} s: {len(ack.deals)} deals "
                f"({len(ack.finished)} finished); standings "
                + ", ".join(
                    f"{s['rank']}. {s['name']} {s['total']} ({s['games_finished']})"
                    for s in standings
                )
            )
            await asyncio.to_thread(redis.kill)
            crashed = time.monotonic()
            await asyncio.to_thread(redis.start)
            ready = await _wait_ready(client)
            report.lines.append(
                f"crash 1: SIGKILL; started and ready again in {time.monotonic() - crashed:.2f} s "
                f"(/readyz {ready:.2f} s after PING)"
            )
            second = await _snapshot(client, ack, closed=False)
            changed = _differences(first, second)
            report.check(
                f"after crash 1, all {len(first)} records identical (every deal's state, "
                "every finished game's receipt, the tournament, standings, settlement)"
                + (f"; changed: {changed[:5]}" if changed else ""),
                not changed,
            )
            deal_id, cells, token = ack.half_done
            last = await _play(client, deal_id, cells, 12, token)
            open_id, open_cells = ack.open_deal
            open_last = await _play(client, open_id, open_cells, 10, None)
            report.check(
                "the unfinished games continue where they were acknowledged and finish",
                bool(last and last["finished"] and open_last and open_last["finished"]),
            )
            ack.finished += [deal_id, open_id]
            await _ok(
                client,
                "POST",
                f"/v1/tournaments/{ack.tournament}/close",
                {},
                {"Authorization": f"Bearer {organizer}"},
            )
            await _pars_solved(client, ack.tournament, organizer)  # standings change with them
            third = await _snapshot(client, ack, closed=True)
            await asyncio.to_thread(redis.kill)
            crashed = time.monotonic()
            await asyncio.to_thread(redis.start)
            await _wait_ready(client)
            report.lines.append(
                f"crash 2 (tournament closed): ready again in {time.monotonic() - crashed:.2f} s"
            )
            fourth = await _snapshot(client, ack, closed=True)
            changed = _differences(third, fourth)
            report.check(
                f"after crash 2, all {len(third)} records identical, the export included"
                + (f"; changed: {changed[:5]}" if changed else ""),
                not changed,
            )
            jwks = await _ok(client, "GET", "/.well-known/jwks.json")
            export = fourth["tournament/export"]
            games = 2 * 5  # every entrant's two rounds, Eve's second finished after crash 1
            try:
                checked = verify_export(msgspec.json.encode(export), jwks)
            except ExportError as error:
                report.check(f"the export verifies offline: {error}", False)
            else:
                report.lines.append(
                    f"export: {checked.games} games, standings "
                    + ", ".join(f"{s.name} {s.total}" for s in checked.standings)
                )
                recomputed = [msgspec.to_builtins(line) for line in checked.standings]
                report.check(
                    f"the export verifies offline: {checked.games} of {games} games replayed, "
                    "standings recomputed from them as the API's; problems: none",
                    checked.games == games
                    and recomputed == fourth["tournament/standings"]["entrants"],
                )
            wrong = []
            for deal_id in ack.finished:
                problem = _replays(fourth[f"receipt {deal_id}"]["receipt"], jwks, deal_id)
                if problem is not None:
                    wrong.append(problem)
            report.check(
                f"every receipt ({len(ack.finished)}) replays offline"
                + (f": {wrong[:3]}" if wrong else ""),
                not wrong,
            )

    try:
        run_loop(run())
    except (AssertionError, httpx.HTTPError, KeyError) as error:
        report.check(f"the scenario ran to its end ({error!r:.300})", False)
    report.lines.append(
        f"requests answered 503 once Redis was ready again (and then retried): {len(unavailable)}"
        + (f", e.g. {', '.join(unavailable[:3])}" if unavailable else "")
    )
    return report


def _replays(token: str, jwks: Any, deal_id: str) -> str | None:
    """What is wrong with a receipt (``None``: its signature holds and it replays)."""
    from cardproof.receipts import ReceiptError, verify_receipt

    try:
        checked = verify_receipt(token, jwks, allow=["casual"])
    except ReceiptError as error:
        return f"{deal_id}: {error}"
    return (
        None if checked.replayed and checked.payload.deal_id == deal_id else f"{deal_id}: no replay"
    )


def schemathesis_config(receipt_deal: str, open_deal: str, tournament: str, entrant: str) -> str:
    """``schemathesis.toml``: ``tests/test_schemathesis.py``'s checks, and ids to reach into.

    Generated requests that match the schema may still break a rule (a duplicate card, an
    illegal move): 422 by design, so the positive-data check accepts it (and 429, a rate
    limit); a schema-violating body too large is 413 before it is read, one to an
    organizer endpoint without a key 401. Path ids of a finished deal (for its receipt),
    an unfinished one and an open 50-round tournament (every operation on it but the
    close), and an entrant's token for opening its rounds, let generated requests reach
    past the 404 and the 401.
    """
    statuses = '", "'
    tournament_paths = "(/(entries|standings|settlement|export))?"
    lines = [
        "[checks.positive_data_acceptance]",
        f'expected-statuses = ["{statuses.join(POSITIVE_STATUSES)}"]',
        "[checks.negative_data_rejection]",
        f'expected-statuses = ["{statuses.join(NEGATIVE_STATUSES)}"]',
        "[[operations]]",
        'include-path = "/v1/deals/{deal_id}/receipt"',
        f'parameters = {{ deal_id = "{receipt_deal}" }}',
        "[[operations]]",
        "include-path-regex = '^/v1/deals/[{]deal_id[}](/moves)?$'",
        f'parameters = {{ deal_id = "{open_deal}" }}',
        "[[operations]]",
        f"include-path-regex = '^/v1/tournaments/[{{]tournament_id[}}]{tournament_paths}$'",
        f'parameters = {{ tournament_id = "{tournament}" }}',
        "[[operations]]",  # a long poll answers at once: no request outwaits the timeout
        'include-path = "/v1/tournaments/{tournament_id}/rounds/{round_number}/calls"',
        'parameters = { "query.wait" = 0 }',
        "[[operations]]",
        'include-path = "/v1/tournaments/{tournament_id}/rounds/{round_number}/deal"',
        f'parameters = {{ tournament_id = "{tournament}" }}',
        f'headers = {{ Authorization = "Bearer {entrant}" }}',
    ]
    return "\n".join(lines) + "\n"


def schemathesis_scenario(
    base_url: str, organizer: str, *, max_examples: int, workdir: Path, seed: int = 7
) -> Report:
    """The schemathesis CLI, every check and phase, against the running server: no failure."""

    async def ids() -> tuple[str, str, str, str]:
        async with httpx.AsyncClient(base_url=base_url, timeout=10, trust_env=False) as client:
            finished = await _ok(client, "POST", "/v1/deals", {"variant": "poker-squares"})
            await _play(client, finished["deal_id"], list(range(CELLS)), 0, None)
            unfinished = await _ok(client, "POST", "/v1/deals", {"variant": "poker-squares"})
            body = {
                "name": "Schemathesis Open",
                "variant": "poker-squares",
                "rounds": 50,
                "opens_at": _moment(-1),
                "closes_at": _moment(24),
            }
            headers = {"Authorization": f"Bearer {organizer}"}
            created = await _ok(client, "POST", "/v1/tournaments", body, headers)
            tid = created["tournament"]["tournament_id"]
            entry = await _ok(client, "POST", f"/v1/tournaments/{tid}/entries", {"name": "Ada"})
            return finished["deal_id"], unfinished["deal_id"], tid, entry["token"]

    config = workdir / "schemathesis.toml"
    config.write_text(schemathesis_config(*run_loop(ids())))
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        *("--config-file", str(config), "run", f"{base_url}/schema/openapi.json"),
        *("--checks", "all", "--max-examples", str(max_examples), "--seed", str(seed)),
        *("--header", f"Authorization: Bearer {organizer}", "--no-color"),
        *("--generation-database", "none", "--request-timeout", "10", "--workers", "1"),
    ]
    shown = " ".join(
        part if not part.startswith("Authorization") else "'Authorization: Bearer cpo_...'"
        for part in command[1:]
    )
    report = Report("schemathesis", f"schemathesis {shown}")
    started = time.monotonic()
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=workdir, timeout=900, check=False
    )
    took = time.monotonic() - started
    output = done.stdout + done.stderr
    generated = re.search(r"(\d+) generated", output)
    failures = re.search(r"found (\d+) unique failure", output)
    errored = re.search(r"(\d+) errored", output)
    phases = re.findall(r"^\s*(?:✅|❌|⏭|🚫)?\s*(\w+) \(in ([\d.]+)s\)", output, re.MULTILINE)
    cases = int(generated[1]) if generated else 0
    report.lines.append(
        f"{cases:,} test cases in {took:.1f} s over "
        + (", ".join(f"{name} {seconds} s" for name, seconds in phases) or "?")
        + f"; exit status {done.returncode}"
    )
    marks = [output.find(title) for title in (" WARNINGS ", " SUMMARY ") if title in output]
    summary = output[output.rfind("\n", 0, min(marks)) + 1 :] if marks else output[-3000:]
    if done.returncode != 0 or failures or errored:
        report.lines.append("full output:")
        report.lines += output.splitlines()
    else:
        report.lines += [line for line in summary.splitlines() if line.strip()]
    report.check(
        f"zero failures and errors over {cases:,} cases, all checks (exit status 0)",
        done.returncode == 0 and cases > 0 and failures is None and errored is None,
    )
    return report


# --- main ----------------------------------------------------------------------------------

SCENARIOS = (
    "load",
    "outage",
    "kill",
    "restart",
    "schemathesis",
    "sentinel",
    "cluster",
    "cluster-failover",
)


def main() -> int:
    """Run the chosen scenarios; 0 when all pass."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of each load run")
    parser.add_argument("--users", type=int, default=16, help="concurrent users (default 16)")
    parser.add_argument("--outage-seconds", type=float, default=5.0, help="Redis down this long")
    parser.add_argument(
        "--max-examples", type=int, default=20, help="schemathesis cases per operation and phase"
    )
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help=f"comma-separated, of {','.join(SCENARIOS)}"
    )
    args = parser.parse_args()
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(SCENARIOS))
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(unknown)}")

    print_machine(
        "bench/reliability.py: load, Redis outage, worker kill, AOF restart, schemathesis"
    )
    print(
        "set-up: a private redis-server (AOF) and `cardproof serve --workers 2` on it, fixed "
        "keys, CARDPROOF_RATE_LIMIT=0, CARDPROOF_MAX_GAMES_IN_FLIGHT=0, "
        "CARDPROOF_DAILY_DEAL_QUOTA=0, CARDPROOF_WARM_UP=0; "
        "the load driver in this process (asyncio, one httpx.AsyncClient per user); loopback; "
        "latency percentiles nearest-rank over 2xx answers"
    )
    print()
    reports: list[Report] = []
    single: float | None = None  # the load scenario's throughput on one Redis
    started = time.monotonic()
    for name in SCENARIOS:
        if name not in chosen:
            continue
        persistence = AOF_ALWAYS  # as deploy/ runs Redis
        with ExitStack() as stack:
            workdir = Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="cardproof-rel-"))
            )
            if name == "sentinel":  # a primary, a replica, 3 sentinels: the service follows them
                group = stack.enter_context(sentinel_group())
                sentinel_env = {"CARDPROOF_REDIS_MODE": "sentinel"}
                sentinel_env["CARDPROOF_REDIS_MIN_REPLICAS"] = "1"
                served = stack.enter_context(
                    cardproof_serve(group.url, 2, workdir / "serve.log", sentinel_env)
                )
                print(f"[{name}] {group.url}; cardproof serve on {served.base_url}", flush=True)
            elif name.startswith("cluster"):  # three masters: each step goes to its keys' node
                failover = name == "cluster-failover"
                cluster = stack.enter_context(redis_cluster(replicas=1 if failover else 0))
                cluster_env = {"CARDPROOF_REDIS_MODE": "cluster"}
                if failover:
                    cluster_env["CARDPROOF_REDIS_MIN_REPLICAS"] = "1"
                served = stack.enter_context(
                    cardproof_serve(cluster.url, 2, workdir / "serve.log", cluster_env)
                )
                print(f"[{name}] cluster at {cluster.url}; serve on {served.base_url}", flush=True)
            else:
                redis = stack.enter_context(private_redis(*persistence))
                served = stack.enter_context(cardproof_serve(redis.url, 2, workdir / "serve.log"))
                print(
                    f"[{name}] redis-server {' '.join(persistence)} on {redis.url}; "
                    f"cardproof serve pid {served.pid} on {served.base_url}",
                    flush=True,
                )
            try:
                if name == "sentinel":
                    report = sentinel_scenario(
                        served.base_url, group, seconds=args.seconds, users=args.users
                    )
                elif name == "cluster-failover":
                    report = cluster_failover_scenario(
                        served.base_url, cluster, seconds=args.seconds, users=args.users
                    )
                elif name == "cluster":
                    report = cluster_scenario(
                        served.base_url,
                        cluster,
                        seconds=args.seconds,
                        users=args.users,
                        single=single,
                    )
                elif name == "load":
                    report = load_scenario(
                        served.base_url, seconds=args.seconds, users=args.users, redis_url=redis.url
                    )
                    single = report.throughput
                elif name == "outage":
                    report = outage_scenario(
                        served.base_url,
                        redis,
                        seconds=args.seconds,
                        users=args.users,
                        outage=args.outage_seconds,
                    )
                elif name == "kill":
                    report = kill_scenario(
                        served.base_url, seconds=args.seconds, users=args.users, redis_url=redis.url
                    )
                elif name == "restart":
                    report = restart_scenario(served.base_url, redis, organizer_key(redis.url))
                else:
                    report = schemathesis_scenario(
                        served.base_url,
                        organizer_key(redis.url),
                        max_examples=args.max_examples,
                        workdir=workdir,
                    )
            except Exception as error:  # a scenario that breaks is a failed one
                report = Report(name, "did not run to its end")
                report.check(f"ran: {error!r}", False)
            log = tail(served.log, 10)
            if log.strip():
                report.lines.append("server log (last lines):")
                report.lines += log.splitlines()
        reports.append(report)
        print(report.text(), flush=True)
        print()
    print(
        f"load average at the end: {load_average()}; wall time {time.monotonic() - started:.0f} s"
    )
    for report in reports:
        print(f"{'PASS' if report.passed else 'FAIL'} {report.name}")
    return 0 if all(report.passed for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
