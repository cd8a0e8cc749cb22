"""Every key the service writes to Redis expires, but for organizers (a documented reason).

A whole day of use on a private Redis: casual and committed deals, finished and not, a
verify, requests counted by the rate limit, the games-in-flight cap and the daily quota,
an invite-only tournament with entries (with and without replay keys), round games
finished and abandoned, the close. Then every key is looked at: each must have a time to
live, except an organizer's record and the organizer names, which are accounts and stay
until an operator removes them, and the transparency log, kept for good (its pools hold
entries until they are sequenced). A tournament's keys expire together, at its closing time
plus the retention.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from litestar.testing import TestClient
from redis import Redis

from cardproof_service import Settings, create_app
from cardproof_service.store import keys as layout
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS
from redis_server import private_redis
from test_tournaments_api import add_organizer_to

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]
KEPT = (
    layout.ORGANIZERS,
    layout.DUE_TAGS,
    layout.LOG_STATE,
    layout.LOG_TILES,
    layout.LOG_LEAVES,
    layout.LOG_POOLS,
    layout.LOG_DUE,
)
"""Keys without a time to live: organizers are accounts, removed by an operator; the
tags whose rounds are due, and each tag's due rounds (at most 256 tags), hold a round
until it finishes or its tournament is gone; the log's due tournaments, one each until
its close is logged."""


def kept(name: str) -> bool:
    """Whether ``name`` is one of the keys :data:`KEPT` names, a tag's due rounds, or the
    transparency log's (kept for good: that is a log) and its pools (until sequenced,
    about a second; an emptied list is gone)."""
    return name.startswith(KEPT) or name.endswith((":lockstep-due", ":log-pool"))


def kind_of(name: str) -> str:
    """What a key holds: the part after its hash tag (``deal``, ``tournament``...).

    >>> kind_of("cardproof:{0a}:deal:d_0a"), kind_of("cardproof:rate:client:29")
    ('deal', 'rate')
    """
    parts = name.split(":")
    return parts[2] if parts[1].startswith("{") else parts[1]


def test_every_key_expires_but_organizers() -> None:
    retention = 3600
    with private_redis() as redis:
        key, organizer = new_organizer("Lifetime Club")
        settings = Settings(
            warm_up=False,
            rate_limit=10_000,
            max_games_in_flight=50,
            daily_deal_quota=500,
            tournament_retention=retention,
        )
        store = RedisStore.from_url(redis.url, timeout=10.0)  # a busy machine is not an outage
        app = create_app(settings, keys=TEST_KEYS, store=store)
        assert asyncio.run(add_organizer_to(redis.url, organizer))
        with TestClient(app) as client:
            owner = {"Authorization": f"Bearer {key}"}
            commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
            committed = client.post(
                "/v1/deals",
                json={
                    "variant": "poker-squares",
                    "commitment_id": commitment,
                    "client_seed": "a seed of mine",
                },
                headers={"Idempotency-Key": "0f0e0d0c-0b0a-4908-8706-050403020100"},
            ).json()["deal_id"]
            for index, cell in enumerate(CELLS):
                url = f"/v1/deals/{committed}/moves"
                client.post(url, json={"index": index, "move": cell})
            client.post("/v1/deals", json={"variant": "repeat-poker"})  # left unfinished
            client.post(
                "/v1/verify",
                json={
                    "variant": "poker-squares",
                    "deal": {"server_seed": "00" * 32, "client_seed": "x"},
                    "moves": " ".join(CELLS),
                },
            )
            closes = datetime.now(UTC) + timedelta(hours=2)
            created = client.post(
                "/v1/tournaments",
                json={
                    "name": "Lifetime Open",
                    "variant": "poker-squares",
                    "rounds": 2,
                    "opens_at": (datetime.now(UTC) - timedelta(hours=1)).isoformat(),
                    "closes_at": closes.isoformat(),
                    "entry": "invite",
                    "invites": 3,
                },
                headers=owner,
            ).json()
            tid = created["tournament"]["tournament_id"]
            codes = created["invite_codes"]
            tokens = []
            for number, name in enumerate(("Ada", "Bea")):
                headers = {"Idempotency-Key": f"entry-{number}-0123456789abcdef"}
                entry = client.post(
                    f"/v1/tournaments/{tid}/entries",
                    json={"name": name, "invite_code": codes[number]},
                    headers=headers,
                )
                tokens.append(entry.json()["token"])
            seats = []
            for token in tokens:  # a lockstep round: seated, started, 7 cards, then closed
                bearer = {"Authorization": f"Bearer {token}"}
                deal = client.post(
                    f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer
                ).json()["deal_id"]
                seats.append((deal, bearer))
            client.post(f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers=owner)
            for index, cell in enumerate(CELLS[:7]):
                for deal, bearer in seats:
                    url = f"/v1/deals/{deal}/moves"
                    moved = client.post(url, json={"index": index, "move": cell}, headers=bearer)
                    assert moved.status_code == 200, moved.text
            client.post(f"/v1/tournaments/{tid}/close", json={}, headers=owner)
            client.get(f"/v1/tournaments/{tid}/standings", headers=owner)

        plain = Redis.from_url(redis.url)
        keys = sorted(k.decode() for k in plain.scan_iter(match="*", count=1000))
        kinds = {kind_of(k) for k in keys}
        assert {"deal", "commitment", "in-flight", "deals-today", "rate", "tournament"} <= kinds
        expires_at = int(closes.timestamp()) + retention
        for name in keys:
            ttl = plain.ttl(name)
            if kept(name):
                assert ttl == -1, name
                continue
            assert ttl > 0, name
            if name.startswith(layout.tournament(tid)) and ":entry-replay:" not in name:
                assert abs(time.time() + ttl - expires_at) < 5, name
        tournament_keys = [k for k in keys if k.startswith(layout.tournament(tid))]
        parts = {k.removeprefix(layout.tournament(tid)) for k in tournament_keys}
        assert {"", ":entrant-keys", ":entrant-ids", ":totals", ":finished", ":results"} <= parts
        assert {":round:1", ":round:1:seats", ":round:1:calls"} <= parts
        assert ":invites" in parts
