"""The ``cardproof`` command: ``serve`` really serves (what ``make run`` runs)."""

from __future__ import annotations

import httpx
import pytest

from cardproof.cli import build_parser
from conftest import served


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_answers_on_the_port_it_was_given(workers: str) -> None:
    with served("--workers", workers, "--log-level", "warning") as base_url:
        assert httpx.get(f"{base_url}/healthz").json() == {"status": "ok"}
        score = httpx.post(
            f"{base_url}/v1/score",
            json={"variant": "poker-squares", "layout": [["2C"] * 5] * 5},
        )
        assert score.status_code == 422
        assert score.json()["code"] == "duplicate-card"


def test_parser_defaults() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.workers) == ("127.0.0.1", 8000, 1)
    with pytest.raises(SystemExit):
        build_parser().parse_args([])
