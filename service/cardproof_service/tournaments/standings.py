"""Standings, settlement and the exported record of a tournament.

Standings count finished games only: a game's result enters them in the same atomic
store step as its last move. An unfinished game counts its variant's worst round
(:func:`cardproof.tournaments.worst_round`). After the close each round's par
(:mod:`~cardproof_service.tournaments.pars`) and each entrant's share of it join the standings;
a closed tournament's standings never change once its pars are known, so a process
keeps them. The export streams the whole record a batch at a time.

Once a tournament has closed and its results have settled, the log's sequencer asks
:meth:`Scoreboard.closing` for its reveals and its settlement's entry (the final totals,
:func:`cardproof.tlog.entries.settlement_document`).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import msgspec

from cardproof.errors import ParseError, RuleError
from cardproof.games import replay_log
from cardproof.models import (
    EXPORT_FORMAT,
    ExportedGame,
    PlayerGame,
    RoundPar,
    StandingLine,
    Standings,
    TournamentExport,
)
from cardproof.tlog.entries import Entry, RoundReveal, encode_entry, settlement_entry
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
from cardproof_service.deals import Commitments, Gate, receipt_payload, round_commitment_id
from cardproof_service.log import Due
from cardproof_service.plumbing import Keys, conflict, not_found, now, rfc3339, tournament_closed
from cardproof_service.store import GameResult, Store, TournamentRecord, id_tag
from cardproof_service.tournaments.names import display_name, name_key
from cardproof_service.tournaments.pars import Pars
from cardproof_service.tournaments.tournaments import Access, Tournaments, status_of

EXPORT_BATCH = 200
"""Games an export reads from the store and encodes at a time."""
_NO_GAMES = b'"games":[]'
CLOSED_KEPT = 256
"""Closed tournaments whose standings a process keeps (they cannot change)."""
SETTLED_AFTER = 10
"""Seconds after its close from which a tournament's standings are kept: a move that was
checked just before the close may still be recording its result."""


@dataclass
class Scoreboard:
    """Standings, settlements and exports of tournaments; one per app."""

    store: Store
    keys: Keys
    commitments: Commitments
    tournaments: Tournaments
    pars: Pars
    _closed: OrderedDict[str, Standings] = field(default_factory=OrderedDict)
    """Standings of closed tournaments, least recently read first."""

    async def standings(
        self, tournament_id: str, access: Access, *, player: str | None = None
    ) -> Standings:
        """Totals of finished games, best first; a shared rank for equal totals.

        ``player``: also that entrant's finished games, each with its share of the round's
        par, once the tournament has closed (like the export: the games are the closed
        record's). The name is found as names are told apart at entry (:func:`name_key`:
        case, width, confusable spellings), so any spelling of a shown name finds it.
        """
        record = await self.tournaments.readable(tournament_id, access)
        if player is None:
            return await self._kept_standings(record)
        if not Gate.logs_shown(record):  # refused before any reading
            raise conflict(
                "an entrant's games are listed once the tournament has closed (it closes at "
                f"{rfc3339(record.closes_at)})",
                "not-closed",
            )
        try:
            key = name_key(display_name(player))
        except RuleError as error:  # refused as an entry refuses the name: 422, its code
            message = error.message.replace("name:", "player:", 1)
            raise RuleError(error.code, message, field="player") from None
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

    async def _ranked(self, record: TournamentRecord) -> list[StandingLine]:
        """Every entrant's total (an unfinished round counts the worst), best first."""
        lines = await self.store.standings(record.tournament_id)
        worst = worst_round(record.variant, record.options)
        return rank(
            (line.player, line.total + (record.rounds - line.finished) * worst, line.finished)
            for line in lines
        )

    async def closing(self, tournament_id: str) -> Due:
        """What the log keeps of a closed tournament: its rounds' seeds, its settlement.

        Asked by the log's sequencer from the close on; not yet (a later time) until the
        results have settled; nothing for a tournament no longer kept.
        """
        record = await self.store.get_tournament(tournament_id)
        if record is None:
            return Due()
        if not tournament_closed(record):  # asked early (a clock behind): at its close
            return Due(later_ms=record.closes_at * 1000)
        closed_at = record.closed_at if record.closed_at is not None else record.closes_at
        settled = closed_at + SETTLED_AFTER + 1
        if now() < settled:
            return Due(later_ms=settled * 1000)
        totals = {line.name: line.total for line in await self._ranked(record)}
        entries: list[Entry] = [
            RoundReveal(tournament_id, number, seed.hex())
            for number, seed in self.tournaments.round_seeds(record)
        ]
        entries.append(settlement_entry(tournament_id, totals))
        return Due(id_tag(tournament_id), [encode_entry(entry) for entry in entries])

    async def _standings(self, record: TournamentRecord) -> Standings:
        """Totals ranked; after the close, each round's par and each entrant's share of it."""
        tournament_id = record.tournament_id
        ranked = await self._ranked(record)
        pars, pending = await self.pars.known(record, SETTLED_AFTER)
        if pars and not pending:
            ranked = with_par(ranked, pars, record.rounds)
        return Standings(
            tournament_id,
            status_of(record),
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

    async def export(self, tournament_id: str, access: Access) -> AsyncIterator[bytes]:
        """A closed tournament's whole record, as JSON chunks to stream.

        Seeds, standings, pars and keys first (pars still being solved here are waited
        for, up to :data:`~cardproof_service.tournaments.pars.EXPORT_WAIT` seconds; those
        not solved by then are left out), then every finished game (log, total, the
        receipt signed when it ended), read from the store :data:`EXPORT_BATCH` at a time,
        so neither the store, the answer nor the event loop holds them all at once. Every
        check is made before the first chunk: a refusal is a problem answer.
        """
        record = await self.tournaments.readable(tournament_id, access)
        if not Gate.logs_shown(record):
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
                tournament=self.tournaments.view(record, organizer),
                standings=standings.entrants,
                games=[],
                jwks=self.keys.jwks(),
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
        seed = self.commitments.server_seed(round_commitment_id(record.tournament_id, result.round))
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
            issuer=self.keys.issuer,
            player=result.player,
            tournament=record.tournament_id,
        )
        return self.keys.signing.sign(payload)


__all__ = ["EXPORT_BATCH", "SETTLED_AFTER", "Scoreboard"]
