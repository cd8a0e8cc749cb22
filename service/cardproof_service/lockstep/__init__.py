"""Lockstep rounds (Hoyle's called game): the calls, their deadlines, the late placements.

A round's start and its calls, each card called to every seat at once (:mod:`.rounds`);
the cards an idle seat has placed for it when a call's deadline passes (:mod:`.late`);
the calls served to the seats' listeners by long poll or event stream (:mod:`.calls`).
They stand on dealing and play (:mod:`cardproof_service.deals`); tournaments open and
answer the rounds through the names here.
"""

from cardproof_service.lockstep.calls import MAX_WAIT, Calls, Listener
from cardproof_service.lockstep.rounds import Rounds, unknown_round

__all__ = ["MAX_WAIT", "Calls", "Listener", "Rounds", "unknown_round"]
