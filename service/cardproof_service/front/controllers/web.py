"""``/``, ``/play``, ``/verify`` and the favicon: the browser's pages (not in the API schema).

The pages and their scripts are built from ``web/`` by ``make web`` into
``cardproof_service/front/static`` and ship with the package, so serving them needs no Node.
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

from cardproof_service.front.site import PAGE_HEADERS, PAGE_POLICY

STATIC_DIR: Final = Path(__file__).resolve().parents[1] / "static"
"""The built assets: ``web/`` (the client) and ``swagger/`` (the API reference's)."""
REFERENCE_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
"""The API reference (``/schema``): its own scripts only; Swagger UI's icons are data: URLs."""


REFERENCE_HEADERS: Final = (
    (b"content-security-policy", REFERENCE_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
"""What every HTML answer under ``/schema`` carries, in place of any it set itself."""


def reference_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """An answer's headers under ``/schema``: with the reference's policy if it is HTML.

    Litestar serves the reference itself, so its headers are set on the way out: the
    page may not be framed, sniffed, or run a script from anywhere but this origin.
    """
    html = any(
        name.lower() == b"content-type" and value.startswith(b"text/html")
        for name, value in headers
    )
    if not html:
        return headers
    replaced = {name for name, _ in REFERENCE_HEADERS}
    return [pair for pair in headers if pair[0].lower() not in replaced] + [*REFERENCE_HEADERS]


@cache
def page(name: str) -> str:
    """A built page's HTML, read once."""
    return (STATIC_DIR / "web" / name).read_text(encoding="utf-8")


def _served(name: str) -> Response[str]:
    return Response(content=page(name), media_type=MediaType.HTML, headers=PAGE_HEADERS)


FAVICON_HEADERS: Final = {
    "Cache-Control": "public, max-age=86400",
    "Content-Security-Policy": "default-src 'none'",
    "X-Content-Type-Options": "nosniff",
}
"""The icon is an SVG document: it may run and load nothing, and is cached a day."""


class WebController(Controller):
    """The site: its home page, play a committed blind game, verify any receipt."""

    path = "/"
    include_in_schema = False

    @get("/", media_type=MediaType.HTML)
    async def home(self) -> Response[str]:
        """The home page: what cardproof is, the variants, where to go."""
        return _served("index.html")

    @get("/favicon.ico", media_type="image/svg+xml")
    async def favicon(self) -> Response[str]:
        """The site's icon where browsers look for it by default (an SVG, as its type says)."""
        return Response(content=page("favicon.svg"), headers=FAVICON_HEADERS)

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


__all__ = [
    "FAVICON_HEADERS",
    "PAGE_HEADERS",
    "PAGE_POLICY",
    "REFERENCE_POLICY",
    "STATIC_DIR",
    "WebController",
    "page",
    "reference_headers",
    "static_router",
]
