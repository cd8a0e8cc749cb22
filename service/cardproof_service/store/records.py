"""The records the store keeps, and the exceptions its steps raise.

Plain msgspec Structs, shared by the protocols (base.py) and by every part of both
backends (memory/, redis/): kept apart from the protocols so that a part imports what it
stores without the protocols, and none of them imports another's.
"""

from __future__ import annotations

from typing import Any, Final, Literal

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


class OverOrganizerQuota(Exception):
    """An organizer's day (UTC) is spent: its tournaments or its invite codes; nothing stored."""

    def __init__(self, what: str, limit: int, used: int, retry_after: int) -> None:
        """``what``: ``tournaments`` or ``invites``; ``used``: how many so far today.

        ``retry_after``: seconds until the day (UTC) ends and the count starts again.
        """
        super().__init__(f"{limit} {what} today")
        self.what = what
        self.limit = limit
        self.used = used
        self.retry_after = retry_after


class OrganizerQuota(msgspec.Struct, frozen=True):
    """An organizer's quota of a day (UTC): tournaments made, invite codes issued.

    Each is bounded so that one organizer key cannot fill the store: a limit of 0 is
    none.
    """

    organizer_id: str
    tournaments: int
    invites: int
    day: int
    """Days since the Unix epoch."""
    seconds_left: int
    """Until the day ends."""


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
    log: bytes = b""
    """The log entries of its receipts, one a line: pooled in the step that stores it,
    so that a receipt the service signed is never missing from the transparency log."""


class LogConflict(Exception):
    """A fold the log refused, having written nothing.

    Another sequencer holds the lease, the tree grew meanwhile, or a tile would change
    what it held.
    """


class LogState(msgspec.Struct, frozen=True):
    """The transparency log as stored: its size and its latest checkpoint (a signed note).

    ``cosigned`` is the same checkpoint with the witnesses' cosignatures added (``None``
    until one cosigns it).
    """

    size: int = 0
    checkpoint: str | None = None
    cosigned: str | None = None


class Pooled(msgspec.Struct, frozen=True):
    """Entries waiting to be sequenced, from one pool (a Redis hash tag; ``""`` in memory).

    ``taken`` pool items hold them: :meth:`~cardproof_service.store.base.LogStore.drop_pooled`
    drops that many, once the entries are in the log, only if the pool's first item is
    still the one read then (``dropped``: how many items the pool had dropped before).
    """

    pool: str
    taken: int
    entries: list[bytes]
    dropped: int = 0


TileKey = tuple[int, int]
"""A tile by its level (-1: an entry bundle) and index; the store keeps its widest form."""


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


ORGANIZER_LISTED: Final = 10_000
"""Tournaments an organizer's listing keeps at most (newest first): creating one more
drops the oldest from the listing (not the tournament itself)."""


def listing_member(tournament_id: str, sequence: int) -> str:
    """A tournament's place in its organizer's listing: its number there, then its id.

    The store numbers an organizer's tournaments 1, 2, 3... as it lists them (above the
    microsecond times a listing made before numbering holds), so no two share a place
    however fast they come or however the clock steps. Sixteen digits, so that text
    order is that order (newest last). It is also the listing's cursor.

    >>> listing_member("t_2c819c823954a2e50ea4", 42)
    '0000000000000042:t_2c819c823954a2e50ea4'
    """
    return f"{sequence:016d}:{tournament_id}"


class TournamentListing(msgspec.Struct, frozen=True):
    """A page of an organizer's tournaments, newest first.

    ``next``: the cursor of the page after (the last member read), ``None`` at the end.
    A page may hold fewer records than asked for while ``next`` is set: a listed
    tournament whose record is gone (expired meanwhile, or its write failed) is left out.
    """

    records: list[TournamentRecord]
    next: str | None = None


class Appended(msgspec.Struct, frozen=True):
    """The outcome of an append.

    ``appended``; ``wrong-index`` (``count`` moves are there already); ``missing`` (no
    such deal, or it expired). In a lockstep round also ``not-called`` (the round has not
    called this index yet), ``late`` (a player's move after its call's deadline) and
    ``early`` (a placement for the player before it); ``call`` is then the round's call
    index after the step (-1 before the round starts, or outside lockstep). ``closed``: a
    player's move of a tournament game whose tournament has closed. ``lockstep``: a whole
    log for a lockstep seat, which is played one call at a time.
    """

    outcome: Literal[
        "appended", "wrong-index", "missing", "not-called", "late", "early", "closed", "lockstep"
    ]
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


class LatePlacement(msgspec.Struct, frozen=True):
    """A card placed for an idle seat of a lockstep round (:meth:`RoundStore.place_late`).

    ``move`` is placed at the round's call index; a last move finishes the game at
    ``finished_at`` with its ``total`` (what the standings count) and its ``ending``.
    """

    deal_id: str
    move: str
    finished_at: int | None = None
    total: int | None = None
    ending: Ending | None = None


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


EntryOutcome = Literal[
    "added",
    "replayed",
    "name-taken",
    "full",
    "bad-invite",
    "invite-used",
    "entries-closed",
    "entries-per-address",
]


class NewEntrant(msgspec.Struct, frozen=True):
    """An entry to make: who, under which name, with which invite and replay key.

    ``key`` is what names are compared by (:func:`cardproof_service.tournaments.names.name_key`):
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
    ``bad-invite`` (no such code); ``invite-used`` (the code entered someone else);
    ``entries-closed``; ``entries-per-address`` (its client made its limit of entries).
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
