"""The OpenAPI document: Litestar's paths with msgspec's exact schemas.

Litestar describes operations, parameters and responses; msgspec describes the
types exactly as they are decoded (``additionalProperties: false``, patterns,
bounds). After the app is built, every component schema of a cardproof type is
replaced by msgspec's, and each operation that reads a body (``opt={"body": T}``)
gets ``T`` as its request body, with ``opt["example"]`` as its example.

The document is shaped for client generators: every operation has a verb-first
``operationId`` (set on its route), schemas are named so that no generator's own
types clash with them (a type's ``__schema_name__``), every enum is a named
component, responses type ``variant`` and ``options`` as requests do, bearer tokens
are security schemes, and the operations that make ids link to those that take them.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Final, get_args

import msgspec
from litestar import Litestar, Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    Components,
    Link,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Reference,
    RequestBody,
    Schema,
    SecurityRequirement,
    SecurityScheme,
    Server,
)

from cardproof import __version__, hands, models, receipts, tables
from cardproof.games import VARIANTS, grid
from cardproof.games.base import Information

WIRE_MODULES = (models, receipts, hands, grid)
"""The modules whose msgspec types appear on the wire: their schemas come from msgspec."""

DESCRIPTION = (
    "cardproof deals committed, seeded deals of poker-solitaire games, checks every move "
    "against the variant's rules and returns verified scores. Every error is "
    "application/problem+json (RFC 9457): 400 when the request cannot be read, 422 when "
    "it reads fine but breaks a rule."
)


ORGANIZER_KEY: Final = "organizerKey"
ENTRANT_TOKEN: Final = "entrantToken"
INVITE_CODE: Final = "inviteCode"
SECURITY_SCHEMES: Final = {
    ORGANIZER_KEY: SecurityScheme(
        type="http",
        scheme="bearer",
        bearer_format="cpo_...",
        description="An organizer key (`Authorization: Bearer cpo_...`), made by "
        "`cardproof keys organizer create`: it creates tournaments and runs its own.",
    ),
    ENTRANT_TOKEN: SecurityScheme(
        type="http",
        scheme="bearer",
        bearer_format="cpe_...",
        description="An entrant's token (`Authorization: Bearer cpe_...`), from POST "
        "/v1/tournaments/{tournament_id}/entries: it opens and plays the entrant's games "
        "and reads their tournament, until it closes.",
    ),
    INVITE_CODE: SecurityScheme(
        type="apiKey",
        name="X-Invite-Code",
        security_scheme_in="header",
        description="One of an invite-only tournament's invite codes: it reads the tournament.",
    ),
}
"""The credentials the API takes; each operation's ``security`` names those it reads."""
ORGANIZER_ONLY: Final[list[SecurityRequirement]] = [{ORGANIZER_KEY: []}]
"""An organizer's operation: its key is required."""
ENTRANT_ONLY: Final[list[SecurityRequirement]] = [{ENTRANT_TOKEN: []}]
"""An entrant's operation: their token is required."""
ENTRANT_IF_TOURNAMENT: Final[list[SecurityRequirement]] = [{}, {ENTRANT_TOKEN: []}]
"""A deal's operation: open to anyone, but a tournament game's take its entrant's token."""
TOURNAMENT_READERS: Final[list[SecurityRequirement]] = [
    {},
    {ORGANIZER_KEY: []},
    {ENTRANT_TOKEN: []},
    {INVITE_CODE: []},
]
"""A tournament read: a public one by anyone, an invite-only one with any credential of it."""


def openapi_config(public_url: str | None = None) -> OpenAPIConfig:
    """Spec at ``/schema/openapi.json``, an API reference page at ``/schema``.

    ``servers`` is ``public_url`` (``CARDPROOF_PUBLIC_URL``), else ``/``. The page is
    Swagger UI from the assets the package ships (``/static/swagger``, pinned by
    ``web/package-lock.json``): it works with no internet, and loads nothing outside.
    """
    return OpenAPIConfig(
        title="cardproof",
        version=__version__,
        description=DESCRIPTION,
        path="/schema",
        render_plugins=[OfflineSwagger(path="/swagger")],
        use_handler_docstrings=True,
        servers=[Server(url=public_url or "/")],
        components=Components(security_schemes=dict(SECURITY_SCHEMES)),
    )


class OfflineSwagger(SwaggerRenderPlugin):
    """Swagger UI from the package's own assets, with no inline script.

    Litestar's page inlines the spec in a script; this one loads ``swagger-init.js``
    (``service/web/pages``), which reads ``/schema/openapi.json``, so the page runs under
    the same policy as the client's pages (``script-src 'self'``).
    """

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        """The page: the stylesheet and three scripts of this origin, and an empty mount."""
        return (
            b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            b'<meta name="viewport" content="width=device-width, initial-scale=1">'
            b"<title>cardproof API reference</title>"
            b'<link rel="stylesheet" href="/static/swagger/swagger-ui.css">'
            b'<script src="/static/swagger/swagger-ui-bundle.js" defer></script>'
            b'<script src="/static/swagger/swagger-init.js" defer></script>'
            b'</head><body><main id="swagger-container"></main></body></html>\n'
        )


@dataclass
class RawSchema(Schema):
    """A schema given as a ready JSON Schema dict (what msgspec produced)."""

    raw: dict[str, Any] = field(default_factory=dict)

    def to_schema(self) -> dict[str, Any]:
        """The dict as is."""
        return self.raw


def clean_descriptions(schema: Any) -> Any:
    """``schema`` with every ``description`` dedented (msgspec copies raw docstrings)."""
    if isinstance(schema, dict):
        return {
            key: inspect.cleandoc(value)
            if key == "description" and isinstance(value, str)
            else clean_descriptions(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [clean_descriptions(item) for item in schema]
    return schema


REF: Final = "#/components/schemas/"


def schema_name(t: type) -> str:
    """A type's component name: its ``__schema_name__`` (Litestar reads it too), else its name.

    A type whose class name a generator uses for its own types (``Options``) has one.
    """
    name = getattr(t, "__schema_name__", None)
    return name if isinstance(name, str) else t.__name__


ENUM_NAMES: Final[dict[str, tuple[str | int, ...]]] = {
    "VariantId": tuple(VARIANTS),
    "TableName": get_args(hands.TableName),
    "PointSystemName": get_args(tables.GeneratedName),
    "HandCategory": get_args(hands.CategoryId),
    "HindsightMethod": get_args(models.HindsightMethod),
    "ParMethod": get_args(models.ParMethod),
    "TournamentFormat": get_args(models.TournamentFormat),
    "RoundPhase": get_args(models.RoundPhase),
    "ReceiptKind": get_args(receipts.ReceiptKind),
    "Information": get_args(Information),
    "TournamentStatus": ("scheduled", "open", "closed"),
    "EntryMode": ("public", "invite"),
    "ParFoundBy": ("solver", "entrant"),
    "ReadinessStatus": ("ready", "not-ready"),
    "SoloDrezResult": ("won", "lost", "unknown"),
    "HighCardRule": ("drop-top", "clear-row"),
    "RepeatLevels": (1, 5),
}
"""Each enum of two or more values is a component of this name (matched by its values):
a generator then makes one named type of it, not one per place (``OptionsScoringType0``)."""

RESPONSE_FIELDS: Final[dict[str, dict[str, str]]] = {
    **{
        name: {"variant": "VariantId", "options": schema_name(models.Options)}
        for name in ("DealState", "VerifyResult", "Tournament", "ReceiptPayload")
    },
    "VariantInfo": {"id": "VariantId"},
}
"""Response fields typed loosely in Python (``str``, ``dict``) whose values are exactly a
request's: a variant id, and the variant options in force (as a request states them)."""


def install_exact_schemas(app: Litestar) -> None:
    """Put msgspec's schemas, the request bodies and the links into the app's spec."""
    spec = app.openapi_schema
    bodies: dict[tuple[str, str], tuple[type[msgspec.Struct], Any]] = {}
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            body_type = handler.opt.get("body")
            if body_type is not None:
                for method in handler.http_methods:
                    bodies[(route.path_format, method.lower())] = (
                        body_type,
                        handler.opt.get("example"),
                    )
    types: set[Any] = {body_type for body_type, _ in bodies.values()}
    components = spec.components if isinstance(spec.components, Components) else Components()
    types.update(
        t
        for module in WIRE_MODULES
        for t in vars(module).values()
        if isinstance(t, type) and issubclass(t, msgspec.Struct) and t.__module__ == module.__name__
    )
    ordered = sorted(types, key=lambda t: t.__name__)
    _, defs = msgspec.json.schema_components(ordered, ref_template=REF + "{name}")
    defs["MoveObject"] = move_object_schema(defs["MoveObject"])
    renamed = {t.__name__: schema_name(t) for t in ordered if schema_name(t) != t.__name__}
    litestars = {name: schema.to_schema() for name, schema in (components.schemas or {}).items()}
    exact = {name: plain_tuples(clean_descriptions(schema)) for name, schema in defs.items()}
    schemas = {**rename_schemas(litestars, renamed), **rename_schemas(exact, renamed)}
    schemas = name_enums(schemas)
    type_responses(schemas)
    components.schemas = {name: RawSchema(raw=schemas[name]) for name in sorted(schemas)}
    spec.components = components
    _optional_headers_as_strings(spec.paths or {})
    for (path, method), (body_type, example) in bodies.items():
        operation = getattr(spec.paths[path] if spec.paths else None, method, None)
        if isinstance(operation, Operation):
            operation.request_body = RequestBody(
                content={
                    "application/json": OpenAPIMediaType(
                        schema=Reference(ref=REF + schema_name(body_type)),
                        example=example,
                    )
                },
                required=True,
            )
    add_links(spec.paths or {})


def rename_schemas(schemas: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
    """``schemas`` with each old name of ``renamed`` replaced, as a key and in references."""
    refs = {REF + old: REF + new for old, new in renamed.items()}

    def rename(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: rename(value) for key, value in node.items()}
        if isinstance(node, list):
            return [rename(item) for item in node]
        return refs.get(node, node) if isinstance(node, str) else node

    def titled(name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """A renamed schema's title is its new name (some generators name types by title)."""
        new = renamed.get(name, name)
        return {**schema, "title": new} if schema.get("title") == name else schema

    return {
        renamed.get(name, name): rename(titled(name, schema)) for name, schema in schemas.items()
    }


def _json_type(values: list[Any]) -> str:
    """The JSON type all of an enum's values share (cardproof's are strings or integers)."""
    return "integer" if all(isinstance(v, int) for v in values) else "string"


def name_enums(schemas: dict[str, Any]) -> dict[str, Any]:
    """``schemas`` with each enum of two or more values a reference to a named component.

    A one-value enum becomes a ``const`` (a tag, such as a view's ``kind``).

    An enum whose values :data:`ENUM_NAMES` does not name is an error: name it there.
    """
    names = {frozenset(values): name for name, values in ENUM_NAMES.items()}
    named: dict[str, Any] = {}

    def visit(node: Any) -> Any:
        if isinstance(node, list):
            return [visit(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "enum" not in node:
            return {key: visit(value) for key, value in node.items()}
        values = list(node["enum"])
        rest = {key: value for key, value in node.items() if key not in {"enum", "type"}}
        if len(values) == 1:
            return {"type": _json_type(values), "const": values[0], **rest}
        name = names.get(frozenset(values))
        if name is None:
            raise ValueError(f"an enum without a name: {values}; name it in ENUM_NAMES")
        own = {key: rest.pop(key) for key in ("description", "pattern") if key in rest}
        named.setdefault(name, {"type": _json_type(values), "enum": values, **own})
        return {"$ref": REF + name, **rest}

    visited = {name: visit(schema) for name, schema in schemas.items()}
    clash = set(named) & set(visited)
    if clash:
        raise ValueError(f"enum names taken by schemas: {sorted(clash)}")
    return {**visited, **named}


def type_responses(schemas: dict[str, Any]) -> None:
    """Type the loose response fields of :data:`RESPONSE_FIELDS` as requests type them."""
    for schema_name_, fields in RESPONSE_FIELDS.items():
        properties = schemas[schema_name_]["properties"]
        for field_name, target in fields.items():
            loose = properties[field_name]
            if loose.get("type") not in {"string", "object"} or "$ref" in loose:
                raise ValueError(f"{schema_name_}.{field_name} is typed already: {loose}")
            kept = {key: value for key, value in loose.items() if key == "description"}
            properties[field_name] = {"$ref": REF + target, **kept}


BODY: Final = "$response.body#/"
LINKS: Final[dict[tuple[str, str], dict[str, Link]]] = {
    ("createCommitment", "201"): {
        "CreateDeal": Link(
            operation_id="createDeal",
            request_body={"commitment_id": BODY + "commitment_id"},
            description="Deal from the commitment: its id, once, in POST /v1/deals.",
        ),
    },
    **{
        (source, "201"): {
            target[0].upper() + target[1:]: Link(
                operation_id=target,
                parameters={"deal_id": BODY + "deal_id"},
                description=f"The deal's id as `deal_id` of {target}.",
            )
            for target in ("getDeal", "playMove", "getReceipt")
        }
        for source in ("createDeal", "openRoundGame")
    },
    ("createTournament", "201"): {
        target[0].upper() + target[1:]: Link(
            operation_id=target,
            parameters={"tournament_id": BODY + "tournament/tournament_id"},
            description=f"The new tournament's id as `tournament_id` of {target}.",
        )
        for target in (
            "getTournament",
            "enterTournament",
            "createInvites",
            "getStandings",
            "getSettlement",
            "closeTournament",
            "exportTournament",
            "getRound",
            "startRound",
            "getRoundCalls",
        )
    },
    ("createInvites", "201"): {
        "EnterTournament": Link(
            operation_id="enterTournament",
            parameters={"tournament_id": BODY + "tournament_id"},
            request_body={"invite_code": BODY + "codes/0"},
            description="Enter the tournament with the first of the fresh invite codes.",
        ),
    },
    ("enterTournament", "201"): {
        "OpenRoundGame": Link(
            operation_id="openRoundGame",
            parameters={
                "tournament_id": BODY + "tournament_id",
                "round_number": "1",
                "header.Authorization": "Bearer {" + BODY + "token}",
            },
            description="Open the entrant's game on round 1 with the entrant's token.",
        ),
        "GetTournament": Link(
            operation_id="getTournament",
            parameters={"tournament_id": BODY + "tournament_id"},
            description="Read the tournament entered.",
        ),
    },
}
"""OpenAPI links: from the operations that make an id to those that take it, by
operationId and status (schemathesis' stateful tests follow them)."""


def add_links(paths: Any) -> None:
    """Attach :data:`LINKS` to their operations' responses (each source must exist)."""
    sources: dict[tuple[str, str], OpenAPIResponse] = {}
    for item in paths.values():
        for method in ("get", "post"):
            operation = getattr(item, method, None)
            if isinstance(operation, Operation) and operation.responses:
                for status, response in operation.responses.items():
                    if isinstance(response, OpenAPIResponse):
                        sources[(operation.operation_id or "", status)] = response
    for source, links in LINKS.items():
        sources[source].links = dict(links)


def plain_tuples(schema: Any) -> Any:
    """``schema`` with each tuple of one item type as a plain array of that type.

    msgspec writes ``tuple[int, int]`` as ``prefixItems`` with ``items: false``, which
    generators such as openapi-python-client refuse outright; ``minItems`` and
    ``maxItems`` keep the length, and ``items`` the one type.
    """
    if isinstance(schema, list):
        return [plain_tuples(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    plain = {key: plain_tuples(value) for key, value in schema.items()}
    prefix = plain.get("prefixItems")
    if plain.get("items") is False and prefix and all(item == prefix[0] for item in prefix):
        del plain["prefixItems"]
        plain["items"] = prefix[0]
        plain["minItems"] = plain["maxItems"] = len(prefix)
    return plain


MOVE_SHAPES: Final = {
    "a cell of a grid variant (poker-patience: relative to the first card)": ("row", "col"),
    "a row of repeat-poker": ("row",),
    "reserve-poker: from a reserve column to a grid column": ("from", "to"),
    "solodrez: the last count cards of column from, onto column to": ("from", "count", "to"),
    "solodrez: remove the series in a column": ("remove",),
    "solodrez: end the game": ("stop",),
}
"""Each variant's move object: its description and its fields (all required)."""


def move_object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``MoveObject`` as a ``oneOf`` of each variant's move.

    Generated clients then build typed moves; the server reads any of them as the one
    struct it decodes, and the variant's rules say which shape it takes.
    """
    properties = schema["properties"]
    shapes = [
        {
            "type": "object",
            "title": "".join(word.capitalize() for word in fields) + "Move",
            "description": description,
            "properties": {field: properties[field] for field in fields},
            "required": list(fields),
            "additionalProperties": False,
        }
        for description, fields in MOVE_SHAPES.items()
    ]
    kept = {key: value for key, value in schema.items() if key in {"title", "description"}}
    return {**kept, "oneOf": shapes}


def _optional_headers_as_strings(paths: Any) -> None:
    """An optional header is a string that may be left out, not ``string | null``.

    Litestar states ``str | None`` header parameters as ``oneOf: [string, null]``, but a
    header cannot be JSON null: left as it is, a client (schemathesis, say) sends the text
    ``null``. The parameter is ``required: false``; its schema is the string's.
    """
    for item in paths.values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method, None)
            for parameter in getattr(operation, "parameters", None) or ():
                schema = getattr(parameter, "schema", None)
                if getattr(parameter, "param_in", None) != "header" or not isinstance(
                    schema, Schema
                ):
                    continue
                if schema.one_of and any(
                    isinstance(branch, Schema) and branch.type == "null" for branch in schema.one_of
                ):
                    schema.one_of = None
                    schema.type = "string"  # type: ignore[assignment]
