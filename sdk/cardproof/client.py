"""HTTP clients for a cardproof server: :class:`Client` (sync) and :class:`AsyncClient`.

Both sit on one :class:`~cardproof.core.RequestCore` that builds requests, decides
retries and turns problem+json answers into typed errors; only the I/O differs. Retries
cover connection errors, timeouts, 429 and 5xx, with jittered exponential backoff that
honours ``Retry-After``; every POST carries an ``Idempotency-Key`` that stays the same
across its retries. Request bodies are plain JSON: the server validates them,
so a client never refuses options a newer server accepts.

Usage::

    with Client(base_url="http://127.0.0.1:8000") as client:
        print(client.score("poker-squares", layout).total)
        game = client.deal("poker-squares")
        while not game.finished:
            game.play(pick_a_cell(game.visible))
        print(game.receipt().payload.score.total)

Tournaments: the organizer's key is the client's ``api_key``; an entrant's token is
given per call, to open that entrant's game on a round::

    with Client(base_url=url, api_key="cpo_...") as organizer:
        created = organizer.create_tournament(
            "Spring Open", "poker-squares", rounds=3, opens_at=start, closes_at=end
        )
    with Client(base_url=url) as player:
        tid = created.tournament.tournament_id
        game = player.play_round(tid, 1, player.enter(tid, "Ada").token)

The pieces live beside this module: the endpoints in :mod:`cardproof.endpoints`, the
request core in :mod:`cardproof.core`, the game and round handles in
:mod:`cardproof.handles`, and :class:`AsyncClient` in :mod:`cardproof.async_client`.
Their public names are importable from here as before.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from typing import Any, Literal, overload

import httpx

from cardproof import endpoints
from cardproof.async_client import AsyncClient
from cardproof.core import (
    RETRY_STATUSES,
    RETRY_TRANSPORT_ERRORS,
    RequestCore,
    error_from_response,
    retry_after_seconds,
)
from cardproof.endpoints import ApiCall, CardLike, Moment, Options, T
from cardproof.errors import ConflictError, NotFoundError
from cardproof.games import GridView, ReserveView, RowsView, SoloDrezView
from cardproof.handles import (
    AsyncGame,
    AsyncRound,
    Game,
    GridVariantId,
    RepeatId,
    ReserveId,
    Round,
    SoloDrezId,
    V,
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
from cardproof.transport import bounded_transport, exchange
from cardproof.version import DEFAULT_BASE_URL

__all__ = [
    "DEFAULT_BASE_URL",
    "RETRY_STATUSES",
    "RETRY_TRANSPORT_ERRORS",
    "AsyncClient",
    "AsyncGame",
    "AsyncRound",
    "CardLike",
    "Client",
    "Game",
    "GridVariantId",
    "Moment",
    "Options",
    "RepeatId",
    "ReserveId",
    "Round",
    "SoloDrezId",
    "T",
    "V",
    "error_from_response",
    "retry_after_seconds",
]


def fetch_bytes(url: str, *, limit: int, timeout: float = 10.0) -> bytes:
    """The body of a 2xx answer to ``GET url``, read under ``limit`` bytes and one deadline.

    For a document fetched outside the API's calls (a key set named by URL), with the
    same bounds: an answer over ``limit`` is :class:`~cardproof.errors.AnswerTooLargeError`,
    one slower than ``timeout`` in all a :class:`~cardproof.errors.TransportError`, and
    a non-2xx one its typed :class:`~cardproof.errors.APIError`.
    """
    once = RequestCore(  # a document, not an API call: no retries
        base_url=url, api_key=None, timeout=timeout, max_retries=0, backoff=0, max_backoff=0
    )
    with httpx.Client(timeout=timeout, transport=bounded_transport()) as http:
        return exchange(
            http,
            lambda: http.build_request("GET", url),
            once,
            limit=limit,
            seconds=timeout,
            answer=_success_body,
        )


def _success_body(response: httpx.Response, content: bytes) -> bytes:
    """``content`` if ``response`` is a 2xx, else its typed error."""
    if not response.is_success:
        raise error_from_response(response, content)
    return content


class Client:
    """A synchronous cardproof client. Use as a context manager, or call :meth:`close`."""

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 3,
        backoff: float = 0.25,
        max_backoff: float = 30.0,
        http_client: httpx.Client | None = None,
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
        self._http = http_client or httpx.Client(transport=bounded_transport())
        self._promises = TournamentPromises()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool (only if this client created it)."""
        if self._owns_http:
            self._http.close()

    def _send(self, call: ApiCall[T]) -> T:
        args = self._core.request_args(call)
        return exchange(
            self._http,
            lambda: self._http.build_request(**args),
            self._core,
            limit=call.limit,
            seconds=self._core.timeout + call.wait,
            answer=lambda response, content: self._core.decode(response, content, call.result),
        )

    def variants(self) -> list[VariantInfo]:
        """Every variant the server knows."""
        return self._send(endpoints.variants())

    def score(
        self, variant: str, layout: Sequence[Sequence[CardLike]], *, options: Options = None
    ) -> Score:
        """Score a finished 5x5 layout."""
        return self._send(endpoints.score(variant, layout, options))

    def verify(
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
        return self._send(endpoints.verify(variant, moves, deal, options))

    @overload
    def solve(  # type: ignore[overload-overlap]  # the literal is checked first
        self,
        variant: Literal["solodrez"],
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> SoloDrezSolution: ...

    @overload
    def solve(  # type: ignore[overload-overlap]  # the literals are checked first
        self,
        variant: Literal["poker-squares", "poker-patience"],
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> HindsightSolution: ...

    @overload
    def solve(
        self,
        variant: str,
        cards: Sequence[CardLike],
        *,
        options: Options = None,
        budget: float | None = None,
    ) -> SerpentSolution: ...

    def solve(
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
        answer: SerpentSolution | SoloDrezSolution | HindsightSolution = self._send(
            endpoints.solve(variant, cards, options, budget)
        )
        return answer

    def commit(self) -> Commitment:
        """A fresh commitment to a server seed."""
        return self._send(endpoints.commit())

    @overload
    def deal(
        self,
        variant: GridVariantId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> Game[GridView]: ...

    @overload
    def deal(
        self,
        variant: RepeatId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> Game[RowsView]: ...

    @overload
    def deal(
        self,
        variant: ReserveId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> Game[ReserveView]: ...

    @overload
    def deal(
        self,
        variant: SoloDrezId,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> Game[SoloDrezView]: ...

    @overload
    def deal(
        self,
        variant: str,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> Game[View]: ...

    def deal(
        self,
        variant: str,
        options: Options = None,
        *,
        client_seed: str | None = None,
        committed: bool = True,
        commitment: Commitment | None = None,
    ) -> Game[Any]:
        """Open a deal to play move by move, and check it is the one promised.

        Commits first (or uses ``commitment``, from an earlier :meth:`commit`; with
        ``committed=False`` and no commitment, a casual deal), then deals with
        ``client_seed`` (a random one when ``None``). Before any move, the deal must carry
        the committed ``server_seed_hash``, this client seed, the variant and the options
        asked for, else :class:`~cardproof.receipts.CommitmentMismatchError`.
        """
        if commitment is None and committed:
            commitment = self.commit()
        seed = client_seed if client_seed is not None else secrets.token_urlsafe(16)
        commitment_id = None if commitment is None else commitment.commitment_id
        state = self._send(endpoints.open_deal(variant, options, commitment_id, seed))
        check_deal(
            state, variant_id=variant, options=options, client_seed=seed, commitment=commitment
        )
        return Game[Any](self, state, played=played_from(state, options))

    def read_deal(self, deal_id: str, *, token: str | None = None) -> DealState:
        """A deal as its player may see it now (a tournament game's: with its ``token``)."""
        return self._send(endpoints.read_deal(deal_id, token))

    def play(
        self, deal_id: str, index: int, move: MoveLike, *, token: str | None = None
    ) -> MoveResult:
        """Play ``move`` as move ``index`` of a deal (a tournament game's: with its ``token``)."""
        return self._send(endpoints.play(deal_id, index, move, token))

    def receipt(self, deal_id: str, *, token: str | None = None) -> ReceiptResponse:
        """The signed receipt of a finished deal (a tournament game's: with its ``token``).

        Not checked against a game: :meth:`Game.receipt` does that for a game played here.
        """
        return self._send(endpoints.receipt(deal_id, token))

    def create_tournament(
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
        """Create a tournament as the organizer whose key is this client's ``api_key``.

        The server commits to every round's seed now (the answer shows the hashes) and
        reveals the seeds at the close. ``entry="invite"``: the answer carries
        ``invites`` single-use invite codes (default 1), this once
        (:meth:`create_invites` makes more). Times are aware datetimes or RFC 3339 text.
        ``format``: ``lockstep`` (the server's default for a hidden variant: each card is
        called to every seated entrant at once, ``card_seconds`` to place it; rounds start
        by :meth:`start_round` or at ``round_starts``) or ``async``.
        """
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
        return self._send(call)

    def start_round(self, tournament_id: str, round_number: int) -> RoundStatus:
        """Start a lockstep round now (the organizer's ``api_key``): card 0 is called."""
        return self._send(endpoints.start_round(tournament_id, round_number))

    def round_status(
        self,
        tournament_id: str,
        round_number: int,
        *,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> RoundStatus:
        """A lockstep round now: waiting, playing (the call and its deadline) or finished."""
        return self._send(endpoints.round_status(tournament_id, round_number, invite_code, token))

    def round_calls(
        self,
        tournament_id: str,
        round_number: int,
        *,
        after: int = -1,
        wait: float = 20.0,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> RoundCalls:
        """The calls after ``after``, waiting up to ``wait`` seconds for one (a long poll)."""
        call = endpoints.round_calls(tournament_id, round_number, after, wait, invite_code, token)
        return self._send(call)

    def join_round(self, tournament_id: str, round_number: int, token: str) -> Round:
        """Take a seat in a lockstep round (opening the entrant's game) and follow its calls.

        ``for call in seat.calls(): seat.play(move)``; see :class:`Round`. A seat this
        entrant took already (the round was opened before) is taken up where it stands.
        """
        try:
            game = self.play_round(tournament_id, round_number, token)
        except ConflictError as error:
            state = self.read_deal(seated_deal(error), token=token)
            played = self._promises.resume(tournament_id, round_number, state)
            game = Game(self, state, token, played=played)
        return Round(self, tournament_id, round_number, game)

    def tournament(
        self, tournament_id: str, *, invite_code: str | None = None, token: str | None = None
    ) -> Tournament:
        """A tournament: its rounds' seed hashes, and the seeds once it has closed.

        An invite-only one is read with ``invite_code``, an entrant's ``token``, or the
        organizer's ``api_key``. The round hashes must be the ones this client was shown
        first (at entry), and a revealed seed must hash to its round's, else
        :class:`~cardproof.receipts.CommitmentMismatchError`.
        """
        found = self._send(endpoints.tournament(tournament_id, invite_code, token))
        self._promises.check_tournament(found)
        return found

    def tournaments(self, *, limit: int | None = None, cursor: str | None = None) -> TournamentList:
        """A page of the organizer's own tournaments (the client's ``api_key``), newest first.

        ``limit``: at most this many (1 to 100; the server's default is 20). ``cursor``: the
        ``next_cursor`` of the page before; it is ``None`` on the last page. Only
        tournaments the service listed when they were created are listed, until they expire.
        """
        return self._send(endpoints.tournaments(limit, cursor))

    def create_invites(self, tournament_id: str, count: int = 1) -> list[str]:
        """``count`` fresh single-use invite codes (the organizer's ``api_key``)."""
        return self._send(endpoints.invite(tournament_id, count)).codes

    def enter(self, tournament_id: str, name: str, *, invite_code: str | None = None) -> Entry:
        """Enter ``name``; the entry's ``token`` (shown this once) opens its games.

        The round seed hashes the entry shows are kept: every round game and the final
        reveal are checked against them.
        """
        entry = self._send(endpoints.enter(tournament_id, name, invite_code))
        self._promises.keep_entry(entry)
        return entry

    @overload
    def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: GridVariantId
    ) -> Game[GridView]: ...

    @overload
    def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: RepeatId
    ) -> Game[RowsView]: ...

    @overload
    def play_round(
        self,
        tournament_id: str,
        round_number: int,
        token: str,
        *,
        variant: ReserveId,
    ) -> Game[ReserveView]: ...

    @overload
    def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: SoloDrezId
    ) -> Game[SoloDrezView]: ...

    @overload
    def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: None = None
    ) -> Game[View]: ...

    def play_round(
        self, tournament_id: str, round_number: int, token: str, *, variant: str | None = None
    ) -> Game[Any]:
        """Open the entrant's game on a round (``token`` from :meth:`enter`), to play it.

        Every entrant gets the same cards on a round; the game is played like any deal. It
        must be dealt from the round's committed seed hash (as shown at entry, or read
        now) and the tournament's salt. ``variant``, when given, types the handle by its
        view and must be the tournament's (else ``CommitmentMismatchError``).
        """
        if self._promises.round_hash(tournament_id, round_number) is None or variant is not None:
            found = self.tournament(tournament_id, token=token)
            check_variant(found.variant, variant)  # before the game is opened: one a round
        state = self._send(endpoints.open_round(tournament_id, round_number, token))
        self._promises.check_round(tournament_id, round_number, state)
        check_variant(state.variant, variant)
        game = Game[Any](
            self, state, token, played=played_from(state, state.options, tournament_id)
        )
        self._promises.keep_game(tournament_id, round_number, game.played)
        return game

    def standings(
        self,
        tournament_id: str,
        *,
        player: str | None = None,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> Standings:
        """Every entrant's total over finished games, best first (``invite_code`` as above).

        An invite-only tournament's are read as it is (:meth:`tournament`): with
        ``invite_code``, an entrant's ``token``, or the organizer's ``api_key``.

        ``player``: also that entrant's games, each with its share of the round's par
        (``Standings.games``; a closed tournament only).
        """
        return self._send(endpoints.standings(tournament_id, invite_code, player, token))

    def settlement(
        self,
        tournament_id: str,
        *,
        payments: bool = False,
        cursor: str | None = None,
        invite_code: str | None = None,
    ) -> SettlementPage:
        """The settlement of the standings: every net (``cardproof.tournaments.settle``).

        With ``payments=True``, also one page of the pairwise payments (from ``cursor``,
        the ``next_cursor`` of the page before); :meth:`all_payments` reads every page.
        """
        return self._send(endpoints.settlement(tournament_id, invite_code, payments, cursor))

    def all_payments(
        self, tournament_id: str, *, invite_code: str | None = None
    ) -> Iterator[Payment]:
        """Every pairwise payment of the settlement, page after page (one per pair)."""
        cursor = None
        while True:
            page = self.settlement(
                tournament_id, payments=True, cursor=cursor, invite_code=invite_code
            )
            yield from page.payments
            cursor = page.next_cursor
            if cursor is None:
                return

    def close_tournament(self, tournament_id: str) -> Tournament:
        """Close the tournament now (its organizer); the answer reveals the round seeds."""
        return self._send(endpoints.close_tournament(tournament_id))

    def export_tournament(
        self, tournament_id: str, *, token: str | None = None
    ) -> TournamentExport:
        """A closed tournament's whole record (``cardproof.tournaments.verify_export``).

        Its round hashes and revealed seeds are checked as :meth:`tournament` does. An
        invite-only tournament's is read with an entrant's ``token`` or the organizer's
        ``api_key``.
        """
        export = self._send(endpoints.export_tournament(tournament_id, token))
        self._promises.check_tournament(export.tournament)
        return export

    def log_key(self) -> str:
        """The transparency log's note verifier key (``origin+keyid+base64``)."""
        return (self._send(endpoints.log_key())).strip()

    def log_checkpoint(self) -> str:
        """The log's latest checkpoint: a signed note, with witnesses' cosignatures."""
        return self._send(endpoints.log_checkpoint())

    def log_proof(self, receipt: str) -> LogProof | None:
        """Where the server's log holds ``receipt`` (a compact JWS); ``None``: it does not.

        Found by the leaf hash of the entry the receipt is logged as; check the answer
        with :func:`cardproof.tlog.inclusion.check_in_log` (it is the server's word).
        """
        leaf = leaf_hash(encode_entry(receipt_entry(receipt)))
        try:
            return self._send(endpoints.log_proof(leaf))
        except NotFoundError:
            return None

    def jwks(self) -> JWKS:
        """The server's receipt verification keys."""
        return self._send(endpoints.jwks())

    def verify_receipt(
        self,
        token: str,
        *,
        server_seed: str | bytes | None = None,
        allow: Sequence[ReceiptKind] = (),
        expect: Expected | None = None,
        signature_only: bool = False,
    ) -> VerifiedReceipt:
        """Verify a receipt against this server's key set, fetched from it now.

        It reads ``/.well-known/jwks.json`` from the server, then checks as
        :func:`cardproof.verify_receipt` does (the keywords are its own), which is the
        offline check: give it a key set you keep and no server is asked anything.
        """
        return verify_receipt(
            token,
            self.jwks(),
            server_seed=server_seed,
            allow=allow,
            expect=expect,
            signature_only=signature_only,
        )

    def health(self) -> Health:
        """Liveness."""
        return self._send(endpoints.health())

    def ready(self) -> Readiness:
        """Readiness (a 503 answer raises :class:`ServerError`)."""
        return self._send(endpoints.ready())
