"""Invite codes of invite-only tournaments: single use, stored only as their hash.

A code is 16 letters and digits (95 bits); the store keeps its SHA-256 (under a label
of its own) and lets each enter once. A tournament holds at most twice its field.
"""

from __future__ import annotations

import hashlib
import secrets
import string
from typing import Final

from cardproof.models import MAX_INVITES
from cardproof_service.plumbing import conflict
from cardproof_service.store import Store, TournamentRecord

INVITE_ALPHABET: Final = string.ascii_letters + string.digits
"""Invite codes use letters and digits only: a code never starts with ``-`` (which a
command line would read as an option: ``cardproof tournament enter --invite CODE``)."""


def new_invite_code() -> str:
    """A fresh invite code: 16 letters and digits (95 bits).

    >>> code = new_invite_code()
    >>> (len(code), code.isalnum())
    (16, True)
    """
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(16))


def invite_hash(code: str) -> str:
    """The stored form of an invite code."""
    return hashlib.sha256(b"cardproof-invite\0" + code.encode()).hexdigest()


def invite_limit(record: TournamentRecord) -> int:
    """The invite codes a tournament may have in all: twice its field, at most 100,000."""
    return min(MAX_INVITES, 2 * (record.max_entrants or MAX_INVITES // 2))


async def add_invites(store: Store, record: TournamentRecord, count: int) -> list[str]:
    """``count`` fresh single-use invite codes, stored by hash (409 past the cap)."""
    codes = [new_invite_code() for _ in range(count)]
    limit = invite_limit(record)
    hashes = [invite_hash(code) for code in codes]
    if not await store.add_invites(record.tournament_id, hashes, limit, record.expires_at):
        raise conflict(
            f"a tournament has at most {limit} invite codes (twice its max_entrants)",
            "too-many-invites",
        )
    return codes


__all__ = ["INVITE_ALPHABET", "add_invites", "invite_hash", "invite_limit", "new_invite_code"]
