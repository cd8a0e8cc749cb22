"""The deals service: the parts of the deal flow, wired once per app.

Commit (:mod:`~cardproof_service.commitments`), deal
(:mod:`~cardproof_service.dealing`), reveal move by move
(:mod:`~cardproof_service.play`, over :mod:`~cardproof_service.games`), sign the
receipt (:mod:`~cardproof_service.receipts`) and verify whole logs
(:mod:`~cardproof_service.verification`); lockstep rounds
(:mod:`~cardproof_service.lockstep`) place late cards through play's store steps. The
store keeps which commitments were used and each deal's log; a game's state is always
a replay of that log on the derived deck (docs/protocol.md sections 3 and 5). The
controllers see this one object; each method hands the request to the part that owns it.
"""

from __future__ import annotations

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
from cardproof_service.commitments import Commitments
from cardproof_service.dealing import Dealing
from cardproof_service.games import Games
from cardproof_service.gate import Gate
from cardproof_service.keys import Keys
from cardproof_service.late import LatePlacements
from cardproof_service.lockstep import Rounds
from cardproof_service.play import Play
from cardproof_service.receipts import Receipts
from cardproof_service.settings import Settings
from cardproof_service.store import Store
from cardproof_service.verification import Verification


class Deals:
    """The deals flow over a store; one per app, shared by every request."""

    def __init__(self, store: Store, keys: Keys, settings: Settings) -> None:
        """Wire the parts: each takes the lower parts it uses, none a higher one."""
        self.store = store
        self.keys = keys
        self.settings = settings
        self.commitments = Commitments(keys, settings.commitment_ttl)
        self.games = Games(store, keys, self.commitments)
        self.gate = Gate(store, keys, settings, self.games)
        self.receipts = Receipts(store, keys, self.commitments, self.games, self.gate)
        self.dealing = Dealing(store, settings, self.commitments, self.games, self.gate)
        late = LatePlacements(store, settings, self.games, self.receipts)
        self.rounds = Rounds(store, settings, self.commitments, self.games, self.receipts, late)
        self.playing = Play(store, settings, self.games, self.gate, self.receipts, late=self.rounds)
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


__all__ = ["Deals"]
