r"""Signed notes, checkpoints, cosignatures (C2SP signed-note, tlog-checkpoint, tlog-cosignature).

A note is UTF-8 text ending in a newline, a blank line, then one signature line per
signer: ``— <key name> base64(key ID || signature)``. A key is named, and its 4-byte ID is
``SHA-256(name || 0x0A || type || public key)[:4]``: type ``0x01`` for a log's Ed25519
key, ``0x04`` for a witness's timestamped cosignature, whose signature is an 8-byte
big-endian time and an Ed25519 signature over ``cosignature/v1``, ``time <t>`` and the
checkpoint's text. A verifier key reads ``<name>+<hex ID>+base64(type || public key)``;
a signer key (Go's ``note`` package) ``PRIVATE+KEY+<name>+<hex ID>+base64(type || seed)``.

A checkpoint is a note whose text is the log's origin, its size and its root hash (base64),
one per line, and any extension lines:

>>> signer = Signer.generate("example.com/log")
>>> note = sign_note(Checkpoint("example.com/log", 3, bytes(32)).text(), [signer])
>>> opened = open_note(note, [signer.verifier])
>>> Checkpoint.parse(opened.text).size
3
>>> open_note(note.replace("\n3\n", "\n4\n"), [signer.verifier])
Traceback (most recent call last):
...
cardproof.tlog.note.NoteError: the signature of example.com/log does not verify
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519: Final = 0x01
"""The signature type of a plain Ed25519 note signature (a log's checkpoint)."""
COSIGNATURE_V1: Final = 0x04
"""The signature type of a timestamped Ed25519 cosignature (a witness's)."""
MAX_SIGNATURES: Final = 32
"""The most signature lines a note may have here (C2SP: accept at least 16)."""
MAX_NOTE: Final = 64 * 1024
DASH: Final = "\u2014"


class NoteError(ValueError):
    """A note that cannot be read, or whose signatures do not hold."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    """A key's 4-byte ID: ``SHA-256(name || 0x0A || type || public key)[:4]``."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _check_name(name: str) -> None:
    if not name or any(c.isspace() or c == "+" for c in name) or not name.isprintable():
        raise NoteError(f"a key name is not empty and has no space or '+': {name!r}")


def _b64decode(text: str, what: str) -> bytes:
    """Base64 in its one spelling (no stray low bits, no padding past a group)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NoteError(f"{what} is not base64") from None
    if base64.b64encode(raw).decode() != text:
        raise NoteError(f"{what} is not base64 in its one spelling")
    return raw


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Verifier:
    """A named public key of one signature type (:data:`ED25519` or :data:`COSIGNATURE_V1`)."""

    name: str
    kind: int
    public: bytes

    @property
    def id(self) -> bytes:
        """The key's 4-byte ID."""
        return key_id(self.name, self.kind, self.public)

    @property
    def vkey(self) -> str:
        """The verifier key's text: ``<name>+<hex ID>+base64(type || public key)``."""
        material = base64.b64encode(bytes([self.kind]) + self.public).decode()
        return f"{self.name}+{self.id.hex()}+{material}"

    @classmethod
    def parse(cls, vkey: str) -> Verifier:
        """A verifier from its text; its ID must be the one its name and key give."""
        parts = vkey.strip().split("+", 2)  # base64 may hold "+" too
        if len(parts) != 3 or not re.fullmatch(r"[0-9a-f]{8}", parts[1]):
            raise NoteError(f"not a verifier key (name+id+key): {vkey!r}")
        name, hex_id, material = parts
        _check_name(name)
        raw = _b64decode(material, "a verifier key's key")
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("a verifier key here is an Ed25519 key (type 0x01 or 0x04)")
        verifier = cls(name, raw[0], raw[1:])
        if verifier.id.hex() != hex_id:
            raise NoteError(f"the verifier key's ID is not its name's and key's: {vkey!r}")
        return verifier

    def check(self, message: bytes, signature: bytes) -> None:
        """Raise :class:`NoteError` unless ``signature`` (Ed25519) signs ``message``."""
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except (InvalidSignature, ValueError):
            raise NoteError(f"the signature of {self.name} does not verify") from None


@dataclass(frozen=True)
class Signer:
    """A named Ed25519 private key that signs notes (``kind`` 0x01) or cosigns (0x04)."""

    name: str
    seed: bytes
    kind: int = ED25519
    key: Ed25519PrivateKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the name and the seed, and make the key once."""
        _check_name(self.name)
        if len(self.seed) != 32:
            raise NoteError("an Ed25519 seed is 32 bytes")
        object.__setattr__(self, "key", Ed25519PrivateKey.from_private_bytes(self.seed))

    @classmethod
    def generate(cls, name: str, kind: int = ED25519) -> Signer:
        """A new signer with a random key."""
        seed = Ed25519PrivateKey.generate().private_bytes_raw()
        return cls(name, seed, kind)

    @property
    def verifier(self) -> Verifier:
        """The signer's public half."""
        return Verifier(self.name, self.kind, _raw(self.key.public_key()))

    @property
    def skey(self) -> str:
        """The signer key's text, as Go's ``note`` package writes it (keep it secret)."""
        material = base64.b64encode(bytes([self.kind]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.id.hex()}+{material}"

    @classmethod
    def parse(cls, skey: str) -> Signer:
        """A signer from its text (``PRIVATE+KEY+...``)."""
        parts = skey.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("not a signer key (PRIVATE+KEY+name+id+key)")
        raw = _b64decode(parts[4], "a signer key's key")
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("a signer key here is an Ed25519 key (type 0x01 or 0x04)")
        signer = cls(parts[2], raw[1:], raw[0])
        if signer.verifier.id.hex() != parts[3]:
            raise NoteError("the signer key's ID is not its name's and key's")
        return signer

    def signature_line(self, text: str, timestamp: int | None = None) -> str:
        """The signature line of this key over ``text`` (a cosignature needs ``timestamp``)."""
        if self.kind == COSIGNATURE_V1:
            if timestamp is None or not 0 <= timestamp < 1 << 63:
                raise NoteError("a cosignature needs a time")
            message = cosigned_message(text, timestamp)
            body = timestamp.to_bytes(8, "big") + self.key.sign(message)
        else:
            body = self.key.sign(text.encode())
        signature = base64.b64encode(self.verifier.id + body).decode()
        return f"{DASH} {self.name} {signature}\n"


def cosigned_message(text: str, timestamp: int) -> bytes:
    """What a ``cosignature/v1`` signs: its header, its time and the checkpoint's text."""
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("a note's text ends with a newline")
    if any(ord(c) < 0x20 and c != "\n" for c in text):
        raise NoteError("a note holds no control character but newlines")


def sign_note(text: str, signers: Iterable[Signer], timestamp: int | None = None) -> str:
    """The note of ``text`` signed by each signer (cosigners at ``timestamp``)."""
    _check_text(text)
    return text + "\n" + "".join(s.signature_line(text, timestamp) for s in signers)


@dataclass(frozen=True)
class Signature:
    """One verified signature line: whose, and (for a cosignature) when it was made."""

    verifier: Verifier
    timestamp: int | None
    line: str


@dataclass(frozen=True)
class Opened:
    """A note whose signatures were checked: its text, the known ones, the unknown lines."""

    text: str
    signatures: list[Signature]
    unknown: list[str]


def split_note(note: str) -> tuple[str, list[str]]:
    """A note's text and its signature lines, read strictly (nothing checked yet)."""
    if len(note) > MAX_NOTE:
        raise NoteError(f"a note is at most {MAX_NOTE} characters")
    if any(ord(c) < 0x20 and c != "\n" for c in note):
        raise NoteError("a note holds no control character but newlines")
    at = note.rfind("\n\n")
    if at < 0 or not note.endswith("\n"):
        raise NoteError("a note is its text, a blank line, and its signature lines")
    text, lines = note[: at + 1], note[at + 2 :].splitlines(keepends=True)
    if not lines:
        raise NoteError("a note has at least one signature")
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a note has at most {MAX_SIGNATURES} signatures here")
    for line in lines:
        if not re.fullmatch(rf"{DASH} [^ +\n]+ [A-Za-z0-9+/=]+\n", line):
            raise NoteError(f"not a signature line: {line.rstrip()!r}")
    return text, lines


def open_note(note: str, verifiers: Sequence[Verifier], *, required: int = 1) -> Opened:
    """Check a note's signatures by the known keys; at least ``required`` must verify.

    A line of a known key (name and ID both) must verify; lines of unknown keys are kept
    aside, unchecked, as C2SP says.
    """
    text, lines = split_note(note)
    known = {(v.name, v.id): v for v in verifiers}
    signatures: list[Signature] = []
    unknown: list[str] = []
    for line in lines:
        _, name, encoded = line.split(" ")
        raw = _b64decode(encoded.strip(), f"the signature of {name}")
        verifier = known.get((name, raw[:4]))
        if verifier is None:
            unknown.append(line)
            continue
        if verifier.kind == COSIGNATURE_V1:
            if len(raw) != 4 + 8 + 64:
                raise NoteError(f"the cosignature of {name} is not 76 bytes")
            timestamp = int.from_bytes(raw[4:12], "big")
            verifier.check(cosigned_message(text, timestamp), raw[12:])
        else:
            timestamp = None
            verifier.check(text.encode(), raw[4:])
        if any(s.verifier == verifier for s in signatures):
            raise NoteError(f"{name} signs the note twice")
        signatures.append(Signature(verifier, timestamp, line))
    if len(signatures) < required:
        raise NoteError(
            f"{len(signatures)} of the note's signatures are by a known key; {required} needed"
        )
    return Opened(text, signatures, unknown)


@dataclass(frozen=True)
class Checkpoint:
    """A log's signed tree head: its origin, size, root hash and extension lines."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        """The checkpoint's note text (what its signatures sign)."""
        root = base64.b64encode(self.root).decode()
        return "".join(f"{line}\n" for line in (self.origin, self.size, root, *self.extensions))

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """A checkpoint from its note text, in its one spelling."""
        _check_text(text)
        lines = text[:-1].split("\n")
        if len(lines) < 3 or not lines[0] or any(not line for line in lines[3:]):
            raise NoteError("a checkpoint is an origin, a size and a root hash, one a line")
        if not re.fullmatch(r"0|[1-9][0-9]{0,19}", lines[1]) or int(lines[1]) >= 1 << 64:
            raise NoteError(f"a checkpoint's size is a decimal number: {lines[1]!r}")
        root = _b64decode(lines[2], "a checkpoint's root hash")
        if len(root) != 32:
            raise NoteError("a checkpoint's root hash is 32 bytes")
        checkpoint = cls(lines[0], int(lines[1]), root, tuple(lines[3:]))
        if checkpoint.text() != text:
            raise NoteError("not the checkpoint's one spelling")
        return checkpoint


__all__ = [
    "COSIGNATURE_V1",
    "ED25519",
    "MAX_SIGNATURES",
    "Checkpoint",
    "NoteError",
    "Opened",
    "Signature",
    "Signer",
    "Verifier",
    "cosigned_message",
    "key_id",
    "open_note",
    "sign_note",
    "split_note",
]
