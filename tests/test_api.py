"""The HTTP API through Litestar's test client: shapes, scores and every kind of bad input."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.cards import STANDARD_DECK
from cardproof.deal import standard_deck
from cardproof.games import PokerSquares, SerpentPatience
from cardproof_service.front import examples
from cardproof_service.plumbing.settings import DEFAULT_MAX_BODY_BYTES

Client = TestClient[Litestar]


def problem(response: Any, status: int) -> dict[str, Any]:
    """Assert a problem+json answer with ``status`` and return its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["title"]
    assert body["detail"]
    assert body["type"]
    return body


def deck_texts(seed: str) -> list[str]:
    return [c.text for c in standard_deck(bytes(32), seed)]


# --- variants -------------------------------------------------------------------


def test_variants_lists_the_grid_games_with_options_and_tables(client: Client) -> None:
    variants = {v["id"]: v for v in client.get("/v1/variants").json()}
    assert {"poker-squares", "poker-patience", "serpent-patience"} <= set(variants)
    assert variants["serpent-patience"]["information"] == "open"
    assert variants["poker-squares"]["information"] == "hidden"
    assert "diagonals" in variants["poker-squares"]["options"]["properties"]
    assert variants["poker-squares"]["options"]["properties"]["scoring"]["default"] == "american"
    assert variants["poker-patience"]["options"]["properties"]["scoring"]["default"] == "british"
    tables = variants["poker-squares"]["tables"]
    assert tables["american"]["royal-flush"] == 100
    assert tables["british"]["straight"] == 12
    assert tables["british"]["flush"] == 5


# --- score ----------------------------------------------------------------------


def test_score_example_scores_each_line(client: Client) -> None:
    body = client.post("/v1/score", json=examples.SCORE).json()
    categories = [h["category"] for h in body["hands"][:5]]
    assert categories == ["royal-flush", "four-of-a-kind", "full-house", "straight", "flush"]
    assert [h["line"] for h in body["hands"]] == [f"row {i}" for i in range(1, 6)] + [
        f"col {c}" for c in "abcde"
    ]
    assert body["total"] == 100 + 50 + 25 + 15 + 20


def test_score_with_diagonals_british_and_custom_tables(client: Client) -> None:
    request = copy.deepcopy(examples.SCORE)
    request["options"] = {"diagonals": True}
    body = client.post("/v1/score", json=request).json()
    assert [h["line"] for h in body["hands"]][-2:] == ["diagonal \\", "diagonal /"]
    assert body["hands"][10]["cards"] == ["AH", "9D", "3H", "7C", "AD"]
    assert body["hands"][11]["cards"] == ["TH", "9S", "3H", "5S", "2D"]

    request["options"] = {"scoring": "british"}
    assert client.post("/v1/score", json=request).json()["total"] == 30 + 16 + 10 + 12 + 5

    request["options"] = {"scoring": {"royal-flush": -7, "flush": 3}}
    assert client.post("/v1/score", json=request).json()["total"] == -7 + 3


def test_score_accepts_other_spellings_and_answers_canonical(client: Client) -> None:
    request = copy.deepcopy(examples.SCORE)
    request["layout"][0] = ["a♥", "kh", "Q♥", "jH", "10h"]
    body = client.post("/v1/score", json=request).json()
    assert body["hands"][0]["cards"] == ["AH", "KH", "QH", "JH", "TH"]


def test_score_other_grid_variants_use_their_default_table(client: Client) -> None:
    for variant in ("poker-patience", "serpent-patience"):
        request = {**examples.SCORE, "variant": variant, "options": {}}
        assert client.post("/v1/score", json=request).json()["total"] == 30 + 16 + 10 + 12 + 5


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r["layout"][2].__setitem__(3, "1H"), "layout[2][3]"),
        (lambda r: r["layout"].pop(), "layout"),
        (lambda r: r["layout"][1].append("2H"), "layout[1]"),
        (lambda r: r.__setitem__("variant", "chess"), "variant"),
        (lambda r: r.__setitem__("extra", 1), "extra"),
        (lambda r: r["options"].__setitem__("colour", "red"), "options.colour"),
        (lambda r: r["options"].__setitem__("scoring", "vegas"), "options.scoring"),
        (lambda r: r["options"].__setitem__("scoring", {"flush": 1001}), "options.scoring.flush"),
        (lambda r: r["options"].__setitem__("scoring", {"bogus": 1}), "options.scoring.bogus"),
        (lambda r: r["options"].__setitem__("diagonals", "yes"), "options.diagonals"),
    ],
)
def test_score_bad_input_is_400_naming_the_field(client: Client, change: Any, field: str) -> None:
    request = copy.deepcopy(examples.SCORE)
    change(request)
    body = problem(client.post("/v1/score", json=request), 400)
    assert body["field"] == field
    assert field.split(".")[-1].split("[")[0] in body["detail"]


def test_score_rule_errors_are_422(client: Client) -> None:
    request = copy.deepcopy(examples.SCORE)
    request["layout"][4][4] = "kh"
    body = problem(client.post("/v1/score", json=request), 422)
    assert body["code"] == "duplicate-card"
    assert body["field"] == "layout[4][4]"
    assert "layout[0][1]" in body["detail"]

    request = copy.deepcopy(examples.SCORE)
    request["layout"][4][4] = "JK"
    body = problem(client.post("/v1/score", json=request), 422)
    assert (body["code"], body["field"]) == ("card-not-in-deck", "layout[4][4]")

    request = {**examples.SCORE, "variant": "serpent-patience", "options": {"diagonals": True}}
    body = problem(client.post("/v1/score", json=request), 422)
    assert (body["code"], body["field"]) == ("unknown-option", "options.diagonals")


def test_malformed_json_and_oversized_bodies(client: Client) -> None:
    body = problem(
        client.post("/v1/score", content=b"{", headers={"content-type": "application/json"}), 400
    )
    assert "not valid JSON" in body["detail"]
    problem(client.post("/v1/verify", content=b"x" * (DEFAULT_MAX_BODY_BYTES + 1)), 413)


def test_integral_floats_count_as_integers(client: Client) -> None:
    request = copy.deepcopy(examples.VERIFY)
    request["moves"] = [{"row": i // 5, "col": i % 5} for i in range(25)]
    integral = client.post("/v1/verify", json=request)
    request["moves"] = [{"row": float(i // 5), "col": float(i % 5)} for i in range(25)]
    floats = client.post("/v1/verify", json=request)
    assert (floats.status_code, integral.status_code) == (200, 200)
    assert floats.json()["score"] == integral.json()["score"]  # the same game, the same score
    assert (
        floats.json()["moves"]
        == integral.json()["moves"]
        == " ".join(f"{c}{r}" for r in "12345" for c in "abcde")
    )
    request["moves"][3] = {"row": 0.5, "col": 3}
    assert problem(client.post("/v1/verify", json=request), 400)["field"] == "moves[3].row"


# --- verify ---------------------------------------------------------------------


def test_verify_replays_and_scores_like_the_engine(client: Client) -> None:
    cards = deck_texts("verify")
    game = PokerSquares.new(standard_deck(bytes(32), "verify"))
    while not game.is_over():
        game.play(game.legal_moves()[-1])
    request = {"variant": "poker-squares", "deal": {"cards": cards}, "moves": game.log_text()}
    body = client.post("/v1/verify", json=request).json()
    assert body["moves"] == game.log_text()
    assert body["score"]["total"] == game.score().total
    assert body["receipt"] is None
    assert body["options"] == {"scoring": "american", "diagonals": False}

    as_objects = [{"row": m.row, "col": m.col} for m in game.moves]
    same = client.post("/v1/verify", json={**request, "moves": as_objects}).json()
    assert same == body


def test_verify_names_the_illegal_move(client: Client) -> None:
    request = copy.deepcopy(examples.VERIFY)
    request["moves"] = "a1 b1 c1 a1"
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"], body["field"]) == (3, "cell-taken", "moves[3]")
    assert "a1" in body["detail"]

    request["moves"] = [{"row": 0, "col": 0}, {"row": 4, "col": 4}, {"row": -1, "col": 2}]
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"]) == (2, "off-board")

    request["moves"] = [{"row": 0, "col": 0}, {"row": 1}]
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"]) == (1, "wrong-move-shape")

    request["moves"] = "a1 0,1"
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"]) == (1, "wrong-move-shape")


def test_verify_short_long_and_unreadable_logs(client: Client) -> None:
    request = copy.deepcopy(examples.VERIFY)
    request["moves"] = examples.ROW_BY_ROW.rsplit(" ", 1)[0]
    body = problem(client.post("/v1/verify", json=request), 422)
    assert body["code"] == "incomplete"
    assert "24 moves" in body["detail"]

    request["moves"] = examples.ROW_BY_ROW + " a1"
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"]) == (25, "game-over")

    request["moves"] = "a1 z9"
    body = problem(client.post("/v1/verify", json=request), 400)
    assert body["field"] == "moves[1]"


def test_verify_deal_problems(client: Client) -> None:
    request = copy.deepcopy(examples.VERIFY)
    request["deal"]["cards"] = examples.FIRST_25[:24]
    assert problem(client.post("/v1/verify", json=request), 422)["code"] == "too-few-cards"
    request["deal"]["cards"] = [*examples.FIRST_25[:24], "7h"]
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["code"], body["field"]) == ("duplicate-card", "deal.cards[24]")
    request["deal"]["cards"] = [*examples.FIRST_25[:24], "XX"]
    assert problem(client.post("/v1/verify", json=request), 400)["field"] == "deal.cards[24]"


def test_verify_poker_patience_and_a_serpent_dead_end(client: Client) -> None:
    rows = [f"{r},{c}" for r in range(5) for c in range(5)]
    request = {
        "variant": "poker-patience",
        "deal": {"cards": examples.FIRST_25},
        "moves": " ".join(rows),
    }
    verified = client.post("/v1/verify", json=request)
    assert verified.status_code == 200
    body = verified.json()
    assert body["moves"] == " ".join(rows)  # the log as played, canonical
    assert body["options"]["scoring"] == "british"  # poker-patience's default table
    layout = [examples.FIRST_25[5 * r : 5 * r + 5] for r in range(5)]  # row by row, as played
    scored = client.post(
        "/v1/score",
        json={"variant": "poker-patience", "layout": layout, "options": body["options"]},
    ).json()
    assert body["score"]["total"] == scored["total"]  # the same square, scored the same
    assert len(body["score"]["hands"]) == 10
    request["moves"] = "0,0 2,2"
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"]) == (1, "not-adjacent")

    dead_end = "b1 c1 c2 b2 a2 a1"  # a1's neighbours a2 and b1 are both taken
    request = {
        "variant": "serpent-patience",
        "deal": {"cards": examples.FIRST_25},
        "moves": dead_end,
    }
    body = problem(client.post("/v1/verify", json=request), 422)
    assert body["code"] == "incomplete"
    assert "dead end after 6 cards" in body["detail"]
    assert "a1" in body["detail"]
    request["moves"] = dead_end + " a3"
    body = problem(client.post("/v1/verify", json=request), 422)
    assert (body["move_index"], body["code"]) == (6, "game-over")


# --- solve ----------------------------------------------------------------------


def test_solve_serpent_is_optimal_and_its_moves_verify(client: Client) -> None:
    solution = client.post("/v1/solve", json=examples.SOLVE).json()
    assert solution["optimal"] is True
    assert len(solution["moves"]) == 25
    request = {
        "variant": "serpent-patience",
        "deal": {"cards": examples.FIRST_25},
        "moves": solution["moves"],
    }
    verified = client.post("/v1/verify", json=request).json()
    assert verified["score"] == solution["score"]
    flat = [card for row in solution["layout"] for card in row]
    assert sorted(flat) == sorted(examples.FIRST_25)
    # a legal game found by a simple walk never beats the optimum
    cards = [c for c in STANDARD_DECK if c.text in examples.FIRST_25]
    order = sorted(cards, key=lambda c: examples.FIRST_25.index(c.text))
    game = SerpentPatience.new(order)
    while not game.is_over():
        game.play(game.legal_moves()[0])
    if game.is_complete():
        assert game.score().total <= solution["score"]["total"]


def test_solve_refuses_variants_without_a_solver(client: Client) -> None:
    body = problem(
        client.post("/v1/solve", json={**examples.SOLVE, "variant": "repeat-poker"}), 422
    )
    assert (body["code"], body["field"]) == ("no-solver", "variant")


# --- the rest -------------------------------------------------------------------


def test_health_ready_and_errors_for_unknown_routes(client: Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json()["status"] == "ready"
    problem(client.get("/v1/nothing"), 404)
    response = client.delete("/v1/score")
    problem(response, 405)
    assert "POST" in response.headers["allow"]


def test_schema_page_and_document(client: Client) -> None:
    assert client.get("/schema").status_code == 200
    spec = client.get("/schema/openapi.json").json()
    assert spec["info"]["title"] == "cardproof"


def _asgi_post(app: Litestar, path: str, chunks: list[bytes]) -> tuple[int, bytes]:
    """POST ``chunks`` as separate ASGI messages with no Content-Length; status and body."""
    messages = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


def test_a_body_in_chunks_is_read_whole_and_bounded(app: Litestar) -> None:
    """A body sent in pieces with no announced length: read whole, and 413 past the limit."""
    raw = json.dumps(examples.VERIFY).encode()
    status, answer = _asgi_post(app, "/v1/verify", [raw[:10], raw[10:200], raw[200:]])
    assert status == 200, answer
    assert json.loads(answer)["score"]["total"] >= 0
    piece = b" " * (DEFAULT_MAX_BODY_BYTES // 4)
    status, answer = _asgi_post(app, "/v1/verify", [b"{", piece, piece, piece, piece, b"}"])
    assert status == 413, answer
    assert json.loads(answer)["status"] == 413
