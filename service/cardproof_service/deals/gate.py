"""The gate: what a seat may see and do, decided in one place.

A deal is played from a seat of one of four kinds (:data:`SeatKind`): a casual deal, a
committed one, an async tournament's game and a lockstep round's. Each stands in a phase
(:data:`Phase`): a lockstep seat before its round's start, during a call, past a call's
deadline, after its round, after the close; the others open or closed. What a seat is
shown and what it may do follow from its kind and phase alone, here:

- a view (a deal's state, a move's answer, a resend) shows a lockstep seat no card its
  round has not called: no next card before its call, a reserve face down before the
  start and, should a lockstep deal be open, only each reserve
  column's card that can be taken (:func:`shown`);
- a move is taken from the seat's entrant only, while the tournament is open, and a
  lockstep seat's only at a called index (the store's append checks the call in the
  same step as it appends);
- a whole log (``POST /v1/verify``) plays an unplayed open deal of a casual, committed
  or async seat; a lockstep seat is played one call at a time and never takes one, and
  every other deal takes only the log it was played with (:func:`whole_log`);
- a tournament game's seed, and its entrants' logs, show once the tournament closed
  (:meth:`Gate.logs_shown`).

Every path that reads a deal for a caller (the deal view, moves, resends, whole logs,
receipts) reads it here (:meth:`Gate.reader`, :meth:`Gate.mover`); ``tests/test_gate*``
walk the app's routes and fail on one that reads a deal without the gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import msgspec
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.games import Game
from cardproof.hands import Score
from cardproof.models import DealState, MoveResult
from cardproof_service.deals import endings
from cardproof_service.deals.entrants import require_entrant
from cardproof_service.deals.games import Games, Seat, seat_of
from cardproof_service.plumbing import Keys, Settings, conflict, now, tournament_closed
from cardproof_service.store import DealRecord, RoundState, Store, TournamentRecord

SeatKind = Literal["casual", "committed", "async", "lockstep"]
"""Where a deal is played from: a casual or committed deal, an async or lockstep seat."""
Phase = Literal["open", "before-start", "call", "past-deadline", "round-over", "closed"]
"""Where a seat stands: ``open`` (a deal, an async seat), a lockstep seat before its
round's start, during a call, past its deadline, after its round; ``closed`` (its
tournament)."""
LogUse = Literal["play", "played"]
"""What a whole log does to a deal: ``play`` it (an unplayed open deal), or be compared
with the log it was ``played`` with (every other deal)."""


def seat_kind(record: DealRecord) -> SeatKind:
    """The kind of seat a deal is played from.

    >>> from cardproof_service.store import DealRecord
    >>> base = dict(variant="poker-squares", options={}, commitment_id="c", client_seed="s")
    >>> seat_kind(DealRecord("d", committed=False, created_at=0, **base))
    'casual'
    >>> seat = DealRecord("d", committed=True, created_at=0, tournament="t", lockstep=True, **base)
    >>> seat_kind(seat)
    'lockstep'
    """
    if record.tournament is None:
        return "committed" if record.committed else "casual"
    return "lockstep" if record.lockstep else "async"


@dataclass(frozen=True, slots=True)
class Standing:
    """A seat now: its kind, its phase, the moves made and the last card called to it.

    ``called`` is a lockstep seat's round's last call (-1 before its start; the round's
    turns once it is over); ``None`` for a seat that follows no calls.
    """

    kind: SeatKind
    phase: Phase
    placed: int
    called: int | None = None

    def sees_next(self) -> bool:
        """Whether the card the seat places next shows: always, but in lockstep once called.

        >>> Standing("lockstep", "call", placed=3, called=3).sees_next()
        True
        >>> Standing("lockstep", "call", placed=4, called=3).sees_next()
        False
        >>> Standing("async", "open", placed=4).sees_next()
        True
        """
        return self.called is None or self.placed <= self.called


def phase_of(
    record: DealRecord, tournament: TournamentRecord | None, state: RoundState | None
) -> Phase:
    """The seat's phase, from its tournament (if any) and its round's state (lockstep)."""
    if tournament is not None and tournament_closed(tournament):
        return "closed"
    if state is None or not record.lockstep:
        return "open"
    if state.finished:
        return "round-over"
    if state.started_at is None:
        return "before-start"
    return "past-deadline" if state.now >= state.deadline else "call"


def standing_of(
    record: DealRecord, tournament: TournamentRecord | None, state: RoundState | None
) -> Standing:
    """What the gate knows of a seat, from what the store holds."""
    kind = seat_kind(record)
    called = None
    if kind == "lockstep" and state is not None:
        called = state.turns if state.finished else state.call
    return Standing(kind, phase_of(record, tournament, state), len(record.moves), called)


def shown(view: Any, standing: Standing) -> Any:
    """``view`` as the seat may see it: for a lockstep seat, no card not called yet.

    A lockstep seat sees its next card only once called, and a reserve-poker reserve
    only face down before the start. Were a lockstep deal open (none can be made: a
    tournament whose options could deal one open is refused; one kept from before that
    rule), each reserve column would show only the card that can be taken.
    """
    if standing.kind != "lockstep":
        return view
    called = -1 if standing.called is None else standing.called
    reserve = getattr(view, "reserve", None)
    if reserve is not None:
        if called < 0:
            reserve = tuple((None,) * len(column) for column in reserve)
        elif getattr(view, "version", None) == 5:
            reserve = tuple((None,) * (len(c) - 1) + tuple(c[-1:]) for c in reserve)
        view = msgspec.structs.replace(view, reserve=reserve)
    if getattr(view, "next", None) is not None and not standing.sees_next():
        view = msgspec.structs.replace(view, next=None)
    return view


def answer(game: Game[Any, Any], index: int, standing: Standing) -> MoveResult:
    """The answer to move ``index`` of ``game``, as the seat may see it."""
    return MoveResult(
        index=index,
        finished=game.is_over(),
        view=shown(game.visible(), standing),
        score=game.score() if game.is_complete() else None,
    )


def after_move(seat: Seat | None, moves: int, call: int) -> Standing:
    """A seat's standing after a move the store took (``call``: the round's, after it).

    For the answer of a move played on this process's copy, with no read.
    """
    if seat is None:  # a casual or committed deal: shown alike
        return Standing("casual", "open", moves)
    if not seat.lockstep:
        return Standing("async", "open", moves)
    return Standing("lockstep", "call", moves, call)


def whole_log(record: DealRecord, standing: Standing, information: str) -> LogUse:
    """What a whole log does to the deal; a 409 for a lockstep seat still being played.

    A lockstep seat is played one call at a time: before its game is over no whole log
    is taken, whatever it holds; after, only the log it was played with (its receipt).
    An unplayed open deal of any other seat is played by the log; any other deal takes
    only the log it was played with.
    """
    if standing.kind == "lockstep":
        if record.finished_at is None:
            raise called_one_by_one(standing)
        return "played"
    if information == "hidden" or standing.placed:
        return "played"
    return "play"


def called_one_by_one(standing: Standing) -> ProblemDetailsException:
    """409 ``lockstep-seat``: a whole log for a lockstep seat whose game is not over."""
    return conflict(
        "this is a lockstep round's seat: it is played one called card at a time "
        "(POST /v1/deals/{id}/moves), never by a whole log; once its game is over, its "
        "played log gets its receipt here",
        "lockstep-seat",
        next_index=standing.placed,
    )


@dataclass
class Gate:
    """Every caller's reading of a deal, and its moves, through one door; one per app."""

    store: Store
    keys: Keys
    settings: Settings
    games: Games

    async def reader(self, deal_id: str, authorization: str | None) -> DealRecord:
        """The deal, for a caller who may read it (404; a tournament game: its entrant).

        401/403 as :func:`require_entrant` says, before anything about the game is
        shown; the token may have expired (the tournament closed): reading stays the
        entrant's.
        """
        record = await self.games.record(deal_id)
        self.check_reader(record, authorization)
        return record

    async def seat(self, deal_id: str, authorization: str | None) -> tuple[DealRecord, Seat | None]:
        """The deal and its :class:`Seat`, for a caller who may move on it (see :meth:`mover`)."""
        record = await self.games.record(deal_id)
        return record, await self.mover(record, authorization)

    async def again(self, deal_id: str) -> DealRecord:
        """The deal read again for a caller the gate let in already (it changed meanwhile)."""
        return await self.games.record(deal_id)

    def check_reader(self, record: DealRecord, authorization: str | None) -> None:
        """A tournament game is read (its view, its receipt) with its entrant's token only."""
        if record.tournament is not None:
            require_entrant(
                self.keys.master,
                authorization,
                record.tournament,
                now(),
                record.entrant,
                allow_expired=True,
            )

    async def mover(self, record: DealRecord, authorization: str | None) -> Seat | None:
        """Who may move: for a tournament game, its entrant, while the tournament is open.

        Returns a tournament game's :class:`Seat` (what its next moves check on a cached
        copy); ``None`` for a plain deal. 409 ``closed`` once the tournament closed.
        """
        if record.tournament is None:
            return None
        require_entrant(self.keys.master, authorization, record.tournament, now(), record.entrant)
        tournament = await self.store.get_tournament(record.tournament)
        if tournament is None or tournament_closed(tournament):
            raise tournament_is_closed()
        return seat_of(record, tournament, self.settings.tournament_retention)

    def admits(self, seat: Seat | None, authorization: str | None) -> bool:
        """A move on a cached copy: the seat's entrant (401/403), and not closed by time.

        ``False`` once the closing time has passed: the slow path says so.
        """
        if seat is None:
            return True
        if now() >= seat.closes_at:
            return False
        require_entrant(self.keys.master, authorization, seat.tournament, now(), seat.entrant)
        return True

    async def standing(self, record: DealRecord) -> Standing:
        """The seat as the store has it now (a lockstep seat's round read)."""
        tournament = state = None
        if record.tournament is not None:
            tournament = await self.store.get_tournament(record.tournament)
            if record.lockstep and record.round is not None:
                state = await self.store.round_state(record.tournament, record.round)
        return standing_of(record, tournament, state)

    async def state(self, deal_id: str, authorization: str | None) -> DealState:
        """The deal as its caller may see it now (a tournament game: for its entrant only)."""
        return await self.current_state(await self.reader(deal_id, authorization))

    async def current_state(self, record: DealRecord) -> DealState:
        """A stored deal as its seat may see it: a finished one from its ending, else replayed.

        A finished game answers its stored final view and score, with no replay; a game
        in progress is replayed, off the event loop when its log is long.
        """
        if record.ending is not None:
            final = endings.last_answer(record.ending)
            return self.games.shown(record, final.view, final.score)
        standing = await self.standing(record)
        game = await self.games.replay_off_loop(record)
        score: Score | None = game.score() if game.is_complete() else None
        return self.games.shown(record, shown(game.visible(), standing), score)

    def opened(self, record: DealRecord, game: Game[Any, Any]) -> DealState:
        """A deal just opened, as its seat sees it: a lockstep seat before its round's start.

        Seats are taken only before a round starts (the store refuses one after), so a
        new lockstep seat sees no card until the first call.
        """
        kind = seat_kind(record)
        standing = Standing(kind, "before-start", 0, -1) if kind == "lockstep" else None
        view: Any = game.visible() if standing is None else shown(game.visible(), standing)
        return self.games.shown(record, view, None)

    async def replayed(self, deal_id: str) -> DealState | None:
        """A deal an idempotent request made before, as its seat may see it (None: gone)."""
        record = await self.store.get_deal(deal_id)
        return None if record is None else await self.current_state(record)

    async def resent(self, record: DealRecord, game: Game[Any, Any], index: int) -> MoveResult:
        """The answer to a move resent at ``index`` (``game``: the log up to it)."""
        return answer(game, index, await self.standing(record))

    async def log_use(
        self, record: DealRecord, information: str, authorization: str | None
    ) -> tuple[LogUse, Seat | None]:
        """What a whole log does to ``record`` (read by its caller already), and its seat.

        A log that plays the deal is a move of all its cards: the seat's mover checks
        (its entrant's token, the tournament open) are made first.
        """
        use = whole_log(record, await self.standing(record), information)
        if use == "played":
            return use, None
        return use, await self.mover(record, authorization)

    async def reveals_seed(self, record: DealRecord) -> bool:
        """Whether the deal's seed shows: always, but a tournament's only once it closed."""
        if record.tournament is None:
            return True
        return self.logs_shown(await self.store.get_tournament(record.tournament))

    @staticmethod
    def logs_shown(tournament: TournamentRecord | None) -> bool:
        """Whether a tournament's seeds and its entrants' logs show: once it has closed.

        What the standings of one player and the export ask before reading a result.
        """
        return tournament is None or tournament_closed(tournament)


def tournament_is_closed() -> ProblemDetailsException:
    """409 ``closed``: a move of a tournament game after its tournament closed."""
    return conflict("the tournament is closed: its games are over", "closed")


__all__ = [
    "Gate",
    "LogUse",
    "Phase",
    "SeatKind",
    "Standing",
    "after_move",
    "answer",
    "called_one_by_one",
    "phase_of",
    "seat_kind",
    "shown",
    "standing_of",
    "tournament_is_closed",
    "whole_log",
]
