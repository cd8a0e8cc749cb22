"""``cardproof log check``: a monitor catches a forked log, a rolled-back one, a bad entry.

Real services (``cardproof serve``, the test keys, one log name) and logs forged here
under the same key, served as files: a second history under the log's key and name (a
fork), a shorter one (a rollback), a rewritten tile, an entry not in its one spelling, a
checkpoint of another key, a log whose key changed, witnesses' cosignatures, and with
``--deep`` a log whose entries the service does not agree with (the service behind a
small proxy that serves the forged log's files). Each is refused with its code, and what
was seen is kept only from a check that passed. Old bundles and tiles rewritten under an
honest checkpoint are caught by the sample a check re-reads and by ``--full``; two checks
of one log take turns on its state file's lock.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import functools
import http.server
import io
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import msgspec
import pytest

import cardproof.cli.log as log_cli
from cardproof.cli import main
from cardproof.cli.log import state_file
from cardproof.client import Client
from cardproof.tlog.entries import ReceiptEntry, RoundCommitment, encode_entry, parse_entry
from cardproof.tlog.monitor import Fetch, Monitor, MonitorError, Seen
from cardproof.tlog.note import COSIGNATURE_V1, Checkpoint, Signer, Verifier, sign_note
from cardproof.tlog.tiles import (
    ENTRIES,
    Tile,
    pack_bundle,
    tile_hashes,
    tile_path,
    tiles_of,
    unpack_bundle,
)
from cardproof.tlog.tree import MemoryTree, leaf_hash, node_hash
from conftest import TEST_KEYS, free_port, served
from test_cli import _cardproof
from test_cli_pty import Terminal
from test_log_service import finished_deal
from test_tournament_cli import new_organizer_key

ORIGIN = "monitored.example/log"
LOG = Signer(ORIGIN, TEST_KEYS.log_seed)
ENV = {"REDIS_URL": "", "CARDPROOF_LOG_ORIGIN": ORIGIN, "CARDPROOF_LOG_INTERVAL": "0.05"}
WITNESS = Signer("witness.example/w1", bytes([3]) * 32, COSIGNATURE_V1)


@pytest.fixture(scope="module")
def organizer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A service whose log the tests monitor, and an organizer key it knows: (URL, key)."""
    store = {"CARDPROOF_ORGANIZERS_FILE": str(tmp_path_factory.mktemp("store") / "orgs.json")}
    key = new_organizer_key({**ENV, **store}, "Monitored Club")
    with served("--log-level", "warning", env={**ENV, **store}) as url:
        yield url, key


@pytest.fixture(scope="module")
def first(organizer: tuple[str, str]) -> str:
    return organizer[0]


def play(url: str, games: int = 1) -> int:
    """``games`` games played to their end; the log's size once it holds them."""
    with httpx.Client(base_url=url, timeout=10) as client:
        before = size_of(url)
        for _ in range(games):
            finished_deal(client)  # type: ignore[arg-type]
        return grown(url, before + games)


def grown(url: str, size: int) -> int:
    """The log's size once it holds ``size`` entries (10 s at most)."""
    deadline = time.monotonic() + 10
    while size_of(url) < size and time.monotonic() < deadline:
        time.sleep(0.05)
    return size_of(url)


def size_of(url: str) -> int:
    return int(httpx.get(f"{url}/log/checkpoint").text.split("\n")[1])


def check(url: str, state: Path, *args: str, process: bool = False) -> tuple[int, str]:
    """``cardproof log check``'s exit status and output: in this process, or run as one."""
    command = ["log", "check", "--url", url, "--state", str(state), *args]
    if process:
        done = _cardproof(*command)
        return done.returncode, done.stdout + done.stderr
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        status = main(command)
    return status, said.getvalue()


def forged(
    folder: Path,
    entries: list[bytes],
    signer: Signer = LOG,
    cosigners: Sequence[Signer] = (),
    key: Signer = LOG,
) -> Path:
    """A log of ``entries`` under ``signer``, as files: ``log/checkpoint``, tiles, key.

    Its tree is :class:`MemoryTree`'s (not the fold's the monitor runs); each partial
    tile is served at every width it had, as a log serves them; ``cosigners`` cosign
    the checkpoint, and ``/log/key`` answers ``key``.
    """
    tree = MemoryTree([leaf_hash(entry) for entry in entries])
    root = folder / "log"
    for tile in tiles_of(tree.size):
        widths = [tile.width] if tile.full else range(1, tile.width + 1)
        for width in widths:  # a partial tile: each width it had, a prefix of the last
            part = Tile(tile.level, tile.index, width)
            path = root / tile_path(part)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(tile_hashes(part, tree.subtree))
            if tile.level == 0:
                start = tile.index * 256
                bundle = root / tile_path(Tile(ENTRIES, tile.index, width))
                bundle.parent.mkdir(parents=True, exist_ok=True)
                bundle.write_bytes(pack_bundle(entries[start : start + width]))
    root.mkdir(parents=True, exist_ok=True)
    text = Checkpoint(signer.name, tree.size, tree.root()).text()
    (root / "checkpoint").write_text(sign_note(text, [signer, *cosigners], int(time.time())))
    (root / "key").write_text(key.verifier.vkey + "\n")
    return root


class Quiet(http.server.SimpleHTTPRequestHandler):
    """Python's file server, its request lines left out of the test's output."""

    def log_message(self, format: str, *args: object) -> None:
        return None


@contextmanager
def files(folder: Path, handler: type[Quiet] = Quiet) -> Iterator[str]:
    """``folder`` served over HTTP (a log that is only files)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def proxied(folder: Path, service: str) -> Iterator[str]:
    """The log of ``folder``'s files at ``/log/``, every other path answered by ``service``."""

    class Proxy(Quiet):
        def do_GET(self) -> None:
            if self.path.startswith("/log/"):
                super().do_GET()
                return
            answer = httpx.get(service + self.path, timeout=10)
            self.send_response(answer.status_code)
            self.send_header("content-type", answer.headers.get("content-type", "text/plain"))
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

    with files(folder, Proxy) as url:
        yield url


def from_files(root: Path, fetched: list[str] | None = None) -> Fetch:
    """A monitor's ``fetch`` of a log of files, in this process (``fetched``: each path)."""

    def fetch(path: str) -> bytes:
        if fetched is not None:
            fetched.append(path)
        if not (root / path).is_file():
            raise MonitorError("bad-tile", f"{path}: 404")
        return (root / path).read_bytes()

    return fetch


def entries_of(url: str) -> list[bytes]:
    """Every entry of a served log, read from its bundles."""
    size = size_of(url)
    found: list[bytes] = []
    for index in range((size + 255) // 256):
        path = tile_path(Tile(ENTRIES, index, min(256, size - index * 256)))
        found += unpack_bundle(httpx.get(f"{url}/log/{path}").content)
    return found


def kept(state: Path) -> Seen:
    """What the monitor kept in ``state`` (its one file)."""
    (path,) = state.glob("*.json")
    return msgspec.json.decode(path.read_bytes(), type=Seen)


def commitment(n: int) -> bytes:
    return encode_entry(RoundCommitment(f"t_{n:020x}", 1, f"{n:064x}"))


def test_a_log_is_read_whole_then_only_what_is_new(first: str, tmp_path: Path) -> None:
    size = play(first, 2)
    status, said = check(first, tmp_path, process=True)
    assert status == 0, said
    assert "trusting the log key" in said
    assert f"log {ORIGIN}: {size} entries ({size} new: " in said
    seen = kept(tmp_path)
    assert (seen.size, seen.vkey, seen.url) == (size, LOG.verifier.vkey, first)
    assert seen.checkpoint.startswith(f"{ORIGIN}\n{size}\n{seen.root}\n\n")
    more = play(first)
    status, said = check(first, tmp_path)
    assert status == 0, said
    assert "trusting" not in said
    assert f"{more} entries ({more - size} new: 1 receipt), consistent with the {size}" in said
    status, said = check(first, tmp_path, process=True)
    assert status == 0, said
    assert "(0 new)" in said


def test_a_fork_under_the_log_s_key_is_caught(first: str, tmp_path: Path) -> None:
    """Another service with the same key and name, and another history: a fork."""
    play(first, 2)
    assert check(first, tmp_path)[0] == 0
    with served("--log-level", "warning", env=ENV) as second:
        play(second, 1)
        for _ in range(size_of(first) + 2 - size_of(second)):  # a bigger tree, then equal
            play(second)
        status, said = check(second, tmp_path, "--key", LOG.verifier.vkey, process=True)
        assert status == 1, said
        assert "LOG CHECK FAILED (fork)" in said
    assert kept(tmp_path).size <= size_of(first)  # what was kept is still the first log's


def test_a_fork_of_the_same_size_and_a_rollback_are_caught(first: str, tmp_path: Path) -> None:
    play(first, 2)
    assert check(first, tmp_path)[0] == 0
    entries = entries_of(first)
    seen = kept(tmp_path)
    same_size = [*entries[: seen.size - 1], commitment(1)]
    with files(forged(tmp_path / "fork", same_size).parent) as url:
        status, said = check(url, tmp_path)
    assert (status, said[:48]) == (1, "LOG CHECK FAILED (fork): the log shows the root "), said
    assert f"for its {seen.size} entries; it showed {seen.root} before" in said
    with files(forged(tmp_path / "back", entries[: seen.size - 1]).parent) as url:
        status, said = check(url, tmp_path)
    assert (status, "LOG CHECK FAILED (rollback)" in said) == (1, True), said
    assert f"the log shows {seen.size - 1} entries; it showed {seen.size} before" in said
    grown = [*entries[: seen.size - 1], commitment(2), commitment(3)]  # rewrites the last
    with files(forged(tmp_path / "rewrite", grown).parent) as url:
        status, said = check(url, tmp_path)
    assert (status, "LOG CHECK FAILED (fork)" in said) == (1, True), said
    assert kept(tmp_path) == seen  # nothing kept of a log that failed


def test_bad_signatures_entries_and_tiles_are_caught(tmp_path: Path) -> None:
    good = [commitment(n) for n in range(300)]
    other = Signer(ORIGIN, bytes([9]) * 32)  # the log's name, another key
    with files(forged(tmp_path / "signed", good, other).parent) as url:
        status, said = check(url, tmp_path / "a")
    assert (status, "(bad-signature)" in said) == (1, True), said
    spaced = [*good[:10], good[10].replace(b",", b", ", 1), *good[11:]]
    with files(forged(tmp_path / "entry", spaced).parent) as url:
        status, said = check(url, tmp_path / "b")
    assert (status, "LOG CHECK FAILED (bad-entry): entry 10:" in said) == (1, True), said
    log = forged(tmp_path / "tile", good)
    tile = log / "tile/0/000"
    tile.write_bytes(bytes(32) + tile.read_bytes()[32:])
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "c")
    assert (status, "LOG CHECK FAILED (bad-tile): tile tile/0/000 " in said) == (1, True), said
    log = forged(tmp_path / "partial", good)
    tile = log / "tile/0/001.p/44"
    tile.write_bytes(tile.read_bytes()[:-32] + bytes(32))
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "c2")
    assert (status, "(bad-tile): tile tile/0/001.p/44 " in said) == (1, True), said
    log = forged(tmp_path / "bundle", good)  # the checkpoint signs a tree not served
    bundle = log / "tile/entries/001.p/44"
    bundle.write_bytes(bundle.read_bytes().replace(b'"round":1', b'"round":2', 1))
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "d")
    assert (status, "LOG CHECK FAILED (fork): the log's 300 entries make" in said) == (1, True)
    assert "it signed a tree it does not serve" in said
    log = forged(tmp_path / "missing", good)
    (log / "tile/entries/000").unlink()
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "e")
    assert (status, "(bad-tile): GET " in said, "entries/000: 404" in said) == (1, True, True)
    log = forged(tmp_path / "key", good)
    (log / "key").write_text("not a key\n")
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "f")
    assert (status, "LOG CHECK FAILED (bad-key)" in said) == (1, True), said
    with files(forged(tmp_path / "fine", good).parent) as url:
        status, said = check(url, tmp_path / "g", "--key", LOG.verifier.vkey)
    assert status == 0, said
    assert "trusting" not in said
    assert "300 entries (300 new: 300 round-commitment)" in said
    for failed in "abcc2def":
        assert not list((tmp_path / failed).glob("*.json"))


def test_a_checkpoint_and_tiles_in_the_wrong_shape_are_refused(tmp_path: Path) -> None:
    """In process: a checkpoint of another origin, or cosigned only; tiles cut short."""
    entries = [commitment(n) for n in range(300)]
    log = forged(tmp_path / "log", entries)
    tree = MemoryTree([leaf_hash(entry) for entry in entries])

    def refused(seen: Seen | None = None, witnesses: Sequence[Signer] = ()) -> MonitorError:
        policy = [w.verifier for w in witnesses]
        with pytest.raises(MonitorError) as caught:
            Monitor(from_files(log), LOG.verifier, policy, len(policy)).check(seen)
        return caught.value

    elsewhere = Checkpoint("elsewhere.example/log", tree.size, tree.root()).text()
    (log / "checkpoint").write_text(sign_note(elsewhere, [LOG]))  # the key, another name
    error = refused()
    assert (error.code, error.message) == (
        "bad-signature",
        f"the checkpoint is of 'elsewhere.example/log', not of {ORIGIN!r}",
    )
    text = Checkpoint(ORIGIN, tree.size, tree.root()).text()
    (log / "checkpoint").write_text(sign_note(text, [WITNESS], int(time.time())))
    error = refused(witnesses=[WITNESS])  # a witness's cosignature, and not the log's
    assert (error.code, error.message) == (
        "bad-signature",
        "the checkpoint is not signed by the log's key",
    )
    (log / "checkpoint").write_text(sign_note(text, [LOG]))
    older = forged(tmp_path / "seen", entries[:280])
    seen = Monitor(from_files(older), LOG.verifier).check(None)
    tile = log / "tile/0/001.p/24"  # the tree seen's right edge, a hash short
    tile.write_bytes(tile.read_bytes()[:-32])
    error = refused(seen.seen)
    assert (error.code, error.message) == ("bad-tile", "tile/0/001.p/24 is 736 bytes, not 768")
    bundle = log / "tile/entries/001.p/44"
    whole = bundle.read_bytes()
    bundle.write_bytes(whole + pack_bundle([commitment(300)]))  # an entry more
    error = refused()
    assert (error.code, error.message) == (
        "bad-tile",
        "tile/entries/001.p/44 holds 45 entries, not 44",
    )
    bundle.write_bytes(whole[:-5])  # cut inside an entry
    error = refused()
    assert (error.code, error.message) == (
        "bad-tile",
        "tile/entries/001.p/44: an entry bundle ends inside an entry",
    )


def test_a_changed_key_is_refused_unless_pinned(tmp_path: Path) -> None:
    entries = [commitment(n) for n in range(5)]
    state = tmp_path / "state"
    rotated = Signer(ORIGIN, bytes([7]) * 32)
    renamed = Signer("elsewhere.example/log", bytes([7]) * 32)
    with files(tmp_path / "served") as url:
        forged(tmp_path / "served", entries[:3])
        assert check(url, state)[0] == 0
        forged(tmp_path / "served", entries, rotated, key=rotated)  # the same log, a new key
        status, said = check(url, state)
        assert (status, "LOG CHECK FAILED (key-changed)" in said) == (1, True), said
        assert f"answers the log key {rotated.verifier.vkey}" in said
        assert f"was signed by {LOG.verifier.vkey} (pass --key" in said
        status, said = check(url, state, "--key", rotated.verifier.vkey)
        assert status == 0, said
        assert f"the log's key is {rotated.verifier.vkey} (--key); it was" in said
        assert "consistent with the 3 seen before" in said  # still the tree seen
        assert check(url, state)[0] == 0  # the new key, kept
        forged(tmp_path / "served", entries, renamed, key=renamed)  # another log, same URL
        status, said = check(url, state)
        assert (status, "LOG CHECK FAILED (key-changed)" in said) == (1, True), said
        forged(tmp_path / "served", entries[:2], rotated, key=rotated)
        status, said = check(url, state, "--key", rotated.verifier.vkey)  # pinned: not trust
        assert (status, "LOG CHECK FAILED (rollback)" in said) == (1, True), said
        status, said = check(url, state, "--witness", "not-a-key")
        assert (status, "cardproof log check: not a verifier key" in said) == (2, True), said
        wit = WITNESS.verifier.vkey
        status, said = check(url, state, "--witness", wit, "--quorum", "2")
        assert (status, "--quorum 2 of 1 --witness" in said) == (2, True), said
        status, said = check(url, state, "--witness", LOG.verifier.vkey)  # a log's key
        assert (status, "a cosignature/v1 key (type 0x04)" in said) == (2, True), said


def test_witnesses_cosignatures_are_required_by_the_policy(tmp_path: Path) -> None:
    entries = [commitment(n) for n in range(3)]
    vkey = WITNESS.verifier.vkey
    stranger = Signer.generate("stranger.example/w", COSIGNATURE_V1).verifier.vkey
    with files(forged(tmp_path / "cosigned", entries, cosigners=[WITNESS]).parent) as url:
        status, said = check(url, tmp_path / "a", "--witness", vkey)
        assert (status, "; 1 of 1 witnesses cosigned" in said) == (0, True), said
        status, said = check(url, tmp_path / "b")
        assert status == 0, said
        assert "also signed by witness.example/w1 (not checked: no --witness)" in said
        status, said = check(url, tmp_path / "c", "--witness", vkey, "--witness", stranger)
        assert (status, "LOG CHECK FAILED (witnesses): 1 of your" in said) == (1, True), said
        status, said = check(
            url, tmp_path / "e", *("--witness", vkey, "--witness", stranger, "--quorum", "1")
        )
        assert (status, "1 of 2 witnesses cosigned" in said) == (0, True), said
    log = forged(tmp_path / "forged", entries, cosigners=[WITNESS])
    *note, line = (log / "checkpoint").read_text().splitlines(keepends=True)
    dash, name, signature = line.split(" ")
    raw = bytearray(base64.b64decode(signature))
    raw[-1] ^= 1  # the witness's signature, a bit changed
    line = f"{dash} {name} {base64.b64encode(raw).decode()}\n"
    (log / "checkpoint").write_text("".join([*note, line]))
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "f", "--witness", vkey)
    assert (status, "LOG CHECK FAILED (bad-signature)" in said) == (1, True), said


def test_deep_holds_each_entry_against_the_service(
    organizer: tuple[str, str], tmp_path: Path
) -> None:
    url, key = organizer
    before = play(url, games=2)  # the two receipts changed below, whatever ran before
    with Client(base_url=url, api_key=key) as client:
        now = datetime.now(UTC)
        created = client.create_tournament(
            "Monitored Open", "poker-squares", rounds=2, opens_at=now,
            closes_at=now + timedelta(hours=1),
        )  # fmt: skip
    tid = created.tournament.tournament_id
    size = grown(url, before + 2)
    status, said = check(url, tmp_path / "deep", "--deep")
    assert status == 0, said
    assert f"; deep: {size} compared with the service, 0 not shown" in said
    entries = entries_of(url)
    receipts = [i for i, e in enumerate(entries) if isinstance(parse_entry(e), ReceiptEntry)]
    rounds = [i for i, e in enumerate(entries) if tid.encode() in e]
    assert len(rounds) == 2
    assert len(receipts) >= 2

    def changed(index: int, **what: object) -> list[bytes]:
        entry = msgspec.structs.replace(parse_entry(entries[index]), **what)
        return [*entries[:index], encode_entry(entry), *entries[index + 1 :]]

    first = parse_entry(entries[receipts[0]])
    assert isinstance(first, ReceiptEntry)
    swapped = list(entries)
    swapped[receipts[0]], swapped[receipts[1]] = swapped[receipts[1]], swapped[receipts[0]]
    cases = {
        "score": (changed(receipts[0], score=first.score + 1), "says otherwise than its entry"),
        "digest": (changed(receipts[0], receipt="0" * 64), "is not the one logged"),
        "order": (swapped, "'s receipt is at index "),
        "seed": (changed(rounds[0], server_seed_hash="1" * 64), "another seed hash"),
    }
    for name, (log, wrong) in cases.items():
        with proxied(forged(tmp_path / name, log).parent, url) as proxy:
            status, said = check(proxy, tmp_path / f"{name}-state", "--deep")
        assert (status, "LOG CHECK FAILED (bad-game): entry " in said) == (1, True), said
        assert wrong in said, said
    deal = first.deal[:-1] + ("a" if first.deal[-1] != "a" else "b")
    unknown = changed(receipts[0], deal=deal)
    with proxied(forged(tmp_path / "unknown", unknown).parent, url) as proxy:
        status, said = check(proxy, tmp_path / "unknown-state", "--deep")
        assert status == 0, said
        assert f"; deep: {size - 1} compared with the service, 1 not shown" in said
        status, said = check(proxy, tmp_path / "shallow")  # without --deep: nothing asked
        assert (status, "; deep:" in said) == (0, False), said


def test_the_monitor_reads_a_log_in_bundles(tmp_path: Path) -> None:
    """In process, a log of 20,000 entries, then 5,000 more: only the new ones read."""
    entries = [commitment(n) for n in range(25_000)]
    seen_at: list[tuple[int, int]] = []
    fetch = from_files(forged(tmp_path / "big", entries[:20_000]))
    first = Monitor(fetch, LOG.verifier).check(None, lambda d, t: seen_at.append((d, t)))
    assert first.seen.size == 20_000
    assert seen_at[0] == (256, 20_000)
    assert seen_at[-1] == (20_000, 20_000)
    fetched: list[str] = []
    heard: list[int] = []
    fetch = from_files(forged(tmp_path / "bigger", entries), fetched)
    more = Monitor(fetch, LOG.verifier).check(
        first.seen, each=lambda i, e: heard.append(i), sample=0
    )
    assert (more.old_size, more.seen.size) == (20_000, 25_000)
    assert more.kinds == {"round-commitment": 5_000}
    assert heard == list(range(20_000, 25_000))
    bundles = [path for path in fetched if path.startswith("tile/entries/")]
    assert bundles[0] == "tile/entries/078"  # 19,968 to 20,223: the one it grew from
    assert len(bundles) == len(set(bundles)) == 20  # each read once, none it had read
    twice = [path for path in set(fetched) if fetched.count(path) > 1]
    assert twice == ["tile/0/078"]  # for its partial tile (not served here), then compared
    with pytest.raises(MonitorError) as caught:
        Monitor(fetch, Verifier.parse(LOG.verifier.vkey)).check(
            Seen(ORIGIN, LOG.verifier.vkey, 25_001, first.seen.root, "")
        )
    assert caught.value.code == "rollback"
    witness = Signer.generate("w.example", COSIGNATURE_V1).verifier
    with pytest.raises(MonitorError) as caught:
        Monitor(fetch, LOG.verifier, [witness], 1).check(first.seen)
    assert caught.value.code == "witnesses"
    with pytest.raises(ValueError, match="a quorum of 2 from 1 witnesses"):
        Monitor(fetch, LOG.verifier, [witness], 2)


def test_a_partial_tile_no_longer_served_is_read_from_the_full_one(tmp_path: Path) -> None:
    entries = [commitment(n) for n in range(600)]
    seen = Monitor(from_files(forged(tmp_path / "a", entries[:300])), LOG.verifier).check(None)
    log = forged(tmp_path / "b", entries)
    for path in log.glob("tile/**/*.p/*"):
        if path.parent.with_suffix("").exists():  # its full tile is there
            path.unlink()
    assert not (log / "tile/0/001.p/44").exists()
    assert not (log / "tile/entries/001.p/44").exists()
    found = Monitor(from_files(log), LOG.verifier).check(seen.seen)
    assert (found.old_size, found.seen.size) == (300, 600)


def test_an_entry_it_showed_rewritten_in_its_bundle_is_a_fork(tmp_path: Path) -> None:
    """The hash tiles as they were, an old entry's bytes changed where the log grows."""
    entries = [commitment(n) for n in range(310)]
    with files(forged(tmp_path / "first", entries[:300]).parent) as url:
        assert check(url, tmp_path / "state")[0] == 0
    log = forged(tmp_path / "grown", entries)
    bundle = log / "tile/entries/001.p/54"  # entries 256 to 309; 256 to 299 were seen
    bundle.write_bytes(bundle.read_bytes().replace(commitment(260)[-20:], b"f" * 20, 1))
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "state")
    assert status == 1, said
    assert "LOG CHECK FAILED (fork): tile/entries/001.p/54 holds other entries before 300" in said


def test_a_service_not_reached_is_exit_status_2(tmp_path: Path) -> None:
    status, said = check(f"http://127.0.0.1:{free_port()}", tmp_path, process=True)
    assert (status, "cardproof log check: cannot read http://127.0.0.1:" in said) == (2, True)
    (tmp_path / "empty").mkdir()
    with files(tmp_path / "empty") as url:  # no log there
        status, said = check(url, tmp_path)
    assert (status, f"cardproof log check: GET {url}/log/key: 404" in said) == (2, True), said
    assert not list(tmp_path.glob("*.json"))


def test_a_person_at_a_terminal_sees_a_progress_bar(tmp_path: Path) -> None:
    entries = [commitment(n) for n in range(3000)]
    with files(forged(tmp_path / "log", entries).parent) as url:
        terminal = Terminal("log", "check", "--url", url, "--state", str(tmp_path), cwd=tmp_path)
        terminal.expect(f"reading {ORIGIN}:")
        terminal.expect("entry/s")
        terminal.expect(f"log {ORIGIN}: 3000 entries (3000 new: ")
        assert terminal.close() == 0


def rewrite(log: Path, at: int, entry: bytes, *, tile: bool) -> None:
    """Entry ``at`` of a forged log's full bundle replaced by ``entry`` (``tile``: its leaf too)."""
    bundle = log / tile_path(Tile(ENTRIES, at // 256, 256))
    held = list(unpack_bundle(bundle.read_bytes()))
    held[at % 256] = entry
    bundle.write_bytes(pack_bundle(held))
    if tile:
        hashes = log / tile_path(Tile(0, at // 256, 256))
        data = bytearray(hashes.read_bytes())
        data[32 * (at % 256) : 32 * (at % 256 + 1)] = leaf_hash(entry)
        hashes.write_bytes(bytes(data))


def test_an_old_bundle_rewritten_under_an_honest_checkpoint_is_caught(tmp_path: Path) -> None:
    """The checkpoint, the tree's right edge and the new entries honest; bundle 0 rewritten.

    Bundle 0 is the one full bundle seen, so the default sample (4) re-reads it: no luck.
    """
    entries = [commitment(n) for n in range(310)]
    seen = tmp_path / "seen"
    with files(forged(tmp_path / "first", entries[:300]).parent) as url:
        assert check(url, seen)[0] == 0
    before = kept(seen)
    for name, tile, full_code in [("both", True, "fork"), ("bundle", False, "bad-tile")]:
        log = forged(tmp_path / name, entries)
        rewrite(log, 5, commitment(1005), tile=tile)
        state = tmp_path / f"{name}-state"
        with files(log.parent) as url:
            shutil.copytree(seen, state)
            status, said = check(url, state)
            assert (status, "LOG CHECK FAILED (fork): tile/entries/000 holds other" in said) == (
                1,
                True,
            ), said
            assert "than the tree of 300 seen: a fork" in said
            status, said = check(url, state, "--full")
            assert (status, f"LOG CHECK FAILED ({full_code}): " in said) == (1, True), said
            if tile:  # its tiles make the rewritten history: not the tree seen
                assert "the log's first 300 entries now make the root " in said
                assert f"; it showed {before.root}: a fork" in said
            else:
                assert "tile tile/0/000 is not the one its entries make" in said
            assert kept(state) == before
            status, said = check(url, state, "--sample", "0")  # what a check missed before
            assert status == 0, said
            assert "consistent with the 300 seen before" in said
            assert "re-read" not in said


def test_an_honest_log_passes_sampled_and_full_checks(tmp_path: Path) -> None:
    entries = [commitment(n) for n in range(1400)]
    state = tmp_path / "state"
    with files(tmp_path / "log") as url:
        forged(tmp_path / "log", entries[:1300])
        status, said = check(url, state)
        assert status == 0, said
        assert "re-read" not in said  # nothing seen before: everything read
        forged(tmp_path / "log", entries[:1310])
        status, said = check(url, state)
        assert status == 0, said
        assert "consistent with the 1300 seen before (re-read 4 old bundles)" in said
        status, said = check(url, state, "--sample", "1")
        assert (status, "(0 new), consistent with the 1310" in said) == (0, True), said
        assert "(re-read 1 old bundle)" in said
        forged(tmp_path / "log", entries)
        status, said = check(url, state, "--full", "--sample", "9")
        assert status == 0, said
        assert "1400 entries (90 new: 90 round-commitment), consistent with the 1310" in said
        assert "seen before (all re-read)" in said
        assert kept(state).size == 1400
        status, said = check(url, state, "--sample", "-1")
        assert (status, said) == (2, "cardproof log check: --sample -1: 0 or more bundles\n")


def test_a_sample_as_large_as_the_seen_bundles_reads_each(tmp_path: Path) -> None:
    """In process: 5 full bundles seen; every one re-read, each against its tiles."""
    entries = [commitment(n) for n in range(1300)]
    tree = MemoryTree([leaf_hash(entry) for entry in entries])
    seen = Seen(ORIGIN, LOG.verifier.vkey, 1300, base64.b64encode(tree.root()).decode(), "")
    log = forged(tmp_path / "log", entries)
    fetched: list[str] = []
    found = Monitor(from_files(log, fetched), LOG.verifier).check(seen, sample=10)
    assert (found.resampled, found.old_size, found.seen.size) == (5, 1300, 1300)
    assert [p for p in fetched if p.startswith("tile/entries/")] == [
        *(f"tile/entries/00{n}" for n in range(5)),
        "tile/entries/005.p/20",  # the partial one the tree seen ends in, read as before
    ]
    assert {f"tile/0/00{n}" for n in range(5)} <= set(fetched)
    fetched.clear()
    found = Monitor(from_files(log, fetched), LOG.verifier).check(seen)  # the default: 4 of 5
    sampled = [p for p in fetched if p.startswith("tile/entries/") and ".p/" not in p]
    assert found.resampled == len(sampled) == len(set(sampled)) == 4
    for at, tile in [(3 * 256 + 7, True), (1 * 256 + 100, False), (4 * 256 + 255, True)]:
        forged(tmp_path / "log", entries)
        rewrite(log, at, commitment(5000), tile=tile)
        with pytest.raises(MonitorError) as caught:
            Monitor(from_files(log), LOG.verifier).check(seen, sample=5)
        assert (caught.value.code, caught.value.message) == (
            "fork",
            f"tile/entries/00{at // 256} holds other entries than the tree of 1300 seen: a fork",
        )
    forged(tmp_path / "log", entries)
    hashes = log / "tile/0/002"  # the bundle as it was, its tile not
    hashes.write_bytes(hashes.read_bytes()[:-32] + bytes(32))
    with pytest.raises(MonitorError) as caught:
        Monitor(from_files(log), LOG.verifier).check(seen, sample=5)
    assert (caught.value.code, caught.value.message) == (
        "bad-tile",
        "tile tile/0/002 is not the one its entries make",
    )
    Monitor(from_files(log), LOG.verifier).check(seen, sample=0)  # not read: not seen


def test_a_hash_tile_above_a_sampled_bundle_is_compared(tmp_path: Path) -> None:
    """In process: a full level-1 tile (65,536 entries and more) its root no longer reads."""
    entries = [commitment(n) for n in range(65_536 + 300)]
    tree = MemoryTree([leaf_hash(entry) for entry in entries])
    seen = Seen(ORIGIN, LOG.verifier.vkey, tree.size, base64.b64encode(tree.root()).decode(), "")
    log = forged(tmp_path / "log", entries)
    found = Monitor(from_files(log), LOG.verifier).check(seen, sample=300)
    assert found.resampled == 257  # bundles 0 to 255 up tile/1/000 to tile/2/000.p/1, and 256
    level1 = log / "tile/1/000"  # the hash of bundle 3, rewritten: the root reads tile/2
    data = level1.read_bytes()
    level1.write_bytes(data[: 3 * 32] + node_hash(data[:32], data[32:64]) + data[4 * 32 :])
    Monitor(from_files(log), LOG.verifier).check(seen, sample=0)  # the right edge is honest
    with pytest.raises(MonitorError) as caught:
        Monitor(from_files(log), LOG.verifier).check(seen, sample=256)
    assert (caught.value.code, caught.value.message) == (
        "bad-tile",
        "tile tile/1/000 is not the one its entries make",
    )
    with pytest.raises(MonitorError) as caught:
        Monitor(from_files(log), LOG.verifier).check(seen, full=True)
    assert (caught.value.code, caught.value.message) == (
        "bad-tile",
        "tile tile/1/000 is not the one its entries make",
    )


def test_full_still_holds_the_log_to_the_tree_seen(tmp_path: Path) -> None:
    """Another history under the log's key, but the tiles of the tree seen as they were.

    Only the bundles differ from what was seen (entry 280, in the partial bundle then):
    a fold from 0 makes the tiles and root the log serves now, and only the root of the
    tree seen, rebuilt on the way, tells the history changed.
    """
    entries = [commitment(n) for n in range(310)]
    first = forged(tmp_path / "first", entries[:300])
    seen = Monitor(from_files(first), LOG.verifier).check(None).seen
    other = [*entries[:280], commitment(999), *entries[281:]]
    log = forged(tmp_path / "other", other)
    for path in ("tile/0/001.p/44", "tile/entries/001.p/44"):
        (log / path).write_bytes((first / path).read_bytes())
    with pytest.raises(MonitorError) as caught:
        Monitor(from_files(log), LOG.verifier).check(seen, full=True)
    assert (caught.value.code, caught.value.message[:41]) == (
        "fork",
        "the log's first 300 entries now make the ",
    )
    with pytest.raises(MonitorError) as caught:
        Monitor(from_files(log), LOG.verifier).check(seen)
    assert caught.value.code == "fork"
    fetched: list[str] = []
    heard: list[int] = []
    honest = forged(tmp_path / "honest", entries)
    found = Monitor(from_files(honest, fetched), LOG.verifier).check(
        seen, each=lambda i, e: heard.append(i), full=True
    )
    assert (found.full, found.resampled, found.kinds) == (True, 0, {"round-commitment": 10})
    assert heard == list(range(310))
    assert [p for p in fetched if p.startswith("tile/entries/")] == [
        "tile/entries/000",
        "tile/entries/001.p/54",
    ]


@contextmanager
def holding(path: Path) -> Iterator[int]:
    """An exclusive ``flock`` on ``path``, as another check would hold it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield handle
    finally:
        os.close(handle)


def locked(path: Path) -> bool:
    """Whether another holds ``path``'s ``flock`` (tried, and let go at once)."""
    try:
        with holding(path):
            return False
    except BlockingIOError:
        return True


def test_two_checks_of_one_log_take_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = [commitment(n) for n in range(5)]
    state = tmp_path / "state"
    lock = state_file(state, ORIGIN).with_name(state_file(state, ORIGIN).name + ".lock")
    during: list[bool] = []

    class Watched(Quiet):
        def do_GET(self) -> None:
            if self.path.startswith("/log/tile/"):
                during.append(locked(lock))
            super().do_GET()

    saved: list[bool] = []
    save = log_cli._save

    def watched_save(path: Path, seen: Seen) -> None:
        saved.append(locked(lock))
        save(path, seen)

    monkeypatch.setattr(log_cli, "_save", watched_save)
    monkeypatch.setattr(log_cli, "LOCK_WAIT", 0.3)
    with files(forged(tmp_path / "log", entries).parent, Watched) as url:
        with holding(lock):  # another check of the log, under way
            started = time.monotonic()
            status, said = check(url, state)
            assert time.monotonic() - started < 5
        assert (status, said) == (
            2,
            "cardproof log check: another `cardproof log check` of this log is running "
            f"({state_file(state, ORIGIN)})\n",
        )
        assert not list(state.glob("*.json"))
        assert (during, saved) == ([], [])
        status, said = check(url, state)
        assert status == 0, said
        assert (len(during) > 1, set(during), saved) == (True, {True}, [True])  # read, saved
        assert not locked(lock)  # and let go
        monkeypatch.setattr(log_cli, "LOCK_WAIT", 10.0)
        with holding(lock) as handle:  # let go by the other check a moment later
            threading.Timer(0.3, fcntl.flock, (handle, fcntl.LOCK_UN)).start()
            status, said = check(url, state)
        assert status == 0, said
        monkeypatch.setitem(sys.modules, "fcntl", None)  # no file locks (not POSIX)
        status, said = check(url, state)
    assert (status, said) == (
        2,
        f"cardproof log check: cannot lock {state_file(state, ORIGIN)}: no file locks here "
        "(fcntl: POSIX only)\n",
    )
