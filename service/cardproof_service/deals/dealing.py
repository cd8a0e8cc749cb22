"""Dealing: casual and committed deals, tournament seats, and the limits on opening them.

A committed deal claims its commitment once, in the same store step that writes the
deal; a request resent with the same ``Idempotency-Key`` gets the deal the first one
opened. A casual deal asked for with a key claims a slot derived from its client and the
key the same way, so that its resend is answered with the first deal too. A tournament
round's game is dealt from the round's seed with the tournament's salt, once per entrant.
A deal counts among its client's games in flight until it finishes, and among its deals
of the day (UTC).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

import msgspec

from cardproof.deal import MAX_CLIENT_SEED_BYTES
from cardproof.errors import RuleError
from cardproof.games import variant
from cardproof.models import DealRequest, DealState
from cardproof.receipts import b64url
from cardproof.tournaments import round_deal
from cardproof_service.deals.commitments import Commitments, seat_claim_id
from cardproof_service.deals.games import Games, seat_of
from cardproof_service.deals.gate import Gate
from cardproof_service.plumbing import (
    DAY,
    GAMES_STARTED,
    REPLAY_WINDOW,
    Settings,
    conflict,
    not_found,
    now,
    rfc3339,
    tournament_ttl,
)
from cardproof_service.store import (
    Claim,
    DailyQuota,
    DealRecord,
    RoundStarted,
    Store,
    TournamentRecord,
    id_tag,
    new_deal_id,
)


def replay_key(idempotency_key: str | None, request: DealRequest) -> str:
    """What a claim records of the request: its key and a digest of its body.

    A resent request must be the same request: the same key with another body (another
    variant, options or client seed) is refused rather than answered with the first deal.
    """
    if not idempotency_key:
        return ""
    digest = hashlib.sha256(msgspec.json.encode(request)).hexdigest()[:24]
    return f"{idempotency_key}\0{digest}"


@dataclass
class Dealing:
    """Opening deals over a store; one per app."""

    store: Store
    settings: Settings
    commitments: Commitments
    games: Games
    gate: Gate

    async def create(
        self, request: DealRequest, idempotency_key: str | None = None, client: str | None = None
    ) -> DealState:
        """Open a deal on a commitment (claimed once) or, for casual play, without one.

        A request resent with the same ``Idempotency-Key`` gets the deal the first one
        opened, committed or casual (the same key with another body is a 422); any other
        second use of the commitment is a 409. The deal counts among ``client``'s games
        in flight until it finishes or expires, and among its deals of the day (UTC), once
        however often it is resent; over the cap (``max_games_in_flight``) or the quota
        (``daily_deal_quota``) nothing is stored and the answer is a 429.
        """
        cls = variant(request.variant)
        if isinstance(request.commitment_id, str) and not request.client_seed:
            # the player's half of the deck: one the server chose could be any of many
            raise RuleError(
                "client-seed-required",
                "a committed deal needs your client_seed: the server committed to its seed, "
                "and the deck is fair only if the other half is yours",
                field="client_seed",
            )
        client_seed = request.client_seed or b64url(secrets.token_bytes(16))
        if len(client_seed.encode()) > MAX_CLIENT_SEED_BYTES:
            raise RuleError(
                "client-seed-too-long",
                f"a client seed is at most {MAX_CLIENT_SEED_BYTES} UTF-8 bytes",
                field="client_seed",
            )
        claim = None
        if isinstance(request.commitment_id, str):
            commitment_id = request.commitment_id
            expires_at = self.commitments.expiry(commitment_id)
            deal_id = new_deal_id(id_tag(commitment_id))  # written with its claim, in one step
            if expires_at <= now():  # only a resent request may still get its deal
                first = await self.store.get_claim(commitment_id) if idempotency_key else None
                if first is not None:
                    return await self._repeat(first, idempotency_key, request, deal_id)
                raise not_found(
                    f"the commitment expired at {rfc3339(expires_at)}", "expired-commitment"
                )
            mark = msgspec.msgpack.encode([deal_id, replay_key(idempotency_key, request)])
            claim = Claim(commitment_id, mark, max(REPLAY_WINDOW, expires_at - now()))
        elif idempotency_key:  # casual, resent with its key: the first deal, not another
            commitment_id = self.commitments.new_id(now())  # a fresh seed, as any casual deal
            claim_id = self.commitments.replay_claim_id(client or "", idempotency_key)
            deal_id = new_deal_id(id_tag(claim_id))  # written with its claim, in one step
            mark = msgspec.msgpack.encode([deal_id, replay_key(idempotency_key, request)])
            # kept no longer than the deal: a claim never names a deal that is gone
            claim = Claim(claim_id, mark, min(REPLAY_WINDOW, self.settings.deal_ttl))
        else:
            commitment_id = self.commitments.new_id(now())
            deal_id = new_deal_id(id_tag(commitment_id))
        seed = self.commitments.server_seed(commitment_id)
        options = cls.resolve_options(cls.parse_options(request.options), seed, client_seed)
        record = DealRecord(
            deal_id=deal_id,
            variant=cls.id,
            options=msgspec.to_builtins(options),
            commitment_id=commitment_id,
            client_seed=client_seed,
            committed=isinstance(request.commitment_id, str),
            created_at=now(),
            owner=client if self.settings.max_games_in_flight or self._quota(client) else None,
        )
        first = await self.store.create_deal(
            record,
            self.settings.deal_ttl,
            claim,
            self.settings.max_games_in_flight,
            self._quota(client),
        )
        if first is not None:
            return await self._repeat(first, idempotency_key, request, deal_id)
        GAMES_STARTED.labels(cls.id).inc()
        game = self.games.replay(record)
        self.games.cache.put(deal_id, game, owner=record.owner, record=record)
        return self.gate.opened(record, game)

    def _quota(self, client: str | None) -> DailyQuota | None:
        """Today's quota of deals for ``client`` (``None``: no quota, or no client known)."""
        limit = self.settings.daily_deal_quota
        if not limit or client is None:
            return None
        current = now()
        return DailyQuota(client, limit, current // DAY, DAY - current % DAY)

    async def create_round_game(
        self,
        tournament: TournamentRecord,
        round_number: int,
        commitment_id: str,
        entrant_id: str,
        player: str,
        idempotency_key: str | None = None,
    ) -> DealState:
        """Open ``player``'s game on a tournament round: once, dealt from the round's seed.

        Every entrant's game of the round has the same seed (``commitment_id``'s) and the
        same client seed (the tournament's salt), so the same cards. The deal and the
        entrant's claim on the round last until the tournament closes and a deal's time
        to live after that.
        """
        cls = variant(tournament.variant)
        seed = self.commitments.server_seed(commitment_id)
        options, _ = round_deal(cls.id, tournament.options, seed, tournament.salt)
        deal_id = new_deal_id(id_tag(tournament.tournament_id))  # with its standings, in one step
        record = DealRecord(
            deal_id=deal_id,
            variant=cls.id,
            options=msgspec.to_builtins(options),
            commitment_id=commitment_id,
            client_seed=tournament.salt,
            committed=True,
            created_at=now(),
            tournament=tournament.tournament_id,
            round=round_number,
            entrant=entrant_id,
            player=player,
            tournament_expires_at=tournament.expires_at,
            lockstep=tournament.format == "lockstep",
        )
        ttl = tournament_ttl(tournament, self.settings.tournament_retention)
        claim_id = seat_claim_id(tournament.tournament_id, entrant_id, round_number)
        mark = msgspec.msgpack.encode([deal_id, idempotency_key or ""])
        try:
            first = await self.store.create_deal(record, ttl, Claim(claim_id, mark, ttl))
        except RoundStarted:
            raise conflict(
                f"round {round_number} has started: its seats were taken before its first "
                "call, and nobody is seated after it",
                "round-started",
            ) from None
        if first is None:
            GAMES_STARTED.labels(cls.id).inc()
        else:
            first_deal, first_key = msgspec.msgpack.decode(first, type=tuple[str, str])
            if first_deal == deal_id or (idempotency_key and idempotency_key == first_key):
                # a retry, or this request's own write resent after a lost reply
                found = await self.gate.replayed(first_deal)
                if found is not None:
                    await self.store.confirm_deal(first_deal)  # this answer acknowledges it
                    return found
            raise conflict(
                f"{player} has opened round {round_number} already (deal {first_deal}): "
                "one game per round, no second try",
                "round-played",
                deal_id=first_deal,
            )
        game = self.games.replay(record)
        seat = seat_of(record, tournament, self.settings.tournament_retention)
        self.games.cache.put(deal_id, game, seat, record=record)
        return self.gate.opened(record, game)  # a lockstep seat: blind until the first call

    async def _repeat(
        self,
        first_claim: bytes,
        idempotency_key: str | None,
        request: DealRequest,
        deal_id: str,
    ) -> DealState:
        """The answer to a deal request on a commitment that is already claimed.

        The claim may be this very request's (``deal_id``): its write was resent after a
        lost reply. Then, as for a retry with the same ``Idempotency-Key``, the answer is
        the deal the claim names.
        """
        first_deal, first_key = msgspec.msgpack.decode(first_claim, type=tuple[str, str])
        ours = replay_key(idempotency_key, request)
        if idempotency_key and first_key != ours and first_key.startswith(f"{idempotency_key}\0"):
            raise RuleError(
                "idempotency-key-reused",
                "this Idempotency-Key was sent with another request: send a fresh one",
                field="Idempotency-Key",
            )
        if first_deal == deal_id or (idempotency_key and ours == first_key):
            found = await self.gate.replayed(first_deal)
            if found is not None:
                await self.store.confirm_deal(first_deal)  # this answer acknowledges it
                return found
        raise conflict("this commitment was used for a deal already", "commitment-used")


__all__ = ["Dealing", "replay_key"]
