"""Tournaments: the same committed deals for every entrant, their lifetime and who reads them.

A tournament commits to every round's server seed when it is created: round ``n``'s
seed is the server seed of the commitment id ``<tournament id>:round-<n>`` (derived
from the master key, like any deal's, never stored), and its hash is published from the
start. Every entrant's game in round ``n`` is dealt from that seed with the tournament's
public ``salt`` as the client seed, so all entrants get the same cards. The seeds are
revealed once the tournament has closed.

This module creates, shows and closes tournaments, decides who may read one, and
answers the lockstep round endpoints (the rounds themselves run in
:mod:`~cardproof_service.lockstep.rounds`, their calls in :mod:`~cardproof_service.lockstep.calls`).
Entries are in :mod:`~cardproof_service.tournaments.entries`, standings and the exported record in
:mod:`~cardproof_service.tournaments.standings`.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import msgspec
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.deal import ALGORITHM, seed_hash
from cardproof.errors import RuleError
from cardproof.games import variant
from cardproof.models import (
    RoundCalls,
    RoundCommitment,
    RoundStatus,
    Tournament,
    TournamentCreated,
    TournamentList,
    TournamentRequest,
    TournamentSummary,
)
from cardproof.tlog.entries import RoundCommitment as LoggedCommitment
from cardproof_service.deals import (
    ENTRANT_PREFIX,
    Commitments,
    require_entrant,
    round_commitment_id,
    seat_claim_id,
)
from cardproof_service.lockstep import Calls, Listener, Rounds, unknown_round
from cardproof_service.log import Log
from cardproof_service.plumbing import (
    Keys,
    Settings,
    conflict,
    not_found,
    now,
    problem,
    rfc3339,
    rfc3339_ms,
    tournament_closed,
)
from cardproof_service.store import (
    OrganizerRecord,
    Store,
    TournamentRecord,
    id_tag,
)
from cardproof_service.tournaments.formats import format_of, round_starts
from cardproof_service.tournaments.invites import add_invites, invite_hash, invite_limit
from cardproof_service.tournaments.names import display_name
from cardproof_service.tournaments.organizers import authenticate, organizer_quota

MAX_TOURNAMENT_NAME: Final = 100
LONGEST_AHEAD: Final = 10 * 366 * 86_400
"""How far ahead a tournament may open or close: ten years. Its record is kept a while
after the close, and every time it holds must still be a date (the year 9999 is the
last) when it is shown."""


class Access(NamedTuple):
    """Who asks to read a tournament: an ``Authorization`` and/or an invite code.

    An invite-only tournament is read by its organizer (``Bearer cpo_...``), its entrants
    (``Bearer cpe_...``: they need its seeds, once it has closed, to replay their
    receipts) and anyone holding one of its invite codes.
    """

    authorization: str | None = None
    invite_code: str | None = None


def status_of(record: TournamentRecord) -> Any:
    """``scheduled``, ``open`` or ``closed``, now."""
    if tournament_closed(record):
        return "closed"
    return "open" if now() >= record.opens_at else "scheduled"


def require_open(record: TournamentRecord) -> None:
    """A 409 outside the tournament's opening window."""
    status = status_of(record)
    if status == "scheduled":
        raise conflict(f"the tournament opens at {rfc3339(record.opens_at)}", "not-open")
    if status == "closed":
        raise conflict("the tournament is closed", "closed")


def summary(record: TournamentRecord) -> TournamentSummary:
    """A tournament as its organizer's list shows it: a line, no round commitments."""
    return TournamentSummary(
        tournament_id=record.tournament_id,
        name=record.name,
        variant=record.variant,
        options=record.options,
        status=status_of(record),
        format=record.format,
        entry=record.entry,
        rounds=record.rounds,
        opens_at=rfc3339(record.opens_at),
        closes_at=rfc3339(record.closes_at),
        created_at=rfc3339(record.created_at),
        closed_at=None if record.closed_at is None else rfc3339(record.closed_at),
    )


@dataclass
class Tournaments:
    """Tournaments over a store; one per app. Seeds come from the master key."""

    store: Store
    keys: Keys
    settings: Settings
    commitments: Commitments
    rounds: Rounds
    calls: Calls
    log: Log

    async def create(
        self, organizer: OrganizerRecord, request: TournamentRequest
    ) -> TournamentCreated:
        """A new tournament of ``organizer``: checks the variant, options and times."""
        cls = variant(request.variant)
        options = cls.parse_options(request.options)  # 422 for an option it does not take
        name = display_name(request.name, longest=MAX_TOURNAMENT_NAME)  # shown on every page
        opens_at, closes_at = int(request.opens_at.timestamp()), int(request.closes_at.timestamp())
        current = now()
        for field, moment in (("opens_at", opens_at), ("closes_at", closes_at)):
            if not 0 <= moment <= current + LONGEST_AHEAD:
                raise RuleError(
                    "bad-time",
                    f"{field} must be after 1970 and at most {LONGEST_AHEAD // 86_400} days "
                    f"from now (now is {rfc3339(current)})",
                    field=field,
                )
        if closes_at <= opens_at:
            raise RuleError("bad-window", "closes_at must be after opens_at", field="closes_at")
        if closes_at <= current:
            raise RuleError(
                "closes-in-past",
                f"closes_at is in the past (now is {rfc3339(current)})",
                field="closes_at",
            )
        settings = self.settings
        asked = request.max_entrants if isinstance(request.max_entrants, int) else None
        if asked is not None and asked > settings.max_entrants:
            raise RuleError(
                "too-many-entrants",
                f"max_entrants is at most {settings.max_entrants} on this service",
                field="max_entrants",
            )
        format_ = format_of(cls, options, request)
        starts = round_starts(request, format_, opens_at, closes_at)
        invites = request.invites if isinstance(request.invites, int) else None
        if request.entry == "public" and invites:
            raise RuleError(
                "invites-need-invite-entry",
                'invite codes are for entry: "invite" tournaments',
                field="invites",
            )
        record = TournamentRecord(
            tournament_id="t_" + secrets.token_hex(10),
            organizer_id=organizer.organizer_id,
            name=name,
            variant=cls.id,
            options=msgspec.to_builtins(options),
            rounds=request.rounds,
            opens_at=opens_at,
            closes_at=closes_at,
            salt=secrets.token_hex(16),
            created_at=current,
            entry=request.entry,
            max_entrants=min(settings.default_max_entrants, settings.max_entrants)
            if asked is None
            else asked,
            expires_at=closes_at + settings.tournament_retention,
            format=format_,
            card_seconds=request.card_seconds,
            round_starts=starts,
        )
        if invites is not None and invites > invite_limit(record):
            raise RuleError(
                "too-many-invites",
                f"invites: at most {invite_limit(record)} codes (twice max_entrants)",
                field="invites",
            )
        asked_codes = (1 if invites is None else invites) if request.entry == "invite" else 0
        await self.store.spend_organizer_quota(
            organizer_quota(self.settings, organizer.organizer_id), 1, asked_codes
        )
        # logged before anyone can see the tournament (a create that fails after leaves a
        # commitment to a tournament nobody saw); its reveals and settlement from its close
        await self.log.pool(
            id_tag(record.tournament_id),
            [
                LoggedCommitment(record.tournament_id, number, seed_hash(seed))
                for number, seed in self.round_seeds(record)
            ],
        )
        await self.log.due(record.tournament_id, record.closes_at * 1000)
        await self.store.create_tournament(record)
        for number, start in enumerate(starts or (), start=1):
            await self.store.schedule_round(record.tournament_id, number, start * 1000)
        codes: list[str] = []
        if request.entry == "invite":
            codes = await add_invites(self.store, record, asked_codes)
        return TournamentCreated(
            self.view(record, organizer), codes[0] if codes else None, invite_codes=codes
        )

    async def record(self, tournament_id: str) -> TournamentRecord:
        """The tournament's record (404 ``unknown-tournament`` when there is none)."""
        record = await self.store.get_tournament(tournament_id)
        if record is None:
            raise not_found(f"no tournament {tournament_id!r}", "unknown-tournament")
        return record

    async def read(self, tournament_id: str, access: Access) -> Tournament:
        """A tournament: public ones for anyone, invite-only ones for their organizer.

        Anyone holding an invite-only tournament's invite code (``X-Invite-Code``) reads it
        too: its entrants need its seeds, once it has closed, to replay their receipts.
        """
        record = await self.record(tournament_id)
        if record.entry == "public" or await self._invited_reader(record, access):
            owner = await self.store.get_organizer(record.organizer_id)
        else:
            why = "it is invite-only (its entrants and invite codes read it too), and"
            owner = await self.owner(record, access.authorization, why)
        return await self.shown(record, owner)

    async def shown(self, record: TournamentRecord, owner: OrganizerRecord | None) -> Tournament:
        """The tournament as its readers see it: its view, and when its entries closed."""
        view = self.view(record, owner)
        closed_at = await self.entries_closed_at(record)
        if closed_at is None:
            return view
        return msgspec.structs.replace(view, entries_closed_at=rfc3339_ms(closed_at))

    async def listing(
        self, authorization: str | None, limit: int, cursor: str | None
    ) -> TournamentList:
        """The caller's own tournaments (its organizer key), newest first, a page.

        Only what the organizer's listing in the store holds: tournaments created since
        the service has kept one, until they expire. A page reads at most
        ``limit`` records (``MAX_TOURNAMENTS_PAGE``).
        """
        organizer = await authenticate(self.store, authorization)
        page = await self.store.organizer_tournaments(organizer.organizer_id, limit, cursor)
        return TournamentList([summary(record) for record in page.records], page.next)

    async def entries_closed_at(self, record: TournamentRecord) -> int | None:
        """When a lockstep tournament's entries closed (ms): round 1's start, if it came.

        A start time that has passed closes them too, before the keeper has started the
        round: the next entry would start it and be refused.
        """
        if record.format != "lockstep":
            return None
        state = await self.store.round_state(record.tournament_id, 1)
        if state.started_at is not None:
            return state.started_at
        starts = record.round_starts
        if starts is not None and starts[0] * 1000 <= state.now:
            return starts[0] * 1000
        return None

    async def _invited_reader(self, record: TournamentRecord, access: Access) -> bool:
        """Whether the caller holds one of the tournament's invite codes or entrant tokens."""
        scheme, _, credential = (access.authorization or "").partition(" ")
        if scheme.lower() == "bearer" and credential.strip().startswith(ENTRANT_PREFIX):
            master = self.keys.master
            require_entrant(
                master, access.authorization, record.tournament_id, now(), allow_expired=True
            )
            return True
        code = access.invite_code
        return code is not None and await self.store.invite_known(
            record.tournament_id, invite_hash(code)
        )

    async def owner(
        self, record: TournamentRecord, authorization: str | None, why: str
    ) -> OrganizerRecord:
        """The tournament's organizer, proved by the key (401 without one, 403 for another's)."""
        organizer = await authenticate(self.store, authorization)
        if not hmac.compare_digest(organizer.organizer_id, record.organizer_id):
            raise problem(
                403,
                f"{why} this tournament is another organizer's",
                type_="/problems/forbidden",
                code="not-your-tournament",
            )
        return organizer

    def round_seeds(self, record: TournamentRecord) -> list[tuple[int, bytes]]:
        """Each round's number and server seed (secret until the close)."""
        return [
            (
                number,
                self.commitments.server_seed(round_commitment_id(record.tournament_id, number)),
            )
            for number in range(1, record.rounds + 1)
        ]

    def view(self, record: TournamentRecord, organizer: OrganizerRecord | None) -> Tournament:
        """What the tournament shows: seeds only once it has closed."""
        closed = tournament_closed(record)
        status = status_of(record)
        rounds = [
            RoundCommitment(number, seed_hash(seed), seed.hex() if closed else None)
            for number, seed in self.round_seeds(record)
        ]
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
            format=record.format,
            card_seconds=record.card_seconds if record.format == "lockstep" else None,
            round_starts=None
            if record.round_starts is None
            else [rfc3339(start) for start in record.round_starts],
        )

    async def close(self, tournament_id: str, authorization: str | None) -> Tournament:
        """Close the tournament now (its organizer only): entry and play end, seeds show."""
        record = await self.record(tournament_id)
        organizer = await self.owner(record, authorization, "only its organizer closes it:")
        if tournament_closed(record) or not await self.store.close_tournament(tournament_id, now()):
            # a close resent after a 503 whose write landed (a WAIT that timed out, say)
            # finds it closed: its rounds are still completed, whoever closed it
            await self.rounds.complete(await self.record(tournament_id))
            raise conflict("the tournament is closed already", "closed")
        await self.log.due(tournament_id, now() * 1000)  # its reveals: from now, not closes_at
        closed = await self.record(tournament_id)
        await self.rounds.complete(closed)
        return await self.shown(closed, organizer)

    # --- lockstep rounds ----------------------------------------------------------------

    async def _lockstep(
        self, tournament_id: str, round_number: int, access: Access
    ) -> TournamentRecord:
        """A lockstep tournament's record, for a reader (404 for its unknown rounds)."""
        record = await self.readable(tournament_id, access)
        unknown_round(record, round_number)
        return record

    async def round_status(
        self, tournament_id: str, round_number: int, access: Access
    ) -> RoundStatus:
        """The round now: waiting, playing (which call, its deadline, who placed it), finished."""
        record = await self._lockstep(tournament_id, round_number, access)
        return await self.rounds.status(record, round_number)

    async def round_statuses(self, tournament_id: str, access: Access) -> list[RoundStatus]:
        """Every round of a lockstep tournament as it stands (none for an async one)."""
        record = await self.readable(tournament_id, access)
        if record.format != "lockstep":
            return []
        return [await self.rounds.status(record, n) for n in range(1, record.rounds + 1)]

    async def start_round(
        self, tournament_id: str, round_number: int, authorization: str | None
    ) -> RoundStatus:
        """Start a lockstep round now (its organizer only): card 0 is called to every seat."""
        record = await self.record(tournament_id)
        await self.owner(record, authorization, "only its organizer starts a round:")
        unknown_round(record, round_number)
        require_open(record)
        state = await self.rounds.start(record, round_number, scheduled=False)
        return await self.rounds.describe(record, round_number, state)

    async def round_calls(
        self,
        tournament_id: str,
        round_number: int,
        access: Access,
        after: int,
        wait: float,
        gone: asyncio.Future[None] | None = None,
        *,
        client: str,
    ) -> RoundCalls:
        """The calls after ``after`` (a long poll: waits up to ``wait`` seconds for one)."""
        record = await self._lockstep(tournament_id, round_number, access)
        await self.rounds.advance(record, round_number)  # a closed tournament's round ends
        listener = await self.listener(record, round_number, access, client)
        return await self.calls.long_poll(record, round_number, after, wait, gone, client=listener)

    async def round_stream(
        self, tournament_id: str, round_number: int, access: Access, after: int, *, client: str
    ) -> AsyncIterator[Any]:
        """The calls as server-sent events, every check made before the stream starts.

        The listener's share is checked then too: a refusal is a problem, never a 200.
        """
        record = await self._lockstep(tournament_id, round_number, access)
        await self.rounds.advance(record, round_number)  # a closed tournament's round ends
        listener = await self.listener(record, round_number, access, client)
        return self.calls.stream(record, round_number, after, client=listener)

    async def listener(
        self, record: TournamentRecord, round_number: int, access: Access, client: str
    ) -> Listener:
        """Who a listener of the round is, for its counts (:meth:`Calls.admit`).

        Its address (``client``) always, under ``CARDPROOF_LISTENERS_PER_ADDRESS``; and
        the entrant its token proves, whose share of the round it then takes (entrants
        behind one address each follow their round). Whether that entrant is seated in
        the round is asked of the store only when the room is short (a seat's first
        listener is let in then): its claim on the round, which is written with its seat.
        """
        per_address = self.settings.listeners_per_address
        authorization = access.authorization or ""
        if not authorization.partition(" ")[2].strip().startswith(ENTRANT_PREFIX):
            return Listener(client, per_address=per_address)
        try:
            token = require_entrant(self.keys.master, authorization, record.tournament_id, now())
        except ProblemDetailsException:
            return Listener(client, per_address=per_address)
        listener = Listener(client, token.entrant_id, per_address=per_address)
        if not self.calls.needs_seat((record.tournament_id, round_number), listener):
            return listener
        claim = seat_claim_id(record.tournament_id, token.entrant_id, round_number)
        seated = await self.store.get_claim(claim) is not None
        return listener._replace(seated=seated and await self._current(record, round_number))

    async def _current(self, record: TournamentRecord, number: int) -> bool:
        """Whether round ``number`` is the one a seat follows now: playing, or next to start.

        Only such a round's seats keep their room past the address's cap: an address
        seated in every round of many tournaments ahead holds no more than its seats of
        the rounds under way (rounds start in order).
        """
        state = await self.store.round_state(record.tournament_id, number)
        if state.finished:
            return False
        if state.started_at is not None or number == 1:
            return True
        before = await self.store.round_state(record.tournament_id, number - 1)
        return before.started_at is not None

    async def readable(self, tournament_id: str, access: Access) -> TournamentRecord:
        """The record, if the caller may read the tournament (as :meth:`read` decides)."""
        record = await self.record(tournament_id)
        if record.entry != "public":
            await self.read(tournament_id, access)
        return record


__all__ = ["Access", "Tournaments", "require_open", "status_of", "summary"]
