"""Write ``receipts.json`` (and ``receipts-solodrez.json``): receipts the service signed.

Run from the repository root::

    .venv/bin/python tests/vectors/make_receipts.py

Each run signs fresh deals: the receipts kept in the file are older ones too (an entry
is added, not replaced, so the page keeps reading receipts signed before its changes).

Each entry is a committed game of a grid variant (or reserve-poker, repeat-poker's
five-level ladder, whose ``seen`` cards name each level's stream, or solodrez, played by
its solver: a won game, one stopped after three series, and one played at random until no
move is left) played in-process
with the test keys (``conftest.TEST_KEYS``): the compact JWS, the key set, the point
tables, the cards shown (each at its place in the deal), the committed hash, the client
seed and, for a table drawn from the seeds, its system. Two more are lies: that game's
receipt signed again with a table its seeds do not draw, and a receipt whose key set says
its key was retired before it was issued (``lie: "key-period"``).
``service/web/test/shuffle.test.ts`` verifies each in WebCrypto and tampers with it;
``tests/test_web.py`` checks the file still verifies with :func:`cardproof.verify_receipt`
(and the lies do not). The solodrez games are written to ``receipts-solodrez.json``, in
the same form (the web client's tests count and index ``receipts.json``'s entries);
``tests/test_vectors.py`` and the clean room check them.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import msgspec
from litestar.testing import TestClient

sys.path.insert(0, str(Path(__file__).parents[1]))
from cardproof.games import SoloDrez
from cardproof.games.repeat_poker import DECK, level_stream
from cardproof.pokerdrez import parse_pokerdrez_cards
from cardproof.receipts import decode_receipt
from cardproof.solvers.solodrez import solve
from cardproof_service import Settings, create_app
from conftest import TEST_KEYS

OUTPUT = Path(__file__).with_name("receipts.json")
SOLODREZ_OUTPUT = Path(__file__).with_name("receipts-solodrez.json")
"""The solodrez games, apart: the web client's tests count receipts.json's entries."""
ROWS = [f"{c}{r}" for r in "12345" for c in "abcde"]
COLUMNS = [f"{c}{r}" for c in "abcde" for r in "12345"]
SNAKE = [f"{c}{r}" for r in "12345" for c in ("abcde" if r in "135" else "edcba")]
OFFSETS = [f"{r},{c}" for r in (0, 1, 2, -1, -2) for c in (0, 1, 2, 3, -1)]
"""Row by row out from the first card: each offset touches one laid before it."""
GAMES: list[dict[str, Any]] = [
    {"variant": "poker-squares", "client_seed": "web vectors", "moves": ROWS},
    {
        "variant": "poker-squares",
        "client_seed": "Zoë 🂡",
        "options": {"scoring": "british", "diagonals": True},
        "moves": COLUMNS,
    },
    {"variant": "poker-patience", "client_seed": "floating", "moves": OFFSETS},
    {  # a table drawn from the seeds (cardproof-points-v1): the page draws it again
        "variant": "poker-squares",
        "client_seed": "Neller's systems",
        "options": {"scoring": "ameritish"},
        "moves": ROWS,
        "system": "ameritish",
    },
    {"variant": "serpent-patience", "client_seed": "a rook's path", "moves": SNAKE},
    {  # signed since receipts name their issuer (iss, iat) and their typ
        "variant": "poker-squares",
        "client_seed": "a named issuer",
        "options": {"scoring": "british"},
        "moves": ROWS,
    },
    {
        "variant": "reserve-poker",
        "client_seed": "gravity",
        "options": {"version": 2},
        "moves": [f"{i % 4}>{i % 5}" for i in range(25)],
    },
    {  # the ladder: five levels (5, 4, 3, 2, 1 rows), each dealt from its own stream
        "variant": "repeat-poker",
        "client_seed": "a ladder of levels",
        "options": {"levels": 5},
        "moves": [f"r{i % (5 - i // 52) + 1}" for i in range(5 * 52)],
    },
]
SOLODREZ_GAMES: list[dict[str, Any]] = [
    {  # the 56-card Pokerdrez deck, all face up: the solver's winning line
        "variant": "solodrez",
        "client_seed": "a Pokerdrez deck",
        "series": 9,
    },
    {  # the solver's line up to its third series, then stop: won false, scored 3
        "variant": "solodrez",
        "client_seed": "three series, then stop",
        "series": 3,
    },
    {  # random legal moves (seeded) until none is left: the game ends without a stop
        "variant": "solodrez",
        "client_seed": "no move left",
        "series": 0,
    },
]
SOLODREZ_COLUMNS = 9


def shown(view: dict[str, Any], next_index: int) -> dict[int, str]:
    """The cards a view shows, by their place in the deal (the deck's index)."""
    if view["kind"] == "columns":  # solodrez: card i dealt to column i mod 9, all shown
        if next_index:
            return {}  # cards moved since the deal: their places are the first view's
        return {
            j * SOLODREZ_COLUMNS + c: card
            for c, column in enumerate(view["columns"])
            for j, card in enumerate(column)
        }
    if view["kind"] == "reserve":  # dealt round-robin into four columns
        return {
            i * 4 + f: card
            for f, column in enumerate(view["reserve"])
            for i, card in enumerate(column)
            if card is not None
        }
    cards = [view["next"], *view.get("later", ())] if view["next"] else []
    return {next_index + i: card for i, card in enumerate(cards)}


def place(game: dict[str, Any], i: int) -> tuple[str, int]:
    """The stream and index of the ``i``-th card a game is dealt (repeat-poker: a deck a level)."""
    if game["variant"] == "repeat-poker":
        return level_stream(i // DECK + 1), i % DECK
    return "deal", i


def solodrez_line(view: dict[str, Any], series: int) -> list[str] | None:
    """The solver's winning line on a solodrez deal, cut after ``series`` removals (then
    ``stop``); ``None`` if the solver finds no win.

    ``series`` 0: random legal moves but ``stop`` (seeded, so a rerun tries the same) until
    none is left; ``None`` if the game is won or runs past 2,000 moves.
    """
    columns = [parse_pokerdrez_cards(column) for column in view["columns"]]
    if series == 0:
        game = SoloDrez.from_columns(columns)
        rng = random.Random(41)
        while not game.is_over() and len(game.moves) < 2000:
            game.play(rng.choice([m for m in game.legal_moves() if not m.stop]))
        over = game.is_over() and not game.won
        return [SoloDrez.move_text(m) for m in game.moves] if over else None
    found = solve(SoloDrez.from_columns(columns), budget=10.0)
    if found.result != "won":
        return None
    line: list[str] = []
    for move in found.moves:
        line.append(SoloDrez.move_text(move))
        if sum(text.startswith("r") for text in line) == series < 9:
            return [*line, "stop"]
    return line


def play(client: TestClient[Any], game: dict[str, Any]) -> dict[str, Any]:
    """One committed game, played through the API; what the JS test needs of it.

    A solodrez game is dealt again (a fresh commitment) until its solver finds a win.
    """
    while True:
        commitment = client.post("/v1/commitments", json={}).json()
        body = {"variant": game["variant"], "options": game.get("options", {})}
        body |= {"commitment_id": commitment["commitment_id"], "client_seed": game["client_seed"]}
        state = client.post("/v1/deals", json=body).json()
        moves = game.get("moves") or solodrez_line(state["view"], game["series"])
        if moves is not None:
            break
    seen = shown(state["view"], 0)
    for index, cell in enumerate(moves):
        url = f"/v1/deals/{state['deal_id']}/moves"
        answer = client.post(url, json={"index": index, "move": cell})
        assert answer.status_code == 200, answer.text
        seen |= shown(answer.json()["view"], index + 1)
    receipt = client.get(f"/v1/deals/{state['deal_id']}/receipt").json()["receipt"]
    tables: dict[str, Any] = {}
    for info in client.get("/v1/variants").json():
        tables |= info.get("tables") or {}
    return {
        "receipt": receipt,
        "jwks": client.get("/.well-known/jwks.json").json(),
        "tables": tables,
        "seen": [
            dict(zip(("stream", "index"), place(game, i), strict=True)) | {"card": card}
            for i, card in sorted(seen.items())
        ],
        "server_seed_hash": commitment["server_seed_hash"],
        "client_seed": game["client_seed"],
        **({"system": game["system"]} if "system" in game else {}),
    }


def practice(client: TestClient[Any]) -> dict[str, Any]:
    """A practice receipt (a log on seeds the player chose): refused unless allowed."""
    answer = client.post(
        "/v1/verify",
        json={
            "variant": "poker-squares",
            "deal": {"server_seed": "00" * 32, "client_seed": "my own seeds"},
            "moves": " ".join(ROWS),
        },
    ).json()
    tables: dict[str, Any] = {}
    for info in client.get("/v1/variants").json():
        tables |= info.get("tables") or {}
    return {
        "receipt": answer["receipt"],
        "jwks": client.get("/.well-known/jwks.json").json(),
        "tables": tables,
        "seen": [],
        "server_seed_hash": answer["payload"]["server_seed_hash"],
        "client_seed": "my own seeds",
        "kind": "practice",
    }


def lying(entry: dict[str, Any]) -> dict[str, Any]:
    """The drawn-table game's receipt, signed again with another table than its seeds draw.

    What a server picking the table after the client seed would sign: the signature,
    the seeds and the cards hold, the table does not (nor, then, the score's points).
    """
    payload = decode_receipt(entry["receipt"])[1]
    table = dict(payload.options["scoring"])
    table["royal-flush"] += 1
    forged = msgspec.structs.replace(payload, options={**payload.options, "scoring": table})
    return {**entry, "receipt": TEST_KEYS.signing.sign(forged), "lie": "table"}


def retired(entry: dict[str, Any]) -> dict[str, Any]:
    """A receipt whose key set says its key was retired the moment before it was issued.

    What a leaked retired key would sign: the signature holds, the date does not.
    """
    payload = decode_receipt(entry["receipt"])[1]
    keys = [{**key, "exp": payload.issued} for key in entry["jwks"]["keys"]]
    return {**entry, "jwks": {"keys": keys}, "lie": "key-period"}


def _key(entry: dict[str, Any]) -> tuple[str, str, str]:
    """What tells entries apart: the client seed, the kind, the lie."""
    return entry["client_seed"], entry.get("kind", ""), entry.get("lie", "")


def _kept(path: Path) -> list[dict[str, Any]]:
    """The entries a file holds already (none if it is not there)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def _write(path: Path, kept: list[dict[str, Any]], added: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps(kept + added, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"kept {len(kept)} receipts, added {len(added)}, in {path}")


def main() -> None:
    """Play the games the files lack and add them; the entries they have are kept."""
    kept = _kept(OUTPUT)
    have = {_key(entry) for entry in kept}
    solodrez_kept = _kept(SOLODREZ_OUTPUT)
    solodrez_have = {_key(entry) for entry in solodrez_kept}
    app = create_app(Settings(warm_up=False), keys=TEST_KEYS)
    added: list[dict[str, Any]] = []
    solodrez_added: list[dict[str, Any]] = []
    with TestClient(app) as client:
        for game in GAMES:
            if (game["client_seed"], "", "") not in have:
                added.append(play(client, game))
        for game in SOLODREZ_GAMES:
            if (game["client_seed"], "", "") not in solodrez_have:
                solodrez_added.append(play(client, game))
        if ("my own seeds", "practice", "") not in have:
            added.append(practice(client))
        drawn = next(e for e in kept + added if "system" in e and "lie" not in e)
        if (drawn["client_seed"], "", "table") not in have:
            added.append(lying(drawn))
        named = next(e for e in kept + added if e["client_seed"] == "a named issuer")
        if (named["client_seed"], "", "key-period") not in have:
            added.append(retired(named))
    _write(OUTPUT, kept, added)
    _write(SOLODREZ_OUTPUT, solodrez_kept, solodrez_added)


if __name__ == "__main__":
    main()
