"""The card oracle: a player probing a deal's hidden cards through any answer at all.

A cheating player sends every log shape a whole-log verification takes, and every move
the moves endpoint takes, to deals it has not played or is in the middle of (plain and
tournament games, with its own token, another's, none and a forged one), in other
spellings too. Every answer is read for cards the player has not been shown: none may
name one, none may be a 500, and no probe may change the deal.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from litestar import Litestar

from attack_kit import HttpClient, bearer, card_words, enter, leaks, open_tournament
from cardproof.cards import JOKER, STANDARD_DECK, Card
from cardproof.games import VARIANTS, Game, variant
from cardproof_service.deals.service import Deals

HIDDEN_DEALS: list[tuple[str, dict[str, Any]]] = [
    ("poker-squares", {}),
    ("poker-squares", {"diagonals": True, "scoring": {"flush": -3}}),
    ("poker-patience", {}),
    ("repeat-poker", {}),
    ("repeat-poker", {"levels": 5}),
    ("repeat-poker", {"rows": 2}),
    ("reserve-poker", {"version": 1}),
    ("reserve-poker", {"version": 4}),
    ("reserve-poker", {"version": 6}),
]
"""Every hidden variant, in option sets that change what is hidden."""
OTHER_SHAPES: list[Any] = [
    "c3",
    "-1,2",
    "r1",
    "2>4",
    "3:2>5",
    "stop",
    {"row": 9, "col": 9},
    {"row": -4, "col": 4},
    {"row": 0},
    {"from": 3, "to": 4},
    {"from": 0, "count": 2, "to": 1},
    {"remove": 1},
    {"stop": True},
    {},
]
"""A move of each variant's shape, and some that fit none."""


def deck_of(app: Litestar, deal_id: str) -> tuple[type[Game[Any, Any]], Game[Any, Any]]:
    """The judge's view: the deal's real deck, as a fresh game (the player never has it)."""
    deals: Deals = app.state.deals
    record = asyncio.run(deals.store.get_deal(deal_id))
    assert record is not None
    cls = variant(record.variant)
    options = cls.parse_options(record.options)
    cards = cls.deal_cards(deals.server_seed(record.commitment_id), record.client_seed, options)
    return cls, cls.new(cards, options)


def every_card(cls: type[Game[Any, Any]]) -> set[Card]:
    return set(STANDARD_DECK) | ({JOKER} if cls.deck_type == "joker-53" else set())


def candidate_moves(cls: type[Game[Any, Any]]) -> list[Any]:
    """Every move shape this variant has, legal somewhere or not."""
    if cls.id == "repeat-poker":
        return [{"row": r} for r in range(-1, 6)]
    if cls.id == "reserve-poker":
        return [{"from": f, "to": t} for f in range(5) for t in range(6)]
    if cls.id == "poker-patience":
        return [{"row": r, "col": c} for r in range(-4, 5) for c in range(-4, 5)]
    return [{"row": r, "col": c} for r in range(6) for c in range(6)]


def illegal_now(cls: type[Game[Any, Any]], game: Game[Any, Any]) -> list[Any]:
    """The moves of this variant's shape the rules refuse at this point (judged on the deck)."""
    legal = {cls.move_text(move) for move in game.legal_moves()}
    refused = []
    for move in candidate_moves(cls):
        try:
            text = cls.move_text(cls.move_from_object(move, 0))
        except Exception:
            refused.append(move)
            continue
        if text not in legal:
            refused.append(move)
    return refused


class Probe:
    """One player's attack on one deal: what it was shown, and every answer it got."""

    def __init__(self, client: HttpClient, deal: dict[str, Any], auth: dict[str, str]) -> None:
        self.client = client
        self.deal_id: str = deal["deal_id"]
        self.variant: str = deal["variant"]
        self.options: dict[str, Any] = deal["options"]
        self.auth = auth
        self.shown: set[str] = set()
        self.answers: list[tuple[str, int, str]] = []

    def see(self, text: str) -> None:
        """An honest answer: what it names is shown from now on."""
        self.shown |= card_words(text)

    def send(self, method: str, path: str, **kwargs: Any) -> Any:
        answer = self.client.request(method, path, **kwargs)
        self.answers.append(
            (f"{method} {path} {kwargs.get('json')}", answer.status_code, answer.text)
        )
        return answer

    def check(self, cls: type[Game[Any, Any]]) -> None:
        hidden = {card for card in every_card(cls) if card.text not in self.shown}
        for what, status, text in self.answers:
            assert status != 500, (what, text)
            assert not leaks(text, hidden), (what, status, text, leaks(text, hidden))


def verify_body(probe: Probe, moves: Any, **changes: Any) -> dict[str, Any]:
    return {
        "variant": probe.variant,
        "options": probe.options,
        "deal": {"deal_id": probe.deal_id},
        "moves": moves,
        **changes,
    }


def attack(app: Litestar, probe: Probe, headers: list[dict[str, str]]) -> None:
    """Every probe on the deal, with each of ``headers``; the deal must not move."""
    cls, judge = deck_of(app, probe.deal_id)
    state = probe.client.get(f"/v1/deals/{probe.deal_id}", headers=probe.auth).json()
    played = state["moves"].split()
    for text in played:
        judge.play(cls.parse_move(text))
    honest = judge.__class__.new(judge.cards, judge.options)
    for text in played:
        honest.play(cls.parse_move(text))
    full: list[str] = list(played)
    while not honest.is_over():
        move = honest.legal_moves()[0]
        honest.play(move)
        full.append(cls.move_text(move))
    logs: list[Any] = []
    prefix = cls.new(judge.cards, judge.options)
    for length in range(len(full) + 1):
        logs.append(" ".join(full[:length]))
        for bad in illegal_now(cls, prefix)[:2]:
            logs.append([*map(_as_object(cls), full[:length]), bad])
        if length < len(full):
            prefix.play(cls.parse_move(full[length]))
    logs += [" ".join(full) + " " + full[0], [*OTHER_SHAPES], " ".join(reversed(full))]
    logs += [text for text in ("c3 " * 3, "r1 " * 60, "0>0 " * 26, "0,0 0,1 0,0")]
    for extra in headers:
        for moves in logs:
            probe.send("POST", "/v1/verify", json=verify_body(probe, moves), headers=extra)
        for other in VARIANTS:
            body = verify_body(probe, " ".join(full), variant=other, options={})
            probe.send("POST", "/v1/verify", json=body, headers=extra)
        body = verify_body(probe, " ".join(full), options={**probe.options, "rows": 1})
        probe.send("POST", "/v1/verify", json=body, headers=extra)
        index = len(played)
        for move in [*illegal_now(cls, judge), *refused_shapes(cls, judge)]:
            probe.send(
                "POST",
                f"/v1/deals/{probe.deal_id}/moves",
                json={"index": index, "move": move},
                headers=extra,
            )
        for wrong_index in (index + 1, index + 5, 10_000):
            move = _as_object(cls)(full[index]) if index < len(full) else {"row": 0}
            probe.send(
                "POST",
                f"/v1/deals/{probe.deal_id}/moves",
                json={"index": wrong_index, "move": move},
                headers=extra,
            )
        for earlier in range(index):  # another move for a taken index: the first one stands
            for move in illegal_now(cls, cls.new(judge.cards, judge.options))[:1]:
                probe.send(
                    "POST",
                    f"/v1/deals/{probe.deal_id}/moves",
                    json={"index": earlier, "move": move},
                    headers=extra,
                )
        for path in ("", "/receipt"):
            for spelling in (probe.deal_id, probe.deal_id.upper(), probe.deal_id + "%20"):
                probe.send("GET", f"/v1/deals/{spelling}{path}", headers=extra)
    after = probe.client.get(f"/v1/deals/{probe.deal_id}", headers=probe.auth).json()
    assert after["moves"] == state["moves"]  # no probe played a move
    assert after["finished"] is False
    probe.check(cls)


def refused_shapes(cls: type[Game[Any, Any]], game: Game[Any, Any]) -> list[Any]:
    """The moves of :data:`OTHER_SHAPES` that are not legal now (a legal one would play)."""
    legal = {cls.move_text(move) for move in game.legal_moves()}

    def playable(shape: Any) -> bool:
        try:
            if isinstance(shape, str):
                return cls.move_text(cls.move_from_text(shape, 0)) in legal
            return cls.move_text(cls.move_from_object(shape, 0)) in legal
        except Exception:
            return False

    return [shape for shape in OTHER_SHAPES if not playable(shape)]


def _as_object(cls: type[Game[Any, Any]]) -> Any:
    def convert(text: str) -> Any:
        return msgspec.to_builtins(cls.parse_move(text))

    return convert


def open_plain(client: HttpClient, variant_id: str, options: dict[str, Any]) -> Probe:
    commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
    request = {
        "variant": variant_id,
        "options": options,
        "commitment_id": commitment,
        "client_seed": "a seed of mine",
    }
    created = client.post("/v1/deals", json=request)
    assert created.status_code == 201, created.text
    probe = Probe(client, created.json(), {})
    probe.see(created.text)
    return probe


def play_honestly(app: Litestar, probe: Probe, count: int) -> None:
    cls, judge = deck_of(app, probe.deal_id)
    for index in range(count):
        move = judge.legal_moves()[0]
        judge.play(move)
        answer = probe.client.post(
            f"/v1/deals/{probe.deal_id}/moves",
            json={"index": index, "move": cls.move_text(move)},
            headers=probe.auth,
        )
        assert answer.status_code == 200, answer.text
        probe.see(answer.text)


@pytest.mark.parametrize(("variant_id", "options"), HIDDEN_DEALS)
@pytest.mark.parametrize("moves_played", [0, 7])
def test_no_answer_names_an_unseen_card_of_a_plain_deal(
    app: Litestar, client: HttpClient, variant_id: str, options: dict[str, Any], moves_played: int
) -> None:
    probe = open_plain(client, variant_id, options)
    play_honestly(app, probe, moves_played)
    attack(app, probe, [{}, {"Authorization": "Bearer cpe_forged.x.1.y"}])


@pytest.mark.parametrize(("variant_id", "options"), HIDDEN_DEALS[::2])
@pytest.mark.parametrize("moves_played", [0, 5])
def test_no_answer_names_an_unseen_card_of_a_tournament_game(
    app: Litestar,
    client: HttpClient,
    owner: str,
    variant_id: str,
    options: dict[str, Any],
    moves_played: int,
) -> None:
    created = open_tournament(client, owner, variant=variant_id, options=options)
    tid = created["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    bea = enter(client, tid, "Bea").json()["token"]
    opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(ada))
    assert opened.status_code == 201, opened.text
    own = Probe(client, opened.json(), bearer(ada))
    own.see(opened.text)
    play_honestly(app, own, moves_played)
    attack(app, own, [bearer(ada)])
    stranger = Probe(client, opened.json(), bearer(ada))  # Bea has seen none of these cards
    forged = bearer(ada[:-4] + "AAAA")
    attack(app, stranger, [{}, bearer(bea), forged])
    for _, status, text in stranger.answers:
        assert status in {400, 401, 403, 404, 405}, text  # turned away before any rule


@pytest.mark.parametrize(("variant_id", "options"), HIDDEN_DEALS[::2])
@pytest.mark.parametrize("moves_played", [0, 5])
def test_no_answer_names_an_uncalled_card_of_a_lockstep_seat(
    app: Litestar,
    client: HttpClient,
    owner: str,
    variant_id: str,
    options: dict[str, Any],
    moves_played: int,
) -> None:
    """Ada has placed the called card and waits for Bea: the next card is not hers yet."""
    created = open_tournament(
        client, owner, variant=variant_id, options=options, format="lockstep", entry="public"
    )
    tid = created["tournament"]["tournament_id"]
    ada = enter(client, tid, "Ada").json()["token"]
    bea = enter(client, tid, "Bea").json()["token"]
    seats = []
    for token in (ada, bea):
        opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
        assert opened.status_code == 201, opened.text
        seats.append(Probe(client, opened.json(), bearer(token)))
    own, other = seats
    own.see(client.get(f"/v1/deals/{own.deal_id}", headers=own.auth).text)
    start = f"/v1/tournaments/{tid}/rounds/1/start"
    assert client.post(start, json={}, headers={"Authorization": owner}).status_code == 200
    cls, judge = deck_of(app, own.deal_id)
    for index in range(moves_played + 1):  # both place each card; then Ada one more
        for probe in (own, other) if index < moves_played else (own,):
            shown = client.get(f"/v1/deals/{probe.deal_id}", headers=probe.auth)
            if probe is own:
                own.see(shown.text)
                move = judge.legal_moves()[0]
                judge.play(move)
            text = cls.move_text(judge.moves[index])
            placed = client.post(
                f"/v1/deals/{probe.deal_id}/moves",
                json={"index": index, "move": text},
                headers=probe.auth,
            )
            assert placed.status_code == 200, placed.text
            if probe is own:
                own.see(placed.text)
    attack(app, own, [bearer(ada)])
    status = client.get(f"/v1/tournaments/{tid}/rounds/1").json()
    assert (status["call"], status["placed"]) == (moves_played, 1)  # still waiting for Bea


@pytest.mark.parametrize(("variant_id", "options"), HIDDEN_DEALS)
def test_a_seat_sees_no_card_before_its_round_starts(
    app: Litestar, client: HttpClient, owner: str, variant_id: str, options: dict[str, Any]
) -> None:
    """Seated and waiting: no answer names any card, reserve-poker's face-up reserve included."""
    created = open_tournament(
        client, owner, variant=variant_id, options=options, format="lockstep", entry="public"
    )
    tid = created["tournament"]["tournament_id"]
    token = enter(client, tid, "Ada").json()["token"]
    opened = client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token))
    assert opened.status_code == 201, opened.text
    deal_id = opened.json()["deal_id"]
    cls, judge = deck_of(app, deal_id)
    deck = every_card(cls)
    answers = [
        opened.text,
        client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).text,
        client.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=bearer(token)).text,
        client.get(f"/v1/tournaments/{tid}").text,
        client.get(f"/v1/tournaments/{tid}/rounds/1").text,
        client.get(f"/v1/tournaments/{tid}/rounds/1/calls?after=-1&wait=0").text,
        client.get(f"/v1/deals/{deal_id}/receipt", headers=bearer(token)).text,
    ]
    for answer in answers:
        assert leaks(answer, deck) == set(), answer
    start = f"/v1/tournaments/{tid}/rounds/1/start"
    assert client.post(start, json={}, headers={"Authorization": owner}).status_code == 200
    started = client.get(f"/v1/deals/{deal_id}", headers=bearer(token)).text
    assert leaks(started, deck) == leaks(msgspec.json.encode(judge.visible()).decode(), deck)


@pytest.mark.parametrize(
    ("variant_id", "first", "again"),
    [
        ("poker-squares", "c3", "c3"),
        ("poker-patience", "0,0", "0,0"),
    ],
)
def test_an_illegal_move_names_its_cell_not_the_card_there(
    variant_id: str, first: str, again: str
) -> None:
    cls = variant(variant_id)
    game = cls.new(STANDARD_DECK)
    game.play(cls.parse_move(first))
    game.play(cls.parse_move("b1" if variant_id == "poker-squares" else "0,1"))
    with pytest.raises(Exception) as refused:  # noqa: PT011 - the engine's IllegalMove
        game.play(cls.parse_move(again))
    words = card_words(str(refused.value))
    assert "taken" in str(refused.value)
    assert not words & {card.text for card in STANDARD_DECK}
