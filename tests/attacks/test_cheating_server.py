"""A cheating server: the SDK holds it to what it committed to and was asked.

The server here is the real app behind a proxy that cheats the way a server could:
it swaps the commitment once it has seen the client seed (so it picks the deck), deals
with another client seed or other options, answers with a receipt of another game or a
payload that is not its token's, or reveals a tournament seed that is not the one it
committed to. The SDK must notice each before a move is played, or before it hands a
receipt or a reveal back.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from litestar import Litestar

from attack_kit import (
    CELLS,
    Cheat,
    HttpClient,
    Proxy,
    forward,
    open_tournament,
    organizer_key,
    receipt_cheat,
)
from cardproof import AsyncClient, CommitmentMismatchError, ReceiptError


@pytest.fixture
def server(client: HttpClient) -> HttpClient:
    """The honest server the proxy stands in front of."""
    return client


def swap_commitment(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
    """Having seen the client seed, deal it on a fresh commitment: the server picks the deck."""
    if request.method == "POST" and request.url.path == "/v1/deals":
        body = json.loads(request.content)
        body["commitment_id"] = server.post("/v1/commitments", json={}).json()["commitment_id"]
        return forward(request, server, json.dumps(body).encode())
    return None


def rewrite_deal(**changes: Any) -> Cheat:
    def cheat(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
        if request.method == "POST" and request.url.path == "/v1/deals":
            body = {**json.loads(request.content), **changes}
            return forward(request, server, json.dumps(body).encode())
        return None

    return cheat


def drop_commitment(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
    """Deal casually, as if no commitment had been given: the server picks the seed."""
    if request.method == "POST" and request.url.path == "/v1/deals":
        body = json.loads(request.content)
        body.pop("commitment_id", None)
        return forward(request, server, json.dumps(body).encode())
    return None


@pytest.mark.parametrize(
    ("cheat", "field"),
    [
        (swap_commitment, "server_seed_hash"),
        (rewrite_deal(client_seed="the server's choice"), "client_seed"),
        (rewrite_deal(options={"scoring": "american"}), "options"),
        (rewrite_deal(variant="serpent-patience"), "variant"),
        (drop_commitment, "server_seed_hash"),
    ],
)
def test_a_deal_that_is_not_the_one_promised_is_refused_before_any_move(
    server: HttpClient, cheat: Cheat, field: str
) -> None:
    proxy = Proxy(server, cheat)
    with proxy.client() as client, pytest.raises(CommitmentMismatchError) as caught:
        client.deal("poker-squares", {"scoring": "british"}, client_seed="my seed")
    assert caught.value.field == field
    assert proxy.moves_played() == 0


def test_a_deal_on_an_earlier_commitment_is_held_to_it(server: HttpClient) -> None:
    proxy = Proxy(server, swap_commitment)
    with proxy.client() as client:
        commitment = client.commit()
        with pytest.raises(CommitmentMismatchError):
            client.deal("poker-squares", commitment=commitment)
    honest = Proxy(server, lambda request, server: None)
    with honest.client() as client:
        commitment = client.commit()
        game = client.deal("poker-squares", commitment=commitment)
        assert game.state.server_seed_hash == commitment.server_seed_hash


async def test_the_async_client_refuses_a_swapped_commitment(server: HttpClient) -> None:
    proxy = Proxy(server, swap_commitment)

    async def handle(request: httpx.Request) -> httpx.Response:
        await request.aread()
        return proxy.handle(request)

    http = httpx.AsyncClient(transport=httpx.MockTransport(handle), base_url="http://cheat")
    async with AsyncClient(base_url="http://cheat", http_client=http, max_retries=0) as client:
        with pytest.raises(CommitmentMismatchError):
            await client.deal("poker-squares", client_seed="mine")
    assert proxy.moves_played() == 0


def another_games_receipt(receipt: dict[str, Any], server: HttpClient) -> dict[str, Any]:
    """A receipt of a game the server played itself, scoring better."""
    commitment = server.post("/v1/commitments", json={}).json()["commitment_id"]
    deal = server.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": receipt["payload"]["client_seed"],
        },
    ).json()
    for index, cell in enumerate(CELLS):
        server.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": cell})
    other: dict[str, Any] = server.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    return other


def other_payload(receipt: dict[str, Any], server: HttpClient) -> dict[str, Any]:
    """The token as signed, beside a payload that says something else."""
    payload = {**receipt["payload"], "score": {**receipt["payload"]["score"], "total": 999}}
    return {"receipt": receipt["receipt"], "payload": payload}


@pytest.mark.parametrize("forge", [another_games_receipt, other_payload])
def test_a_receipt_for_another_game_is_refused(
    server: HttpClient, forge: Callable[[dict[str, Any], HttpClient], dict[str, Any]]
) -> None:
    proxy = Proxy(server, receipt_cheat(forge))
    with proxy.client() as client:
        game = client.deal("poker-squares", client_seed="mine")
        for cell in reversed(CELLS):
            game.play(cell)
        with pytest.raises(CommitmentMismatchError):
            game.receipt()
    honest = Proxy(server, lambda request, server: None)
    with honest.client() as client:
        game = client.deal("poker-squares")
        for cell in CELLS:
            game.play(cell)
        assert game.receipt().payload.moves == " ".join(CELLS)  # the honest one passes


def false_next_card(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
    """Show the player a card other than the one dealt next, to steer a blind game."""
    if request.method == "POST" and request.url.path.startswith("/v1/deals"):
        honest = forward(request, server)
        body = honest.json()
        if honest.status_code in {200, 201} and body.get("view", {}).get("next"):
            body["view"]["next"] = "2C" if body["view"]["next"] != "2C" else "3C"
        return httpx.Response(honest.status_code, json=body)
    return None


def test_false_cards_shown_during_play_are_caught_at_the_receipt(server: HttpClient) -> None:
    proxy = Proxy(server, false_next_card)
    with proxy.client() as client:
        game = client.deal("poker-squares", client_seed="steered")
        for cell in CELLS:
            game.play(cell)
        with pytest.raises(CommitmentMismatchError) as caught:
            game.receipt()
        assert "view" in caught.value.field


def null_seed_and_bad_signature(
    request: httpx.Request, server: HttpClient
) -> httpx.Response | None:
    """A receipt re-signed by nobody: its seed taken out so that nothing can be replayed."""
    if request.method == "GET" and request.url.path.endswith("/receipt"):
        honest = forward(request, server).json()
        header, payload, signature = honest["receipt"].split(".")
        body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        body["server_seed"] = None
        forged = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
        return httpx.Response(
            200, json={"receipt": f"{header}.{forged}.{signature}", "payload": body}
        )
    return None


def flipped_signature(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
    if request.method == "GET" and request.url.path.endswith("/receipt"):
        honest = forward(request, server).json()
        token = honest["receipt"]
        last = "A" if token[-2] != "A" else "B"
        return httpx.Response(200, json={**honest, "receipt": token[:-2] + last + token[-1]})
    return None


@pytest.mark.parametrize("cheat", [null_seed_and_bad_signature, flipped_signature])
def test_a_receipt_the_server_did_not_sign_is_refused(server: HttpClient, cheat: Cheat) -> None:
    with Proxy(server, cheat).client() as client:
        game = client.deal("poker-squares")
        for cell in CELLS:
            game.play(cell)
        with pytest.raises(ReceiptError):
            game.receipt()


def test_false_cards_in_a_tournament_game_are_caught_at_the_reveal(
    app: Litestar, server: HttpClient
) -> None:
    owner = organizer_key(app, "Steering Club")
    created = open_tournament(server, owner, rounds=1, format="lockstep", entry="public")
    tid = created["tournament"]["tournament_id"]
    with Proxy(server, false_next_card).client() as client:
        token = client.enter(tid, "Ada").token
        seat = client.join_round(tid, 1, token)
        start = f"/v1/tournaments/{tid}/rounds/1/start"
        assert server.post(start, json={}, headers={"Authorization": owner}).status_code == 200
        seat.sync()  # card 0 is called now
        game = seat.game
        for cell in CELLS:
            game.play(cell)
        game.receipt()  # the seed is secret until the close: nothing to compare yet
        server.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
        with pytest.raises(CommitmentMismatchError) as caught:
            client.tournament(tid)  # the reveal: every view is compared with the deck
        assert "view" in caught.value.field


def test_a_tournament_reveal_or_round_not_as_committed_is_refused(
    app: Litestar, server: HttpClient
) -> None:
    owner = organizer_key(app, "Cheat Club")
    created = open_tournament(server, owner, rounds=2, format="lockstep", entry="public")
    tid = created["tournament"]["tournament_id"]

    def lie_about_rounds(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
        if request.method == "GET" and request.url.path == f"/v1/tournaments/{tid}":
            honest = forward(request, server).json()
            for entry in honest["rounds"]:
                entry["server_seed_hash"] = "ab" * 32  # not what the entry showed
            return httpx.Response(200, json=honest)
        return None

    with Proxy(server, lie_about_rounds).client() as client:
        ada = client.enter(tid, "Ada")
        with pytest.raises(CommitmentMismatchError):
            client.tournament(tid)
    # what the lie was held to: the hashes the entry showed, which are the server's own
    honest = server.get(f"/v1/tournaments/{tid}").json()["rounds"]
    shown = [(entry.round, entry.server_seed_hash) for entry in ada.rounds]
    assert shown == [(entry["round"], entry["server_seed_hash"]) for entry in honest]
    assert all(hash_ != "ab" * 32 for _, hash_ in shown)

    def deal_round_two(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
        if request.url.path.endswith("/rounds/1/deal"):
            return forward(
                httpx.Request(
                    "POST",
                    str(request.url).replace("/1/", "/2/"),
                    headers=request.headers,
                    content=request.content,
                ),
                server,
            )
        return None

    with Proxy(server, deal_round_two).client() as client:
        bea = client.enter(tid, "Bea").token
        with pytest.raises(CommitmentMismatchError):
            client.play_round(tid, 1, bea)

    def reveal_another_seed(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
        if request.method == "GET" and request.url.path == f"/v1/tournaments/{tid}":
            honest = forward(request, server).json()
            honest["rounds"][0]["server_seed"] = "00" * 32  # not the seed of the hash
            return httpx.Response(200, json=honest)
        return None

    server.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    with Proxy(server, reveal_another_seed).client() as client:
        with pytest.raises(CommitmentMismatchError) as caught:
            client.tournament(tid)
        assert caught.value.field == "rounds[1].server_seed"
    with Proxy(server, lambda request, server: None).client() as client:
        assert all(entry.server_seed for entry in client.tournament(tid).rounds)
