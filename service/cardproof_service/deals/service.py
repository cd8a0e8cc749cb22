"""The deals service: the parts of the deal flow, wired once per app.

Commit (:mod:`.commitments`), deal (:mod:`.dealing`), reveal move by move (:mod:`.play`,
over :mod:`.games`), sign the receipt (:mod:`.receipts`) and verify whole logs
(:mod:`.verification`). The lower parts (:class:`DealParts`) are wired first, so that
the lockstep rounds (:mod:`cardproof_service.lockstep`) can be built over them; the rounds
are then handed to play as its :class:`~.play.LatePlacer`, since a move after a call's
deadline has the round's late cards placed first. The store keeps which commitments
were used and each deal's log; a game's state is always a replay of that log on the
derived deck (docs/protocol.md sections 3 and 5). The controllers see this one object;
each method hands the request to the part that owns it.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardproof.models import (
    Commitment,
    DealRequest,
    DealState,
    MoveRequest,
    MoveResult,
    ReceiptResponse,
    VerifyRequest,
    VerifyResult,
)
from cardproof_service.deals.commitments import Commitments
from cardproof_service.deals.dealing import Dealing
from cardproof_service.deals.games import Games
from cardproof_service.deals.gate import Gate
from cardproof_service.deals.play import LatePlacer, Play
from cardproof_service.deals.receipts import Receipts
from cardproof_service.deals.verification import Verification
from cardproof_service.log import Log
from cardproof_service.plumbing import Keys, Settings
from cardproof_service.store import Store


@dataclass(frozen=True)
class DealParts:
    """The deal flow's lower parts: what the lockstep rounds are built over too."""

    commitments: Commitments
    games: Games
    gate: Gate
    receipts: Receipts

    @classmethod
    def wire(cls, store: Store, keys: Keys, settings: Settings, log: Log) -> DealParts:
        """Each part over the lower ones it uses, none over a higher one.

        ``log`` proves a receipt's place in the transparency log.
        """
        commitments = Commitments(keys, settings.commitment_ttl)
        games = Games(store, keys, commitments)
        gate = Gate(store, keys, settings, games)
        receipts = Receipts(store, keys, commitments, games, gate, log)
        return cls(commitments, games, gate, receipts)


class Deals:
    """The deals flow over a store; one per app, shared by every request."""

    def __init__(
        self, store: Store, keys: Keys, settings: Settings, parts: DealParts, late: LatePlacer
    ) -> None:
        """Wire the upper parts over ``parts``; ``late`` places a lockstep round's late cards."""
        self.store = store
        self.keys = keys
        self.settings = settings
        self.commitments = parts.commitments
        self.games = parts.games
        self.gate = parts.gate
        self.receipts = parts.receipts
        self.dealing = Dealing(store, settings, self.commitments, self.games, self.gate)
        self.playing = Play(store, settings, self.games, self.gate, self.receipts, late=late)
        self.verification = Verification(
            store, keys, self.commitments, self.games, self.gate, self.receipts, self.playing
        )

    def server_seed(self, commitment_id: str) -> bytes:
        """The seed a commitment stands for: derived, never stored."""
        return self.commitments.server_seed(commitment_id)

    def commit(self) -> Commitment:
        """A fresh commitment (``POST /v1/commitments``)."""
        return self.commitments.commit()

    async def create(
        self, request: DealRequest, idempotency_key: str | None = None, client: str | None = None
    ) -> DealState:
        """Open a deal (``POST /v1/deals``): see :meth:`Dealing.create`."""
        return await self.dealing.create(request, idempotency_key, client)

    async def state(self, deal_id: str, authorization: str | None = None) -> DealState:
        """The deal as its player may see it now (``GET /v1/deals/{id}``)."""
        return await self.gate.state(deal_id, authorization)

    async def play(
        self, deal_id: str, request: MoveRequest, authorization: str | None = None
    ) -> MoveResult:
        """One move (``POST /v1/deals/{id}/moves``): see :meth:`Play.play`."""
        return await self.playing.play(deal_id, request, authorization)

    async def receipt(self, deal_id: str, authorization: str | None = None) -> ReceiptResponse:
        """A finished deal's receipt (``GET /v1/deals/{id}/receipt``)."""
        return await self.receipts.receipt(deal_id, authorization)

    async def verify(
        self, request: VerifyRequest, authorization: str | None = None
    ) -> VerifyResult:
        """A whole log replayed (``POST /v1/verify``): see :class:`Verification`."""
        return await self.verification.verify(request, authorization)


__all__ = ["DealParts", "Deals"]
