r"""Standard output and error that carry no hidden character to the terminal.

The commands that print what a server or a file said (``verify``, ``tournament``, ``log``,
``bots``...) print no control sequence of their own, so any hidden character in their
output came from someone else: an escape that recolours a line, a carriage return or
erase that rewrites one, a bidi override that reorders it. :class:`PrintableStream`
writes each as a visible ``\uXXXX`` (:func:`cardproof.words.printable`), keeping line
breaks and tabs; a progress bar draws on the real stream (:attr:`PrintableStream.raw`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO, TextIO

from cardproof.words import printable


class PrintableStream(io.TextIOBase):
    """A text stream writing to ``raw``, every hidden character but line breaks and tabs escaped."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        """Write ``text``, its hidden characters escaped; its length, as streams answer."""
        lines = ("\t".join(map(printable, line.split("\t"))) for line in text.split("\n"))
        self.raw.write("\n".join(lines))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def buffer(self) -> BinaryIO:
        """Bytes written as they are (a JSON export: its encoder escapes controls)."""
        return self.raw.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.raw.encoding


def raw(stream: TextIO) -> TextIO:
    """The stream under ``stream`` if it is a :class:`PrintableStream` (for a bar's own codes)."""
    return stream.raw if isinstance(stream, PrintableStream) else stream


@contextmanager
def printable_output() -> Iterator[None]:
    """Standard output and error as :class:`PrintableStream` while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PrintableStream(saved[0]), PrintableStream(saved[1])
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout, sys.stderr = saved


__all__ = ["PrintableStream", "printable_output", "raw"]
