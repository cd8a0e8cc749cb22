"""The memory store's tournaments: records, entrants and invites, standings, results, pars.

Owns every dict kept by tournament, dropped whole when its tournament expires. A game's
result goes into its standings in its last move's step (moves.py), through
:meth:`MemoryTournaments._record_result`.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec

from cardproof_service.store.memory.core import MemoryCore
from cardproof_service.store.records import (
    ORGANIZER_LISTED,
    DealRecord,
    Ending,
    EntryResult,
    GameResult,
    NewEntrant,
    OpenTournament,
    Standing,
    TournamentListing,
    TournamentRecord,
    listing_member,
)


class MemoryTournaments(MemoryCore):
    """Tournaments, their entrants and invites, standings, results and pars."""

    def __init__(self, organizers_file: Path | None = None) -> None:
        """No tournament yet."""
        super().__init__(organizers_file)
        self._tournaments: dict[str, TournamentRecord] = {}
        self._entrants: dict[str, dict[str, str]] = {}
        """Per tournament: entrant id to name."""
        self._entrant_keys: dict[str, dict[str, str]] = {}
        """Per tournament: name key (confusable skeleton) to entrant id."""
        self._invites: dict[str, dict[str, str]] = {}
        """Per tournament: invite code hash to the entrant who used it ('' unused)."""
        self._replays: dict[tuple[str, str], tuple[float, str]] = {}
        """(tournament, replay key hash) to (expiry, entrant id): resent entries."""
        self._address_entries: dict[str, dict[str, int]] = {}
        """Per tournament: a client's id to the entries it made."""
        self._totals: dict[str, dict[str, list[int]]] = {}
        """Per tournament: name to [total, finished games]."""
        self._results: dict[tuple[str, str, int], GameResult] = {}
        """Every result recorded, by (tournament, name, round)."""
        self._pars: dict[str, dict[int, bytes]] = {}
        """Each closed round's par, by tournament and round."""
        self._listed: dict[str, list[tuple[str, str]]] = {}
        """Per organizer: (listing member, tournament id), oldest first (at most
        ``ORGANIZER_LISTED``); an expired tournament's line goes when a listing meets it."""
        self._listing_numbers: dict[str, int] = {}
        """Per organizer: the number its last listed tournament was given."""

    def _sweep_tournaments(self) -> None:
        """Forget expired entry replays, and expired tournaments with all of theirs."""
        now = time.monotonic()
        for replay in [k for k, (expires, _) in self._replays.items() if expires <= now]:
            del self._replays[replay]
        wall = time.time()
        for tournament_id, record in list(self._tournaments.items()):
            if record.expires_at is not None and record.expires_at <= wall:
                self._drop_tournament(tournament_id)

    def _closed(self, open_tournament: OpenTournament | None) -> bool:
        """Whether a player's write to a tournament game comes after its tournament closed."""
        if open_tournament is None:
            return False
        held = self._tournaments.get(open_tournament.tournament)
        closed_by_organizer = held is not None and held.closed_at is not None
        return closed_by_organizer or time.time() >= open_tournament.closes_at

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

    async def create_tournament(self, record: TournamentRecord) -> None:
        """Keep the tournament (records are immutable: no copy needed) until it expires.

        Listed among its organizer's, newest last, the oldest line dropped past
        ``ORGANIZER_LISTED``.
        """
        listed = self._listed.setdefault(record.organizer_id, [])
        number = self._listing_numbers.get(record.organizer_id, 0) + 1
        self._listing_numbers[record.organizer_id] = number
        member = listing_member(record.tournament_id, number)
        bisect.insort(listed, (member, record.tournament_id))
        del listed[:-ORGANIZER_LISTED]
        self._tournaments[record.tournament_id] = record

    async def organizer_tournaments(
        self, organizer_id: str, limit: int, cursor: str | None = None
    ) -> TournamentListing:
        """Walk back from ``cursor``, dropping the lines of tournaments gone meanwhile."""
        listed = self._listed.get(organizer_id, [])
        end = len(listed) if cursor is None else bisect.bisect_left(listed, (cursor, ""))
        records: list[TournamentRecord] = []
        position, wall = end, time.time()
        while position > 0 and len(records) < limit:
            position -= 1
            record = self._tournaments.get(listed[position][1])
            if record is None or (record.expires_at is not None and record.expires_at <= wall):
                del listed[position]  # gone: its own reads drop the rest of it
            else:
                records.append(record)
        more = position > 0 and len(records) == limit
        return TournamentListing(records, listed[position][0] if more else None)

    async def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The tournament, or ``None`` (also once it expired, when all of it is dropped)."""
        record = self._tournaments.get(tournament_id)
        expires_at = None if record is None else record.expires_at
        if expires_at is not None and expires_at <= time.time():
            self._drop_tournament(tournament_id)
            return None
        return record

    def _drop_tournament(self, tournament_id: str) -> None:
        """Forget an expired tournament: its record, entrants, invites, totals, results, pars.

        Its rounds go too (rounds.py extends this).
        """
        self._tournaments.pop(tournament_id, None)
        self._pars.pop(tournament_id, None)
        for table in (self._entrants, self._entrant_keys, self._invites, self._totals):
            table.pop(tournament_id, None)
        self._address_entries.pop(tournament_id, None)
        for key in [key for key in self._results if key[0] == tournament_id]:
            del self._results[key]

    def _first_round_started(self, tournament_id: str) -> bool:
        """Whether round 1 of the tournament has started: rounds.py knows (none here)."""
        return False

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
        if until_first_round and self._first_round_started(tournament_id):
            return EntryResult("entries-closed")
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
        by_address = self._address_entries.setdefault(tournament_id, {})
        if address is not None and per_address and by_address.get(address, 0) >= per_address:
            return EntryResult("entries-per-address")
        if address is not None:
            by_address[address] = by_address.get(address, 0) + 1
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


def _revealed(ending: Ending | None) -> str | None:
    """The receipt a finished game's result keeps: the one with the seed."""
    return None if ending is None else ending.result_receipt
