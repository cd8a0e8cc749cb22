"""``cardproof verify``: a receipt or a closed tournament's export, every claim checked.

Offline with ``--jwks FILE``: the HTTP client is imported only when a server is asked.
Against a server, a receipt must also be in its transparency log once it has had time
to be sequenced (:data:`SEQUENCING_GRACE`): a receipt with a valid signature that the
log does not hold is refused, "not in the log" (a leaked key's, which the operator never
logged).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

from cardproof.cli.common import SIGNATURE_ONLY, own_entry
from cardproof.errors import APIError, NotFoundError, TransportError
from cardproof.games.solodrez import SoloDrez, ending_words
from cardproof.receipts import (
    EMBEDDED_ISSUER,
    JWKS,
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
from cardproof.version import DEFAULT_BASE_URL
from cardproof.words import card_label, plural, shows_suits, yes_no

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cardproof.client import Client
    from cardproof.models import StandingLine, Tournament
    from cardproof.tlog.inclusion import Logged, WitnessPolicy


SEQUENCING_GRACE: Final = 60
"""Seconds after its signing within which a receipt may not be in the log yet (it is
sequenced within a second or two)."""
LOG_WAIT: Final = 5.0
"""Seconds verify waits for a receipt signed a moment ago to be sequenced."""


def _client(url: str, api_key: str | None = None) -> Client:
    """A client of ``url``, its HTTP library imported only when a server is asked."""
    from cardproof.client import Client

    return Client(base_url=url, api_key=api_key)


@dataclass
class _Access:
    """What ``verify`` reads an invite-only tournament with.

    The organizer's key (``CARDPROOF_ORGANIZER_KEY``), an invite code
    (``CARDPROOF_INVITE_CODE``) and, unless the organizer's key is given, the player's
    entry: ``--entry-file``, else the one ``cardproof tournament enter`` wrote.
    """

    organizer: str | None = None
    invite_code: str | None = None
    entry_file: str | None = None
    entry: Path | None = None
    """Where the player's entry was looked for (``None``: not looked for)."""
    token: str | None = None
    """The entry's token, if there is an entry of the tournament there."""

    @classmethod
    def of(cls, entry_file: str | None) -> _Access:
        return cls(
            os.environ.get("CARDPROOF_ORGANIZER_KEY") or None,
            os.environ.get("CARDPROOF_INVITE_CODE") or None,
            entry_file,
        )

    def find_entry(self, tournament_id: str) -> None:
        """Look for the player's entry of ``tournament_id`` (``ValueError``: a bad one).

        Not with the organizer's key: it reads the tournament by itself.
        """
        if self.organizer is None and self.entry is None:
            self.entry, self.token = own_entry(self.entry_file, tournament_id, "cardproof verify")

    def why_unread(self, tournament_id: str, error: APIError) -> str:
        """Why a 401 came, in plain words: what reads the tournament, and what to pass."""
        if self.token is not None:
            return f"the server did not take the entry in {self.entry}: {error.detail}"
        if self.invite_code is not None:
            code = "the invite code in CARDPROOF_INVITE_CODE"
            return f"the server did not take {code}: {error.detail}"
        return (
            f"tournament {tournament_id} is invite-only: verify reads it with your entry, and "
            f"there is none in {self.entry}. Name the file cardproof tournament enter wrote "
            "with --entry-file FILE, or give the tournament's invite code in "
            "CARDPROOF_INVITE_CODE"
        )


def _load_jwks(source: str) -> bytes:
    """A JWKS from a URL (``http...``) or a file."""
    if source.startswith(("http://", "https://")):
        from cardproof.client import fetch_bytes
        from cardproof.endpoints import KEY_LIMIT

        return fetch_bytes(source, limit=KEY_LIMIT)
    return Path(source).read_bytes()


def _read_receipt(path: str) -> tuple[str, Any, Any]:
    """A receipt file: the compact JWS, or a JSON answer that carries one.

    The JSON answer of ``GET /v1/deals/{id}/receipt`` or ``POST /v1/verify`` holds the
    token and, beside it, its ``payload``: returned too (``None`` for a bare token), so
    that a payload that is not the token's own is refused; and its place in the log
    (``log``), checked as the server's would be. A JWS is read forgivingly: white space
    and line breaks anywhere in it (one copied from a wrapped terminal) are dropped, and
    that canonical form is what is checked.
    """
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    text = text.strip()
    stated = logged = None
    if text.startswith("{"):
        answer = json.loads(text)
        text, stated, logged = str(answer["receipt"]), answer.get("payload"), answer.get("log")
    return "".join(text.split()), stated, logged


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
            _export_matches_server(export, args.url.rstrip("/"), _Access.of(args.entry_file))
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
    if args.jwks:
        keys = f"the key set {args.jwks}"
    elif args.url:
        keys = f"the server's key set ({args.url.rstrip('/')}/.well-known/jwks.json)"
    else:
        keys = "the key set in the export (pass --url to check against the server's)"
    games = plural(check.games, "game")
    print(f"verified: {games} replayed and their receipts checked against {keys}")
    for line in check.standings:
        finished = plural(line.games_finished, "game")
        print(f"  {line.rank:>4}  {line.name:<24} {line.total:>8}  ({finished})")
    return 0


def _export_matches_server(export: bytes, url: str, access: _Access) -> None:
    """The export is the server's record: its tournament and standings as the server shows.

    An export is a file anyone can edit, and an operator can re-sign its receipts; what
    the server itself shows (the committed rounds, the salt, the standings) it cannot
    have changed since the close without every reader seeing it. ``ExportError`` names
    each difference.
    """
    from cardproof.models import TournamentExport
    from cardproof.tournaments import ExportError

    given = msgspec.json.decode(export, type=TournamentExport)
    tid = given.tournament.tournament_id
    access.find_entry(tid)
    code, token = access.invite_code, access.token
    try:
        with _client(url, access.organizer) as client:
            shown = client.tournament(tid, invite_code=code, token=token)
            standings = client.standings(tid, invite_code=code, token=token)
    except APIError as error:
        why = access.why_unread(tid, error) if error.status == 401 else str(error)
        raise ExportError([f"{url} does not show tournament {tid}: {why}"]) from None
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


def _tournament_of(
    url: str, payload: ReceiptPayload, access: _Access
) -> tuple[Tournament, int, str | None]:
    """The receipt's tournament, the round that committed to its seed, and that seed.

    The seed is ``None`` while the tournament is open. The receipt does not name its
    round, so the round is the one whose ``server_seed_hash`` is the receipt's; a
    tournament with no such round did not deal this game (``ReceiptError``).
    """
    with _client(url, access.organizer) as client:  # an invite-only one: see _Access
        tournament = client.tournament(
            str(payload.tournament), invite_code=access.invite_code, token=access.token
        )
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


def _check_standing(
    url: str, tournament: Tournament, round_: int, payload: ReceiptPayload, access: _Access
) -> None:
    """A closed tournament's standings count this game: its player, round and total."""
    try:
        with _client(url, access.organizer) as client:
            standings = client.standings(
                tournament.tournament_id,
                player=payload.player,
                invite_code=access.invite_code,
                token=access.token,
            )
    except NotFoundError:
        standings = None
    if standings is None or standings.player != payload.player:  # not a look-alike name
        raise ReceiptError(
            "not-in-standings",
            f"{_json(payload.player)} is not an entrant of the closed tournament's standings",
        )
    games = {game.round: game.total for game in standings.games}
    if games.get(round_) != payload.score.total:
        raise ReceiptError(
            "not-in-standings",
            f"the closed tournament's standings give {_json(payload.player)} "
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
        with _client(url) as client:
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


EMBEDDED_ISSUER_TEXT = "an embedded server (a throwaway key; no network service)"
"""How ``verify`` names the issuer of a receipt an embedded server signed."""
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
    """The options as text: a named table by its name, a custom table in full.

    Values are written as JSON writes them (``true``, ``null``, ``[1, 2]``), as the
    receipt holds them; a plain word (a table's name) needs no quotes.

    >>> _options_text({"scoring": "american", "diagonals": False, "seed": None})
    'scoring american; diagonals false; seed null'
    """
    parts = []
    for key, value in options.items():
        if key == "scoring" and isinstance(value, dict):
            table = ", ".join(f"{category} {points}" for category, points in value.items())
            parts.append(f"scoring custom table ({table})")
        else:
            parts.append(f"{key} {_word(value)}")
    return "; ".join(parts) or "none"


def _json(value: Any) -> str:
    """``value`` as JSON text: a name in double quotes, ``true``, ``null``."""
    return json.dumps(value, ensure_ascii=False)


def _word(value: Any) -> str:
    """An option's value: a plain word (letters, digits, ``-``) bare, anything else as JSON."""
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", value):
        return value
    return _json(value)


def run(args: argparse.Namespace) -> int:
    """``verify RECEIPT``: every claim of the receipt, as far as the server can show it."""
    if (args.tournament is None) == (args.receipt is None):
        print("cardproof verify: give a RECEIPT file or --tournament FILE", file=sys.stderr)
        return 2
    if args.tournament is not None:
        return _verify_tournament(args)
    try:
        token, stated, logged = _read_receipt(args.receipt)
        policy = _policy(args.witness, args.quorum)
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
    access = _Access.of(args.entry_file)
    try:  # the player's entry of the tournament the receipt names, to read it with
        claimed = decode_receipt(token)[1].tournament
        if claimed is not None:
            access.find_entry(str(claimed))
    except ReceiptError:
        pass  # not a receipt: said below
    except ValueError as error:  # a bad --entry-file
        print(f"cardproof verify: {error}", file=sys.stderr)
        return 2
    try:
        outcome = _check_receipt(
            token, jwks, url, allow, access=access, keys_from_url=args.jwks is None
        )
        _check_stated(token, stated)
        if args.no_log:
            outcome.notes.append("  its place in the log was not asked for (--no-log)")
        else:
            server = url if args.jwks is None or args.url else None
            _check_log(outcome, token, logged, server, args.log_key, policy, jwks)
    except ReceiptError as error:
        print(f"NOT VERIFIED ({error.code}): {error.message}")
        return 1
    _report(outcome)
    passed = outcome.verified.replayed and not outcome.unfetched and not outcome.unlogged
    return 0 if passed else SIGNATURE_ONLY


def _policy(witnesses: Sequence[str] | None, quorum: int | None) -> WitnessPolicy:
    """The witnesses a log's checkpoint must be cosigned by (``ValueError``: a bad one)."""
    from cardproof.tlog.inclusion import WitnessPolicy
    from cardproof.tlog.note import NoteError, Verifier

    try:
        keys = tuple(Verifier.parse(vkey) for vkey in witnesses or ())
    except NoteError as error:
        raise ValueError(f"--witness: {error}") from None
    return WitnessPolicy(keys, len(keys) if quorum is None else quorum)


def _check_log(
    outcome: _Outcome,
    token: str,
    logged: Any,
    url: str | None,
    log_key: str | None,
    policy: WitnessPolicy,
    jwks: bytes,
) -> None:
    """The log holds the receipt: from ``logged`` (the answer's ``log``) or the server.

    Against a server, its log is asked (a place carried in the receipt's JSON is not
    trusted: it could be another tree signed with the log's key). The log's key is
    ``log_key``, else the server's (trusted as its key set is). Offline
    with no place in the log and no key, nothing is checked, and the report says so.
    Raises :class:`ReceiptError` for a receipt the log does not hold once it had time
    to be sequenced, or a place in the log that does not check out.
    """
    from cardproof.tlog.inclusion import LogProof, LogProofError, check_in_log, check_retirement
    from cardproof.tlog.note import NoteError, Verifier

    payload = outcome.verified.payload
    if payload.kind == "practice":
        outcome.notes.append("  a practice receipt names no deal: it is not in the log")
        return
    if payload.deal_id is None or payload.kind is None:
        raise ReceiptError(
            "not-in-log", f"a {payload.kind or 'kindless'} receipt of no deal: no log holds one"
        )
    if url is not None:
        logged = None  # the server's log decides, not a place carried with the receipt
    if url is None and (logged is None or log_key is None):
        outcome.notes.append(
            "  its place in the log was not checked (offline: --url asks the server's log, "
            "or give the receipt's JSON answer, with its log, and --log-key)"
        )
        return
    try:
        if url is not None:
            with _client(url) as client:
                log_key = log_key or client.log_key()
                waited = 0.0
                while logged is None:
                    logged = client.log_proof(token)
                    age = time.time() - payload.issued
                    if logged is not None or age > SEQUENCING_GRACE or waited >= LOG_WAIT:
                        break
                    time.sleep(0.5)  # signed a moment ago: sequenced within a second or two
                    waited += 0.5
        key = Verifier.parse(str(log_key))
    except (APIError, TransportError, NoteError) as error:
        outcome.notes.append(f"  the log could not be read from {url}: {error}")
        outcome.unlogged = True
        return
    if logged is None:
        age = int(datetime.now(UTC).timestamp()) - payload.issued
        if age < SEQUENCING_GRACE:
            outcome.notes.append(
                f"  not in the log yet (signed {max(age, 0)} s ago; it is sequenced within "
                "seconds): verify again in a minute"
            )
            outcome.unlogged = True
            return
        raise ReceiptError(
            "not-in-log",
            f"the log of {url} does not hold this receipt, signed {_when(payload.issued)}: "
            "its signature is the service's key, but the service never logged it (a leaked "
            "key signs such receipts; so did the service before it kept its log, for games "
            "that ended before: --no-log checks one of those without)",
        )
    try:
        found = check_in_log(token, msgspec.convert(logged, LogProof), key, policy)
        if policy.quorum:
            check_retirement(found, msgspec.json.decode(jwks, type=JWKS), grace=SEQUENCING_GRACE)
    except (LogProofError, msgspec.ValidationError) as error:
        code = error.code if isinstance(error, LogProofError) else "entry"
        raise ReceiptError(f"log-{code}", f"its place in the log: {error}") from None
    outcome.notes.append(_logged_line(found, policy))


def _logged_line(found: Logged, policy: WitnessPolicy) -> str:
    """The report's line for a receipt found in the log."""
    line = f"  in the log {found.origin}: entry {found.index} of {found.size}"
    if found.cosigned_at is not None:
        return (
            f"{line}, cosigned by {policy.quorum} of your witnesses by {_when(found.cosigned_at)}"
        )
    return f"{line} (no witness asked for: --witness)"


def _hint_issuer(token: str, url: str | None) -> None:
    """Name the issuer a receipt claims, when no server was given: a hint, not trust."""
    try:
        issuer = decode_receipt(token)[1].iss
    except ReceiptError:
        return
    if url is None and issuer == EMBEDDED_ISSUER:
        print(
            "the receipt was issued by an embedded server, which no network serves: check it "
            "with the key set written beside it (--jwks FILE)",
            file=sys.stderr,
        )
    elif url is None and issuer is not None:
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
    unlogged: bool = False
    """Its place in the log could not be checked (yet): not a pass."""
    notes: list[str] = field(default_factory=list)


def _check_receipt(
    token: str,
    jwks: bytes,
    url: str,
    allow: list[ReceiptKind],
    *,
    access: _Access,
    keys_from_url: bool,
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
            tournament, round_, seed = _tournament_of(url, payload, access)
        except NotFoundError:
            raise ReceiptError(
                "unknown-tournament", f"{url} has no tournament {payload.tournament}"
            ) from None
        except (APIError, TransportError) as error:  # the signature stands: say so below
            why = str(error)
            if isinstance(error, APIError) and error.status == 401:  # invite-only
                why = access.why_unread(str(payload.tournament), error)
            print(f"cannot read the tournament's seeds from {url}: {why}", file=sys.stderr)
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
            _check_standing(url, tournament, round_, payload, access)
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
        issuer = EMBEDDED_ISSUER_TEXT if payload.iss == EMBEDDED_ISSUER else payload.iss
        print(f"  issued by {issuer} at {_when(payload.issued)}")
    print(f"  options {_options_text(payload.options)}")
    symbols = shows_suits(sys.stdout)
    for hand in payload.score.hands:
        cards = " ".join(card_label(card, symbols=symbols) for card in hand.cards)
        print(f"  {hand.line:<11} {cards:<19} {hand.category:<16} {hand.points:>5}")
    if payload.variant == SoloDrez.id:  # no hands: the series, and the moves as counted
        print(f"  {ending_words(payload.score, payload.moves.split())}")
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
            "  the tournament's seeds could not be read (see above), so the receipt was not "
            "compared with its tournament's "
            "seed, salt and standings: not a pass"
        )
    elif not verified.replayed:
        print("  the server seed is not revealed yet: only the signature was checked")
    for note in outcome.notes:
        print(note)


def _when(moment: int) -> str:
    """Seconds since the epoch as RFC 3339 UTC."""
    return datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z")
