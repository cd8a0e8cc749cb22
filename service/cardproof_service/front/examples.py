"""Example request bodies: shown in the OpenAPI spec, used by the README and its tests.

They are real requests that succeed, so schemathesis' example phase exercises every
success path too.
"""

from __future__ import annotations

from typing import Any, Final

FIRST_25: Final = [
    "7H", "QS", "2D", "9C", "KH", "4S", "TD", "AC", "5H", "JD", "3C", "8S", "6D",
    "QH", "2S", "9D", "KC", "4H", "TS", "AD", "5C", "JH", "3S", "8D", "6C",
]  # fmt: skip
"""A fixed 25-card deal."""

ROW_BY_ROW: Final = " ".join(f"{col}{row}" for row in "12345" for col in "abcde")
"""A poker-squares log that fills the grid row by row: ``a1 b1 ... e5``."""

SCORE: Final[dict[str, Any]] = {
    "variant": "poker-squares",
    "layout": [
        ["AH", "KH", "QH", "JH", "TH"],
        ["9C", "9D", "9H", "9S", "2C"],
        ["3D", "3S", "3H", "4C", "4D"],
        ["4S", "5S", "6H", "7C", "8D"],
        ["2D", "7D", "JD", "KD", "AD"],
    ],
    "options": {"scoring": "american", "diagonals": False},
}

VERIFY: Final[dict[str, Any]] = {
    "variant": "poker-squares",
    "deal": {"cards": FIRST_25},
    "moves": ROW_BY_ROW,
    "options": {"scoring": "american"},
}

SOLVE: Final[dict[str, Any]] = {
    "variant": "serpent-patience",
    "cards": FIRST_25,
    "options": {"scoring": "british"},
}

DEAL: Final[dict[str, Any]] = {
    "variant": "poker-squares",
    "options": {"scoring": "american"},
    "client_seed": "my lucky seed",
}
"""A casual deal (no commitment): one call."""

TOURNAMENT: Final[dict[str, Any]] = {
    "name": "Spring Open",
    "variant": "poker-squares",
    "options": {"scoring": "american"},
    "rounds": 3,
    "opens_at": "2026-12-01T18:00:00Z",
    "closes_at": "2026-12-08T18:00:00Z",
    "max_entrants": 1000,
    "entry": "public",
}
