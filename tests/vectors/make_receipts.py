"""Write ``receipts.json``: receipts the service signed, for the web client's JS tests.

Run from the repository root::

    .venv/bin/python tests/vectors/make_receipts.py

Each entry is a committed poker-squares game played in-process with the test keys
(``conftest.TEST_KEYS``): the compact JWS, the key set, the point tables, the cards dealt
in order, the committed hash and the client seed. ``web/test/shuffle.test.ts`` verifies
each in WebCrypto and tampers with it; ``tests/test_web.py`` checks the file still
verifies with :func:`cardproof.verify_receipt`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

sys.path.insert(0, str(Path(__file__).parents[1]))
from cardproof_service import Settings, create_app
from conftest import TEST_KEYS

OUTPUT = Path(__file__).with_name("receipts.json")
GAMES: list[dict[str, Any]] = [
    {"client_seed": "web vectors", "options": {"scoring": "american"}, "order": "rows"},
    {"client_seed": "Zoë 🂡", "options": {"scoring": "british", "diagonals": True}, "order": "cols"},
]


def cells(order: str) -> list[str]:
    """The 25 cells row by row, or column by column."""
    if order == "rows":
        return [f"{c}{r}" for r in "12345" for c in "abcde"]
    return [f"{c}{r}" for c in "abcde" for r in "12345"]


def play(client: TestClient[Any], game: dict[str, Any]) -> dict[str, Any]:
    """One committed game, played through the API; what the JS test needs of it."""
    commitment = client.post("/v1/commitments", json={}).json()
    body = {"variant": "poker-squares", "options": game["options"]}
    body |= {"commitment_id": commitment["commitment_id"], "client_seed": game["client_seed"]}
    state = client.post("/v1/deals", json=body).json()
    dealt = [state["view"]["next"]]
    for index, cell in enumerate(cells(game["order"])):
        url = f"/v1/deals/{state['deal_id']}/moves"
        answer = client.post(url, json={"index": index, "move": cell}).json()
        if answer["view"]["next"]:
            dealt.append(answer["view"]["next"])
    receipt = client.get(f"/v1/deals/{state['deal_id']}/receipt").json()["receipt"]
    tables: dict[str, Any] = {}
    for info in client.get("/v1/variants").json():
        tables |= info.get("tables") or {}
    return {
        "receipt": receipt,
        "jwks": client.get("/.well-known/jwks.json").json(),
        "tables": tables,
        "dealt": dealt,
        "server_seed_hash": commitment["server_seed_hash"],
        "client_seed": game["client_seed"],
    }


def main() -> None:
    """Play the games and write the file."""
    app = create_app(Settings(warm_up=False), keys=TEST_KEYS)
    with TestClient(app) as client:
        entries = [play(client, game) for game in GAMES]
    OUTPUT.write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(entries)} receipts to {OUTPUT}")


if __name__ == "__main__":
    main()
