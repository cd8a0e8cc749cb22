"""Tournaments: the same committed deals for every entrant, entries, standings and pars.

Create, show and close a tournament and decide who reads it (:mod:`.tournaments`);
organizers' API keys (:mod:`.organizers`); entering once per name (:mod:`.entries`,
:mod:`.names`, invite codes in :mod:`.invites`); standings, settlement and the export
(:mod:`.standings`); each closed round's par (:mod:`.pars`). Lockstep tournaments play
their rounds through :mod:`cardproof_service.lockstep`.
"""

from cardproof_service.tournaments.entries import Entries
from cardproof_service.tournaments.names import NAME_PATTERN
from cardproof_service.tournaments.organizers import authenticate, new_organizer, organizer_offered
from cardproof_service.tournaments.pars import Pars
from cardproof_service.tournaments.standings import Scoreboard
from cardproof_service.tournaments.tournaments import Access, Tournaments

__all__ = [
    "NAME_PATTERN",
    "Access",
    "Entries",
    "Pars",
    "Scoreboard",
    "Tournaments",
    "authenticate",
    "new_organizer",
    "organizer_offered",
]
