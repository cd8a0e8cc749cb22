"""Play: one move at a time, appended only at the next index, a resend answered the same.

The fast path plays on this process's copy of the game and appends in one store step;
the append script refuses it if the copy is stale (another replica moved, or a late
card was placed for the player) or if the game's tournament closed, and then the slow
path reads the deal and decides. A game's last move signs its receipt in the same step
(:mod:`cardproof_service.deals.receipts`). Long replays run off the event loop
(:mod:`cardproof_service.deals.games`). A lockstep seat's move after its card's deadline has
the round's late cards placed (:class:`LatePlacer`, which the lockstep rounds are): play
knows nothing else of rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.errors import IllegalMove
from cardproof.games import Game, variant
from cardproof.models import MoveObject, MoveRequest, MoveResult, check_move_text
from cardproof_service.deals import endings
from cardproof_service.deals.games import Games, Seat, final_total, move_result, next_card
from cardproof_service.deals.gate import Gate, after_move, answer, tournament_is_closed
from cardproof_service.deals.receipts import Receipts
from cardproof_service.plumbing import GAMES_FINISHED, Settings, conflict, not_found, now
from cardproof_service.store import DealRecord, OpenTournament, Placement, Store


class LatePlacer(Protocol):
    """Who places a lockstep round's late cards when a move comes after its deadline."""

    async def place_late(self, seat: DealRecord) -> None:
        """Place the late cards of ``seat``'s round now."""

    def placed(self, tournament_id: str, number: int, deal_id: str) -> None:
        """A player placed their own card: none is to be placed for them at this deadline."""


def open_of(seat: Seat | None) -> OpenTournament | None:
    """What a player's write to a tournament game needs of the store: its tournament open."""
    return None if seat is None else OpenTournament(seat.tournament, seat.closes_at)


def seat_placement(seat: Seat | None, game: Game[Any, Any]) -> Placement | None:
    """A lockstep seat's move as its round places it (the next call's card); else ``None``."""
    if seat is None or not seat.lockstep:
        return None
    return Placement(seat.tournament, seat.round, "player", (), next_card(game))


def not_called(index: int, call: int) -> ProblemDetailsException:
    """409: a lockstep move for a card the round has not called yet."""
    where = "the round has not started" if call < 0 else f"the round has called card {call}"
    return conflict(
        f"move {index} waits for its card to be called: {where}; every seat places a card "
        "before the next is called",
        "not-called",
        move_index=index,
        call=call,
    )


def placed_for_you(record: DealRecord, index: int) -> ProblemDetailsException:
    """409: the card of move ``index`` was placed for the player when its deadline passed."""
    placed = record.moves[index]
    return conflict(
        f"move {index} was placed for you at {placed} (the first legal move) when its "
        "card's deadline passed",
        "auto-placed",
        move_index=index,
        placed=placed,
    )


def read_move(cls: type[Game[Any, Any]], request: MoveRequest) -> Any:
    """The move a request carries, parsed by its variant (400 if it cannot be read)."""
    if isinstance(request.move, MoveObject):
        return cls.move_from_object(request.move, request.index)
    return cls.move_from_text(check_move_text(request.move, "move"), request.index)


@dataclass
class Play:
    """Moves on stored deals; one per app."""

    store: Store
    settings: Settings
    games: Games
    gate: Gate
    receipts: Receipts
    late: LatePlacer | None = None
    """The lockstep rounds: a late move has its round's late cards placed by them."""

    async def play(
        self, deal_id: str, request: MoveRequest, authorization: str | None = None
    ) -> MoveResult:
        """Append one move at ``request.index``; a resent move gets the same answer.

        A tournament game's cached copy keeps its :class:`Seat`: the entrant's token
        (``authorization``) and the closing time are checked on it, before the move is
        read. A last move signs its receipt on the copy's record (or takes the slow path
        when the copy has none).
        """
        index = request.index
        cache = self.games.cache
        cached = cache.get(deal_id)
        if cached is not None and index == len(cached.game.moves) and not cached.game.is_over():
            game: Game[Any, Any] | None = cached.game
            seat = cached.seat
            ttl = self.keep_for(seat)
            if not self.gate.admits(seat, authorization):
                game = None  # closed by time: the slow path says so
            if game is not None:
                move = read_move(type(game), request)
                try:
                    game.play(move)
                except IllegalMove:
                    game = None  # maybe only illegal on a stale copy: let the slow path judge
            record = cached.record
            if game is not None and (not game.is_over() or record is not None):
                cache.pop(deal_id)  # back in the cache only once the store took it
                placement = seat_placement(seat, game)
                finished_at = ending = None
                if game.is_over() and record is not None:  # the last: its receipt signed here
                    finished_at = now()
                    last = move_result(game, index)
                    ending = self.receipts.ending(record, game, last, finished_at)
                outcome = await self.store.append_move(
                    deal_id,
                    index,
                    game.move_text(move),
                    finished_at,
                    ttl,
                    final_total(game) if finished_at is not None else None,
                    ending,
                    placement=placement,
                    open_tournament=open_of(seat),
                    owner=cached.owner,
                    tournament=seat.tournament if seat is not None else None,
                )
                if outcome.outcome == "appended":
                    self._placed(seat, deal_id)
                    if finished_at is not None:
                        GAMES_FINISHED.labels(game.id).inc()
                    else:
                        cache.put(deal_id, game, seat, cached.owner, record)
                    return answer(game, index, after_move(seat, index + 1, outcome.call))
            cache.pop(deal_id)
        return await self._play_slowly(deal_id, request, authorization)

    def _placed(self, seat: Seat | None, deal_id: str) -> None:
        """A lockstep seat's own move was stored: the rounds need not place its card."""
        if seat is not None and seat.lockstep and self.late is not None:
            self.late.placed(seat.tournament, seat.round, deal_id)

    def keep_for(self, seat: Seat | None) -> int:
        """Seconds a deal is kept after a move: the deal TTL, or its tournament's lifetime."""
        return self.settings.deal_ttl if seat is None else max(1, seat.expires_at - now())

    async def _play_slowly(
        self, deal_id: str, request: MoveRequest, authorization: str | None
    ) -> MoveResult:
        """The move judged on the stored deal: resent, conflicting, late, or appended."""
        record, seat = await self.gate.seat(deal_id, authorization)
        ttl = self.keep_for(seat)
        cls = variant(record.variant)
        index = request.index
        move = read_move(cls, request)
        text = cls.move_text(move)
        for _ in range(2):  # a second pass only if another request appended meanwhile
            if index < len(record.moves):
                return await self._resent(record, index, text)
            if record.finished_at is not None:
                raise conflict("the game is over", "game-over", move_index=index)
            if index > len(record.moves):
                raise conflict(
                    f"move {index} is not next: the next index is {len(record.moves)}",
                    "wrong-index",
                    move_index=index,
                    next_index=len(record.moves),
                )
            game = await self.games.replay_off_loop(record)
            game.play(move)  # an illegal move raises with move_index == index
            finished_at = now() if game.is_over() else None
            ending = None
            if finished_at is not None:
                ending = self.receipts.ending(record, game, move_result(game, index), finished_at)
            placement = seat_placement(seat, game)
            outcome = await self.store.append_move(
                deal_id,
                index,
                text,
                finished_at,
                ttl,
                final_total(game),
                ending,
                placement,
                open_of(seat),
                owner=record.owner,
                tournament=record.tournament,
            )
            if outcome.outcome == "appended":
                self._placed(seat, deal_id)
                if game.is_over():
                    GAMES_FINISHED.labels(game.id).inc()
                else:
                    self.games.cache.put(deal_id, game, seat, record.owner, record)
                return answer(game, index, after_move(seat, index + 1, outcome.call))
            if outcome.outcome == "missing":
                raise not_found(f"no deal {deal_id!r} (it may have expired)", "unknown-deal")
            if outcome.outcome == "closed":
                raise tournament_is_closed()
            if outcome.outcome == "not-called":
                raise not_called(index, outcome.call)
            if outcome.outcome in {"late", "early"} and self.late is not None:
                await self.late.place_late(record)
                record = await self.gate.again(deal_id)
                if index < len(record.moves) and index in record.auto_placed:
                    raise placed_for_you(record, index)
                raise conflict(
                    f"move {index} came after its card's deadline: the card is being placed "
                    "for you",
                    "deadline-passed",
                    move_index=index,
                )
            record = await self.gate.again(deal_id)
        raise conflict("the deal changed while this move was checked; send it again", "retry")

    async def _resent(self, record: DealRecord, index: int, text: str) -> MoveResult:
        """The answer to a move at an index already played: the first answer, if the same.

        A card placed for the player, or another move there, is a 409; the same move
        resent is acknowledged (a finished game's first attempt may not have taken it out
        of its owner's games in flight) and answered as it was.
        """
        if index in record.auto_placed:
            raise placed_for_you(record, index)
        if record.moves[index] != text:
            raise conflict(
                f"move {index} is {record.moves[index]}, not {text}: the first one stands",
                "move-conflict",
                move_index=index,
            )
        finished_by = record.owner if record.finished_at is not None else None
        await self.store.confirm_deal(record.deal_id, finished_by)
        if index == len(record.moves) - 1 and record.ending is not None:
            return endings.last_answer(record.ending)  # the last: as it was
        game = await self.games.replay_off_loop(record, index + 1)
        return await self.gate.resent(record, game, index)


__all__ = [
    "LatePlacer",
    "Play",
    "not_called",
    "open_of",
    "placed_for_you",
    "read_move",
    "seat_placement",
]
