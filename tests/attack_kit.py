"""What the attack tests share: an app to attack, tournaments, and a card leak detector.

The detector reads an answer the way a cheating player would: every JSON string in it
(and inside every receipt token it carries) is cut into words, and a word that is the
text of a card the player has not been shown yet is a leak.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from cardproof.cards import Card
from cardproof_service.organizers import new_organizer
from cardproof_service.store import Store

HttpClient = TestClient[Litestar]
CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]
"""Every poker-squares cell, row by row."""
_WORDS = re.compile(r"[0-9A-Za-z_-]+")
"""Words as a reader cuts them; ids and tokens (base64url) stay whole."""


def organizer_key(app: Litestar, name: str) -> str:
    """A fresh organizer in the app's store, and its key as an Authorization header."""
    key, record = new_organizer(name)
    store: Store = app.state.store
    assert asyncio.run(store.add_organizer(record))
    return f"Bearer {key}"


def moment(hours: float) -> str:
    """RFC 3339 time ``hours`` from now."""
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def bearer(token: str) -> dict[str, str]:
    """An ``Authorization`` header carrying ``token``."""
    return {"Authorization": f"Bearer {token}"}


def open_tournament(client: HttpClient, owner: str, **changes: Any) -> dict[str, Any]:
    """A tournament open now (created by ``owner``), as the creation answer."""
    body = {
        "name": "Attack Open",
        "variant": "poker-squares",
        "options": {"scoring": "british"},
        "rounds": 2,
        "opens_at": moment(-1),
        "closes_at": moment(24),
        **changes,
    }
    answer = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def enter(client: HttpClient, tournament_id: str, name: str, **extra: Any) -> Any:
    """Enter ``name``; the raw answer."""
    return client.post(f"/v1/tournaments/{tournament_id}/entries", json={"name": name, **extra})


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


__all__ = [
    "CELLS",
    "HttpClient",
    "bearer",
    "card_words",
    "enter",
    "leaks",
    "moment",
    "open_tournament",
    "organizer_key",
    "strings",
]
