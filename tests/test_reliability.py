"""Reliability under failure (issue 7), short: a Redis crash, a worker killed, schemathesis.

Each test starts a private ``redis-server`` and a real ``cardproof serve`` on it (two
workers; rate limiting and the games-in-flight cap off) on loopback, and runs one
scenario of ``bench/reliability.py`` (which prints the same scenarios at full length,
with the outage and the sustained load besides):

- a Redis with an fsynced append-only file crashed (SIGKILL) and started again, twice:
  every finished game, its receipt and the tournament's results are still there;
- one of the two workers SIGKILLed during a few seconds of load: the other keeps
  answering, only requests in flight on the killed one fail, and every game's stored
  log still replays into its receipt;
- the schemathesis CLI, every check and phase, against the running server: no failure.

Every Redis here is a real ``redis-server`` process: without one on PATH the tests are
skipped (or fail with ``REQUIRE_REDIS=1``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import served
from redis_server import private_redis, redis_cluster, sentinel_group

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from reliability import (
    AOF_ALWAYS,
    SERVER_ENV,
    cluster_failover_scenario,
    cluster_scenario,
    kill_scenario,
    organizer_key,
    restart_scenario,
    schemathesis_scenario,
    sentinel_scenario,
    serve_pid,
    worker_pids,
)


def test_a_redis_crash_keeps_every_finished_game_and_tournament_result() -> None:
    with (
        private_redis(*AOF_ALWAYS) as redis,
        served(
            "--workers", "2", "--log-level", "warning", env={**SERVER_ENV, "REDIS_URL": redis.url}
        ) as base_url,
    ):
        report = restart_scenario(base_url, redis, organizer_key(redis.url))
    assert report.passed, report.text()


@pytest.mark.serial  # the longest gap without an answer is timed: alone (`make test`)
def test_a_worker_killed_under_load_leaves_the_other_answering_and_no_game_corrupted() -> None:
    with (
        private_redis(*AOF_ALWAYS) as redis,
        served(
            "--workers", "2", "--log-level", "critical", env={**SERVER_ENV, "REDIS_URL": redis.url}
        ) as base_url,
    ):
        assert len(worker_pids(serve_pid(base_url))) == 2
        report = kill_scenario(base_url, seconds=5, users=8, redis_url=redis.url)
    assert report.passed, report.text()


def test_schemathesis_cli_finds_no_failure_against_the_running_server(tmp_path: Path) -> None:
    with (
        private_redis() as redis,
        served(
            "--workers", "2", "--log-level", "critical", env={**SERVER_ENV, "REDIS_URL": redis.url}
        ) as base_url,
    ):
        report = schemathesis_scenario(
            base_url, organizer_key(redis.url), max_examples=3, workdir=tmp_path
        )
    assert report.passed, report.text()


def test_two_sentinel_failovers_under_load_lose_no_acknowledged_move() -> None:
    with sentinel_group() as group:
        env = {
            **SERVER_ENV,
            "REDIS_URL": group.url,
            "CARDPROOF_REDIS_MODE": "sentinel",
            "CARDPROOF_REDIS_MIN_REPLICAS": "1",
        }
        with served("--workers", "2", "--log-level", "critical", env=env) as base_url:
            report = sentinel_scenario(base_url, group, seconds=16, users=6)
    assert report.passed, report.text()


def test_a_load_on_a_redis_cluster_has_no_error_and_loses_nothing() -> None:
    with redis_cluster() as cluster:
        env = {**SERVER_ENV, "REDIS_URL": cluster.url, "CARDPROOF_REDIS_MODE": "cluster"}
        with served("--workers", "2", "--log-level", "critical", env=env) as base_url:
            report = cluster_scenario(base_url, cluster, seconds=6, users=6)
    assert report.passed, report.text()


def test_a_killed_cluster_master_under_load_loses_no_acknowledged_move() -> None:
    with redis_cluster(replicas=1) as cluster:
        env = {
            **SERVER_ENV,
            "REDIS_URL": cluster.url,
            "CARDPROOF_REDIS_MODE": "cluster",
            "CARDPROOF_REDIS_MIN_REPLICAS": "1",
        }
        with served("--workers", "2", "--log-level", "critical", env=env) as base_url:
            report = cluster_failover_scenario(base_url, cluster, seconds=16, users=6)
    assert report.passed, report.text()
