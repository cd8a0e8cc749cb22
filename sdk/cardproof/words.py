r"""Numbers, flags and echoed text in words, for every text a person reads (the CLI, pages).

>>> plural(1, "move"), plural(2, "move"), plural(0, "series", "series"), yes_no(True)
('1 move', '2 moves', '0 series', 'yes')
>>> printable("Cup\x1b[31m \u202eevil")
'Cup\\u001b[31m \\u202eevil'
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


def printable(text: str) -> str:
    r"""``text`` with each hidden character (:data:`HIDDEN_CATEGORIES`) as a ``\uXXXX`` escape.

    Text someone else wrote (a name, a path) printed on a terminal or a page must not move
    the cursor, retitle the window or reorder the line it is on.
    """
    return "".join(
        f"\\u{ord(char):04x}" if unicodedata.category(char) in HIDDEN_CATEGORIES else char
        for char in text
    )


__all__ = ["HIDDEN_CATEGORIES", "plural", "printable", "yes_no"]
