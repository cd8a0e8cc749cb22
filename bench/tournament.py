"""A simulated tournament on Redis: entrants play every round through the API.

Starts a private ``redis-server`` (no persistence, a free port) and ``cardproof serve``
on it (``--workers``, 2 by default: one per core of these machines; fixed keys), makes
an organizer key with ``cardproof keys organizer create``, creates a poker-squares
tournament, then a bounded load driver in this process (asyncio, ``--concurrency`` httpx
clients on loopback) enters ``--entrants`` entrants and plays ``--rounds`` rounds each:
open the round's deal, then 25 moves, each entrant placing cards in its own seeded order
(so totals differ); every move carries the entrant's token, as a tournament game's
moves must. Reported: the whole time, moves per second, move latency p50/p99/max,
errors.

Then, with every game finished: ``--samples`` sequential ``GET .../standings`` (every
entrant, ranked) beside as many ``GET /v1/tournaments/{id}`` (one small record: the
peer, the cheapest read of the same tournament) in alternation, p50/p99 of each and the
ratio; one ``GET .../settlement`` (nets and standings: linear in the entrants) and its
first page of payments (the whole pairwise list is quadratic, about 500,000 payments for
1,000 entrants, so it comes 1,000 a page); the close; the export (every game's log and a fresh
signed receipt) and, offline, ``cardproof.tournaments.verify_export`` on it (every
deck, log and receipt re-checked; it must find no problem).

That tournament is async (each at their own pace: by invitation, as a hidden variant
must be). Then a lockstep round on the same server: ``--seats`` entrants (500) seated,
each following the calls as server-sent events and placing each called card after a
random 0..100 ms. Reported: the time from the last placement of card i (when its
request was sent) to the call of card i+1 (the store's time of the call), median and
max over the round; and the delivery of each call to each seat's event stream (the
store's time of the call to its arrival in the seat's client), p50/p99. Beside them, the
CPU the server, Redis and this driver used over the round, per placement, and per card
against what the machine's CPUs give in the 100 ms its placements come over: where a
card asks more, its last placements queue behind the others, whatever the code.

The driver shares the 2 cores with the server and Redis, so the load figures are what
the workers do with a competing client, not a ceiling.

Targets: standings for 1,000 entrants in <= 20 ms p99; in a lockstep round of 500 seats,
the next call <= 20 ms (median) after the last placement, and SSE delivery <= 100 ms p99.

That is the ``tournament`` scenario. ``deadlines`` and ``cluster`` (bench/deadlines.py)
play a round of 5,000 seats, 3,000 of them idle, on one worker over Redis and on two
replicas over a Redis Cluster; ``page`` (bench/big_page.py) reads the standings page of
1,000 entrants' 10,000-move solodrez games.

Run: ``.venv/bin/python bench/tournament.py [--only tournament,deadlines,cluster,page]
[--entrants N] [--rounds N] [--concurrency N] [--samples N] [--seats N] [--workers N]
[--idle-seats N] [--idle N] [--page-entrants N]`` (about two minutes for ``tournament``,
ten for all four).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from _common import load_average, percentile, print_machine, verdict
from cardproof.progress import Bar, bar
from service import cardproof_server, private_redis, tree_cpu
from wire import CELLS, Wire, called_ms, event_stream, one_round, organizer_key, seat_all, url_calls

TARGET_STANDINGS_P99_MS = 20.0
TARGET_CALL_MEDIAN_MS = 20.0
TARGET_DELIVERY_P99_MS = 100.0
THINKING_SECONDS = 0.1
"""A lockstep seat places each called card after a random 0 to this many seconds."""
CARDS = len(CELLS)
"""The calls of a poker-squares round: one a card."""


class Load:
    """What the driver saw."""

    def __init__(self) -> None:
        """Nothing yet."""
        self.moves: list[float] = []
        self.deals: list[float] = []
        self.entries: list[float] = []
        self.errors: list[str] = []


async def timed(
    client: httpx.AsyncClient, into: list[float], load: Load, method: str, url: str, **kw: Any
) -> httpx.Response | None:
    """One request, its latency in ms appended to ``into``; a non-2xx answer is an error."""
    start = time.perf_counter()
    try:
        answer = await client.request(method, url, **kw)
    except httpx.HTTPError as error:
        load.errors.append(f"{method} {url}: {error!r}")
        return None
    into.append((time.perf_counter() - start) * 1e3)
    if not answer.is_success:
        load.errors.append(f"{method} {url}: {answer.status_code} {answer.text[:200]}")
        return None
    return answer


class Lockstep:
    """What a lockstep round's seats saw."""

    def __init__(self) -> None:
        """Nothing yet."""
        self.sent: dict[int, float] = {}
        """Per card index, when its last placement was sent (ms since the epoch)."""
        self.delivery: list[float] = []
        """Per call and seat: ms from the store's call to the event's arrival."""
        self.after_last: list[float] = []
        """Per call after the first: ms from the last placement before it to the call."""
        self.before_answer: list[float] = []
        """Per call after the first: ms from the call to the answer of that last placement
        (the call is made in the placement's own store step, before its answer)."""
        self.moves: list[float] = []
        """Each placement's latency, ms."""
        self.answered: dict[int, float] = {}
        """Per card index, when the answer to its last placement came (ms since the epoch)."""
        self.errors: list[str] = []
        self.seconds = 0.0
        self.cpu: dict[str, float] = {}
        """CPU seconds each party used over the round: the server, Redis, this driver."""


def wall_ms() -> float:
    """Milliseconds since the epoch (the clock the store's call times are on)."""
    return time.time() * 1e3


async def lockstep_round(
    base_url: str, key: str, seats: int, pids: dict[str, int] | None = None
) -> Lockstep:
    """A lockstep round of ``seats`` seats, each on its own event stream; what they saw,
    and the CPU each of ``pids`` (the server's and Redis's process trees) and this
    driver used over the round."""
    seen = Lockstep()
    pids = pids or {}
    organizer = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base_url, timeout=60, trust_env=False) as client:
        tid = await one_round(client, organizer, "Lockstep Bench", seats, card_seconds=30)
        taken = await seat_all(client, tid, seats)
        connected = asyncio.Semaphore(0)

        async def follow(number: int, token: str, deal_id: str) -> None:
            auth = {"Authorization": f"Bearer {token}"}
            order = CELLS[:]
            random.Random(number).shuffle(order)
            rng = random.Random(-number)
            mover = await Wire.open(base_url)
            moving = asyncio.Lock()
            moves: list[asyncio.Task[None]] = []

            async def place(index: int, delay: float) -> None:
                await asyncio.sleep(delay)
                async with moving:
                    sent = wall_ms()
                    seen.sent[index] = max(seen.sent.get(index, 0.0), sent)
                    body = json.dumps({"index": index, "move": order[index]}).encode()
                    mover.send("POST", f"/v1/deals/{deal_id}/moves", auth, body)
                    status, text = await mover.answer()
                    done = wall_ms()
                seen.moves.append(done - sent)
                seen.answered[index] = max(seen.answered.get(index, 0.0), done)
                if status != 200:
                    seen.errors.append(f"move {index}: {status} {text[:120]!r}")

            stream = await Wire.open(base_url)
            stream.send("GET", url_calls(tid), {"Accept": "text/event-stream", **auth})
            status, _ = await stream.head()
            connected.release()
            if status != 200:
                seen.errors.append(f"stream: {status}")
                return
            text = ""
            ended = False
            async for chunk in stream.chunks():
                text += chunk.decode().replace("\r\n", "\n")
                while "\n\n" in text and not ended:
                    raw, text = text.split("\n\n", 1)
                    event = event_stream(raw.split("\n"))
                    if event is None:
                        continue
                    name, data = event
                    if name == "end":
                        ended = True
                        break
                    seen.delivery.append(wall_ms() - called_ms(data["called_at"]))
                    delay = rng.uniform(0, THINKING_SECONDS)
                    moves.append(asyncio.create_task(place(data["index"], delay)))
                if ended:
                    break
            stream.close()
            await asyncio.gather(*moves)
            mover.close()

        followers = [
            asyncio.create_task(follow(n, token, deal)) for n, (token, deal) in enumerate(taken)
        ]
        for _ in range(seats):
            await connected.acquire()
        start = time.perf_counter()
        before = {name: tree_cpu(pid) for name, pid in pids.items()}
        driver = time.process_time()
        started = await client.post(
            f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=organizer
        )
        started.raise_for_status()
        await asyncio.gather(*followers)
        seen.seconds = time.perf_counter() - start
        seen.cpu = {name: tree_cpu(pid) - before[name] for name, pid in pids.items()}
        seen.cpu["driver"] = time.process_time() - driver
        calls = await client.get(f"{url_calls(tid)}?after=-1&wait=0")
        for call in calls.raise_for_status().json()["calls"]:
            index = call["index"]
            if index and index - 1 in seen.sent:
                seen.after_last.append(called_ms(call["called_at"]) - seen.sent[index - 1])
                seen.before_answer.append(seen.answered[index - 1] - called_ms(call["called_at"]))
    return seen


async def play(
    base_url: str,
    tournament_id: str,
    entrants: int,
    rounds: int,
    concurrency: int,
    codes: list[str],
) -> tuple[Load, float, dict[str, str]]:
    """Enter everyone (a code each), then play every round of every entrant."""
    load = Load()
    tokens: dict[str, str] = {}
    names = [f"entrant-{i:04d}" for i in range(entrants)]
    work: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    entries: asyncio.Queue[str] = asyncio.Queue()
    for name in names:
        entries.put_nowait(name)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)

    async def enterer(client: httpx.AsyncClient, entered: Bar) -> None:
        while not entries.empty():
            name = entries.get_nowait()
            url = f"/v1/tournaments/{tournament_id}/entries"
            body = {"name": name, "invite_code": codes.pop()}
            answer = await timed(client, load.entries, load, "POST", url, json=body)
            if answer is not None:
                tokens[name] = answer.json()["token"]
            entered.advance()

    async def player(client: httpx.AsyncClient, played: Bar) -> None:
        while not work.empty():
            name, round_number = work.get_nowait()
            url = f"/v1/tournaments/{tournament_id}/rounds/{round_number}/deal"
            headers = {"Authorization": f"Bearer {tokens[name]}"}
            opened = await timed(client, load.deals, load, "POST", url, json={}, headers=headers)
            if opened is None:
                continue
            deal_url = f"/v1/deals/{opened.json()['deal_id']}/moves"
            order = CELLS[:]
            random.Random(f"{name}/{round_number}").shuffle(order)
            for index, cell in enumerate(order):
                body = {"index": index, "move": cell}
                moved = await timed(
                    client, load.moves, load, "POST", deal_url, json=body, headers=headers
                )
                if moved is None:
                    break
            played.advance()

    clients = [
        httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30, trust_env=False)
        for _ in range(concurrency)
    ]
    start = time.perf_counter()
    try:
        with bar(entrants, "entries", unit="entry") as entered:  # bars on a terminal only
            await asyncio.gather(*(enterer(c, entered) for c in clients))
        for round_number in range(1, rounds + 1):
            for name in tokens:
                work.put_nowait((name, round_number))
        with bar(work.qsize(), "games", unit="game") as played:
            await asyncio.gather(*(player(c, played) for c in clients))
    finally:
        for c in clients:
            await c.aclose()
    return load, time.perf_counter() - start, tokens


def read_latencies(client: httpx.Client, urls: list[str], samples: int) -> list[list[float]]:
    """``samples`` GETs of each URL, in alternation; latencies in ms per URL."""
    found: list[list[float]] = [[] for _ in urls]
    for _ in range(samples):
        for i, url in enumerate(urls):
            start = time.perf_counter()
            client.get(url).raise_for_status()
            found[i].append((time.perf_counter() - start) * 1e3)
    return found


def figures(values: list[float]) -> str:
    """p50, p99 and max of latencies in ms."""
    if not values:
        return "no samples"
    return (
        f"p50 {percentile(values, 0.5):.2f} ms, p99 {percentile(values, 0.99):.2f} ms, "
        f"max {max(values):.2f} ms"
    )


def main() -> None:
    """Run the scenarios asked for and print their figures and verdicts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        default="tournament,deadlines,cluster,page",
        help="scenarios, comma-separated: tournament, deadlines, cluster, page",
    )
    parser.add_argument(
        "--page-entrants", type=int, default=1000, help="entrants of the long games' page"
    )
    parser.add_argument("--idle-seats", type=int, default=5000, help="seats of the idle round")
    parser.add_argument("--idle", type=int, default=3000, help="of them idle")
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--samples", type=int, default=300, help="standings reads")
    parser.add_argument("--seats", type=int, default=500, help="seats of the lockstep round")
    parser.add_argument("--workers", type=int, default=2, help="cardproof serve workers")
    args = parser.parse_args()
    which = args.only.split(",")
    print_machine("bench/tournament.py: simulated tournaments on Redis, through the API")
    if "tournament" in which:
        tournament_scenario(args)
    verdicts = []
    scale = [name for name in which if name in ("deadlines", "cluster")]
    if scale:
        from deadlines import scenarios

        print()
        verdicts += scenarios(args, scale)
    if "page" in which:
        from big_page import page_scenario

        print()
        verdicts += page_scenario(args)
    for line in verdicts:
        print(line)


def tournament_scenario(args: argparse.Namespace) -> None:
    """The async tournament on Redis, then the lockstep round of followers."""
    from cardproof.tournaments import ExportError, verify_export

    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cardproof-tournament-") as tmp, ExitStack() as stack:
        workdir = Path(tmp)
        url, redis_pid = stack.enter_context(private_redis(workdir))
        # the lockstep round's seats each hold an event stream from 127.0.0.1: more than
        # the door lets one address keep open (256 by default), so no cap here
        server = stack.enter_context(
            cardproof_server(
                workdir,
                "redis",
                url,
                redis_pid,
                workers=args.workers,
                env={"CARDPROOF_CONNECTIONS_PER_ADDRESS": "0"},
            )
        )
        key = organizer_key(url)
        now = datetime.now(UTC)
        body = {
            "name": "Bench Open",
            "variant": "poker-squares",
            "rounds": args.rounds,
            "opens_at": (now - timedelta(minutes=1)).isoformat(),
            "closes_at": (now + timedelta(hours=1)).isoformat(),
            "format": "async",
            "entry": "invite",
            "invites": min(1000, args.entrants + 1),
        }
        with httpx.Client(base_url=server.base_url, timeout=60, trust_env=False) as client:
            organizer = {"Authorization": f"Bearer {key}"}
            created = client.post("/v1/tournaments", json=body, headers=organizer)
            created.raise_for_status()
            tid = created.json()["tournament"]["tournament_id"]
            codes = created.json()["invite_codes"]
            while len(codes) < args.entrants + 1:
                more = client.post(
                    f"/v1/tournaments/{tid}/invites",
                    json={"count": min(1000, args.entrants + 1 - len(codes))},
                    headers=organizer,
                )
                codes += more.raise_for_status().json()["codes"]
            client.headers["X-Invite-Code"] = codes.pop()  # the tournament's readers hold one
            load, seconds, tokens = asyncio.run(
                play(server.base_url, tid, args.entrants, args.rounds, args.concurrency, codes)
            )
            games = len(load.deals)
            print(
                f"{len(tokens)} entrants x {args.rounds} rounds of poker-squares, "
                f"{args.concurrency} concurrent clients: {seconds:.1f} s in all"
            )
            print(f"  entries   {len(load.entries):>6}   {figures(load.entries)}")
            print(f"  deals     {games:>6}   {figures(load.deals)}")
            rate = len(load.moves) / seconds if seconds else 0.0
            print(f"  moves     {len(load.moves):>6}   {figures(load.moves)}; {rate:,.0f} moves/s")
            print(f"  errors    {len(load.errors)}")
            for error in load.errors[:5]:
                print(f"    {error}")
            standings_url = f"/v1/tournaments/{tid}/standings"
            lines = client.get(standings_url).json()["entrants"]
            finished = sum(line["games_finished"] for line in lines)
            if finished != args.entrants * args.rounds:
                problems.append(f"standings count {finished} finished games")
            standings, record = read_latencies(
                client, [standings_url, f"/v1/tournaments/{tid}"], args.samples
            )
            ratio = percentile(standings, 0.99) / percentile(record, 0.99)
            print(f"GET standings ({len(lines)} entrants)   {figures(standings)}")
            print(f"GET tournament (peer: one record) {figures(record)}")
            print(f"  ratio standings/tournament p99: {ratio:.2f}")
            start = time.perf_counter()
            settlement = client.get(f"/v1/tournaments/{tid}/settlement")
            settled = time.perf_counter() - start
            print(
                f"GET settlement (nets and standings): {settled * 1e3:.1f} ms, "
                f"{len(settlement.content) / 1e3:.0f} KB for {len(settlement.json()['nets']):,} "
                "entrants"
            )
            start = time.perf_counter()
            page = client.get(f"/v1/tournaments/{tid}/settlement?payments=true")
            paged = time.perf_counter() - start
            print(
                f"GET settlement?payments=true (first page): {paged * 1e3:.1f} ms, "
                f"{len(page.content) / 1e3:.0f} KB, {len(page.json()['payments']):,} payments"
            )
            close = client.post(
                f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": f"Bearer {key}"}
            )
            close.raise_for_status()
            exports = []
            for _ in range(3):
                start = time.perf_counter()
                export = client.get(f"/v1/tournaments/{tid}/export")
                export.raise_for_status()
                exports.append((time.perf_counter() - start) * 1e3)
            print(
                f"GET export ({games} games, {len(export.content) / 1e6:.1f} MB): "
                f"best {min(exports):.0f} ms, worst {max(exports):.0f} ms of 3"
            )
            jwks = client.get("/.well-known/jwks.json").json()
            start = time.perf_counter()
            try:
                check = verify_export(export.content, jwks)
                print(
                    f"verify_export offline: {(time.perf_counter() - start):.1f} s, "
                    f"{check.games} games, 0 problems"
                )
            except ExportError as error:
                print(f"verify_export offline: {len(error.problems)} problems")
                problems += error.problems[:5]
        seen = Lockstep()
        if args.seats:
            pids = {"server": server.pid, "redis": redis_pid}
            seen = asyncio.run(lockstep_round(server.base_url, key, args.seats, pids))
        print(
            f"lockstep round of poker-squares, {args.seats} seats, each on its own event "
            f"stream, placing each called card after 0..100 ms: {seen.seconds:.1f} s for 25 calls"
        )
        print(
            "  last placement of card i sent -> call of card i+1 (queued behind the other "
            f"seats' placements): {figures(seen.after_last)}"
        )
        print(
            "  call of card i+1 -> the answer to that last placement (the call is made in its "
            f"store step): {figures(seen.before_answer)}"
        )
        print(f"  call -> its event at a seat ({len(seen.delivery)} deliveries): "
              f"{figures(seen.delivery)}")  # fmt: skip
        print(f"  placements ({len(seen.moves)}): {figures(seen.moves)}")
        if seen.moves and seen.seconds:
            used = ", ".join(
                f"{name} {cpu:.1f} s ({cpu / len(seen.moves) * 1e6:.0f} us a placement)"
                for name, cpu in seen.cpu.items()
            )
            busy = sum(seen.cpu.values()) / seen.seconds
            print(f"  CPU over the round: {used}; {busy:.2f} of the 2 CPUs busy")
            asked = sum(seen.cpu.values()) / CARDS * 1e3
            window = THINKING_SECONDS * 1e3
            given = (os.cpu_count() or 1) * window
            print(
                f"  a card's placements and calls asked {asked:.0f} ms of CPU of all three; "
                f"its placements come over {window:.0f} ms, in which the {os.cpu_count()} CPUs "
                f"give {given:.0f} ms: "
                + ("the last ones queue" if asked > given else "room to spare")
            )
        print(f"  errors    {len(seen.errors)} {seen.errors[:3]}")
    print()
    print(f"load average at the end: {load_average()} (2 logical CPUs; other work skews figures)")
    p99 = percentile(standings, 0.99)
    print(
        verdict(
            f"standings for {len(lines)} entrants p99 <= {TARGET_STANDINGS_P99_MS:.0f} ms",
            p99 <= TARGET_STANDINGS_P99_MS,
            f"p99 {p99:.2f} ms over {len(standings)} reads",
        )
    )
    after = percentile(seen.after_last, 0.5) if seen.after_last else float("inf")
    print(
        verdict(
            f"lockstep, {args.seats} seats: next call <= {TARGET_CALL_MEDIAN_MS:.0f} ms after "
            "the last placement was sent (median)",
            after <= TARGET_CALL_MEDIAN_MS,
            f"median {after:.2f} ms over {len(seen.after_last)} calls (the placement's "
            f"answer came {percentile(seen.before_answer, 0.5):.2f} ms after the call)",
        )
    )
    delivered = percentile(seen.delivery, 0.99) if seen.delivery else float("inf")
    print(
        verdict(
            f"lockstep, {args.seats} seats: SSE delivery p99 <= {TARGET_DELIVERY_P99_MS:.0f} ms",
            delivered <= TARGET_DELIVERY_P99_MS and len(seen.delivery) == 25 * args.seats,
            f"p99 {delivered:.1f} ms over {len(seen.delivery)} deliveries",
        )
    )
    print(
        verdict(
            "no errors, every game in the standings, the export verifies",
            not load.errors and not problems and not seen.errors,
            f"{len(load.errors)} errors, {len(problems)} problems {problems[:3]}",
        )
    )


if __name__ == "__main__":
    main()
