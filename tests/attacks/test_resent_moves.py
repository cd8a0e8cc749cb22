"""A resent earlier move gets exactly its first answer, never the game's state now.

A move resent after a lost reply must not be a way to learn more: answered with the
current view, a resend of move ``i`` after move ``i+1`` was played would be harmless
here, but a server that answered a resend of an old index with what is visible now
would hand out later cards to anyone replaying old requests. The answer to a resend is
the first answer, byte for byte.
"""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar

from attack_kit import HttpClient, bearer, enter, open_tournament, organizer_key
from cardproof.games import variant

FIRST_MOVES = {
    "poker-squares": ["a1", "b1", "c1", "d1", "e1", "a2"],
    "poker-patience": ["0,0", "0,1", "1,0", "1,1", "0,2", "2,0"],
    "repeat-poker": ["r1", "r2", "r3", "r1", "r2", "r3"],
    "reserve-poker": ["0>0", "1>1", "2>2", "3>3", "0>4", "1>0"],
    "serpent-patience": ["a1", "b1", "c1", "d1", "e1", "e2"],
}


def play_and_resend(
    client: HttpClient, deal_id: str, moves: list[str], auth: dict[str, str]
) -> None:
    first: list[dict[str, Any]] = []
    for index, move in enumerate(moves):
        answer = client.post(
            f"/v1/deals/{deal_id}/moves", json={"index": index, "move": move}, headers=auth
        )
        assert answer.status_code == 200, answer.text
        first.append(answer.json())
        for earlier in range(index + 1):  # every earlier move, resent now
            resent = client.post(
                f"/v1/deals/{deal_id}/moves",
                json={"index": earlier, "move": moves[earlier]},
                headers=auth,
            )
            assert resent.status_code == 200, resent.text
            assert resent.json() == first[earlier], (index, earlier)
    spelled = {"move": moves[0].upper()} if moves[0][0].isalpha() else {"move": moves[0]}
    resent = client.post(f"/v1/deals/{deal_id}/moves", json={"index": 0, **spelled}, headers=auth)
    assert resent.json() == first[0]  # another spelling of the same move: the same answer
    other = client.post(
        f"/v1/deals/{deal_id}/moves", json={"index": 0, "move": moves[1]}, headers=auth
    )
    assert (other.status_code, other.json()["code"]) == (409, "move-conflict")
    assert "view" not in other.json()


@pytest.mark.parametrize("variant_id", sorted(FIRST_MOVES))
def test_a_resent_earlier_move_gets_its_first_answer(client: HttpClient, variant_id: str) -> None:
    options = {"version": 1} if variant_id == "reserve-poker" else {}
    deal = client.post("/v1/deals", json={"variant": variant_id, "options": options}).json()
    assert variant(variant_id).id == deal["variant"]
    play_and_resend(client, deal["deal_id"], FIRST_MOVES[variant_id], {})


def test_a_resent_move_of_a_tournament_game_gets_its_first_answer(
    app: Litestar, client: HttpClient
) -> None:
    owner = organizer_key(app, "Resend Club")
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    play_and_resend(client, opened.json()["deal_id"], FIRST_MOVES["poker-squares"], bearer(token))


def test_a_resent_last_move_gets_the_finishing_answer(client: HttpClient) -> None:
    deal = client.post("/v1/deals", json={"variant": "poker-squares"}).json()
    cells = [f"{c}{r}" for r in "12345" for c in "abcde"]
    answers = []
    for index, cell in enumerate(cells):
        url = f"/v1/deals/{deal['deal_id']}/moves"
        answers.append(client.post(url, json={"index": index, "move": cell}).json())
    for index in (0, 12, 23, 24):
        url = f"/v1/deals/{deal['deal_id']}/moves"
        again = client.post(url, json={"index": index, "move": cells[index]}).json()
        assert again == answers[index]
    assert answers[24]["finished"] is True
    assert answers[23]["finished"] is False
