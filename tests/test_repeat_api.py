"""repeat-poker through the API: variants, blind deals (one level and the ladder), verify."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.games import RepeatPoker
from conftest import play_blind

HttpClient = TestClient[Litestar]


def legal_move(view: dict[str, Any]) -> str:
    """A legal move read off the player's view alone: the first row with room."""
    row = next(r for r, cards in enumerate(view["rows"]) if len(cards) < 5)
    return f"r{row + 1}"


def test_repeat_poker_is_listed_and_has_no_layout_scoring(client: HttpClient) -> None:
    variants = {v["id"]: v for v in client.get("/v1/variants").json()}
    assert {"rows", "levels", "high_card"} <= set(variants["repeat-poker"]["options"]["properties"])
    layout = [["2C", "3C", "4C", "5C", "6C"]] * 5
    body = client.post("/v1/score", json={"variant": "repeat-poker", "layout": layout}).json()
    assert (body["status"], body["code"]) == (422, "no-layout")


@pytest.mark.parametrize(
    "options", [{}, {"rows": 2}, {"levels": 5}, {"levels": 5, "high_card": "clear-row"}]
)
def test_blind_repeat_deals_show_only_what_is_due(
    client: HttpClient, options: dict[str, Any]
) -> None:
    receipt, moves = play_blind(client, "repeat-poker", options, legal_move)
    levels = options.get("levels", 1)
    assert len(moves) == 52 * levels
    assert len(receipt["payload"]["score"]["levels"]) == levels
    assert receipt["payload"]["options"].get("high_card") == options.get("high_card")
    high_cards = [
        hand for hand in receipt["payload"]["score"]["hands"] if hand["category"] == "high-card"
    ]
    cleared = options.get("high_card") == "clear-row"
    if cleared:  # 260 cards: some rows hold no hand
        assert high_cards
    assert all(len(hand["removed"]) == (5 if cleared else 1) for hand in high_cards)


def test_verify_a_ladder_on_a_seed_pair_and_on_its_cards(client: HttpClient) -> None:
    settings = RepeatPoker.parse_options({"levels": 5})
    deck = RepeatPoker.deal_cards(bytes(32), "pair", settings)
    game = RepeatPoker.new(deck, settings)
    while not game.is_over():
        game.play(game.legal_moves()[-1])
    request: dict[str, Any] = {
        "variant": "repeat-poker",
        "options": {"levels": 5},
        "deal": {"server_seed": bytes(32).hex(), "client_seed": "pair"},
        "moves": game.log_text(),
    }
    signed = client.post("/v1/verify", json=request).json()
    assert signed["score"] == msgspec.json.decode(msgspec.json.encode(game.score()))
    request["deal"] = {"cards": [card.text for card in deck]}
    practice = client.post("/v1/verify", json=request).json()
    assert practice["score"] == signed["score"]
    assert practice["receipt"] is None
    request["moves"] = game.log_text().rsplit(" ", 1)[0]
    short = client.post("/v1/verify", json=request).json()
    assert (short["status"], short["code"]) == (422, "incomplete")
