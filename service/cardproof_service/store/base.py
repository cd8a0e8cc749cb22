"""The store protocol and the records it keeps."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from typing import Any, Literal, Protocol

import msgspec


class StoreUnavailable(Exception):
    """The store cannot be reached; stateful requests answer 503 and may be retried."""


class TooManyGames(Exception):
    """The deal's owner holds as many unfinished deals as it may; nothing was stored."""

    def __init__(self, limit: int, retry_after: int) -> None:
        """``retry_after``: seconds until the owner's oldest unfinished deal expires."""
        super().__init__(f"{limit} games in flight")
        self.limit = limit
        self.retry_after = retry_after


class OverDailyQuota(Exception):
    """The client has opened as many deals today (UTC) as it may; nothing was stored."""

    def __init__(self, limit: int, retry_after: int) -> None:
        """``retry_after``: seconds until the day (UTC) ends and the count starts again."""
        super().__init__(f"{limit} deals today")
        self.limit = limit
        self.retry_after = retry_after


class DailyQuota(msgspec.Struct, frozen=True):
    """A client's quota of deals a day: who, how many, and the day's number (UTC)."""

    client: str
    limit: int
    day: int
    """Days since the Unix epoch."""
    seconds_left: int
    """Seconds until the day ends (the ``Retry-After`` of a refusal)."""


class DealRecord(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """A deal as stored: what derives its deck, and its log so far.

    The server seed is not stored: it is derived from ``commitment_id`` with the master
    key. ``moves`` are canonical move texts; ``finished_at`` is set once, when the game
    ends; ``blind`` is false when a hidden deal's log was submitted whole.
    """

    deal_id: str
    variant: str
    options: dict[str, Any]
    commitment_id: str
    client_seed: str
    committed: bool
    created_at: int
    moves: list[str] = msgspec.field(default_factory=list)
    finished_at: int | None = None
    blind: bool = True
    tournament: str | None = None
    """For a tournament round's game: the tournament id, the round, the entrant."""
    round: int | None = None
    entrant: str | None = None
    player: str | None = None
    """The entrant's name: the game's result counts for it in the standings."""
    tournament_expires_at: int | None = None
    """When the tournament's record expires (its result keys expire with it)."""
    owner: str | None = None
    """The client whose games in flight count this deal until it finishes or expires
    (a keyed hash of its address; ``None`` when no cap is set)."""
    ending: Ending | None = None
    """A finished game's signed receipt and final answer, stored with its last move."""
    lockstep: bool = False
    """A seat in a lockstep round: its moves wait for the round's calls."""
    auto_placed: list[int] = msgspec.field(default_factory=list)
    """The move indices placed for the player when their deadline passed (lockstep)."""


class Ending(msgspec.Struct, frozen=True):
    """What a finished game answers from then on, signed and encoded once, at its end.

    ``stored``: its receipts and last answer, packed small by the service (the store
    keeps the bytes as they are); ``result_receipt``: the receipt a tournament result
    keeps for the export (with the seed). Reading a finished game never replays it.
    """

    stored: bytes
    result_receipt: str | None = None


class OrganizerRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A tournament organizer: a name and the hash of its API key (never the key).

    Organizer records do not expire.
    """

    organizer_id: str
    name: str
    key_hash: str
    created_at: int


class TournamentRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A tournament as stored; it and every key of it expire at ``expires_at``.

    The round seeds are not stored: round ``n``'s seed is the server seed of the
    commitment id ``<tournament_id>:round-<n>`` (derived from the master key). ``salt`` is
    the public client seed of every round. Times are seconds since the Unix epoch.
    """

    tournament_id: str
    organizer_id: str
    name: str
    variant: str
    options: dict[str, Any]
    rounds: int
    opens_at: int
    closes_at: int
    salt: str
    created_at: int
    entry: Literal["public", "invite"] = "public"
    invite_code_hash: str | None = None
    max_entrants: int | None = None
    closed_at: int | None = None
    expires_at: int | None = None
    """Seconds since the epoch: its closing time plus the retention (``None``: kept)."""
    format: Literal["lockstep", "async"] = "async"
    card_seconds: int = 60
    round_starts: list[int] | None = None
    """Lockstep: seconds since the epoch at which each round starts by itself."""


class Appended(msgspec.Struct, frozen=True):
    """The outcome of an append.

    ``appended``; ``wrong-index`` (``count`` moves are there already); ``missing`` (no
    such deal, or it expired). In a lockstep round also ``not-called`` (the round has not
    called this index yet), ``late`` (a player's move after its call's deadline) and
    ``early`` (a placement for the player before it); ``call`` is then the round's call
    index after the step (-1 before the round starts, or outside lockstep). ``closed``: a
    player's move of a tournament game whose tournament has closed.
    """

    outcome: Literal["appended", "wrong-index", "missing", "not-called", "late", "early", "closed"]
    count: int = 0
    call: int = -1


class OpenTournament(msgspec.Struct, frozen=True):
    """A player's write to a game of ``tournament``: it lands only while that is open.

    Open means not closed by its organizer (:meth:`Store.close_tournament`) and before
    ``closes_at`` (seconds since the epoch) by the store's clock, both checked in the
    write's own atomic step, so no write lands after a close however requests interleave.
    """

    tournament: str
    closes_at: int


class Placement(msgspec.Struct, frozen=True):
    """How a move of a lockstep round's game is placed (``append_move``).

    ``by``: ``player`` (before the call's deadline), ``auto`` (for the player, once the
    deadline passed) or ``closing`` (the tournament closed: the game is completed, the
    calls no longer apply). ``auto`` lists the indices among the appended moves placed
    for the player; ``next_card`` is the card the next call names, should this append
    complete the current call.
    """

    tournament: str
    round: int
    by: Literal["player", "auto", "closing"] = "player"
    auto: tuple[int, ...] = ()
    next_card: str | None = None


class RoundState(msgspec.Struct, frozen=True):
    """A lockstep round as stored, with the store's clock (milliseconds since the epoch).

    Before its start ``started_at`` is ``None``; while it plays, ``call`` is the index
    called last, at ``called_at``, and ``placed`` of the ``seats`` have placed it; it has
    ``finished`` once the last call was placed by every seat (or its tournament closed).
    """

    seats: int
    now: int
    started_at: int | None = None
    call: int = -1
    called_at: int = 0
    placed: int = 0
    turns: int = 0
    card_ms: int = 0
    finished: bool = False

    @property
    def deadline(self) -> int:
        """When the current call's card is placed for whoever has not placed it (ms)."""
        return self.called_at + self.card_ms


class CallRecord(msgspec.Struct, frozen=True, array_like=True):
    """A call as stored: the index, the card (``None``: a turn, no common card), when (ms)."""

    index: int
    card: str | None
    at: int


class RoundStarted(Exception):
    """A lockstep round has started: nobody more is seated (nothing was stored)."""


class Standing(msgspec.Struct, frozen=True):
    """One entrant's line in a tournament's standings, as stored."""

    player: str
    total: int
    finished: int


class GameResult(msgspec.Struct, frozen=True):
    """A finished tournament game as its standings recorded it (kept for the export)."""

    player: str
    round: int
    deal_id: str
    total: int
    finished_at: int
    moves: str
    blind: bool
    receipt: str | None = None
    """The game's receipt with its seed (signed when it finished; ``None`` in old records)."""


EntryOutcome = Literal["added", "replayed", "name-taken", "full", "bad-invite", "invite-used"]


class NewEntrant(msgspec.Struct, frozen=True):
    """An entry to make: who, under which name, with which invite and replay key.

    ``key`` is what names are compared by (:func:`cardproof_service.names.name_key`):
    one entrant per key. ``invite`` is the hash of a single-use invite code (invite-only
    tournaments); ``replay`` the hash of the request's ``Idempotency-Key``, remembered for
    ``replay_ttl`` seconds so that a resent entry gets the same entrant.
    """

    entrant_id: str
    name: str
    key: str
    invite: str | None = None
    replay: str | None = None
    replay_ttl: int = 0
    expires_at: int | None = None
    """When the tournament's keys expire (its record's ``expires_at``)."""


class EntryResult(msgspec.Struct, frozen=True):
    """What an entry did.

    ``added`` (this ``entrant_id`` entered, or had entered by this very write);
    ``replayed`` (the replay key named an earlier entry: ``entrant_id`` and ``name`` are
    that entry's); ``name-taken`` (``name`` is the entrant whose key clashes); ``full``;
    ``bad-invite`` (no such code); ``invite-used`` (the code entered someone else).
    """

    outcome: EntryOutcome
    entrant_id: str = ""
    name: str = ""


class Claim(msgspec.Struct, frozen=True):
    """A commitment to claim for a new deal: its id, what to record, how long to keep it."""

    commitment_id: str
    claim: bytes
    ttl: int


class Hits(msgspec.Struct, frozen=True):
    """A client's requests in the current rate-limit window, this one included."""

    count: int
    reset: int
    """Seconds until the window ends and the count starts again from 0."""


class Store(Protocol):
    """What the service needs from its state, each step atomic."""

    name: str

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless the store answers."""

    async def confirm_deal(self, deal_id: str, finished_by: str | None = None) -> None:
        """Return once the deal as stored now would survive the loss of the primary.

        As an acknowledged write does; a no-op where nothing is replicated.
        A resent request is answered from what its first attempt stored, which may not
        have been confirmed (that attempt was refused, 503): the answer acknowledges it,
        so it is confirmed first. With ``finished_by``, the deal is finished and leaves
        that client's games in flight, as its last move's append does (the first attempt
        may have been refused before that).
        """

    async def create_deal(
        self,
        record: DealRecord,
        ttl: int,
        commitment: Claim | None = None,
        max_in_flight: int = 0,
        quota: DailyQuota | None = None,
    ) -> bytes | None:
        """Store a new deal (no moves yet; it expires ``ttl`` seconds after its last change).

        With ``commitment``, only if that commitment is unclaimed, claiming it in the same
        atomic step: returns ``None`` when the deal was stored, else the first claim (and
        stores nothing). With a ``record.owner`` and ``max_in_flight`` above 0, only if
        the owner holds fewer unfinished, unexpired deals, else :class:`TooManyGames`; with
        a ``quota``, only if its client opened fewer deals that day, else
        :class:`OverDailyQuota` (a claimed commitment is answered first: a retried request
        gets its deal back). A deal stored already (the same write again) is left as it is.
        A ``record.lockstep`` deal takes a seat in its round, unless the round has started:
        :class:`RoundStarted` (a claimed commitment is answered first here too).
        """

    async def get_claim(self, commitment_id: str) -> bytes | None:
        """What the deal that claimed this commitment recorded, or ``None`` (unclaimed)."""

    async def count_request(self, client: str, window: int) -> Hits:
        """Count one request of ``client`` in the current ``window``-second window."""

    async def get_deal(self, deal_id: str) -> DealRecord | None:
        """The deal with its log, or ``None`` if there is none (or it expired)."""

    async def append_move(
        self,
        deal_id: str,
        index: int,
        move: str,
        finished_at: int | None,
        ttl: int,
        total: int | None = None,
        ending: Ending | None = None,
        placement: Placement | None = None,
        open_tournament: OpenTournament | None = None,
        owner: str | None = None,
        tournament: str | None = None,
    ) -> Appended:
        """Append ``move`` only if ``index`` is the next index; set ``finished_at`` with it.

        A finishing move stores the game's ``ending`` with it; one of a tournament game
        (``total`` is its score) also records the result, with the revealed receipt, in
        the tournament's standings, in the same atomic step, once.

        A lockstep seat's move (``placement``) also follows its round's calls, by the
        store's clock: only an index called already, a player's before the deadline, a
        placement for the player after it. The append that completes a call (every seat
        has placed it) calls the next card, ``placement.next_card``, in the same step.
        ``move`` may hold several moves (a closing completion): ``index`` is the first.

        ``open_tournament`` (a player's move of a tournament game): refused, ``closed``,
        once that tournament has closed (see :class:`OpenTournament`).

        ``owner`` and ``tournament`` are the deal's own (its record's): a store that keeps
        an owner's games in flight or a tournament's standings apart from the deal (under
        other hash tags of a Redis Cluster) needs them named.
        """

    async def submit_log(
        self,
        deal_id: str,
        moves: list[str],
        finished_at: int,
        blind: bool,
        ttl: int,
        total: int | None = None,
        ending: Ending | None = None,
        open_tournament: OpenTournament | None = None,
        owner: str | None = None,
        tournament: str | None = None,
    ) -> Appended:
        """Store a whole finished log only if the deal has no move yet.

        Its ending and its result are stored as :meth:`append_move` stores them, and a
        tournament game's only while its tournament is open (``closed`` otherwise).
        """

    async def add_organizer(self, record: OrganizerRecord) -> bool:
        """Store a new organizer; ``False`` (nothing stored) if another has its name.

        The same record again is ``True`` (a resent write).
        """

    async def get_organizer(self, organizer_id: str) -> OrganizerRecord | None:
        """The organizer with this id, or ``None``."""

    async def create_tournament(self, record: TournamentRecord) -> None:
        """Store a new tournament (its id is fresh: nothing to check), until its expiry."""

    async def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The tournament with this id, or ``None``."""

    async def add_entrant(
        self, tournament_id: str, entrant: NewEntrant, max_entrants: int | None
    ) -> EntryResult:
        """Enter ``entrant`` (0 total, 0 games) in one atomic step, unless refused.

        In this order: a known replay key answers its first entry; a given invite code
        must exist and be unused (or used by this very entrant); the name's key must be
        free; the field must have room. Entering marks the invite used by this entrant.
        The same entrant again (a resent write) is ``added``.
        """

    async def add_invites(
        self, tournament_id: str, hashes: list[str], limit: int, expires_at: int | None = None
    ) -> bool:
        """Store unused invite codes (by hash); ``False`` (nothing stored) past ``limit``.

        They expire with the tournament, at ``expires_at``.
        """

    async def invite_known(self, tournament_id: str, code_hash: str) -> bool:
        """Whether the tournament issued this invite code (used or not)."""

    async def entrant_name(self, tournament_id: str, entrant_id: str) -> str | None:
        """The name an entrant entered with, or ``None``."""

    async def entrant_of_key(self, tournament_id: str, key: str) -> str | None:
        """The id of the entrant whose name has this key (as entered), or ``None``."""

    async def standings(self, tournament_id: str) -> list[Standing]:
        """Every entrant's total and finished games (in no particular order)."""

    async def results(
        self, tournament_id: str, games: Sequence[tuple[str, int]] | None = None
    ) -> list[GameResult]:
        """Every finished game's result (in no particular order), or those of ``games``.

        ``games`` names results by (player, round); the ones not found are left out.
        """

    async def record_round_par(
        self, tournament_id: str, round_number: int, par: bytes, expires_at: int | None
    ) -> bytes:
        """Keep a closed round's par unless it has one; the par kept (the first wins).

        Replicas may compute a par at once: all then show the one kept first.
        """

    async def round_pars(self, tournament_id: str) -> dict[int, bytes]:
        """Every par kept for the tournament's rounds, by round number."""

    async def result_keys(self, tournament_id: str) -> list[tuple[str, int]]:
        """The (player, round) of every finished game, without the results themselves."""

    async def close_tournament(self, tournament_id: str, closed_at: int) -> bool:
        """Set the tournament's ``closed_at`` if it has none; ``False`` if it had another."""

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        turns: int,
        card_ms: int,
        first_card: str | None,
    ) -> RoundState | None:
        """Start a lockstep round now, calling card 0 (``first_card``); ``None`` if it had started.

        It calls ``turns`` cards in all, each with ``card_ms`` milliseconds to be placed.
        A round without seats starts finished.
        """

    async def round_state(self, tournament_id: str, round_number: int) -> RoundState:
        """The round as stored (no seats and not started when nothing is stored)."""

    async def round_calls(
        self, tournament_id: str, round_number: int, after: int = -1
    ) -> list[CallRecord]:
        """The round's calls with an index above ``after``, in order."""

    async def round_seats(self, tournament_id: str, round_number: int) -> list[str]:
        """The deal ids seated in the round."""

    async def get_deals(self, deal_ids: Sequence[str]) -> list[DealRecord]:
        """The deals found among ``deal_ids`` (in no particular order)."""

    async def finish_round(self, tournament_id: str, round_number: int) -> None:
        """Mark the round finished (its tournament closed and its games are complete)."""

    async def schedule_round(self, tournament_id: str, round_number: int, at_ms: int) -> None:
        """Have :meth:`due_rounds` name the round from ``at_ms`` on (a start time)."""

    async def due_rounds(self, limit: int, resting: Collection[str] = ()) -> list[tuple[str, int]]:
        """Rounds whose deadline or start time has passed, by the store's clock, oldest first.

        A started round is due from its call's deadline until it finishes; a round with a
        start time from that time until it starts. Rounds of tournaments whose tag
        (:func:`~cardproof_service.store.keys.id_tag`) is in ``resting`` are left out: their
        node failed a moment ago, and they must not fill the batch of the others.
        """

    async def put_off_round(self, tournament_id: str, round_number: int, delay_ms: int) -> None:
        """Have a due round named again only ``delay_ms`` from now (by the store's clock).

        Never for a round that is no longer due (finished meanwhile), nor earlier than it
        is due already: for a round whose keeping failed, so that it cannot lead every
        batch.
        """

    async def drop_due(self, tournament_id: str, round_number: int) -> None:
        """Stop naming the round as due (its tournament is gone)."""

    def round_news(self) -> AsyncIterator[tuple[str, int]]:
        """Every round that called a card (or finished) from now on, as it happens.

        Each iteration is a subscription of its own; it ends with :class:`StoreUnavailable`
        when the store is lost (the caller subscribes again).
        """

    async def close(self) -> None:
        """Release connections."""
