"""The clean-room JavaScript verifier agrees with every published test vector.

``tests/cleanroom/`` re-implements, in JavaScript for node and from ``docs/protocol.md``,
``docs/rules.md``, ``docs/architecture.md`` and ``README.md`` alone, the deck derivation
(``cardproof-shuffle-v1``), the drawn point tables (``cardproof-points-v1``) and the receipt
checks (compact JWS, Ed25519, JWKS thumbprints, kinds, seeds, replay and score). Its
``node:test`` suite runs that code against every vector of ``tests/vectors/shuffle-v1.json``,
``points-v1.json``, ``commitments-v1.json`` (commitment ids, server seeds, round seeds,
reserve-poker's ``"random"`` version), ``receipts.json`` (the lying receipts included,
which it must refuse, and the repeat-poker ladder replayed across its five decks),
``receipts-solodrez.json`` (solodrez games replayed column by column) and
``receipt-edges-v1.json`` (each receipt at the edges given the code the documents say).

This test runs ``node --test tests/cleanroom/`` and asserts that it passes, that it ran one
test for every vector of every file (by the test names, so a vector the suite silently skips
fails here) and a non-trivial number of tests beyond them: that is, that the documents
suffice to interoperate with the service. Where the documents had to be guessed at, or still
leave something open, ``tests/cleanroom/NOTES.md`` says so.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
CLEANROOM = TESTS / "cleanroom"
VECTORS = TESTS / "vectors"

# Tests beyond the per-vector ones (forged receipts, rules examples, refusals, the solodrez
# replay): the suite has 57; fewer than this means it lost some.
MIN_OTHER_TESTS = 55


def _vector_tests() -> dict[str, int]:
    """How many tests the suite must run per vector file, by the prefix of the test's name.

    One test per shuffle, ``below``, points, commitment, round and version vector; three per
    receipt vector (verify and replay, the cards seen, the key set), one per lying receipt;
    one per edge case.
    """

    def load(name: str) -> Any:
        return json.loads((VECTORS / name).read_text(encoding="utf-8"))

    shuffle, points, commitments = (
        load("shuffle-v1.json"),
        load("points-v1.json"),
        load("commitments-v1.json"),
    )
    receipts = load("receipts.json") + load("receipts-solodrez.json")
    lies = sum(1 for r in receipts if "lie" in r)
    edges = load("receipt-edges-v1.json")
    return {
        "shuffle vector ": len(shuffle["vectors"]),
        "below vector ": len(shuffle["below"]),
        "points vector ": len(points["vectors"]),
        "commitment vector ": len(commitments["commitments"]),
        "round vector ": len(commitments["rounds"]),
        "version vector ": len(commitments["versions"]["vectors"]),
        "receipt vector ": 3 * (len(receipts) - lies) + lies,
        "edge vector ": len(edges["cases"]),
    }


def _tap_summary(output: str) -> dict[str, int]:
    """The ``# tests N``, ``# pass N``, ``# fail N`` ... lines of node's TAP output."""
    return {name: int(n) for name, n in re.findall(r"^# (\w+) (\d+)$", output, flags=re.MULTILINE)}


def test_cleanroom_suite_passes() -> None:
    repo = TESTS.parent
    result = subprocess.run(
        ["node", "--test", "--test-reporter=tap", "tests/cleanroom/"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    output = result.stdout + result.stderr
    summary = _tap_summary(result.stdout)
    assert result.returncode == 0, output[-4000:]
    assert summary.get("fail") == 0, output[-4000:]
    assert summary.get("cancelled", 0) == 0, output[-4000:]
    assert summary.get("pass") == summary.get("tests"), summary
    passed = [
        name
        for name in re.findall(r"^ok \d+ - (.*)$", result.stdout, flags=re.MULTILINE)
        if not re.search(r"# (SKIP|TODO)\b", name)
    ]
    wanted = _vector_tests()
    ran = {prefix: sum(1 for name in passed if name.startswith(prefix)) for prefix in wanted}
    assert ran == wanted, (ran, wanted)
    assert summary.get("tests", 0) >= sum(wanted.values()) + MIN_OTHER_TESTS, summary
