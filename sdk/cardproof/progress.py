"""Progress bars for long work (``cardproof bots run``, ``store migrate``, the benches).

A bar is drawn on standard error only when it is a terminal, and never under ``CI``:
a pipe, a file or a test's captured output gets no bar, no carriage return. tqdm draws
it, imported only when a bar is drawn (``import cardproof`` and ``cardproof --help``
never import it).

>>> import io
>>> with bar(3, "games", unit="game", stream=io.StringIO()) as games:
...     games.advance()
...     games.at(3, 3)
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Sized
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from cardproof.screen import raw
from cardproof.words import printable

if TYPE_CHECKING:
    from tqdm import tqdm

T = TypeVar("T")


def shown(stream: TextIO | None = None) -> bool:
    """Whether a bar is drawn on ``stream`` (standard error by default): a terminal, not CI."""
    stream = raw(sys.stderr if stream is None else stream)
    if os.environ.get("CI") or stream is None:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return False


class Bar:
    """A bar being drawn, or nothing at all (the same calls, doing nothing)."""

    def __init__(self, drawn: tqdm[Any] | None) -> None:
        self._drawn = drawn

    def advance(self, n: int = 1, note: str | None = None) -> None:
        """``n`` more done; ``note`` (the mean so far, say) shown after the bar.

        A step with a note is drawn at once (each is an event worth seeing, a game);
        plain steps are drawn at most ten times a second.
        """
        if self._drawn is not None:
            self._drawn.update(n)
            if note is not None:
                self._drawn.set_postfix_str(note)

    def print(self, text: str) -> None:
        """Print a line on standard output, above the bar (which is then drawn again)."""
        if self._drawn is None:
            print(text)
        else:
            self._drawn.write(text, file=sys.stdout)

    def at(self, done: int, total: int) -> None:
        """``done`` of ``total`` done (a total learnt as the work goes)."""
        if self._drawn is not None:
            if self._drawn.total != total:
                self._drawn.total = total
                self._drawn.refresh()
            self._drawn.update(done - self._drawn.n)


@contextlib.contextmanager
def bar(
    total: int | None, what: str, *, unit: str = "it", stream: TextIO | None = None
) -> Iterator[Bar]:
    """A bar of ``total`` steps named ``what`` while the block runs, cleared at its end."""
    if not shown(stream):
        yield Bar(None)
        return
    from tqdm import tqdm

    drawn = tqdm(
        total=total,
        desc=printable(what),
        unit=unit,
        file=raw(sys.stderr if stream is None else stream),  # the bar's own codes, as they are
        leave=False,
        dynamic_ncols=True,
    )
    try:
        yield Bar(drawn)
    finally:
        drawn.close()


def iterate(
    items: Iterable[T], what: str, *, total: int | None = None, unit: str = "it"
) -> Iterator[T]:
    """``items`` one by one, with a bar on a terminal (``total``: for an iterator)."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    with bar(total, what, unit=unit) as drawn:
        for item in items:
            yield item
            drawn.advance()


__all__ = ["Bar", "bar", "iterate", "shown"]
