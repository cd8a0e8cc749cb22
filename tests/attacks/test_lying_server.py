"""A lying server or operator, one check at a time: each test fails if its check is gone.

The servers here are the real app behind ``attack_kit.Proxy`` (as in
``test_cheating_server``) with one answer doctored; the operators sign wrong data with the
real test keys (``conftest.TEST_KEYS``). Each test is named for the check of the SDK that
must catch the lie: on a deal before any move, at a game's receipt, in
:func:`cardproof.verify_receipt`, or in :func:`cardproof.tournaments.verify_export`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from attack_kit import (
    CELLS,
    Cheat,
    HttpClient,
    Proxy,
    committed_receipt,
    enter,
    forward,
    open_tournament,
    organizer_key,
    play_round,
    reader,
    receipt_cheat,
)
from cardproof import CommitmentMismatchError, ReceiptError, verify_receipt
from cardproof.models import TournamentExport
from cardproof.receipts import Expected, decode_receipt
from cardproof.tournaments import ExportError, rank, verify_export, with_par
from conftest import TEST_KEYS

Change = Callable[[dict[str, Any]], None]
"""Changes an honest JSON answer in place."""


def doctor(method: str, matches: Callable[[httpx.Request], bool], change: Change) -> Cheat:
    """Answer the requests ``matches`` picks honestly, then ``change`` the answer's body."""

    def cheat(request: httpx.Request, server: HttpClient) -> httpx.Response | None:
        if request.method != method or not matches(request):
            return None
        honest = forward(request, server)
        body = honest.json()
        change(body)
        return httpx.Response(honest.status_code, json=body)

    return cheat


def jwks_of(client: HttpClient) -> dict[str, Any]:
    """The server's key set, as a verifier keeps it."""
    keys: dict[str, Any] = client.get("/.well-known/jwks.json").json()
    return keys


def re_signed(token: str, **changes: Any) -> str:
    """``token``'s payload with ``changes``, signed with the server's real key."""
    _, payload = decode_receipt(token)
    return TEST_KEYS.signing.sign(msgspec.structs.replace(payload, **changes))


def test_committed_before_client_seed(client: HttpClient) -> None:
    """The deal carries the committed hash but says the seed was chosen after the client's.

    Its receipt would be a casual one, which proves nothing about the deck: the deal is
    refused before a move is played on it.
    """
    deals = doctor(
        "POST",
        lambda request: request.url.path == "/v1/deals",
        lambda body: body.update(committed_before_client_seed=False),
    )
    proxy = Proxy(client, deals)
    with proxy.client() as player, pytest.raises(CommitmentMismatchError) as caught:
        player.deal("poker-squares", client_seed="mine")
    assert caught.value.field == "committed_before_client_seed"
    assert proxy.moves_played() == 0


def test_the_receipt_payload_is_the_tokens_own(client: HttpClient) -> None:
    """Beside a casual game's genuine token, a payload that calls the game committed-blind.

    Everything the game checks (deal, seeds, log, score) is the same in both: only the
    comparison of the payload with the token's own catches the label.
    """

    def relabel(receipt: dict[str, Any], server: HttpClient) -> dict[str, Any]:
        assert receipt["payload"]["kind"] == "casual"
        payload = {**receipt["payload"], "kind": "committed-blind"}
        return {"receipt": receipt["receipt"], "payload": {**payload, "blind": True}}

    with Proxy(client, receipt_cheat(relabel)).client() as player:
        game = player.deal("poker-squares", committed=False)
        for cell in CELLS:
            game.play(cell)
        with pytest.raises(CommitmentMismatchError) as caught:
            game.receipt()
    assert caught.value.field == "payload"


@pytest.mark.parametrize(
    ("committed", "changes", "field"),
    [
        (
            True,
            {"kind": "casual", "committed_before_client_seed": False},
            "committed_before_client_seed",
        ),
        (True, {"kind": "practice", "deal_id": None}, "deal_id"),
        (
            False,
            {"kind": "committed-open", "committed_before_client_seed": True},
            "committed_before_client_seed",
        ),
        (False, {"kind": "tournament"}, "kind"),
    ],
)
def test_the_receipt_is_of_the_kind_the_deal_was(
    client: HttpClient, committed: bool, changes: dict[str, Any], field: str
) -> None:
    """The server deals one kind of game and signs a receipt of another.

    A committed deal signed as casual loses its proof of a fair deck; a casual one signed
    as committed claims a proof it never had. The receipt is validly signed, for the same
    deal, seeds, log and score: only its kind and flags lie.
    """

    def relabel(receipt: dict[str, Any], server: HttpClient) -> dict[str, Any]:
        token = re_signed(receipt["receipt"], **changes)
        return {"receipt": token, "payload": msgspec.to_builtins(decode_receipt(token)[1])}

    with Proxy(client, receipt_cheat(relabel)).client() as player:
        game = player.deal("poker-squares", committed=committed)
        for cell in CELLS:
            game.play(cell)
        with pytest.raises(CommitmentMismatchError) as caught:
            game.receipt()
    assert caught.value.field == field


def test_the_view_after_the_last_move(client: HttpClient) -> None:
    """The answer to the last move shows a finished grid with two cards swapped.

    Every earlier view is true and the receipt is genuine: only the final view lies.
    """

    def last_move(request: httpx.Request) -> bool:
        if not request.url.path.endswith("/moves"):
            return False
        index: int = json.loads(request.content)["index"]
        return index == len(CELLS) - 1

    def swap_corners(body: dict[str, Any]) -> None:
        layout = body["view"]["layout"]
        layout[0][0], layout[4][4] = layout[4][4], layout[0][0]

    with Proxy(client, doctor("POST", last_move, swap_corners)).client() as player:
        game = player.deal("poker-squares")
        for cell in CELLS:
            game.play(cell)
        assert game.finished
        with pytest.raises(CommitmentMismatchError) as caught:
            game.receipt()
    assert caught.value.field == f"the view after {len(CELLS)} moves"


def test_a_tournament_deal_is_on_the_tournaments_salt(app: Litestar, client: HttpClient) -> None:
    """A round's game dealt from a client seed other than the tournament's public salt.

    Every entrant's client seed is the salt, so another seed is another deck from the
    others': the game is refused when it is opened.
    """
    owner = organizer_key(app, "Salt Club")
    created = open_tournament(client, owner, rounds=1, format="lockstep", entry="public")
    tid = created["tournament"]["tournament_id"]
    salt = created["tournament"]["salt"]
    round_deal = doctor(
        "POST",
        lambda request: request.url.path == f"/v1/tournaments/{tid}/rounds/1/deal",
        lambda body: body.update(client_seed="the server's choice"),
    )
    with Proxy(client, round_deal).client() as player:
        token = player.enter(tid, "Ada").token
        with pytest.raises(CommitmentMismatchError) as caught:
            player.play_round(tid, 1, token)
    assert (caught.value.field, caught.value.expected) == ("client_seed", salt)


def test_auto_placed_names_moves_of_the_log(client: HttpClient) -> None:
    """A receipt, signed with the real key, saying a 26th card was placed for the player."""
    token = committed_receipt(client)
    jwks = jwks_of(client)
    last = len(CELLS) - 1
    assert verify_receipt(re_signed(token, auto_placed=[last]), jwks).replayed
    with pytest.raises(ReceiptError) as refused:
        verify_receipt(re_signed(token, auto_placed=[last, last + 1]), jwks)
    assert refused.value.code == "bad-auto-placed"


def test_a_committed_blind_receipt_is_blind(client: HttpClient) -> None:
    """A receipt, signed with the real key, of a game whose cards were all shown up front
    (``blind`` false), labelled ``committed-blind``."""
    token = committed_receipt(client)
    assert decode_receipt(token)[1].kind == "committed-blind"
    with pytest.raises(ReceiptError) as refused:
        verify_receipt(re_signed(token, blind=False), jwks_of(client))
    assert refused.value.code == "kind-mismatch"


def test_a_given_seed_is_the_receipts_revealed_seed(client: HttpClient) -> None:
    """A receipt, signed with the real key, that reveals a false seed; the verifier is given
    the true one (as a tournament reveals it).

    Replayed with the given seed it would verify, and its false seed be taken as checked.
    """
    token = committed_receipt(client)
    jwks = jwks_of(client)
    seed = decode_receipt(token)[1].server_seed
    assert seed is not None
    assert verify_receipt(token, jwks, server_seed=seed).replayed
    forged = re_signed(token, server_seed="00" * 32)
    with pytest.raises(ReceiptError) as refused:
        verify_receipt(forged, jwks, server_seed=seed)
    assert refused.value.code == "seed-mismatch"


RANDOM_WORST = -128 * 10
"""An unfinished poker-squares round on the ``random`` system: its lowest points (a draw of
256, less 128) times the ten lines."""


@pytest.fixture(scope="module")
def random_table_export(app: Litestar) -> Iterator[tuple[TournamentExport, dict[str, Any]]]:
    """A closed one-round tournament on the ``random`` system: Ada finished her game, Bea
    left hers unfinished; its export and the key set."""
    owner = organizer_key(app, "Random Club")
    with TestClient(app=app) as client:
        created = open_tournament(client, owner, rounds=1, options={"scoring": "random"})
        tid = created["tournament"]["tournament_id"]
        ada, bea = (enter(client, tid, name).json()["token"] for name in ("Ada", "Bea"))
        play_round(client, tid, ada, 1, CELLS)
        play_round(client, tid, bea, 1, CELLS[:7])
        closed = client.post(
            f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
        )
        assert closed.status_code == 200, closed.text
        exported = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid))
        assert exported.status_code == 200, exported.text
        yield msgspec.json.decode(exported.content, type=TournamentExport), jwks_of(client)


def test_the_player_is_the_one_expected(
    random_table_export: tuple[TournamentExport, dict[str, Any]],
) -> None:
    """Bea shows Ada's genuine receipt of the same round as her own."""
    export, jwks = random_table_export
    (game,) = export.games
    seed = export.tournament.rounds[0].server_seed
    tid = export.tournament.tournament_id
    ada = Expected(tournament=tid, player="Ada")
    assert verify_receipt(game.receipt, jwks, server_seed=seed, expect=ada).replayed
    with pytest.raises(CommitmentMismatchError) as caught:
        verify_receipt(
            game.receipt, jwks, server_seed=seed, expect=Expected(tournament=tid, player="Bea")
        )
    assert (caught.value.field, caught.value.got) == ("player", "Ada")


def test_the_random_tables_lowest_points_score_an_unfinished_game(
    random_table_export: tuple[TournamentExport, dict[str, Any]],
) -> None:
    """The operator's export counts Bea's unfinished round at -127 a line, not -128: a
    point a line for leaving a game on a random table."""
    export, jwks = random_table_export
    pars = {par.round: par for par in export.pars}
    lines = [
        (line.name, RANDOM_WORST + 10 if line.name == "Bea" else line.total, line.games_finished)
        for line in export.standings
    ]
    forged = msgspec.structs.replace(
        export, standings=with_par(rank(lines), pars, len(export.tournament.rounds))
    )
    with pytest.raises(ExportError) as refused:
        verify_export(forged, jwks)
    assert refused.value.problems == ["the standings differ from the ones the games add up to"]
    honest = {line.name: line.total for line in verify_export(export, jwks).standings}
    assert honest["Bea"] == RANDOM_WORST
