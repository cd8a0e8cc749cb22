r"""Numbers, flags and echoed text in words, for every text a person reads (the CLI, pages).

>>> plural(1, "move"), plural(2, "move"), plural(0, "series", "series"), yes_no(True)
('1 move', '2 moves', '0 series', 'yes')
>>> printable("Cup\x1b[31m \u202eevil")
'Cup\\u001b[31m \\u202eevil'
>>> card_label("TC"), card_label("TC", symbols=False), card_label("JK"), card_label("Q3")
('10♣', '10C', 'Joker', 'Q3')
"""

from __future__ import annotations

import unicodedata
from typing import Final

HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (zero-width, bidi), surrogates, private use, unassigned,
line and paragraph separators: characters a reader does not see as themselves."""


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``: the count and the word, singular only for one."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def yes_no(flag: bool) -> str:
    """``yes`` or ``no``, not Python's ``True``/``False``."""
    return "yes" if flag else "no"


SUIT_SYMBOLS: Final = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
"""Each suit letter's symbol, as the pages show it (♣ ♦ ♥ ♠)."""


def card_label(text: str, *, symbols: bool = True) -> str:
    """A card as the pages show it: ``10♣``, ``A♠``, ``Joker``; ``10C`` without ``symbols``.

    A card the API writes (``TC``, ``JK``) is shown with its rank in figures (``10``) and
    its suit's symbol, or its letter where the symbols cannot be shown (an ASCII
    terminal); any other text (a solodrez card, ``Q3``) is shown as it is.
    """
    if text == "JK":
        return "Joker"
    if len(text) != 2 or text[0] not in "23456789TJQKA" or text[1] not in SUIT_SYMBOLS:
        return text
    rank = "10" if text[0] == "T" else text[0]
    return rank + (SUIT_SYMBOLS[text[1]] if symbols else text[1])


def shows_suits(stream: object) -> bool:
    """Whether ``stream`` can write the suit symbols: its encoding has them (``UTF-8``).

    A stream that names no encoding (``io.StringIO``) holds any text.
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "".join(SUIT_SYMBOLS.values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def printable(text: str) -> str:
    r"""``text`` with each hidden character (:data:`HIDDEN_CATEGORIES`) as a ``\uXXXX`` escape.

    Text someone else wrote (a name, a path) printed on a terminal or a page must not move
    the cursor, retitle the window or reorder the line it is on.
    """
    return "".join(
        f"\\u{ord(char):04x}" if unicodedata.category(char) in HIDDEN_CATEGORIES else char
        for char in text
    )


__all__ = [
    "HIDDEN_CATEGORIES",
    "SUIT_SYMBOLS",
    "card_label",
    "plural",
    "printable",
    "shows_suits",
    "yes_no",
]
