"""Receipts: JWS structure, tampering, unknown and rotated keys, offline replay checks."""

from __future__ import annotations

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardproof.deal import seed_hash
from cardproof.games import PokerSquares
from cardproof.receipts import (
    JWKS,
    LEGACY_LINE_NAMES,
    RECEIPT_VERSION,
    CommitmentMismatchError,
    Expected,
    ReceiptError,
    ReceiptPayload,
    SigningKey,
    _sodium_signer,
    b64url,
    b64url_decode,
    decode_receipt,
    thumbprint,
    verify_receipt,
)

SEED = bytes(range(32))


def payload(**changes: object) -> ReceiptPayload:
    options = PokerSquares.parse_options(None)
    game = PokerSquares.new(PokerSquares.deal_cards(SEED, "client", options))
    while not game.is_over():
        game.play(game.legal_moves()[0])
    base = ReceiptPayload(
        version=RECEIPT_VERSION,
        variant="poker-squares",
        options=msgspec.to_builtins(options),
        deal_id="d_test",
        algorithm="cardproof-shuffle-v1",
        server_seed_hash=seed_hash(SEED),
        server_seed=SEED.hex(),
        client_seed="client",
        moves=game.log_text(),
        score=game.score(),
        blind=True,
        committed_before_client_seed=True,
        issued_at=1_700_000_000,
        kind="committed-blind",
    )
    return msgspec.structs.replace(base, **changes)


KEY = SigningKey.from_seed(bytes(32))
KEYS = JWKS(keys=[KEY.jwk()])


def test_rfc_8037_ed25519_vector() -> None:
    # RFC 8037 appendix A.4: the same key must give the RFC's signature
    key = SigningKey.from_seed(b64url_decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"))
    assert b64url(key.public_bytes) == "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    assert key.kid == thumbprint(key.public_bytes) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
    signing_input = b"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    expected = (
        "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
    )
    assert b64url(key._sign(signing_input)) == expected
    # both backends: libsodium (what the service signs with) and cryptography's OpenSSL
    seed = b64url_decode("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A")
    sodium = _sodium_signer(seed, key.public_bytes)
    assert sodium is not None, "the service extra installs PyNaCl: receipts sign with libsodium"
    assert b64url(sodium(signing_input)) == expected
    openssl = Ed25519PrivateKey.from_private_bytes(seed)
    assert b64url(openssl.sign(signing_input)) == expected


def test_header_names_alg_and_kid() -> None:
    token = KEY.sign(payload())
    header, body = decode_receipt(token)
    assert header == {"alg": "Ed25519", "kid": KEY.kid, "typ": "cardproof-receipt+jwt"}
    assert body == payload()
    assert KEY.sign(payload()) == token  # Ed25519 is deterministic: the same receipt again


def test_a_genuine_receipt_verifies_and_replays() -> None:
    verified = verify_receipt(KEY.sign(payload()), KEYS)
    assert verified.replayed
    assert verified.kid == KEY.kid
    assert verify_receipt(KEY.sign(payload()), msgspec.json.encode(KEYS)).replayed


def _swap_part(token: str, index: int, new: str) -> str:
    parts = token.split(".")
    parts[index] = new
    return ".".join(parts)


def test_any_alteration_fails_with_a_reason() -> None:
    token = KEY.sign(payload())
    altered_payload = b64url(msgspec.json.encode(payload(client_seed="someone else")))
    altered_header = b64url(
        b'{"alg":"Ed25519","kid":"' + KEY.kid.encode() + b'","typ":"cardproof-receipt+jwt","x":1}'
    )
    signature = token.rsplit(".", 1)[1]
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    cases = {
        "payload": _swap_part(token, 1, altered_payload),
        "header": _swap_part(token, 0, altered_header),
        "signature": _swap_part(token, 2, flipped),
    }
    for part, bad in cases.items():
        with pytest.raises(ReceiptError) as error:
            verify_receipt(bad, KEYS)
        assert error.value.code == "bad-signature", part
    with pytest.raises(ReceiptError) as malformed:
        verify_receipt("not.a-receipt", KEYS)
    assert malformed.value.code == "malformed"


def test_unknown_keys_fail_and_retired_keys_still_verify() -> None:
    stranger = SigningKey.generate()
    with pytest.raises(ReceiptError) as error:
        verify_receipt(stranger.sign(payload()), KEYS)
    assert error.value.code == "unknown-key"
    old, new = SigningKey.from_seed(b"\x01" * 32), SigningKey.from_seed(b"\x02" * 32)
    rotated = JWKS(keys=[new.jwk(), old.jwk()])  # what the service lists after a rotation
    assert verify_receipt(old.sign(payload()), rotated).replayed
    assert verify_receipt(new.sign(payload()), rotated).replayed


def test_a_signed_but_false_receipt_fails_the_replay() -> None:
    wrong_score = payload()
    lie = msgspec.structs.replace(wrong_score.score, total=wrong_score.score.total + 1)
    cases = {
        "score-mismatch": payload(score=lie),
        "seed-mismatch": payload(server_seed=bytes(32).hex()),
        "replay-failed": payload(moves="a1 a1"),
        "unknown-algorithm": payload(algorithm="cardproof-shuffle-v0"),
    }
    for code, bad in cases.items():
        with pytest.raises(ReceiptError) as error:
            verify_receipt(KEY.sign(bad), KEYS)
        assert error.value.code == code
    unrevealed = KEY.sign(payload(server_seed=None))  # a tournament's before the reveal
    with pytest.raises(ReceiptError) as error:
        verify_receipt(unrevealed, KEYS)  # its deck and score are unchecked: not a pass
    assert error.value.code == "seed-not-revealed"
    pending = verify_receipt(unrevealed, KEYS, signature_only=True)
    assert not pending.replayed  # accepted knowingly: the signature only


def test_a_version_2_receipt_with_its_old_line_names_still_verifies() -> None:
    """Version 2 named lines ``col 1`` and ``diagonal 1``; version 3 ``col a``, ``diagonal \\``."""
    current = payload(options={"scoring": "american", "diagonals": True})
    game = PokerSquares.new(
        PokerSquares.deal_cards(SEED, "client", PokerSquares.parse_options({"diagonals": True})),
        {"diagonals": True},
    )
    while not game.is_over():
        game.play(game.legal_moves()[0])
    current = msgspec.structs.replace(current, moves=game.log_text(), score=game.score())
    names = [hand.line for hand in current.score.hands]
    assert "col a" in names
    assert names[-2:] == ["diagonal \\", "diagonal /"]
    old_names = {new: old for old, new in LEGACY_LINE_NAMES.items()}
    legacy_score = msgspec.structs.replace(
        current.score,
        hands=tuple(
            msgspec.structs.replace(hand, line=old_names.get(hand.line, hand.line))
            for hand in current.score.hands
        ),
    )
    legacy = msgspec.structs.replace(current, version=2, score=legacy_score)
    assert verify_receipt(KEY.sign(current), KEYS).replayed
    assert verify_receipt(KEY.sign(legacy), KEYS).replayed  # issued before the renaming
    mixed = msgspec.structs.replace(legacy, version=RECEIPT_VERSION)  # old names, new version
    with pytest.raises(ReceiptError) as error:
        verify_receipt(KEY.sign(mixed), KEYS)
    assert error.value.code == "score-mismatch"
    with pytest.raises(ReceiptError) as unknown:
        verify_receipt(KEY.sign(msgspec.structs.replace(current, version=4)), KEYS)
    assert unknown.value.code == "bad-version"


def test_a_key_verifies_only_receipts_issued_in_its_period() -> None:
    """A retired key whose private half leaked cannot sign a receipt dated after it retired."""
    token = KEY.sign(payload(iat=1_700_000_000))
    jwk = KEY.jwk()

    def keys(**period: int) -> JWKS:
        return JWKS(keys=[msgspec.structs.replace(jwk, **period)])

    assert verify_receipt(token, keys(nbf=1_700_000_000, exp=1_700_000_001)).replayed
    for period in ({"exp": 1_700_000_000}, {"nbf": 1_700_000_001}, {"exp": 1_600_000_000}):
        with pytest.raises(ReceiptError) as error:
            verify_receipt(token, keys(**period))
        assert error.value.code == "key-not-valid", period
    # an older receipt (no iat) is dated by its issued_at
    legacy = KEY.sign(payload())
    with pytest.raises(ReceiptError, match="after key"):
        verify_receipt(legacy, keys(exp=1_700_000_000))
    # iat and issued_at must agree: a forger cannot pass one date to JWT tools, one to us
    with pytest.raises(ReceiptError, match="differ"):
        verify_receipt(KEY.sign(payload(iat=1_600_000_000)), keys(exp=1_650_000_000))


def test_a_receipt_names_its_type_and_issuer() -> None:
    token = KEY.sign(payload(iss="https://cards.example", iat=1_700_000_000))
    checked = verify_receipt(token, KEYS, expect=Expected(issuer="https://cards.example"))
    assert checked.payload.iss == "https://cards.example"
    with pytest.raises(CommitmentMismatchError) as error:
        verify_receipt(token, KEYS, expect=Expected(issuer="https://other.example"))
    assert error.value.field == "iss"
    body = token.split(".")[1]
    for typ in ("JWT", "dpop+jwt", None):
        fields = {"alg": "Ed25519", "kid": KEY.kid} | ({"typ": typ} if typ else {})
        other = b64url(msgspec.json.encode(fields))
        signing_input = f"{other}.{body}"
        forged = f"{signing_input}.{b64url(KEY._sign(signing_input.encode()))}"
        with pytest.raises(ReceiptError) as refused:
            verify_receipt(forged, KEYS)
        assert refused.value.code == "unsupported-typ", typ
    # receipts signed before receipts named their type still verify
    legacy = b64url(msgspec.json.encode({"alg": "Ed25519", "kid": KEY.kid, "typ": "JOSE"}))
    signing_input = f"{legacy}.{body}"
    old = f"{signing_input}.{b64url(KEY._sign(signing_input.encode()))}"
    assert verify_receipt(old, KEYS).replayed


@pytest.mark.parametrize(
    "changes",
    [
        {"variant": "serpent-patience", "options": {"scoring": "british"}},  # open: not blind
        {"kind": "tournament", "tournament": "t_x", "player": None},
        {"kind": "committed-blind", "player": "Ada"},
        {"kind": "committed-blind", "tournament": "t_x", "player": "Ada"},
    ],
)
def test_the_kind_agrees_with_the_game(changes: dict[str, object]) -> None:
    """An operator's receipt whose kind claims what its game is not."""
    with pytest.raises(ReceiptError) as error:
        verify_receipt(KEY.sign(payload(**changes)), KEYS)
    assert error.value.code == "kind-mismatch"


def test_a_signed_seed_has_one_spelling_and_no_extension_is_understood() -> None:
    upper = KEY.sign(payload(server_seed=SEED.hex().upper()))
    with pytest.raises(ReceiptError, match="lower-case") as error:
        verify_receipt(upper, KEYS)
    assert error.value.code == "seed-mismatch"
    body = KEY.sign(payload()).split(".")[1]
    header = {"alg": "Ed25519", "kid": KEY.kid, "typ": "cardproof-receipt+jwt", "crit": ["b64"]}
    signing_input = f"{b64url(msgspec.json.encode(header))}.{body}"
    critical = f"{signing_input}.{b64url(KEY._sign(signing_input.encode()))}"
    with pytest.raises(ReceiptError, match="critical") as error:
        verify_receipt(critical, KEYS)
    assert error.value.code == "malformed"
