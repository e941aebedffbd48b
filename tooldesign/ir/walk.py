"""Walks over IR types: the shapes and user types a type, a tool or a toolset reaches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tooldesign.ir.model import (
    ArrayType,
    Design,
    MapType,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    Tool,
    TypeExpr,
    UnionType,
)


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
