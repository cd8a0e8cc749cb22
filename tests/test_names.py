"""Entrant names: their keys merge every look-alike, checked against Unicode's own data.

The confusables data is TR39's, as the ``disarm`` library ships it; the test goes over
every capital letter Unicode has (categories Lu and Lt), so that a name written with a
Greek, Cyrillic or other capital that looks like a Latin letter collides with the Latin
name, whatever case folding would have made of it.

What a name may hold is checked against Unicode's data too: every Default_Ignorable code
point (as the ``regex`` package ships the property), every other symbol (category So)
and every mark with nothing to sit on is refused wherever it stands, and the ones found
entering as look-alikes (U+1D159, U+1D15A, U+16FE4, U+3164, U+E0100 to U+E01EF) are
named, in the function and over HTTP.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest
import regex
from disarm import skeleton_key
from hypothesis import given, settings
from hypothesis import strategies as st

from cardproof.errors import RuleError
from cardproof.words import HIDDEN_CATEGORIES
from cardproof_service.tournaments.names import MAX_NAME_LENGTH, display_name, name_key
from test_tournaments_api import HttpClient, enter, open_tournament, reader

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


# --- what a name may hold ------------------------------------------------------------------

_CHARS = [(char, unicodedata.category(char)) for char in map(chr, range(sys.maxunicode + 1))]
_DEFAULT_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
IGNORABLE = [char for char, _ in _CHARS if _DEFAULT_IGNORABLE.match(char)]
"""Unicode's Default_Ignorable_Code_Point set, read from the data the ``regex`` package ships."""
SYMBOLS = [char for char, category in _CHARS if category == "So"]
MARKS = [char for char, category in _CHARS if category[0] == "M" and char not in IGNORABLE]
VARIATION_SELECTORS = [chr(cp) for cp in range(0xE0100, 0xE01F0)]
"""VARIATION SELECTOR-17 to -256, written out here: the data must not lose them."""
HANGUL_FILLERS = ["\u3164", "\uffa0", "\u115f", "\u1160"]
BLANK = ["\U0001d159", "\U0001d15a", "\u2800", "\ufffc", "\ufffd"]
"""Symbols that entered names and showed as nothing: a null and a cluster notehead, the
braille blank, the object replacement and replacement characters."""


def refusal(text: str) -> RuleError:
    with pytest.raises(RuleError) as refused:
        display_name(text)
    return refused.value


def refused_as_hidden(text: str, char: str) -> bool:
    """``text`` is refused as ``invisible-character``, naming the field and ``char``."""
    error = refusal(text)
    return (error.code, error.field) == ("invisible-character", "name") and (
        f"(U+{ord(char):04X}" in error.message
    )


def test_the_data_has_the_ignorables_that_were_let_in() -> None:
    assert len(IGNORABLE) > 4000
    assert {*VARIATION_SELECTORS, *HANGUL_FILLERS, "\u200b", "\u00ad", "\u034f"} <= set(IGNORABLE)
    assert {*map(chr, range(0xFE00, 0xFE10)), *map(chr, range(0x180B, 0x1810))} <= set(IGNORABLE)
    assert {"\U0001d159", "\U0001d15a", "\u2800"} <= set(SYMBOLS)


@pytest.mark.parametrize("shape", ["{}Alice", "Al{}ice", "Alice{}", "{}"])
def test_every_default_ignorable_is_refused_wherever_it_stands(shape: str) -> None:
    let_in = [f"U+{ord(c):04X}" for c in IGNORABLE if not refused_as_hidden(shape.format(c), c)]
    assert let_in == []


@pytest.mark.parametrize("shape", ["Alice{}", "Al{}ice", "Bob {}Smith", "{}"])
def test_a_variation_selector_is_refused_even_after_a_letter(shape: str) -> None:
    let_in = [
        f"U+{ord(c):04X}" for c in VARIATION_SELECTORS if not refused_as_hidden(shape.format(c), c)
    ]
    assert let_in == []


@pytest.mark.parametrize("filler", HANGUL_FILLERS)
def test_a_hangul_filler_is_refused_alone_and_in_a_name(filler: str) -> None:
    for shape in ("{}", "{}Alice", "Al{}ice", "Alice{}", "Alice {}", "\ud55c{}"):
        assert refused_as_hidden(shape.format(filler), filler), shape


@pytest.mark.parametrize("blank", BLANK)
def test_a_symbol_that_shows_as_nothing_is_refused(blank: str) -> None:
    for shape in ("{}Alice", "Al{}ice", "Alice{}", "{}"):
        assert refused_as_hidden(shape.format(blank), blank), shape


def test_every_other_symbol_is_refused() -> None:
    let_in = [f"U+{ord(c):04X}" for c in SYMBOLS if not refused_as_hidden(f"Ada{c}", c)]
    assert let_in == []


def test_a_mark_needs_a_letter_or_digit_to_sit_on() -> None:
    alone = [f"U+{ord(c):04X}" for c in MARKS if not refused_as_hidden(c, c)]
    assert alone == []
    after_a_space = [f"U+{ord(c):04X}" for c in MARKS if not refused_as_hidden(f"Al {c}", c)]
    assert after_a_space == []
    assert refused_as_hidden("\u0300", "\u0300")
    assert refused_as_hidden("-\u0301Ada", "\u0301")
    assert refused_as_hidden("\u00b4Ada", "\u0301")  # once normalized, an accent on nothing
    assert display_name("Jose\u0301") == "Jos\u00e9"
    stacked = "A\u0332\u0301"  # marks on marks on a letter
    assert display_name(stacked) == unicodedata.normalize("NFKC", stacked)
    assert display_name("O\u00b4Brien") == "O \u0301Brien"  # a spacing accent, as before
    assert display_name("\u0915\u093f") == "\u0915\u093f"  # a vowel sign on its letter
    assert display_name("3\u20e3") == "3\u20e3"  # an enclosing keycap on a digit


def test_the_khitan_filler_after_a_letter_is_the_name_without_it() -> None:
    filler = "\U00016fe4"
    assert name_key(display_name(f"Alice{filler}")) == name_key("Alice")
    assert name_key(display_name(f"Al{filler}ice")) == name_key("Alice")
    assert refused_as_hidden(f"{filler}Alice", filler)


@pytest.mark.parametrize("name", ["!!!", "-", "' '", "...", "\u30fc", "\u02bc\u02bc", "+ \u20ac"])
def test_a_name_needs_a_letter_or_a_digit(name: str) -> None:
    error = refusal(name)
    assert (error.code, error.field) == ("empty-name", "name")
    assert "a letter or a digit" in error.message


def test_one_letter_or_one_digit_is_a_name() -> None:
    for name in ("A", "7", "\u03a9", "\u4e00", "\u0661", "\u2167", "\u00bd", "A-"):
        assert display_name(name) == unicodedata.normalize("NFKC", name)


NAME_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(IGNORABLE + BLANK + MARKS[:200] + ["\u00b4", " ", "A", "1", "-"]),
    ),
    max_size=12,
)


@settings(max_examples=500, deadline=None)
@given(NAME_TEXT)
def test_a_name_let_in_shows_every_character_it_has(text: str) -> None:
    refused: RuleError | None = None
    try:
        name = display_name(text)
    except RuleError as error:
        refused = error
    if refused is not None:
        assert refused.code in {"invisible-character", "empty-name", "name-too-long"}
        assert refused.field == "name"
        return
    categories = [unicodedata.category(char) for char in name]
    assert not HIDDEN_CATEGORIES & set(categories), name
    assert not set(IGNORABLE) & set(name), name
    assert "So" not in categories, name
    assert any(c[0] == "N" or c in {"Lu", "Ll", "Lt", "Lo"} for c in categories), name
    assert categories[0][0] != "M", name
    written = [unicodedata.category(char)[0] for char in text]
    for index, kind in enumerate(written):
        if kind == "M":  # as written, a mark sits on a letter, a digit or a mark that does
            assert index > 0, text
            assert written[index - 1] in "LNM", text


def test_the_look_alikes_found_enter_as_one_name_or_not_at_all(
    client: HttpClient, owner: str
) -> None:
    """U+1D159 and U+16FE4 made "Alice" four times over; U+0300 alone was a name."""
    created = open_tournament(client, owner, format="lockstep", entry="public")["tournament"]
    tid = created["tournament_id"]
    assert enter(client, tid, "Alice").status_code == 201
    refused = {
        "Alice\U0001d159": "\U0001d159",
        "\U0001d159Alice": "\U0001d159",
        "Al\U0001d159ice": "\U0001d159",
        "Alice\U0001d15a": "\U0001d15a",
        "\U00016fe4Alice": "\U00016fe4",
        "\u0300": "\u0300",
        "\u3164": "\u3164",
        "Alice\u3164": "\u3164",
        "Al\U000e0100ice": "\U000e0100",
        "Alice\U000e01ef": "\U000e01ef",
    }
    for name, char in refused.items():
        answer = enter(client, tid, name)
        assert answer.status_code == 422, (name, answer.text)
        assert answer.headers["content-type"].startswith("application/problem+json")
        problem = answer.json()
        assert (problem["code"], problem["field"]) == ("invisible-character", "name"), name
        assert f"U+{ord(char):04X}" in problem["detail"], problem
    for name in ("Alice\U00016fe4", "Al\U00016fe4ice"):  # a blank mark on a letter: no mark
        taken = enter(client, tid, name)
        assert (taken.status_code, taken.json()["code"]) == (409, "name-taken"), name
        assert taken.json()["taken_by"] == "Alice"
    lines = client.get(f"/v1/tournaments/{tid}/standings", headers=reader(tid)).json()
    assert [line["name"] for line in lines["entrants"]] == ["Alice"]


def test_a_tournament_name_shows_every_character_it_has(client: HttpClient, owner: str) -> None:
    from test_tournaments_api import new_tournament

    for name, char in [("Spring Open\U0001d159", "\U0001d159"), ("Cup\u3164", "\u3164")]:
        made = client.post(
            "/v1/tournaments", json=new_tournament(name=name), headers={"Authorization": owner}
        )
        assert made.status_code == 422, made.text
        problem = made.json()
        assert (problem["code"], problem["field"]) == ("invisible-character", "name")
        assert f"U+{ord(char):04X}" in problem["detail"]
