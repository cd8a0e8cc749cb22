"""State behind one small async protocol, with a memory and a Redis backend.

The service processes are stateless: deal logs, used commitments and idempotency
records, rate-limit counters, games in flight, tournament organizers and tournaments
live here. Both backends pass one
contract test suite.

records.py holds the records; base.py the protocols, one per kind of record, and
``Store``, all of them; memory/ and redis/ the backends, each made of one part per kind;
keys.py the layout of the keys in Redis and the store's ids. Every other domain imports
from this package, never from its modules.
"""

from cardproof_service.store.base import (
    DealStore,
    LimitStore,
    MoveStore,
    RoundStore,
    Store,
    TournamentStore,
)
from cardproof_service.store.keys import id_tag, new_deal_id
from cardproof_service.store.memory import MemoryStore
from cardproof_service.store.records import (
    ORGANIZER_LISTED,
    Appended,
    CallRecord,
    Claim,
    DailyQuota,
    DealRecord,
    Ending,
    EntryOutcome,
    EntryResult,
    GameResult,
    Hits,
    LatePlacement,
    LogConflict,
    LogState,
    NewEntrant,
    OpenTournament,
    OrganizerQuota,
    OrganizerRecord,
    OverDailyQuota,
    OverOrganizerQuota,
    Placement,
    Pooled,
    RoundStarted,
    RoundState,
    Standing,
    StoreUnavailable,
    TileKey,
    TooManyGames,
    TournamentListing,
    TournamentRecord,
    listing_member,
)
from cardproof_service.store.redis import RedisStore

__all__ = [
    "ORGANIZER_LISTED",
    "Appended",
    "CallRecord",
    "Claim",
    "DailyQuota",
    "DealRecord",
    "DealStore",
    "Ending",
    "EntryOutcome",
    "EntryResult",
    "GameResult",
    "Hits",
    "LatePlacement",
    "LimitStore",
    "LogConflict",
    "LogState",
    "MemoryStore",
    "MoveStore",
    "NewEntrant",
    "OpenTournament",
    "OrganizerQuota",
    "OrganizerRecord",
    "OverDailyQuota",
    "OverOrganizerQuota",
    "Placement",
    "Pooled",
    "RedisStore",
    "RoundStarted",
    "RoundState",
    "RoundStore",
    "Standing",
    "Store",
    "StoreUnavailable",
    "TileKey",
    "TooManyGames",
    "TournamentListing",
    "TournamentRecord",
    "TournamentStore",
    "id_tag",
    "listing_member",
    "new_deal_id",
]
