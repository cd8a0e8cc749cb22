"""A header a request may name once, named twice: ``400 duplicate-header``, before any handler.

``Authorization`` and ``X-Invite-Code`` were refused when doubled; an ``Idempotency-Key``
sent twice was read first-wins, so a proxy reading the last copy and the service the
first would disagree on which request a retry repeats. It goes through the same check
(``site.safe_headers``), on every POST that honours a key. The requests go to a real
``cardproof serve`` over the wire: the in-process test client joins a doubled header's
copies into one before the app sees them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import served

KEY = "b7f3c1de-0d4e-4a8c-9f21-6c0e5a1d2b3f"
OTHER = "4e1f0a9b-77c2-4d3e-8a5b-2f6d9c0e1a7b"
DOUBLED = [
    (("Idempotency-Key", KEY), ("Idempotency-Key", OTHER)),
    (("Idempotency-Key", KEY), ("Idempotency-Key", KEY)),  # the same twice: once is enough
    (("Idempotency-Key", KEY), ("idempotency-key", OTHER)),  # names are case-blind
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, str]]:
    """A served app on the memory store and an organizer of it (its Authorization)."""
    organizers = tmp_path_factory.mktemp("organizers") / "organizers.json"
    env = {"REDIS_URL": "", "CARDPROOF_ORGANIZERS_FILE": str(organizers)}
    made = subprocess.run(
        [str(Path(sys.executable).parent / "cardproof"), "keys", "organizer", "create", "Club"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
        check=True,
    )
    with served("--log-level", "warning", env=env) as base, httpx.Client(base_url=base) as http:
        yield http, f"Bearer {made.stdout.strip()}"


def post(http: httpx.Client, path: str, body: dict[str, Any], *pairs: tuple[str, str]) -> Any:
    return http.post(path, json=body, headers=list(pairs))


def assert_duplicate(answer: httpx.Response) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert (problem["code"], problem["field"]) == ("duplicate-header", "idempotency-key")
    assert "more than once" in problem["detail"]


def tournament(http: httpx.Client, organizer: str) -> str:
    now = datetime.now(UTC)
    body = {
        "name": "Doubled Cup",
        "variant": "poker-squares",
        "rounds": 1,
        "opens_at": (now - timedelta(hours=1)).isoformat(),
        "closes_at": (now + timedelta(hours=24)).isoformat(),
        "format": "lockstep",
        "entry": "public",
    }
    made = http.post("/v1/tournaments", json=body, headers={"Authorization": organizer})
    assert made.status_code == 201, made.text
    tid: str = made.json()["tournament"]["tournament_id"]
    return tid


@pytest.mark.parametrize("keys", DOUBLED)
def test_a_doubled_idempotency_key_opens_no_deal(
    server: tuple[httpx.Client, str], keys: tuple[tuple[str, str], ...]
) -> None:
    http, _ = server
    assert_duplicate(post(http, "/v1/deals", {"variant": "poker-squares"}, *keys))
    once = post(http, "/v1/deals", {"variant": "poker-squares"}, ("Idempotency-Key", KEY))
    assert once.status_code == 201, once.text


@pytest.mark.parametrize("keys", DOUBLED)
def test_a_doubled_idempotency_key_enters_nobody(
    server: tuple[httpx.Client, str], keys: tuple[tuple[str, str], ...]
) -> None:
    http, organizer = server
    tid = tournament(http, organizer)
    path = f"/v1/tournaments/{tid}/entries"
    assert_duplicate(post(http, path, {"name": "Ada"}, *keys))
    assert http.get(f"/v1/tournaments/{tid}/standings").json()["entrants"] == []
    entered = post(http, path, {"name": "Ada"}, ("Idempotency-Key", KEY))
    assert entered.status_code == 201, entered.text  # the name was still free


def test_a_doubled_idempotency_key_opens_no_round_game(server: tuple[httpx.Client, str]) -> None:
    http, organizer = server
    tid = tournament(http, organizer)
    token = post(http, f"/v1/tournaments/{tid}/entries", {"name": "Bea"}).json()["token"]
    path = f"/v1/tournaments/{tid}/rounds/1/deal"
    auth = ("Authorization", f"Bearer {token}")
    assert_duplicate(post(http, path, {}, auth, *DOUBLED[0]))
    opened = post(http, path, {}, auth, ("Idempotency-Key", KEY))
    assert opened.status_code == 201, opened.text  # the doubled try opened nothing


def test_the_authorization_is_read_from_the_scope_in_any_case() -> None:
    from litestar import Request

    from cardproof_service.front.bodies import authorization_of

    def request(*headers: tuple[bytes, bytes]) -> Request[Any, Any, Any]:
        scope = {"type": "http", "method": "GET", "path": "/", "headers": list(headers)}
        return Request(scope)  # type: ignore[arg-type]

    assert authorization_of(request((b"Authorization", b"Bearer a"))) == "Bearer a"
    assert authorization_of(request((b"authorization", b"Bearer b"))) == "Bearer b"
    assert authorization_of(request((b"x-authorization", b"Bearer c"))) is None
    assert authorization_of(request((b"accept", b"*/*"))) is None
