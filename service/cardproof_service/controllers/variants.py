"""``GET /v1/variants``: the games cardproof knows, their options and tables."""

from __future__ import annotations

from functools import cache

import msgspec
from litestar import Controller, get

from cardproof.games import VARIANTS
from cardproof.hands import TABLES
from cardproof.models import VariantInfo
from cardproof_service.problems import problem_responses


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
            options=msgspec.json.schema(cls.options_type),
            tables={name: table.as_mapping() for name, table in TABLES.items()},
        )
        for cls in VARIANTS.values()
    ]


class VariantsController(Controller):
    """The variant registry, read-only."""

    path = "/v1/variants"
    tags = ("variants",)

    @get("", summary="List the variants", responses=problem_responses())
    async def list_variants(self) -> list[VariantInfo]:
        """Each variant's id, rules in brief, options (JSON Schema) and point tables."""
        return variant_infos()
