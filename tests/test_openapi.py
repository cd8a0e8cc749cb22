"""The committed spec is what the app serves, documents every error, and suits generators.

Generators name what the spec names: every operation has an explicit verb-first
operationId, no schema name is a generator's own or looks made up by one, every enum is a
named component, responses type ``variant`` and ``options`` as requests do, every member
a problem answer carries is declared, bearer tokens are security schemes that the
operations enforce, ``servers`` is the public URL, and links join the ids.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.testing import TestClient
from openapi_spec_validator import validate

from cardproof.games import VARIANTS
from cardproof.models import Options
from cardproof_service import Settings, create_app
from cardproof_service.plumbing.problems import conflict, problem, problem_body
from cardproof_service.plumbing.settings import SettingsError
from conftest import TEST_KEYS

ROOT = Path(__file__).parent.parent
SPEC_FILE = ROOT / "openapi" / "openapi.json"
VERBS = {
    "check", "close", "create", "enter", "export", "get", "list", "open", "play", "score",
    "solve", "start", "verify",
}  # fmt: skip
"""The verbs an operationId may start with."""
GENERATOR_NAMES = {
    "Auth", "AuthenticatedClient", "Client", "ClientOptions", "Components", "Config", "Error",
    "Errors", "File", "FileTypes", "Headers", "Options", "Operations", "Paths", "Request",
    "RequestOptions", "RequestResult", "Response", "TDataShape", "Types", "UNSET", "Unset",
    "Webhooks",
}  # fmt: skip
"""Types generators define themselves (hey-api, openapi-python-client, openapi-typescript,
orval): a schema of one of these names comes out renamed (hey-api's ``Options2``)."""
GENERATOR_SUFFIX = re.compile(r"(?:Type\d+|\d)$")
OPERATION_SUFFIXES = ("Data", "Error", "Errors", "Response", "Responses")
"""hey-api's types for an operation: ``CreateDealData``, ``CreateDealResponse``, ..."""


def test_committed_spec_matches_the_served_one(client: TestClient[Litestar]) -> None:
    served = client.get("/schema/openapi.json").json()
    committed = json.loads(SPEC_FILE.read_text())
    assert committed == served, "openapi/openapi.json is stale: run `make openapi`"


def test_the_served_spec_passes_the_openapi_schema(client: TestClient[Litestar]) -> None:
    """openapi-spec-validator checks the served spec against OpenAPI 3.1's JSON Schema, as
    generators (orval, openapi-generator) do before reading it: a link's constant
    parameter, say, must be a string there."""
    served = client.get("/schema/openapi.json").json()
    assert served["openapi"].startswith("3.1")
    validate(served)


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
    assert schemas["VariantOptions"]["additionalProperties"] is False
    assert schemas["CustomTable"]["additionalProperties"] is False


def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(SPEC_FILE.read_text())
    return spec


def _walk(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every object in ``node`` with its JSON pointer."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        found.append((where, node))
        for key, value in node.items():
            found.extend(_walk(value, f"{where}/{key}"))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_walk(value, f"{where}/{index}"))
    return found


def test_every_operation_has_an_explicit_verb_first_operation_id(app: Litestar) -> None:
    handlers = [
        handler
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if isinstance(handler, HTTPRouteHandler) and handler.resolve_include_in_schema()
    ]
    assert handlers
    for handler in handlers:  # set on the route, not Litestar's path-derived default
        assert isinstance(handler.operation_id, str), handler
    ids = [op["operationId"] for _, _, op in _operations(_spec())]
    assert len(ids) == len(set(ids)) == len(handlers)
    for operation_id in ids:
        assert re.fullmatch(r"[a-z]+(?:[A-Z][a-z0-9]*)+", operation_id), operation_id
        assert re.match(r"[a-z]+", operation_id)[0] in VERBS, operation_id  # type: ignore[index]
    assert {"createCommitment", "createDeal", "getDeal", "playMove", "getReceipt"} <= set(ids)
    assert {"verifyLog", "getJwks", "createTournament", "openRoundGame"} <= set(ids)


def test_no_schema_name_clashes_with_a_generators_own() -> None:
    spec = _spec()
    names = set(spec["components"]["schemas"])
    operation_types = {
        op["operationId"][0].upper() + op["operationId"][1:] + suffix
        for _, _, op in _operations(spec)
        for suffix in OPERATION_SUFFIXES
    }
    for name in names:
        assert not GENERATOR_SUFFIX.search(name), name
        assert name not in GENERATOR_NAMES, name
        assert name not in operation_types, name
        title = spec["components"]["schemas"][name].get("title", name)
        assert title == name, (name, title)  # generators name a type by its title
    assert {"VariantOptions", "VariantId", "TableName", "ReceiptKind"} <= names


def test_every_enum_is_a_named_component_and_every_reference_resolves() -> None:
    spec = _spec()
    schemas = spec["components"]["schemas"]
    for where, node in _walk(spec):
        if "enum" in node:  # a component of its own, not inline (OptionsScoringType0)
            assert re.fullmatch(r"/components/schemas/\w+", where), where
            assert len(node["enum"]) > 1, where  # a single value is a const
        ref = node.get("$ref")
        if isinstance(ref, str):
            assert ref.startswith("#/components/schemas/"), (where, ref)
            assert ref.rsplit("/", 1)[1] in schemas, (where, ref)
    assert schemas["VariantId"]["enum"] == list(VARIANTS)
    scoring = schemas["VariantOptions"]["properties"]["scoring"]["anyOf"]
    assert [branch["$ref"].rsplit("/", 1)[1] for branch in scoring] == [
        "TableName",
        "PointSystemName",
        "CustomTable",
    ]
    assert schemas["GridView"]["properties"]["kind"] == {"type": "string", "const": "grid"}


def test_responses_type_variant_and_options_as_requests_do(
    client: TestClient[Litestar], owner: str
) -> None:
    schemas = _spec()["components"]["schemas"]
    for name in ("DealState", "VerifyResult", "Tournament", "ReceiptPayload"):
        properties = schemas[name]["properties"]
        assert properties["variant"]["$ref"] == "#/components/schemas/VariantId", name
        assert properties["options"]["$ref"] == "#/components/schemas/VariantOptions", name
    assert schemas["VariantInfo"]["properties"]["id"]["$ref"] == "#/components/schemas/VariantId"
    # and what the server sends is what the schema says (an Options a request may send)
    asked = [
        ("poker-squares", {"scoring": "ameritish", "diagonals": True}),
        ("poker-patience", {"scoring": {"flush": 3}}),
        ("repeat-poker", {"levels": 5, "high_card": "clear-row"}),
        ("reserve-poker", {"version": "random"}),
        ("serpent-patience", {}),
        ("solodrez", {}),
    ]
    for variant_id, options in asked:
        deal = client.post("/v1/deals", json={"variant": variant_id, "options": options})
        assert deal.status_code == 201, deal.text
        assert deal.json()["variant"] in VARIANTS
        msgspec.convert(deal.json()["options"], Options)  # strict: no unknown member
    now = datetime.now(UTC)
    created = client.post(
        "/v1/tournaments",
        json={
            "name": "Typed",
            "variant": "repeat-poker",
            "options": {"rows": 2},
            "rounds": 1,
            "opens_at": (now - timedelta(hours=1)).isoformat(),
            "closes_at": (now + timedelta(hours=1)).isoformat(),
            "entry": "public",
            "format": "lockstep",
        },
        headers={"Authorization": owner},
    )
    assert created.status_code == 201, created.text
    msgspec.convert(created.json()["tournament"]["options"], Options)


def test_problem_members_are_all_declared(client: TestClient[Litestar]) -> None:
    declared = set(_spec()["components"]["schemas"]["Problem"]["properties"])
    # every member passed where a problem is raised, throughout the service
    raisers = {"problem", "conflict", "not_found", "come_back", "problem_body", "unauthorized"}
    fixed = {"type_", "limited", "status", "detail", "code", "retry_after", "realm"}
    passed = set()
    for path in (ROOT / "service" / "cardproof_service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in raisers:
                    passed |= {k.arg for k in node.keywords if k.arg and k.arg not in fixed}
    assert {"next_index", "taken_by", "started_at", "deal_id", "call", "placed"} <= passed
    assert passed | {"code"} <= declared, passed - declared
    # the server refuses to raise an undeclared member at all
    with pytest.raises(ValueError, match="not declared"):
        conflict("a detail", "a-code", undeclared=1)
    with pytest.raises(ValueError, match="not declared"):
        problem(422, "a detail", hint="no")
    with pytest.raises(ValueError, match="not declared"):
        problem_body(429, "a detail", type_="/problems/x", hint="no")
    # and the 409 of a move whose index is not next carries next_index, declared
    deal = client.post("/v1/deals", json={"variant": "poker-squares"}).json()
    early = client.post(
        f"/v1/deals/{deal['deal_id']}/moves", json={"index": 2, "move": {"row": 0, "col": 0}}
    )
    assert early.status_code == 409
    assert early.json()["next_index"] == 0
    assert set(early.json()) <= declared


def test_bearer_tokens_are_security_schemes_the_operations_enforce(
    client: TestClient[Litestar], owner: str
) -> None:
    spec = _spec()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["organizerKey"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "cpo_...",
        "description": schemes["organizerKey"]["description"],
    }
    assert schemes["entrantToken"]["scheme"] == "bearer"
    assert schemes["inviteCode"] == {
        **schemes["inviteCode"],
        "in": "header",
        "name": "X-Invite-Code",
    }
    security: dict[str, Any] = {
        op["operationId"]: op.get("security") for _, _, op in _operations(spec)
    }
    organizer: list[dict[str, list[str]]] = [{"organizerKey": []}]
    entrant: list[dict[str, list[str]]] = [{"entrantToken": []}]
    assert security["createTournament"] == security["closeTournament"] == organizer
    assert security["createInvites"] == security["startRound"] == organizer
    assert security["listTournaments"] == organizer
    assert security["openRoundGame"] == entrant
    assert security["playMove"] == [{}, {"entrantToken": []}]  # a tournament game's only
    assert {} in security["getTournament"]
    assert {"inviteCode": []} in security["getTournament"]
    assert security["createDeal"] is None
    assert security["listVariants"] is None
    for scheme in (name for options in security.values() for s in options or () for name in s):
        assert scheme in schemes
    # an operation that admits no anonymous caller refuses one: 401, WWW-Authenticate
    now = datetime.now(UTC)
    body = {
        "name": "Guarded",
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": (now - timedelta(hours=1)).isoformat(),
        "closes_at": (now + timedelta(hours=1)).isoformat(),
        "entry": "public",
        "format": "lockstep",
    }
    tournament_id = client.post(
        "/v1/tournaments", json=body, headers={"Authorization": owner}
    ).json()["tournament"]["tournament_id"]
    paths = {
        "createTournament": ("/v1/tournaments", body),
        "createInvites": (f"/v1/tournaments/{tournament_id}/invites", {"count": 1}),
        "closeTournament": (f"/v1/tournaments/{tournament_id}/close", {}),
        "startRound": (f"/v1/tournaments/{tournament_id}/rounds/1/start", {}),
        "openRoundGame": (f"/v1/tournaments/{tournament_id}/rounds/1/deal", {}),
    }
    anonymous = {op for op, required in security.items() if required and {} not in required}
    assert anonymous == set(paths) | {"listTournaments"}
    for query in ("", "?limit=0", "?cursor=" + "x" * 100):  # the key first, then the query
        listed = client.get("/v1/tournaments" + query)
        assert listed.status_code == 401, listed.text
        assert listed.headers["www-authenticate"].startswith("Bearer")
    for operation_id, (path, payload) in paths.items():
        refused = client.post(path, json=payload)
        assert refused.status_code == 401, (operation_id, refused.text)
        assert refused.headers["www-authenticate"].startswith("Bearer"), operation_id
        # the credential is asked for first: before a bad path or body is read (a 400
        # would tell an anonymous caller about the request's shape)
        malformed = path.replace(tournament_id, "t_" + "x" * 70) + "?"
        for sent in ({"json": {"unknown": 1}}, {"content": b"{not json"}):
            early = client.post(malformed, **sent)
            assert early.status_code == 401, (operation_id, early.text)
    assert client.get(f"/v1/tournaments/{tournament_id}").status_code == 200  # {}: anyone


def test_servers_is_the_public_url() -> None:
    assert _spec()["servers"] == [{"url": "/"}]  # unset: wherever the spec was read
    settings = Settings(warm_up=False, public_url="https://cards.example.org/api")
    app = create_app(settings, keys=TEST_KEYS)
    with TestClient(app=app) as served:
        spec = served.get("/schema/openapi.json").json()
    assert spec["servers"] == [{"url": "https://cards.example.org/api"}]
    public = Settings.from_env({"CARDPROOF_PUBLIC_URL": "https://cards.example.org/"})
    assert public.public_url == "https://cards.example.org"
    assert Settings.from_env({}).public_url is None
    for bad in ("cards.example.org", "ftp://cards.example.org", "https://x.org/?a=1"):
        with pytest.raises(SettingsError, match="CARDPROOF_PUBLIC_URL"):
            Settings.from_env({"CARDPROOF_PUBLIC_URL": bad})


def test_links_join_the_operations_that_make_ids_to_those_that_take_them() -> None:
    spec = _spec()
    schemas = spec["components"]["schemas"]
    operations = {op["operationId"]: op for _, _, op in _operations(spec)}
    found = set()
    for source_id, source in operations.items():
        for status, response in source["responses"].items():
            for link in response.get("links", {}).values():
                target = operations[link["operationId"]]
                found.add((source_id, link["operationId"]))
                declared = {p["name"] for p in target.get("parameters", ())}
                body = response["content"]["application/json"]["schema"]["$ref"].rsplit("/")[-1]
                expressions = dict(link.get("parameters", {}))
                expressions.update(link.get("requestBody", {}))
                for name in link.get("parameters", {}):
                    assert name in declared or name.startswith("header."), (source_id, name)
                for expression in expressions.values():
                    for pointer in re.findall(r"\$response\.body#/([\w/]+)", str(expression)):
                        schema = schemas[body]
                        for part in pointer.split("/"):  # the pointer names a response member
                            if part.isdigit():
                                schema = schema["items"]
                                continue
                            schema = schema["properties"][part]
                            if "$ref" in schema:
                                schema = schemas[schema["$ref"].rsplit("/")[-1]]
                assert status.startswith("2"), (source_id, status)
    assert {
        ("createCommitment", "createDeal"),
        ("createDeal", "getDeal"),
        ("createDeal", "playMove"),
        ("createDeal", "getReceipt"),
        ("createTournament", "getTournament"),
        ("createTournament", "startRound"),
        ("enterTournament", "openRoundGame"),
        ("openRoundGame", "playMove"),
        ("createInvites", "enterTournament"),
    } <= found
