"""Redis key names, laid out for Redis Cluster.

The keys one atomic step touches share a hash tag, and the tags of unrelated things
differ, so that load spreads over the slots.

A tag is two characters of an id (:func:`id_tag`): the two after its ``x_`` prefix. Ids
are random, so tags are spread; a deal's id is made to carry the tag of what it must be
written with in one step (:func:`new_deal_id`): its commitment's (the claim that opens
it), or its tournament's (the standings its result goes into, the round it is seated
in). A tournament's tag is two hex digits of its id (``t_`` and 20 hex digits), so that
the rounds due for a late card lie under at most 256 tags, which the keeper reads each
time it looks.

The first layout (before cardproof 0.9) had no tags; ``cardproof store migrate``
renames its keys (see :mod:`cardproof_service.store.migrate`).
"""

from __future__ import annotations

import base64
import secrets
from typing import Final

PREFIX: Final = "cardproof:"
ORGANIZERS: Final = f"{PREFIX}{{organizers}}"
"""Every organizer's record and the names hash share one tag: a name is claimed and its
record written in one step (organizers are few, and read once a request)."""
ORGANIZER_NAMES: Final = f"{ORGANIZERS}:names"
DUE_TAGS: Final = f"{PREFIX}lockstep-due-tags"
"""The tags whose due rounds the keeper reads (a sorted set: tag by when last touched)."""
LOG: Final = f"{PREFIX}{{log}}"
"""The transparency log's keys share one tag: a fold writes its tiles, its leaves'
indexes and the checkpoint in one step, under the sequencer's lease."""
LOG_LEASE: Final = f"{LOG}:lease"
LOG_STATE: Final = f"{LOG}:state"
"""A hash: the log's ``size``, its ``checkpoint`` and the ``cosigned`` one."""
LOG_TILES: Final = f"{LOG}:tiles"
"""A hash: each tile's widest form, by ``LEVEL/INDEX`` (``e/INDEX``: an entry bundle)."""
LOG_LEAVES: Final = f"{LOG}:leaves"
"""A hash: each entry's index, by its leaf hash's first 16 bytes."""
LOG_POOLS: Final = f"{LOG}:pools"
"""The tags whose pools hold entries (a set, marked after each pooling step)."""
LOG_DUE: Final = f"{LOG}:due"
"""What the sequencer logs when it is due (a sorted set: a tournament's id by the time
of its close, when its reveals and settlement are logged)."""
NEWS: Final = f"{PREFIX}round-news"
"""The channel a round's key is published on when it calls a card or finishes (Redis
Cluster carries classic pub/sub to every node)."""


def id_tag(some_id: str) -> str:
    """The hash tag an id carries: its two characters after ``x_``.

    >>> id_tag("d_Qx3f9aVbE0mHk1cR2yZpLw")
    'Qx'
    >>> id_tag("t_2c819c823954a2e50ea4:e4d3da33786a45bd:round-1")  # a round's claim
    '2c'
    """
    return some_id[2:4]


def new_deal_id(tag: str) -> str:
    """A fresh deal id carrying ``tag`` (22 characters after ``d_``, as before tags).

    >>> deal_id = new_deal_id("2c")
    >>> (deal_id[:4], len(deal_id), id_tag(deal_id))
    ('d_2c', 24, '2c')
    """
    return "d_" + tag + base64.urlsafe_b64encode(secrets.token_bytes(15)).decode()


def tagged(tag: str) -> str:
    """The start of every key under ``tag``."""
    return f"{PREFIX}{{{tag}}}"


def ack(route: str) -> str:
    """A key in the slot of the key ``route``, written before a ``WAIT``.

    Replication is one ordered stream: once a replica confirms this write, it has every
    write its master held before, other clients' too.

    >>> ack("cardproof:{2c}:deal:d_2cx"), ack("cardproof:lockstep-due-tags")
    ('cardproof:{2c}:ack', 'cardproof:{cardproof:lockstep-due-tags}:ack')
    """
    start = route.find("{")
    end = route.find("}", start + 1)
    tag = route[start + 1 : end] if start != -1 and end > start + 1 else route
    return f"{PREFIX}{{{tag}}}:ack"


def deal(deal_id: str) -> str:
    """A deal's hash (its fixed part, log, count, finish time and ending)."""
    return f"{tagged(id_tag(deal_id))}:deal:{deal_id}"


def claim(claim_id: str) -> str:
    """A claim: a commitment's first deal, or an entrant's game of a round."""
    return f"{tagged(id_tag(claim_id))}:commitment:{claim_id}"


def placeholder(tag: str) -> str:
    """A key a step is given where it needs none (it stays under the step's tag)."""
    return f"{tagged(tag)}:-"


def tournament(tournament_id: str) -> str:
    """A tournament's record; its other keys are named from it (``:totals``, ...)."""
    return f"{tagged(id_tag(tournament_id))}:tournament:{tournament_id}"


def closed(tournament_id: str) -> str:
    """A closed tournament's mark, set by its close, read by every move of its games."""
    return f"{tournament(tournament_id)}:closed"


def round_(tournament_id: str, round_number: int) -> str:
    """A lockstep round's hash (its seats, calls and due entry are named from it)."""
    return f"{tournament(tournament_id)}:round:{round_number}"


def due(tag: str) -> str:
    """The rounds under ``tag`` by when they are due (ms): a deadline, or a start time."""
    return f"{tagged(tag)}:lockstep-due"


def due_member(tournament_id: str, round_number: int) -> str:
    """A round's member in the due rounds and its message on the news channel."""
    return f"{tournament_id}:{round_number}"


def owner(client: str) -> str:
    """The start of a client's keys: its games in flight, its deals of each day."""
    return f"{PREFIX}{{c.{client}}}"


def in_flight(client: str) -> str:
    """A client's unfinished deals (a sorted set: deal id by when it expires)."""
    return f"{owner(client)}:in-flight"


def deals_today(client: str, day: int) -> str:
    """A client's count of deals opened on ``day`` (days since the epoch, UTC)."""
    return f"{owner(client)}:deals-today:{day}"


def organizer(organizer_id: str) -> str:
    """An organizer's record."""
    return f"{ORGANIZERS}:organizer:{organizer_id}"


def organizer_tournaments(organizer_id: str) -> str:
    """An organizer's tournaments, newest last (a sorted set by text, every score 0).

    Under a tag of the organizer's own: a tournament is listed in a step of its own,
    before its record is written under the tournament's tag.

    >>> organizer_tournaments("0123456789abcdef")
    'cardproof:{o.0123456789abcdef}:tournaments'
    """
    return f"{PREFIX}{{o.{organizer_id}}}:tournaments"


def organizer_tournaments_expiry(organizer_id: str) -> str:
    """The same members by when their tournaments expire (seconds; ``+inf``: kept)."""
    return f"{organizer_tournaments(organizer_id)}:expiry"


def organizer_today(organizer_id: str, day: int) -> str:
    """An organizer's counts of ``day`` (UTC): tournaments made and invite codes issued.

    >>> organizer_today("0123456789abcdef", 20_000)
    'cardproof:{o.0123456789abcdef}:today:20000'
    """
    return f"{PREFIX}{{o.{organizer_id}}}:today:{day}"


def organizer_tournaments_sequence(organizer_id: str) -> str:
    """The number the organizer's last listed tournament was given (a counter)."""
    return f"{organizer_tournaments(organizer_id)}:sequence"


def log_pool(tag: str) -> str:
    """A tag's pool of log entries (a list), written in the steps that sign receipts."""
    return f"{tagged(tag)}:log-pool"


def log_pool_dropped(tag: str) -> str:
    """How many items the sequencer dropped from the tag's pool so far (a counter)."""
    return f"{tagged(tag)}:log-pool-dropped"


def log_tile_field(level: int, index: int) -> str:
    """A tile's field in :data:`LOG_TILES`.

    >>> log_tile_field(0, 12), log_tile_field(-1, 12)
    ('0/12', 'e/12')
    """
    return f"{'e' if level < 0 else level}/{index}"


def rate(client: str, window: int) -> str:
    """A client's request count in one rate-limit window (a key of its own)."""
    return f"{PREFIX}rate:{client}:{window}"
