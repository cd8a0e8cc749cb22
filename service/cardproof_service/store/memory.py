"""The embedded store: one process, state in dicts, expiry on read.

Organizers are the one thing that must outlive the process and be added from outside
it (``cardproof keys organizer create``): they live in a JSON file (only hashes), which
the store reads again whenever it has changed.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from cardproof_service.store import keys as layout
from cardproof_service.store.base import (
    Appended,
    CallRecord,
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    EntryResult,
    GameResult,
    Hits,
    NewEntrant,
    OpenTournament,
    OrganizerRecord,
    OverDailyQuota,
    Placement,
    RoundStarted,
    RoundState,
    Standing,
    TooManyGames,
    TournamentRecord,
)

_ORGANIZERS = msgspec.json.Decoder(list[OrganizerRecord])


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class _Round:
    """A lockstep round: its seats (deal ids), its calls and where it stands."""

    seats: list[str] = field(default_factory=list)
    started_at: int | None = None
    call: int = -1
    called_at: int = 0
    placed: int = 0
    turns: int = 0
    card_ms: int = 0
    finished: bool = False
    calls: list[CallRecord] = field(default_factory=list)

    def state(self, now: int) -> RoundState:
        return RoundState(
            seats=len(self.seats),
            now=now,
            started_at=self.started_at,
            call=self.call,
            called_at=self.called_at,
            placed=self.placed,
            turns=self.turns,
            card_ms=self.card_ms,
            finished=self.finished,
        )


class MemoryStore:
    """A store for a single process (``cardproof serve`` without ``REDIS_URL``).

    Each step runs without an ``await`` inside it, so it is atomic on the event loop.
    """

    name = "memory"

    def __init__(self, organizers_file: Path | None = None) -> None:
        """An empty store; organizers in ``organizers_file`` (none without one)."""
        self._deals: dict[str, tuple[float, DealRecord]] = {}
        self._claims: dict[str, tuple[float, bytes]] = {}
        self._created = 0
        self._organizers_file = organizers_file
        self._organizers: dict[str, OrganizerRecord] = {}
        self._organizers_seen: tuple[int, int] | None = None
        """(mtime in ns, size) of the organizers file when it was last read."""
        self._tournaments: dict[str, TournamentRecord] = {}
        self._entrants: dict[str, dict[str, str]] = {}
        """Per tournament: entrant id to name."""
        self._entrant_keys: dict[str, dict[str, str]] = {}
        """Per tournament: name key (confusable skeleton) to entrant id."""
        self._invites: dict[str, dict[str, str]] = {}
        """Per tournament: invite code hash to the entrant who used it ('' unused)."""
        self._replays: dict[tuple[str, str], tuple[float, str]] = {}
        """(tournament, replay key hash) to (expiry, entrant id): resent entries."""
        self._totals: dict[str, dict[str, list[int]]] = {}
        """Per tournament: name to [total, finished games]."""
        self._results: dict[tuple[str, str, int], GameResult] = {}
        """Every result recorded, by (tournament, name, round)."""
        self._pars: dict[str, dict[int, bytes]] = {}
        """Each closed round's par, by tournament and round."""
        self._in_flight: dict[str, dict[str, float]] = {}
        """Per owner: its unfinished deals and when each expires."""
        self._quota_day = 0
        """The day (UTC, days since the epoch) ``_deals_today`` counts in."""
        self._deals_today: dict[str, int] = {}
        """Per client: deals opened in ``_quota_day``."""
        self._window = 0
        """The number of the rate-limit window ``_hits`` counts in."""
        self._hits: dict[str, int] = {}
        """Per client: requests counted in the current window."""
        self._rounds: dict[tuple[str, int], _Round] = {}
        """Lockstep rounds, by (tournament, round)."""
        self._due: dict[tuple[str, int], int] = {}
        """Rounds and when they are due (ms): a call's deadline, or a start time."""
        self._news: set[asyncio.Queue[tuple[str, int]]] = set()
        """One queue per subscription of :meth:`round_news`."""

    async def ping(self) -> None:
        """Always answers."""

    async def confirm_deal(self, deal_id: str, finished_by: str | None = None) -> None:
        """Nothing to wait for: one process holds it all.

        A finished deal left its owner's games in flight in its last move's step already.
        """
        if finished_by is not None:
            self._in_flight.get(finished_by, {}).pop(deal_id, None)

    async def create_deal(
        self,
        record: DealRecord,
        ttl: int,
        commitment: Claim | None = None,
        max_in_flight: int = 0,
        quota: DailyQuota | None = None,
    ) -> bytes | None:
        """Claim the commitment (if any), count the owner's game and store the deal."""
        if self._live(record.deal_id) is not None:
            return None  # the same deal again
        self._created += 1
        if self._created % 1024 == 0:
            self._sweep()
        now = time.monotonic()
        if commitment is not None:
            first = self._claims.get(commitment.commitment_id)
            if first is not None and first[0] > now:
                return first[1]
        seat = None
        if record.lockstep and record.tournament is not None and record.round is not None:
            seat = self._rounds.setdefault((record.tournament, record.round), _Round())
            if seat.started_at is not None:
                raise RoundStarted
        if quota is not None:
            if quota.day != self._quota_day:  # a new day: every count starts again
                self._quota_day, self._deals_today = quota.day, {}
            if self._deals_today.get(quota.client, 0) >= quota.limit:
                raise OverDailyQuota(quota.limit, quota.seconds_left)
        if record.owner is not None and max_in_flight > 0:
            games = self._in_flight.setdefault(record.owner, {})
            for deal_id in [d for d, expires in games.items() if expires <= now]:
                del games[deal_id]
            if len(games) >= max_in_flight:
                raise TooManyGames(max_in_flight, max(1, round(min(games.values()) - now)))
            games[record.deal_id] = now + ttl
        if commitment is not None:
            self._claims[commitment.commitment_id] = (now + commitment.ttl, commitment.claim)
        if quota is not None:
            self._deals_today[quota.client] = self._deals_today.get(quota.client, 0) + 1
        fresh = msgspec.structs.replace(
            record, moves=[], finished_at=None, blind=True, auto_placed=[]
        )
        self._deals[record.deal_id] = (now + ttl, fresh)
        if seat is not None:
            seat.seats.append(record.deal_id)
        return None

    async def get_claim(self, commitment_id: str) -> bytes | None:
        """The claim, while it is kept."""
        found = self._claims.get(commitment_id)
        return found[1] if found is not None and found[0] > time.monotonic() else None

    def _sweep(self) -> None:
        now = time.monotonic()
        for table in (self._deals, self._claims):
            for key in [k for k, (expires, _) in table.items() if expires <= now]:
                del table[key]
        for replay in [k for k, (expires, _) in self._replays.items() if expires <= now]:
            del self._replays[replay]
        wall = time.time()
        for tournament_id, record in list(self._tournaments.items()):
            if record.expires_at is not None and record.expires_at <= wall:
                self._drop_tournament(tournament_id)
        for owner, games in list(self._in_flight.items()):
            for deal_id in [d for d, expires in games.items() if expires <= now]:
                del games[deal_id]
            if not games:
                del self._in_flight[owner]

    def _touch(self, record: DealRecord, expires: float) -> None:
        """Keep an owner's count in step with its deal: finished, it no longer counts."""
        games = self._in_flight.get(record.owner) if record.owner is not None else None
        if games is None:
            return
        if record.finished_at is not None:
            games.pop(record.deal_id, None)
        elif record.deal_id in games:
            games[record.deal_id] = expires

    async def count_request(self, client: str, window: int) -> Hits:
        """Count in the client's fixed window (windows start at multiples of ``window``)."""
        now = int(time.time())
        number = now // window
        if number != self._window:  # a new window: every count starts again
            self._window, self._hits = number, {}
        count = self._hits.get(client, 0) + 1
        self._hits[client] = count
        return Hits(count, (number + 1) * window - now)

    def _live(self, deal_id: str) -> DealRecord | None:
        entry = self._deals.get(deal_id)
        if entry is None:
            return None
        if entry[0] <= time.monotonic():
            del self._deals[deal_id]
            return None
        return entry[1]

    async def get_deal(self, deal_id: str) -> DealRecord | None:
        """A copy of the deal (callers cannot change the stored one)."""
        record = self._live(deal_id)
        if record is None:
            return None
        return msgspec.structs.replace(
            record, moves=list(record.moves), auto_placed=list(record.auto_placed)
        )

    async def get_deals(self, deal_ids: Sequence[str]) -> list[DealRecord]:
        """Copies of the deals found."""
        found = [await self.get_deal(deal_id) for deal_id in deal_ids]
        return [record for record in found if record is not None]

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
        """Append if ``index`` is next (and, in a lockstep round, called)."""
        record = self._live(deal_id)
        if record is None:
            return Appended("missing")
        if self._closed(open_tournament):
            return Appended("closed", len(record.moves))
        seat = None
        if placement is not None and placement.by != "closing" and record.lockstep:
            seat = self._rounds.get((placement.tournament, placement.round), _Round())
        call = -1 if seat is None else seat.call
        if index != len(record.moves) or record.finished_at is not None:
            return Appended("wrong-index", len(record.moves), call)
        now = _now_ms()
        if seat is not None:
            if seat.started_at is None or seat.finished or index > seat.call:
                return Appended("not-called", len(record.moves), call)
            late = now >= seat.called_at + seat.card_ms
            if placement is not None and late != (placement.by == "auto"):
                return Appended("late" if late else "early", len(record.moves), call)
        record.moves.extend(move.split())
        if placement is not None:
            record.auto_placed.extend(placement.auto)
        record.finished_at = finished_at
        if finished_at is not None:
            record.ending = ending
        expires = time.monotonic() + ttl
        self._deals[deal_id] = (expires, record)
        self._touch(record, expires)
        self._record_result(record, total)
        if seat is not None and placement is not None and index == seat.call:
            seat.placed += 1
            if seat.placed >= len(seat.seats):
                self._call_next(placement.tournament, placement.round, placement.next_card, now)
        return Appended("appended", len(record.moves), -1 if seat is None else seat.call)

    def _closed(self, open_tournament: OpenTournament | None) -> bool:
        """Whether a player's write to a tournament game comes after its tournament closed."""
        if open_tournament is None:
            return False
        held = self._tournaments.get(open_tournament.tournament)
        closed_by_organizer = held is not None and held.closed_at is not None
        return closed_by_organizer or time.time() >= open_tournament.closes_at

    def _call_next(self, tournament_id: str, round_number: int, card: str | None, now: int) -> None:
        """Every seat placed the call: call the next card, or finish the round."""
        key = (tournament_id, round_number)
        seat = self._rounds[key]
        seat.placed = 0
        if seat.call + 1 >= seat.turns:
            seat.finished = True
            self._due.pop(key, None)
        else:
            seat.call += 1
            seat.called_at = now
            seat.calls.append(CallRecord(seat.call, card, now))
            self._due[key] = now + seat.card_ms
        self._tell(key)

    def _tell(self, key: tuple[str, int]) -> None:
        for queue in self._news:
            queue.put_nowait(key)

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
        """Store a whole log if the deal has none."""
        record = self._live(deal_id)
        if record is None:
            return Appended("missing")
        if self._closed(open_tournament):
            return Appended("closed", len(record.moves))
        if record.moves or record.finished_at is not None:
            return Appended("wrong-index", len(record.moves))
        record.moves = list(moves)
        record.finished_at = finished_at
        record.blind = blind
        record.ending = ending
        expires = time.monotonic() + ttl
        self._deals[deal_id] = (expires, record)
        self._touch(record, expires)
        self._record_result(record, total)
        return Appended("appended", len(moves))

    def _record_result(self, record: DealRecord, total: int | None) -> None:
        """A finished tournament game's score, into its standings (once)."""
        if record.finished_at is None or total is None or record.tournament is None:
            return
        if record.player is None or record.round is None:
            return
        result = (record.tournament, record.player, record.round)
        if result in self._results:
            return
        self._results[result] = GameResult(
            player=record.player,
            round=record.round,
            deal_id=record.deal_id,
            total=total,
            finished_at=record.finished_at,
            moves=" ".join(record.moves),
            blind=record.blind,
            receipt=_revealed(record.ending),
        )
        line = self._totals.setdefault(record.tournament, {}).setdefault(record.player, [0, 0])
        line[0] += total
        line[1] += 1

    def _read_organizers(self) -> dict[str, OrganizerRecord]:
        """The organizers, read again from the file if it changed since the last read."""
        path = self._organizers_file
        if path is None:
            return self._organizers
        try:
            stat = path.stat()
        except FileNotFoundError:
            return self._organizers
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._organizers_seen:
            records = _ORGANIZERS.decode(path.read_bytes()) if stat.st_size else []
            self._organizers = {record.organizer_id: record for record in records}
            self._organizers_seen = seen
        return self._organizers

    async def add_organizer(self, record: OrganizerRecord) -> bool:
        """Add to the file (written whole, then renamed into place) and to memory."""
        organizers = self._read_organizers()
        if organizers.get(record.organizer_id) == record:
            return True  # the same organizer again
        if any(known.name == record.name for known in organizers.values()):
            return False
        organizers[record.organizer_id] = record
        path = self._organizers_file
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            draft = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            draft.write_bytes(msgspec.json.encode(sorted(organizers.values(), key=_by_name)))
            os.chmod(draft, 0o600)
            draft.replace(path)
            stat = path.stat()
            self._organizers_seen = (stat.st_mtime_ns, stat.st_size)
        return True

    async def get_organizer(self, organizer_id: str) -> OrganizerRecord | None:
        """The organizer, from the file as it is now."""
        return self._read_organizers().get(organizer_id)

    async def create_tournament(self, record: TournamentRecord) -> None:
        """Keep the tournament (records are immutable: no copy needed) until it expires."""
        self._tournaments[record.tournament_id] = record

    async def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The tournament, or ``None`` (also once it expired, when all of it is dropped)."""
        record = self._tournaments.get(tournament_id)
        expires_at = None if record is None else record.expires_at
        if expires_at is not None and expires_at <= time.time():
            self._drop_tournament(tournament_id)
            return None
        return record

    def _drop_tournament(self, tournament_id: str) -> None:
        """Forget an expired tournament: its record, entrants, invites, totals, results, pars."""
        self._tournaments.pop(tournament_id, None)
        self._pars.pop(tournament_id, None)
        for table in (self._entrants, self._entrant_keys, self._invites, self._totals):
            table.pop(tournament_id, None)
        for key in [key for key in self._results if key[0] == tournament_id]:
            del self._results[key]
        for seat in [seat for seat in self._rounds if seat[0] == tournament_id]:
            del self._rounds[seat]
            self._due.pop(seat, None)

    async def add_entrant(
        self, tournament_id: str, entrant: NewEntrant, max_entrants: int | None
    ) -> EntryResult:
        """Enter ``entrant``: the checks of the protocol, in its order, then the entry."""
        now = time.monotonic()
        entrants = self._entrants.setdefault(tournament_id, {})
        keys = self._entrant_keys.setdefault(tournament_id, {})
        totals = self._totals.setdefault(tournament_id, {})
        invites = self._invites.setdefault(tournament_id, {})
        replay = (tournament_id, entrant.replay) if entrant.replay else None
        if replay is not None:
            first = self._replays.get(replay)
            if first is not None and first[0] > now:
                return EntryResult("replayed", first[1], entrants.get(first[1], ""))
        known = keys.get(entrant.key)
        if known == entrant.entrant_id:
            return EntryResult("added", entrant.entrant_id, entrant.name)  # the same entry
        if entrant.invite is not None:
            used = invites.get(entrant.invite)
            if used is None:
                return EntryResult("bad-invite")
            if used and used != entrant.entrant_id:
                return EntryResult("invite-used")
        if known is not None:
            return EntryResult("name-taken", known, entrants.get(known, ""))
        if max_entrants is not None and len(entrants) >= max_entrants:
            return EntryResult("full")
        entrants[entrant.entrant_id] = entrant.name
        keys[entrant.key] = entrant.entrant_id
        totals[entrant.name] = [0, 0]
        if entrant.invite is not None:
            invites[entrant.invite] = entrant.entrant_id
        if replay is not None:
            self._replays[replay] = (now + entrant.replay_ttl, entrant.entrant_id)
        return EntryResult("added", entrant.entrant_id, entrant.name)

    async def add_invites(
        self, tournament_id: str, hashes: list[str], limit: int, expires_at: int | None = None
    ) -> bool:
        """Add unused codes, within ``limit`` codes in all."""
        invites = self._invites.setdefault(tournament_id, {})
        if len(invites) + len(hashes) > limit:
            return False
        for code_hash in hashes:
            invites.setdefault(code_hash, "")
        return True

    async def invite_known(self, tournament_id: str, code_hash: str) -> bool:
        """Whether the code was issued."""
        return code_hash in self._invites.get(tournament_id, {})

    async def entrant_name(self, tournament_id: str, entrant_id: str) -> str | None:
        """The entrant's name, or ``None``."""
        return self._entrants.get(tournament_id, {}).get(entrant_id)

    async def entrant_of_key(self, tournament_id: str, key: str) -> str | None:
        """The id the name key was entered under, or ``None``."""
        return self._entrant_keys.get(tournament_id, {}).get(key)

    async def standings(self, tournament_id: str) -> list[Standing]:
        """Every entrant's line."""
        totals = self._totals.get(tournament_id, {})
        return [Standing(name, total, finished) for name, (total, finished) in totals.items()]

    async def results(
        self, tournament_id: str, games: Sequence[tuple[str, int]] | None = None
    ) -> list[GameResult]:
        """Every finished game of the tournament, or those of ``games``."""
        if games is None:
            return [r for (t, _, _), r in self._results.items() if t == tournament_id]
        found = (self._results.get((tournament_id, player, round_)) for player, round_ in games)
        return [result for result in found if result is not None]

    async def record_round_par(
        self, tournament_id: str, round_number: int, par: bytes, expires_at: int | None
    ) -> bytes:
        """Keep the first par of a round."""
        return self._pars.setdefault(tournament_id, {}).setdefault(round_number, par)

    async def round_pars(self, tournament_id: str) -> dict[int, bytes]:
        """The pars kept, by round."""
        return dict(self._pars.get(tournament_id, {}))

    async def result_keys(self, tournament_id: str) -> list[tuple[str, int]]:
        """(player, round) of every finished game."""
        return [(player, round_) for (t, player, round_) in self._results if t == tournament_id]

    async def close_tournament(self, tournament_id: str, closed_at: int) -> bool:
        """Set ``closed_at`` once."""
        record = self._tournaments.get(tournament_id)
        if record is not None and record.closed_at == closed_at:
            return True  # the same close again
        if record is None or record.closed_at is not None:
            return False
        self._tournaments[tournament_id] = msgspec.structs.replace(record, closed_at=closed_at)
        return True

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        turns: int,
        card_ms: int,
        first_card: str | None,
    ) -> RoundState | None:
        """Start the round and call card 0 (a round without seats starts finished)."""
        key = (tournament_id, round_number)
        seat = self._rounds.setdefault(key, _Round())
        if seat.started_at is not None:
            return None
        now = _now_ms()
        seat.started_at, seat.turns, seat.card_ms = now, turns, card_ms
        if not seat.seats:
            seat.finished = True
            self._due.pop(key, None)
        else:
            seat.call, seat.called_at, seat.placed = 0, now, 0
            seat.calls.append(CallRecord(0, first_card, now))
            self._due[key] = now + card_ms
        self._tell(key)
        return seat.state(now)

    async def round_state(self, tournament_id: str, round_number: int) -> RoundState:
        """The round, or an empty one."""
        seat = self._rounds.get((tournament_id, round_number), _Round())
        return seat.state(_now_ms())

    async def round_calls(
        self, tournament_id: str, round_number: int, after: int = -1
    ) -> list[CallRecord]:
        """The calls after ``after``."""
        seat = self._rounds.get((tournament_id, round_number), _Round())
        return seat.calls[max(0, after + 1) :]

    async def round_seats(self, tournament_id: str, round_number: int) -> list[str]:
        """The seated deal ids."""
        return list(self._rounds.get((tournament_id, round_number), _Round()).seats)

    async def finish_round(self, tournament_id: str, round_number: int) -> None:
        """Mark it finished."""
        key = (tournament_id, round_number)
        self._rounds.setdefault(key, _Round()).finished = True
        self._due.pop(key, None)
        self._tell(key)

    async def schedule_round(self, tournament_id: str, round_number: int, at_ms: int) -> None:
        """Due from ``at_ms``."""
        self._due[(tournament_id, round_number)] = at_ms

    async def due_rounds(self, limit: int, resting: Collection[str] = ()) -> list[tuple[str, int]]:
        """The rounds due now, the longest due first (none of a resting tag)."""
        now = _now_ms()
        due = sorted(
            (at, key)
            for key, at in self._due.items()
            if at <= now and layout.id_tag(key[0]) not in resting
        )
        return [key for _, key in due[:limit]]

    async def put_off_round(self, tournament_id: str, round_number: int, delay_ms: int) -> None:
        """Due ``delay_ms`` from now, if due at all and not later already."""
        key = (tournament_id, round_number)
        if key in self._due:
            self._due[key] = max(self._due[key], _now_ms() + delay_ms)

    async def drop_due(self, tournament_id: str, round_number: int) -> None:
        """No longer due."""
        self._due.pop((tournament_id, round_number), None)

    async def round_news(self) -> AsyncIterator[tuple[str, int]]:
        """Rounds as they call, from an in-process queue."""
        queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self._news.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._news.discard(queue)

    async def close(self) -> None:
        """Nothing to release."""


def _revealed(ending: Ending | None) -> str | None:
    """The receipt a finished game's result keeps: the one with the seed."""
    return None if ending is None else ending.result_receipt


def _by_name(record: OrganizerRecord) -> str:
    return record.name
