"""Leaving never beats finishing: an unfinished round counts the worst score its table allows.

With a table of negative points, an entrant who played nothing (or abandoned a game
that was going badly, or ran a serpent into a dead end) used to keep 0 and beat everyone
who finished. Now every round an entrant did not finish counts the table's lowest
points times the number of lines, in the standings, the settlement, the export and the
export's offline check.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from attack_kit import CELLS, HttpClient, bearer, enter, open_tournament, reader
from cardproof.models import TournamentExport
from cardproof.tournaments import ExportError, settle, verify_export, worst_round

NEGATIVE = {
    "high-card": -20,
    "one-pair": -10,
    "two-pair": -5,
    "three-of-a-kind": -2,
    "straight": -1,
    "flush": -1,
    "full-house": 0,
}
"""A table where every finished game loses points."""


def play(client: HttpClient, tid: str, token: str, round_number: int, cells: list[str]) -> Any:
    opened = client.post(
        f"/v1/tournaments/{tid}/rounds/{round_number}/deal", json={}, headers=bearer(token)
    )
    assert opened.status_code == 201, opened.text
    answer: Any = None
    for index, cell in enumerate(cells):
        answer = client.post(
            f"/v1/deals/{opened.json()['deal_id']}/moves",
            json={"index": index, "move": cell},
            headers=bearer(token),
        ).json()
    return answer


def totals(client: HttpClient, tid: str) -> dict[str, int]:
    lines = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()["entrants"]
    return {line["name"]: line["total"] for line in lines}


def test_an_entrant_who_leaves_never_beats_one_who_finishes(client: HttpClient, owner: str) -> None:
    options = {"scoring": NEGATIVE}
    created = open_tournament(client, owner, rounds=2, options=options)
    tid = created["tournament"]["tournament_id"]
    worst = worst_round("poker-squares", options)
    assert worst == -200  # high card, -20, times ten lines
    ada, bea, _ = (enter(client, tid, name).json()["token"] for name in ("Ada", "Bea", "Cy"))
    assert totals(client, tid) == {"Ada": 2 * worst, "Bea": 2 * worst, "Cy": 2 * worst}
    first = play(client, tid, ada, 1, CELLS)["score"]["total"]
    second = play(client, tid, ada, 2, list(reversed(CELLS)))["score"]["total"]
    play(client, tid, bea, 1, CELLS[:20])  # a bad start: Bea walks away
    # Cy never opens a round
    assert first < 0
    assert second < 0
    expected = {"Ada": first + second, "Bea": 2 * worst, "Cy": 2 * worst}
    assert totals(client, tid) == expected
    assert expected["Ada"] >= expected["Bea"] == expected["Cy"]
    nets = client.get(f"/v1/tournaments/{tid}/settlement", headers=reader(tid)).json()["nets"]
    assert nets == settle(expected)
    assert nets["Ada"] >= 0 >= nets["Cy"]

    client.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert totals(client, tid) == expected
    exported = client.get(f"/v1/tournaments/{tid}/export", headers=reader(tid))
    export = msgspec.json.decode(exported.content, type=TournamentExport)
    assert {line.name: line.total for line in export.standings} == expected
    assert len(export.games) == 2  # only finished games are in the record
    check = verify_export(export)
    assert {line.name: line.total for line in check.standings} == expected
    forged = msgspec.structs.replace(
        export,
        standings=[
            msgspec.structs.replace(line, total=0) if line.name == "Cy" else line
            for line in export.standings
        ],
    )
    with pytest.raises(ExportError) as refused:
        verify_export(forged)
    assert "the standings differ" in " ".join(refused.value.problems)


def test_a_serpent_dead_end_counts_the_worst_score(client: HttpClient, owner: str) -> None:
    options = {"scoring": NEGATIVE}
    created = open_tournament(client, owner, variant="serpent-patience", rounds=1, options=options)
    tid = created["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    bea = enter(client, tid, "Bea").json()["token"]
    snake = [f"{c}{r}" for r in "12345" for c in ("abcde" if r in "135" else "edcba")]
    done = play(client, tid, ada, 1, snake)["score"]["total"]
    trapped = ["b1", "b2", "a2", "a1"]  # both of the corner a1's neighbours are taken
    last = play(client, tid, bea, 1, trapped)
    assert last["finished"] is True
    assert last["score"] is None
    assert totals(client, tid) == {"Ada": done, "Bea": worst_round("serpent-patience", options)}
    assert done >= totals(client, tid)["Bea"]


def test_variants_say_what_an_unfinished_game_counts(client: HttpClient) -> None:
    infos = {info["id"]: info for info in client.get("/v1/variants").json()}
    assert "lowest points" in infos["poker-squares"]["unfinished"]
    assert "counts 0" in infos["solodrez"]["unfinished"]
