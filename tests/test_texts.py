"""The API's texts for people: a 400 names the field and says in words what it takes.

Never an internal regular expression or a type name (``Expected `str` matching regex
'^(?:poker\\-squares|...'``): the detail says ``variant: expected one of poker-squares,
...``. Bodies, path, query and header parameters alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

HttpClient = TestClient[Litestar]
CELLS = " ".join(f"{c}{r}" for r in "12345" for c in "abcde")

BODIES: list[tuple[str, dict[str, Any], str, str]] = [
    ("/v1/deals", {"variant": "poker-square"}, "variant", "one of poker-squares, poker-patience"),
    ("/v1/deals", {"variant": "poker-squares", "client_seed": ""}, "client_seed", "text of length"),
    (
        "/v1/deals",
        {"variant": "poker-squares", "options": {"scoring": "bogus"}},
        "options.scoring",
        "'bogus' is not one of 'american', 'british', 'repeat', 'reserve', 'ameritish', "
        "'hypercorner', 'random', 'single-hand', or a custom table",
    ),
    (
        "/v1/deals",
        {"variant": "repeat-poker", "options": {"levels": 2}},
        "options.levels",
        "2 is not one of 1, 5",
    ),
    (
        "/v1/score",
        {"variant": "poker-squares", "layout": [["ZZ"] * 5] * 5},
        "layout[0][0]",
        "expected a card: rank (2-9, T or 10, J, Q, K, A) then suit",
    ),
    (
        "/v1/verify",
        {
            "variant": "poker-squares",
            "deal": {"server_seed": "xyz", "client_seed": "a"},
            "moves": CELLS,
        },
        "deal.server_seed",
        "expected 32 bytes as lower-case hex",
    ),
    ("/v1/solve", {"variant": "solodrez", "columns": [["Q3"]]}, "columns", "a list of length >= 9"),
    (
        "/v1/solve",
        {"variant": "serpent-patience", "cards": ["Q!"] * 25},
        "cards[0]",
        "expected a card of the variant's deck",
    ),
]


def plain(detail: str) -> None:
    """No regular expression, no type name, no msgspec wording."""
    for mark in ("regex", "(?", "^(", "`str`", "`int`", "`array`", "Expected `"):
        assert mark not in detail, detail


@pytest.mark.parametrize(("path", "body", "field", "words"), BODIES)
def test_a_bad_body_field_is_named_and_explained(
    client: HttpClient, path: str, body: dict[str, Any], field: str, words: str
) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == 400, answer.text
    problem = answer.json()
    assert problem["field"] == field
    assert problem["detail"].startswith(f"{field}: ")
    assert words in problem["detail"]
    plain(problem["detail"])


@pytest.mark.parametrize(
    ("path", "headers", "field", "words"),
    [
        ("/v1/tournaments/t_x/rounds/1/calls?after=-5", {}, "after", "a whole number >= -1"),
        (
            "/v1/tournaments/t_x/rounds/1/calls",
            {"Last-Event-ID": "abc"},
            "last_event_id",
            "the index of the last call received",
        ),
        ("/v1/tournaments/t_x/settlement?cursor=%25", {}, "cursor", "the next_cursor of the page"),
    ],
)
def test_a_bad_parameter_is_named_and_explained(
    client: HttpClient, path: str, headers: dict[str, str], field: str, words: str
) -> None:
    answer = client.get(path, headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["detail"].startswith(f"{field}: ")
    assert words in answer.json()["detail"]
    plain(answer.json()["detail"])


def test_every_pattern_field_of_every_request_body_is_explained(client: HttpClient) -> None:
    """A sweep: each string field the spec constrains (a pattern, an enum), sent a wrong value."""
    spec = client.get("/schema/openapi.json").json()
    schemas = spec["components"]["schemas"]
    sent = 0
    for path, operations in spec["paths"].items():
        body = operations.get("post", {}).get("requestBody", {})
        ref = body.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
        if not ref or "{" in path:
            continue
        schema = schemas[ref.rsplit("/", 1)[1]]
        for name, declared in schema.get("properties", {}).items():
            ref = declared.get("$ref", "")  # a named enum (VariantId) is a component
            field = schemas[ref.rsplit("/", 1)[1]] if ref else declared
            if field.get("type") != "string" or not ({"pattern", "enum"} & set(field)):
                continue
            answer = client.post(path, json={name: "\\u0000 not this"})
            if answer.status_code != 400 or not answer.json().get("detail", "").startswith(name):
                continue  # another field was refused first (a missing required one)
            plain(answer.json()["detail"])
            sent += 1
    assert sent >= 2  # the sweep reached fields (variant, on several paths)


def test_each_variant_lists_only_the_tables_it_takes(client: HttpClient) -> None:
    variants = {info["id"]: info for info in client.get("/v1/variants").json()}
    every = {"american", "british", "repeat", "reserve"}
    for grid in ("poker-squares", "poker-patience", "serpent-patience"):
        assert set(variants[grid]["tables"]) == every
    assert set(variants["repeat-poker"]["tables"]) == {"repeat"}
    assert set(variants["reserve-poker"]["tables"]) == {"reserve"}
    assert variants["solodrez"]["tables"] == {}


def test_information_is_given_per_option_where_it_differs(client: HttpClient) -> None:
    variants = {info["id"]: info for info in client.get("/v1/variants").json()}
    assert variants["reserve-poker"]["information"] == "hidden"
    assert variants["reserve-poker"]["information_by_option"] == {"version": {"5": "open"}}
    assert all(
        info["information_by_option"] == {}
        for name, info in variants.items()
        if name != "reserve-poker"
    )
    open_deal = client.post(
        "/v1/deals", json={"variant": "reserve-poker", "options": {"version": 5}}
    )
    reserve = open_deal.json()["view"]["reserve"]
    assert all(card is not None for column in reserve for card in column)  # as it says: open
