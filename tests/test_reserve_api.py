"""reserve-poker through the API: variants, score, blind deals for every version, verify."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.games import ReservePoker
from conftest import play_blind

HttpClient = TestClient[Litestar]


def legal_move(view: dict[str, Any]) -> str:
    """A legal move read off the player's view alone: a non-empty reserve column, a grid
    column with room."""
    column = next(f for f, cards in enumerate(view["reserve"]) if cards)
    heights = [sum(row[c] is not None for row in view["grid"]) for c in range(5)]
    target = next(c for c in range(5) if heights[c] < 5)
    return f"{column}>{target}"


def test_reserve_poker_is_listed_with_its_options(client: HttpClient) -> None:
    variants = {v["id"]: v for v in client.get("/v1/variants").json()}
    reserve = variants["reserve-poker"]
    assert reserve["deck"] == "joker-53"
    assert "version" in reserve["options"]["properties"]


def test_score_a_reserve_grid_with_a_wild_joker(client: HttpClient) -> None:
    layout = [
        ["AH", "KH", "QH", "JH", "JK"],
        ["2C", "2D", "2H", "2S", "9C"],
        ["3C", "4D", "5H", "6S", "7C"],
        ["8D", "8S", "9D", "9S", "TC"],
        ["3D", "5D", "7D", "9H", "KD"],
    ]
    body = client.post("/v1/score", json={"variant": "reserve-poker", "layout": layout}).json()
    assert len(body["hands"]) == 12
    assert body["hands"][0]["category"] == "royal-flush"
    assert body["hands"][0]["points"] == 30
    assert [h["line"] for h in body["hands"][-2:]] == ["diagonal \\", "diagonal /"]


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, "random"])
def test_blind_reserve_deals_show_exactly_what_the_rules_make_visible(
    client: HttpClient, version: int | str
) -> None:
    receipt, moves = play_blind(client, "reserve-poker", {"version": version}, legal_move)
    assert len(moves) == 25
    rolled = receipt["payload"]["options"]["version"]
    assert rolled == version if version != "random" else 1 <= rolled <= 6


def test_random_version_needs_seeds(client: HttpClient) -> None:
    cards = [
        c.text for c in ReservePoker.deal_cards(bytes(32), "x", ReservePoker.parse_options(None))
    ]
    body = client.post(
        "/v1/verify",
        json={
            "variant": "reserve-poker",
            "options": {"version": "random"},
            "deal": {"cards": cards},
            "moves": "0>0",
        },
    ).json()
    assert (body["status"], body["code"], body["field"]) == (
        422,
        "random-needs-seeds",
        "options.version",
    )


def test_verify_a_reserve_log_on_a_seed_pair(client: HttpClient) -> None:
    options = ReservePoker.parse_options({"version": 6})
    game = ReservePoker.new(ReservePoker.deal_cards(bytes(32), "pair", options), options)
    while not game.is_over():
        game.play(game.legal_moves()[0])
    body = client.post(
        "/v1/verify",
        json={
            "variant": "reserve-poker",
            "options": {"version": 6},
            "deal": {"server_seed": bytes(32).hex(), "client_seed": "pair"},
            "moves": game.log_text(),
        },
    ).json()
    assert body["score"]["total"] == game.score().total
    assert body["payload"]["blind"] is False
