"""Commitments: ids that carry their own expiry and MAC, and the server seeds they stand for.

Making a commitment writes nothing: its id is a random nonce, its expiry and an HMAC tag
under the master key, and its server seed is HMAC-SHA256(master key,
``cardproof-server-seed`` 0x00 id), so any replica derives it and none stores it. An id
has exactly one spelling (``c_`` and canonical base64url), so one commitment cannot open
two deals under two spellings. A tournament round's commitment id is
``<tournament id>:round-<n>`` (docs/protocol.md sections 3.1, 3.2 and 3.8). A casual
deal asked for with an ``Idempotency-Key`` is claimed under an id derived from its
client and key (:meth:`Commitments.replay_claim_id`, docs/protocol.md section 5.2).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Final

from cardproof.deal import seed_hash
from cardproof.models import Commitment
from cardproof.receipts import b64url, b64url_decode
from cardproof_service.plumbing import Keys, not_found, now, rfc3339

NONCE_BYTES = 16
TAG_BYTES = 12
SEEDS_KEPT: Final = 4096
"""Server seeds kept once derived, the oldest dropped first: a deal's seed is asked for
three times as the deal is made (its deck, its cards, the hash it shows) and again by
every answer that shows its state, each an HMAC under the master key."""


def round_commitment_id(tournament_id: str, round_number: int) -> str:
    """The commitment id whose server seed deals round ``round_number`` (1-based).

    >>> round_commitment_id("t_0123", 2)
    't_0123:round-2'
    """
    return f"{tournament_id}:round-{round_number}"


def seat_claim_id(tournament_id: str, entrant_id: str, round_number: int) -> str:
    """The claim an entrant's seat in a round is written with (one game per round).

    >>> seat_claim_id("t_0123", "e_1", 2)
    't_0123:e_1:round-2'
    """
    return f"{tournament_id}:{entrant_id}:round-{round_number}"


@dataclass(frozen=True)
class Commitments:
    """Commitment ids and server seeds under one master key; ``ttl`` seconds to use one."""

    keys: Keys
    ttl: int
    _seeds: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)

    def _tag(self, body: bytes) -> bytes:
        message = b"cardproof-commitment\0" + body
        return hmac.digest(self.keys.master, message, "sha256")[:TAG_BYTES]

    def new_id(self, expires_at: int) -> str:
        """A fresh commitment id that expires at ``expires_at`` (seconds since the epoch)."""
        body = secrets.token_bytes(NONCE_BYTES) + expires_at.to_bytes(8, "big")
        return "c_" + b64url(body + self._tag(body))

    def replay_claim_id(self, client: str, idempotency_key: str) -> str:
        """Where a casual deal asked for with an ``Idempotency-Key`` is claimed.

        Derived from the client and the key (``k_`` and base64url of an HMAC under the
        master key), so that the request resent, on any replica, meets the claim its first
        attempt wrote and gets that deal. It names a claim, never a commitment: the deal's
        own commitment id is fresh as every casual deal's, so its server seed is new even
        when a key comes back after the replay window. Another client's key is another
        claim: a key seen in transit does not fetch someone else's deal id.
        """
        message = b"cardproof-casual-replay\0" + client.encode() + b"\0" + idempotency_key.encode()
        return "k_" + b64url(hmac.digest(self.keys.master, message, "sha256")[:18])

    def server_seed(self, commitment_id: str) -> bytes:
        """The seed a commitment stands for: derived, never stored (but kept a while here).

        The last :data:`SEEDS_KEPT` are kept in this process, as any replica could derive
        them again: only ids the service issued or checked come here, so the memory is
        bounded by the count.
        """
        seed = self._seeds.get(commitment_id)
        if seed is None:
            message = b"cardproof-server-seed\0" + commitment_id.encode()
            seed = hmac.digest(self.keys.master, message, "sha256")
            if len(self._seeds) >= SEEDS_KEPT:  # the oldest out: a dict keeps its order
                self._seeds.pop(next(iter(self._seeds)), None)
            self._seeds[commitment_id] = seed
        return seed

    def commit(self) -> Commitment:
        """A fresh commitment: its id and the hash of the seed it stands for."""
        expires_at = now() + self.ttl
        commitment_id = self.new_id(expires_at)
        return Commitment(
            commitment_id=commitment_id,
            server_seed_hash=seed_hash(self.server_seed(commitment_id)),
            expires_at=rfc3339(expires_at),
        )

    def expiry(self, commitment_id: str) -> int:
        """The expiry of a genuine commitment id (404 for any other text, a forged one).

        An id has one spelling, the text :meth:`commit` issued: ``c_`` and canonical
        base64url (:func:`cardproof.receipts.b64url_decode` refuses every other). Expired
        ids are returned too: the caller decides (a resent request may still get its deal).
        """
        try:
            raw = b64url_decode(commitment_id[2:]) if commitment_id.startswith("c_") else b""
        except ValueError:
            raw = b""
        body, tag = raw[: NONCE_BYTES + 8], raw[NONCE_BYTES + 8 :]
        if len(raw) != NONCE_BYTES + 8 + TAG_BYTES or not hmac.compare_digest(tag, self._tag(body)):
            raise not_found("no such commitment", "unknown-commitment")
        return int.from_bytes(body[NONCE_BYTES:], "big")


__all__ = ["Commitments", "round_commitment_id", "seat_claim_id"]
