"""How far ahead a tournament may be set: ten years, held at its edge.

The service takes times up to ten years of 366 days ahead (3,660 days: the README's "ten
years ahead", counted generously), so that a kept record's times stay dates a page can
show. The horizon is written here in days, not read from the service: a test that took
the constant would follow it wherever it went (a hundred years passed every test that
tried only the years 2300 and 9999).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from test_tournaments_api import HttpClient, new_tournament

TEN_YEARS = timedelta(days=10 * 366)
"""The horizon the README promises, as the service counts it."""


def create(client: HttpClient, owner: str, **times: datetime) -> Any:
    body = new_tournament(**{field: moment.isoformat() for field, moment in times.items()})
    return client.post("/v1/tournaments", json=body, headers={"Authorization": owner})


@pytest.mark.parametrize("field", ["closes_at", "opens_at"])
def test_ten_years_and_a_day_ahead_is_refused_naming_the_field(
    client: HttpClient, owner: str, field: str
) -> None:
    now = datetime.now(UTC)
    beyond = now + TEN_YEARS + timedelta(days=1)
    times = {"opens_at": now - timedelta(hours=1), "closes_at": beyond}
    if field == "opens_at":
        times = {"opens_at": beyond, "closes_at": beyond + timedelta(hours=1)}
    refused = create(client, owner, **times)
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert (problem["code"], problem["field"]) == ("bad-time", field)


def test_a_little_under_ten_years_ahead_is_taken(client: HttpClient, owner: str) -> None:
    now = datetime.now(UTC)
    within = now + timedelta(days=10 * 365)  # a few days short of ten calendar years
    made = create(client, owner, opens_at=within - timedelta(days=1), closes_at=within)
    assert made.status_code == 201, made.text
    closes_at = datetime.fromisoformat(made.json()["tournament"]["closes_at"])
    assert abs(closes_at - within) < timedelta(seconds=1)
