"""Neller's point systems through the API: a deal draws its table from its seeds.

``scoring: "ameritish"`` (or ``random``, ``hypercorner``, ``single-hand``) is resolved when
a deal is dealt (cardproof/tables.py): the deal, its receipt and a tournament's export
carry the table drawn, the SDK checks it against the revealed seeds (a server that
picked another table is caught), and where no seeds are known the name is refused.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from cardproof import Client
from cardproof.deal import standard_deck
from cardproof.games import replay_log
from cardproof.models import DealState
from cardproof.promises import Played, TournamentPromises
from cardproof.receipts import CommitmentMismatchError, Expected, options_match, verify_receipt
from cardproof.tables import GENERATED, generate
from cardproof.tournaments import ExportError, verify_export, worst_round
from conftest import TEST_KEYS
from test_tournaments_api import (
    CELLS,
    HttpClient,
    bearer,
    enter,
    open_tournament,
    play_round,
    reader,
)


@pytest.fixture
def sdk(client: HttpClient) -> Client:
    return Client(base_url=str(client.base_url), http_client=client, max_retries=0)


def drawn(system: str, server_seed: str, client_seed: str) -> dict[str, int]:
    return generate(system, bytes.fromhex(server_seed), client_seed).as_mapping()


@pytest.mark.parametrize("system", GENERATED)
def test_a_committed_blind_game_scores_with_the_table_its_seeds_draw(
    sdk: Client, client: HttpClient, system: str
) -> None:
    game = sdk.deal("poker-squares", options={"scoring": system})
    table = game.state.options["scoring"]
    assert isinstance(table, dict)  # drawn at the deal, shown before the first move
    for cell in CELLS:
        game.play(cell)
    receipt = game.receipt().receipt
    jwks = client.get("/.well-known/jwks.json").json()
    checked = verify_receipt(receipt, jwks, expect=Expected(options={"scoring": system}))
    payload = checked.payload
    assert payload.options["scoring"] == table
    assert table == drawn(system, payload.server_seed or "", payload.client_seed)
    lines = {hand.category: hand.points for hand in payload.score.hands}
    assert all(points == table[category] for category, points in lines.items())


def test_a_table_the_seeds_did_not_draw_is_caught() -> None:
    seed, client_seed = bytes(range(32)), "alice"
    good = msgspec.to_builtins(generate("random", seed, client_seed).as_mapping())
    forged = {**good, "royal-flush": good["royal-flush"] + 1}
    asked = {"scoring": "random"}
    assert options_match(
        "poker-squares", asked, {"scoring": good}, server_seed=seed, client_seed=client_seed
    )
    assert not options_match(
        "poker-squares", asked, {"scoring": forged}, server_seed=seed, client_seed=client_seed
    )
    assert options_match("poker-squares", asked, {"scoring": forged})  # until the seeds
    assert not options_match(
        "poker-squares",
        {"scoring": "hypercorner"},
        {"scoring": good},
        server_seed=seed,
        client_seed=client_seed,
    )


def test_the_sdk_refuses_a_game_whose_table_is_not_the_one_asked_for(sdk: Client) -> None:
    game = sdk.deal("poker-squares", options={"scoring": "american"})
    for cell in CELLS:
        game.play(cell)
    jwks_receipt = game.receipt().receipt
    with pytest.raises(CommitmentMismatchError):  # asked for a drawn table, got american
        verify_receipt(
            jwks_receipt,
            sdk.jwks(),
            expect=Expected(options={"scoring": "ameritish"}),
        )


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/score", {"layout": [CELLS[:5]] * 5}),
        ("/v1/verify", {"deal": {"cards": []}, "moves": " ".join(CELLS)}),
        ("/v1/solve", {"cards": []}),
    ],
)
def test_without_seeds_a_drawn_table_is_refused_by_name(
    client: HttpClient, path: str, body: dict[str, Any]
) -> None:
    cards = [f"{rank}{suit}" for suit in "CDHS" for rank in "23456789TJQKA"][:25]
    if "layout" in body:
        body = {"layout": [cards[r * 5 : r * 5 + 5] for r in range(5)]}
    elif "deal" in body:
        body = {**body, "deal": {"cards": cards}}
    else:
        body = {"cards": cards}
    variant = "serpent-patience" if path == "/v1/solve" else "poker-squares"
    answer = client.post(path, json={"variant": variant, "options": {"scoring": "random"}, **body})
    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert (problem["code"], problem["field"]) == ("generated-needs-seeds", "options.scoring")


def test_a_seed_pair_verify_draws_the_table(client: HttpClient) -> None:
    seed = bytes(range(32))
    answer = client.post(
        "/v1/verify",
        json={
            "variant": "poker-squares",
            "options": {"scoring": "single-hand"},
            "deal": {"server_seed": seed.hex(), "client_seed": "pair"},
            "moves": " ".join(CELLS),
        },
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["payload"]["options"]["scoring"] == drawn(
        "single-hand", seed.hex(), "pair"
    )


def test_a_tournament_draws_each_rounds_table_and_its_export_verifies(
    client: HttpClient, owner: str
) -> None:
    created = open_tournament(client, owner, rounds=2, options={"scoring": "hypercorner"})
    tid = created["tournament"]["tournament_id"]
    assert worst_round("poker-squares", {"scoring": "hypercorner"}) == -10
    ada = enter(client, tid, "Ada").json()["token"]
    play_round(client, tid, ada, 1, CELLS)
    play_round(client, tid, ada, 2, CELLS[::-1])
    closed = client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    export = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid)).json()
    check = verify_export(msgspec.json.encode(export), client.get("/.well-known/jwks.json").json())
    assert check.games == 2
    salt = export["tournament"]["salt"]
    for game, round_ in zip(export["games"], export["tournament"]["rounds"], strict=True):
        jwks = client.get("/.well-known/jwks.json").json()
        payload = verify_receipt(game["receipt"], jwks).payload
        assert payload.options["scoring"] == drawn("hypercorner", round_["server_seed"], salt)


def test_a_round_receipt_signed_with_another_table_fails_the_export(
    client: HttpClient, owner: str
) -> None:
    """A server that signs a round's receipt with a table its seeds did not draw, and the
    score that table gives (so that the receipt replays), is caught by verify_export,
    which draws the table itself."""
    created = open_tournament(client, owner, rounds=1, options={"scoring": "random"})
    tid = created["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    play_round(client, tid, ada, 1, CELLS)
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    export = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid)).json()
    jwks = client.get("/.well-known/jwks.json").json()
    payload = verify_receipt(export["games"][0]["receipt"], jwks).payload
    forged_options = {"scoring": {**payload.options["scoring"], "high-card": 1000}}
    deck = standard_deck(bytes.fromhex(payload.server_seed or ""), payload.client_seed)
    score = replay_log("poker-squares", deck, forged_options, payload.moves).score()
    forged = msgspec.structs.replace(payload, options=forged_options, score=score)
    export["games"][0]["receipt"] = TEST_KEYS.signing.sign(forged)
    with pytest.raises(ExportError) as refused:
        verify_export(msgspec.json.encode(export), jwks)
    assert any("options are not the round's" in p for p in refused.value.problems), (
        refused.value.problems
    )


def test_the_sdk_checks_a_rounds_table_when_dealt_and_at_the_reveal(
    sdk: Client, client: HttpClient, owner: str
) -> None:
    created = open_tournament(client, owner, rounds=1, options={"scoring": "hypercorner"})
    tid = created["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    promises = TournamentPromises()
    promises.check_tournament(sdk.tournament(tid, token=token))
    state = client.post(
        f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token)
    ).json()
    dealt = msgspec.convert(state, DealState)
    promises.check_round(tid, 1, dealt)  # the table drawn: before the seeds, any table
    named = msgspec.structs.replace(dealt, options={"scoring": "hypercorner"})
    with pytest.raises(CommitmentMismatchError):  # the name itself: never a table drawn
        promises.check_round(tid, 1, named)
    other = msgspec.structs.replace(dealt, options={"scoring": "british"})
    with pytest.raises(CommitmentMismatchError):
        promises.check_round(tid, 1, other)
    played = Played(
        deal_id=dealt.deal_id,
        variant=dealt.variant,
        client_seed=dealt.client_seed,
        server_seed_hash=dealt.server_seed_hash,
        options={"scoring": {**dealt.options["scoring"], "royal-flush": 7}},
    )
    promises.keep_game(tid, 1, played)
    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    with pytest.raises(CommitmentMismatchError, match="round 1 options"):
        promises.check_tournament(sdk.tournament(tid, token=token))


def test_options_with_a_name_left_unresolved_or_a_bad_seed_do_not_match() -> None:
    asked = {"scoring": "random"}
    assert not options_match("poker-squares", asked, {"scoring": "hypercorner"})
    assert not options_match(
        "poker-squares", asked, {"scoring": {"flush": 1}}, server_seed=b"\0", client_seed="x"
    )
