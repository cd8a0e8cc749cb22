"""A server run in-process, with throwaway keys (:func:`embedded_client`).

For playing (and running bots) without a server.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Iterator

from cardproof.client import Client


@contextlib.contextmanager
def embedded_client(
    *, limits: bool = True, organizer: str | None = None, par_budget: float | None = None
) -> Iterator[Client]:
    """A :class:`Client` on a server run in-process, with throwaway keys, until the block ends.

    The server keeps deals in memory and signs with a key made for this block only: no
    key file is written, and its receipts are checkable only with its key set (printed
    by :func:`run`). Needs the ``service`` extra. ``limits=False`` turns the per-client
    limits off (a bot's thousands of moves are its own server's only work).
    ``organizer``: the client is an organizer of that name (it may run tournaments);
    ``par_budget``: the seconds the server solves each closed round's par for.
    """
    from litestar.testing import TestClient

    from cardproof.receipts import EMBEDDED_ISSUER, SigningKey
    from cardproof_service.app import create_app
    from cardproof_service.plumbing import Keys, Settings
    from cardproof_service.tournaments import new_organizer

    # its receipts name no server (nothing listens on the network): EMBEDDED_ISSUER
    keys = Keys(
        master=secrets.token_bytes(32), signing=SigningKey.generate(), issuer=EMBEDDED_ISSUER
    )
    settings = Settings(warm_up=False)
    if not limits:
        settings = Settings(warm_up=False, rate_limit=0, max_games_in_flight=0, daily_deal_quota=0)
    if par_budget is not None:
        settings = dataclasses.replace(settings, par_budget=par_budget)
    app = create_app(settings, keys=keys)
    api_key = None
    if organizer is not None:
        api_key, record = new_organizer(organizer)
        asyncio.run(app.state.store.add_organizer(record))  # the memory store: no loop of its own
    quiet = [logging.getLogger(name) for name in ("httpx", "cardproof.access")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:  # not one log line per move on the terminal, while the block runs
        logger.setLevel(logging.WARNING)
    try:
        with (
            TestClient(app) as http,
            Client(base_url=str(http.base_url), http_client=http, api_key=api_key) as client,
        ):
            yield client
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
