"""What the tournament scenarios share (bench/tournament.py, deadlines.py, big_page.py).

An organizer key made by the CLI, a one-round lockstep tournament created and its seats
entered and opened, a round's calls URL, and the little HTTP/1.1 the lockstep drivers
speak themselves (:class:`Wire`) with the server-sent events it reads. Kept apart so the
scenarios import it and not each other.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from cardproof.progress import bar

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


def organizer_key(redis_url: str, redis_mode: str = "") -> str:
    """A fresh organizer key, stored in the private Redis (or Cluster) by the CLI."""
    env = {**os.environ, "REDIS_URL": redis_url}
    if redis_mode:
        env["CARDPROOF_REDIS_MODE"] = redis_mode
    command = [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create"]
    made = subprocess.run(
        [*command, f"Bench {time.time_ns()}"], capture_output=True, text=True, env=env, check=True
    )
    return made.stdout.strip()


def event_stream(lines: list[str]) -> tuple[str, dict[str, Any]] | None:
    """One server-sent event from its lines (``None`` for a comment)."""
    name, data = "message", ""
    for line in lines:
        if line.startswith("event:"):
            name = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            data += line.partition(":")[2].strip()
    return (name, json.loads(data)) if data else None


def called_ms(text: str) -> float:
    """An RFC 3339 call time as milliseconds since the epoch."""
    return datetime.fromisoformat(text).timestamp() * 1e3


class Wire:
    """One keep-alive HTTP/1.1 connection on raw asyncio streams.

    The lockstep round drives 500 event streams and 500 placements a call from this one
    process: httpx would spend more CPU than the server under test, so the driver speaks
    the little HTTP it needs itself (requests with a length, answers with a length or
    chunked).
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A connection already open."""
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, base_url: str) -> Wire:
        """Connect to ``http://host:port``."""
        host, _, port = base_url.removeprefix("http://").partition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        return cls(reader, writer)

    def send(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> None:
        """Write one request."""
        lines = [f"{method} {path} HTTP/1.1", "Host: bench"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body or method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    async def head(self) -> tuple[int, dict[str, str]]:
        """The status and headers of the next answer."""
        status = int((await self.reader.readline()).split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers

    async def answer(self) -> tuple[int, bytes]:
        """The next whole answer (a length-delimited body)."""
        status, headers = await self.head()
        return status, await self.reader.readexactly(int(headers.get("content-length", "0")))

    async def chunks(self) -> AsyncIterator[bytes]:
        """A chunked body, chunk by chunk, to its end."""
        while size := int((await self.reader.readline()).strip() or b"0", 16):
            yield await self.reader.readexactly(size)
            await self.reader.readline()

    def close(self) -> None:
        """Close the connection."""
        self.writer.close()


async def one_round(
    client: httpx.AsyncClient,
    organizer: dict[str, str],
    name: str,
    seats: int,
    *,
    card_seconds: int,
) -> str:
    """A lockstep poker-squares tournament of one round for ``seats``, open for an hour."""
    now = datetime.now(UTC)
    body = {
        "name": name,
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": (now - timedelta(minutes=1)).isoformat(),
        "closes_at": (now + timedelta(hours=1)).isoformat(),
        "card_seconds": card_seconds,
        "max_entrants": seats,
    }
    created = await client.post("/v1/tournaments", json=body, headers=organizer)
    return str(created.raise_for_status().json()["tournament"]["tournament_id"])


async def seat_all(client: httpx.AsyncClient, tid: str, seats: int) -> list[tuple[str, str]]:
    """Enter and seat ``seats`` entrants in round 1, 32 at a time: (token, deal id) each."""
    gate = asyncio.Semaphore(32)

    async def seat(number: int) -> tuple[str, str]:
        async with gate:
            entry = await client.post(
                f"/v1/tournaments/{tid}/entries", json={"name": f"seat-{number:05d}"}
            )
            if entry.status_code != 201:
                raise RuntimeError(f"entry {number}: {entry.status_code} {entry.text}")
            token = entry.json()["token"]
            opened = await client.post(
                f"/v1/tournaments/{tid}/rounds/1/deal",
                json={},
                headers={"Authorization": f"Bearer {token}"},
            )
            seated.advance()
            return token, opened.raise_for_status().json()["deal_id"]

    with bar(seats, "seats", unit="seat") as seated:  # on a terminal only
        return list(await asyncio.gather(*(seat(n) for n in range(seats))))


def url_calls(tid: str) -> str:
    """A round's calls (round 1)."""
    return f"/v1/tournaments/{tid}/rounds/1/calls"
