"""The standings page of a large closed tournament of long games (bench/tournament.py).

A solodrez tournament (one round, by invitation) with ``page_entrants`` entrants (1,000),
each of whom hands in a whole 10,000-move game (``POST /v1/verify`` on the entrant's
round deal, which the server replays and stores). The log is one legal line of random
transfers on the round's deal: the bench knows the server's fixed master key, so it
derives the round's deck as the server does (a client could not, before the close).
Then the tournament is closed and its standings page is read: the first view (drawn
from the stored results, a log variant's games shown as their logs, never replayed)
and ``samples`` views after it (kept: the tournament is settled), beside as many reads
of ``GET /v1/tournaments/{id}`` (one record: the peer). Pages 1 and 10 of 10.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from _common import percentile, verdict
from cardproof.progress import bar
from service import SERVER_KEYS, cardproof_server, private_redis

TARGET_VIEW_P99_MS = 50.0


def long_line(tournament: dict[str, Any]) -> str:
    """A legal 10,000-move solodrez log on the tournament's round 1 deal (as the server
    derives it, from the fixed master key)."""
    from cardproof.games import variant
    from cardproof.tournaments import round_deal
    from cardproof_service.deals import Commitments, round_commitment_id
    from cardproof_service.plumbing import load_keys

    commitments = Commitments(load_keys(SERVER_KEYS), ttl=0)
    seed = commitments.server_seed(round_commitment_id(tournament["tournament_id"], 1))
    options, deck = round_deal("solodrez", tournament["options"], seed, tournament["salt"])
    game = variant("solodrez")(deck, options)
    rng = random.Random(10_000)
    while not game.is_over():
        transfers = [m for m in game.legal_moves() if ">" in game.move_text(m)]
        game.play(rng.choice(transfers))
    return " ".join(game.move_text(move) for move in game.moves)


async def hand_in(base_url: str, tid: str, codes: list[str], log: str) -> list[str]:
    """Each code enters an entrant whose round 1 game is ``log``; the errors."""
    errors: list[str] = []
    gate = asyncio.Semaphore(8)
    async with httpx.AsyncClient(base_url=base_url, timeout=120, trust_env=False) as client:

        async def one(number: int, code: str) -> None:
            async with gate:
                entry = await client.post(
                    f"/v1/tournaments/{tid}/entries",
                    json={"name": f"entrant-{number:04d}", "invite_code": code},
                )
                token = entry.raise_for_status().json()["token"]
                auth = {"Authorization": f"Bearer {token}"}
                deal = await client.post(
                    f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=auth
                )
                body = {
                    "variant": "solodrez",
                    "deal": {"deal_id": deal.json()["deal_id"]},
                    "moves": log,
                }
                verified = await client.post("/v1/verify", json=body, headers=auth)
                if verified.status_code != 200:
                    errors.append(f"{verified.status_code} {verified.text[:160]}")
                handed.advance()

        with bar(len(codes), "games handed in", unit="game") as handed:  # on a terminal only
            await asyncio.gather(*(one(n, code) for n, code in enumerate(codes)))
    return errors


def page_scenario(args: Any) -> list[str]:
    """The scenario; its verdict lines."""
    from wire import organizer_key

    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cardproof-")))
        url, redis_pid = stack.enter_context(private_redis(workdir))
        server = stack.enter_context(cardproof_server(workdir, "redis", url, redis_pid, workers=2))
        key = organizer_key(url)
        organizer = {"Authorization": f"Bearer {key}"}
        now = datetime.now(UTC)
        entrants = args.page_entrants
        body = {
            "name": "Long Games Open",
            "variant": "solodrez",
            "rounds": 1,
            "opens_at": (now - timedelta(minutes=1)).isoformat(),
            "closes_at": (now + timedelta(hours=1)).isoformat(),
            "format": "async",
            "entry": "invite",
            "invites": min(1000, entrants + 1),
        }
        with httpx.Client(base_url=server.base_url, timeout=120, trust_env=False) as client:
            created = client.post(
                "/v1/tournaments", json=body, headers=organizer
            ).raise_for_status()
            tournament = created.json()["tournament"]
            tid = tournament["tournament_id"]
            codes = created.json()["invite_codes"]
            while len(codes) < entrants + 1:
                more = client.post(
                    f"/v1/tournaments/{tid}/invites",
                    json={"count": min(1000, entrants + 1 - len(codes))},
                    headers=organizer,
                )
                codes += more.raise_for_status().json()["codes"]
            client.headers["X-Invite-Code"] = codes.pop()
            start = time.perf_counter()
            log = long_line(tournament)
            made = time.perf_counter() - start
            start = time.perf_counter()
            errors = asyncio.run(hand_in(server.base_url, tid, codes[:entrants], log))
            handed = time.perf_counter() - start
            print(
                f"solodrez tournament, {entrants:,} entrants, each a whole "
                f"{len(log.split()):,}-move game ({len(log) / 1e3:.0f} KB): the line made in "
                f"{made:.1f} s, handed in and verified in {handed:.1f} s, {len(errors)} errors "
                f"{errors[:2]}"
            )
            client.post(
                f"/v1/tournaments/{tid}/close", json={}, headers=organizer
            ).raise_for_status()
            figures: dict[str, list[float]] = {}
            sizes: dict[str, int] = {}
            last = -(-entrants // 100)
            for name, path in (
                ("page 1", f"/tournaments/{tid}"),
                (f"page {last}", f"/tournaments/{tid}?page={last}"),
                ("record", f"/v1/tournaments/{tid}"),
            ):
                times = []
                for _ in range(args.samples + 1):
                    start = time.perf_counter()
                    answer = client.get(path)
                    times.append((time.perf_counter() - start) * 1e3)
                    if answer.status_code != 200:
                        errors.append(f"{path}: {answer.status_code}")
                figures[name] = times
                sizes[name] = len(answer.content)
    view = figures["page 1"][1:]
    peer = figures["record"][1:]
    for name, times in figures.items():
        print(
            f"  GET {name} ({sizes[name] / 1e6:.1f} MB): first {times[0]:.1f} ms; then "
            f"p50 {percentile(times[1:], 0.5):.1f} ms, p99 {percentile(times[1:], 0.99):.1f} ms "
            f"over {len(times) - 1}"
        )
    ratio = percentile(view, 0.99) / percentile(peer, 0.99)
    print(f"  ratio page 1 / tournament record p99: {ratio:.1f}")
    worst = max(percentile(figures[name][1:], 0.99) for name in figures if name != "record")
    return [
        verdict(
            f"standings page of {entrants:,} entrants with 10,000-move solodrez games, once "
            f"kept: <= {TARGET_VIEW_P99_MS:.0f} ms a view (p99)",
            worst <= TARGET_VIEW_P99_MS and not errors,
            f"p99 {worst:.1f} ms, {len(errors)} errors",
        )
    ]
