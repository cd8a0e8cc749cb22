"""``cardproof verify RECEIPT``: every claim of a receipt, against an operator who lies.

The operator holds the signing key, so every forged receipt here is validly signed
(``TEST_KEYS``, the served app's keys) and replays on the deck it names. What gives it
away is that the deck, the game or the issuer is not the one the receipt claims:

- a tournament receipt dealt on another client seed than the tournament's salt (a deck
  the operator chose among thousands of client seeds for a friend);
- one on the tournament's deck with other options than the tournament's;
- one on the right deck for a game the standings never counted;
- a receipt naming another issuer than the server whose keys verified it;
- a committed deal's receipt re-signed on another client seed than the deal's;
- a receipt dated after its key's retirement (a leaked retired key).

Each was accepted (exit 0, "the deck, log and score check out") before the check that
now refuses it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from cardproof.client import Client
from cardproof.games import PokerSquares, variant
from cardproof.receipts import JWKS, ReceiptPayload, decode_receipt
from cardproof_service.deals.receipts import receipt_payload
from conftest import TEST_KEYS, served
from test_tournament_cli import cardproof

CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A served app, a one-round tournament Ada played, closed: what the tests need."""
    folder = tmp_path_factory.mktemp("claims")
    env = {"CARDPROOF_ORGANIZERS_FILE": str(folder / "organizers.json"), "REDIS_URL": ""}
    made = subprocess.run(
        [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create", "Club"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    with served("--log-level", "warning", env=env) as url:
        closes = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        with Client(base_url=url, api_key=key) as organizer:
            tournament = organizer.create_tournament(
                "Claims",
                "poker-squares",
                rounds=1,
                opens_at=datetime.now(UTC),
                closes_at=closes,
                options={"scoring": "british"},
            )
        tid = tournament.tournament.tournament_id
        with Client(base_url=url) as player:
            token = player.enter(tid, "Ada").token
            game = player.play_round(tid, 1, token)
            with Client(base_url=url, api_key=key) as organizer:
                organizer.start_round(tid, 1)  # a lockstep round: Ada's is its only seat
            for cell in CELLS:
                game.play(cell)
            receipt = game.receipt().receipt
            committed = player.deal("poker-squares", client_seed="mine")
            for cell in CELLS:
                committed.play(cell)
            deal_receipt = committed.receipt().receipt
        with Client(base_url=url, api_key=key) as organizer:
            organizer.close_tournament(tid)
            shown = organizer.tournament(tid)
        seed = shown.rounds[0].server_seed
        assert seed is not None
        yield {
            "url": url,
            "key": key,
            "tournament": tid,
            "salt": shown.salt,
            "seed": seed,
            "receipt": receipt,
            "deal_receipt": deal_receipt,
            "folder": str(folder),
        }


def forge(
    claims: dict[str, str],
    *,
    client_seed: str,
    options: dict[str, object] | None = None,
    moves: list[str] = CELLS,
    **fields: object,
) -> Path:
    """A tournament receipt for Ada's round-1 game, signed by the operator's real key.

    It replays: the log is played on the deck its seeds give. ``fields`` replace more.
    """
    seed = bytes.fromhex(claims["seed"])
    cls = PokerSquares
    parsed = cls.parse_options(options if options is not None else {"scoring": "british"})
    game = cls.new(cls.deal_cards(seed, client_seed, parsed), parsed)
    for cell in moves:
        game.play(cls.parse_move(cell))
    original = decode_receipt(claims["receipt"])[1]
    payload = receipt_payload(
        game,
        seed,
        client_seed,
        deal_id=original.deal_id,
        kind="tournament",
        blind=True,
        committed=True,
        issued_at=original.issued_at,  # inside the tournament's life
        issuer=claims["url"],
        player="Ada",
        tournament=claims["tournament"],
    )
    payload = msgspec.structs.replace(payload, **fields)
    path = Path(claims["folder"]) / f"forged-{abs(hash((client_seed, str(fields))))}.jws"
    path.write_text(TEST_KEYS.signing.sign(payload))
    return path


def refused(path: Path, url: str, code: str) -> str:
    """``verify`` refuses the receipt at ``path`` with ``code``; its output."""
    result = cardproof("verify", str(path), "--url", url)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"NOT VERIFIED ({code})" in result.stdout, result.stdout
    return result.stdout


def test_the_honest_receipts_verify_with_every_claim(closed: dict[str, str]) -> None:
    path = Path(closed["folder"]) / "ada.jws"
    path.write_text(closed["receipt"])
    result = cardproof("verify", str(path), "--url", closed["url"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the tournament's salt as client seed" in result.stdout
    assert "the closed tournament's standings count it: Ada, round 1" in result.stdout
    assert f"issued by {closed['url']}" in result.stdout
    deal = Path(closed["folder"]) / "deal.jws"
    deal.write_text(closed["deal_receipt"])
    kept = cardproof("verify", str(deal), "--url", closed["url"])
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "same seeds, variant, options and log" in kept.stdout


def test_a_tournament_receipt_on_another_client_seed_is_refused(closed: dict[str, str]) -> None:
    """The issue's attack: a deck picked among many client seeds, signed for a friend."""
    cls = variant("poker-squares")
    options = cls.parse_options({"scoring": "british"})
    seed = bytes.fromhex(closed["seed"])

    def rows_score(client_seed: str) -> int:
        game = cls.new(cls.deal_cards(seed, client_seed, options), options)
        for cell in CELLS:
            game.play(cls.parse_move(cell))
        return game.score().total

    target = rows_score(closed["salt"])  # a better deck than the round's, however lucky it was
    chosen = next(f"pick-{n}" for n in range(200_000) if rows_score(f"pick-{n}") > target)
    out = refused(forge(closed, client_seed=chosen), closed["url"], "mismatch")
    assert "client_seed" in out


def test_a_tournament_receipt_with_other_options_is_refused(closed: dict[str, str]) -> None:
    path = forge(closed, client_seed=closed["salt"], options={"scoring": "american"})
    assert "options" in refused(path, closed["url"], "mismatch")


def test_a_game_the_standings_never_counted_is_refused(closed: dict[str, str]) -> None:
    honest = decode_receipt(closed["receipt"])[1]
    for shift in range(1, 25):  # another placement of the same cards, scoring otherwise
        path = forge(closed, client_seed=closed["salt"], moves=CELLS[shift:] + CELLS[:shift])
        if decode_receipt(path.read_text())[1].score.total != honest.score.total:
            break
    else:
        raise AssertionError("every placement scores the same")
    refused(path, closed["url"], "not-in-standings")


def test_a_receipt_naming_another_issuer_is_refused(closed: dict[str, str]) -> None:
    path = forge(closed, client_seed=closed["salt"], iss="https://cards.example")
    out = refused(path, closed["url"], "iss-mismatch")
    assert "--url https://cards.example" in out


def test_a_deal_receipt_on_another_client_seed_than_the_deal_is_refused(
    closed: dict[str, str],
) -> None:
    honest: ReceiptPayload = decode_receipt(closed["deal_receipt"])[1]
    assert honest.server_seed is not None
    seed = bytes.fromhex(honest.server_seed)
    cls = PokerSquares
    options = cls.parse_options(honest.options)
    game = cls.new(cls.deal_cards(seed, "not mine", options), options)
    for cell in CELLS:
        game.play(cls.parse_move(cell))
    payload = receipt_payload(
        game,
        seed,
        "not mine",
        deal_id=honest.deal_id,
        kind="committed-blind",
        blind=True,
        committed=True,
        issued_at=honest.issued_at,
        issuer=closed["url"],
    )
    path = Path(closed["folder"]) / "other-deal.jws"
    path.write_text(TEST_KEYS.signing.sign(payload))
    assert "client_seed" in refused(path, closed["url"], "mismatch")


def test_a_receipt_dated_after_its_key_retired_is_refused(closed: dict[str, str]) -> None:
    honest = decode_receipt(closed["deal_receipt"])[1]
    retired = msgspec.structs.replace(TEST_KEYS.signing.jwk(), exp=honest.issued - 1)
    keys = Path(closed["folder"]) / "retired.json"
    keys.write_text(json.dumps(msgspec.to_builtins(JWKS(keys=[retired]))))
    path = Path(closed["folder"]) / "deal.jws"
    path.write_text(closed["deal_receipt"])
    result = cardproof("verify", str(path), "--jwks", str(keys))
    assert result.returncode == 1
    assert "NOT VERIFIED (key-not-valid)" in result.stdout


def test_an_export_with_a_receipt_on_another_client_seed_is_refused(
    closed: dict[str, str],
) -> None:
    """The export's receipt is re-signed on a deck whose same log scores the same total.

    The log, the total and the standings all add up: only the receipt's client seed,
    not the tournament's salt, gives it away.
    """
    with Client(base_url=closed["url"], api_key=closed["key"]) as organizer:
        export = organizer.export_tournament(closed["tournament"])
    game = export.games[0]
    honest = decode_receipt(game.receipt)[1]
    seed = bytes.fromhex(closed["seed"])
    options = PokerSquares.parse_options(honest.options)

    def replayed(client_seed: str) -> Any:
        played = PokerSquares.new(PokerSquares.deal_cards(seed, client_seed, options), options)
        for move in game.moves.split():
            played.play(PokerSquares.parse_move(move))
        return played

    twin = next(  # a rare total (one deal in thousands) takes more tries: 0.05 ms each
        f"twin-{n}" for n in range(500_000) if replayed(f"twin-{n}").score().total == game.total
    )
    forged = receipt_payload(
        replayed(twin),
        seed,
        twin,
        deal_id=honest.deal_id,
        kind="tournament",
        blind=True,
        committed=True,
        issued_at=honest.issued_at,
        issuer=closed["url"],
        player=honest.player,
        tournament=closed["tournament"],
    )
    export.games[0] = msgspec.structs.replace(game, receipt=TEST_KEYS.signing.sign(forged))
    path = Path(closed["folder"]) / "export.json"
    path.write_bytes(msgspec.json.encode(export))
    result = cardproof("verify", "--tournament", str(path), "--url", closed["url"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "the receipt is for another game" in result.stdout


def test_a_receipt_answer_whose_payload_is_not_the_tokens_is_refused(
    closed: dict[str, str],
) -> None:
    """The receipt endpoint's JSON, its ``payload`` edited to show a better score."""
    payload = msgspec.to_builtins(decode_receipt(closed["deal_receipt"])[1])
    payload["score"]["total"] += 50
    path = Path(closed["folder"]) / "answer.json"
    path.write_text(json.dumps({"receipt": closed["deal_receipt"], "payload": payload}))
    refused(path, closed["url"], "payload-mismatch")
    honest = {
        "receipt": closed["deal_receipt"],
        "payload": decode_receipt(closed["deal_receipt"])[1],
    }
    path.write_bytes(msgspec.json.encode(honest))
    assert cardproof("verify", str(path), "--url", closed["url"]).returncode == 0


def test_without_a_server_the_receipt_names_its_issuer_as_a_hint(
    closed: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --url: the default server is down; the CLI says who the receipt claims, trusts nobody."""
    from cardproof import cli
    from cardproof.cli import verify
    from conftest import free_port

    monkeypatch.delenv("CARDPROOF_URL", raising=False)
    monkeypatch.setattr(verify, "DEFAULT_BASE_URL", f"http://127.0.0.1:{free_port()}")
    path = Path(closed["folder"]) / "hint.jws"
    path.write_text(closed["deal_receipt"])
    assert cli.main(["verify", str(path)]) == 2
    said = capsys.readouterr().err
    assert f"issued by {closed['url']}: if you trust that service" in said
    assert f"--url {closed['url']}" in said
