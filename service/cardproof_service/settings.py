"""Service settings, read from the environment once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Self

DEFAULT_MAX_BODY_BYTES = 64 * 1024


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What an operator can set; every field has a ``CARDPROOF_*`` environment variable."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """``CARDPROOF_MAX_BODY_BYTES``: request bodies over this get 413."""
    warm_up: bool = True
    """``CARDPROOF_WARM_UP``: build the serpent solver's path table at start-up."""

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Self:
        """Settings from ``environ`` (default ``os.environ``), defaults where unset."""
        env = os.environ if environ is None else environ
        return cls(
            max_body_bytes=int(env.get("CARDPROOF_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)),
            warm_up=env.get("CARDPROOF_WARM_UP", "1").lower() not in {"0", "false", "no"},
        )
