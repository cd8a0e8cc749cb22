"""Entries: entering a tournament once per name, invite codes, tokens, and round games.

Names are compared by :func:`~cardproof_service.tournaments.names.name_key` (case-folded,
confusable skeleton), so a look-alike of an entrant's name is taken. An invite-only
tournament takes a single-use code per entry. An entrant's token
(:mod:`cardproof_service.deals.entrants`) opens the entrant's round games, once per round,
through the deals flow, and is needed for each of their moves.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.errors import RuleError
from cardproof.models import (
    DealState,
    Entry,
    EntryRequest,
    InviteCodes,
    InviteRequest,
    RoundCommitment,
)
from cardproof_service.deals import Dealing, make_token, require_entrant, round_commitment_id
from cardproof_service.lockstep import Rounds
from cardproof_service.plumbing import (
    REPLAY_WINDOW,
    Keys,
    conflict,
    not_found,
    now,
    problem,
    rfc3339,
    rfc3339_ms,
    tournament_closed,
    unauthorized,
)
from cardproof_service.store import NewEntrant, Store, TournamentRecord
from cardproof_service.tournaments.invites import add_invites, invite_hash
from cardproof_service.tournaments.names import display_name, name_key
from cardproof_service.tournaments.organizers import organizer_quota
from cardproof_service.tournaments.tournaments import Tournaments, require_open


@dataclass
class Entries:
    """Entrants of tournaments and their round games; one per app."""

    store: Store
    keys: Keys
    tournaments: Tournaments
    dealing: Dealing
    rounds: Rounds

    async def invite(
        self, tournament_id: str, request: InviteRequest, authorization: str | None
    ) -> InviteCodes:
        """More single-use invite codes, for the organizer of an invite-only tournament."""
        record = await self.tournaments.record(tournament_id)
        await self.tournaments.owner(record, authorization, "only its organizer invites:")
        if record.entry != "invite":
            raise conflict("this tournament is public: anyone may enter", "not-invite-only")
        if tournament_closed(record):
            raise conflict("the tournament is closed", "closed")
        quota = organizer_quota(self.tournaments.settings, record.organizer_id)
        await self.store.spend_organizer_quota(quota, 0, request.count)
        return InviteCodes(tournament_id, await add_invites(self.store, record, request.count))

    def entrant_token(self, record: TournamentRecord, entrant_id: str) -> str:
        """A token for this entrant, good until the tournament closes."""
        master = self.keys.master
        return make_token(master, record.tournament_id, entrant_id, record.closes_at)

    async def entrant(self, record: TournamentRecord, authorization: str | None) -> tuple[str, str]:
        """The (entrant id, name) an ``Authorization: Bearer cpe_...`` header proves."""
        token = require_entrant(self.keys.master, authorization, record.tournament_id, now())
        name = await self.store.entrant_name(record.tournament_id, token.entrant_id)
        if name is None:  # only if the store lost it: the tag is ours
            raise unauthorized(
                "this entrant is not known", "cardproof entrants", "credential-invalid"
            )
        return token.entrant_id, name

    async def enter(
        self,
        tournament_id: str,
        request: EntryRequest,
        idempotency_key: str | None = None,
        address: str | None = None,
    ) -> Entry:
        """Enter ``request.name``: while entry is open, once per name, within the limit.

        Names are compared by :func:`~cardproof_service.tournaments.names.name_key` (case-folded,
        confusable skeleton): a look-alike of an entrant's name is taken. An invite-only
        tournament takes a single-use code. A request resent with the same
        ``Idempotency-Key`` within 24 hours gets the same entry (and token). A lockstep
        tournament's entries close when its first round starts (``entries-closed``):
        nobody holds a round they could never play. A public tournament takes at most
        ``CARDPROOF_ENTRIES_PER_ADDRESS`` entries from one ``address`` (the client's id,
        :func:`~cardproof_service.plumbing.limits.client_id`; 409 ``entries-per-address``): every
        entry is a token, and a token a share of each round's listeners.
        """
        record = await self.tournaments.record(tournament_id)
        require_open(record)
        lockstep = record.format == "lockstep"
        if lockstep:
            await self.rounds.advance(record, 1)  # a start time passed: started
        name = display_name(request.name)
        code = request.invite_code if isinstance(request.invite_code, str) else None
        if record.entry == "invite" and code is None:
            raise problem(
                403,
                "this tournament is invite-only: an invite_code is needed",
                type_="/problems/forbidden",
                code="bad-invite-code",
            )
        replay = None
        if idempotency_key is not None:
            message = "\0".join(("cardproof-entry-replay", tournament_id, idempotency_key))
            replay = hashlib.sha256(message.encode()).hexdigest()
        entrant = NewEntrant(
            entrant_id=secrets.token_hex(8),
            name=name,
            key=name_key(name),
            invite=invite_hash(code) if record.entry == "invite" and code else None,
            replay=replay,
            replay_ttl=REPLAY_WINDOW,
            expires_at=record.expires_at,
        )
        public = record.entry == "public"
        per_address = self.tournaments.settings.entries_per_address
        result = await self.store.add_entrant(
            tournament_id,
            entrant,
            record.max_entrants,
            until_first_round=lockstep,
            address=address if public else None,
            per_address=per_address,
        )
        if result.outcome == "replayed":
            if name_key(result.name) != entrant.key:
                raise RuleError(
                    "idempotency-key-reused",
                    "this Idempotency-Key was used for another entry: send a fresh one",
                    field="Idempotency-Key",
                )
            return self._entry(record, result.entrant_id, result.name)
        if result.outcome in {"bad-invite", "invite-used"}:
            used = result.outcome == "invite-used"
            raise problem(
                403,
                "this invite code has entered someone already: each code enters once"
                if used
                else "this is not an invite code of this tournament",
                type_="/problems/forbidden",
                code="invite-used" if used else "bad-invite-code",
            )
        if result.outcome == "name-taken":
            clash = result.name
            looks = "" if clash == name else f" (it looks like {clash!r}, who has entered)"
            raise conflict(
                f"the name {name!r} is taken{looks}", "name-taken", taken_by=clash or None
            )
        if result.outcome == "entries-closed":
            raise await self._entries_closed(record)
        if result.outcome == "full":
            raise conflict(f"the tournament is full ({record.max_entrants} entrants)", "full")
        if result.outcome == "entries-per-address":
            raise conflict(
                f"this address has made {per_address} entries in this tournament, the most "
                f"one address may make in a public tournament (CARDPROOF_ENTRIES_PER_ADDRESS: "
                f"{per_address}): players behind one address beyond it need an invite-only "
                "tournament",
                "entries-per-address",
            )
        return self._entry(record, entrant.entrant_id, name)

    def _entry(self, record: TournamentRecord, entrant_id: str, name: str) -> Entry:
        """The answer to an entry: the token, and the round hashes the entrant holds us to."""
        view = self.tournaments.view(record, None)
        return Entry(
            tournament_id=record.tournament_id,
            entrant_id=entrant_id,
            name=name,
            token=self.entrant_token(record, entrant_id),
            expires_at=rfc3339(record.closes_at),
            rounds=[RoundCommitment(r.round, r.server_seed_hash, None) for r in view.rounds],
            salt=record.salt,
        )

    async def open_round(
        self,
        tournament_id: str,
        round_number: int,
        authorization: str | None,
        idempotency_key: str | None = None,
    ) -> DealState:
        """The entrant's game on round ``round_number``: once, through the deals flow."""
        record = await self.tournaments.record(tournament_id)
        if not 1 <= round_number <= record.rounds:
            raise not_found(
                f"round {round_number} is not in this tournament (rounds 1..{record.rounds})",
                "unknown-round",
            )
        entrant_id, name = await self.entrant(record, authorization)
        require_open(record)
        if record.format == "lockstep":
            await self.rounds.advance(record, round_number)  # a start time passed: started
        return await self.dealing.create_round_game(
            record,
            round_number,
            round_commitment_id(tournament_id, round_number),
            entrant_id,
            name,
            idempotency_key,
        )

    async def _entries_closed(self, record: TournamentRecord) -> ProblemDetailsException:
        """409 ``entries-closed``: a lockstep tournament's first round has started."""
        closed_at = await self.tournaments.entries_closed_at(record)
        started = None if closed_at is None else rfc3339_ms(closed_at)
        return conflict(
            f"entries closed when round 1 started{'' if started is None else f' at {started}'}: "
            "in a lockstep tournament every entrant is seated before the first call, so "
            "nobody holds a round they could never play",
            "entries-closed",
            started_at=started,
        )


__all__ = ["Entries"]
