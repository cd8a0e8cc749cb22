"""The witness (C2SP tlog-witness): it cosigns a checkpoint only if it extends the last one.

A forked log and a rolled-back one are shown to it and refused; what it cosigned
survives its restart; its answers are C2SP's statuses; ``cardproof witness keygen`` and
``serve`` are driven as a person would, over HTTP.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cardproof.tlog.note import COSIGNATURE_V1, Checkpoint, Signer, Verifier, open_note, sign_note
from cardproof.tlog.tree import EMPTY_ROOT, MemoryTree, leaf_hash
from cardproof.tlog.witness import MAX_BODY, Witness, request_body
from conftest import free_port

LOG = Signer("cardproof.example/log", bytes(range(32)))
WITNESS = Signer("witness.example/w1", bytes(32), COSIGNATURE_V1)
NOW = 1_800_000_000


class Log:
    """A log that grows, and can be forked."""

    def __init__(self, entries: list[bytes] | None = None) -> None:
        self.tree = MemoryTree([leaf_hash(e) for e in entries or []])

    def grow(self, n: int, tag: bytes = b"") -> None:
        for _ in range(n):
            self.tree.append(leaf_hash(tag + str(self.tree.size).encode()))

    def note(self, size: int | None = None, signer: Signer = LOG) -> str:
        size = self.tree.size if size is None else size
        return sign_note(Checkpoint(signer.name, size, self.tree.root(size)).text(), [signer])

    def body(self, old: int, size: int | None = None) -> bytes:
        size = self.tree.size if size is None else size
        return request_body(old, self.tree.consistency(old, size), self.note(size))


@pytest.fixture
def witness(tmp_path: Path) -> Witness:
    return Witness(WITNESS, [LOG.verifier], tmp_path / "state.json", clock=lambda: NOW)


def test_a_growing_log_is_cosigned_at_each_step(witness: Witness) -> None:
    log = Log()
    log.grow(5)
    answer = witness.add_checkpoint(log.body(0))
    assert answer.status == 200
    note = log.note() + answer.body.decode()
    opened = open_note(note, [LOG.verifier, WITNESS.verifier], required=2)
    assert opened.signatures[1].timestamp == NOW
    log.grow(300)
    assert witness.add_checkpoint(log.body(5)).status == 200
    assert witness.add_checkpoint(log.body(305)).status == 200  # the same tree again
    assert witness.seen[LOG.name] == (305, log.tree.root())


def test_a_fork_is_refused_and_nothing_is_recorded(witness: Witness) -> None:
    log = Log()
    log.grow(10)
    assert witness.add_checkpoint(log.body(0)).status == 200
    fork = Log()
    fork.grow(10, b"other ")  # the same size, other entries, under the log's key
    fork.grow(5)
    answer = witness.add_checkpoint(request_body(10, fork.tree.consistency(10), fork.note()))
    assert answer.status == 422
    assert b"does not extend" in answer.body
    same_size = request_body(10, [], fork.note(10))
    assert witness.add_checkpoint(same_size).status == 422
    assert witness.seen[LOG.name] == (10, log.tree.root())


def test_a_rollback_is_refused(witness: Witness) -> None:
    log = Log()
    log.grow(10)
    assert witness.add_checkpoint(log.body(0)).status == 200
    answer = witness.add_checkpoint(request_body(10, [], log.note(6)))  # smaller than seen
    assert answer.status == 400
    answer = witness.add_checkpoint(log.body(0, 6))  # as if it had seen nothing
    assert (answer.status, answer.content_type, answer.body) == (409, "text/x.tlog.size", b"10\n")


def test_c2sp_s_other_statuses(witness: Witness) -> None:
    log = Log()
    log.grow(3)
    other = Signer("another.example/log", bytes(range(32)))
    assert witness.add_checkpoint(log.body(0)[:-3]).status == 400  # a cut signature line
    assert witness.add_checkpoint(b"new 0\n\n" + log.note().encode()).status == 400
    assert witness.add_checkpoint(request_body(0, [], log.note(signer=other))).status == 404
    forged = Signer(LOG.name, bytes(32))  # the log's name, another key
    assert witness.add_checkpoint(request_body(0, [], log.note(signer=forged))).status == 403
    empty = sign_note(Checkpoint(LOG.name, 0, bytes(32)).text(), [LOG])
    assert witness.add_checkpoint(request_body(0, [], empty)).status == 422
    proof_from_nothing = request_body(0, [bytes(32)], log.note())
    assert witness.add_checkpoint(proof_from_nothing).status == 422
    short_hash = request_body(0, [bytes(31)], log.note())
    assert witness.add_checkpoint(short_hash).status == 400
    too_long = request_body(0, [bytes(32)] * 64, log.note())
    assert witness.add_checkpoint(too_long).status == 400
    assert witness.add_checkpoint(b"x" * (MAX_BODY + 1)).status == 413
    assert witness.add_checkpoint(b"\xff\xfe").status == 400
    real_empty = sign_note(Checkpoint(LOG.name, 0, EMPTY_ROOT).text(), [LOG])
    assert witness.add_checkpoint(request_body(0, [], real_empty)).status == 200


def test_what_it_cosigned_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    log = Log()
    log.grow(7)
    assert Witness(WITNESS, [LOG.verifier], state).add_checkpoint(log.body(0)).status == 200
    again = Witness(WITNESS, [LOG.verifier], state)
    assert again.seen[LOG.name] == (7, log.tree.root())
    assert again.add_checkpoint(log.body(0, 3)).status == 409
    assert not list(tmp_path.glob(".witness-*"))  # no temporary file left behind
    for broken in ("{", "[]", '{"logs": {"a": {"size": "x"}}}'):
        state.write_text(broken)
        with pytest.raises(ValueError, match="not a witness's state file"):
            Witness(WITNESS, [LOG.verifier], state)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A witness served by ``cardproof witness serve``'s server, in this process."""
    from cardproof.cli.witness import make_server

    key = tmp_path / "witness.key"
    key.write_text(WITNESS.skey + "\n")
    args = argparse.Namespace(
        key=str(key),
        log=[LOG.verifier.vkey],
        host="127.0.0.1",
        port=0,
        state=str(tmp_path / "state.json"),
    )
    server = make_server(args)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_witness_over_http(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = Log()
    log.grow(4)
    answer = httpx.post(f"{served}/add-checkpoint", content=log.body(0))
    assert answer.status_code == 200
    assert answer.text.startswith(f"\u2014 {WITNESS.name} ")
    stale = httpx.post(f"{served}/add-checkpoint", content=log.body(0))
    assert (stale.status_code, stale.headers["content-type"], stale.text) == (
        409,
        "text/x.tlog.size",
        "4\n",
    )
    assert httpx.get(f"{served}/add-checkpoint").status_code == 404
    assert httpx.post(f"{served}/other", content=b"").status_code == 404
    big = httpx.post(f"{served}/add-checkpoint", content=b"x" * (MAX_BODY + 1))
    assert big.status_code == 413


def test_keygen_and_serve_from_the_command_line(tmp_path: Path) -> None:
    made = subprocess.run(
        [sys.executable, "-m", "cardproof.cli", "witness", "keygen", "witness.example/w9"],
        capture_output=True,
        text=True,
        check=True,
    )
    skey, vkey = made.stdout.splitlines()
    signer = Signer.parse(skey)
    assert (signer.kind, signer.verifier) == (COSIGNATURE_V1, Verifier.parse(vkey))
    assert "secret" in made.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "cardproof.cli", "witness", "keygen", "a name"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    key = tmp_path / "w.key"
    key.write_text(skey + "\n")
    port = free_port()
    env_state = tmp_path / "state.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "cardproof.cli", "witness", "serve", "--key", str(key),
         "--log", LOG.verifier.vkey, "--port", str(port), "--state", str(env_state)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith(f"witnessing {LOG.verifier.vkey} at")
        log = Log()
        log.grow(2)
        answer = httpx.post(f"http://127.0.0.1:{port}/add-checkpoint", content=log.body(0))
        assert answer.status_code == 200
        opened = open_note(log.note() + answer.text, [signer.verifier])
        assert opened.signatures[0].timestamp is not None
        assert env_state.exists()
    finally:
        process.terminate()
        process.wait(timeout=10)
    wrong = subprocess.run(
        [sys.executable, "-m", "cardproof.cli", "witness", "serve", "--key", str(key),
         "--log", "not a key", "--port", str(port)],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert wrong.returncode == 2
    assert "not a verifier key" in wrong.stderr


def test_the_state_s_default_place(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cardproof.cli.witness import default_state

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_state() == str(tmp_path / "cardproof" / "witness.json")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/dir")  # the XDG spec: ignored
    assert default_state() == str(Path.home() / ".local/state/cardproof/witness.json")
