"""The floor of a request here: a bare Litestar app, served as ``cardproof serve`` serves.

Not a benchmark itself. ``bench/routes.py`` starts it through ``bench/servers.py --app``,
so that it runs under the same uvicorn, door, loop and logging as ``cardproof serve``, in
the same virtualenv: ``POST /bare`` only decodes its JSON body (the verify request the
bench sends, as a msgspec ``dict``) and answers ``{}``; ``GET /healthz`` answers as the
service's does. What any cardproof route costs above this is cardproof's own.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar, get, post


@post("/bare", status_code=200)
async def bare(data: dict[str, Any]) -> dict[str, Any]:
    """Decode the body (Litestar's msgspec decoding), answer an empty object."""
    return {}


@get("/healthz")
async def healthz() -> dict[str, str]:
    """What the bench polls until the server is up."""
    return {"status": "ok"}


def create_app() -> Litestar:
    """The bare app: two routes, no middleware, no plugins, no OpenAPI schema."""
    return Litestar([bare, healthz], openapi_config=None, logging_config=None)
