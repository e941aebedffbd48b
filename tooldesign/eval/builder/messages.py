"""A tool's messages: its payload (``Args``), its result (``Return``) and its server data."""

from __future__ import annotations

from typing import Literal

from tooldesign.contract.errors import did_you_mean
from tooldesign.contract.location import Location
from tooldesign.contract.naming import pascal_case
from tooldesign.dsl.records import MessageRecord, ToolRecord
from tooldesign.eval.builder import values
from tooldesign.eval.builder.fields import TypeBuilder
from tooldesign.ir.model import (
    Constraints,
    Field,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    ServerDataKind,
)


def payload(
    types: TypeBuilder, rec: MessageRecord | None, prefix: str, tool: ToolRecord
) -> Message:
    hint = f"{prefix}Payload"
    if rec is None:
        return _no_fields(hint, tool, "args")
    built = message(types, rec, hint, "Args")
    if isinstance(built.type, ObjectType | NamedType):
        return built
    # Providers take an object of arguments; a single value travels as its "value" field.
    field = Field(
        name="value",
        ident="value",
        type=built.type,
        description=built.description,
        required=True,
        constraints=Constraints(),
        location=rec.location,
        path=f'{rec.path} › "value"',
    )
    shape = ObjectShape(hint, (field,), built.description, rec.location, rec.path)
    return Message(ObjectType(shape), hint, built.description)


def result(types: TypeBuilder, rec: MessageRecord | None, prefix: str, tool: ToolRecord) -> Message:
    hint = f"{prefix}Result"
    if rec is None:
        return _no_fields(hint, tool, "result")
    return message(types, rec, hint, "Return")


def _no_fields(hint: str, tool: ToolRecord, part: str) -> Message:
    """What a tool that declares no ``Args`` (or no ``Return``) takes: an object without fields."""
    shape = ObjectShape(hint, (), None, tool.location, f"{tool.path} › {part}")
    return Message(ObjectType(shape), hint, None)


def message(types: TypeBuilder, rec: MessageRecord, hint: str, what: str) -> Message:
    issues = types.issues
    description = values.text(rec.description, rec, "description", issues)
    shape_rec = rec.shape
    if rec.type is None:
        assert shape_rec is not None
        shape = types.shape(shape_rec, hint, description, rules=what == "Args")
        return Message(ObjectType(shape), hint, description, shape.examples)
    if shape_rec is not None and (shape_rec.attributes or shape_rec.required or shape_rec.rules):
        issues.add(
            f"{what}({rec.type!r}) names its type, so its block cannot declare attributes; "
            f"use `with {what}():` to declare them",
            rec.location,
            rec.path,
        )
    examples = values.examples(shape_rec.examples, rec.path, issues) if shape_rec else ()
    t = types.type(rec.type, rec.location, rec.path, None, hint)
    if not examples and isinstance(t, NamedType) and t.name in types.types:
        examples = types.types[t.name].shape.examples  # Args(Device): the type's own examples
    return Message(t, hint, description, examples)


def server_data(types: TypeBuilder, rec: ToolRecord, prefix: str) -> tuple[ServerDataKind, ...]:
    issues = types.issues
    out: list[ServerDataKind] = []
    seen: dict[str, Location] = {}
    for sd in rec.server_data:
        if not values.is_text(sd.kind) or not sd.kind:
            issues.add(
                f"server data kind must be a non-empty string, got {sd.kind!r}",
                sd.location,
                sd.path,
            )
            continue
        if sd.kind in seen:
            issues.add(
                f"server data kind {sd.kind!r} is declared twice in this tool (first declared at {seen[sd.kind]})",
                sd.location,
                sd.path,
            )
            continue
        seen[sd.kind] = sd.location
        if sd.default not in ("on", "off"):
            issues.add(
                f"server data default must be 'on' or 'off', got {sd.default!r}",
                sd.location,
                sd.path,
            )
        assert sd.message is not None
        built = message(
            types, sd.message, f"{prefix}{pascal_case(sd.kind)}ServerData", "ServerData"
        )
        default: Literal["on", "off"] = "off" if sd.default == "off" else "on"
        source = sd.from_field
        if source is not None and (not values.is_text(source) or not source):
            issues.add(
                f"ServerData from_field= must be a field name, got {source!r}",
                sd.location,
                sd.path,
            )
            source = None
        out.append(
            ServerDataKind(sd.kind, built, built.description, default, sd.location, sd.path, source)
        )
    return tuple(out)


def injected(types: TypeBuilder, rec: ToolRecord, payload: Message) -> tuple[str, ...]:
    """``Inject``: payload fields the runtime fills, hidden from the model."""
    issues = types.issues
    shape = own_shape(types, payload, payload.name_hint)
    names: list[str] = []
    for name, where in rec.injected:
        if not values.is_text(name):
            issues.add(f"Inject takes field names, got {name!r}", where, rec.path)
            continue
        if name in names:
            issues.add(f"field {name!r} is injected more than once", where, rec.path)
            continue
        names.append(name)
        f = shape.field(name) if shape else None
        if f is None:
            fields = [x.name for x in shape.fields] if shape else []
            known = ", ".join(fields) or "none"
            issues.add(
                f"Inject names unknown payload field {name!r} (fields: {known})"
                + did_you_mean(name, fields),
                where,
                rec.path,
            )
        elif not f.required:
            issues.add(
                f"injected field {name!r} (declared at {f.location}) must be Required: the runtime always "
                "fills it, so the payload type can rely on it",
                where,
                rec.path,
            )
    return tuple(names)


def own_shape(types: TypeBuilder, message: Message, hint: str) -> ObjectShape | None:
    """The message's object shape, copied out of a user type so fields can be added to it."""
    t = message.type
    if isinstance(t, ObjectType):
        return t.shape
    if isinstance(t, NamedType) and t.name in types.types:
        shape = types.types[t.name].shape
        return ObjectShape(
            hint, shape.fields, shape.description, shape.location, shape.path, shape.examples
        )
    return None
