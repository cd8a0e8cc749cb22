"""Small requests that would cost a lot: a log that backtracks a pattern exponentially.

The move forms of the variants overlap (``r1`` is a repeat-poker row and a solodrez
removal), so matching a whole log against one alternation of them backtracked twice per
token when the last token was bad: 24 tokens and a ``!`` (140 bytes) held the event loop
for six seconds. Logs are now read token by token, and the pattern the spec publishes
has one way to match.
"""

from __future__ import annotations

import re
import time

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from cardproof.errors import ParseError
from cardproof.models import LOG_PATTERN, check_log_text


@pytest.mark.parametrize("tokens", [24, 26, 40, 10_000])
@pytest.mark.parametrize("token", ["r1", "R1", "a1", "0>1", "1,1"])
def test_a_log_that_fails_at_its_end_is_refused_at_once(
    client: TestClient[Litestar], tokens: int, token: str
) -> None:
    log = " ".join([token] * tokens) + " !"
    started = time.perf_counter()
    answer = client.post(
        "/v1/verify",
        json={"variant": "repeat-poker", "deal": {"cards": ["AH"]}, "moves": log},
    )
    assert time.perf_counter() - started < 0.5
    assert answer.status_code == 400
    assert answer.json()["field"] == f"moves[{tokens}]"


def test_the_published_log_pattern_has_one_way_to_match() -> None:
    pattern = re.compile(LOG_PATTERN)
    for token in ("r1", "R1", "r8", "stop", "1,1", "3:2>5"):
        started = time.perf_counter()
        assert pattern.match(" ".join([token] * 3000) + " !") is None
        assert pattern.match(" ".join([token] * 3000)) is not None
        assert time.perf_counter() - started < 0.2, token


def test_a_long_log_is_checked_in_linear_time() -> None:
    log = " ".join(["3:2>5"] * 10_000)
    started = time.perf_counter()
    assert check_log_text(log) == log
    with pytest.raises(ParseError):
        check_log_text(log + " x" * 5)
    assert time.perf_counter() - started < 0.2
