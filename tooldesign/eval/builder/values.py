"""Design values: strings where text is due, JSON data, constraints and examples, each checked."""

from __future__ import annotations

import math
from typing import Any

from tooldesign.contract.constraints import constraint_options
from tooldesign.contract.location import Location
from tooldesign.dsl.records import AttributeRecord, Record
from tooldesign.ir.errors import Issues, short_repr
from tooldesign.ir.model import NO_CONSTRAINTS, NO_VALUE, Constraints, ExampleValue

_NUMBER_OPTIONS = constraint_options(takes="number")
_COUNT_OPTIONS = constraint_options(takes="count")
_TEXT_OPTIONS = constraint_options(takes="text")


def is_text(value: object) -> bool:
    return isinstance(value, str)


def text(value: Any, rec: Record, what: str, issues: Issues) -> str | None:
    """``value`` if it is a string (or ``None``); otherwise reported, and ``None``."""
    if value is None or is_text(value):
        return value  # type: ignore[no-any-return]
    issues.add(f"{what} must be a string, got {value!r}", rec.location, rec.path)
    return None


def json_data(value: Any) -> tuple[Any, str | None]:
    """``value`` as JSON data (tuples become lists), or what keeps it from being JSON.

    Design values end up both in JSON (schemas, catalogs) and in Python source (specs), so
    they must mean the same in both: strings, finite numbers, booleans, ``None``, lists and
    objects with string keys.
    """
    problems: list[str] = []

    def convert(item: Any, where: str) -> Any:
        if item is None or isinstance(item, str | bool | int):
            return item
        if isinstance(item, float):
            if not math.isfinite(item):
                problems.append(f"{_at(where)}{item!r} is not a finite number")
            return item
        if isinstance(item, list | tuple):
            return [convert(x, f"{where}[{i}]") for i, x in enumerate(item)]
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            for key, x in item.items():
                if not isinstance(key, str):
                    problems.append(f"{_at(where)}object keys must be strings, got {key!r}")
                    continue
                out[key] = convert(x, f"{where}[{key!r}]")
            return out
        problems.append(
            f"{_at(where)}{type(item).__name__} {short_repr(item, 40)} is not a JSON value"
        )
        return item

    data = convert(value, "")
    return data, "; ".join(problems) if problems else None


def _at(where: str) -> str:
    return f"at {where}: " if where else ""


def json_option(options: dict[str, Any], key: str, attr: AttributeRecord, issues: Issues) -> Any:
    """A ``default=`` or ``example=`` as JSON data (``NO_VALUE`` when absent or not JSON)."""
    if key not in options:
        return NO_VALUE
    value, problem = json_data(options[key])
    if problem is not None:
        issues.add(f"{key}= must be JSON data: {problem}", attr.location, attr.path)
        return NO_VALUE
    return value


def examples(
    values: list[tuple[Any, Location]], path: str, issues: Issues
) -> tuple[ExampleValue, ...]:
    out: list[ExampleValue] = []
    for value, where in values:
        data, problem = json_data(value)
        if problem is not None:
            issues.add(f"Example must be JSON data: {problem}", where, path)
        else:
            out.append(ExampleValue(data, where))
    return tuple(out)


def constraints(options: dict[str, Any], attr: AttributeRecord, issues: Issues) -> Constraints:
    values: dict[str, Any] = {}
    for key in _NUMBER_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            issues.add(f"{key}= must be a number, got {value!r}", attr.location, attr.path)
            continue
        if not math.isfinite(value):
            issues.add(f"{key}= must be a finite number, got {value!r}", attr.location, attr.path)
            continue
        values[key] = value
    for key in _COUNT_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            issues.add(
                f"{key}= must be a non-negative integer, got {value!r}",
                attr.location,
                attr.path,
            )
            continue
        values[key] = value
    for key in _TEXT_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if not is_text(value):
            issues.add(f"{key}= must be a string, got {value!r}", attr.location, attr.path)
            continue
        values[key] = value
    enum = options.get("enum")
    if enum is not None:
        if isinstance(enum, str | bytes) or not isinstance(enum, list | tuple | set | frozenset):
            issues.add(f"enum= must be a list of values, got {enum!r}", attr.location, attr.path)
        elif not enum:
            issues.add("enum= must list at least one value", attr.location, attr.path)
        else:
            listed = sorted(enum, key=repr) if isinstance(enum, set | frozenset) else enum
            checked = [json_data(value) for value in listed]
            bad = [problem for _, problem in checked if problem is not None]
            if bad:
                issues.add(
                    f"enum= values must be JSON data: {'; '.join(bad)}",
                    attr.location,
                    attr.path,
                )
            else:
                values["enum"] = tuple(value for value, _ in checked)
    return Constraints(**values) if values else NO_CONSTRAINTS
