"""The deals protocol (DESIGN.md section 3): commit, deal, reveal move by move, receipt.

Commitment ids carry their own expiry and a MAC, so making one writes nothing; the
server seed is HMAC-SHA256(master key, commitment id), so any replica can derive it
and none stores it. The store keeps which commitments were used and each deal's log;
a game's state is always a replay of that log on the derived deck.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
from litestar.plugins.problem_details import ProblemDetailsException

from cardproof.deal import ALGORITHM, MAX_CLIENT_SEED_BYTES, seed_hash
from cardproof.errors import IllegalMove, RuleError
from cardproof.games import Game, parse_moves, replay_log, variant
from cardproof.games.base import set_fields
from cardproof.hands import Score
from cardproof.models import (
    Commitment,
    DealRequest,
    DealSpec,
    DealState,
    MoveObject,
    MoveRequest,
    MoveResult,
    ReceiptResponse,
    VerifyRequest,
    VerifyResult,
    View,
    check_log_text,
    check_move_text,
)
from cardproof.receipts import RECEIPT_VERSION, ReceiptKind, ReceiptPayload
from cardproof.receipts import b64url as _b64url
from cardproof.receipts import b64url_decode as _b64url_decode
from cardproof.tournaments import round_deal
from cardproof_service import endings
from cardproof_service.entrants import require_entrant
from cardproof_service.idempotency import REPLAY_WINDOW
from cardproof_service.keys import Keys
from cardproof_service.metrics import GAMES_FINISHED, GAMES_STARTED
from cardproof_service.problems import problem
from cardproof_service.settings import Settings
from cardproof_service.store import (
    Appended,
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    OpenTournament,
    Placement,
    RoundStarted,
    Store,
    TournamentRecord,
)
from cardproof_service.store.keys import id_tag, new_deal_id

if TYPE_CHECKING:
    from cardproof_service.lockstep import Rounds

_DEAL_FORMS = (
    frozenset({"cards"}),
    frozenset({"deal_id"}),
    frozenset({"server_seed", "client_seed"}),
)
_NONCE = 16
_TAG = 12
DAY = 24 * 3600
REPLAY_ON_LOOP = 300
"""Moves a replay may have on the event loop (well under a millisecond); longer ones run
in the replay threads."""
REPLAY_THREADS = 2
RESEND_WINDOW = 600
"""Seconds after a game's finish in which a verify of its played log may be a whole log
resent after a 503: confirmed (and its game out of flight) before it is answered. Later,
a verify only reads."""


def now() -> int:
    """Seconds since the Unix epoch."""
    return int(time.time())


def rfc3339(seconds: int) -> str:
    """Seconds since the epoch as RFC 3339 UTC, to the second."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def tournament_closed(tournament: TournamentRecord) -> bool:
    """Whether a tournament has closed (by its organizer, or at its closing time)."""
    return tournament.closed_at is not None or now() >= tournament.closes_at


def round_commitment_id(tournament_id: str, round_number: int) -> str:
    """The commitment id whose server seed deals round ``round_number`` (1-based)."""
    return f"{tournament_id}:round-{round_number}"


def final_total(game: Game[Any, Any]) -> int | None:
    """A finished, scored game's total (what a tournament's standings count), else None."""
    return game.score().total if game.is_over() and game.is_complete() else None


def not_found(detail: str, code: str) -> ProblemDetailsException:
    """404 naming what is missing."""
    return problem(404, detail, type_="/problems/not-found", code=code)


def conflict(detail: str, code: str, **extra: Any) -> ProblemDetailsException:
    """409: the request does not fit the resource's state."""
    return problem(409, detail, type_="/problems/conflict", code=code, **extra)


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


@dataclass(slots=True)
class Cached:
    """A game this process played, with its tournament seat if it is a tournament's."""

    game: Game[Any, Any]
    seat: Seat | None = None
    owner: str | None = None
    """The client whose games in flight it counts among (see ``max_games_in_flight``)."""


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
    ) -> None:
        """Cache ``game``, dropping the least recently used one if full."""
        self._games[deal_id] = Cached(game, seat, owner)
        self._games.move_to_end(deal_id)
        if len(self._games) > self._size:
            self._games.popitem(last=False)

    def pop(self, deal_id: str, default: None = None) -> Cached | None:
        """Forget a game (its copy is stale)."""
        return self._games.pop(deal_id, default)


@dataclass
class Deals:
    """The deals flow over a store; one per app, shared by every request."""

    store: Store
    keys: Keys
    settings: Settings
    _games: GameCache = field(default_factory=GameCache)
    _replays: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(REPLAY_THREADS, "cardproof-replay")
    )
    """Where long replays run: off the event loop, at most ``REPLAY_THREADS`` at once."""
    rounds: Rounds | None = None
    """The lockstep rounds (set by the app): a late move has its card placed by them."""

    # --- commitments ----------------------------------------------------------------

    def _tag(self, body: bytes) -> bytes:
        return hmac.digest(self.keys.master, b"cardproof-commitment\0" + body, "sha256")[:_TAG]

    def _new_commitment_id(self, expires_at: int) -> str:
        body = secrets.token_bytes(_NONCE) + expires_at.to_bytes(8, "big")
        return "c_" + _b64url(body + self._tag(body))

    def server_seed(self, commitment_id: str) -> bytes:
        """The seed a commitment stands for: derived, never stored."""
        message = b"cardproof-server-seed\0" + commitment_id.encode()
        return hmac.digest(self.keys.master, message, "sha256")

    def commit(self) -> Commitment:
        """A fresh commitment: its id and the hash of the seed it stands for."""
        expires_at = now() + self.settings.commitment_ttl
        commitment_id = self._new_commitment_id(expires_at)
        return Commitment(
            commitment_id=commitment_id,
            server_seed_hash=seed_hash(self.server_seed(commitment_id)),
            expires_at=rfc3339(expires_at),
        )

    def _check_commitment(self, commitment_id: str) -> int:
        """The expiry of a genuine commitment id (404 for any other text, a forged one).

        An id has one spelling, the text :meth:`commit` issued: ``c_`` and canonical
        base64url (:func:`cardproof.receipts.b64url_decode` refuses every other), so one
        commitment cannot open two deals under two spellings. Expired ids are returned
        too: the caller decides (a resent request may still get its deal).
        """
        try:
            raw = _b64url_decode(commitment_id[2:]) if commitment_id.startswith("c_") else b""
        except ValueError:
            raw = b""
        body, tag = raw[: _NONCE + 8], raw[_NONCE + 8 :]
        if len(raw) != _NONCE + 8 + _TAG or not hmac.compare_digest(tag, self._tag(body)):
            raise not_found("no such commitment", "unknown-commitment")
        return int.from_bytes(body[_NONCE:], "big")

    # --- deals ----------------------------------------------------------------------

    async def create(
        self, request: DealRequest, idempotency_key: str | None = None, client: str | None = None
    ) -> DealState:
        """Open a deal on a commitment (claimed once) or, for casual play, without one.

        A request resent with the same ``Idempotency-Key`` gets the deal the first one
        opened; any other second use of the commitment is a 409. The deal counts among
        ``client``'s games in flight until it finishes or expires, and among its deals
        of the day (UTC); over the cap (``max_games_in_flight``) or the quota
        (``daily_deal_quota``) nothing is stored and the answer is a 429.
        """
        cls = variant(request.variant)
        client_seed = request.client_seed or _b64url(secrets.token_bytes(16))
        if len(client_seed.encode()) > MAX_CLIENT_SEED_BYTES:
            raise RuleError(
                "client-seed-too-long",
                f"a client seed is at most {MAX_CLIENT_SEED_BYTES} UTF-8 bytes",
                field="client_seed",
            )
        claim = None
        if isinstance(request.commitment_id, str):
            commitment_id = request.commitment_id
            expires_at = self._check_commitment(commitment_id)
            deal_id = new_deal_id(id_tag(commitment_id))  # written with its claim, in one step
            if expires_at <= now():  # only a resent request may still get its deal
                first = await self.store.get_claim(commitment_id) if idempotency_key else None
                if first is not None:
                    return await self._repeat(first, idempotency_key, request, deal_id)
                raise not_found(
                    f"the commitment expired at {rfc3339(expires_at)}", "expired-commitment"
                )
            mark = msgspec.msgpack.encode([deal_id, _replay_key(idempotency_key, request)])
            claim = Claim(commitment_id, mark, max(REPLAY_WINDOW, expires_at - now()))
        else:
            commitment_id = self._new_commitment_id(now())
            deal_id = new_deal_id(id_tag(commitment_id))
        seed = self.server_seed(commitment_id)
        options = cls.resolve_options(cls.parse_options(request.options), seed, client_seed)
        record = DealRecord(
            deal_id=deal_id,
            variant=cls.id,
            options=msgspec.to_builtins(options),
            commitment_id=commitment_id,
            client_seed=client_seed,
            committed=claim is not None,
            created_at=now(),
            owner=client if self.settings.max_games_in_flight or self._quota(client) else None,
        )
        first = await self.store.create_deal(
            record,
            self.settings.deal_ttl,
            claim,
            self.settings.max_games_in_flight,
            self._quota(client),
        )
        if first is not None:
            return await self._repeat(first, idempotency_key, request, deal_id)
        GAMES_STARTED.labels(cls.id).inc()
        game = self._replay(record)
        self._games.put(deal_id, game, owner=record.owner)
        return self._state(record, game)

    def _quota(self, client: str | None) -> DailyQuota | None:
        """Today's quota of deals for ``client`` (``None``: no quota, or no client known)."""
        limit = self.settings.daily_deal_quota
        if not limit or client is None:
            return None
        current = now()
        return DailyQuota(client, limit, current // DAY, DAY - current % DAY)

    async def create_round_game(
        self,
        tournament: TournamentRecord,
        round_number: int,
        commitment_id: str,
        entrant_id: str,
        player: str,
        idempotency_key: str | None = None,
    ) -> DealState:
        """Open ``player``'s game on a tournament round: once, dealt from the round's seed.

        Every entrant's game of the round has the same seed (``commitment_id``'s) and the
        same client seed (the tournament's salt), so the same cards. The deal and the
        entrant's claim on the round last until the tournament closes and a deal's time
        to live after that.
        """
        cls = variant(tournament.variant)
        seed = self.server_seed(commitment_id)
        options, _ = round_deal(cls.id, tournament.options, seed, tournament.salt)
        deal_id = new_deal_id(id_tag(tournament.tournament_id))  # with its standings, in one step
        record = DealRecord(
            deal_id=deal_id,
            variant=cls.id,
            options=msgspec.to_builtins(options),
            commitment_id=commitment_id,
            client_seed=tournament.salt,
            committed=True,
            created_at=now(),
            tournament=tournament.tournament_id,
            round=round_number,
            entrant=entrant_id,
            player=player,
            tournament_expires_at=tournament.expires_at,
            lockstep=tournament.format == "lockstep",
        )
        ttl = self.tournament_ttl(tournament)
        claim_id = f"{tournament.tournament_id}:{entrant_id}:round-{round_number}"
        mark = msgspec.msgpack.encode([deal_id, idempotency_key or ""])
        try:
            first = await self.store.create_deal(record, ttl, Claim(claim_id, mark, ttl))
        except RoundStarted:
            raise conflict(
                f"round {round_number} has started: its seats were taken before its first "
                "call, and nobody is seated after it",
                "round-started",
            ) from None
        if first is None:
            GAMES_STARTED.labels(cls.id).inc()
        else:
            first_deal, first_key = msgspec.msgpack.decode(first, type=tuple[str, str])
            if first_deal == deal_id or (idempotency_key and idempotency_key == first_key):
                # a retry, or this request's own write resent after a lost reply
                found = await self.store.get_deal(first_deal)
                if found is not None:
                    await self.store.confirm_deal(first_deal)  # this answer acknowledges it
                    return await self._current_state(found)
            raise conflict(
                f"{player} has opened round {round_number} already (deal {first_deal}): "
                "one game per round, no second try",
                "round-played",
                deal_id=first_deal,
            )
        game = self._replay(record)
        self._games.put(deal_id, game, self._seat(record, tournament))
        return self._state(record, game, called=-1 if record.lockstep else None)  # seated: blind

    def tournament_ttl(self, tournament: TournamentRecord) -> int:
        """Seconds a tournament's games are kept from now: as long as the tournament.

        That is its closing time plus the retention (``expires_at``); never the deal TTL:
        a game paused for days while its tournament is open stays.
        """
        expires_at = tournament.expires_at
        if expires_at is None:  # a record from before tournaments expired
            expires_at = tournament.closes_at + self.settings.tournament_retention
        return max(1, expires_at - now())

    async def _repeat(
        self,
        first_claim: bytes,
        idempotency_key: str | None,
        request: DealRequest,
        deal_id: str,
    ) -> DealState:
        """The answer to a deal request on a commitment that is already claimed.

        The claim may be this very request's (``deal_id``): its write was resent after a
        lost reply. Then, as for a retry with the same ``Idempotency-Key``, the answer is
        the deal the claim names.
        """
        first_deal, first_key = msgspec.msgpack.decode(first_claim, type=tuple[str, str])
        ours = _replay_key(idempotency_key, request)
        if idempotency_key and first_key != ours and first_key.startswith(f"{idempotency_key}\0"):
            raise RuleError(
                "idempotency-key-reused",
                "this Idempotency-Key was sent with another request: send a fresh one",
                field="Idempotency-Key",
            )
        if first_deal == deal_id or (idempotency_key and ours == first_key):
            record = await self.store.get_deal(first_deal)
            if record is not None:
                await self.store.confirm_deal(first_deal)  # this answer acknowledges it
                return await self._current_state(record)
        raise conflict("this commitment was used for a deal already", "commitment-used")

    async def _record(self, deal_id: str) -> DealRecord:
        record = await self.store.get_deal(deal_id)
        if record is None:
            raise not_found(f"no deal {deal_id!r} (it may have expired)", "unknown-deal")
        return record

    def _cards_of(self, record: DealRecord) -> tuple[Any, ...]:
        cls = variant(record.variant)
        options = cls.parse_options(record.options)
        return cls.deal_cards(self.server_seed(record.commitment_id), record.client_seed, options)

    def _replay(self, record: DealRecord, upto: int | None = None) -> Game[Any, Any]:
        moves = record.moves if upto is None else record.moves[:upto]
        cards = self._cards_of(record)
        return replay_log(record.variant, cards, record.options, " ".join(moves), dealt=True)

    def _state(
        self, record: DealRecord, game: Game[Any, Any], called: int | None = None
    ) -> DealState:
        """The deal's state; with ``called``, no card the round has not called yet."""
        score = game.score() if game.is_complete() else None
        view = game.visible()
        if called is not None:
            view = uncalled_hidden(view, len(game.moves), called)
        return self._state_of(record, view, score)  # type: ignore[arg-type]

    def _state_of(self, record: DealRecord, view: View, score: Score | None) -> DealState:
        return DealState(
            deal_id=record.deal_id,
            variant=record.variant,
            options=record.options,
            server_seed_hash=seed_hash(self.server_seed(record.commitment_id)),
            client_seed=record.client_seed,
            committed_before_client_seed=record.committed,
            next_index=len(record.moves),
            finished=record.finished_at is not None,
            moves=" ".join(record.moves),
            view=view,
            score=score,
        )

    async def state(self, deal_id: str, authorization: str | None = None) -> DealState:
        """The deal as its player may see it now (a tournament game: for its entrant only).

        A finished game answers its stored final view and score, with no replay; a game
        in progress is replayed, off the event loop when its log is long.
        """
        record = await self._record(deal_id)
        self._check_reader(record, authorization)
        return await self._current_state(record)

    async def _current_state(self, record: DealRecord) -> DealState:
        """A stored deal as it stands: a finished one from its ending, else replayed."""
        if record.ending is not None:
            final = endings.last_answer(record.ending)
            return self._state_of(record, final.view, final.score)
        called = await self._called(record)
        return self._state(record, await self._replay_off_loop(record), called)

    async def _called(self, record: DealRecord) -> int | None:
        """A lockstep seat's round's call index (-1 before its start); ``None`` for others."""
        if not record.lockstep or record.tournament is None or record.round is None:
            return None
        state = await self.store.round_state(record.tournament, record.round)
        return state.turns if state.finished else state.call

    async def _replay_off_loop(self, record: DealRecord, upto: int | None = None) -> Game[Any, Any]:
        """:meth:`_replay`, in the bounded replay threads when the log is long."""
        if len(record.moves) <= REPLAY_ON_LOOP:
            return self._replay(record, upto)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._replays, self._replay, record, upto)

    def _ending(
        self, record: DealRecord, game: Game[Any, Any], last: MoveResult, finished_at: int
    ) -> Ending:
        """A finishing game's receipt (and a tournament's with its seed) and last answer.

        Signed and packed once, here: from then on the game is read, never replayed.
        """
        if not game.is_complete():  # a dead end: no score, no receipt
            return endings.pack(self.keys.signing, last, None)
        seed = self.server_seed(record.commitment_id)
        payload = receipt_payload(
            game,
            seed,
            record.client_seed,
            deal_id=record.deal_id,
            kind=self._kind(record),
            blind=record.blind,
            committed=record.committed,
            issued_at=finished_at,
            reveal=record.tournament is None,
            player=record.player,
            tournament=record.tournament,
            auto_placed=sorted(record.auto_placed) if record.lockstep else None,
        )
        revealed = None
        if record.tournament is not None:
            revealed = msgspec.structs.replace(payload, server_seed=seed.hex())
        return endings.pack(self.keys.signing, last, payload, revealed)

    @staticmethod
    def _read_move(cls: type[Game[Any, Any]], request: MoveRequest) -> Any:
        if isinstance(request.move, MoveObject):
            return cls.move_from_object(request.move, request.index)
        return cls.move_from_text(check_move_text(request.move, "move"), request.index)

    async def play(
        self, deal_id: str, request: MoveRequest, authorization: str | None = None
    ) -> MoveResult:
        """Append one move at ``request.index``; a resent move gets the same answer.

        The fast path plays on this process's copy of the game and appends in one store
        step; the append script refuses it if the copy is stale (another replica moved,
        or a late card was placed for the player), or if the game's tournament was
        closed, and then the slow path reads the deal and decides. A tournament game's
        copy keeps its :class:`Seat`: the entrant's token (``authorization``) and the
        closing time are checked on it, before the move is read.
        """
        index = request.index
        cached = self._games.get(deal_id)
        if cached is not None and index == len(cached.game.moves) and not cached.game.is_over():
            game: Game[Any, Any] | None = cached.game
            seat = cached.seat
            ttl = self._keep_for(seat)
            if seat is not None:
                if now() >= seat.closes_at:
                    game = None  # closed by time: the slow path says so
                else:
                    require_entrant(
                        self.keys.master, authorization, seat.tournament, now(), seat.entrant
                    )
            if game is not None:
                move = self._read_move(type(game), request)
                try:
                    game.play(move)
                except IllegalMove:
                    game = None  # maybe only illegal on a stale copy: let the slow path judge
            if game is not None and not game.is_over():  # a last move signs: the slow path
                self._games.pop(deal_id)  # back in the cache only once the store took it
                placement = seat_placement(seat, game)
                outcome = await self.store.append_move(
                    deal_id,
                    index,
                    game.move_text(move),
                    None,
                    ttl,
                    placement=placement,
                    open_tournament=open_of(seat),
                    owner=cached.owner,
                    tournament=seat.tournament if seat is not None else None,
                )
                if outcome.outcome == "appended":
                    self._games.put(deal_id, game, seat, cached.owner)
                    return self._result(game, index, outcome.call if placement else None)
            self._games.pop(deal_id)
        return await self._play_slowly(deal_id, request, authorization)

    def _check_reader(self, record: DealRecord, authorization: str | None) -> None:
        """A tournament game is read (its view, its receipt) with its entrant's token only.

        401/403 as :func:`require_entrant` says, before anything about the game is read;
        the token may have expired (the tournament closed): reading stays the entrant's.
        """
        if record.tournament is not None:
            require_entrant(
                self.keys.master,
                authorization,
                record.tournament,
                now(),
                record.entrant,
                allow_expired=True,
            )

    async def _check_entrant(self, record: DealRecord, authorization: str | None) -> Seat | None:
        """Who may move: for a tournament game, its entrant, while the tournament is open.

        Returns a tournament game's :class:`Seat` (what its next moves check on a cached
        copy); ``None`` for a plain deal.
        """
        if record.tournament is None:
            return None
        require_entrant(self.keys.master, authorization, record.tournament, now(), record.entrant)
        tournament = await self.store.get_tournament(record.tournament)
        if tournament is None or tournament_closed(tournament):
            raise tournament_is_closed()
        return self._seat(record, tournament)

    def _seat(self, record: DealRecord, tournament: TournamentRecord) -> Seat:
        """A tournament game's :class:`Seat`, from its record and its tournament's."""
        return Seat(
            tournament.tournament_id,
            record.entrant or "",
            record.round or 0,
            record.lockstep,
            tournament.closes_at,
            now() + self.tournament_ttl(tournament),
        )

    def _keep_for(self, seat: Seat | None) -> int:
        """Seconds a deal is kept after a move: the deal TTL, or its tournament's lifetime."""
        return self.settings.deal_ttl if seat is None else max(1, seat.expires_at - now())

    async def _play_slowly(
        self, deal_id: str, request: MoveRequest, authorization: str | None
    ) -> MoveResult:
        record = await self._record(deal_id)
        seat = await self._check_entrant(record, authorization)
        ttl = self._keep_for(seat)
        cls = variant(record.variant)
        index = request.index
        move = self._read_move(cls, request)
        text = cls.move_text(move)
        for _ in range(2):  # a second pass only if another request appended meanwhile
            if index < len(record.moves) and index in record.auto_placed:
                raise placed_for_you(record, index)
            if index < len(record.moves):
                if record.moves[index] != text:
                    raise conflict(
                        f"move {index} is {record.moves[index]}, not {text}: the first one stands",
                        "move-conflict",
                        move_index=index,
                    )
                # an answer acknowledges it; a finished game's first attempt may not
                # have taken it out of its owner's games in flight
                finished_by = record.owner if record.finished_at is not None else None
                await self.store.confirm_deal(deal_id, finished_by)
                if index == len(record.moves) - 1 and record.ending is not None:
                    return endings.last_answer(record.ending)  # the last: as it was
                game = await self._replay_off_loop(record, index + 1)
                return self._result(game, index, await self._called(record))
            if record.finished_at is not None:
                raise conflict("the game is over", "game-over", move_index=index)
            if index > len(record.moves):
                raise conflict(
                    f"move {index} is not next: the next index is {len(record.moves)}",
                    "wrong-index",
                    move_index=index,
                    next_index=len(record.moves),
                )
            game = await self._replay_off_loop(record)
            game.play(move)  # an illegal move raises with move_index == index
            finished_at = now() if game.is_over() else None
            ending = None
            if finished_at is not None:
                ending = self._ending(record, game, self._result(game, index), finished_at)
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
                if game.is_over():
                    GAMES_FINISHED.labels(game.id).inc()
                else:
                    self._games.put(deal_id, game, seat, record.owner)
                return self._result(game, index, outcome.call if placement else None)
            if outcome.outcome == "missing":
                raise not_found(f"no deal {deal_id!r} (it may have expired)", "unknown-deal")
            if outcome.outcome == "closed":
                raise tournament_is_closed()
            if outcome.outcome == "not-called":
                raise not_called(index, outcome.call)
            if outcome.outcome in {"late", "early"} and self.rounds is not None:
                await self.rounds.place_late(record)
                record = await self._record(deal_id)
                if index < len(record.moves) and index in record.auto_placed:
                    raise placed_for_you(record, index)
                raise conflict(
                    f"move {index} came after its card's deadline: the card is being placed "
                    "for you",
                    "deadline-passed",
                    move_index=index,
                )
            record = await self._record(deal_id)
        raise conflict("the deal changed while this move was checked; send it again", "retry")

    def _result(self, game: Game[Any, Any], index: int, called: int | None = None) -> MoveResult:
        """The answer to move ``index``; with ``called``, no card the round has not called."""
        finished = game.is_over()
        view = game.visible()
        if called is not None:
            view = uncalled_hidden(view, len(game.moves), called)
        return MoveResult(
            index=index,
            finished=finished,
            view=view,  # type: ignore[arg-type]
            score=game.score() if game.is_complete() else None,
        )

    # --- receipts -------------------------------------------------------------------

    def _kind(self, record: DealRecord) -> ReceiptKind:
        """What a receipt of this deal proves (see :data:`cardproof.receipts.ReceiptKind`)."""
        if record.tournament is not None:
            return "tournament"
        if not record.committed:
            return "casual"
        cls = variant(record.variant)
        hidden = cls.information_of(cls.parse_options(record.options)) == "hidden"
        return "committed-blind" if hidden and record.blind else "committed-open"

    async def _payload(self, record: DealRecord, game: Game[Any, Any]) -> ReceiptPayload:
        """A finished deal's receipt content; a tournament's seed stays hidden until it closes."""
        reveal = True
        if record.tournament is not None:
            tournament = await self.store.get_tournament(record.tournament)
            reveal = tournament is None or tournament_closed(tournament)
        return receipt_payload(
            game,
            self.server_seed(record.commitment_id),
            record.client_seed,
            deal_id=record.deal_id,
            kind=self._kind(record),
            blind=record.blind,
            committed=record.committed,
            issued_at=record.finished_at or now(),
            reveal=reveal,
            player=record.player,
            tournament=record.tournament,
        )

    async def receipt(self, deal_id: str, authorization: str | None = None) -> ReceiptResponse:
        """The signed receipt of a finished deal (a tournament game's: for its entrant).

        It was signed when the game ended and is read as stored: no replay, no signing.
        """
        record = await self._record(deal_id)
        self._check_reader(record, authorization)
        if record.finished_at is None:
            raise conflict(
                f"the game is not over: the next move is {len(record.moves)}", "not-finished"
            )
        return await self._stored_receipt(record)

    async def _stored_receipt(self, record: DealRecord) -> ReceiptResponse:
        """A finished game's receipt as stored: no replay, no signing.

        A tournament game's is the revealed one once its tournament has closed; a game
        stored before receipts were gets one signed now.
        """
        ending = record.ending
        if ending is None:
            game = await self._replay_off_loop(record)
            if not game.is_complete():
                raise RuleError("incomplete", game.incomplete_reason(), field="moves")
            payload = await self._payload(record, game)
            return ReceiptResponse(receipt=self.keys.signing.sign(payload), payload=payload)
        revealed = True
        if record.tournament is not None:
            tournament = await self.store.get_tournament(record.tournament)
            revealed = tournament is None or tournament_closed(tournament)
        stored = endings.receipt(ending, revealed=revealed)
        if stored is None:
            raise RuleError(
                "incomplete", "the game ended at a dead end: it is not scored", field="moves"
            )
        return stored

    # --- whole-log verification -----------------------------------------------------

    async def verify(
        self, request: VerifyRequest, authorization: str | None = None
    ) -> VerifyResult:
        """Replay a complete log on any of the three deal forms."""
        deal = request.deal
        if frozenset(set_fields(deal)) not in _DEAL_FORMS:
            raise RuleError(
                "bad-deal-form",
                "deal takes exactly one of: {cards}, {deal_id}, {server_seed, client_seed}",
                field="deal",
            )
        moves = check_log_text(request.moves) if isinstance(request.moves, str) else request.moves
        if isinstance(deal.cards, list):
            return verify_cards(request, deal.cards, moves)
        if isinstance(deal.deal_id, str):
            return await self._verify_deal(request, deal.deal_id, moves, authorization)
        return self._verify_seeds(request, deal, moves)

    def _verify_seeds(self, request: VerifyRequest, deal: DealSpec, moves: Any) -> VerifyResult:
        """A seed pair the caller chose: signed as ``practice`` (it proves the arithmetic)."""
        cls = variant(request.variant)
        seed = bytes.fromhex(str(deal.server_seed))
        client_seed = str(deal.client_seed)
        options = cls.resolve_options(cls.parse_options(request.options), seed, client_seed)
        cards = cls.deal_cards(seed, client_seed, options)
        game = replay_log(cls.id, cards, options, moves, dealt=True)
        payload = receipt_payload(
            game,
            seed,
            client_seed,
            deal_id=None,
            kind="practice",
            blind=False,
            committed=False,
            issued_at=now(),
        )
        return self._verified(payload)

    def _verified(self, payload: ReceiptPayload) -> VerifyResult:
        """A payload signed now, as the answer of a verification."""
        signed = ReceiptResponse(receipt=self.keys.signing.sign(payload), payload=payload)
        return self._as_verified(signed)

    async def _verify_deal(
        self, request: VerifyRequest, deal_id: str, moves: Any, authorization: str | None
    ) -> VerifyResult:
        """A whole log on a stored deal: the caller first, then never a card oracle.

        A tournament game takes its entrant's token before anything else is looked at.
        A hidden deal (and any deal already played) accepts only the log it was played
        with, once finished: any other log is a 409, refused without replaying it, so no
        log can probe the deck. An unplayed open deal takes a whole log as its game.
        """
        record = await self._record(deal_id)
        self._check_reader(record, authorization)
        cls = variant(record.variant)
        if cls.id != request.variant:
            raise RuleError(
                "variant-mismatch", f"deal {deal_id} is a {cls.id} deal", field="variant"
            )
        options = cls.parse_options(record.options)
        if msgspec.to_builtins(self._asked_options(cls, request, record)) != record.options:
            raise RuleError(
                "options-mismatch", "the options differ from the deal's", field="options"
            )
        hidden = cls.information_of(options) == "hidden"
        if hidden or record.moves:
            texts = _canonical_log(cls, moves)  # read without the deck: nothing is replayed
            if texts != record.moves:
                raise conflict(
                    "this log is not the one this deal was played with: a deal of a hidden "
                    "variant, or one played already, takes only its played log (no log can "
                    "probe its cards or play it twice)",
                    "not-the-played-log",
                )
            if record.finished_at is None:
                raise conflict(
                    f"the game is not over: the next move is {len(record.moves)}", "not-finished"
                )
            stored = await self._stored_receipt(record)  # raises 'incomplete' for a dead end
            if now() - record.finished_at < RESEND_WINDOW:
                # maybe a resent submit, answered from what its first attempt stored
                await self.store.confirm_deal(deal_id, record.owner)
            return self._as_verified(stored)
        seat = await self._check_entrant(record, authorization)  # a whole log plays the game
        ttl = self._keep_for(seat)
        game = await asyncio.get_running_loop().run_in_executor(
            self._replays, replay_log, cls.id, self._cards_of(record), options, moves
        )
        game.score()  # raises 'incomplete' for a short log
        texts = game.log_text().split()
        finished_at = now()
        ending = self._ending(record, game, self._result(game, len(texts) - 1), finished_at)
        outcome: Appended = await self.store.submit_log(
            deal_id,
            texts,
            finished_at,
            True,
            ttl,
            final_total(game),
            ending,
            open_of(seat),
            owner=record.owner,
            tournament=record.tournament,
        )
        if outcome.outcome == "missing":
            raise not_found(f"no deal {deal_id!r} (it may have expired)", "unknown-deal")
        if outcome.outcome == "closed":
            raise tournament_is_closed()
        if outcome.outcome == "appended":
            GAMES_FINISHED.labels(cls.id).inc()
        record = await self._record(deal_id)
        if record.moves != texts:
            raise conflict("this deal was played with another log meanwhile", "not-the-played-log")
        if outcome.outcome != "appended":  # stored by another attempt: confirmed first
            await self.store.confirm_deal(deal_id, record.owner)
        return self._as_verified(await self._stored_receipt(record))

    @staticmethod
    def _as_verified(stored: ReceiptResponse) -> VerifyResult:
        """A stored receipt as the answer of a verification."""
        payload = stored.payload
        return VerifyResult(
            variant=payload.variant,
            options=payload.options,
            moves=payload.moves,
            score=payload.score,
            receipt=stored.receipt,
            payload=payload,
        )

    def _asked_options(
        self, cls: type[Game[Any, Any]], request: VerifyRequest, record: DealRecord
    ) -> Any:
        """The options a verify request names, resolved on the deal's seeds."""
        seed = self.server_seed(record.commitment_id)
        return cls.resolve_options(cls.parse_options(request.options), seed, record.client_seed)


def next_card(game: Game[Any, Any]) -> str | None:
    """The card the game places next, if its view names one (a common card to call)."""
    upcoming = getattr(game.visible(), "next", None)
    return upcoming if isinstance(upcoming, str) else None


def uncalled_hidden(view: Any, placed: int, called: int) -> Any:
    """``view`` without the next card while it has not been called (a lockstep seat waits).

    ``placed`` moves are made; the next card is card ``placed``, shown once ``called``
    has reached it.
    """
    if placed > called and getattr(view, "next", None) is not None:
        return msgspec.structs.replace(view, next=None)
    return view


def open_of(seat: Seat | None) -> OpenTournament | None:
    """What a player's write to a tournament game needs of the store: its tournament open."""
    return None if seat is None else OpenTournament(seat.tournament, seat.closes_at)


def seat_placement(seat: Seat | None, game: Game[Any, Any]) -> Placement | None:
    """A lockstep seat's move as its round places it (the next call's card); else ``None``."""
    if seat is None or not seat.lockstep:
        return None
    return Placement(seat.tournament, seat.round, "player", (), next_card(game))


def tournament_is_closed() -> ProblemDetailsException:
    """409 ``closed``: a move of a tournament game after its tournament closed."""
    return conflict("the tournament is closed: its games are over", "closed")


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


def _canonical_log(cls: type[Game[Any, Any]], moves: str | list[MoveObject]) -> list[str]:
    """A submitted log's moves in canonical text, read by the variant alone (no deck)."""
    return [cls.move_text(move) for move in parse_moves(cls, moves)]


def _replay_key(idempotency_key: str | None, request: DealRequest) -> str:
    """What a claim records of the request: its key and a digest of its body.

    A resent request must be the same request: the same key with another body (another
    variant, options or client seed) is refused rather than answered with the first deal.
    """
    if not idempotency_key:
        return ""
    digest = hashlib.sha256(msgspec.json.encode(request)).hexdigest()[:24]
    return f"{idempotency_key}\0{digest}"


def receipt_payload(
    game: Game[Any, Any],
    server_seed: bytes,
    client_seed: str,
    *,
    deal_id: str | None,
    kind: ReceiptKind,
    blind: bool,
    committed: bool,
    issued_at: int,
    reveal: bool = True,
    player: str | None = None,
    tournament: str | None = None,
    auto_placed: list[int] | None = None,
) -> ReceiptPayload:
    """What a receipt attests for a complete ``game`` dealt from this seed pair.

    ``reveal`` false leaves the server seed out (a tournament's, until it closes);
    ``auto_placed`` lists a lockstep game's moves placed for the player.
    """
    return ReceiptPayload(
        version=RECEIPT_VERSION,
        variant=game.id,
        options=msgspec.to_builtins(game.options),
        deal_id=deal_id,
        algorithm=ALGORITHM,
        server_seed_hash=seed_hash(server_seed),
        server_seed=server_seed.hex() if reveal else None,
        client_seed=client_seed,
        moves=game.log_text(),
        score=game.score(),
        blind=blind,
        committed_before_client_seed=committed,
        issued_at=issued_at,
        kind=kind,
        player=player,
        tournament=tournament,
        auto_placed=auto_placed,
    )


def verify_cards(request: VerifyRequest, cards: list[str], moves: Any) -> VerifyResult:
    """Replay a log on an explicit card order; the result is unsigned (practice)."""
    cls = variant(request.variant)
    options = cls.resolve_options(cls.parse_options(request.options), None, None)
    game = replay_log(cls.id, cls.parse_cards(cards, field="deal.cards"), options, moves)
    return VerifyResult(
        variant=game.id,
        options=msgspec.to_builtins(game.options),
        moves=game.log_text(),
        score=game.score(),
    )
