r"""What a request body's field takes, in words: for 400 details, never a regular expression.

msgspec says ``Expected `str` matching regex '^(?:poker\\-squares|...'``; a person wants
``variant: expected one of poker-squares, poker-patience, ...``. The words come from the
body type itself (``msgspec.inspect``): a field's enum or literal values, else its
description in the spec, found by walking the field's path (``options.scoring``,
``layout[0][2]``) through the type.

>>> from cardproof.models import DealRequest, ScoreRequest
>>> in_words(DealRequest, "variant")[:48]
'one of poker-squares, poker-patience, serpent-pa'
>>> in_words(DealRequest, "options.scoring")  # doctest: +NORMALIZE_WHITESPACE
"one of 'american', 'british', 'repeat', 'reserve', 'ameritish', 'hypercorner', 'random',
'single-hand', or a custom table (an object)"
>>> in_words(ScoreRequest, "layout[0][2]")[:40]
'a card: rank (2-9, T or 10, J, Q, K, A) '
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec.inspect as mi

_SEGMENT: Final = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_TYPE_WORDS: Final = {
    "`str`": "text",
    "`int`": "a whole number",
    "`float`": "a number",
    "`bool`": "true or false",
    "`array`": "a list",
    "`object`": "an object",
    "`null`": "null",
}


def _step(info: Any, segment: str | int) -> Any:
    """The type one path segment down (``None`` if there is none)."""
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        for member in info.types:
            found = _step(member, segment)
            if found is not None:
                return found
        return None
    if isinstance(segment, int):
        if isinstance(info, mi.ListType | mi.SetType | mi.VarTupleType):
            return info.item_type
        if isinstance(info, mi.TupleType) and segment < len(info.item_types):
            return info.item_types[segment]
        return None
    if isinstance(info, mi.StructType):
        return next((f.type for f in info.fields if f.encode_name == segment), None)
    if isinstance(info, mi.DictType):
        return info.value_type
    return None


def _words(info: Any) -> str | None:
    """One type in words: its values, or its description."""
    described: str | None = None
    while isinstance(info, mi.Metadata):
        schema = info.extra_json_schema or {}
        if schema.get("enum"):
            return "one of " + ", ".join(map(str, schema["enum"]))
        described = described or schema.get("description")
        info = info.type
    if isinstance(info, mi.LiteralType):
        return "one of " + ", ".join(repr(v) for v in info.values)
    if isinstance(info, mi.UnionType):
        members = [member for member in info.types if not isinstance(member, mi.NoneType)]
        values = [
            repr(value)
            for member in members
            if isinstance(member, mi.LiteralType)
            for value in member.values
        ]
        others = [
            "a custom table (an object)" if isinstance(member, mi.StructType) else None
            for member in members
            if not isinstance(member, mi.LiteralType)
        ]
        if all(others):  # every member said in words: the values, then the objects
            parts = [", ".join(values)] if values else []
            return "one of " + ", or ".join([*parts, *(o for o in others if o)])
    if described:
        first = described.split(". ")[0].rstrip(".")  # the first sentence says what it is
        return first[0].lower() + first[1:]
    return None


def in_words(body_type: Any, field: str) -> str:
    """What ``field`` (a path like ``options.scoring``) of ``body_type`` takes, in words."""
    info: Any = mi.type_info(body_type)
    for name, index in _SEGMENT.findall(field):
        info = _step(info, int(index) if index else name)
        if info is None:
            break
    return (None if info is None else _words(info)) or "the form the API spec gives for it"


PARAMETER_WORDS: Final = {
    "last_event_id": "the index of the last call received, 1 to 5 digits",
    "cursor": "the next_cursor of the page before, as it was given",
}
"""Path, query and header parameters whose form is a pattern: what they take, in words."""


def reword_parameter(message: str, name: str) -> str:
    """A parameter's validation message, in words (see :data:`PARAMETER_WORDS`)."""
    if re.fullmatch(r"Expected `str` matching regex .*", message):
        return f"expected {PARAMETER_WORDS.get(name, 'the form the API spec gives for it')}"
    return _plain(message)


def _plain(message: str) -> str:
    """Msgspec's type names in words, the first letter lower-case."""
    for name, words in _TYPE_WORDS.items():
        message = message.replace(name, words)
    return message[0].lower() + message[1:] if message else message


def reword(message: str, field: str, body_type: Any) -> str:
    """A msgspec validation message for ``field``, with no regex and no type names."""
    if re.fullmatch(r"Expected `str` matching regex .*", message):
        return f"expected {in_words(body_type, field)}"
    enum = re.fullmatch(r"Invalid enum value (.*)", message)
    if enum:
        return f"{enum[1]} is not {in_words(body_type, field)}"
    return _plain(message)


__all__ = ["PARAMETER_WORDS", "in_words", "reword", "reword_parameter"]
