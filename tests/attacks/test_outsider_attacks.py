"""Attacks found by an outsider working from the README, docs/protocol.md and a running server.

Each test reproduces an attack that worked when it was found, and asserts what the
documents promise instead:

- a lying operator, holding the signing key (and the master key), re-signs what it likes,
  and ``cardproof verify --url`` (or ``--tournament FILE --url``) must still refuse it
  where the service's own records (the deal, the tournament, its standings) say otherwise;
- anyone may edit an export file: its unsigned fields must agree with its receipts, and
  with ``--url``, with the server;
- the ``/verify`` page and the README's JWT recipes must refuse what the SDK's
  ``verify_receipt`` refuses.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from litestar.testing import TestClient

from cardproof import ReceiptError, verify_receipt
from cardproof_service import Settings, create_app
from conftest import SERVER_KEYS, TEST_KEYS, UNLIMITED, served
from test_jose_libraries import (  # the README's JWT blocks, run as they are written
    ISSUER,
    JS_BLOCKS,
    OUTSIDERS,
    PYTHON_BLOCKS,
    run_js,
    run_python,
)

SNAKE = "a1 b1 c1 d1 e1 e2 d2 c2 b2 a2 a3 b3 c3 d3 e3 e4 d4 c4 b4 a4 a5 b5 c5 d5 e5"
"""A serpent path through every cell (also a legal poker-squares log)."""
MASTER = bytes.fromhex(SERVER_KEYS["CARDPROOF_MASTER_KEY"])
SIGNER = Ed25519PrivateKey.from_private_bytes(bytes(32))
"""The served test server's signing key (seed of 32 zero bytes): the operator's."""


def b64(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def kid_of(key: Ed25519PrivateKey) -> str:
    """The RFC 7638 thumbprint of the key's public half."""
    x = b64(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
    member = '{"crv":"Ed25519","kty":"OKP","x":"' + x + '"}'
    return b64(hashlib.sha256(member.encode()).digest())


def sign(payload: dict[str, Any], key: Ed25519PrivateKey = SIGNER) -> str:
    """A receipt token for ``payload``, signed as the service signs (the operator's lie)."""
    header = {"alg": "Ed25519", "kid": kid_of(key), "typ": "cardproof-receipt+jwt"}
    signing_input = ".".join(
        b64(json.dumps(part, separators=(",", ":"), ensure_ascii=False).encode())
        for part in (header, payload)
    )
    return f"{signing_input}.{b64(key.sign(signing_input.encode()))}"


def payload_of(token: str) -> dict[str, Any]:
    """The decoded payload of a token."""
    part = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    return decoded


def round_seed(tournament_id: str, round_: int) -> bytes:
    """A round's server seed, as the operator (holding the master key) derives it."""
    message = b"cardproof-server-seed\0" + f"{tournament_id}:round-{round_}".encode()
    return hmac.digest(MASTER, message, "sha256")


def cardproof(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the ``cardproof`` command line."""
    command = [str(Path(sys.executable).parent / "cardproof"), *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})}
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A served memory-store server and an organizer key it knows: ``(url, key)``."""
    env = {
        "CARDPROOF_ORGANIZERS_FILE": str(tmp_path_factory.mktemp("store") / "organizers.json"),
        "REDIS_URL": "",
    }
    made = cardproof("keys", "organizer", "create", "Outsider Club", env=env)
    assert made.returncode == 0, made.stderr
    with served("--log-level", "warning", env=env) as url:
        yield url, made.stdout.strip()


def verify_file(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``cardproof verify FILE ARGS...`` on ``text`` written to a file."""
    path = tmp_path / "receipt.jws"
    path.write_text(text)
    return cardproof("verify", str(path), *args)


def played_game(url: str, *, committed: bool) -> dict[str, Any]:
    """A poker-squares game (committed, or casual) played to its end: its receipt answer."""
    with httpx.Client(base_url=url, timeout=30) as http:
        body = {"variant": "poker-squares", "client_seed": "mine"}
        if committed:
            body["commitment_id"] = http.post("/v1/commitments", json={}).json()["commitment_id"]
        deal = http.post("/v1/deals", json=body)
        assert deal.status_code == 201, deal.text
        deal_id = deal.json()["deal_id"]
        for index, cell in enumerate(SNAKE.split()):
            moved = http.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
            assert moved.status_code == 200, moved.text
        receipt: dict[str, Any] = http.get(f"/v1/deals/{deal_id}/receipt").json()
    assert receipt["payload"]["kind"] == ("committed-blind" if committed else "casual")
    return receipt


def practice_payload(
    url: str, server_seed: bytes, client_seed: str, variant: str
) -> dict[str, Any]:
    """The payload of a practice receipt of SNAKE on a seed pair (the score, computed)."""
    body = {
        "variant": variant,
        "deal": {"server_seed": server_seed.hex(), "client_seed": client_seed},
        "moves": SNAKE,
    }
    answer = httpx.post(f"{url}/v1/verify", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    payload: dict[str, Any] = answer.json()["payload"]
    return payload


def test_a_casual_deal_re_signed_as_committed_is_refused(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A casual game relabelled ``committed-blind``: the service's deal record says casual.

    ``GET /v1/deals/{id}`` answers ``committed_before_client_seed: false`` for it, yet
    ``cardproof verify --url`` reported "same seeds, variant, options and log" and exit 0:
    the flag the kind rests on was never compared with the record.
    """
    url, _ = server
    payload = played_game(url, committed=False)["payload"]
    payload.update(kind="committed-blind", committed_before_client_seed=True, blind=True)
    checked = verify_file(tmp_path, sign(payload), "--url", url)
    assert checked.returncode == 1, checked.stdout


def test_a_committed_receipt_without_a_deal_is_refused(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A ``committed-blind`` receipt with ``deal_id: null``, on seeds the operator picked.

    Every committed deal has an id the service keeps; with none there is nothing to check
    the commitment against, so the deck may have been searched among many client seeds
    (the practice case), yet it verified with exit 0.
    """
    url, _ = server
    payload = practice_payload(url, bytes(range(32)), "searched seed 1234", "poker-squares")
    payload.update(kind="committed-blind", committed_before_client_seed=True, blind=True)
    assert payload["deal_id"] is None
    checked = verify_file(tmp_path, sign(payload), "--url", url)
    assert checked.returncode == 1, checked.stdout


def open_serpent_tournament(url: str, key: str, *names: str) -> dict[str, Any]:
    """A public async serpent-patience tournament with these entrants: its record."""
    now = datetime.now(UTC)
    body = {
        "name": "Outsiders",
        "variant": "serpent-patience",
        "rounds": 1,
        "opens_at": now.isoformat(),
        "closes_at": (now + timedelta(days=1)).isoformat(),
        "entry": "public",
    }
    with httpx.Client(base_url=url, timeout=30) as http:
        made = http.post("/v1/tournaments", json=body, headers={"Authorization": f"Bearer {key}"})
        assert made.status_code == 201, made.text
        tournament: dict[str, Any] = made.json()["tournament"]
        for name in names:
            entered = http.post(
                f"/v1/tournaments/{tournament['tournament_id']}/entries", json={"name": name}
            )
            assert entered.status_code == 201, entered.text
            tournament.setdefault("tokens", {})[name] = entered.json()["token"]
    return tournament


def tournament_receipt_on(
    url: str, tid: str, seed: bytes, *, salt: str = "a salt", player: str = "Mallory"
) -> str:
    """A tournament receipt for ``tid``'s round 1 on ``seed``, never played, signed."""
    payload = practice_payload(url, seed, salt, "serpent-patience")
    payload.update(
        kind="tournament",
        tournament=tid,
        player=player,
        deal_id="d_NEVERPLAYEDxxxxxxxxxxx",
        committed_before_client_seed=True,
        blind=True,
    )
    return sign(payload)


def forged_round_receipt(url: str, tournament: dict[str, Any], player: str) -> str:
    """A tournament receipt of round 1 for ``player``, on the round's real seed and salt."""
    tid = tournament["tournament_id"]
    seed = round_seed(tid, 1)
    assert hashlib.sha256(seed).hexdigest() == tournament["rounds"][0]["server_seed_hash"]
    return tournament_receipt_on(url, tid, seed, salt=tournament["salt"], player=player)


def test_a_receipt_revealing_an_open_tournaments_seed_is_not_verified(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """An open tournament's receipt that carries the round's seed, for a non-entrant.

    The tournament has not revealed the seed and has no entrant of that name, yet
    ``cardproof verify --url`` printed "verified" (exit 0), saying the seed was "revealed
    by the closed tournament": the standings check runs only after a close, so a game
    never played passed. Until the tournament reveals the seed, the best it may say is
    exit 3 (signature only); a player it does not know is exit 1.
    """
    url, key = server
    tournament = open_serpent_tournament(url, key, "Ada")
    token = forged_round_receipt(url, tournament, "Mallory")
    checked = verify_file(tmp_path, token, "--url", url)
    assert checked.returncode != 0, checked.stdout
    assert "revealed by the closed tournament" not in checked.stdout


def test_a_receipt_of_a_tournament_that_never_existed_is_refused(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A ``tournament`` receipt naming a tournament id the service does not know.

    Its seed was picked by the operator and committed to nowhere; the service answers
    404 for the tournament, yet ``cardproof verify --url`` printed "verified" (exit 0)
    after "cannot read the tournament's seeds".
    """
    url, _ = server
    token = tournament_receipt_on(url, "t_00000000000000000000", bytes([9]) * 32)
    checked = verify_file(tmp_path, token, "--url", url)
    assert checked.returncode == 1, checked.stdout


def test_a_receipt_of_an_unreadable_invite_only_tournament_is_not_verified(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A receipt of a closed invite-only tournament, checked without its invite code.

    The tournament's seeds cannot be read (401), so the deck was compared with no
    commitment ("only the signature was checked", says the output), yet the first line
    was "verified" and the exit status 0, which the README keeps for a receipt replayed
    and verified (3 is "only the signature could be checked").
    """
    url, key = server
    now = datetime.now(UTC)
    body = {
        "name": "Invited",
        "variant": "serpent-patience",
        "rounds": 1,
        "opens_at": now.isoformat(),
        "closes_at": (now + timedelta(days=1)).isoformat(),
        "entry": "invite",
    }
    organizer = {"Authorization": f"Bearer {key}"}
    made = httpx.post(f"{url}/v1/tournaments", json=body, headers=organizer, timeout=30)
    assert made.status_code == 201, made.text
    tid = made.json()["tournament"]["tournament_id"]
    closed = httpx.post(f"{url}/v1/tournaments/{tid}/close", json={}, headers=organizer)
    assert closed.status_code == 200, closed.text
    token = tournament_receipt_on(url, tid, bytes([9]) * 32)  # not the round's seed
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDPROOF_")}
    path = tmp_path / "receipt.jws"
    path.write_text(token)
    checked = subprocess.run(
        [str(Path(sys.executable).parent / "cardproof"), "verify", str(path), "--url", url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert checked.returncode != 0, checked.stdout


def test_a_receipt_for_a_non_entrant_of_a_closed_tournament_is_refused_cleanly(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """After the close, a receipt naming a player who never entered.

    It was refused, but by a traceback (``NotFoundError`` out of the standings check)
    rather than ``NOT VERIFIED (not-in-standings)``: exit 1 by accident, no reason given.
    """
    url, key = server
    tournament = open_serpent_tournament(url, key, "Ada")
    token = forged_round_receipt(url, tournament, "Mallory")
    closed = httpx.post(
        f"{url}/v1/tournaments/{tournament['tournament_id']}/close",
        json={},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert closed.status_code == 200, closed.text
    checked = verify_file(tmp_path, token, "--url", url)
    assert checked.returncode == 1, checked.stdout
    assert "Traceback" not in checked.stderr, checked.stderr
    assert "NOT VERIFIED" in checked.stdout


def closed_export(url: str, key: str) -> dict[str, Any]:
    """A closed serpent tournament's export: one game, Ada's, played honestly."""
    tournament = open_serpent_tournament(url, key, "Ada")
    tid = tournament["tournament_id"]
    headers = {"Authorization": f"Bearer {tournament['tokens']['Ada']}"}
    with httpx.Client(base_url=url, timeout=60) as http:
        deal = http.post(f"/v1/tournaments/{tid}/rounds/1/deal", json={}, headers=headers)
        assert deal.status_code == 201, deal.text
        body = {
            "variant": "serpent-patience",
            "deal": {"deal_id": deal.json()["deal_id"]},
            "moves": SNAKE,
        }
        played = http.post("/v1/verify", json=body, headers=headers)
        assert played.status_code == 200, played.text
        closed = http.post(
            f"/v1/tournaments/{tid}/close", json={}, headers={"Authorization": f"Bearer {key}"}
        )
        assert closed.status_code == 200, closed.text
        exported = http.get(f"/v1/tournaments/{tid}/export")
        assert exported.status_code == 200, exported.text
    export: dict[str, Any] = exported.json()
    return export


def verify_export_file(url: str, export: dict[str, Any], tmp_path: Path) -> int:
    """``cardproof verify --tournament FILE --url URL``: its exit status."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    checked = cardproof("verify", "--tournament", str(path), "--url", url)
    return checked.returncode


def test_an_export_with_a_game_never_played_is_refused_against_the_server(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A closed tournament's export, with a re-signed game for someone who never entered.

    ``cardproof verify --tournament FILE --url URL`` checked the receipts against the
    server's keys only: an operator's export adding a game (and a standings line) that
    the server's own standings do not have printed "verified" with exit 0.
    """
    url, key = server
    export = closed_export(url, key)
    assert verify_export_file(url, export, tmp_path) == 0
    forged = copy.deepcopy(export)
    game = copy.deepcopy(export["games"][0])
    payload = payload_of(game["receipt"])
    payload.update(player="Mallory", deal_id="d_NEVERPLAYEDxxxxxxxxxxx")
    game.update(player="Mallory", deal_id=payload["deal_id"], receipt=sign(payload))
    forged["games"].append(game)
    total = game["total"]
    forged["standings"] = [
        {"rank": 1, "name": "Ada", "total": total, "games_finished": 1},
        {"rank": 1, "name": "Mallory", "total": total, "games_finished": 1},
    ]
    assert verify_export_file(url, forged, tmp_path) == 1


def test_an_export_with_a_game_left_out_is_refused_against_the_server(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """An export with Ada's finished game removed: no key is needed for this one.

    A round not finished counts the worst score, so the edited file adds up (Ada 0, no
    game) and ``cardproof verify --tournament FILE --url URL`` printed "verified" (exit
    0), while the server's standings give Ada her game's total.
    """
    url, key = server
    export = closed_export(url, key)
    assert export["games"][0]["total"] > 0
    forged = copy.deepcopy(export)
    forged["games"] = []
    forged["standings"] = [{"rank": 1, "name": "Ada", "total": 0, "games_finished": 0}]
    assert verify_export_file(url, forged, tmp_path) == 1


def test_an_export_on_a_round_seed_never_committed_is_refused_against_the_server(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """An export whose round seed (and hash) is not the one the tournament published.

    The server's ``GET /v1/tournaments/{id}`` keeps the hash committed at creation; an
    operator's export on another seed (a deck it chose), every game re-signed and
    re-scored on it, verified with ``--url`` (exit 0).
    """
    url, key = server
    export = closed_export(url, key)
    forged = copy.deepcopy(export)
    seed = bytes([5]) * 32
    seed_hash = hashlib.sha256(seed).hexdigest()
    forged["tournament"]["rounds"][0].update(server_seed=seed.hex(), server_seed_hash=seed_hash)
    for game in forged["games"]:
        payload = payload_of(game["receipt"])
        rescored = practice_payload(url, seed, payload["client_seed"], "serpent-patience")
        payload.update(server_seed=seed.hex(), server_seed_hash=seed_hash, score=rescored["score"])
        game.update(receipt=sign(payload), total=rescored["score"]["total"])
    forged["standings"] = [
        {"rank": 1, "name": game["player"], "total": game["total"], "games_finished": 1}
        for game in forged["games"]
    ]
    assert verify_export_file(url, forged, tmp_path) == 1


@pytest.mark.parametrize(
    ("part", "field", "value"),
    [
        ("game", "deal_id", "d_SOMEONEELSExxxxxxxxxxx"),
        ("game", "finished_at", "2020-01-01T00:00:00Z"),
        ("tournament", "variant", "poker-squares"),
    ],
)
def test_an_export_whose_fields_disagree_with_its_receipts_is_refused(
    server: tuple[str, str], tmp_path: Path, part: str, field: str, value: str
) -> None:
    """One unsigned field of an honest export edited (no key needed for this).

    The game's ``deal_id`` is not its receipt's, its ``finished_at`` is years before the
    tournament (its receipt says otherwise), or the tournament says it dealt
    ``poker-squares`` while every receipt is ``serpent-patience``: each verified (exit 0),
    so the file reads as something other than what its receipts sign.
    """
    url, key = server
    export = closed_export(url, key)
    forged = copy.deepcopy(export)
    target = forged["games"][0] if part == "game" else forged["tournament"]
    assert target[field] != value
    target[field] = value
    assert verify_export_file(url, forged, tmp_path) == 1


def test_a_tournament_game_re_signed_as_a_private_committed_deal_is_refused(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A tournament game relabelled ``committed-open``, its tournament and player removed.

    The round's deck was shared by every entrant (and seen first by whoever played it
    first), not committed to this player alone; the service refuses to show the deal
    without an entrant's token (401), which says it is a tournament game, yet
    ``cardproof verify --url`` printed "verified" (exit 0) after "could not be read".
    """
    url, key = server
    export = closed_export(url, key)
    payload = payload_of(export["games"][0]["receipt"])
    assert payload["kind"] == "tournament"
    assert payload["server_seed"] is not None
    payload.update(kind="committed-open", tournament=None, player=None, auto_placed=None)
    checked = verify_file(tmp_path, sign(payload), "--url", url)
    assert checked.returncode == 1, checked.stdout


def test_a_tournament_receipt_naming_the_player_otherwise_is_refused(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """Ada's game re-signed for ``"ADA"``: a name no entrant has, byte for byte.

    The standings' ``?player=`` lookup matches names as entry compares them (case,
    look-alikes), so the check said "the closed tournament's standings count it: ADA"
    and verified; the standings answer names the entrant ``Ada``, and the receipt's
    player must be that name exactly.
    """
    url, key = server
    export = closed_export(url, key)
    payload = payload_of(export["games"][0]["receipt"])
    assert payload["player"] == "Ada"
    payload["player"] = "ADA"
    checked = verify_file(tmp_path, sign(payload), "--url", url)
    assert checked.returncode == 1, checked.stdout


def test_a_receipt_dated_in_the_future_is_refused(server: tuple[str, str], tmp_path: Path) -> None:
    """An honest game re-signed with ``iat`` (and ``issued_at``) five years ahead.

    No game ends in the future; the current key has no ``exp`` to stop it, and the deal
    record was compared ("same seeds, variant, options and log") and it verified.
    """
    url, _ = server
    payload = played_game(url, committed=True)["payload"]
    later = int((datetime.now(UTC) + timedelta(days=5 * 365)).timestamp())
    payload.update(iat=later, issued_at=later)
    checked = verify_file(tmp_path, sign(payload), "--url", url)
    assert checked.returncode == 1, checked.stdout


def test_a_tournament_receipt_dated_before_its_tournament_existed_is_refused(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """A closed tournament's game re-signed with a date 30 days before its creation.

    ``GET /v1/tournaments/{id}`` gives ``created_at`` and ``opens_at``; the game cannot
    have ended before them, yet ``cardproof verify --url`` checked the standings and
    printed "verified" (exit 0).
    """
    url, key = server
    export = closed_export(url, key)
    payload = payload_of(export["games"][0]["receipt"])
    earlier = payload["iat"] - 30 * 86_400
    payload.update(iat=earlier, issued_at=earlier)
    checked = verify_file(tmp_path, sign(payload), "--url", url)
    assert checked.returncode == 1, checked.stdout


# --- The README's JWT recipes ("Receipts with standard JWT libraries") ---------------------

TEST_SIGNER = Ed25519PrivateKey.from_private_bytes(bytes(32))
"""TEST_KEYS' signing key (the in-process apps'), to sign what the operator likes."""


@pytest.fixture(scope="module")
def signed() -> dict[str, Any]:
    """A committed game's receipt and the key set, from an in-process app issuing as ISSUER."""
    app = create_app(
        Settings(warm_up=False, **UNLIMITED), keys=dataclasses.replace(TEST_KEYS, issuer=ISSUER)
    )
    with TestClient(app) as http:
        commitment = http.post("/v1/commitments", json={}).json()["commitment_id"]
        body = {
            "variant": "poker-squares",
            "commitment_id": commitment,
            "client_seed": "a seed of mine",
        }
        deal_id = http.post("/v1/deals", json=body).json()["deal_id"]
        for index, cell in enumerate(SNAKE.split()):
            moved = http.post(f"/v1/deals/{deal_id}/moves", json={"index": index, "move": cell})
            assert moved.status_code == 200, moved.text
        token = http.get(f"/v1/deals/{deal_id}/receipt").json()["receipt"]
        jwks = http.get("/.well-known/jwks.json").json()
    return {"token": token, "jwks": jwks}


def re_spelled(token: str) -> dict[str, str]:
    """Other spellings of one honest token: anyone holding the receipt can make them.

    The protocol reads base64url strictly so that a receipt has exactly one spelling
    (docs/protocol.md section 1); ``verify_receipt`` refuses both as ``malformed``.
    """
    head, body, signature = token.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    stray = alphabet[alphabet.index(signature[-1]) ^ 1]  # a low bit the 64 bytes do not use
    return {
        "padded signature": f"{head}.{body}.{signature}==",
        "stray bits in the signature": f"{head}.{body}.{signature[:-1]}{stray}",
    }


def lies(token: str) -> dict[str, str]:
    """Receipts the key's holder signed that the SDK refuses (docs/protocol.md 4.1, 4.3)."""
    payload = payload_of(token)
    kid = kid_of(TEST_SIGNER)
    header = {"alg": "Ed25519", "kid": kid, "typ": "application/cardproof-receipt+jwt"}
    other_date = dict(payload, iat=payload["iat"] - 86_400)  # iat a day before issued_at

    def signed_with(head: dict[str, Any], body: dict[str, Any]) -> str:
        signing_input = ".".join(
            b64(json.dumps(part, separators=(",", ":")).encode()) for part in (head, body)
        )
        return f"{signing_input}.{b64(TEST_SIGNER.sign(signing_input.encode()))}"

    typ = {"alg": "Ed25519", "kid": kid, "typ": "cardproof-receipt+jwt"}
    return {
        "iat is not issued_at": signed_with(typ, other_date),
        "typ as a media type": signed_with(header, payload),
    }


def refused_by_sdk(token: str, jwks: dict[str, Any]) -> bool:
    """Whether ``verify_receipt`` refuses the token."""
    try:
        verify_receipt(token, jwks)
    except ReceiptError:
        return True
    return False


@pytest.mark.parametrize("library", ["PyJWT", "joserfc"])
def test_the_python_recipes_refuse_what_the_sdk_refuses(
    signed: dict[str, Any], library: str
) -> None:
    """Each README block must refuse a re-spelled receipt and the key holder's lies.

    PyJWT accepted a signature with ``==`` appended (a second spelling of an honest
    receipt), and both accepted a receipt whose ``iat`` (the date they check against the
    key's period) is not its ``issued_at``, which the SDK calls malformed.
    """
    block = PYTHON_BLOCKS[0 if library == "PyJWT" else 1]
    token, jwks = signed["token"], signed["jwks"]
    assert run_python(block, token, jwks, ISSUER).returncode == 0
    accepted = []
    for case, bad in {**re_spelled(token), **lies(token)}.items():
        assert refused_by_sdk(bad, jwks), case
        if run_python(block, bad, jwks, ISSUER).returncode == 0:
            accepted.append(case)
    assert accepted == [], f"{library} accepted: {accepted}"


def test_the_jose_recipe_refuses_what_the_sdk_refuses(
    signed: dict[str, Any], tmp_path: Path
) -> None:
    """The README's jose block must refuse a re-spelled receipt and the key holder's lies.

    jose accepted a padded signature and one with stray low bits (two more spellings of
    one honest receipt), ``typ: application/cardproof-receipt+jwt`` (jose compares media
    types loosely; the protocol refuses it) and an ``iat`` that is not ``issued_at``.
    """
    assert (OUTSIDERS / "node_modules" / "jose").is_dir(), "npm ci in tests/outsiders"
    token, jwks = signed["token"], signed["jwks"]
    assert run_js(JS_BLOCKS[0], token, jwks, ISSUER, tmp_path).returncode == 0
    accepted = []
    for case, bad in {**re_spelled(token), **lies(token)}.items():
        assert refused_by_sdk(bad, jwks), case
        if run_js(JS_BLOCKS[0], bad, jwks, ISSUER, tmp_path).returncode == 0:
            accepted.append(case)
    assert accepted == [], f"jose accepted: {accepted}"


# --- The /verify page ------------------------------------------------------------------------


def test_the_verify_page_refuses_what_the_sdk_refuses(
    server: tuple[str, str], tmp_path: Path
) -> None:
    """The key holder's receipts that ``verify_receipt`` or ``cardproof verify`` refuse.

    ``/verify`` ("like the SDK") said "Verified" for a header with ``crit`` (protocol
    section 4.1: refused, ``malformed``), for ``iat``/``issued_at`` written as numbers
    with a fraction (section 4.3.1: not JSON integers, ``malformed``) and for a receipt
    naming another issuer than the server whose key set it checked (``cardproof verify``:
    ``iss-mismatch``), showing "issued by https://cards.other.example".
    """
    from playwright.sync_api import expect, sync_playwright

    from conftest import CHROMIUM_ARGS, chromium_or_skip

    url, _ = server
    honest = played_game(url, committed=True)
    payload = honest["payload"]
    jwks = httpx.get(f"{url}/.well-known/jwks.json", timeout=30).json()
    kid = kid_of(SIGNER)

    def signed_with(head: dict[str, Any], body: dict[str, Any]) -> str:
        signing_input = ".".join(
            b64(json.dumps(part, separators=(",", ":")).encode()) for part in (head, body)
        )
        return f"{signing_input}.{b64(SIGNER.sign(signing_input.encode()))}"

    typ = {"alg": "Ed25519", "kid": kid, "typ": "cardproof-receipt+jwt"}
    bad = {
        "crit": signed_with({**typ, "crit": ["exp"]}, payload),
        "fractional dates": signed_with(
            typ, dict(payload, iat=payload["iat"] + 0.5, issued_at=payload["issued_at"] + 0.5)
        ),
        "another issuer": signed_with(typ, dict(payload, iss="https://cards.other.example")),
    }
    for case, token in bad.items():
        if case != "another issuer":
            with pytest.raises(ReceiptError):
                verify_receipt(token, jwks)
    shown = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_or_skip(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(f"{url}/verify")
        area = page.get_by_label("Receipt", exact=True)
        status = page.get_by_role("status")
        for case, token in {"honest": honest["receipt"], **bad}.items():
            page.evaluate("document.querySelector('[role=status]').textContent = ''")
            area.fill(token)
            page.get_by_role("button", name="Verify").click()
            expect(status).to_have_text(re.compile(r"^(Verified|Not verified)"))
            shown[case] = str(status.text_content())
        browser.close()
    assert shown.pop("honest").startswith("Verified")
    accepted = [case for case, text in shown.items() if text.startswith("Verified")]
    assert accepted == [], shown


# --- Replays --------------------------------------------------------------------------------


# --- A second identity -----------------------------------------------------------------------


# --- Exhausting the server ------------------------------------------------------------------


def test_a_committed_deal_needs_the_players_client_seed() -> None:
    """A commitment, then ``POST /v1/deals`` without a ``client_seed``: refused.

    The server would pick the client seed itself, the one input the player was to choose
    after the commitment, so it could search many for the deck it wants, and the deal
    would still say ``committed_before_client_seed: true``.
    """
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS)
    with TestClient(app) as http:
        commitment = http.post("/v1/commitments", json={}).json()["commitment_id"]
        body = {"variant": "poker-squares", "commitment_id": commitment}
        refused = http.post("/v1/deals", json=body)
        assert refused.status_code == 422, refused.text
        assert (refused.json()["code"], refused.json()["field"]) == (
            "client-seed-required",
            "client_seed",
        )
        casual = http.post("/v1/deals", json={"variant": "poker-squares"})  # the server's seed
        assert casual.status_code == 201
        assert casual.json()["committed_before_client_seed"] is False
        mine = http.post("/v1/deals", json={**body, "client_seed": "mine"})
        assert mine.status_code == 201, mine.text  # the commitment was not spent by the 422
        assert mine.json()["committed_before_client_seed"] is True


def test_a_retried_casual_deal_is_the_same_deal() -> None:
    """``POST /v1/deals`` resent with its ``Idempotency-Key``, without a commitment.

    The README: "within 24 hours the same key gets the same answer, so a retried request
    never opens a second deal". A casual deal resent with the same key and body opened a
    second deal (another id, another deck), each counted against the client's games in
    flight and daily quota.
    """
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS)
    body = {"variant": "poker-squares"}  # the server makes the client seed: still one deal
    headers = {"Idempotency-Key": "retry-0123456789abcdef"}
    with TestClient(app) as http:
        first = http.post("/v1/deals", json=body, headers=headers)
        again = http.post("/v1/deals", json=body, headers=headers)
        other = http.post("/v1/deals", json={**body, "client_seed": "x"}, headers=headers)
        fresh = http.post("/v1/deals", json=body, headers={"Idempotency-Key": "another-0123456789"})
        plain = [http.post("/v1/deals", json=body).json()["deal_id"] for _ in range(2)]
    assert first.status_code == 201, first.text
    assert again.status_code == 201, again.text
    assert again.json() == first.json()  # the same deal, seeds and view
    assert not first.json()["committed_before_client_seed"]  # still casual
    assert (other.status_code, other.json()["code"]) == (422, "idempotency-key-reused")
    assert fresh.json()["deal_id"] != first.json()["deal_id"]
    assert plain[0] != plain[1]  # without a key, each request is its own deal
