"""Tournaments: the same committed deals for every entrant, entries, games and standings.

A tournament commits to every round's server seed when it is created: round ``n``'s
seed is the server seed of the commitment id ``<tournament id>:round-<n>`` (derived
from the master key, like any deal's, never stored), and its hash is published from the
start. Every entrant's game in round ``n`` is dealt from that seed with the tournament's
public ``salt`` as the client seed, so all entrants get the same cards. The seeds are
revealed once the tournament has closed.

An entrant's token (:mod:`cardproof_service.entrants`) opens the entrant's round games
and is needed for each of their moves. A game's result enters the standings
in the same atomic store step as its last move, so standings change only through
verified finished games.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import string
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import msgspec

from cardproof.deal import ALGORITHM, seed_hash
from cardproof.errors import ParseError, RuleError
from cardproof.games import replay_log, variant
from cardproof.models import (
    EXPORT_FORMAT,
    MAX_INVITES,
    DealState,
    Entry,
    EntryRequest,
    ExportedGame,
    InviteCodes,
    InviteRequest,
    PlayerGame,
    RoundCalls,
    RoundCommitment,
    RoundPar,
    RoundStatus,
    Standings,
    Tournament,
    TournamentCreated,
    TournamentExport,
    TournamentRequest,
)
from cardproof.tournaments import (
    MAX_PAGE,
    Payment,
    SettlementPage,
    payments_page,
    percent_of_par,
    rank,
    round_deal,
    settle,
    with_par,
    worst_round,
)
from cardproof_service.deals import (
    Deals,
    conflict,
    not_found,
    now,
    receipt_payload,
    rfc3339,
    round_commitment_id,
    tournament_closed,
)
from cardproof_service.entrants import PREFIX as ENTRANT_PREFIX
from cardproof_service.entrants import make_token, require_entrant
from cardproof_service.idempotency import REPLAY_WINDOW
from cardproof_service.lockstep import Rounds, unknown_round
from cardproof_service.names import display_name, name_key
from cardproof_service.organizers import authenticate
from cardproof_service.pars import Pars
from cardproof_service.problems import problem, unauthorized
from cardproof_service.store import (
    GameResult,
    NewEntrant,
    OrganizerRecord,
    Store,
    TournamentRecord,
)


class Access(NamedTuple):
    """Who asks to read a tournament: an ``Authorization`` and/or an invite code.

    An invite-only tournament is read by its organizer (``Bearer cpo_...``), its entrants
    (``Bearer cpe_...``: they need its seeds, once it has closed, to replay their
    receipts) and anyone holding one of its invite codes.
    """

    authorization: str | None = None
    invite_code: str | None = None


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


EXPORT_BATCH = 200
"""Games an export reads from the store and encodes at a time."""
_NO_GAMES = b'"games":[]'
CLOSED_KEPT = 256
"""Closed tournaments whose standings a process keeps (they cannot change)."""
SETTLED_AFTER = 10
"""Seconds after its close from which a tournament's standings are kept: a move that was
checked just before the close may still be recording its result."""


@dataclass
class Tournaments:
    """Tournaments over a store; one per app. Seeds come from the deals service's key."""

    store: Store
    deals: Deals
    rounds: Rounds
    pars: Pars
    _closed: OrderedDict[str, Standings] = field(default_factory=OrderedDict)
    """Standings of closed tournaments, least recently read first."""

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
        settings = self.deals.settings
        asked = request.max_entrants if isinstance(request.max_entrants, int) else None
        if asked is not None and asked > settings.max_entrants:
            raise RuleError(
                "too-many-entrants",
                f"max_entrants is at most {settings.max_entrants} on this service",
                field="max_entrants",
            )
        hidden = cls.information_of(options) == "hidden"
        format_ = request.format if isinstance(request.format, str) else None
        format_ = format_ or ("lockstep" if hidden else "async")
        if format_ == "async" and hidden and request.entry != "invite":
            raise RuleError(
                "async-needs-invite",
                f'a hidden variant ({cls.id}) plays "async" only with entry: "invite": '
                "anyone entering twice would see the deal before playing it; a lockstep "
                "tournament calls each card to all at once",
                field="format",
            )
        if format_ == "lockstep" and (not hidden or cls.turns(options) is None):
            raise RuleError(
                "lockstep-needs-hidden",
                f"{cls.id} with these options shows every card from the start: there is "
                'nothing to call, so it plays "async"',
                field="format",
            )
        starts = self._round_starts(request, format_, opens_at, closes_at)
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
            name=request.name,
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
        if invites is not None and invites > _invite_limit(record):
            raise RuleError(
                "too-many-invites",
                f"invites: at most {_invite_limit(record)} codes (twice max_entrants)",
                field="invites",
            )
        await self.store.create_tournament(record)
        for number, start in enumerate(starts or (), start=1):
            await self.store.schedule_round(record.tournament_id, number, start * 1000)
        codes: list[str] = []
        if request.entry == "invite":
            codes = await self._new_invites(record, 1 if invites is None else invites)
        return TournamentCreated(
            self.view(record, organizer), codes[0] if codes else None, invite_codes=codes
        )

    @staticmethod
    def _round_starts(
        request: TournamentRequest, format_: str, opens_at: int, closes_at: int
    ) -> list[int] | None:
        """The rounds' start times: one per round, in order, inside the opening window."""
        if not isinstance(request.round_starts, list):
            return None
        if format_ != "lockstep":
            raise RuleError(
                "round-starts-need-lockstep",
                "round_starts are for lockstep tournaments: an async round has no start",
                field="round_starts",
            )
        starts = [int(moment.timestamp()) for moment in request.round_starts]
        if len(starts) != request.rounds:
            raise RuleError(
                "bad-round-starts",
                f"round_starts has {len(starts)} times for {request.rounds} rounds",
                field="round_starts",
            )
        for index, start in enumerate(starts):
            if not opens_at <= start < closes_at or (index and start < starts[index - 1]):
                raise RuleError(
                    "bad-round-starts",
                    f"round_starts[{index}] must be within opens_at..closes_at and not "
                    "before the round before it",
                    field=f"round_starts[{index}]",
                )
        return starts

    async def _new_invites(self, record: TournamentRecord, count: int) -> list[str]:
        """``count`` fresh single-use invite codes, stored by hash (409 past the cap)."""
        codes = [new_invite_code() for _ in range(count)]
        limit = _invite_limit(record)
        hashes = [invite_hash(code) for code in codes]
        if not await self.store.add_invites(record.tournament_id, hashes, limit, record.expires_at):
            raise conflict(
                f"a tournament has at most {limit} invite codes (twice its max_entrants)",
                "too-many-invites",
            )
        return codes

    async def invite(
        self, tournament_id: str, request: InviteRequest, authorization: str | None
    ) -> InviteCodes:
        """More single-use invite codes, for the organizer of an invite-only tournament."""
        record = await self._record(tournament_id)
        await self._owner(record, authorization, "only its organizer invites:")
        if record.entry != "invite":
            raise conflict("this tournament is public: anyone may enter", "not-invite-only")
        if tournament_closed(record):
            raise conflict("the tournament is closed", "closed")
        return InviteCodes(tournament_id, await self._new_invites(record, request.count))

    async def _record(self, tournament_id: str) -> TournamentRecord:
        record = await self.store.get_tournament(tournament_id)
        if record is None:
            raise not_found(f"no tournament {tournament_id!r}", "unknown-tournament")
        return record

    async def read(self, tournament_id: str, access: Access) -> Tournament:
        """A tournament: public ones for anyone, invite-only ones for their organizer.

        Anyone holding an invite-only tournament's invite code (``X-Invite-Code``) reads it
        too: its entrants need its seeds, once it has closed, to replay their receipts.
        """
        record = await self._record(tournament_id)
        if record.entry == "public" or await self._invited_reader(record, access):
            owner = await self.store.get_organizer(record.organizer_id)
        else:
            why = "it is invite-only (its entrants and invite codes read it too), and"
            owner = await self._owner(record, access.authorization, why)
        return self.view(record, owner)

    async def _invited_reader(self, record: TournamentRecord, access: Access) -> bool:
        """Whether the caller holds one of the tournament's invite codes or entrant tokens."""
        scheme, _, credential = (access.authorization or "").partition(" ")
        if scheme.lower() == "bearer" and credential.strip().startswith(ENTRANT_PREFIX):
            master = self.deals.keys.master
            require_entrant(
                master, access.authorization, record.tournament_id, now(), allow_expired=True
            )
            return True
        code = access.invite_code
        return code is not None and await self.store.invite_known(
            record.tournament_id, invite_hash(code)
        )

    async def _owner(
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

    def view(self, record: TournamentRecord, organizer: OrganizerRecord | None) -> Tournament:
        """What the tournament shows: seeds only once it has closed."""
        closed = tournament_closed(record)
        status = _status(record)
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
            format=record.format,
            card_seconds=record.card_seconds if record.format == "lockstep" else None,
            round_starts=None
            if record.round_starts is None
            else [rfc3339(start) for start in record.round_starts],
        )

    # --- entrants ------------------------------------------------------------------

    def entrant_token(self, record: TournamentRecord, entrant_id: str) -> str:
        """A token for this entrant, good until the tournament closes."""
        master = self.deals.keys.master
        return make_token(master, record.tournament_id, entrant_id, record.closes_at)

    async def entrant(self, record: TournamentRecord, authorization: str | None) -> tuple[str, str]:
        """The (entrant id, name) an ``Authorization: Bearer cpe_...`` header proves."""
        token = require_entrant(self.deals.keys.master, authorization, record.tournament_id, now())
        name = await self.store.entrant_name(record.tournament_id, token.entrant_id)
        if name is None:  # only if the store lost it: the tag is ours
            raise unauthorized("this entrant is not known", "cardproof entrants")
        return token.entrant_id, name

    async def enter(
        self, tournament_id: str, request: EntryRequest, idempotency_key: str | None = None
    ) -> Entry:
        """Enter ``request.name``: while entry is open, once per name, within the limit.

        Names are compared by :func:`~cardproof_service.names.name_key` (case-folded,
        confusable skeleton): a look-alike of an entrant's name is taken. An invite-only
        tournament takes a single-use code. A request resent with the same
        ``Idempotency-Key`` within 24 hours gets the same entry (and token).
        """
        record = await self._record(tournament_id)
        _require_open(record)
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
        result = await self.store.add_entrant(tournament_id, entrant, record.max_entrants)
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
        if result.outcome == "full":
            raise conflict(f"the tournament is full ({record.max_entrants} entrants)", "full")
        return self._entry(record, entrant.entrant_id, name)

    def _entry(self, record: TournamentRecord, entrant_id: str, name: str) -> Entry:
        """The answer to an entry: the token, and the round hashes the entrant holds us to."""
        view = self.view(record, None)
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
        record = await self._record(tournament_id)
        if not 1 <= round_number <= record.rounds:
            raise not_found(
                f"round {round_number} is not in this tournament (rounds 1..{record.rounds})",
                "unknown-round",
            )
        entrant_id, name = await self.entrant(record, authorization)
        _require_open(record)
        if record.format == "lockstep":
            await self.rounds.advance(record, round_number)  # a start time passed: started
        return await self.deals.create_round_game(
            record,
            round_number,
            round_commitment_id(tournament_id, round_number),
            entrant_id,
            name,
            idempotency_key,
        )

    # --- standings --------------------------------------------------------------------

    async def standings(
        self, tournament_id: str, access: Access, *, player: str | None = None
    ) -> Standings:
        """Totals of finished games, best first; a shared rank for equal totals.

        ``player``: also that entrant's finished games, each with its share of the round's
        par, once the tournament has closed (like the export: the games are the closed
        record's). The name is found as names are told apart at entry (:func:`name_key`:
        case, width, confusable spellings), so any spelling of a shown name finds it.
        """
        record = await self._readable(tournament_id, access)
        if player is None:
            return await self._kept_standings(record)
        if not tournament_closed(record):  # refused before any reading
            raise conflict(
                "an entrant's games are listed once the tournament has closed (it closes at "
                f"{rfc3339(record.closes_at)})",
                "not-closed",
            )
        try:
            key = name_key(display_name(player))
        except RuleError as error:
            raise ParseError(error.message.replace("name:", "player:", 1), field="player") from None
        entrant_id = await self.store.entrant_of_key(tournament_id, key)
        name = (
            None if entrant_id is None else await self.store.entrant_name(tournament_id, entrant_id)
        )
        if name is None:
            raise not_found(
                f"player: no entrant of the tournament is named {player!r}", "unknown-entrant"
            )
        standings = await self._kept_standings(record)
        pars = {par.round: par for par in standings.pars}
        results = await self.store.results(
            tournament_id, [(name, number) for number in range(1, record.rounds + 1)]
        )
        games = [
            PlayerGame(
                result.round, result.total, percent_of_par(result.total, pars.get(result.round))
            )
            for result in sorted(results, key=lambda result: result.round)
        ]
        return msgspec.structs.replace(standings, player=name, games=games)

    async def _kept_standings(self, record: TournamentRecord) -> Standings:
        """The standings; a closed tournament's never change once its pars are known.

        Those are kept (a few hundred tournaments at most) and read from the store once.
        """
        tournament_id = record.tournament_id
        kept = self._closed.get(tournament_id)
        if kept is not None:
            self._closed.move_to_end(tournament_id)
            return kept
        standings = await self._standings(record)
        closed_at = record.closed_at if record.closed_at is not None else record.closes_at
        settled = now() - closed_at > SETTLED_AFTER and not standings.pars_pending
        if standings.status == "closed" and settled:
            self._closed[tournament_id] = standings
            if len(self._closed) > CLOSED_KEPT:
                self._closed.popitem(last=False)
        return standings

    async def _standings(self, record: TournamentRecord) -> Standings:
        """Totals ranked; after the close, each round's par and each entrant's share of it."""
        tournament_id = record.tournament_id
        lines = await self.store.standings(tournament_id)
        worst = worst_round(record.variant, record.options)
        ranked = rank(
            (line.player, line.total + (record.rounds - line.finished) * worst, line.finished)
            for line in lines
        )
        pars, pending = await self.pars.known(record, SETTLED_AFTER)
        if pars and not pending:
            ranked = with_par(ranked, pars, record.rounds)
        return Standings(
            tournament_id,
            _status(record),
            record.rounds,
            ranked,
            pars=[pars[number] for number in sorted(pars)],
            pars_pending=pending,
        )

    async def settlement(
        self,
        tournament_id: str,
        access: Access,
        *,
        payments: bool = False,
        cursor: str | None = None,
        limit: int = MAX_PAGE,
    ) -> SettlementPage:
        """The settlement of the standings: nets (linear), and a page of payments if asked.

        The pairwise payments are quadratic in the entrants, so they come only on request,
        a page at a time, generated from the sorted totals (:func:`payments_page`).
        """
        standings = await self.standings(tournament_id, access)
        scores = {line.name: line.total for line in standings.entrants}
        page: list[Payment] = []
        after = None
        if payments:
            try:
                page, after = payments_page(scores, cursor, limit)
            except ValueError as error:
                raise ParseError(f"cursor: {error}", field="cursor") from None
        return SettlementPage(
            tournament_id=tournament_id,
            status=standings.status,
            nets=settle(scores),
            standings=standings.entrants,
            payments=page,
            next_cursor=after,
        )

    # --- closing and the record ---------------------------------------------------------

    async def close(self, tournament_id: str, authorization: str | None) -> Tournament:
        """Close the tournament now (its organizer only): entry and play end, seeds show."""
        record = await self._record(tournament_id)
        organizer = await self._owner(record, authorization, "only its organizer closes it:")
        if tournament_closed(record) or not await self.store.close_tournament(tournament_id, now()):
            # a close resent after a 503 whose write landed (a WAIT that timed out, say)
            # finds it closed: its rounds are still completed, whoever closed it
            await self.rounds.complete(await self._record(tournament_id))
            raise conflict("the tournament is closed already", "closed")
        closed = await self._record(tournament_id)
        await self.rounds.complete(closed)
        return self.view(closed, organizer)

    # --- lockstep rounds ----------------------------------------------------------------

    async def _lockstep(
        self, tournament_id: str, round_number: int, access: Access
    ) -> TournamentRecord:
        """A lockstep tournament's record, for a reader (404 for its unknown rounds)."""
        record = await self._readable(tournament_id, access)
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
        record = await self._readable(tournament_id, access)
        if record.format != "lockstep":
            return []
        return [await self.rounds.status(record, n) for n in range(1, record.rounds + 1)]

    async def start_round(
        self, tournament_id: str, round_number: int, authorization: str | None
    ) -> RoundStatus:
        """Start a lockstep round now (its organizer only): card 0 is called to every seat."""
        record = await self._record(tournament_id)
        await self._owner(record, authorization, "only its organizer starts a round:")
        unknown_round(record, round_number)
        _require_open(record)
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
    ) -> RoundCalls:
        """The calls after ``after`` (a long poll: waits up to ``wait`` seconds for one)."""
        record = await self._lockstep(tournament_id, round_number, access)
        return await self.rounds.long_poll(record, round_number, after, wait, gone)

    async def round_stream(
        self, tournament_id: str, round_number: int, access: Access, after: int
    ) -> AsyncIterator[Any]:
        """The calls as server-sent events (every check made before the stream starts)."""
        record = await self._lockstep(tournament_id, round_number, access)
        return self.rounds.stream(record, round_number, after)

    async def export(self, tournament_id: str, access: Access) -> AsyncIterator[bytes]:
        """A closed tournament's whole record, as JSON chunks to stream.

        Seeds, standings, pars and keys first (pars still being solved here are waited for,
        up to :data:`~cardproof_service.pars.EXPORT_WAIT` seconds; those not solved by then
        are left out), then every finished game (log, total, the
        receipt signed when it ended), read from the store :data:`EXPORT_BATCH` at a time,
        so neither the store, the answer nor the event loop holds them all at once. Every
        check is made before the first chunk: a refusal is a problem answer.
        """
        record = await self._readable(tournament_id, access)
        if not tournament_closed(record):
            raise conflict(
                "the record is exported once the tournament has closed (its seeds are "
                f"secret until then; it closes at {rfc3339(record.closes_at)})",
                "not-closed",
            )
        organizer = await self.store.get_organizer(record.organizer_id)
        standings = await self.standings(tournament_id, access)
        if standings.pars_pending:  # being solved in this process: the export waits a while
            await self.pars.wait(tournament_id)
            standings = await self.standings(tournament_id, access)
        games = sorted(await self.store.result_keys(tournament_id))
        whole = msgspec.json.encode(
            TournamentExport(
                format=EXPORT_FORMAT,
                tournament=self.view(record, organizer),
                standings=standings.entrants,
                games=[],
                jwks=self.deals.keys.jwks(),
                pars=standings.pars,
            )
        )
        # unescaped quotes are never inside a string; the standings' lines hold "games"
        # too (each entrant's games against par), and come before: the last one is the export's
        cut = whole.rindex(_NO_GAMES)
        pars = {par.round: par for par in standings.pars}
        return self._export_chunks(
            record,
            games,
            pars,
            whole[: cut + len(_NO_GAMES) - 1],
            whole[cut + len(_NO_GAMES) - 1 :],
        )

    async def _export_chunks(
        self,
        record: TournamentRecord,
        games: list[tuple[str, int]],
        pars: dict[int, RoundPar],
        head: bytes,
        tail: bytes,
    ) -> AsyncIterator[bytes]:
        yield head
        for start in range(0, len(games), EXPORT_BATCH):
            batch = await self.store.results(
                record.tournament_id, games[start : start + EXPORT_BATCH]
            )
            batch.sort(key=lambda result: (result.player, result.round))
            encoded = b",".join(
                msgspec.json.encode(
                    ExportedGame(
                        player=result.player,
                        round=result.round,
                        deal_id=result.deal_id,
                        moves=result.moves,
                        total=result.total,
                        finished_at=rfc3339(result.finished_at),
                        receipt=result.receipt or self._sign_result(record, result),
                        percent_of_par=percent_of_par(result.total, pars.get(result.round)),
                    )
                )
                for result in batch
            )
            yield (b"," if start else b"") + encoded
            await asyncio.sleep(0)  # other requests between batches (the memory store never waits)
        yield tail

    def _sign_result(self, record: TournamentRecord, result: GameResult) -> str:
        """A receipt for a result stored before results kept theirs: replayed and signed."""
        seed = self.deals.server_seed(round_commitment_id(record.tournament_id, result.round))
        options, deck = round_deal(record.variant, record.options, seed, record.salt)
        game = replay_log(record.variant, deck, options, result.moves)
        payload = receipt_payload(
            game,
            seed,
            record.salt,
            deal_id=result.deal_id,
            kind="tournament",
            blind=result.blind,
            committed=True,
            issued_at=result.finished_at,
            player=result.player,
            tournament=record.tournament_id,
        )
        return self.deals.keys.signing.sign(payload)

    async def _readable(self, tournament_id: str, access: Access) -> TournamentRecord:
        """The record, if the caller may read the tournament (as :meth:`read` decides)."""
        record = await self._record(tournament_id)
        if record.entry != "public":
            await self.read(tournament_id, access)
        return record


def _invite_limit(record: TournamentRecord) -> int:
    """The invite codes a tournament may have in all: twice its field, at most 100,000."""
    return min(MAX_INVITES, 2 * (record.max_entrants or MAX_INVITES // 2))


def _status(record: TournamentRecord) -> Any:
    """``scheduled``, ``open`` or ``closed``, now."""
    if tournament_closed(record):
        return "closed"
    return "open" if now() >= record.opens_at else "scheduled"


def _require_open(record: TournamentRecord) -> None:
    """A 409 outside the tournament's opening window."""
    status = _status(record)
    if status == "scheduled":
        raise conflict(f"the tournament opens at {rfc3339(record.opens_at)}", "not-open")
    if status == "closed":
        raise conflict("the tournament is closed", "closed")


__all__ = ["Access", "Tournaments", "invite_hash", "round_commitment_id"]
