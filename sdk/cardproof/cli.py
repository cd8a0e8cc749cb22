"""The ``cardproof`` command: run the service, print its OpenAPI spec.

``cardproof serve`` needs the ``service`` extra (``pip install 'cardproof[service]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:  # pragma: no cover - depends on the install
        print(
            "cardproof serve needs the service extra: pip install 'cardproof[service]'",
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="cardproof", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    serve.add_argument("--log-level", default="info", help="uvicorn log level (default info)")
    serve.set_defaults(run=_serve)
    spec = commands.add_parser("openapi", help="print the OpenAPI spec as JSON")
    spec.set_defaults(run=_openapi)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardproof`` console script."""
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
