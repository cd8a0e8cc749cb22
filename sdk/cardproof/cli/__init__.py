"""The ``cardproof`` command: serve, play, verify receipts, run tournaments, make keys.

``cardproof serve`` and ``cardproof keys`` need the ``service`` extra
(``pip install 'cardproof[service]'``), and so does ``cardproof play`` without ``--url``
(it then plays against an embedded server); ``cardproof verify`` and ``cardproof
tournament`` (organizers' commands against a server) need only the SDK.

This module only builds the parser: each subcommand lives in a module of its own,
imported when it runs, so that ``cardproof --help`` starts at once.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cardproof.cli.common import (
    SIGNATURE_ONLY,
    URL_ENV,
    json_object,
    moment_arg,
    url_from_env,
)
from cardproof.errors import ServiceExtraMissingError
from cardproof.screen import printable_output
from cardproof.version import DEFAULT_BASE_URL, VERSION

_DESCRIPTION = """Committed deals, rules checking and verified scores for poker solitaires.
`cardproof serve` and `cardproof keys` need the service extra (pip install
'cardproof[service]'), and so does `cardproof play` without --url (it then plays against an
embedded server); `cardproof verify` and `cardproof tournament` need only the SDK."""


def _command(module: str, name: str = "run") -> Callable[[argparse.Namespace], int]:
    """The subcommand ``name`` of ``cardproof.cli.<module>``, imported when it runs."""

    def run(args: argparse.Namespace) -> int:
        action: Callable[[argparse.Namespace], int] = getattr(
            importlib.import_module(f"cardproof.cli.{module}"), name
        )
        return action(args)

    return run


def _add_log_parser(commands: Any) -> None:
    """``cardproof log check``: monitor a service's transparency log."""
    log = commands.add_parser(
        "log",
        help="monitor a service's transparency log",
        description="Read a cardproof service's transparency log as a monitor does.",
    )
    sub = log.add_subparsers(dest="log_command", required=True)
    check = sub.add_parser(
        "check",
        help="verify the log: its checkpoint, every new entry, and that it extends the last "
        "one seen",
        description="Verify the log's checkpoint (the log's key, the witnesses' "
        "cosignatures), read every entry added since the last check, rebuild the tree, and "
        "prove it extends the tree seen last (kept under $XDG_STATE_HOME/cardproof/logs/); "
        "re-read a few old entry bundles at random (--sample), or every entry (--full), to "
        "catch old entries rewritten under an honest checkpoint. One check of a log at a "
        "time: a check locks the log's state file. Exit status: 0 the log checks out; 1 a "
        "check failed (a fork, a rollback, a bad signature, a bad entry or tile: printed); "
        "2 bad arguments, the log could not be read, or another check of it held its state "
        "for 5 s.",
    )
    check.add_argument(
        "--url",
        default=url_from_env() or DEFAULT_BASE_URL,
        help=f"the service (default ${URL_ENV}, else {DEFAULT_BASE_URL})",
    )
    check.add_argument(
        "--key",
        metavar="VKEY",
        help="the log's verifier key (default: the one the service answered the first time)",
    )
    check.add_argument(
        "--witness",
        action="append",
        metavar="VKEY",
        help="a witness whose cosignature the checkpoint must carry (repeat it)",
    )
    check.add_argument(
        "--quorum", type=int, metavar="N", help="how many --witness must cosign (default: all)"
    )
    check.add_argument(
        "--deep",
        action="store_true",
        help="also compare each new entry with the service: the receipt it names, its "
        "tournament's seeds and settlement",
    )
    check.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="full entry bundles seen before to re-read at random, each proved to make the "
        "root seen with its hash tiles (default 4; 0: none)",
    )
    check.add_argument(
        "--full",
        action="store_true",
        help="re-read and re-fold every entry from 0, as a first check does (still held to "
        "the tree and key seen), instead of a sample",
    )
    check.add_argument("--state", metavar="DIR", help="where what was seen is kept (default above)")
    check.set_defaults(run=_command("log", "check"))


def _add_tournament_parser(commands: Any) -> None:
    """``cardproof tournament create|list|invites|enter|show|standings|round|close|export``."""
    from cardproof.cli.common import RELATIVE_TIMES, moments_arg

    server = argparse.ArgumentParser(add_help=False)
    server.add_argument(
        "--url",
        default=url_from_env() or DEFAULT_BASE_URL,
        help=f"the server (default ${URL_ENV}, else {DEFAULT_BASE_URL})",
    )
    server.add_argument(
        "--key",
        help="the organizer key, cpo_... (default: $CARDPROOF_ORGANIZER_KEY); create, list, "
        "invites, start and close need it (show, standings, round and export read an "
        "invite-only tournament with it, or with your entry)",
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
        "--opens",
        type=moment_arg,
        required=True,
        metavar="TIME",
        help=f"opening time: ISO 8601 with a time zone (2030-12-31T18:00:00Z), {RELATIVE_TIMES}",
    )
    create.add_argument(
        "--closes", type=moment_arg, required=True, metavar="TIME", help="closing time, as --opens"
    )
    create.add_argument(
        "--round-starts",
        type=moments_arg,
        action="extend",
        metavar="TIME[,TIME...]",
        help="lockstep: when each round starts by itself, one time per round in order, "
        "within the window (times as --opens; comma-separated, or the option repeated)",
    )
    create.add_argument("--options", type=json_object, metavar="JSON", help="variant options")
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
    listing = sub.add_parser(
        "list",
        parents=[server],
        help="your tournaments, newest first: id, name, variant, status, window",
        description="The organizer key's own tournaments, newest first, a page at a time "
        "(those created before the server kept this list are not in it).",
    )
    listing.add_argument(
        "--limit",
        type=int,
        default=20,
        metavar="N",
        help="tournaments a page (1 to 100, default 20)",
    )
    listing.add_argument(
        "--cursor", metavar="CURSOR", help="the page after another (the cursor it printed)"
    )
    listing.add_argument("--all", action="store_true", help="every page, one after another")
    reader = argparse.ArgumentParser(add_help=False)
    reader.add_argument(
        "--entry-file",
        metavar="FILE",
        help="your entry, whose token reads an invite-only tournament (default: where "
        "cardproof tournament enter wrote it, $XDG_STATE_HOME/cardproof/entries/"
        "cardproof-entry-ID.json, else under ~/.local/state; used when no organizer key "
        "is given)",
    )
    for name, text in (
        ("start", "start a lockstep round now: its first card is called"),
        ("round", "a lockstep round's status: the call, its deadline"),
    ):
        parents = [server] if name == "start" else [server, reader]
        command = sub.add_parser(name, parents=parents, help=text)
        command.add_argument("id", help="the tournament id")
        command.add_argument("round", type=int, help="the round, from 1")
        if name == "round":
            command.add_argument(
                "--watch",
                action="store_true",
                help="follow the round live: a status line each time it moves on, until it "
                "ends (Ctrl-C stops watching)",
            )
    invites = sub.add_parser(
        "invites",
        parents=[server],
        help="make more single-use invite codes for an invite-only tournament",
    )
    invites.add_argument("id", help="the tournament id")
    invites.add_argument("--count", type=int, default=1, help="how many codes (1 to 1000)")
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
        help="where the entry and its token go (default "
        "$XDG_STATE_HOME/cardproof/entries/cardproof-entry-ID.json, else under "
        "~/.local/state; never an existing file)",
    )
    for name, text in (
        (
            "show",
            "show a tournament, its round commitments (seeds once closed) and its entrants",
        ),
        ("standings", "the standings, as a table"),
        ("close", "close a tournament now: reveals its round seeds"),
        ("export", "a closed tournament's whole record, as JSON"),
    ):
        parents = [server] if name == "close" else [server, reader]
        command = sub.add_parser(name, parents=parents, help=text)
        command.add_argument("id", help="the tournament id")
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
    tournament.set_defaults(run=_command("tournament"))


def _add_witness_parser(commands: Any) -> None:
    """``cardproof witness keygen|serve``: a transparency log's witness (C2SP tlog-witness)."""
    witness = commands.add_parser(
        "witness",
        help="witness a transparency log: cosign only checkpoints that extend the last",
    )
    sub = witness.add_subparsers(dest="witness_command", required=True)
    keygen = sub.add_parser(
        "keygen",
        help="print a new witness key: the signer key, then the verifier key",
        description="Print a new Ed25519 witness key (cosignature/v1): the signer key "
        "(PRIVATE+KEY+NAME+ID+KEY, secret: keep it in a file only you read), then its "
        "verifier key (NAME+ID+KEY), which logs and verifiers are given. Exit status: 0 "
        "done; 2 a bad name.",
    )
    keygen.add_argument("name", help="the witness's name, a schema-less URL (witness.example/w1)")
    keygen.set_defaults(run=_command("witness", "keygen"))
    serve = sub.add_parser(
        "serve",
        help="run a witness: POST /add-checkpoint",
        description="Run a witness over HTTP (C2SP tlog-witness): POST /add-checkpoint "
        "with the old size, a consistency proof and a log's checkpoint is answered with a "
        "timestamped cosignature if the checkpoint is signed by the log and extends the "
        "last one cosigned; 409 names the size it holds; a fork or a rollback is refused. "
        "What it cosigned is kept in --state, synced before each answer. Exit status: 0 "
        "stopped; 2 a bad key, log key or address.",
    )
    serve.add_argument("--key", required=True, metavar="FILE", help="the signer key's file")
    serve.add_argument(
        "--log",
        required=True,
        action="append",
        metavar="VKEY",
        help="a log's verifier key (its name is the log's origin); repeat for more logs",
    )
    serve.add_argument("--host", default="127.0.0.1", help="the address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8800, help="the port (default 8800)")
    serve.add_argument(
        "--state",
        metavar="FILE",
        help="where the last cosigned size and root of each log are kept (default "
        "$XDG_STATE_HOME/cardproof/witness.json, else ~/.local/state/cardproof/witness.json)",
    )
    serve.set_defaults(run=_command("witness", "serve"), own_screen=True)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="cardproof", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cardproof {VERSION}")
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
    serve.set_defaults(run=_command("serve"), own_screen=True)
    spec = commands.add_parser("openapi", help="print the OpenAPI spec as JSON")
    spec.set_defaults(run=_command("serve", "print_openapi"))
    verify = commands.add_parser(
        "verify",
        help="verify a receipt offline: signature, seed, deck, replay, score",
        description="Verify a receipt offline. A tournament receipt issued before the close "
        "has no seed: verify fetches the tournament's revealed seed from --url (an "
        "invite-only tournament is read with your entry, the file cardproof tournament enter "
        "wrote, found by itself or named with --entry-file; or with its invite code in "
        "CARDPROOF_INVITE_CODE, or its organizer's key in CARDPROOF_ORGANIZER_KEY). Exit "
        "status: 0 verified (replayed); "
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
        default=url_from_env(),
        help="the server, for its key set and a tournament receipt's revealed seed "
        f"(default ${URL_ENV}, else for a receipt {DEFAULT_BASE_URL}; an invite-only "
        "tournament is read with your entry: --entry-file)",
    )
    verify.add_argument(
        "--entry-file",
        metavar="FILE",
        help="your entry of the receipt's tournament, whose token reads it if it is "
        "invite-only (default: where cardproof tournament enter wrote it, "
        "$XDG_STATE_HOME/cardproof/entries/cardproof-entry-ID.json, else under "
        "~/.local/state; not used with $CARDPROOF_ORGANIZER_KEY)",
    )
    verify.add_argument(
        "--no-log",
        action="store_true",
        help="do not ask the server's transparency log for the receipt (one signed before "
        "the service kept its log; else a receipt the log does not hold is refused)",
    )
    verify.add_argument(
        "--log-key",
        metavar="VKEY",
        help="the log's verifier key (default: the server's GET /log/key); with a receipt's "
        "JSON answer and --jwks, its place in the log is checked offline",
    )
    verify.add_argument(
        "--witness",
        action="append",
        metavar="VKEY",
        help="a witness whose cosignature the log's checkpoint must carry (repeat it); "
        "its time, not the receipt's, is then held against the key's retirement",
    )
    verify.add_argument(
        "--quorum",
        type=int,
        metavar="N",
        help="how many of the --witness keys must have cosigned (default: all)",
    )
    verify.set_defaults(run=_command("verify"))
    _add_log_parser(commands)
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
        help="play your seat in a lockstep round of this tournament, live (with --url, and "
        "the entry file of cardproof tournament enter, found by itself)",
    )
    play.add_argument(
        "--round",
        type=int,
        metavar="N",
        help="the round to play, from 1 (default: the first round not over)",
    )
    play.add_argument(
        "--entry-file",
        metavar="FILE",
        help="the entry, with its token (default: where cardproof tournament enter writes "
        "it, $XDG_STATE_HOME/cardproof/entries/cardproof-entry-ID.json, else under "
        "~/.local/state; then ./cardproof-entry-ID.json, as older versions wrote it)",
    )
    play.add_argument(
        "--options",
        type=json_object,
        metavar="JSON",
        help="""the variant's options, a JSON object: '{"levels": 5}' or '{"rows": 3}' """
        """(repeat-poker), '{"version": 2}' (reserve-poker), '{"scoring": "british"}' """
        """(the grid games)""",
    )
    play.add_argument(
        "--url",
        default=url_from_env(),
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
    play.set_defaults(run=_command("play"), own_screen=True)
    _add_tournament_parser(commands)
    keys = commands.add_parser("keys", help="make keys")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    generate_keys = key_commands.add_parser("generate", help="print a fresh master and signing key")
    generate_keys.set_defaults(run=_command("keys", "generate"))
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
    create.set_defaults(run=_command("keys", "create_organizer"))
    _add_witness_parser(commands)
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
    migrate.set_defaults(run=_command("store", "migrate"))
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
        default=url_from_env(),
        help=f"the server to play on (default ${URL_ENV}, else an embedded one, with a "
        "throwaway key)",
    )
    bots_run.set_defaults(run=_command("bots"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardproof`` console script.

    A reader that stops early (``cardproof verify ... | head``) ends the command quietly,
    as Unix tools do, with no traceback.
    """
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "own_screen", False):  # it draws the terminal itself (play, servers)
            code = int(args.run(args))
        else:
            with printable_output():  # nobody else's bytes move the cursor or recolour a line
                code = int(args.run(args))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 141  # 128 + SIGPIPE, as a shell reports it
    except ServiceExtraMissingError as missing:  # the SDK alone: one line, not a traceback
        print(
            f"cardproof {args.command} needs the service extra ({missing.name} is not "
            f"installed): {missing.INSTALL}",
            file=sys.stderr,
        )
        return 2
    return code
