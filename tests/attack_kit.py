"""What the attack tests share: the tournament helpers, and a card leak detector.

The detector reads an answer the way a cheating player would: every JSON string in it
(and inside every receipt token it carries) is cut into words, and a word that is the
text of a card the player has not been shown yet is a leak.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from cardproof.cards import Card
from conftest import organizer_key
from test_tournaments_api import (
    CELLS,
    HttpClient,
    bearer,
    enter,
    moment,
    open_tournament,
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
    "reader",
    "strings",
]
