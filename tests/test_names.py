"""Entrant names: their keys merge every look-alike, checked against Unicode's own data.

The confusables data is TR39's, as the ``disarm`` library ships it; the test goes over
every capital letter Unicode has (categories Lu and Lt), so that a name written with a
Greek, Cyrillic or other capital that looks like a Latin letter collides with the Latin
name, whatever case folding would have made of it.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest
from disarm import skeleton_key

from cardproof.errors import RuleError
from cardproof_service.names import MAX_NAME_LENGTH, display_name, name_key

CAPITALS = [
    char
    for char in map(chr, range(sys.maxunicode + 1))
    if unicodedata.category(char) in {"Lu", "Lt"}
]


def latin_look(char: str) -> str | None:
    """The Latin letters a capital looks like, by TR39's data alone (``None``: none)."""
    looks = skeleton_key(char, digit_policy="tr39")
    return looks if looks.isascii() and looks.isalpha() else None


LOOK_LATIN = [(char, look) for char in CAPITALS if (look := latin_look(char)) is not None]


def test_the_data_has_the_capitals_that_were_let_in() -> None:
    found = dict(LOOK_LATIN)
    assert {found[c] for c in "ΖΜΗΝΥ"} == {"z", "m", "h", "n", "y"}  # Greek
    assert len([c for c, _ in LOOK_LATIN if not c.isascii()]) > 100


@pytest.mark.parametrize("position", ["start", "middle", "end"])
def test_every_capital_that_looks_latin_takes_the_latin_name(position: str) -> None:
    missed = []
    for char, look in LOOK_LATIN:
        latin = look.upper() if len(look) == 1 else look
        shapes = {"start": ("{}oe", "{}oe"), "middle": ("Jo{}n", "Jo{}n"), "end": ("Ma{}", "Ma{}")}
        written, plain = shapes[position]
        if name_key(written.format(char)) != name_key(plain.format(latin)):
            missed.append(f"U+{ord(char):04X} {unicodedata.name(char, '?')} ({look})")
    assert missed == []


def test_names_greek_capitals_made_apart_are_one() -> None:
    for greek, latin in [
        ("Ζoe", "Zoe"),
        ("Μax", "Max"),
        ("Ηal", "Hal"),
        ("Νed", "Ned"),
        ("Υul", "Yul"),
    ]:
        assert name_key(greek) == name_key(latin), greek


def test_accents_precomposed_or_not_are_one_name() -> None:
    assert name_key("José") == name_key("Jose") == name_key("Jose\u0301") == name_key("JOSÉ")
    assert name_key("Zoë") == name_key("Zoe")


def test_a_name_of_the_longest_length_is_taken_and_one_more_is_refused() -> None:
    longest = "A" * MAX_NAME_LENGTH
    assert display_name(longest) == longest
    assert display_name(f"  {longest}  ") == longest  # spaces around do not count
    with pytest.raises(RuleError) as refused:
        display_name(longest + "B")
    assert refused.value.code == "name-too-long"


def test_different_names_stay_apart() -> None:
    names = ["Ada", "Adam", "Bea", "Ben", "Zoe", "Joe", "Max", "Mac", "Hal", "Sal", "Ned", "Ted"]
    assert len({name_key(name) for name in names}) == len(names)
