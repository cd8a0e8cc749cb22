"""Witnesses of the service's log: each new checkpoint sent, their cosignatures served.

Real witnesses (``cardproof witness serve``'s server, in this process) and real apps:
the checkpoint ``/log/checkpoint`` serves, and the one in a receipt's proof, carry the
witness's cosignature, which the SDK's witness policy accepts; a witness that is down
delays no proof; a second history signed under the same key and origin (a fork) is
refused by the witness that saw the first, and never shows its cosignature; a witness
answering under another key is not believed.
"""

from __future__ import annotations

import argparse
import functools
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.tlog.inclusion import LogProof, LogProofError, WitnessPolicy, check_in_log
from cardproof.tlog.note import COSIGNATURE_V1, Checkpoint, Signer, Verifier, open_note
from cardproof_service.app import create_app
from cardproof_service.plumbing import Settings, SettingsError
from cardproof_service.store import MemoryStore
from conftest import TEST_KEYS, UNLIMITED
from test_log_service import INTERVAL, finished_deal, log_key, logged_receipt

ORIGIN = "witnessed.example/log"
LOG_VKEY = Signer(ORIGIN, TEST_KEYS.log_seed).verifier.vkey


@contextmanager
def witness(tmp_path: Path, name: str) -> Iterator[tuple[str, Verifier, Path]]:
    """A witness of the test log, served in this process: its URL, key and state file."""
    from cardproof.cli.witness import make_server

    signer = Signer.generate(name, COSIGNATURE_V1)
    key = tmp_path / f"{name.replace('/', '_')}.key"
    key.write_text(signer.skey + "\n")
    state = tmp_path / f"{name.replace('/', '_')}.json"
    args = argparse.Namespace(key=str(key), log=[LOG_VKEY], host="127.0.0.1", port=0, state=state)
    server = make_server(args)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", signer.verifier, state
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def service(witnesses: list[tuple[str, Verifier]]) -> Iterator[TestClient[Litestar]]:
    """An app of its own store, folding every 50 ms, asking ``witnesses`` to cosign."""
    settings = Settings(
        warm_up=False,
        log_interval=INTERVAL,
        log_origin=ORIGIN,
        log_witnesses=tuple((url, key.vkey) for url, key in witnesses),
        **UNLIMITED,
    )
    app = create_app(settings, keys=TEST_KEYS, store=MemoryStore())
    with TestClient(app=app) as client:
        yield client


@contextmanager
def silent_witness() -> Iterator[str]:
    """A witness that takes connections and never answers (until its calls time out)."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(64)
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"


def eventually(check: Callable[[], Any], seconds: float = 30.0) -> Any:
    """``check()``'s first true answer within ``seconds`` (else its last, false, one)."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(INTERVAL)


def witnessed(state: Path) -> int:
    """The size of the log the witness last cosigned (its state file)."""
    if not state.exists():
        return -1
    size: int = json.loads(state.read_text())["logs"][ORIGIN]["size"]
    return size


def cosigned_up_to(state: Path, size: int) -> bool:
    """Whether the witness cosigned the log up to ``size`` entries."""
    return witnessed(state) >= size


def size_of(client: TestClient[Litestar]) -> int:
    """The size of the checkpoint the service shows (signed by its log key)."""
    return Checkpoint.parse(
        open_note(client.get("/log/checkpoint").text, [log_key(client)]).text
    ).size


def cosigners(note: str, keys: list[Verifier]) -> list[str]:
    """Who of ``keys`` cosigned ``note`` (which the log's key must sign)."""
    opened = open_note(note, [Verifier.parse(LOG_VKEY), *keys])
    return sorted(s.verifier.name for s in opened.signatures if s.timestamp is not None)


def test_the_witness_s_cosignature_is_on_the_checkpoint_and_the_proof(tmp_path: Path) -> None:
    with witness(tmp_path, "w1.example") as (url, key, state), service([(url, key)]) as client:
        assert log_key(client).vkey == LOG_VKEY
        deal = finished_deal(client)
        assert eventually(lambda: cosigners(client.get("/log/checkpoint").text, [key]))
        receipt = eventually(
            lambda: (
                (answer := logged_receipt(client, deal))["log"]
                and cosigners(answer["log"]["checkpoint"], [key])
                and answer
            )
        )
        assert receipt, "no cosigned proof within 5 s"
        proof = msgspec.convert(receipt["log"], LogProof)
        found = check_in_log(receipt["receipt"], proof, log_key(client), WitnessPolicy((key,), 1))
        assert found.cosigned_at is not None
        assert abs(found.cosigned_at - time.time()) < 60
        kept = json.loads(state.read_text())["logs"][ORIGIN]
        assert kept["size"] >= found.size  # the witness recorded what it cosigned
        other = Signer.generate("w2.example", COSIGNATURE_V1).verifier
        with pytest.raises(LogProofError) as refused:  # a policy it does not meet
            check_in_log(receipt["receipt"], proof, log_key(client), WitnessPolicy((other,), 1))
        assert refused.value.code == "witnesses"


def test_a_witness_that_is_down_delays_nothing(tmp_path: Path) -> None:
    """Neither the proofs nor the other witnesses' cosignatures wait for a silent one."""
    down = Signer.generate("down.example", COSIGNATURE_V1).verifier
    with (
        witness(tmp_path, "up.example") as (url, key, state),
        silent_witness() as silent,
        service([(silent, down), (url, key)]) as client,
    ):
        for _ in range(2):  # the second while the first call to the silent one hangs
            deal = finished_deal(client)
            ended = time.monotonic()
            answer = logged_receipt(client, deal)
            assert answer["log"] is not None
            assert time.monotonic() - ended < 3.0  # well within a witness's 5 s: not waited on
            size = msgspec.convert(answer["log"], LogProof).index + 1
            assert eventually(functools.partial(cosigned_up_to, state, size), 3.0)
        note = client.get("/log/checkpoint").text
        assert cosigners(note, [key, down]) == ["up.example"]  # the one that answered


def test_a_fork_under_the_log_s_key_is_refused_by_its_witness(tmp_path: Path) -> None:
    """Two histories under one key and origin (two stores): the witness cosigns the first."""
    with witness(tmp_path, "w1.example") as (url, key, state):
        with service([(url, key)]) as first:
            finished_deal(first)
            # the checkpoint served is cosigned once the witness has caught up with it (a
            # fold after the witness's last cosignature is served before it is cosigned)
            assert eventually(
                lambda: (
                    witnessed(state) > 0  # past the empty tree, which is every log's
                    and cosigners(first.get("/log/checkpoint").text, [key]) == ["w1.example"]
                )
            )
        size = witnessed(state)  # all the witness saw of the first tree
        with service([(url, key)]) as second:  # the same key and name, another tree
            for _ in range(3):
                finished_deal(second)
            assert eventually(lambda: size_of(second) > size)
            time.sleep(20 * INTERVAL)  # rounds of asking the witness
            assert cosigners(second.get("/log/checkpoint").text, [key]) == []
        assert witnessed(state) == size  # unmoved


def test_a_cosignature_under_another_key_is_not_believed(tmp_path: Path) -> None:
    impostor = Signer.generate("w1.example", COSIGNATURE_V1).verifier  # the name, not the key
    with witness(tmp_path, "w1.example") as (url, key, _), service([(url, impostor)]) as client:
        finished_deal(client)
        time.sleep(20 * INTERVAL)
        note = client.get("/log/checkpoint").text
        assert cosigners(note, [impostor, key]) == []


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("w.example +x", "is not a witness's http"),
        ("ftp://w.example KEY", "is not a witness's http"),
        ("https://w.example not-a-key", "the key after https://w.example"),
        (f"https://w.example {LOG_VKEY}", "not a cosignature/v1 key"),
    ],
)
def test_witnesses_are_checked_at_start(value: str, error: str) -> None:
    with pytest.raises(SettingsError, match=error):
        Settings.from_env({"CARDPROOF_LOG_WITNESSES": value})


def test_witnesses_from_the_environment() -> None:
    keys = [Signer.generate(f"w{n}.example", COSIGNATURE_V1).verifier.vkey for n in (1, 2)]
    value = f"https://a.example/w/ {keys[0]}, http://127.0.0.1:9/ {keys[1]}"
    settings = Settings.from_env({"CARDPROOF_LOG_WITNESSES": value})
    assert settings.log_witnesses == (
        ("https://a.example/w", keys[0]),
        ("http://127.0.0.1:9", keys[1]),
    )
    with pytest.raises(SettingsError, match="twice"):
        Settings.from_env({"CARDPROOF_LOG_WITNESSES": f"{value}, https://b.example {keys[0]}"})


def test_every_witness_s_cosignature_is_kept(tmp_path: Path) -> None:
    with (
        witness(tmp_path, "w1.example") as (one, first, _),
        witness(tmp_path, "w2.example") as (two, second, _),
        service([(one, first), (two, second)]) as client,
    ):
        finished_deal(client)
        both = ["w1.example", "w2.example"]
        assert eventually(
            lambda: (
                size_of(client) > 0
                and cosigners(client.get("/log/checkpoint").text, [first, second]) == both
            )
        )
        time.sleep(10 * INTERVAL)  # and they stay
        assert cosigners(client.get("/log/checkpoint").text, [first, second]) == both


def test_a_rolled_back_log_is_not_cosigned(tmp_path: Path) -> None:
    """The same name and key, fewer entries than the witness saw: a rollback, refused."""
    with witness(tmp_path, "w1.example") as (url, key, state):
        with service([(url, key)]) as first:
            for _ in range(3):
                finished_deal(first)
            assert eventually(lambda: witnessed(state) >= 3)
            size = witnessed(state)
        with service([(url, key)]) as second:  # its store lost what the first one logged
            finished_deal(second)
            assert eventually(lambda: size_of(second) > 0)
            assert size_of(second) < size
            time.sleep(20 * INTERVAL)
            assert cosigners(second.get("/log/checkpoint").text, [key]) == []
        assert witnessed(state) == size
