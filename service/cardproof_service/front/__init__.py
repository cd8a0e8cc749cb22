"""The web front: the controllers, the pages, the spec and the static files.

One controller per resource (:mod:`.controllers`) turns HTTP into calls on the domains
below and back; request bodies are decoded strictly (:mod:`.bodies`) and every
exception answers as problem details (:mod:`.errors`, in words from :mod:`.expected`);
whole numbers in paths and queries are written in plain digits (:mod:`.numbers`);
the OpenAPI document (:mod:`.openapi`, its examples in :mod:`.examples`); the site's
shared header, 404 page and security headers (:mod:`.site`), applied to every answer by
one layer around the router (:mod:`.edge`, with the request ids and metrics), the standings pages
(:mod:`.pages`) and the browser client's built files (``static/``). No domain imports
the front: it is the top, and only the app factory uses these names.
"""

from cardproof_service.front.edge import edge_layer
from cardproof_service.front.errors import problem_details_plugin
from cardproof_service.front.numbers import whole_numbers_as_written
from cardproof_service.front.openapi import install_exact_schemas, openapi_config
from cardproof_service.front.pages import StandingsPages
from cardproof_service.front.routes import route_handlers

__all__ = [
    "StandingsPages",
    "edge_layer",
    "install_exact_schemas",
    "openapi_config",
    "problem_details_plugin",
    "route_handlers",
    "whole_numbers_as_written",
]
