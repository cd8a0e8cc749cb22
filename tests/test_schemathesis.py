"""Schemathesis over the whole spec, every check, against the app in-process.

Generated requests that match the schema may still break a rule (duplicate cards,
illegal moves): the API answers those 422 by design, so 422 is added to the statuses
the positive-data check accepts. A schema-violating body that is also too large is
refused with 413 before it is read, and one sent to an organizer endpoint without a
key with 401 before it is read, so both count as rejections. Every request carries a
valid organizer key (schemathesis cannot make one), so organizer endpoints are tested
past their door; the 401s and 403s have tests of their own. Everything else is
schemathesis' defaults.

``tests/test_schemathesis_cli.py`` runs the schemathesis CLI against a real server with
the shipped ``schemathesis.toml``: the examples, the coverage phase's valid boundaries,
five fuzzed cases per operation and the stateful phase. Here, in-process and with no
rate limit, go what that quick run leaves out: the coverage phase's invalid boundaries
(each bound of each field broken in turn) and deeper fuzzing.
"""

from __future__ import annotations

import asyncio
from typing import Any

import schemathesis
from schemathesis.config import SchemathesisConfig

from cardproof_service import Settings, create_app
from cardproof_service.tournaments.organizers import new_organizer
from conftest import TEST_KEYS, UNLIMITED

CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "401", "403", "404", "409", "422", "429"]
            },
            # a body over the size limit is rejected with 413 before it is read
            "negative_data_rejection": {
                "expected-statuses": [
                    "400",
                    "401",
                    "404",
                    "405",
                    "406",
                    "409",
                    "413",
                    "415",
                    "422",
                ]
            },
        },
        "generation": {"mode": "all", "max-examples": 40},
    }
)

APP = create_app(Settings(warm_up=False, **UNLIMITED), keys=TEST_KEYS)
ORGANIZER_KEY, ORGANIZER = new_organizer("Schemathesis")
asyncio.run(APP.state.store.add_organizer(ORGANIZER))
schema = schemathesis.openapi.from_asgi("/schema/openapi.json", APP, config=CONFIG)


@schema.parametrize()
def test_api_conforms_to_its_spec(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {ORGANIZER_KEY}"})
