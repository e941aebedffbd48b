"""Translate pydantic validation errors into :class:`FieldIssue`s a model can act on.

Pydantic knows *that* a value is wrong; the design knows what the field is for, which values
are allowed and what its bounds are. Each error's location is followed through the tool's
model-facing JSON Schema to find that field, so every issue carries the design's own words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_core import ErrorDetails
from tooldesign.runtime.errors import Constraint, FieldIssue
from tooldesign.runtime.formats import RFC3339_ERROR

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
_MAX_KEY_SHOWN = 40
_MAX_PATH_SHOWN = 160
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*", re.ASCII)

MAX_ISSUES = 20
"""Issues kept per error: past them, a call's problems are counted, not described."""


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
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def shown(value: Any, limit: int = _MAX_SHOWN) -> str:
    """A value as JSON, cut short: safe to put in a one-line message whatever it contains.

    Only as much of the value is read as the text can show (a million-item list costs no more
    than a short one), and characters that are not printable — line breaks, NUL, bidirectional
    controls, lone surrogates — are escaped, so a value can never start a line of its own.
    """
    parts: list[str] = []
    _preview(value, parts, limit + 1)
    return printable(clipped("".join(parts), limit))


def clipped(text: str, limit: int = _MAX_SHOWN) -> str:
    """``text`` cut short to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(text: str, limit: int = _MAX_SHOWN) -> str:
    """``text`` JSON-quoted, cut short, non-printable characters escaped: safe in any message."""
    return printable(json.dumps(clipped(text, limit), ensure_ascii=False))


def shown_key(key: str) -> str:
    """A key or name as a message shows it: a plain name as it is, anything else quoted.

    Plain is identifier-like (``site_id``, ``site-id``); a key with dots, spaces, line breaks
    or nothing at all (``""``) is JSON-quoted, so it cannot pass for more of a path or a line
    of the message.
    """
    if len(key) <= _MAX_KEY_SHOWN and _PLAIN_KEY.fullmatch(key):
        return key
    return quoted(key, _MAX_KEY_SHOWN)


def printable(text: str) -> str:
    """``text`` with each character that is not printable written as a JSON escape (``\\u2028``)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON writes it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _preview(value: Any, out: list[str], budget: int) -> int:
    """Write ``value`` as JSON into ``out`` until ``budget`` characters are written; the rest."""
    if budget <= 0:
        return 0
    if isinstance(value, str):
        text = json.dumps(value[:budget], ensure_ascii=False)
    elif value is None or isinstance(value, bool):
        text = "null" if value is None else ("true" if value else "false")
    elif isinstance(value, int):
        # A huge number by its size: str() costs its length squared, and raises past 4,300 digits.
        bits = value.bit_length()
        text = (
            str(value) if bits < 256 else f"<an integer of about {int(bits * 0.30103) + 1} digits>"
        )
    elif isinstance(value, float):
        text = json.dumps(value)
    elif isinstance(value, Mapping):
        return _preview_items(value.items(), "{", "}", out, budget)
    elif isinstance(value, list | tuple):
        return _preview_items(value, "[", "]", out, budget)
    else:  # not a JSON value: its type says what it is
        text = f"<{type(value).__name__}>"
    out.append(text)
    return budget - len(text)


def _preview_items(items: Any, opening: str, closing: str, out: list[str], budget: int) -> int:
    out.append(opening)
    budget -= 1
    for index, item in enumerate(items):
        if budget <= 0:
            return budget
        if index:
            out.append(", ")
            budget -= 2
        if opening == "{":
            key, item = item
            budget = _preview(key if isinstance(key, str) else str(key), out, budget)
            out.append(": ")
            budget -= 2
        budget = _preview(item, out, budget)
    out.append(closing)
    return budget - 1


@dataclass(frozen=True, slots=True)
class _Start:
    """Where following a location begins: the payload's root, or a union's chosen variant."""

    node: Mapping[str, Any] | None
    parent: Mapping[str, Any] | None
    path: str
    described: str | None
    input_path: tuple[int | str, ...]


@dataclass(frozen=True, slots=True)
class _Located:
    """Where an error's location led in the schema."""

    path: str
    schema: Mapping[str, Any] | None
    parent: Mapping[str, Any] | None
    in_union: bool
    """The location enters a union without a discriminator; ``depth`` is its variant's label."""
    depth: int
    """How many parts of the location lead to ``schema``."""
    described: str | None
    """The nearest design description on the way: the field's own, or its closest holder's."""
    input_path: tuple[int | str, ...]
    """The parts of the location that index the caller's input (union labels and tags left out)."""


class SchemaNavigator:
    """Follows pydantic error locations through a JSON Schema (local ``$ref``s resolved).

    ``extra_properties`` are top-level fields the schema leaves out (injected fields, hidden
    from the model): their types name what is missing, but they are never listed as fields the
    caller may send.
    """

    def __init__(
        self,
        schema: Mapping[str, Any],
        *,
        extra_properties: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self._root = schema
        self._defs: Mapping[str, Any] = schema.get("$defs", {})
        self._extra = extra_properties or {}
        self._root_node = self.resolve(schema)

    def resolve(self, node: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        seen = 0
        while node is not None and "$ref" in node and seen < 32:
            target = self._defs.get(_ref_name(node) or "")
            if target is None:
                return node
            # Keywords beside a $ref (a description) describe the field; keep them.
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if siblings else target
            seen += 1
        return node

    def variants(self, node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """A union's variants as written (``$ref``s kept, for their names), ``null`` left out."""
        raw = node.get("anyOf") or node.get("oneOf") or ()
        return [
            v
            for v in raw
            if isinstance(v, Mapping) and (self.resolve(v) or {}).get("type") != "null"
        ]

    def locate(
        self, loc: Sequence[int | str], start: _Start | None = None, offset: int = 0
    ) -> _Located:
        """Follow ``loc[offset:]`` from ``start`` (the root by default)."""
        if start is None:
            node, parent, path, described, input_path = self._root_node, None, "", None, []
        else:
            node, parent, path = start.node, start.parent, start.path
            described, input_path = start.described, list(start.input_path)
        node, described = self._unwrap_optional(node, described)
        for index in range(offset, len(loc)):
            part = loc[index]
            if node is None:
                path = _join(path, part)
                input_path.append(part)
                continue
            if self.variants(node):
                chosen = self._variant(node, part)
                if chosen is None:
                    # A plain union: pydantic reports one error per variant, labelled; they are
                    # sorted out together (see field_issues).
                    return _Located(path, node, parent, True, index, described, tuple(input_path))
                # Picked by its discriminator's value, which is not an input key.
                node, described = self._unwrap_optional(chosen, _description(chosen) or described)
                continue
            parent = node
            node = self.resolve(self._child(node, part))
            path = _join(path, part)
            input_path.append(part)
            node, described = self._unwrap_optional(node, _description(node) or described)
        return _Located(path, node, parent, False, len(loc), described, tuple(input_path))

    def _unwrap_optional(
        self, node: Mapping[str, Any] | None, described: str | None
    ) -> tuple[Mapping[str, Any] | None, str | None]:
        """A value or null is not a union to pydantic (its errors carry no variant label)."""
        while node is not None and len(variants := self.variants(node)) == 1:
            inner = self.resolve(variants[0])
            if inner is None:
                break
            node, described = inner, _description(inner) or described
        return node, described

    def _child(self, node: Mapping[str, Any], part: int | str) -> Mapping[str, Any] | None:
        if isinstance(part, int) or node.get("type") == "array":
            items = node.get("items")
            return items if isinstance(items, Mapping) else None
        properties = node.get("properties")
        if isinstance(properties, Mapping) and part in properties:
            child = properties[part]
            return child if isinstance(child, Mapping) else None
        if node is self._root_node and part in self._extra:
            return self._extra[part]
        extra = node.get("additionalProperties")
        return extra if isinstance(extra, Mapping) else None

    def _variant(self, node: Mapping[str, Any], tag: int | str) -> Mapping[str, Any] | None:
        discriminator = node.get("discriminator")
        if not isinstance(discriminator, Mapping):
            return None
        prop = discriminator.get("propertyName")
        for raw in self.variants(node):
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
        name = type_name(node)
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
        if kind == "object" and (node.get("title") or name):
            return f"object ({node.get('title') or name})"
        if kind is None and "enum" in node:
            return "one of " + ", ".join(shown(v) for v in node["enum"])
        return str(kind) if kind else "any value"


def type_name(node: Mapping[str, Any] | None) -> str | None:
    """The design's name of a type: its title, or the ``$defs`` entry a ``$ref`` points to."""
    if not node:
        return None
    title = node.get("title")
    if isinstance(title, str):
        return title
    return _ref_name(node)


def _ref_name(node: Mapping[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _join(path: str, part: int | str) -> str:
    if isinstance(part, int):
        return f"{path}[{part}]"
    key = shown_key(str(part))
    return f"{path}.{key}" if path else key


def shown_path(path: str) -> str:
    """A field path as messages show it: a very long one keeps its start and its end."""
    if len(path) <= _MAX_PATH_SHOWN:
        return path
    head = _MAX_PATH_SHOWN // 3
    return f"{path[:head]}…{path[head + 1 - _MAX_PATH_SHOWN :]}"


def path_of(parts: Iterable[int | str]) -> str:
    """The path of a location (``("devices", 0, "id")`` → ``devices[0].id``), as messages show it."""
    path = ""
    for part in parts:
        path = _join(path, part)
    return shown_path(path)


def got(value: Any) -> str:
    """What a message says was sent: ``null``, or the JSON type and the value shown."""
    if value is None:
        return "null"
    if isinstance(value, str | int | float | Mapping | list | tuple):
        return f"{json_type(value)} {shown(value)}"
    return f"a Python {shown_key(type(value).__name__)}, not a JSON value"


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
    if error_type == RFC3339_ERROR:
        return Constraint.INVALID_FORMAT
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
    sent = f" (got {shown(value)})"
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
            return f"unknown {ctx.get('discriminator', 'variant')}; expected one of {ctx.get('expected_tags', '')}{sent}"
        values = (node or {}).get("enum") or []
        return "must be one of " + ", ".join(shown(v) for v in values) + sent
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
        return "must be " + (" and ".join(parts) or "within range") + sent
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
        if lo is not None and lo == hi:
            rule = f"exactly {lo}"
        elif lo is not None and hi is not None:
            rule = f"between {lo} and {hi}"
        elif lo is not None:
            rule = f"at least {lo}"
        else:
            rule = f"at most {hi}"
        return f"must have {rule} {unit} (got {size})"
    if constraint is Constraint.INVALID_PATTERN:
        return f"must match the pattern {(node or {}).get('pattern', '')}{sent}"
    if constraint is Constraint.INVALID_FORMAT:
        fmt = (node or {}).get("format")
        if error["type"] == RFC3339_ERROR:
            return f"{error['msg']}{sent}"
        if error["type"].startswith("timezone_"):
            # A valid-looking time without an offset: say what is missing, not just "invalid".
            return f"must be a {fmt or 'date-time'} with a timezone offset, such as 2026-01-31T09:30:00Z{sent}"
        if fmt:
            return f"must be a valid {fmt}{sent}"
        return f"{error.get('msg', 'invalid format')}{sent}"
    return f"expected {expected}, got {got(value)}"


def field_issues(
    errors: Sequence[ErrorDetails],
    nav: SchemaNavigator,
    root_input: Any,
    *,
    limit: int = MAX_ISSUES,
) -> tuple[list[FieldIssue], int]:
    """One issue per bad field, in the order pydantic found them, and how many more there are.

    At most ``limit`` issues are built: the errors past them are counted, not read, so a call
    with a million bad items costs little more than one with a few.

    A union without a discriminator gets one error per variant from pydantic. When the value
    clearly meant one variant (the only one of its JSON type, or the one whose fields it uses
    most, then the one with fewest errors), the issues are that variant's, field by field;
    otherwise one issue at the union names every variant.
    """
    issues, more = _IssueBuilder(nav, root_input).build(errors, limit=limit)
    return issues[:limit], more + max(0, len(issues) - limit)


@dataclass(slots=True)
class _UnionErrors:
    located: _Located
    errors: list[ErrorDetails]


class _IssueBuilder:
    __slots__ = ("nav", "root_input")

    def __init__(self, nav: SchemaNavigator, root_input: Any) -> None:
        self.nav = nav
        self.root_input = root_input

    def build(
        self,
        errors: Sequence[ErrorDetails],
        start: _Start | None = None,
        offset: int = 0,
        *,
        limit: int,
    ) -> tuple[list[FieldIssue], int]:
        """The issues of ``errors`` (at most about ``limit``) and the count of errors left unread."""
        slots: list[FieldIssue | _UnionErrors] = []
        unions: dict[tuple[int | str, ...], _UnionErrors] = {}
        seen: set[str] = set()
        unread = 0
        last_union: tuple[tuple[int | str, ...], _UnionErrors] | None = None
        for index, error in enumerate(errors):
            loc = error["loc"]
            # A union's errors come together: the next ones of the same union need no lookup.
            if (
                last_union is not None
                and tuple(loc[: last_union[1].located.depth]) == last_union[0]
            ):
                last_union[1].errors.append(error)
                continue
            if len(slots) >= limit:
                unread = len(errors) - index
                break
            located = self.nav.locate(loc, start, offset)
            if located.in_union:
                key = tuple(loc[: located.depth])
                group = unions.get(key)
                if group is None:
                    group = unions[key] = _UnionErrors(located, [])
                    slots.append(group)
                group.errors.append(error)
                last_union = (key, group)
                continue
            issue = self._issue(error, located)
            dedup = f"{issue.field}\0{issue.constraint}"
            if dedup not in seen:
                seen.add(dedup)
                slots.append(issue)
        issues: list[FieldIssue] = []
        for slot in slots:
            if isinstance(slot, FieldIssue):
                issues.append(slot)
            else:
                found, more = self._union(slot, limit)
                issues.extend(found)
                unread += more
        return issues, unread

    def _issue(self, error: ErrorDetails, located: _Located) -> FieldIssue:
        node = located.schema
        value = error.get("input")
        constraint = _constraint(error["type"], value, node)
        expected = self.nav.describe_type(node)
        has_value = constraint not in (Constraint.MISSING_FIELD, Constraint.UNKNOWN_FIELD)
        unknown = constraint is Constraint.UNKNOWN_FIELD
        return FieldIssue(
            field=shown_path(located.path),
            constraint=constraint,
            message=_message(constraint, error, node, located.parent, expected),
            # An unknown field means nothing in the design: no description is its own.
            description=None if unknown else _description(node) or located.described,
            expected=None if unknown else expected,
            actual=json_type(value) if has_value else None,
            allowed=tuple(node["enum"]) if node and isinstance(node.get("enum"), list) else None,
            bounds=schema_bounds(node) or None,
            pattern=node.get("pattern") if node else None,
            format=node.get("format") if node else None,
            examples=_examples(node),
        )

    def _union(self, group: _UnionErrors, limit: int) -> tuple[list[FieldIssue], int]:
        located = group.located
        union = located.schema or {}
        variants = self.nav.variants(union)
        # Errors by variant label (a class name, ``str``, ``list[int]``…), in the union's order.
        by_label: dict[int | str, list[ErrorDetails]] = {}
        for error in group.errors:
            by_label.setdefault(error["loc"][located.depth], []).append(error)
        value = _value_at(self.root_input, located.input_path)
        if len(by_label) == len(variants):
            pairs = list(zip(variants, by_label.values(), strict=True))
            closest = self._closest(value, pairs, located.depth)
            if closest is not None:
                raw, errors = closest
                variant = self.nav.resolve(raw)
                start = _Start(
                    variant,
                    located.parent,
                    located.path,
                    _description(variant) or located.described,
                    located.input_path,
                )
                return self.build(errors, start, located.depth + 1, limit=limit)
        expected = self.nav.describe_type(union)
        message = f"expected {expected}, got {got(value)}"
        fields = self._variant_fields(variants) if isinstance(value, Mapping) else None
        if fields:
            message += "; " + "; ".join(fields)
        return [
            FieldIssue(
                field=shown_path(located.path),
                constraint=Constraint.INVALID_FIELD_TYPE,
                message=message,
                description=_description(union) or located.described,
                expected=expected,
                actual=json_type(value),
                examples=_examples(union),
            )
        ], 0

    def _closest(
        self,
        value: Any,
        variants: list[tuple[Mapping[str, Any], list[ErrorDetails]]],
        depth: int,
    ) -> tuple[Mapping[str, Any], list[ErrorDetails]] | None:
        """The variant ``value`` clearly meant, or ``None`` when it is not clear.

        ``depth`` is where the variant's label sits in each error's location.
        """
        # A variant whose errors all lie inside the value accepts its JSON type (an object for
        # an object); an error at the variant itself means a type the value cannot be.
        fitting = [
            (raw, errors)
            for raw, errors in variants
            if all(len(e["loc"]) > depth + 1 for e in errors)
        ]
        if len(fitting) <= 1:
            return fitting[0] if fitting else None
        keys = set(value) if isinstance(value, Mapping) else set()

        def distance(candidate: tuple[Mapping[str, Any], list[ErrorDetails]]) -> tuple[int, int]:
            properties = (self.nav.resolve(candidate[0]) or {}).get("properties") or {}
            return (-len(keys & set(properties)), len(candidate[1]))

        ranked = sorted(fitting, key=distance)
        return ranked[0] if distance(ranked[0]) < distance(ranked[1]) else None

    def _variant_fields(self, variants: list[Mapping[str, Any]]) -> list[str]:
        """``Email has fields address`` for each object variant with a name and fields."""
        out: list[str] = []
        for raw in variants:
            node = self.nav.resolve(raw) or {}
            properties = node.get("properties")
            name = type_name(raw) or type_name(node)
            if name and isinstance(properties, Mapping) and properties:
                out.append(f"{name} has fields {', '.join(properties)}")
        return out


def _examples(node: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    examples = node.get("examples") if node else None
    return tuple(examples) if isinstance(examples, list) and examples else None


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


def _description(node: Mapping[str, Any] | None) -> str | None:
    if not node:
        return None
    text = node.get("description")
    return text if isinstance(text, str) else None


def example_from_schema(schema: Mapping[str, Any]) -> Any:
    """Arguments built from the fields' own examples, or ``None`` if a required one has none.

    For a tool without an ``Example()``: each required field takes its first example (or its
    only allowed value, or an object built the same way from its fields, or a one-item array);
    an optional field appears only when the design gives it an example.
    """
    built = _ExampleBuilder(SchemaNavigator(schema)).build(schema, frozenset())
    return None if built is _NO_EXAMPLE or built == {} else built


_NO_EXAMPLE: Any = object()


class _ExampleBuilder:
    __slots__ = ("nav",)

    def __init__(self, nav: SchemaNavigator) -> None:
        self.nav = nav

    def build(self, raw: Any, expanding: frozenset[str]) -> Any:
        if not isinstance(raw, Mapping):
            return _NO_EXAMPLE
        ref = _ref_name(raw)
        if ref in expanding:  # a recursive type: no example goes on forever
            return _NO_EXAMPLE
        node = self.nav.resolve(raw)
        if not node:
            return _NO_EXAMPLE
        examples = _examples(node)
        if examples:
            return examples[0]
        if "const" in node:
            return node["const"]
        allowed = node.get("enum")
        if isinstance(allowed, list) and len(allowed) == 1:
            return allowed[0]
        inner = expanding | {ref} if ref else expanding
        kind = node.get("type")
        properties = node.get("properties")
        if kind == "object" and isinstance(properties, Mapping):
            required = set(node.get("required") or ())
            built: dict[str, Any] = {}
            for name, prop in properties.items():
                if name in required:
                    value = self.build(prop, inner)
                    if value is _NO_EXAMPLE:
                        return _NO_EXAMPLE
                    built[name] = value
                elif (examples := _examples(self.nav.resolve(prop))) is not None:
                    built[name] = examples[0]
            return built
        if kind == "array":
            item = self.build(node.get("items"), inner)
            return _NO_EXAMPLE if item is _NO_EXAMPLE else [item]
        for variant in self.nav.variants(node):
            value = self.build(variant, inner)
            if value is not _NO_EXAMPLE:
                return value
        return _NO_EXAMPLE


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


def schema_issues(
    validator: Any, value: Any, *, limit: int = MAX_ISSUES
) -> tuple[list[FieldIssue], int]:
    """What a ``jsonschema`` validator finds wrong with ``value``: issues by place, and how many more.

    For the parts of a schema kept verbatim (``Any(schema=...)``), which the model types
    cannot check: the paths, constraints and messages read like the codecs' other issues (the
    validator's own messages would echo whole values).
    """
    errors = sorted(
        validator.iter_errors(value),
        key=lambda e: [(isinstance(part, int), part) for part in e.absolute_path],
    )
    issues: list[FieldIssue] = []
    seen: set[str] = set()
    for index, error in enumerate(errors):
        if len(issues) >= limit:
            return issues, len(errors) - index
        parts = list(error.absolute_path)
        keyword = str(error.validator)
        node = error.schema if isinstance(error.schema, Mapping) else None
        constraint = _JSONSCHEMA_CONSTRAINTS.get(keyword, Constraint.INVALID_FORMAT)
        instance = error.instance
        if constraint is Constraint.MISSING_FIELD and isinstance(error.validator_value, list):
            missing = [
                name
                for name in error.validator_value
                if isinstance(instance, Mapping) and name not in instance
            ]
            parts += missing[:1]
        elif constraint is Constraint.UNKNOWN_FIELD and isinstance(instance, Mapping) and node:
            extra = [key for key in instance if not _declares(node, key)]
            parts += extra[:1]
        path = path_of(parts)
        if path in seen:
            continue
        seen.add(path)
        issues.append(
            FieldIssue(
                field=path,
                constraint=constraint,
                message=_schema_message(keyword, error.validator_value, instance, node),
                description=_description(node),
                actual=json_type(instance) if constraint is not Constraint.MISSING_FIELD else None,
                allowed=tuple(node["enum"])
                if node and isinstance(node.get("enum"), list)
                else None,
            )
        )
    return issues, 0


def _declares(node: Mapping[str, Any], key: str) -> bool:
    """Whether an object schema declares ``key``: by name, or by one of its key patterns."""
    declared = node.get("properties")
    if isinstance(declared, Mapping) and key in declared:
        return True
    patterns = node.get("patternProperties")
    if not isinstance(patterns, Mapping):
        return False
    for pattern in patterns:
        try:
            if re.search(pattern, key):
                return True
        except re.error:  # a pattern Python cannot read: the validator judged it already
            continue
    return False


_SCHEMA_OPERATORS = {
    "minimum": ">=",
    "exclusiveMinimum": ">",
    "maximum": "<=",
    "exclusiveMaximum": "<",
}
_SCHEMA_SIZES = {
    "minLength": ("at least", "characters"),
    "maxLength": ("at most", "characters"),
    "minItems": ("at least", "items"),
    "maxItems": ("at most", "items"),
    "minProperties": ("at least", "fields"),
    "maxProperties": ("at most", "fields"),
}


def _schema_message(keyword: str, rule: Any, instance: Any, node: Mapping[str, Any] | None) -> str:
    sent = f" (got {shown(instance)})"
    if keyword == "required":
        return "required field is missing"
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        declared = (node or {}).get("properties")
        allowed = (
            ", ".join(sorted(declared)) if isinstance(declared, Mapping) and declared else "none"
        )
        return f"unknown field; allowed fields are: {allowed}"
    if keyword == "type":
        expected = " or ".join(rule) if isinstance(rule, list) else str(rule)
        return f"expected {expected}, got {got(instance)}"
    if keyword == "enum" and isinstance(rule, list):
        return "must be one of " + ", ".join(shown(v) for v in rule) + sent
    if keyword == "const":
        return f"must be {shown(rule)}{sent}"
    if keyword in _SCHEMA_OPERATORS:
        return f"must be {_SCHEMA_OPERATORS[keyword]} {shown(rule)}{sent}"
    if keyword == "multipleOf":
        return f"must be a multiple of {shown(rule)}{sent}"
    if keyword in _SCHEMA_SIZES:
        bound, unit = _SCHEMA_SIZES[keyword]
        size = len(instance) if isinstance(instance, str | list | Mapping) else 0
        return f"must have {bound} {shown(rule)} {unit} (got {size})"
    if keyword == "pattern":
        return f"must match the pattern {rule}{sent}"
    if keyword == "format":
        return f"must be a valid {shown_key(str(rule))}{sent}"
    if keyword in ("anyOf", "oneOf"):
        return f"matches none of the allowed forms{sent}"
    return f"breaks the schema's {shown_key(keyword)} rule{sent}"
