"""Redis Cluster: the service on three masters, as an operator runs it.

A private cluster (``redis_server.redis_cluster``: ``redis-server --cluster-enabled yes``
three times, joined by ``redis-cli --cluster create``) and two real ``cardproof serve``
processes on it (``CARDPROOF_REDIS_MODE=cluster``, ``REDIS_URL`` one node). An organizer
key is made from the command line (the first thing that failed on a cluster, with
``CROSSSLOT``); a lockstep tournament is played with its entrants on the two processes,
calls and late cards crossing between them; its standings, close and export are then
checked offline; and with ``CARDPROOF_REDIS_MIN_REPLICAS=1`` a write waits for its own
master's replica. test_store_contract.py runs every store step on a cluster,
test_replicas.py plays a committed blind game alternating between two processes on one,
and test_reliability.py kills a master under load.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
import redis
from redis.crc import key_slot

from cardproof import Client, verify_receipt
from cardproof.tournaments import verify_export
from cardproof_service.store import StoreUnavailable
from cardproof_service.store import keys as layout
from cardproof_service.store.redis import RedisStore
from conftest import SERVER_KEYS, UNLIMITED_ENV, served
from redis_server import RedisClusterGroup, redis_cluster

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisClusterGroup]:
    """A private Redis Cluster of three masters for this module."""
    with redis_cluster() as group:
        yield group


@pytest.fixture(scope="module")
def on_cluster(cluster: RedisClusterGroup) -> dict[str, str]:
    """The settings of a service on the cluster."""
    return {"REDIS_URL": cluster.url, "CARDPROOF_REDIS_MODE": "cluster"}


@pytest.fixture(scope="module")
def replicas(on_cluster: dict[str, str]) -> Iterator[tuple[str, str]]:
    """Two ``cardproof serve`` processes on the cluster."""
    with (
        served("--log-level", "warning", env=on_cluster) as a,
        served("--log-level", "warning", env=on_cluster) as b,
    ):
        yield a, b


def organizer_key(on_cluster: dict[str, str], name: str) -> str:
    """``cardproof keys organizer create NAME`` on the cluster; the key it prints."""
    made = subprocess.run(
        [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create", name],
        env={**os.environ, **SERVER_KEYS, **UNLIMITED_ENV, **on_cluster},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    key = next(word for word in made.stdout.split() if word.startswith("cpo_"))
    return key


def test_an_organizer_key_is_made_on_a_cluster(on_cluster: dict[str, str]) -> None:
    key = organizer_key(on_cluster, "Cluster Club")
    again = subprocess.run(
        [
            str(Path(sys.executable).parent / "cardproof"),
            "keys",
            "organizer",
            "create",
            "Cluster Club",
        ],
        env={**os.environ, **SERVER_KEYS, **on_cluster},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 1  # the name is claimed once, cluster-wide
    assert "exists already" in again.stderr
    assert key.startswith("cpo_")


def test_a_lockstep_tournament_across_two_processes_verifies_offline(
    on_cluster: dict[str, str], replicas: tuple[str, str], cluster: RedisClusterGroup
) -> None:
    a, b = replicas
    key = organizer_key(on_cluster, "Lockstep Cluster Club")
    now = datetime.now(UTC)
    with (
        Client(base_url=a, api_key=key) as organizer,
        Client(base_url=a) as ada_side,
        Client(base_url=b) as bea_side,
    ):
        created = organizer.create_tournament(
            "Cluster Open",
            "poker-squares",
            rounds=1,
            opens_at=now - timedelta(hours=1),
            closes_at=now + timedelta(hours=2),
            options={"scoring": "american"},
            card_seconds=1,
        )
        tid = created.tournament.tournament_id
        ada = ada_side.enter(tid, "Ada")
        bea = bea_side.enter(tid, "Bea")
        cy = bea_side.enter(tid, "Cy")  # stops placing after card 22: the keeper goes on
        ada_seat = ada_side.join_round(tid, 1, ada.token)
        bea_seat = bea_side.join_round(tid, 1, bea.token)
        cy_seat = bea_side.join_round(tid, 1, cy.token)
        assert organizer.start_round(tid, 1).seats == 3
        ada_calls, bea_calls, cy_calls = ada_seat.calls(), bea_seat.calls(), cy_seat.calls()
        for index in range(25):
            for seat, calls, cells in (
                (ada_seat, ada_calls, CELLS),
                (bea_seat, bea_calls, CELLS[::-1]),
                (cy_seat, cy_calls, CELLS),
            ):
                if seat is cy_seat and index > 22:
                    continue
                call = next(calls)  # told by the process this seat is on, whoever called it
                assert call.index == index
                assert seat.play(cells[index]) is not None
        deadline = time.monotonic() + 20
        while bea_side.round_status(tid, 1).status != "finished":
            assert time.monotonic() < deadline, "the round did not finish"
            time.sleep(0.2)
        standings = {line.name: line.games_finished for line in organizer.standings(tid).entrants}
        assert standings == {"Ada": 1, "Bea": 1, "Cy": 1}  # Cy's last cards placed for Cy
        receipt = ada_seat.game.receipt()
        closed = organizer.close_tournament(tid)
        seed = next(r.server_seed for r in closed.rounds)
        assert seed is not None
        jwks = bea_side.jwks()
        assert verify_receipt(receipt.receipt, jwks, server_seed=seed).replayed
        export = bea_side.export_tournament(tid)  # from the other process
        assert sorted(g.player for g in export.games) == ["Ada", "Bea", "Cy"]
        assert verify_export(msgspec.json.encode(export)).games == 3

    # the tournament's keys (its record, standings, round, games) share its slot
    slot = key_slot(layout.tournament(tid).encode())
    games = [layout.deal(g.deal_id) for g in export.games]
    called = f"{layout.round_(tid, 1)}:calls"
    assert {key_slot(name.encode()) for name in [*games, called]} == {slot}
    admin = redis.RedisCluster.from_url(cluster.url)
    try:  # and these are the names the service wrote
        assert admin.exists(layout.tournament(tid), called, *games) == 2 + len(games)
    finally:
        admin.close()


def test_a_write_waits_for_its_replica_on_a_cluster() -> None:
    """``MIN_REPLICAS=1`` on a cluster: a write goes with its ``WAIT`` to its slot's master;
    with that master's replica frozen it is not acknowledged (503), while writes to the
    other masters are."""
    with redis_cluster(replicas=1) as group:
        frozen_tournament = "t_2c" + "0" * 18
        master = group.master_of(layout.tournament(frozen_tournament))
        other_tournament = next(  # a tournament whose slot another master serves
            tid
            for tid in (f"t_{n:02x}" + "0" * 18 for n in range(256))
            if group.master_of(layout.tournament(tid)) is not master
        )
        (replica,) = group.replicas_of(master)

        async def run() -> None:
            store = RedisStore.from_cluster(group.url, timeout=1.0, min_replicas=1)
            try:
                assert await store.add_invites(frozen_tournament, ["code-0"], 10)
                replica.pause()
                try:
                    with pytest.raises(StoreUnavailable, match="replicas"):
                        await store.add_invites(frozen_tournament, ["code-1"], 10)
                    assert await store.add_invites(other_tournament, ["code-1"], 10)
                finally:
                    replica.resume()
                assert await store.add_invites(frozen_tournament, ["code-2"], 10)
            finally:
                await store.close()

        asyncio.run(run())


def test_a_master_that_does_not_answer_holds_up_only_its_own_rounds() -> None:
    """The keeper reads due rounds on every master: one frozen master's rounds wait, the
    others' are still found (and the store is unavailable only when no master answers)."""
    with redis_cluster() as group:
        tags_master = group.master_of(layout.DUE_TAGS)
        tournaments = [f"t_{n:02x}" + "0" * 18 for n in range(256)]
        frozen = next(node for node in group.nodes if node is not tags_master)
        stuck = next(t for t in tournaments if group.master_of(layout.tournament(t)) is frozen)
        going = next(t for t in tournaments if group.master_of(layout.tournament(t)) is tags_master)

        async def run() -> None:
            store = RedisStore.from_cluster(group.url, timeout=0.3)
            try:
                await store.schedule_round(stuck, 1, 0)
                await store.schedule_round(going, 1, 0)
                assert {(stuck, 1), (going, 1)} <= set(await store.due_rounds(100))
                frozen.pause()  # briefly: well within the cluster's node timeout (1 s)
                try:
                    due = await store.due_rounds(100)
                finally:
                    frozen.resume()
                assert (going, 1) in due
                assert (stuck, 1) not in due
            finally:
                await store.close()

        asyncio.run(run())


def test_a_durable_write_to_a_slot_that_moved_is_a_503_then_finds_its_new_master() -> None:
    """With ``MIN_REPLICAS``, a write goes straight to the master the store last knew for
    its slot. When the slot has moved (a resharding; a failover looks the same to it),
    that master answers ``MOVED``: nothing was written, so it is a 503 (not an error of
    the service's own), and the store learns the slots anew for the next try."""
    with redis_cluster(replicas=1) as group:
        tournament = "t_3d" + "0" * 18
        key = layout.tournament(tournament)
        slot = key_slot(key.encode())
        masters = {group.master_of(layout.tournament(f"t_{n:02x}" + "0" * 18)) for n in range(256)}
        source = group.master_of(key)
        target = next(master for master in masters if master is not source)

        async def run() -> None:
            store = RedisStore.from_cluster(group.url, timeout=1.0, min_replicas=1)
            try:
                await store.ping()  # the slots learnt: this one on its first master
                with redis.Redis(port=target.port, decode_responses=True) as admin:
                    target_id = admin.execute_command("CLUSTER", "MYID")
                for master in masters:  # the slot is empty: it moves by decree
                    with redis.Redis(port=master.port) as admin:
                        admin.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
                with redis.Redis(port=target.port) as admin:
                    admin.execute_command("CLUSTER", "BUMPEPOCH")
                deadline = time.monotonic() + 20
                while group.master_of(key) is not target or not group.ready():
                    assert time.monotonic() < deadline, "the slot never moved"
                    await asyncio.sleep(0.1)
                with pytest.raises(StoreUnavailable, match="moved"):
                    await store.add_invites(tournament, ["code-0"], 10)
                assert await store.add_invites(tournament, ["code-0"], 10)
                with redis.Redis(port=target.port) as admin:
                    assert admin.hlen(f"{key}:invites") == 1
            finally:
                await store.close()

        asyncio.run(run())
