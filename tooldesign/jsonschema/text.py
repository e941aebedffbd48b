"""Text for messages: values, keys and field paths shown short and on one line.

Whatever a model sends — a million-item list, a key with a line break, a lone surrogate — comes
out of these cut short and with every non-printable character escaped, so it can never pass for
another line of a message, a hint or a log record.

Two notations of field paths: where a value is (:func:`path_of`: ``devices[0].id``, as
messages about a call show it) and where a field is in a schema (:class:`FieldPath`:
``devices[].id``, ``labels.*``, as exports and diffs name fields).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

_MAX_SHOWN = 80
_MAX_KEY_SHOWN = 40
_MAX_PATH_SHOWN = 160
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*", re.ASCII)
_json_string: Callable[[str], str] = json.encoder.encode_basestring
"""A string as ``json.dumps(text, ensure_ascii=False)`` writes it, without its dispatch (a
value is shown in every issue's message)."""


def json_type(value: Any) -> str:
    """The JSON type name of a decoded JSON value."""
    name = _JSON_TYPES.get(type(value))
    if name is not None:
        return name
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


_JSON_TYPES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    dict: "object",
    list: "array",
}
"""The JSON type of each type JSON decodes to (subclasses are looked at one by one)."""

_MAX_INT_BITS = 256
"""Integers shown in full are shorter than this: a longer one is shown by its size."""


def shown(value: Any, limit: int = _MAX_SHOWN) -> str:
    """A value as JSON, cut short: safe to put in a one-line message whatever it contains.

    Only as much of the value is read as the text can show (a million-item list costs no more
    than a short one), and characters that are not printable — line breaks, NUL, bidirectional
    controls, lone surrogates — are escaped, so a value can never start a line of its own.
    """
    kind = type(value)
    if kind is str:  # most values shown are short strings and numbers: written at once
        text = _json_string(value[: limit + 1])
    elif kind is int and value.bit_length() < _MAX_INT_BITS:
        text = str(value)
    else:
        parts: list[str] = []
        _preview(value, parts, limit + 1)
        text = "".join(parts)
    if len(text) <= limit and text.isprintable():
        return text
    return printable(clipped(text, limit))


def clipped(text: str, limit: int = _MAX_SHOWN) -> str:
    """``text`` cut short to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str, limit: int = _MAX_SHOWN) -> str:
    """``text`` JSON-quoted, cut short, non-printable characters escaped: safe in any message."""
    return printable(json.dumps(clipped(text, limit), ensure_ascii=False))


def shown_key(key: str) -> str:
    """A key or name as a message shows it: a plain name as it is, anything else quoted.

    Plain is identifier-like (``site_id``, ``site-id``); a key with dots, spaces, line breaks
    or nothing at all (``""``) is JSON-quoted, so it cannot pass for more of a path or a line
    of the message.
    """
    if len(key) <= _MAX_KEY_SHOWN and _PLAIN_KEY.fullmatch(key):
        return key
    return quoted(key, _MAX_KEY_SHOWN)


def printable(text: str) -> str:
    """``text`` with each character that is not printable written as a JSON escape (``\\u2028``)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON writes it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _preview(value: Any, out: list[str], budget: int) -> int:
    """Write ``value`` as JSON into ``out`` until ``budget`` characters are written; the rest."""
    if budget <= 0:
        return 0
    if isinstance(value, str):
        text = _json_string(value[:budget])
    elif value is None or isinstance(value, bool):
        text = "null" if value is None else ("true" if value else "false")
    elif isinstance(value, int):
        # A huge number by its size: str() costs its length squared, and raises past 4,300 digits.
        bits = value.bit_length()
        text = (
            str(value)
            if bits < _MAX_INT_BITS
            else f"<an integer of about {int(bits * 0.30103) + 1} digits>"
        )
    elif isinstance(value, float):
        text = json.dumps(value)
    elif isinstance(value, Mapping):
        return _preview_items(value.items(), "{", "}", out, budget)
    elif isinstance(value, list | tuple):
        return _preview_items(value, "[", "]", out, budget)
    else:  # not a JSON value: its type says what it is
        text = f"<{type(value).__name__}>"
    out.append(text)
    return budget - len(text)


def _preview_items(items: Any, opening: str, closing: str, out: list[str], budget: int) -> int:
    out.append(opening)
    budget -= 1
    for index, item in enumerate(items):
        if budget <= 0:
            return budget
        if index:
            out.append(", ")
            budget -= 2
        if opening == "{":
            key, item = item
            budget = _preview(key if isinstance(key, str) else str(key), out, budget)
            out.append(": ")
            budget -= 2
        budget = _preview(item, out, budget)
    out.append(closing)
    return budget - 1


def join_path(path: str, part: int | str) -> str:
    """``path`` followed by one more part: ``devices`` and ``0`` → ``devices[0]``."""
    if isinstance(part, int):
        return f"{path}[{part}]"
    key = shown_key(str(part))
    return f"{path}.{key}" if path else key


def shown_path(path: str) -> str:
    """A field path as messages show it: a very long one keeps its start and its end."""
    if len(path) <= _MAX_PATH_SHOWN:
        return path
    head = _MAX_PATH_SHOWN // 3
    return f"{path[:head]}…{path[head + 1 - _MAX_PATH_SHOWN :]}"


def path_of(parts: Iterable[int | str]) -> str:
    """The path of a location (``("devices", 0, "id")`` → ``devices[0].id``), as messages show it."""
    path = ""
    for part in parts:
        path = join_path(path, part)
    return shown_path(path)


def got(value: Any) -> str:
    """What a message says was sent: ``null``, or the JSON type and the value shown."""
    if value is None:
        return "null"
    if isinstance(value, str | int | float | Mapping | list | tuple):
        return f"{json_type(value)} {shown(value)}"
    return f"a Python {shown_key(type(value).__name__)}, not a JSON value"


def compact_json(value: Any) -> str:
    """JSON on one line, non-ASCII kept, for messages meant to be read."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


class FieldPath:
    """Field paths as people write them: ``filter.op``, ``resources[].tags``, ``labels.*``."""

    @staticmethod
    def prop(path: str, name: str) -> str:
        return f"{path}.{name}" if path else name

    @staticmethod
    def items(path: str) -> str:
        return f"{path}[]"

    @staticmethod
    def values(path: str) -> str:
        return f"{path}.*" if path else "*"
