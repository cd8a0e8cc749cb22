"""Entrant names: one spelling per person, no invisible characters, no look-alikes.

A name is shown as it was given, once normalized (NFKC, white space trimmed and runs of
it collapsed to one space); it is compared by its key: the name's confusable skeleton
(Unicode TR39, by the ``disarm`` library), taken before and after case folding, so
``Alice``, ``ALICE``, ``аlice`` with a Cyrillic ``а``, ``ａｌｉｃｅ`` and ``Ζoe`` with a
Greek capital ``Ζ`` are all the names ``alice`` and ``Zoe`` took. Invisible and
format characters (zero-width spaces, bidi controls, soft hyphens, variation selectors,
fillers) are refused rather than dropped: a name should look like what it is.

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

from disarm import skeleton_key

from cardproof.errors import RuleError
from cardproof.words import HIDDEN_CATEGORIES

_INVISIBLE: Final = frozenset(
    (
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F),
        *(0x2800, 0x3164, 0xFFA0, 0xFFFC, 0xFFFD),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    )
)
"""Default-ignorable or blank characters outside those categories: the combining grapheme
joiner, Hangul and Mongolian fillers, the braille blank, the object replacement and
replacement characters, variation selectors."""
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
:func:`display_name`: format characters, other controls, nothing visible, too long once
normalized."""


def display_name(text: str, *, longest: int = MAX_NAME_LENGTH) -> str:
    """``text`` as it is shown: NFKC, white space trimmed and collapsed (422 if unusable).

    An entrant's name is at most 64 characters, a tournament's 100 (``longest``).
    """
    for position, char in enumerate(text):
        if unicodedata.category(char) in HIDDEN_CATEGORIES or ord(char) in _INVISIBLE:
            raise RuleError(
                "invisible-character",
                f"name: character {position} (U+{ord(char):04X}) is invisible or a format "
                "character; a name shows every character it has",
                field="name",
            )
    name = _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()
    if not name:
        raise RuleError("empty-name", "name: a name needs a visible character", field="name")
    if len(name) > longest:
        raise RuleError("name-too-long", f"name: at most {longest} characters", field="name")
    return name


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


__all__ = ["MAX_NAME_LENGTH", "NAME_PATTERN", "display_name", "name_key"]
