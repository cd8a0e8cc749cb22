"""What the attack tests share: the tournament helpers, a card leak detector, a lying server.

The detector reads an answer the way a cheating player would: every JSON string in it
(and inside every receipt token it carries) is cut into words, and a word that is the
text of a card the player has not been shown yet is a leak. The lying server is the real
app behind a :class:`Proxy` that answers some requests with what ``cheat`` forges.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpx

from cardproof import Client
from cardproof.cards import Card
from conftest import organizer_key
from test_tournaments_api import (
    CELLS,
    HttpClient,
    bearer,
    enter,
    moment,
    open_tournament,
    play_round,
    reader,
)

_WORDS = re.compile(r"[0-9A-Za-z_-]+")
"""Words as a reader cuts them; ids and tokens (base64url) stay whole."""


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, and in the payload of every JWS among them."""
    if isinstance(value, str):
        yield value
        parts = value.split(".")
        if len(parts) == 3 and all(parts):
            try:
                payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
                yield from strings(json.loads(payload))
            except (ValueError, UnicodeDecodeError):
                pass
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def card_words(text: str) -> set[str]:
    """The card texts named in a response body (JSON or not), upper-cased."""
    try:
        found = list(strings(json.loads(text)))
    except ValueError:
        found = [text]
    return {word.upper() for chunk in found for word in _WORDS.findall(chunk)}


def leaks(text: str, hidden: Iterable[Card]) -> set[str]:
    """The hidden cards a response body names: empty when it names none."""
    return card_words(text) & {card.text for card in hidden}


Cheat = Callable[[httpx.Request, HttpClient], httpx.Response | None]
"""Given a request and the honest server, a forged answer (``None``: answer honestly)."""


def forward(
    request: httpx.Request, server: HttpClient, body: bytes | None = None
) -> httpx.Response:
    """The honest server's answer to ``request`` (with ``body`` in place of its own)."""
    headers = {
        k: v for k, v in request.headers.items() if k.lower() not in {"host", "content-length"}
    }
    answer = server.request(
        request.method,
        request.url.path,
        content=request.content if body is None else body,
        headers=headers,
    )
    return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)


class Proxy:
    """A transport in front of the real app that cheats where ``cheat`` says."""

    def __init__(self, server: HttpClient, cheat: Cheat) -> None:
        self.server = server
        self.cheat = cheat
        self.seen: list[str] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}")
        forged = self.cheat(request, self.server)
        return forged if forged is not None else forward(request, self.server)

    def client(self, **settings: Any) -> Client:
        http = httpx.Client(transport=httpx.MockTransport(self.handle), base_url="http://cheat")
        return Client(base_url="http://cheat", http_client=http, max_retries=0, **settings)

    def moves_played(self) -> int:
        return sum(1 for line in self.seen if line.endswith("/moves"))


def receipt_cheat(forge: Callable[[dict[str, Any], HttpClient], dict[str, Any]]) -> Cheat:
    """A cheat that answers a receipt request with ``forge`` of the honest answer."""

    def cheat(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
        if request.method == "GET" and request.url.path.endswith("/receipt"):
            honest = forward(request, server)
            return httpx.Response(200, json=forge(honest.json(), server))
        return None

    return cheat


def committed_receipt(client: HttpClient) -> str:
    """The receipt of a committed poker-squares deal played in ``CELLS`` order."""
    commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
    deal = client.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": "a seed of mine",
        },
    ).json()
    for index, cell in enumerate(CELLS):
        client.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": cell})
    token: str = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()["receipt"]
    return token


__all__ = [
    "CELLS",
    "Cheat",
    "HttpClient",
    "Proxy",
    "bearer",
    "card_words",
    "committed_receipt",
    "enter",
    "forward",
    "leaks",
    "moment",
    "open_tournament",
    "organizer_key",
    "play_round",
    "reader",
    "receipt_cheat",
    "strings",
]
