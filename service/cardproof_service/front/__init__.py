"""The web front: the controllers, the pages, the spec and the static files.

One controller per resource (:mod:`.controllers`) turns HTTP into calls on the domains
below and back; request bodies are decoded strictly (:mod:`.bodies`) and every
exception answers as problem details (:mod:`.errors`, in words from :mod:`.expected`);
whole numbers in paths and queries are written in plain digits (:mod:`.numbers`);
the OpenAPI document (:mod:`.openapi`, its examples in :mod:`.examples`); the site's
shared header, 404 page and security headers (:mod:`.site`), the standings pages
(:mod:`.pages`) and the browser client's built files (``static/``). No domain imports
the front: it is the top, and only the app factory uses these names.
"""

from cardproof_service.front.controllers.web import reference_headers
from cardproof_service.front.errors import problem_details_plugin
from cardproof_service.front.numbers import whole_numbers_as_written
from cardproof_service.front.openapi import install_exact_schemas, openapi_config
from cardproof_service.front.pages import StandingsPages
from cardproof_service.front.routes import route_handlers
from cardproof_service.front.site import HEAD_REQUEST, html_not_found, safe_headers

__all__ = [
    "HEAD_REQUEST",
    "StandingsPages",
    "html_not_found",
    "install_exact_schemas",
    "openapi_config",
    "problem_details_plugin",
    "reference_headers",
    "route_handlers",
    "safe_headers",
    "whole_numbers_as_written",
]
