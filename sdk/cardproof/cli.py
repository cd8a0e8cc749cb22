"""The ``cardproof`` command: serve, play, verify receipts, run tournaments, make keys.

``cardproof serve`` and ``cardproof keys`` need the ``service`` extra
(``pip install 'cardproof[service]'``), and so does ``cardproof play`` without ``--url``
(it then plays against an embedded server); ``cardproof verify`` and ``cardproof
tournament`` (organizers' commands against a server) need only the SDK.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import msgspec

from cardproof.client import DEFAULT_BASE_URL, Client
from cardproof.errors import APIError, CardproofError, NotFoundError, TransportError
from cardproof.models import RoundStatus, StandingLine, Tournament
from cardproof.receipts import (
    CommitmentMismatchError,
    Expected,
    ReceiptError,
    ReceiptKind,
    ReceiptPayload,
    VerifiedReceipt,
    check_expected,
    decode_receipt,
    verify_receipt,
)
from cardproof.words import plural, yes_no


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:  # pragma: no cover - depends on the install
        print(
            "cardproof serve needs the service extra: pip install 'cardproof[service]'",
            file=sys.stderr,
        )
        return 2
    host, port, workers = serve_options(args)
    if workers < 1:
        print("cardproof serve: --workers must be 1 or more", file=sys.stderr)
        return 2
    if workers > 1 and not os.environ.get("REDIS_URL"):
        print(
            "cardproof serve: the memory store lives in one process, so --workers above 1 "
            "needs a shared store: set REDIS_URL",
            file=sys.stderr,
        )
        return 2
    from cardproof_service.metrics import MULTIPROCESS_DIR
    from cardproof_service.observability import logging_config

    if os.environ.get("CARDPROOF_ENV", "development") != "production":
        # a development server names itself where it listens: the receipts' issuer and
        # the spec's server (production sets CARDPROOF_PUBLIC_URL, or refuses to start)
        shown = "127.0.0.1" if host in {"0.0.0.0", "::", ""} else host
        os.environ.setdefault("CARDPROOF_PUBLIC_URL", f"http://{shown}:{port}")
    metrics_dir = None
    if workers > 1 and not os.environ.get(MULTIPROCESS_DIR):
        # every worker writes its metrics here and /metrics sums them (metrics.py)
        metrics_dir = tempfile.mkdtemp(prefix="cardproof-metrics-")
        os.environ[MULTIPROCESS_DIR] = metrics_dir
    try:
        uvicorn.run(
            "cardproof_service.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=args.log_level,
            log_config=logging_config(args.log_level),
            access_log=False,  # cardproof.access writes one JSON line per request, with its id
            # X-Forwarded-For names the client only when a proxy the operator named sent
            # it: by default nobody, not even 127.0.0.1 (a local client could name itself)
            forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", ""),
            # a stopping server gives requests in flight this long, then closes the rest:
            # event streams and long polls would otherwise hold it up (clients resume)
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
        )
    finally:
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def serve_options(args: argparse.Namespace) -> tuple[str, int, int]:
    """Host, port and workers: the options, else ``CARDPROOF_HOST``/``_PORT``/``_WORKERS``.

    Read only by ``serve``, so a bad variable troubles no other command.
    """
    env = os.environ

    def number(given: int | None, name: str, default: int) -> int:
        if given is not None:
            return given
        text = env.get(name)
        try:
            return int(text) if text else default
        except ValueError:
            raise SystemExit(f"cardproof serve: {name} must be an integer, not {text!r}") from None

    host = args.host or env.get("CARDPROOF_HOST") or "127.0.0.1"
    return (
        host,
        number(args.port, "CARDPROOF_PORT", 8000),
        number(args.workers, "CARDPROOF_WORKERS", 1),
    )


def openapi_document() -> dict[str, object]:
    """The OpenAPI document the service serves at ``/schema/openapi.json``."""
    from cardproof.receipts import SigningKey
    from cardproof_service.app import create_app
    from cardproof_service.keys import Keys
    from cardproof_service.settings import Settings

    throwaway = Keys(master=bytes(32), signing=SigningKey.generate())  # the spec needs none
    return create_app(Settings(warm_up=False), keys=throwaway).openapi_schema.to_schema()


def _openapi(args: argparse.Namespace) -> int:
    json.dump(openapi_document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _load_jwks(source: str) -> bytes:
    """A JWKS from a URL (``http...``) or a file."""
    if source.startswith(("http://", "https://")):
        import httpx

        response = httpx.get(source, timeout=10)
        response.raise_for_status()
        return response.content
    return Path(source).read_bytes()


def _read_receipt(path: str) -> tuple[str, Any]:
    """A receipt file: the compact JWS, or a JSON answer that carries one.

    The JSON answer of ``GET /v1/deals/{id}/receipt`` or ``POST /v1/verify`` holds the
    token and, beside it, its ``payload``: returned too (``None`` for a bare token), so
    that a payload that is not the token's own is refused. A JWS is read forgivingly:
    white space and line breaks anywhere in it (one copied from a wrapped terminal) are
    dropped, and that canonical form is what is checked.
    """
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    text = text.strip()
    stated = None
    if text.startswith("{"):
        answer = json.loads(text)
        text, stated = str(answer["receipt"]), answer.get("payload")
    return "".join(text.split()), stated


def _check_stated(token: str, stated: Any) -> None:
    """The payload a JSON answer shows beside the token is the token's own.

    A reader looks at the JSON's payload, not at the base64url inside the token: a
    payload edited there (a better score, another kind) must not pass with the token.
    """
    if stated is None:
        return
    signed = decode_receipt(token)[1]
    try:
        shown = msgspec.convert(stated, ReceiptPayload)
    except msgspec.ValidationError as error:
        message = f"the answer's payload cannot be read: {error}"
        raise ReceiptError("payload-mismatch", message) from None
    if shown != signed:
        raise ReceiptError(
            "payload-mismatch", "the answer's payload is not the one the token signs"
        )


def _verify_tournament(args: argparse.Namespace) -> int:
    """``verify --tournament FILE``: re-check a closed tournament's export end to end."""
    from cardproof.tournaments import ExportError, verify_export

    try:
        export = (
            Path(args.tournament).read_bytes()
            if args.tournament != "-"
            else sys.stdin.buffer.read()
        )
        jwks = None
        if args.jwks or args.url:
            source = args.jwks or args.url.rstrip("/") + "/.well-known/jwks.json"
            jwks = json.loads(_load_jwks(source))
        check = verify_export(export, jwks)
        if args.url:
            _export_matches_server(export, args.url.rstrip("/"))
    except ExportError as error:
        for problem in error.problems:
            print(f"NOT VERIFIED: {problem}")
        return 1
    except (OSError, ValueError, msgspec.DecodeError) as error:
        print(f"cannot read the export or the key set: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a network failure fetching the key set
        print(f"cannot fetch the key set: {error}", file=sys.stderr)
        return 2
    keys = "the given key set" if jwks is not None else "the key set in the export (pass --url "
    keys += "" if jwks is not None else "to check against the server's)"
    games = plural(check.games, "game")
    print(f"verified: {games} replayed and their receipts checked against {keys}")
    for line in check.standings:
        finished = plural(line.games_finished, "game")
        print(f"  {line.rank:>4}  {line.name:<24} {line.total:>8}  ({finished})")
    return 0


def _export_matches_server(export: bytes, url: str) -> None:
    """The export is the server's record: its tournament and standings as the server shows.

    An export is a file anyone can edit, and an operator can re-sign its receipts; what
    the server itself shows (the committed rounds, the salt, the standings) it cannot
    have changed since the close without every reader seeing it. ``ExportError`` names
    each difference.
    """
    from cardproof.models import TournamentExport
    from cardproof.tournaments import ExportError

    given = msgspec.json.decode(export, type=TournamentExport)
    organizer = os.environ.get("CARDPROOF_ORGANIZER_KEY") or None
    invite_code = os.environ.get("CARDPROOF_INVITE_CODE") or None
    tid = given.tournament.tournament_id
    try:
        with Client(base_url=url, api_key=organizer) as client:
            shown = client.tournament(tid, invite_code=invite_code)
            standings = client.standings(tid, invite_code=invite_code)
    except APIError as error:
        raise ExportError([f"{url} does not show tournament {tid}: {error}"]) from None
    problems = [
        f"the export's {name} is not the one {url} shows"
        for name, mine, theirs in (
            ("variant", given.tournament.variant, shown.variant),
            ("options", given.tournament.options, shown.options),
            ("salt", given.tournament.salt, shown.salt),
            ("rounds", given.tournament.rounds, shown.rounds),
            ("closing time", given.tournament.closed_at, shown.closed_at),
            ("standings", _lines(given.standings), _lines(standings.entrants)),
        )
        if mine != theirs
    ]
    if problems:
        raise ExportError(problems)


def _lines(standings: Sequence[StandingLine]) -> list[tuple[int, str, int, int]]:
    """Standings as rank, name, total and games (a par's share may come later)."""
    return [(line.rank, line.name, line.total, line.games_finished) for line in standings]


def _tournament_of(url: str, payload: ReceiptPayload) -> tuple[Tournament, int, str | None]:
    """The receipt's tournament, the round that committed to its seed, and that seed.

    The seed is ``None`` while the tournament is open. The receipt does not name its
    round, so the round is the one whose ``server_seed_hash`` is the receipt's; a
    tournament with no such round did not deal this game (``ReceiptError``).
    """
    organizer = os.environ.get("CARDPROOF_ORGANIZER_KEY") or None  # reads invite-only ones
    invite_code = os.environ.get("CARDPROOF_INVITE_CODE") or None  # so does the invite code
    with Client(base_url=url, api_key=organizer) as client:
        tournament = client.tournament(str(payload.tournament), invite_code=invite_code)
    for commitment in tournament.rounds:
        if commitment.server_seed_hash == payload.server_seed_hash:
            return tournament, commitment.round, commitment.server_seed
    raise ReceiptError(
        "not-in-tournament",
        f"no round of tournament {tournament.tournament_id} committed to this receipt's "
        "server_seed_hash",
    )


def _check_dates(tournament: Tournament, payload: ReceiptPayload) -> None:
    """A tournament game was issued while its tournament stood: created, not yet closed."""
    start = datetime.fromisoformat(tournament.created_at).timestamp()
    end_text = tournament.closed_at or tournament.closes_at
    end = datetime.fromisoformat(end_text).timestamp()
    if not start - 1 <= payload.issued <= end + 1:
        raise ReceiptError(
            "bad-date",
            f"the receipt is dated {_when(payload.issued)}, outside its tournament's life "
            f"({tournament.created_at} to {end_text})",
        )


def _tournament_expects(tournament: Tournament) -> Expected:
    """What every receipt of ``tournament`` must say: its deal is the round's, for all.

    Every entrant's client seed is the tournament's public salt: a receipt on another
    client seed was dealt another deck (one the operator could have picked).
    """
    return Expected(
        tournament=tournament.tournament_id,
        client_seed=tournament.salt,
        variant=tournament.variant,
        options=tournament.options,
    )


def _check_standing(url: str, tournament: Tournament, round_: int, payload: ReceiptPayload) -> None:
    """A closed tournament's standings count this game: its player, round and total."""
    invite_code = os.environ.get("CARDPROOF_INVITE_CODE") or None
    organizer = os.environ.get("CARDPROOF_ORGANIZER_KEY") or None
    try:
        with Client(base_url=url, api_key=organizer) as client:
            standings = client.standings(
                tournament.tournament_id, player=payload.player, invite_code=invite_code
            )
    except NotFoundError:
        standings = None
    if standings is None or standings.player != payload.player:  # not a look-alike name
        raise ReceiptError(
            "not-in-standings",
            f"{payload.player!r} is not an entrant of the closed tournament's standings",
        )
    games = {game.round: game.total for game in standings.games}
    if games.get(round_) != payload.score.total:
        raise ReceiptError(
            "not-in-standings",
            f"the closed tournament's standings give {payload.player!r} "
            f"{games.get(round_, 'no game')} in round {round_}, the receipt "
            f"{payload.score.total}",
        )


def _check_deal(url: str, payload: ReceiptPayload) -> str:
    """The deal the receipt names, as the service still keeps it, says the same.

    Deals are kept a day after their last move (``CARDPROOF_DEAL_TTL``): an expired one
    checks nothing more, and says so. Returns a line for the report.
    """
    if payload.deal_id is None:
        return ""
    try:
        with Client(base_url=url) as client:
            deal = client.read_deal(payload.deal_id)
    except APIError as error:
        if error.status == 404:
            return f"  deal {payload.deal_id} is no longer kept by {url}: not compared"
        if error.status in (401, 403):  # only an entrant reads it: a tournament game
            raise ReceiptError(
                "kind-mismatch",
                f"deal {payload.deal_id} is a tournament game at {url} (only its entrant "
                f"reads it), but the receipt says {payload.kind}",
            ) from None
        raise
    if deal.committed_before_client_seed != payload.committed_before_client_seed:
        raise CommitmentMismatchError(
            "committed_before_client_seed",
            deal.committed_before_client_seed,
            payload.committed_before_client_seed,
        )
    check_expected(
        payload,
        Expected(
            deal_id=deal.deal_id,
            server_seed_hash=deal.server_seed_hash,
            client_seed=deal.client_seed,
            variant=deal.variant,
            options=deal.options,
            moves=deal.moves,
        ),
    )
    return f"  deal {payload.deal_id} as {url} keeps it: same seeds, variant, options and log"


_KIND_MEANING: dict[str, str] = {
    "committed-blind": "a committed deal, each hidden card revealed only once due",
    "committed-open": "a committed deal of an open variant (every card shown from the start)",
    "tournament": "a tournament round's game, on a seed committed to at its creation",
    "casual": "NOT committed: the server chose the seed after the client's (allowed by "
    "--allow-casual)",
    "practice": "a seed pair the player chose: proves the arithmetic, not a fair deal "
    "(allowed by --allow-practice)",
}
"""What each receipt kind proves, as ``cardproof verify`` prints it."""


def _options_text(options: dict[str, Any]) -> str:
    """The options as text: a named table by its name, a custom table in full."""
    parts = []
    for key, value in options.items():
        if key == "scoring" and isinstance(value, dict):
            table = ", ".join(f"{category} {points}" for category, points in value.items())
            parts.append(f"scoring custom table ({table})")
        else:
            parts.append(f"{key} {value}")
    return "; ".join(parts) or "none"


def _verify(args: argparse.Namespace) -> int:
    """``verify RECEIPT``: every claim of the receipt, as far as the server can show it."""
    if (args.tournament is None) == (args.receipt is None):
        print("cardproof verify: give a RECEIPT file or --tournament FILE", file=sys.stderr)
        return 2
    if args.tournament is not None:
        return _verify_tournament(args)
    try:
        token, stated = _read_receipt(args.receipt)
    except (OSError, ValueError, KeyError) as error:
        print(f"cannot read the receipt: {error}", file=sys.stderr)
        return 2
    # the keys are the trusted server's (--url, $CARDPROOF_URL), never the ones the
    # receipt points at: anyone can host a key set under a name of their choosing
    url = (args.url or DEFAULT_BASE_URL).rstrip("/")
    source = args.jwks or url + "/.well-known/jwks.json"
    try:
        jwks = _load_jwks(source)
    except (OSError, ValueError) as error:
        print(f"cannot read the key set: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a network failure fetching the key set
        print(f"cannot fetch the key set from {source}: {error}", file=sys.stderr)
        _hint_issuer(token, args.url)
        return 2
    allow: list[ReceiptKind] = []
    if args.allow_practice:
        allow.append("practice")
    if args.allow_casual:
        allow.append("casual")
    try:
        outcome = _check_receipt(token, jwks, url, allow, keys_from_url=args.jwks is None)
        _check_stated(token, stated)
    except ReceiptError as error:
        print(f"NOT VERIFIED ({error.code}): {error.message}")
        return 1
    _report(outcome)
    return 0 if outcome.verified.replayed and not outcome.unfetched else SIGNATURE_ONLY


def _hint_issuer(token: str, url: str | None) -> None:
    """Name the issuer a receipt claims, when no server was given: a hint, not trust."""
    try:
        issuer = decode_receipt(token)[1].iss
    except ReceiptError:
        return
    if url is None and issuer is not None:
        print(
            f"the receipt says it was issued by {issuer}: if you trust that service, "
            f"verify against it with --url {issuer}",
            file=sys.stderr,
        )


@dataclass
class _Outcome:
    """What ``verify`` checked of a receipt, for its report."""

    verified: VerifiedReceipt
    reveal: tuple[int, str | None] | None = None
    unfetched: bool = False
    notes: list[str] = field(default_factory=list)


def _check_receipt(
    token: str, jwks: bytes, url: str, allow: list[ReceiptKind], *, keys_from_url: bool
) -> _Outcome:
    """Verify ``token`` and every claim the server at ``url`` can confirm.

    The issuer must be the server whose keys were fetched; a tournament receipt's deal
    must be its round's (the round's seed, the tournament's salt as client seed, its
    variant and options) and, once closed, counted in the standings; a deal the server
    still keeps must be the receipt's. Raises :class:`ReceiptError` at the first lie.
    """
    verified = verify_receipt(token, jwks, allow=allow, signature_only=True)
    payload = verified.payload
    outcome = _Outcome(verified)
    if keys_from_url and payload.iss is not None and payload.iss.rstrip("/") != url:
        raise ReceiptError(
            "iss-mismatch",
            f"the receipt names its issuer {payload.iss}, but the keys checked are {url}'s: "
            f"if you trust {payload.iss}, verify the receipt against it (--url {payload.iss})",
        )
    if payload.tournament is not None:
        try:
            tournament, round_, seed = _tournament_of(url, payload)
        except NotFoundError:
            raise ReceiptError(
                "unknown-tournament", f"{url} has no tournament {payload.tournament}"
            ) from None
        except (APIError, TransportError) as error:  # the signature stands: say so below
            print(f"cannot read the tournament's seeds from {url}: {error}", file=sys.stderr)
            outcome.unfetched = True
            return outcome
        outcome.reveal = (round_, seed)
        if seed is None and payload.server_seed is not None:
            raise ReceiptError(
                "early-seed",
                f"the receipt reveals round {round_}'s seed while the tournament is open: the "
                "service shows a tournament game's seed only after the close",
            )
        _check_dates(tournament, payload)
        expect = _tournament_expects(tournament)
        outcome.verified = verify_receipt(
            token, jwks, server_seed=seed, allow=allow, expect=expect, signature_only=seed is None
        )
        if seed is not None:
            _check_standing(url, tournament, round_, payload)
            outcome.notes.append(
                f"  the closed tournament's standings count it: {payload.player}, round "
                f"{round_}, {payload.score.total}"
            )
        return outcome
    if not verified.replayed:
        outcome.verified = verify_receipt(token, jwks, allow=allow)  # raises: no seed
    if keys_from_url:
        try:
            note = _check_deal(url, payload)
        except (APIError, TransportError) as error:
            note = f"  the deal could not be read from {url}: {error}"
        if note:
            outcome.notes.append(note)
    return outcome


def _report(outcome: _Outcome) -> None:
    """Print what ``verify`` checked."""
    verified, reveal = outcome.verified, outcome.reveal
    payload = verified.payload
    said = (
        "verified"
        if verified.replayed and not outcome.unfetched
        else "replayed, NOT verified against its tournament"
        if verified.replayed
        else "signature verified, not replayed"
    )
    print(f"{said}: {payload.variant}, score {payload.score.total}, key {verified.kid}")
    print(f"  kind {payload.kind}: {_KIND_MEANING[payload.kind or 'practice']}")
    if payload.iss is not None:
        print(f"  issued by {payload.iss} at {_when(payload.issued)}")
    print(f"  options {_options_text(payload.options)}")
    for hand in payload.score.hands:
        cards = " ".join(hand.cards)
        print(f"  {hand.line:<11} {cards:<15} {hand.category:<16} {hand.points:>5}")
    blind = "" if payload.kind == "committed-open" else f"  blind {yes_no(payload.blind)}"
    print(
        f"  deal {payload.deal_id}{blind}  "
        f"committed before client seed {yes_no(payload.committed_before_client_seed)}"
    )
    if payload.tournament is not None:
        print(f"  tournament {payload.tournament}  player {payload.player}")
    if reveal is not None and verified.replayed:
        print(
            f"  replayed with round {reveal[0]}'s server seed, revealed by the closed "
            "tournament, and the tournament's salt as client seed: the deal is the round's, "
            "and the deck, log and score check out"
        )
    elif reveal is not None:
        print(
            f"  the tournament is still open: round {reveal[0]}'s server seed is not revealed "
            "yet, so only the signature, the salt, variant and options were checked (verify "
            "again after the close)"
        )
    elif outcome.unfetched:
        print(
            "  the tournament's seeds could not be read (see above; an invite-only one needs "
            "its invite code in CARDPROOF_INVITE_CODE or its organizer's key in "
            "CARDPROOF_ORGANIZER_KEY), so the receipt was not compared with its tournament's "
            "seed, salt and standings: not a pass"
        )
    elif not verified.replayed:
        print("  the server seed is not revealed yet: only the signature was checked")
    for note in outcome.notes:
        print(note)


def _when(moment: int) -> str:
    """Seconds since the epoch as RFC 3339 UTC."""
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")


def _keys(args: argparse.Namespace) -> int:
    from cardproof.receipts import SigningKey, b64url_decode
    from cardproof_service.keys import generate

    keys = generate()
    public = SigningKey.from_seed(b64url_decode(keys["CARDPROOF_SIGNING_KEY"]))
    for name, value in keys.items():
        print(f"{name}={value}")
    print(f"# signing key id (kid): {public.kid}", file=sys.stderr)
    print("# keep these secret; every replica needs the same two values", file=sys.stderr)
    return 0


def _organizer_create(args: argparse.Namespace) -> int:
    """Make an organizer key: store its hash, print the key (once) on stdout."""
    import asyncio

    try:
        from cardproof_service.app import make_store
        from cardproof_service.organizers import new_organizer
        from cardproof_service.settings import Settings, SettingsError
        from cardproof_service.store import StoreUnavailable
    except ImportError:  # pragma: no cover - depends on the install
        print("this needs the service extra: pip install 'cardproof[service]'", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_env()
        key, record = new_organizer(args.name)
    except (SettingsError, ValueError) as error:
        print(f"cardproof keys organizer create: {error}", file=sys.stderr)
        return 2
    store = make_store(settings)

    async def add() -> bool:
        try:
            return await store.add_organizer(record)
        finally:
            await store.close()

    try:
        added = asyncio.run(add())
    except (StoreUnavailable, OSError) as error:
        print(f"cannot reach the store: {error}", file=sys.stderr)
        return 2
    if not added:
        print(f"an organizer named {args.name!r} exists already", file=sys.stderr)
        return 1
    where = "Redis (REDIS_URL)" if settings.redis_url else str(settings.organizers_file)
    print(key)
    print(
        f"# organizer {record.name!r} (id {record.organizer_id}): its key hash is stored in "
        f"{where}; the key above is shown this once, keep it secret",
        file=sys.stderr,
    )
    return 0


def _bots_run(args: argparse.Namespace) -> int:
    """``cardproof bots run MODULE:CLASS``: a bot at ``--games`` deals, its mean score."""
    import importlib

    from cardproof.bots import BotError, Player, play_games
    from cardproof.play import embedded_client

    if args.games < 1:
        print("cardproof bots run: --games is 1 or more", file=sys.stderr)
        return 2
    if not 0 <= args.par_budget <= 10:
        print("cardproof bots run: --par-budget is 0 to 10 seconds", file=sys.stderr)
        return 2
    module_name, _, class_name = args.player.partition(":")
    try:
        player = getattr(importlib.import_module(module_name), class_name)()
    except Exception as error:  # any fault of the player's module or class
        print(
            f"cardproof bots run: cannot make a player of {args.player}: {error}", file=sys.stderr
        )
        return 2
    if not isinstance(player, Player):
        print(
            f"cardproof bots run: {args.player} has no start(setup) and place(turn)",
            file=sys.stderr,
        )
        return 2
    receipts = Path(args.receipts)
    with contextlib.ExitStack() as stack:
        try:
            client = stack.enter_context(
                Client(base_url=args.url) if args.url is not None else embedded_client(limits=False)
            )
            if args.url is None:  # every run's key kept: older receipts still check
                _add_keys(receipts / "keys.json", client.jwks())
            report = play_games(
                client,
                player,
                games=args.games,
                options={"scoring": args.scoring},
                receipts=receipts,
                par_budget=args.par_budget or None,
            )
        except ImportError:  # pragma: no cover - depends on the install
            return _needs_service("bots run")
        except BotError as error:
            print(f"cardproof bots run: {error}", file=sys.stderr)
            return 1
        except (CardproofError, OSError) as error:
            print(f"cardproof bots run: {error}", file=sys.stderr)
            return 2
    print(
        f"{args.player} on {plural(len(report.scores), 'committed blind deal')} of "
        f"{args.variant}, scoring {args.scoring}: mean score {report.mean:.1f} "
        f"(95% interval {report.mean - report.half_width:.1f} to "
        f"{report.mean + report.half_width:.1f}), in {report.seconds:.1f} s"
    )
    if report.mean_percent is not None:
        half = report.percent_half_width
        print(
            f"mean percentage of par {report.mean_percent:.1f}% (95% interval "
            f"{report.mean_percent - half:.1f}% to {report.mean_percent + half:.1f}%; mean par "
            f"{sum(report.pars) / len(report.pars):.1f}, hindsight par in {args.par_budget:g} s "
            "a deal)"
        )
    if report.without_par:
        print(
            f"no par for {plural(len(report.without_par), 'game')} (first: {report.without_par[0]})"
        )
    print(f"receipts: {plural(len(report.receipts), 'file')} in {receipts}/")
    return 0


def _needs_service(command: str) -> int:  # pragma: no cover - depends on the install
    """Say that ``cardproof COMMAND`` without ``--url`` needs the service extra; exit 2."""
    print(
        f"cardproof {command} without --url runs an embedded server, which needs the "
        "service extra: pip install 'cardproof[service]'",
        file=sys.stderr,
    )
    return 2


def _add_keys(path: Path, jwks: Any) -> None:
    """Write ``jwks``'s keys to the key set file at ``path``, keeping the keys already there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    keys: list[Any] = []
    if path.exists():
        try:
            keys = list(msgspec.json.decode(path.read_bytes()).get("keys", []))
        except (msgspec.DecodeError, AttributeError, TypeError):
            keys = []  # not a key set: replaced
    known = {key.get("kid") for key in keys if isinstance(key, dict)}
    new = [key for key in msgspec.to_builtins(jwks)["keys"] if key.get("kid") not in known]
    path.write_bytes(msgspec.json.encode({"keys": keys + new}) + b"\n")


def _store_migrate(args: argparse.Namespace) -> int:
    """Rename the keys of the first Redis layout to the tagged one (see store/migrate.py)."""
    import asyncio

    try:
        from cardproof_service.app import make_store
        from cardproof_service.settings import Settings, SettingsError
        from cardproof_service.store import StoreUnavailable
        from cardproof_service.store.redis import RedisStore
    except ImportError:  # pragma: no cover - depends on the install
        print("this needs the service extra: pip install 'cardproof[service]'", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"cardproof store migrate: {error}", file=sys.stderr)
        return 2
    store = make_store(settings)
    if not isinstance(store, RedisStore):
        print("REDIS_URL is not set: the memory store has nothing to migrate", file=sys.stderr)
        return 2

    async def run() -> Any:
        try:
            return await store.migrate_layout()
        finally:
            await store.close()

    try:
        done = asyncio.run(run())
    except (StoreUnavailable, OSError) as error:
        print(f"cannot reach the store: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"cardproof store migrate: {error}", file=sys.stderr)
        return 2
    print(f"renamed {plural(done.renamed, 'key')}, moved {plural(done.rounds_due, 'due round')}")
    if done.gone:
        print(f"  {plural(done.gone, 'key')} expired while this ran")
    for kept in done.kept:
        print(f"  set aside (its new name is taken, or it is unknown): {kept}")
    return 1 if done.kept else 0


def _json_object(text: str) -> dict[str, Any]:
    """An ``--options`` value: a JSON object, like ``{"levels": 5}``."""
    try:
        value = json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("a JSON object is needed, like '{\"version\": 2}'")
    return value


def _play(args: argparse.Namespace) -> int:

    from cardproof.client import Client
    from cardproof.play import embedded_client, run

    if args.tournament is not None:
        return _play_round(args, Client)
    if args.variant is None:
        print("cardproof play: name a VARIANT, or --tournament ID --round N", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        if args.url is not None:
            client = stack.enter_context(Client(base_url=args.url))
        else:
            try:
                client = stack.enter_context(embedded_client())
            except ImportError:  # pragma: no cover - depends on the install
                return _needs_service("play")
        return run(
            client,
            args.variant,
            client_seed=args.seed,
            options=args.options,
            server_url=args.url,
            receipt_out=args.receipt_out,
        )


def _play_round(args: argparse.Namespace, client_type: type[Client]) -> int:
    """``cardproof play --tournament ID --round N``: the entrant's seat, live."""
    from cardproof.play import run_round

    if args.url is None or args.round is None:
        print(
            f"cardproof play --tournament needs --round N and the server (--url or ${URL_ENV})",
            file=sys.stderr,
        )
        return 2
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "_", args.tournament)[:64]
    path = Path(args.entry_file or f"cardproof-entry-{safe_id}.json")
    try:
        entry = msgspec.json.decode(path.read_bytes())
        token = entry["token"]
        if not isinstance(token, str) or entry.get("tournament_id") != args.tournament:
            raise ValueError("not an entry of this tournament")
    except (OSError, ValueError, KeyError, TypeError, msgspec.DecodeError) as error:
        print(
            f"cardproof play: cannot read the entry in {path} ({error}); enter with "
            f"cardproof tournament enter {args.tournament} --name NAME, or name the file "
            "with --entry-file",
            file=sys.stderr,
        )
        return 2
    # the round is followed on a client of its own, in a thread of its own (_RoundWatch)
    with client_type(base_url=args.url) as client, client_type(base_url=args.url) as follower:
        return run_round(
            client, follower, args.tournament, args.round, token, args.url, args.receipt_out
        )


def _moment_arg(text: str) -> datetime:
    """A ``--opens``/``--closes`` value: ISO 8601 with a time zone, or ``now``."""
    if text == "now":
        return datetime.now(UTC)
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} needs a time zone, like Z or +02:00")
    return value


def _print_tournament(tournament: Tournament) -> None:
    """A tournament as the organizer checks it: settings, window, round commitments."""
    t = tournament
    closed = f" (closed {t.closed_at})" if t.closed_at else ""
    limit = f", at most {plural(t.max_entrants, 'entrant')}" if t.max_entrants is not None else ""
    print(f"tournament  {t.tournament_id}")
    print(f"name        {t.name}")
    print(f"organizer   {t.organizer}")
    print(f"variant     {t.variant} {json.dumps(t.options, sort_keys=True)}")
    print(f"status      {t.status}")
    print(f"window      {t.opens_at} to {t.closes_at}{closed}")
    print(f"entry       {t.entry}{limit}")
    played = "each at their own pace"
    if t.format == "lockstep":
        played = f"every card called to all seats at once, {t.card_seconds} s to place it"
    print(f"format      {t.format}: {played}")
    if t.format == "lockstep":  # said before anyone tries to enter late
        entries = "open until round 1 starts"
        if t.entries_closed_at is not None:
            entries = f"closed at {t.entries_closed_at}, when round 1 started"
        print(f"entries     {entries}")
    print(f"deals       {t.algorithm}, salt {t.salt}")
    print(f"round  {'server_seed_hash (committed)':<64}  server_seed")
    for line in t.rounds:
        seed = line.server_seed or "(revealed at the close)"
        print(f"{line.round:>5}  {line.server_seed_hash:<64}  {seed}")


def _tournament_create(client: Client, args: argparse.Namespace) -> int:
    created = client.create_tournament(
        args.name,
        args.variant,
        rounds=args.rounds,
        opens_at=args.opens,
        closes_at=args.closes,
        options=args.options,
        max_entrants=args.max_entrants,
        entry="invite" if args.invite or args.invites else "public",
        invites=args.invites,
        format=args.format,
        card_seconds=args.card_seconds,
    )
    _print_tournament(created.tournament)
    base, tid = args.url.rstrip("/"), quote(created.tournament.tournament_id, safe="")
    print(f"join        {base}/play?tournament={tid}  (send it to the players)")
    print(f"standings   {base}/tournaments/{tid}")
    _print_invites(created.invite_codes)  # last: shown this once
    return 0


def _print_invites(codes: list[str]) -> None:
    """Invite codes, one a line (shown this once)."""
    for code in codes:
        print(f"invite code {code}")
    if codes:
        print("# invite codes are shown this once; each enters one entrant", file=sys.stderr)


def _tournament_invites(client: Client, args: argparse.Namespace) -> int:
    _print_invites(client.create_invites(args.id, args.count))
    return 0


def _tournament_enter(client: Client, args: argparse.Namespace) -> int:
    """Enter a tournament; the entry, with its token (shown this once), goes to a new file.

    The file is made (owner-only, never over another) before the entry is asked for, so a
    token the server hands out always has somewhere to go; were writing it to fail after
    all, the token is printed instead.
    """
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "_", args.id)[:64]
    path = Path(args.entry_file or f"cardproof-entry-{safe_id}.json")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ValueError(
            f"{path} exists (an entry's token may be kept there): name another --entry-file"
        ) from None
    except OSError as error:
        raise ValueError(f"cannot make {path}: {error.strerror}") from None
    with os.fdopen(fd, "wb") as out:
        try:
            invite = args.invite or os.environ.get("CARDPROOF_INVITE_CODE") or None
            entry = client.enter(args.id, args.name, invite_code=invite)
        except BaseException:
            out.close()
            path.unlink(missing_ok=True)
            raise
        try:
            out.write(msgspec.json.format(msgspec.json.encode(entry)) + b"\n")
        except OSError as error:
            print(f"cannot write {path} ({error.strerror}): your token is {entry.token}")
            return 1
    print(f"entered {entry.tournament_id} as {entry.name!r} (entrant {entry.entrant_id})")
    print(f"the entry and its token are in {path}: keep it, the token is shown only once")
    print(f"and opens your games until the tournament closes ({entry.expires_at})")
    base = args.url.rstrip("/")
    file_option = f" --entry-file {shlex.quote(str(path))}" if args.entry_file else ""
    print(
        f"play a lockstep round N here: cardproof play --tournament {shlex.quote(args.id)} "
        f"--round N --url {shlex.quote(base)}{file_option}"
    )
    print(f"the standings: {base}/tournaments/{quote(args.id, safe='')}")
    return 0


def _tournament_show(client: Client, args: argparse.Namespace) -> int:
    _print_tournament(client.tournament(args.id))
    return 0


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _tournament_standings(client: Client, args: argparse.Namespace) -> int:
    standings = client.standings(args.id, player=args.player)
    entrants = standings.entrants
    print(
        f"tournament {standings.tournament_id}: {standings.status}, "
        f"{plural(standings.rounds, 'round')}, "
        f"{plural(len(entrants), 'entrant')}"
    )
    with_par = any(line.percent_of_par is not None for line in entrants)  # as the page does
    print(f"{'rank':>4}  {'name':<24} {'total':>8}  games" + ("  % of par" if with_par else ""))
    for line in entrants:
        print(
            f"{line.rank:>4}  {line.name:<24} {line.total:>8}  "
            f"{line.games_finished}/{standings.rounds}"
            + (f"  {_percent(line.percent_of_par):>8}" if with_par else "")
        )
    if standings.pars_pending:
        print(f"pars: {plural(standings.pars_pending, 'round')} still being solved")
    for par in standings.pars:
        proof = "optimal" if par.optimal else f"bound {par.upper_bound}"
        if par.method == "earlier-solver":
            proof += ", earlier solver"
        print(f"round {par.round} par {par.score} ({proof}, by the {par.by})")
    if standings.player is not None:
        print(f"games of {standings.player}:")
        for game in standings.games:
            print(f"  round {game.round}: {game.total} ({_percent(game.percent_of_par)} of par)")
    return 0


def _print_round(status: RoundStatus) -> None:
    """A lockstep round's status, a line."""
    where = f"round {status.round}: {status.status}, {status.seats} seated"
    if status.status == "playing" and status.call is not None:
        card = f" {status.card}" if status.card else ""
        where += (
            f"; card {status.call + 1} of {status.calls}{card} called, "
            f"{status.placed} of {status.seats} placed it, {status.seconds_left:.0f} s left"
        )
    elif status.starts_at is not None:
        where += f"; starts by itself at {status.starts_at}"
    print(where)


def _tournament_start(client: Client, args: argparse.Namespace) -> int:
    _print_round(client.start_round(args.id, args.round))
    return 0


def _tournament_round(client: Client, args: argparse.Namespace) -> int:
    _print_round(client.round_status(args.id, args.round))
    return 0


def _tournament_close(client: Client, args: argparse.Namespace) -> int:
    _print_tournament(client.close_tournament(args.id))
    return 0


def _tournament_export(client: Client, args: argparse.Namespace) -> int:
    export = client.export_tournament(args.id)
    text = msgspec.json.format(msgspec.json.encode(export), indent=2) + b"\n"
    if args.output in (None, "-"):
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
        return 0
    try:
        Path(args.output).write_bytes(text)
    except OSError as error:
        print(f"cannot write {args.output}: {error}", file=sys.stderr)
        return 2
    print(
        f"wrote {args.output}: {plural(len(export.games), 'game')}; re-check it with "
        f"cardproof verify --tournament {args.output}",
        file=sys.stderr,
    )
    return 0


_ORGANIZER_ONLY = frozenset({"create", "close", "invites", "start"})


def _tournament(args: argparse.Namespace) -> int:
    """Run one ``cardproof tournament`` command: 0 done, 1 refused (4xx), 2 unreachable."""
    action: Callable[[Client, argparse.Namespace], int] = args.action
    command = f"cardproof tournament {args.tournament_command}"
    key = args.key or os.environ.get("CARDPROOF_ORGANIZER_KEY") or None
    if key is None and args.tournament_command in _ORGANIZER_ONLY:
        print(
            f"{command}: this needs the organizer key: --key or CARDPROOF_ORGANIZER_KEY "
            "(cardproof keys organizer create NAME makes one)",
            file=sys.stderr,
        )
        return 2
    try:
        with Client(base_url=args.url, api_key=key) as client:
            return action(client, args)
    except ValueError as error:  # a bad argument the SDK caught before sending
        print(f"{command}: {error}", file=sys.stderr)
        return 2
    except APIError as error:
        code = f" {error.code}" if error.code else ""
        print(
            f"{command}: refused ({error.status}{code}): {error.detail or error.title}",
            file=sys.stderr,
        )
        return 1 if error.status < 500 else 2
    except TransportError as error:
        print(f"{command}: cannot reach {args.url}: {error}", file=sys.stderr)
        return 2


SHUTDOWN_GRACE = 5
"""Seconds a stopping ``cardproof serve`` waits for requests in flight."""

SIGNATURE_ONLY: Final = 3
"""``cardproof verify``'s exit status when only the signature could be checked: not 0,
so ``cardproof verify r.jws && accept`` never accepts an unreplayed receipt."""
URL_ENV = "CARDPROOF_URL"
"""The server every command that takes ``--url`` uses when ``--url`` is not given."""


def _url_from_env() -> str | None:
    """``$CARDPROOF_URL`` if it is set (and not empty)."""
    return os.environ.get(URL_ENV) or None


def _add_tournament_parser(commands: Any) -> None:
    """``cardproof tournament create|invites|enter|show|standings|close|export``."""
    server = argparse.ArgumentParser(add_help=False)
    server.add_argument(
        "--url",
        default=_url_from_env() or DEFAULT_BASE_URL,
        help=f"the server (default ${URL_ENV}, else {DEFAULT_BASE_URL})",
    )
    server.add_argument(
        "--key",
        help="the organizer key, cpo_... (default: $CARDPROOF_ORGANIZER_KEY); create and close "
        "need it, and reading an invite-only tournament",
    )
    tournament = commands.add_parser(
        "tournament",
        help="run tournaments (organizers), or enter one (players)",
        description="Tournament commands against a cardproof server: organizers create, "
        "invite, close and export; players enter. Exit status: 0 done; 1 the server "
        "refused (the problem's detail is printed); 2 bad arguments, no organizer key, or "
        "the server cannot be reached.",
    )
    sub = tournament.add_subparsers(dest="tournament_command", required=True)
    create = sub.add_parser(
        "create",
        parents=[server],
        help="create a tournament: prints its id, round commitments and invite code",
    )
    create.add_argument("name", help="the tournament's name")
    create.add_argument("--variant", required=True, help="the variant every round deals")
    create.add_argument("--rounds", type=int, required=True, help="rounds (1 to 50)")
    create.add_argument(
        "--opens", type=_moment_arg, required=True, metavar="ISO", help="opening time, or now"
    )
    create.add_argument("--closes", type=_moment_arg, required=True, metavar="ISO")
    create.add_argument("--options", type=_json_object, metavar="JSON", help="variant options")
    create.add_argument("--max-entrants", type=int, metavar="N")
    create.add_argument(
        "--invite", action="store_true", help="invite-only entry (prints one invite code once)"
    )
    create.add_argument(
        "--invites",
        type=int,
        metavar="N",
        help="invite-only entry with N single-use invite codes (printed once)",
    )
    create.add_argument(
        "--format",
        choices=["lockstep", "async"],
        help="lockstep: each card called to every seated entrant at once (the default for a "
        "hidden variant); async: each at their own pace (a hidden variant: --invite only)",
    )
    create.add_argument(
        "--card-seconds",
        type=int,
        metavar="S",
        help="lockstep: seconds to place each called card (1 to 600, default 60)",
    )
    create.set_defaults(action=_tournament_create)
    for name, action, text in (
        ("start", _tournament_start, "start a lockstep round now: its first card is called"),
        ("round", _tournament_round, "a lockstep round's status: the call, its deadline"),
    ):
        command = sub.add_parser(name, parents=[server], help=text)
        command.add_argument("id", help="the tournament id")
        command.add_argument("round", type=int, help="the round, from 1")
        command.set_defaults(action=action)
    invites = sub.add_parser(
        "invites",
        parents=[server],
        help="make more single-use invite codes for an invite-only tournament",
    )
    invites.add_argument("id", help="the tournament id")
    invites.add_argument("--count", type=int, default=1, help="how many codes (1 to 1000)")
    invites.set_defaults(action=_tournament_invites)
    enter = sub.add_parser(
        "enter",
        parents=[server],
        help="enter a tournament as a player: the entry and its token go to a new file",
    )
    enter.add_argument("id", help="the tournament id")
    enter.add_argument("--name", required=True, help="the name to enter under")
    enter.add_argument(
        "--invite",
        metavar="CODE",
        help="an invite code, for an invite-only tournament (default $CARDPROOF_INVITE_CODE)",
    )
    enter.add_argument(
        "--entry-file",
        metavar="FILE",
        help="where the entry and its token go (default cardproof-entry-ID.json; "
        "never an existing file)",
    )
    enter.set_defaults(action=_tournament_enter)
    for name, action, text in (
        (
            "show",
            _tournament_show,
            "show a tournament and its round commitments (seeds once closed)",
        ),
        ("standings", _tournament_standings, "the standings, as a table"),
        ("close", _tournament_close, "close a tournament now: reveals its round seeds"),
        ("export", _tournament_export, "a closed tournament's whole record, as JSON"),
    ):
        command = sub.add_parser(name, parents=[server], help=text)
        command.add_argument("id", help="the tournament id")
        command.set_defaults(action=action)
        if name == "export":
            command.add_argument(
                "-o", "--output", metavar="FILE", help="write to FILE (default: stdout)"
            )
        if name == "standings":
            command.add_argument(
                "--player",
                metavar="NAME",
                help="also list this entrant's games with their share of par (once closed)",
            )
    tournament.set_defaults(run=_tournament)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="cardproof", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", help="address to bind (default $CARDPROOF_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default $CARDPROOF_PORT, else 8000)")
    serve.add_argument(
        "--workers",
        type=int,
        help="worker processes, each a uvicorn worker on one shared socket; above 1 needs "
        "REDIS_URL (default $CARDPROOF_WORKERS, else 1)",
    )
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug", "trace"],
        help="uvicorn log level (default info)",
    )
    serve.set_defaults(run=_serve)
    spec = commands.add_parser("openapi", help="print the OpenAPI spec as JSON")
    spec.set_defaults(run=_openapi)
    verify = commands.add_parser(
        "verify",
        help="verify a receipt offline: signature, seed, deck, replay, score",
        description="Verify a receipt offline. A tournament receipt issued before the close "
        "has no seed: verify fetches the tournament's revealed seed from --url (an "
        "invite-only tournament is read with its invite code in CARDPROOF_INVITE_CODE, or "
        "its organizer's key in CARDPROOF_ORGANIZER_KEY). Exit status: 0 verified (replayed); "
        f"1 not verified; 2 the receipt or key set could not be read; {SIGNATURE_ONLY} only "
        "the signature could be checked (the seed is not revealed yet): not a pass.",
    )
    verify.add_argument(
        "receipt",
        nargs="?",
        help="a file with the receipt (compact JWS or its JSON), - for stdin",
    )
    verify.add_argument(
        "--tournament",
        metavar="FILE",
        help="instead, re-check a closed tournament's export (GET /v1/tournaments/{id}/export) "
        "end to end: seeds, decks, logs, receipts, standings",
    )
    verify.add_argument("--jwks", help="the key set: a URL or a file (default: the server's)")
    verify.add_argument(
        "--allow-practice",
        action="store_true",
        help="accept a practice receipt (POST /v1/verify on a seed pair the player chose): "
        "it proves the score of that log on that deck, not that the deck was fair",
    )
    verify.add_argument(
        "--allow-casual",
        action="store_true",
        help="accept a casual deal's receipt (no commitment: the server knew the client "
        "seed before it chose its own)",
    )
    verify.add_argument(
        "--url",
        default=_url_from_env(),
        help="the server, for its key set and a tournament receipt's revealed seed "
        f"(default ${URL_ENV}, else for a receipt {DEFAULT_BASE_URL}; an invite-only "
        "tournament is read "
        "with $CARDPROOF_ORGANIZER_KEY)",
    )
    verify.set_defaults(run=_verify)
    play = commands.add_parser(
        "play",
        help="play a game in the terminal against a server, or an embedded one",
        description="Play poker-squares, poker-patience, serpent-patience, repeat-poker, "
        "reserve-poker or solodrez in the terminal (solodrez has a 'hint' command backed "
        "by the solver). Exit status: 0 the game was scored and its receipt "
        "shown; 1 quit or not scored; 2 the server could not be used (or refused the deal).",
    )
    play.add_argument(
        "variant",
        nargs="?",
        help="poker-squares, poker-patience, serpent-patience, repeat-poker, reserve-poker or "
        "solodrez (not with --tournament: the tournament's variant)",
    )
    play.add_argument(
        "--tournament",
        metavar="ID",
        help="play your seat in a lockstep round of this tournament, live (with --round, "
        "--url, and the entry file of cardproof tournament enter)",
    )
    play.add_argument("--round", type=int, metavar="N", help="the round to play, from 1")
    play.add_argument(
        "--entry-file",
        metavar="FILE",
        help="the entry, with its token (default cardproof-entry-ID.json, as "
        "cardproof tournament enter writes it)",
    )
    play.add_argument(
        "--options",
        type=_json_object,
        metavar="JSON",
        help="""the variant's options, a JSON object: '{"levels": 5}' or '{"rows": 3}' """
        """(repeat-poker), '{"version": 2}' (reserve-poker), '{"scoring": "british"}' """
        """(the grid games)""",
    )
    play.add_argument(
        "--url",
        default=_url_from_env(),
        help=f"the server to play on (default ${URL_ENV}, else an embedded one, with a "
        "throwaway key)",
    )
    play.add_argument("--seed", help="your client seed (default: a random one)")
    play.add_argument(
        "--receipt-out",
        metavar="FILE",
        help="where to write the receipt (default receipt-<deal id>.jws; with the embedded "
        "server its key set goes beside it, receipt-<deal id>.keys.json)",
    )
    play.set_defaults(run=_play)
    _add_tournament_parser(commands)
    keys = commands.add_parser("keys", help="make keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    generate_keys = key_commands.add_parser("generate", help="print a fresh master and signing key")
    generate_keys.set_defaults(run=_keys)
    organizer = key_commands.add_parser("organizer", help="tournament organizers' API keys")
    organizer_commands = organizer.add_subparsers(dest="organizer_command", required=True)
    create = organizer_commands.add_parser(
        "create",
        help="make an organizer's API key: prints it once, stores only its hash",
        description="Make an API key for a tournament organizer. The key is printed once "
        "on stdout; the store keeps only its SHA-256 (in Redis when REDIS_URL is set, else "
        "in CARDPROOF_ORGANIZERS_FILE, default .cardproof/organizers.json, which a server "
        "on the memory store reads). Exit status: 0 made; 1 the name is taken; 2 a bad "
        "name or the store cannot be reached.",
    )
    create.add_argument("name", help="the organizer's name (1 to 64 printable characters)")
    create.set_defaults(run=_organizer_create)
    store = commands.add_parser("store", help="look after the store")
    store_commands = store.add_subparsers(dest="store_command", required=True)
    migrate = store_commands.add_parser(
        "migrate",
        help="rename a Redis's keys of the first layout to the tagged one",
        description="Rename the keys that cardproof before 0.9 wrote (no hash tags) to the "
        "layout that Redis Cluster needs, in place, keeping every value and time to live. "
        "Run it on REDIS_URL (and CARDPROOF_REDIS_MODE) with every replica stopped; it can "
        "be run again. Until it has run, /readyz says not ready. Exit status: 0 done; 1 "
        "some keys could not be renamed and were set aside as cardproof:kept:... (listed); "
        "2 the store cannot be reached, or is a cluster (which never held the first layout).",
    )
    migrate.set_defaults(run=_store_migrate)
    bots = commands.add_parser("bots", help="seat a bot at committed blind deals")
    bot_commands = bots.add_subparsers(dest="bots_command", required=True)
    bots_run = bot_commands.add_parser(
        "run",
        help="play games with a bot and report its mean score",
        description="Play committed blind poker-squares deals with a player class (the "
        "Player protocol of cardproof.bots: told the variant, options and table at the "
        "start, then one card at a time), on a server or an embedded one. Prints the mean "
        "score with its 95%% interval and writes each receipt, checked against the game "
        "played. Two players ship: cardproof.bots:RandomPlayer and "
        "cardproof.bots:MonteCarloPlayer. Exit status: 0 done; 1 the player broke the "
        "protocol; 2 the player or the server could not be used.",
    )
    bots_run.add_argument("player", metavar="MODULE:CLASS", help="the player class to seat")
    bots_run.add_argument(
        "--variant",
        default="poker-squares",
        choices=["poker-squares"],
        help="the variant (poker-squares, Neller's game, for now)",
    )
    bots_run.add_argument(
        "--scoring",
        default="american",
        metavar="TABLE",
        help="a table (american, british) or a point system drawn from each deal's seeds "
        "(ameritish, random, hypercorner, single-hand); default american",
    )
    bots_run.add_argument("--games", type=int, default=200, help="how many deals (default 200)")
    bots_run.add_argument(
        "--par-budget",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="seconds the server's solver spends on each deal's hindsight par, for the mean "
        "percentage of par (default 0.5; 0: no par)",
    )
    bots_run.add_argument(
        "--receipts",
        metavar="DIR",
        default="receipts",
        help="where to write each game's receipt (default ./receipts; with the embedded "
        "server its key set goes there too, as keys.json)",
    )
    bots_run.add_argument(
        "--url",
        default=_url_from_env(),
        help=f"the server to play on (default ${URL_ENV}, else an embedded one, with a "
        "throwaway key)",
    )
    bots_run.set_defaults(run=_bots_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardproof`` console script.

    A reader that stops early (``cardproof verify ... | head``) ends the command quietly,
    as Unix tools do, with no traceback.
    """
    args = build_parser().parse_args(argv)
    try:
        code = int(args.run(args))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 141  # 128 + SIGPIPE, as a shell reports it
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
