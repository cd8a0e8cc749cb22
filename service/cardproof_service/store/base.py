"""The store protocols: one per kind of record, and ``Store``, all of them in one object.

The service holds one store; each protocol here names what one kind of record needs
(deals, a deal's moves, tournaments and their entrants, lockstep rounds, limits), so that
each backend keeps each kind in a part of its own (memory/, redis/), and the
transparency log's pool, tiles and checkpoint. The records are in records.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from typing import Protocol

from cardproof_service.store.records import (
    Appended,
    CallRecord,
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    EntryResult,
    GameResult,
    Hits,
    LatePlacement,
    LogState,
    NewEntrant,
    OpenTournament,
    OrganizerQuota,
    OrganizerRecord,
    Placement,
    Pooled,
    RoundState,
    Standing,
    TileKey,
    TournamentListing,
    TournamentRecord,
)


class DealStore(Protocol):
    """Deals: opened once (their commitment claimed, counted against their owner), read."""

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

    async def get_deal(self, deal_id: str) -> DealRecord | None:
        """The deal with its log, or ``None`` if there is none (or it expired)."""

    async def get_deals(self, deal_ids: Sequence[str]) -> list[DealRecord]:
        """The deals found among ``deal_ids`` (in no particular order)."""

    async def move_counts(self, deal_ids: Sequence[str]) -> list[int]:
        """Each deal's number of moves, in order; -1 for one finished, missing or expired.

        One light read for many deals (no log): which seats of a round are still to place.
        """


class MoveStore(Protocol):
    """A deal's log: moves appended one by one, or a whole log at once, and its result."""

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
        tournament game's only while its tournament is open (``closed`` otherwise); a
        lockstep seat never takes one (``lockstep``: it is played one call at a time).
        """


class TournamentStore(Protocol):
    """Organizers, tournaments, their entrants and invites, standings, results and pars."""

    async def add_organizer(self, record: OrganizerRecord) -> bool:
        """Store a new organizer; ``False`` (nothing stored) if another has its name.

        The same record again is ``True`` (a resent write).
        """

    async def get_organizer(self, organizer_id: str) -> OrganizerRecord | None:
        """The organizer with this id, or ``None``."""

    async def create_tournament(self, record: TournamentRecord) -> None:
        """Store a new tournament (its id is fresh: nothing to check), until its expiry.

        It is listed among its organizer's tournaments first (a listed tournament whose
        write then fails is left out of the listing, never the other way round).
        """

    async def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The tournament with this id, or ``None``."""

    async def organizer_tournaments(
        self, organizer_id: str, limit: int, cursor: str | None = None
    ) -> TournamentListing:
        """The organizer's tournaments, newest first: ``limit`` after ``cursor`` at most.

        Every tournament :meth:`create_tournament` stored is listed (the newest
        ``ORGANIZER_LISTED`` of an organizer) until it expires; ``cursor`` is the
        ``next`` of the page before. Each page costs ``O(log n + limit)``.
        """

    async def add_entrant(
        self,
        tournament_id: str,
        entrant: NewEntrant,
        max_entrants: int | None,
        *,
        until_first_round: bool = False,
        address: str | None = None,
        per_address: int = 0,
    ) -> EntryResult:
        """Enter ``entrant`` (0 total, 0 games) in one atomic step, unless refused.

        In this order: a known replay key answers its first entry; the same entrant
        again (a resent write) is ``added``; with ``until_first_round`` (a lockstep
        tournament), entries have closed once round 1 has started (``entries-closed``);
        a given invite code must exist and be unused (or used by this very entrant); the
        name's key must be free; the field must have room; with ``address`` and
        ``per_address`` (a client's id, and its limit), that client must have made fewer
        than ``per_address`` entries in the tournament (``entries-per-address``). Entering
        marks the invite used by this entrant and counts it among ``address``'s.
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


class RoundStore(Protocol):
    """Lockstep rounds: their seats and calls, and when each is due for the keeper."""

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

    async def claim_seats(
        self, tournament_id: str, round_number: int, call: int, batch: int, lease_ms: int
    ) -> bool:
        """Take batch ``batch`` of the round's seats for the late placements of ``call``.

        ``True`` for the first to ask (in any replica), then ``False`` for ``lease_ms``
        milliseconds: if its taker died, another may take it after that.
        """

    async def place_late(
        self,
        tournament_id: str,
        round_number: int,
        call: int,
        ttl: int,
        next_card: str | None,
        seats: Sequence[LatePlacement],
    ) -> list[str]:
        """Place card ``call`` for each of ``seats``, in one atomic step; the deal ids placed.

        Only once the call's deadline has passed (by the store's clock), and only for a
        seat still at index ``call`` (not finished): a seat that placed meanwhile is left
        as it is. Each placement is an ``auto`` append (:meth:`MoveStore.append_move`):
        a finishing one records its result; the step that completes the call calls
        ``next_card`` (or finishes the round). Placed deals are kept ``ttl`` seconds.
        """

    def round_news(self) -> AsyncIterator[tuple[str, int]]:
        """Every round that called a card (or finished) from now on, as it happens.

        Each iteration is a subscription of its own; it ends with :class:`StoreUnavailable`
        when the store is lost (the caller subscribes again).
        """


class LimitStore(Protocol):
    """Rate limits: each client's requests counted in fixed windows; each organizer's day.

    The other limits (games in flight, deals a day) are checked as a deal is opened:
    see :meth:`DealStore.create_deal`.
    """

    async def spend_organizer_quota(
        self, quota: OrganizerQuota, tournaments: int, invites: int
    ) -> None:
        """Count ``tournaments`` made and ``invites`` issued against the organizer's day.

        Both or neither: past either limit nothing is counted and
        :class:`OverOrganizerQuota` says which.
        """

    async def count_request(self, client: str, window: int, weight: int = 1) -> Hits:
        """Count one request of ``client`` in the current ``window``-second window.

        ``weight``: as many requests at once (the door's offences, charged in a batch).
        """


class LogStore(Protocol):
    """The transparency log: its pool of entries, its sequencer's lease, tiles, checkpoint.

    A receipt's entry is pooled in the step that stores the receipt (an ending's
    ``log``); other entries with :meth:`pool_entries`. One sequencer at a time (the
    lease's holder) takes pooled entries, folds them into the tree and commits the new
    tiles and checkpoint in one step, then drops what it took: a sequencer that dies
    anywhere leaves the entries pooled, and the next one folds them (those already in
    the tree are known by their leaf hash and only dropped).
    """

    async def pool_entries(self, pool: str, entries: Sequence[bytes]) -> None:
        """Pool ``entries`` (under the tag ``pool``: a Redis Cluster spreads pools)."""

    async def pooled(self, limit: int, *, sweep: bool = False) -> list[Pooled]:
        """Pooled entries, about ``limit`` at most, the oldest of each pool first.

        Pools are found by their marks; ``sweep`` also looks into every pool there can be
        (a writer that died between its step and its mark left a pool unmarked).
        """

    async def drop_pooled(self, taken: Sequence[Pooled]) -> None:
        """Drop what :meth:`pooled` returned (and its pools' marks, once empty)."""

    async def take_lease(self, holder: str, ms: int) -> bool:
        """Hold (or keep) the sequencer's lease for ``ms`` ms; ``False``: another holds it."""

    async def log_state(self) -> LogState:
        """The log's size and checkpoint (size 0 and no checkpoint before the first fold)."""

    async def commit_fold(
        self,
        holder: str,
        old_size: int,
        state: LogState,
        tiles: dict[TileKey, bytes],
        leaves: dict[bytes, int],
    ) -> None:
        """Write a fold in one step: its tiles, its leaves' indexes, then ``state``.

        Only while ``holder`` holds the lease and the log is still of ``old_size``, and only
        if every tile extends what it held: else :class:`LogConflict`, nothing written.
        ``leaves`` maps each new entry's leaf hash (its first 16 bytes) to its index.
        """

    async def read_tiles(self, keys: Sequence[TileKey]) -> list[bytes | None]:
        """Each tile's widest form as stored (``None``: none yet)."""

    async def leaf_indexes(self, leaves: Sequence[bytes]) -> list[int | None]:
        """Each entry's index in the log, by its leaf hash (``None``: not in the log)."""

    async def add_cosigned(self, size: int, cosigned: str) -> bool:
        """Keep ``cosigned`` (the checkpoint, cosigned) if the log is still of ``size``."""

    async def log_due(self, key: str, at_ms: int) -> None:
        """Have the sequencer log what ``key`` names at ``at_ms`` (a tournament's close).

        A time held already that is earlier stays: asking again never postpones.
        """

    async def logs_due(self, at_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` keys due by ``at_ms``, each with its time, the earliest first."""

    async def log_done(self, key: str, at_ms: int, later_ms: int | None = None) -> None:
        """``key`` was logged as due at ``at_ms``: forget it, or move it to ``later_ms``.

        Only if it is still due at ``at_ms`` (a key asked for earlier meanwhile stays).
        """


class Store(DealStore, MoveStore, TournamentStore, RoundStore, LimitStore, LogStore, Protocol):
    """What the service needs from its state, each step atomic: one object, every kind."""

    name: str

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless the store answers."""

    async def close(self) -> None:
        """Release connections."""


__all__ = [
    "DealStore",
    "LimitStore",
    "LogStore",
    "MoveStore",
    "RoundStore",
    "Store",
    "TournamentStore",
]
