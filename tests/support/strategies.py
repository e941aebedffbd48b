"""Hypothesis strategies for values that satisfy the JSON Schemas tooldesign generates.

Covers the subset tooldesign emits: types, enum, local $ref (recursion bounded by depth),
anyOf/oneOf, object properties/required/additionalProperties, array items and sizes, number
bounds, string lengths, patterns and formats.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

_END_ANCHOR = re.compile(r"(?<!\\)\$")

_LABEL = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=8)
_FORMATS: dict[str, st.SearchStrategy[str]] = {
    "date-time": st.datetimes(
        min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ).map(lambda d: d.isoformat()),
    "date": st.dates().map(lambda d: d.isoformat()),
    "time": st.times().map(lambda t: t.isoformat()),
    "duration": st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=30)).map(
        lambda d: f"PT{int(d.total_seconds())}S"
    ),
    "email": st.tuples(_LABEL, _LABEL, st.sampled_from(["com", "org", "net"])).map(
        lambda t: f"{t[0]}@{t[1]}.{t[2]}"
    ),
    "uuid": st.uuids().map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "hostname": st.lists(_LABEL, min_size=1, max_size=3).map(".".join),
    "uri": st.tuples(_LABEL, _LABEL).map(lambda t: f"https://{t[0]}.example/{t[1]}"),
}


def from_schema(schema: Mapping[str, Any], *, max_depth: int = 3) -> st.SearchStrategy[Any]:
    return _Builder(schema, max_depth).strategy(schema, 0)


class _Builder:
    def __init__(self, root: Mapping[str, Any], max_depth: int) -> None:
        self.defs: Mapping[str, Any] = root.get("$defs", {})
        self.max_depth = max_depth

    def strategy(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
        if "$ref" in schema:
            target = self.defs[schema["$ref"].rsplit("/", 1)[-1]]
            return st.deferred(lambda: self.strategy(target, depth + 1))
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        if "const" in schema:
            return st.just(schema["const"])
        variants = schema.get("anyOf") or schema.get("oneOf")
        if variants:
            return st.one_of([self.strategy(v, depth) for v in variants])
        kind = schema.get("type")
        if kind is None:
            return json_values
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            return self._integer(schema)
        if kind == "number":
            return self._number(schema)
        if kind == "string":
            return self._string(schema)
        if kind == "array":
            return self._array(schema, depth)
        if kind == "object":
            return self._object(schema, depth)
        raise ValueError(f"unsupported schema type {kind!r}")

    def _integer(self, schema: Mapping[str, Any]) -> st.SearchStrategy[int | float]:
        lo = schema.get("minimum")
        if "exclusiveMinimum" in schema:
            lo = int(schema["exclusiveMinimum"]) + 1
        hi = schema.get("maximum")
        if "exclusiveMaximum" in schema:
            hi = int(schema["exclusiveMaximum"]) - 1
        integers = st.integers(min_value=lo, max_value=hi)
        # JSON Schema's integer takes a number with no fractional part (3.0) too.
        exact = st.integers(
            min_value=max(lo, -(2**53)) if lo is not None else -(2**53),
            max_value=min(hi, 2**53) if hi is not None else 2**53,
        )
        return integers | exact.map(float)

    def _number(self, schema: Mapping[str, Any]) -> st.SearchStrategy[float]:
        return st.floats(
            min_value=schema.get("minimum", schema.get("exclusiveMinimum")),
            max_value=schema.get("maximum", schema.get("exclusiveMaximum")),
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
            allow_nan=False,
            allow_infinity=False,
        )

    def _string(self, schema: Mapping[str, Any]) -> st.SearchStrategy[str]:
        lo, hi = schema.get("minLength", 0), schema.get("maxLength")
        if "format" in schema:
            base = _FORMATS[schema["format"]]
        elif "pattern" in schema:
            # JSON Schema patterns are ECMA-262: "$" matches only at the very end, whereas Python's
            # also matches before a final newline. Keep the strings both engines accept.
            ecma = re.compile(_END_ANCHOR.sub(r"\\Z", schema["pattern"]))
            base = st.from_regex(schema["pattern"]).filter(lambda s: ecma.search(s) is not None)
        else:
            return st.text(min_size=lo, max_size=hi)
        return base.filter(lambda s: len(s) >= lo and (hi is None or len(s) <= hi))

    def _array(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[list[Any]]:
        lo = schema.get("minItems", 0)
        hi = schema.get("maxItems", 4)
        if depth >= self.max_depth:
            hi = lo  # stop recursion as early as the schema allows
        return st.lists(
            self.strategy(schema.get("items", {}), depth), min_size=lo, max_size=max(lo, min(hi, 4))
        )

    def _object(self, schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
        properties: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping) and not properties:
            size = 0 if depth >= self.max_depth else 3
            return st.dictionaries(st.text(max_size=8), self.strategy(extra, depth), max_size=size)
        required = set(schema.get("required", []))
        optional = [name for name in properties if name not in required]
        fields = {name: self.strategy(properties[name], depth) for name in properties}

        @st.composite
        def build(draw: st.DrawFn) -> dict[str, Any]:
            out = {name: draw(fields[name]) for name in properties if name in required}
            if depth < self.max_depth:
                for name in (
                    draw(st.lists(st.sampled_from(optional), unique=True)) if optional else []
                ):
                    out[name] = draw(fields[name])
            return out

        return build()
