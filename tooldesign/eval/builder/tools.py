"""Phase 2 of evaluation: turn DSL records into the IR, resolving references.

Problems are collected, never raised; a part that cannot be resolved is replaced by a harmless
stand-in (``Any``) so later checks go on without cascading errors.

An element whose name is rejected (invalid, or taken) is still built, so the problems inside it
are reported too: services, toolsets and tools stay in the IR (a design with issues is never
generated), while a repeated type or attribute goes to ``Design.rejected``, which validation
checks like the rest.
"""

from __future__ import annotations

import difflib
import importlib
import json
import math
import re
import shlex
from collections.abc import Iterable
from typing import Any, Literal, TypeVar

from tooldesign.codegen.naming import pascal_case, python_identifier
from tooldesign.dsl.calls import block_record
from tooldesign.dsl.records import (
    AttributeRecord,
    BindRecord,
    DesignRecord,
    Location,
    MessageRecord,
    Record,
    ServiceRecord,
    ShapeRecord,
    ToolRecord,
    ToolsetRecord,
    TypeRecord,
)
from tooldesign.dsl.types import (
    BUILTIN_ALIASES,
    ArrayExpr,
    MapExpr,
    MCPServerExpr,
    ObjectExpr,
    PrimitiveExpr,
    UnionExpr,
    VerbatimExpr,
)
from tooldesign.ir.errors import Issues, short_repr
from tooldesign.ir.model import (
    NO_CONSTRAINTS,
    NO_VALUE,
    Annotations,
    ArrayType,
    Binding,
    Constraints,
    Design,
    ExampleValue,
    Field,
    MapType,
    MCPServerSpec,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    ResultBounds,
    ServerDataKind,
    Service,
    Tool,
    Toolset,
    TypeExpr,
    UnionType,
    UserType,
    describe,
    dsl_name,
)

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
GROUP_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

ANY = PrimitiveType(Primitive.ANY)
STRING = PrimitiveType(Primitive.STRING)
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

GroupT = TypeVar("GroupT", ServiceRecord, ToolsetRecord)

_NUMBER_OPTIONS = ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum")
_COUNT_OPTIONS = ("min_length", "max_length", "min_items", "max_items")


def build(record: DesignRecord, issues: Issues, sources: Iterable[str] = ()) -> Design:
    for issue in record.issues:
        issues.add(issue.message, issue.location, issue.path)
    return _Builder(record, issues).design(tuple(sources))


def _is_text(value: object) -> bool:
    return isinstance(value, str)


class _UniqueNames:
    """Names of one kind in one scope: unique as written, and still unique once sanitised.

    ``claim`` reports the first problem found and says whether the name may be used.
    """

    def __init__(self, kind: str, issues: Issues) -> None:
        self.kind = kind
        self.issues = issues
        self.first: dict[str, Location] = {}
        self.sanitised: dict[str, str] = {}

    def claim(self, name: str, sanitised: str | None, location: Location, path: str) -> bool:
        if name in self.first:
            self.issues.add(
                f"duplicate {self.kind} name {name!r} (first declared at {self.first[name]})",
                location,
                path,
            )
            return False
        if sanitised is None:
            self.issues.add(
                f"{self.kind} name {name!r} is not a valid identifier after sanitising",
                location,
                path,
            )
            return False
        if sanitised in self.sanitised:
            other = self.sanitised[sanitised]
            self.issues.add(
                f"{self.kind} name {name!r} collides with {other!r} after sanitising (both become {sanitised!r})",
                location,
                path,
            )
            return False
        self.first[name] = location
        self.sanitised[sanitised] = name
        return True


class _Builder:
    def __init__(self, record: DesignRecord, issues: Issues) -> None:
        self.record = record
        self.issues = issues
        self.type_names: dict[str, TypeRecord] = {}
        self.types: dict[str, UserType] = {}
        self.rejected_types: list[TypeRecord] = []
        self.rejected: list[ObjectShape] = []
        """Shapes kept out of the design for their names, still validated (see the module doc)."""

    # ── user types ────────────────────────────────────────────────────────────────────────

    def design(self, sources: tuple[str, ...]) -> Design:
        self._register_types()
        for name, rec in self.type_names.items():
            shape = self._shape(
                rec.shape, pascal_case(name), self._text(rec.description, rec, "description")
            )
            self.types[name] = UserType(
                name, pascal_case(name), shape.description, shape, rec.location, rec.path
            )
        for rec in self.rejected_types:
            hint = pascal_case(rec.name) if _is_text(rec.name) else "Rejected"
            description = self._text(rec.description, rec, "description")
            self.rejected.append(self._shape(rec.shape, hint, description))
        services = self._services()
        return Design(
            services=services,
            types=dict(self.types),
            sources=sources,
            rejected=tuple(self.rejected),
        )

    def _register_types(self) -> None:
        names = _UniqueNames("type", self.issues)
        for rec in self.record.types:
            name = rec.name
            if not _is_text(name) or not name:
                self.issues.add(
                    f"type name must be a non-empty string, got {name!r}", rec.location, rec.path
                )
                self.rejected_types.append(rec)
                continue
            class_name = pascal_case(name)
            valid = class_name.isidentifier() and not class_name[0].isdigit()
            if names.claim(name, class_name if valid else None, rec.location, rec.path):
                self.type_names[name] = rec
            else:
                self.rejected_types.append(rec)

    # ── services, toolsets, tools ─────────────────────────────────────────────────────────

    def _services(self) -> tuple[Service, ...]:
        out: list[Service] = []
        for rec in self._checked_groups(self.record.services, "service"):
            toolsets = tuple(
                self._toolset(t, rec.name) for t in self._checked_groups(rec.toolsets, "toolset")
            )
            # Within a toolset a repeated name is reported by the toolset; here, across toolsets.
            tool_names: dict[str, tuple[Location, Toolset]] = {}
            for toolset in toolsets:
                for tool in toolset.tools:
                    first = tool_names.get(tool.name)
                    if first is None:
                        tool_names[tool.name] = (tool.location, toolset)
                    elif first[1] is not toolset:
                        self.issues.add(
                            f"duplicate tool name {tool.name!r} in service {rec.name!r} (first declared at {first[0]}); "
                            "the model sees tool names, so they must be unique per service",
                            tool.location,
                            tool.path,
                        )
            desc = self._text(rec.description, rec, "description")
            out.append(
                Service(
                    rec.name, _ident(rec.name, "service_"), desc, toolsets, rec.location, rec.path
                )
            )
        return tuple(out)

    def _checked_groups(self, records: list[GroupT], kind: str) -> list[GroupT]:
        """Every record, its name checked: valid, and unique as written and as a Python identifier.

        A record whose name is rejected is kept, so what it holds is checked too.
        """
        names = _UniqueNames(kind, self.issues)
        for rec in records:
            name = rec.name
            if not _is_text(name) or not GROUP_NAME.match(name):
                self.issues.add(
                    f"{kind} name {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$ (it names a Python package)",
                    rec.location,
                    rec.path,
                )
                continue
            names.claim(name, _ident(name, f"{kind}_"), rec.location, rec.path)
        return records

    def _toolset(self, rec: ToolsetRecord, service: str) -> Toolset:
        tags = self._tags(rec.tags, rec)
        tools: list[Tool] = []
        names = _UniqueNames("tool", self.issues)
        for tool_rec in rec.tools:
            name = tool_rec.name
            ident = _ident(name, "tool_")
            if not _is_text(name) or not TOOL_NAME.match(name):
                length = (
                    f" is {len(name)} characters long and"
                    if _is_text(name) and len(name) > 64
                    else ""
                )
                self.issues.add(
                    f"tool name {name!r}{length} must match ^[A-Za-z0-9_-]{{1,64}}$: 1 to 64 letters, digits, "
                    "_ or - (models see it as the function name)",
                    tool_rec.location,
                    tool_rec.path,
                )
            else:
                names.claim(name, ident, tool_rec.location, tool_rec.path)
            # Kept whatever its name: what the tool declares is checked too.
            tools.append(self._tool(tool_rec, service, rec.name, ident, tags, rec.is_mcp))
        desc = self._text(rec.description, rec, "description")
        return Toolset(
            rec.name,
            _ident(rec.name, "toolset_"),
            desc,
            tags,
            tuple(tools),
            rec.location,
            rec.path,
            mcp=mcp_server_spec(rec.mcp_server, rec, self.issues) if rec.is_mcp else None,
        )

    def _tool(
        self,
        rec: ToolRecord,
        service: str,
        toolset: str,
        ident: str,
        toolset_tags: tuple[str, ...],
        remote: bool = False,
    ) -> Tool:
        for what, where in rec.duplicates:
            self.issues.add(f"{what} is declared more than once in this tool", where, rec.path)
        remote_name = self._remote_name(rec, remote)
        prefix = pascal_case(ident)
        description = self._text(rec.description, rec, "description")
        if not description or not description.strip():
            self.issues.add(
                "tool needs a description (models read it to decide when to call the tool)",
                rec.location,
                rec.path,
            )
        title = self._text(rec.title, rec, "title")
        tags = tuple(dict.fromkeys((*toolset_tags, *self._tags(rec.tags, rec))))
        payload = self._payload(rec.args, prefix, rec)
        result = self._result(rec.returns, prefix, rec)
        bounds = None
        if rec.bounded is not None:
            bounds, payload, result = self._bounded(rec, payload, result, prefix)
        # Transforms are planned later, once the whole design is validated (``ir.binding.bind``).
        return Tool(
            name=rec.name,
            ident=ident,
            class_prefix=prefix,
            service=service,
            toolset=toolset,
            title=title,
            description=description or "",
            tags=tags,
            payload=payload,
            result=result,
            location=rec.location,
            path=rec.path,
            bounds=bounds,
            injected=self._injected(rec, payload),
            server_data=self._server_data(rec, prefix),
            binding=self._binding(rec.bind) if rec.bind is not None and not remote else None,
            annotations=self._annotations(rec),
            remote_name=remote_name,
        )

    def _remote_name(self, rec: ToolRecord, remote: bool) -> str | None:
        """Checks what only a tool of an MCPToolset may say, and what it may not."""
        if not remote:
            if rec.remote_name is not None:
                self.issues.add(
                    "remote_name= applies to tools of an MCPToolset only", rec.location, rec.path
                )
            return None
        if rec.bind is not None:
            self.issues.add(
                "BindTo has no place in an MCPToolset: its tools run on the MCP server",
                rec.bind.location,
                rec.bind.path,
            )
        for sd in rec.server_data:
            self.issues.add(
                "ServerData is not available for tools of an MCPToolset (the server sends only "
                "what the model reads)",
                sd.location,
                sd.path,
            )
        name = rec.remote_name
        if name is not None and (not _is_text(name) or not name.strip()):
            self.issues.add(
                f"remote_name= must be the tool's name on the server, got {name!r}",
                rec.location,
                rec.path,
            )
            return None
        return name if name != rec.name else None

    def _injected(self, rec: ToolRecord, payload: Message) -> tuple[str, ...]:
        shape = self._own_shape(payload, payload.name_hint)
        injected: list[str] = []
        for name, where in rec.injected:
            if not _is_text(name):
                self.issues.add(f"Inject takes field names, got {name!r}", where, rec.path)
                continue
            if name in injected:
                self.issues.add(f"field {name!r} is injected more than once", where, rec.path)
                continue
            injected.append(name)
            f = shape.field(name) if shape else None
            if f is None:
                known = ", ".join(x.name for x in shape.fields) if shape else "none"
                self.issues.add(
                    f"Inject names unknown payload field {name!r} (fields: {known})",
                    where,
                    rec.path,
                )
            elif not f.required:
                self.issues.add(
                    f"injected field {name!r} (declared at {f.location}) must be Required: the runtime always "
                    "fills it, so the payload type can rely on it",
                    where,
                    rec.path,
                )
        return tuple(injected)

    def _tags(self, tags: list[tuple[Any, Location]], rec: Record) -> tuple[str, ...]:
        out: list[str] = []
        for tag, where in tags:
            if not _is_text(tag) or not tag.strip():
                self.issues.add(f"tags must be non-empty strings, got {tag!r}", where, rec.path)
            elif tag not in out:
                out.append(tag)
        return tuple(out)

    def _annotations(self, rec: ToolRecord) -> Annotations:
        ann = rec.annotations
        if ann is None:
            return Annotations()
        values: dict[str, bool | None] = {}
        for key in ("read_only", "destructive", "idempotent", "open_world"):
            value = getattr(ann, key)
            if value is not None and not isinstance(value, bool):
                self.issues.add(
                    f"Annotations {key}= must be True, False or None, got {value!r}",
                    ann.location,
                    ann.path,
                )
                value = None
            values[key] = value
        return Annotations(**values)

    # ── payloads, results, server data ────────────────────────────────────────────────────

    def _payload(self, rec: MessageRecord | None, prefix: str, tool: ToolRecord) -> Message:
        hint = f"{prefix}Payload"
        if rec is None:
            return Message(
                ObjectType(ObjectShape(hint, (), None, tool.location, f"{tool.path} › args")),
                hint,
                None,
            )
        message = self._message(rec, hint, "Args")
        if isinstance(message.type, ObjectType | NamedType):
            return message
        # Providers take an object of arguments; a single value travels as its "value" field.
        field = Field(
            name="value",
            ident="value",
            type=message.type,
            description=message.description,
            required=True,
            constraints=Constraints(),
            location=rec.location,
            path=f'{rec.path} › "value"',
        )
        shape = ObjectShape(hint, (field,), message.description, rec.location, rec.path)
        return Message(ObjectType(shape), hint, message.description)

    def _result(self, rec: MessageRecord | None, prefix: str, tool: ToolRecord) -> Message:
        hint = f"{prefix}Result"
        if rec is None:
            return Message(
                ObjectType(ObjectShape(hint, (), None, tool.location, f"{tool.path} › result")),
                hint,
                None,
            )
        return self._message(rec, hint, "Return")

    def _message(self, rec: MessageRecord, hint: str, what: str) -> Message:
        description = self._text(rec.description, rec, "description")
        shape_rec = rec.shape
        if rec.type is None:
            assert shape_rec is not None
            shape = self._shape(shape_rec, hint, description)
            return Message(ObjectType(shape), hint, description, shape.examples)
        if shape_rec is not None and (shape_rec.attributes or shape_rec.required):
            self.issues.add(
                f"{what}({rec.type!r}) names its type, so its block cannot declare attributes; "
                f"use `with {what}():` to declare them",
                rec.location,
                rec.path,
            )
        examples = self._examples(shape_rec.examples, rec.path) if shape_rec else ()
        t = self._type(rec.type, rec.location, rec.path, None, hint)
        if not examples and isinstance(t, NamedType) and t.name in self.types:
            examples = self.types[t.name].shape.examples  # Args(Device): the type's own examples
        return Message(t, hint, description, examples)

    def _server_data(self, rec: ToolRecord, prefix: str) -> tuple[ServerDataKind, ...]:
        out: list[ServerDataKind] = []
        seen: dict[str, Location] = {}
        for sd in rec.server_data:
            if not _is_text(sd.kind) or not sd.kind:
                self.issues.add(
                    f"server data kind must be a non-empty string, got {sd.kind!r}",
                    sd.location,
                    sd.path,
                )
                continue
            if sd.kind in seen:
                self.issues.add(
                    f"server data kind {sd.kind!r} is declared twice in this tool (first declared at {seen[sd.kind]})",
                    sd.location,
                    sd.path,
                )
                continue
            seen[sd.kind] = sd.location
            if sd.default not in ("on", "off"):
                self.issues.add(
                    f"server data default must be 'on' or 'off', got {sd.default!r}",
                    sd.location,
                    sd.path,
                )
            assert sd.message is not None
            message = self._message(
                sd.message, f"{prefix}{pascal_case(sd.kind)}ServerData", "ServerData"
            )
            default: Literal["on", "off"] = "off" if sd.default == "off" else "on"
            source = sd.from_field
            if source is not None and (not _is_text(source) or not source):
                self.issues.add(
                    f"ServerData from_field= must be a field name, got {source!r}",
                    sd.location,
                    sd.path,
                )
                source = None
            out.append(
                ServerDataKind(
                    sd.kind, message, message.description, default, sd.location, sd.path, source
                )
            )
        return tuple(out)

    def _bounded(
        self, rec: ToolRecord, payload: Message, result: Message, prefix: str
    ) -> tuple[ResultBounds, Message, Message]:
        bounded = rec.bounded
        assert bounded is not None
        where, path = bounded.location, bounded.path
        cursor, next_cursor = bounded.cursor, bounded.next_cursor
        for label, value in (("cursor", cursor), ("next_cursor", next_cursor)):
            if value is not None and (not _is_text(value) or python_identifier(value) is None):
                self.issues.add(
                    f"BoundedResult {label}= must be a field name, got {value!r}", where, path
                )
                cursor = next_cursor = None
        if (cursor is None) != (next_cursor is None):
            self.issues.add(
                "BoundedResult pages only with both cursor= (the payload field) and next_cursor= (the result field)",
                where,
                path,
            )
            cursor = next_cursor = None
        bounds = ResultBounds(cursor, next_cursor, where)
        result_shape = self._own_shape(result, f"{prefix}Result")
        if result_shape is None:
            self.issues.add(
                "BoundedResult needs an object result (a Return block or a user type)", where, path
            )
            return bounds, payload, result
        wanted = list(BOUND_FIELDS)
        if next_cursor is not None:
            wanted.append(
                (next_cursor, STRING, False, f"Pass as {cursor!r} to fetch the next page.")
            )
        fields = list(result_shape.fields)
        for name, kind, required, description in wanted:
            self._merge_field(fields, name, kind, required, description, where, result_shape.path)
        result = Message(
            ObjectType(_with_fields(result_shape, fields)),
            result.name_hint,
            result.description,
            result.examples,
        )
        if cursor is not None:
            payload_shape = self._own_shape(payload, f"{prefix}Payload")
            assert payload_shape is not None
            fields = list(payload_shape.fields)
            existing = payload_shape.field(cursor)
            if existing is not None and existing.required:
                self.issues.add(
                    f"cursor field {cursor!r} must be optional (the first call has no cursor)",
                    existing.location,
                    existing.path,
                )
            self._merge_field(
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

    def _own_shape(self, message: Message, hint: str) -> ObjectShape | None:
        """The message's object shape, copied out of a user type so fields can be added to it."""
        t = message.type
        if isinstance(t, ObjectType):
            return t.shape
        if isinstance(t, NamedType) and t.name in self.types:
            shape = self.types[t.name].shape
            return ObjectShape(
                hint, shape.fields, shape.description, shape.location, shape.path, shape.examples
            )
        return None

    def _merge_field(
        self,
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
                self.issues.add(
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

    def _binding(self, rec: BindRecord) -> Binding | None:
        target = rec.target
        module: str | None
        if _is_text(target):
            module, _, qualname = target.partition(":") if ":" in target else target.rpartition(".")
        else:
            module = getattr(target, "__module__", None)
            qualname = getattr(target, "__qualname__", "")
            if not callable(target):
                self.issues.add(f"BindTo target {target!r} is not callable", rec.location, rec.path)
                return None
        if not module or not qualname or "<" in qualname:
            self.issues.add(
                f"BindTo target {target!r} is not importable: bind a module-level function or a method of a module-level class",
                rec.location,
                rec.path,
            )
            return None
        try:
            obj: Any = importlib.import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except Exception as exc:  # noqa: BLE001 - the application's module may fail to import in any way
            self.issues.add(
                f"BindTo target {module}:{qualname} is not importable: {type(exc).__name__}: {exc}",
                rec.location,
                rec.path,
            )
            return None
        if not callable(obj):
            self.issues.add(
                f"BindTo target {module}:{qualname} is not callable", rec.location, rec.path
            )
            return None
        return Binding(module, qualname, rec.location, rec.path)

    # ── shapes and attributes ─────────────────────────────────────────────────────────────

    def _shape(self, rec: ShapeRecord, hint: str, description: str | None) -> ObjectShape:
        fields: list[Field] = []
        names = _UniqueNames("attribute", self.issues)
        declared: list[str] = []  # valid or not: Required may name them without a second error
        for attr in rec.attributes:
            name = attr.name
            if not _is_text(name):
                self.issues.add(
                    f"attribute name must be a string, got {name!r}", attr.location, attr.path
                )
                self._reject_field(attr, repr(name), hint)
                continue
            declared.append(name)
            ident = python_identifier(name)
            if names.claim(name, ident, attr.location, attr.path):
                assert ident is not None
                fields.append(self._field(attr, ident, hint))
            else:
                self._reject_field(attr, name, hint)
        required: set[str] = set()
        for name, where in rec.required:
            if name not in declared:
                known = ", ".join(dict.fromkeys(declared)) or "none"
                self.issues.add(
                    f"Required names unknown attribute {name!r} (attributes: {known})",
                    where,
                    rec.path,
                )
            required.add(name)
        fields = [_required(f) if f.name in required else f for f in fields]
        examples = self._examples(rec.examples, rec.path)
        return ObjectShape(hint, tuple(fields), description, rec.location, rec.path, examples)

    def _reject_field(self, attr: AttributeRecord, name: str, parent_hint: str) -> None:
        """An attribute kept out of its object for its name: built alone, so it is still checked."""
        field = self._field(attr, python_identifier(name) or "rejected", parent_hint, name=name)
        self.rejected.append(ObjectShape(parent_hint, (field,), None, attr.location, attr.path))

    def _field(
        self, attr: AttributeRecord, ident: str, parent_hint: str, *, name: str | None = None
    ) -> Field:
        hint = parent_hint + pascal_case(ident)
        block = attr.shape
        t = self._type(attr.type, attr.location, attr.path, block, hint)
        if (
            block is not None
            and (block.attributes or block.required)
            and not _contains_object(attr.type)
        ):
            self.issues.add(
                f"attribute {attr.name!r} has a block of attributes but its type is {attr.type!r}; use Object (or ArrayOf(Object))",
                attr.location,
                attr.path,
            )
        options = attr.options
        return Field(
            name=attr.name if name is None else name,
            ident=ident,
            type=t,
            description=self._text(attr.description, attr, "description"),
            required=False,
            constraints=self._constraints(options, attr),
            location=attr.location,
            path=attr.path,
            default=self._json_option(options, "default", attr),
            example=self._json_option(options, "example", attr),
        )

    def _json_option(self, options: dict[str, Any], key: str, attr: AttributeRecord) -> Any:
        """A ``default=`` or ``example=`` as JSON data (``NO_VALUE`` when absent or not JSON)."""
        if key not in options:
            return NO_VALUE
        value, problem = json_data(options[key])
        if problem is not None:
            self.issues.add(f"{key}= must be JSON data: {problem}", attr.location, attr.path)
            return NO_VALUE
        return value

    def _examples(
        self, examples: list[tuple[Any, Location]], path: str
    ) -> tuple[ExampleValue, ...]:
        out: list[ExampleValue] = []
        for value, where in examples:
            data, problem = json_data(value)
            if problem is not None:
                self.issues.add(f"Example must be JSON data: {problem}", where, path)
            else:
                out.append(ExampleValue(data, where))
        return tuple(out)

    def _constraints(self, options: dict[str, Any], attr: AttributeRecord) -> Constraints:
        values: dict[str, Any] = {}
        for key in _NUMBER_OPTIONS:
            value = options.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.issues.add(f"{key}= must be a number, got {value!r}", attr.location, attr.path)
                continue
            if not math.isfinite(value):
                self.issues.add(
                    f"{key}= must be a finite number, got {value!r}", attr.location, attr.path
                )
                continue
            values[key] = value
        for key in _COUNT_OPTIONS:
            value = options.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                self.issues.add(
                    f"{key}= must be a non-negative integer, got {value!r}",
                    attr.location,
                    attr.path,
                )
                continue
            values[key] = value
        for key in ("pattern", "format"):
            value = options.get(key)
            if value is None:
                continue
            if not _is_text(value):
                self.issues.add(f"{key}= must be a string, got {value!r}", attr.location, attr.path)
                continue
            values[key] = value
        enum = options.get("enum")
        if enum is not None:
            if isinstance(enum, str | bytes) or not isinstance(
                enum, list | tuple | set | frozenset
            ):
                self.issues.add(
                    f"enum= must be a list of values, got {enum!r}", attr.location, attr.path
                )
            elif not enum:
                self.issues.add("enum= must list at least one value", attr.location, attr.path)
            else:
                listed = sorted(enum, key=repr) if isinstance(enum, set | frozenset) else enum
                checked = [json_data(value) for value in listed]
                bad = [problem for _, problem in checked if problem is not None]
                if bad:
                    self.issues.add(
                        f"enum= values must be JSON data: {'; '.join(bad)}",
                        attr.location,
                        attr.path,
                    )
                else:
                    values["enum"] = tuple(value for value, _ in checked)
        return Constraints(**values) if values else NO_CONSTRAINTS

    def _type(
        self, value: Any, where: Location, path: str, block: ShapeRecord | None, hint: str
    ) -> TypeExpr:
        value = block_record(value)
        if isinstance(value, PrimitiveExpr):
            return PrimitiveType(Primitive(value.kind))
        if isinstance(value, type) and value in BUILTIN_ALIASES:
            return PrimitiveType(Primitive(BUILTIN_ALIASES[value].kind))
        if isinstance(value, ObjectExpr):
            if block is None or not block.attributes:
                self.issues.add(
                    "Object needs a `with` block declaring its attributes (use MapOf(String, Any) for free-form objects)",
                    where,
                    path,
                )
                return ANY
            return ObjectType(self._shape(block, hint, None))
        if isinstance(value, TypeRecord):
            return self._named(value.name, where, path)
        if isinstance(value, str):
            return self._named(value, where, path)
        if isinstance(value, ArrayExpr):
            items = self._type(value.items, where, path, block, hint + "Item")
            bounds = {}
            for key in ("min_items", "max_items"):
                n = getattr(value, key)
                if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
                    self.issues.add(
                        f"ArrayOf {key}= must be a non-negative integer, got {n!r}",
                        value.location,
                        path,
                    )
                    n = None
                bounds[key] = n
            return ArrayType(items, **bounds)
        if isinstance(value, MapExpr):
            if self._type(value.key, where, path, None, hint) != STRING:
                self.issues.add(
                    f"MapOf keys must be String (JSON object keys are strings), got {value.key!r}",
                    value.location,
                    path,
                )
            return MapType(self._type(value.values, where, path, block, hint + "Value"))
        if isinstance(value, VerbatimExpr):
            return verbatim_type(value, path, self.issues)
        if isinstance(value, UnionExpr):
            if len(value.variants) < 2:
                self.issues.add("OneOf needs at least two types", value.location, path)
            disc = value.discriminator if isinstance(value.discriminator, str) else None
            if value.discriminator is not None and disc is None:
                self.issues.add(
                    f"OneOf discriminator= must be a field name, got {value.discriminator!r}",
                    value.location,
                    path,
                )
            variants = tuple(
                self._type(v, where, path, block, f"{hint}Option{i + 1}")
                for i, v in enumerate(value.variants)
            )
            return UnionType(variants, disc, value.location)
        self.issues.add(
            f"{value!r} is not a type; use String, Int, Float, Boolean, Any, Object, ArrayOf, MapOf, OneOf or a Type",
            where,
            path,
        )
        return ANY

    def _named(self, name: str, where: Location, path: str) -> TypeExpr:
        if name in self.type_names:
            return NamedType(name)
        close = difflib.get_close_matches(name, list(self.type_names), n=1)
        suggestion = f"; did you mean {close[0]!r}?" if close else ""
        self.issues.add(f"unknown type {name!r}{suggestion}", where, path)
        return ANY

    def _text(self, value: Any, rec: Record, what: str) -> str | None:
        if value is None or _is_text(value):
            return value  # type: ignore[no-any-return]
        self.issues.add(f"{what} must be a string, got {value!r}", rec.location, rec.path)
        return None


def json_data(value: Any) -> tuple[Any, str | None]:
    """``value`` as JSON data (tuples become lists), or what keeps it from being JSON.

    Design values end up both in JSON (schemas, catalogs) and in Python source (specs), so
    they must mean the same in both: strings, finite numbers, booleans, ``None``, lists and
    objects with string keys.
    """
    problems: list[str] = []

    def convert(item: Any, where: str) -> Any:
        if item is None or isinstance(item, str | bool | int):
            return item
        if isinstance(item, float):
            if not math.isfinite(item):
                problems.append(f"{_at(where)}{item!r} is not a finite number")
            return item
        if isinstance(item, list | tuple):
            return [convert(x, f"{where}[{i}]") for i, x in enumerate(item)]
        if isinstance(item, dict):
            out: dict[str, Any] = {}
            for key, x in item.items():
                if not isinstance(key, str):
                    problems.append(f"{_at(where)}object keys must be strings, got {key!r}")
                    continue
                out[key] = convert(x, f"{where}[{key!r}]")
            return out
        problems.append(
            f"{_at(where)}{type(item).__name__} {short_repr(item, 40)} is not a JSON value"
        )
        return item

    data = convert(value, "")
    return data, "; ".join(problems) if problems else None


def _at(where: str) -> str:
    return f"at {where}: " if where else ""


def verbatim_type(value: VerbatimExpr, path: str, issues: Issues) -> TypeExpr:
    """``Any(schema=...)``: checked to be a self-contained JSON Schema 2020-12 document."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    schema = value.schema
    try:
        text = json.dumps(schema, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        issues.add(f"Any(schema=...) must be JSON data: {exc}", value.location, path)
        return ANY
    if not isinstance(schema, dict | bool):
        issues.add(
            f"Any(schema=...) takes a JSON Schema (an object), got {schema!r}", value.location, path
        )
        return ANY
    error = best_match(Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "its root"
        issues.add(
            f"Any(schema=...) is not a valid JSON Schema 2020-12 (at {where}): {error.message}",
            value.location,
            path,
        )
        return ANY
    if _has_reference(schema):
        issues.add(
            "Any(schema=...) must be self-contained: a $ref would point outside it once it is "
            "placed in a tool's schema (inline what it refers to)",
            value.location,
            path,
        )
        return ANY
    return PrimitiveType(Primitive.ANY, text)


def _has_reference(schema: Any) -> bool:
    if isinstance(schema, dict):
        return any(
            key in ("$ref", "$dynamicRef") or _has_reference(value) for key, value in schema.items()
        )
    if isinstance(schema, list):
        return any(_has_reference(item) for item in schema)
    return False


def mcp_server_spec(value: Any, rec: Record, issues: Issues) -> MCPServerSpec | None:
    """``MCPToolset(server=...)``: a URL, a command line, a list of arguments, or MCPServer()."""
    where, path = rec.location, rec.path
    expr = value if isinstance(value, MCPServerExpr) else None
    if expr is not None:
        where = expr.location
        command_value, url = expr.command, expr.url
        if (command_value is None) == (url is None):
            issues.add(
                "MCPServer needs a command (a stdio server) or url= (a streamable-HTTP server), "
                "not both",
                where,
                path,
            )
            return None
    elif isinstance(value, str) and value.startswith(("http://", "https://")):
        command_value, url = None, value
    else:
        command_value, url = value, None
    spec = MCPServerSpec()
    if url is not None:
        if not _is_text(url) or not re.match(r"^https?://[^\s/]+", url):
            issues.add(f"the MCP server URL must be http(s)://…, got {url!r}", where, path)
            return None
        spec = MCPServerSpec(url=url)
    else:
        command = _command_line(command_value)
        if command is None:
            issues.add(
                "server= must be a streamable-HTTP URL, a command line that starts a stdio "
                f"server, a list of its arguments, or MCPServer(...); got {command_value!r}",
                where,
                path,
            )
            return None
        spec = MCPServerSpec(command=command)
    if expr is None:
        return spec
    checks = (
        ("env", expr.env, spec.command, "a stdio server's"),
        ("headers", expr.headers, spec.url, "a streamable-HTTP server's"),
    )
    pairs: dict[str, tuple[tuple[str, str], ...]] = {}
    for key, given, applies, whose in checks:
        if given is None:
            continue
        if not applies:
            issues.add(f"MCPServer {key}= is {whose} only", where, path)
        elif not isinstance(given, dict) or not all(
            _is_text(k) and _is_text(v) for k, v in given.items()
        ):
            issues.add(f"MCPServer {key}= must map strings to strings, got {given!r}", where, path)
        else:
            pairs[key] = tuple(sorted(given.items()))
    if expr.cwd is not None and (not _is_text(expr.cwd) or not spec.command):
        issues.add("MCPServer cwd= is a stdio server's working directory (a string)", where, path)
    timeout = expr.timeout
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        issues.add(
            f"MCPServer timeout= must be a positive number of seconds, got {timeout!r}", where, path
        )
        timeout = None
    return MCPServerSpec(
        command=spec.command,
        url=spec.url,
        env=pairs.get("env", ()),
        cwd=expr.cwd if _is_text(expr.cwd) else None,
        headers=pairs.get("headers", ()),
        timeout=float(timeout) if timeout is not None else None,
    )


def _command_line(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError:
            return None
        return tuple(parts) or None
    if isinstance(value, list | tuple) and value and all(_is_text(v) and v for v in value):
        return tuple(value)
    return None


def _ident(name: object, digit_prefix: str) -> str:
    """A Python identifier for a group or tool name (a stand-in for a name that is no string)."""
    if not isinstance(name, str):
        return digit_prefix.rstrip("_")
    return python_identifier(name, digit_prefix=digit_prefix) or digit_prefix.rstrip("_")


def _required(f: Field) -> Field:
    return Field(
        f.name,
        f.ident,
        f.type,
        f.description,
        True,
        f.constraints,
        f.location,
        f.path,
        f.default,
        f.example,
    )


def _with_fields(shape: ObjectShape, fields: list[Field]) -> ObjectShape:
    return ObjectShape(
        shape.name_hint,
        tuple(fields),
        shape.description,
        shape.location,
        shape.path,
        shape.examples,
    )


def _contains_object(value: Any) -> bool:
    value = block_record(value)
    if isinstance(value, ObjectExpr):
        return True
    if isinstance(value, ArrayExpr):
        return _contains_object(value.items)
    if isinstance(value, MapExpr):
        return _contains_object(value.values)
    if isinstance(value, UnionExpr):
        return any(_contains_object(v) for v in value.variants)
    return False
