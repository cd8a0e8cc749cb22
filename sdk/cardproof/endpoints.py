"""The endpoints of the cardproof API: what each call sends, and the type of its answer.

Each function here builds one :class:`ApiCall` (method, path, JSON body, per-call
headers) and does no I/O, so :class:`~cardproof.client.Client` and
:class:`~cardproof.async_client.AsyncClient` share them and differ only in how they
send. Bodies are plain JSON: the server validates them, so a client never refuses
options a newer server accepts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote, urlencode

import msgspec

from cardproof.cards import Card
from cardproof.hands import Score
from cardproof.models import (
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
    TournamentList,
    VariantInfo,
    VerifyResult,
)
from cardproof.promises import MoveLike
from cardproof.receipts import JWKS
from cardproof.tlog.inclusion import LogProof
from cardproof.tournaments import SettlementPage

T = TypeVar("T")

CardLike = Card | str
Options = Mapping[str, Any] | msgspec.Struct | None
Moment = datetime | str
"""A time: an aware ``datetime``, or RFC 3339 text (``"2025-06-01T18:00:00Z"``)."""


KEY_LIMIT = 1 << 20
"""A key set, the log's key, checkpoint or proof: small documents, 1 MiB at most."""
GAME_LIMIT = 4 << 20
"""A game's answers (a deal, a move, a receipt, a score or a solve): 4 MiB at most."""
TOURNAMENT_LIMIT = 64 << 20
"""A tournament, its round or its standings, which grow with its entrants: 64 MiB."""
EXPORT_LIMIT = 1 << 30
"""A tournament's export, every game of every entrant in it: 1 GiB."""


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


@dataclass(frozen=True)
class ApiCall(Generic[T]):
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
    limit: int = GAME_LIMIT
    """The most bytes of answer read: a larger one is refused, not read to its end."""


def deal_form(
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


def variants() -> ApiCall[list[VariantInfo]]:
    return ApiCall("GET", "/v1/variants", list[VariantInfo])


def score(variant: str, layout: Sequence[Sequence[CardLike]], options: Options) -> ApiCall[Score]:
    body = {"variant": variant, "layout": _json(layout), "options": _json(options or {})}
    return ApiCall("POST", "/v1/score", Score, body)


def verify(
    variant: str,
    moves: str | Sequence[MoveLike],
    deal: Mapping[str, Any],
    options: Options,
) -> ApiCall[VerifyResult]:
    body = {
        "variant": variant,
        "deal": _json(deal),
        "moves": moves if isinstance(moves, str) else _json(list(moves)),
        "options": _json(options or {}),
    }
    return ApiCall("POST", "/v1/verify", VerifyResult, body)


def solve(
    variant: str, cards: Sequence[CardLike], options: Options, budget: float | None
) -> ApiCall[Any]:
    body = {"variant": variant, "cards": _json(list(cards)), "options": _json(options or {})}
    if budget is not None:
        body["budget"] = budget
    answer: type[Any] = SerpentSolution
    if variant == "solodrez":
        answer = SoloDrezSolution
    elif variant in ("poker-squares", "poker-patience"):
        answer = HindsightSolution
    return ApiCall("POST", "/v1/solve", answer, body)


def commit() -> ApiCall[Commitment]:
    return ApiCall("POST", "/v1/commitments", Commitment, {})


def open_deal(
    variant: str, options: Options, commitment_id: str | None, client_seed: str
) -> ApiCall[DealState]:
    body: dict[str, Any] = {"variant": variant, "options": _json(options or {})}
    if commitment_id is not None:
        body["commitment_id"] = commitment_id
    body["client_seed"] = client_seed
    return ApiCall("POST", "/v1/deals", DealState, body)


def read_deal(deal_id: str, token: str | None) -> ApiCall[DealState]:
    authorization = None if token is None else f"Bearer {token}"
    return ApiCall("GET", f"/v1/deals/{quote(deal_id, safe='')}", DealState, None, authorization)


def play(deal_id: str, index: int, move: MoveLike, token: str | None) -> ApiCall[MoveResult]:
    body = {"index": index, "move": _json(move)}
    authorization = None if token is None else f"Bearer {token}"
    path = f"/v1/deals/{quote(deal_id, safe='')}/moves"
    return ApiCall("POST", path, MoveResult, body, authorization)


def receipt(deal_id: str, token: str | None) -> ApiCall[ReceiptResponse]:
    authorization = None if token is None else f"Bearer {token}"
    path = f"/v1/deals/{quote(deal_id, safe='')}/receipt"
    return ApiCall("GET", path, ReceiptResponse, None, authorization)


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
) -> ApiCall[TournamentCreated]:
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
    return ApiCall("POST", "/v1/tournaments", TournamentCreated, body)


def start_round(tournament_id: str, round_number: int) -> ApiCall[RoundStatus]:
    path = _tournament_path(tournament_id, "rounds", str(round_number), "start")
    return ApiCall("POST", path, RoundStatus, {}, limit=TOURNAMENT_LIMIT)


def round_status(
    tournament_id: str, round_number: int, invite_code: str | None, token: str | None
) -> ApiCall[RoundStatus]:
    path = _tournament_path(tournament_id, "rounds", str(round_number))
    authorization = None if token is None else f"Bearer {token}"
    return ApiCall(
        "GET", path, RoundStatus, None, authorization, invite_code, limit=TOURNAMENT_LIMIT
    )


def round_calls(
    tournament_id: str,
    round_number: int,
    after: int,
    wait: float,
    invite_code: str | None,
    token: str | None,
) -> ApiCall[RoundCalls]:
    query = urlencode({"after": after, "wait": wait})
    path = _tournament_path(tournament_id, "rounds", str(round_number), "calls") + "?" + query
    authorization = None if token is None else f"Bearer {token}"
    return ApiCall(
        "GET", path, RoundCalls, None, authorization, invite_code, wait, TOURNAMENT_LIMIT
    )


def tournament(
    tournament_id: str, invite_code: str | None, token: str | None = None
) -> ApiCall[Tournament]:
    path = _tournament_path(tournament_id)
    authorization = None if token is None else f"Bearer {token}"
    return ApiCall(
        "GET", path, Tournament, None, authorization, invite_code, limit=TOURNAMENT_LIMIT
    )


def tournaments(limit: int | None, cursor: str | None) -> ApiCall[TournamentList]:
    query = urlencode(
        {
            **({} if limit is None else {"limit": limit}),
            **({} if cursor is None else {"cursor": cursor}),
        }
    )
    path = "/v1/tournaments" + (f"?{query}" if query else "")
    return ApiCall("GET", path, TournamentList, limit=TOURNAMENT_LIMIT)


def invite(tournament_id: str, count: int) -> ApiCall[InviteCodes]:
    path = _tournament_path(tournament_id, "invites")
    return ApiCall("POST", path, InviteCodes, {"count": count})


def enter(tournament_id: str, name: str, invite_code: str | None) -> ApiCall[Entry]:
    body = {"name": name}
    if invite_code is not None:
        body["invite_code"] = invite_code
    return ApiCall("POST", _tournament_path(tournament_id, "entries"), Entry, body)


def open_round(tournament_id: str, round_number: int, token: str) -> ApiCall[DealState]:
    path = _tournament_path(tournament_id, "rounds", str(round_number), "deal")
    return ApiCall("POST", path, DealState, {}, authorization=f"Bearer {token}")


def standings(
    tournament_id: str, invite_code: str | None, player: str | None, token: str | None = None
) -> ApiCall[Standings]:
    query = f"?{urlencode({'player': player})}" if player is not None else ""
    path = _tournament_path(tournament_id, "standings") + query
    authorization = None if token is None else f"Bearer {token}"
    return ApiCall("GET", path, Standings, None, authorization, invite_code, limit=TOURNAMENT_LIMIT)


def settlement(
    tournament_id: str, invite_code: str | None, payments: bool, cursor: str | None
) -> ApiCall[SettlementPage]:
    query = urlencode(
        {"payments": "true", **({"cursor": cursor} if cursor else {})} if payments else {}
    )
    path = _tournament_path(tournament_id, "settlement") + (f"?{query}" if query else "")
    return ApiCall("GET", path, SettlementPage, invite_code=invite_code, limit=TOURNAMENT_LIMIT)


def close_tournament(tournament_id: str) -> ApiCall[Tournament]:
    path = _tournament_path(tournament_id, "close")
    return ApiCall("POST", path, Tournament, {}, limit=TOURNAMENT_LIMIT)


def export_tournament(tournament_id: str, token: str | None = None) -> ApiCall[TournamentExport]:
    path = _tournament_path(tournament_id, "export")
    authorization = None if token is None else f"Bearer {token}"
    return ApiCall("GET", path, TournamentExport, None, authorization, limit=EXPORT_LIMIT)


def jwks() -> ApiCall[JWKS]:
    return ApiCall("GET", "/.well-known/jwks.json", JWKS, limit=KEY_LIMIT)


def log_key() -> ApiCall[str]:
    return ApiCall("GET", "/log/key", str, limit=KEY_LIMIT)


def log_checkpoint() -> ApiCall[str]:
    return ApiCall("GET", "/log/checkpoint", str, limit=KEY_LIMIT)


def log_proof(leaf: bytes) -> ApiCall[LogProof]:
    return ApiCall("GET", f"/log/proof/{leaf.hex()}", LogProof, limit=KEY_LIMIT)


def health() -> ApiCall[Health]:
    return ApiCall("GET", "/healthz", Health)


def ready() -> ApiCall[Readiness]:
    return ApiCall("GET", "/readyz", Readiness)
