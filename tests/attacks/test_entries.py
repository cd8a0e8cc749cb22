"""Second identities: weak replay keys, look-alike names, shared invite codes.

A player with a second entry sees a hidden deal before playing it with the first. So an
``Idempotency-Key`` is no password (a short one could be guessed and would replay
someone's entry, token included), a name that looks like an entrant's is taken, and an
invite code enters one person once.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from litestar import Litestar

import cardproof_service.entries as entries_module
from attack_kit import HttpClient, bearer, enter, open_tournament, organizer_key, reader
from test_tournaments_api import _CODES, _READERS

WEAK_KEYS: list[str | bytes] = [
    "1",
    "k",
    "alice-key",
    "x" * 15,
    "a key with spaces!",
    "clé-0123456789abcdef".encode(),
    "k" * 201,
]
"""Keys an attacker could guess, or that are not visible ASCII."""


def test_a_weak_idempotency_key_is_refused_everywhere(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner)["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        ("/v1/deals", {"variant": "poker-squares"}, {}),
        (f"/v1/tournaments/{tid}/entries", {"name": "Bea"}, {}),
        (f"/v1/tournaments/{tid}/rounds/1/deal", {}, bearer(token)),
    ]
    for path, body, headers in requests:
        for key in WEAK_KEYS:
            raw = key if isinstance(key, bytes) else key.encode()
            sent = [*((k.encode(), v.encode()) for k, v in headers.items())]
            answer = client.post(path, json=body, headers=[*sent, (b"Idempotency-Key", raw)])
            assert answer.status_code == 400, (path, key, answer.text)
            assert answer.json()["field"] == "Idempotency-Key"
            assert "16 to 200 visible ASCII" in answer.json()["detail"]
    assert "Bea" not in {line["name"] for line in standings(client, tid)}
    good = {"Idempotency-Key": "0123456789abcdef"}  # sixteen characters: fine
    assert (
        client.post("/v1/deals", json={"variant": "poker-squares"}, headers=good).status_code == 201
    )


def standings(client: HttpClient, tid: str) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = client.get(
        f"/v1/tournaments/{tid}/standings", headers=reader(tid)
    ).json()["entrants"]
    return lines


def test_an_entry_replay_is_honoured_for_its_window_only(
    client: HttpClient, owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
    tid = tid["tournament_id"]
    key = {"Idempotency-Key": "b2d0c9f4-6a1e-4c55-9d0e-3f3f6b2a7e10"}
    first = client.post(f"/v1/tournaments/{tid}/entries", json={"name": "alice"}, headers=key)
    again = client.post(f"/v1/tournaments/{tid}/entries", json={"name": "alice"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json()["token"] == first.json()["token"]
    other = client.post(f"/v1/tournaments/{tid}/entries", json={"name": "mallory"}, headers=key)
    assert (other.status_code, other.json()["code"]) == (422, "idempotency-key-reused")
    stranger = {"Idempotency-Key": "c0ffee00-0000-4000-8000-000000000000"}
    guessed = client.post(
        f"/v1/tournaments/{tid}/entries", json={"name": "alice"}, headers=stranger
    )
    assert (guessed.status_code, guessed.json()["code"]) == (409, "name-taken")
    assert "token" not in guessed.text

    monkeypatch.setattr(entries_module, "REPLAY_WINDOW", 1)
    late_key = {"Idempotency-Key": "d1e2f3a4-0000-4000-8000-000000000001"}
    made = client.post(f"/v1/tournaments/{tid}/entries", json={"name": "bob"}, headers=late_key)
    assert made.status_code == 201
    time.sleep(2.1)  # the replay window (here 1 s; 24 hours by default) has passed
    late = client.post(f"/v1/tournaments/{tid}/entries", json={"name": "bob"}, headers=late_key)
    assert (late.status_code, late.json()["code"]) == (409, "name-taken")
    assert "token" not in late.text


def test_a_deal_replay_key_with_another_body_is_refused(client: HttpClient) -> None:
    commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
    key = {"Idempotency-Key": "e3b0c442-98fc-4c14-9afb-f4c8996fb924"}
    body = {"variant": "poker-squares", "commitment_id": commitment, "client_seed": "mine"}
    first = client.post("/v1/deals", json=body, headers=key)
    again = client.post("/v1/deals", json=body, headers=key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["deal_id"] == first.json()["deal_id"]
    for changed in (
        {"client_seed": "another"},
        {"variant": "poker-patience"},
        {"options": {"scoring": "british"}},
    ):
        other = client.post("/v1/deals", json={**body, **changed}, headers=key)
        assert (other.status_code, other.json()["code"]) == (422, "idempotency-key-reused"), changed


LOOK_ALIKES = [
    "Alice",
    "ALICE",
    "alice ",
    " alice",
    "\u0430lice",  # Cyrillic a
    "ａｌｉｃｅ",  # full width
    "al\u0456ce",  # Ukrainian i
    "a1ice",  # digit one for l
    "AIice",  # capital I for l
    "al\u0130ce",  # dotted capital I
    "alice\u0332",  # a combining low line
]


def test_a_look_alike_name_is_taken(client: HttpClient, owner: str) -> None:
    tid = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
    tid = tid["tournament_id"]
    assert enter(client, tid, "alice").status_code == 201
    for name in LOOK_ALIKES:
        taken = enter(client, tid, name)
        assert (taken.status_code, taken.json()["code"]) == (409, "name-taken"), name
        assert taken.json()["taken_by"] == "alice"
    pairs = (
        ("Ivan", "lvan"),
        ("Tom", "Torn"),
        ("CLAIRE", "CLAlRE"),
        ("Willy", "VVilly"),
        ("dad", "clad"),
        ("Wendy", "Wenc\u0406y"),  # cl for d, and a Cyrillic I
        ("O'Brien", "O\u00b4Brien"),
        ("Jean-Luc", "Jean\u30fcLuc"),
        ("Mia", "Mia\u00b7"),
        ("Ruth", "Ru th."),
    )
    for first, second in pairs:
        assert enter(client, tid, first).status_code == 201
        again = enter(client, tid, second)
        assert (again.status_code, again.json()["taken_by"]) == (409, first), second
    invisible = ("alice\u200b", "al\u200dice", "\u202ealice", "ali\u00adce", "alice\ufe0f")
    for name in (*invisible, "alice\ufffc", "alice\ufffd"):
        hidden = enter(client, tid, name)
        assert (hidden.status_code, hidden.json()["code"]) == (422, "invisible-character"), name
    assert (enter(client, tid, "   ").status_code, enter(client, tid, "   ").json()["code"]) == (
        422,
        "empty-name",
    )
    spaced = enter(client, tid, "  Bob   Smith ")
    assert (spaced.status_code, spaced.json()["name"]) == (201, "Bob Smith")
    assert enter(client, tid, "bob smith").status_code == 409
    assert enter(client, tid, "alicia").status_code == 201  # a different name stays free
    names = sorted(line["name"] for line in standings(client, tid))
    firsts = sorted(first for first, _ in pairs)
    assert names == sorted(["Bob Smith", "alice", "alicia", *firsts])


def test_a_name_with_a_capital_of_another_script_is_taken(client: HttpClient, owner: str) -> None:
    """Greek capitals that look Latin once made second entries beside Zoe, Max, Hal..."""
    tid = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
    tid = tid["tournament_id"]
    for latin, other in [
        ("Zoe", "\u0396oe"),  # Greek capital Zeta
        ("Max", "\u039cax"),  # Greek capital Mu
        ("Hal", "\u0397al"),  # Greek capital Eta
        ("Ned", "\u039ded"),  # Greek capital Nu
        ("Yul", "\u03a5ul"),  # Greek capital Upsilon
        ("Kim", "\u041aim"),  # Cyrillic capital Ka
        ("José", "Jose"),  # an accent, precomposed
    ]:
        assert enter(client, tid, latin).status_code == 201, latin
        second = enter(client, tid, other)
        assert (second.status_code, second.json()["code"]) == (409, "name-taken"), other
        assert second.json()["taken_by"] == latin


def test_an_invite_code_enters_one_person_once(
    client: HttpClient, owner: str, app: Litestar
) -> None:
    created = open_tournament(client, owner, entry="invite", invites=2)
    tid = created["tournament"]["tournament_id"]
    codes = created["invite_codes"]
    _CODES.pop(tid), _READERS.pop(tid)  # entered and read by hand here
    assert len(set(codes)) == 2
    assert created["invite_code"] == codes[0]
    assert enter(client, tid, "Ada").json()["code"] == "bad-invite-code"
    assert enter(client, tid, "Ada", invite_code="not-a-code").json()["code"] == "bad-invite-code"
    assert enter(client, tid, "Ada", invite_code=codes[0]).status_code == 201
    again = enter(client, tid, "Ada's second self", invite_code=codes[0])
    assert (again.status_code, again.json()["code"]) == (403, "invite-used")
    assert enter(client, tid, "Bea", invite_code=codes[1]).status_code == 201
    more = client.post(
        f"/v1/tournaments/{tid}/invites", json={"count": 3}, headers={"Authorization": owner}
    )
    assert more.status_code == 201, more.text
    fresh = more.json()["codes"]
    assert len(fresh) == 3
    assert enter(client, tid, "Cy", invite_code=fresh[0]).status_code == 201
    rival = organizer_key(app, "Rival Entries Club")
    stolen = client.post(
        f"/v1/tournaments/{tid}/invites", json={"count": 1}, headers={"Authorization": rival}
    )
    assert stolen.status_code == 403
    assert client.post(f"/v1/tournaments/{tid}/invites", json={"count": 1}).status_code == 401
    for code in (codes[0], fresh[2]):  # a code reads the tournament, used or not
        assert (
            client.get(f"/v1/tournaments/{tid}", headers={"X-Invite-Code": code}).status_code == 200
        )
    assert (
        client.get(f"/v1/tournaments/{tid}", headers={"X-Invite-Code": "guess"}).status_code == 401
    )
    public = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
    public = public["tournament_id"]
    refused = client.post(
        f"/v1/tournaments/{public}/invites", json={"count": 1}, headers={"Authorization": owner}
    )
    assert (refused.status_code, refused.json()["code"]) == (409, "not-invite-only")
    capped = open_tournament(client, owner, entry="invite", invites=4, max_entrants=2)
    over = client.post(
        f"/v1/tournaments/{capped['tournament']['tournament_id']}/invites",
        json={"count": 1},
        headers={"Authorization": owner},
    )
    assert (over.status_code, over.json()["code"]) == (409, "too-many-invites")


def test_too_many_invites_at_creation_are_refused_before_anything_is_stored(
    client: HttpClient, owner: str
) -> None:
    body = {
        "name": "Too Many Codes",
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": "2026-01-01T00:00:00Z",
        "closes_at": "2035-01-01T00:00:00Z",
        "entry": "invite",
        "max_entrants": 3,
        "invites": 7,
    }
    refused = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    assert (refused.status_code, refused.json()["code"]) == (422, "too-many-invites")
    allowed = client.post(
        "/v1/tournaments", json={**body, "invites": 6}, headers={"Authorization": owner}
    )
    assert allowed.status_code == 201
    assert len(allowed.json()["invite_codes"]) == 6
