"""The transparency log's costs: sequencing rate, signing-to-proof time, games with the log
on and off, tile reads and Redis memory at a million entries, and the fold beside Go's.

Four parts, on a private ``redis-server`` each (no persistence, a free port):

1. **Sequencing.** One replica's sequencer (:class:`cardproof_service.log.Log`, two folds
   a second, as ``cardproof serve`` runs it by default) while another process signs
   receipts (Ed25519, the service's key) and pools their entries at ``--rate`` a second
   (2,000) over ``--seconds`` (30), on their deals' hash tags. Every tenth receipt is
   followed: the time from its signing to the commit of the first fold whose tree holds
   it, when ``Log.proof_of`` (what ``GET .../receipt`` answers) proves it.
   The entries signed in each 20 ms are pooled a tag at a time (8 tags a tick): a game
   pools its receipt inside its own last store step, whose cost part 2 measures.
   Printed: entries pooled and sequenced a second, the backlog left, fold times, and the
   signing-to-proof p50/p99/max. Targets: 2,000 entries/s sustained; p99 under 1.5 s.
2. **Games with the log on and off.** ``cardproof serve`` (one worker, Redis) with
   ``CARDPROOF_LOG=on`` and ``off`` in turn, interleaved rounds (``--rounds``, 3) of
   blind poker-squares games, 32 in flight, zero think time (bench/service.py's driver).
   Target: games/s with the log on at least 95% of with it off (median of the rounds'
   ratios).
3. **A million entries.** The log grown to ``--entries`` (1,000,000) receipt entries by
   the sequencer's own folds (20,000 a fold); then ``INFO memory`` against the entries'
   own bytes (target: at most 200 bytes of Redis memory an entry besides the entry), and
   ``GET /log/tile/...`` of random tiles and bundles of that tree from ``cardproof serve``
   (target: p99 under 10 ms), beside the same tiles served as files by Python's
   ``http.server`` (the named peer: a static file server, which is how other tiled logs
   are often served) with the same client.
4. **The fold beside Go's.** cardproof's fold (:func:`cardproof.tlog.fold.fold`) and Go's
   ``sumdb/tlog`` (``StoredHashes``, ``NewTiles``, ``ReadTileData``, in
   ``bench/peers/tlogfold``; ``make go`` installs Go) on the same ``--fold-entries``
   (200,000): entries a second each, the ratio, and the same root.

Run: ``.venv/bin/python bench/log.py [--rate N] [--seconds S] [--rounds N] [--entries N]
[--fold-entries N] [--skip PART ...]`` (about 5 minutes with the defaults).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import msgspec

from _common import percentile, print_machine, verdict
from cardproof.receipts import SigningKey, decode_receipt
from cardproof.tlog.entries import ReceiptEntry, encode_entry, receipt_entry
from cardproof.tlog.fold import fold
from cardproof.tlog.tiles import ENTRIES, Tile, parse_tile_path, tile_path, tiles_of
from cardproof.tlog.tree import leaf_hash
from cardproof_service.log import Log
from cardproof_service.log.tiles import reader
from cardproof_service.plumbing import Keys, Settings
from cardproof_service.store import RedisStore, new_deal_id
from service import (
    SERVER_KEYS,
    RawClient,
    Spec,
    blind_saturated,
    cardproof_server,
    free_port,
    private_redis,
)

ROOT = Path(__file__).resolve().parent.parent
ORIGIN = "bench.example/log"
KEYS = Keys(
    master=bytes.fromhex(SERVER_KEYS["CARDPROOF_MASTER_KEY"]),
    signing=SigningKey.from_seed(
        base64.urlsafe_b64decode(SERVER_KEYS["CARDPROOF_SIGNING_KEY"] + "=")
    ),
    log=base64.urlsafe_b64decode(SERVER_KEYS["CARDPROOF_LOG_KEY"] + "="),
)
TAGS = [
    a + b
    for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for b in "AbCd"
]
"""Hash tags the pooled entries are spread over (256 of the 4,096 there can be)."""
POOLS_A_TICK = 8
"""Pools written each 20 ms tick of part 1: a game pools its receipt inside its own last
store step (part 2 measures that); here the sequencer's side is measured, so the entries
signed in a tick are pooled a tag at a time."""


def template() -> str:
    """A real receipt (a committed poker-squares game's), to sign again with new deal ids."""
    vectors = msgspec.json.decode((ROOT / "tests" / "vectors" / "receipts.json").read_bytes())
    token: str = vectors[0]["receipt"]
    return token


def fake_entry(n: int, rng: random.Random) -> bytes:
    """A receipt entry as the service writes one (its digest random, not a real receipt)."""
    return encode_entry(
        ReceiptEntry(
            receipt=rng.randbytes(32).hex(),
            deal=new_deal_id(TAGS[n % len(TAGS)]),
            kind="committed-blind",
            variant="poker-squares",
            score=rng.randrange(200),
            iat=1_795_000_000 + n // 100,
            kid="9ZP03Nu8GrXPAUkbKNxHOKBzxPX83SShgFkRNK-f2lw",
        )
    )


# --- 1. sequencing -----------------------------------------------------------------------


async def produce(url: str, rate: int, seconds: float) -> None:
    """``--produce``: sign receipts and pool their entries at ``rate`` a second.

    Prints each followed receipt's leaf hash and signing time (every tenth), a line each,
    then how many it pooled. A process of its own: the load, not the replica's work.
    """
    store = RedisStore.from_url(url)
    _, payload = decode_receipt(template())
    pooled = 0
    followed = []
    start = time.monotonic()
    tick = 0.02
    tick_number = 0
    while (elapsed := time.monotonic() - start) < seconds:
        due = int(min(elapsed + tick, seconds) * rate)
        by_tag: dict[str, list[bytes]] = {}
        while pooled < due:
            tag = TAGS[pooled % POOLS_A_TICK + tick_number * POOLS_A_TICK % len(TAGS)]
            token = KEYS.signing.sign(msgspec.structs.replace(payload, deal_id=new_deal_id(tag)))
            entry = encode_entry(receipt_entry(token))
            if pooled % 10 == 0:
                followed.append(f"{leaf_hash(entry).hex()} {time.time()}")
            by_tag.setdefault(tag, []).append(entry)
            pooled += 1
        await asyncio.gather(*(store.pool_entries(t, e) for t, e in by_tag.items()))
        tick_number += 1
        await asyncio.sleep(max(0.0, start + elapsed + tick - time.monotonic()))
    await store.close()
    print("\n".join(followed))
    print(f"pooled {pooled} {time.monotonic() - start}")


async def sequencing(url: str, rate: int, seconds: float) -> dict[str, float]:
    """One replica's sequencer while another process signs and pools; when each was proved.

    Each fold's commit is timed (wall clock, as the producer's signing times are: the log's
    size read every 10 ms); a followed receipt is proved from the first fold whose tree
    holds its index. What
    ``Log.proof_of`` then costs is timed apart, on the followed receipts.
    """
    store = RedisStore.from_url(url)
    log = Log(store, KEYS, Settings(warm_up=False, log_origin=ORIGIN))
    commits: list[tuple[float, int]] = []
    stopping = False

    async def watch() -> None:  # each new size, when first seen (every 10 ms)
        seen = 0
        while not stopping:
            size = (await store.log_state()).size
            if size > seen:
                commits.append((time.time(), size))
                seen = size
            await asyncio.sleep(0.01)

    log.begin()
    watcher = asyncio.create_task(watch())
    began = time.monotonic()
    producer = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--produce", url, str(rate), str(seconds),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await producer.communicate()
    lines = out.decode().split("\n")
    *follow_lines, last = [line for line in lines if line]
    pooled, produced_in = int(last.split()[1]), float(last.split()[2])
    deadline = time.monotonic() + 10
    while (await store.log_state()).size < pooled and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    took = time.monotonic() - began
    stopping = True
    await watcher
    await log.end()
    state = await store.log_state()
    backlog = sum(len(p.entries) for p in await store.pooled(10**9, sweep=True))
    leaves = [bytes.fromhex(line.split()[0]) for line in follow_lines]
    signed = [float(line.split()[1]) for line in follow_lines]
    indexes = await store.leaf_indexes(leaves)
    latencies = []
    for index, at in zip(indexes, signed, strict=True):
        proved = next((t for t, size in commits if index is not None and size > index), None)
        if proved is not None:
            latencies.append(proved - at)
    proof_times = []
    for leaf in leaves[:500]:
        start = time.perf_counter()
        assert await log.proof_of(leaf) is not None
        proof_times.append(time.perf_counter() - start)
    await store.close()
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(commits)]
    return {
        "pooled": pooled,
        "produced_in": produced_in,
        "sequenced": state.size,
        "seconds": took,
        "backlog": backlog,
        "unproved": len(leaves) - len(latencies),
        "p50": percentile(latencies, 0.5),
        "p99": percentile(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "followed": len(latencies),
        "fold_gap_p99": percentile(gaps, 0.99) if gaps else float("nan"),
        "proof_p99": percentile(proof_times, 0.99),
    }


def print_sequencing(figures: dict[str, float], rate: int, seconds: float) -> list[str]:
    print(
        f"\n1. Sequencing: receipts signed and pooled at {rate}/s for {seconds:.0f} s, "
        "two folds a second (the default interval)"
    )
    pooled_rate = figures["pooled"] / figures["produced_in"]
    sequenced_rate = figures["sequenced"] / figures["seconds"]
    print(
        f"   pooled {figures['pooled']:.0f} ({pooled_rate:.0f}/s), sequenced "
        f"{figures['sequenced']:.0f} ({sequenced_rate:.0f}/s over {figures['seconds']:.1f} s), "
        f"left in the pool {figures['backlog']:.0f}"
    )
    print(
        f"   signing to proof ({figures['followed']:.0f} receipts followed): p50 "
        f"{figures['p50'] * 1e3:.0f} ms, p99 {figures['p99'] * 1e3:.0f} ms, "
        f"max {figures['max'] * 1e3:.0f} ms (the proof then takes "
        f"{figures['proof_p99'] * 1e3:.1f} ms at p99); "
        f"fold to fold p99 {figures['fold_gap_p99']:.2f} s"
    )
    sustained = figures["backlog"] == 0 and figures["unproved"] == 0 and pooled_rate >= 0.98 * rate
    return [
        verdict(
            "log: 2,000 entries/s sustained, one replica",
            sustained and rate >= 2000,
            f"{pooled_rate:.0f}/s pooled, all {figures['sequenced']:.0f} sequenced, none left",
        ),
        verdict(
            "log: signing to proof p99 < 1.5 s",
            figures["p99"] < 1.5,
            f"p99 {figures['p99'] * 1e3:.0f} ms",
        ),
    ]


def logged_size(base_url: str) -> int:
    """The size of the log a server shows (its checkpoint's second line)."""
    note = httpx.get(f"{base_url}/log/checkpoint", trust_env=False).text
    return int(note.split("\n")[1])


# --- 2. games with the log on and off --------------------------------------------------------


def games(workdir: Path, url: str, rounds: int, duration: float) -> list[str]:
    print(
        f"\n2. Blind poker-squares games, 32 in flight, log on and off ({rounds} rounds of "
        f"{duration:.0f} s)"
    )
    ratios = []
    on_rates: list[float] = []
    off_rates: list[float] = []
    for number in range(rounds):
        order = ["on", "off"] if number % 2 == 0 else ["off", "on"]
        rate = {}
        for mode in order:
            with cardproof_server(
                workdir,
                f"redis-log-{mode}",
                url,
                env={"CARDPROOF_LOG": mode, "CARDPROOF_LOG_ORIGIN": ORIGIN},
            ) as server:
                spec = Spec(
                    server.base_url, "blind", concurrency=32, duration=duration, seed=number
                )
                rate[mode] = blind_saturated(spec).rate
                if mode == "on":  # the log was kept: every game's receipt sequenced
                    time.sleep(2)
                    size = logged_size(server.base_url)
                    print(f"      the log holds {size:,} entries")
                    if size < rate[mode] * duration * 0.9:
                        raise RuntimeError(f"the log holds {size} entries: it was not kept")
        ratios.append(rate["on"] / rate["off"])
        on_rates.append(rate["on"])
        off_rates.append(rate["off"])
        print(
            f"   round {number + 1}: on {rate['on']:.1f} games/s, off {rate['off']:.1f}, "
            f"ratio {ratios[-1]:.3f}"
        )
    ratio = statistics.median(ratios)
    print(
        f"   median: on {statistics.median(on_rates):.1f} games/s, "
        f"off {statistics.median(off_rates):.1f}, on/off {ratio:.3f}"
    )
    return [verdict("log: games/s with the log on >= 95% of off", ratio >= 0.95, f"{ratio:.3f}")]


# --- 3. a million entries ----------------------------------------------------------------------


async def grow(url: str, entries: int) -> tuple[int, int, int]:
    """Grow the log to ``entries`` by folds: Redis memory before and after, entries' bytes."""
    import redis.asyncio as aredis

    store = RedisStore.from_url(url)
    raw = aredis.Redis.from_url(url)
    log = Log(store, KEYS, Settings(warm_up=False, log_origin=ORIGIN))
    await log.sequencer.step()  # the empty checkpoint
    before = int((await raw.info("memory"))["used_memory"])
    rng = random.Random(7)
    entry_bytes = 0
    batch = 20_000
    start = time.monotonic()
    for first in range(0, entries, batch):
        made = [fake_entry(n, rng) for n in range(first, min(entries, first + batch))]
        entry_bytes += sum(len(e) for e in made)
        for tag_start in range(0, len(made), 1000):
            await store.pool_entries(
                TAGS[tag_start // 1000 % len(TAGS)], made[tag_start : tag_start + 1000]
            )
        await log.sequencer.step()
        done = first + len(made)
        if done % 200_000 == 0 or done == entries:
            print(f"   {done:,} entries in {time.monotonic() - start:.0f} s")
    after = int((await raw.info("memory"))["used_memory"])
    state = await store.log_state()
    assert state.size == entries, state.size
    await store.close()
    await raw.aclose()
    return before, after, entry_bytes


def random_tiles(size: int, count: int) -> list[str]:
    """Paths of random tiles of the tree of ``size``: its hash tiles and entry bundles."""
    rng = random.Random(11)
    every = tiles_of(size)
    every += [Tile(ENTRIES, tile.index, tile.width) for tile in every if tile.level == 0]
    return [tile_path(rng.choice(every)) for _ in range(count)]


async def timed_reads(base: str, paths: list[str]) -> list[float]:
    """Each GET's time (s), one at a time on one keep-alive connection (bench/service.py's
    minimal client: httpx would cost more than the answer); every answer must be a 200."""
    client = RawClient(base, 10.0)
    prefix = httpx.URL(base).path
    times: list[float] = []
    try:
        for path in paths:
            start = time.perf_counter()
            status, body = await client.request("GET", prefix + path, None)
            times.append(time.perf_counter() - start)
            if status != 200:
                raise RuntimeError(f"{path}: {status} {body[:200]!r}")
    finally:
        await client.aclose()
    return times


FILE_SERVER = """
import functools, http.server, sys
handler = http.server.SimpleHTTPRequestHandler
handler.protocol_version = "HTTP/1.1"  # keep-alive, as cardproof serve answers
handler.log_message = lambda *args: None
handler.disable_nagle_algorithm = True  # its headers and body go in two writes
serve = functools.partial(handler, directory=sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), serve).serve_forever()
"""


@contextmanager
def file_server(directory: Path) -> Iterator[str]:
    """Python's ``http.server`` serving ``directory`` over HTTP/1.1 (the tile reads' peer)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", FILE_SERVER, str(port), str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=1, trust_env=False)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def million(workdir: Path, url: str, entries: int, reads: int) -> list[str]:
    print(f"\n3. A log of {entries:,} entries, grown by the sequencer's folds (20,000 a fold)")
    before, after, entry_bytes = asyncio.run(grow(url, entries))
    besides = (after - before - entry_bytes) / entries
    print(
        f"   Redis used_memory grew {(after - before) / 2**20:.1f} MiB for {entries:,} entries of "
        f"{entry_bytes / entries:.0f} bytes on average: {besides:.0f} bytes an entry besides "
        "the entry"
    )
    paths = random_tiles(entries, reads)
    with cardproof_server(
        workdir, "redis-tiles", url, env={"CARDPROOF_LOG_ORIGIN": ORIGIN}
    ) as server:
        asyncio.run(timed_reads(server.base_url + "/log/", paths[:200]))  # warm the connections
        ours = asyncio.run(timed_reads(server.base_url + "/log/", paths))
        files = workdir / "tiles"
        for path in set(paths):  # the same bytes, as files
            target = files / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(httpx.get(f"{server.base_url}/log/{path}", trust_env=False).content)
    with file_server(files) as peer:
        asyncio.run(timed_reads(peer + "/", paths[:200]))
        theirs = asyncio.run(timed_reads(peer + "/", paths))
    p99, peer_p99 = percentile(ours, 0.99), percentile(theirs, 0.99)
    print(
        f"   GET /log/tile/... ({len(paths)} random tiles and bundles, one at a time, one "
        "connection): p50 "
        f"{percentile(ours, 0.5) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, "
        f"max {max(ours) * 1e3:.1f} ms"
    )
    print(
        "   peer, Python's http.server serving the same tiles as files (HTTP/1.1, one "
        f"connection): p50 "
        f"{percentile(theirs, 0.5) * 1e3:.1f} ms, p99 {peer_p99 * 1e3:.1f} ms; "
        f"ours/peer p99 {p99 / peer_p99:.2f}"
    )
    return [
        verdict(
            "log: tile read p99 < 10 ms at 1M entries",
            p99 < 0.010 and entries >= 1_000_000,
            f"{p99 * 1e3:.1f} ms",
        ),
        verdict(
            "log: <= 200 B of Redis an entry besides the entry", besides <= 200, f"{besides:.0f} B"
        ),
    ]


# --- 4. the fold beside Go's -------------------------------------------------------------------


def go_peer(workdir: Path) -> Path | None:
    """bench/peers/tlogfold built with Go in GOPATH mode (None: no Go; ``make go``)."""
    go = shutil.which("go")
    gopath = Path("/usr/share/gocode")
    if go is None or not (gopath / "src/golang.org/x/mod/sumdb/tlog").is_dir():
        return None
    out = workdir / "tlogfold"
    env = {
        **os.environ,
        "GO111MODULE": "off",
        "GOPATH": str(gopath),
        "GOCACHE": str(workdir / "gocache"),
        "GOFLAGS": "",
    }
    subprocess.run(
        [go, "build", "-o", str(out), "."], cwd=ROOT / "bench/peers/tlogfold", env=env, check=True
    )
    return out


def folds(workdir: Path, count: int) -> list[str]:
    print(f"\n4. Folding {count:,} entries into a tree and its tiles, beside Go's sumdb/tlog")
    rng = random.Random(3)
    entries = [fake_entry(n, rng) for n in range(count)]
    tiles: dict[tuple[int, int], bytes] = {}
    start = time.perf_counter()
    size = 0
    root = b""
    for first in range(0, count, 20_000):  # as the sequencer folds: 20,000 at a time
        folded = fold(size, reader(tiles), entries[first : first + 20_000])
        for path, data in folded.tiles.items():
            tile = parse_tile_path(path)
            tiles[(tile.level, tile.index)] = data
        size, root = folded.size, folded.root
    ours = time.perf_counter() - start
    print(f"   cardproof.tlog.fold: {count / ours:,.0f} entries/s ({ours:.2f} s), 20,000 a fold")
    peer = go_peer(workdir)
    if peer is None:
        print("   Go's sumdb/tlog: skipped (make go installs Go and golang.org/x/mod)")
        return []
    done = subprocess.run(
        [str(peer)], input=b"\n".join(entries) + b"\n", capture_output=True, check=True
    )
    folded_count, seconds, go_root, _ = done.stdout.decode().split()
    same = go_root == base64.b64encode(root).decode() and int(folded_count) == count
    print(
        "   Go's tlog.StoredHashes + NewTiles + ReadTileData: "
        f"{count / float(seconds):,.0f} entries/s "
        f"({float(seconds):.2f} s); cardproof/Go {float(seconds) / ours:.2f} of Go's speed; "
        f"same root: {same}"
    )
    return [verdict("log: the fold's root is Go's", same, go_root)]


def main() -> None:
    if sys.argv[1:2] == ["--produce"]:
        asyncio.run(produce(sys.argv[2], int(sys.argv[3]), float(sys.argv[4])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game-seconds", type=float, default=10)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--fold-entries", type=int, default=200_000)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["sequencing", "games", "million", "fold"]
    )
    args = parser.parse_args()
    print_machine("bench/log.py: the transparency log")
    verdicts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cardproof-log-bench-") as temp:
        workdir = Path(temp)
        if "sequencing" not in args.skip:
            with private_redis(workdir) as (url, _):
                verdicts += print_sequencing(
                    asyncio.run(sequencing(url, args.rate, args.seconds)), args.rate, args.seconds
                )
        if "games" not in args.skip:
            with private_redis(workdir) as (url, _):
                verdicts += games(workdir, url, args.rounds, args.game_seconds)
        if "million" not in args.skip:
            with private_redis(workdir) as (url, _):
                verdicts += million(workdir, url, args.entries, args.reads)
        if "fold" not in args.skip:
            verdicts += folds(workdir, args.fold_entries)
    print()
    for line in verdicts:
        print(line)


if __name__ == "__main__":
    main()
