"""The OpenAPI document: Litestar's paths with msgspec's exact schemas.

Litestar describes operations, parameters and responses; msgspec describes the
types exactly as they are decoded (``additionalProperties: false``, patterns,
bounds). After the app is built, every component schema of a cardproof type is
replaced by msgspec's, and each operation that reads a body (``opt={"body": T}``)
gets ``T`` as its request body, with ``opt["example"]`` as its example.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec
from litestar import Litestar, Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    Components,
    OpenAPIMediaType,
    Operation,
    Reference,
    RequestBody,
    Schema,
)

from cardproof import __version__, hands, models, receipts
from cardproof.games import grid

WIRE_MODULES = (models, receipts, hands, grid)
"""The modules whose msgspec types appear on the wire: their schemas come from msgspec."""

DESCRIPTION = (
    "cardproof deals committed, seeded deals of poker-solitaire games, checks every move "
    "against the variant's rules and returns verified scores. Every error is "
    "application/problem+json (RFC 9457): 400 when the request cannot be read, 422 when "
    "it reads fine but breaks a rule."
)


def openapi_config() -> OpenAPIConfig:
    """Spec at ``/schema/openapi.json``, an API reference page at ``/schema``.

    The page is Swagger UI from the assets the package ships (``/static/swagger``, pinned
    by ``web/package-lock.json``): it works with no internet, and loads nothing outside.
    """
    return OpenAPIConfig(
        title="cardproof",
        version=__version__,
        description=DESCRIPTION,
        path="/schema",
        render_plugins=[OfflineSwagger(path="/swagger")],
        use_handler_docstrings=True,
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


def install_exact_schemas(app: Litestar) -> None:
    """Put msgspec's schemas and the request bodies into the app's spec."""
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
    known = components.schemas or {}
    types.update(
        t
        for module in WIRE_MODULES
        for t in vars(module).values()
        if isinstance(t, type) and issubclass(t, msgspec.Struct) and t.__module__ == module.__name__
    )
    _, defs = msgspec.json.schema_components(
        sorted(types, key=lambda t: t.__name__), ref_template="#/components/schemas/{name}"
    )
    defs["MoveObject"] = move_object_schema(defs["MoveObject"])
    for name, schema in defs.items():
        known[name] = RawSchema(raw=plain_tuples(clean_descriptions(schema)))
    components.schemas = dict(sorted(known.items()))
    spec.components = components
    _optional_headers_as_strings(spec.paths or {})
    for (path, method), (body_type, example) in bodies.items():
        operation = getattr(spec.paths[path] if spec.paths else None, method, None)
        if isinstance(operation, Operation):
            operation.request_body = RequestBody(
                content={
                    "application/json": OpenAPIMediaType(
                        schema=Reference(ref=f"#/components/schemas/{body_type.__name__}"),
                        example=example,
                    )
                },
                required=True,
            )


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
