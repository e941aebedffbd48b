"""``Any(schema=...)``: a JSON Schema kept verbatim, checked to be one that fits in a tool's schema."""

from __future__ import annotations

import json
from typing import Any

from tooldesign.dsl.types import VerbatimExpr
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import Primitive, PrimitiveType
from tooldesign.jsonschema import keywords as K


def verbatim_type(value: VerbatimExpr, path: str, issues: Issues) -> PrimitiveType | None:
    """``Any(schema=...)``, checked to be a self-contained JSON Schema 2020-12 document
    (``None``: it is not, and why is reported)."""
    # Imported here: most designs keep no schema verbatim, and these cost a run 50 ms.
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
    from tooldesign.eval import patterns

    schema = value.schema
    try:
        text = json.dumps(schema, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        issues.add(f"Any(schema=...) must be JSON data: {exc}", value.location, path)
        return None
    if not isinstance(schema, dict | bool):
        issues.add(
            f"Any(schema=...) takes a JSON Schema (an object), got {schema!r}", value.location, path
        )
        return None
    error = best_match(Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "its root"
        issues.add(
            f"Any(schema=...) is not a valid JSON Schema 2020-12 (at {where}): {error.message}",
            value.location,
            path,
        )
        return None
    for pattern in _patterns(schema):
        problem = patterns.problem(pattern)
        if problem is not None:
            issues.add(
                f"Any(schema=...) has the pattern {pattern!r}, which cannot be used: {problem}; "
                f"{patterns.RULE}",
                value.location,
                path,
            )
            return None
    if _has_reference(schema):
        issues.add(
            "Any(schema=...) must be self-contained: a $ref would point outside it once it is "
            "placed in a tool's schema (inline what it refers to)",
            value.location,
            path,
        )
        return None
    return PrimitiveType(Primitive.ANY, text)


def _has_reference(schema: Any) -> bool:
    if isinstance(schema, dict):
        return any(
            key in (K.REF, K.DYNAMIC_REF) or _has_reference(value) for key, value in schema.items()
        )
    if isinstance(schema, list):
        return any(_has_reference(item) for item in schema)
    return False


# Keywords whose values are data, not schemas: a "pattern" key in them is no pattern.
_DATA_KEYWORDS = frozenset({K.CONST, K.ENUM, K.DEFAULT, K.EXAMPLES})


def _patterns(schema: Any) -> list[str]:
    """The regular expressions of a schema: ``pattern`` values and ``patternProperties`` keys."""
    found: list[str] = []
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            for key, item in node.items():
                if key == K.PATTERN and isinstance(item, str):
                    found.append(item)
                elif key == K.PATTERN_PROPERTIES and isinstance(item, dict):
                    found.extend(k for k in item if isinstance(k, str))
                if key not in _DATA_KEYWORDS:
                    pending.append(item)
    return found
