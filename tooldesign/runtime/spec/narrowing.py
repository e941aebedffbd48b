"""How to ask a bounded tool for less, read from its own arguments.

A ``BoundedResult`` tool's answer over its budget tells the model how to narrow the request.
The service may say it (``refinement_hint`` in the result); where it does not, the design says
enough: the arguments that filter by a fixed set of values (an ``enum``, or a list of them), the
one that caps how many items come back (an integer named like ``limit``, with its range), and the
one that pages (the tool's cursor field, or an argument named like one). :func:`narrowing_hint`
writes that as one sentence, from the tool's payload schema alone (deterministic).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS

_COUNTS = frozenset(
    ["limit", "max", "max_results", "max_items", "page_size", "per_page", "size", "top", "count"]
)
"""Argument names that cap how many items come back."""
_PAGES = frozenset(["cursor", "page", "page_token", "offset", "after", "next_cursor", "start"])
"""Argument names that page through a result."""
_MAX_VALUES = 6  # an enum listed in a hint: its first values, then how many more


def narrowing_hint(schema: Mapping[str, Any], cursor_field: str | None = None) -> str | None:
    """How to ask for less, from a payload ``schema`` (``None``: its arguments offer no way)."""
    properties = schema.get(K.PROPERTIES)
    if not isinstance(properties, MAPS):
        return None
    filters: list[str] = []
    counts: list[str] = []
    pages: list[str] = []
    for name, node in properties.items():
        if not isinstance(node, MAPS):
            continue
        values = _enum(node)
        if values is not None:
            filters.append(f"{name} ({_listed(values)})")
        elif name.lower() in _COUNTS and node.get(K.TYPE) == "integer":
            counts.append(f"use a smaller {name}{_range(node)}")
        elif name == cursor_field or name.lower() in _PAGES:
            pages.append(name)
    parts: list[str] = []
    if filters:
        parts.append("filter by " + _joined(filters))
    parts.extend(counts)
    if pages:
        parts.append("page through it with " + _joined(pages))
    if not parts:
        return None
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]}."


def _enum(node: Mapping[str, Any]) -> Sequence[Any] | None:
    values = node.get(K.ENUM)
    if isinstance(values, list) and values:
        return values
    items = node.get(K.ITEMS)
    if isinstance(items, MAPS):
        inner = items.get(K.ENUM)
        if isinstance(inner, list) and inner:
            return inner
    return None


def _listed(values: Sequence[Any]) -> str:
    shown = [str(v) for v in values[:_MAX_VALUES]]
    if len(values) > _MAX_VALUES:
        return ", ".join(shown) + f" or {len(values) - _MAX_VALUES} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _range(node: Mapping[str, Any]) -> str:
    low, high = node.get(K.MINIMUM), node.get(K.MAXIMUM)
    if isinstance(low, int) and isinstance(high, int):
        return f" ({low} to {high})"
    if isinstance(high, int):
        return f" (at most {high})"
    return ""


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


__all__ = ["narrowing_hint"]
