"""Whole logs sent to ``POST /v1/verify`` never hold the event loop.

A log on explicit cards or on a seed pair needs no store, so nothing but the event loop
stood between a flood of long ones and every other request: 400 logs of 60 KB from one
client made most health checks wait over a quarter of a second. They are replayed in the
replay threads now, as a stored deal's long log is.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.deals.verification as verification_module
from cardproof.games import SoloDrez, replay_log
from conftest import served

pytestmark = pytest.mark.serial
"""The health check's latency under a flood: run alone, after the rest (`make test`)."""

CYCLE = ["4:1>2", "2:1>4"]
"""Two moves that undo each other on the deal of :data:`SEEDS`: a log as long as allowed."""
SEEDS = {"server_seed": "00" * 32, "client_seed": "flood-0"}
LONG_LOG = " ".join([*CYCLE * 4999, "stop"])
"""10,000 moves, 60 KB: the longest solodrez log there is."""


def long_verifies() -> list[dict[str, Any]]:
    """The same long game on a seed pair, and on the explicit cards those seeds deal."""
    options = SoloDrez.parse_options({})
    cards = SoloDrez.deal_cards(bytes(32), SEEDS["client_seed"], options)
    return [
        {"variant": "solodrez", "deal": SEEDS, "moves": LONG_LOG},
        {
            "variant": "solodrez",
            "deal": {"cards": [str(card) for card in cards]},
            "moves": LONG_LOG,
        },
    ]


def test_a_whole_log_on_cards_or_seeds_is_replayed_off_the_event_loop(
    client: TestClient[Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return replay_log(*args, **kwargs)

    monkeypatch.setattr(verification_module, "replay_log", watched)
    for body in long_verifies():
        answer = client.post("/v1/verify", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["moves"] == LONG_LOG
    assert len(threads) == 2
    assert all(name.startswith("cardproof-replay") for name in threads), threads
    refused = client.post(
        "/v1/verify", json={**long_verifies()[0], "moves": LONG_LOG.replace("stop", "2:1>4")}
    )
    assert refused.status_code == 422  # an illegal move found in a thread is still a 422
    assert refused.json()["move_index"] == 9998


def test_a_flood_of_long_logs_leaves_the_health_check_fast() -> None:
    with served("--log-level", "warning") as url:

        async def flood() -> tuple[list[int], list[float]]:
            bodies = long_verifies()
            limits = httpx.Limits(max_connections=12)
            async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

                async def sender(number: int) -> list[int]:
                    return [
                        (await client.post("/v1/verify", json=bodies[(number + i) % 2])).status_code
                        for i in range(8)
                    ]

                flooding = asyncio.gather(*(sender(n) for n in range(10)))
                await asyncio.sleep(0.3)
                waits: list[float] = []
                async with httpx.AsyncClient(base_url=url, timeout=30) as prober:
                    while not flooding.done() and len(waits) < 60:
                        started = time.perf_counter()
                        assert (await prober.get("/healthz")).status_code == 200
                        waits.append(time.perf_counter() - started)
                        await asyncio.sleep(0.05)
                statuses = [status for batch in await flooding for status in batch]
                return statuses, waits

        statuses, waits = asyncio.run(flood())
    assert statuses == [200] * 80
    assert len(waits) >= 10, waits  # the flood lasted while the health check was probed
    waits.sort()
    print(
        f"/healthz during the flood: median {waits[len(waits) // 2]:.3f} s, max {waits[-1]:.3f} s"
    )
    assert waits[int(len(waits) * 0.95)] < 0.25, waits
