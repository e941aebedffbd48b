"""What a ``jsonschema`` validator finds wrong, as :class:`FieldIssue`s.

For the parts of a schema kept verbatim (``Any(schema=...)``), which the generated model types
cannot check: the paths, constraints and messages read like the codecs' other issues.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldesign.contract.constraints import CONSTRAINTS
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import description
from tooldesign.jsonschema.text import got, json_type, path_of, shown, shown_key
from tooldesign.jsonschema.words import size_rule
from tooldesign.runtime.errors import MAX_ISSUES, Constraint, FieldIssue
from tooldesign.runtime.validation.patterns import search

# The design's constraints, and the other keywords a schema kept verbatim may use.
_JSONSCHEMA_CONSTRAINTS: Mapping[str, Constraint] = {
    K.REQUIRED: Constraint.MISSING_FIELD,
    K.TYPE: Constraint.INVALID_FIELD_TYPE,
    **{c.keyword: Constraint(c.issue) for c in CONSTRAINTS},
    K.CONST: Constraint.INVALID_ENUM_VALUE,
    K.MULTIPLE_OF: Constraint.INVALID_RANGE,
    K.MIN_PROPERTIES: Constraint.INVALID_LENGTH,
    K.MAX_PROPERTIES: Constraint.INVALID_LENGTH,
    K.ADDITIONAL_PROPERTIES: Constraint.UNKNOWN_FIELD,
    K.UNEVALUATED_PROPERTIES: Constraint.UNKNOWN_FIELD,
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
                description=description(node),
                actual=json_type(instance) if constraint is not Constraint.MISSING_FIELD else None,
                allowed=tuple(node[K.ENUM])
                if node and isinstance(node.get(K.ENUM), list)
                else None,
            )
        )
    return issues, 0


def _declares(node: Mapping[str, Any], key: str) -> bool:
    """Whether an object schema declares ``key``: by name, or by one of its key patterns."""
    declared = node.get(K.PROPERTIES)
    if isinstance(declared, Mapping) and key in declared:
        return True
    patterns = node.get(K.PATTERN_PROPERTIES)
    if not isinstance(patterns, Mapping):
        return False
    return any(search(pattern, key) for pattern in patterns)


_SCHEMA_OPERATORS = {
    K.MINIMUM: ">=",
    K.EXCLUSIVE_MINIMUM: ">",
    K.MAXIMUM: "<=",
    K.EXCLUSIVE_MAXIMUM: "<",
}


def _schema_message(keyword: str, rule: Any, instance: Any, node: Mapping[str, Any] | None) -> str:
    sent = f" (got {shown(instance)})"
    if keyword == K.REQUIRED:
        return "required field is missing"
    if keyword in (K.ADDITIONAL_PROPERTIES, K.UNEVALUATED_PROPERTIES):
        declared = (node or {}).get(K.PROPERTIES)
        allowed = (
            ", ".join(sorted(declared)) if isinstance(declared, Mapping) and declared else "none"
        )
        return f"unknown field; allowed fields are: {allowed}"
    if keyword == K.TYPE:
        expected = " or ".join(rule) if isinstance(rule, list) else str(rule)
        return f"expected {expected}, got {got(instance)}"
    if keyword == K.ENUM and isinstance(rule, list):
        return "must be one of " + ", ".join(shown(v) for v in rule) + sent
    if keyword == K.CONST:
        return f"must be {shown(rule)}{sent}"
    if keyword in _SCHEMA_OPERATORS:
        return f"must be {_SCHEMA_OPERATORS[keyword]} {shown(rule)}{sent}"
    if keyword == K.MULTIPLE_OF:
        return f"must be a multiple of {shown(rule)}{sent}"
    if keyword in K.SIZES:
        size = len(instance) if isinstance(instance, str | list | Mapping) else 0
        low, high = (rule, None) if K.BY_NAME[keyword].narrows == "higher" else (None, rule)
        return f"must have {size_rule(low, high, keyword)} (got {size})"
    if keyword == K.PATTERN:
        return f"must match the pattern {rule}{sent}"
    if keyword == K.FORMAT:
        return f"must be a valid {shown_key(str(rule))}{sent}"
    if keyword in (K.ANY_OF, K.ONE_OF):
        return f"matches none of the allowed forms{sent}"
    return f"breaks the schema's {shown_key(keyword)} rule{sent}"
