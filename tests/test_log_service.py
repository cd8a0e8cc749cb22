"""The service's transparency log: receipts logged, proved, and the log served as tiles.

A game's receipt entry is pooled in the step that stores its ending, folded into the
tree within a fold interval, and the receipt answer then carries its place in the log,
which :func:`cardproof.tlog.inclusion.check_in_log` accepts under the key ``/log/key``
answers. The tiles served are the tree's, each in its one spelling, cached for a year;
the checkpoint for two seconds.
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from attack_kit import CELLS, committed_receipt, enter, open_tournament, organizer_key, play_round
from cardproof.receipts import decode_receipt
from cardproof.tlog.entries import (
    Entry,
    ReceiptEntry,
    RoundCommitment,
    RoundReveal,
    Settlement,
    parse_entry,
    receipt_digest,
    settlement_entry,
)
from cardproof.tlog.inclusion import LogProof, LogProofError, check_in_log
from cardproof.tlog.note import Checkpoint, Verifier, open_note
from cardproof.tlog.tiles import ENTRIES, Tile, tile_path, unpack_bundle
from cardproof.tlog.tree import MemoryTree, leaf_hash
from cardproof_service.app import create_app
from cardproof_service.plumbing import Settings, SettingsError, rfc3339
from cardproof_service.store import MemoryStore
from cardproof_service.tournaments import standings as standings_module
from conftest import TEST_KEYS, UNLIMITED
from test_tournaments_api import reader

INTERVAL = 0.05


@pytest.fixture(scope="module")
def logged() -> Iterator[TestClient[Litestar]]:
    """An app of its own (its own log) folding every 50 ms."""
    app = create_app(
        Settings(warm_up=False, log_interval=INTERVAL, **UNLIMITED),
        keys=TEST_KEYS,
        store=MemoryStore(),
    )
    with TestClient(app=app) as client:
        yield client


def finished_deal(client: TestClient[Litestar]) -> str:
    """A committed poker-squares deal played to its end; its id."""
    commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
    deal = client.post(
        "/v1/deals",
        json={"variant": "poker-squares", "commitment_id": commitment, "client_seed": "logged"},
    ).json()
    for index, cell in enumerate(CELLS):
        answer = client.post(
            f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": cell}
        )
        assert answer.status_code == 200, answer.text
    deal_id: str = deal["deal_id"]
    return deal_id


def logged_receipt(client: TestClient[Litestar], deal_id: str) -> dict[str, Any]:
    """The deal's receipt answer once it carries its place in the log (5 s at most)."""
    deadline = time.monotonic() + 5
    while True:
        answer: dict[str, Any] = client.get(f"/v1/deals/{deal_id}/receipt").json()
        if answer["log"] is not None or time.monotonic() > deadline:
            return answer
        time.sleep(INTERVAL)


def log_key(client: TestClient[Litestar]) -> Verifier:
    answer = client.get("/log/key")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    return Verifier.parse(answer.text.strip())


def test_a_finished_game_s_receipt_is_proved_in_the_log(logged: TestClient[Litestar]) -> None:
    answer = logged_receipt(logged, finished_deal(logged))
    assert answer["log"] is not None, "not in the log within 5 s"
    proof = msgspec.convert(answer["log"], LogProof)
    found = check_in_log(answer["receipt"], proof, log_key(logged))
    assert found.entry.receipt == receipt_digest(answer["receipt"])
    assert found.entry.deal == answer["payload"]["deal_id"]
    assert found.entry.score == answer["payload"]["score"]["total"]
    assert found.origin == "127.0.0.1:8000/log"  # no public URL: the development origin


def test_a_changed_proof_is_refused(logged: TestClient[Litestar]) -> None:
    answer = logged_receipt(logged, finished_deal(logged))
    proof = msgspec.convert(answer["log"], LogProof)
    key = log_key(logged)
    other = logged_receipt(logged, finished_deal(logged))
    with pytest.raises(LogProofError) as error:  # another receipt's proof
        check_in_log(other["receipt"], proof, key)
    assert error.value.code == "entry"
    moved = msgspec.structs.replace(proof, index=proof.index ^ 1)
    with pytest.raises(LogProofError) as error:
        check_in_log(answer["receipt"], moved, key)
    assert error.value.code == "inclusion"


def test_the_checkpoint_is_signed_and_briefly_cached(logged: TestClient[Litestar]) -> None:
    finished_deal(logged)
    answer = logged.get("/log/checkpoint")
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "public, max-age=2"
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    opened = open_note(answer.text, [log_key(logged)])
    checkpoint = Checkpoint.parse(opened.text)
    assert checkpoint.origin == "127.0.0.1:8000/log"


def tiles_of_log(client: TestClient[Litestar]) -> tuple[Checkpoint, list[bytes]]:
    """The checkpoint and every entry, read from the entry bundles as a monitor reads."""
    checkpoint = Checkpoint.parse(
        open_note(client.get("/log/checkpoint").text, [log_key(client)]).text
    )
    entries: list[bytes] = []
    for index in range((checkpoint.size + 255) // 256):
        width = min(256, checkpoint.size - index * 256)
        answer = client.get("/log/" + tile_path(Tile(ENTRIES, index, width)))
        assert answer.status_code == 200, answer.text
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert answer.headers["content-type"] == "application/octet-stream"
        entries += list(unpack_bundle(answer.content))
    return checkpoint, entries


def test_the_tiles_hold_the_tree_of_the_checkpoint(logged: TestClient[Litestar]) -> None:
    deal_id = finished_deal(logged)
    receipt = logged_receipt(logged, deal_id)
    checkpoint, entries = tiles_of_log(logged)
    tree = MemoryTree([leaf_hash(entry) for entry in entries])
    assert tree.root() == checkpoint.root
    logged_entries = [parse_entry(entry) for entry in entries]
    mine = [e for e in logged_entries if isinstance(e, ReceiptEntry) and e.deal == deal_id]
    assert [e.receipt for e in mine] == [receipt_digest(receipt["receipt"])]
    width = min(256, checkpoint.size)
    hashes = logged.get("/log/" + tile_path(Tile(0, 0, width))).content
    assert hashes == b"".join(tree.subtree(0, i) for i in range(width))


def test_a_partial_tile_stays_what_it_was(logged: TestClient[Litestar]) -> None:
    finished_deal(logged)
    logged_receipt(logged, finished_deal(logged))
    size = Checkpoint.parse(
        open_note(logged.get("/log/checkpoint").text, [log_key(logged)]).text
    ).size
    assert size >= 2
    narrow = logged.get("/log/tile/0/000.p/1").content
    assert len(narrow) == 32
    wide = logged.get(f"/log/tile/0/000.p/{min(size, 255)}").content
    assert wide.startswith(narrow)
    bundle = logged.get("/log/tile/entries/000.p/1").content
    assert len(list(unpack_bundle(bundle))) == 1
    assert leaf_hash(next(unpack_bundle(bundle))) == narrow


@pytest.mark.parametrize(
    "path",
    [
        "tile/0/0",  # not three digits
        "tile/0/000.p/0",
        "tile/0/000.p/256",
        "tile/0/000.p/01",
        "tile/0/x000/000",  # a leading group of zeros
        "tile/0/999",  # beyond the tree
        "tile/0/000.p/255",  # wider than the tree
        "tile/5/000",
        "tile/entries/001",
        "tile/64/000",
        "tile/-1/000",
        "tile/data/000",
        "tile/0/000/",
        "tile/0/../000",
    ],
)
def test_a_tile_not_in_the_tree_or_misspelled_is_a_404(
    logged: TestClient[Litestar], path: str
) -> None:
    answer = logged.get(f"/log/{path}")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    if path.startswith("tile/0/0") or path.startswith("tile/5") or path.startswith("tile/entries"):
        assert answer.json()["code"] == "unknown-tile"


def test_a_tournament_game_logs_both_its_receipts(logged: TestClient[Litestar]) -> None:
    """A tournament game's receipt, then its revealed one: both are the service's."""
    owner = organizer_key(logged.app, "Log Club")
    tournament = open_tournament(logged, owner)["tournament"]["tournament_id"]
    token = enter(logged, tournament, "Logged Player").json()["token"]
    deal = play_round(logged, tournament, token, 1, CELLS)
    deadline = time.monotonic() + 5
    while True:
        _, entries = tiles_of_log(logged)
        mine = [
            e
            for e in map(parse_entry, entries)
            if isinstance(e, ReceiptEntry) and e.deal == deal["deal_id"]
        ]
        if len(mine) == 2 or time.monotonic() > deadline:
            break
        time.sleep(INTERVAL)
    assert [(e.kind, e.tournament) for e in mine] == [("tournament", tournament)] * 2
    assert mine[0].receipt != mine[1].receipt


def test_no_answer_but_the_receipt_s_shows_the_log_key_s_secret(
    logged: TestClient[Litestar],
) -> None:
    """The log key signs; its seed is never served (nor derived from the master key)."""
    assert TEST_KEYS.log_seed == bytes([1]) * 32
    secret = base64.b64encode(TEST_KEYS.log_seed).decode()
    for path in ("/log/key", "/log/checkpoint", "/.well-known/jwks.json"):
        assert secret not in logged.get(path).text
    assert committed_receipt(logged)


def logged_of(
    client: TestClient[Litestar], tournament_id: str, count: int
) -> list[RoundCommitment | RoundReveal | Settlement]:
    """The tournament's round and settlement entries, once the log holds ``count`` (5 s)."""
    deadline = time.monotonic() + 5
    while True:
        entries: list[Entry] = [parse_entry(entry) for entry in tiles_of_log(client)[1]]
        mine = [
            entry
            for entry in entries
            if isinstance(entry, (RoundCommitment, RoundReveal, Settlement))
            and entry.tournament == tournament_id
        ]
        if len(mine) >= count or time.monotonic() > deadline:
            return mine
        time.sleep(INTERVAL)


def test_a_tournament_s_commitments_reveals_and_settlement_are_logged(
    logged: TestClient[Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its rounds' seed hashes from its creation; once it closed, its seeds and totals."""
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)  # results settle at once
    owner = organizer_key(logged.app, f"Log Club {uuid.uuid4().hex[:6]}")
    tid = open_tournament(logged, owner, rounds=2)["tournament"]["tournament_id"]
    shown = logged.get(f"/v1/tournaments/{tid}", headers=reader(tid)).json()
    commitments = logged_of(logged, tid, 2)
    assert commitments == [
        RoundCommitment(tid, r["round"], r["server_seed_hash"]) for r in shown["rounds"]
    ]
    for name in ("Ann Logged", "Bob Logged"):
        token = enter(logged, tid, name).json()["token"]
        play_round(logged, tid, token, 1, CELLS)
    time.sleep(4 * INTERVAL)
    assert logged_of(logged, tid, 2) == commitments  # nothing more before the close
    closed = logged.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200, closed.text
    facts = logged_of(logged, tid, 5)
    revealed = closed.json()["rounds"]
    assert facts[2:4] == [RoundReveal(tid, r["round"], r["server_seed"]) for r in revealed]
    settlement = logged.get(f"/v1/tournaments/{tid}/settlement", headers=reader(tid)).json()
    totals = {line["name"]: line["total"] for line in settlement["standings"]}
    assert sorted(totals) == ["Ann Logged", "Bob Logged"]
    assert facts[4:] == [settlement_entry(tid, totals)]
    assert facts[4] != settlement_entry(tid, {**totals, "Ann Logged": -1})  # totals pinned
    time.sleep(4 * INTERVAL)
    assert len(logged_of(logged, tid, 6)) == 5  # each once


def test_the_log_names_no_entrant_and_its_deal_ids_open_no_tournament_game(
    logged: TestClient[Litestar],
) -> None:
    """What the log makes public (protocol.md 7.7): scores and ids, not who played.

    A tournament game's entry names its deal, and that id opens nothing without the
    entrant's token; a finished game of no tournament is public by its id, on purpose.
    """
    owner = organizer_key(logged.app, f"Log Club {uuid.uuid4().hex[:6]}")
    tid = open_tournament(logged, owner)["tournament"]["tournament_id"]
    name = f"Zed Private {uuid.uuid4().hex[:6]}"
    token = enter(logged, tid, name).json()["token"]
    deal = play_round(logged, tid, token, 1, CELLS)["deal_id"]
    deadline = time.monotonic() + 5
    while True:
        entries = tiles_of_log(logged)[1]
        ours = [e for e in map(parse_entry, entries) if getattr(e, "deal", None) == deal]
        if len(ours) == 2 or time.monotonic() > deadline:
            break
        time.sleep(INTERVAL)
    assert len(ours) == 2
    assert not any(name.encode() in entry for entry in entries)
    for path in (f"/v1/deals/{deal}", f"/v1/deals/{deal}/receipt"):
        assert logged.get(path).status_code == 401, path
    assert logged.get(f"/v1/deals/{deal}", headers={"Authorization": f"Bearer {token}"}).is_success
    public = decode_receipt(committed_receipt(logged))[1].deal_id
    shown = logged.get(f"/v1/deals/{public}").json()  # no token: a public record, by design
    assert shown["finished"]
    assert shown["client_seed"] == "a seed of mine"


def test_a_tournament_closed_by_its_clock_is_logged_too(
    logged: TestClient[Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody closes it, nobody reads it: its reveals and settlement are logged all the same."""
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    owner = organizer_key(logged.app, f"Log Club {uuid.uuid4().hex[:6]}")
    closes = int(time.time()) + 2
    created = open_tournament(logged, owner, rounds=1, closes_at=rfc3339(closes))
    tid = created["tournament"]["tournament_id"]
    assert len(logged_of(logged, tid, 1)) == 1  # its commitment
    time.sleep(max(0.0, closes - time.time()))
    facts = logged_of(logged, tid, 3)
    assert [type(fact) for fact in facts] == [RoundCommitment, RoundReveal, Settlement]
    assert facts[2] == settlement_entry(tid, {})


def test_a_tournament_s_settlement_waits_for_its_results_to_settle(
    logged: TestClient[Litestar],
) -> None:
    """A move checked just before the close may still be landing: not logged before."""
    owner = organizer_key(logged.app, f"Log Club {uuid.uuid4().hex[:6]}")
    tid = open_tournament(logged, owner, rounds=1)["tournament"]["tournament_id"]
    closed = logged.post(f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner})
    assert closed.status_code == 200
    time.sleep(10 * INTERVAL)
    assert [type(fact) for fact in logged_of(logged, tid, 1)] == [RoundCommitment]


def test_with_the_log_off_nothing_is_pooled_or_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    """``CARDPROOF_LOG=off``: games and tournaments as ever, and an empty log."""
    monkeypatch.setattr(standings_module, "SETTLED_AFTER", -1)
    assert Settings.from_env({"CARDPROOF_LOG": "off"}).log is False
    assert Settings.from_env({"CARDPROOF_LOG": "ON"}).log is True
    assert Settings.from_env({}).log is True
    with pytest.raises(SettingsError, match="CARDPROOF_LOG is on or off"):
        Settings.from_env({"CARDPROOF_LOG": "maybe"})
    store = MemoryStore()
    app = create_app(
        Settings(warm_up=False, log=False, log_interval=INTERVAL, **UNLIMITED),
        keys=TEST_KEYS,
        store=store,
    )
    with TestClient(app=app) as client:
        deal = finished_deal(client)
        owner = organizer_key(client.app, "Unlogged Club")
        tid = open_tournament(client, owner, rounds=1)["tournament"]["tournament_id"]
        closed = client.post(
            f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": owner}
        )
        assert closed.status_code == 200
        time.sleep(10 * INTERVAL)
        assert client.get(f"/v1/deals/{deal}/receipt").json()["log"] is None
        checkpoint, entries = tiles_of_log(client)
        assert (checkpoint.size, entries) == (0, [])
        assert asyncio.run(store.pooled(100, sweep=True)) == []
        assert asyncio.run(store.logs_due(2**62, 10)) == []


@pytest.mark.parametrize(
    "spelling",
    ["/log/tile//entries/000.p/1", "/log/tile/entries/000.p/1/", "/log/tile/entries%2F000.p%2F1"],
)
def test_a_tile_is_served_under_its_one_spelling_only(
    logged: TestClient[Litestar], spelling: str
) -> None:
    """An immutable answer cached under another path would be a second name for it."""
    logged_receipt(logged, finished_deal(logged))
    assert logged.get("/log/tile/entries/000.p/1").status_code == 200
    answer = logged.get(spelling)
    assert answer.status_code == 404
    assert answer.json()["code"] == "unknown-tile"
    assert "a tile path has one spelling: /log/tile/entries/000.p/1" in answer.json()["detail"]


def test_a_leaf_hash_not_in_its_form_says_what_the_form_is(logged: TestClient[Litestar]) -> None:
    for leaf in ("A" * 64, "g" * 64):
        answer = logged.get(f"/log/proof/{leaf}")
        assert answer.status_code == 400
        assert answer.json()["field"] == "leaf"
        assert "64 lower-case hex digits" in answer.json()["detail"]
    assert logged.get(f"/log/proof/{'0' * 64}").json()["code"] == "not-in-log"
