"""Server-sent events read from an answer's lines, for the tests that follow a round's calls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def server_sent_events(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """Each event with data in ``lines`` (without their line ends), as (name, data).

    An event is named ``message`` unless an ``event:`` line names it; its ``data:``
    lines are joined; a blank line ends it. Comments and events without data are passed
    over, as a browser's ``EventSource`` does.
    """
    name, data = "message", ""
    for line in lines:
        if line.startswith("event:"):
            name = line.partition(":")[2].strip()
        elif line.startswith("data:"):
            data += line.partition(":")[2].strip()
        elif not line:
            if data:
                yield name, data
            name, data = "message", ""
