"""Dealing and play: a deal's life from its commitment to its signed receipt.

Commit to a server seed (:mod:`.commitments`), deal from it (:mod:`.dealing`), replay a
game from its log (:mod:`.games`), let a seat see and move only what its kind and phase
allow (:mod:`.gate`, with entrant tokens in :mod:`.entrants`), play one move at a time
(:mod:`.play`), sign the receipt when the game ends (:mod:`.receipts`, packed with the
last answer by :mod:`.endings`), verify a whole log (:mod:`.verification`) and search
for a deal's best score in the bounded solver pool (:mod:`.solving`). :mod:`.service`
wires them into the one object the web front calls. Lockstep rounds and tournaments
build on these names, imported from this package.
"""

from cardproof_service.deals.commitments import Commitments, round_commitment_id, seat_claim_id
from cardproof_service.deals.dealing import Dealing
from cardproof_service.deals.entrants import (
    ENTRANT_PREFIX,
    entrant_offered,
    make_token,
    require_entrant,
)
from cardproof_service.deals.games import (
    SIGNATURE_MOVES,
    Games,
    final_total,
    move_result,
    next_card,
)
from cardproof_service.deals.gate import Gate
from cardproof_service.deals.receipts import Receipts, receipt_payload
from cardproof_service.deals.service import DealParts, Deals
from cardproof_service.deals.solving import Solution, SolverBusy, Solvers, TooManySearches

__all__ = [
    "ENTRANT_PREFIX",
    "SIGNATURE_MOVES",
    "Commitments",
    "DealParts",
    "Dealing",
    "Deals",
    "Games",
    "Gate",
    "Receipts",
    "Solution",
    "SolverBusy",
    "Solvers",
    "TooManySearches",
    "entrant_offered",
    "final_total",
    "make_token",
    "move_result",
    "next_card",
    "receipt_payload",
    "require_entrant",
    "round_commitment_id",
    "seat_claim_id",
]
