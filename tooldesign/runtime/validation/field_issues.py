"""Translate pydantic validation errors into :class:`FieldIssue`s a model can act on.

Pydantic knows *that* a value is wrong; the design knows what the field is for, which values
are allowed and what its bounds are. Each error's location is followed through the tool's
model-facing JSON Schema to find that field, so every issue carries the design's own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pydantic_core import ErrorDetails, ValidationError
from tooldesign.contract.constraints import pydantic_errors
from tooldesign.contract.formats import PYDANTIC_ERROR_PREFIXES
from tooldesign.contract.rules import RULE_ERROR
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import SchemaNavigator, description, field_examples, type_name
from tooldesign.jsonschema.text import got, join_path, json_type, shown, shown_path
from tooldesign.jsonschema.words import size_rule
from tooldesign.runtime.errors import MAX_ISSUES, Constraint, FieldIssue
from tooldesign.runtime.spec.formats import FORMAT_ERROR

# The design's constraints (and, for schemas kept verbatim, multipleOf and finite numbers).
_RANGE_ERRORS = pydantic_errors("invalid_range") | {"multiple_of", "finite_number"}
_LENGTH_ERRORS = pydantic_errors("invalid_length")
_ENUM_ERRORS = pydantic_errors("invalid_enum_value")
_BOUND_KEYWORDS = (
    K.MINIMUM,
    K.MAXIMUM,
    K.EXCLUSIVE_MINIMUM,
    K.EXCLUSIVE_MAXIMUM,
    K.MULTIPLE_OF,
    K.MIN_LENGTH,
    K.MAX_LENGTH,
    K.MIN_ITEMS,
    K.MAX_ITEMS,
)


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


def _locate(
    nav: SchemaNavigator, loc: Sequence[int | str], start: _Start | None = None, offset: int = 0
) -> _Located:
    """Follow ``loc[offset:]`` from ``start`` (the root by default)."""
    if start is None:
        node, parent, path, described, input_path = nav.root, None, "", None, []
    else:
        node, parent, path = start.node, start.parent, start.path
        described, input_path = start.described, list(start.input_path)
    node, described = _unwrap_optional(nav, node, described)
    for index in range(offset, len(loc)):
        part = loc[index]
        if node is None:
            path = join_path(path, part)
            input_path.append(part)
            continue
        if nav.variants(node):
            chosen = nav.tagged_variant(node, part)
            if chosen is None:
                # A plain union: pydantic reports one error per variant, labelled; they are
                # sorted out together (see field_issues).
                return _Located(path, node, parent, True, index, described, tuple(input_path))
            # Picked by its discriminator's value, which is not an input key.
            node, described = _unwrap_optional(nav, chosen, description(chosen) or described)
            continue
        parent = node
        node = nav.resolve(nav.child(node, part))
        path = join_path(path, part)
        input_path.append(part)
        node, described = _unwrap_optional(nav, node, description(node) or described)
    return _Located(path, node, parent, False, len(loc), described, tuple(input_path))


def _unwrap_optional(
    nav: SchemaNavigator, node: Mapping[str, Any] | None, described: str | None
) -> tuple[Mapping[str, Any] | None, str | None]:
    """A value or null is not a union to pydantic (its errors carry no variant label)."""
    while node is not None and len(variants := nav.variants(node)) == 1:
        inner = nav.resolve(variants[0])
        if inner is None:
            break
        node, described = inner, description(inner) or described
    return node, described


def _rule_issue(error: ErrorDetails, loc: Sequence[int | str]) -> FieldIssue:
    """A broken rule across arguments: told at the object it is about, in its own words."""
    words = error["msg"]  # the rule in words (the message is nothing else)
    path = ""
    for part in loc:
        path = join_path(path, part)
    return FieldIssue(path, Constraint.ARGUMENT_RULE, words)


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
        if node is not None and K.FORMAT in node and K.PATTERN not in node:
            return Constraint.INVALID_FORMAT
        return Constraint.INVALID_PATTERN
    if error_type == FORMAT_ERROR:
        return Constraint.INVALID_FORMAT
    if (
        error_type.startswith(PYDANTIC_ERROR_PREFIXES) or error_type == "value_error"
    ) and isinstance(value, str):
        return Constraint.INVALID_FORMAT
    return Constraint.INVALID_FIELD_TYPE


@dataclass(frozen=True, slots=True)
class _Field:
    """What the design says of the field a location leads to: all an issue reads of the schema."""

    field: str
    """The location's path, as messages show it."""
    node: Mapping[str, Any] | None
    expected: str
    described: str | None
    allowed: tuple[Any, ...] | None
    bounds: dict[str, int | float]
    pattern: str | None
    format: str | None
    examples: tuple[Any, ...] | None
    one_of: str
    """The allowed values, shown: ``"a", "b", "c"``."""
    range_rule: tuple[str, ...]
    """The bounds as a message says them: ``>= 0``, ``a multiple of 5``."""
    allowed_fields: str
    """The fields the object holding this one declares, listed (``none`` when it has none)."""
    rules: dict[tuple[str, bool], _Rule]
    """How each kind of error here reads, by pydantic's error type and whether the value is
    text: written the first time one is seen."""


def _field(nav: SchemaNavigator, located: _Located) -> _Field:
    node = located.schema
    bounds = schema_bounds(node)
    enum = node.get(K.ENUM) if node else None
    allowed_fields = sorted((located.parent or {}).get(K.PROPERTIES, {}))
    return _Field(
        field=shown_path(located.path),
        node=node,
        expected=nav.describe_type(node),
        described=description(node) or located.described,
        allowed=tuple(enum) if isinstance(enum, list) else None,
        bounds=bounds,
        pattern=node.get(K.PATTERN) if node else None,
        format=node.get(K.FORMAT) if node else None,
        examples=field_examples(node),
        one_of=", ".join(shown(v) for v in enum or ()),
        range_rule=tuple(
            [f"{op} {bounds[key]}" for key, op in _RANGE_OPERATORS if key in bounds]
            + ([f"a multiple of {bounds[K.MULTIPLE_OF]}"] if K.MULTIPLE_OF in bounds else [])
        ),
        allowed_fields=", ".join(allowed_fields) if allowed_fields else "none",
        rules={},
    )


_RANGE_OPERATORS = (
    (K.MINIMUM, ">="),
    (K.EXCLUSIVE_MINIMUM, ">"),
    (K.MAXIMUM, "<="),
    (K.EXCLUSIVE_MAXIMUM, "<"),
)


@dataclass(frozen=True, slots=True)
class _Rule:
    """How one kind of error at one field reads: all of an issue that its value plays no part in."""

    constraint: Constraint
    description: str | None
    expected: str | None
    has_value: bool
    """The issue says what type of value was sent (``actual``)."""
    text: str | None
    """The whole message, when it says nothing of the value (a missing or unknown field)."""
    lead: str | None
    """Else what the message says before the value it shows: ``must be >= 0``, then
    ``(got -1)``; or, when :attr:`names_type`, ``expected integer, got``, then the value with
    its type (``string "3"``). ``None`` when the message is written from the error itself
    (:func:`_message`)."""
    names_type: bool


def _rule(error_type: str, value: Any, known: _Field) -> _Rule:
    constraint = _constraint(error_type, value, known.node)
    unknown = constraint is Constraint.UNKNOWN_FIELD
    text = lead = None
    names_type = False
    if constraint is Constraint.MISSING_FIELD and error_type == "missing":
        text = f"required field is missing (expected {known.expected})"
    elif unknown:
        text = f"unknown field; allowed fields are: {known.allowed_fields}"
    elif constraint is Constraint.INVALID_FIELD_TYPE:
        lead, names_type = f"expected {known.expected}, got ", True
    else:
        lead = _lead(constraint, error_type, known)
    return _Rule(
        constraint,
        # An unknown field means nothing in the design: no description is its own.
        None if unknown else known.described,
        None if unknown else known.expected,
        constraint not in (Constraint.MISSING_FIELD, Constraint.UNKNOWN_FIELD),
        text,
        lead,
        names_type,
    )


def _lead(constraint: Constraint, error_type: str, known: _Field) -> str | None:
    """What the message of a bad value says before the value shown, when that is all it says
    (``must be >= 0``); ``None`` when the error itself has more to say."""
    if constraint is Constraint.INVALID_ENUM_VALUE:
        return None if error_type == "union_tag_invalid" else "must be one of " + known.one_of
    if constraint is Constraint.INVALID_RANGE:
        parts = known.range_rule
        if error_type == "finite_number":
            parts = (*parts, "a finite number")
        return "must be " + (" and ".join(parts) or "within range")
    if constraint is Constraint.INVALID_PATTERN:
        return f"must match the pattern {'' if known.pattern is None else known.pattern}"
    if constraint is Constraint.INVALID_FORMAT and error_type != FORMAT_ERROR:
        fmt = known.format
        if error_type.startswith("timezone_"):
            # A valid-looking time without an offset: say what is missing, not just "invalid".
            return f"must be a {fmt or 'date-time'} with a timezone offset, such as 2026-01-31T09:30:00Z"
        if fmt:
            return f"must be a valid {fmt}"
    return None


def _message(constraint: Constraint, error: ErrorDetails, known: _Field) -> str:
    """The message of an error that has more to say than its value (see :class:`_Rule`)."""
    value = error.get("input")
    if constraint is Constraint.MISSING_FIELD:  # a discriminator
        ctx = error.get("ctx") or {}
        return f"required field {ctx.get('discriminator', 'discriminator')!s} is missing"
    if constraint is Constraint.INVALID_LENGTH:
        bounds = known.bounds
        if isinstance(value, str):
            low, size = K.MIN_LENGTH, len(value)
        else:
            low, size = K.MIN_ITEMS, len(value) if isinstance(value, Sequence) else 0
        high = K.BY_NAME[low].pair or low
        return f"must have {size_rule(bounds.get(low), bounds.get(high), low)} (got {size})"
    sent = f" (got {shown(value)})"
    if constraint is Constraint.INVALID_ENUM_VALUE:  # a discriminator's
        ctx = error.get("ctx") or {}
        return f"unknown {ctx.get('discriminator', 'variant')}; expected one of {ctx.get('expected_tags', '')}{sent}"
    # INVALID_FORMAT, read from the error
    if error["type"] == FORMAT_ERROR:
        return f"{error['msg']}{sent}"
    return f"{error.get('msg', 'invalid format')}{sent}"


_READ_CONTEXT = frozenset({"union_tag_invalid", "union_tag_not_found"})
"""The errors whose message reads their context (the discriminator and its values)."""


def error_details(error: ValidationError) -> list[ErrorDetails]:
    """The errors of ``error`` as :func:`field_issues` reads them.

    Their context is rendered only when a message reads it: for the other errors it costs as
    much as all the rest, on every invalid call.
    """
    errors = error.errors(include_url=False, include_context=False)
    for detail in errors:
        if detail["type"] in _READ_CONTEXT:
            return error.errors(include_url=False)
    return errors


class IssueSchema:
    """A tool's schema as field issues read it, keeping what each error location leads to.

    A schema never changes (specs are frozen), and a model tends to repeat its mistakes: a
    location seen before costs a lookup instead of a walk through the schema.
    """

    __slots__ = ("_kept", "nav")

    _MAX_KEPT = 512
    """Locations kept at most (a model can send any number of unknown keys); past it, the
    kept ones are forgotten and kept anew."""

    def __init__(self, nav: SchemaNavigator) -> None:
        self.nav = nav
        self._kept: dict[tuple[int | str, ...], tuple[_Located, _Field | None]] = {}

    def at(self, loc: Sequence[int | str]) -> tuple[_Located, _Field | None]:
        """Where ``loc`` leads from the root, and its field (``None`` inside a plain union)."""
        key = tuple(loc)
        found = self._kept.get(key)
        if found is None:
            if len(self._kept) >= self._MAX_KEPT:
                self._kept.clear()
            located = _locate(self.nav, key)
            found = self._kept[key] = (
                located,
                None if located.in_union else _field(self.nav, located),
            )
        return found


def field_issues(
    errors: Sequence[ErrorDetails],
    schema: IssueSchema,
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
    issues, more = _IssueBuilder(schema, root_input).build(errors, limit=limit)
    if len(issues) <= limit:
        return issues, more
    return issues[:limit], more + len(issues) - limit


@dataclass(slots=True)
class _UnionErrors:
    located: _Located
    errors: list[ErrorDetails]


class _IssueBuilder:
    __slots__ = ("nav", "root_input", "schema")

    def __init__(self, schema: IssueSchema, root_input: Any) -> None:
        self.schema = schema
        self.nav = schema.nav
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
        seen: set[tuple[str, Constraint]] = set()
        unread = 0
        last_union: tuple[tuple[int | str, ...], _UnionErrors] | None = None
        at, issue_of = self.schema.at, self._issue
        for index, error in enumerate(errors):
            loc = error["loc"]
            if error["type"] == RULE_ERROR:
                slots.append(_rule_issue(error, loc))
                continue
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
            if start is None:
                located, known = at(loc)
            else:  # inside a union's variant: seen once per call, not kept
                located = _locate(self.nav, loc, start, offset)
                known = None if located.in_union else _field(self.nav, located)
            if known is None:
                key = tuple(loc[: located.depth])
                group = unions.get(key)
                if group is None:
                    group = unions[key] = _UnionErrors(located, [])
                    slots.append(group)
                group.errors.append(error)
                last_union = (key, group)
                continue
            issue = issue_of(error, known)
            dedup = (issue.field, issue.constraint)
            if dedup not in seen:
                seen.add(dedup)
                slots.append(issue)
        if not unions:  # every slot is an issue
            return cast("list[FieldIssue]", slots), unread
        issues: list[FieldIssue] = []
        for slot in slots:
            if isinstance(slot, FieldIssue):
                issues.append(slot)
            else:
                found, more = self._union(slot, limit)
                issues.extend(found)
                unread += more
        return issues, unread

    def _issue(self, error: ErrorDetails, known: _Field) -> FieldIssue:
        value = error.get("input")
        kind = error["type"]
        key = (kind, isinstance(value, str))
        rule = known.rules.get(key)
        if rule is None:
            rule = known.rules[key] = _rule(kind, value, known)
        if rule.text is not None:
            message = rule.text
        elif rule.lead is None:
            message = _message(rule.constraint, error, known)
        elif rule.names_type:
            message = rule.lead + got(value)
        else:
            message = f"{rule.lead} (got {shown(value)})"
        bounds = known.bounds
        return FieldIssue(  # positional: one is built for each bad field of every call
            known.field,
            rule.constraint,
            message,
            rule.description,
            rule.expected,
            json_type(value) if rule.has_value else None,
            known.allowed,
            # Each issue its own copy: a caller may change what it was given.
            dict(bounds) if bounds else None,
            known.pattern,
            known.format,
            known.examples,
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
                    description(variant) or located.described,
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
                description=description(union) or located.described,
                expected=expected,
                actual=json_type(value),
                examples=field_examples(union),
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
            properties = (self.nav.resolve(candidate[0]) or {}).get(K.PROPERTIES) or {}
            return (-len(keys & set(properties)), len(candidate[1]))

        ranked = sorted(fitting, key=distance)
        return ranked[0] if distance(ranked[0]) < distance(ranked[1]) else None

    def _variant_fields(self, variants: list[Mapping[str, Any]]) -> list[str]:
        """``Email has fields address`` for each object variant with a name and fields."""
        out: list[str] = []
        for raw in variants:
            node = self.nav.resolve(raw) or {}
            properties = node.get(K.PROPERTIES)
            name = type_name(raw) or type_name(node)
            if name and isinstance(properties, Mapping) and properties:
                out.append(f"{name} has fields {', '.join(properties)}")
        return out


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
