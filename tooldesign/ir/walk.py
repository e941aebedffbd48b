"""Walks over IR types: the shapes and user types a type, a tool or a toolset reaches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tooldesign.ir.model import (
    ArrayType,
    Design,
    Field,
    MapType,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    PrimitiveType,
    Tool,
    TypeExpr,
    UnionType,
)
from tooldesign.ir.schema import constraints_beyond_model


def inline_shapes(t: TypeExpr) -> Iterator[ObjectShape]:
    """The inline object shapes directly inside ``t`` (``t``'s own included, nested fields not)."""
    match t:
        case ObjectType(shape=shape):
            yield shape
        case ArrayType(items=items):
            yield from inline_shapes(items)
        case MapType(values=values):
            yield from inline_shapes(values)
        case UnionType(variants=variants):
            for v in variants:
                yield from inline_shapes(v)


def named_types(t: TypeExpr) -> Iterator[str]:
    """The user types ``t`` refers to directly or through inline objects."""
    match t:
        case NamedType(name=name):
            yield name
        case ArrayType(items=items):
            yield from named_types(items)
        case MapType(values=values):
            yield from named_types(values)
        case UnionType(variants=variants):
            for v in variants:
                yield from named_types(v)
        case ObjectType(shape=shape):
            for f in shape.fields:
                yield from named_types(f.type)


def needs_schema_check(t: TypeExpr, design: Design) -> bool:
    """Whether values of ``t`` must also be checked against its JSON Schema.

    The generated model checks everything else, but it cannot state some things exactly: a
    verbatim ``Any(schema=...)``, an enum of numbers or booleans (Python's ``Literal`` takes
    ``True`` for ``1``, and holds no floats at all), and the string constraints of a value it
    holds as another type (see ``constraints_beyond_model``). ``t`` reaches these directly, or
    through objects and types.
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


def messages(tool: Tool) -> list[Message]:
    """A tool's payload, result and server-data messages."""
    return [tool.payload, tool.result, *(sd.message for sd in tool.server_data)]


def used_user_types(design: Design, tools: Iterable[Tool]) -> list[str]:
    """User types the tools reach, transitively, in the design's declaration order."""
    used: set[str] = set()
    pending = [m.type for tool in tools for m in messages(tool)]
    while pending:
        for name in named_types(pending.pop()):
            if name not in used:
                used.add(name)
                pending.extend(f.type for f in design.types[name].shape.fields)
    return [name for name in design.types if name in used]
