"""The ``cardproof`` command: serve, play, verify receipts, make keys, print the spec.

``cardproof serve`` and ``cardproof keys`` need the ``service`` extra
(``pip install 'cardproof[service]'``), and so does ``cardproof play`` without ``--url``
(it then plays against an embedded server); ``cardproof verify`` needs only the SDK.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardproof.client import DEFAULT_BASE_URL


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:  # pragma: no cover - depends on the install
        print(
            "cardproof serve needs the service extra: pip install 'cardproof[service]'",
            file=sys.stderr,
        )
        return 2
    if args.workers > 1 and not os.environ.get("REDIS_URL"):
        print(
            "cardproof serve: the memory store lives in one process, so --workers above 1 "
            "needs a shared store: set REDIS_URL",
            file=sys.stderr,
        )
        return 2
    uvicorn.run(
        "cardproof_service.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
    )
    return 0


def openapi_document() -> dict[str, object]:
    """The OpenAPI document the service serves at ``/schema/openapi.json``."""
    from cardproof.receipts import SigningKey
    from cardproof_service.app import create_app
    from cardproof_service.keys import Keys
    from cardproof_service.settings import Settings

    throwaway = Keys(master=bytes(32), signing=SigningKey.generate())  # the spec needs none
    return create_app(Settings(warm_up=False), keys=throwaway).openapi_schema.to_schema()


def _openapi(args: argparse.Namespace) -> int:
    json.dump(openapi_document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _load_jwks(source: str) -> bytes:
    """A JWKS from a URL (``http...``) or a file."""
    if source.startswith(("http://", "https://")):
        import httpx

        response = httpx.get(source, timeout=10)
        response.raise_for_status()
        return response.content
    return Path(source).read_bytes()


def _read_receipt(path: str) -> str:
    """A receipt file: the compact JWS, or the JSON answer of GET /v1/deals/{id}/receipt."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    text = text.strip()
    if text.startswith("{"):
        return str(json.loads(text)["receipt"])
    return text


def _verify_tournament(args: argparse.Namespace) -> int:
    """``verify --tournament FILE``: re-check a closed tournament's export end to end."""
    import msgspec

    from cardproof.tournaments import verify_export

    try:
        export = (
            Path(args.tournament).read_bytes()
            if args.tournament != "-"
            else sys.stdin.buffer.read()
        )
        jwks = None
        if args.jwks or args.url:
            source = args.jwks or args.url.rstrip("/") + "/.well-known/jwks.json"
            jwks = json.loads(_load_jwks(source))
        check = verify_export(export, jwks)
    except (OSError, ValueError, msgspec.DecodeError) as error:
        print(f"cannot read the export or the key set: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a network failure fetching the key set
        print(f"cannot fetch the key set: {error}", file=sys.stderr)
        return 2
    for problem in check.problems:
        print(f"NOT VERIFIED: {problem}")
    if check.problems:
        return 1
    keys = "the given key set" if jwks is not None else "the key set in the export (pass --url "
    keys += "" if jwks is not None else "to check against the server's)"
    print(f"verified: {check.games} games replayed and their receipts checked against {keys}")
    for line in check.standings:
        print(f"  {line.rank:>4}  {line.name:<24} {line.total:>8}  ({line.games_finished} games)")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from cardproof.receipts import ReceiptError, verify_receipt

    if (args.tournament is None) == (args.receipt is None):
        print("cardproof verify: give a RECEIPT file or --tournament FILE", file=sys.stderr)
        return 2
    if args.tournament is not None:
        return _verify_tournament(args)
    source = args.jwks or (args.url or DEFAULT_BASE_URL).rstrip("/") + "/.well-known/jwks.json"
    try:
        token = _read_receipt(args.receipt)
        jwks = _load_jwks(source)
    except (OSError, ValueError, KeyError) as error:
        print(f"cannot read the receipt or the key set: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a network failure fetching the key set
        print(f"cannot fetch the key set from {source}: {error}", file=sys.stderr)
        return 2
    try:
        verified = verify_receipt(token, jwks)
    except ReceiptError as error:
        print(f"NOT VERIFIED ({error.code}): {error.message}")
        return 1
    payload = verified.payload
    print(f"verified: {payload.variant}, score {payload.score.total}, key {verified.kid}")
    for hand in payload.score.hands:
        cards = " ".join(hand.cards)
        print(f"  {hand.line:<11} {cards:<15} {hand.category:<16} {hand.points:>5}")
    print(
        f"  deal {payload.deal_id}  blind {payload.blind}  "
        f"committed before client seed {payload.committed_before_client_seed}"
    )
    if not verified.replayed:
        print("  the server seed is not revealed yet: only the signature was checked")
    return 0


def _keys(args: argparse.Namespace) -> int:
    from cardproof.receipts import SigningKey, b64url_decode
    from cardproof_service.keys import generate

    keys = generate()
    public = SigningKey.from_seed(b64url_decode(keys["CARDPROOF_SIGNING_KEY"]))
    for name, value in keys.items():
        print(f"{name}={value}")
    print(f"# signing key id (kid): {public.kid}", file=sys.stderr)
    print("# keep these secret; every replica needs the same two values", file=sys.stderr)
    return 0


def _organizer_create(args: argparse.Namespace) -> int:
    """Make an organizer key: store its hash, print the key (once) on stdout."""
    import asyncio

    try:
        from cardproof_service.app import make_store
        from cardproof_service.organizers import new_organizer
        from cardproof_service.settings import Settings, SettingsError
        from cardproof_service.store import StoreUnavailable
    except ImportError:  # pragma: no cover - depends on the install
        print("this needs the service extra: pip install 'cardproof[service]'", file=sys.stderr)
        return 2
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
        print(f"an organizer named {args.name!r} exists already", file=sys.stderr)
        return 1
    where = "Redis (REDIS_URL)" if settings.redis_url else str(settings.organizers_file)
    print(key)
    print(
        f"# organizer {record.name!r} (id {record.organizer_id}): its key hash is stored in "
        f"{where}; the key above is shown this once, keep it secret",
        file=sys.stderr,
    )
    return 0


def _json_object(text: str) -> dict[str, Any]:
    """An ``--options`` value: a JSON object, like ``{"levels": 5}``."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("a JSON object is needed, like '{\"version\": 2}'")
    return value


def _play(args: argparse.Namespace) -> int:
    import contextlib

    from cardproof.client import Client
    from cardproof.play import embedded_client, run

    with contextlib.ExitStack() as stack:
        if args.url is not None:
            client = stack.enter_context(Client(base_url=args.url))
        else:
            try:
                client = stack.enter_context(embedded_client())
            except ImportError:  # pragma: no cover - depends on the install
                print(
                    "cardproof play without --url runs an embedded server, which needs the "
                    "service extra: pip install 'cardproof[service]'",
                    file=sys.stderr,
                )
                return 2
        return run(
            client,
            args.variant,
            client_seed=args.seed,
            options=args.options,
            server_url=args.url,
            receipt_out=args.receipt_out,
        )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="cardproof", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug", "trace"],
        help="uvicorn log level (default info)",
    )
    serve.set_defaults(run=_serve)
    spec = commands.add_parser("openapi", help="print the OpenAPI spec as JSON")
    spec.set_defaults(run=_openapi)
    verify = commands.add_parser(
        "verify", help="verify a receipt offline: signature, seed, deck, replay, score"
    )
    verify.add_argument(
        "receipt",
        nargs="?",
        help="a file with the receipt (compact JWS or its JSON), - for stdin",
    )
    verify.add_argument(
        "--tournament",
        metavar="FILE",
        help="instead, re-check a closed tournament's export (GET /v1/tournaments/{id}/export) "
        "end to end: seeds, decks, logs, receipts, standings",
    )
    verify.add_argument("--jwks", help="the key set: a URL or a file (default: the server's)")
    verify.add_argument(
        "--url", help=f"the server, for its key set (default for a receipt: {DEFAULT_BASE_URL})"
    )
    verify.set_defaults(run=_verify)
    play = commands.add_parser(
        "play",
        help="play a game in the terminal against a server, or an embedded one",
        description="Play poker-squares, poker-patience, serpent-patience, repeat-poker, "
        "reserve-poker or solodrez in the terminal (solodrez has a 'hint' command backed "
        "by the solver). Exit status: 0 the game was scored and its receipt "
        "shown; 1 quit or not scored; 2 the server could not be used (or refused the deal).",
    )
    play.add_argument(
        "variant",
        help="poker-squares, poker-patience, serpent-patience, repeat-poker, reserve-poker or "
        "solodrez",
    )
    play.add_argument(
        "--options",
        type=_json_object,
        metavar="JSON",
        help="""the variant's options, a JSON object: '{"levels": 5}' or '{"rows": 3}' """
        """(repeat-poker), '{"version": 2}' (reserve-poker), '{"scoring": "british"}' """
        """(the grid games)""",
    )
    play.add_argument(
        "--url", help="the server to play on (default: an embedded one, with a throwaway key)"
    )
    play.add_argument("--seed", help="your client seed (default: a random one)")
    play.add_argument("--receipt-out", metavar="FILE", help="also write the receipt to FILE")
    play.set_defaults(run=_play)
    keys = commands.add_parser("keys", help="make keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    generate_keys = key_commands.add_parser("generate", help="print a fresh master and signing key")
    generate_keys.set_defaults(run=_keys)
    organizer = key_commands.add_parser("organizer", help="tournament organizers' API keys")
    organizer_commands = organizer.add_subparsers(dest="organizer_command", required=True)
    create = organizer_commands.add_parser(
        "create",
        help="make an organizer's API key: prints it once, stores only its hash",
        description="Make an API key for a tournament organizer. The key is printed once "
        "on stdout; the store keeps only its SHA-256 (in Redis when REDIS_URL is set, else "
        "in CARDPROOF_ORGANIZERS_FILE, default .cardproof/organizers.json, which a server "
        "on the memory store reads). Exit status: 0 made; 1 the name is taken; 2 a bad "
        "name or the store cannot be reached.",
    )
    create.add_argument("name", help="the organizer's name (1 to 64 printable characters)")
    create.set_defaults(run=_organizer_create)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardproof`` console script."""
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
