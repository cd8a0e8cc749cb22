"""HTTP clients for a cardproof server: :class:`Client` (sync) and :class:`AsyncClient`.

Both sit on one :class:`_Core` that builds requests, decides retries and turns
problem+json answers into typed errors; only the I/O differs. Retries cover
connection errors, timeouts, 429 and 5xx, with jittered exponential backoff that
honours ``Retry-After``; every POST carries an ``Idempotency-Key`` that stays the
same across its retries. Request bodies are plain JSON: the server validates them,
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
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Final, Generic, Literal, TypeVar, cast, overload
from urllib.parse import quote, urlencode

import httpx
import msgspec

from cardproof.cards import Card
from cardproof.errors import (
    APIError,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    IllegalMoveError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitedError,
    ServerError,
    TransportError,
    UnauthorizedError,
    UnprocessableError,
)
from cardproof.games import GridView, ReserveView, RowsView, SoloDrezView
from cardproof.hands import Score
from cardproof.models import (
    Call,
    Commitment,
    DealState,
    Entry,
    Health,
    HindsightSolution,
    InviteCodes,
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
    VariantInfo,
    VerifyResult,
    View,
)
from cardproof.promises import (
    MoveLike,
    Played,
    TournamentPromises,
    canonical_move,
    check_deal,
    check_receipt,
)
from cardproof.receipts import (
    JWKS,
    CommitmentMismatchError,
    Expected,
    ReceiptKind,
    VerifiedReceipt,
    verify_receipt,
    verify_signature,
)
from cardproof.tournaments import Payment, SettlementPage

T = TypeVar("T")
V = TypeVar("V", bound=View)
"""The view a game handle shows: its variant's (``GridView`` for the grid variants...)."""
GridVariantId = Literal["poker-squares", "poker-patience", "serpent-patience"]
"""The variants whose view is a ``GridView``."""
RepeatId = Literal["repeat-poker"]
ReserveId = Literal["reserve-poker"]
SoloDrezId = Literal["solodrez"]

DEFAULT_BASE_URL: Final = "http://127.0.0.1:8000"
RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
RETRY_TRANSPORT_ERRORS: Final = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
"""Transport failures worth another try; others (a bad URL, a proxy refusal) are final."""
_ERRORS: Final[dict[int, type[APIError]]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableError,
    429: RateLimitedError,
}

CardLike = Card | str
Options = Mapping[str, Any] | msgspec.Struct | None
Moment = datetime | str
"""A time: an aware ``datetime``, or RFC 3339 text (``"2025-06-01T18:00:00Z"``)."""


def _json(value: Any) -> Any:
    """Plain JSON data from cards, engine moves and option structs."""
    if isinstance(value, Card):
        return value.text
    if isinstance(value, msgspec.Struct):
        return msgspec.to_builtins(value)
    if isinstance(value, Mapping):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds from now (delta-seconds or an HTTP date), if valid.

    >>> retry_after_seconds("3"), retry_after_seconds(None), retry_after_seconds("soon")
    (3.0, None, None)
    """
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, with no claim about the sender's zone
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - time.time())


def _moment(value: Moment, name: str) -> str:
    """RFC 3339 text for a tournament time; a naive ``datetime`` is refused as ambiguous."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{name} needs a time zone (a naive datetime is ambiguous)")
        return value.isoformat()
    return value


def _tournament_path(tournament_id: str, *rest: str) -> str:
    """``/v1/tournaments/{id}/...``, the id escaped (it comes from users, e.g. the CLI)."""
    return "/".join(("/v1/tournaments", quote(tournament_id, safe=""), *rest))


def error_from_response(response: httpx.Response) -> APIError:
    """The typed error for a non-2xx answer, from its problem+json body when present."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    status = response.status_code
    cls = _ERRORS.get(status, ServerError if status >= 500 else APIError)
    if status == 422 and isinstance(body.get("move_index"), int):
        cls = IllegalMoveError
    return cls(
        status,
        str(body.get("title") or response.reason_phrase),
        str(body.get("detail") or ""),
        type_=str(body.get("type") or "about:blank"),
        body=body,
        retry_after=retry_after_seconds(response.headers.get("retry-after")),
    )


@dataclass(frozen=True)
class _Call(Generic[T]):
    """One API call: method, path, JSON body, and the type of its answer.

    ``authorization`` replaces the client's own ``Authorization`` header for this call
    (an entrant's token, where the client's ``api_key`` is an organizer's).
    """

    method: str
    path: str
    result: type[T]
    body: Any = None
    authorization: str | None = None
    invite_code: str | None = None
    """Sent as ``X-Invite-Code``: it reads an invite-only tournament."""
    wait: float = 0.0
    """Seconds the server may hold the answer (a long poll), on top of the timeout."""


class _Calls:
    """The calls of the API, shared by both clients (only the I/O differs)."""

    @staticmethod
    def variants() -> _Call[list[VariantInfo]]:
        return _Call("GET", "/v1/variants", list[VariantInfo])

    @staticmethod
    def score(variant: str, layout: Sequence[Sequence[CardLike]], options: Options) -> _Call[Score]:
        body = {"variant": variant, "layout": _json(layout), "options": _json(options or {})}
        return _Call("POST", "/v1/score", Score, body)

    @staticmethod
    def verify(
        variant: str,
        moves: str | Sequence[MoveLike],
        deal: Mapping[str, Any],
        options: Options,
    ) -> _Call[VerifyResult]:
        body = {
            "variant": variant,
            "deal": _json(deal),
            "moves": moves if isinstance(moves, str) else _json(list(moves)),
            "options": _json(options or {}),
        }
        return _Call("POST", "/v1/verify", VerifyResult, body)

    @staticmethod
    def solve(
        variant: str, cards: Sequence[CardLike], options: Options, budget: float | None
    ) -> _Call[Any]:
        body = {"variant": variant, "cards": _json(list(cards)), "options": _json(options or {})}
        if budget is not None:
            body["budget"] = budget
        answer: type[Any] = SerpentSolution
        if variant == "solodrez":
            answer = SoloDrezSolution
        elif variant in ("poker-squares", "poker-patience"):
            answer = HindsightSolution
        return _Call("POST", "/v1/solve", answer, body)

    @staticmethod
    def commit() -> _Call[Commitment]:
        return _Call("POST", "/v1/commitments", Commitment, {})

    @staticmethod
    def open_deal(
        variant: str, options: Options, commitment_id: str | None, client_seed: str
    ) -> _Call[DealState]:
        body: dict[str, Any] = {"variant": variant, "options": _json(options or {})}
        if commitment_id is not None:
            body["commitment_id"] = commitment_id
        body["client_seed"] = client_seed
        return _Call("POST", "/v1/deals", DealState, body)

    @staticmethod
    def read_deal(deal_id: str, token: str | None) -> _Call[DealState]:
        authorization = None if token is None else f"Bearer {token}"
        return _Call("GET", f"/v1/deals/{quote(deal_id, safe='')}", DealState, None, authorization)

    @staticmethod
    def play(deal_id: str, index: int, move: MoveLike, token: str | None) -> _Call[MoveResult]:
        body = {"index": index, "move": _json(move)}
        authorization = None if token is None else f"Bearer {token}"
        path = f"/v1/deals/{quote(deal_id, safe='')}/moves"
        return _Call("POST", path, MoveResult, body, authorization)

    @staticmethod
    def receipt(deal_id: str, token: str | None) -> _Call[ReceiptResponse]:
        authorization = None if token is None else f"Bearer {token}"
        path = f"/v1/deals/{quote(deal_id, safe='')}/receipt"
        return _Call("GET", path, ReceiptResponse, None, authorization)

    @staticmethod
    def create_tournament(
        name: str,
        variant: str,
        rounds: int,
        opens_at: Moment,
        closes_at: Moment,
        options: Options,
        max_entrants: int | None,
        entry: Literal["public", "invite"],
        invites: int | None = None,
        format: Literal["lockstep", "async"] | None = None,
        card_seconds: int | None = None,
        round_starts: Sequence[Moment] | None = None,
    ) -> _Call[TournamentCreated]:
        body: dict[str, Any] = {
            "name": name,
            "variant": variant,
            "rounds": rounds,
            "opens_at": _moment(opens_at, "opens_at"),
            "closes_at": _moment(closes_at, "closes_at"),
            "options": _json(options or {}),
            "entry": entry,
        }
        if max_entrants is not None:
            body["max_entrants"] = max_entrants
        if invites is not None:
            body["invites"] = invites
        if format is not None:
            body["format"] = format
        if card_seconds is not None:
            body["card_seconds"] = card_seconds
        if round_starts is not None:
            body["round_starts"] = [_moment(start, "round_starts") for start in round_starts]
        return _Call("POST", "/v1/tournaments", TournamentCreated, body)

    @staticmethod
    def start_round(tournament_id: str, round_number: int) -> _Call[RoundStatus]:
        path = _tournament_path(tournament_id, "rounds", str(round_number), "start")
        return _Call("POST", path, RoundStatus, {})

    @staticmethod
    def round_status(
        tournament_id: str, round_number: int, invite_code: str | None, token: str | None
    ) -> _Call[RoundStatus]:
        path = _tournament_path(tournament_id, "rounds", str(round_number))
        authorization = None if token is None else f"Bearer {token}"
        return _Call("GET", path, RoundStatus, None, authorization, invite_code)

    @staticmethod
    def round_calls(
        tournament_id: str,
        round_number: int,
        after: int,
        wait: float,
        invite_code: str | None,
        token: str | None,
    ) -> _Call[RoundCalls]:
        query = urlencode({"after": after, "wait": wait})
        path = _tournament_path(tournament_id, "rounds", str(round_number), "calls") + "?" + query
        authorization = None if token is None else f"Bearer {token}"
        return _Call("GET", path, RoundCalls, None, authorization, invite_code, wait)

    @staticmethod
    def tournament(
        tournament_id: str, invite_code: str | None, token: str | None = None
    ) -> _Call[Tournament]:
        path = _tournament_path(tournament_id)
        authorization = None if token is None else f"Bearer {token}"
        return _Call("GET", path, Tournament, None, authorization, invite_code)

    @staticmethod
    def invite(tournament_id: str, count: int) -> _Call[InviteCodes]:
        path = _tournament_path(tournament_id, "invites")
        return _Call("POST", path, InviteCodes, {"count": count})

    @staticmethod
    def enter(tournament_id: str, name: str, invite_code: str | None) -> _Call[Entry]:
        body = {"name": name}
        if invite_code is not None:
            body["invite_code"] = invite_code
        return _Call("POST", _tournament_path(tournament_id, "entries"), Entry, body)

    @staticmethod
    def open_round(tournament_id: str, round_number: int, token: str) -> _Call[DealState]:
        path = _tournament_path(tournament_id, "rounds", str(round_number), "deal")
        return _Call("POST", path, DealState, {}, authorization=f"Bearer {token}")

    @staticmethod
    def standings(
        tournament_id: str, invite_code: str | None, player: str | None
    ) -> _Call[Standings]:
        query = f"?{urlencode({'player': player})}" if player is not None else ""
        path = _tournament_path(tournament_id, "standings") + query
        return _Call("GET", path, Standings, invite_code=invite_code)

    @staticmethod
    def settlement(
        tournament_id: str, invite_code: str | None, payments: bool, cursor: str | None
    ) -> _Call[SettlementPage]:
        query = urlencode(
            {"payments": "true", **({"cursor": cursor} if cursor else {})} if payments else {}
        )
        path = _tournament_path(tournament_id, "settlement") + (f"?{query}" if query else "")
        return _Call("GET", path, SettlementPage, invite_code=invite_code)

    @staticmethod
    def close_tournament(tournament_id: str) -> _Call[Tournament]:
        return _Call("POST", _tournament_path(tournament_id, "close"), Tournament, {})

    @staticmethod
    def export_tournament(tournament_id: str) -> _Call[TournamentExport]:
        return _Call("GET", _tournament_path(tournament_id, "export"), TournamentExport)

    @staticmethod
    def jwks() -> _Call[JWKS]:
        return _Call("GET", "/.well-known/jwks.json", JWKS)

    @staticmethod
    def health() -> _Call[Health]:
        return _Call("GET", "/healthz", Health)

    @staticmethod
    def ready() -> _Call[Readiness]:
        return _Call("GET", "/readyz", Readiness)


def _deal_form(
    cards: Sequence[CardLike] | None,
    deal_id: str | None,
    server_seed: str | None,
    client_seed: str | None,
) -> dict[str, Any]:
    """The ``deal`` object of a verify request, from exactly one of its three forms."""
    forms = {
        "cards": cards is not None,
        "deal_id": deal_id is not None,
        "seeds": server_seed is not None or client_seed is not None,
    }
    if sum(forms.values()) != 1 or (
        forms["seeds"] and (server_seed is None or client_seed is None)
    ):
        raise ValueError("give exactly one of: cards=, deal_id=, or server_seed= with client_seed=")
    if cards is not None:
        return {"cards": _json(list(cards))}
    if deal_id is not None:
        return {"deal_id": deal_id}
    return {"server_seed": server_seed, "client_seed": client_seed}


class _Core:
    """Settings, request building, retry policy and decoding, free of I/O."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        backoff: float,
        max_backoff: float,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        from cardproof import __version__  # the package imports this module: import late

        self.headers = {
            "user-agent": f"cardproof-python/{__version__}",
            "accept": "application/json",
        }
        if api_key:
            self.headers["authorization"] = f"Bearer {api_key}"

    def request_args(self, call: _Call[Any]) -> dict[str, Any]:
        """Arguments of one logical request (the same for each of its attempts)."""
        headers = dict(self.headers)
        if call.authorization is not None:
            headers["authorization"] = call.authorization
        if call.invite_code is not None:
            headers["x-invite-code"] = call.invite_code
        content = None
        if call.body is not None:
            headers["content-type"] = "application/json"
            content = msgspec.json.encode(call.body)
        if call.method == "POST":
            headers["idempotency-key"] = str(uuid.uuid4())
        return {
            "method": call.method,
            "url": self.base_url + call.path,
            "headers": headers,
            "content": content,
            "timeout": self.timeout + call.wait,
        }

    def delay(self, attempt: int) -> float:
        """Full-jitter exponential backoff before retry ``attempt`` (1-based)."""
        return random.uniform(0, min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))

    def retry_delay(self, response: httpx.Response, attempt: int) -> float | None:
        """``None`` if ``response`` is final, else seconds to wait before trying again.

        ``Retry-After`` wins when the server sent it; if it asks for longer than
        ``max_backoff`` the answer is final (the error carries ``retry_after``).
        """
        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
            return None
        asked = retry_after_seconds(response.headers.get("retry-after"))
        if asked is None:
            return self.delay(attempt + 1)
        return asked if asked <= self.max_backoff else None

    def transport_retry(self, error: httpx.TransportError, attempt: int) -> float:
        """The delay before retrying after a transport failure, or raise it as final."""
        if not isinstance(error, RETRY_TRANSPORT_ERRORS) or attempt >= self.max_retries:
            raise TransportError(
                f"{error.request.method} {error.request.url}: {error!r}"
            ) from error
        return self.delay(attempt + 1)

    @staticmethod
    def decode(response: httpx.Response, result_type: type[T]) -> T:
        """The typed result of a 2xx answer, else the typed error."""
        if not response.is_success:
            raise error_from_response(response)
        try:
            return msgspec.json.decode(response.content, type=result_type)
        except msgspec.DecodeError as error:
            raise APIError(
                response.status_code, "Unexpected response", f"the answer cannot be read: {error}"
            ) from None


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
        self._core = _Core(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client()
        self._promises = TournamentPromises()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool (only if this client created it)."""
        if self._owns_http:
            self._http.close()

    def _send(self, call: _Call[T]) -> T:
        args = self._core.request_args(call)
        attempt = 0
        while True:
            try:
                response = self._http.request(**args)
            except httpx.TransportError as error:
                time.sleep(self._core.transport_retry(error, attempt))
            else:
                wait = self._core.retry_delay(response, attempt)
                if wait is None:
                    return self._core.decode(response, call.result)
                time.sleep(wait)
            attempt += 1

    def variants(self) -> list[VariantInfo]:
        """Every variant the server knows."""
        return self._send(_Calls.variants())

    def score(
        self, variant: str, layout: Sequence[Sequence[CardLike]], *, options: Options = None
    ) -> Score:
        """Score a finished 5x5 layout."""
        return self._send(_Calls.score(variant, layout, options))

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
        deal = _deal_form(cards, deal_id, server_seed, client_seed)
        return self._send(_Calls.verify(variant, moves, deal, options))

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
            _Calls.solve(variant, cards, options, budget)
        )
        return answer

    def commit(self) -> Commitment:
        """A fresh commitment to a server seed."""
        return self._send(_Calls.commit())

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
        state = self._send(_Calls.open_deal(variant, options, commitment_id, seed))
        check_deal(
            state, variant_id=variant, options=options, client_seed=seed, commitment=commitment
        )
        return Game[Any](self, state, played=_played(state, options))

    def read_deal(self, deal_id: str, *, token: str | None = None) -> DealState:
        """A deal as its player may see it now (a tournament game's: with its ``token``)."""
        return self._send(_Calls.read_deal(deal_id, token))

    def play(
        self, deal_id: str, index: int, move: MoveLike, *, token: str | None = None
    ) -> MoveResult:
        """Play ``move`` as move ``index`` of a deal (a tournament game's: with its ``token``)."""
        return self._send(_Calls.play(deal_id, index, move, token))

    def receipt(self, deal_id: str, *, token: str | None = None) -> ReceiptResponse:
        """The signed receipt of a finished deal (a tournament game's: with its ``token``).

        Not checked against a game: :meth:`Game.receipt` does that for a game played here.
        """
        return self._send(_Calls.receipt(deal_id, token))

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
        call = _Calls.create_tournament(
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
        return self._send(_Calls.start_round(tournament_id, round_number))

    def round_status(
        self,
        tournament_id: str,
        round_number: int,
        *,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> RoundStatus:
        """A lockstep round now: waiting, playing (the call and its deadline) or finished."""
        return self._send(_Calls.round_status(tournament_id, round_number, invite_code, token))

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
        call = _Calls.round_calls(tournament_id, round_number, after, wait, invite_code, token)
        return self._send(call)

    def join_round(self, tournament_id: str, round_number: int, token: str) -> Round:
        """Take a seat in a lockstep round (opening the entrant's game) and follow its calls.

        ``for call in seat.calls(): seat.play(move)``; see :class:`Round`. A seat this
        entrant took already (the round was opened before) is taken up where it stands.
        """
        try:
            game = self.play_round(tournament_id, round_number, token)
        except ConflictError as error:
            state = self.read_deal(_seated_deal(error), token=token)
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
        found = self._send(_Calls.tournament(tournament_id, invite_code, token))
        self._promises.check_tournament(found)
        return found

    def create_invites(self, tournament_id: str, count: int = 1) -> list[str]:
        """``count`` fresh single-use invite codes (the organizer's ``api_key``)."""
        return self._send(_Calls.invite(tournament_id, count)).codes

    def enter(self, tournament_id: str, name: str, *, invite_code: str | None = None) -> Entry:
        """Enter ``name``; the entry's ``token`` (shown this once) opens its games.

        The round seed hashes the entry shows are kept: every round game and the final
        reveal are checked against them.
        """
        entry = self._send(_Calls.enter(tournament_id, name, invite_code))
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
            _check_variant(found.variant, variant)  # before the game is opened: one a round
        state = self._send(_Calls.open_round(tournament_id, round_number, token))
        self._promises.check_round(tournament_id, round_number, state)
        _check_variant(state.variant, variant)
        game = Game[Any](self, state, token, played=_played(state, state.options, tournament_id))
        self._promises.keep_game(tournament_id, round_number, game.played)
        return game

    def standings(
        self, tournament_id: str, *, player: str | None = None, invite_code: str | None = None
    ) -> Standings:
        """Every entrant's total over finished games, best first (``invite_code`` as above).

        ``player``: also that entrant's games, each with its share of the round's par
        (``Standings.games``; a closed tournament only).
        """
        return self._send(_Calls.standings(tournament_id, invite_code, player))

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
        return self._send(_Calls.settlement(tournament_id, invite_code, payments, cursor))

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
        return self._send(_Calls.close_tournament(tournament_id))

    def export_tournament(self, tournament_id: str) -> TournamentExport:
        """A closed tournament's whole record (``cardproof.tournaments.verify_export``).

        Its round hashes and revealed seeds are checked as :meth:`tournament` does.
        """
        export = self._send(_Calls.export_tournament(tournament_id))
        self._promises.check_tournament(export.tournament)
        return export

    def jwks(self) -> JWKS:
        """The server's receipt verification keys."""
        return self._send(_Calls.jwks())

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
        return self._send(_Calls.health())

    def ready(self) -> Readiness:
        """Readiness (a 503 answer raises :class:`ServerError`)."""
        return self._send(_Calls.ready())


def _played(state: DealState, options: Options, tournament: str | None = None) -> Played:
    """What the receipt of the game on ``state``'s deal must say, as far as it is known."""
    return Played(
        deal_id=state.deal_id,
        variant=state.variant,
        client_seed=state.client_seed,
        server_seed_hash=state.server_seed_hash,
        options=options,
        moves=state.moves.split(),
        tournament=tournament,
    )


def _check_variant(actual: str, variant: str | None) -> None:
    """A tournament game asked for as ``variant`` must be of it (the handle is typed so)."""
    if variant is not None and actual != variant:
        raise CommitmentMismatchError("variant", variant, actual)


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
        self.played = played or _played(state, None)
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
        client: Client,
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
        self._core = _Core(
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

    async def _send(self, call: _Call[T]) -> T:
        args = self._core.request_args(call)
        attempt = 0
        while True:
            try:
                response = await self._http.request(**args)
            except httpx.TransportError as error:
                await asyncio.sleep(self._core.transport_retry(error, attempt))
            else:
                wait = self._core.retry_delay(response, attempt)
                if wait is None:
                    return self._core.decode(response, call.result)
                await asyncio.sleep(wait)
            attempt += 1

    async def variants(self) -> list[VariantInfo]:
        """Every variant the server knows."""
        return await self._send(_Calls.variants())

    async def score(
        self, variant: str, layout: Sequence[Sequence[CardLike]], *, options: Options = None
    ) -> Score:
        """Score a finished 5x5 layout."""
        return await self._send(_Calls.score(variant, layout, options))

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
        deal = _deal_form(cards, deal_id, server_seed, client_seed)
        return await self._send(_Calls.verify(variant, moves, deal, options))

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
            _Calls.solve(variant, cards, options, budget)
        )
        return answer

    async def commit(self) -> Commitment:
        """A fresh commitment to a server seed."""
        return await self._send(_Calls.commit())

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
        state = await self._send(_Calls.open_deal(variant, options, commitment_id, seed))
        check_deal(
            state, variant_id=variant, options=options, client_seed=seed, commitment=commitment
        )
        return AsyncGame[Any](self, state, played=_played(state, options))

    async def read_deal(self, deal_id: str, *, token: str | None = None) -> DealState:
        """A deal as its player may see it now (a tournament game's: with its ``token``)."""
        return await self._send(_Calls.read_deal(deal_id, token))

    async def play(
        self, deal_id: str, index: int, move: MoveLike, *, token: str | None = None
    ) -> MoveResult:
        """Play ``move`` as move ``index`` of a deal (a tournament game's: with its ``token``)."""
        return await self._send(_Calls.play(deal_id, index, move, token))

    async def receipt(self, deal_id: str, *, token: str | None = None) -> ReceiptResponse:
        """The signed receipt of a finished deal (see :meth:`Client.receipt`)."""
        return await self._send(_Calls.receipt(deal_id, token))

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
        call = _Calls.create_tournament(
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
        found = await self._send(_Calls.tournament(tournament_id, invite_code, token))
        self._promises.check_tournament(found)
        return found

    async def create_invites(self, tournament_id: str, count: int = 1) -> list[str]:
        """``count`` fresh single-use invite codes (the organizer's ``api_key``)."""
        return (await self._send(_Calls.invite(tournament_id, count))).codes

    async def enter(
        self, tournament_id: str, name: str, *, invite_code: str | None = None
    ) -> Entry:
        """Enter ``name`` (see :meth:`Client.enter`): the round hashes shown are kept."""
        entry = await self._send(_Calls.enter(tournament_id, name, invite_code))
        self._promises.keep_entry(entry)
        return entry

    async def start_round(self, tournament_id: str, round_number: int) -> RoundStatus:
        """Start a lockstep round now (see :meth:`Client.start_round`)."""
        return await self._send(_Calls.start_round(tournament_id, round_number))

    async def round_status(
        self,
        tournament_id: str,
        round_number: int,
        *,
        invite_code: str | None = None,
        token: str | None = None,
    ) -> RoundStatus:
        """A lockstep round now (see :meth:`Client.round_status`)."""
        call = _Calls.round_status(tournament_id, round_number, invite_code, token)
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
        call = _Calls.round_calls(tournament_id, round_number, after, wait, invite_code, token)
        return await self._send(call)

    async def join_round(self, tournament_id: str, round_number: int, token: str) -> AsyncRound:
        """Take a seat in a lockstep round (see :meth:`Client.join_round`).

        ``async for call in seat.calls(): await seat.play(move)``.
        """
        try:
            game = await self.play_round(tournament_id, round_number, token)
        except ConflictError as error:
            state = await self.read_deal(_seated_deal(error), token=token)
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
            _check_variant(found.variant, variant)  # before the game is opened: one a round
        state = await self._send(_Calls.open_round(tournament_id, round_number, token))
        self._promises.check_round(tournament_id, round_number, state)
        _check_variant(state.variant, variant)
        game = AsyncGame[Any](
            self, state, token, played=_played(state, state.options, tournament_id)
        )
        self._promises.keep_game(tournament_id, round_number, game.played)
        return game

    async def standings(
        self, tournament_id: str, *, player: str | None = None, invite_code: str | None = None
    ) -> Standings:
        """Every entrant's total over finished games, best first (``invite_code`` as above).

        ``player``: also that entrant's games, each with its share of the round's par
        (``Standings.games``; a closed tournament only).
        """
        return await self._send(_Calls.standings(tournament_id, invite_code, player))

    async def settlement(
        self,
        tournament_id: str,
        *,
        payments: bool = False,
        cursor: str | None = None,
        invite_code: str | None = None,
    ) -> SettlementPage:
        """The settlement of the standings (see :meth:`Client.settlement`)."""
        return await self._send(_Calls.settlement(tournament_id, invite_code, payments, cursor))

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
        return await self._send(_Calls.close_tournament(tournament_id))

    async def export_tournament(self, tournament_id: str) -> TournamentExport:
        """A closed tournament's whole record, checked as :meth:`Client.export_tournament`."""
        export = await self._send(_Calls.export_tournament(tournament_id))
        self._promises.check_tournament(export.tournament)
        return export

    async def jwks(self) -> JWKS:
        """The server's receipt verification keys."""
        return await self._send(_Calls.jwks())

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
        return await self._send(_Calls.health())

    async def ready(self) -> Readiness:
        """Readiness (a 503 answer raises :class:`ServerError`)."""
        return await self._send(_Calls.ready())


def _seated_deal(error: ConflictError) -> str:
    """The deal of a round the entrant opened already (``round-played``); else re-raise."""
    deal_id = error.body.get("deal_id")
    if error.code != "round-played" or not isinstance(deal_id, str):
        raise error
    return deal_id


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
        self, client: Client, tournament_id: str, round_number: int, game: Game[View]
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
        self, client: AsyncClient, tournament_id: str, round_number: int, game: AsyncGame[View]
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


class AsyncGame(_GameState[V]):
    """A deal being played through an :class:`AsyncClient`."""

    def __init__(
        self,
        client: AsyncClient,
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
