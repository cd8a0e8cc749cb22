"""Tournaments through the SDK, sync and async, against the in-process app."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient, TestClient

import cardproof_service.tournaments.standings as standings_module
from cardproof import (
    CommitmentMismatchError,
    ConflictError,
    ForbiddenError,
    ReceiptError,
    UnauthorizedError,
    endpoints,
    verify_receipt,
)
from cardproof.client import AsyncClient, Client
from cardproof.core import RequestCore
from cardproof.games.grid import GridView
from cardproof.tournaments import settle, verify_export
from cardproof_service.store import Store
from cardproof_service.tournaments.organizers import new_organizer

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]
"""Every poker-squares cell, row by row: a whole game in 25 moves."""


@pytest.fixture(scope="module")
def organizer_key(app: Litestar) -> str:
    """A fresh organizer's key (``cpo_...``) in the app's memory store."""
    key, record = new_organizer("SDK Club")
    store: Store = app.state.store
    assert asyncio.run(store.add_organizer(record))
    return key


@pytest.fixture
def organizer(client: TestClient[Litestar], organizer_key: str) -> Client:
    """An SDK client over the in-process app, with the organizer's key as its ``api_key``."""
    return Client(
        base_url=str(client.base_url), api_key=organizer_key, http_client=client, max_retries=0
    )


def hours(n: float) -> datetime:
    """An aware datetime ``n`` hours from now."""
    return datetime.now(UTC) + timedelta(hours=n)


def test_calls_send_the_organizer_key_and_an_entrant_token_per_call() -> None:
    core = RequestCore(
        base_url="http://x", api_key="cpo_k", timeout=1, max_retries=0, backoff=0, max_backoff=0
    )
    created = core.request_args(
        endpoints.create_tournament(
            "Open", "poker-squares", 2, hours(-1), "2030-01-01T00:00:00Z", None, None, "invite"
        )
    )
    assert created["headers"]["authorization"] == "Bearer cpo_k"
    assert created["headers"]["idempotency-key"]
    body = msgspec.json.decode(created["content"])
    assert body["entry"] == "invite"
    assert "max_entrants" not in body
    assert datetime.fromisoformat(body["opens_at"]).tzinfo is not None
    opened = core.request_args(endpoints.open_round("t/1", 2, "cpe_e"))
    assert opened["headers"]["authorization"] == "Bearer cpe_e"  # the entrant's, not the key
    assert opened["url"] == "http://x/v1/tournaments/t%2F1/rounds/2/deal"
    assert core.headers["authorization"] == "Bearer cpo_k"  # the client's own is untouched
    naive = datetime(2030, 1, 1)  # the point: no time zone
    with pytest.raises(ValueError, match="time zone"):
        endpoints.create_tournament(
            "Open", "poker-squares", 2, naive, hours(2), None, None, "public"
        )


def test_a_tournament_from_creation_to_export(organizer: Client) -> None:
    created = organizer.create_tournament(
        "SDK Open",
        "poker-squares",
        rounds=2,
        opens_at=hours(-1),
        closes_at=hours(24),
        options={"scoring": "british"},
        max_entrants=10,
    )
    assert created.invite_code is None
    tournament = created.tournament
    tid = tournament.tournament_id
    assert (tournament.status, tournament.entry, tournament.max_entrants) == ("open", "public", 10)
    assert (tournament.format, tournament.card_seconds) == ("lockstep", 60)  # hidden: the default
    assert [r.server_seed for r in tournament.rounds] == [None, None]
    assert organizer.tournament(tid) == tournament

    ada = organizer.enter(tid, "Ada")
    bea = organizer.enter(tid, "Bea")
    assert ada.token.startswith("cpe_")
    with pytest.raises(ConflictError) as taken:
        organizer.enter(tid, "Ada")
    assert (taken.value.status, taken.value.code) == (409, "name-taken")

    ada_seat = organizer.join_round(tid, 1, ada.token)
    bea_seat = organizer.join_round(tid, 1, bea.token)
    game = ada_seat.game
    assert game.variant == "poker-squares"
    assert isinstance(game.visible, GridView)
    assert game.visible.next is None  # seated: no card before the round starts
    assert organizer.round_status(tid, 1).status == "waiting"
    started = organizer.start_round(tid, 1)
    assert (started.status, started.call, started.seats) == ("playing", 0, 2)
    ada_calls, bea_calls = ada_seat.calls(), bea_seat.calls()
    for index in range(25):  # each waits for the call, then places its card
        for seat, calls, cells in (
            (ada_seat, ada_calls, CELLS),
            (bea_seat, bea_calls, CELLS[::-1]),
        ):
            call = next(calls)
            assert call.index == index
            assert isinstance(seat.game.visible, GridView)
            assert seat.game.visible.next == call.card
            assert seat.game.visible.later == ()  # a blind deal: only the card to place
            assert seat.play(cells[index]) is not None
    assert next(ada_calls, None) is None  # the game is over: no more calls
    assert organizer.round_status(tid, 1).status == "finished"
    assert isinstance(game.visible, GridView)
    assert all(all(row) for row in game.visible.layout)
    assert game.score is not None
    receipt = game.receipt()
    assert (receipt.payload.tournament, receipt.payload.player) == (tid, "Ada")
    assert receipt.payload.server_seed is None  # not revealed while the tournament is open
    jwks = organizer.jwks()
    assert not verify_receipt(receipt.receipt, jwks, signature_only=True).replayed
    with pytest.raises(ReceiptError, match="signature_only"):
        verify_receipt(receipt.receipt, jwks)
    with pytest.raises(ConflictError) as again:
        organizer.play_round(tid, 1, ada.token)
    assert again.value.code == "round-played"
    bea_score = bea_seat.game.score
    assert bea_score is not None
    bea_seat.game.receipt()  # checked against every view Bea was shown, withheld ones too

    standings = organizer.standings(tid)
    totals = {line.name: (line.total, line.games_finished) for line in standings.entrants}
    assert totals == {"Ada": (game.score.total, 1), "Bea": (bea_score.total, 1)}
    settlement = organizer.settlement(tid)
    assert settlement.nets == settle({"Ada": game.score.total, "Bea": bea_score.total})

    closed = organizer.close_tournament(tid)
    assert closed.status == "closed"
    revealed = {r.server_seed_hash: r.server_seed for r in closed.rounds}
    seed = revealed[receipt.payload.server_seed_hash]
    assert seed is not None
    checked = verify_receipt(receipt.receipt, jwks, server_seed=seed)
    assert checked.replayed
    assert checked.payload == receipt.payload  # the signed payload, seed still null
    assert verify_receipt(receipt.receipt, jwks, server_seed=bytes.fromhex(seed)).replayed
    export = organizer.export_tournament(tid)
    assert [(g.player, g.round) for g in export.games] == [("Ada", 1), ("Bea", 1)]
    assert verify_export(msgspec.json.encode(export)).games > 0  # no ExportError


def test_a_wrong_revealed_seed_does_not_verify(organizer: Client) -> None:
    created = organizer.create_tournament(
        "Seeds",
        "poker-squares",
        rounds=2,
        opens_at=hours(-1),
        closes_at=hours(1),
        format="async",
        entry="invite",
    )
    tid = created.tournament.tournament_id
    token = organizer.enter(tid, "Ada", invite_code=created.invite_code).token
    game = organizer.play_round(tid, 1, token)
    for cell in CELLS:
        game.play(cell)
    receipt = game.receipt().receipt
    jwks = organizer.jwks()
    closed = organizer.close_tournament(tid)
    other_round = closed.rounds[1].server_seed
    assert other_round is not None
    for wrong, words in (
        (other_round, "does not hash"),
        ("00" * 32, "does not hash"),
        ("not hex", "not hex"),
    ):
        with pytest.raises(ReceiptError, match=words) as error:
            verify_receipt(receipt, jwks, server_seed=wrong)
        assert error.value.code == "seed-mismatch"
    revealed = organizer.receipt(game.deal_id, token=token)  # now it carries the seed itself
    assert revealed.payload.server_seed == closed.rounds[0].server_seed
    assert verify_receipt(revealed.receipt, jwks).replayed
    assert verify_receipt(revealed.receipt, jwks, server_seed=revealed.payload.server_seed).replayed
    with pytest.raises(ReceiptError) as differs:
        verify_receipt(revealed.receipt, jwks, server_seed=other_round)
    assert differs.value.code == "seed-mismatch"


def test_a_round_asked_for_as_another_variant_is_refused(organizer: Client) -> None:
    created = organizer.create_tournament(
        "Typed",
        "poker-squares",
        rounds=2,
        opens_at=hours(-1),
        closes_at=hours(1),
        format="async",
        entry="invite",
        invites=2,
    )
    tid = created.tournament.tournament_id
    token = organizer.enter(tid, "Ada", invite_code=created.invite_codes[0]).token
    with pytest.raises(CommitmentMismatchError) as wrong:
        organizer.play_round(tid, 1, token, variant="repeat-poker")
    assert (wrong.value.field, wrong.value.expected, wrong.value.got) == (
        "variant",
        "repeat-poker",
        "poker-squares",
    )
    game = organizer.play_round(tid, 1, token, variant="poker-squares")  # not spent: refused
    assert game.next_index == 0  # before the game was opened
    game = organizer.play_round(tid, 2, token, variant="poker-squares")
    assert isinstance(game.visible, GridView)
    assert game.visible.next is not None


def test_invite_only_entry_and_refusals(organizer: Client, client: TestClient[Litestar]) -> None:
    created = organizer.create_tournament(
        "Invitational",
        "poker-squares",
        rounds=1,
        opens_at=hours(-1).isoformat(),
        closes_at=hours(2),
        entry="invite",
    )
    tid = created.tournament.tournament_id
    assert created.invite_code
    anonymous = Client(base_url=str(client.base_url), http_client=client, max_retries=0)
    with pytest.raises(ForbiddenError) as refused:
        anonymous.enter(tid, "Ada")
    assert (refused.value.status, refused.value.code) == (403, "bad-invite-code")
    assert anonymous.enter(tid, "Ada", invite_code=created.invite_code).name == "Ada"
    with pytest.raises(UnauthorizedError) as unread:
        anonymous.tournament(tid)  # invite-only: its organizer's to read
    assert unread.value.status == 401
    impostor = Client(
        base_url=str(client.base_url),
        api_key=new_organizer("Ghost Club")[0],  # well formed, never stored
        http_client=client,
        max_retries=0,
    )
    with pytest.raises(UnauthorizedError) as bad_key:
        impostor.create_tournament(
            "Nope", "poker-squares", rounds=1, opens_at=hours(-1), closes_at=hours(1)
        )
    assert bad_key.value.status == 401
    assert bad_key.value.detail == "this organizer key is not known"


async def test_the_async_client_runs_a_tournament(
    async_client: AsyncTestClient[Litestar], organizer_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # pars solved at the close
    async with AsyncClient(
        base_url=str(async_client.base_url),
        api_key=organizer_key,
        http_client=async_client,
        max_retries=0,
    ) as sdk:
        created = await sdk.create_tournament(
            "Async Open",
            "poker-squares",
            rounds=1,
            opens_at=hours(-1),
            closes_at=hours(3),
            card_seconds=1,
        )
        tid = created.tournament.tournament_id
        assert (await sdk.tournament(tid)).name == "Async Open"
        entry = await sdk.enter(tid, "Ada")
        with pytest.raises(ConflictError) as taken:
            await sdk.enter(tid, "Ada")
        assert taken.value.code == "name-taken"
        seat = await sdk.join_round(tid, 1, entry.token)
        await sdk.start_round(tid, 1)
        async for call in seat.calls(wait=5):
            if call.index == 3:
                continue  # too slow: its deadline passes and it is placed for Ada
            assert await seat.play(CELLS[call.index]) is not None
        game = seat.game
        assert game.finished
        assert game.played.moves[3] == "d1"  # the first empty cell, adopted into the log
        receipt = await game.receipt()
        assert receipt.payload.server_seed is None
        assert receipt.payload.auto_placed == [3]
        standings = await sdk.standings(tid)
        assert standings.entrants[0].games_finished == 1
        assert (await sdk.settlement(tid)).nets == {"Ada": 0}
        closed = await sdk.close_tournament(tid)
        seed = closed.rounds[0].server_seed
        assert seed is not None
        jwks = await sdk.jwks()
        assert verify_receipt(receipt.receipt, jwks, server_seed=seed).replayed
        export = await sdk.export_tournament(tid)
        assert export.standings == (await sdk.standings(tid)).entrants  # with the pars now
        assert [(line.name, line.total) for line in export.standings] == [
            (line.name, line.total) for line in standings.entrants
        ]
        assert [par.round for par in export.pars] == [1]
        mine = await sdk.standings(tid, player="Ada")
        assert mine.player == "Ada"
        assert [(g.round, g.total) for g in mine.games] == [(1, export.games[0].total)]
        assert mine.games[0].percent_of_par == export.games[0].percent_of_par is not None


def test_an_organizer_pages_through_their_own_tournaments(
    client: TestClient[Litestar], app: Litestar
) -> None:
    key, record = new_organizer("SDK Lister")
    assert asyncio.run(app.state.store.add_organizer(record))
    with Client(
        base_url=str(client.base_url), api_key=key, http_client=client, max_retries=0
    ) as sdk:
        assert sdk.tournaments().tournaments == []
        made = [
            sdk.create_tournament(
                f"Listed {n}", "poker-squares", rounds=1, opens_at=hours(-1), closes_at=hours(2)
            )
            for n in range(3)
        ]
        first = sdk.tournaments(limit=2)
        assert [line.name for line in first.tournaments] == ["Listed 2", "Listed 1"]
        assert first.next_cursor is not None
        last = sdk.tournaments(limit=2, cursor=first.next_cursor)
        assert [line.tournament_id for line in last.tournaments] == [
            made[0].tournament.tournament_id
        ]
        assert last.next_cursor is None
        assert last.tournaments[0].status == "open"
    with (
        Client(base_url=str(client.base_url), http_client=client, max_retries=0) as anyone,
        pytest.raises(UnauthorizedError),
    ):
        anyone.tournaments()


async def test_the_async_client_lists_the_organizers_tournaments(
    async_client: AsyncTestClient[Litestar], organizer_key: str
) -> None:
    async with AsyncClient(
        base_url=str(async_client.base_url),
        api_key=organizer_key,
        http_client=async_client,
        max_retries=0,
    ) as sdk:
        created = await sdk.create_tournament(
            "Async Listed", "poker-squares", rounds=1, opens_at=hours(-1), closes_at=hours(2)
        )
        page = await sdk.tournaments(limit=1)
        assert [line.tournament_id for line in page.tournaments] == [
            created.tournament.tournament_id
        ]
