"""``/play`` and ``/verify``: the browser client's pages (not part of the API schema).

The pages and their scripts are built from ``web/`` by ``make web`` into
``cardproof_service/static`` and ship with the package, so serving them needs no Node.
Their policy lets them load only this origin's scripts and styles and call only this
origin's API: no CDN, no font service, no outside request.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

from litestar import Controller, MediaType, Response, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router

STATIC_DIR: Final = Path(__file__).resolve().parents[1] / "static"
"""The built assets: ``web/`` (the client) and ``swagger/`` (the API reference's)."""
PAGE_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""Scripts, styles and API calls from this origin only; nothing inline, nothing outside."""
PAGE_HEADERS: Final = {
    "Content-Security-Policy": PAGE_POLICY,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@cache
def page(name: str) -> str:
    """A built page's HTML, read once."""
    return (STATIC_DIR / "web" / name).read_text(encoding="utf-8")


def _served(name: str) -> Response[str]:
    return Response(content=page(name), media_type=MediaType.HTML, headers=PAGE_HEADERS)


class WebController(Controller):
    """The browser client: play a committed blind game, verify any receipt."""

    path = "/"
    include_in_schema = False

    @get("/play", media_type=MediaType.HTML)
    async def play(self) -> Response[str]:
        """Play a variant in the browser (``?variant=`` picks it), blind and committed."""
        return _served("play.html")

    @get("/verify", media_type=MediaType.HTML)
    async def verify(self) -> Response[str]:
        """Paste a receipt and verify it in the browser (WebCrypto)."""
        return _served("verify.html")


def static_router() -> Router:
    """``/static/...``: the built client and the API reference's assets, cached an hour."""
    return create_static_files_router(
        path="/static",
        directories=[STATIC_DIR],
        cache_control=CacheControlHeader(max_age=3600, public=True),
        include_in_schema=False,
    )
