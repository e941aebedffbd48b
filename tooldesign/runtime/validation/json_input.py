"""Arguments as a model sends them, read as JSON: text parsed, a dict held to JSON's rules.

Whatever arrives — blank text, malformed JSON, a number of 5,000 digits, a lone surrogate,
nesting 10,000 levels deep, a Python object — becomes either JSON data or a
:class:`ToolValidationError` naming the problem at its field; never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic_core
from tooldesign.jsonschema.text import got, json_type
from tooldesign.runtime.errors import ROOT_PATH, Constraint, FieldIssue, ToolValidationError


def parse_object(data: Any, tool: str) -> Mapping[str, Any]:
    """The payload as a JSON object, or a validation error saying why it is not one.

    Blank text is no arguments at all (``{}``): some providers send an empty string when a
    model calls a tool without arguments.
    """
    if isinstance(data, str | bytes | bytearray):
        if _is_blank(data):
            return {}
        data = parse_json(data, tool)
    if type(data) is not dict and not isinstance(data, Mapping):  # a Mapping's check is slow
        issue = FieldIssue(
            ROOT_PATH,
            Constraint.INVALID_FIELD_TYPE,
            f"must be a JSON object, got {got(data)}",
            expected="object",
            actual=json_type(data),
        )
        raise ToolValidationError(tool, [issue], input=data)
    return data


def parse_json(data: str | bytes | bytearray, tool: str) -> Any:
    """JSON text as Python values, or a validation error saying why it is not JSON.

    pydantic-core reads it first (fast); what it refuses but is JSON all the same (a number of
    5,000 digits, a ``"\\ud800"`` escape, nesting past its limit) is read by the standard
    ``json`` module, so the problem is reported at its field, in the model's terms.
    """
    try:
        return pydantic_core.from_json(data)
    except ValueError as exc:
        error = exc
    try:
        return json.loads(data, parse_int=_read_int)
    except (ValueError, RecursionError):
        pass
    detail = str(error)
    if detail.startswith("recursion limit exceeded"):
        detail = f"nested deeper than {MAX_JSON_DEPTH} levels, {detail.split(' at ', 1)[-1]}"
    issue = FieldIssue(
        ROOT_PATH,
        Constraint.INVALID_FORMAT,
        f"not valid JSON ({detail})",
        expected="object",
    )
    raise ToolValidationError(tool, [issue], input=_text(data)) from None


MAX_JSON_DEPTH = 200
"""How deeply arrays and objects may nest in arguments (pydantic-core's JSON reader's limit)."""

_MAX_INT_DIGITS = 4300
"""Python's default limit on converting between text and integers."""


class _LongNumber:
    """A JSON integer too long to read: kept as its digits, reported at its field."""

    __slots__ = ("digits",)

    def __init__(self, digits: str) -> None:
        self.digits = digits


def _read_int(text: str) -> int | _LongNumber:
    return int(text) if len(text) <= _MAX_INT_DIGITS else _LongNumber(text)


def json_problem(value: Any) -> tuple[tuple[int | str, ...], str] | None:
    """Where and why ``value`` cannot be read as JSON arguments: the first problem, if any.

    Walked without recursion, so any depth is safe: nesting past :data:`MAX_JSON_DEPTH`, text
    that is not valid Unicode (a lone surrogate, in a key or a value), a number too long to
    read, a value that is not JSON at all (an application passing a Python object).
    """
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not _is_unicode(item):
                return path, "text that is not valid Unicode (it holds a lone surrogate)"
        elif isinstance(item, bool | float) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > _MAX_INT_DIGITS * 3:
                return path, f"a number too long to read (more than {_MAX_INT_DIGITS} digits)"
        elif isinstance(item, _LongNumber):
            return path, f"a number too long to read ({len(item.digits)} digits)"
        elif isinstance(item, Mapping | list | tuple):
            if len(path) >= MAX_JSON_DEPTH:
                return path, f"nested deeper than {MAX_JSON_DEPTH} levels"
            children = list(item.items()) if isinstance(item, Mapping) else list(enumerate(item))
            for key, child in reversed(children):
                if isinstance(key, str) and not _is_unicode(key):
                    return (
                        *path,
                        key,
                    ), "a key that is not valid Unicode (it holds a lone surrogate)"
                stack.append((child, (*path, key)))
        else:
            try:
                pydantic_core.to_json(item)
            except Exception:  # noqa: BLE001 - any failure means the same to the caller
                return path, "not a JSON value"
    return None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def has_null(value: dict[str, Any] | list[Any]) -> bool:
    """Whether a null is anywhere in ``value`` (then optional nulls are worth stripping)."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if child is None:
                return True
            if isinstance(child, dict | list):
                stack.append(child)
    return False


def _is_blank(data: str | bytes | bytearray) -> bool:
    return not data or data.isspace()


def _text(data: str | bytes | bytearray) -> str:
    return data if isinstance(data, str) else bytes(data).decode("utf-8", errors="replace")
