"""Checks importers run before they write: values that fit their types, names the DSL takes.

A default or an example that does not fit its attribute would make the written design fail
``tooldesign gen``; importers check them here first and leave out (with a notice) those that
do not fit.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import SchemaError, SchemaValidator, core_schema
from tooldesign.contract.constraints import BY_KEYWORD
from tooldesign.contract.formats import BY_NAME
from tooldesign.importers.draft import (
    ArrayOf,
    DraftAttribute,
    DraftNamedType,
    DraftType,
    InlineObject,
    MapOf,
    Named,
    OneOf,
    Primitive,
)
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.patterns import for_engine, problem


def accepts(
    t: DraftType,
    options: Mapping[str, Any],
    value: Any,
    types: Mapping[str, DraftNamedType | None],
) -> bool:
    """Whether ``value`` is valid for an attribute of type ``t`` with ``options``."""
    if isinstance(t, ArrayOf):
        if not isinstance(value, list):
            return False
        low = options.get("min_items", t.min_items)
        high = options.get("max_items", t.max_items)
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return False
        item_options = {k: v for k, v in options.items() if k not in ("min_items", "max_items")}
        return all(accepts(t.items, item_options, item, types) for item in value)
    if "enum" in options and value not in options["enum"]:
        return False
    match t:
        case Primitive(name="String"):
            return isinstance(value, str) and _string_fits(value, options)
        case Primitive(name="Int"):
            return (
                isinstance(value, int)
                and not isinstance(value, bool)
                and _number_fits(value, options)
            )
        case Primitive(name="Float"):
            return (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and _number_fits(value, options)
            )
        case Primitive(name="Boolean"):
            return isinstance(value, bool)
        case Primitive():
            return is_json(value)
        case MapOf(values=values):
            return isinstance(value, dict) and all(
                isinstance(k, str) and accepts(values, {}, v, types) for k, v in value.items()
            )
        case Named(name=name):
            named = types.get(name)
            return named is None or _object_fits(named.attributes, value, types)
        case InlineObject(attributes=attributes):
            return _object_fits(attributes, value, types)
        case OneOf(variants=variants):
            return any(accepts(v, {}, value, types) for v in variants)
    return False


def is_json(value: Any) -> bool:
    """Whether ``value`` is JSON data: what a design can hold and a model can be shown."""
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(is_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json(v) for k, v in value.items())
    return False


def _string_fits(value: str, options: Mapping[str, Any]) -> bool:
    low, high = options.get("min_length"), options.get("max_length")
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        return False
    pattern = options.get("pattern")
    if isinstance(pattern, str):
        # As the decoder will match it: in linear time, as ECMA-262 reads it.
        try:
            engine = SchemaValidator(core_schema.str_schema(pattern=for_engine(pattern)))
        except SchemaError:
            return False
        if not engine.isinstance_python(value):
            return False
    fmt = BY_NAME.get(options.get(_FORMAT) or "")
    return fmt is None or fmt.valid(value)  # by the grammar the decoder reads it with


_FORMAT, _PATTERN = BY_KEYWORD[K.FORMAT].option, BY_KEYWORD[K.PATTERN].option


def readable(options: dict[str, Any], notice: Callable[[str], None]) -> dict[str, Any]:
    """``options`` without a pattern outside the schema's dialect (one that ECMA-262, the
    decoder's engine and Python's re read differently would be a design error), with a notice
    naming the construct."""
    pattern = options.get(_PATTERN)
    outside = problem(pattern) if isinstance(pattern, str) else None
    if outside is not None:
        del options[_PATTERN]
        notice(f"pattern {pattern!r} left out: {outside}")
    return options


def _number_fits(value: float, options: Mapping[str, Any]) -> bool:
    low, high = options.get("minimum"), options.get("maximum")
    above, below = options.get("exclusive_minimum"), options.get("exclusive_maximum")
    return (
        math.isfinite(value)
        and (low is None or value >= low)
        and (high is None or value <= high)
        and (above is None or value > above)
        and (below is None or value < below)
    )


def _object_fits(
    attributes: tuple[DraftAttribute, ...], value: Any, types: Mapping[str, DraftNamedType | None]
) -> bool:
    if not isinstance(value, dict):
        return False
    by_name = {a.name: a for a in attributes}
    if set(value) - set(by_name):
        return False
    if any(a.required and a.name not in value for a in attributes):
        return False
    return all(accepts(by_name[k].type, by_name[k].options, v, types) for k, v in value.items())


def sanitize_name(name: str, *, identifier: bool = False) -> str:
    """``name`` as the DSL takes it: a tool name (``[A-Za-z0-9_-]``, at most 64), or with
    ``identifier`` a Python identifier (service and toolset names become packages)."""
    allowed = r"[^A-Za-z0-9_]" if identifier else r"[^A-Za-z0-9_-]"
    cleaned = re.sub(allowed, "_", name.strip())
    cleaned = re.sub(r"_+", "_", cleaned).strip("_") or "tool"
    if identifier:
        cleaned = cleaned.lower()
        if cleaned[0].isdigit() or keyword.iskeyword(cleaned):
            cleaned = f"_{cleaned}" if not cleaned[0].isdigit() else f"t_{cleaned}"
    return cleaned[:64]


def pascal(text: str) -> str:
    """``text``'s words run together, each capitalised: ``list rows item`` → ``ListRowsItem``."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", text) if p)


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``… if it is taken."""
    candidate, n = name, 2
    while candidate in taken:
        suffix = f"_{n}"
        candidate, n = f"{name[: 64 - len(suffix)]}{suffix}", n + 1
    return candidate
