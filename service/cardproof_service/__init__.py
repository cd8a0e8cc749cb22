"""cardproof_service: the cardproof HTTP API as a Litestar app (see ``create_app``)."""

from cardproof_service.app import create_app
from cardproof_service.settings import Settings

__all__ = ["Settings", "create_app"]
