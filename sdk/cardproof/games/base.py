"""The engine's shape: a :class:`Game` per variant, replayed from its move log.

A game is built from a deal (the deck order) and options, then fed moves one at a
time; its state is a function of the log alone. Each variant subclasses
:class:`Game`, declares its id, title, deck and information, and supplies its
``Move`` and ``Options`` types, the move's text form, and the rules in ``_try``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar, cast

import msgspec

from cardproof.cards import JOKER, Card, require_distinct
from cardproof.deal import standard_deck
from cardproof.errors import IllegalMove, ParseError, RuleError
from cardproof.hands import Score
from cardproof.pokerdrez import ANY_CARD_PATTERN

M = TypeVar("M", bound=msgspec.Struct)
O = TypeVar("O", bound=msgspec.Struct)  # noqa: E741

Information = Literal["open", "hidden"]
_ANY_DECK_CARD = re.compile(ANY_CARD_PATTERN)
"""The text of a card of any of cardproof's decks."""
LOG_SPACE = " \t\n\r"
"""The white space that separates a log's moves: JSON's four (space, tab, line feed,
carriage return), nothing else. Other characters (U+00A0, U+3000, U+FEFF, ``\\x1c``,
``\\v``...) are not white space in a log: a token holding one is not a move."""
_LOG_SEPARATOR = re.compile(f"[{LOG_SPACE}]+")


def log_tokens(text: str) -> list[str]:
    r"""The move texts of a log: ``text`` split at runs of :data:`LOG_SPACE`.

    >>> log_tokens(" a1\tb2\r\nc3 ")
    ['a1', 'b2', 'c3']
    >>> log_tokens("a1\u00a0b2")  # U+00A0 is not a separator: one token, no move
    ['a1\xa0b2']
    >>> log_tokens(" ")
    []

    ``str.split()`` gives the same tokens, at C speed, for ASCII text without the six
    other characters it takes for white space there (``\v``, ``\f``, ``\x1c`` to
    ``\x1f``): that is every log a client writes, so it reads them so.
    """
    if text.isascii() and (
        "\x0b" not in text
        and "\x0c" not in text
        and "\x1c" not in text
        and "\x1d" not in text
        and "\x1e" not in text
        and "\x1f" not in text
    ):
        return text.split()
    text = text.strip(LOG_SPACE)
    return _LOG_SEPARATOR.split(text) if text else []


class Game(ABC, Generic[M, O]):
    """One game of one variant: a deal, options and the moves played so far."""

    id: ClassVar[str]
    """The variant's stable API id, ``poker-squares``."""
    title: ClassVar[str]
    information: ClassVar[Information]
    description: ClassVar[str]
    """What the player does, and the decisions taken where the rules are silent."""
    deck_type: ClassVar[str]
    """The deck the deal is shuffled from (a key of ``cardproof.deal.DECK_SIZES``)."""
    cards_used: ClassVar[int]
    """How many cards of the deck order the game uses, from the top."""
    card_type: ClassVar[type[Card]] = Card
    """The class of the deck's cards (the Pokerdrez deck has its own)."""
    move_type: ClassVar[type[msgspec.Struct]]
    options_type: ClassVar[type[msgspec.Struct]]
    move_token: ClassVar[str]
    """Regular expression of one move in the log text form (no anchors)."""
    moves_by_text: ClassVar[Mapping[str, Any] | None] = None
    """Every move's text forms, where they are few: ``parse_log`` looks tokens up here."""

    def __init__(self, cards: Sequence[Card], options: O) -> None:
        """Start a game on ``cards`` (the deck order; only the first ``cards_used`` count)."""
        self.options = options
        self.cards: tuple[Card, ...] = tuple(cards[: self.cards_used])
        self._moves: list[M] = []

    # --- construction -------------------------------------------------------------

    @classmethod
    def new(
        cls,
        cards: Sequence[Card],
        options: O | Mapping[str, Any] | None = None,
        *,
        field: str = "deal.cards",
    ) -> Self:
        """A new game on an explicit card order, checked: enough cards, none twice.

        ``field`` names the cards in errors (``deal.cards[3]``).
        """
        if len(cards) < cls.cards_used:
            raise RuleError(
                "too-few-cards",
                f"{cls.id} needs {cls.cards_used} cards, got {len(cards)}",
                field=field,
            )
        cls.check_cards(cards, locate=lambda i: f"{field}[{i}]")
        return cls(cards, cls.parse_options(options))

    unfinished_rule: ClassVar[str] = (
        "0: no line of this variant scores below 0, so an unfinished game counts 0"
    )
    """What an unfinished tournament game counts (:meth:`worst_total`), in words."""

    @classmethod
    def worst_total(cls, options: O) -> int:
        """The worst score these options allow: what an unfinished tournament game counts.

        docs/rules.md section 9: a game not finished by the close (abandoned, a dead end)
        counts as the table's lowest points times the number of lines, so leaving never
        beats finishing. Variants whose lines never score below 0 count 0.
        """
        return 0

    @classmethod
    def turns(cls, options: O) -> int | None:
        """The moves of every game with these options, one card each, when none ends early.

        A lockstep round calls that many cards (docs/rules.md section 9); ``None`` for a variant
        whose games vary in length (a dead end, a series removed), which has no calls.
        """
        return None

    @classmethod
    def information_of(cls, options: O) -> Information:
        """Whether a deal with these options is open or hidden (for most: always the same)."""
        return cls.information

    @classmethod
    def informations(cls, options: O) -> frozenset[Information]:
        """Every information a deal with these options can have once its seeds are known.

        One for most options; more where a die roll on the seeds decides (reserve-poker's
        ``"random"`` version may roll the open version 5). A lockstep round needs
        ``{"hidden"}``: it must be blind whatever the roll.
        """
        return frozenset({cls.information_of(options)})

    @classmethod
    def information_by_option(cls) -> dict[str, dict[str, Information]]:
        """Where an option's value makes a deal other than :attr:`information`.

        By option, by value; for most variants, nowhere.
        """
        return {}

    @classmethod
    def resolve_options(cls, options: O, server_seed: bytes | None, client_seed: str | None) -> O:
        """The options a game runs with, once the seeds are known (a die roll, say).

        Most variants have nothing to resolve; ``None`` seeds mean an explicit card order.
        """
        return options

    @classmethod
    def deal_cards(cls, server_seed: bytes, client_seed: str, options: O) -> tuple[Card, ...]:
        """The deck order a seed pair deals (``cardproof-shuffle-v1``, stream ``deal``)."""
        return standard_deck(server_seed, client_seed, jokers=cls.deck_type == "joker-53")

    @classmethod
    def parse_cards(cls, texts: Iterable[str], *, field: str) -> list[Card]:
        """Read card texts of this variant's deck, naming the place of a bad one.

        Text that is no card is a ``ParseError`` (400); a card of another deck (``Q3`` in
        poker-squares, ``AH`` in solodrez) reads fine but is not in this game: a
        ``RuleError('card-not-in-deck')`` (422).
        """
        parse = cls.card_type.parse
        cards = []
        for i, text in enumerate(texts):
            try:
                cards.append(parse(text))
            except ParseError as error:
                if isinstance(text, str) and _ANY_DECK_CARD.match(text):
                    raise RuleError(
                        "card-not-in-deck",
                        f"{text!r} is not a card of {cls.id}'s deck ({cls.deck_type})",
                        field=f"{field}[{i}]",
                    ) from None
                raise error.at(f"{field}[{i}]") from None
        return cards

    @classmethod
    def check_cards(
        cls, cards: Sequence[Card], locate: Callable[[int], str] = lambda i: f"deal.cards[{i}]"
    ) -> None:
        """Refuse a card twice, or a card not in this variant's deck (a joker, mostly)."""
        distinct = set(cards)  # cards are shared instances: a set of them is a set of values
        if len(distinct) != len(cards):
            require_distinct(cards, locate=locate)
        card_type = cls.card_type
        if not set(map(type, distinct)) <= {card_type}:  # one C-level pass; then find which
            i, card = next((i, c) for i, c in enumerate(cards) if type(c) is not card_type)
            raise RuleError(
                "card-not-in-deck",
                f"{card} is not a card of {cls.id}'s deck ({cls.deck_type})",
                field=locate(i),
            )
        if JOKER in distinct and cls.deck_type == "standard-52":
            i = next(i for i, card in enumerate(cards) if card.is_joker)
            raise RuleError(
                "card-not-in-deck", f"{cls.id} is played without a joker", field=locate(i)
            )

    @classmethod
    def parse_options(cls, options: msgspec.Struct | Mapping[str, Any] | None) -> O:
        """Options from a mapping (unknown or mistyped fields are errors), or as given."""
        if isinstance(options, cls.options_type):
            return options  # type: ignore[return-value]
        raw = set_fields(options) if isinstance(options, msgspec.Struct) else dict(options or {})
        if not raw:
            return _default_options(cls.options_type)  # type: ignore[return-value]
        known = _field_names(cls.options_type)
        for key in raw:
            if key not in known:
                raise RuleError(
                    "unknown-option",
                    f"{cls.id} has no option {key!r}; its options: {', '.join(sorted(known))}",
                    field=f"options.{key}",
                )
        try:
            return msgspec.convert(raw, cls.options_type, strict=True)  # type: ignore[return-value]
        except msgspec.ValidationError as error:
            message, _, where = str(error).partition(" - at `$")
            field = "options" + where.rstrip("`")
            raise RuleError("bad-option", f"{field}: {message}", field=field) from None

    @classmethod
    def replay(
        cls,
        cards: Sequence[Card],
        options: O | Mapping[str, Any] | None,
        moves: Iterable[M],
        *,
        dealt: bool = False,
    ) -> Self:
        """Play a whole log on a new game; the first illegal move raises with its index.

        The loop is :meth:`play` without its per-call overhead: the same ``_try``; a
        refused move goes through :meth:`play`, which raises its full error. ``dealt``
        says the cards are :meth:`deal_cards`' own, a permutation of the deck by
        construction, so they are not checked again (:meth:`new` checks any other).
        """
        game = cls(cards, cls.parse_options(options)) if dealt else cls.new(cards, options)
        attempt, log, move_type = game._try, game._moves, cls.move_type
        for move in moves:
            if not isinstance(move, move_type) or attempt(move) is not None:
                game.play(move)  # raises: a refused move leaves the state as it was
            log.append(move)
        return game

    # --- moves and their text ---------------------------------------------------------

    @classmethod
    @abstractmethod
    def parse_move(cls, text: str) -> M:
        """Read one move from its text form (``ParseError`` if it cannot be read)."""

    @classmethod
    @abstractmethod
    def move_text(cls, move: M) -> str:
        """The canonical text form of a move; ``parse_move`` reads it back."""

    @classmethod
    def move_from_object(cls, obj: Mapping[str, Any] | msgspec.Struct, index: int) -> M:
        """A move from its JSON object form; the wrong shape is a ``RuleError``."""
        if isinstance(obj, msgspec.Struct):
            raw: Any = set_fields(obj)
        elif isinstance(obj, Mapping):
            raw = obj
        else:
            raise IllegalMove(
                "wrong-move-shape",
                f"move {index} is not a {cls.id} move: {obj!r} is not an object",
                move_index=index,
            )
        try:
            return msgspec.convert(raw, cls.move_type, strict=True)  # type: ignore[return-value]
        except msgspec.ValidationError as error:
            fields = ", ".join(f.encode_name for f in msgspec.structs.fields(cls.move_type))
            raise IllegalMove(
                "wrong-move-shape",
                f"move {index} is not a {cls.id} move ({error}); a move has: {fields}",
                move_index=index,
            ) from None

    @classmethod
    def parse_log(cls, text: str) -> list[M]:
        """Read a whole log: moves in text form separated by white space (:data:`LOG_SPACE`).

        A token that is not a move of this variant is an ``IllegalMove`` with its index
        (``wrong-move-shape``), like a move object of the wrong shape.
        """
        tokens = log_tokens(text)
        if cls.moves_by_text is not None:
            found = list(map(cls.moves_by_text.get, tokens))
            if None not in found:
                return cast(list[M], found)
        return [cls.move_from_text(token, index) for index, token in enumerate(tokens)]

    @classmethod
    def move_from_text(cls, text: str, index: int) -> M:
        """One move from its text form, for move ``index`` of a log.

        A token that is not this variant's is an ``IllegalMove('wrong-move-shape')``, like
        an object of the wrong shape.
        """
        try:
            return cls.parse_move(text.strip(LOG_SPACE))
        except ParseError as error:
            raise IllegalMove(
                "wrong-move-shape",
                f"move {index} {text!r} is not a {cls.id} move: {error.message}",
                move_index=index,
            ) from None

    @classmethod
    def format_log(cls, moves: Sequence[M]) -> str:
        """The whole log in text form (``parse_log`` reads it back).

        A sequence, not any iterable: a move the lookup does not know sends the whole log,
        read again from its start, to ``move_text``.
        """
        if cls.moves_by_text is not None:
            try:  # a finite move set: each move's text by lookup, in one C-level join
                return " ".join(map(_texts_by_move(cls).__getitem__, moves))
            except KeyError:
                pass
        return " ".join(cls.move_text(m) for m in moves)

    # --- playing --------------------------------------------------------------------

    @property
    def moves(self) -> tuple[M, ...]:
        """The log so far."""
        return tuple(self._moves)

    def play(self, move: M) -> None:
        """Make ``move``; raise :class:`IllegalMove` (with its index) if the rules forbid it."""
        index = len(self._moves)
        if not isinstance(move, self.move_type):
            raise IllegalMove(
                "wrong-move-shape", f"move {index} is not a {self.id} move", move_index=index
            )
        if self.is_over():
            raise IllegalMove(
                "game-over", f"move {index} comes after the game is over", move_index=index
            )
        reason = self._try(move)
        if reason is not None:
            code, message = reason
            raise IllegalMove(
                code, f"move {index} ({self.move_text(move)}): {message}", move_index=index
            )
        self._moves.append(move)

    def log_text(self) -> str:
        """The log so far in text form."""
        return self.format_log(self._moves)

    @abstractmethod
    def _try(self, move: M) -> tuple[str, str] | None:
        """Make ``move`` if the rules allow it now, else say why not.

        Returns ``None`` after changing the state, or ``(code, reason)`` with the state
        left as it was. The log itself is kept by the caller.
        """

    @abstractmethod
    def legal_moves(self) -> list[M]:
        """Every move legal now (empty when the game is over)."""

    @abstractmethod
    def is_over(self) -> bool:
        """Whether no further move can be made."""

    @abstractmethod
    def is_complete(self) -> bool:
        """Whether the game reached its scored end (not stuck, not cut short)."""

    @abstractmethod
    def incomplete_reason(self) -> str:
        """Why the game cannot be scored yet (only when not complete)."""

    @abstractmethod
    def _score(self) -> Score:
        """The score of a complete game."""

    _scored: tuple[int, Score] | None = None
    """The last score reckoned, and after how many moves (a finished game's is asked for
    by its answer, its receipt and its total: reckoned once)."""

    def score(self) -> Score:
        """The score; ``RuleError('incomplete')`` for a log cut short or a dead end."""
        if not self.is_complete():
            raise RuleError("incomplete", self.incomplete_reason(), field="moves")
        played = len(self._moves)
        if self._scored is None or self._scored[0] != played:
            self._scored = (played, self._score())
        return self._scored[1]

    @abstractmethod
    def visible(self) -> msgspec.Struct:
        """What the player may see now, and nothing else."""


@cache
def _texts_by_move(cls: type[Game[Any, Any]]) -> dict[Any, str]:
    """The canonical text of each move of a variant with a finite move set (built once)."""
    return {move: cls.move_text(move) for move in (cls.moves_by_text or {}).values()}


@cache
def _fields(struct_type: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """(attribute, encoded name) of each field of a struct type (looked up once: it is slow)."""
    return tuple((f.name, f.encode_name) for f in msgspec.structs.fields(struct_type))


def _field_names(struct_type: type[msgspec.Struct]) -> frozenset[str]:
    """The encoded field names of a struct type."""
    return frozenset(encoded for _, encoded in _fields(struct_type))


@cache
def _default_options(options_type: type[msgspec.Struct]) -> msgspec.Struct:
    """The options with every default (immutable, so shared)."""
    return options_type()


def set_fields(value: msgspec.Struct) -> dict[str, Any]:
    """A struct's fields that are set (not ``UNSET``), by their encoded names."""
    unset = msgspec.UNSET
    return {
        encoded: found
        for name, encoded in _fields(type(value))
        if (found := getattr(value, name)) is not unset
    }


def require_text(text: object, what: str) -> str:
    """``text`` if it is a string, else a ``ParseError`` naming what was expected."""
    if not isinstance(text, str):
        raise ParseError(f"{text!r} is not {what}")
    return text
