"""A property across the gate: no card before its call, no move out of turn, anywhere.

Cases are generated, not listed: every variant with each option class its registry
entry offers (the defaults, each value that changes what a deal shows, a die roll where
an option takes ``"random"``), every seat kind (casual, committed, async and lockstep
tournament), every phase a seat can stand in (before its round's start, during a call,
with the seat ahead of the round, past a deadline, after the round, after the close),
at any point of the game. Each case is played over HTTP by two entrants (a second
identity is what a cheat has), then probed as each of them, as nobody and with the
other's token, on every route that can show a card or take a move: the deal, its
receipt, a whole log and the played one through ``POST /v1/verify``, the tournament,
its round, its calls, standings (one player's too), the export and the page, and moves
at the next index, past it and at an index played. Every card any answer names must be
one the attacker's seats may see by the rules (docs/rules.md section 9): placed cards,
each seat's card now due (a lockstep seat's once called), a reserve's face-up cards
after the start; and a move is taken exactly when its seat's turn has come. A
tournament a lockstep round could show cards in is refused at creation.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.games import VARIANTS, Game, replay_log, variant
from cardproof_service.deals.service import Deals
from conftest import Clock, held_app_of, hold_store_clock, organizer_key
from test_tournaments_api import bearer, enter, keep_codes, new_tournament

HttpClient = TestClient[Litestar]
CARD_SECONDS = 5


def _option_classes() -> list[tuple[str, dict[str, Any]]]:
    """Each variant's defaults, each option value that changes what a deal shows, and
    ``"random"`` wherever an option takes it, read from the registry."""
    found: list[tuple[str, dict[str, Any]]] = []
    for variant_id, cls in sorted(VARIANTS.items()):
        candidates: list[dict[str, Any]] = [{}]
        for name, values in cls.information_by_option().items():
            candidates += [{name: int(v) if v.isdigit() else v} for v in values]
            candidates.append({name: "random"})
        for options in candidates:
            try:
                cls.parse_options(options)
            except Exception:
                continue
            found.append((variant_id, options))
    return found


OPTION_CLASSES = _option_classes()
KINDS = ("casual", "committed", "async", "lockstep")
PHASES = {
    "casual": ("open",),
    "committed": ("open",),
    "async": ("open", "closed"),
    "lockstep": ("before-start", "call", "ahead", "past-deadline", "round-over", "closed"),
}


@dataclass(frozen=True)
class Case:
    variant: str
    options: dict[str, Any]
    kind: str
    phase: str
    progress: int
    seed: int
    """Seeds the moves' choices (drawn once: no draw depends on what the server says)."""


COMBINATIONS = [
    (variant_id, options, kind, phase)
    for variant_id, options in OPTION_CLASSES
    for kind in KINDS
    for phase in PHASES[kind]
]
"""Every option class, seat kind and phase: each is played, at generated points."""


@pytest.fixture(scope="module")
def held() -> Iterator[tuple[HttpClient, Clock, str]]:
    """An app on its own memory store, keeper idle, on a store clock the test moves."""
    patch = pytest.MonkeyPatch()
    clock = hold_store_clock(patch)
    app = held_app_of()
    with TestClient(app=app) as client:
        yield client, clock, organizer_key(app, "Property Club")
    patch.undo()


class Seat:
    """One identity's game as the test follows it, on the deck the test derives."""

    def __init__(self, client: HttpClient, deal_id: str, token: str | None) -> None:
        self.client, self.deal_id, self.token = client, deal_id, token
        deals: Deals = client.app.state.deals
        record = asyncio.run(client.app.state.store.get_deal(deal_id))
        assert record is not None
        self.cards = deals.games.cards_of(record)
        self.options = record.options
        self.game: Game[Any, Any] = replay_log(
            record.variant, self.cards, record.options, "", dealt=True
        )

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.token is None else bearer(self.token)

    def legal(self, chooser: random.Random) -> Any:
        return chooser.choice(self.game.legal_moves())

    def play(self, chooser: random.Random) -> None:
        move = self.legal(chooser)
        index = len(self.game.moves)
        answer = self.client.post(
            f"/v1/deals/{self.deal_id}/moves",
            json={"index": index, "move": self.game.move_text(move)},
            headers=self.headers,
        )
        assert answer.status_code == 200, answer.text
        self.game.play(move)

    def whole_log(self, chooser: random.Random) -> str:
        """A complete log: what was played, then random legal moves to the end."""
        copy = replay_log(self.game.id, self.cards, self.options, "", dealt=True)
        for move in self.game.moves:
            copy.play(move)
        while not copy.is_over():
            copy.play(chooser.choice(copy.legal_moves()))
        return copy.log_text()

    def may_see(self, called: int | None) -> set[str]:
        """The cards this seat may see now by the rules (``called``: its round's call)."""
        view = self.game.visible()
        placed = len(self.game.moves)
        if called is not None and called < 0 and getattr(view, "reserve", None) is not None:
            view = msgspec.structs.replace(view, reserve=())
        if called is not None and placed > called and getattr(view, "next", None):
            view = msgspec.structs.replace(view, next=None)
        if called is not None and getattr(view, "later", None):
            view = msgspec.structs.replace(view, later=())
        return _card_words(msgspec.json.encode(view).decode(), self.deck)

    @property
    def deck(self) -> set[str]:
        return {card.text for card in self.cards}


WORD = re.compile(r"[A-Za-z0-9]+")
SKIPPED = {"receipt", "token", "signature", "signed"}
"""Members whose text is base64 (a JWS): not words a person reads."""


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key not in SKIPPED:
                yield from _strings(value)


def _card_words(text: str, deck: set[str]) -> set[str]:
    return {word for word in WORD.findall(text) if word in deck}


def _shown(answer: Any, deck: set[str]) -> set[str]:
    """Every card of ``deck`` an answer names, anywhere (bodies, problem details)."""
    try:
        body = answer.json()
    except ValueError:
        return _card_words(answer.text, deck)
    return {card for text in _strings(body) for card in _card_words(text, deck)}


def _tournament(client: HttpClient, owner: str, case: Case) -> str | None:
    """A one-round tournament of the case, or ``None`` if it is rightly refused."""
    cls = variant(case.variant)
    options = cls.parse_options(case.options)
    blind = cls.informations(options) == {"hidden"}
    body = new_tournament(
        variant=case.variant,
        options=case.options,
        format=case.kind,
        entry="invite" if case.kind == "async" else "public",
        rounds=1,
        card_seconds=CARD_SECONDS,
    )
    made = client.post("/v1/tournaments", json=body, headers={"Authorization": owner})
    if case.kind == "lockstep" and (not blind or cls.turns(options) is None):
        assert made.status_code == 422, made.text  # it could show a card before its call
        return None
    assert made.status_code == 201, made.text
    keep_codes(made.json())
    return str(made.json()["tournament"]["tournament_id"])


@pytest.mark.parametrize(
    ("variant_id", "options", "kind", "phase"),
    COMBINATIONS,
    ids=[f"{v}-{msgspec.json.encode(o).decode()}-{k}-{p}" for v, o, k, p in COMBINATIONS],
)
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(progress=st.integers(0, 30), seed=st.integers(0, 2**32))
def test_no_card_before_its_call_and_no_move_out_of_turn(
    held: tuple[HttpClient, Clock, str],
    variant_id: str,
    options: dict[str, Any],
    kind: str,
    phase: str,
    progress: int,
    seed: int,
) -> None:
    case = Case(variant_id, options, kind, phase, progress, seed)
    client, clock, owner = held
    chooser = random.Random(case.seed)
    tid = None
    if case.kind in ("casual", "committed"):
        body: dict[str, Any] = {
            "variant": case.variant,
            "options": case.options,
            "client_seed": "prop",
        }
        if case.kind == "committed":
            body["commitment_id"] = client.post("/v1/commitments", json={}).json()["commitment_id"]
        opened = client.post("/v1/deals", json=body)
        assert opened.status_code == 201, opened.text
        seats = [Seat(client, opened.json()["deal_id"], None)]
    else:
        tid = _tournament(client, owner, case)
        if tid is None:
            return
        seats = []
        for name in ("Ada", "Bea"):
            token = enter(client, tid, name).json()["token"]
            game = client.post(
                f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token)
            )
            assert game.status_code == 201, game.text
            seats.append(Seat(client, game.json()["deal_id"], token))
    ada = seats[0]
    cls = variant(case.variant)
    turns = cls.turns(cls.parse_options(ada.options))
    called: int | None = None
    if case.kind == "lockstep":
        assert turns is not None
        called = -1
        if case.phase != "before-start":
            started = client.post(
                f"/v1/tournaments/{tid}/rounds/1/start", json={}, headers={"Authorization": owner}
            )
            assert started.status_code == 200, started.text
            calls = turns if case.phase == "round-over" else min(case.progress, turns - 1)
            for _ in range(calls):
                for seat in seats:
                    seat.play(chooser)
            called = turns if case.phase == "round-over" else calls
            if case.phase == "ahead":
                ada.play(chooser)  # Ada placed the call; Bea has not: nothing more shows
            if case.phase == "past-deadline":
                clock.ms += CARD_SECONDS * 1000 + 1
    else:
        for number, seat in enumerate(seats):
            for _ in range(case.progress // (number + 1)):
                if not seat.game.is_over():
                    seat.play(chooser)
    if case.phase == "closed":
        shut = client.post(
            f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
        )
        assert shut.status_code == 200, shut.text
        if case.kind == "lockstep" and called is not None and called >= 0:
            for seat in seats:  # a started round's games completed by the first legal moves
                while not seat.game.is_over():
                    seat.game.play(seat.game.legal_moves()[0])
    deck = ada.deck
    open_deal = cls.information_of(cls.parse_options(ada.options)) == "open"
    everything = case.phase == "closed" or (open_deal and case.kind != "lockstep")
    allowed = set().union(*(seat.may_see(called) for seat in seats))
    probes: list[tuple[str, str, dict[str, Any]]] = []
    spellings = {ada.deal_id, ada.deal_id.upper()}
    identities = [seat.headers for seat in seats] + [{}]
    for deal_id in spellings:
        for headers in identities:
            probes.append(("GET", f"/v1/deals/{deal_id}", {"headers": headers}))
            probes.append(("GET", f"/v1/deals/{deal_id}/receipt", {"headers": headers}))
    whole = ada.whole_log(chooser)
    for log in (whole, ada.game.log_text()):
        verify = {
            "variant": case.variant,
            "options": ada.options,
            "deal": {"deal_id": ada.deal_id},
            "moves": log,
        }
        for headers in identities:
            probes.append(("POST", "/v1/verify", {"json": verify, "headers": headers}))
    if tid is not None:
        for path in ("", "/standings", "/standings?player=Ada", "/export"):
            probes.append(("GET", f"/v1/tournaments/{tid}{path}", {"headers": ada.headers}))
        # these last: reading a round past its deadline has its late cards placed
        probes.append(("GET", f"/v1/tournaments/{tid}/rounds/1", {}))
        probes.append(("GET", f"/v1/tournaments/{tid}/rounds/1/calls?after=-1&wait=0", {}))
        probes.append(("GET", f"/tournaments/{tid}", {"headers": {"Accept": "text/html"}}))
        if case.kind == "lockstep" and case.phase in ("round-over", "closed"):
            stream = {"headers": {"Accept": "text/event-stream"}}  # it ends: the round is over
            probes.append(("GET", f"/v1/tournaments/{tid}/rounds/1/calls?after=-1", stream))
    for method, url, kwargs in probes:
        if phase == "past-deadline" and "/rounds/" in url:
            assert called is not None
            for seat in seats:  # each idle seat's card placed: the first legal move
                if len(seat.game.moves) == called:
                    seat.game.play(seat.game.legal_moves()[0])
            called, phase = called + 1, "call"
            allowed = set().union(*(seat.may_see(called) for seat in seats))
        answer = client.request(method, url, **kwargs)
        assert answer.status_code < 500, (url, answer.text)
        if method == "POST" and answer.status_code == 200 and not ada.game.is_over():
            # a whole log played an unplayed open deal: never a lockstep seat's
            assert case.kind != "lockstep", ("a whole log played a lockstep seat", answer.text)
            assert open_deal, ("a whole log played a hidden deal", answer.text)
            ada.game = replay_log(case.variant, ada.cards, ada.options, whole, dealt=True)
        if not everything:  # what the request itself said (an id's letters) is no leak
            said = f"{url} {msgspec.json.encode(kwargs.get('json')).decode()}"  # apart: an id
            sent = _card_words(said, deck)  # ending in "KS" and a body of null are two words
            leaked = _shown(answer, deck) - allowed - sent
            assert not leaked, (case.kind, case.phase, method, url, leaked, answer.text[:400])

    # moves: taken exactly when the seat's turn has come, never past it
    if ada.game.is_over():
        return
    index = len(ada.game.moves)
    move = ada.legal(chooser)
    text = ada.game.move_text(move)
    ahead = client.post(
        f"/v1/deals/{ada.deal_id}/moves",
        json={"index": index + 1, "move": text},
        headers=ada.headers,
    )
    assert ahead.status_code in (409, 422), ahead.text
    if not everything:
        assert not _shown(ahead, deck) - allowed, ahead.text
    turn = phase not in ("closed", "before-start", "ahead", "past-deadline")
    spelled = text.upper() if case.variant in ("poker-squares", "poker-patience") else text
    for headers in ([seats[1].headers] if len(seats) > 1 else []) + [{}] * (tid is not None):
        stolen = client.post(
            f"/v1/deals/{ada.deal_id}/moves",
            json={"index": index, "move": spelled},
            headers=headers,
        )
        assert stolen.status_code in (401, 403), stolen.text  # another identity: never
    taken = client.post(
        f"/v1/deals/{ada.deal_id}/moves",
        json={"index": index, "move": spelled},
        headers=ada.headers,
    )
    assert (taken.status_code == 200) == turn, (case.kind, case.phase, taken.text)
    if not everything and taken.status_code != 200:
        assert not _shown(taken, deck) - allowed, taken.text
