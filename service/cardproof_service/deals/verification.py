"""Whole-log verification: ``POST /v1/verify`` on any of its three deal forms.

An explicit card order is replayed and answered unsigned (practice); a seed pair the
caller chose is replayed and signed as ``practice``; a stored deal is checked against
its caller first, and then is never a card oracle: a hidden deal (or any deal already
played) takes only the log it was played with, compared without replaying it, and an
unplayed open deal takes a whole log as its game (docs/protocol.md section 5.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from cardproof.errors import RuleError
from cardproof.games import Game, parse_moves, replay_log, variant
from cardproof.games.base import LOG_SPACE, set_fields
from cardproof.models import (
    DealSpec,
    MoveObject,
    ReceiptResponse,
    VerifyRequest,
    VerifyResult,
    check_log_text,
)
from cardproof.receipts import ReceiptPayload
from cardproof_service.deals.commitments import Commitments
from cardproof_service.deals.games import (
    SIGNATURE_MOVES,
    Games,
    final_total,
    move_result,
)
from cardproof_service.deals.gate import Gate, called_one_by_one, tournament_is_closed
from cardproof_service.deals.play import Play, open_of
from cardproof_service.deals.receipts import Receipts, receipt_payload
from cardproof_service.plumbing import GAMES_FINISHED, Keys, conflict, not_found, now
from cardproof_service.store import Appended, DealRecord, Store

DEAL_FORMS = (
    frozenset({"cards"}),
    frozenset({"deal_id"}),
    frozenset({"server_seed", "client_seed"}),
)
"""The fields of each form a verify request's ``deal`` may take: exactly one."""
RESEND_WINDOW = 600
"""Seconds after a game's finish in which a verify of its played log may be a whole log
resent after a 503: confirmed (and its game out of flight) before it is answered. Later,
a verify only reads."""


def canonical_log(cls: type[Game[Any, Any]], moves: str | list[MoveObject]) -> list[str]:
    """A submitted log's moves in canonical text, read by the variant alone (no deck)."""
    return [cls.move_text(move) for move in parse_moves(cls, moves)]


def verify_cards(request: VerifyRequest, cards: list[str], moves: Any) -> VerifyResult:
    """Replay a log on an explicit card order; the result is unsigned (practice)."""
    cls = variant(request.variant)
    options = cls.resolve_options(cls.parse_options(request.options), None, None)
    game = replay_log(cls.id, cls.parse_cards(cards, field="deal.cards"), options, moves)
    return VerifyResult(
        variant=game.id,
        options=msgspec.to_builtins(game.options),
        moves=game.log_text(),
        score=game.score(),
    )


def log_size(moves: str | list[MoveObject]) -> int:
    r"""How many moves a submitted log holds at most, counted without reading them.

    A move's text and its separator take two characters at least, and moves are one
    more than their separators at most: the lesser bound, each a C-level count (a split
    of an 80,000-character log would take milliseconds on the event loop).

    >>> log_size("a1 b2 c3"), log_size([]), log_size("a1 " * 300), log_size("a1\tb2\n")
    (3, 0, 301, 3)
    """
    if isinstance(moves, list):
        return len(moves)
    separators = sum(map(moves.count, LOG_SPACE))
    return min((len(moves) + 1) // 2, separators + 1)


def checked_log(moves: str | list[MoveObject]) -> str | list[MoveObject]:
    """A log text whose every token reads as a move, else a 400 naming the first that does not.

    A list of move objects is returned as it is: msgspec checked their shape.
    """
    return check_log_text(moves) if isinstance(moves, str) else moves


def as_verified(stored: ReceiptResponse) -> VerifyResult:
    """A stored receipt as the answer of a verification."""
    payload = stored.payload
    return VerifyResult(
        variant=payload.variant,
        options=payload.options,
        moves=payload.moves,
        score=payload.score,
        receipt=stored.receipt,
        payload=payload,
    )


@dataclass
class Verification:
    """Whole logs replayed and signed; one per app."""

    store: Store
    keys: Keys
    commitments: Commitments
    games: Games
    gate: Gate
    receipts: Receipts
    play: Play

    async def verify(
        self, request: VerifyRequest, authorization: str | None = None
    ) -> VerifyResult:
        """Replay a complete log on any of the three deal forms, in the replay threads."""
        deal = request.deal
        if frozenset(set_fields(deal)) not in DEAL_FORMS:
            raise RuleError(
                "bad-deal-form",
                "deal takes exactly one of: {cards}, {deal_id}, {server_seed, client_seed}",
                field="deal",
            )
        # a 25-move log is read and replayed inline; one of thousands in a replay thread
        size = log_size(request.moves)
        moves = await self.games.sized(size, checked_log, request.moves)
        if isinstance(deal.deal_id, str):
            return await self._verify_deal(request, deal.deal_id, moves, authorization)
        if isinstance(deal.cards, list):
            return await self.games.sized(size, verify_cards, request, deal.cards, moves)
        size += SIGNATURE_MOVES
        return await self.games.sized(size, self._verify_seeds, request, deal, moves)

    def _verify_seeds(self, request: VerifyRequest, deal: DealSpec, moves: Any) -> VerifyResult:
        """A seed pair the caller chose: signed as ``practice`` (it proves the arithmetic)."""
        cls = variant(request.variant)
        seed = bytes.fromhex(str(deal.server_seed))
        client_seed = str(deal.client_seed)
        options = cls.resolve_options(cls.parse_options(request.options), seed, client_seed)
        cards = cls.deal_cards(seed, client_seed, options)
        game = replay_log(cls.id, cards, options, moves, dealt=True)
        payload: ReceiptPayload = receipt_payload(
            game,
            seed,
            client_seed,
            deal_id=None,
            kind="practice",
            blind=False,
            committed=False,
            issued_at=now(),
            issuer=self.keys.issuer,
        )
        signed = ReceiptResponse(receipt=self.keys.signing.sign(payload), payload=payload)
        return as_verified(signed)

    async def _verify_deal(
        self, request: VerifyRequest, deal_id: str, moves: Any, authorization: str | None
    ) -> VerifyResult:
        """A whole log on a stored deal: the caller first, then never a card oracle.

        A tournament game takes its entrant's token before anything else is looked at.
        The gate decides what the log does (:func:`cardproof_service.deals.gate.whole_log`): a
        lockstep seat takes none while its game is played (409 ``lockstep-seat``); a
        hidden deal (and any deal already played) accepts only the log it was played
        with, once finished: any other log is a 409, refused without replaying it, so no
        log can probe the deck. An unplayed open deal takes a whole log as its game.
        """
        record = await self.gate.reader(deal_id, authorization)
        cls = variant(record.variant)
        if cls.id != request.variant:
            raise RuleError(
                "variant-mismatch", f"deal {deal_id} is a {cls.id} deal", field="variant"
            )
        options = cls.parse_options(record.options)
        if msgspec.to_builtins(self._asked_options(cls, request, record)) != record.options:
            raise RuleError(
                "options-mismatch", "the options differ from the deal's", field="options"
            )
        use, seat = await self.gate.log_use(record, cls.information_of(options), authorization)
        if use == "played":
            return await self._played_log(record, cls, moves)
        ttl = self.play.keep_for(seat)
        cards = self.games.cards_of(record)
        game = await self.games.sized(log_size(moves), replay_log, cls.id, cards, options, moves)
        game.score()  # raises 'incomplete' for a short log
        texts = game.log_text().split()
        finished_at = now()
        last = move_result(game, len(texts) - 1)
        ending = self.receipts.ending(record, game, last, finished_at)
        outcome: Appended = await self.store.submit_log(
            deal_id,
            texts,
            finished_at,
            True,
            ttl,
            final_total(game),
            ending,
            open_of(seat),
            owner=record.owner,
            tournament=record.tournament,
        )
        if outcome.outcome == "missing":
            raise not_found(f"no deal {deal_id!r} (it may have expired)", "unknown-deal")
        if outcome.outcome == "closed":
            raise tournament_is_closed()
        if outcome.outcome == "lockstep":  # a seat the gate could not have let in
            raise called_one_by_one(await self.gate.standing(record))
        if outcome.outcome == "appended":
            GAMES_FINISHED.labels(cls.id).inc()
        record = await self.gate.again(deal_id)
        if record.moves != texts:
            raise conflict("this deal was played with another log meanwhile", "not-the-played-log")
        if outcome.outcome != "appended":  # stored by another attempt: confirmed first
            await self.store.confirm_deal(deal_id, record.owner)
        return as_verified(await self.receipts.stored(record))

    async def _played_log(
        self, record: DealRecord, cls: type[Game[Any, Any]], moves: Any
    ) -> VerifyResult:
        """A hidden or played deal: only its played log, once finished, gets its receipt.

        A list of another length is refused unread; any other log is read without the deck
        (nothing is replayed), in a replay thread when it is long: a 512 KiB body holds
        40,000 move objects, whose reading would hold the loop for 100 ms and more.
        """
        texts = None
        if not isinstance(moves, list) or len(moves) == len(record.moves):
            texts = await self.games.sized(log_size(moves), canonical_log, cls, moves)
        if texts != record.moves:
            raise conflict(
                "this log is not the one this deal was played with: a deal of a hidden "
                "variant, or one played already, takes only its played log (no log can "
                "probe its cards or play it twice)",
                "not-the-played-log",
            )
        if record.finished_at is None:
            raise conflict(
                f"the game is not over: the next move is {len(record.moves)}", "not-finished"
            )
        stored = await self.receipts.stored(record)  # raises 'incomplete' for a dead end
        if now() - record.finished_at < RESEND_WINDOW:
            # maybe a resent submit, answered from what its first attempt stored
            await self.store.confirm_deal(record.deal_id, record.owner)
        return as_verified(stored)

    def _asked_options(
        self, cls: type[Game[Any, Any]], request: VerifyRequest, record: DealRecord
    ) -> Any:
        """The options a verify request names, resolved on the deal's seeds."""
        seed = self.commitments.server_seed(record.commitment_id)
        return cls.resolve_options(cls.parse_options(request.options), seed, record.client_seed)


__all__ = ["DEAL_FORMS", "RESEND_WINDOW", "Verification", "as_verified", "verify_cards"]
