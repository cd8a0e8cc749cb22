"""solodrez through the API, the SDK and the terminal: verify, deals, solve, bad input."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import play
from cardproof.cards import Card
from cardproof.client import Client
from cardproof.games import SoloDrez
from cardproof.games.solodrez import MAX_MOVES
from cardproof.models import SoloDrezSolution
from cardproof.pokerdrez import POKERDREZ_DECK, PokerdrezCard, parse_pokerdrez_cards
from cardproof.receipts import verify_receipt
from conftest import play_blind

HttpClient = TestClient[Litestar]


def deal_of(columns: list[str]) -> list[str]:
    """The deck order (card texts) that deals these 9 columns."""
    return [c.text for c in SoloDrez.deal_of([parse_pokerdrez_cards(c.split()) for c in columns])]


# Seven clean series ready to go, and two more each under a neutral.
WINNABLE = deal_of(
    [
        "J1 Q1 T1 B1 N1 P1 X1",
        "J2 Q2 T2 B2 N2 P2 X2",
        *(" ".join(f"{figure}{colour}" for figure in "JQTBNP") for colour in range(3, 10)),
    ]
)
WINNING_LOG = "r2 r3 0:1>2 r0 1:1>3 r1 r4 r5 r6 r7 r8"


def stuck_deal() -> list[str]:
    """A deal with no legal move from the start: every column ends in a Pawn, none is a series."""
    pawns = [card for card in POKERDREZ_DECK if card.figure == 5]
    others = [card for card in POKERDREZ_DECK if card.figure != 5]
    random.Random(7).shuffle(others)
    columns: list[list[Card]] = []
    for size in [7, 7, 6, 6, 6, 6, 6, 6, 6]:
        columns.append([*others[: size - 1], pawns[len(columns)]])
        del others[: size - 1]
    game = SoloDrez.new(SoloDrez.deal_of(columns))
    assert game.is_over()
    assert not game.removes()
    return [card.text for card in SoloDrez.deal_of(columns)]


def verify(client: HttpClient, moves: Any, **deal: Any) -> dict[str, Any]:
    answer = client.post("/v1/verify", json={"variant": "solodrez", "deal": deal, "moves": moves})
    body: dict[str, Any] = answer.json()
    body["http_status"] = answer.status_code
    return body


def choose_from_view(limit: int) -> Any:
    """A player reading only the view: removes first, then transfers, ``stop`` after ``limit``."""
    played = 0

    def choose(view: dict[str, Any]) -> str:
        nonlocal played
        played += 1
        position = SoloDrez.from_columns([parse_pokerdrez_cards(c) for c in view["columns"]])
        moves = position.legal_moves()
        if played > limit:
            return "stop"
        return SoloDrez.move_text(moves[0])

    return choose


# --- listing, score -----------------------------------------------------------------------


def test_solodrez_is_listed_as_open_on_the_pokerdrez_deck(client: HttpClient) -> None:
    variants = {v["id"]: v for v in client.get("/v1/variants").json()}
    solodrez = variants["solodrez"]
    assert (solodrez["information"], solodrez["deck"]) == ("open", "pokerdrez-56")
    assert "Decision" in solodrez["description"]


def test_score_refuses_solodrez(client: HttpClient) -> None:
    layout = [["AH"] * 5] * 5
    body = client.post("/v1/score", json={"variant": "solodrez", "layout": layout}).json()
    assert (body["status"], body["code"]) == (422, "no-layout")


# --- verify -------------------------------------------------------------------------------


def test_verify_a_won_game_on_an_explicit_card_order(client: HttpClient) -> None:
    body = verify(client, WINNING_LOG, cards=WINNABLE)
    assert body["http_status"] == 200, body
    assert body["score"] == {"total": 9, "hands": [], "won": True, "series_removed": 9}
    assert body["receipt"] is None  # a card order is practice: unsigned
    assert body["moves"] == WINNING_LOG


def test_verify_move_objects_and_a_stopped_game(client: HttpClient) -> None:
    moves = [{"remove": 2}, {"from": 0, "count": 1, "to": 2}, {"remove": 0}, {"stop": True}]
    body = verify(client, moves, cards=WINNABLE)
    assert body["http_status"] == 200, body
    assert body["score"] == {"total": 2, "hands": [], "won": False, "series_removed": 2}
    assert body["moves"] == "r2 0:1>2 r0 stop"


def test_verify_on_a_seed_pair_gives_a_receipt_that_verifies_offline(client: HttpClient) -> None:
    seed = bytes(range(32))
    game = SoloDrez.new(SoloDrez.deal_cards(seed, "drez", SoloDrez.parse_options(None)))
    for _ in range(40):
        if game.is_over():
            break
        game.play(game.legal_moves()[0])
    if not game.is_over():
        game.play(SoloDrez.parse_move("stop"))
    body = verify(client, game.log_text(), server_seed=seed.hex(), client_seed="drez")
    assert body["http_status"] == 200, body
    jwks = client.get("/.well-known/jwks.json").json()
    checked = verify_receipt(body["receipt"], jwks, allow=["practice"])
    assert checked.replayed
    assert checked.payload.kind == "practice"
    assert checked.payload.score.series_removed == game.series_removed
    assert body["score"]["total"] == game.series_removed


def test_a_game_with_no_move_left_scores_with_an_empty_log(client: HttpClient) -> None:
    body = verify(client, "", cards=stuck_deal())
    assert body["http_status"] == 200, body
    assert body["score"]["series_removed"] == 0
    refused = verify(client, "stop", cards=stuck_deal())
    assert (refused["http_status"], refused["code"], refused["move_index"]) == (422, "game-over", 0)


def test_a_log_cut_short_is_incomplete(client: HttpClient) -> None:
    body = verify(client, "r2 r3", cards=WINNABLE)
    assert (body["http_status"], body["code"]) == (422, "incomplete")
    assert "stop" in body["detail"]


@pytest.mark.parametrize(
    ("moves", "index", "code", "words"),
    [
        ([{"from": 2, "count": 7, "to": 3}], 0, "too-many-cards", "column 2 holds 6 cards"),
        ("r2 2:1>3", 1, "too-many-cards", "column 2 is empty"),
        ([{"from": 0, "count": 3, "to": 2}], 0, "not-a-run", "N1 P1 X1"),
        ("r2 3:1>4", 1, "onto-pawn", "nothing goes onto a Pawn"),
        ("r2 r3 3:1>2", 2, "too-many-cards", "column 3 is empty"),
        ("r2 r3 r4 4:1>2", 3, "too-many-cards", "column 4 is empty"),
        ("r2 r3 4:1>2", 2, "empty-needs-joker", "an empty column takes only a run headed"),
        ("r2 r3 0:2>2", 2, "not-a-run", "(P1 X1) are not a run"),
        ("r0", 0, "not-a-series", "holds a neutral (X1)"),
        ("r2 r2", 1, "not-a-series", "it is empty"),
        ([{"from": 1, "to": 2}], 0, "wrong-move-shape", "{from, count, to}"),
        ([{"stop": False}], 0, "wrong-move-shape", "only ever true"),
        ([{"remove": 1, "stop": True}], 0, "wrong-move-shape", "{remove}"),
        ("c3", 0, "wrong-move-shape", "not a solodrez move"),
    ],
)
def test_illegal_moves_are_named_by_index_and_reason(
    client: HttpClient, moves: Any, index: int, code: str, words: str
) -> None:
    body = verify(client, moves, cards=WINNABLE)
    assert body["http_status"] == 422, body
    assert (body["code"], body["move_index"]) == (code, index)
    assert words in body["detail"]


def test_a_run_onto_a_card_that_is_not_one_figure_higher(client: HttpClient) -> None:
    # column 3 ends in Q5, column 4 in P5
    cards = deal_of(
        [
            "J1 Q1 T1 B1 N1 P1 X1",
            "J2 Q2 T2 B2 N2 P2 X2",
            "J3 Q3 T3 B3 N3 P3",
            "J4 Q4 T4 B4 N4 Q5",
            "J5 P4 T5 B5 N5 P5",
            "J6 Q6 T6 B6 N6 P6",
            "J7 Q7 T7 B7 N7 P7",
            "J8 Q8 T8 B8 N8 P8",
            "J9 Q9 T9 B9 N9 P9",
        ]
    )
    body = verify(client, "r2 3:1>4", cards=cards)
    assert (body["code"], body["move_index"]) == ("onto-pawn", 1)
    body = verify(client, "4:1>3", cards=cards)
    assert (body["code"], body["move_index"]) == ("not-one-higher", 0)
    assert "starts with a Pawn, so it needs a Knight under it" in body["detail"]


def test_cards_of_the_wrong_deck_are_refused(client: HttpClient) -> None:
    standard = [f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA"] + ["JK"] * 4
    body = verify(client, "stop", cards=standard)
    assert (body["http_status"], body["code"], body["field"]) == (
        422,
        "card-not-in-deck",
        "deal.cards[0]",
    )
    assert "'2C' is not a card of solodrez's deck (pokerdrez-56)" in body["detail"]
    body = client.post(
        "/v1/verify",
        json={"variant": "poker-squares", "deal": {"cards": WINNABLE[:25]}, "moves": "a1"},
    ).json()
    assert (body["status"], body["code"], body["field"]) == (
        422,
        "card-not-in-deck",
        "deal.cards[0]",
    )
    body = verify(client, "stop", cards=["Z9", *WINNABLE[1:]])
    assert (body["http_status"], body["field"]) == (400, "deal.cards[0]")
    body = client.post(
        "/v1/verify",
        json={"variant": "solodrez", "deal": {"cards": WINNABLE}, "moves": [{"remove": 9}]},
    ).json()
    assert (body["status"], body["field"]) == (400, "moves[0].remove")


def shuffle_log(moves: int) -> str:
    """Remove two series, then shuttle X1 between the two empty columns: always legal."""
    shuttle = ["2:1>3", "3:1>2"]
    rest = [shuttle[i % 2] for i in range(moves - 3)]
    return " ".join(["r2", "r3", "0:1>2", *rest])


def test_the_log_is_bounded_at_10000_moves(client: HttpClient) -> None:
    at_bound = verify(client, shuffle_log(MAX_MOVES), cards=WINNABLE)
    assert at_bound["http_status"] == 200, at_bound
    assert at_bound["score"]["series_removed"] == 2
    over = verify(client, shuffle_log(MAX_MOVES + 1), cards=WINNABLE)
    assert (over["http_status"], over["code"], over["move_index"]) == (
        422,
        "too-many-moves",
        MAX_MOVES,
    )
    objects = [SoloDrez.parse_move(t) for t in shuffle_log(MAX_MOVES + 1).split()]
    as_objects = verify(client, [_object(m) for m in objects], cards=WINNABLE)
    assert (as_objects["code"], as_objects["move_index"]) == ("too-many-moves", MAX_MOVES)


def _object(move: Any) -> dict[str, Any]:
    import msgspec

    found: dict[str, Any] = msgspec.to_builtins(move)
    return found


# --- deals --------------------------------------------------------------------------------


def test_a_solodrez_deal_shows_the_whole_layout_and_verifies(client: HttpClient) -> None:
    receipt, moves = play_blind(client, "solodrez", {}, choose_from_view(12))
    payload = receipt["payload"]
    assert payload["variant"] == "solodrez"
    assert moves[-1] == "stop" or payload["score"]["won"] is not None
    first = client.post("/v1/deals", json={"variant": "solodrez"}).json()
    columns = first["view"]["columns"]
    assert [len(c) for c in columns] == [7, 7, 6, 6, 6, 6, 6, 6, 6]  # everything face up
    assert first["view"]["kind"] == "columns"


def test_an_illegal_move_in_a_deal_is_refused_with_its_index(client: HttpClient) -> None:
    deal = client.post("/v1/deals", json={"variant": "solodrez"}).json()
    answer = client.post(
        f"/v1/deals/{deal['deal_id']}/moves",
        json={"index": 0, "move": {"from": 2, "count": 7, "to": 3}},
    )
    body = answer.json()
    assert (answer.status_code, body["code"], body["move_index"]) == (422, "too-many-cards", 0)
    stop = client.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": 0, "move": "stop"})
    assert stop.json()["finished"] is True
    assert stop.json()["score"]["series_removed"] == 0


# --- solve --------------------------------------------------------------------------------


def test_solve_finds_the_win_and_verify_accepts_it(client: HttpClient) -> None:
    answer = client.post("/v1/solve", json={"variant": "solodrez", "cards": WINNABLE})
    body = answer.json()
    assert answer.status_code == 200, body
    assert body["result"] == "won"
    assert body["states_searched"] >= 1
    assert body["budget"] == 2.0
    checked = verify(client, body["moves"], cards=WINNABLE)
    assert checked["score"]["won"] is True
    assert checked["moves"] == body["log"]


def test_solve_proves_a_stuck_deal_lost(client: HttpClient) -> None:
    body = client.post("/v1/solve", json={"variant": "solodrez", "cards": stuck_deal()}).json()
    assert (body["result"], body["moves"]) == ("lost", [])


def test_solve_answers_within_its_budget(client: HttpClient) -> None:
    cards = [c.text for c in SoloDrez.deal_cards(bytes(32), "budget", SoloDrez.parse_options(None))]
    body = client.post(
        "/v1/solve", json={"variant": "solodrez", "cards": cards, "budget": 0.05}
    ).json()
    assert body["result"] in {"won", "lost", "unknown"}
    assert body["seconds"] <= 0.05 + 0.25
    if body["result"] == "won":
        assert verify(client, body["moves"], cards=cards)["score"]["won"] is True


@pytest.mark.parametrize("budget", [0, -1, 10.5, "2"])
def test_a_bad_budget_is_a_400(client: HttpClient, budget: Any) -> None:
    body = client.post(
        "/v1/solve", json={"variant": "solodrez", "cards": WINNABLE, "budget": budget}
    ).json()
    assert (body["status"], body["field"]) == (400, "budget")


# --- SDK and terminal ---------------------------------------------------------------------


@pytest.fixture
def sdk(client: HttpClient) -> Iterator[Client]:
    with Client(base_url=str(client.base_url), http_client=client) as sdk_client:
        yield sdk_client


def test_the_sdk_solves_plays_and_checks_a_receipt(sdk: Client) -> None:
    solution = sdk.solve("solodrez", parse_pokerdrez_cards(WINNABLE), budget=1.0)
    assert isinstance(solution, SoloDrezSolution)
    assert solution.result == "won"
    game = sdk.deal("solodrez")
    position = SoloDrez.from_columns([parse_pokerdrez_cards(c) for c in game.visible.columns])
    first = position.legal_moves()[0]
    game.play(first)
    game.play({"stop": True})
    assert game.finished
    checked = verify_receipt(game.receipt().receipt, sdk.jwks())
    assert checked.payload.moves.split()[0] == SoloDrez.move_text(first)


def test_play_solodrez_in_the_terminal_with_a_hint(
    sdk: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play.solodrez, "HINT_BUDGET", 0.2)
    output = io.StringIO()
    status = play.run(
        sdk,
        "solodrez",
        input=io.StringIO("?\nhint\n3 7 4\nstop\n"),
        output=output,
        client_seed="terminal",
        server_url="http://example.invalid",
    )
    text = output.getvalue()
    assert status == 0, text
    assert "Columns 1-9 are shown top to bottom" in text
    assert "hint: " in text
    assert "illegal move (3 7 4): column 3 holds 6 cards, not 7" in text  # the API's column 2
    assert "Not won: 0 of 9 series removed, in 0 moves; then stopped." in text
    assert "Receipt: " in text


def test_pokerdrez_cards_parse_in_any_case() -> None:
    assert PokerdrezCard.parse("q3") is PokerdrezCard.parse("Q3")


def test_solve_a_position_of_a_game_under_way(client: HttpClient) -> None:
    """A hint: the columns of a game part-played, solved from there (the web page's hint)."""
    line = client.post("/v1/solve", json={"variant": "solodrez", "cards": WINNABLE}).json()
    game = SoloDrez.new(parse_pokerdrez_cards(WINNABLE))
    for move in line["log"].split()[:3]:
        game.play(SoloDrez.parse_move(move))
    columns = [[card.text for card in column] for column in game.columns]
    answer = client.post("/v1/solve", json={"variant": "solodrez", "columns": columns})
    body = answer.json()
    assert answer.status_code == 200, body
    assert body["result"] == "won"
    position = SoloDrez.from_columns([parse_pokerdrez_cards(column) for column in columns])
    for move in body["log"].split():
        position.play(SoloDrez.parse_move(move))
    left = [card for column in position.columns for card in column]
    assert all(isinstance(card, PokerdrezCard) and card.is_neutral for card in left)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"cards": WINNABLE, "columns": [[]] * 9}, 422, "cards-or-columns"),
        ({}, 422, "cards-or-columns"),
        ({"columns": [["J1"], ["J1"], *[[]] * 7]}, 422, "duplicate-card"),
        ({"columns": [["AH"], *[[]] * 8]}, 400, None),  # no Pokerdrez card: cannot parse
    ],
)
def test_a_bad_position_is_refused(
    client: HttpClient, body: dict[str, Any], status: int, code: str
) -> None:
    answer = client.post("/v1/solve", json={"variant": "solodrez", **body})
    assert (answer.status_code, answer.json().get("code")) == (status, code), answer.text


def test_a_position_is_for_solodrez_only_and_has_nine_columns(client: HttpClient) -> None:
    serpent = client.post("/v1/solve", json={"variant": "serpent-patience", "columns": [[]] * 9})
    assert (serpent.status_code, serpent.json()["code"]) == (422, "columns-need-solodrez")
    eight = client.post("/v1/solve", json={"variant": "solodrez", "columns": [[]] * 8})
    assert eight.status_code == 400
    assert "columns" in eight.json()["detail"]
    bad = client.post("/v1/solve", json={"variant": "solodrez", "columns": [["Z9"], *[[]] * 8]})
    assert bad.status_code == 400
    assert "columns[0]" in bad.text
