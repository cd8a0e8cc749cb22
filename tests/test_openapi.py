"""The committed spec is what the app serves, and it documents every error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

SPEC_FILE = Path(__file__).parent.parent / "openapi" / "openapi.json"


def test_committed_spec_matches_the_served_one(client: TestClient[Litestar]) -> None:
    served = client.get("/schema/openapi.json").json()
    committed = json.loads(SPEC_FILE.read_text())
    assert committed == served, "openapi/openapi.json is stale: run `make openapi`"


def test_cli_prints_the_same_spec() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cardproof.cli", "openapi"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    assert json.loads(out) == json.loads(SPEC_FILE.read_text())


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def test_every_error_is_documented_as_problem_json() -> None:
    spec = json.loads(SPEC_FILE.read_text())
    for path, method, op in _operations(spec):
        expected = {"500"} | ({"400", "413"} if method == "post" else set())
        assert expected <= set(op["responses"]), (path, method)
        for status, response in op["responses"].items():
            if (path, status) == ("/readyz", "503"):
                assert list(response["content"]) == ["application/json"]  # a Readiness body
            elif status.startswith(("4", "5")):
                assert list(response["content"]) == ["application/problem+json"], (path, status)


def test_request_bodies_are_closed_and_exact() -> None:
    spec = json.loads(SPEC_FILE.read_text())
    schemas = spec["components"]["schemas"]
    for path, method, op in _operations(spec):
        if method != "post":
            continue
        media = op["requestBody"]["content"]["application/json"]
        name = media["schema"]["$ref"].rsplit("/", 1)[1]
        assert schemas[name]["additionalProperties"] is False, name
        assert "example" in media, path
    assert schemas["ScoreRequest"]["properties"]["layout"]["minItems"] == 5
    assert schemas["Options"]["additionalProperties"] is False
    assert schemas["CustomTable"]["additionalProperties"] is False
