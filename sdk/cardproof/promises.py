"""What the SDK holds a server to: the deals it opens, the receipts and reveals it gets.

A client must not have to trust the server it checks. A server that swapped the
commitment after seeing the client seed could pick the deck; one that answered with
another game's receipt could credit a score nobody played. So the clients compare what
they get with what they were promised, before any move is played on a deal and before a
receipt is handed back, and raise :class:`~cardproof.receipts.CommitmentMismatchError`
(a :class:`~cardproof.receipts.ReceiptError`) naming the first difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from cardproof.cards import Card
from cardproof.deal import seed_hash
from cardproof.games import variant
from cardproof.models import Commitment, DealState, Entry, ReceiptResponse, Tournament, View
from cardproof.receipts import (
    CommitmentMismatchError,
    Expected,
    check_expected,
    check_payload,
    decode_receipt,
    options_match,
)
from cardproof.tournaments import round_deal

MoveLike = str | Mapping[str, Any] | msgspec.Struct
"""A move as text (``"c3"``), as a mapping (``{"row": 2, "col": 2}``) or as an engine move."""


def check_deal(
    state: DealState,
    *,
    variant_id: str,
    options: Mapping[str, Any] | msgspec.Struct | None,
    client_seed: str,
    commitment: Commitment | None,
) -> None:
    """The deal the server opened is the one asked for, on the seed it committed to."""
    if state.variant != variant_id:
        raise CommitmentMismatchError("variant", variant_id, state.variant)
    if state.client_seed != client_seed:
        raise CommitmentMismatchError("client_seed", client_seed, state.client_seed)
    if not options_match(variant_id, options, state.options):
        raise CommitmentMismatchError("options", options, state.options)
    if commitment is not None:
        if state.server_seed_hash != commitment.server_seed_hash:
            raise CommitmentMismatchError(
                "server_seed_hash", commitment.server_seed_hash, state.server_seed_hash
            )
        if not state.committed_before_client_seed:
            raise CommitmentMismatchError("committed_before_client_seed", True, False)
    if state.next_index != 0 or state.moves:
        raise CommitmentMismatchError("moves", "", state.moves)


def canonical_move(variant_id: str, move: MoveLike, index: int) -> str:
    """A move in its canonical text, as the variant's rules read it."""
    cls = variant(variant_id)
    if isinstance(move, str):
        return cls.move_text(cls.move_from_text(move, index))
    return cls.move_text(cls.move_from_object(move, index))


@dataclass
class Played:
    """A game as its client played it: what its receipt must say."""

    deal_id: str
    variant: str
    client_seed: str
    server_seed_hash: str
    options: Mapping[str, Any] | msgspec.Struct | None = None
    """The options asked for (``None``: not known to the client, not checked)."""
    moves: list[str] = field(default_factory=list)
    views: dict[int, View] = field(default_factory=dict)
    """Every view the server showed, by the number of moves played when it was shown."""
    tournament: str | None = None
    player: str | None = None
    committed: bool | None = None
    """Whether the deal said it was committed before the client seed (``None``: unknown)."""

    def kinds(self) -> frozenset[str] | None:
        """The receipt kinds this game's receipt may have, if known."""
        if self.tournament is not None:
            return frozenset({"tournament"})
        if self.committed is None:
            return None
        if self.committed:
            return frozenset({"committed-blind", "committed-open"})
        return frozenset({"casual"})

    def expected(self) -> Expected:
        """What the receipt of this game must say."""
        return Expected(
            deal_id=self.deal_id,
            server_seed_hash=self.server_seed_hash,
            client_seed=self.client_seed,
            variant=self.variant,
            options=self.options,
            moves=" ".join(self.moves),
            tournament=self.tournament,
            player=self.player,
        )


def check_receipt(response: ReceiptResponse, played: Played) -> None:
    """The receipt is of the game played: its signed payload says so, and replays.

    The payload sent beside the token must be the token's own; its deal, seed hash,
    client seed, variant, options and log must be the game's; once the seed is revealed,
    the deck is derived again and the log replayed to the stated score. The signature
    is checked by :func:`cardproof.verify_receipt` against a key set.
    """
    _, signed = decode_receipt(response.receipt)
    if signed != response.payload:
        raise CommitmentMismatchError("payload", "the token's own payload", response.payload)
    check_expected(signed, played.expected())
    if played.committed is not None and signed.committed_before_client_seed != played.committed:
        raise CommitmentMismatchError(
            "committed_before_client_seed", played.committed, signed.committed_before_client_seed
        )
    kinds = played.kinds()
    if kinds is not None and signed.kind not in kinds:
        raise CommitmentMismatchError("kind", " or ".join(sorted(kinds)), signed.kind)
    if signed.server_seed is None and played.tournament is None:
        raise CommitmentMismatchError("server_seed", "revealed in a finished game's receipt", None)
    if signed.server_seed is not None:
        check_payload(signed)
        cls = variant(signed.variant)
        options = cls.parse_options(signed.options)
        seed = bytes.fromhex(signed.server_seed)
        check_views(played, cls.deal_cards(seed, signed.client_seed, options), options)


def check_views(played: Played, deck: Sequence[Card], options: Any) -> None:
    """Every view the server showed is the one the rules show on the committed deck.

    The deck is derived again from the revealed seed and the log replayed; at each step
    the view the client was shown must be the engine's: no card shown that was not the
    one dealt, none shown early. A server that steered a blind player with false cards
    is caught here, even though the receipt it signs is of the real deck.
    """
    cls = variant(played.variant)
    game = cls.new(deck, options)
    for step in range(len(played.moves) + 1):
        if step:
            game.play(cls.parse_move(played.moves[step - 1]))
        shown = played.views.get(step)
        if shown is None:
            continue
        dealt = msgspec.to_builtins(game.visible())
        seen = msgspec.to_builtins(shown)
        if isinstance(seen, dict) and seen.get("next", 0) is None and "next" in dealt:
            dealt["next"] = None  # withheld until its call (a lockstep round): not false
        if seen != dealt:
            raise CommitmentMismatchError(f"the view after {step} moves", dealt, shown)


class TournamentPromises:
    """Each tournament's round seed hashes and salt, as an entrant was first shown them."""

    def __init__(self) -> None:
        self._rounds: dict[str, dict[int, str]] = {}
        self._salts: dict[str, str] = {}
        self._games: dict[str, list[tuple[int, Played]]] = {}
        """Each tournament's games played through this client, by round, until checked."""
        self._options: dict[str, tuple[str, Mapping[str, Any]]] = {}
        """Each tournament's variant and options, as its record says them."""

    def keep_game(self, tournament_id: str, round_number: int, played: Played) -> None:
        """Check this game's views once its round's seed is revealed."""
        self._games.setdefault(tournament_id, []).append((round_number, played))

    def keep_entry(self, entry: Entry) -> None:
        """Remember the hashes an entry showed (or check them against earlier ones)."""
        self._keep(entry.tournament_id, {r.round: r.server_seed_hash for r in entry.rounds})
        if entry.salt:
            self._keep_salt(entry.tournament_id, entry.salt)

    def check_tournament(self, tournament: Tournament) -> None:
        """A read of the tournament keeps its word: same hashes, seeds that hash to them."""
        tid = tournament.tournament_id
        self._options.setdefault(tid, (tournament.variant, tournament.options))
        self._keep(tid, {r.round: r.server_seed_hash for r in tournament.rounds})
        self._keep_salt(tid, tournament.salt)
        for entry in tournament.rounds:
            if entry.server_seed is None:
                continue
            try:
                revealed = seed_hash(bytes.fromhex(entry.server_seed))
            except ValueError:
                revealed = "not hex"
            if revealed != entry.server_seed_hash:
                raise CommitmentMismatchError(
                    f"rounds[{entry.round}].server_seed", entry.server_seed_hash, revealed
                )
        self._check_games(tournament)

    def _check_games(self, tournament: Tournament) -> None:
        """The views of this client's games whose round seed is now revealed (once each)."""
        seeds = {r.round: r.server_seed for r in tournament.rounds if r.server_seed}
        waiting = []
        for round_number, played in self._games.pop(tournament.tournament_id, []):
            seed = seeds.get(round_number)
            if seed is None:
                waiting.append((round_number, played))
                continue
            options, deck = round_deal(
                tournament.variant, tournament.options, bytes.fromhex(seed), tournament.salt
            )
            drawn = msgspec.to_builtins(options)
            if played.options is not None and not options_match(
                tournament.variant, drawn, msgspec.to_builtins(played.options)
            ):  # a table drawn from the seeds (scoring: "ameritish") is the one shown
                raise CommitmentMismatchError(
                    f"round {round_number} options", drawn, played.options
                )
            check_views(played, deck, options)
        if waiting:
            self._games[tournament.tournament_id] = waiting

    def check_round(self, tournament_id: str, round_number: int, state: DealState) -> None:
        """A round's game is dealt from the round's committed seed and the public salt."""
        known = self._rounds.get(tournament_id, {}).get(round_number)
        if known is not None and state.server_seed_hash != known:
            raise CommitmentMismatchError(
                f"round {round_number} server_seed_hash", known, state.server_seed_hash
            )
        salt = self._salts.get(tournament_id)
        if salt is not None and state.client_seed != salt:
            raise CommitmentMismatchError("client_seed", salt, state.client_seed)
        if state.next_index != 0 or state.moves:
            raise CommitmentMismatchError("moves", "", state.moves)
        known_options = self._options.get(tournament_id)
        if known_options is not None and not options_match(
            known_options[0], known_options[1], state.options
        ):
            raise CommitmentMismatchError("options", known_options[1], state.options)

    def resume(self, tournament_id: str, round_number: int, state: DealState) -> Played:
        """A round's game taken up again (opened before): its deal checked, then kept.

        Its moves so far are the server's word (this client did not see them played);
        every view shown from now on is checked at the reveal, as for a new game.
        """
        fresh = msgspec.structs.replace(state, next_index=0, moves="")
        self.check_round(tournament_id, round_number, fresh)
        played = Played(
            deal_id=state.deal_id,
            variant=state.variant,
            client_seed=state.client_seed,
            server_seed_hash=state.server_seed_hash,
            options=state.options,
            moves=state.moves.split(),
            tournament=tournament_id,
            committed=True,
        )
        self.keep_game(tournament_id, round_number, played)
        return played

    def round_hash(self, tournament_id: str, round_number: int) -> str | None:
        """The hash kept for a round, if this client was shown the tournament."""
        return self._rounds.get(tournament_id, {}).get(round_number)

    def _keep(self, tournament_id: str, rounds: dict[int, str]) -> None:
        known = self._rounds.setdefault(tournament_id, {})
        for number, hashed in rounds.items():
            first = known.setdefault(number, hashed)
            if first != hashed:
                raise CommitmentMismatchError(f"round {number} server_seed_hash", first, hashed)

    def _keep_salt(self, tournament_id: str, salt: str) -> None:
        first = self._salts.setdefault(tournament_id, salt)
        if first != salt:
            raise CommitmentMismatchError("salt", first, salt)


__all__ = [
    "MoveLike",
    "Played",
    "TournamentPromises",
    "canonical_move",
    "check_deal",
    "check_receipt",
]
