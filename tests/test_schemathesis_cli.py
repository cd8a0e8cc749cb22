"""The schemathesis CLI, plainly, with the shipped ``schemathesis.toml``: no failure.

``cardproof serve`` runs as ``make run`` serves it (the memory store, the default rate
limit and quotas), with an organizer made by ``cardproof keys organizer create`` as the
README says; then ``schemathesis run URL`` runs from the repository root, so it reads
the shipped file, with the organizer key in ``CARDPROOF_ORGANIZER_KEY``: the URL and the
key are all this test gives it. Every phase runs; the stateful one follows the spec's
links. ``tests/test_schemathesis.py`` runs the deeper in-process part (the coverage
phase's invalid boundaries), which the shipped file leaves out of a quick run.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import httpx

from cardproof_service import Settings
from test_web import serve_with_organizer

ROOT = Path(__file__).resolve().parents[1]
SCHEMATHESIS = ROOT / ".venv" / "bin" / "schemathesis"
DEFAULT_LIMITS = {
    "CARDPROOF_RATE_LIMIT": str(Settings().rate_limit),
    "CARDPROOF_RATE_WINDOW": str(Settings().rate_window),
    "CARDPROOF_MAX_GAMES_IN_FLIGHT": str(Settings().max_games_in_flight),
    "CARDPROOF_DAILY_DEAL_QUOTA": str(Settings().daily_deal_quota),
    "CARDPROOF_LISTENERS_PER_CLIENT": str(Settings().listeners_per_client),
}
"""The limits ``make run`` serves with (the test suite's servers turn them off)."""


def test_the_shipped_config_keeps_under_the_default_rate_limit() -> None:
    config = tomllib.loads((ROOT / "schemathesis.toml").read_text())
    count, unit = config["rate-limit"].split("/")
    window = {"s": 1, "m": 60, "h": 3600}[unit]
    assert int(count) * Settings().rate_window / window < Settings().rate_limit


def test_a_plain_schemathesis_run_with_the_shipped_config_passes(tmp_path: Path) -> None:
    with serve_with_organizer(tmp_path, "Schemathesis Club", **DEFAULT_LIMITS) as (url, key):
        run = subprocess.run(
            [str(SCHEMATHESIS), "run", f"{url}/schema/openapi.json", "--no-color"],
            cwd=ROOT,
            env={**os.environ, "CARDPROOF_ORGANIZER_KEY": key},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        jwks = httpx.get(f"{url}/.well-known/jwks.json")
        head = httpx.head(f"{url}/.well-known/jwks.json")  # HEAD over a real socket too
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert f"Configuration:    {ROOT / 'schemathesis.toml'}" in output, output
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅\s+{phase} \(in [\d.]+s\)", output), (phase, output)
    links = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", output)
    assert links, output
    assert int(links[1]) > 0, output  # the stateful phase followed links
    assert re.search(r"^\s*(\d+) generated, \1 passed", output, re.MULTILINE), output
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-length"] == jwks.headers["content-length"]
    assert head.headers["content-type"] == jwks.headers["content-type"]
