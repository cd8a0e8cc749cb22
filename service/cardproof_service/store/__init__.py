"""State behind one small async protocol, with a memory and a Redis backend.

The service processes are stateless: deal logs, used commitments and idempotency
records, rate-limit counters, games in flight, tournament organizers and tournaments
live here. Both backends pass one
contract test suite.
"""

from cardproof_service.store.base import (
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
    NewEntrant,
    OpenTournament,
    OrganizerRecord,
    OverDailyQuota,
    Placement,
    RoundStarted,
    RoundState,
    Standing,
    Store,
    StoreUnavailable,
    TooManyGames,
    TournamentRecord,
)
from cardproof_service.store.memory import MemoryStore

__all__ = [
    "Appended",
    "CallRecord",
    "Claim",
    "DailyQuota",
    "DealRecord",
    "Ending",
    "EntryOutcome",
    "EntryResult",
    "GameResult",
    "Hits",
    "MemoryStore",
    "NewEntrant",
    "OpenTournament",
    "OrganizerRecord",
    "OverDailyQuota",
    "Placement",
    "RoundStarted",
    "RoundState",
    "Standing",
    "Store",
    "StoreUnavailable",
    "TooManyGames",
    "TournamentRecord",
]
