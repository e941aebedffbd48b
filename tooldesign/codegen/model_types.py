"""What a generated model can hold of a design's types, and what the codecs check besides.

The model generator reads a schema that states only what a pydantic type can hold; the rest
(a verbatim ``Any(schema=...)``, an enum of numbers or booleans, the length or pattern of a
value typed other than ``str``) the codecs check against the model-facing schema instead
(``TypeSpec.check_schema``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from tooldesign.contract.formats import NON_STRING_FORMATS, RUNTIME_TYPES
from tooldesign.ir.model import (
    ArrayType,
    Constraints,
    Design,
    Field,
    MapType,
    NamedType,
    ObjectType,
    PrimitiveType,
    TypeExpr,
    UnionType,
)
from tooldesign.jsonschema.patterns import for_engine

PYTHON_TYPE_KEYWORD = "x-python-type"
"""The model generator's keyword for the Python type of a value."""

_STRING_CONSTRAINTS = ("min_length", "max_length", "pattern")


def constraints_beyond_model(c: Constraints) -> tuple[str, ...]:
    """The constraints of ``c`` a generated model cannot hold, by attribute name.

    A string of a :data:`NON_STRING_FORMATS` format (and no enum) is no ``str`` in the model, so
    its length and pattern cannot be checked there.
    """
    if c.enum is not None:
        return ()  # a Literal of the enum's values, which the design checks against the rest
    if c.format in NON_STRING_FORMATS:
        return tuple(k for k in _STRING_CONSTRAINTS if getattr(c, k) is not None)
    return ()


def model_constraints(c: Constraints) -> tuple[Constraints, Mapping[str, Any]]:
    """What of ``c`` the model generator reads, and the type that reads a value of its format.

    Left out: an enum holding a float (Python's ``Literal`` cannot hold one, so the generated
    type would be a union) and :func:`constraints_beyond_model`. A pattern is written for the
    models' engine (:func:`~tooldesign.jsonschema.patterns.for_engine`).
    """
    dropped: dict[str, Any] = dict.fromkeys(constraints_beyond_model(c))
    if c.enum is not None and any(isinstance(value, float) for value in c.enum):
        dropped["enum"] = None
    if c.pattern is not None and "pattern" not in dropped and for_engine(c.pattern) != c.pattern:
        # The model's engine matches the pattern as ECMA-262 reads it (\d is [0-9]).
        dropped["pattern"] = for_engine(c.pattern)
    stated = dataclasses.replace(c, **dropped) if dropped else c
    runtime_type = RUNTIME_TYPES.get(stated.format or "")
    if runtime_type is not None and stated.enum is None:
        # The type reads the format; the model generator, told the format too, would add its
        # own reading of it (a pattern for a hostname).
        return dataclasses.replace(stated, format=None), {PYTHON_TYPE_KEYWORD: runtime_type}
    return stated, {}


def needs_schema_check(t: TypeExpr, design: Design) -> bool:
    """Whether values of ``t`` must also be checked against its JSON Schema.

    The generated model checks everything else, but it cannot state some things exactly: a
    verbatim ``Any(schema=...)``, an enum of numbers or booleans (Python's ``Literal`` takes
    ``True`` for ``1``, and holds no floats at all), and :func:`constraints_beyond_model`.
    ``t`` reaches these directly, or through objects and types.
    """
    seen: set[str] = set()
    pending = [t]
    while pending:
        current = pending.pop()
        match current:
            case PrimitiveType(schema=str()):
                return True
            case ArrayType(items=items):
                pending.append(items)
            case MapType(values=values):
                pending.append(values)
            case UnionType(variants=variants):
                pending.extend(variants)
            case ObjectType(shape=shape):
                if any(_beyond_model(f) for f in shape.fields):
                    return True
                pending.extend(f.type for f in shape.fields)
            case NamedType(name=name) if name not in seen and name in design.types:
                seen.add(name)
                fields = design.types[name].shape.fields
                if any(_beyond_model(f) for f in fields):
                    return True
                pending.extend(f.type for f in fields)
    return False


def _beyond_model(f: Field) -> bool:
    enum = f.constraints.enum
    inexact_enum = enum is not None and not all(isinstance(value, str) for value in enum)
    return inexact_enum or bool(constraints_beyond_model(f.constraints))
