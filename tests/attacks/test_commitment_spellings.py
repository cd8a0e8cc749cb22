"""One commitment, one deal: a commitment id has exactly the one spelling it was issued in.

Base64 decoders forgive: ``+`` and ``/`` for ``-`` and ``_``, padding, white space, stray
low bits in the last character. Each forgiven spelling would have been another id with
another derived seed, so one commitment could open many "committed" deals and the player
could pick the best deck. Every other spelling is now an unknown commitment.
"""

from __future__ import annotations

from attack_kit import HttpClient
from cardproof.receipts import b64url, b64url_decode


def respellings(commitment_id: str) -> set[str]:
    """Other texts a lenient decoder reads as the same commitment."""
    body = commitment_id.removeprefix("c_")
    spelled = {
        "c_" + body.replace("-", "+").replace("_", "/"),
        "c_" + body + "=",
        "c_" + body + "==",
        "c_" + body + "\n",
        "c_" + body + " ",
        " c_" + body,
        "c_" + body[:10] + " " + body[10:],
        "c_" + body[:10] + "\n" + body[10:],
        "C_" + body,
        "c_" + body + "A",
        "c_" + body[:-1],
    }
    spelled.discard(commitment_id)
    return spelled


def test_a_commitment_opens_one_deal_under_one_spelling(client: HttpClient) -> None:
    issued: list[str] = []
    while not any(set("-_") & set(c[2:]) for c in issued):  # one with a character to re-spell
        issued.append(client.post("/v1/commitments", json={}).json()["commitment_id"])
    commitment_id = next(c for c in issued if set("-_") & set(c.removeprefix("c_")))
    opened = set()
    for spelling in sorted(respellings(commitment_id)):
        answer = client.post(
            "/v1/deals",
            json={
                "variant": "poker-squares",
                "commitment_id": spelling,
                "client_seed": "a seed of mine",
            },
        )
        assert answer.status_code in {400, 404}, (spelling, answer.text)
        if answer.status_code == 404:
            assert answer.json()["code"] == "unknown-commitment"
    first = client.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": commitment_id,
            "client_seed": "a seed of mine",
        },
    )
    assert first.status_code == 201
    opened.add(first.json()["deal_id"])
    for spelling in sorted(respellings(commitment_id)):  # and none after the first use either
        again = client.post(
            "/v1/deals",
            json={
                "variant": "poker-squares",
                "commitment_id": spelling,
                "client_seed": "a seed of mine",
            },
        )
        assert again.status_code in {400, 404}, (spelling, again.text)
    second = client.post(
        "/v1/deals",
        json={
            "variant": "poker-squares",
            "commitment_id": commitment_id,
            "client_seed": "a seed of mine",
        },
    )
    assert (second.status_code, second.json()["code"]) == (409, "commitment-used")
    assert len(opened) == 1


def test_base64url_has_one_spelling_per_value() -> None:
    for size in range(0, 40):
        raw = bytes(range(size))
        text = b64url(raw)
        assert b64url_decode(text) == raw
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        others = {text[:-1] + last for last in alphabet} - {text} if text else set()
        others |= {text + "=", text + "==", text + "\n", "+" + text, text.replace("-", "+")}
        for other in others - {text}:
            try:
                decoded = b64url_decode(other)
            except ValueError:
                continue
            assert decoded != raw, (text, other)  # another text never decodes to the same bytes
