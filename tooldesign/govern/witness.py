"""Witnesses: a payload the old schema accepts and the new one rejects, to show a break.

A change the diff calls breaking for models comes with candidate values for the place it
changed (the removed enum value, the old maximum, an extra key…). :func:`find_witness` builds
the smallest payload the old schema accepts around each candidate — required fields only, plus
whatever leads to the changed place — and keeps the first that the old schema accepts and the
new one rejects, both checked with ``jsonschema`` (formats asserted, as the codecs assert
them). A witness is therefore never wrong; when no candidate works (a pattern that only a
cleverer string would break), the change is shown without one.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from tooldesign.contract.formats import FORMATS
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.refs import follow

# An instance step: into a property, an array item, or a map value.
Step = tuple[str, str] | tuple[str]
PROPERTY, ITEM, VALUE = "property", "item", "value"
MAP_KEY = "key"
"""The key a witness uses for a map entry (a map's values have no names of their own)."""

Leaf = Callable[[Any], Any]
"""Turns the sample at the changed place into a candidate (raises :class:`NoSample` if it
cannot)."""

_FORMAT_SAMPLES: Mapping[str, tuple[str, ...]] = {f.name: f.examples for f in FORMATS}
_STRING_GUESSES = (
    *("a", "b", "0", "1", "A", "z", "-", "_", " ", "."),
    *("aa", "ab", "00", "01", "a0", "a-a", "a.b", "x y"),
)
_MAX_DEPTH = 8


class NoSample(Exception):
    """No value could be made for a schema (a pattern no guess matches, say)."""


@dataclass(frozen=True, slots=True)
class Witness:
    """A payload the old schema accepts and the new one rejects."""

    payload: Any


def find_witness(
    old_root: Mapping[str, Any],
    new_root: Mapping[str, Any],
    steps: Sequence[Step],
    leaves: Iterable[Leaf],
) -> Witness | None:
    """The first candidate payload ``old_root`` accepts and ``new_root`` rejects, if any.

    ``steps`` lead from the payload to the changed place (as ``old_root`` sees it); each leaf
    turns the sample found there into a candidate for that place.
    """
    old_check, new_check = _validator(old_root), _validator(new_root)
    for leaf in leaves:
        try:
            payload = _build(old_root, old_root, list(steps), leaf, 0)
        except (NoSample, RecursionError):
            continue
        if old_check.is_valid(payload) and not new_check.is_valid(payload):
            return Witness(payload)
    return None


def _validator(root: Mapping[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _build(root: Mapping[str, Any], schema: Any, steps: list[Step], leaf: Leaf, depth: int) -> Any:
    """A sample of ``schema`` in which the place ``steps`` lead to holds ``leaf``'s value."""
    node = resolve(root, schema)
    if not steps:
        return leaf(node)
    step, rest = steps[0], steps[1:]
    if step[0] == ITEM:
        items = node.get(K.ITEMS, {}) if isinstance(node, Mapping) else {}
        value = [_build(root, items, rest, leaf, depth + 1)]
        minimum = node.get(K.MIN_ITEMS, 0) if isinstance(node, Mapping) else 0
        others = items_of(root, node, minimum, depth) if minimum > 1 else []
        return value + others[1:]
    base = sample(root, node, depth)
    if not isinstance(base, dict):
        base = {}
    if step[0] == VALUE:
        extra = node.get(K.ADDITIONAL_PROPERTIES, {})
        base[MAP_KEY] = _build(root, extra if isinstance(extra, Mapping) else {}, rest, leaf, depth)
        return base
    name = step[1] if len(step) > 1 else ""
    properties = node.get(K.PROPERTIES, {})
    child = properties.get(name, node.get(K.ADDITIONAL_PROPERTIES, {}))
    base[name] = _build(root, child if isinstance(child, Mapping) else {}, rest, leaf, depth + 1)
    return base


def resolve(root: Mapping[str, Any], schema: Any) -> Any:
    """``schema`` with its local ``$ref`` followed; :class:`NoSample` when it cannot be (a value
    checked against a reference that points nowhere, or only round in a circle, is never
    valid)."""
    if not isinstance(schema, Mapping) or K.REF not in schema:
        return schema
    followed = follow(schema, root)
    if followed.broken is not None:
        raise NoSample
    return followed.schema


def sample(root: Mapping[str, Any], schema: Any, depth: int = 0, variant: int = 0) -> Any:
    """A small value ``schema`` accepts (required fields only), or :class:`NoSample`.

    ``variant`` asks for another value (``sample(..., variant=1)`` differs from the first
    where the schema allows it): what an array of unique items needs.
    """
    if depth > _MAX_DEPTH:
        raise NoSample
    node = resolve(root, schema)
    if node is True or node == {}:
        return _pick([None, 0, "a"], variant)
    if not isinstance(node, Mapping):
        raise NoSample
    if K.CONST in node:
        return _pick([node[K.CONST]], variant)
    if isinstance(node.get(K.ENUM), list):
        return _pick(node[K.ENUM], variant)
    variants = node.get(K.ANY_OF, node.get(K.ONE_OF))
    if isinstance(variants, list):
        for option in variants:
            try:
                return sample(root, option, depth + 1, variant)
            except NoSample:
                continue
        raise NoSample
    types = schema_types(node)
    kind = next((t for t in _SAMPLE_ORDER if t in types), None)
    return _SAMPLERS[kind](root, node, depth, variant) if kind else None


_SAMPLE_ORDER = ("object", "string", "integer", "number", "boolean", "array", "null")


def _pick(values: Sequence[Any], variant: int) -> Any:
    if variant >= len(values):
        raise NoSample
    return values[variant]


def schema_types(node: Mapping[str, Any]) -> frozenset[str]:
    """The JSON types a schema names (``integer`` counted apart from ``number``)."""
    declared = node.get(K.TYPE)
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    if K.PROPERTIES in node or K.ADDITIONAL_PROPERTIES in node or K.REQUIRED in node:
        return frozenset({"object"})
    if K.ITEMS in node:
        return frozenset({"array"})
    return ANY_TYPE


ANY_TYPE = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})


def _object(root: Mapping[str, Any], node: Mapping[str, Any], depth: int, variant: int) -> Any:
    properties = node.get(K.PROPERTIES, {})
    extra = node.get(K.ADDITIONAL_PROPERTIES, {})
    out: dict[str, Any] = {}
    for name in node.get(K.REQUIRED, []):
        child = properties.get(name, extra if isinstance(extra, Mapping) else {})
        out[name] = sample(root, child, depth + 1, variant)
    if variant and not out:
        raise NoSample
    return out


def _array(root: Mapping[str, Any], node: Mapping[str, Any], depth: int, variant: int) -> Any:
    if variant:
        raise NoSample
    return items_of(root, node, node.get(K.MIN_ITEMS, 0), depth)


def items_of(root: Mapping[str, Any], node: Any, count: int, depth: int = 0) -> list[Any]:
    """``count`` items for the array schema ``node``: different ones when they must be unique."""
    items = node.get(K.ITEMS, {}) if isinstance(node, Mapping) else {}
    unique = isinstance(node, Mapping) and node.get(K.UNIQUE_ITEMS) is True
    values = [sample(root, items, depth + 1, i if unique else 0) for i in range(count)]
    if unique and len({json.dumps(v, sort_keys=True) for v in values}) < len(values):
        raise NoSample
    return values


def _string(root: Mapping[str, Any], node: Mapping[str, Any], depth: int, variant: int) -> Any:
    fmt = node.get(K.FORMAT)
    low, high = node.get(K.MIN_LENGTH, 0), node.get(K.MAX_LENGTH)
    if isinstance(fmt, str) and fmt in _FORMAT_SAMPLES:
        guesses: Iterable[str] = _FORMAT_SAMPLES[fmt]
    else:
        guesses = ["a" * low, *(guess * -(-max(1, low) // len(guess)) for guess in _STRING_GUESSES)]
    pattern = node.get(K.PATTERN)
    fitting = [
        guess
        for guess in dict.fromkeys(guesses)
        if low <= len(guess)
        and (high is None or len(guess) <= high)
        and not (isinstance(pattern, str) and not matches_pattern(pattern, guess))
    ]
    return _pick(fitting, variant)


def matches_pattern(pattern: str, text: str) -> bool:
    """Whether ``pattern`` (searched, as JSON Schema does) finds a match in ``text``."""
    compiled = _compiled(pattern)
    return compiled is not None and compiled.search(text) is not None


@cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _integer(root: Mapping[str, Any], node: Mapping[str, Any], depth: int, variant: int) -> Any:
    return _pick(numbers_in(node, integer=True), variant)


def _number(root: Mapping[str, Any], node: Mapping[str, Any], depth: int, variant: int) -> Any:
    return _pick(numbers_in(node, integer=False), variant)


def number_in(node: Mapping[str, Any], *, integer: bool) -> int | float | None:
    """The number nearest zero that ``node``'s bounds and ``multipleOf`` allow, if one is easy."""
    found = numbers_in(node, integer=integer)
    return found[0] if found else None


def numbers_in(node: Mapping[str, Any], *, integer: bool) -> list[int | float]:
    """A few numbers ``node``'s bounds and ``multipleOf`` allow, the one nearest zero first."""
    low, low_open = lower_bound(node) or (None, False)
    high, high_open = upper_bound(node) or (None, False)
    step = node.get(K.MULTIPLE_OF)
    unit = (
        Fraction(str(step))
        if isinstance(step, int | float) and not isinstance(step, bool) and step > 0
        else None
    )
    start = Fraction(0)
    if low is not None and (start < low or (start == low and low_open)):
        start = low
    if high is not None and (start > high or (start == high and high_open)):
        start = high
    offsets = [Fraction(n, 2) for n in (0, 2, -2, 1, -1, 4, -4, 6)]
    candidates = [start + offset for offset in offsets]
    if unit is not None:
        below = (start // unit) * unit
        candidates = [below + unit * k for k in (0, 1, -1, 2, -2, 3)] + candidates
    found: list[int | float] = []
    for candidate in candidates:
        if integer and candidate.denominator != 1:
            continue
        if unit is not None and (candidate / unit).denominator != 1:
            continue
        if low is not None and (candidate < low or (candidate == low and low_open)):
            continue
        if high is not None and (candidate > high or (candidate == high and high_open)):
            continue
        value = int(candidate) if candidate.denominator == 1 else float(candidate)
        if value not in found:
            found.append(value)
    return found


def lower_bound(node: Mapping[str, Any]) -> tuple[Fraction, bool] | None:
    """The stricter of ``minimum`` and ``exclusiveMinimum``: (value, exclusive), or ``None``."""
    return _bound(node, K.MINIMUM, K.EXCLUSIVE_MINIMUM, max)


def upper_bound(node: Mapping[str, Any]) -> tuple[Fraction, bool] | None:
    """The stricter of ``maximum`` and ``exclusiveMaximum``: (value, exclusive), or ``None``."""
    return _bound(node, K.MAXIMUM, K.EXCLUSIVE_MAXIMUM, min)


def _bound(
    node: Mapping[str, Any],
    closed: str,
    open_: str,
    stricter: Callable[[Fraction, Fraction], Fraction],
) -> tuple[Fraction, bool] | None:
    found: list[tuple[Fraction, bool]] = []
    for key, exclusive in ((closed, False), (open_, True)):
        value = node.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            found.append((Fraction(str(value)), exclusive))
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    (a, a_open), (b, b_open) = found
    if a == b:
        return a, a_open or b_open
    return (a, a_open) if stricter(a, b) == a else (b, b_open)


_SAMPLERS: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any], int, int], Any]] = {
    "object": _object,
    "array": _array,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": lambda root, node, depth, variant: _pick([False, True], variant),
    "null": lambda root, node, depth, variant: _pick([None], variant),
}
