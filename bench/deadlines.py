"""Deadlines at scale: a lockstep round most of whose seats are idle (bench/tournament.py).

A round of poker-squares with ``seats`` seats, ``idle`` of which never place a card, so
that every one of its 25 calls ends at its deadline and the server places the idle
seats' cards (in batches, see ``service/cardproof_service/lockstep/late.py``). The other seats
place each called card within the first second of its call (the driver learns each
call from one seat's event stream and sends the active seats' moves in ten slices over
that second, on a few raw keep-alive connections).
Meanwhile a probe asks ``GET /healthz`` every 10 ms on a connection of its own.

Reported: ``/healthz`` latency p50/p99/max through the round (every deadline included)
beside the same probe before the round (the peer: the idle server, same connection);
the time from each call's deadline to the next call (the store's times), p50/p99/max;
active placements refused as late; and the audit: every call made once, every seat's
game finished with 25 moves, the idle seats' cards all placed for them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from _common import percentile
from cardproof.progress import bar
from wire import CELLS, Wire, called_ms, event_stream, one_round, seat_all, url_calls

CARD_SECONDS = 2
TARGET_HEALTHZ_P99_MS = 50.0
TARGET_HEALTHZ_MAX_MS = 250.0
TARGET_NEXT_CALL_P99_MS = 100.0
PROBE_EVERY = 0.01
MOVERS = 16
"""Connections the active seats' moves go over."""
SLICES = 10
SPREAD = 1.0
"""The active seats place in ``SLICES`` slices over the first ``SPREAD`` seconds of a call."""


@dataclass
class Round:
    """What the driver saw of one round."""

    seats: int
    idle: int
    healthz_before: list[float] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    healthz_at: list[float] = field(default_factory=list)
    """When each probe through the round was sent (ms since the epoch)."""
    deadlines: list[float] = field(default_factory=list)
    after_deadline: list[float] = field(default_factory=list)
    """Per deadline: ms from it to the next call (or the round's finish)."""
    late: int = 0
    """Active placements refused as after their deadline."""
    late_by_call: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


async def probe(
    base_url: str, into: list[float], stop: asyncio.Event, at: list[float] | None = None
) -> None:
    """``GET /healthz`` every :data:`PROBE_EVERY` seconds until ``stop``; latencies in ms
    (and when each was sent into ``at``)."""
    wire = await Wire.open(base_url)
    try:
        while not stop.is_set():
            if at is not None:
                at.append(time.time() * 1e3)
            start = time.perf_counter()
            wire.send("GET", "/healthz", {})
            await wire.answer()
            into.append((time.perf_counter() - start) * 1e3)
            await asyncio.sleep(PROBE_EVERY)
    finally:
        wire.close()


async def place_all(
    wires: list[tuple[Wire, asyncio.Lock]], active: list[tuple[str, str]], index: int, seen: Round
) -> None:
    """Every active seat's move ``index`` (the first free cell: what a late one gets too),
    in :data:`SLICES` slices over the first :data:`SPREAD` seconds of the call, as players
    place at their own pace rather than all in one instant."""
    body = json.dumps({"index": index, "move": CELLS[index]}).encode()

    async def over(wire: Wire, lock: asyncio.Lock, seats: list[tuple[str, str]]) -> None:
        async with lock:  # one slice at a time on a connection: answers come in order
            for token, deal_id in seats:
                auth = {"Authorization": f"Bearer {token}"}
                wire.send("POST", f"/v1/deals/{deal_id}/moves", auth, body)
            for _ in seats:
                status, text = await wire.answer()
                if status == 409 and (b"deadline" in text or b"auto-placed" in text):
                    seen.late += 1
                    seen.late_by_call[index] = seen.late_by_call.get(index, 0) + 1
                elif status != 200:
                    seen.errors.append(f"move {index}: {status} {text[:120]!r}")

    start = asyncio.get_running_loop().time()
    sent = []
    for number in range(SLICES):
        await asyncio.sleep(
            max(0.0, start + number * SPREAD / SLICES - asyncio.get_running_loop().time())
        )
        part = active[number::SLICES]
        sent += [
            asyncio.create_task(over(wire, lock, part[n :: len(wires)]))
            for n, (wire, lock) in enumerate(wires)
        ]
    await asyncio.gather(*sent)


async def idle_round(base_url: str, key: str, seats: int, idle: int) -> Round:
    """One round of ``seats`` seats, ``idle`` of them idle; what the driver saw."""
    seen = Round(seats, idle)
    organizer = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base_url, timeout=120, trust_env=False) as client:
        tid = await one_round(client, organizer, "Deadline Bench", seats, card_seconds=CARD_SECONDS)
        taken = await seat_all(client, tid, seats)
        print(f"  {seats:,} entrants seated", flush=True)
        active = taken[idle:]
        stop = asyncio.Event()
        before = asyncio.create_task(probe(base_url, seen.healthz_before, stop))
        await asyncio.sleep(3)
        stop.set()
        await before
        stop = asyncio.Event()
        probing = asyncio.create_task(probe(base_url, seen.healthz, stop, seen.healthz_at))
        wires = [(await Wire.open(base_url), asyncio.Lock()) for _ in range(MOVERS)]
        stream = await Wire.open(base_url)
        listener = {"Accept": "text/event-stream", "Authorization": f"Bearer {taken[0][0]}"}
        stream.send("GET", url_calls(tid), listener)
        status, _ = await stream.head()
        if status != 200:
            raise RuntimeError(f"the calls stream answered {status}")
        start = time.perf_counter()
        started = await client.post(
            f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=organizer
        )
        started.raise_for_status()
        text = ""
        placing: list[asyncio.Task[None]] = []
        with bar(len(CELLS), "calls", unit="call") as called:  # on a terminal only
            async for chunk in stream.chunks():
                text += chunk.decode().replace("\r\n", "\n")
                ended = False
                while "\n\n" in text:
                    raw, text = text.split("\n\n", 1)
                    event = event_stream(raw.split("\n"))
                    if event is None:
                        continue
                    name, data = event
                    if name == "end":
                        ended = True
                        break
                    called.advance()
                    index = data["index"]
                    placing.append(asyncio.create_task(place_all(wires, active, index, seen)))
                if ended:
                    break
        seen.seconds = time.perf_counter() - start
        await asyncio.gather(*placing)
        stop.set()
        await probing
        stream.close()
        for wire, _ in wires:
            wire.close()
        await audit(client, tid, taken, seen)
    return seen


async def audit(
    client: httpx.AsyncClient, tid: str, taken: list[tuple[str, str]], seen: Round
) -> None:
    """Every call once, each deadline's next call timed; every game whole, idle ones placed."""
    calls = (await client.get(f"{url_calls(tid)}?after=-1&wait=0")).json()["calls"]
    indices = [call["index"] for call in calls]
    if indices != list(range(25)):
        seen.problems.append(f"calls {indices}")
    times = [called_ms(call["called_at"]) for call in calls]
    status = (await client.get(f"/v1/tournaments/{tid}/rounds/1")).json()
    if status["status"] != "finished":
        seen.problems.append(f"round {status['status']}")
    seen.deadlines = [at + CARD_SECONDS * 1000 for at in times]
    for before, after in itertools.pairwise(times):
        seen.after_deadline.append(after - (before + CARD_SECONDS * 1000))
    gate = asyncio.Semaphore(32)

    async def check(number: int, token: str, deal_id: str) -> None:
        async with gate:
            answer = await client.get(
                f"/v1/deals/{deal_id}", headers={"Authorization": f"Bearer {token}"}
            )
        game: dict[str, Any] = answer.json()
        moves = game["moves"].split()
        if len(moves) != 25 or not game["finished"]:
            seen.problems.append(f"seat {number}: {len(moves)} moves, finished {game['finished']}")

    await asyncio.gather(*(check(n, t, d) for n, (t, d) in enumerate(taken)))
    receipt = await client.get(
        f"/v1/deals/{taken[0][1]}/receipt", headers={"Authorization": f"Bearer {taken[0][0]}"}
    )
    placed_for = receipt.json()["payload"].get("auto_placed")
    if placed_for != list(range(25)):
        seen.problems.append(f"an idle seat's receipt names {placed_for} placed for it")


def report(seen: Round, where: str, *, timed: bool = True) -> list[str]:
    """The figures of one round, and its verdict lines (``timed``: the latency targets too;
    the two replicas' round has only the audit's)."""
    from _common import verdict

    def figures(values: list[float]) -> str:
        if not values:
            return "none"
        return (
            f"p50 {percentile(values, 0.5):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, "
            f"max {max(values):.1f} ms"
        )

    print(
        f"lockstep round, {where}: {seen.seats:,} seats, {seen.idle:,} idle, "
        f"{CARD_SECONDS} s a card: {seen.seconds:.1f} s for 25 calls"
    )
    print(f"  GET /healthz before the round (peer: idle server) {figures(seen.healthz_before)}")
    print(f"  GET /healthz through the round ({len(seen.healthz):,}) {figures(seen.healthz)}")
    if seen.healthz_before and seen.healthz:
        ratio = percentile(seen.healthz, 0.99) / percentile(seen.healthz_before, 0.99)
        print(f"    ratio p99 through/before: {ratio:.2f}")
    worst = sorted(zip(seen.healthz, seen.healthz_at, strict=True), reverse=True)[:3]
    if worst and seen.deadlines:
        near = [
            f"{ms:.0f} ms at {min((at - d for d in seen.deadlines), key=abs):+.0f} ms"
            for ms, at in worst
        ]
        print(f"    slowest probes, from the nearest deadline: {', '.join(near)}")
    print(f"  a deadline -> the next call (store times) {figures(seen.after_deadline)}")
    print(f"    by deadline: {' '.join(f'{ms:.0f}' for ms in seen.after_deadline)} ms")
    print(f"  active placements refused as late: {seen.late} (by card: {seen.late_by_call}); "
          f"errors {len(seen.errors)} {seen.errors[:3]}")  # fmt: skip
    healthz_p99 = percentile(seen.healthz, 0.99) if seen.healthz else float("inf")
    healthz_max = max(seen.healthz, default=float("inf"))
    next_p99 = percentile(seen.after_deadline, 0.99) if seen.after_deadline else float("inf")
    audit = verdict(
        f"{where}: no call lost or doubled, every game whole",
        not seen.problems and not seen.errors,
        f"{len(seen.problems)} problems {seen.problems[:3]}",
    )
    if not timed:
        return [audit]
    return [
        verdict(
            f"{where}: /healthz p99 <= {TARGET_HEALTHZ_P99_MS:.0f} ms and max <= "
            f"{TARGET_HEALTHZ_MAX_MS:.0f} ms through every deadline",
            healthz_p99 <= TARGET_HEALTHZ_P99_MS and healthz_max <= TARGET_HEALTHZ_MAX_MS,
            f"p99 {healthz_p99:.1f} ms, max {healthz_max:.1f} ms",
        ),
        verdict(
            f"{where}: the next call within {TARGET_NEXT_CALL_P99_MS:.0f} ms of each deadline "
            "(p99)",
            next_p99 <= TARGET_NEXT_CALL_P99_MS,
            f"p99 {next_p99:.1f} ms over {len(seen.after_deadline)} deadlines",
        ),
        audit,
    ]


def scenarios(args: Any, which: list[str]) -> list[str]:
    """The ``deadlines`` (one worker, one Redis) and ``cluster`` (two replicas, a Redis
    Cluster of three masters) rounds; their verdict lines."""
    import sys
    import tempfile
    from contextlib import ExitStack
    from pathlib import Path

    from service import cardproof_server, private_redis
    from wire import organizer_key

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from redis_server import redis_cluster

    verdicts: list[str] = []
    for name in which:
        with ExitStack() as stack:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cardproof-")))
            if name == "cluster":
                cluster = stack.enter_context(redis_cluster())
                url, redis_pid, mode, workers = cluster.url, None, "cluster", 2
                where = "2 replicas over a Redis Cluster of 3 masters"
            else:
                url, redis_pid = stack.enter_context(private_redis(workdir))
                mode, workers, where = "", 1, "1 worker over Redis"
            server = stack.enter_context(
                cardproof_server(workdir, "redis", url, redis_pid, workers=workers, redis_mode=mode)
            )
            key = organizer_key(url, mode)
            seen = asyncio.run(idle_round(server.base_url, key, args.idle_seats, args.idle))
            verdicts += report(seen, where, timed=name != "cluster")
    return verdicts
