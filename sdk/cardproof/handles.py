"""The handles a client gives out: games played move by move, and seats in lockstep rounds.

A :class:`Game` (or :class:`AsyncGame`) keeps the log it played and every view it was
shown, so the receipt it fetches is checked against the game really played; a
:class:`Round` (or :class:`AsyncRound`) follows a lockstep round's calls on top of a
game. They live apart from the clients because they hold play state, not requests:
they reach the server only through the few client methods named by
:class:`HandleClient` and :class:`AsyncHandleClient`, which the clients satisfy.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Generic, Literal, Protocol, TypeVar, cast

from cardproof.endpoints import Options
from cardproof.errors import ConflictError
from cardproof.hands import Score
from cardproof.models import (
    Call,
    DealState,
    MoveResult,
    ReceiptResponse,
    RoundCalls,
    RoundStatus,
    View,
)
from cardproof.promises import MoveLike, Played, canonical_move, check_receipt
from cardproof.receipts import JWKS, CommitmentMismatchError, verify_signature

V = TypeVar("V", bound=View)
"""The view a game handle shows: its variant's (``GridView`` for the grid variants...)."""
GridVariantId = Literal["poker-squares", "poker-patience", "serpent-patience"]
"""The variants whose view is a ``GridView``."""
RepeatId = Literal["repeat-poker"]
ReserveId = Literal["reserve-poker"]
SoloDrezId = Literal["solodrez"]


class HandleClient(Protocol):
    """What a :class:`Game` and a :class:`Round` ask of their :class:`~cardproof.client.Client`."""

    def read_deal(self, deal_id: str, *, token: str | None = None) -> DealState: ...

    def play(
        self, deal_id: str, index: int, move: MoveLike, *, token: str | None = None
    ) -> MoveResult: ...

    def receipt(self, deal_id: str, *, token: str | None = None) -> ReceiptResponse: ...

    def jwks(self) -> JWKS: ...

    def round_status(
        self, tournament_id: str, round_number: int, *, token: str | None = None
    ) -> RoundStatus: ...

    def round_calls(
        self,
        tournament_id: str,
        round_number: int,
        *,
        after: int = -1,
        wait: float = 20.0,
        token: str | None = None,
    ) -> RoundCalls: ...


class AsyncHandleClient(Protocol):
    """What an :class:`AsyncGame` and an :class:`AsyncRound` ask of their ``AsyncClient``."""

    async def read_deal(self, deal_id: str, *, token: str | None = None) -> DealState: ...

    async def play(
        self, deal_id: str, index: int, move: MoveLike, *, token: str | None = None
    ) -> MoveResult: ...

    async def receipt(self, deal_id: str, *, token: str | None = None) -> ReceiptResponse: ...

    async def jwks(self) -> JWKS: ...

    async def round_status(
        self, tournament_id: str, round_number: int, *, token: str | None = None
    ) -> RoundStatus: ...

    async def round_calls(
        self,
        tournament_id: str,
        round_number: int,
        *,
        after: int = -1,
        wait: float = 20.0,
        token: str | None = None,
    ) -> RoundCalls: ...


def played_from(state: DealState, options: Options, tournament: str | None = None) -> Played:
    """What the receipt of the game on ``state``'s deal must say, as far as it is known."""
    return Played(
        deal_id=state.deal_id,
        variant=state.variant,
        client_seed=state.client_seed,
        server_seed_hash=state.server_seed_hash,
        options=options,
        moves=state.moves.split(),
        tournament=tournament,
        committed=state.committed_before_client_seed,
    )


def check_variant(actual: str, variant: str | None) -> None:
    """A tournament game asked for as ``variant`` must be of it (the handle is typed so)."""
    if variant is not None and actual != variant:
        raise CommitmentMismatchError("variant", variant, actual)


def seated_deal(error: ConflictError) -> str:
    """The deal of a round the entrant opened already (``round-played``); else re-raise."""
    deal_id = error.body.get("deal_id")
    if error.code != "round-played" or not isinstance(deal_id, str):
        raise error
    return deal_id


class _GameState(Generic[V]):
    """What a game handle knows: the deal, what is visible now, and what it played.

    ``V`` is the variant's view: :meth:`Client.deal` on a literal variant id gives a
    handle whose ``visible`` is that view (``GridView`` for poker-squares), so a script
    reads ``game.visible.next`` with no narrowing of its own.
    """

    def __init__(
        self, state: DealState, token: str | None = None, played: Played | None = None
    ) -> None:
        self.deal_id = state.deal_id
        self.token = token
        """A tournament game's entrant token: its moves need it."""
        self.variant = state.variant
        self.state = state
        self.visible: V = cast(V, state.view)
        """What the player may see now (the layout and the card to place)."""
        self.next_index = state.next_index
        self.finished = state.finished
        self.score: Score | None = state.score
        self.played = played or played_from(state, None)
        """The log as this handle played it: its receipt is checked against it."""
        self.played.views[state.next_index] = state.view

    def _update(self, move: MoveLike, result: MoveResult) -> MoveResult:
        if result.index == len(self.played.moves):
            self.played.moves.append(canonical_move(self.variant, move, result.index))
        self.played.views[result.index + 1] = result.view
        self.visible = cast(V, result.view)
        self.next_index = result.index + 1
        self.finished = result.finished
        self.score = result.score
        return result

    def _adopt(self, state: DealState) -> None:
        """The deal as the server has it now: moves placed for the player join the log.

        In a lockstep round a card not placed by its deadline is placed for the player;
        the receipt lists those moves (``auto_placed``), and the log must hold them.
        """
        known = self.played.moves
        moves = state.moves.split()
        if moves[: len(known)] != known:
            raise CommitmentMismatchError("moves", " ".join(known), state.moves)
        known.extend(moves[len(known) :])
        self.played.views[state.next_index] = state.view
        self.state = state
        self.visible = cast(V, state.view)
        self.next_index = state.next_index
        self.finished = state.finished
        self.score = state.score

    def _checked(self, response: ReceiptResponse, jwks: JWKS) -> ReceiptResponse:
        verify_signature(response.receipt, jwks)  # the server's own key signed it
        check_receipt(response, self.played)
        if self.score is not None and response.payload.score != self.score:
            raise CommitmentMismatchError("score", self.score, response.payload.score)
        return response


class Game(_GameState[V]):
    """A deal being played through a :class:`Client`, one move at a time."""

    def __init__(
        self,
        client: HandleClient,
        state: DealState,
        token: str | None = None,
        played: Played | None = None,
    ) -> None:
        """A handle on ``state``'s deal (see :meth:`Client.deal`, :meth:`Client.play_round`)."""
        super().__init__(state, token, played)
        self._client = client

    def play(self, move: MoveLike) -> MoveResult:
        """Play the next move; a retried request gets the same answer."""
        result = self._client.play(self.deal_id, self.next_index, move, token=self.token)
        return self._update(move, result)

    def receipt(self) -> ReceiptResponse:
        """The signed receipt, once the game is over, checked against the game played.

        Its payload must be its token's, and name this deal, its committed seed hash,
        client seed, variant, options, log and score; once the seed is revealed, the
        deck and the score are replayed too, and every view shown during play compared
        with the deck. Its signature is checked against the server's key set. A receipt
        must reveal its seed, unless its tournament is still open (then the views are
        checked when :meth:`Client.tournament` sees the seeds revealed). Else
        :class:`~cardproof.receipts.CommitmentMismatchError` (or
        :class:`~cardproof.receipts.ReceiptError` for a receipt that does not verify).
        """
        response = self._client.receipt(self.deal_id, token=self.token)
        return self._checked(response, self._client.jwks())


class AsyncGame(_GameState[V]):
    """A deal being played through an :class:`AsyncClient`."""

    def __init__(
        self,
        client: AsyncHandleClient,
        state: DealState,
        token: str | None = None,
        played: Played | None = None,
    ) -> None:
        """A handle on ``state``'s deal (see :meth:`AsyncClient.deal`, ``play_round``)."""
        super().__init__(state, token, played)
        self._client = client

    async def play(self, move: MoveLike) -> MoveResult:
        """Play the next move; a retried request gets the same answer."""
        result = await self._client.play(self.deal_id, self.next_index, move, token=self.token)
        return self._update(move, result)

    async def receipt(self) -> ReceiptResponse:
        """The signed receipt, checked as :meth:`Game.receipt` checks it."""
        response = await self._client.receipt(self.deal_id, token=self.token)
        return self._checked(response, await self._client.jwks())


class _Seat:
    """What both round handles share: the round, the game, and the calls seen."""

    def __init__(self, tournament_id: str, round_number: int) -> None:
        self.tournament_id = tournament_id
        self.round = round_number
        self.call: Call | None = None
        """The call the player is to place now, once :meth:`calls` has yielded it."""
        self._after = -1
        """The index of the last call seen."""

    def _news(self, answer: RoundCalls, next_index: int) -> Call | None:
        """The call of a long poll's answer that may be this seat's to place.

        The game is then read again: cards may have been placed for the player meanwhile.
        """
        for call in answer.calls:
            self._after = max(self._after, call.index)
        current = answer.calls[-1] if answer.calls else None
        return current if current is not None and current.index >= next_index else None

    def _placeable(self, call: Call, game: _GameState[View]) -> bool:
        """Whether ``call`` is the card ``game`` (read again) places next: it is yielded."""
        if game.finished or call.index != game.next_index:
            return False
        self.call = call
        return True

    @staticmethod
    def _placed_for_you(error: ConflictError) -> bool:
        return error.code in {"auto-placed", "deadline-passed"}


class Round(_Seat):
    """An entrant's seat in a lockstep round, on a :class:`Client`.

    ``calls()`` waits for each card called to this seat (a long poll) and yields it once
    the game shows it; ``play(move)`` places it. A card not placed by its deadline is
    placed for the player by the server (the first legal move), and the game follows.
    """

    def __init__(
        self, client: HandleClient, tournament_id: str, round_number: int, game: Game[View]
    ) -> None:
        """A seat whose game is ``game`` (see :meth:`Client.join_round`)."""
        super().__init__(tournament_id, round_number)
        self._client = client
        self.game = game

    def sync(self) -> DealState:
        """Read the game again (after a call, or a placement made for the player)."""
        state = self._client.read_deal(self.game.deal_id, token=self.game.token)
        self.game._adopt(state)
        return state

    def status(self) -> RoundStatus:
        """The round now."""
        return self._client.round_status(self.tournament_id, self.round, token=self.game.token)

    def calls(self, *, wait: float = 20.0) -> Iterator[Call]:
        """Each call this seat is to place, as it comes, until the game is over."""
        self._after = self.game.next_index - 1
        while not self.game.finished:
            answer = self._client.round_calls(
                self.tournament_id, self.round, after=self._after, wait=wait, token=self.game.token
            )
            current = self._news(answer, self.game.next_index)
            if current is not None:
                self.sync()
                if self._placeable(current, self.game):
                    yield current
            if answer.status.status == "finished" and not self.game.finished:
                self.sync()

    def play(self, move: MoveLike) -> MoveResult | None:
        """Place the called card; ``None`` if its deadline passed and it was placed for you."""
        try:
            return self.game.play(move)
        except ConflictError as error:
            if not self._placed_for_you(error):
                raise
            self.sync()
            return None


class AsyncRound(_Seat):
    """An entrant's seat in a lockstep round, on an :class:`AsyncClient` (see :class:`Round`)."""

    def __init__(
        self,
        client: AsyncHandleClient,
        tournament_id: str,
        round_number: int,
        game: AsyncGame[View],
    ) -> None:
        """A seat whose game is ``game`` (see :meth:`AsyncClient.join_round`)."""
        super().__init__(tournament_id, round_number)
        self._client = client
        self.game = game

    async def sync(self) -> DealState:
        """Read the game again (see :meth:`Round.sync`)."""
        state = await self._client.read_deal(self.game.deal_id, token=self.game.token)
        self.game._adopt(state)
        return state

    async def status(self) -> RoundStatus:
        """The round now."""
        return await self._client.round_status(
            self.tournament_id, self.round, token=self.game.token
        )

    async def calls(self, *, wait: float = 20.0) -> AsyncIterator[Call]:
        """Each call this seat is to place, as it comes (see :meth:`Round.calls`)."""
        self._after = self.game.next_index - 1
        while not self.game.finished:
            answer = await self._client.round_calls(
                self.tournament_id, self.round, after=self._after, wait=wait, token=self.game.token
            )
            current = self._news(answer, self.game.next_index)
            if current is not None:
                await self.sync()
                if self._placeable(current, self.game):
                    yield current
            if answer.status.status == "finished" and not self.game.finished:
                await self.sync()

    async def play(self, move: MoveLike) -> MoveResult | None:
        """Place the called card; ``None`` if it was placed for you (see :meth:`Round.play`)."""
        try:
            return await self.game.play(move)
        except ConflictError as error:
            if not self._placed_for_you(error):
                raise
            await self.sync()
            return None
