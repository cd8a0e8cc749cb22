"""The ``cardproof`` command: serve, verify, keys.

``serve`` really serves (what ``make run`` runs); ``verify`` checks receipts offline;
``keys generate`` makes keys the service accepts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import msgspec
import pytest
from litestar.testing import TestClient

from cardproof.cli import build_parser
from cardproof.cli.serve import serve_options
from cardproof_service import Settings, create_app
from cardproof_service.plumbing.keys import load_keys
from conftest import TEST_KEYS, answering_pids, free_port, served
from redis_server import redis_url_or_skip


def test_serve_answers_on_the_port_it_was_given() -> None:
    with served("--log-level", "warning") as base_url:
        assert httpx.get(f"{base_url}/healthz").json() == {"status": "ok"}
        score = httpx.post(
            f"{base_url}/v1/score",
            json={"variant": "poker-squares", "layout": [["2C"] * 5] * 5},
        )
        assert score.status_code == 422
        assert score.json()["code"] == "duplicate-card"


def test_two_workers_share_redis(tmp_path: Path) -> None:
    """Moves of one deal answered by both workers (by pid): each sees what the other stored."""
    cells = [f"{col}{row}" for row in "12345" for col in "abcde"]
    log = tmp_path / "serve.log"
    with (
        redis_url_or_skip() as url,
        served("--workers", "2", "--log-level", "info", env={"REDIS_URL": url}, log=log) as base,
    ):
        deal = httpx.post(f"{base}/v1/deals", json={"variant": "poker-squares"}).json()["deal_id"]
        for index, cell in enumerate(cells):  # a connection each: the workers share them out
            answer = httpx.post(
                f"{base}/v1/deals/{deal}/moves", json={"index": index, "move": cell}
            )
            assert answer.status_code == 200, answer.text
        assert answer.json()["finished"] is True
        time.sleep(0.3)  # request lines are written at most 0.1 s late
    assert len(answering_pids(log, f"/v1/deals/{deal}/moves")) == 2  # both took moves


def test_two_workers_without_redis_are_refused() -> None:
    # whatever Redis the tests run with: an empty REDIS_URL is none, to the CLI as to the app
    result = _cardproof("serve", "--workers", "2", "--port", "1", env={"REDIS_URL": ""})
    assert result.returncode == 2
    assert "REDIS_URL" in result.stderr


def test_parser_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CARDPROOF_HOST", "CARDPROOF_PORT", "CARDPROOF_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    args = build_parser().parse_args(["serve"])
    assert serve_options(args) == ("127.0.0.1", 8000, 1)
    with pytest.raises(SystemExit):
        build_parser().parse_args([])


def test_serve_reads_its_options_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDPROOF_HOST", "0.0.0.0")
    monkeypatch.setenv("CARDPROOF_PORT", "9100")
    monkeypatch.setenv("CARDPROOF_WORKERS", "3")
    assert serve_options(build_parser().parse_args(["serve"])) == ("0.0.0.0", 9100, 3)
    options = build_parser().parse_args(["serve", "--workers", "2", "--port", "80"])
    assert serve_options(options) == ("0.0.0.0", 80, 2)  # options win
    monkeypatch.setenv("CARDPROOF_PORT", "eighty")
    build_parser().parse_args(["verify", "receipt.txt"])  # other commands do not care
    with pytest.raises(SystemExit, match="CARDPROOF_PORT must be an integer"):
        serve_options(build_parser().parse_args(["serve"]))


def test_serve_needs_a_worker() -> None:
    result = _cardproof("serve", "--workers", "0", "--port", "1")
    assert result.returncode == 2
    assert "--workers must be 1 or more" in result.stderr


def _cardproof(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "cardproof"), *args]
    environ = {k: v for k, v in os.environ.items() if k != "CARDPROOF_URL"} | (env or {})
    return subprocess.run(
        command, capture_output=True, text=True, input=stdin, timeout=60, env=environ
    )


def test_keys_generate_prints_usable_keys() -> None:
    result = _cardproof("keys", "generate")
    assert result.returncode == 0
    env = dict(line.split("=", 1) for line in result.stdout.splitlines())
    keys = load_keys(env)
    assert keys.signing.kid in result.stderr


def test_verify_a_receipt_file_offline(tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_bytes(msgspec.json.encode(TEST_KEYS.jwks()))
    good = tmp_path / "receipt.txt"
    casual = tmp_path / "casual.txt"
    table = {"flush": -5, "full-house": 1000}
    with TestClient(create_app(Settings(warm_up=False), keys=TEST_KEYS)) as client:
        receipts = []
        for committed in (True, False):
            request: dict[str, object] = {"variant": "poker-squares", "options": {"scoring": table}}
            if committed:
                request["commitment_id"] = client.post("/v1/commitments", json={}).json()[
                    "commitment_id"
                ]
                request["client_seed"] = "a seed of mine"
            deal = client.post("/v1/deals", json=request).json()
            for i, cell in enumerate(f"{c}{r}" for r in "12345" for c in "abcde"):
                client.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": i, "move": cell})
            receipts.append(client.get(f"/v1/deals/{deal['deal_id']}/receipt"))
    receipt = receipts[0]
    good.write_text(receipt.text)  # the endpoint's JSON works as a receipt file
    result = _cardproof("verify", str(good), "--jwks", str(jwks))
    assert result.returncode == 0, result.stderr
    assert f"score {receipt.json()['payload']['score']['total']}" in result.stdout
    assert "kind committed-blind" in result.stdout
    assert "flush -5" in result.stdout  # a custom table is printed in full
    assert "full-house 1000" in result.stdout
    assert f"deal {receipt.json()['payload']['deal_id']}" in result.stdout
    casual.write_text(receipts[1].text)
    refused = _cardproof("verify", str(casual), "--jwks", str(jwks))
    assert refused.returncode == 1
    assert "NOT VERIFIED (kind-not-allowed)" in refused.stdout
    allowed = _cardproof("verify", str(casual), "--jwks", str(jwks), "--allow-casual")
    assert allowed.returncode == 0, allowed.stdout
    assert "kind casual: NOT committed" in allowed.stdout
    token = receipt.json()["receipt"]
    header, payload, signature = token.split(".")
    forged = f"{header}.{payload[:-4]}AAAA.{signature}"
    result = _cardproof("verify", "-", "--jwks", str(jwks), stdin=forged)
    assert result.returncode == 1
    assert "NOT VERIFIED" in result.stdout
    missing = _cardproof("verify", str(tmp_path / "none.txt"), "--jwks", str(jwks))
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr


def test_verify_fetches_the_key_set_from_a_server(tmp_path: Path, live_server: str) -> None:
    with httpx.Client(base_url=live_server) as http:
        commitment = http.post("/v1/commitments", json={}).json()["commitment_id"]
        deal = http.post(
            "/v1/deals",
            json={
                "variant": "serpent-patience",
                "commitment_id": commitment,
                "client_seed": "a seed of mine",
            },
        ).json()
        cards = [deal["view"]["next"], *deal["view"]["later"]]
        moves = http.post("/v1/solve", json={"variant": "serpent-patience", "cards": cards}).json()
        verified = http.post(
            "/v1/verify",
            json={
                "variant": "serpent-patience",
                "deal": {"deal_id": deal["deal_id"]},
                "moves": moves["moves"],
            },
        ).json()
    path = tmp_path / "receipt.jws"
    path.write_text(verified["receipt"])
    result = _cardproof("verify", str(path), "--url", live_server)
    assert result.returncode == 0, result.stderr
    assert "verified: serpent-patience" in result.stdout
    from_env = _cardproof("verify", str(path), env={"CARDPROOF_URL": live_server})
    assert from_env.returncode == 0, from_env.stderr
    assert "verified: serpent-patience" in from_env.stdout
    assert "committed before client seed yes" in from_env.stdout  # words, not True/False
    assert "True" not in from_env.stdout

    token = verified["receipt"]
    wrapped = tmp_path / "wrapped.jws"  # as copied from a terminal that wrapped it
    wrapped.write_text("\n".join(token[i : i + 70] for i in range(0, len(token), 70)) + "\n\n")
    forgiving = _cardproof("verify", str(wrapped), "--url", live_server)
    assert forgiving.returncode == 0, forgiving.stdout + forgiving.stderr
    assert "verified: serpent-patience" in forgiving.stdout

    for broken, words in (
        (token[:-6], "malformed"),  # a signature cut short
        (token.rpartition(".")[0] + ".", "malformed"),  # none at all
        (token[:-2] + ("AA" if token[-2:] != "AA" else "BA"), "bad-signature"),  # another one
        ("not a receipt", "malformed"),
    ):
        bad = tmp_path / "bad.jws"
        bad.write_text(broken)
        refused = _cardproof("verify", str(bad), "--url", live_server)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert f"NOT VERIFIED ({words})" in refused.stdout


def test_a_reader_that_stops_early_gets_no_traceback(live_server: str, tmp_path: Path) -> None:
    """``cardproof verify ... | head -1``: the pipe closes under it, quietly."""
    with httpx.Client(base_url=live_server) as http:
        commitment = http.post("/v1/commitments", json={}).json()["commitment_id"]
        deal = http.post(
            "/v1/deals",
            json={
                "variant": "poker-squares",
                "commitment_id": commitment,
                "client_seed": "a seed of mine",
            },
        ).json()
        for index, cell in enumerate(f"{c}{r}" for r in "12345" for c in "abcde"):
            http.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": cell})
        receipt = http.get(f"/v1/deals/{deal['deal_id']}/receipt").json()["receipt"]
    path = tmp_path / "receipt.jws"
    path.write_text(receipt)
    verify = f"{Path(sys.executable).parent / 'cardproof'} verify {path} --url {live_server}"
    result = subprocess.run(  # `true` reads nothing and is gone before a line is written
        ["bash", "-o", "pipefail", "-c", f"{verify} | true"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 141, result.stderr  # 128 + SIGPIPE, as a shell reports it
    assert "Traceback" not in result.stderr
    assert "BrokenPipeError" not in result.stderr
    head = subprocess.run(
        ["bash", "-c", f"{verify} | head -1"], capture_output=True, text=True, timeout=60
    )
    assert head.stdout.startswith("verified: poker-squares")
    assert head.stdout.count("\n") == 1
    assert head.stderr == ""


def test_cardproof_url_names_the_server_when_url_is_not_given(live_server: str) -> None:
    """Every command taking --url reads $CARDPROOF_URL; an explicit --url still wins."""
    nobody = f"http://127.0.0.1:{free_port()}"
    asked = _cardproof("tournament", "show", "no-such-id", env={"CARDPROOF_URL": live_server})
    assert asked.returncode == 1, asked.stderr  # the server's refusal: it was reached
    assert "refused (404" in asked.stderr
    flag = _cardproof(
        "tournament", "show", "no-such-id", "--url", nobody, env={"CARDPROOF_URL": live_server}
    )
    assert flag.returncode == 2
    assert f"cannot reach {nobody}" in flag.stderr


def test_every_url_option_defaults_to_cardproof_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDPROOF_URL", "http://cardproof.example")
    parser = build_parser()
    for argv in (
        ["verify", "receipt.jws"],
        ["play", "poker-squares"],
        ["tournament", "standings", "t1"],
    ):
        assert parser.parse_args(argv).url == "http://cardproof.example", argv


PYTHON_WORDS = re.compile(r"\b(True|False|None)\b|[\[{(]'|'[\]})]")
"""Python's words and reprs (``False``, ``None``, ``['a']``, ``{'k': 1}``): never printed."""
QUOTED = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)")
"""A single-quoted text (not an apostrophe inside a word): a Python repr of a string."""
SOLODREZ_COMMANDS = {"'a n b'", "'r a'", "'hint'", "'stop'"}
"""The solodrez commands its prompt and help quote, as a person writes them: not reprs."""


def _python_words(text: str) -> list[str]:
    """What in ``text`` reads as Python rather than JSON words."""
    found = [match.group(0) for match in PYTHON_WORDS.finditer(text)]
    return found + [q for q in QUOTED.findall(text) if q not in SOLODREZ_COMMANDS]


def test_verify_shows_the_options_as_json_words(tmp_path: Path) -> None:
    jwks = tmp_path / "jwks.json"
    jwks.write_bytes(msgspec.json.encode(TEST_KEYS.jwks()))
    with TestClient(create_app(Settings(warm_up=False), keys=TEST_KEYS)) as client:
        commitment = client.post("/v1/commitments", json={}).json()["commitment_id"]
        deal = client.post(
            "/v1/deals",
            json={
                "variant": "poker-squares",
                "commitment_id": commitment,
                "client_seed": "a seed of mine",
                "options": {"scoring": "american", "diagonals": False},
            },
        ).json()
        for i, cell in enumerate(f"{c}{r}" for r in "12345" for c in "abcde"):
            client.post(f"/v1/deals/{deal['deal_id']}/moves", json={"index": i, "move": cell})
        receipt = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()
    assert receipt["payload"]["options"]["diagonals"] is False
    path = tmp_path / "receipt.jws"
    path.write_text(receipt["receipt"])
    result = _cardproof("verify", str(path), "--jwks", str(jwks))
    assert result.returncode == 0, result.stderr
    assert "  options scoring american; diagonals false\n" in result.stdout
    assert _python_words(result.stdout + result.stderr) == []


def test_the_cli_prints_json_words_never_python_reprs(tmp_path: Path) -> None:
    """A game played, its receipt verified, a bot run and refused, solodrez stopped:
    every line the command prints is scanned for Python's ``True``, ``None`` and reprs."""
    cells = "".join(f"{c}{r}\n" for r in "12345" for c in "abcde")
    seed = "my lucky seed"
    outputs = []

    def run(*args: str, stdin: str | None = None, code: int = 0) -> str:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "cardproof"), *args],
            capture_output=True, text=True, input=stdin, timeout=120, cwd=tmp_path,
            env={**{k: v for k, v in os.environ.items() if k != "CARDPROOF_URL"},
                 "PYTHONPATH": str(tmp_path)},
        )  # fmt: skip
        assert done.returncode == code, done.stdout + done.stderr
        outputs.append(done.stdout + done.stderr)
        return done.stdout + done.stderr

    played = run("play", "poker-squares", "--seed", seed, "--receipt-out", "r.jws", stdin=cells)
    assert f'your seed "{seed}"' in played  # a JSON string, not Python's '...'
    verified = run("verify", "r.jws", "--jwks", "r.keys.json")
    assert "diagonals false" in verified
    assert '"klondike"' in run("play", "klondike", code=2)
    stopped = run("play", "solodrez", "--seed", seed, stdin="stop\nn\nstop\ny\n")
    assert "Stop? [y/N]" in stopped
    run("bots", "run", "cardproof.bots:RandomPlayer", "--games", "2", "--par-budget", "0")
    (tmp_path / "wrong.py").write_text(
        "from cardproof.bots import RandomPlayer\n"
        "class Nothing(RandomPlayer):\n"
        "    def place(self, turn):\n"
        "        return None\n"
        "class Fails(RandomPlayer):\n"
        "    def start(self, setup):\n"
        "        raise KeyError('no table')\n"
    )
    nothing = run("bots", "run", "wrong:Nothing", "--games", "1", "--par-budget", "0", code=1)
    assert "move 0: the player chose null, not one of the empty cells" in nothing
    fails = run("bots", "run", "wrong:Fails", "--games", "1", "--par-budget", "0", code=1)
    assert "the player's start failed: KeyError: no table" in fails
    for text in outputs:
        assert _python_words(text) == [], text


BLOCK_LITESTAR = """
import importlib.abc
import sys


class NoLitestar(importlib.abc.MetaPathFinder):
    '''litestar as an install without the service extra has it: not there.'''

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "litestar":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NoLitestar())
try:
    import cardproof_service
except ModuleNotFoundError as error:
    print(f"{isinstance(error, ModuleNotFoundError)}|{error.name}|{error}")
else:
    print("imported")
import cardproof  # the SDK needs no litestar

print(cardproof.Client.__name__)
"""


def test_the_service_without_its_extra_names_the_install_command() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_LITESTAR], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    refused, sdk = done.stdout.splitlines()
    kind, name, message = refused.split("|")
    assert (kind, name) == ("True", "litestar")  # a ModuleNotFoundError, as before
    assert "pip install 'cardproof[service]'" in message
    assert "litestar is not installed" in message
    assert sdk == "Client"


BLOCKED_COMMAND = (
    BLOCK_LITESTAR.split("try:")[0]
    + """
from cardproof.cli import main

sys.exit(main(sys.argv[1:]))
"""
)
"""A ``cardproof`` command run where the service extra is missing (litestar, here)."""


@pytest.mark.parametrize(
    "command",
    [
        ["keys", "generate"],
        ["openapi"],
        ["keys", "organizer", "create", "Club"],
        ["store", "migrate"],
        ["serve", "--port", "1"],
    ],
    ids=" ".join,
)
def test_a_command_that_needs_the_service_says_so_in_one_line(command: list[str]) -> None:
    """The SDK alone: what to install, exit 2, and no traceback."""
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_COMMAND, *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (
        f"cardproof {command[0]} needs the service extra (litestar is not installed): "
        "pip install 'cardproof[service]'\n"
    )
