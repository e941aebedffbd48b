"""Translate pydantic validation errors into :class:`FieldIssue`s a model can act on.

Pydantic knows *that* a value is wrong; the design knows what the field is for, which values
are allowed and what its bounds are. Each error's location is followed through the tool's
model-facing JSON Schema to find that field, so every issue carries the design's own words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_core import ErrorDetails
from tooldesign.runtime.errors import Constraint, FieldIssue

_RANGE_ERRORS = frozenset(
    {
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
        "multiple_of",
        "finite_number",
    }
)
_LENGTH_ERRORS = frozenset({"string_too_short", "string_too_long", "too_short", "too_long"})
_ENUM_ERRORS = frozenset({"literal_error", "enum"})
_FORMAT_PREFIXES = (
    "datetime_",
    "date_",
    "time_",
    "timedelta_",
    "timezone_",
    "uuid_",
    "ip_",
    "url_",
    "email",
)
_BOUND_KEYWORDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
)
_MAX_SHOWN = 80


def json_type(value: Any) -> str:
    """The JSON type name of a decoded JSON value."""
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
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


def shown(value: Any) -> str:
    """A value as JSON, cut short: safe to put in a one-line message whatever it contains."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 1] + "…"
    return text


@dataclass(frozen=True, slots=True)
class _Located:
    """Where an error's location led in the schema."""

    path: str
    schema: Mapping[str, Any] | None
    parent: Mapping[str, Any] | None
    in_union: bool
    depth: int
    """How many parts of the location lead to ``schema``."""


class SchemaNavigator:
    """Follows pydantic error locations through a JSON Schema (local ``$ref``s resolved)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._root = schema
        self._defs: Mapping[str, Any] = schema.get("$defs", {})

    def resolve(self, node: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        seen = 0
        while node is not None and "$ref" in node and seen < 32:
            ref = node["$ref"]
            name = ref.rsplit("/", 1)[-1] if isinstance(ref, str) else ""
            target = self._defs.get(name)
            if target is None:
                return node
            # Keywords beside a $ref (a description) describe the field; keep them.
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if siblings else target
            seen += 1
        return node

    def locate(self, loc: Sequence[int | str]) -> _Located:
        node = self.resolve(self._root)
        parent: Mapping[str, Any] | None = None
        path = ""
        for index, part in enumerate(loc):
            if node is None:
                path = _join(path, part)
                continue
            variants = node.get("anyOf") or node.get("oneOf")
            if variants:
                chosen = self._variant(node, part)
                if chosen is None:
                    # A plain union: pydantic reports one error per variant; keep them together
                    # at the union itself.
                    return _Located(path, node, parent, True, index)
                node = chosen
                continue
            parent = node
            node = self.resolve(self._child(node, part))
            path = _join(path, part)
            if node is None and index < len(loc) - 1:
                continue
        return _Located(path, node, parent, False, len(loc))

    def _child(self, node: Mapping[str, Any], part: int | str) -> Mapping[str, Any] | None:
        if isinstance(part, int) or node.get("type") == "array":
            items = node.get("items")
            return items if isinstance(items, Mapping) else None
        properties = node.get("properties")
        if isinstance(properties, Mapping) and part in properties:
            child = properties[part]
            return child if isinstance(child, Mapping) else None
        extra = node.get("additionalProperties")
        return extra if isinstance(extra, Mapping) else None

    def _variant(self, node: Mapping[str, Any], tag: int | str) -> Mapping[str, Any] | None:
        discriminator = node.get("discriminator")
        if not isinstance(discriminator, Mapping):
            return None
        prop = discriminator.get("propertyName")
        for raw in node.get("anyOf") or node.get("oneOf") or ():
            variant = self.resolve(raw)
            if variant is None:
                continue
            tag_schema = self.resolve((variant.get("properties") or {}).get(prop))
            if tag_schema is None:
                continue
            values = tag_schema.get("enum") or (
                [tag_schema["const"]] if "const" in tag_schema else []
            )
            if tag in values:
                return variant
        return None

    def describe_type(self, node: Mapping[str, Any] | None) -> str:
        node = self.resolve(node)
        if not node:
            return "any value"
        variants = node.get("anyOf") or node.get("oneOf")
        if variants:
            return " or ".join(self.describe_type(v) for v in variants)
        kind = node.get("type")
        if isinstance(kind, list):
            return " or ".join(str(k) for k in kind)
        if kind == "array":
            return f"array of {self.describe_type(node.get('items'))}"
        if kind == "object" and node.get("title"):
            return f"object ({node['title']})"
        if kind is None and "enum" in node:
            return "one of " + ", ".join(shown(v) for v in node["enum"])
        return str(kind) if kind else "any value"


def _join(path: str, part: int | str) -> str:
    if isinstance(part, int):
        return f"{path}[{part}]"
    return f"{path}.{part}" if path else str(part)


def schema_bounds(node: Mapping[str, Any] | None) -> dict[str, int | float]:
    if not node:
        return {}
    return {k: node[k] for k in _BOUND_KEYWORDS if isinstance(node.get(k), int | float)}


def _constraint(error_type: str, value: Any, node: Mapping[str, Any] | None) -> Constraint:
    if error_type == "missing":
        return Constraint.MISSING_FIELD
    if error_type == "extra_forbidden":
        return Constraint.UNKNOWN_FIELD
    if error_type in _ENUM_ERRORS or error_type == "union_tag_invalid":
        return Constraint.INVALID_ENUM_VALUE
    if error_type == "union_tag_not_found":
        return Constraint.MISSING_FIELD
    if error_type in _RANGE_ERRORS:
        return Constraint.INVALID_RANGE
    if error_type in _LENGTH_ERRORS:
        return Constraint.INVALID_LENGTH
    if error_type == "string_pattern_mismatch":
        # A format the model enforces with a pattern is still a format problem to the caller.
        if node is not None and "format" in node and "pattern" not in node:
            return Constraint.INVALID_FORMAT
        return Constraint.INVALID_PATTERN
    if (error_type.startswith(_FORMAT_PREFIXES) or error_type == "value_error") and isinstance(
        value, str
    ):
        return Constraint.INVALID_FORMAT
    return Constraint.INVALID_FIELD_TYPE


def _message(
    constraint: Constraint,
    error: ErrorDetails,
    node: Mapping[str, Any] | None,
    parent: Mapping[str, Any] | None,
    expected: str,
) -> str:
    value = error.get("input")
    got = f" (got {shown(value)})"
    if constraint is Constraint.MISSING_FIELD:
        if error["type"] == "union_tag_not_found":
            ctx = error.get("ctx") or {}
            return f"required field {ctx.get('discriminator', 'discriminator')!s} is missing"
        return f"required field is missing (expected {expected})"
    if constraint is Constraint.UNKNOWN_FIELD:
        allowed = sorted((parent or {}).get("properties", {}))
        listed = ", ".join(allowed) if allowed else "none"
        return f"unknown field; allowed fields are: {listed}"
    if constraint is Constraint.INVALID_ENUM_VALUE:
        if error["type"] == "union_tag_invalid":
            ctx = error.get("ctx") or {}
            return f"unknown {ctx.get('discriminator', 'variant')}; expected one of {ctx.get('expected_tags', '')}{got}"
        values = (node or {}).get("enum") or []
        return "must be one of " + ", ".join(shown(v) for v in values) + got
    if constraint is Constraint.INVALID_RANGE:
        parts = []
        bounds = schema_bounds(node)
        for key, op in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
        ):
            if key in bounds:
                parts.append(f"{op} {bounds[key]}")
        if "multipleOf" in bounds:
            parts.append(f"a multiple of {bounds['multipleOf']}")
        if error["type"] == "finite_number":
            parts.append("a finite number")
        return "must be " + (" and ".join(parts) or "within range") + got
    if constraint is Constraint.INVALID_LENGTH:
        bounds = schema_bounds(node)
        if isinstance(value, str):
            lo, hi, unit, size = (
                bounds.get("minLength"),
                bounds.get("maxLength"),
                "characters",
                len(value),
            )
        else:
            lo, hi, unit = bounds.get("minItems"), bounds.get("maxItems"), "items"
            size = len(value) if isinstance(value, Sequence) else 0
        if lo is not None and hi is not None:
            rule = f"between {lo} and {hi}"
        elif lo is not None:
            rule = f"at least {lo}"
        else:
            rule = f"at most {hi}"
        return f"must have {rule} {unit} (got {size})"
    if constraint is Constraint.INVALID_PATTERN:
        return f"must match the pattern {(node or {}).get('pattern', '')}{got}"
    if constraint is Constraint.INVALID_FORMAT:
        fmt = (node or {}).get("format")
        if error["type"].startswith("timezone_"):
            # A valid-looking time without an offset: say what is missing, not just "invalid".
            return f"must be a {fmt or 'date-time'} with a timezone offset, such as 2026-01-31T09:30:00Z{got}"
        if fmt:
            return f"must be a valid {fmt}{got}"
        return f"{error.get('msg', 'invalid format')}{got}"
    return f"expected {expected}, got {json_type(value)}{got if value is not None else ''}"


def field_issues(
    errors: Iterable[ErrorDetails], nav: SchemaNavigator, root_input: Any
) -> list[FieldIssue]:
    """One issue per bad field, in the order pydantic found them."""
    issues: list[FieldIssue] = []
    seen: set[str] = set()
    for error in errors:
        located = nav.locate(error["loc"])
        if located.in_union:
            if located.path in seen:
                continue
            seen.add(located.path)
            value = _value_at(root_input, error["loc"][: located.depth])
            issues.append(_union_issue(value, located, nav))
            continue
        node = located.schema
        value = error.get("input")
        constraint = _constraint(error["type"], value, node)
        expected = nav.describe_type(node)
        key = f"{located.path}\0{constraint}"
        if key in seen:
            continue
        seen.add(key)
        has_value = constraint not in (Constraint.MISSING_FIELD, Constraint.UNKNOWN_FIELD)
        issues.append(
            FieldIssue(
                field=located.path,
                constraint=constraint,
                message=_message(constraint, error, node, located.parent, expected),
                description=_description(node),
                expected=expected if constraint is not Constraint.UNKNOWN_FIELD else None,
                actual=json_type(value) if has_value else None,
                allowed=tuple(node["enum"])
                if node and isinstance(node.get("enum"), list)
                else None,
                bounds=schema_bounds(node) or None,
                pattern=node.get("pattern") if node else None,
                format=node.get("format") if node else None,
            )
        )
    return issues


def _value_at(root: Any, loc: Sequence[int | str]) -> Any:
    """The value the caller sent at ``loc`` (pydantic reports a variant's inner value instead)."""
    value = root
    for part in loc:
        if isinstance(value, Mapping):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int) and -len(value) <= part < len(value):
            value = value[part]
        else:
            return None
    return value


def _union_issue(value: Any, located: _Located, nav: SchemaNavigator) -> FieldIssue:
    node = located.schema
    expected = nav.describe_type(node)
    return FieldIssue(
        field=located.path,
        constraint=Constraint.INVALID_FIELD_TYPE,
        message=f"expected {expected}, got {json_type(value)} {shown(value)}",
        description=_description(node),
        expected=expected,
        actual=json_type(value),
    )


def _description(node: Mapping[str, Any] | None) -> str | None:
    if not node:
        return None
    text = node.get("description")
    return text if isinstance(text, str) else None


_JSONSCHEMA_CONSTRAINTS: Mapping[str, Constraint] = {
    "required": Constraint.MISSING_FIELD,
    "type": Constraint.INVALID_FIELD_TYPE,
    "enum": Constraint.INVALID_ENUM_VALUE,
    "const": Constraint.INVALID_ENUM_VALUE,
    "minimum": Constraint.INVALID_RANGE,
    "maximum": Constraint.INVALID_RANGE,
    "exclusiveMinimum": Constraint.INVALID_RANGE,
    "exclusiveMaximum": Constraint.INVALID_RANGE,
    "multipleOf": Constraint.INVALID_RANGE,
    "minLength": Constraint.INVALID_LENGTH,
    "maxLength": Constraint.INVALID_LENGTH,
    "minItems": Constraint.INVALID_LENGTH,
    "maxItems": Constraint.INVALID_LENGTH,
    "minProperties": Constraint.INVALID_LENGTH,
    "maxProperties": Constraint.INVALID_LENGTH,
    "pattern": Constraint.INVALID_PATTERN,
    "format": Constraint.INVALID_FORMAT,
    "additionalProperties": Constraint.UNKNOWN_FIELD,
    "unevaluatedProperties": Constraint.UNKNOWN_FIELD,
}


def schema_issues(validator: Any, value: Any) -> list[FieldIssue]:
    """What a ``jsonschema`` validator finds wrong with ``value``, one issue per place.

    For the parts of a schema kept verbatim (``Any(schema=...)``), which the model types
    cannot check: the paths and constraints read like the codecs' other issues.
    """
    issues: list[FieldIssue] = []
    seen: set[str] = set()
    for error in sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path)):
        path = ""
        for part in error.absolute_path:
            path = _join(path, part)
        constraint = _JSONSCHEMA_CONSTRAINTS.get(str(error.validator), Constraint.INVALID_FORMAT)
        if constraint is Constraint.MISSING_FIELD and isinstance(error.validator_value, list):
            missing = [
                name
                for name in error.validator_value
                if isinstance(error.instance, Mapping) and name not in error.instance
            ]
            path = _join(path, missing[0]) if missing else path
        if path in seen:
            continue
        seen.add(path)
        node = error.schema if isinstance(error.schema, Mapping) else None
        issues.append(
            FieldIssue(
                field=path,
                constraint=constraint,
                message=error.message,
                description=_description(node),
                actual=json_type(error.instance)
                if constraint is not Constraint.MISSING_FIELD
                else None,
                allowed=tuple(node["enum"])
                if node and isinstance(node.get("enum"), list)
                else None,
            )
        )
    return issues
