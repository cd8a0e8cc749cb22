"""Every route of the app is walked: none reads a deal without asking the gate.

A deal's record (``get_deal``, ``get_deals``) and a finished game's stored result
(``results``, with its log) are what can show a card. Each route of the app is called
here with real requests (a casual and a committed deal, an async and a lockstep
tournament mid-round, a closed one), and every such read during a request must happen
inside the gate (:class:`cardproof_service.deals.gate.Gate`), after the gate said the logs
show (``Gate.logs_shown``), or inside the round's own mechanics (the cards placed for
idle seats, a closed round's games completed), which answer nobody. A route the walk
does not know fails it: adding a path means saying here how to call it, and then the
walk checks it.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof_service.deals.gate import Gate
from cardproof_service.lockstep.rounds import Rounds
from conftest import held_app_of, organizer_key
from test_tournaments_api import bearer, enter, new_tournament, open_tournament

HttpClient = TestClient[Litestar]

SCOPE: contextvars.ContextVar[str | None] = contextvars.ContextVar("scope", default=None)
"""Inside the gate (``gate``) or the round's mechanics (``mechanics``), else ``None``."""


@dataclass
class Trace:
    """What one request did: each sensitive read with the scope it was made in."""

    reads: list[tuple[str, str | None, bool]] = field(default_factory=list)
    asked: bool = False


class Current:
    """The trace of the request being walked (requests are sent one at a time; the app runs
    in its own thread, so this is a plain holder, not a context variable)."""

    trace: Trace | None = None


def _scoped(scope: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    async def run(*args: Any, **kwargs: Any) -> Any:
        token = SCOPE.set(scope)
        try:
            return await method(*args, **kwargs)
        finally:
            SCOPE.reset(token)

    return run


def _read(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    async def run(*args: Any, **kwargs: Any) -> Any:
        trace = Current.trace
        if trace is not None:
            trace.reads.append((name, SCOPE.get(), trace.asked))
        return await method(*args, **kwargs)

    return run


@pytest.fixture(scope="module")
def traced() -> Iterator[tuple[Litestar, HttpClient]]:
    """An app whose sensitive reads, gate and mechanics are traced (keeper idle)."""
    app = held_app_of()
    deals = app.state.deals
    rounds: Rounds = app.state.rounds
    gate: Gate = deals.gate
    for name in dir(Gate):
        member = getattr(gate, name)
        if not name.startswith("_") and _is_async(member):
            setattr(gate, name, _scoped("gate", member))
    for owner, names in (
        (rounds, ("complete_round", "complete")),
        (rounds.late, ("place", "_prepare_first", "_prepare")),
    ):
        for name in names:
            setattr(owner, name, _scoped("mechanics", getattr(owner, name)))
    store = app.state.store
    for name in ("get_deal", "get_deals", "results"):
        setattr(store, name, _read(name, getattr(store, name)))
    shown = Gate.logs_shown

    def logs_shown(tournament: Any) -> bool:
        trace = Current.trace
        if trace is not None:
            trace.asked = True
        return shown(tournament)

    patch = pytest.MonkeyPatch()
    patch.setattr(Gate, "logs_shown", staticmethod(logs_shown))

    with TestClient(app=app) as client:
        yield app, client
    patch.undo()


def _is_async(method: Any) -> bool:
    return inspect.iscoroutinefunction(method)


@dataclass
class World:
    """What the walk's requests name: deals, seats, tournaments and their keys."""

    owner: str
    casual: str
    committed: str
    lockstep: str
    lockstep_seat: tuple[str, str]
    open_seat: tuple[str, str]
    closed: str
    closed_seat: tuple[str, str]


def _tournament(client: HttpClient, owner: str, **changes: Any) -> str:
    return str(open_tournament(client, owner, **changes)["tournament"]["tournament_id"])


def _seat(client: HttpClient, tid: str, name: str) -> tuple[str, str]:
    token = enter(client, tid, name).json()["token"]
    opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    assert opened.status_code == 201, opened.text
    return token, opened.json()["deal_id"]


@pytest.fixture(scope="module")
def world(traced: tuple[Litestar, HttpClient]) -> World:
    app, client = traced
    owner = organizer_key(app, "Walk Club")
    casual = client.post("/v1/deals", json={"variant": "poker-squares", "client_seed": "walk"})
    assert casual.status_code == 201, casual.text
    commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
    committed = client.post(
        "/v1/deals",
        json={"variant": "poker-squares", "commitment_id": commitment, "client_seed": "walk"},
    )
    assert committed.status_code == 201, committed.text
    lockstep = _tournament(client, owner, format="lockstep", entry="public")
    lockstep_seat = _seat(client, lockstep, "Ada")
    _seat(client, lockstep, "Bea")
    started = client.post(
        f"/v1/tournaments/{lockstep}/rounds/1/start", json={}, headers={"Authorization": owner}
    )
    assert started.status_code == 200, started.text
    placed = client.post(
        f"/v1/deals/{lockstep_seat[1]}/moves",
        json={"index": 0, "move": "a1"},
        headers=bearer(lockstep_seat[0]),
    )
    assert placed.status_code == 200, placed.text
    solodrez = _tournament(client, owner, variant="solodrez", options={}, entry="public")
    open_seat = _seat(client, solodrez, "Cy")
    closed = _tournament(client, owner)
    closed_seat = _seat(client, closed, "Dee")
    for index, cell in enumerate(f"{c}{r}" for r in range(1, 6) for c in "abcde"):
        moved = client.post(
            f"/v1/deals/{closed_seat[1]}/moves",
            json={"index": index, "move": cell},
            headers=bearer(closed_seat[0]),
        )
        assert moved.status_code == 200, moved.text
    shut = client.post(f"/v1/tournaments/{closed}/close", json={}, headers={"Authorization": owner})
    assert shut.status_code == 200, shut.text
    return World(
        owner,
        casual.json()["deal_id"],
        committed.json()["deal_id"],
        lockstep,
        lockstep_seat,
        open_seat,
        closed,
        closed_seat,
    )


Call = tuple[str, str, dict[str, Any]]


def _calls(w: World) -> dict[tuple[str, str], list[Call]]:
    """How the walk calls each route (method, path as the app names it): real requests."""
    ada, ada_deal = w.lockstep_seat
    cy, cy_deal = w.open_seat
    dee, dee_deal = w.closed_seat
    org = {"Authorization": w.owner}
    lock = f"/v1/tournaments/{w.lockstep}"
    verify_seat = {
        "variant": "poker-squares",
        "options": {"scoring": "british"},
        "deal": {"deal_id": ada_deal},
        "moves": " ".join(f"{c}{r}" for r in range(1, 6) for c in "abcde"),
    }
    return {
        ("GET", "/v1/variants"): [("GET", "/v1/variants", {})],
        ("POST", "/v1/score"): [
            ("POST", "/v1/score", {"json": {"variant": "poker-squares", "layout": []}})
        ],
        ("POST", "/v1/verify"): [
            ("POST", "/v1/verify", {"json": verify_seat, "headers": bearer(ada)}),
            ("POST", "/v1/verify", {"json": verify_seat}),
            (
                "POST",
                "/v1/verify",
                {
                    "json": {
                        "variant": "solodrez",
                        "deal": {"deal_id": cy_deal},
                        "moves": "stop",
                    },
                    "headers": bearer(cy),
                },
            ),
            (
                "POST",
                "/v1/verify",
                {"json": {**verify_seat, "deal": {"deal_id": dee_deal}}, "headers": bearer(dee)},
            ),
        ],
        ("POST", "/v1/solve"): [("POST", "/v1/solve", {"json": {"variant": "poker-squares"}})],
        ("POST", "/v1/commitments"): [("POST", "/v1/commitments", {"json": {}})],
        ("POST", "/v1/deals"): [
            ("POST", "/v1/deals", {"json": {"variant": "poker-patience", "client_seed": "w"}})
        ],
        ("POST", "/v1/deals/{deal_id:str}/moves"): [
            ("POST", f"/v1/deals/{w.casual}/moves", {"json": {"index": 0, "move": "a1"}}),
            ("POST", f"/v1/deals/{w.casual}/moves", {"json": {"index": 0, "move": "b1"}}),
            (
                "POST",
                f"/v1/deals/{ada_deal}/moves",
                {"json": {"index": 1, "move": "b1"}, "headers": bearer(ada)},
            ),
            (
                "POST",
                f"/v1/deals/{ada_deal}/moves",
                {"json": {"index": 0, "move": "a1"}, "headers": bearer(ada)},
            ),
        ],
        ("GET", "/v1/deals/{deal_id:str}"): [
            ("GET", f"/v1/deals/{w.committed}", {}),
            ("GET", f"/v1/deals/{ada_deal}", {"headers": bearer(ada)}),
            ("GET", f"/v1/deals/{ada_deal}", {}),
        ],
        ("GET", "/v1/deals/{deal_id:str}/receipt"): [
            ("GET", f"/v1/deals/{dee_deal}/receipt", {"headers": bearer(dee)}),
            ("GET", f"/v1/deals/{ada_deal}/receipt", {"headers": bearer(ada)}),
        ],
        ("GET", "/v1/tournaments"): [("GET", "/v1/tournaments", {"headers": org})],
        ("POST", "/v1/tournaments"): [
            ("POST", "/v1/tournaments", {"json": new_tournament(), "headers": org})
        ],
        ("POST", "/v1/tournaments/{tournament_id:str}/close"): [
            ("POST", f"/v1/tournaments/{w.closed}/close", {"json": {}, "headers": org})
        ],
        ("POST", "/v1/tournaments/{tournament_id:str}/entries"): [
            ("POST", f"{lock}/entries", {"json": {"name": "Late"}})
        ],
        ("GET", "/v1/tournaments/{tournament_id:str}/export"): [
            ("GET", f"/v1/tournaments/{w.closed}/export", {"headers": org}),
            ("GET", f"{lock}/export", {}),
        ],
        ("POST", "/v1/tournaments/{tournament_id:str}/invites"): [
            ("POST", f"/v1/tournaments/{w.closed}/invites", {"json": {"count": 1}, "headers": org})
        ],
        ("GET", "/v1/tournaments/{tournament_id:str}"): [("GET", lock, {})],
        ("GET", "/v1/tournaments/{tournament_id:str}/settlement"): [
            ("GET", f"/v1/tournaments/{w.closed}/settlement", {"headers": org})
        ],
        ("GET", "/v1/tournaments/{tournament_id:str}/standings"): [
            ("GET", f"{lock}/standings", {}),
            ("GET", f"{lock}/standings?player=Ada", {}),
            ("GET", f"/v1/tournaments/{w.closed}/standings?player=Dee", {"headers": org}),
        ],
        ("POST", "/v1/tournaments/{tournament_id:str}/rounds/{round_number:int}/deal"): [
            ("POST", f"{lock}/rounds/1/deal", {"json": {}, "headers": bearer(ada)})
        ],
        ("GET", "/v1/tournaments/{tournament_id:str}/rounds/{round_number:int}/calls"): [
            ("GET", f"{lock}/rounds/1/calls?after=-1&wait=0", {})
        ],
        ("GET", "/v1/tournaments/{tournament_id:str}/rounds/{round_number:int}"): [
            ("GET", f"{lock}/rounds/1", {})
        ],
        ("POST", "/v1/tournaments/{tournament_id:str}/rounds/{round_number:int}/start"): [
            ("POST", f"{lock}/rounds/1/start", {"json": {}, "headers": org})
        ],
        ("GET", "/.well-known/jwks.json"): [("GET", "/.well-known/jwks.json", {})],
        ("GET", "/log/checkpoint"): [("GET", "/log/checkpoint", {})],
        ("GET", "/log/key"): [("GET", "/log/key", {})],
        ("GET", "/log/proof/{leaf:str}"): [("GET", f"/log/proof/{'0' * 64}", {})],
        ("GET", "/log/tile/{tile:path}"): [("GET", "/log/tile/entries/000.p/1", {})],
        ("GET", "/healthz"): [("GET", "/healthz", {})],
        ("GET", "/readyz"): [("GET", "/readyz", {})],
        ("GET", "/metrics"): [("GET", "/metrics", {})],
        ("GET", "/tournaments/{tournament_id:str}"): [
            ("GET", f"/tournaments/{w.lockstep}", {}),
            ("GET", f"/tournaments/{w.closed}", {}),
        ],
        ("GET", "/favicon.ico"): [("GET", "/favicon.ico", {})],
        ("GET", "/"): [("GET", "/", {})],
        ("GET", "/play"): [("GET", "/play", {})],
        ("GET", "/verify"): [("GET", "/verify", {})],
        ("GET", "/static/{file_path:path}"): [("GET", "/static/nothing.js", {})],
        ("GET", "/schema"): [("GET", "/schema", {})],
        ("GET", "/schema/swagger"): [("GET", "/schema/swagger", {})],
        ("GET", "/schema/{path:str}"): [("GET", "/schema/redoc", {})],
        ("GET", "/schema/openapi.json"): [("GET", "/schema/openapi.json", {})],
        ("GET", "/schema/oauth2-redirect.html"): [("GET", "/schema/oauth2-redirect.html", {})],
    }


def _routes(app: Litestar) -> list[tuple[str, str]]:
    """Every (method, path) the app serves (HEAD and OPTIONS answer as their GET does)."""
    found = []
    for route in app.routes:
        for method in sorted(getattr(route, "methods", ())):
            if method not in {"HEAD", "OPTIONS"}:
                found.append((method, route.path))
    return found


def test_the_walk_knows_every_route(traced: tuple[Litestar, HttpClient], world: World) -> None:
    app, _ = traced
    unknown = sorted(set(_routes(app)) - set(_calls(world)))
    assert not unknown, f"routes the gate walk does not call (add them to _calls): {unknown}"


def test_no_route_reads_a_deal_without_the_gate(
    traced: tuple[Litestar, HttpClient], world: World
) -> None:
    app, client = traced
    calls = _calls(world)
    reads_seen = 0
    ungated = []
    for route in _routes(app):
        for method, url, kwargs in calls[route]:
            trace = Current.trace = Trace()
            try:
                answer = client.request(method, url, **kwargs)
            finally:
                Current.trace = None
            assert answer.status_code < 500, (route, url, answer.text)
            for name, scope, asked in trace.reads:
                reads_seen += 1
                if scope is None and not asked:
                    ungated.append(f"{method} {url} ({route[1]}) read {name} without the gate")
    assert not ungated
    assert reads_seen >= 10  # the walk did read deals: it checks something
