"""A tournament's format: async or lockstep, decided from its variant's informations.

A variant whose deals hide cards plays ``lockstep`` by default: each card is called to
every entrant at once, so no entrant sees a card before another has placed it. It plays
``async`` only by invitation (anyone entering twice would see the deal before playing
it), and a lockstep round must be blind whatever a die roll on its seed gives. A
variant that shows every card has nothing to call: it plays ``async``. Only a lockstep
tournament takes ``round_starts``.
"""

from __future__ import annotations

from typing import Any

from cardproof.errors import RuleError
from cardproof.games import Game
from cardproof.models import TournamentFormat, TournamentRequest


def format_of(
    cls: type[Game[Any, Any]], options: Any, request: TournamentRequest
) -> TournamentFormat:
    """The format the tournament plays: the one asked for, if its variant allows it (422)."""
    informations = cls.informations(options)
    hidden = "hidden" in informations  # some deal of these options hides cards
    blind = informations == {"hidden"}  # every deal does, whatever a die roll gives
    asked = request.format if isinstance(request.format, str) else None
    format_: TournamentFormat = asked or ("lockstep" if blind else "async")
    if format_ == "async" and hidden and request.entry != "invite":
        raise RuleError(
            "async-needs-invite",
            f'a hidden variant ({cls.id}) plays "async" only with entry: "invite": '
            "anyone entering twice would see the deal before playing it; a lockstep "
            "tournament calls each card to all at once",
            field="format",
        )
    if format_ == "lockstep" and hidden and not blind:
        raise RuleError(
            "lockstep-needs-hidden",
            f"{cls.id} with these options may deal an open game (a die roll on the "
            "round's seed may give a version that shows every card): a lockstep round "
            "must be blind whatever the roll, so name the options exactly (a version, "
            'say), or play "async"',
            field="options",
        )
    if format_ == "lockstep" and (not blind or cls.turns(options) is None):
        raise RuleError(
            "lockstep-needs-hidden",
            f"{cls.id} with these options shows every card from the start: there is "
            'nothing to call, so it plays "async"',
            field="format",
        )
    return format_


def round_starts(
    request: TournamentRequest, format_: str, opens_at: int, closes_at: int
) -> list[int] | None:
    """The rounds' start times: one per round, in order, inside the opening window."""
    if not isinstance(request.round_starts, list):
        return None
    if format_ != "lockstep":
        raise RuleError(
            "round-starts-need-lockstep",
            "round_starts are for lockstep tournaments: an async round has no start",
            field="round_starts",
        )
    starts = [int(moment.timestamp()) for moment in request.round_starts]
    if len(starts) != request.rounds:
        raise RuleError(
            "bad-round-starts",
            f"round_starts has {len(starts)} times for {request.rounds} rounds",
            field="round_starts",
        )
    for index, start in enumerate(starts):
        if not opens_at <= start < closes_at or (index and start < starts[index - 1]):
            raise RuleError(
                "bad-round-starts",
                f"round_starts[{index}] must be within opens_at..closes_at and not "
                "before the round before it",
                field=f"round_starts[{index}]",
            )
    return starts


__all__ = ["format_of", "round_starts"]
