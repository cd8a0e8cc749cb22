"""``cardproof serve`` and ``cardproof openapi``: the service, run or described."""

from __future__ import annotations

import argparse
import json
import logging.config
import os
import shutil
import sys
import tempfile

SHUTDOWN_GRACE = 5
"""Seconds a stopping ``cardproof serve`` waits for requests in flight."""


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:  # pragma: no cover - depends on the install
        print(
            "cardproof serve needs the service extra: pip install 'cardproof[service]'",
            file=sys.stderr,
        )
        return 2
    host, port, workers = serve_options(args)
    if workers < 1:
        print("cardproof serve: --workers must be 1 or more", file=sys.stderr)
        return 2
    if workers > 1 and not os.environ.get("REDIS_URL"):
        print(
            "cardproof serve: the memory store lives in one process, so --workers above 1 "
            "needs a shared store: set REDIS_URL",
            file=sys.stderr,
        )
        return 2
    from cardproof_service.plumbing import MULTIPROCESS_DIR, logging_config

    if os.environ.get("CARDPROOF_ENV", "development") != "production":
        # a development server names itself where it listens: the receipts' issuer and
        # the spec's server (production sets CARDPROOF_PUBLIC_URL, or refuses to start)
        shown = "127.0.0.1" if host in {"0.0.0.0", "::", ""} else host
        os.environ.setdefault("CARDPROOF_PUBLIC_URL", f"http://{shown}:{port}")
    refusal = configuration_error(args.log_level)
    if refusal:
        print(f"cardproof serve: {refusal}", file=sys.stderr)
        return 2
    metrics_dir = None
    if workers > 1 and not os.environ.get(MULTIPROCESS_DIR):
        # every worker writes its metrics here and /metrics sums them (metrics.py)
        metrics_dir = tempfile.mkdtemp(prefix="cardproof-metrics-")
        os.environ[MULTIPROCESS_DIR] = metrics_dir
    from cardproof_service.door import DoorProtocol
    from cardproof_service.plumbing import DoorSettings

    door = DoorSettings.from_env()  # checked by configuration_error above
    try:
        uvicorn.run(
            "cardproof_service.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            # the door: uvicorn's httptools protocol with deadlines, limits, connection
            # caps by address and HTTP/2 on the same port (cardproof_service.door)
            http=DoorProtocol,
            ws="none",  # no WebSocket route: an Upgrade offer is served as HTTP/1.1
            timeout_keep_alive=door.keepalive_timeout,
            log_level=args.log_level,
            log_config=logging_config(args.log_level),
            access_log=False,  # cardproof.access writes one JSON line per request, with its id
            # X-Forwarded-For names the client only when a proxy the operator named sent
            # it: by default nobody, not even 127.0.0.1 (a local client could name itself)
            forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", ""),
            # a stopping server gives requests in flight this long, then closes the rest:
            # event streams and long polls would otherwise hold it up (clients resume)
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
        )
    finally:
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def configuration_error(log_level: str) -> str | None:
    """Why the service would not start with this environment's settings and keys, if so.

    The app factory reads the same settings and keys (every worker refuses them alike);
    read here first, a refusal is one line on stderr rather than a worker's traceback.
    Logging is set up first, so that a development key file made here says so as the
    server's own log lines do.
    """
    from cardproof_service.plumbing import (
        KeyConfigError,
        Settings,
        SettingsError,
        load_keys,
        logging_config,
    )

    logging.config.dictConfig(logging_config(log_level))
    try:
        Settings.from_env()
        load_keys()
    except (SettingsError, KeyConfigError) as error:
        return " ".join(str(error).split())  # one line, whatever the message holds
    return None


def serve_options(args: argparse.Namespace) -> tuple[str, int, int]:
    """Host, port and workers: the options, else ``CARDPROOF_HOST``/``_PORT``/``_WORKERS``.

    Read only by ``serve``, so a bad variable troubles no other command.
    """
    env = os.environ

    def number(given: int | None, name: str, default: int) -> int:
        if given is not None:
            return given
        text = env.get(name)
        try:
            return int(text) if text else default
        except ValueError:
            quoted = json.dumps(text, ensure_ascii=False)
            raise SystemExit(f"cardproof serve: {name} must be an integer, not {quoted}") from None

    host = args.host or env.get("CARDPROOF_HOST") or "127.0.0.1"
    return (
        host,
        number(args.port, "CARDPROOF_PORT", 8000),
        number(args.workers, "CARDPROOF_WORKERS", 1),
    )


def openapi_document() -> dict[str, object]:
    """The OpenAPI document the service serves at ``/schema/openapi.json``."""
    from cardproof.receipts import SigningKey
    from cardproof_service.app import create_app
    from cardproof_service.plumbing import Keys, Settings

    throwaway = Keys(master=bytes(32), signing=SigningKey.generate())  # the spec needs none
    return create_app(Settings(warm_up=False), keys=throwaway).openapi_schema.to_schema()


def print_openapi(args: argparse.Namespace) -> int:
    json.dump(openapi_document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
