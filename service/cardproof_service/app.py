"""The app factory: state, controllers, middleware, problem details, the OpenAPI document.

State is the store (metered), keys and the transparency log (its sequencer runs in the
app's lifespan, beside the lockstep rounds' keeper). Around the router: request ids, logs and
metrics; around each route: the rate limit.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar import Litestar
from litestar.datastructures import State

from cardproof.solvers import serpent
from cardproof_service.deals import DealParts, Deals, Solvers
from cardproof_service.front import (
    StandingsPages,
    edge_layer,
    install_exact_schemas,
    openapi_config,
    problem_details_plugin,
    route_handlers,
    whole_numbers_as_written,
)
from cardproof_service.lockstep import Calls, Rounds
from cardproof_service.log import Log
from cardproof_service.plumbing import (
    Keys,
    RateLimiter,
    Settings,
    load_keys,
    metered,
)
from cardproof_service.store import MemoryStore, RedisStore, Store
from cardproof_service.tournaments import Entries, Pars, Scoreboard, Tournaments


def _warm_up() -> None:
    """Build the serpent solver's path table in a thread, so the first solve is fast.

    Then everything built so far is moved out of the garbage collector's way, so that
    no long full collection over long-lived tables makes requests wait.
    """

    def prepare() -> None:
        serpent.prepare()
        gc.collect()
        gc.freeze()

    threading.Thread(target=prepare, name="cardproof-warm-up", daemon=True).start()


SWITCH_INTERVAL = 0.0005
"""Seconds a thread holding the GIL runs before the event loop may take it back (Python's
default is 0.005): while long replays run in the replay threads, a request waiting on
the loop waits for the GIL about this long at each step."""


def make_store(settings: Settings) -> Store:
    """The Redis store when ``REDIS_URL`` is set, else the embedded memory store."""
    if settings.redis_url:
        if settings.redis_mode == "cluster":
            return RedisStore.from_cluster(
                settings.redis_url,
                timeout=settings.store_timeout,
                min_replicas=settings.redis_min_replicas,
            )
        if settings.redis_mode == "sentinel":
            return RedisStore.from_sentinels(
                settings.redis_url,
                timeout=settings.store_timeout,
                min_replicas=settings.redis_min_replicas,
            )
        return RedisStore.from_url(
            settings.redis_url,
            timeout=settings.store_timeout,
            min_replicas=settings.redis_min_replicas,
        )
    return MemoryStore(organizers_file=settings.organizers_file)


def create_app(
    settings: Settings | None = None, *, store: Store | None = None, keys: Keys | None = None
) -> Litestar:
    """Build the cardproof app: settings and keys from the environment unless given."""
    settings = settings or Settings.from_env()
    keys = keys or load_keys()
    store = metered(store or make_store(settings))

    solvers = Solvers(settings)

    log = Log(store, keys, settings)
    parts = DealParts.wire(store, keys, settings, log)
    rounds = Rounds.over(store, settings, parts)
    deals = Deals(store, keys, settings, parts, late=rounds)
    calls = Calls(store, rounds, settings.listeners_per_client)
    pars = Pars(store, deals.commitments, solvers, settings.par_budget)
    tournaments = Tournaments(store, keys, settings, deals.commitments, rounds, calls, log)
    entries = Entries(store, keys, tournaments, deals.dealing, rounds)
    scoreboard = Scoreboard(store, keys, deals.commitments, tournaments, pars)
    log.on_due(scoreboard.closing)  # a closed tournament's reveals and settlement

    limiter = RateLimiter(store, settings, keys.master) if settings.rate_limit else None

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        sys.setswitchinterval(SWITCH_INTERVAL)
        rounds.begin()
        calls.begin()
        log.begin()
        if limiter is not None:
            limiter.begin()
        try:
            yield
        finally:
            await asyncio.gather(rounds.end(), calls.end(), log.end())
            if limiter is not None:
                await limiter.end()
            pars.close()
            solvers.close()
            await store.close()

    app = Litestar(
        route_handlers=route_handlers(),
        before_request=whole_numbers_as_written,
        plugins=[problem_details_plugin()],
        middleware=[limiter] if limiter is not None else [],
        openapi_config=openapi_config(settings.public_url),
        request_max_body_size=settings.max_body_bytes,
        # logging is the process's (`cardproof serve`'s JSON lines); Litestar's default
        # config would re-run dictConfig at start-up, closing those handlers and adding its
        # own on the root logger; cardproof logs unhandled errors itself (front/errors.py)
        logging_config=None,
        on_startup=[_warm_up] if settings.warm_up else [],
        lifespan=[lifespan],
        state=State(
            {
                "settings": settings,
                "keyring": keys,
                "store": store,
                "deals": deals,
                "rounds": rounds,
                "log": log,
                "tournaments": tournaments,
                "entries": entries,
                "scoreboard": scoreboard,
                "standings_pages": StandingsPages(),
                "solvers": solvers,
            }
        ),
    )
    install_exact_schemas(app)
    # Around the router, not per route: unknown paths (404) and methods (405) are
    # counted and logged too; a 404 is a page for a browser (HEAD too: the GET's headers).
    app.asgi_handler = edge_layer(app.asgi_handler)
    return app
