"""The HTTP API's request and response types, shared by the service and the client.

Every request type forbids unknown fields; the service decodes bodies with these
types strictly, and the OpenAPI spec is generated from them, so the schema a client
reads is exactly what the server enforces. Values that match the schema but break a
rule (a duplicate card, an illegal move) are answered 422, not 400.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar, Final, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from cardproof.cards import CARD_PATTERN, CardShown
from cardproof.errors import ParseError
from cardproof.games import (
    VARIANTS,
    Cell,
    GridView,
    ReserveView,
    RowsView,
    SoloDrezMove,
    SoloDrezView,
)
from cardproof.games.base import log_tokens
from cardproof.hands import CustomTable, Score, TableName
from cardproof.pokerdrez import ANY_CARD_PATTERN, POKERDREZ_CARD_PATTERN, DeckCardShown
from cardproof.receipts import JWKS, ReceiptPayload
from cardproof.tables import GeneratedName
from cardproof.tlog.inclusion import LogProof

CardText = Annotated[
    str,
    Meta(
        pattern=CARD_PATTERN,
        description="A card: rank (2-9, T or 10, J, Q, K, A) then suit (C D H S or ♣ ♦ ♥ ♠), "
        "any case; JK is the joker. Responses always use the canonical form, like 'TD'.",
        examples=["AH", "10d", "q♠"],
    ),
]
VariantId = Annotated[
    str,
    Meta(
        pattern="^(?:" + "|".join(re.escape(v) for v in VARIANTS) + ")(?![\\s\\S])",
        description="A variant id (see GET /v1/variants).",
        extra_json_schema={"enum": list(VARIANTS)},
    ),
]
DeckCardText = Annotated[
    str,
    Meta(
        pattern=ANY_CARD_PATTERN,
        description="A card of the variant's deck: a standard card ('AH', '10d', 'JK' the "
        "joker) or, for solodrez, a Pokerdrez card: figure (J Q T B N P) then colour 1..9, "
        "like 'Q3', or a neutral X1 / X2; any case.",
        examples=["AH", "10d", "Q3"],
    ),
]
PokerdrezCardText = Annotated[
    str,
    Meta(
        pattern=POKERDREZ_CARD_PATTERN,
        description="A Pokerdrez card: figure (J Q T B N P) then colour 1..9, like 'Q3', or "
        "a neutral X1 / X2; any case.",
        examples=["Q3", "x1"],
    ),
]
GridRow = Annotated[list[CardText], Meta(min_length=5, max_length=5)]
Layout = Annotated[
    list[GridRow],
    Meta(min_length=5, max_length=5, description="Five rows of five cards, top row first."),
]
DeckOrder = Annotated[
    list[DeckCardText],
    Meta(
        min_length=1,
        max_length=260,
        description="Cards in deal order, first card first (repeat-poker's 5 levels: 260).",
    ),
]
Coordinate = Annotated[int, Meta(ge=-4, le=4)]
ColumnIndex = Annotated[int, Meta(ge=0, le=8)]

_OVERLAPPING = {"r[0-8]", "[rR][1-5]"}
"""Token forms that match the same text (``r1``: a solodrez removal, a repeat-poker row)."""
_FORMS = {form for cls in VARIANTS.values() for form in cls.move_token.split("|")}
"""Every variant's move token forms (a ``move_token`` is an alternation of plain forms)."""
if not _OVERLAPPING <= _FORMS:  # a variant changed its forms: merge the overlap anew
    raise RuntimeError(f"move forms changed: {sorted(_OVERLAPPING - _FORMS)} are gone")
_TOKEN = "(?:" + "|".join(sorted(_FORMS - _OVERLAPPING)) + "|[rR][0-8])"
"""One move of some variant, as text; no two forms match the same token, so that a
pattern built from it has one way to match (``R7`` reads here, and its variant refuses it)."""
LOG_PATTERN = rf"^[ \t\n\r]*(?:{_TOKEN}(?:[ \t\n\r]+{_TOKEN})*[ \t\n\r]*)?$"
"""Every string that reads as a move log of some variant (checked by ``check_log_text``);
moves are separated by JSON's four white space characters only (``games.base.LOG_SPACE``)."""
LOG_MAX_LENGTH = 80_000
"""Characters of a log in text form: room for solodrez's 10,000 moves."""
# The pattern is stated in the schema but checked in code: msgspec 0.21-0.22 corrupts
# memory when a pattern-constrained str shares a union with an array of structs.
LogText = Annotated[
    str,
    Meta(
        description="A whole move log in text form: moves separated by spaces, like 'c3 a1 e5' "
        "(each variant's move text is in its description in GET /v1/variants).",
        extra_json_schema={"pattern": LOG_PATTERN, "maxLength": LOG_MAX_LENGTH},
    ),
]


_ANY_MOVE = re.compile(_TOKEN)
MOVE_TOKEN_MAX = 16
"""Characters of one move's text form at most (``10:6>8`` is the longest kind)."""


def check_move_text(text: str, field: str) -> str:
    """The one move ``text`` holds, if it reads as a move of some variant (else 400)."""
    tokens = log_tokens(text)
    if len(text) > 32 or len(tokens) != 1 or not _ANY_MOVE.fullmatch(tokens[0]):
        raise ParseError(f"{field}: {text[:40]!r} is not a move in text form", field=field)
    return tokens[0]


def check_log_text(text: str) -> str:
    """``text`` if every token reads as a move of some variant (else 400 naming it).

    A token of another variant reads fine here: the variant refuses it, with a 422. Each
    token is matched alone, never the whole log against one pattern: the token forms of
    the variants overlap (``r1`` is a repeat-poker row and a solodrez removal), and a
    backtracking match of a long log that fails at its end would take exponential time.
    """
    if len(text) > LOG_MAX_LENGTH:
        raise ParseError(f"moves: a log is at most {LOG_MAX_LENGTH} characters", field="moves")
    tokens = log_tokens(text)
    if _MATCHED_TOKENS.issuperset(tokens):  # the common case, in one C-level pass
        return text
    match = _ANY_MOVE.fullmatch
    for index, token in enumerate(tokens):
        if len(token) > MOVE_TOKEN_MAX or not match(token):
            raise ParseError(
                f"moves[{index}]: {token[:40]!r} is not a move in text form",
                field=f"moves[{index}]",
            )
        if len(_MATCHED_TOKENS) < _MATCHED_TOKENS_MAX:
            _MATCHED_TOKENS.add(token)
    return text


_MATCHED_TOKENS: set[str] = set()
"""Tokens that matched a move form already (bounded: a log of new tokens is matched)."""
_MATCHED_TOKENS_MAX: Final = 4096


class Options(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Variant options; each variant takes the ones GET /v1/variants lists for it.

    ``scoring`` is a table name, an object mapping category ids to integer points
    (-1000..1000; a category left out scores 0), or a point system drawn from the deal's
    seeds (``ameritish``, ``random``, ``hypercorner``, ``single-hand``: Neller's
    Parameterized Poker Squares, ``cardproof-points-v1``), which the deal replaces by the
    table it drew. ``diagonals`` (poker-squares) also scores the two long diagonals.
    ``rows``, ``levels`` and ``high_card`` are repeat-poker's, ``version`` reserve-poker's.
    An option a variant does not take is a 422.
    """

    __schema_name__: ClassVar[str] = "VariantOptions"
    """Its name in the OpenAPI document (generators have an ``Options`` type of their own)."""

    scoring: TableName | GeneratedName | CustomTable | UnsetType = UNSET
    diagonals: bool | UnsetType = UNSET
    rows: Annotated[int, Meta(ge=1, le=5)] | UnsetType = UNSET
    levels: Literal[1, 5] | UnsetType = UNSET
    high_card: Literal["drop-top", "clear-row"] | UnsetType = UNSET
    version: Annotated[int, Meta(ge=1, le=6)] | Literal["random"] | UnsetType = UNSET


class MoveObject(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One move as an object, in the shape its variant takes.

    ``{"row": r, "col": c}`` for the grid variants, ``{"row": r}`` for repeat-poker,
    ``{"from": f, "to": c}`` for reserve-poker; for solodrez ``{"from": a, "count": n,
    "to": b}`` (move the last n cards of column a onto column b), ``{"remove": a}`` (take
    out the series in column a) or ``{"stop": true}`` (end the game).
    """

    row: Coordinate | UnsetType = UNSET
    col: Coordinate | UnsetType = UNSET
    from_: ColumnIndex | UnsetType = msgspec.field(default=UNSET, name="from")
    count: Annotated[int, Meta(ge=1, le=56)] | UnsetType = UNSET
    to: ColumnIndex | UnsetType = UNSET
    remove: ColumnIndex | UnsetType = UNSET
    stop: bool | UnsetType = UNSET


SeedHex = Annotated[
    str,
    Meta(pattern="^[0-9a-f]{64}$", description="32 bytes as lower-case hex."),
]
ClientSeed = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=256,
        description="The player's seed: any text of 1 to 256 UTF-8 bytes.",
    ),
]
DealId = Annotated[str, Meta(min_length=1, max_length=64, description="A deal id.")]
MOVE_TOKEN_PATTERN = rf"^[ \t\n\r]*{_TOKEN}[ \t\n\r]*$"
MoveText = Annotated[
    str,
    Meta(
        description="One move in text form, like 'c3'.",
        extra_json_schema={"pattern": MOVE_TOKEN_PATTERN, "maxLength": 32},
    ),
]

# --- what an answer holds ---------------------------------------------------------------
# Each id, time, digest and log in an answer is held to the one form the service writes
# (its generator is named beside each), so an answer out of form is refused as it is read
# (cardproof.errors.MalformedAnswerError): no escape, carriage return or bidi override in
# an id reaches a terminal, a file name or a URL. Free text (names) keeps its own rule: no
# C0 control character, and the CLI shows every other hidden one escaped.

_END = r"(?![\s\S])"
"""The end of a pattern: Python's ``$`` also matches before a final newline."""
DEAL_ID_PATTERN: Final = rf"^d_[A-Za-z0-9_-]{{22}}{_END}"
"""``d_``, a 2-character hash tag and 15 random bytes in base64url (``new_deal_id``)."""
TOURNAMENT_ID_PATTERN: Final = rf"^t_[0-9a-f]{{20}}{_END}"
"""``t_`` and 10 random bytes in hex (the service's ``Tournaments.create``)."""
DealIdShown = Annotated[
    str, Meta(pattern=DEAL_ID_PATTERN, description="A deal id: d_ and 22 base64url characters.")
]
TournamentIdShown = Annotated[
    str,
    Meta(pattern=TOURNAMENT_ID_PATTERN, description="A tournament id: t_ and 20 hex digits."),
]
CommitmentIdShown = Annotated[
    str,
    Meta(
        pattern=rf"^c_[A-Za-z0-9_-]{{48}}{_END}",
        description="A commitment id: c_ and 48 base64url characters (a nonce, the expiry "
        "and a tag).",
    ),
]
EntrantIdShown = Annotated[
    str, Meta(pattern=rf"^[0-9a-f]{{16}}{_END}", description="An entrant id: 16 hex digits.")
]
EntrantToken = Annotated[
    str,
    Meta(
        pattern=rf"^cpe_t_[0-9a-f]{{20}}\.[0-9a-f]{{16}}\.[0-9]{{1,12}}\.[A-Za-z0-9_-]{{24}}{_END}",
        description="An entrant token: cpe_<tournament id>.<entrant id>.<expiry>.<tag>.",
    ),
]
InviteCodeShown = Annotated[
    str, Meta(pattern=rf"^[A-Za-z0-9]{{16}}{_END}", description="16 letters and digits.")
]
HexDigest = Annotated[
    str,
    Meta(pattern=rf"^[0-9a-f]{{64}}{_END}", description="32 bytes as lower-case hex."),
]
SaltHex = Annotated[
    str, Meta(pattern=rf"^[0-9a-f]{{32}}{_END}", description="16 bytes as lower-case hex.")
]
TIME_PATTERN: Final = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
    rf"(?:[Zz]|[+-][0-9]{{2}}:[0-9]{{2}}){_END}"
)
"""RFC 3339 (the service writes UTC, to the second or the millisecond: ``rfc3339``)."""
Time = Annotated[
    str,
    Meta(pattern=TIME_PATTERN, description="RFC 3339, like 2030-12-31T18:00:00Z."),
]
Slug = Annotated[str, Meta(pattern=rf"^[a-z][a-z0-9-]{{0,63}}{_END}")]
"""A name of lower-case letters, digits and hyphens: a variant id (the spec says which:
``VariantId``), an algorithm, a deck. No description: the spec's own stays."""
MovesShown = Annotated[
    str,
    Meta(
        pattern=rf"^[0-9A-Za-z:>,+ -]*{_END}",
        max_length=LOG_MAX_LENGTH,
        description="A move log in text form, moves separated by spaces.",
    ),
]
JwsShown = Annotated[
    str,
    Meta(
        pattern=rf"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+{_END}",
        description="A compact JWS: three base64url parts.",
    ),
]
_SHOWN_CHAR = "[^\\x00-\\x1f\\x7f]"
"""A character of a name as the service keeps it: no C0 control character, no DEL."""
NameShown = Annotated[
    str,
    Meta(
        pattern=rf"^{_SHOWN_CHAR}{{1,64}}{_END}",
        description="An entrant's name: 1 to 64 characters, no C0 control character.",
    ),
]
TournamentName = Annotated[
    str,
    Meta(
        pattern=rf"^{_SHOWN_CHAR}{{1,100}}{_END}",
        description="A tournament's name: 1 to 100 characters, no C0 control character.",
    ),
]
OrganizerName = Annotated[
    str,
    Meta(
        pattern=rf"^{_SHOWN_CHAR}{{0,64}}{_END}",
        description="The organizer's name: up to 64 characters, no C0 control character "
        "(empty when not known).",
    ),
]


View = GridView | RowsView | ReserveView | SoloDrezView
"""What a player may see now; ``kind`` says which variant family's view it is."""


class DealSpec(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Which deal a log was played on, in exactly one of three forms.

    ``{"deal_id"}``: a deal this service dealt (the log becomes that deal's game);
    ``{"server_seed", "client_seed"}``: a revealed seed pair (signed, not blind);
    ``{"cards"}``: an explicit card order, for open variants and practice (unsigned).
    """

    cards: DeckOrder | UnsetType = UNSET
    deal_id: DealId | UnsetType = UNSET
    server_seed: SeedHex | UnsetType = UNSET
    client_seed: ClientSeed | UnsetType = UNSET


class ScoreRequest(Struct, forbid_unknown_fields=True):
    """Score a finished layout: no deal, no signature."""

    variant: VariantId
    layout: Layout
    options: Options = msgspec.field(default_factory=Options)


class VerifyRequest(Struct, forbid_unknown_fields=True):
    """Replay a complete move log on a deal and score it."""

    variant: VariantId
    deal: DealSpec
    moves: list[MoveObject] | LogText
    options: Options = msgspec.field(default_factory=Options)


class VerifyResult(Struct):
    """A verified game: the canonical log, the options in force, the score.

    ``receipt`` is the signed receipt (compact JWS) and ``payload`` its content; both are
    ``null`` for an explicit card order (practice).
    """

    variant: Slug
    options: dict[str, Any]
    moves: MovesShown
    score: Score
    receipt: JwsShown | None = None
    payload: ReceiptPayload | None = None


MAX_SOLVE_BUDGET = 10.0
"""The longest a solve may search, in seconds."""


SoloDrezColumns = Annotated[
    list[Annotated[list[PokerdrezCardText], Meta(max_length=56)]],
    Meta(
        min_length=9,
        max_length=9,
        description="A solodrez position: the 9 columns, each from its first card (on the "
        "table) to its last (the exposed one), as a game's view shows them.",
    ),
]


class SolveRequest(Struct, forbid_unknown_fields=True):
    """Ask for the best play of a known deal, or (solodrez) of a position in a game.

    ``cards``: the deal, in deal order. ``columns`` instead: a solodrez position (a hint
    for a game under way: the answer's moves go on from there). ``budget``: how long a
    search may take, in seconds (solodrez, and poker-squares and poker-patience hindsight;
    the serpent solver is exact and takes milliseconds).
    """

    variant: VariantId
    cards: DeckOrder | UnsetType = UNSET
    columns: SoloDrezColumns | UnsetType = UNSET
    options: Options = msgspec.field(default_factory=Options)
    budget: Annotated[float, Meta(gt=0, le=MAX_SOLVE_BUDGET)] = 2.0


class SerpentSolution(Struct):
    """The exact best score of a serpent deal, a layout reaching it, and its moves."""

    score: Score
    optimal: bool
    layout: list[list[CardShown]]
    moves: list[Cell]


HindsightMethod = Literal["branch-and-bound", "relaxation"]
"""How a hindsight par was solved: ``branch-and-bound`` (the exact search of the service's
compiled kernel) or ``relaxation`` (without it: hill-climbing and a CP-SAT relaxation's
bound, seldom proven)."""


class HindsightSolution(Struct):
    """Hindsight par of a poker-squares or poker-patience deal (all 25 cards known).

    ``score``, ``layout`` and ``moves``: the best grid found within the budget, which
    POST /v1/verify accepts on these cards (poker-patience: laid in deal order, moves as
    offsets from the first card). ``upper_bound``: no grid of these cards scores more
    (proven; see the solver's notes in the README). ``optimal``: the two meet.
    """

    score: Score
    upper_bound: int
    optimal: bool
    layout: list[list[CardShown]]
    moves: list[MoveObject]
    log: MovesShown
    """``moves`` in text form."""
    seconds: float
    budget: float
    method: HindsightMethod


class SoloDrezSolution(Struct):
    """Whether a solodrez deal can be won, as far as the search got in its budget.

    ``won``: ``moves`` win it (POST /v1/verify accepts them on this deal); ``lost``: the
    whole reachable state space was searched and holds no win; ``unknown``: the budget
    ran out first. ``states_searched`` counts distinct positions expanded.
    """

    result: Literal["won", "lost", "unknown"]
    moves: list[SoloDrezMove]
    log: MovesShown
    """``moves`` in text form."""
    states_searched: int
    seconds: float
    budget: float


class CommitmentRequest(Struct, forbid_unknown_fields=True):
    """Ask for a fresh commitment (no fields)."""


class Commitment(Struct):
    """The server's commitment to a seed it will deal from: usable once, until it expires."""

    commitment_id: CommitmentIdShown
    server_seed_hash: HexDigest
    expires_at: Time
    """RFC 3339, UTC."""


class DealRequest(Struct, forbid_unknown_fields=True):
    """Open a deal: with a commitment (committed before the client seed) or without.

    With a ``commitment_id``, ``client_seed`` is required (the player's half of the deck);
    without one, a casual deal gets a random one if none is given.
    """

    variant: VariantId
    options: Options = msgspec.field(default_factory=Options)
    commitment_id: Annotated[str, Meta(min_length=1, max_length=128)] | UnsetType = UNSET
    client_seed: ClientSeed | UnsetType = UNSET


class DealState(Struct):
    """A deal as its player may see it now: nothing that is not due yet."""

    deal_id: DealIdShown
    variant: Slug
    options: dict[str, Any]
    server_seed_hash: HexDigest
    client_seed: str
    committed_before_client_seed: bool
    next_index: int
    finished: bool
    moves: MovesShown
    view: View
    score: Score | None = None


class MoveRequest(Struct, forbid_unknown_fields=True):
    """One move, and the index in the log it is meant for."""

    index: Annotated[int, Meta(ge=0, le=10_000)]
    move: MoveObject | MoveText


class MoveResult(Struct):
    """The answer to a move: what became visible, and the score once the game is over."""

    index: int
    finished: bool
    view: View
    score: Score | None = None


class ReceiptResponse(Struct):
    """A finished deal's receipt (compact JWS), its decoded payload and its place in the log.

    ``log`` is ``null`` until the transparency log has sequenced the receipt's entry
    (within about a second), and for receipts signed before the log was kept.
    """

    receipt: JwsShown
    payload: ReceiptPayload
    log: LogProof | None = None


class VariantInfo(Struct):
    """One variant: its rules in brief, its options (a JSON Schema) and point tables."""

    id: Slug
    title: str
    information: Literal["open", "hidden"]
    description: str
    deck: Slug
    options: dict[str, Any]
    tables: dict[str, dict[str, int]]
    """The named point tables this variant takes (the grid variants: any, or a custom one;
    repeat-poker and reserve-poker: their fixed one; solodrez counts series: none)."""
    information_by_option: dict[str, dict[str, Literal["open", "hidden"]]] = msgspec.field(
        default_factory=dict
    )
    """Where an option's value changes ``information``: by option, by value. Reserve-poker's
    ``version`` 5 is open (a ``"random"`` version is 5 one time in six)."""
    unfinished: str = ""
    """What a tournament game not finished by the close counts (docs/rules.md section 9):
    the worst score its table allows, so that leaving never beats finishing."""
    point_systems: list[Slug] = msgspec.field(default_factory=list)
    """The point systems a deal of this variant may draw from its seeds (``scoring:
    "ameritish"``; ``cardproof-points-v1``, Neller's Parameterized Poker Squares): the
    variants that take ``scoring``."""


MAX_INVITES_PER_CALL = 1000
"""Invite codes one request may ask for."""
MAX_INVITES = 100_000
"""Invite codes a tournament may have in all (its largest field)."""


class TournamentRequest(Struct, forbid_unknown_fields=True):
    """A new tournament: every entrant plays the same ``rounds`` deals of ``variant``.

    Times are RFC 3339 with a time zone. ``entry``: ``public`` (anyone may enter and
    read it) or ``invite`` (entering takes a single-use invite code: ``invites`` of them
    are shown once in the answer; its organizer, its entrants and holders of a code read
    it).
    """

    name: Annotated[str, Meta(min_length=1, max_length=100)]
    variant: VariantId
    rounds: Annotated[int, Meta(ge=1, le=50)]
    opens_at: Annotated[datetime, Meta(tz=True)]
    closes_at: Annotated[datetime, Meta(tz=True)]
    options: Options = msgspec.field(default_factory=Options)
    max_entrants: Annotated[int, Meta(ge=1, le=100_000)] | UnsetType = UNSET
    entry: Literal["public", "invite"] = "public"
    invites: Annotated[int, Meta(ge=0, le=MAX_INVITES_PER_CALL)] | UnsetType = UNSET
    """For ``entry: "invite"``: how many single-use invite codes to make now (default 1;
    ``POST /v1/tournaments/{id}/invites`` makes more)."""
    format: TournamentFormat | UnsetType = UNSET
    """``lockstep`` (Hoyle's called game: card i+1 is called to every seated entrant at
    once, when all have placed card i or its deadline passed) or ``async`` (each at their
    own pace). Default: ``lockstep`` for a hidden variant, ``async`` for an open one; a
    hidden variant is ``async`` only with ``entry: "invite"``."""
    card_seconds: Annotated[int, Meta(ge=1, le=600)] = 60
    """Lockstep: the seconds each called card may take before it is placed for a player
    who has not placed it."""
    round_starts: (
        Annotated[list[Annotated[datetime, Meta(tz=True)]], Meta(min_length=1, max_length=50)]
        | UnsetType
    ) = UNSET
    """Lockstep: when each round starts by itself (one time per round, RFC 3339), if its
    organizer has not started it before."""


TournamentFormat = Literal["lockstep", "async"]


class RoundCommitment(Struct):
    """One round's deal: the hash of its server seed, and the seed once the tournament closed."""

    round: int
    server_seed_hash: HexDigest
    server_seed: HexDigest | None


class Tournament(Struct):
    """A tournament as anyone allowed to read it sees it.

    Every round is dealt from its server seed and the public ``salt`` (the client seed
    of every entrant's game), so all entrants get the same cards; the seeds are
    committed to here from the start and revealed when the tournament closes.
    ``status``: ``scheduled`` before ``opens_at``, ``open``, then ``closed``.
    """

    tournament_id: TournamentIdShown
    name: TournamentName
    organizer: OrganizerName
    variant: Slug
    options: dict[str, Any]
    status: Literal["scheduled", "open", "closed"]
    opens_at: Time
    closes_at: Time
    entry: Literal["public", "invite"]
    max_entrants: int | None
    algorithm: Slug
    salt: SaltHex
    rounds: list[RoundCommitment]
    created_at: Time
    closed_at: Time | None = None
    format: TournamentFormat = "async"
    card_seconds: int | None = None
    """Lockstep: each called card's deadline, in seconds."""
    round_starts: list[Time] | None = None
    """Lockstep: when each round starts by itself, if its organizer set times."""
    entries_closed_at: Time | None = None
    """Lockstep: when entries closed (round 1's start); ``null`` while entries are open.
    Every entrant is seated before the first call, so nobody holds a round they could
    never play."""


class TournamentCreated(Struct):
    """A new tournament, and its single-use invite codes (shown this once), if invite-only.

    ``invite_code`` is the first of ``invite_codes`` (kept for older clients).
    """

    tournament: Tournament
    invite_code: InviteCodeShown | None = None
    invite_codes: list[InviteCodeShown] = msgspec.field(default_factory=list)


MAX_TOURNAMENTS_PAGE: Final = 100
"""Tournaments a page of ``GET /v1/tournaments`` lists at most."""
TOURNAMENT_CURSOR_PATTERN: Final = r"^[0-9]{16}:[A-Za-z0-9_-]{1,64}(?![\s\S])"
"""A ``next_cursor`` of ``GET /v1/tournaments``: where the page after starts."""
TournamentCursor = Annotated[
    str,
    Meta(pattern=TOURNAMENT_CURSOR_PATTERN, description="Where the page after starts."),
]


class TournamentSummary(Struct):
    """One of an organizer's tournaments, as its list shows it (``GET /v1/tournaments``).

    ``status``: ``scheduled`` before ``opens_at``, ``open``, then ``closed``;
    ``GET /v1/tournaments/{id}`` shows the rest (round commitments, salt, seeds).
    """

    tournament_id: TournamentIdShown
    name: TournamentName
    variant: Slug
    options: dict[str, Any]
    status: Literal["scheduled", "open", "closed"]
    format: TournamentFormat
    entry: Literal["public", "invite"]
    rounds: int
    opens_at: Time
    closes_at: Time
    created_at: Time
    closed_at: Time | None = None


class TournamentList(Struct):
    """A page of the organizer's own tournaments, newest first.

    ``next_cursor``: pass it as ``cursor`` for the page after; ``null`` on the last page.
    A page may list fewer than ``limit`` while there are more (a tournament that expired
    as the page was read is left out): follow ``next_cursor`` until it is ``null``.
    """

    tournaments: list[TournamentSummary]
    next_cursor: TournamentCursor | None = None


class InviteRequest(Struct, forbid_unknown_fields=True):
    """Make ``count`` more single-use invite codes for an invite-only tournament."""

    count: Annotated[int, Meta(ge=1, le=MAX_INVITES_PER_CALL)] = 1


class InviteCodes(Struct):
    """Fresh single-use invite codes, shown this once: each enters one entrant."""

    tournament_id: TournamentIdShown
    codes: list[InviteCodeShown]


class EntryRequest(Struct, forbid_unknown_fields=True):
    """Enter a tournament under ``name``; ``invite_code`` (single-use) for invite-only ones.

    Names are compared case-folded and by their confusable skeleton (Unicode TR39): a name
    that looks like an entrant's is taken. Invisible and format characters are refused.
    """

    name: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=64,
            pattern="^[^\\x00-\\x1f\\x7f]+(?![\\s\\S])",
            description="1 to 64 printable characters, shown NFKC-normalized with white "
            "space trimmed and collapsed; at least one letter or digit, and no character "
            "that may show as nothing (control, format or default-ignorable characters, "
            "other symbols, a mark on no letter).",
        ),
    ]
    invite_code: Annotated[str, Meta(min_length=1, max_length=64)] | UnsetType = UNSET


class RoundDealRequest(Struct, forbid_unknown_fields=True):
    """Open the entrant's game on a round (no fields: the token says who, the path which)."""


class CloseRequest(Struct, forbid_unknown_fields=True):
    """Close a tournament now (no fields)."""


class RoundStartRequest(Struct, forbid_unknown_fields=True):
    """Start a lockstep round now (no fields): card 0 is called to every seated entrant."""


RoundPhase = Literal["waiting", "playing", "finished"]


class Call(Struct, frozen=True):
    """A card called to every seated entrant of a lockstep round, as the dealer names it.

    ``card`` is the card every seated game places at move ``index`` (``null`` in
    reserve-poker, where each player takes from their own reserve: the call is a turn).
    Times are RFC 3339 UTC with milliseconds.
    """

    index: int
    card: DeckCardShown | None
    called_at: Time
    deadline: Time


ROUND_CALLED: Final = (
    "How many of the `calls` cards have been called: `call + 1` while the round plays; once "
    "it has finished, how many were called before it ended (fewer than `calls` when its "
    "tournament closed first)."
)
ROUND_CLOSED: Final = (
    "The round finished because its tournament closed (its organizer closed it, or its "
    "closing time came) before the round was played out: the server placed the rest of "
    "every open game at the close, not at deadlines (a receipt lists those moves in "
    "`auto_placed`). A close during the last call, before any seat placed that card, reads "
    "as played out."
)


class RoundStatus(Struct, frozen=True):
    """A round of a tournament, now.

    ``waiting`` (entrants are seated as they open their game), ``playing`` (``call`` is the
    index of the card called last, ``placed`` how many of the ``seats`` have placed it) or
    ``finished``. ``seconds_left`` is the time to the call's deadline, by the server's clock.
    """

    tournament_id: TournamentIdShown
    round: int
    format: TournamentFormat
    status: RoundPhase
    seats: int
    calls: int
    """How many cards the round calls in all."""
    call: int | None = None
    card: DeckCardShown | None = None
    called_at: Time | None = None
    deadline: Time | None = None
    seconds_left: float | None = None
    placed: int = 0
    starts_at: Time | None = None
    """When the round starts by itself, if its tournament set a time."""
    called: Annotated[int, Meta(description=ROUND_CALLED)] = 0
    """How many of the ``calls`` cards have been called (:data:`ROUND_CALLED`)."""
    closed: Annotated[bool, Meta(description=ROUND_CLOSED)] = False
    """Whether its tournament's close ended it (:data:`ROUND_CLOSED`)."""


class RoundCalls(Struct, frozen=True):
    """The calls of a round after the index asked for, and the round's status."""

    status: RoundStatus
    calls: list[Call]


class Entry(Struct):
    """An entrant: ``token`` opens the entrant's games (``Authorization: Bearer cpe_...``).

    The token is shown this once and is good until the tournament closes.
    """

    tournament_id: TournamentIdShown
    entrant_id: EntrantIdShown
    name: NameShown
    token: EntrantToken
    expires_at: Time
    rounds: list[RoundCommitment] = msgspec.field(default_factory=list)
    """Every round's committed seed hash, as the entrant was shown them at entry: the
    SDK holds the tournament to these when it deals and when it reveals its seeds."""
    salt: SaltHex | None = None
    """The tournament's public client seed (every round game's); the service always sends
    it, a server older than it did not (``None``: read it from the tournament)."""


class StandingLine(Struct, omit_defaults=True):
    """One entrant in the standings: rank (shared on ties), total, games finished.

    ``percent_of_par``: once every round's par is known (a closed tournament of a
    variant with a solver), the total as a percentage of the pars' sum (one decimal;
    each game's own percentage comes with ``?player=``, in the export and on the
    standings page).
    """

    rank: int
    name: NameShown
    total: int
    games_finished: int
    percent_of_par: float | None = None


ParMethod = Literal["branch-and-bound", "relaxation", "serpent-paths", "earlier-solver"]
"""How a round's par was solved: a hindsight method (:data:`HindsightMethod`), serpent's
exact path table, or ``earlier-solver``: kept before the exact search existed, as it was
solved then (its bound may be loose and its score below the true best)."""


class RoundPar(Struct):
    """A closed round's par: the best score found for its deal, and how sure it is.

    ``score`` and ``moves``: the best of the solver's grid and the entrants' finished
    games (a replayable log on the round's deal, checked offline by the export's
    verifier). ``upper_bound``: no game of the deal scores more (proven by the solver;
    serpent-patience's par is exact). ``optimal``: the two meet.
    """

    round: int
    score: int
    upper_bound: int
    optimal: bool
    moves: MovesShown
    by: Literal["solver", "entrant"]
    """Whose game reached ``score`` first: the solver's or an entrant's."""
    method: ParMethod = "earlier-solver"
    """How the solver's part was solved (see :data:`ParMethod`); a par kept before the
    exact search existed reads ``earlier-solver``."""


class PlayerGame(Struct, omit_defaults=True):
    """One finished game of the entrant the standings were asked for (``?player=``).

    ``percent_of_par``: the total as a percentage of the round's par (one decimal), once
    the round has one.
    """

    round: int
    total: int
    percent_of_par: float | None = None


class Standings(Struct, omit_defaults=True):
    """A tournament's standings: the totals of verified finished games, best first.

    ``pars``: each round's par once the tournament has closed, for poker-squares,
    poker-patience and serpent-patience (computed in the background after the close:
    ``pars_pending`` rounds are still being solved). ``player`` and ``games``: asked with
    ``?player=NAME`` once the tournament has closed, that entrant's finished games by
    round (at most one a round), each with its share of the round's par.
    """

    tournament_id: TournamentIdShown
    status: Literal["scheduled", "open", "closed"]
    rounds: int
    entrants: list[StandingLine]
    pars: list[RoundPar] = msgspec.field(default_factory=list)
    pars_pending: int = 0
    player: NameShown | None = None
    games: list[PlayerGame] = msgspec.field(default_factory=list)


EXPORT_FORMAT = "cardproof-tournament-export-v1"


class ExportedGame(Struct, omit_defaults=True):
    """One finished game of a closed tournament: its log, total and signed receipt."""

    player: NameShown
    round: int
    deal_id: DealIdShown
    moves: MovesShown
    total: int
    finished_at: Time
    receipt: JwsShown
    percent_of_par: float | None = None
    """The total as a percentage of the round's par (one decimal), where there is one."""


class TournamentExport(Struct, omit_defaults=True):
    """A closed tournament's whole record, for re-checking it end to end offline.

    ``tournament`` shows every round's revealed seed; ``games`` holds every finished
    game (log, total, a receipt with the seed in it, its percentage of par); ``standings``
    are what the service computed; ``jwks`` the service's public keys; ``pars`` each
    round's par with the log that reaches it. ``cardproof verify --tournament FILE``
    re-derives every deck, replays every log, checks every receipt and recomputes the
    standings.
    """

    format: Slug
    tournament: Tournament
    standings: list[StandingLine]
    games: list[ExportedGame]
    jwks: JWKS
    pars: list[RoundPar] = msgspec.field(default_factory=list)


class Health(Struct):
    """Liveness: the process answers."""

    status: Literal["ok"]


class Readiness(Struct):
    """Readiness: whether this replica can serve, and each dependency's state."""

    status: Literal["ready", "not-ready"]
    checks: dict[str, str]


class Problem(Struct, omit_defaults=True):
    """An error answer (RFC 9457 problem details).

    ``field`` locates the bad input (``layout[1][3]``, ``moves[7]``); ``code`` is a
    stable machine code for rule errors; ``move_index`` names the illegal move. The
    other members come with the codes named in their descriptions. These are every
    member the service sends (the service refuses to raise a problem with another).
    """

    type: str
    title: str
    status: int
    detail: str
    field: str | UnsetType = UNSET
    code: str | UnsetType = UNSET
    move_index: int | UnsetType = UNSET
    next_index: int | UnsetType = UNSET
    """``wrong-index``: the index the deal's next move takes."""
    call: int | UnsetType = UNSET
    """``not-called``: the index of the card the lockstep round called last (-1: none yet)."""
    placed: str | UnsetType = UNSET
    """``auto-placed``: the move placed for the player when the card's deadline passed."""
    deal_id: str | UnsetType = UNSET
    """``round-played``: the deal the entrant opened on this round already."""
    taken_by: str | UnsetType = UNSET
    """``name-taken``: the entrant's name that the name asked for is, or looks like."""
    started_at: str | UnsetType = UNSET
    """``entries-closed``: when round 1 started (RFC 3339 UTC), closing entries."""
