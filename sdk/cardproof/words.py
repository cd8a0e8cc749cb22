"""Numbers and flags in words, for every text a person reads (the CLI, error details).

>>> plural(1, "move"), plural(2, "move"), plural(0, "series", "series"), yes_no(True)
('1 move', '2 moves', '0 series', 'yes')
"""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 game``, ``2 games``: the count and the word, singular only for one."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def yes_no(flag: bool) -> str:
    """``yes`` or ``no``, not Python's ``True``/``False``."""
    return "yes" if flag else "no"


__all__ = ["plural", "yes_no"]
