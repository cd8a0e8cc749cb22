"""A deal's game: its deck, its replay (off the event loop when long), what the player sees.

A game's state is always a replay of its stored log on the deck its seeds derive; no
state is kept anywhere else. This module owns that replay and where it runs: work sized
small by what it holds (moves, seats, a signature) runs inline, since a trip to a thread
costs more than a 25-move replay; larger work runs in at most :data:`REPLAY_THREADS`
threads, so no request holds the event loop for more than about a millisecond. It owns
the deal's state and a move's answer as the game shows them, and this process's cache of
the games it played last. What a seat may see of them is the gate's to decide
(:mod:`cardproof_service.deals.gate`).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar, TypeVarTuple

from cardproof.deal import seed_hash
from cardproof.games import Game, replay_log, variant
from cardproof.hands import Score
from cardproof.models import DealState, MoveResult, View
from cardproof_service.deals.commitments import Commitments
from cardproof_service.plumbing import Keys, not_found, now, tournament_ttl
from cardproof_service.store import DealRecord, Store, TournamentRecord

REPLAY_ON_LOOP = 120
"""Work that may run on the event loop, counted in moves replayed: 120 moves of the
costliest variant per move (solodrez), with its deck and a signature, take about 0.3 ms
of CPU on a quiet machine and 0.7 ms on a slow one beside two CPU hogs, where 200 took
1.2 (``tests/test_inline_work.py`` holds it under one). A whole poker-squares, patience
or reserve game stays well within it. Larger work runs in the replay threads, whose
trip costs more than a small replay (issue 42)."""
SIGNATURE_MOVES = 10
"""What an Ed25519 signature (about 16 us) counts for in :data:`REPLAY_ON_LOOP`: the
replay of about ten moves."""
REPLAY_THREADS = 2

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def final_total(game: Game[Any, Any]) -> int | None:
    """A finished, scored game's total (what a tournament's standings count), else None."""
    return game.score().total if game.is_over() and game.is_complete() else None


def next_card(game: Game[Any, Any]) -> str | None:
    """The card the game places next, if its view names one (a common card to call)."""
    upcoming = getattr(game.visible(), "next", None)
    return upcoming if isinstance(upcoming, str) else None


def move_result(game: Game[Any, Any], index: int) -> MoveResult:
    """The answer to move ``index`` as the game shows it (a seat sees it through the gate)."""
    return MoveResult(
        index=index,
        finished=game.is_over(),
        view=game.visible(),  # type: ignore[arg-type]
        score=game.score() if game.is_complete() else None,
    )


@dataclass(frozen=True, slots=True)
class Seat:
    """A tournament game's facts a move checks without reading the store.

    Whose game it is (the token must name ``entrant`` of ``tournament``), whether it
    follows a lockstep round, and the tournament's closing and expiry times; a close by
    its organizer is checked by the store's append itself.
    """

    tournament: str
    entrant: str
    round: int
    lockstep: bool
    closes_at: int
    expires_at: int


def seat_of(record: DealRecord, tournament: TournamentRecord, retention: int) -> Seat:
    """A tournament game's :class:`Seat`, from its record and its tournament's."""
    return Seat(
        tournament.tournament_id,
        record.entrant or "",
        record.round or 0,
        record.lockstep,
        tournament.closes_at,
        now() + tournament_ttl(tournament, retention),
    )


@dataclass(slots=True)
class Cached:
    """A game this process played, with its tournament seat if it is a tournament's."""

    game: Game[Any, Any]
    seat: Seat | None = None
    owner: str | None = None
    """The client whose games in flight it counts among (see ``max_games_in_flight``)."""
    record: DealRecord | None = None
    """The deal as read when the copy was made: what a last move's receipt names (its
    seeds, player, cards placed for the player), so that it needs no read either."""


class GameCache:
    """The games this process played last, by deal id (least recently used goes first).

    Only a speed-up: a copy is used only when its move count is the next index, and the
    store's append refuses the move if another replica (or a placement for the player)
    moved since, or if the game's tournament was closed.
    """

    def __init__(self, size: int = 4096) -> None:
        """A cache of at most ``size`` games."""
        self._games: OrderedDict[str, Cached] = OrderedDict()
        self._size = size

    def get(self, deal_id: str) -> Cached | None:
        """The cached game, marked as recently used."""
        cached = self._games.get(deal_id)
        if cached is not None:
            self._games.move_to_end(deal_id)
        return cached

    def put(
        self,
        deal_id: str,
        game: Game[Any, Any],
        seat: Seat | None = None,
        owner: str | None = None,
        record: DealRecord | None = None,
    ) -> None:
        """Cache ``game`` and the ``record`` it came from; the least recently used goes."""
        self._games[deal_id] = Cached(game, seat, owner, record)
        self._games.move_to_end(deal_id)
        if len(self._games) > self._size:
            self._games.popitem(last=False)

    def pop(self, deal_id: str, default: None = None) -> Cached | None:
        """Forget a game (its copy is stale)."""
        return self._games.pop(deal_id, default)


@dataclass
class Games:
    """Stored deals as games: read, replayed and shown to their player; one per app."""

    store: Store
    keys: Keys
    commitments: Commitments
    cache: GameCache = field(default_factory=GameCache)
    replays: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(REPLAY_THREADS, "cardproof-replay")
    )
    """Where long replays run: off the event loop, at most ``REPLAY_THREADS`` at once."""

    async def record(self, deal_id: str) -> DealRecord:
        """The stored deal (404 ``unknown-deal`` when there is none, or it expired)."""
        record = await self.store.get_deal(deal_id)
        if record is None:
            raise not_found(f"no deal {deal_id!r} (it may have expired)", "unknown-deal")
        return record

    def cards_of(self, record: DealRecord) -> tuple[Any, ...]:
        """The deal's cards in dealing order, derived from its seeds."""
        cls = variant(record.variant)
        options = cls.parse_options(record.options)
        seed = self.commitments.server_seed(record.commitment_id)
        return cls.deal_cards(seed, record.client_seed, options)

    def replay(self, record: DealRecord, upto: int | None = None) -> Game[Any, Any]:
        """The game after its stored log (or its first ``upto`` moves)."""
        moves = record.moves if upto is None else record.moves[:upto]
        cards = self.cards_of(record)
        return replay_log(record.variant, cards, record.options, " ".join(moves), dealt=True)

    async def sized(self, moves: int, work: Callable[[*Ts], T], *args: *Ts) -> T:
        """``work(*args)``, inline or in the bounded replay threads, by its size.

        ``moves`` is the work counted in moves replayed: at most :data:`REPLAY_ON_LOOP`
        runs inline, more in a replay thread.
        """
        if moves <= REPLAY_ON_LOOP:
            return work(*args)
        return await asyncio.get_running_loop().run_in_executor(self.replays, work, *args)

    async def replay_off_loop(self, record: DealRecord, upto: int | None = None) -> Game[Any, Any]:
        """:meth:`replay`, in the bounded replay threads when the log is long."""
        moves = len(record.moves) if upto is None else min(upto, len(record.moves))
        return await self.sized(moves, self.replay, record, upto)

    def shown(self, record: DealRecord, view: View, score: Score | None) -> DealState:
        """The deal's state showing ``view`` and ``score``."""
        return DealState(
            deal_id=record.deal_id,
            variant=record.variant,
            options=record.options,
            server_seed_hash=seed_hash(self.commitments.server_seed(record.commitment_id)),
            client_seed=record.client_seed,
            committed_before_client_seed=record.committed,
            next_index=len(record.moves),
            finished=record.finished_at is not None,
            moves=" ".join(record.moves),
            view=view,
            score=score,
        )


__all__ = [
    "REPLAY_ON_LOOP",
    "REPLAY_THREADS",
    "SIGNATURE_MOVES",
    "Cached",
    "GameCache",
    "Games",
    "Seat",
    "final_total",
    "move_result",
    "next_card",
    "seat_of",
]
