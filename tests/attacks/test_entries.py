"""Second identities: weak replay keys, look-alike names, shared invite codes.

A player with a second entry sees a hidden deal before playing it with the first. So an
``Idempotency-Key`` is no password (a short one could be guessed and would replay
someone's entry, token included), a name that looks like an entrant's is taken, and an
invite code enters one person once.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import Counter
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import cardproof_service.store.keys as layout
import cardproof_service.tournaments.entries as entries_module
from attack_kit import HttpClient, bearer, enter, open_tournament, organizer_key, reader
from cardproof_service import Settings, create_app
from cardproof_service.store import MemoryStore, NewEntrant, Store
from cardproof_service.store.redis import RedisStore
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS, UNLIMITED, served
from redis_server import redis_url_or_skip
from test_tournaments_api import _CODES, _READERS, add_organizer_to, new_tournament

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


# --- entries per address (issue 37) -------------------------------------------------------
# Found by attack: one address made 250 entries in a public tournament, each a token with a
# share of every round's listeners, and took a replica's listener room with them
# (test_listener_room.py). A public tournament now takes a few entries per address.

ENTRIES = Settings().entries_per_address


def test_the_default_is_a_few_entries_per_address() -> None:
    assert 2 <= ENTRIES <= 8  # a household or a table behind one NAT; a crowd needs invites
    assert Settings.from_env({}).entries_per_address == ENTRIES
    assert Settings.from_env({"CARDPROOF_ENTRIES_PER_ADDRESS": "0"}).entries_per_address == 0


def test_one_address_enters_a_public_tournament_a_few_times_only() -> None:
    """In process: the client is the connection's address; a header names no new one."""
    limits = {**UNLIMITED, "entries_per_address": ENTRIES}
    app = create_app(Settings(warm_up=False, **limits), keys=TEST_KEYS)
    owner = organizer_key(app, "Few Entries Club")
    with TestClient(app=app) as client:
        tid = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
        tid = tid["tournament_id"]
        url = f"/v1/tournaments/{tid}/entries"
        key = {"Idempotency-Key": "f0e1d2c3-0000-4000-8000-00000000a001"}
        first = client.post(url, json={"name": "Sock 0"}, headers=key)
        assert first.status_code == 201, first.text
        for n in range(1, ENTRIES):
            assert enter(client, tid, f"Sock {n}").status_code == 201
        forwarded = {"X-Forwarded-For": "203.0.113.99"}  # no trusted proxy: ignored
        past = client.post(url, json={"name": "One Too Many"}, headers=forwarded)
        refused_past_the_limit(past)
        again = client.post(url, json={"name": "Sock 0"}, headers=key)  # a resend: no more
        assert (again.status_code, again.json()["token"]) == (201, first.json()["token"])
        names = {line["name"] for line in standings(client, tid)}
        assert names == {f"Sock {n}" for n in range(ENTRIES)}

        other = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
        assert enter(client, other["tournament_id"], "Sock 0").status_code == 201  # per tournament
        invited = open_tournament(client, owner, entry="invite", invites=ENTRIES + 3)
        invited_id = invited["tournament"]["tournament_id"]
        for n in range(ENTRIES + 1):  # an invite-only tournament is gated by its codes
            assert enter(client, invited_id, f"Guest {n}").status_code == 201


def refused_past_the_limit(answer: httpx.Response) -> None:
    assert answer.status_code == 409, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert problem["code"] == "entries-per-address"
    assert "CARDPROOF_ENTRIES_PER_ADDRESS" in problem["detail"]
    assert f"{ENTRIES} entries" in problem["detail"]
    assert "token" not in answer.text


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_entries_per_address_behind_a_trusted_proxy(
    store: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A real server behind a proxy it trusts: each address (an IPv6 /64) has its own count."""
    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(redis_url_or_skip()) if store == "redis" else ""
        organizers = tmp_path_factory.mktemp("organizers") / "organizers.json"
        env = {
            "CARDPROOF_ORGANIZERS_FILE": str(organizers),
            "REDIS_URL": redis_url,
            "CARDPROOF_ENTRIES_PER_ADDRESS": str(ENTRIES),
            "FORWARDED_ALLOW_IPS": "127.0.0.1",  # the test is the proxy
        }
        key, record = new_organizer(f"Proxy Entries Club {time.time_ns()}")
        if redis_url:
            assert asyncio.run(add_organizer_to(redis_url, record))
        else:
            organizers.write_bytes(msgspec.json.encode([record]))  # as the CLI keeps them
        base_url = stack.enter_context(served("--log-level", "warning", env=env))
        client = stack.enter_context(httpx.Client(base_url=base_url, timeout=10))
        body = new_tournament(format="lockstep", entry="public")
        created = client.post(
            "/v1/tournaments", json=body, headers={"Authorization": f"Bearer {key}"}
        )
        assert created.status_code == 201, created.text
        url = f"/v1/tournaments/{created.json()['tournament']['tournament_id']}/entries"

        def entered(name: str, address: str) -> httpx.Response:
            return client.post(url, json={"name": name}, headers={"X-Forwarded-For": address})

        for n in range(ENTRIES):
            assert entered(f"Sock {n}", "203.0.113.7").status_code == 201
        refused_past_the_limit(entered("Sock again", "203.0.113.7"))
        assert entered("A neighbour", "203.0.113.8").status_code == 201  # another address
        for n in range(ENTRIES):  # one /64 is one client, whichever of its addresses
            assert entered(f"Six {n}", f"2001:db8:6:6::{n + 1:x}").status_code == 201
        refused_past_the_limit(entered("Six again", "2001:db8:6:6:ffff::1"))
        assert entered("Next network", "2001:db8:6:7::1").status_code == 201


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_entries_per_address_are_counted_in_one_store_step(store: str) -> None:
    """Twenty entries of one address at once: exactly the limit enter, on either store."""

    async def race(target: Store) -> list[str]:
        tid = "t_" + secrets.token_hex(10)
        expires_at = int(time.time()) + 3600

        def entrant(n: int) -> NewEntrant:
            name = f"Racer {n}"
            return NewEntrant(secrets.token_hex(8), name, name.lower(), expires_at=expires_at)

        results = await asyncio.gather(
            *(
                target.add_entrant(tid, entrant(n), None, address="a", per_address=ENTRIES)
                for n in range(20)
            )
        )
        other = await target.add_entrant(tid, entrant(99), None, address="b", per_address=ENTRIES)
        unlimited = await target.add_entrant(tid, entrant(98), None, address="a")
        if isinstance(target, RedisStore):
            ttl = await target._redis.ttl(f"{layout.tournament(tid)}:address-entries")
            assert 3500 < ttl <= 3600  # the count goes with the tournament
        return [result.outcome for result in (*results, other, unlimited)]

    if store == "memory":
        outcomes = asyncio.run(race(MemoryStore()))
    else:
        with redis_url_or_skip() as url:

            async def on_redis() -> list[str]:
                target = RedisStore.from_url(url)
                try:
                    return await race(target)
                finally:
                    await target.close()

            outcomes = asyncio.run(on_redis())
    assert Counter(outcomes[:20]) == {"added": ENTRIES, "entries-per-address": 20 - ENTRIES}
    assert outcomes[20:] == ["added", "added"]  # another address; no limit asked


def test_an_entrys_answer_is_never_kept_by_a_cache(client: HttpClient, owner: str) -> None:
    """The entry's answer carries the entrant's token: no-store, though a public entry
    sends no credential (found by the red team: only credentialed requests had it)."""
    made = open_tournament(client, owner, format="lockstep", entry="public")
    tid = made["tournament"]["tournament_id"]
    entry = client.post(
        f"/v1/tournaments/{tid}/entries",
        json={"name": "Cached"},
        headers={"Idempotency-Key": "k" * 20},
    )
    assert entry.status_code == 201, entry.text
    assert entry.headers["cache-control"] == "no-store"
    again = client.post(
        f"/v1/tournaments/{tid}/entries",
        json={"name": "Cached"},
        headers={"Idempotency-Key": "k" * 20},
    )
    assert (again.status_code, again.headers["cache-control"]) == (201, "no-store")
