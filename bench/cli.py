"""How fast the ``cardproof`` command starts: against ``python -c pass`` in the same run.

Times, as a user runs them from the venv's ``cardproof`` script, in interleaved rounds
with the order rotated (so a busy spell hits every command alike):

- ``python -c pass``, the floor every Python command pays, and two named peers: ``python
  -c "import httpx"`` (what any httpx-based client starts with) and ``pip --version``;
- ``cardproof --version``, ``cardproof --help``;
- ``cardproof verify RECEIPT --jwks FILE``, offline: signature, seed, deck, replay and
  score of the first receipt of ``tests/vectors/receipts.json``;
- ``python -c "import cardproof"``.

Targets (issue 30): ``--help`` and the offline verify at most 0.25 s above ``python -c
pass`` (median), ``import cardproof`` under 0.15 s. Every command's bytecode is compiled
first, as an installed package's is (``PYTHONDONTWRITEBYTECODE`` would otherwise make
each run compile the sources again).

Run: ``.venv/bin/python bench/cli.py [--rounds N]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import median, percentile, print_machine, verdict

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TARGET_ABOVE_PYTHON = 0.25
TARGET_IMPORT = 0.15


def _run_seconds(command: Sequence[str], env: dict[str, str]) -> float:
    """Wall time of one run of ``command``, which must succeed."""
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _import_seconds(env: dict[str, str]) -> float:
    """``import cardproof`` as Python measures it in-process (no interpreter start)."""
    code = "import time; t = time.perf_counter(); import cardproof; print(time.perf_counter() - t)"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    return float(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=25, help="runs of each command")
    args = parser.parse_args()
    print_machine("cardproof command start-up (bench/cli.py)")
    vector = json.loads((ROOT / "tests/vectors/receipts.json").read_text())[0]
    folder = Path(tempfile.mkdtemp(prefix="cardproof-bench-cli-"))
    receipt, jwks = folder / "r.jws", folder / "keys.json"
    receipt.write_text(vector["receipt"])
    jwks.write_text(json.dumps(vector["jwks"]))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")  # compiled once, out of the tree
    python, cardproof = str(BIN / "python"), str(BIN / "cardproof")
    commands: dict[str, list[str]] = {
        "python -c pass": [python, "-c", "pass"],
        'python -c "import httpx"': [python, "-c", "import httpx"],
        "pip --version": [python, "-m", "pip", "--version"],
        "cardproof --version": [cardproof, "--version"],
        "cardproof --help": [cardproof, "--help"],
        "cardproof verify (offline)": [cardproof, "verify", str(receipt), "--jwks", str(jwks)],
        'python -c "import cardproof"': [python, "-c", "import cardproof"],
    }
    for command in commands.values():  # compile every module once, as an install would
        _run_seconds(command, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    imports: list[float] = []
    names = list(commands)
    for round_ in range(args.rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(_run_seconds(commands[name], env))
        imports.append(_import_seconds(env))
    floor = median(times["python -c pass"])
    print(f"{'command':<30} {'median':>9} {'p90':>9} {'above python':>13}  ({args.rounds} runs)")
    for name, values in times.items():
        above = median(values) - floor
        print(
            f"{name:<30} {median(values) * 1000:>7.0f} ms {percentile(values, 0.9) * 1000:>6.0f} ms"
            f" {above * 1000:>+10.0f} ms"
        )
    print(f"{'import cardproof (in-process)':<30} {median(imports) * 1000:>7.1f} ms")
    print()
    ok = True
    for name in ("cardproof --help", "cardproof verify (offline)"):
        above = median(times[name]) - floor
        met = above <= TARGET_ABOVE_PYTHON
        ok &= met
        print(verdict(name, met, f"{above:.3f} s above python -c pass (<= {TARGET_ABOVE_PYTHON})"))
    whole = median(times['python -c "import cardproof"'])
    met = median(imports) < TARGET_IMPORT
    ok &= met
    print(
        verdict(
            "import cardproof",
            met,
            f"{median(imports):.3f} s in-process, {whole:.3f} s with the interpreter "
            f"(< {TARGET_IMPORT})",
        )
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
