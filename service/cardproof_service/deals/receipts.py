"""Receipts: what a finished game's receipt attests, signed once when the game ends.

A game's last move packs its receipt (and, for a tournament game, a second one with the
seed revealed, shown once the tournament closes) with its last answer into the stored
ending (:mod:`cardproof_service.deals.endings`); from then on the receipt is read, never
replayed or signed again (docs/protocol.md section 4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from cardproof.deal import ALGORITHM, seed_hash
from cardproof.errors import RuleError
from cardproof.games import Game, variant
from cardproof.models import MoveResult, ReceiptResponse
from cardproof.receipts import RECEIPT_VERSION, ReceiptKind, ReceiptPayload
from cardproof_service.deals import endings
from cardproof_service.deals.commitments import Commitments
from cardproof_service.deals.games import Games
from cardproof_service.deals.gate import Gate
from cardproof_service.log import Log
from cardproof_service.plumbing import Keys, conflict, now
from cardproof_service.store import DealRecord, Ending, Store


def receipt_payload(
    game: Game[Any, Any],
    server_seed: bytes,
    client_seed: str,
    *,
    deal_id: str | None,
    kind: ReceiptKind,
    blind: bool,
    committed: bool,
    issued_at: int,
    issuer: str,
    reveal: bool = True,
    player: str | None = None,
    tournament: str | None = None,
    auto_placed: list[int] | None = None,
) -> ReceiptPayload:
    """What a receipt attests for a complete ``game`` dealt from this seed pair.

    ``reveal`` false leaves the server seed out (a tournament's, until it closes);
    ``auto_placed`` lists a lockstep game's moves placed for the player. ``issuer`` is
    the ``iss`` (the keys' issuer); ``iat`` repeats ``issued_at`` for JWT readers.
    """
    return ReceiptPayload(
        version=RECEIPT_VERSION,
        variant=game.id,
        options=msgspec.to_builtins(game.options),
        deal_id=deal_id,
        algorithm=ALGORITHM,
        server_seed_hash=seed_hash(server_seed),
        server_seed=server_seed.hex() if reveal else None,
        client_seed=client_seed,
        moves=game.log_text(),
        score=game.score(),
        blind=blind,
        committed_before_client_seed=committed,
        issued_at=issued_at,
        kind=kind,
        player=player,
        tournament=tournament,
        auto_placed=auto_placed,
        iss=issuer,
        iat=issued_at,
    )


def kind_of(record: DealRecord) -> ReceiptKind:
    """What a receipt of this deal proves (see :data:`cardproof.receipts.ReceiptKind`)."""
    if record.tournament is not None:
        return "tournament"
    if not record.committed:
        return "casual"
    cls = variant(record.variant)
    hidden = cls.information_of(cls.parse_options(record.options)) == "hidden"
    return "committed-blind" if hidden and record.blind else "committed-open"


@dataclass
class Receipts:
    """Signing a game's receipt when it ends, and reading it back; one per app."""

    store: Store
    keys: Keys
    commitments: Commitments
    games: Games
    gate: Gate
    log: Log

    def ending(
        self, record: DealRecord, game: Game[Any, Any], last: MoveResult, finished_at: int
    ) -> Ending:
        """A finishing game's receipt (and a tournament's with its seed) and last answer.

        Signed and packed once, here: from then on the game is read, never replayed.
        """
        if not game.is_complete():  # a dead end: no score, no receipt
            return endings.pack(self.keys.signing, last, None)
        seed = self.commitments.server_seed(record.commitment_id)
        payload = receipt_payload(
            game,
            seed,
            record.client_seed,
            deal_id=record.deal_id,
            kind=kind_of(record),
            blind=record.blind,
            committed=record.committed,
            issued_at=finished_at,
            issuer=self.keys.issuer,
            reveal=record.tournament is None,
            player=record.player,
            tournament=record.tournament,
            auto_placed=sorted(record.auto_placed) if record.lockstep else None,
        )
        revealed = None
        if record.tournament is not None:
            revealed = msgspec.structs.replace(payload, server_seed=seed.hex())
        return endings.pack(self.keys.signing, last, payload, revealed, logged=self.log.enabled)

    async def receipt(self, deal_id: str, authorization: str | None = None) -> ReceiptResponse:
        """The signed receipt of a finished deal (a tournament game's: for its entrant).

        It was signed when the game ended and is read as stored: no replay, no signing.
        Its ``log`` is its place in the transparency log, once sequenced.
        """
        record = await self.gate.reader(deal_id, authorization)
        if record.finished_at is None:
            raise conflict(
                f"the game is not over: the next move is {len(record.moves)}", "not-finished"
            )
        stored = await self.stored(record)
        proof = await self.log.proof(stored.receipt)
        return stored if proof is None else msgspec.structs.replace(stored, log=proof)

    async def stored(self, record: DealRecord) -> ReceiptResponse:
        """A finished game's receipt as stored: no replay, no signing.

        A tournament game's is the revealed one once its tournament has closed; a game
        stored before receipts were gets one signed now.
        """
        ending = record.ending
        if ending is None:
            return await self._signed_now(record)
        stored = endings.receipt(ending, revealed=await self.gate.reveals_seed(record))
        if stored is None:
            raise RuleError(
                "incomplete", "the game ended at a dead end: it is not scored", field="moves"
            )
        return stored

    async def _signed_now(self, record: DealRecord) -> ReceiptResponse:
        """The receipt of a game stored before receipts were kept: replayed and signed.

        Such a game ended before the transparency log was kept: its receipt is not logged.
        """
        game = await self.games.replay_off_loop(record)
        if not game.is_complete():
            raise RuleError("incomplete", game.incomplete_reason(), field="moves")
        payload = receipt_payload(
            game,
            self.commitments.server_seed(record.commitment_id),
            record.client_seed,
            deal_id=record.deal_id,
            kind=kind_of(record),
            blind=record.blind,
            committed=record.committed,
            issued_at=record.finished_at or now(),
            issuer=self.keys.issuer,
            reveal=await self.gate.reveals_seed(record),
            player=record.player,
            tournament=record.tournament,
        )
        return ReceiptResponse(receipt=self.keys.signing.sign(payload), payload=payload)


__all__ = ["Receipts", "kind_of", "receipt_payload"]
