"""``BoundedResult``: the fields it adds to a tool's result (and, when it pages, its payload)."""

from __future__ import annotations

from tooldesign.contract.location import Location
from tooldesign.contract.naming import python_identifier
from tooldesign.dsl.records import ToolRecord
from tooldesign.eval.builder.fields import STRING, TypeBuilder
from tooldesign.eval.builder.messages import own_shape
from tooldesign.eval.builder.values import is_text
from tooldesign.ir.model import (
    Constraints,
    Field,
    Message,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    ResultBounds,
    describe,
    dsl_name,
)

INTEGER = PrimitiveType(Primitive.INTEGER)
BOOLEAN = PrimitiveType(Primitive.BOOLEAN)

# The fields BoundedResult adds to a result, with the type an author's own field must have.
BOUND_FIELDS: tuple[tuple[str, PrimitiveType, bool, str], ...] = (
    ("returned", INTEGER, True, "Number of items in this result."),
    ("total", INTEGER, False, "Total number of matching items, when known."),
    ("truncated", BOOLEAN, True, "True when more items matched than this result carries."),
    (
        "refinement_hint",
        STRING,
        False,
        "When truncated: how to narrow the query to see the rest.",
    ),
)


def bounded(
    types: TypeBuilder, rec: ToolRecord, payload: Message, result: Message, prefix: str
) -> tuple[ResultBounds, Message, Message]:
    """The tool's bounds, and its payload and result with the fields they add."""
    issues = types.issues
    declared = rec.bounded
    assert declared is not None
    where, path = declared.location, declared.path
    cursor, next_cursor = declared.cursor, declared.next_cursor
    for label, value in (("cursor", cursor), ("next_cursor", next_cursor)):
        if value is not None and (not is_text(value) or python_identifier(value) is None):
            issues.add(f"BoundedResult {label}= must be a field name, got {value!r}", where, path)
            cursor = next_cursor = None
    if (cursor is None) != (next_cursor is None):
        issues.add(
            "BoundedResult pages only with both cursor= (the payload field) and next_cursor= (the result field)",
            where,
            path,
        )
        cursor = next_cursor = None
    bounds = ResultBounds(cursor, next_cursor, where)
    result_shape = own_shape(types, result, f"{prefix}Result")
    if result_shape is None:
        issues.add(
            "BoundedResult needs an object result (a Return block or a user type)", where, path
        )
        return bounds, payload, result
    wanted = list(BOUND_FIELDS)
    if next_cursor is not None:
        wanted.append((next_cursor, STRING, False, f"Pass as {cursor!r} to fetch the next page."))
    fields = list(result_shape.fields)
    for name, kind, required, description in wanted:
        _merge_field(types, fields, name, kind, required, description, where, result_shape.path)
    result = Message(
        ObjectType(_with_fields(result_shape, fields)),
        result.name_hint,
        result.description,
        result.examples,
    )
    if cursor is not None:
        payload_shape = own_shape(types, payload, f"{prefix}Payload")
        assert payload_shape is not None
        fields = list(payload_shape.fields)
        existing = payload_shape.field(cursor)
        if existing is not None and existing.required:
            issues.add(
                f"cursor field {cursor!r} must be optional (the first call has no cursor)",
                existing.location,
                existing.path,
            )
        _merge_field(
            types,
            fields,
            cursor,
            STRING,
            False,
            f"Cursor from a previous result's {next_cursor!r}; omit for the first page.",
            where,
            payload_shape.path,
        )
        payload = Message(
            ObjectType(_with_fields(payload_shape, fields)),
            payload.name_hint,
            payload.description,
            payload.examples,
        )
    return bounds, payload, result


def _merge_field(
    types: TypeBuilder,
    fields: list[Field],
    name: str,
    kind: PrimitiveType,
    required: bool,
    description: str,
    where: Location,
    parent_path: str,
) -> None:
    for i, existing in enumerate(fields):
        if existing.name != name:
            continue
        if existing.type != kind:
            types.issues.add(
                f"BoundedResult needs field {name!r} to be {dsl_name(kind)}, but it is declared as {describe(existing.type)}",
                existing.location,
                existing.path,
            )
        # The author's words stay; the contract (type, requiredness) is BoundedResult's.
        fields[i] = Field(
            name,
            existing.ident,
            kind,
            existing.description or description,
            required,
            existing.constraints,
            existing.location,
            existing.path,
            existing.default,
            existing.example,
        )
        return
    ident = python_identifier(name) or name
    fields.append(
        Field(
            name,
            ident,
            kind,
            description,
            required,
            Constraints(),
            where,
            f'{parent_path} › "{name}"',
        )
    )


def _with_fields(shape: ObjectShape, fields: list[Field]) -> ObjectShape:
    return ObjectShape(
        shape.name_hint,
        tuple(fields),
        shape.description,
        shape.location,
        shape.path,
        shape.examples,
        shape.rules,
    )
