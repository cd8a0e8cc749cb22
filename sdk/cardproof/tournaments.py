"""Tournaments, offline: the pairwise settlement, the standings' ranking, the export check.

:func:`verify_export` re-checks a closed tournament's export (``GET
/v1/tournaments/{id}/export``) end to end: seeds against their commitments, every deck,
every log, every receipt, and the standings; :func:`rank` is the ranking the service
uses too.

Settlement: the traditional pairwise rule for turning scores into payments.

Every player pays every higher-scoring player the difference of their scores; players
with equal scores pay each other nothing. A player's net is therefore what they receive
from everyone below them minus what they pay everyone above them, which adds up to
``n * score - total`` for ``n`` players whose scores sum to ``total``, and the nets of
a table always sum to zero. The server's ``GET /v1/tournaments/{id}/settlement`` returns
the same :class:`Settlement` that :func:`settlement` computes here, so a client can check
it offline.

Three players scoring 10, 7 and 7: each 7 pays the 10 three points, the two 7s pay each
other nothing.

>>> scores = {"ann": 10, "bob": 7, "cy": 7}
>>> settle(scores)
{'ann': 6, 'bob': -3, 'cy': -3}
>>> payments(scores)
[Payment(payer='bob', payee='ann', amount=3), Payment(payer='cy', payee='ann', amount=3)]

Scores may be negative (custom point tables can score below zero); only the differences
matter, so shifting every score by the same amount changes nothing.

>>> settle({"ann": -2, "bob": 5})
{'ann': -7, 'bob': 7}
>>> settle({"ann": 98, "bob": 105})
{'ann': -7, 'bob': 7}
>>> settlement({"ann": -2, "bob": 5}).payments
[Payment(payer='ann', payee='bob', amount=7)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Final, Literal

import msgspec

from cardproof.cards import Card
from cardproof.deal import seed_hash
from cardproof.errors import CardproofError
from cardproof.games import replay_log, variant
from cardproof.models import (
    EXPORT_FORMAT,
    RoundPar,
    StandingLine,
    TournamentExport,
    TournamentIdShown,
)
from cardproof.receipts import JWKS, ReceiptError, options_match, verify_receipt

__all__ = [
    "CURSOR_PATTERN",
    "MAX_PAGE",
    "ExportCheck",
    "ExportError",
    "Payment",
    "Settlement",
    "SettlementPage",
    "payments",
    "payments_page",
    "rank",
    "round_deal",
    "settle",
    "settlement",
    "verify_export",
    "worst_round",
]


class Payment(msgspec.Struct, frozen=True):
    """``payer`` owes ``payee`` ``amount`` points (always positive)."""

    payer: str
    payee: str
    amount: int


class Settlement(msgspec.Struct, frozen=True):
    """A table's settlement: each player's net, and the pairwise payments behind it.

    ``nets`` follows the order of the scores given; ``payments`` the order that
    :func:`payments` documents.
    """

    nets: dict[str, int]
    payments: list[Payment]


def _checked(scores: Mapping[str, int]) -> list[tuple[str, int]]:
    """Return the ``(name, score)`` pairs in input order, or raise ``TypeError``."""
    if not isinstance(scores, Mapping):
        raise TypeError(f"scores must be a mapping of name to score, not {type(scores).__name__}")
    items = list(scores.items())
    for name, score in items:
        if not isinstance(name, str):
            raise TypeError(f"player names must be strings, not {type(name).__name__}: {name!r}")
        if isinstance(score, bool) or not isinstance(score, int):
            raise TypeError(
                f"score of {name!r} must be an int, not {type(score).__name__}: {score!r}"
            )
    return items


def _nets(items: list[tuple[str, int]]) -> dict[str, int]:
    n = len(items)
    total = sum(score for _, score in items)
    return {name: n * score - total for name, score in items}


def _payments(items: list[tuple[str, int]]) -> list[Payment]:
    ranked = sorted(items, key=lambda item: (-item[1], item[0]))
    # below[i]: index in ``ranked`` of the first player scoring strictly less than ranked[i].
    below = [0] * len(ranked)
    end = len(ranked)
    for i in range(len(ranked) - 1, -1, -1):
        if i + 1 < len(ranked) and ranked[i + 1][1] != ranked[i][1]:
            end = i + 1
        below[i] = end
    return [
        Payment(payer, payee, high - low)
        for (payee, high), start in zip(ranked, below, strict=True)
        for payer, low in ranked[start:]
    ]


MAX_PAGE: Final = 1000
"""The most payments one page of ``GET .../settlement?payments=true`` holds."""
CURSOR_PATTERN: Final = r"^[0-9]{1,10}\.[0-9]{1,10}$"
"""A settlement page's cursor: ``<payee>.<payer>``, places in the payments' order."""
_CURSOR = re.compile(CURSOR_PATTERN)
SHOWN_CURSOR_PATTERN: Final = r"^[0-9]{1,10}\.[0-9]{1,10}(?![\s\S])"
""":data:`CURSOR_PATTERN` as an answer is held to it (no final newline either)."""


class SettlementPage(msgspec.Struct, frozen=True):
    """A tournament's settlement as the service answers it: nets, standings, a page of payments.

    ``nets`` and ``standings`` are always there (linear in the entrants); ``payments``
    only when asked for (``?payments=true``), at most :data:`MAX_PAGE` a page in the
    order :func:`payments` documents, and ``next_cursor`` asks for the next page
    (``null`` after the last). ``payments`` is the field a whole :class:`Settlement` has.
    """

    tournament_id: TournamentIdShown
    status: Literal["scheduled", "open", "closed"]
    nets: dict[str, int]
    standings: list[StandingLine]
    payments: list[Payment] = msgspec.field(default_factory=list)
    next_cursor: Annotated[str, msgspec.Meta(pattern=SHOWN_CURSOR_PATTERN)] | None = None


def payments_page(
    scores: Mapping[str, int], cursor: str | None = None, limit: int = MAX_PAGE
) -> tuple[list[Payment], str | None]:
    """One page of :func:`payments`, from ``cursor`` (``None``: the first), and the next cursor.

    The pairs are generated from the sorted scores as the page is read: a page costs
    ``O(n log n + limit)``, never the ``n * (n - 1) / 2`` of the whole list. A cursor is
    ``"<payee>.<payer>"``, places in that order; a malformed one is a ``ValueError``.

    >>> page, after = payments_page({"ann": 10, "bob": 7, "cy": 5}, limit=2)
    >>> [(p.payer, p.payee) for p in page], after
    ([('bob', 'ann'), ('cy', 'ann')], '1.2')
    >>> payments_page({"ann": 10, "bob": 7, "cy": 5}, after)
    ([Payment(payer='cy', payee='bob', amount=2)], None)
    """
    ranked = sorted(_checked(scores), key=lambda item: (-item[1], item[0]))
    payee, payer = _read_cursor(cursor, len(ranked))
    found: list[Payment] = []
    first_below = 0
    for i in range(len(ranked)):  # first_below: the first place scoring less than place i
        if i >= first_below:
            first_below = i + 1
            while first_below < len(ranked) and ranked[first_below][1] == ranked[i][1]:
                first_below += 1
        if i < payee:
            continue
        name, high = ranked[i]
        start = max(first_below, payer if i == payee else 0)
        for j in range(start, len(ranked)):
            if len(found) == limit:
                return found, f"{i}.{j}"
            found.append(Payment(ranked[j][0], name, high - ranked[j][1]))
    return found, None


def _read_cursor(cursor: str | None, size: int) -> tuple[int, int]:
    if cursor is None:
        return 0, 0
    if not _CURSOR.match(cursor):
        raise ValueError(f"{cursor[:40]!r} is not a settlement cursor")
    payee, _, payer = cursor.partition(".")
    return min(int(payee), size), int(payer)


def settle(scores: Mapping[str, int]) -> dict[str, int]:
    """Return each player's net under the pairwise rule: ``n * score - sum(scores)``.

    The nets sum to zero and come in the order of ``scores``; an empty mapping gives
    ``{}``. Linear in the number of players. Raises ``TypeError`` for a name that is not
    a ``str`` or a score that is not an ``int`` (``bool`` included).
    """
    return _nets(_checked(scores))


def payments(scores: Mapping[str, int]) -> list[Payment]:
    """Return the pairwise payments: each lower scorer pays each higher scorer the difference.

    There is one :class:`Payment` per pair of players with different scores; ties pay
    nothing. The order is fixed so that a server and a client list them alike: by payee
    (highest score first, then name), and for each payee by payer (highest score first,
    then name); names compare as Python strings, by code point.

    Quadratic by nature: ``n`` players with distinct scores make ``n * (n - 1) / 2``
    payments (about 500,000 for 1,000 players). :func:`settle` gives the nets in linear
    time. Raises ``TypeError`` as :func:`settle` does.
    """
    return _payments(_checked(scores))


def settlement(scores: Mapping[str, int]) -> Settlement:
    """Return the :class:`Settlement`: :func:`settle`'s nets and :func:`payments`' list."""
    items = _checked(scores)
    return Settlement(nets=_nets(items), payments=_payments(items))


def round_deal(
    variant_id: str, options: Mapping[str, Any], seed: bytes, salt: str
) -> tuple[Any, tuple[Card, ...]]:
    """A tournament round's options in force and its deck: the same for every entrant.

    The round's server ``seed`` and the tournament's public ``salt`` (every entrant's
    client seed) derive them. Remembered per round, so replaying a round's many games
    (an export, its check, the standings page) derives it once.
    """
    return _round_deal(variant_id, msgspec.json.encode(options), seed, salt)


@lru_cache(maxsize=256)
def _round_deal(
    variant_id: str, options: bytes, seed: bytes, salt: str
) -> tuple[Any, tuple[Card, ...]]:
    cls = variant(variant_id)
    resolved = cls.resolve_options(cls.parse_options(msgspec.json.decode(options)), seed, salt)
    return resolved, tuple(cls.deal_cards(seed, salt, resolved))


def worst_round(variant_id: str, options: Mapping[str, Any]) -> int:
    """What a round not finished by the close counts: the worst score the options allow.

    docs/rules.md section 9: an unfinished game (abandoned, a dead end, never opened) counts
    as the table's lowest points times the number of lines, so leaving never beats
    finishing. An entrant's total is the sum over every round of its finished game's
    score, or this.

    >>> worst_round("poker-squares", {"scoring": {"full-house": 5, "flush": -3}})
    -30
    >>> worst_round("poker-squares", {}), worst_round("solodrez", {})
    (0, 0)
    """
    cls = variant(variant_id)
    return cls.worst_total(cls.parse_options(options))


def rank(lines: Iterable[tuple[str, int, int]]) -> list[StandingLine]:
    """Standings from (name, total, games finished): best total first, then by name.

    Equal totals share a rank, and the next rank skips as many places:

    >>> [(line.rank, line.name) for line in rank([("bo", 5, 1), ("al", 9, 2), ("cy", 5, 2)])]
    [(1, 'al'), (2, 'bo'), (2, 'cy')]
    """
    ranked: list[StandingLine] = []
    for place, (name, total, finished) in enumerate(
        sorted(lines, key=lambda line: (-line[1], line[0])), start=1
    ):
        shared = bool(ranked) and ranked[-1].total == total
        ranked.append(StandingLine(ranked[-1].rank if shared else place, name, total, finished))
    return ranked


def percent_of_par(total: int, par: RoundPar | None) -> float | None:
    """``total`` as a percentage of the round's ``par`` (one decimal), if the par is positive.

    ``None`` otherwise: a percentage of 0 or less would mean nothing.

    >>> percent_of_par(150, RoundPar(1, 200, 240, False, "", "solver"))
    75.0
    >>> percent_of_par(3, RoundPar(1, 0, 0, True, "", "solver")) is None
    True
    """
    if par is None or par.score <= 0:
        return None
    return round(100 * total / par.score, 1)


def with_par(
    lines: list[StandingLine], pars: Mapping[int, RoundPar], rounds: int
) -> list[StandingLine]:
    """Standings lines with each entrant's percentage of par, once every round has one.

    An entrant's percentage is its total (unfinished rounds at their worst) over the sum
    of the pars (``None`` if that sum is 0 or below).

    >>> pars = {1: RoundPar(1, 100, 100, True, "", "solver")}
    >>> pars[2] = RoundPar(2, 50, 60, False, "", "solver")
    >>> [line.percent_of_par for line in with_par(rank([("al", 120, 2)]), pars, 2)]
    [80.0]
    """
    if len(pars) < rounds or not lines:
        return lines
    whole = sum(par.score for par in pars.values())
    return [
        msgspec.structs.replace(
            line, percent_of_par=round(100 * line.total / whole, 1) if whole > 0 else None
        )
        for line in lines
    ]


def check_pars(
    pars: Iterable[RoundPar], deals: Mapping[int, tuple[Any, tuple[Card, ...]]], variant_id: str
) -> tuple[dict[int, RoundPar], list[str]]:
    """Each par replayed on its round's deal: its log must score it, under its bound."""
    problems: list[str] = []
    found: dict[int, RoundPar] = {}
    for par in pars:
        where = f"round {par.round}'s par"
        if par.round in found:
            problems.append(f"{where}: a second par")
            continue
        found[par.round] = par
        deal = deals.get(par.round)
        if deal is None:
            problems.append(f"{where}: no revealed seed for this round")
            continue
        options, deck = deal
        try:
            total = replay_log(variant_id, deck, options, par.moves).score().total
        except CardproofError as error:
            problems.append(f"{where}: its log does not replay: {error}")
            continue
        if total != par.score:
            problems.append(f"{where}: its log scores {total}, the export says {par.score}")
        if par.score > par.upper_bound or par.optimal != (par.score == par.upper_bound):
            problems.append(
                f"{where}: score {par.score}, bound {par.upper_bound}, optimal {par.optimal}"
            )
    return found, problems


class ExportCheck(msgspec.Struct, frozen=True):
    """An export that holds up: the games checked and the standings recomputed from them."""

    games: int
    standings: list[StandingLine]


class ExportError(CardproofError):
    """An export that does not hold up; ``problems`` lists every one found, in words.

    Raised, never returned: a check whose problems are left unread must not look like a pass.
    """

    def __init__(self, problems: list[str]) -> None:
        """The problems found (at least one)."""
        self.problems = problems
        shown = "; ".join(problems[:5]) + (
            f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        )
        super().__init__(f"the export does not verify: {shown}")


def _epoch(moment: str) -> int | None:
    """An RFC 3339 time as seconds since the epoch (``None`` if it does not read)."""
    try:
        return int(datetime.fromisoformat(moment).timestamp())
    except ValueError:
        return None


def verify_export(
    export: TournamentExport | bytes | str, jwks: JWKS | Mapping[str, Any] | None = None
) -> ExportCheck:
    """Re-check a closed tournament's export, end to end.

    Every round's revealed seed must hash to its commitment; every game is replayed on
    the deck its round's seed and the tournament's salt derive, and must score its
    total; every receipt must verify (against ``jwks``, else the key set in the export,
    which proves the export consistent, not who signed it) and name the tournament, the
    player, the log and the round's seed; each round's par is replayed and must score
    what it says (its bound is the solver's word: it is not re-proved here); each game's
    percentage of par, and the standings, are recomputed from the games.
    """
    if not isinstance(export, TournamentExport):
        export = msgspec.json.decode(export, type=TournamentExport)
    tournament = export.tournament
    problems: list[str] = []
    if export.format != EXPORT_FORMAT:
        problems.append(f"unknown export format {export.format!r}")
    seeds: dict[int, bytes] = {}
    for entry in tournament.rounds:
        if entry.server_seed is None:
            problems.append(f"round {entry.round}: the seed is not revealed")
        elif seed_hash(bytes.fromhex(entry.server_seed)) != entry.server_seed_hash:
            problems.append(f"round {entry.round}: the seed does not match its commitment")
        else:
            seeds[entry.round] = bytes.fromhex(entry.server_seed)
    totals = {line.name: [0, 0] for line in export.standings}
    seen: set[tuple[str, int]] = set()
    cls = variant(tournament.variant)
    deals = {}
    for number, seed in seeds.items():
        try:
            deals[number] = round_deal(cls.id, tournament.options, seed, tournament.salt)
        except CardproofError as error:
            problems.append(f"round {number}: the deal cannot be derived: {error}")
    pars, par_problems = check_pars(export.pars, deals, cls.id)
    problems.extend(par_problems)
    for game in export.games:
        where = f"{game.player}, round {game.round}"
        if (game.player, game.round) in seen:
            problems.append(f"{where}: a second game")
            continue
        seen.add((game.player, game.round))
        round_seed = seeds.get(game.round)
        if round_seed is None:
            problems.append(f"{where}: no revealed seed for this round")
            continue
        seed = round_seed
        try:
            options, deck = round_deal(cls.id, tournament.options, seed, tournament.salt)
            total = replay_log(cls.id, deck, options, game.moves).score().total
        except CardproofError as error:
            problems.append(f"{where}: the log does not replay: {error}")
            continue
        if total != game.total:
            problems.append(f"{where}: the log scores {total}, the export says {game.total}")
        par = pars.get(game.round)
        if par is not None and game.total > par.score:
            problems.append(f"{where}: scores {game.total}, above its round's par {par.score}")
        if game.percent_of_par != percent_of_par(game.total, par):
            problems.append(
                f"{where}: {game.percent_of_par}% of par; its total over the round's par makes "
                f"{percent_of_par(game.total, pars.get(game.round))}"
            )
        try:
            payload = verify_receipt(game.receipt, jwks or export.jwks).payload
        except ReceiptError as error:
            problems.append(f"{where}: the receipt does not verify: {error}")
        else:
            if (
                payload.kind,
                payload.tournament,
                payload.player,
                payload.moves,
                payload.client_seed,  # the salt: a receipt on another deck is another game
                payload.variant,
                payload.deal_id,
                payload.issued,
            ) != (
                "tournament",
                tournament.tournament_id,
                game.player,
                game.moves,
                tournament.salt,
                tournament.variant,
                game.deal_id,
                _epoch(game.finished_at),
            ) or payload.server_seed != seed.hex():
                problems.append(f"{where}: the receipt is for another game")
            elif not options_match(cls.id, msgspec.to_builtins(options), payload.options):
                problems.append(  # a drawn point table is the one the round's seeds draw
                    f"{where}: the receipt's options are not the round's"
                )
            elif payload.score.total != total:
                problems.append(
                    f"{where}: the receipt's score is {payload.score.total}, the log scores {total}"
                )
        line = totals.setdefault(game.player, [0, 0])
        line[0] += total
        line[1] += 1
    worst = worst_round(cls.id, tournament.options)
    rounds = len(tournament.rounds)
    standings = rank(
        (name, total + (rounds - count) * worst, count) for name, (total, count) in totals.items()
    )
    standings = with_par(standings, pars, rounds)
    if standings != export.standings:
        problems.append("the standings differ from the ones the games add up to")
    if problems:
        raise ExportError(problems)
    return ExportCheck(games=len(export.games), standings=standings)
