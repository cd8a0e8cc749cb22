"""``GET /.well-known/jwks.json``: the public keys receipts are signed with."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from cardproof.receipts import JWKS
from cardproof_service.front.errors import problem_responses
from cardproof_service.plumbing import Keys


class KeysController(Controller):
    """The receipt verification keys."""

    tags = ("receipts",)

    @get(
        "/.well-known/jwks.json",
        operation_id="getJwks",
        summary="Receipt signing keys",
        responses=problem_responses(),
    )
    async def jwks(self, request: Request[Any, Any, Any]) -> JWKS:
        """The current signing key first, then retired keys old receipts may name."""
        keys: Keys = request.app.state.keyring
        return keys.jwks()
