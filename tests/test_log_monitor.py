"""``cardproof log check``: a monitor catches a forked log, a rolled-back one, a bad entry.

Real services (``cardproof serve``, the test keys, one log name) and logs forged here
under the same key, served as files: a second history under the log's key and name (a
fork), a shorter one (a rollback), a rewritten tile, an entry not in its one spelling, a
checkpoint of another key, and with ``--deep`` a logged receipt the service does not
hold. Each is refused with its code, and what was seen is kept only from a check that
passed.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from cardproof.tlog.entries import RoundCommitment, encode_entry
from cardproof.tlog.monitor import Monitor, MonitorError, Seen
from cardproof.tlog.note import Checkpoint, Signer, Verifier, sign_note
from cardproof.tlog.tiles import ENTRIES, Tile, pack_bundle, tile_hashes, tile_path, tiles_of
from cardproof.tlog.tree import MemoryTree, leaf_hash
from conftest import TEST_KEYS, served
from test_cli import _cardproof
from test_log_service import finished_deal

ORIGIN = "monitored.example/log"
LOG = Signer(ORIGIN, TEST_KEYS.log_seed)
ENV = {"REDIS_URL": "", "CARDPROOF_LOG_ORIGIN": ORIGIN, "CARDPROOF_LOG_INTERVAL": "0.05"}


@pytest.fixture(scope="module")
def first() -> Iterator[str]:
    """A service whose log the tests monitor."""
    with served("--log-level", "warning", env=ENV) as url:
        yield url


def play(url: str, games: int = 1) -> int:
    """``games`` games played to their end; the log's size once it holds them."""
    with httpx.Client(base_url=url, timeout=10) as client:
        before = size_of(url)
        for _ in range(games):
            finished_deal(client)  # type: ignore[arg-type]
        deadline = time.monotonic() + 10
        while size_of(url) < before + games and time.monotonic() < deadline:
            time.sleep(0.05)
        return size_of(url)


def size_of(url: str) -> int:
    return int(httpx.get(f"{url}/log/checkpoint").text.split("\n")[1])


def check(url: str, state: Path, *args: str) -> tuple[int, str]:
    done = _cardproof("log", "check", "--url", url, "--state", str(state), *args)
    return done.returncode, done.stdout + done.stderr


def forged(folder: Path, entries: list[bytes], signer: Signer = LOG) -> Path:
    """A log of ``entries`` under ``signer``, as files: ``log/checkpoint``, tiles, key."""
    tree = MemoryTree([leaf_hash(entry) for entry in entries])
    root = folder / "log"
    for tile in tiles_of(tree.size):
        widths = [tile.width] if tile.full else range(1, tile.width + 1)  # as a log serves
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
    (root / "checkpoint").write_text(sign_note(text, [signer]))
    (root / "key").write_text(LOG.verifier.vkey + "\n")
    return root


class Quiet(http.server.SimpleHTTPRequestHandler):
    """Python's file server, its request lines left out of the test's output."""

    def log_message(self, format: str, *args: object) -> None:
        return None


@contextmanager
def files(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP (a log that is only files)."""
    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def entries_of(url: str) -> list[bytes]:
    """Every entry of a served log, read from its bundles."""
    from cardproof.tlog.tiles import unpack_bundle

    size = size_of(url)
    found: list[bytes] = []
    for index in range((size + 255) // 256):
        path = tile_path(Tile(ENTRIES, index, min(256, size - index * 256)))
        found += unpack_bundle(httpx.get(f"{url}/log/{path}").content)
    return found


def read(base: str, path: str) -> bytes:
    """A path of a served log, as the monitor's ``fetch`` reads it."""
    answer = httpx.get(f"{base}/log/{path}")
    if answer.status_code != 200:
        raise MonitorError("bad-tile", f"{path}: {answer.status_code}")
    return answer.content


def commitment(n: int) -> bytes:
    return encode_entry(RoundCommitment(f"t_{n:020x}", 1, f"{n:064x}"))


def test_a_log_is_read_whole_then_only_what_is_new(first: str, tmp_path: Path) -> None:
    size = play(first, 2)
    status, said = check(first, tmp_path)
    assert status == 0, said
    assert "trusting the log key" in said
    assert f"log {ORIGIN}: {size} entries ({size} new: " in said
    kept = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert (kept["size"], kept["vkey"]) == (size, LOG.verifier.vkey)
    grown = play(first)
    status, said = check(first, tmp_path)
    assert status == 0, said
    assert f"{grown} entries ({grown - size} new: 1 receipt), consistent with the {size}" in said
    status, said = check(first, tmp_path)
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
        status, said = check(second, tmp_path)
        assert status == 1, said
        assert "LOG CHECK FAILED (fork)" in said
    kept = Seen(**json.loads(next(tmp_path.glob("*.json")).read_text()))
    assert kept.size <= size_of(first)  # what was kept is still the first log's


def test_a_fork_of_the_same_size_and_a_rollback_are_caught(first: str, tmp_path: Path) -> None:
    play(first, 2)
    assert check(first, tmp_path)[0] == 0
    entries = entries_of(first)
    seen = Seen(**json.loads(next(tmp_path.glob("*.json")).read_text()))
    same_size = [*entries[:-1], commitment(1)]
    with files(forged(tmp_path / "fork", same_size[: seen.size]).parent) as url:
        status, said = check(url, tmp_path)
    assert (status, "LOG CHECK FAILED (fork)" in said) == (1, True), said
    with files(forged(tmp_path / "back", entries[: seen.size - 1]).parent) as url:
        status, said = check(url, tmp_path)
    assert (status, "LOG CHECK FAILED (rollback)" in said) == (1, True), said
    grown = [*entries[: seen.size - 1], commitment(2), commitment(3)]  # rewrites the last
    with files(forged(tmp_path / "rewrite", grown).parent) as url:
        status, said = check(url, tmp_path)
    assert (status, "LOG CHECK FAILED (fork)" in said) == (1, True), said


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
    assert (status, "LOG CHECK FAILED (bad-tile): tile tile/0/000" in said) == (1, True), said
    log = forged(tmp_path / "bundle", good)
    bundle = log / "tile/entries/001.p/44"
    bundle.write_bytes(bundle.read_bytes().replace(b'"round":1', b'"round":2', 1))
    with files(log.parent) as url:
        status, said = check(url, tmp_path / "d")
    assert (status, "LOG CHECK FAILED (bad-tree)" in said) == (1, True), said
    with files(forged(tmp_path / "fine", good).parent) as url:
        status, said = check(url, tmp_path / "e", "--key", LOG.verifier.vkey)
    assert status == 0, said
    assert "300 entries (300 new: 300 round-commitment)" in said


def test_a_changed_key_is_refused(tmp_path: Path) -> None:
    with files(forged(tmp_path / "log", [commitment(1)]).parent) as url:
        assert check(url, tmp_path / "state")[0] == 0
        state = next((tmp_path / "state").glob("*.json"))
        kept = json.loads(state.read_text())
        kept["vkey"] = Signer(ORIGIN, bytes([7]) * 32).verifier.vkey
        state.write_text(json.dumps(kept))
        status, said = check(url, tmp_path / "state")
        assert (status, "LOG CHECK FAILED (key-changed)" in said) == (1, True), said
        status, said = check(url, tmp_path / "state", "--witness", "not-a-key")
        assert status == 2, said


def test_deep_compares_each_entry_with_the_service(first: str, tmp_path: Path) -> None:
    play(first)
    status, said = check(first, tmp_path, "--deep")
    assert status == 0, said
    assert "deep: " in said
    assert " compared with the service" in said


def test_the_monitor_reads_a_log_in_bundles(tmp_path: Path) -> None:
    """In process, a log of 20,000 entries, then 5,000 more: read in folds of bundles."""
    entries = [commitment(n) for n in range(25_000)]
    seen_at: list[tuple[int, int]] = []
    with files(forged(tmp_path / "big", entries[:20_000]).parent) as url:
        fetch = functools.partial(read, url)
        first = Monitor(fetch, LOG.verifier).check(None, lambda d, t: seen_at.append((d, t)))
    assert first.seen.size == 20_000
    assert seen_at[-1] == (20_000, 20_000)
    with files(forged(tmp_path / "bigger", entries).parent) as url:
        fetch = functools.partial(read, url)
        more = Monitor(fetch, LOG.verifier).check(first.seen)
        with pytest.raises(MonitorError) as caught:
            Monitor(fetch, Verifier.parse(LOG.verifier.vkey), [], 0).check(
                Seen(ORIGIN, LOG.verifier.vkey, 25_001, first.seen.root, "")
            )
        assert caught.value.code == "rollback"
        witness = Signer.generate("w.example", 4).verifier
        with pytest.raises(MonitorError) as caught:
            Monitor(fetch, LOG.verifier, [witness], 1).check(first.seen)
        assert caught.value.code == "witnesses"
    assert (more.old_size, more.seen.size) == (20_000, 25_000)
    assert more.kinds["round-commitment"] == 5_000


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
