"""Entrant names: one spelling per person, no invisible characters, no look-alikes.

A name is shown as it was given, once normalized (NFKC, white space trimmed and runs of
it collapsed to one space); it is compared by its key: the name's confusable skeleton
(Unicode TR39, by the ``disarm`` library), taken before and after case folding, so
``Alice``, ``ALICE``, ``аlice`` with a Cyrillic ``а``, ``ａｌｉｃｅ`` and ``Ζoe`` with a
Greek capital ``Ζ`` are all the names ``alice`` and ``Zoe`` took.

What a name may hold is decided by Unicode's own data (the standard library's
``unicodedata``, and the ``regex`` package for the one property it lacks), never by a
list written here. A name shows every character it has, so a character that may show as
nothing is refused (``422 invisible-character``, naming its place and code point) rather
than dropped:

* a control, format, surrogate, private-use or unassigned character, or a line or
  paragraph separator (:data:`~cardproof.words.HIDDEN_CATEGORIES`);
* any of Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt):
  zero-width characters, the soft hyphen, bidi controls, variation selectors (U+FE00 to
  U+FE0F, U+E0100 to U+E01EF), the Hangul fillers (U+3164, U+FFA0...), the Mongolian
  ones, the combining grapheme joiner, tags;
* an other symbol (category So: pictographs and emoji, dingbats, musical and braille
  symbols, the replacement characters). Some draw nothing at all (U+1D159 MUSICAL SYMBOL
  NULL NOTEHEAD, U+2800 BRAILLE PATTERN BLANK) and many only with a font a reader may
  lack. Names are written with letters, digits, marks, spaces and punctuation, and may
  hold math, currency and modifier symbols (``+``, ``€``, ``´``), which common fonts draw;
* a mark (category M: an accent, a vowel sign, a filler such as U+16FE4 KHITAN SMALL
  SCRIPT FILLER) with no letter or digit before it to sit on, directly or under other
  marks, in the name as written or at the start of the name as shown.

And a name needs a letter or a digit (``422 empty-name``): a modifier letter (category
Lm, such as ``ー``) does not count, since the key leaves it out. A mark the rules let in
is left out of the key too, so ``Alice`` with a blank mark after its ``e`` is ``Alice``.

>>> display_name("  Ada   Lovelace ")
'Ada Lovelace'
>>> name_key("ALICE") == name_key("аlice") == name_key("ａｌｉｃｅ") == name_key("alice")
True
>>> name_key("bob") == name_key("alice")
False
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

import regex
from disarm import skeleton_key

from cardproof.errors import RuleError
from cardproof.words import HIDDEN_CATEGORIES

DEFAULT_IGNORABLE: Final = regex.compile(r"\p{Default_Ignorable_Code_Point}")
"""Unicode's Default_Ignorable_Code_Point property, from the data the ``regex`` package
ships (the standard library's ``unicodedata`` has no such property)."""
_BASES: Final = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No"})
"""What a mark sits on: a letter or a number."""
_NAMING: Final = _BASES - {"Lm"}
"""What a name needs one of: a letter, not a modifier letter (the key leaves those out),
or a number."""
_IGNORED: Final = frozenset(
    {"Mn", "Me", "Lm", "Sk", "Zs", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"}
)
"""What a name's key leaves out: combining marks, modifier letters and symbols, spaces and
punctuation (``O'Brien``, ``O´Brien`` and ``OBrien``, ``Al ice`` and ``Alice.`` are one)."""
_PROTOTYPES: Final = (("m", "rn"), ("w", "vv"), ("d", "cl"), ("ı", "l"), ("i", "l"))
"""TR39 prototypes the library does not apply to ASCII on purpose (``m`` is ``rn``, ``w``
is ``vv``, ``d`` is ``cl``), then ``i`` as ``l``: a capital ``I`` looks like ``l`` and
case-folds to ``i``."""
_SPACES: Final = re.compile(r"\s+")
MAX_NAME_LENGTH: Final = 64
NAME_PATTERN: Final = "^[^\\x00-\\x1f\\x7f]+(?![\\s\\S])"
"""What the spec says of a name (an entry's ``name``, the standings' ``player``): no
C0 control character. A name the pattern lets through may still be refused (422) by
:func:`display_name`: a character that may show as nothing (format characters, other
controls, default-ignorables, other symbols, a mark on nothing), no letter or digit, too
long once normalized."""


def display_name(text: str, *, longest: int = MAX_NAME_LENGTH) -> str:
    r"""``text`` as it is shown: NFKC, white space trimmed and collapsed (422 if unusable).

    An entrant's name is at most 64 characters, a tournament's 100 (``longest``). What a
    name may hold is in the module's docstring.

    >>> display_name("Zoe\u0301 O\u00b4Brien")
    'Zoé O ́Brien'
    >>> for refused in ("Alice\U0001d159", "\u0300", "\u3164", "\U000e0100Al", "!?"):
    ...     try:
    ...         display_name(refused)
    ...     except RuleError as error:
    ...         print(error.code, *re.findall(r"U\+[0-9A-F]+", error.message))
    invisible-character U+1D159
    invisible-character U+0300
    invisible-character U+3164
    invisible-character U+E0100
    empty-name
    """
    _refuse_unshown(text, "")
    name = _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()
    _refuse_unshown(name[:1], " once normalized")  # NFKC makes ``´`` a space and an accent
    if not any(unicodedata.category(char) in _NAMING for char in name):
        raise RuleError("empty-name", "name: a name needs a letter or a digit", field="name")
    if len(name) > longest:
        raise RuleError("name-too-long", f"name: at most {longest} characters", field="name")
    return name


def _refuse_unshown(text: str, where: str) -> None:
    """Raise ``invisible-character`` at the first character of ``text`` a name may not show."""
    on_base = False  # whether a mark here has a letter or digit to sit on
    for position, char in enumerate(text):
        category = unicodedata.category(char)
        if category in HIDDEN_CATEGORIES or DEFAULT_IGNORABLE.match(char):
            why = "is invisible or a format character"
        elif category == "So":
            why = "is a symbol (category So), and some of those draw nothing"
        elif category[0] == "M" and not on_base:
            why = "is a mark with no letter or digit before it to sit on"
        else:
            on_base = category in _BASES or category[0] == "M"
            continue
        label = " ".join(filter(None, (f"U+{ord(char):04X}", unicodedata.name(char, ""))))
        raise RuleError(
            "invisible-character",
            f"name: character {position}{where} ({label}) {why}; a name shows every "
            "character it has, in letters, digits, marks on them, spaces and punctuation",
            field="name",
        )


def name_key(name: str) -> str:
    """What names are compared by: the TR39 confusable skeleton, taken before case folding.

    The skeleton is the library's (``disarm``), taken of the name as written, so that a
    capital that looks like a Latin letter is that letter (Greek ``Ζ`` is ``Z``: once
    case-folded it would be ``ζ``, which looks like nothing Latin); then the name is
    case-folded and its skeleton taken again, for what folding brings out. Then come the
    TR39 prototypes the library leaves out on purpose for prose but a name check needs
    (``m`` is ``rn``, ``w`` is ``vv``, ``d`` is ``cl``), and ``i`` as ``l``, because a
    capital ``I`` looks like ``l``. Marks, spaces and punctuation go (``Alice`` with a
    combining low line is ``Alice``). A key only decides which names are taken: it merges
    more names than a reader would mistake, never fewer.

    >>> name_key("AIice") == name_key("Alice") == name_key("ALICE")
    True
    >>> name_key("Ivan") == name_key("lvan"), name_key("Tom") == name_key("Torn")
    (True, True)
    >>> name_key("Willy") == name_key("VVilly"), name_key("dad") == name_key("clad")
    (True, True)
    >>> name_key("O'Brien") == name_key("O\u00b4Brien"), name_key("Al ice.") == name_key("alice")
    (True, True)
    >>> name_key("Alİce") == name_key("Alice") == name_key("Alice̲")
    True
    >>> [name_key(greek) == name_key(latin) for greek, latin in [("Ζoe", "Zoe"), ("Μax", "Max")]]
    [True, True]
    """
    written = skeleton_key(unicodedata.normalize("NFKC", name), digit_policy="tr39")
    folded = unicodedata.normalize("NFKC", written.casefold())
    skeleton = unicodedata.normalize("NFD", skeleton_key(folded, digit_policy="tr39"))
    bare = "".join(c for c in skeleton if unicodedata.category(c) not in _IGNORED)
    for letter, prototype in _PROTOTYPES:
        bare = bare.replace(letter, prototype)
    return bare


__all__ = ["DEFAULT_IGNORABLE", "MAX_NAME_LENGTH", "NAME_PATTERN", "display_name", "name_key"]
