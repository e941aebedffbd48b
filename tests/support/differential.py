"""The decoder against an oracle nobody here wrote: instances of a published schema and their near
misses, judged by ``jsonschema`` (Draft 2020-12) with ECMA-262 patterns (``regress``, the
``u`` flag) and the format table's grammars, and by the generated codecs, as JSON text and as
a dict.

The deliberate differences (docs/limits.md, "Where the decoder and JSON Schema differ") are the
oracle's adjustments, each named: :func:`expected` applies them before ``jsonschema`` judges.
"""

from __future__ import annotations

import copy
import json
import math
import re
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import regress
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from tooldesign.runtime import ToolValidationError
from tooldesign.runtime.spec.formats import format_checker
from tooldesign.runtime.validation.codecs import PayloadCodec, ResultCodec
from tooldesign.runtime.validation.schema import strip_optional_nulls

# ── the oracle ──────────────────────────────────────────────────────────────────────────────


def _ecma(pattern: str) -> Any:
    return regress.Regex(pattern, "u")


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and _ecma(pattern).find(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _ecma(pattern).find(key) is not None:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [
        key
        for key in instance
        if key not in declared and not any(_ecma(p).find(key) is not None for p in patterns)
    ]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        yield ValidationError(f"unexpected properties {extras!r}")


ECMA_VALIDATOR = validators.extend(
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)
"""Draft 2020-12 whose patterns are ECMA-262's (a real ECMA-262 engine, ``regress``)."""


class Oracle:
    """Whether a JSON value is an instance of one schema, as JSON Schema reads it, with the
    documented deliberate differences applied."""

    def __init__(self, schema: Mapping[str, Any], *, injected: tuple[str, ...] = ()) -> None:
        self.schema = schema
        self.injected = injected
        self.validator = ECMA_VALIDATOR(schema, format_checker=format_checker())

    def accepts(self, value: Any) -> bool:
        return expected(value, self.schema, self.injected, self.validator)


def expected(
    value: Any, schema: Mapping[str, Any], injected: tuple[str, ...], validator: Any
) -> bool:
    """The oracle's answer, with the deliberate differences of docs/limits.md:

    1. numbers are finite: NaN, Infinity and a number no double holds (``1e400``) are refused
       wherever they are;
    2. a null for an optional field whose schema takes no null means "not given";
    3. a value sent for an injected field (not in the schema) is discarded, not refused.
    """
    if _non_finite(value):
        return False
    if isinstance(value, dict) and injected:
        value = {k: v for k, v in value.items() if k not in injected}
    value = strip_optional_nulls(value, schema)
    return bool(validator.is_valid(value))


def _non_finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


# ── the decoder ─────────────────────────────────────────────────────────────────────────────


def as_text(value: Any) -> str:
    """``value`` as JSON text; an infinity as ``1e400`` (what a model could send), NaN as is."""
    text = json.dumps(value, allow_nan=True)
    return re.sub(r'(?<![\w"])(-?)Infinity(?![\w"])', r"\g<1>1e400", text)


def with_repeated_keys(value: Any, most: int = 3) -> list[str]:
    """``value`` as JSON text with one of its objects' first key written twice, first with
    another value (``"zz"``): one text per object, for up to ``most`` objects."""
    objects = [p.value for p in places(value) if isinstance(p.value, dict) and p.value][:most]
    return [_written(value, id(target)) for target in objects]


def _written(value: Any, repeat: int) -> str:
    if isinstance(value, dict):
        items = [f"{json.dumps(k)}: {_written(v, repeat)}" for k, v in value.items()]
        if id(value) == repeat:
            items.insert(0, f'{json.dumps(next(iter(value)))}: "zz"')
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_written(v, repeat) for v in value) + "]"
    return as_text(value)


def payload_accepts(codec: PayloadCodec[Any], value: Any, injected: Mapping[str, Any]) -> bool:
    try:
        codec.decode(value, injected=injected)
    except ToolValidationError:
        return False
    return True


def result_accepts(codec: ResultCodec[Any], value: Any) -> tuple[bool, str | None]:
    """Whether a result is accepted, and the text that would be sent."""
    try:
        _, sent = codec.check(copy.deepcopy(value))
    except ToolValidationError:
        return False, None
    return True, sent


def result_text_accepts(codec: ResultCodec[Any], text: str) -> bool:
    try:
        codec.decode(text)
    except ToolValidationError:
        return False
    return True


# ── instances and near misses ───────────────────────────────────────────────────────────────

VALID_FORMATS: Mapping[str, tuple[str, ...]] = {
    "date-time": (
        "2026-01-31T09:30:00Z",
        "2026-01-31t09:30:00.123456789+01:00",
        "1999-12-31T23:59:59-23:59",
        "2024-02-29T00:00:00+00:00",
    ),
    "date": ("2026-01-31", "2024-02-29", "0001-01-01"),
    "time": ("09:30:00Z", "23:59:59.5+14:00", "00:00:00z"),
    "duration": ("PT1H", "P1D", "P2W", "P1Y2M3DT4H5M6S", "PT0S", "P1M", "PT36H"),
    "email": (
        "user@example.com",
        "user@localhost",
        '"john doe"@example.com',
        "a@[192.0.2.1]",
        "x+y@[IPv6:2001:db8::1]",
    ),
    "uri": (
        "https://example.com/",
        "http:///path",
        "urn:isbn:0451450523",
        "mailto:a@b",
        "http://[::1]:80/a?b#c",
        "file:",
    ),
    "uuid": ("123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"),
    "ipv4": ("192.0.2.1", "0.0.0.0", "255.255.255.255"),
    "ipv6": ("2001:db8::1", "::", "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8"),
    "hostname": ("example.com", "a", "xn--exmple-cua.com", "a" * 63 + ".b"),
}
"""Values of each format (by its RFC), the corners included."""

NEAR_FORMATS: Mapping[str, tuple[str, ...]] = {
    "date-time": ("not a date", "2026-02-30T09:30:00Z", "2026-01-31 09:30:00Z", "1700000000"),
    "date": ("2026-1-31", "2026-02-30", "0"),
    "time": ("09:30", "09:30:00", "24:00:00Z"),
    "duration": ("P1DT", "P1W1D", "PT1.5S", "-P1D", "01:00:00", "P"),
    "email": ("user", "a@", "@b", "a..b@c", "ü@example.com"),
    "uri": ("//x", "https://exämple.com/", "http://a b", "x"),
    "uuid": (
        "123e4567e89b12d3a456426614174000",
        "{123e4567-e89b-12d3-a456-426614174000}",
        "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
    ),
    "ipv4": ("010.0.0.1", "256.0.0.1", "1.2.3"),
    "ipv6": ("fe80::1%eth0", "1:2:3:4:5:6:7:8:9", "::ffff:192.0.2.01"),
    "hostname": (".".join(["a" * 60] * 5), "-a", "a_b", "example.com."),
}
"""Strings that look like each format and are not one."""

_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " -_.é٣\t", max_size=8)


class Instances:
    """Hypothesis strategies for instances of one schema (its ``$defs`` and references)."""

    def __init__(self, root: Mapping[str, Any], *, max_depth: int = 2) -> None:
        self.root = root
        self.max_depth = max_depth

    def of(self, schema: Any = None, depth: int = 0) -> st.SearchStrategy[Any]:
        schema = self.root if schema is None else schema
        if not isinstance(schema, Mapping):
            return _json_values()
        if "$ref" in schema:
            target = self.root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1], {})
            return st.deferred(lambda: self.of(target, depth + 1))
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if "const" in schema:
            return st.just(schema["const"])
        variants = schema.get("anyOf") or schema.get("oneOf")
        if variants:
            return st.one_of([self.of(v, depth) for v in variants])
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of([self.of({**schema, "type": k}, depth) for k in kind])
        maker = _MAKERS.get(kind)
        return _json_values() if maker is None else maker(self, schema, depth)

    def _string(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[str]:
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if "format" in schema and schema["format"] in VALID_FORMATS:
            base = st.sampled_from(VALID_FORMATS[schema["format"]])
        elif "pattern" in schema:
            base = st.from_regex(re.compile(schema["pattern"], re.ASCII))
        else:
            return st.text(min_size=low, max_size=high if high is not None else 6)
        return base.filter(lambda s: low <= len(s) and (high is None or len(s) <= high)) | base

    def _integer(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        low = None if low is None else math.ceil(low)
        high = None if high is None else math.floor(high)
        if low is not None and high is not None and low > high:
            low, high = high, low
        ints = st.integers(min_value=low, max_value=high)
        return ints | ints.map(float)  # 3.0 is an integer to JSON Schema

    def _number(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False) | (
            st.integers(
                min_value=None if low is None else math.ceil(low),
                max_value=None if high is None else math.floor(high),
            )
        )

    def _array(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[list[Any]]:
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", 3), 3)
        if depth >= self.max_depth:
            high = low
        return st.lists(
            self.of(schema.get("items", {}), depth + 1), min_size=low, max_size=max(low, high)
        )

    def _object(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
        properties: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping) and not properties:
            size = 0 if depth >= self.max_depth else 2
            return st.dictionaries(_TEXT, self.of(extra, depth + 1), max_size=size)
        required = list(schema.get("required", []))
        optional = [name for name in properties if name not in required]

        @st.composite
        def build(draw: st.DrawFn) -> dict[str, Any]:
            chosen = required + (
                draw(st.lists(st.sampled_from(optional), unique=True))
                if optional and depth < self.max_depth
                else []
            )
            return {name: draw(self.of(properties.get(name, {}), depth + 1)) for name in chosen}

        return build()


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-10, 10) | _TEXT
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_TEXT, inner, max_size=2),
        max_leaves=4,
    )


_MAKERS: Mapping[str, Callable[[Instances, Mapping[str, Any], int], st.SearchStrategy[Any]]] = {
    "string": Instances._string,
    "integer": Instances._integer,
    "number": Instances._number,
    "boolean": lambda self, schema, depth: st.booleans(),
    "null": lambda self, schema, depth: st.none(),
    "array": Instances._array,
    "object": Instances._object,
}


# ── near misses ─────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Place:
    """Where in an instance a near miss is made: its path, and the value there."""

    path: tuple[Any, ...]
    value: Any


def places(value: Any, path: tuple[Any, ...] = ()) -> list[Place]:
    found = [Place(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(places(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(places(item, (*path, index)))
    return found


def replaced(value: Any, path: tuple[Any, ...], new: Any, *, drop: bool = False) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    node = out
    for part in path[:-1]:
        node = node[part]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return out


def _misses_of(item: Any) -> list[Any]:
    """Values near ``item`` of another kind or just past its bounds."""
    if isinstance(item, bool):
        return [int(item), str(item).lower(), None]
    if isinstance(item, int):
        return [item + 1, item - 1, str(item), float(item) + 0.5, True, None, math.inf]
    if isinstance(item, float):
        return [
            item + 1,
            item - 1,
            str(item),
            -item,
            None,
            math.nan,
            math.inf,
            int(item) if math.isfinite(item) else 0,
        ]
    if isinstance(item, str):
        near = [
            item.upper(),
            item.title(),
            item + "!",
            item + "\n",
            item[:-1],
            "3",
            "",
            None,
            3,
            "\r" + item,
            "٣" + item,
            "\ufeff",
            "\x85",
        ]
        for examples in NEAR_FORMATS.values():
            near.append(examples[len(item) % len(examples)])
        return near
    if isinstance(item, list):
        return [item[1:], item + item[:1], [*item, None], None, {}, "[]"]
    if isinstance(item, dict):
        return [None, [], {**item, "zz_extra": 1}]
    return [0, "x", [], {}]


@st.composite
def near_misses(draw: st.DrawFn, instance: Any, count: int = 6) -> list[Any]:
    """Up to ``count`` near misses of ``instance``: one change each, at a place drawn."""
    spots = places(instance)
    out = []
    for _ in range(count):
        spot = draw(st.sampled_from(spots))
        options: list[Any] = ["drop"] if spot.path and isinstance(instance, dict) else []
        options.extend(range(len(_misses_of(spot.value))))
        choice = draw(st.sampled_from(options))
        if choice == "drop":
            out.append(replaced(instance, spot.path, None, drop=True))
        else:
            out.append(replaced(instance, spot.path, _misses_of(spot.value)[choice]))
    return out
