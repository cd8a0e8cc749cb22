"""The asyncio client: :class:`AsyncClient`, the twin of :class:`~cardproof.client.Client`.

It has the sync client's methods, awaited, on the same request core
(:class:`~cardproof.core.RequestCore`) and the same endpoints
(:mod:`cardproof.endpoints`); only the I/O differs (``httpx.AsyncClient`` and
``asyncio.sleep``). It lives in a module of its own so each client reads on its own.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal, overload

import httpx

from cardproof import endpoints
from cardproof.core import RequestCore
from cardproof.endpoints import ApiCall, CardLike, Moment, Options, T
from cardproof.errors import ConflictError, NotFoundError
from cardproof.games import GridView, ReserveView, RowsView, SoloDrezView
from cardproof.handles import (
    AsyncGame,
    AsyncRound,
    GridVariantId,
    RepeatId,
    ReserveId,
    SoloDrezId,
    check_variant,
    played_from,
    seated_deal,
)
from cardproof.hands import Score
from cardproof.models import (
    Commitment,
    DealState,
    Entry,
    Health,
    HindsightSolution,
    MoveResult,
    Readiness,
    ReceiptResponse,
    RoundCalls,
    RoundStatus,
    SerpentSolution,
    SoloDrezSolution,
    Standings,
    Tournament,
    TournamentCreated,
    TournamentExport,
    TournamentList,
    VariantInfo,
    VerifyResult,
    View,
)
from cardproof.promises import MoveLike, TournamentPromises, check_deal
from cardproof.receipts import JWKS, Expected, ReceiptKind, VerifiedReceipt, verify_receipt
from cardproof.tlog.entries import encode_entry, receipt_entry
from cardproof.tlog.inclusion import LogProof
from cardproof.tlog.tree import leaf_hash
from cardproof.tournaments import Payment, SettlementPage
from cardproof.transport import exchange_async
from cardproof.version import DEFAULT_BASE_URL


class AsyncClient:
    """The asyncio twin of :class:`Client`: the same methods, awaited."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        backoff: float = 0.25,
        max_backoff: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        """Settings are keyword-only; ``http_client`` replaces the default transport."""
        self._core = RequestCore(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient()
        self._promises = TournamentPromises()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection pool (only if this client created it)."""
        if self._owns_http:
            await self._http.aclose()

    async def _send(self, call: ApiCall[T]) -> T:
        args = self._core.request_args(call)
        return await exchange_async(
            self._http,
            lambda: self._http.build_request(**args),
            self._core,
            limit=call.limit,
            seconds=self._core.timeout + call.wait,
            answer=lambda response, content: self._core.decode(response, content, call.result),
        )

    async def variants(self) -> list[VariantInfo]:
        """Every variant the server knows."""
        return await self._send(endpoints.variants())

    async def score(
        self, variant: str, layout: Sequence[Sequence[CardLike]], *, options: Options = None
    ) -> Score:
        """Score a finished 5x5 layout."""
        return await self._send(endpoints.score(variant, layout, options))

    async def verify(
        self,
        variant: str,
        moves: str | Sequence[MoveLike],
        *,
        cards: Sequence[CardLike] | None = None,
        deal_id: str | None = None,
        server_seed: str | None = None,
        client_seed: str | None = None,
        options: Options = None,
    ) -> VerifyResult:
        """Replay and score a complete log on a deal given in exactly one form."""
        deal = endpoints.deal_form(cards, deal_id, server_seed, client_seed)
        return await self._send(endpoints.verify(variant, moves, deal, options))

    @overload
    async def solve(  # type: ignore[overload-overlap]  # the literal is checked first
        self,
        variant: Literal["solodrez"],
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> SoloDrezSolution: ...

    @overload
    async def solve(  # type: ignore[overload-overlap]  # the literals are checked first
        self,
        variant: Literal["poker-squares", "poker-patience"],
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> HindsightSolution: ...

    @overload
    async def solve(
        self,
        variant: str,
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> SerpentSolution: ...

    async def solve(
        self,
        variant: str,
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> SerpentSolution | SoloDrezSolution | HindsightSolution:
        """Solve a known deal: par, hindsight par with its bound, or a solodrez search.

        serpent-patience: the exact par; poker-squares and poker-patience: the best grid
        found and a proven upper bound; solodrez: won, lost or unknown. ``budget``: seconds
        a search may take (server default 2, at most 10).
        """
        answer: SerpentSolution | SoloDrezSolution | HindsightSolution = await self._send(
            endpoints.solve(variant, cards, options, budget)
        )
        return answer

    async def commit(self) -> Commitment:
        """A fresh commitment to a server seed."""
        return await self._send(endpoints.commit())

    @overload
    async def deal(
        self,
        variant: GridVariantId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> AsyncGame[GridView]: ...

    @overload
    async def deal(
        self,
        variant: RepeatId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> AsyncGame[RowsView]: ...

    @overload
    async def deal(
        self,
        variant: ReserveId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> AsyncGame[ReserveView]: ...

    @overload
    async def deal(
        self,
        variant: SoloDrezId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> AsyncGame[SoloDrezView]: ...

    @overload
    async def deal(
        self,
        variant: str,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> AsyncGame[View]: ...

    async def deal(
        self,
        variant: str,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> AsyncGame[Any]:
        """Open a deal to play move by move, checked as :meth:`Client.deal` checks it."""
        if commitment is None and committed:
            commitment = await self.commit()
        seed = client_seed if client_seed is not None else secrets.token_urlsafe(16)
        commitment_id = None if commitment is None else commitment.commitment_id
        state = await self._send(endpoints.open_deal(variant, options, commitment_id, seed))
        check_deal(
            state, variant_id=variant, options=options, client_seed=seed, commitment=commitment
        )
        return AsyncGame[Any](self, state, played=played_from(state, options))

    async def read_deal(self, deal_id: str, *, token: str | None = None) -> DealState:
        """A deal as its player may see it now (a tournament game's: with its ``token``)."""
        return await self._send(endpoints.read_deal(deal_id, token))

    async def play(
        self, deal_id: str, index: int, move: MoveLike, *, token: str | None = None
    ) -> MoveResult:
        """Play ``move`` as move ``index`` of a deal (a tournament game's: with its ``token``)."""
        return await self._send(endpoints.play(deal_id, index, move, token))

    async def receipt(self, deal_id: str, *, token: str | None = None) -> ReceiptResponse:
        """The signed receipt of a finished deal (see :meth:`Client.receipt`)."""
        return await self._send(endpoints.receipt(deal_id, token))

    async def create_tournament(
        self,
        name: str,
        variant: str,
        *,
        rounds: int,
        opens_at: Moment,
        closes_at: Moment,
        options: Options = None,
        max_entrants: int | None = None,
        entry: Literal["public", "invite"] = "public",
        invites: int | None = None,
        format: Literal["lockstep", "async"] | None = None,
        card_seconds: int | None = None,
        round_starts: Sequence[Moment] | None = None,
    ) -> TournamentCreated:
        """Create a tournament as this client's organizer (see :meth:`Client.create_tournament`)."""
        call = endpoints.create_tournament(
            name,
            variant,
            rounds,
            opens_at,
            closes_at,
            options,
            max_entrants,
            entry,
            invites,
            format,
            card_seconds,
            round_starts,
        )
        return await self._send(call)

    async def tournament(
        self, tournament_id: str, *, invite_code: str | None = None, token: str | None = None
    ) -> Tournament:
        """A tournament, checked as :meth:`Client.tournament` checks it."""
        found = await self._send(endpoints.tournament(tournament_id, invite_code, token))
        self._promises.check_tournament(found)
        return found

    async def tournaments(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> TournamentList:
        """A page of the organizer's own tournaments (see :meth:`Client.tournaments`)."""
        return await self._send(endpoints.tournaments(limit, cursor))

    async def create_invites(self, tournament_id: str, count: int = 1) -> list[str]:
        """``count`` fresh single-use invite codes (the organizer's ``api_key``)."""
        return (await self._send(endpoints.invite(tournament_id, count))).codes

    async def enter(
        self, tournament_id: str, name: str, *, invite_code: str | None = None
    ) -> Entry:
        """Enter ``name`` (see :meth:`Client.enter`): the round hashes shown are kept."""
        entry = await self._send(endpoints.enter(tournament_id, name, invite_code))
        self._promises.keep_entry(entry)
        return entry

    async def start_round(self, tournament_id: str, round_number: int) -> RoundStatus:
        """Start a lockstep round now (see :meth:`Client.start_round`)."""
        return await self._send(endpoints.start_round(tournament_id, round_number))

    async def round_status(
        self,
        tournament_id: str,
        round_number: int,
        *,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> RoundStatus:
        """A lockstep round now (see :meth:`Client.round_status`)."""
        call = endpoints.round_status(tournament_id, round_number, invite_code, token)
        return await self._send(call)

    async def round_calls(
        self,
        tournament_id: str,
        round_number: int,
        *,
        after: int = -1,
        wait: float = 20.0,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> RoundCalls:
        """The calls after ``after`` (see :meth:`Client.round_calls`)."""
        call = endpoints.round_calls(tournament_id, round_number, after, wait, invite_code, token)
        return await self._send(call)

    async def join_round(self, tournament_id: str, round_number: int, token: str) -> AsyncRound:
        """Take a seat in a lockstep round (see :meth:`Client.join_round`).

        ``async for call in seat.calls(): await seat.play(move)``.
        """
        try:
            game = await self.play_round(tournament_id, round_number, token)
        except ConflictError as error:
            state = await self.read_deal(seated_deal(error), token=token)
            played = self._promises.resume(tournament_id, round_number, state)
            game = AsyncGame(self, state, token, played=played)
        return AsyncRound(self, tournament_id, round_number, game)

    @overload
    async def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: GridVariantId
    ) -> AsyncGame[GridView]: ...

    @overload
    async def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: RepeatId
    ) -> AsyncGame[RowsView]: ...

    @overload
    async def play_round(
        self,
        tournament_id: str,
        round_number: int,
        token: str,
        *,
        variant: ReserveId,
    ) -> AsyncGame[ReserveView]: ...

    @overload
    async def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: SoloDrezId
    ) -> AsyncGame[SoloDrezView]: ...

    @overload
    async def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: None = None
    ) -> AsyncGame[View]: ...

    async def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: str | None = None
    ) -> AsyncGame[Any]:
        """Open the entrant's game on a round (see :meth:`Client.play_round`)."""
        if self._promises.round_hash(tournament_id, round_number) is None or variant is not None:
            found = await self.tournament(tournament_id, token=token)
            check_variant(found.variant, variant)  # before the game is opened: one a round
        state = await self._send(endpoints.open_round(tournament_id, round_number, token))
        self._promises.check_round(tournament_id, round_number, state)
        check_variant(state.variant, variant)
        game = AsyncGame[Any](
            self, state, token, played=played_from(state, state.options, tournament_id)
        )
        self._promises.keep_game(tournament_id, round_number, game.played)
        return game

    async def standings(
        self,
        tournament_id: str,
        *,
        player: str | None = None,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> Standings:
        """Every entrant's total over finished games, best first (``invite_code`` as above).

        ``player``: also that entrant's games, each with its share of the round's par
        (``Standings.games``; a closed tournament only).
        """
        return await self._send(endpoints.standings(tournament_id, invite_code, player, token))

    async def settlement(
        self,
        tournament_id: str,
        *,
        payments: bool = False,
        cursor: str | None = None,
        invite_code: str | None = None,
    ) -> SettlementPage:
        """The settlement of the standings (see :meth:`Client.settlement`)."""
        return await self._send(endpoints.settlement(tournament_id, invite_code, payments, cursor))

    async def all_payments(
        self, tournament_id: str, *, invite_code: str | None = None
    ) -> AsyncIterator[Payment]:
        """Every pairwise payment of the settlement, page after page."""
        cursor = None
        while True:
            page = await self.settlement(
                tournament_id, payments=True, cursor=cursor, invite_code=invite_code
            )
            for payment in page.payments:
                yield payment
            cursor = page.next_cursor
            if cursor is None:
                return

    async def close_tournament(self, tournament_id: str) -> Tournament:
        """Close the tournament now (its organizer); the answer reveals the round seeds."""
        return await self._send(endpoints.close_tournament(tournament_id))

    async def export_tournament(
        self, tournament_id: str, *, token: str | None = None
    ) -> TournamentExport:
        """A closed tournament's whole record, checked as :meth:`Client.export_tournament`."""
        export = await self._send(endpoints.export_tournament(tournament_id, token))
        self._promises.check_tournament(export.tournament)
        return export

    async def log_key(self) -> str:
        """The transparency log's note verifier key (``origin+keyid+base64``)."""
        return (await self._send(endpoints.log_key())).strip()

    async def log_checkpoint(self) -> str:
        """The log's latest checkpoint: a signed note, with witnesses' cosignatures."""
        return await self._send(endpoints.log_checkpoint())

    async def log_proof(self, receipt: str) -> LogProof | None:
        """Where the server's log holds ``receipt`` (a compact JWS); ``None``: it does not.

        Found by the leaf hash of the entry the receipt is logged as; check the answer
        with :func:`cardproof.tlog.inclusion.check_in_log` (it is the server's word).
        """
        leaf = leaf_hash(encode_entry(receipt_entry(receipt)))
        try:
            return await self._send(endpoints.log_proof(leaf))
        except NotFoundError:
            return None

    async def jwks(self) -> JWKS:
        """The server's receipt verification keys."""
        return await self._send(endpoints.jwks())

    async def verify_receipt(
        self,
        token: str,
        *,
        server_seed: str | bytes | None = None,
        allow: Sequence[ReceiptKind] = (),
        expect: Expected | None = None,
        signature_only: bool = False,
    ) -> VerifiedReceipt:
        """Verify a receipt against this server's key set, fetched from it now.

        See :meth:`Client.verify_receipt`; :func:`cardproof.verify_receipt` is the offline check.
        """
        return verify_receipt(
            token,
            await self.jwks(),
            server_seed=server_seed,
            allow=allow,
            expect=expect,
            signature_only=signature_only,
        )

    async def health(self) -> Health:
        """Liveness."""
        return await self._send(endpoints.health())

    async def ready(self) -> Readiness:
        """Readiness (a 503 answer raises :class:`ServerError`)."""
        return await self._send(endpoints.ready())
