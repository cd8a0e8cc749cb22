"""Committed deals played blind through the API: the protocol, its conflicts, its secrets."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof import AsyncClient, Client, ConflictError, IllegalMoveError, NotFoundError
from cardproof.deal import seed_hash
from cardproof.games import GridView, variant
from cardproof.receipts import ReceiptError, verify_receipt
from cardproof_service import Settings, create_app
from cardproof_service.deals import commitments, dealing
from cardproof_service.store import Claim, DailyQuota, DealRecord, MemoryStore, StoreUnavailable
from conftest import TEST_KEYS, UNLIMITED

HttpClient = TestClient[Litestar]
CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JK)\b")


@pytest.fixture
def sdk(client: HttpClient) -> Client:
    return Client(base_url=str(client.base_url), http_client=client, max_retries=0)


def problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    return body


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


def play_through(client: HttpClient, variant_id: str) -> tuple[str, list[str], list[str]]:
    """Play a whole blind game with a legal policy; return the deal id, every response body
    (in order) and the moves."""
    bodies: list[str] = []
    commitment = client.post("/v1/commitments", json={})
    bodies.append(commitment.text)
    created = client.post(
        "/v1/deals",
        json={
            "variant": variant_id,
            "commitment_id": commitment.json()["commitment_id"],
            "client_seed": "a seed of mine",
        },
    )
    assert created.status_code == 201, created.text
    bodies.append(created.text)
    deal_id = created.json()["deal_id"]
    cls = variant(variant_id)
    moves: list[str] = []
    finished = False
    while not finished:
        # choose a legal move from what the player sees: rebuild a local game from the
        # visible cards only (the engine never needs hidden ones to list legal cells)
        state = client.get(f"/v1/deals/{deal_id}")
        bodies.append(state.text)
        local = cls.new(_placeholder_deck(), None)
        for text in moves:
            local.play(cls.parse_move(text))
        move = local.legal_moves()[-1]
        answer = client.post(
            f"/v1/deals/{deal_id}/moves",
            json={"index": len(moves), "move": cls.move_text(move)},
        )
        assert answer.status_code == 200, answer.text
        bodies.append(answer.text)
        moves.append(cls.move_text(move))
        finished = answer.json()["finished"]
    return deal_id, bodies, moves


def _placeholder_deck() -> list[Any]:
    from cardproof.cards import STANDARD_DECK

    return list(STANDARD_DECK)


@pytest.mark.parametrize("variant_id", ["poker-patience", "poker-squares", "serpent-patience"])
def test_no_hidden_card_leaves_the_server_before_it_is_due(
    client: HttpClient, variant_id: str
) -> None:
    deal_id, bodies, moves = play_through(client, variant_id)
    receipt = client.get(f"/v1/deals/{deal_id}/receipt").json()
    payload = receipt["payload"]
    cls = variant(variant_id)
    seed = bytes.fromhex(payload["server_seed"])
    deck = [c.text for c in cls.deal_cards(seed, payload["client_seed"], cls.parse_options(None))]
    # bodies: commitment, deal, then per move: a GET state and the move's answer
    assert cards_in(bodies[0]) == set()
    for step, body in enumerate(bodies[1:]):
        placed = step // 2  # moves made before this response was produced
        due = placed + 1 if cls.information == "hidden" else 25
        allowed = set(deck[: min(due, 25)])
        leaked = cards_in(body) - allowed
        assert not leaked, f"response {step + 1} shows {leaked} before they are due"
        assert payload["server_seed"] not in body
    assert len(moves) == payload["moves"].count(" ") + 1
    assert verify_receipt(receipt["receipt"], client.get("/.well-known/jwks.json").json()).replayed


def test_a_commitment_is_used_once_and_retries_get_the_same_deal(client: HttpClient) -> None:
    commitment = client.post("/v1/commitments", json={}).json()
    request = {
        "variant": "poker-squares",
        "commitment_id": commitment["commitment_id"],
        "client_seed": "a seed of mine",
    }
    first = client.post(
        "/v1/deals", json=request, headers={"idempotency-key": "key-one-0123456789"}
    )
    assert first.status_code == 201
    assert first.json()["server_seed_hash"] == commitment["server_seed_hash"]
    assert first.json()["committed_before_client_seed"] is True
    again = client.post(
        "/v1/deals", json=request, headers={"idempotency-key": "key-one-0123456789"}
    )
    assert again.json()["deal_id"] == first.json()["deal_id"]
    other = problem(
        client.post("/v1/deals", json=request, headers={"idempotency-key": "key-two-0123456789"}),
        409,
    )
    assert other["code"] == "commitment-used"
    assert problem(client.post("/v1/deals", json=request), 409)["code"] == "commitment-used"


def test_forged_and_expired_commitments_are_404(app: Litestar) -> None:
    quick = create_app(Settings(warm_up=False, commitment_ttl=1), keys=TEST_KEYS)
    with TestClient(quick) as client:
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        forged = commitment[:-2] + ("AA" if not commitment.endswith("AA") else "BB")
        for cid, code in ((forged, "unknown-commitment"), ("c_nope", "unknown-commitment")):
            body = problem(
                client.post(
                    "/v1/deals",
                    json={
                        "variant": "poker-squares",
                        "commitment_id": cid,
                        "client_seed": "a seed of mine",
                    },
                ),
                404,
            )
            assert body["code"] == code
        time.sleep(2.1)
        body = problem(
            client.post(
                "/v1/deals",
                json={
                    "variant": "poker-squares",
                    "commitment_id": commitment,
                    "client_seed": "a seed of mine",
                },
            ),
            404,
        )
        assert body["code"] == "expired-commitment"


def test_moves_must_come_in_order_and_the_first_one_stands(client: HttpClient) -> None:
    deal = client.post("/v1/deals", json={"variant": "poker-squares"}).json()
    url = f"/v1/deals/{deal['deal_id']}/moves"
    first = client.post(url, json={"index": 0, "move": "c3"})
    assert first.status_code == 200
    assert client.post(url, json={"index": 0, "move": {"row": 2, "col": 2}}).json() == first.json()
    body = problem(client.post(url, json={"index": 0, "move": "a1"}), 409)
    assert (body["code"], body["move_index"]) == ("move-conflict", 0)
    body = problem(client.post(url, json={"index": 5, "move": "a1"}), 409)
    assert (body["code"], body["next_index"]) == ("wrong-index", 1)
    body = problem(client.post(url, json={"index": 1, "move": "c3"}), 422)
    assert (body["code"], body["move_index"]) == ("cell-taken", 1)
    body = problem(client.post(url, json={"index": 1, "move": "0,1"}), 422)
    assert (body["code"], body["move_index"]) == ("wrong-move-shape", 1)
    body = problem(client.post(url, json={"index": 1, "move": "zz"}), 400)
    assert body["field"] == "move"
    state = client.get(f"/v1/deals/{deal['deal_id']}").json()
    assert (state["next_index"], state["moves"]) == (1, "c3")
    assert problem(client.get(f"/v1/deals/{deal['deal_id']}/receipt"), 409)["code"] == (
        "not-finished"
    )


def test_after_the_end_moves_are_409(sdk: Client, client: HttpClient) -> None:
    game = sdk.deal("poker-squares", committed=False)
    for row in range(5):
        for col in range(5):
            game.play({"row": row, "col": col})
    assert game.finished
    assert game.score is not None
    body = problem(
        client.post(f"/v1/deals/{game.deal_id}/moves", json={"index": 25, "move": "a1"}), 409
    )
    assert body["code"] == "game-over"
    receipt = game.receipt()
    assert receipt.payload.committed_before_client_seed is False
    assert receipt.payload.blind is True
    assert receipt.payload.kind == "casual"
    with pytest.raises(ReceiptError) as refused:
        sdk.verify_receipt(receipt.receipt)  # a casual deal proves the score, not the deck
    assert refused.value.code == "kind-not-allowed"
    assert sdk.verify_receipt(receipt.receipt, allow=["casual"]).replayed


def test_a_resent_deal_request_gets_its_deal_after_the_commitment_expired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held = [int(time.time())]  # the dealer's clock, moved by the test alone
    monkeypatch.setattr(commitments, "now", lambda: held[0])
    monkeypatch.setattr(dealing, "now", lambda: held[0])
    quick = create_app(Settings(warm_up=False, commitment_ttl=1, **UNLIMITED), keys=TEST_KEYS)
    with TestClient(quick) as client:
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        request = {
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": "a seed of mine",
        }
        key = {"idempotency-key": "7d3f0c1e-2b4a-4e5f-9a8b-0c1d2e3f4a5b"}
        first = client.post("/v1/deals", json=request, headers=key)
        assert first.status_code == 201
        held[0] += 1  # the commitment expired; the replay window (24 hours) has not
        again = client.post("/v1/deals", json=request, headers=key)
        assert (again.status_code, again.json()["deal_id"]) == (201, first.json()["deal_id"])
        other = {"idempotency-key": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}
        used = problem(client.post("/v1/deals", json=request, headers=other), 409)
        assert used["code"] == "commitment-used"
        late = problem(client.post("/v1/deals", json=request), 404)
        assert late["code"] == "expired-commitment"


def test_unknown_and_expired_deals_are_404() -> None:
    quick = create_app(Settings(warm_up=False, deal_ttl=1), keys=TEST_KEYS)
    with TestClient(quick) as client:
        assert problem(client.get("/v1/deals/d_nothing"), 404)["code"] == "unknown-deal"
        deal = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
        assert client.get(f"/v1/deals/{deal}").status_code == 200
        time.sleep(1.2)
        assert problem(client.get(f"/v1/deals/{deal}"), 404)["code"] == "unknown-deal"
        body = problem(client.post(f"/v1/deals/{deal}/moves", json={"index": 0, "move": "a1"}), 404)
        assert body["code"] == "unknown-deal"


def test_sdk_game_handle_and_typed_errors(sdk: Client) -> None:
    game = sdk.deal("poker-patience", client_seed="mine")
    assert game.state.client_seed == "mine"
    assert isinstance(game.visible, GridView)
    assert game.visible.next is not None
    game.play("0,0")
    with pytest.raises(IllegalMoveError) as illegal:
        game.play("2,2")
    assert (illegal.value.move_index, illegal.value.code) == (1, "not-adjacent")
    with pytest.raises(ConflictError):
        sdk.play(game.deal_id, 7, "0,1")
    with pytest.raises(NotFoundError):
        sdk.read_deal("d_missing")


def test_whole_log_on_a_deal_id(client: HttpClient, sdk: Client) -> None:
    """A hidden deal takes only the log it was played with, once finished: never a new one."""
    deal = client.post("/v1/deals", json={"variant": "poker-squares"}).json()
    log = " ".join(f"{c}{r}" for r in "12345" for c in "abcde")
    with pytest.raises(ConflictError) as refused:
        sdk.verify("poker-squares", log, deal_id=deal["deal_id"])
    assert refused.value.code == "not-the-played-log"
    state = client.get(f"/v1/deals/{deal['deal_id']}").json()
    assert (state["next_index"], state["finished"]) == (0, False)  # nothing was played

    for index, move in enumerate(log.split()):
        client.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": move})
    result = sdk.verify("poker-squares", log, deal_id=deal["deal_id"])
    assert result.payload is not None
    assert (result.payload.blind, result.payload.kind) == (True, "casual")
    assert result.payload.deal_id == deal["deal_id"]
    receipt = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    assert result.receipt == receipt["receipt"]
    other = log.replace("a1 b1", "b1 a1")
    with pytest.raises(ConflictError):
        sdk.verify("poker-squares", other, deal_id=deal["deal_id"])

    played = client.post("/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
    client.post(f"/v1/deals/{played}/moves", json={"index": 0, "move": "a1"})
    with pytest.raises(ConflictError) as unfinished:
        sdk.verify("poker-squares", "a1", deal_id=played)
    assert unfinished.value.code == "not-finished"


def test_open_variant_submitted_whole_is_blind(client: HttpClient, sdk: Client) -> None:
    deal = client.post("/v1/deals", json={"variant": "serpent-patience"}).json()
    cards = [deal["view"]["next"], *deal["view"]["later"]]
    solution = sdk.solve("serpent-patience", cards)
    result = sdk.verify("serpent-patience", solution.moves, deal_id=deal["deal_id"])
    assert result.payload is not None
    assert result.payload.blind is True
    assert result.score == solution.score


def test_whole_log_on_a_revealed_seed_pair(sdk: Client) -> None:
    seed = bytes(range(32))
    log = " ".join(f"{c}{r}" for r in "12345" for c in "abcde")
    result = sdk.verify("poker-squares", log, server_seed=seed.hex(), client_seed="pair")
    assert result.payload is not None
    assert result.payload.server_seed_hash == seed_hash(seed)
    assert (result.payload.blind, result.payload.committed_before_client_seed) == (False, False)
    assert result.payload.kind == "practice"
    assert result.receipt is not None
    assert sdk.verify_receipt(result.receipt, allow=["practice"]).replayed
    with pytest.raises(ValueError, match="exactly one"):
        sdk.verify("poker-squares", log, server_seed=seed.hex())


def test_deal_forms_must_be_exactly_one(client: HttpClient) -> None:
    log = " ".join(f"{c}{r}" for r in "12345" for c in "abcde")
    for deal in ({}, {"deal_id": "d_x", "cards": ["AH"]}, {"server_seed": "00" * 32}):
        body = problem(
            client.post(
                "/v1/verify", json={"variant": "poker-squares", "deal": deal, "moves": log}
            ),
            422,
        )
        assert (body["code"], body["field"]) == ("bad-deal-form", "deal")


@pytest.fixture
def every_response(client: HttpClient) -> Iterator[list[str]]:
    seen: list[str] = []
    original = client.request

    def recording(*args: Any, **kwargs: Any) -> Any:
        response = original(*args, **kwargs)
        seen.append(response.text)
        return response

    client.request = recording  # type: ignore[method-assign]
    yield seen
    client.request = original  # type: ignore[method-assign]


def test_secrets_never_leave_the_server(
    client: HttpClient, every_response: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    deal_id, _, _ = play_through(client, "poker-squares")
    server_seed = client.get(f"/v1/deals/{deal_id}/receipt").json()["payload"]["server_seed"]
    client.get("/.well-known/jwks.json")
    client.post("/v1/deals", json={"variant": "nope"})
    client.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": "c_forged",
            "client_seed": "a seed of mine",
        },
    )
    secrets = [TEST_KEYS.master.hex(), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]
    for body in every_response:
        for secret in secrets:
            assert secret not in body
    for secret in [*secrets, server_seed]:
        assert secret not in caplog.text


async def test_async_sdk_plays_a_committed_deal(async_client: Any) -> None:
    client = AsyncClient(base_url=str(async_client.base_url), http_client=async_client)
    game = await client.deal("serpent-patience", {"scoring": "american"})
    assert game.state.committed_before_client_seed
    snake = [f"{c}{r}" for r in "12345" for c in ("abcde" if r in "135" else "edcba")]
    for cell in snake:
        await game.play(cell)
    assert game.finished
    receipt = await game.receipt()
    assert receipt.payload.options["scoring"] == "american"
    assert (await client.verify_receipt(receipt.receipt)).replayed
    with pytest.raises(ConflictError):
        await client.play(game.deal_id, 25, "a1")


class FailingOnce(MemoryStore):
    """A memory store whose first deal creation fails as if Redis were down."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def create_deal(
        self,
        record: DealRecord,
        ttl: int,
        commitment: Claim | None = None,
        max_in_flight: int = 0,
        quota: DailyQuota | None = None,
    ) -> bytes | None:
        if not self.failed:
            self.failed = True
            raise StoreUnavailable("redis: ConnectionError")
        return await super().create_deal(record, ttl, commitment, max_in_flight, quota)


def test_a_deal_refused_with_503_can_be_asked_for_again() -> None:
    app = create_app(Settings(warm_up=False), keys=TEST_KEYS, store=FailingOnce())
    with TestClient(app) as client:
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        request = {
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": "a seed of mine",
        }
        headers = {"idempotency-key": "retry-me-0123456789"}
        refused = client.post("/v1/deals", json=request, headers=headers)
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "1"
        assert client.post("/v1/deals", json=request, headers=headers).status_code == 201


class ResentOnce(MemoryStore):
    """A memory store whose writes of a new deal all happen twice, as when a store client
    resends a command whose reply was lost."""

    async def create_deal(
        self,
        record: DealRecord,
        ttl: int,
        commitment: Claim | None = None,
        max_in_flight: int = 0,
        quota: DailyQuota | None = None,
    ) -> bytes | None:
        await super().create_deal(record, ttl, commitment, max_in_flight, quota)
        return await super().create_deal(record, ttl, commitment, max_in_flight, quota)


def test_a_deal_whose_write_was_resent_is_still_the_requests_own() -> None:
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS, store=ResentOnce())
    with TestClient(app) as client:
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        request = {
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": "a seed of mine",
        }
        created = client.post("/v1/deals", json=request)  # no Idempotency-Key
        assert created.status_code == 201, created.text
        deal_id = created.json()["deal_id"]
        assert client.get(f"/v1/deals/{deal_id}").json()["committed_before_client_seed"] is True
        again = client.post("/v1/deals", json=request)  # another request: the claim stands
        assert again.status_code == 409
        assert again.json()["code"] == "commitment-used"
