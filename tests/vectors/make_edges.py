"""Write ``receipt-edges-v1.json``: receipts at the edges of docs/protocol.md section 4.

Run from the repository root::

    .venv/bin/python tests/vectors/make_edges.py

Each case is a genuine receipt of ``receipts.json`` (R4, R8, R10) changed in one way,
then signed again with the test key (the Ed25519 seed of 32 zero bytes, as
``receipts.json``'s are), or a key set changed in one way. Each says which of the ten
questions of docs/protocol.md section 6.6 it answers and what ``verify_receipt`` gives:
the error ``code``, or ``null`` where the receipt verifies. Ed25519 signatures are
deterministic, so the file is the same on every run (``tests/test_receipt_edges.py``
checks that it is this script's output).

The Ed25519 cases carry ``openssl_accepts``: whether OpenSSL's own check (``cryptography``'s
``Ed25519PublicKey.verify``) passes the signature with the key, to show what the SDK's
stricter key check adds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from cardproof.edwards import IDENTITY, L, P, add, decode_point, encode_point, multiply
from cardproof.receipts import b64url, b64url_decode, thumbprint

HERE = Path(__file__).parent
OUTPUT = HERE / "receipt-edges-v1.json"
SEED = bytes(32)
"""The test signing key's Ed25519 seed (``conftest.TEST_KEYS``)."""
KEY = Ed25519PrivateKey.from_private_bytes(SEED)
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
"""A point of order 8 (canonical encoding)."""
_BASE = decode_point((4 * pow(5, -1, P) % P).to_bytes(32, "little"))
assert _BASE is not None
BASE = _BASE
"""The base point B (RFC 8032 section 5.1)."""
Json = dict[str, Any]


def base(client_seed: str) -> Json:
    """The genuine entry of ``receipts.json`` with this client seed."""
    entries = json.loads((HERE / "receipts.json").read_text(encoding="utf-8"))
    return next(e for e in entries if e["client_seed"] == client_seed and "lie" not in e)


def parts(entry: Json) -> tuple[bytes, bytes]:
    """The header and payload bytes of an entry's receipt."""
    head, body, _ = entry["receipt"].split(".")
    return b64url_decode(head), b64url_decode(body)


def signed(header: bytes, payload: bytes) -> str:
    """A compact JWS of these exact bytes, signed with the test key."""
    signing_input = f"{b64url(header)}.{b64url(payload)}"
    return f"{signing_input}.{b64url(KEY.sign(signing_input.encode('ascii')))}"


def compact(value: Any) -> bytes:
    """JSON as the service writes it: no spaces, UTF-8 as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def edited(entry: Json, change: Callable[[Json], None]) -> str:
    """The entry's receipt with its payload changed (as JSON) and signed again."""
    header, payload = parts(entry)
    value = json.loads(payload)
    change(value)
    return signed(header, compact(value))


def replaced(entry: Json, old: bytes, new: bytes, *, header: bool = False) -> str:
    """The entry's receipt with bytes of its payload (or header) replaced, signed again."""
    head, payload = parts(entry)
    target = head if header else payload
    assert old in target, old
    target = target.replace(old, new, 1)
    return signed(target, payload) if header else signed(head, target)


def openssl_accepts(token: str, x: bytes) -> bool:
    """Whether OpenSSL alone (through ``cryptography``) passes the signature with key ``x``."""
    signing_input, _, signature = token.rpartition(".")
    try:
        Ed25519PublicKey.from_public_bytes(x).verify(
            b64url_decode(signature), signing_input.encode("ascii")
        )
    except InvalidSignature:
        return False
    return True


def with_key(entry: Json, x: bytes, payload: bytes, signature: bytes) -> tuple[str, Json]:
    """A receipt whose header names key ``x`` (by its thumbprint), and a key set holding it."""
    kid = thumbprint(x)
    header = json.loads(parts(entry)[0]) | {"kid": kid}
    token = f"{b64url(compact(header))}.{b64url(payload)}.{b64url(signature)}"
    key = {"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64url(x), "use": "sig"}
    return token, {"keys": [key | {"alg": "Ed25519"}]}


def ed25519_cases(entry: Json) -> list[Json]:
    """Question 4: what an Ed25519 key and signature are at the edges."""
    token = entry["receipt"]
    head, body, signature = token.split(".")
    raw = b64url_decode(signature)
    s = int.from_bytes(raw[32:], "little")
    malleable = f"{head}.{body}.{b64url(raw[:32] + (s + L).to_bytes(32, 'little'))}"
    # [1]B = R + [k]A holds for R = B, S = 1 whenever [k]A is the identity: with the
    # identity as A, for every message. OpenSSL takes it.
    universal = encode_point(BASE) + (1).to_bytes(32, "little")
    cases = [
        {
            "name": "signature-s-not-below-l",
            "about": "the genuine signature with L added to S: the same point, a second "
            "spelling (S >= L); OpenSSL refuses it, so does the SDK",
            "receipt": malleable,
            "jwks": entry["jwks"],
            "code": "bad-signature",
            "openssl_accepts": openssl_accepts(
                malleable, b64url_decode(entry["jwks"]["keys"][0]["x"])
            ),
        }
    ]
    payload = parts(entry)[1]
    for name, x, about in (
        (
            "key-identity",
            encode_point(IDENTITY),
            "the identity as the key: S = 1, R = B verifies every message under OpenSSL",
        ),
        (
            "key-identity-non-canonical",
            (P + 1).to_bytes(32, "little"),
            "the identity spelt with y = p + 1 (not canonical: y >= p)",
        ),
        (
            "key-order-4",
            bytes(32),
            "a point A of order 4 (y = 0) as the key (OpenSSL passes S = 1, R = B when 4 "
            "divides k, for a quarter of messages; not this one)",
        ),
    ):
        receipt, jwks = with_key(entry, x, payload, universal)
        cases.append(
            {
                "name": name,
                "about": about,
                "receipt": receipt,
                "jwks": jwks,
                "code": "unknown-key",
                "openssl_accepts": openssl_accepts(receipt, x),
            }
        )
    cases.append(mixed_order(entry))
    return cases


def mixed_order(entry: Json) -> Json:
    """A key A + T (T of order 8), signed so that OpenSSL's cofactorless check passes.

    Signed with the test key's scalar a and the hash over A + T; ``[S]B = R + [k]A`` and
    ``[k]T`` is the identity when 8 divides k: the payload's unknown member ``n`` is
    counted up until it does.
    """
    digest = hashlib.sha512(SEED).digest()
    scalar = int.from_bytes(digest[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    public = decode_point(b64url_decode(entry["jwks"]["keys"][0]["x"]))
    torsion = decode_point(ORDER_8)
    assert public is not None
    assert torsion is not None
    x = encode_point(add(public, torsion))
    header = json.loads(parts(entry)[0]) | {"kid": thumbprint(x)}
    value = json.loads(parts(entry)[1])
    for n in range(1000):
        payload = compact(value | {"n": n})
        message = f"{b64url(compact(header))}.{b64url(payload)}".encode("ascii")
        r = int.from_bytes(hashlib.sha512(digest[32:] + message).digest(), "little") % L
        big_r = encode_point(multiply(r, BASE))
        k = int.from_bytes(hashlib.sha512(big_r + x + message).digest(), "little") % L
        if k % 8 == 0:
            signature = big_r + ((r + k * scalar) % L).to_bytes(32, "little")
            receipt, jwks = with_key(entry, x, payload, signature)
            return {
                "name": "key-mixed-order",
                "about": "the test key plus a point of order 8: not in the group of order "
                "L; OpenSSL's cofactorless check passes this signature, the SDK refuses "
                "the key",
                "receipt": receipt,
                "jwks": jwks,
                "code": "unknown-key",
                "openssl_accepts": openssl_accepts(receipt, x),
            }
    raise AssertionError("no n gave 8 | k")


def build() -> Json:
    """Every case, in question order."""
    r8, ladder, reserve = base("a named issuer"), base("a ladder of levels"), base("gravity")
    key = r8["jwks"]["keys"][0]
    issued = json.loads(parts(r8)[1])["issued_at"]
    cases: list[tuple[int, Json]] = []

    def case(
        question: int,
        name: str,
        about: str,
        receipt: str,
        code: str | None,
        jwks: Json | None = None,
        entry: Json = r8,
    ) -> None:
        cases.append(
            (
                question,
                {
                    "name": name,
                    "about": about,
                    "receipt": receipt,
                    "jwks": jwks or entry["jwks"],
                    "code": code,
                },
            )
        )

    def hand(change: Callable[[Json], None]) -> Callable[[Json], None]:
        return lambda p: change(p["score"]["hands"][0])

    # 1. score members a variant does not have, and null
    case(
        1,
        "grid-hand-with-level",
        'a poker-squares hand with "level": 1 (a member only repeat-poker has)',
        edited(r8, hand(lambda h: h.update(level=1))),
        "score-mismatch",
    )
    case(
        1,
        "grid-hand-level-null",
        'a poker-squares hand with "level": null',
        edited(r8, hand(lambda h: h.update(level=None))),
        "malformed",
    )
    case(
        1,
        "grid-score-with-won",
        'a poker-squares score with "won": false (a member only solodrez has)',
        edited(r8, lambda p: p["score"].update(won=False)),
        "score-mismatch",
    )
    case(
        1,
        "grid-score-won-null",
        'a poker-squares score with "won": null',
        edited(r8, lambda p: p["score"].update(won=None)),
        "malformed",
    )
    case(
        1,
        "ladder-levels-null",
        'repeat-poker\'s ladder with "levels": null',
        edited(ladder, lambda p: p["score"].update(levels=None)),
        "malformed",
        entry=ladder,
    )
    case(
        1,
        "ladder-without-levels",
        'repeat-poker\'s ladder with "levels" left out',
        edited(ladder, lambda p: p["score"].pop("levels")),
        "score-mismatch",
        entry=ladder,
    )
    case(
        1,
        "score-unknown-member",
        'a member no score has ("note"): ignored',
        edited(r8, lambda p: p["score"].update(note=None)),
        None,
    )

    def no_player(p: Json) -> None:
        del p["player"], p["tournament"]

    case(
        1,
        "payload-player-left-out",
        'the payload without "player" and "tournament" (optional: absent reads as null)',
        edited(r8, no_player),
        None,
    )
    # 2. "random" inside a receipt
    case(
        2,
        "reserve-version-random",
        'reserve-poker with "version": "random": a receipt carries the number rolled',
        edited(reserve, lambda p: p["options"].update(version="random")),
        "replay-failed",
        entry=reserve,
    )
    # 3. kid, key entries, null nbf and exp
    keyless = {"keys": [{k: v for k, v in key.items() if k != "kid"}]}
    case(
        3,
        "header-without-kid",
        "a header without kid, and a key set whose key has no "
        "kid: a header's kid is a string, a key without one is never picked",
        replaced(r8, b'"kid":"' + key["kid"].encode() + b'",', b"", header=True),
        "malformed",
        keyless,
    )
    case(
        3,
        "header-kid-number",
        '"kid": 5 in the header',
        replaced(r8, b'"kid":"' + key["kid"].encode() + b'"', b'"kid":5', header=True),
        "malformed",
    )
    case(
        3,
        "key-not-an-object",
        "a key set whose first entry is 5, the right key second",
        r8["receipt"],
        "bad-jwks",
        {"keys": [5, key]},
    )
    case(
        3,
        "key-nbf-null",
        'the key with "nbf": null',
        r8["receipt"],
        "bad-jwks",
        {"keys": [key | {"nbf": None}]},
    )
    case(
        3,
        "key-exp-null",
        'the key with "exp": null',
        r8["receipt"],
        "bad-jwks",
        {"keys": [key | {"exp": None}]},
    )
    # 4. Ed25519 at the edges
    for each in ed25519_cases(r8):
        cases.append((4, each))
    # 5. white space between moves
    moves = json.loads(parts(r8)[1])["moves"]
    first, second = moves.split(" ")[:2]
    pair = f"{first} {second}".encode()
    for name, space, about in (
        ("moves-tab", b"\\t", "a tab between two moves"),
        ("moves-two-spaces", b"  ", "two spaces between two moves"),
        ("moves-no-break-space", "\u00a0".encode(), "U+00A0 between two moves"),
        ("moves-ideographic-space", "\u3000".encode(), "U+3000 between two moves"),
    ):
        case(
            5,
            name,
            about,
            replaced(r8, pair, first.encode() + space + second.encode()),
            "replay-failed",
        )
    for name, around, about in (
        ("token-in-line-breaks", "\r\n\t ", "CR LF, a tab and a space around the token: stripped"),
        ("token-in-no-break-space", "\u00a0", "U+00A0 around the token: not white space here"),
        ("token-after-bom", "\ufeff", "U+FEFF before the token"),
    ):
        case(
            5,
            name,
            about,
            around + r8["receipt"] + around.strip("\ufeff"),
            None if around.strip(" \t\r\n") == "" else "malformed",
        )
    case(
        5,
        "moves-leading-space",
        "a space before the first move",
        replaced(r8, b'"moves":"', b'"moves":" '),
        "replay-failed",
    )
    # 6. upper case moves
    case(
        6,
        "moves-upper-case-cell",
        f"{first.upper()} for {first}",
        replaced(r8, b'"moves":"' + first.encode(), b'"moves":"' + first.upper().encode()),
        "replay-failed",
    )
    case(
        6,
        "moves-upper-case-row",
        "R1 for r1 (repeat-poker)",
        replaced(ladder, b'"moves":"r1', b'"moves":"R1'),
        "replay-failed",
        entry=ladder,
    )

    # 8. levels 5 and rows
    def rows_of(n: int) -> Callable[[Json], None]:
        return lambda p: p["options"].update(rows=n)

    for rows in (4, 1):
        case(
            8,
            f"ladder-rows-{rows}",
            f'"levels": 5 with "rows": {rows}',
            edited(ladder, rows_of(rows)),
            "replay-failed",
            entry=ladder,
        )
    case(
        8,
        "ladder-rows-left-out",
        '"levels": 5 with "rows" left out: 5, the same options',
        edited(ladder, lambda p: p["options"].pop("rows")),
        None,
        entry=ladder,
    )
    # 9. integers
    most = 2**53 - 1

    def dated(date: int) -> Callable[[Json], None]:
        return lambda p: p.update(issued_at=date, iat=date)

    case(
        9,
        "issued-at-beyond-2-53",
        "issued_at and iat 2^53",
        edited(r8, dated(most + 1)),
        "malformed",
    )
    case(
        9,
        "issued-at-2-53-minus-1",
        "issued_at and iat 2^53 - 1: read, and in the future",
        edited(r8, dated(most)),
        "key-not-valid",
    )
    case(9, "issued-at-negative", "issued_at and iat -1", edited(r8, dated(-1)), "malformed")
    case(
        9, "issued-at-zero", "issued_at and iat 0 (the key has no nbf)", edited(r8, dated(0)), None
    )
    case(
        9,
        "unknown-member-beyond-2-53",
        "a member no payload has, 2^64",
        edited(r8, lambda p: p.update(note=2**64)),
        "malformed",
    )
    case(
        9,
        "total-beyond-2-53",
        "the score's total 2^53 + the true total",
        edited(r8, lambda p: p["score"].update(total=p["score"]["total"] + 2**53)),
        "malformed",
    )
    case(
        9,
        "key-nbf-beyond-2-53",
        'the key with "nbf": 2^53',
        r8["receipt"],
        "bad-jwks",
        {"keys": [key | {"nbf": most + 1}]},
    )
    case(
        9,
        "key-exp-negative",
        'the key with "exp": -1',
        r8["receipt"],
        "bad-jwks",
        {"keys": [key | {"exp": -1}]},
    )
    case(
        9,
        "key-period-exact",
        'the key with "nbf" the receipt\'s date and "exp" one second later',
        r8["receipt"],
        None,
        {"keys": [key | {"nbf": issued, "exp": issued + 1}]},
    )
    # 10. UTF-8
    seed = json.loads(parts(r8)[1])["client_seed"].encode()
    for name, bad, about in (
        ("utf8-invalid-byte", b"\xff", "byte FF inside client_seed"),
        ("utf8-surrogate", b"\xed\xa0\x80", "U+D800 encoded as UTF-8 (ED A0 80)"),
        ("utf8-overlong", b"\xc0\xaf", "an overlong '/' (C0 AF)"),
        ("utf8-truncated", b"\xe6\x97", "a three-byte sequence cut after two bytes"),
    ):
        case(
            10,
            name,
            about + " (the payload)",
            replaced(r8, b'"' + seed + b'"', b'"' + seed + bad + b'"'),
            "malformed",
        )
    case(
        10,
        "utf8-invalid-in-unknown-member",
        "byte FF in a member no payload has",
        replaced(r8, b'"version":3,', b'"note":"\xff","version":3,'),
        "malformed",
    )
    case(
        10,
        "utf8-invalid-in-header",
        "byte FF in a header member no one reads",
        replaced(r8, b'"alg":', b'"note":"\xff","alg":', header=True),
        "malformed",
    )
    case(
        10,
        "lone-surrogate-escape",
        "the escape \\ud800 alone inside client_seed",
        replaced(r8, b'"' + seed + b'"', b'"' + seed + b'\\ud800"'),
        "malformed",
    )
    case(
        10,
        "byte-order-mark",
        "the payload starting with EF BB BF",
        signed(parts(r8)[0], b"\xef\xbb\xbf" + parts(r8)[1]),
        "malformed",
    )
    case(
        10,
        "surrogate-pair-escape",
        "an escaped surrogate pair (\\ud83c\\udca1, a card) "
        "in a member no payload has: well-formed",
        replaced(r8, b'"version":3,', b'"note":"\\ud83c\\udca1","version":3,'),
        None,
    )
    return {
        "description": "Receipts at the edges of docs/protocol.md section 4, one or more "
        "for each question of section 6.6: what verify_receipt gives (an error code, or "
        "null: it verifies). Written by make_edges.py; signed with the Ed25519 seed of 32 "
        "zero bytes.",
        "cases": [{"question": q, **c} for q, c in sorted(cases, key=lambda qc: qc[0])],
    }


def main() -> None:
    """Write the file (the same bytes on every run)."""
    OUTPUT.write_text(json.dumps(build(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(build()['cases'])} cases to {OUTPUT}")


if __name__ == "__main__":
    main()
