"""Real receipts verified by the JWT libraries people use, as the README shows them.

The README's "Receipts with standard JWT libraries" has one block each for PyJWT,
joserfc (```` ```py ````) and jose from npm (```` ```js ````). Each block runs here as
written, in a process of its own (PyJWT's algorithm registry is global), on receipts a
served app signed: it must accept the honest ones with their ``iss``, ``iat`` and
score, and refuse a receipt altered by one byte, one from another issuer, and one dated
outside its key's period.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from cardproof.receipts import JWKS, b64url, b64url_decode, decode_receipt
from cardproof_service import Settings, create_app
from conftest import TEST_KEYS, UNLIMITED

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("### Receipts with standard JWT libraries") :]
SECTION = SECTION[: SECTION.index("\n## ")]
PYTHON_BLOCKS = re.findall(r"```py\n(.*?)```", SECTION, flags=re.DOTALL)
JS_BLOCKS = re.findall(r"```js\n(.*?)```", SECTION, flags=re.DOTALL)
ONE_SPELLING = re.search(r'`ONE_SPELLING = r"([^"]+)"`', SECTION)[1]  # type: ignore[index]
"""The README's pattern of a receipt's one spelling, which each block is given."""
OUTSIDERS = ROOT / "tests" / "outsiders"
ISSUER = "https://cards.example"
CELLS = [f"{col}{row}" for row in "12345" for col in "abcde"]


@pytest.fixture(scope="module")
def signed() -> dict[str, Any]:
    """A committed game's receipt and the key set, from an app whose issuer is ISSUER."""
    keys = dataclasses.replace(TEST_KEYS, issuer=ISSUER)
    app = create_app(Settings(warm_up=False, **UNLIMITED), keys=keys)
    with TestClient(app) as client:
        commitment = client.post("/v1/commitments", json={}).json()
        body = {
            "variant": "poker-squares",
            "commitment_id": commitment["commitment_id"],
            "client_seed": "a seed of mine",
        }
        deal = client.post("/v1/deals", json=body).json()
        for index, cell in enumerate(CELLS):
            moved = client.post(
                f"/v1/deals/{deal['deal_id']}/moves", json={"index": index, "move": cell}
            )
            assert moved.status_code == 200
        token = client.get(f"/v1/deals/{deal['deal_id']}/receipt").json()["receipt"]
        jwks = client.get("/.well-known/jwks.json").json()
    return {"token": token, "jwks": jwks}


def run_python(block: str, token: str, jwks: Any, issuer: str) -> subprocess.CompletedProcess[str]:
    """The README block in a fresh interpreter, with its three inputs; prints ``claims``."""
    given = json.dumps({"token": token, "jwks": jwks, "issuer": issuer})
    script = (
        f"import json\ngiven = json.loads({given!r})\n"
        "token, jwks, issuer = given['token'], given['jwks'], given['issuer']\n"
        f"ONE_SPELLING = {ONE_SPELLING!r}\n"
        f"{block}\nprint(json.dumps(claims))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )


def run_js(
    block: str, token: str, jwks: Any, issuer: str, tmp: Path
) -> subprocess.CompletedProcess[str]:
    """The README's jose block as an ES module beside tests/outsiders' pinned jose."""
    given = json.dumps({"token": token, "jwks": jwks, "issuer": issuer})
    imports, _, rest = block.partition("\n\n")
    script = (
        f"{imports}\nconst {{ token, jwks, issuer }} = {given};\n"
        f"const ONE_SPELLING = {json.dumps(ONE_SPELLING)};\n{rest}\n"
        "console.log(JSON.stringify(claims));\n"
    )
    path = OUTSIDERS / f".readme-jose-{tmp.name}.mjs"  # beside node_modules/jose
    path.write_text(script, encoding="utf-8")
    try:
        return subprocess.run(["node", str(path)], capture_output=True, text=True, timeout=60)
    finally:
        path.unlink()


def cases(signed: dict[str, Any]) -> dict[str, tuple[str, Any, str]]:
    """(token, key set, issuer) for each way a receipt must be refused."""
    token, jwks = signed["token"], signed["jwks"]
    head, _, signature = token.split(".")
    payload = decode_receipt(token)[1]
    altered = msgspec.json.encode(msgspec.structs.replace(payload, client_seed="someone else"))
    retired = JWKS(keys=[msgspec.structs.replace(TEST_KEYS.signing.jwk(), exp=payload.issued)])
    other = json.loads(b64url_decode(head)) | {"typ": "JWT"}  # some other JWT of the key
    signing_input = f"{b64url(json.dumps(other).encode())}.{token.split('.')[1]}"
    other_type = f"{signing_input}.{b64url(TEST_KEYS.signing._sign(signing_input.encode()))}"
    return {
        "another type": (other_type, jwks, ISSUER),
        "altered": (f"{head}.{b64url(altered)}.{signature}", jwks, ISSUER),
        "another issuer": (token, jwks, "https://other.example"),
        "after the key retired": (token, msgspec.to_builtins(retired), ISSUER),
    }


def test_the_readme_shows_each_library() -> None:
    assert len(PYTHON_BLOCKS) == 2
    assert "import jwt" in PYTHON_BLOCKS[0]
    assert "from joserfc" in PYTHON_BLOCKS[1]
    assert len(JS_BLOCKS) == 1
    assert 'from "jose"' in JS_BLOCKS[0]


@pytest.mark.parametrize("library", ["PyJWT", "joserfc"])
def test_python_libraries_verify_receipts_as_the_readme_says(
    signed: dict[str, Any], library: str
) -> None:
    block = PYTHON_BLOCKS[0 if library == "PyJWT" else 1]
    honest = run_python(block, signed["token"], signed["jwks"], ISSUER)
    assert honest.returncode == 0, honest.stderr
    claims = json.loads(honest.stdout)
    payload = decode_receipt(signed["token"])[1]
    assert (claims["iss"], claims["iat"]) == (ISSUER, payload.issued_at)
    assert claims["score"]["total"] == payload.score.total
    for case, (token, jwks, issuer) in cases(signed).items():
        refused = run_python(block, token, jwks, issuer)
        assert refused.returncode != 0, (library, case)


def test_jose_from_npm_verifies_receipts_as_the_readme_says(
    signed: dict[str, Any], tmp_path: Path
) -> None:
    assert (OUTSIDERS / "node_modules" / "jose").is_dir(), (
        "make test runs npm ci in tests/outsiders"
    )
    honest = run_js(JS_BLOCKS[0], signed["token"], signed["jwks"], ISSUER, tmp_path)
    assert honest.returncode == 0, honest.stderr
    claims = json.loads(honest.stdout)
    assert claims["iss"] == ISSUER
    assert claims["iat"] == decode_receipt(signed["token"])[1].issued_at
    for case, (token, jwks, issuer) in cases(signed).items():
        refused = run_js(JS_BLOCKS[0], token, jwks, issuer, tmp_path)
        assert refused.returncode != 0, case
