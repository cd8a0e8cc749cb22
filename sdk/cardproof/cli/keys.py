"""``cardproof keys``: a fresh master key, receipt signing key and log key; organizers' keys."""

from __future__ import annotations

import argparse
import json
import sys


def generate(args: argparse.Namespace) -> int:
    from cardproof.receipts import SigningKey, b64url_decode
    from cardproof_service.plumbing import generate

    keys = generate()
    public = SigningKey.from_seed(b64url_decode(keys["CARDPROOF_SIGNING_KEY"]))
    for name, value in keys.items():
        print(f"{name}={value}")
    print(f"# signing key id (kid): {public.kid}", file=sys.stderr)
    print("# keep these secret; every replica needs the same three values", file=sys.stderr)
    return 0


def create_organizer(args: argparse.Namespace) -> int:
    """Make an organizer key: store its hash, print the key (once) on stdout."""
    import asyncio

    from cardproof_service.app import make_store
    from cardproof_service.plumbing import Settings, SettingsError
    from cardproof_service.store import StoreUnavailable
    from cardproof_service.tournaments import new_organizer

    try:
        settings = Settings.from_env()
        key, record = new_organizer(args.name)
    except (SettingsError, ValueError) as error:
        print(f"cardproof keys organizer create: {error}", file=sys.stderr)
        return 2
    store = make_store(settings)

    async def add() -> bool:
        try:
            return await store.add_organizer(record)
        finally:
            await store.close()

    try:
        added = asyncio.run(add())
    except (StoreUnavailable, OSError) as error:
        print(f"cannot reach the store: {error}", file=sys.stderr)
        return 2
    if not added:
        name = json.dumps(args.name, ensure_ascii=False)
        print(f"an organizer named {name} exists already", file=sys.stderr)
        return 1
    where = "Redis (REDIS_URL)" if settings.redis_url else str(settings.organizers_file)
    print(key)
    print(
        f"# organizer {json.dumps(record.name, ensure_ascii=False)} (id {record.organizer_id}): "
        "its key hash is stored in "
        f"{where}; the key above is shown this once, keep it secret",
        file=sys.stderr,
    )
    return 0
