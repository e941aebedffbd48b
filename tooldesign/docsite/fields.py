"""A schema as the rows of a reference table: name, type, required, default, constraints,
description, examples — and the rows nested under an inline object, for an expandable cell.

Named types (``$ref`` to ``$defs``) are not expanded in place: a row links to the type's own
table, written once per page, so recursive types end and shared ones are not repeated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.refs import ref_name
from tooldesign.jsonschema.text import compact_json
from tooldesign.jsonschema.words import phrases

_NOT_CONSTRAINTS = frozenset(
    {
        K.TYPE,
        K.DESCRIPTION,
        K.TITLE,
        K.DEFAULT,
        K.EXAMPLES,
        K.EXAMPLE,
        K.PROPERTIES,
        K.REQUIRED,
        K.ITEMS,
        K.ADDITIONAL_PROPERTIES,
        K.REF,
        K.DEFS,
        K.ANY_OF,
        K.ONE_OF,
        K.SCHEMA,
        K.COMMENT,
    }
)
_MAX_DEPTH = 6


@dataclass(frozen=True, slots=True)
class TypeText:
    """How a type reads: words, with the named types it mentions (linked on the page)."""

    parts: tuple[tuple[str, str | None], ...]
    """``(text, named type or None)`` pieces, in order."""

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    type: TypeText
    required: bool
    default: str | None
    constraints: tuple[str, ...]
    description: str
    examples: tuple[str, ...]
    children: tuple[Row, ...] = field(default=())
    """The fields of an inline object (or of the objects in an inline list or map)."""
    children_label: str = ""


@dataclass(frozen=True, slots=True)
class Shape:
    """A schema as the page shows it: rows when it is an object, else just its type."""

    type: TypeText
    rows: tuple[Row, ...]
    closed: bool
    description: str = ""


def shape(schema: Mapping[str, Any]) -> Shape:
    """The table of ``schema`` (a payload or result schema, or one ``$defs`` entry)."""
    rows = _object_rows(schema, 0)
    closed = schema.get(K.ADDITIONAL_PROPERTIES) is False
    return Shape(
        type_text(schema),
        tuple(rows) if rows is not None else (),
        closed,
        str(schema.get(K.DESCRIPTION) or ""),
    )


def named_types(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The ``$defs`` of a schema document, by name, in written order."""
    defs = schema.get(K.DEFS)
    return dict(defs) if isinstance(defs, Mapping) else {}


def _object_rows(schema: Mapping[str, Any], depth: int) -> list[Row] | None:
    properties = schema.get(K.PROPERTIES)
    if not isinstance(properties, Mapping):
        return None
    listed = schema.get(K.REQUIRED)
    required = listed if isinstance(listed, list) else []
    return [
        _row(name, body if isinstance(body, Mapping) else {}, name in required, depth)
        for name, body in properties.items()
    ]


def _row(name: str, schema: Mapping[str, Any], required: bool, depth: int) -> Row:
    children, label = _children(schema, depth)
    examples = schema.get(K.EXAMPLES)
    listed = examples if isinstance(examples, list) else []
    if K.EXAMPLE in schema:
        listed = [*listed, schema[K.EXAMPLE]]
    return Row(
        name=name,
        type=type_text(schema),
        required=required,
        default=compact_json(schema[K.DEFAULT]) if K.DEFAULT in schema else None,
        constraints=tuple(phrases({k: v for k, v in schema.items() if k not in _NOT_CONSTRAINTS})),
        description=str(schema.get(K.DESCRIPTION) or ""),
        examples=tuple(compact_json(v) for v in listed),
        children=tuple(children),
        children_label=label,
    )


def _children(schema: Mapping[str, Any], depth: int) -> tuple[list[Row], str]:
    """The rows under an inline object, list of objects or map of objects (none past a depth)."""
    if depth >= _MAX_DEPTH:
        return [], ""
    rows = _object_rows(schema, depth + 1)
    if rows:
        return rows, "fields"
    items = schema.get(K.ITEMS)
    if isinstance(items, Mapping):
        rows = _object_rows(items, depth + 1)
        if rows:
            return rows, "fields of each item"
    values = schema.get(K.ADDITIONAL_PROPERTIES)
    if isinstance(values, Mapping):
        rows = _object_rows(values, depth + 1)
        if rows:
            return rows, "fields of each value"
    return [], ""


def type_text(schema: Any) -> TypeText:
    return TypeText(tuple(_type_parts(schema, 0)))


def _type_parts(schema: Any, depth: int) -> list[tuple[str, str | None]]:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return [("any", None)]
    ref = schema.get(K.REF)
    if isinstance(ref, str):
        name = ref_name(ref)
        return [(name, name if ref != "#" else None)] if ref != "#" else [("(this type)", None)]
    variants = schema.get(K.ANY_OF, schema.get(K.ONE_OF))
    if isinstance(variants, list) and variants:
        parts: list[tuple[str, str | None]] = []
        for index, variant in enumerate(variants):
            if index:
                parts.append((" | ", None))
            parts.extend(_type_parts(variant, depth + 1))
        return parts
    if K.CONST in schema:
        return [(compact_json(schema[K.CONST]), None)]
    declared = schema.get(K.TYPE)
    kinds = [declared] if isinstance(declared, str) else list(declared or [])
    if not kinds:
        if K.PROPERTIES in schema:
            kinds = ["object"]
        elif K.ENUM in schema:
            return [(K.ENUM, None)]
        else:
            return [("any", None)]
    out: list[tuple[str, str | None]] = []
    for index, kind in enumerate(kinds):
        if index:
            out.append((" | ", None))
        if kind == "array":
            out.append(("array of ", None))
            out.extend(_type_parts(schema.get(K.ITEMS, {}), depth + 1))
        elif (
            kind == "object"
            and isinstance(schema.get(K.ADDITIONAL_PROPERTIES), Mapping)
            and not schema.get(K.PROPERTIES)
        ):
            out.append(("map of ", None))
            out.extend(_type_parts(schema[K.ADDITIONAL_PROPERTIES], depth + 1))
        else:
            out.append((str(kind), None))
    return out
