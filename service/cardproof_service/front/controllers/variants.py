"""``GET /v1/variants``: the games cardproof knows, their options and tables."""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
from litestar import Controller, get

from cardproof.games import VARIANTS, Game
from cardproof.hands import TABLES
from cardproof.models import VariantInfo
from cardproof.tables import GENERATED
from cardproof_service.front.errors import problem_responses
from cardproof_service.front.openapi import clean_descriptions


def options_schema(options_type: type[msgspec.Struct]) -> dict[str, Any]:
    """A self-contained JSON Schema of an options type (its own fields at the top)."""
    (ref,), defs = msgspec.json.schema_components([options_type], ref_template="#/$defs/{name}")
    schema: dict[str, Any] = dict(defs.pop(ref["$ref"].rsplit("/", 1)[1]))
    if defs:
        schema["$defs"] = defs
    cleaned: dict[str, Any] = clean_descriptions(schema)
    return cleaned


def takes_scoring(cls: type[Game[Any, Any]]) -> bool:
    """Whether a variant's options choose its point table (``scoring``)."""
    return "scoring" in {field.name for field in msgspec.structs.fields(cls.options_type)}


def tables_of(cls: type[Game[Any, Any]]) -> dict[str, dict[str, int]]:
    """The named tables a variant takes.

    All of them where ``scoring`` is an option, else its fixed one (repeat-poker,
    reserve-poker), else none (solodrez counts series).
    """
    if takes_scoring(cls):
        return {name: table.as_mapping() for name, table in TABLES.items()}
    fixed = getattr(cls.parse_options(None), "table", None)
    return {} if fixed is None else {fixed.name: fixed.as_mapping()}


@cache
def variant_infos() -> list[VariantInfo]:
    """Every registered variant, described (computed once)."""
    return [
        VariantInfo(
            id=cls.id,
            title=cls.title,
            information=cls.information,
            description=cls.description,
            deck=cls.deck_type,
            options=options_schema(cls.options_type),
            tables=tables_of(cls),
            point_systems=list(GENERATED) if takes_scoring(cls) else [],
            information_by_option=cls.information_by_option(),
            unfinished="Decision (docs/rules.md section 9): in a tournament, a game not "
            "finished by the close (abandoned, a dead end, never opened) counts as the worst "
            "score its options allow, so that leaving never beats finishing: "
            f"{cls.unfinished_rule}.",
        )
        for cls in VARIANTS.values()
    ]


class VariantsController(Controller):
    """The variant registry, read-only."""

    path = "/v1/variants"
    tags = ("variants",)

    @get(
        "", operation_id="listVariants", summary="List the variants", responses=problem_responses()
    )
    async def list_variants(self) -> list[VariantInfo]:
        """Each variant's id, rules in brief, options (JSON Schema) and point tables."""
        return variant_infos()
