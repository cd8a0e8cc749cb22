"""Clients generated from ``openapi/openapi.json`` by the generators people use.

openapi-python-client (pinned in ``tests/outsiders/requirements.txt``, in a venv of its own)
and @hey-api/openapi-ts and openapi-typescript (pinned in ``tests/outsiders/package-lock.json``;
``make pytest`` installs both, so these tests download nothing) each generate a client with
no warning, whose names are the spec's: verb-first operations, no generator suffix
(``Type0``, ``Options2``). The Python client and hey-api's TypeScript client, compiled by
``tsc --strict`` with openapi-typescript's types, each play a whole committed blind game
against a served app, building moves as the typed objects of the spec's ``MoveObject``
``oneOf``, and their receipts verify.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from cardproof import verify_receipt

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "openapi" / "openapi.json"
OUTSIDERS = ROOT / "tests" / "outsiders"
NODE_BIN = OUTSIDERS / "node_modules" / ".bin"
PYTHON_GENERATOR = OUTSIDERS / ".venv" / "bin" / "openapi-python-client"
GENERATOR_SUFFIX = re.compile(r"(?:Type\d+|\d)$")
"""A name a generator made up: an anyOf member (``OptionsScoringType0``), a clash (``Options2``)."""
PLAY = '''
"""A committed blind game of poker-squares through the generated client."""

import json
import sys

from cardproof_api.api.deals import create_commitment, create_deal, get_receipt, play_move
from cardproof_api.client import Client
from cardproof_api.models import (
    CommitmentRequest,
    DealRequest,
    DealState,
    MoveRequest,
    MoveResult,
    Problem,
    ReceiptResponse,
    RowColMove,
    VariantId,
    VariantOptions,
)

client = Client(base_url=sys.argv[1], raise_on_unexpected_status=True)
commitment = create_commitment.sync(client=client, body=CommitmentRequest())
deal = create_deal.sync(
    client=client,
    body=DealRequest(
        variant=VariantId.POKER_SQUARES,
        commitment_id=commitment.commitment_id,
        client_seed="generated client",
    ),
    idempotency_key="generated-client-0001",
)
assert isinstance(deal, DealState), deal
assert deal.server_seed_hash == commitment.server_seed_hash
assert deal.variant is VariantId.POKER_SQUARES, deal.variant
assert isinstance(deal.options, VariantOptions), deal.options
early = play_move.sync(
    deal.deal_id, client=client, body=MoveRequest(index=3, move=RowColMove(row=0, col=0))
)
assert isinstance(early, Problem) and early.next_index == 0, early
for index in range(25):
    row, col = divmod(index, 5)
    move = MoveRequest(index=index, move=RowColMove(row=row, col=col))
    answer = play_move.sync(deal.deal_id, client=client, body=move)
    assert isinstance(answer, MoveResult), answer
receipt = get_receipt.sync(deal.deal_id, client=client)
assert isinstance(receipt, ReceiptResponse), receipt
print(json.dumps({"receipt": receipt.receipt, "hash": commitment.server_seed_hash}))
'''
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "ES2022",
        "module": "CommonJS",
        "moduleResolution": "node10",
        "lib": ["ES2022", "DOM", "DOM.Iterable"],
        "types": ["node"],
        "typeRoots": [str(OUTSIDERS / "node_modules" / "@types")],
        "rootDir": ".",
        "outDir": "out",
        "noEmitOnError": True,
    },
    "include": ["hey/**/*.ts", "openapi-typescript/*.ts", "play.ts", "types-check.ts"],
}


def run(*command: str | Path, cwd: Path = ROOT, timeout: float = 120) -> str:
    """Run a tool; its whole output, after checking it succeeded and warned of nothing."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert not re.search(r"warn", output, re.IGNORECASE), output
    return output


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python client openapi-python-client generated (its package's parent folder)."""
    assert PYTHON_GENERATOR.exists(), "the generators are missing: run `make pytest`"
    root = tmp_path_factory.mktemp("python-client")
    config = root / "config.json"
    config.write_text(json.dumps({"post_hooks": []}))
    run(
        PYTHON_GENERATOR,
        *("generate", "--path", SPEC, "--meta", "none", "--config", config),
        *("--output-path", root / "client" / "cardproof_api"),
    )
    return root / "client"


@pytest.fixture(scope="module")
def typescript_clients(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """hey-api's client and openapi-typescript's types, compiled with the game: the folder."""
    assert (NODE_BIN / "openapi-ts").exists(), "the generators are missing: run `make pytest`"
    root = tmp_path_factory.mktemp("typescript-clients")
    run(NODE_BIN / "openapi-ts", "-i", SPEC, "-o", root / "hey", "-c", "@hey-api/client-fetch")
    run(NODE_BIN / "openapi-typescript", SPEC, "-o", root / "openapi-typescript" / "api.d.ts")
    for name in ("play.ts", "types-check.ts"):
        shutil.copy(OUTSIDERS / name, root / name)
    (root / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    compiled = run(NODE_BIN / "tsc", "-p", root / "tsconfig.json", cwd=root)
    assert compiled == "", compiled
    (root / "out" / "package.json").write_text('{"type": "commonjs"}')
    return root


def check_receipt(answer: dict[str, str], base_url: str) -> None:
    """The receipt a client printed verifies: a committed blind game of the grid in order."""
    jwks = httpx.get(f"{base_url}/.well-known/jwks.json").json()
    checked = verify_receipt(answer["receipt"], jwks)
    assert checked.replayed
    assert checked.payload.kind == "committed-blind"
    assert checked.payload.server_seed_hash == answer["hash"]
    assert checked.payload.moves == " ".join(f"{c}{r}" for r in "12345" for c in "abcde")


def test_the_generated_python_client_plays_a_committed_blind_game(
    python_client: Path, live_server: str, tmp_path: Path
) -> None:
    script = tmp_path / "play.py"
    script.write_text(PLAY)
    played = subprocess.run(
        [str(OUTSIDERS / ".venv" / "bin" / "python"), str(script), live_server],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(python_client)},
        check=False,
    )
    assert played.returncode == 0, played.stderr
    check_receipt(json.loads(played.stdout), live_server)


def test_the_hey_api_client_plays_a_committed_blind_game_in_node(
    typescript_clients: Path, live_server: str
) -> None:
    played = subprocess.run(
        ["node", str(typescript_clients / "out" / "play.js"), live_server],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert played.returncode == 0, played.stderr
    answer = json.loads(played.stdout)
    assert answer["next_index"] == 0
    check_receipt(answer, live_server)


def test_the_python_client_has_the_specs_names(python_client: Path) -> None:
    spec = json.loads(SPEC.read_text())
    package = python_client / "cardproof_api"
    modules = {path.stem for path in (package / "api").glob("*/*.py")} - {"__init__"}
    snake = {
        re.sub(r"(?<!^)(?=[A-Z])", "_", op["operationId"]).lower()
        for item in spec["paths"].values()
        for op in item.values()
    }
    assert modules == snake
    exported = re.findall(
        r"^\s+\"(\w+)\",$", (package / "models" / "__init__.py").read_text(), re.M
    )
    schemas = spec["components"]["schemas"]
    assert {name for name, schema in schemas.items() if "oneOf" not in schema} <= set(exported)
    made_up = [name for name in exported if GENERATOR_SUFFIX.search(name)]
    assert not made_up, made_up
    assert "Options" not in exported  # the SDK's own `Options` was the schema's old name


def test_the_hey_api_client_has_the_specs_names(typescript_clients: Path) -> None:
    spec = json.loads(SPEC.read_text())
    types = (typescript_clients / "hey" / "types.gen.ts").read_text()
    sdk = (typescript_clients / "hey" / "sdk.gen.ts").read_text()
    exported = set(re.findall(r"^export type (\w+)", types, re.M))
    made_up = sorted(name for name in exported if GENERATOR_SUFFIX.search(name))
    assert not made_up, made_up  # a schema named `Options` comes out as `Options2`
    for name in spec["components"]["schemas"]:
        assert name in exported or name.capitalize() in exported, name  # JWKS: Jwks
    functions = set(re.findall(r"^export const (\w+) = ", sdk, re.M))
    operation_ids = {op["operationId"] for item in spec["paths"].values() for op in item.values()}
    assert functions == operation_ids
    assert "security: [{ scheme: 'bearer', type: 'http' }]" in sdk  # the entrant's token


def test_the_spec_has_no_construct_the_generators_refuse() -> None:
    spec = json.loads(SPEC.read_text())

    def walk(node: object) -> None:
        if isinstance(node, dict):
            assert node.get("items") is not False, node  # a tuple as prefixItems + items: false
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    shapes = spec["components"]["schemas"]["MoveObject"]["oneOf"]
    assert [sorted(shape["required"]) for shape in shapes] == [
        ["col", "row"],
        ["row"],
        ["from", "to"],
        ["count", "from", "to"],
        ["remove"],
        ["stop"],
    ]
