"""An upgrade over a Redis of the first key layout loses nothing (``cardproof store migrate``).

``data/legacy-redis-v1.json`` is every key a Redis held after cardproof at commit 9568a89
(the last of the first layout, no hash tags) served, through its API and fixed test keys:
a committed deal with 3 moves, a finished casual deal, an organizer, an invite-only async
tournament (Ada's game finished, Bo's at move 10) and a started lockstep round (its one
seat placed card 0, card 1 called, its deadline long past). The test writes those keys
back into a private Redis, with their times to live, and upgrades as the README says.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis
import redis.asyncio as redis_async

from cardproof.receipts import verify_receipt
from cardproof.tournaments import verify_export
from cardproof_service.store import keys as layout
from cardproof_service.store.migrate import Migrated
from cardproof_service.store.migrate import migrate as migrate_layout
from conftest import SERVER_KEYS, served
from redis_server import RedisServer, private_redis
from test_cli_pty import Terminal

SNAPSHOT = Path(__file__).parent / "data" / "legacy-redis-v1.json"
CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


TOURNAMENT_TIMES = ("created_at", "opens_at", "closes_at", "expires_at")
"""A tournament record's times: moved to today's, so that the snapshot's tournaments are
as open as when it was taken (they closed a day after it, which once made this test fail
on the day after the snapshot was committed)."""


def as_of_now(record: bytes) -> bytes:
    """A snapshot's tournament record, its times moved by the snapshot's age."""
    fields = json.loads(record)
    age = int(time.time()) - fields["created_at"]
    for name in TOURNAMENT_TIMES:
        if isinstance(fields.get(name), int):
            fields[name] += age
    return json.dumps(fields).encode()


def restore(server: RedisServer) -> dict[str, Any]:
    """The snapshot's keys written into ``server``; its context (ids, keys, tokens)."""
    snapshot = json.loads(SNAPSHOT.read_text())
    with redis.Redis.from_url(server.url) as client:
        for hex_name, stored in snapshot["keys"].items():
            name, value = bytes.fromhex(hex_name), stored["value"]
            kind = stored["type"]
            if kind == "string" and name.startswith(b"cardproof:tournament:"):
                client.set(name, as_of_now(bytes.fromhex(value)))
            elif kind == "string":
                client.set(name, bytes.fromhex(value))
            elif kind == "hash":
                client.hset(
                    name, mapping={bytes.fromhex(f): bytes.fromhex(v) for f, v in value.items()}
                )
            elif kind == "zset":
                client.zadd(name, {bytes.fromhex(m): score for m, score in value})
            elif kind == "set":
                client.sadd(name, *(bytes.fromhex(m) for m in value))
            elif kind == "list":
                client.rpush(name, *(bytes.fromhex(m) for m in value))
            if stored["ttl"] > 0:
                client.expire(name, stored["ttl"])
    context: dict[str, Any] = snapshot["context"]
    return context


def migrate(url: str) -> subprocess.CompletedProcess[str]:
    """``cardproof store migrate`` on ``url``."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "cardproof"), "store", "migrate"],
        env={**os.environ, **SERVER_KEYS, "REDIS_URL": url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def test_an_upgrade_over_the_first_layout_loses_nothing() -> None:
    with private_redis() as server:
        context = restore(server)
        env = {"REDIS_URL": server.url}

        with served("--log-level", "warning", env=env) as before:  # upgraded, not migrated
            refused = httpx.get(f"{before}/readyz", timeout=10)
            assert refused.status_code == 503
            assert "cardproof store migrate" in refused.json()["checks"]["store"]

        done = migrate(server.url)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "renamed 28 keys, moved 1 due round" in done.stdout
        again = migrate(server.url)  # a second run finds nothing left to do
        assert (again.returncode, again.stdout.split(",")[0]) == (0, "renamed 0 keys")
        with redis.Redis.from_url(server.url) as client:
            names = [key.decode() for key in client.scan_iter("cardproof:*")]
        assert names
        assert all("{" in name or name == layout.DUE_TAGS for name in names), names

        with (
            served("--log-level", "warning", env=env) as url,
            httpx.Client(base_url=url, timeout=10) as http,
        ):
            assert ok(http.get("/readyz"))["status"] == "ready"
            jwks = ok(http.get("/.well-known/jwks.json"))

            # the committed deal goes on from move 3, and still counts as in flight until done
            deal_id = context["open_deal"]
            state = ok(http.get(f"/v1/deals/{deal_id}"))
            assert (state["next_index"], state["moves"]) == (3, "a1 b1 c1")
            with redis.Redis.from_url(server.url) as client:
                owner = next(name for name in client.scan_iter("cardproof:{c.*}:in-flight"))
                assert client.zscore(owner, deal_id) is not None
            for index in range(3, 25):
                ok(
                    http.post(
                        f"/v1/deals/{deal_id}/moves", json={"index": index, "move": CELLS[index]}
                    )
                )
            receipt = ok(http.get(f"/v1/deals/{deal_id}/receipt"))
            assert verify_receipt(receipt["receipt"], jwks).replayed
            with redis.Redis.from_url(server.url) as client:
                assert client.zscore(owner, deal_id) is None  # finished: no longer in flight

            finished = ok(http.get(f"/v1/deals/{context['finished_deal']}/receipt"))
            assert verify_receipt(finished["receipt"], jwks, allow=["casual"]).replayed

            # the async tournament: its standings, its organizer's key, its close and export
            tid = context["async"]["tournament"]
            organizer = {"Authorization": f"Bearer {context['organizer_key']}"}
            code = {"X-Invite-Code": context["async"]["codes"][0]}
            lines = ok(http.get(f"/v1/tournaments/{tid}/standings", headers=code))["entrants"]
            assert {line["name"]: line["games_finished"] for line in lines} == {"Ada": 1, "Bo": 0}
            ok(http.post(f"/v1/tournaments/{tid}/close", json={}, headers=organizer))
            export = ok(http.get(f"/v1/tournaments/{tid}/export", headers=organizer))
            assert [game["player"] for game in export["games"]] == ["Ada"]
            assert verify_export(msgspec.json.encode(export)).games == 1

            # the lockstep round: the keeper finds it due under its tag and places the card
            lid = context["lockstep"]["tournament"]
            deadline = time.monotonic() + 20
            while ok(http.get(f"/v1/tournaments/{lid}/rounds/1"))["call"] < 2:
                assert time.monotonic() < deadline, "the migrated round was never due"
                time.sleep(0.1)
            seat = ok(
                http.get(
                    f"/v1/deals/{context['lockstep']['deal']}",
                    headers={"Authorization": f"Bearer {context['lockstep']['token']}"},
                )
            )
            assert seat["next_index"] >= 2


def test_a_key_that_cannot_be_renamed_is_set_aside_and_the_replicas_are_ready() -> None:
    """An old key whose new name is taken (a second copy) is set aside, not left to keep
    every replica not ready for ever; the command exits 1 so that someone looks."""
    with private_redis() as server:
        deal_id = "d_0aqrsNyvH1LXWkFWPvYMPA"
        with redis.Redis.from_url(server.url) as client:
            client.hset(f"cardproof:deal:{deal_id}", "moves", "old copy")
            client.expire(f"cardproof:deal:{deal_id}", 3600)
            client.hset(layout.deal(deal_id), "moves", "new copy")
            client.set("cardproof:deals-today:client:not-a-day", 1)  # no new name at all
        done = migrate(server.url)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "set aside" in done.stdout
        with redis.Redis.from_url(server.url) as client:
            assert client.hget(layout.deal(deal_id), "moves") == b"new copy"
            kept = f"cardproof:kept:deal:{deal_id}"
            assert client.hget(kept, "moves") == b"old copy"
            assert 0 < client.ttl(kept) <= 3600
            assert client.exists("cardproof:kept:deals-today:client:not-a-day") == 1
        with served("--log-level", "warning", env={"REDIS_URL": server.url}) as url:
            assert ok(httpx.get(f"{url}/readyz", timeout=10))["status"] == "ready"
        with redis.Redis.from_url(server.url) as client:  # an old replica wrote it again
            client.hset(f"cardproof:deal:{deal_id}", "moves", "third copy")
        assert migrate(server.url).returncode == 1
        with redis.Redis.from_url(server.url) as client:  # set aside beside the first
            assert client.hget(kept, "moves") == b"old copy"
            assert client.hget(f"{kept}:2", "moves") == b"third copy"


class Expiring(redis_async.Redis):
    """A client whose scan finds a key that then expires before it is renamed (as a key
    with a second left to live may, between the scan and its turn)."""

    async def scan_iter(self, *args: Any, **kwargs: Any) -> Any:
        found = [key async for key in super().scan_iter(*args, **kwargs)]
        await self.delete(b"cardproof:deal:d_0aexpiring")
        for key in found:
            yield key


def test_a_key_that_expires_while_the_migration_runs_is_counted_as_gone() -> None:
    with private_redis() as server:

        async def run() -> Migrated:
            client = Expiring.from_url(server.url)
            try:
                await client.hset("cardproof:deal:d_0aexpiring", "moves", "a1")
                await client.hset("cardproof:deal:d_0astaying", "moves", "a1")
                return await migrate_layout(client)
            finally:
                await client.aclose()

        done = asyncio.run(run())
        assert (done.renamed, done.gone, done.kept) == (1, 1, [])


def test_the_migration_tells_its_progress_key_by_key() -> None:
    with private_redis() as server:
        restore(server)
        told: list[tuple[int, int]] = []

        async def run() -> Migrated:
            client = redis_async.Redis.from_url(server.url)
            try:
                return await migrate_layout(client, lambda done, total: told.append((done, total)))
            finally:
                await client.aclose()

        done = asyncio.run(run())
        total = done.renamed + 1  # every old key, and the one list of due rounds split
        assert told == [(number, total) for number in range(total + 1)]  # 0 .. all, in order


def test_store_migrate_draws_a_progress_bar_at_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with private_redis() as server:
        restore(server)
        for name, value in {**SERVER_KEYS, "REDIS_URL": server.url}.items():
            monkeypatch.setenv(name, value)  # the terminal's program reads the environment
        terminal = Terminal("store", "migrate", cwd=tmp_path, term="xterm")
        try:
            screen = terminal.expect("renamed 28 keys, moved 1 due round")
        finally:
            code = terminal.close()
    assert code == 0, screen
    assert "keys:   0%|" in screen  # the bar, once the scan has counted the old keys
    assert "0/29 [" in screen
    assert "\r" in screen
