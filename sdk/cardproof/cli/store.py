"""``cardproof store migrate``: the first Redis key layout renamed to the tagged one."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cardproof.progress import Bar, bar
from cardproof.words import plural


def migrate(args: argparse.Namespace) -> int:
    """Rename the keys of the first Redis layout to the tagged one (see store/migrate.py)."""
    import asyncio

    from cardproof_service.app import make_store
    from cardproof_service.plumbing import Settings, SettingsError
    from cardproof_service.store import RedisStore, StoreUnavailable

    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"cardproof store migrate: {error}", file=sys.stderr)
        return 2
    store = make_store(settings)
    if not isinstance(store, RedisStore):
        print("REDIS_URL is not set: the memory store has nothing to migrate", file=sys.stderr)
        return 2

    async def run(keys: Bar) -> Any:
        try:
            return await store.migrate_layout(progress=keys.at)
        finally:
            await store.close()

    try:
        with bar(None, "keys", unit="key") as keys:  # on a terminal only
            done = asyncio.run(run(keys))
    except (StoreUnavailable, OSError) as error:
        print(f"cannot reach the store: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"cardproof store migrate: {error}", file=sys.stderr)
        return 2
    print(f"renamed {plural(done.renamed, 'key')}, moved {plural(done.rounds_due, 'due round')}")
    if done.gone:
        print(f"  {plural(done.gone, 'key')} expired while this ran")
    for kept in done.kept:
        print(f"  set aside (its new name is taken, or it is unknown): {kept}")
    return 1 if done.kept else 0
