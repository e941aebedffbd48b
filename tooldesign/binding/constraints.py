"""Constraints on values: the application's, read from its annotations, and whether they let
through every value the tool's do (a bound method must accept anything the model may send)."""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import annotated_types
from tooldesign.ir.model import (
    NO_CONSTRAINTS,
    ArrayType,
    Constraints,
    MapType,
    Primitive,
    PrimitiveType,
    TypeExpr,
)
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.words import counted, quantity

# ── the application's constraints ────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class PyConstraints:
    """What a value must satisfy beyond its type, as the application declares it.

    Read from ``Field(max_length=3)``, ``Annotated[int, Le(5)]``, ``constr(...)`` and the like.
    Lengths count the characters of a string or the items of a list or map. ``inner`` holds
    the constraints of a list's items or a map's values.
    """

    min_length: int | None = None
    max_length: int | None = None
    gt: Any = None
    ge: Any = None
    lt: Any = None
    le: Any = None
    multiple_of: Any = None
    patterns: tuple[str, ...] = ()
    """Each must match (pydantic searches the string, as JSON Schema does)."""
    inner: PyConstraints | None = None

    def __bool__(self) -> bool:
        return self != NO_PY_CONSTRAINTS


NO_PY_CONSTRAINTS = PyConstraints()


def constraints_of(annotation: Any, metadata: Iterable[Any] = ()) -> PyConstraints:
    """The constraints an annotation declares on its value (``metadata``: pydantic's, for a field).

    Optional values are looked through (``Annotated[str, MaxLen(3)] | None`` constrains the
    string); a union of several types constrains nothing the transforms can compare.
    """
    own = list(metadata)
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            own.extend(annotation.__metadata__)
            annotation = typing.get_args(annotation)[0]
            continue
        if origin in (typing.Union, types.UnionType):
            options = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(options) == 1:
                annotation = options[0]
                continue
        break
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    inner = None
    if origin in (list, Sequence, Iterable) and args:
        inner = constraints_of(args[0])
    elif origin in (dict, Mapping) and len(args) == 2:
        inner = constraints_of(args[1])
    rules: dict[str, Any] = {}
    patterns: list[str] = []
    for item in _flatten_metadata(own):
        for attr, rule_type, tighter in _RULES:
            value = getattr(item, attr, None) if isinstance(item, rule_type) else None
            if value is not None:
                rules[attr] = value if attr not in rules else tighter(rules[attr], value)
        # pydantic keeps ``pattern=`` in its own (annotated_types) metadata object.
        pattern = getattr(item, "pattern", None)
        if isinstance(item, annotated_types.BaseMetadata) and pattern is not None:
            patterns.append(pattern if isinstance(pattern, str) else pattern.pattern)
    if inner is not None and not inner:
        inner = None
    return PyConstraints(**rules, patterns=tuple(dict.fromkeys(patterns)), inner=inner)


_RULES: tuple[tuple[str, type, Callable[[Any, Any], Any]], ...] = (
    # (attribute, the annotated_types class that holds it, how two of them combine)
    ("min_length", annotated_types.MinLen, max),
    ("max_length", annotated_types.MaxLen, min),
    ("gt", annotated_types.Gt, max),
    ("ge", annotated_types.Ge, max),
    ("lt", annotated_types.Lt, min),
    ("le", annotated_types.Le, min),
    (
        "multiple_of",
        annotated_types.MultipleOf,
        lambda a, b: math.lcm(a, b) if isinstance(a, int) and isinstance(b, int) else b,
    ),
)


def _flatten_metadata(items: Iterable[Any]) -> Iterable[Any]:
    """Metadata as single rules: a FieldInfo's metadata and grouped metadata taken apart."""
    for item in items:
        if is_field_info(item):
            yield from _flatten_metadata(item.metadata)
        elif isinstance(item, annotated_types.GroupedMetadata):
            yield from _flatten_metadata(iter(item))
        else:
            yield item


def is_field_info(value: Any) -> bool:
    try:
        from pydantic.fields import FieldInfo
    except ImportError:  # pragma: no cover - pydantic is a dependency
        return False
    return isinstance(value, FieldInfo)


# ── the method must accept every value the tool lets the model send ─────────────────────────


def constraint_gaps(tool: TypeExpr, constraints: Constraints, app: PyConstraints) -> list[str]:
    """How the application's constraints reject values the tool's allow (empty: none do).

    Each gap names the application's rule and the tool's side of it. Tool value constraints
    apply to the innermost items of arrays, item counts to the array itself.
    """
    if not app:
        return []
    match tool:
        case ArrayType(items=items, min_items=lo, max_items=hi):
            lo = constraints.min_items if constraints.min_items is not None else lo
            hi = constraints.max_items if constraints.max_items is not None else hi
            gaps = _length_gaps(app, lo, hi, "min_items", "max_items", unit=K.MIN_ITEMS)
            if app.inner is not None:
                inner = dataclasses.replace(constraints, min_items=None, max_items=None)
                gaps += [f"items: {g}" for g in constraint_gaps(items, inner, app.inner)]
            return gaps
        case MapType(values=values):
            bound = f"bound on the {quantity(K.MIN_PROPERTIES)}"
            gaps = _length_gaps(app, None, None, bound, bound, unit=K.MIN_PROPERTIES)
            if app.inner is not None:
                gaps += [f"values: {g}" for g in constraint_gaps(values, NO_CONSTRAINTS, app.inner)]
            return gaps
        case PrimitiveType(kind=kind) if kind is not Primitive.ANY:
            if constraints.enum is not None:
                return [
                    f"the tool allows {value!r}, which fails {rule}"
                    for value in constraints.enum
                    if (rule := _rejecting_rule(value, app)) is not None
                ]
            integer = kind is Primitive.INTEGER
            gaps = _length_gaps(app, constraints.min_length, constraints.max_length)
            gaps += _bound_gaps(app, constraints, integer)
            if app.multiple_of is not None and not (integer and app.multiple_of == 1):
                gaps.append(
                    f"multiple_of={app.multiple_of!r} where the tool promises no multiple "
                    "(list the values with enum=...)"
                )
            gaps += [
                f"pattern={pattern!r} where the tool "
                + (
                    f"allows pattern={constraints.pattern!r}"
                    if constraints.pattern
                    else "sets no pattern"
                )
                for pattern in app.patterns
                if pattern != constraints.pattern
            ]
            return gaps
    return []


def _length_gaps(
    app: PyConstraints,
    tool_min: int | None,
    tool_max: int | None,
    min_name: str = "min_length",
    max_name: str = "max_length",
    unit: str | None = None,
) -> list[str]:
    """How the application's length bounds reject values the tool's allow; ``unit`` is the size
    keyword whose noun says what the lengths count (characters go unsaid)."""
    gaps: list[str] = []
    if app.min_length is not None and app.min_length > (tool_min or 0):
        tool_side = f"allows {min_name}={tool_min}" if tool_min else f"sets no {min_name}"
        gaps.append(f"min_length={_counted(app.min_length, unit)} where the tool {tool_side}")
    if app.max_length is not None and (tool_max is None or tool_max > app.max_length):
        tool_side = (
            f"allows {max_name}={tool_max}" if tool_max is not None else f"sets no {max_name}"
        )
        gaps.append(f"max_length={_counted(app.max_length, unit)} where the tool {tool_side}")
    return gaps


def _counted(length: int, unit: str | None) -> str:
    return counted(length, unit) if unit else str(length)


def _bound_gaps(app: PyConstraints, tool: Constraints, integer: bool) -> list[str]:
    gaps: list[str] = []
    for side, app_bounds, tool_bounds in (
        (
            "upper",
            (("le", app.le, False), ("lt", app.lt, True)),
            (("maximum", tool.maximum, False), ("exclusive_maximum", tool.exclusive_maximum, True)),
        ),
        (
            "lower",
            (("ge", app.ge, False), ("gt", app.gt, True)),
            (("minimum", tool.minimum, False), ("exclusive_minimum", tool.exclusive_minimum, True)),
        ),
    ):
        tool_given = [(name, v, excl) for name, v, excl in tool_bounds if v is not None]
        for name, value, exclusive in app_bounds:
            if value is None:
                continue
            if any(_within(side, v, excl, value, exclusive, integer) for _, v, excl in tool_given):
                continue
            tool_side = (
                "allows " + ", ".join(f"{n}={v!r}" for n, v, _ in tool_given)
                if tool_given
                else f"sets no {'maximum' if side == 'upper' else 'minimum'}"
            )
            gaps.append(f"{name}={value!r} where the tool {tool_side}")
    return gaps


def _within(
    side: str, tool: Any, tool_exclusive: bool, app: Any, app_exclusive: bool, integer: bool
) -> bool:
    """Whether every value inside the tool's bound is inside the application's (same side)."""
    try:
        if integer:
            t, a = _int_bound(side, tool, tool_exclusive), _int_bound(side, app, app_exclusive)
            return t <= a if side == "upper" else t >= a
        if tool == app:
            return tool_exclusive or not app_exclusive
        return bool(tool < app) if side == "upper" else bool(tool > app)
    except TypeError:  # a bound of another kind (a date on a number): nothing to compare
        return False


def _int_bound(side: str, value: Any, exclusive: bool) -> int:
    """The last integer a bound lets through."""
    if side == "upper":
        return int(math.ceil(value) - 1 if exclusive else math.floor(value))
    return int(math.floor(value) + 1 if exclusive else math.ceil(value))


def _rejecting_rule(value: Any, app: PyConstraints) -> str | None:
    """The first of the application's rules that ``value`` (one the tool allows) breaks."""
    checks: list[tuple[str, Callable[[Any], bool]]] = [
        (
            f"min_length={app.min_length}",
            lambda v: app.min_length is None or len(v) >= app.min_length,
        ),
        (
            f"max_length={app.max_length}",
            lambda v: app.max_length is None or len(v) <= app.max_length,
        ),
        (f"ge={app.ge!r}", lambda v: app.ge is None or v >= app.ge),
        (f"gt={app.gt!r}", lambda v: app.gt is None or v > app.gt),
        (f"le={app.le!r}", lambda v: app.le is None or v <= app.le),
        (f"lt={app.lt!r}", lambda v: app.lt is None or v < app.lt),
        (
            f"multiple_of={app.multiple_of!r}",
            lambda v: app.multiple_of is None or v % app.multiple_of == 0,
        ),
        *(
            (f"pattern={pattern!r}", lambda v, p=pattern: re.search(p, v) is not None)
            for pattern in app.patterns
        ),
    ]
    for rule, holds in checks:
        try:
            if not holds(value):
                return rule
        except (TypeError, re.error):
            return rule
    return None
