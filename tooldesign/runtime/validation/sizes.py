"""Arguments held to a call's :class:`~tooldesign.runtime.Limits` before they are validated.

Text is measured before it is read; a dict (arguments a provider or the application parsed
already) is walked once, without recursion, counting about as many bytes as it would take as
JSON, and stopped as soon as it breaks a limit: a 100 MB dict costs what 1 MB does, and a dict
that contains itself is answered, not walked forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.text import path_of
from tooldesign.runtime.errors import ROOT_PATH, Constraint, FieldIssue, ToolValidationError
from tooldesign.runtime.spec.limits import MAX_DEPTH, Limits, byte_size

LARGE_PAYLOAD_BYTES = 64 * 1024
"""Arguments past this size are decoded in a worker thread, off the event loop."""

_WALK_ON_LOOP = 4096
"""Values of a dict walked on the event loop to find whether it is large."""


def text_bytes(data: str | bytes | bytearray) -> int:
    """The size of JSON text in UTF-8 bytes (text of any length is measured cheaply)."""
    if not isinstance(data, str):
        return len(data)
    if data.isascii():
        return len(data)
    return len(data.encode("utf-8", "surrogatepass"))


def check_text(data: str | bytes | bytearray, limits: Limits, tool: str) -> None:
    """Raise :class:`ToolValidationError` when arguments given as text are over the size limit.

    Text is measured without being read when it can be: a ``str`` of more characters than the
    limit has more bytes too.
    """
    length = len(data)
    size = length if length > limits.payload_bytes else text_bytes(data)
    if size > limits.payload_bytes:
        raise too_large(tool, size, limits)


def unchecked_text_bytes(limits: Limits) -> int:
    """Text shorter than this (in characters) cannot hold an array or a nesting past ``limits``:
    a JSON value takes at least two (``0,`` or ``[``). The JSON reader refuses nesting past the
    most any tool takes by itself."""
    if limits.depth >= MAX_DEPTH:
        return 2 * limits.array_items
    return 2 * min(limits.array_items, limits.depth)


def check_value(value: Any, limits: Limits, tool: str, *, measure: bool = True) -> None:
    """Raise :class:`ToolValidationError` when ``value`` nests deeper than ``limits`` allow,
    holds a longer array, refers to itself, or (with ``measure``) is larger than the payload
    limit once written as JSON (counted about, and only until the limit is passed)."""
    _walk(value, limits, tool, measure=measure)


def is_large(data: Any) -> bool:
    """Whether decoding ``data`` may take long enough to belong off the event loop.

    Text by its length; a dict by walking at most a few thousand of its values.
    """
    if isinstance(data, str | bytes | bytearray):
        return len(data) > LARGE_PAYLOAD_BYTES
    if not isinstance(data, Mapping):
        return False
    seen = 0
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        seen += 1
        if seen > _WALK_ON_LOOP:
            return True
        kind = type(item)
        if kind is str:
            if len(item) > LARGE_PAYLOAD_BYTES:
                return True
        elif kind in _PLAIN_SCALARS:
            continue  # the common case, told without an ABC check
        elif kind is dict or isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str) and len(item) > LARGE_PAYLOAD_BYTES:
            return True
    return False


# A value on the walk: (value, depth, the parent's entry, the key or index in the parent).
_Entry = tuple[Any, int, Any, int | str | None]

# About how many bytes a scalar takes as JSON (strings are counted by their length).
_SCALAR_BYTES = {bool: 5, type(None): 4, float: 24}
_PLAIN_SCALARS = frozenset({int, *_SCALAR_BYTES})


def _walk(value: Any, limits: Limits, tool: str, *, measure: bool) -> None:
    size = 0
    on_path: set[int] = set()  # the containers the walk is inside: met again, a cycle
    stack: list[_Entry | int] = [(value, 0, None, None)]
    while stack:
        entry = stack.pop()
        if type(entry) is int:  # the walk leaves a container
            on_path.discard(entry)
            continue
        assert isinstance(entry, tuple)
        item, depth = entry[0], entry[1]
        kind = type(item)
        if kind is str:
            size += len(item) + 3
        elif kind is int:
            size += item.bit_length() // 3 + 2
        elif kind in _PLAIN_SCALARS:
            size += _SCALAR_BYTES[kind]
        elif kind is dict or kind is list or kind is tuple or isinstance(item, Mapping):
            if id(item) in on_path:
                raise _refused(tool, _path(entry), Constraint.INVALID_FORMAT, _CYCLE)
            if depth >= limits.depth:
                problem = f"nested deeper than {limits.depth} levels"
                raise _refused(tool, _path(entry), Constraint.INVALID_FORMAT, problem)
            on_path.add(id(item))
            stack.append(id(item))
            size += 2
            # Scalar children are counted here, not put on the stack: most values are scalars.
            if kind is list or kind is tuple:
                if len(item) > limits.array_items:
                    raise _too_many_items(tool, entry, len(item), limits)
                for i, child in enumerate(item):
                    scalar = _scalar_size(child)
                    if scalar is None:
                        stack.append((child, depth + 1, entry, i))
                    else:
                        size += scalar
            else:
                for key, child in item.items():
                    size += (len(key) if isinstance(key, str) else 8) + 4
                    scalar = _scalar_size(child)
                    if scalar is None:
                        stack.append((child, depth + 1, entry, key))
                    else:
                        size += scalar
        else:
            size += _SCALAR_BYTES.get(kind, 8)
        if measure and size > limits.payload_bytes:
            raise too_large(tool, size, limits, about=True)


def _scalar_size(value: Any) -> int | None:
    """About how many bytes a plain scalar takes as JSON; ``None`` for anything else."""
    kind = type(value)
    if kind is str:
        return len(value) + 3
    if kind is int:
        bits: int = value.bit_length()
        return bits // 3 + 2
    return _SCALAR_BYTES.get(kind)


_CYCLE = "refers to itself (a value that contains itself cannot be JSON)"


def first_part(value: Any, *, items: int, keep: frozenset[str]) -> Any:
    """A copy of ``value`` with each array cut to its first ``items`` items, and each object to
    its first ``items`` keys and those named in ``keep``.

    Validating it finds the first problems of a value with too many to read, and no problem the
    cut made: ``keep`` names every field the schema declares (a required one stays), and
    ``items`` is at least the largest ``minItems``.
    """
    if isinstance(value, list):
        return [first_part(item, items=items, keep=keep) for item in value[:items]]
    if isinstance(value, dict):
        return {
            key: first_part(item, items=items, keep=keep)
            for index, (key, item) in enumerate(value.items())
            if index < items or key in keep
        }
    return value


def too_large(tool: str, size: int, limits: Limits, *, about: bool = False) -> ToolValidationError:
    """The refusal of arguments over the payload limit (they are not echoed back)."""
    amount = f"about {byte_size(size)}" if about else byte_size(size)
    issue = FieldIssue(
        ROOT_PATH,
        Constraint.INVALID_LENGTH,
        f"too large: {amount} where this tool accepts at most "
        f"{byte_size(limits.payload_bytes)}; send less, or split the work into several calls",
        bounds={"maxBytes": limits.payload_bytes},
    )
    return ToolValidationError(tool, [issue])


def _path(entry: _Entry) -> tuple[int | str, ...]:
    parts: list[int | str] = []
    while entry[2] is not None:
        key = entry[3]
        parts.append(key if isinstance(key, int | str) else str(key))
        entry = entry[2]
    return tuple(reversed(parts))


def _too_many_items(tool: str, entry: _Entry, count: int, limits: Limits) -> ToolValidationError:
    problem = (
        f"has {count:,} items where this tool accepts at most {limits.array_items:,} in one "
        "array; send fewer, or split the work into several calls"
    )
    return _refused(
        tool, _path(entry), Constraint.INVALID_LENGTH, problem, {K.MAX_ITEMS: limits.array_items}
    )


def _refused(
    tool: str,
    path: tuple[int | str, ...],
    constraint: Constraint,
    problem: str,
    bounds: Mapping[str, int] | None = None,
) -> ToolValidationError:
    issue = FieldIssue(path_of(path), constraint, problem, bounds=bounds)
    return ToolValidationError(tool, [issue])


__all__ = [
    "LARGE_PAYLOAD_BYTES",
    "check_text",
    "check_value",
    "first_part",
    "is_large",
    "text_bytes",
    "too_large",
    "unchecked_text_bytes",
]
