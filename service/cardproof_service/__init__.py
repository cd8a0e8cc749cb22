"""cardproof_service: the cardproof HTTP API as a Litestar app (see ``create_app``).

It needs the ``service`` extra (Litestar, uvicorn, redis, ...): without it, importing
the package says so, with the command that installs it.
"""

from cardproof.errors import ServiceExtraMissingError

try:
    from cardproof_service.app import create_app
    from cardproof_service.plumbing import Settings
except ModuleNotFoundError as missing:
    if missing.name is None or missing.name.partition(".")[0] in ("cardproof", "cardproof_service"):
        raise  # a module of this distribution: a broken install, not a missing extra
    raise ServiceExtraMissingError(
        f"cardproof_service needs the service extra ({missing.name} is not installed): "
        f"{ServiceExtraMissingError.INSTALL}",
        name=missing.name,
    ) from missing

__all__ = ["Settings", "create_app"]
