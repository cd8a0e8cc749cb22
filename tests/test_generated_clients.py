"""Clients generated from ``openapi/openapi.json`` by the generators people use.

openapi-python-client (pinned) generates a Python client in a fresh virtual environment,
with no warning; that client then plays a whole committed blind game against a served
app, building its moves as the typed objects the spec's ``MoveObject`` ``oneOf`` gives,
and its receipt verifies. (The TypeScript side is the web client: its types are
openapi-typescript's, compiled by ``tsc --strict`` in ``make test``.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from cardproof import verify_receipt

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = "openapi-python-client==0.29.1"
PLAY = '''
"""A committed blind game of poker-squares through the generated client."""

import json
import sys

from cardproof_api.api.deals import (
    v1_commitments_commit,
    v1_deals_create,
    v1_deals_deal_id_moves_play,
    v1_deals_deal_id_receipt_receipt,
)
from cardproof_api.client import Client
from cardproof_api.models import (
    CommitmentRequest,
    DealRequest,
    DealRequestVariant,
    DealState,
    MoveRequest,
    MoveResult,
    ReceiptResponse,
    RowColMove,
)

client = Client(base_url=sys.argv[1], raise_on_unexpected_status=True)
commitment = v1_commitments_commit.sync(client=client, body=CommitmentRequest())
deal = v1_deals_create.sync(
    client=client,
    body=DealRequest(
        variant=DealRequestVariant.POKER_SQUARES,
        commitment_id=commitment.commitment_id,
        client_seed="generated client",
    ),
    idempotency_key="generated-client-0001",
)
assert isinstance(deal, DealState), deal
assert deal.server_seed_hash == commitment.server_seed_hash
for index in range(25):
    row, col = divmod(index, 5)
    move = MoveRequest(index=index, move=RowColMove(row=row, col=col))
    answer = v1_deals_deal_id_moves_play.sync(deal.deal_id, client=client, body=move)
    assert isinstance(answer, MoveResult), answer
receipt = v1_deals_deal_id_receipt_receipt.sync(deal.deal_id, client=client)
assert isinstance(receipt, ReceiptResponse), receipt
print(json.dumps({"receipt": receipt.receipt, "hash": commitment.server_seed_hash}))
'''


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The generator in a fresh venv, and the client it generated; their paths."""
    root = tmp_path_factory.mktemp("generated")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", GENERATOR],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    config = root / "config.json"
    config.write_text(json.dumps({"post_hooks": []}))
    made = subprocess.run(
        [
            str(venv / "bin" / "openapi-python-client"),
            *("generate", "--path", str(ROOT / "openapi" / "openapi.json")),
            *("--output-path", str(root / "client" / "cardproof_api"), "--meta", "none"),
            *("--config", str(config)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr, made.stdout + made.stderr
    return python, root / "client"


def test_the_generated_python_client_plays_a_committed_blind_game(
    generated: tuple[Path, Path], live_server: str, tmp_path: Path
) -> None:
    python, client = generated
    script = tmp_path / "play.py"
    script.write_text(PLAY)
    played = subprocess.run(
        [str(python), str(script), live_server],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(client)},
        check=False,
    )
    assert played.returncode == 0, played.stderr
    answer = json.loads(played.stdout)
    jwks = httpx.get(f"{live_server}/.well-known/jwks.json").json()
    checked = verify_receipt(answer["receipt"], jwks)
    assert checked.replayed
    assert checked.payload.kind == "committed-blind"
    assert checked.payload.server_seed_hash == answer["hash"]
    assert checked.payload.moves == " ".join(f"{c}{r}" for r in "12345" for c in "abcde")


def test_the_spec_has_no_construct_the_generators_refuse() -> None:
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())

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
