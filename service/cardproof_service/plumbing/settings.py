"""Service settings, read from the environment once at start-up."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self
from urllib.parse import urlsplit

DEFAULT_ORGANIZERS_FILE = ".cardproof/organizers.json"
DEFAULT_MAX_BODY_BYTES = 512 * 1024
"""Room for a 10,000-move solodrez log as move objects (about 300 KB)."""


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the variable."""


RedisMode = Literal["standalone", "sentinel", "cluster"]


def redis_mode(text: str) -> RedisMode:
    """``CARDPROOF_REDIS_MODE``, checked."""
    if text == "standalone":
        return "standalone"
    if text == "sentinel":
        return "sentinel"
    if text == "cluster":
        return "cluster"
    raise SettingsError(
        f"CARDPROOF_REDIS_MODE must be standalone, sentinel or cluster, not {text!r}"
    )


def public_url(text: str) -> str | None:
    """``CARDPROOF_PUBLIC_URL``, checked: an http(s) URL without query or fragment, or unset.

    A trailing slash is dropped, so that the spec's paths append to it.

    >>> public_url("https://cards.example.org/api/")
    'https://cards.example.org/api'
    >>> public_url("") is None
    True
    """
    if not text:
        return None
    parts = urlsplit(text)
    if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query or parts.fragment:
        raise SettingsError(
            f"CARDPROOF_PUBLIC_URL must be an http(s) URL like https://HOST[/PATH], not {text!r}"
        )
    return text.rstrip("/")


def log_origin(text: str) -> str | None:
    """``CARDPROOF_LOG_ORIGIN``, checked: a signed note's key name (no space, no ``+``).

    >>> log_origin("cards.example.org/log")
    'cards.example.org/log'
    >>> log_origin("") is None
    True
    """
    if not text:
        return None
    if any(c.isspace() or c == "+" or not c.isprintable() for c in text):
        raise SettingsError(
            f"CARDPROOF_LOG_ORIGIN must be a name without spaces or '+' (such as "
            f"cards.example.org/log), not {text!r}"
        )
    return text


def switch(name: str, text: str) -> bool:
    """An on/off setting: ``on``, ``1``, ``true``, ``yes`` or ``off``, ``0``, ``false``, ``no``.

    >>> switch("CARDPROOF_LOG", "Off")
    False
    """
    value = text.strip().lower()
    if value in {"on", "1", "true", "yes"}:
        return True
    if value in {"off", "0", "false", "no"}:
        return False
    raise SettingsError(f"{name} is on or off, not {text!r}")


def log_witnesses(text: str) -> tuple[tuple[str, str], ...]:
    """``CARDPROOF_LOG_WITNESSES``, checked: comma-separated ``URL VKEY`` pairs.

    Each URL is a witness's base URL (its ``/add-checkpoint`` is asked), each VKEY its
    cosignature verifier key (C2SP tlog-cosignature: ``name+id+base64``, type 0x04).

    >>> vkey = "w.example/1+bb8212eb+BIFm2ZCOlA0IA48LHi+pfWMBuwTZnS/G1AYv8vg1oQtD"
    >>> log_witnesses(f"https://w.example/ {vkey}")[0][0]
    'https://w.example'
    >>> log_witnesses("")
    ()
    """
    from cardproof.tlog.note import COSIGNATURE_V1, NoteError, Verifier

    pairs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        url, _, vkey = item.partition(" ")
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query:
            raise SettingsError(
                f"CARDPROOF_LOG_WITNESSES: {url!r} is not a witness's http(s) URL (each "
                "witness is 'URL VKEY', witnesses separated by commas)"
            )
        try:
            verifier = Verifier.parse(vkey.strip())
        except NoteError as error:
            raise SettingsError(f"CARDPROOF_LOG_WITNESSES: the key after {url}: {error}") from None
        if verifier.kind != COSIGNATURE_V1:
            raise SettingsError(
                f"CARDPROOF_LOG_WITNESSES: the key after {url} is not a cosignature/v1 key "
                "(`cardproof witness keygen` prints one)"
            )
        pairs.append((url.rstrip("/"), verifier.vkey))
    if len({vkey for _, vkey in pairs}) != len(pairs):
        raise SettingsError("CARDPROOF_LOG_WITNESSES names a witness's key twice")
    return tuple(pairs)


def env_number(
    env: Mapping[str, str],
    name: str,
    default: float,
    kind: type[int] | type[float] = int,
    *,
    zero: bool = False,
) -> Any:
    """The number in ``env[name]`` (``default`` when unset), checked positive (or 0 if allowed).

    >>> env_number({"X": "2.5"}, "X", 1, float)
    2.5
    >>> env_number({"X": "0"}, "X", 1)
    Traceback (most recent call last):
    ...
    cardproof_service.plumbing.settings.SettingsError: X must be more than 0, not '0'
    """
    text = env.get(name)
    if not text:
        return kind(default)
    try:
        value = kind(text)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {text!r}") from None
    if value < 0 or (value == 0 and not zero) or value != value:
        least = "0 or more" if zero else "more than 0"
        raise SettingsError(f"{name} must be {least}, not {text!r}")
    return value


def default_max_connections() -> int:
    """Open connections one process keeps: its file descriptors less 512 for everything else.

    A process that accepts past its descriptors fails to open files and the store's sockets
    too; held here, the connection over the cap is closed at once and the rest goes on.
    """
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # pragma: no cover - not on Linux
        return 1000
    if soft == resource.RLIM_INFINITY:
        return 50_000
    return max(64, min(50_000, soft - 512))


@dataclass(frozen=True, kw_only=True)
class DoorSettings:
    """Deadlines and limits of the HTTP layer (``cardproof_service.door``), per process.

    Each has a ``CARDPROOF_*`` variable; the README ("Limits") says what each defends against,
    and deploy/ sets the same at the edge.
    """

    header_timeout: float = 10.0
    """``CARDPROOF_HEADER_TIMEOUT``: seconds a request's line and headers may take to arrive,
    from its first byte (a new connection's first request: from the connection); 408."""
    body_timeout: float = 10.0
    """``CARDPROOF_BODY_TIMEOUT``: the window of the body's minimum rate, in seconds: each
    window must bring ``body_min_rate`` x this many bytes, or the body's end; 408."""
    body_min_rate: int = 1024
    """``CARDPROOF_BODY_MIN_RATE``: the slowest body accepted, in bytes a second."""
    keepalive_timeout: int = 5
    """``CARDPROOF_KEEPALIVE_TIMEOUT``: seconds an idle keep-alive connection is kept."""
    send_timeout: float = 30.0
    """``CARDPROOF_SEND_TIMEOUT``: seconds a client may leave an answer unread (its socket
    full) before its connection is closed; an event stream's reader too."""
    max_request_line: int = 8192
    """``CARDPROOF_MAX_REQUEST_LINE``: the longest target (path and query), in bytes; 414."""
    max_header_bytes: int = 16384
    """``CARDPROOF_MAX_HEADER_BYTES``: the most bytes of headers (names and values, as sent,
    HTTP/2's decoded); 431."""
    max_headers: int = 100
    """``CARDPROOF_MAX_HEADERS``: the most header fields in one request; 431."""
    connections_per_address: int = 256
    """``CARDPROOF_CONNECTIONS_PER_ADDRESS``: connections one address (an IPv6 client: its
    /64) may hold open in one process; the next is closed at once (0: no cap). Proxies that
    ``FORWARDED_ALLOW_IPS`` trusts are exempt (the edge caps their clients)."""
    max_connections: int = field(default_factory=default_max_connections)
    """``CARDPROOF_MAX_CONNECTIONS``: connections one process holds open (default: its file
    descriptors less 512); the next is closed at once."""
    h2_max_streams: int = 100
    """``CARDPROOF_H2_MAX_STREAMS``: requests one HTTP/2 connection may have in flight."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        """Door settings from ``environ`` (default ``os.environ``), defaults where unset."""
        env = os.environ if environ is None else environ
        return cls(
            header_timeout=env_number(env, "CARDPROOF_HEADER_TIMEOUT", 10.0, float),
            body_timeout=env_number(env, "CARDPROOF_BODY_TIMEOUT", 10.0, float),
            body_min_rate=env_number(env, "CARDPROOF_BODY_MIN_RATE", 1024, zero=True),
            keepalive_timeout=env_number(env, "CARDPROOF_KEEPALIVE_TIMEOUT", 5),
            send_timeout=env_number(env, "CARDPROOF_SEND_TIMEOUT", 30.0, float),
            max_request_line=env_number(env, "CARDPROOF_MAX_REQUEST_LINE", 8192),
            max_header_bytes=env_number(env, "CARDPROOF_MAX_HEADER_BYTES", 16384),
            max_headers=env_number(env, "CARDPROOF_MAX_HEADERS", 100),
            connections_per_address=env_number(
                env, "CARDPROOF_CONNECTIONS_PER_ADDRESS", 256, zero=True
            ),
            max_connections=env_number(env, "CARDPROOF_MAX_CONNECTIONS", default_max_connections()),
            h2_max_streams=env_number(env, "CARDPROOF_H2_MAX_STREAMS", 100),
        )


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What an operator can set; every field has a ``CARDPROOF_*`` environment variable."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """``CARDPROOF_MAX_BODY_BYTES``: request bodies over this get 413."""
    warm_up: bool = True
    """``CARDPROOF_WARM_UP``: build the serpent solver's path table at start-up."""
    redis_url: str | None = None
    """``REDIS_URL``: the Redis store for several replicas; unset, the memory store."""
    redis_mode: RedisMode = "standalone"
    """``CARDPROOF_REDIS_MODE``: ``standalone`` (``REDIS_URL`` is one server), ``sentinel``
    (``REDIS_URL`` is ``sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[/DB]``) or ``cluster``
    (``REDIS_URL`` is any node of a Redis Cluster)."""
    redis_min_replicas: int = 0
    """``CARDPROOF_REDIS_MIN_REPLICAS``: a write is acknowledged only once this many
    replicas confirm it (``WAIT``); fewer in time is a 503."""
    deal_ttl: int = 24 * 3600
    """``CARDPROOF_DEAL_TTL``: seconds a deal is kept after its last move."""
    commitment_ttl: int = 3600
    """``CARDPROOF_COMMITMENT_TTL``: seconds a commitment can be used for a deal."""
    tournament_retention: int = 365 * 24 * 3600
    """``CARDPROOF_TOURNAMENT_RETENTION``: seconds a tournament's games are kept after its
    closing time (they never expire while it is open, whatever the deal TTL)."""
    store_timeout: float = 2.0
    """``CARDPROOF_STORE_TIMEOUT``: seconds one store call may take before it counts as down."""
    rate_limit: int = 1200
    """``CARDPROOF_RATE_LIMIT``: requests a client may make per window (0: no limit)."""
    rate_window: int = 60
    """``CARDPROOF_RATE_WINDOW``: the rate limit's window, in seconds."""
    max_games_in_flight: int = 100
    """``CARDPROOF_MAX_GAMES_IN_FLIGHT``: unfinished deals a client may hold (0: no cap)."""
    daily_deal_quota: int = 2000
    """``CARDPROOF_DAILY_DEAL_QUOTA``: deals a client may open a day, UTC (0: no quota)."""
    organizer_tournaments_per_day: int = 100
    """``CARDPROOF_ORGANIZER_TOURNAMENTS_PER_DAY``: tournaments one organizer key may make
    a day, UTC (0: no quota)."""
    organizer_invites_per_day: int = 100_000
    """``CARDPROOF_ORGANIZER_INVITES_PER_DAY``: invite codes one organizer key may issue a
    day, UTC, at creation and after (0: no quota)."""
    listeners_per_client: int = 4
    """``CARDPROOF_LISTENERS_PER_CLIENT``: event streams and long polls a client may hold
    on one lockstep round in one process (0: no share, only the process's cap)."""
    listeners_per_address: int = 32
    """``CARDPROOF_LISTENERS_PER_ADDRESS``: event streams and long polls one address may
    hold in one process across every round, entrants' tokens or not (0: no cap); a
    seated entrant's first listener of its round is let in past it (calls.py)."""
    entries_per_address: int = 4
    """``CARDPROOF_ENTRIES_PER_ADDRESS``: entries one address may make in one public
    tournament (0: no limit); invite-only tournaments are gated by their codes."""
    solver_workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    """``CARDPROOF_SOLVER_WORKERS``: processes that run solodrez searches (default: the
    CPU count)."""
    solver_queue: int = 4
    """``CARDPROOF_SOLVER_QUEUE``: searches that may wait for a solver beyond those
    running (503 past it)."""
    solver_per_client: int = 2
    """``CARDPROOF_SOLVER_PER_CLIENT``: searches a client may have running or waiting."""
    solver_max_states: int = 1_000_000
    """``CARDPROOF_SOLVER_MAX_STATES``: positions one search may remember (its memory)."""
    par_budget: float = 2.0
    """``CARDPROOF_PAR_BUDGET``: seconds the solver spends on each closed round's par."""
    default_max_entrants: int = 10_000
    """``CARDPROOF_DEFAULT_MAX_ENTRANTS``: a tournament's field when it names none."""
    max_entrants: int = 100_000
    """``CARDPROOF_MAX_ENTRANTS``: the largest field a tournament may ask for (422 above)."""
    organizers_file: Path | None = None
    """``CARDPROOF_ORGANIZERS_FILE``: where the memory store keeps organizers (key hashes
    only; default ``.cardproof/organizers.json``); with Redis they live in Redis."""
    public_url: str | None = None
    """``CARDPROOF_PUBLIC_URL``: the base URL clients reach the service at (``https://HOST``,
    no trailing slash), the spec's ``servers``; unset, ``/`` (wherever the spec was read)."""
    log_origin: str | None = None
    """``CARDPROOF_LOG_ORIGIN``: the transparency log's name, on its checkpoints and its key;
    unset, the public URL's host and path plus ``/log`` (``127.0.0.1:8000/log`` when no
    public URL is set)."""
    log: bool = True
    """``CARDPROOF_LOG``: ``off`` keeps no transparency log (no entry pooled, no fold:
    receipts carry no place in it, and ``cardproof verify --url`` refuses them); for a
    private deployment, and the benchmark's measure of what the log costs."""
    log_interval: float = 0.5
    """``CARDPROOF_LOG_INTERVAL``: seconds between two folds of the log's pooled entries
    (half a second: a receipt is proved within about that, plus the fold's time)."""
    log_witnesses: tuple[tuple[str, str], ...] = ()
    """``CARDPROOF_LOG_WITNESSES``: the witnesses asked to cosign each new checkpoint,
    comma-separated ``URL VKEY`` pairs (none: the checkpoint is only the log's)."""
    door: DoorSettings = field(default_factory=lambda: DoorSettings())
    """The HTTP layer's deadlines and limits (:class:`DoorSettings`)."""

    @property
    def origin(self) -> str:
        """The log's origin: :attr:`log_origin`, else the public URL's host and path + ``/log``.

        >>> Settings(public_url="https://cards.example.org/api").origin
        'cards.example.org/api/log'
        >>> Settings().origin
        '127.0.0.1:8000/log'
        """
        if self.log_origin:
            return self.log_origin
        parts = urlsplit(self.public_url or "http://127.0.0.1:8000")
        return f"{parts.netloc}{parts.path.rstrip('/')}/log"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Self:
        """Settings from ``environ`` (default ``os.environ``), defaults where unset."""
        env = os.environ if environ is None else environ

        def number(
            name: str, default: float, kind: type[int] | type[float] = int, *, zero: bool = False
        ) -> Any:
            return env_number(env, name, default, kind, zero=zero)

        return cls(
            max_body_bytes=number("CARDPROOF_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES),
            warm_up=env.get("CARDPROOF_WARM_UP", "1").lower() not in {"0", "false", "no"},
            redis_url=env.get("REDIS_URL") or None,
            redis_mode=redis_mode(env.get("CARDPROOF_REDIS_MODE") or "standalone"),
            redis_min_replicas=number("CARDPROOF_REDIS_MIN_REPLICAS", 0, zero=True),
            deal_ttl=number("CARDPROOF_DEAL_TTL", 24 * 3600),
            commitment_ttl=number("CARDPROOF_COMMITMENT_TTL", 3600),
            tournament_retention=number("CARDPROOF_TOURNAMENT_RETENTION", 365 * 24 * 3600),
            store_timeout=number("CARDPROOF_STORE_TIMEOUT", 2.0, float),
            rate_limit=number("CARDPROOF_RATE_LIMIT", 1200, zero=True),
            rate_window=number("CARDPROOF_RATE_WINDOW", 60),
            max_games_in_flight=number("CARDPROOF_MAX_GAMES_IN_FLIGHT", 100, zero=True),
            daily_deal_quota=number("CARDPROOF_DAILY_DEAL_QUOTA", 2000, zero=True),
            organizer_tournaments_per_day=number(
                "CARDPROOF_ORGANIZER_TOURNAMENTS_PER_DAY", 100, zero=True
            ),
            organizer_invites_per_day=number(
                "CARDPROOF_ORGANIZER_INVITES_PER_DAY", 100_000, zero=True
            ),
            listeners_per_client=number("CARDPROOF_LISTENERS_PER_CLIENT", 4, zero=True),
            listeners_per_address=number("CARDPROOF_LISTENERS_PER_ADDRESS", 32, zero=True),
            entries_per_address=number("CARDPROOF_ENTRIES_PER_ADDRESS", 4, zero=True),
            solver_workers=number("CARDPROOF_SOLVER_WORKERS", os.cpu_count() or 1),
            solver_queue=number("CARDPROOF_SOLVER_QUEUE", 4, zero=True),
            solver_per_client=number("CARDPROOF_SOLVER_PER_CLIENT", 2),
            solver_max_states=number("CARDPROOF_SOLVER_MAX_STATES", 1_000_000),
            par_budget=min(10.0, number("CARDPROOF_PAR_BUDGET", 2.0, float)),
            default_max_entrants=number("CARDPROOF_DEFAULT_MAX_ENTRANTS", 10_000),
            max_entrants=number("CARDPROOF_MAX_ENTRANTS", 100_000),
            organizers_file=Path(env.get("CARDPROOF_ORGANIZERS_FILE") or DEFAULT_ORGANIZERS_FILE),
            public_url=public_url(env.get("CARDPROOF_PUBLIC_URL") or ""),
            log_origin=log_origin(env.get("CARDPROOF_LOG_ORIGIN") or ""),
            log=switch("CARDPROOF_LOG", env.get("CARDPROOF_LOG") or "on"),
            log_interval=min(60.0, number("CARDPROOF_LOG_INTERVAL", 0.5, float)),
            log_witnesses=log_witnesses(env.get("CARDPROOF_LOG_WITNESSES") or ""),
            door=DoorSettings.from_env(env),
        )
