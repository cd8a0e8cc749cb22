"""Signed receipts: compact JWS (RFC 7515) signed with Ed25519 (RFC 9864), and JWKS.

A receipt states who played what on which deal and what it scored. Anyone can check
one offline with :func:`verify_receipt`: the signature against a JWKS (by ``kid``,
the RFC 7638 thumbprint of the key), then, once the server seed is revealed, that
it hashes to the committed value, that it re-derives the deck, and that replaying the
log gives exactly the score the receipt states.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from cardproof.deal import ALGORITHM
from cardproof.edwards import is_strict_public_key
from cardproof.errors import CardproofError, ParseError, RuleError
from cardproof.games import replay_log, variant
from cardproof.hands import HandScore, Score
from cardproof.tables import is_generated

SIGNATURE_BYTES: Final = 64
"""An Ed25519 signature's length (RFC 8032)."""
RECEIPT_VERSION: Final = 3
"""Version 3 names lines as cells are (``col a``, ``diagonal \\``); version 2 said
``col 1`` and ``diagonal 1``: such receipts still verify (:data:`LEGACY_LINE_NAMES`)."""
SUPPORTED_VERSIONS: Final = frozenset({2, RECEIPT_VERSION})
LEGACY_LINE_NAMES: Final = {
    **{f"col {n}": f"col {letter}" for n, letter in enumerate("abcde", start=1)},
    "diagonal 1": "diagonal \\",
    "diagonal 2": "diagonal /",
}
"""A version 2 receipt's line names, as version 3 writes them. (Version 2 added ``kind``;
a version 1 receipt cannot say what it proves and is refused.)"""
ALG: Final = "Ed25519"
TYP: Final = "cardproof-receipt+jwt"
"""The header's ``typ`` (explicit typing, RFC 8725 section 3.11): this JWT is a receipt."""
EMBEDDED_ISSUER: Final = "urn:cardproof:embedded"
"""The ``iss`` of a receipt signed by an embedded server (``cardproof play`` or ``bots run``
without ``--url``): a key made for one run, in one process; no service on the network
vouches for it, and only the key set written beside the receipt checks it."""
LEGACY_TYP: Final = "JOSE"
"""The ``typ`` of receipts signed before receipts named their own (still verified)."""

ReceiptKind = Literal["committed-blind", "committed-open", "casual", "practice", "tournament"]
"""What a receipt proves.

- ``committed-blind``: a committed deal of a hidden variant, each card revealed only
  once the one before it was placed;
- ``committed-open``: a committed deal of an open variant (every card shown from the
  start, so nothing to hide);
- ``tournament``: a tournament round's game, dealt from a seed committed to when the
  tournament was created (blind for a hidden variant);
- ``casual``: a deal opened without a commitment: the server chose its seed after it
  knew the client seed, so it proves the score, not that the deck was fair;
- ``practice``: a log replayed on a seed pair the caller chose: it proves the arithmetic
  only (anyone can search seeds offline for a good deck).
"""
RECEIPT_KINDS: Final[tuple[ReceiptKind, ...]] = (
    "committed-blind",
    "committed-open",
    "tournament",
    "casual",
    "practice",
)
COMMITTED_KINDS: Final[frozenset[ReceiptKind]] = frozenset(
    {"committed-blind", "committed-open", "tournament"}
)
"""The kinds a verifier accepts by default: the deck was fixed before the player chose."""


class ReceiptError(CardproofError):
    """A receipt that does not verify; ``code`` says which check failed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ReceiptPayload(msgspec.Struct, frozen=True):
    """What a receipt attests (docs/protocol.md section 4).

    ``server_seed`` is ``null`` until it is revealed; ``blind`` says whether hidden cards
    were revealed one move at a time; ``committed_before_client_seed`` whether the server
    committed to its seed before it knew the client seed.
    """

    version: int
    variant: str
    options: dict[str, Any]
    deal_id: str | None
    algorithm: str
    server_seed_hash: str
    server_seed: str | None
    client_seed: str
    moves: str
    score: Score
    blind: bool
    committed_before_client_seed: bool
    issued_at: int
    """Seconds since the Unix epoch."""
    kind: ReceiptKind | None = None
    """What the receipt proves (:data:`ReceiptKind`); ``None`` only in version 1."""
    player: str | None = None
    tournament: str | None = None
    auto_placed: list[int] | None = None
    """In a lockstep round: the move indices placed for the player when their deadline
    passed (the variant's first legal move); ``None`` outside lockstep rounds."""
    iss: str | None = None
    """The issuer (RFC 7519 ``iss``): the service's public base URL, whose
    ``/.well-known/jwks.json`` holds the key. ``None`` in receipts signed before it."""
    iat: int | None = None
    """``issued_at`` under its JWT name (RFC 7519 ``iat``), for standard JWT readers;
    when present it must equal ``issued_at``."""

    @property
    def issued(self) -> int:
        """When the receipt was issued: ``iat``, or ``issued_at`` in older receipts."""
        return self.issued_at if self.iat is None else self.iat


KeyId = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[!-~]{1,256}(?![\s\S])",
        description="A key id: 1 to 256 printable ASCII characters (cardproof's are RFC 7638 "
        "thumbprints, 43 base64url characters).",
    ),
]
"""A JWK's ``kid`` in a key set read: no space, control or other hidden character."""


class JWK(msgspec.Struct, frozen=True, omit_defaults=True):
    """A JSON Web Key; receipts are checked only against Ed25519 ones (RFC 8037)."""

    kty: str
    kid: KeyId | None = None
    crv: str | None = None
    x: str | None = None
    use: str | None = None
    alg: str | None = None
    nbf: int | None = None
    """The key signs receipts issued at or after this time (seconds since the epoch)."""
    exp: int | None = None
    """The key was retired at this time: it signs no receipt issued at or after it. Its
    older receipts still verify (the key stays in the set, as a historical key)."""


class JWKS(msgspec.Struct, frozen=True):
    """A JSON Web Key Set: every key whose receipts should verify."""

    keys: list[JWK]


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 section 2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


_B64URL: Final = re.compile(r"[A-Za-z0-9_-]*")


def b64url_decode(text: str) -> bytes:
    r"""Inverse of :func:`b64url`, strictly: only the one canonical spelling decodes.

    Padding, ``+`` and ``/``, white space, and a last character with stray low bits are
    all ``ValueError``: one value, one text, so nothing signed or issued can be re-spelled.

    >>> b64url_decode("_-8")
    b'\xff\xef'
    >>> for text in ("_-9", "/+8", "_-8=", "_-8\n", "_ -8"):
    ...     try:
    ...         b64url_decode(text)
    ...     except ValueError:
    ...         print("refused", repr(text))
    refused '_-9'
    refused '/+8'
    refused '_-8='
    refused '_-8\n'
    refused '_ -8'
    """
    if not isinstance(text, str) or not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as error:
        raise ValueError("not base64url") from error
    if b64url(raw) != text:  # unused low bits of the last character set: another spelling
        raise ValueError("not canonical base64url")
    return raw


def thumbprint(public_key: bytes) -> str:
    """RFC 7638 thumbprint of an Ed25519 public key: the JWK's ``kid``.

    The example key and thumbprint are RFC 8037's (appendix A.2 and A.3):

    >>> thumbprint(b64url_decode("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"))
    'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k'
    """
    members = json.dumps(
        {"crv": "Ed25519", "kty": "OKP", "x": b64url(public_key)}, separators=(",", ":")
    )
    return b64url(hashlib.sha256(members.encode()).digest())


def public_jwk(public_key: bytes, *, nbf: int | None = None, exp: int | None = None) -> JWK:
    """The JWK of a raw 32-byte Ed25519 public key, valid for receipts issued in [nbf, exp)."""
    return JWK(
        kty="OKP",
        kid=thumbprint(public_key),
        crv="Ed25519",
        x=b64url(public_key),
        use="sig",
        alg=ALG,
        nbf=nbf,
        exp=exp,
    )


def _sodium_signer(seed: bytes, public: bytes) -> Callable[[bytes], bytes] | None:
    """Ed25519 signing by libsodium (PyNaCl, in the service extra), or ``None`` without it.

    Ed25519 signatures are deterministic, so both backends give the same bytes; libsodium
    takes about 16 us a receipt where OpenSSL through cryptography takes about 25.
    """
    try:
        from nacl.bindings import crypto_sign
    except ImportError:  # pragma: no cover - the SDK alone signs with cryptography
        return None
    secret = seed + public  # libsodium's secret key: the seed, then the public key

    def sign(message: bytes) -> bytes:
        return crypto_sign(message, secret)[:64]  # the signature, then the message

    return sign


class SigningKey:
    """An Ed25519 private key that signs receipts; its ``kid`` is its thumbprint."""

    def __init__(self, private_key: Ed25519PrivateKey, *, since: int | None = None) -> None:
        """Wrap a private key (see :meth:`from_seed` and :meth:`generate`).

        ``since`` is when it began signing (its JWK's ``nbf``), if the operator said.
        """
        self.since = since
        self.public_bytes = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        seed = private_key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        self._sign: Callable[[bytes], bytes] = (
            _sodium_signer(seed, self.public_bytes) or private_key.sign
        )
        self.kid = thumbprint(self.public_bytes)
        header = msgspec.json.encode({"alg": ALG, "kid": self.kid, "typ": TYP})
        self._header = b64url(header)  # the same for every receipt this key signs

    @classmethod
    def from_seed(cls, seed: bytes, *, since: int | None = None) -> SigningKey:
        """The key with this 32-byte private seed."""
        return cls(Ed25519PrivateKey.from_private_bytes(seed), since=since)

    @classmethod
    def generate(cls) -> SigningKey:
        """A fresh random key."""
        return cls(Ed25519PrivateKey.generate())

    def jwk(self) -> JWK:
        """The public half, as a JWK."""
        return public_jwk(self.public_bytes, nbf=self.since)

    def sign(self, payload: ReceiptPayload) -> str:
        """The compact JWS of ``payload`` (deterministic: Ed25519 signatures are)."""
        signing_input = f"{self._header}.{b64url(msgspec.json.encode(payload))}"
        return f"{signing_input}.{b64url(self._sign(signing_input.encode('ascii')))}"


TOKEN_SPACE: Final = " \t\n\r"
"""The white space a token may have around it (JSON's four; not U+00A0, U+FEFF...)."""
SAFE_INTEGER: Final = 2**53 - 1
"""The largest magnitude of an integer in a receipt or a key set (I-JSON, RFC 7493
section 2.2): every JSON number library reads such integers exactly."""
_SCORE_MEMBERS: Final = frozenset(f.encode_name for f in msgspec.structs.fields(Score))
_HAND_MEMBERS: Final = frozenset(f.encode_name for f in msgspec.structs.fields(HandScore))
_JWK_MEMBERS: Final = ("kty", "kid", "crv", "x", "use", "alg", "nbf", "exp")


def read_json(data: bytes | str) -> Any:
    r"""A receipt part or a key set as JSON, strictly (``ValueError`` otherwise).

    The bytes are UTF-8 exactly as Python's strict codec reads it (no overlong forms, no
    encoded surrogates, no byte that is not UTF-8), all of them, members a reader
    ignores included; no byte order mark; no lone surrogate escape (``\ud800``); every
    integer from ``-(2**53 - 1)`` to ``2**53 - 1`` (:data:`SAFE_INTEGER`).

    >>> read_json(b'{"a": [1, -9007199254740991]}')
    {'a': [1, -9007199254740991]}
    >>> for bad in (b'{"a": 9007199254740992}', b'{"a": "\xff"}', b'\xef\xbb\xbf{}'):
    ...     try:
    ...         read_json(bad)
    ...     except ValueError:
    ...         print("refused")
    refused
    refused
    refused
    """
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as error:
        raise ValueError(str(error)) from None
    check_integers(value)
    return value


def check_integers(value: Any) -> None:
    """``ValueError`` if a JSON value holds an integer beyond :data:`SAFE_INTEGER`."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > SAFE_INTEGER:
            raise ValueError(f"the integer {item} is beyond 2**53 - 1 (I-JSON)")


def _check_score_nulls(payload: Any) -> None:
    """``ValueError`` for a ``null`` score member the SDK knows: absent, or of its type."""
    score = payload.get("score") if isinstance(payload, dict) else None
    if not isinstance(score, dict):
        return  # the typed decode refuses it
    for name in _SCORE_MEMBERS:
        if name in score and score[name] is None:
            raise ValueError(f"score.{name} is null: a score member is absent or of its type")
    for index, hand in enumerate(score.get("hands") or ()):
        for name in _HAND_MEMBERS:
            if isinstance(hand, dict) and name in hand and hand[name] is None:
                raise ValueError(
                    f"score.hands[{index}].{name} is null: a hand member is absent or of its type"
                )


def decode_receipt(token: str) -> tuple[dict[str, Any], ReceiptPayload]:
    """The header and payload of a receipt, NOT verified (``ReceiptError`` if malformed).

    Each part is read by :func:`read_json`; the payload then by its type
    (:class:`ReceiptPayload`), with no ``null`` score member and no negative date.
    """
    parts = token.strip(TOKEN_SPACE).split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        raise ReceiptError("malformed", "a receipt is a compact JWS: three base64url parts")
    try:
        header = read_json(b64url_decode(parts[0]))
        raw = b64url_decode(parts[1])
        _check_score_nulls(read_json(raw))
        payload = msgspec.json.decode(raw, type=ReceiptPayload)
    except (ValueError, msgspec.DecodeError) as error:
        raise ReceiptError("malformed", f"the receipt cannot be read: {error}") from None
    if not isinstance(header, dict):
        raise ReceiptError("malformed", "the receipt header is not a JSON object")
    if payload.issued_at < 0 or (payload.iat is not None and payload.iat < 0):
        raise ReceiptError("malformed", "a receipt's date (issued_at, iat) is negative")
    return header, payload


def _jwks(jwks: JWKS | Mapping[str, Any] | str | bytes) -> JWKS:
    """The key set, read strictly (``bad-jwks`` if not).

    JSON as :func:`read_json` reads it, each key an object, no key member the SDK knows
    ``null``, ``nbf`` and ``exp`` not negative.
    """
    if isinstance(jwks, JWKS):
        return jwks
    try:
        raw = read_json(jwks) if isinstance(jwks, str | bytes) else jwks
        if not isinstance(jwks, str | bytes):
            check_integers(raw)
        keys = raw.get("keys") if isinstance(raw, Mapping) else None
        for key in keys if isinstance(keys, list) else ():
            if not isinstance(key, Mapping):
                continue  # the typed read refuses it
            for name in _JWK_MEMBERS:
                if name in key and key[name] is None:
                    raise ValueError(f"a key's {name} is null: a member is absent or of its type")
            for name in ("nbf", "exp"):
                if isinstance(key.get(name), int) and key[name] < 0:
                    raise ValueError(f"a key's {name} is negative")
        return msgspec.convert(raw, JWKS)
    except (ValueError, msgspec.DecodeError) as error:
        raise ReceiptError("bad-jwks", f"the key set cannot be read: {error}") from None


class VerifiedReceipt(msgspec.Struct, frozen=True):
    """A receipt whose signature verified, and what else was checked."""

    payload: ReceiptPayload
    kid: str
    replayed: bool
    """Whether the seed, the deck and the score were checked too (the seed is revealed)."""


def verify_signature(token: str, jwks: JWKS | Mapping[str, Any] | str | bytes) -> VerifiedReceipt:
    """Check only the signature (by ``kid`` in ``jwks``); return the payload."""
    header, payload = decode_receipt(token)
    if header.get("alg") != ALG:
        raise ReceiptError("unsupported-alg", f"alg {header.get('alg')!r} is not {ALG}")
    if header.get("typ") not in (TYP, LEGACY_TYP):
        raise ReceiptError("unsupported-typ", f"typ {header.get('typ')!r} is not {TYP}")
    if "crit" in header:  # RFC 7515 section 4.1.11: no extension is understood here
        raise ReceiptError("malformed", f"critical header extensions {header['crit']!r}")
    kid = header.get("kid")
    if not isinstance(kid, str):  # a key without a kid is never picked
        raise ReceiptError("malformed", f"the header's kid {kid!r} is not a string")
    key = next((k for k in _jwks(jwks).keys if k.kid == kid), None)
    if key is None or key.x is None:
        raise ReceiptError("unknown-key", f"no key {kid!r} in the key set")
    if (key.kty, key.crv) != ("OKP", "Ed25519"):
        raise ReceiptError("unknown-key", f"key {kid!r} is not an Ed25519 key")
    signing_input, _, signature = token.strip(TOKEN_SPACE).rpartition(".")
    try:
        raw = b64url_decode(signature)
    except ValueError:
        raise ReceiptError("malformed", "the signature part is not base64url") from None
    if len(raw) != SIGNATURE_BYTES:
        raise ReceiptError(
            "malformed", f"an Ed25519 signature is {SIGNATURE_BYTES} bytes, not {len(raw)}"
        )
    try:
        x = b64url_decode(key.x)
        if not is_strict_public_key(x):  # OpenSSL takes any 32 bytes: the identity too
            raise ValueError("not a point of the prime-order group")
        public_key = Ed25519PublicKey.from_public_bytes(x)
    except ValueError:
        raise ReceiptError("unknown-key", f"key {kid!r} is not a valid Ed25519 key") from None
    try:
        public_key.verify(raw, signing_input.encode("ascii"))
    except InvalidSignature:
        raise ReceiptError("bad-signature", "the signature does not match the receipt") from None
    check_key_period(payload, key)
    return VerifiedReceipt(payload=payload, kid=str(key.kid), replayed=False)


def check_key_period(payload: ReceiptPayload, key: JWK) -> None:
    """The receipt was issued while ``key`` signed: ``nbf <= iat < exp``.

    A retired key signs nothing dated after its retirement (``key-not-valid``). The date
    is the signer's claim: a backdated forgery by a leaked key is left to the claims the
    service keeps (docs/protocol.md section 4.6). ``iat`` and ``issued_at`` must agree.
    """
    if payload.iat is not None and payload.iat != payload.issued_at:
        raise ReceiptError(
            "malformed", f"iat {payload.iat} and issued_at {payload.issued_at} differ"
        )
    issued = payload.issued
    if key.nbf is not None and issued < key.nbf:
        raise ReceiptError(
            "key-not-valid",
            f"the receipt was issued at {issued}, before key {key.kid!r} signed (nbf {key.nbf})",
        )
    if issued > time.time() + CLOCK_LEEWAY:
        raise ReceiptError(
            "key-not-valid", f"the receipt is dated {issued}, in the future: no key signed it yet"
        )
    if key.exp is not None and issued >= key.exp:
        raise ReceiptError(
            "key-not-valid",
            f"the receipt was issued at {issued}, after key {key.kid!r} was retired "
            f"(exp {key.exp})",
        )


def check_payload(payload: ReceiptPayload) -> None:
    """Re-derive the deck from the revealed seeds, replay the log, compare the score."""
    if payload.server_seed is None:
        raise ReceiptError("seed-not-revealed", "the server seed is not revealed yet")
    if payload.version not in SUPPORTED_VERSIONS:
        raise ReceiptError("bad-version", f"receipt version {payload.version} is not supported")
    if payload.algorithm != ALGORITHM:
        raise ReceiptError(
            "unknown-algorithm", f"deck derivation {payload.algorithm!r} is not {ALGORITHM}"
        )
    if not _SEED_HEX.fullmatch(payload.server_seed):  # one spelling, as everything signed
        raise ReceiptError("seed-mismatch", "the server seed is not 64 lower-case hex digits")
    seed = bytes.fromhex(payload.server_seed)
    if hashlib.sha256(seed).hexdigest() != payload.server_seed_hash:
        raise ReceiptError("seed-mismatch", "the server seed does not hash to server_seed_hash")
    try:
        cls = variant(payload.variant)
        options = cls.parse_options(payload.options)
        cards = cls.deal_cards(seed, payload.client_seed, options)
        game = replay_log(payload.variant, cards, options, payload.moves)
        score = game.score()
        canonical = cls.format_log(game.moves)
    except (RuleError, ParseError, ValueError) as error:
        raise ReceiptError("replay-failed", f"the log does not replay: {error}") from None
    if canonical != payload.moves:  # one spelling: r3, not R3; one space, no other
        raise ReceiptError(
            "replay-failed", "the log is not in canonical text form (moves separated by one space)"
        )
    if score != _current_names(payload):
        raise ReceiptError(
            "score-mismatch",
            f"the log scores {score.total}, the receipt says {payload.score.total}"
            if score.total != payload.score.total
            else "the receipt's score differs from the replay's in a hand or a member",
        )
    auto = payload.auto_placed
    if auto is not None and (
        sorted(set(auto)) != auto or (auto and not 0 <= auto[0] <= auto[-1] < len(game.moves))
    ):
        raise ReceiptError(
            "bad-auto-placed", "auto_placed must name moves of the log, each once, in order"
        )


_SEED_HEX: Final = re.compile(r"[0-9a-f]{64}")
CLOCK_LEEWAY: Final = 300
"""Seconds a receipt's date may run ahead of the verifier's clock (clocks differ)."""


def _current_names(payload: ReceiptPayload) -> Score:
    """The receipt's score with its line names as this version writes them."""
    if payload.version == RECEIPT_VERSION:
        return payload.score
    hands = tuple(
        msgspec.structs.replace(hand, line=LEGACY_LINE_NAMES.get(hand.line, hand.line))
        for hand in payload.score.hands
    )
    return msgspec.structs.replace(payload.score, hands=hands)


def _seed_hex(server_seed: str | bytes) -> str:
    """A revealed seed as lowercase hex (``bytes`` are the raw seed, ``str`` its hex)."""
    if isinstance(server_seed, bytes | bytearray):
        return bytes(server_seed).hex()
    try:
        return bytes.fromhex(server_seed).hex()
    except ValueError:
        raise ReceiptError("seed-mismatch", "the given server seed is not hex") from None


class CommitmentMismatchError(ReceiptError):
    """The server did not keep its word: what it gave differs from what it promised.

    A deal whose seed hash is not the one committed to (the server could have picked
    the deck after it saw the client seed), another client seed, variant or options, or
    a receipt for another game. ``field`` names the first difference.
    """

    def __init__(self, field: str, expected: Any, got: Any) -> None:
        super().__init__("mismatch", f"{field}: expected {expected!r}, the server gave {got!r}")
        self.field = field
        self.expected = expected
        self.got = got


@dataclass(frozen=True, kw_only=True)
class Expected:
    """What a receipt must say, where the verifier knows it (``None``: not checked).

    ``options`` are compared as the variant reads them (defaults filled in); a
    ``"random"`` option matches the value rolled, checked against the seeds once they
    are revealed. ``moves`` is compared in canonical text form.
    """

    deal_id: str | None = None
    server_seed_hash: str | None = None
    client_seed: str | None = None
    variant: str | None = None
    options: Mapping[str, Any] | msgspec.Struct | None = None
    moves: str | None = None
    tournament: str | None = None
    player: str | None = None
    issuer: str | None = None
    """The ``iss`` the receipt must name: the service whose key set the caller trusts."""


def options_match(
    variant_id: str,
    asked: Mapping[str, Any] | msgspec.Struct | None,
    given: Mapping[str, Any],
    *,
    server_seed: bytes | None = None,
    client_seed: str | None = None,
) -> bool:
    """Whether ``given`` (a deal's or receipt's options) are the ``asked`` options.

    Both are read as the variant reads them, so defaults compare equal to their absence.
    A ``"random"`` value asked for (a reserve version's die roll) or a point system drawn
    from the seeds (``scoring: "ameritish"``, see :mod:`cardproof.tables`) matches any
    resolved value given until the seeds are known; with them, it must be the value they
    draw.
    """
    cls = variant(variant_id)
    try:
        want = cls.parse_options(asked)
        got = msgspec.to_builtins(cls.parse_options(given))
        if server_seed is not None:
            want = cls.resolve_options(want, server_seed, client_seed)
    except (RuleError, ValueError):  # unreadable options, or seeds that draw nothing
        return False
    if isinstance(got, dict) and is_generated(got.get("scoring")):
        return False  # a deal or receipt carries the table its seeds drew, never the name
    wanted = msgspec.to_builtins(want)
    if wanted == got:
        return True
    if server_seed is not None or set(wanted) != set(got):
        return False
    return all(wanted[key] == got[key] or _drawn_from(key, wanted[key], got[key]) for key in wanted)


def _drawn_from(key: str, asked: Any, given: Any) -> bool:
    """Whether ``given`` may be what the seeds draw for ``asked`` (checked once they are known).

    A point system asked for (``scoring: "ameritish"``) is drawn as a table; a reserve
    version ``"random"`` as a number.
    """
    if key == "scoring":
        return is_generated(asked) and isinstance(given, dict)
    return asked == "random" and isinstance(given, int)


def check_expected(payload: ReceiptPayload, expected: Expected) -> None:
    """Raise :class:`CommitmentMismatchError` where ``payload`` differs from ``expected``."""
    plain = (
        ("deal_id", expected.deal_id, payload.deal_id),
        ("server_seed_hash", expected.server_seed_hash, payload.server_seed_hash),
        ("client_seed", expected.client_seed, payload.client_seed),
        ("variant", expected.variant, payload.variant),
        ("tournament", expected.tournament, payload.tournament),
        ("player", expected.player, payload.player),
        ("iss", expected.issuer, payload.iss),
    )
    for name, want, got in plain:
        if want is not None and want != got:
            raise CommitmentMismatchError(name, want, got)
    if expected.options is not None:
        seed = None if payload.server_seed is None else bytes.fromhex(payload.server_seed)
        if not options_match(
            payload.variant,
            expected.options,
            payload.options,
            server_seed=seed,
            client_seed=payload.client_seed,
        ):
            raise CommitmentMismatchError("options", expected.options, payload.options)
    if expected.moves is not None:
        cls = variant(payload.variant)
        try:
            want_moves = cls.format_log(cls.parse_log(expected.moves))
        except CardproofError:
            want_moves = expected.moves
        if want_moves != payload.moves:
            raise CommitmentMismatchError("moves", want_moves, payload.moves)


def check_kind(payload: ReceiptPayload) -> None:
    """What the kind says of the game agrees with the game (``kind-mismatch``).

    A tournament game names its player, and only a tournament game names a tournament or
    a player; a ``committed-blind`` receipt is of a hidden variant (nothing is blind in
    an open one, where every card shows from the start).
    """
    if (payload.kind == "tournament") != (payload.tournament is not None) or (
        (payload.tournament is None) != (payload.player is None)
    ):
        raise ReceiptError(
            "kind-mismatch",
            f"a {payload.kind} receipt with tournament {payload.tournament!r} and player "
            f"{payload.player!r}: a tournament game names both, any other neither",
        )
    if (payload.deal_id is None) != (payload.kind == "practice"):
        raise ReceiptError(
            "kind-mismatch",
            f"a {payload.kind} receipt with deal_id {payload.deal_id!r}: every game dealt by "
            "the service has a deal id the service keeps, and only a practice one has none",
        )
    if payload.kind == "committed-blind":
        try:
            cls = variant(payload.variant)
            information = cls.information_of(cls.parse_options(payload.options))
        except (RuleError, ParseError, ValueError):
            return  # unreadable options: the replay refuses them (replay-failed)
        if information != "hidden":
            raise ReceiptError(
                "kind-mismatch",
                f"a committed-blind receipt of {payload.variant}, an open game: nothing was "
                "hidden to play blind",
            )


def verify_receipt(
    token: str,
    jwks: JWKS | Mapping[str, Any] | str | bytes,
    *,
    server_seed: str | bytes | None = None,
    allow: Iterable[ReceiptKind] = (),
    expect: Expected | None = None,
    signature_only: bool = False,
) -> VerifiedReceipt:
    """Verify a receipt offline: signature, kind, what it must say, then seed, deck, replay.

    Only the committed kinds (:data:`COMMITTED_KINDS`) are accepted unless ``allow``
    names others (``"casual"``, ``"practice"``): those prove the score, not a fair deck.
    ``expect`` holds what the receipt must say where the caller knows it (the deal id,
    the committed hash, its client seed, the options, the log); a difference raises
    :class:`CommitmentMismatchError`.

    ``server_seed`` is a seed revealed elsewhere, for a receipt issued before the reveal
    (a tournament's, while it was open, carries ``server_seed: null``; the tournament
    shows each round's seed once it has closed). It must hash to the receipt's
    ``server_seed_hash``, else ``seed-mismatch``; then the receipt is replayed with it.
    The result's ``payload`` stays the signed one (its ``server_seed`` still null).
    A receipt that carries its own seed is checked with that one, and a given seed
    must equal it.

    A receipt that cannot be replayed (no seed revealed, none given) raises
    ``seed-not-revealed``: its deck and score are unchecked, so it must not pass for a
    verified one. ``signature_only=True`` accepts it knowingly: the result then says
    ``replayed=False``.

    Raises :class:`ReceiptError` naming the first check that fails.
    """
    verified = verify_signature(token, jwks)
    payload = verified.payload
    if payload.version not in SUPPORTED_VERSIONS or payload.kind is None:
        raise ReceiptError(
            "bad-version",
            f"receipt version {payload.version} is not supported (version {RECEIPT_VERSION} "
            "says what kind of game it proves)",
        )
    accepted = COMMITTED_KINDS | frozenset(allow)
    if payload.kind not in accepted:
        raise ReceiptError(
            "kind-not-allowed",
            f"this is a {payload.kind} receipt: it proves the score, not that the deck was "
            f"fixed before the player chose; accept it only knowingly (allow={payload.kind!r})",
        )
    consistent = {
        "committed-blind": payload.committed_before_client_seed and payload.blind,
        "committed-open": payload.committed_before_client_seed,
        "tournament": payload.committed_before_client_seed and payload.tournament is not None,
    }
    if not consistent.get(payload.kind, True):
        raise ReceiptError("kind-mismatch", f"the receipt says {payload.kind} but not committed")
    check_kind(payload)
    if server_seed is not None:
        given = _seed_hex(server_seed)
        if payload.server_seed is not None and payload.server_seed.lower() != given:
            raise ReceiptError(
                "seed-mismatch", "the given server seed is not the one the receipt shows"
            )
        if hashlib.sha256(bytes.fromhex(given)).hexdigest() != payload.server_seed_hash:
            raise ReceiptError(
                "seed-mismatch",
                "the given server seed does not hash to the receipt's server_seed_hash",
            )
        payload = msgspec.structs.replace(payload, server_seed=given)
    if expect is not None:
        check_expected(payload, expect)
    if payload.server_seed is None:
        if signature_only:
            return verified
        raise ReceiptError(
            "seed-not-revealed",
            "the server seed is not revealed yet (a tournament still open), so the deck and "
            "the score cannot be replayed: pass server_seed= once the tournament shows it, "
            "or signature_only=True to accept the signature alone",
        )
    check_payload(payload)
    return VerifiedReceipt(payload=verified.payload, kid=verified.kid, replayed=True)


def receipt_file_name(deal_id: str) -> str:
    """``receipt-<deal id>.jws``, the id's characters outside ``[A-Za-z0-9_-]`` as ``_``.

    The id is the server's word: a name made of it must not climb out of its folder.

    >>> receipt_file_name("d_../../etc/x")
    'receipt-d_______etc_x.jws'
    """
    return f"receipt-{re.sub(r'[^A-Za-z0-9_-]', '_', deal_id)}.jws"
