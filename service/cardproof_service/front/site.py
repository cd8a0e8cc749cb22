"""What every page of the site shares: the navigation, the favicon, the pages' policy, the 404.

One site header (cardproof home, Play, Verify, API reference) heads every page: the
static pages in ``web/pages`` carry it as :func:`site_header` writes it (a test holds
them to it), the standings pages and the 404 page are drawn with it, and the API
reference's script builds the same one. Unknown paths answer a person's browser with
an HTML page and an API client with problem details, chosen by the request's
``Accept`` (:func:`prefers_html`, by q-values).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Final
from urllib.parse import quote

from litestar.types import Scope

from cardproof.words import printable
from cardproof_service.plumbing import problem_body

PAGE_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""Scripts, styles and API calls from this origin only; nothing inline, nothing outside."""

HEAD_REQUEST: Final = "cardproof.head"
"""The scope state a HEAD request, answered as a GET, carries: the route may then skip
what only a body needs (a long poll's wait)."""


def asked_for_head(scope: Scope) -> bool:
    """Whether this GET answers a HEAD request (whose body nobody reads)."""
    return bool(scope.get("state", {}).get(HEAD_REQUEST))


PAGE_HEADERS: Final = {
    "Content-Security-Policy": PAGE_POLICY,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""The headers of every page served from ``web/pages`` (and of the 404 page)."""

NAVIGATION: Final = (("/play", "Play"), ("/verify", "Verify"), ("/schema", "API reference"))
"""The site's sections, in the order the header lists them, after the home link."""
FAVICON_PATH: Final = "/static/web/favicon.svg"
"""The icon every page links (also served at ``/favicon.ico``, where browsers look)."""
FAVICON_LINK: Final = f'<link rel="icon" href="{FAVICON_PATH}" type="image/svg+xml">'
"""The ``<link>`` every page's head carries."""
HEADER_STYLE: Final = """
header.site { display: flex; flex-wrap: wrap; gap: 12px; align-items: baseline;
  padding: 10px 16px; background: #e8e2d4; font-size: 16px; }
header.site .home { font-weight: 700; font-size: 17px; color: #1d1d1b; text-decoration: none; }
header.site nav { display: flex; flex-wrap: wrap; gap: 4px 16px; }
header.site nav a { color: #1c4f8a; }
header.site a[aria-current="page"] { color: #1d1d1b; font-weight: 700; text-decoration: none; }
header.site a:focus-visible { outline: 3px solid #b35c00; outline-offset: 2px; }
"""
"""The header's look, for a page with its own inline style (the standings pages): the rules
of ``style.css``'s "site navigation" section (and of ``swagger-nav.css``), written out."""


def site_header(current: str | None = None) -> str:
    """The site header: the home link, then :data:`NAVIGATION`; ``current`` marks a path.

    >>> site_header("/verify").count('aria-current="page"')
    1
    """
    links = " ".join(
        f'<a href="{href}"{_current(href, current)}>{label}</a>' for href, label in NAVIGATION
    )
    return (
        f'<header class="site"><a class="home" href="/"{_current("/", current)}>cardproof</a> '
        f'<nav aria-label="Site">{links}</nav></header>'
    )


def _current(href: str, current: str | None) -> str:
    return ' aria-current="page"' if href == current else ""


def not_found_page(detail: str) -> str:
    """The HTML 404 page, saying what was not found (``detail``, from the problem)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>Not found · cardproof</title>\n"
        f"{FAVICON_LINK}\n"
        '<link rel="stylesheet" href="/static/web/style.css">\n'
        "</head>\n<body>\n"
        f"{site_header()}\n"
        '<main class="site-page">\n<h1>Not found</h1>\n'
        f'<p id="not-found">{escape(detail)}</p>\n'
        '<p>Try the <a href="/">home page</a>: from there you can play a game, verify a '
        "receipt or read the API reference.</p>\n"
        "</main>\n</body>\n</html>\n"
    )


# --- choosing by Accept ------------------------------------------------------------------

HTML_TYPES: Final = ("text/html",)
"""What a browser asks for when it navigates."""
PROBLEM_TYPES: Final = ("application/problem+json", "application/json")
"""What an API client reads: problem details (or plain JSON, which they are)."""


def _ranges(accept: str) -> list[tuple[str, str, float]]:
    """The media ranges of an ``Accept`` value: (type, subtype, q), unreadable ones left out."""
    ranges = []
    for part in accept.split(","):
        media, *params = (piece.strip() for piece in part.split(";"))
        kind, slash, subtype = media.lower().partition("/")
        if not slash or not kind or not subtype:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        ranges.append((kind, subtype, q))
    return ranges


def _quality(ranges: Sequence[tuple[str, str, float]], media_type: str) -> float:
    """The q a media type gets: that of the most specific range matching it (RFC 9110 12.5.1)."""
    kind, _, subtype = media_type.partition("/")
    best = (-1, 0.0)
    for range_kind, range_subtype, q in ranges:
        if (range_kind, range_subtype) == (kind, subtype):
            specificity = 2
        elif (range_kind, range_subtype) == (kind, "*"):
            specificity = 1
        elif (range_kind, range_subtype) == ("*", "*"):
            specificity = 0
        else:
            continue
        if specificity > best[0]:
            best = (specificity, q)
    return best[1]


def prefers_html(accept: str | None) -> bool:
    """Whether ``accept`` rates HTML above problem details (a tie goes to the API client).

    >>> prefers_html("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
    True
    >>> prefers_html("*/*"), prefers_html(None), prefers_html("application/json")
    (False, False, False)
    >>> prefers_html("text/html;q=0.5, application/json;q=0.9")
    False
    """
    if not accept:
        return False
    ranges = _ranges(accept)
    html = max(_quality(ranges, media) for media in HTML_TYPES)
    problem = max(_quality(ranges, media) for media in PROBLEM_TYPES)
    return html > problem


def _vary(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``Accept`` added to ``Vary``."""
    varies = [value for name, value in headers if name.lower() == b"vary"]
    named = {v.strip().lower() for value in varies for v in value.split(b",")}
    if b"accept" in named or b"*" in named:
        return headers
    kept = [(name, value) for name, value in headers if name.lower() != b"vary"]
    return [*kept, (b"vary", b", ".join([*varies, b"Accept"]))]


API_PATHS: Final = ("/v1/", "/.well-known/", "/healthz", "/readyz", "/metrics")
"""Where the API answers: its 404s are problem details whatever the ``Accept``."""


def wants_page(scope: Scope) -> bool:
    """Whether a 404 for this request is the HTML page: its ``Accept`` prefers HTML.

    The API's own 404s keep their problem details (and code) for every client.
    """
    accept = b",".join(value for name, value in scope["headers"] if name.lower() == b"accept")
    return prefers_html(accept.decode("latin-1")) and not scope["path"].startswith(API_PATHS)


def not_found_start(
    headers: Sequence[tuple[bytes, bytes]], page: bool
) -> tuple[list[tuple[bytes, bytes]], bool]:
    """A 404's headers with ``Vary: Accept``, and whether to hold it for another form.

    A 404 is held (its body read, then answered anew by :func:`not_found_answer`) when it
    is to be the HTML page (``page``) or when it is no problem details (some part of
    Litestar drew it, an unknown page under ``/schema``); an API client's problem goes
    on as it was.
    """
    varied = _vary(list(headers))
    problem = any(
        name.lower() == b"content-type" and value.startswith(PROBLEM_TYPES[0].encode())
        for name, value in varied
    )
    return varied, page or not problem


def not_found_answer(
    kept: Sequence[tuple[bytes, bytes]], body: bytes, path: str, page: bool
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """A held 404 answered anew: the HTML page, or problem details; its headers and body.

    The page shows a problem's ``detail`` when it names what is missing (it has a
    ``code``), else the path.
    """
    if page:
        content = not_found_page(_words(body, path)).encode()
        added = [(b"content-type", b"text/html; charset=utf-8")]
        added += [(k.lower().encode(), v.encode()) for k, v in PAGE_HEADERS.items()]
    else:
        content = problem_body(404, f"nothing at {path}", type_="about:blank")
        added = [(b"content-type", PROBLEM_TYPES[0].encode())]
    replaced = {b"content-length", *(name for name, _ in added)}
    headers = [(name, value) for name, value in kept if name.lower() not in replaced]
    return [*headers, *added, (b"content-length", str(len(content)).encode())], content


CREDENTIALS: Final = (b"authorization", b"x-invite-code")
"""Request headers that open what others may not read: an answer to them is private."""
ONCE: Final = (*CREDENTIALS, b"idempotency-key")
"""Request headers a request names once at most: of two copies a proxy may read the last
and the service the first, and disagree on who asks or which request a retry repeats."""


def once_headers(scope: Scope) -> tuple[bool, bytes | None]:
    """Whether a request is private (it carries a credential), and its refusal if any.

    A request naming a header of :data:`ONCE` (a credential, ``Idempotency-Key``) twice
    is refused: the problem body (400 ``duplicate-header``) comes back, since a proxy
    reading the last copy and the service the first would disagree on who asks.
    """
    named = [name.lower() for name, _ in scope["headers"] if name.lower() in ONCE]
    if not named:
        return False, None
    twice = sorted({name.decode() for name in named if named.count(name) > 1})
    if twice:
        return True, problem_body(
            400,
            f"the {twice[0]} header is given more than once: send it once",
            type_="/problems/parse-error",
            code="duplicate-header",
            field=twice[0],
        )
    return any(name in CREDENTIALS for name in named), None


def secured(headers: list[tuple[bytes, bytes]], names: set[bytes], private: bool) -> None:
    """``nosniff`` on every answer, ``no-store`` on a private one that set no caching.

    ``names`` are the answer's header names, lower case. ``Cache-Control: no-store``
    keeps an answer to a credential (a key, a token or an invite code) out of every
    shared cache.
    """
    if b"x-content-type-options" not in names:
        headers.append((b"x-content-type-options", b"nosniff"))
    if private and b"cache-control" not in names:
        headers.append((b"cache-control", b"no-store"))


def _words(body: bytes, path: str) -> str:
    """What the 404 page says: the problem's ``detail`` if it names what is missing."""
    try:
        problem = json.loads(body)
    except ValueError:
        problem = None
    if isinstance(problem, dict) and "code" in problem and isinstance(problem.get("detail"), str):
        return printable(str(problem["detail"]))
    return f"There is no page at {quote(path, safe=_PATH_SAFE)}."


_PATH_SAFE: Final = "/:@!$&'()*+,;=-._~"
"""What a path shows as it is on the 404 page; anything else (controls, bidi overrides,
spaces, any non-ASCII) shows percent-encoded, as a browser's address bar does."""


__all__ = [
    "API_PATHS",
    "CREDENTIALS",
    "FAVICON_LINK",
    "FAVICON_PATH",
    "HEADER_STYLE",
    "NAVIGATION",
    "ONCE",
    "PAGE_HEADERS",
    "PAGE_POLICY",
    "not_found_answer",
    "not_found_page",
    "not_found_start",
    "once_headers",
    "prefers_html",
    "secured",
    "site_header",
    "wants_page",
]
