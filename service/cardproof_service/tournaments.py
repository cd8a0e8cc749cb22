"""Tournaments: the same committed deals for every entrant (this part: creating and reading).

A tournament commits to every round's server seed when it is created: round ``n``'s
seed is the server seed of the commitment id ``<tournament id>:round-<n>`` (derived
from the master key, like any deal's, never stored), and its hash is published from the
start. Every entrant's game in round ``n`` is dealt from that seed with the tournament's
public ``salt`` as the client seed, so all entrants get the same cards. The seeds are
revealed once the tournament has closed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

import msgspec

from cardproof.deal import ALGORITHM, seed_hash
from cardproof.errors import RuleError
from cardproof.games import variant
from cardproof.models import RoundCommitment, Tournament, TournamentCreated, TournamentRequest
from cardproof_service.deals import Deals, not_found, now, rfc3339
from cardproof_service.organizers import authenticate
from cardproof_service.problems import problem
from cardproof_service.store import OrganizerRecord, Store, TournamentRecord


def round_commitment_id(tournament_id: str, round_number: int) -> str:
    """The commitment id whose server seed deals round ``round_number`` (1-based)."""
    return f"{tournament_id}:round-{round_number}"


def invite_hash(code: str) -> str:
    """The stored form of an invite code."""
    return hashlib.sha256(b"cardproof-invite\0" + code.encode()).hexdigest()


@dataclass
class Tournaments:
    """Tournaments over a store; one per app. Seeds come from the deals service's key."""

    store: Store
    deals: Deals

    async def create(
        self, organizer: OrganizerRecord, request: TournamentRequest
    ) -> TournamentCreated:
        """A new tournament of ``organizer``: checks the variant, options and times."""
        cls = variant(request.variant)
        options = cls.parse_options(request.options)  # 422 for an option it does not take
        opens_at, closes_at = int(request.opens_at.timestamp()), int(request.closes_at.timestamp())
        current = now()
        if closes_at <= opens_at:
            raise RuleError("bad-window", "closes_at must be after opens_at", field="closes_at")
        if closes_at <= current:
            raise RuleError(
                "closes-in-past",
                f"closes_at is in the past (now is {rfc3339(current)})",
                field="closes_at",
            )
        invite_code = secrets.token_urlsafe(12) if request.entry == "invite" else None
        record = TournamentRecord(
            tournament_id="t_" + secrets.token_hex(10),
            organizer_id=organizer.organizer_id,
            name=request.name,
            variant=cls.id,
            options=msgspec.to_builtins(options),
            rounds=request.rounds,
            opens_at=opens_at,
            closes_at=closes_at,
            salt=secrets.token_hex(16),
            created_at=current,
            entry=request.entry,
            invite_code_hash=None if invite_code is None else invite_hash(invite_code),
            max_entrants=request.max_entrants if isinstance(request.max_entrants, int) else None,
        )
        await self.store.create_tournament(record)
        return TournamentCreated(self.view(record, organizer), invite_code)

    async def read(self, tournament_id: str, authorization: str | None) -> Tournament:
        """A tournament: public ones for anyone, invite-only ones for their organizer."""
        record = await self.store.get_tournament(tournament_id)
        if record is None:
            raise not_found(f"no tournament {tournament_id!r}", "unknown-tournament")
        if record.entry == "public":
            owner = await self.store.get_organizer(record.organizer_id)
        else:
            owner = await authenticate(self.store, authorization)
            if not hmac.compare_digest(owner.organizer_id, record.organizer_id):
                raise problem(
                    403,
                    "this tournament is invite-only, and another organizer's",
                    type_="/problems/forbidden",
                    code="not-your-tournament",
                )
        return self.view(record, owner)

    def view(self, record: TournamentRecord, organizer: OrganizerRecord | None) -> Tournament:
        """What the tournament shows: seeds only once it has closed."""
        current = now()
        closed = record.closed_at is not None or current >= record.closes_at
        status: Any = "closed" if closed else "open" if current >= record.opens_at else "scheduled"
        rounds = []
        for number in range(1, record.rounds + 1):
            seed = self.deals.server_seed(round_commitment_id(record.tournament_id, number))
            rounds.append(RoundCommitment(number, seed_hash(seed), seed.hex() if closed else None))
        return Tournament(
            tournament_id=record.tournament_id,
            name=record.name,
            organizer=organizer.name if organizer is not None else "",
            variant=record.variant,
            options=record.options,
            status=status,
            opens_at=rfc3339(record.opens_at),
            closes_at=rfc3339(record.closes_at),
            entry=record.entry,
            max_entrants=record.max_entrants,
            algorithm=ALGORITHM,
            salt=record.salt,
            rounds=rounds,
            created_at=rfc3339(record.created_at),
            closed_at=None if record.closed_at is None else rfc3339(record.closed_at),
        )


__all__ = ["Tournaments", "invite_hash", "round_commitment_id"]
