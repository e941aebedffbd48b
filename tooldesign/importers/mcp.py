"""``tooldesign import mcp``: the tools an MCP server lists, read into an ``MCPToolset`` draft.

The server is asked for ``tools/list`` (every page) with the official client; each tool's input
and output JSON Schemas are translated into DSL attributes and types by :func:`tool_draft`, a
pure function: ``$defs`` become named ``Type``s (recursion by name), enums, nested objects,
arrays, maps and unions (discriminated when every variant is tagged by one field) map to their
DSL forms, ``null`` unions make a field optional, and constraints, defaults and descriptions
follow. What the DSL cannot express is kept verbatim as ``Any(schema=...)`` and reported.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tooldesign.errors import UserError
from tooldesign.importers.draft import (
    ANY,
    BOOLEAN,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAnnotations,
    DraftAttribute,
    DraftDesign,
    DraftNamedType,
    DraftResult,
    DraftTool,
    DraftToolset,
    DraftType,
    InlineObject,
    MapOf,
    MCPServerDraft,
    Named,
    Notice,
    OneOf,
    Primitive,
)
from tooldesign.importers.python import ImportResult
from tooldesign.importers.values import accepts, sanitize_name, unique_name
from tooldesign.runtime.providers._schema import merge_single_all_of, ref_target

_PRIMITIVES: dict[str, Primitive] = {
    "string": STRING,
    "integer": INT,
    "number": FLOAT,
    "boolean": BOOLEAN,
}
# Formats the DSL checks; another format is left out (with a notice): the value stays a string.
_FORMATS = frozenset(
    {"date-time", "date", "time", "duration", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"}
)
_OPTIONS = {
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
}
# Keywords that say nothing a design needs (annotations for humans, or the dialect).
_IGNORED = frozenset(
    {"title", "$schema", "$id", "$comment", "description", "readOnly", "writeOnly", "deprecated"}
)
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "$defs"})
_HINTS = {
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}


@dataclass
class _Context:
    """What translating one server's tools shares: the named types found, and the notices."""

    types: dict[str, DraftNamedType | None] = field(default_factory=dict)
    """By design name; ``None`` while a type is being translated (recursion finds it)."""
    def_names: dict[tuple[int, str], str] = field(default_factory=dict)
    """(id of the root schema, ``$defs`` name) → design type name."""
    notices: list[Notice] = field(default_factory=list)

    def same_type(self, named: DraftNamedType, base: str) -> str | None:
        """An existing type with ``base`` as its name (or ``base_2``…) and the same content."""
        for existing in self.types.values():
            if (
                existing is not None
                and re.fullmatch(rf"{re.escape(base)}(_\d+)?", existing.name)
                and (existing.description, existing.attributes)
                == (named.description, named.attributes)
            ):
                return existing.name
        return None


@dataclass
class _Mapped:
    type: DraftType
    options: dict[str, Any] = field(default_factory=dict)
    description: str | None = None
    nullable: bool = False


class _Translator:
    """Translates the schemas of one tool (one ``$defs`` namespace)."""

    def __init__(self, tool: str, root: Mapping[str, Any], context: _Context) -> None:
        self.tool = tool
        self.root = root
        self.context = context

    def notice(self, where: str, message: str) -> None:
        self.context.notices.append(Notice(f"tool {self.tool!r} › {where}", message))

    # ── objects ───────────────────────────────────────────────────────────────────────────

    def attributes(self, schema: Mapping[str, Any], where: str) -> tuple[DraftAttribute, ...]:
        schema = merge_single_all_of(schema)
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            return ()
        required = set(schema.get("required") or ())
        out: list[DraftAttribute] = []
        for name, body in properties.items():
            if not isinstance(body, Mapping):
                continue
            at = f"{where}.{name}" if where else name
            mapped = self.map(body, at)
            is_required = name in required
            if is_required and mapped.nullable:
                self.notice(at, "required but may be null: written as optional")
                is_required = False
            out.append(self.attribute(str(name), mapped, body, is_required, at))
        return tuple(out)

    def attribute(
        self, name: str, mapped: _Mapped, body: Mapping[str, Any], required: bool, where: str
    ) -> DraftAttribute:
        options = dict(mapped.options)
        for key in ("default", "examples"):
            if key not in body:
                continue
            value = body[key] if key == "default" else (body[key] or [None])[0]
            option = "default" if key == "default" else "example"
            if value is None:
                continue
            if accepts(mapped.type, options, value, self.context.types):
                options[option] = value
            else:
                self.notice(where, f"its {option} {value!r} does not fit its type; left out")
        if required:
            options.pop("default", None)  # a default only applies to optional attributes
        description = mapped.description or _text(body.get("description"))
        return DraftAttribute(name, mapped.type, description, required, options)

    # ── one schema ────────────────────────────────────────────────────────────────────────

    def map(self, schema: Mapping[str, Any], where: str) -> _Mapped:
        schema = merge_single_all_of(schema)
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self.reference(ref, schema, where)
        variants = schema.get("anyOf", schema.get("oneOf"))
        types = schema.get("type")
        if isinstance(types, list):
            kinds = [t for t in types if t != "null"]
            if len(kinds) == 1:
                mapped = self.map({**schema, "type": kinds[0]}, where)
                mapped.nullable = mapped.nullable or "null" in types
                return mapped
            return self.union(
                [{**schema, "type": t} for t in kinds], schema, where, "null" in types
            )
        if isinstance(variants, list):
            return self.union(variants, schema, where, False)
        if "const" in schema:
            return self.enum([schema["const"]], schema, where)
        if isinstance(schema.get("enum"), list):
            return self.enum(schema["enum"], schema, where)
        if types in _PRIMITIVES:
            return self.primitive(_PRIMITIVES[str(types)], schema, where)
        if types == "array":
            return self.array(schema, where)
        if types == "object" or "properties" in schema:
            return self.object(schema, where)
        if types == "null":
            return _Mapped(ANY, nullable=True)
        if not (set(schema) - _IGNORED):
            return _Mapped(ANY)  # {}: any value
        return self.verbatim(schema, where, "this schema")

    def primitive(self, kind: Primitive, schema: Mapping[str, Any], where: str) -> _Mapped:
        options: dict[str, Any] = {}
        for keyword, option in _OPTIONS.items():
            if keyword in schema:
                options[option] = schema[keyword]
        fmt = schema.get("format")
        if isinstance(fmt, str):
            if kind is STRING and fmt in _FORMATS:
                options["format"] = fmt
            else:
                self.notice(where, f"format {fmt!r} is not one the design checks; left out")
        rest = set(schema) - _IGNORED - set(_OPTIONS) - {"type", "format", "default", "examples"}
        if rest:
            return self.verbatim(schema, where, f"keyword(s) {', '.join(sorted(rest))}")
        return _Mapped(kind, options)

    def enum(self, values: Sequence[Any], schema: Mapping[str, Any], where: str) -> _Mapped:
        nullable = None in values
        listed = [v for v in values if v is not None]
        kinds = {type(v) for v in listed}
        if len(kinds) != 1 or kinds - {str, int, float, bool}:
            return self.verbatim(schema, where, "an enum of mixed values")
        kind = {str: STRING, int: INT, float: FLOAT, bool: BOOLEAN}[kinds.pop()]
        return _Mapped(kind, {"enum": listed}, nullable=nullable)

    def array(self, schema: Mapping[str, Any], where: str) -> _Mapped:
        items = schema.get("items")
        rest = (
            set(schema)
            - _IGNORED
            - {"type", "items", "minItems", "maxItems", "default", "examples"}
        )
        if rest or (items is not None and not isinstance(items, Mapping)):
            return self.verbatim(schema, where, f"keyword(s) {', '.join(sorted(rest)) or 'items'}")
        item = self.map(items, f"{where}[]") if isinstance(items, Mapping) else _Mapped(ANY)
        options = {k: v for k, v in item.options.items() if k not in ("default", "example")}
        if options and not isinstance(item.type, Primitive):
            self.notice(where, "constraints on its items cannot be kept")
            options = {}
        if item.nullable:
            self.notice(where, "items that may be null are written as non-null items")
        for keyword, option in (("minItems", "min_items"), ("maxItems", "max_items")):
            if keyword in schema:
                options[option] = schema[keyword]
        return _Mapped(ArrayOf(item.type), options)

    def object(self, schema: Mapping[str, Any], where: str) -> _Mapped:
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        rest = set(schema) - _IGNORED - _OBJECT_KEYS - {"default", "examples"}
        if rest:
            return self.verbatim(schema, where, f"keyword(s) {', '.join(sorted(rest))}")
        if properties:
            if isinstance(extra, Mapping) and extra:
                self.notice(where, "extra keys beside its fields cannot be kept: written closed")
            return _Mapped(InlineObject(self.attributes(schema, where)))
        if isinstance(extra, Mapping):
            values = self.map(extra, f"{where}.*")
            if values.options:
                self.notice(where, "constraints on the map's values cannot be kept")
            return _Mapped(MapOf(values.type))
        if extra is False:
            return _Mapped(InlineObject(()))  # an object that takes nothing
        return _Mapped(MapOf(ANY))

    def union(
        self, variants: Sequence[Any], schema: Mapping[str, Any], where: str, nullable: bool
    ) -> _Mapped:
        kept = [v for v in variants if isinstance(v, Mapping) and v.get("type") != "null"]
        nullable = nullable or len(kept) < len(variants)
        if len(kept) == 1:
            mapped = self.map({**kept[0], **_annotations_of(schema)}, where)
            mapped.nullable = True if nullable else mapped.nullable
            return mapped
        mapped_variants: list[DraftType] = []
        for index, variant in enumerate(kept):
            mapped = self.map(variant, f"{where}|{index + 1}")
            if mapped.options or mapped.nullable:
                return self.verbatim(schema, where, "a union of constrained values")
            t = mapped.type
            if isinstance(t, InlineObject):  # a union's objects must be named types
                t = self.define(
                    _title(variant) or f"{_pascal(self.tool)}{_pascal(where)}Option{index + 1}",
                    _text(variant.get("description")),
                    t.attributes,
                )
            if t not in mapped_variants:
                mapped_variants.append(t)
        if ANY in mapped_variants or len(mapped_variants) < 2:
            return _Mapped(
                mapped_variants[0] if len(mapped_variants) == 1 else ANY, nullable=nullable
            )
        return _Mapped(
            OneOf(tuple(mapped_variants), self.discriminator(mapped_variants, schema)),
            nullable=nullable,
        )

    def discriminator(self, variants: list[DraftType], schema: Mapping[str, Any]) -> str | None:
        """The field that tags every variant with its own value, if there is one."""
        declared = schema.get("discriminator")
        if isinstance(declared, Mapping) and isinstance(declared.get("propertyName"), str):
            return str(declared["propertyName"])
        named = [self.context.types.get(v.name) if isinstance(v, Named) else None for v in variants]
        if any(t is None for t in named):
            return None
        candidates: set[str] | None = None
        for t in named:
            assert t is not None
            tags = {
                a.name
                for a in t.attributes
                if a.required and a.type is STRING and len(a.options.get("enum", ())) == 1
            }
            candidates = tags if candidates is None else candidates & tags
        for name in sorted(candidates or ()):
            values = [
                next(a for a in t.attributes if a.name == name).options["enum"][0]
                for t in named
                if t is not None
            ]
            if len(set(values)) == len(values):
                return name
        return None

    # ── references and named types ────────────────────────────────────────────────────────

    def reference(self, ref: str, schema: Mapping[str, Any], where: str) -> _Mapped:
        target = ref_target(self.root, ref)
        if target is None:
            self.notice(where, f"$ref {ref!r} points outside the schema: typed Any")
            return _Mapped(ANY)
        target = merge_single_all_of(target)
        description = _text(schema.get("description"))
        name = ref.rsplit("/", 1)[-1]
        if _is_object(target) and target.get("properties"):
            return _Mapped(Named(self.named(name, target)), description=description)
        # A named enum or primitive: the design lists it where it is used.
        mapped = self.map(target, where)
        mapped.description = description or mapped.description or _text(target.get("description"))
        return mapped

    def named(self, def_name: str, target: Mapping[str, Any]) -> str:
        key = (id(self.root), def_name)
        existing = self.context.def_names.get(key)
        if existing is not None:
            return existing
        base = _type_name(def_name)
        name = unique_name(base, set(self.context.types))
        self.context.def_names[key] = name
        self.context.types[name] = None  # being translated: a recursive $ref finds the name
        named = DraftNamedType(
            name, _text(target.get("description")), self.attributes(target, def_name)
        )
        # Tools of one server share their models; each tool's schema repeats them in $defs.
        same = self.context.same_type(named, base)
        if same is not None and same != name:
            del self.context.types[name]
            self.context.def_names[key] = same
            return same
        self.context.types[name] = named
        return name

    def define(
        self, name: str, description: str | None, attributes: tuple[DraftAttribute, ...]
    ) -> Named:
        base = _type_name(name)
        named = DraftNamedType(base, description, attributes)
        same = self.context.same_type(named, base)
        if same is not None:
            return Named(same)
        unique = unique_name(base, set(self.context.types))
        self.context.types[unique] = replace(named, name=unique)
        return Named(unique)

    def verbatim(self, schema: Mapping[str, Any], where: str, what: str) -> _Mapped:
        inlined = _inline_refs(schema, self.root, ())
        if inlined is None:
            self.notice(
                where, f"{what} has no design equivalent and refers to a recursive type: typed Any"
            )
            return _Mapped(ANY)
        body = {
            k: v
            for k, v in inlined.items()
            if k not in ("title", "description", "default", "examples")
        }
        self.notice(where, f"{what} has no design equivalent: kept verbatim as Any(schema=...)")
        return _Mapped(Primitive("Any", body))


def tool_draft(tool: Any, context: _Context | None = None) -> tuple[DraftTool, _Context]:
    """One ``mcp.types.Tool`` (or a dict in its wire shape) as a draft tool."""
    context = context or _Context()
    get = (lambda key: tool.get(key)) if isinstance(tool, Mapping) else None
    name = get("name") if get else tool.name
    description = (get("description") if get else tool.description) or ""
    title = get("title") if get else tool.title
    input_schema = (get("inputSchema") if get else tool.input_schema) or {"type": "object"}
    output_schema = get("outputSchema") if get else tool.output_schema
    raw_annotations = get("annotations") if get else tool.annotations
    design_name = sanitize_name(str(name))
    translator = _Translator(design_name, input_schema, context)
    if design_name != name:
        translator.notice(
            "name",
            f"{name!r} is not a tool name models can use: written as {design_name!r} (remote_name={name!r})",
        )
    if not description.strip():
        description = design_name.replace("_", " ").capitalize()
        translator.notice(
            "description", f"the server gives no description; described as {description!r}"
        )
    args = translator.attributes(input_schema, "")
    examples = tuple(
        e
        for e in (input_schema.get("examples") or ())
        if isinstance(e, dict) and accepts(InlineObject(args), {}, e, context.types)
    )
    result = _result(design_name, output_schema, context)
    return (
        DraftTool(
            name=design_name,
            description=description.strip(),
            args=args,
            result=result,
            title=title if isinstance(title, str) and title else None,
            examples=examples,
            annotations=_annotations(raw_annotations),
            remote_name=str(name) if design_name != name else None,
        ),
        context,
    )


def _result(tool: str, schema: Any, context: _Context) -> DraftResult:
    if not isinstance(schema, Mapping):
        return DraftResult(ANY, None)
    translator = _Translator(tool, schema, context)
    root = merge_single_all_of(schema)
    properties = root.get("properties")
    # The MCP convention for a result that is not an object: {"result": X}.
    if (
        isinstance(properties, Mapping)
        and set(properties) == {"result"}
        and root.get("required") == ["result"]
    ):
        inner = properties["result"]
        mapped = translator.map(inner, "result")
        return DraftResult(mapped.type, mapped.description or _text(inner.get("description")))
    title = _title(root)
    defs = root.get("$defs")
    defs = defs if isinstance(defs, Mapping) else {}
    description = _text(root.get("description"))
    if title and title in defs and _is_object(root) and root.get("properties"):
        # The root is one of its own $defs (a recursive model): refer to it by name.
        return DraftResult(Named(translator.named(title, root)), description)
    mapped = translator.map(root, "result")
    if title and isinstance(mapped.type, InlineObject):
        # A named model: the same type other tools use, when its fields are the same.
        return DraftResult(
            translator.define(title, description, mapped.type.attributes), description
        )
    return DraftResult(mapped.type, mapped.description)


def _annotations(raw: Any) -> DraftAnnotations:
    if raw is None:
        return DraftAnnotations()
    values = raw if isinstance(raw, Mapping) else raw.model_dump(by_alias=True, exclude_none=True)
    return DraftAnnotations(
        **{_HINTS[k]: v for k, v in values.items() if k in _HINTS and isinstance(v, bool)}
    )


def tools_design(
    tools: Sequence[Any],
    server: MCPServerDraft,
    *,
    service: str,
    toolset: str,
    server_label: str,
    server_description: str | None = None,
) -> ImportResult:
    """A whole server's tools as a design with one ``MCPToolset``."""
    context = _Context()
    drafts: list[DraftTool] = []
    taken: set[str] = set()
    for tool in tools:
        draft, context = tool_draft(tool, context)
        name = unique_name(draft.name, taken)
        taken.add(name)
        if name != draft.name:
            context.notices.append(
                Notice(f"tool {draft.name!r}", f"renamed to {name!r}: the name is taken")
            )
            draft = replace(draft, name=name, remote_name=draft.remote_name or draft.name)
        drafts.append(draft)
    described = server_description or f"Tools of the MCP server {server_label}"
    design = DraftDesign(
        service=service,
        service_description=described,
        toolsets=(DraftToolset(toolset, described, tuple(drafts), mcp_server=server),),
        types=tuple(t for t in context.types.values() if t is not None),
        header=(
            f"The tools of the MCP server {server_label}, imported by `tooldesign import mcp`.\n\n"
            "Edit this design from now on; run `tooldesign gen` to generate typed payloads, "
            "results and an executor that calls the server."
        ),
    )
    return ImportResult(design, context.notices)


def import_mcp(
    server: MCPServerDraft,
    *,
    service: str | None = None,
    toolset: str | None = None,
    timeout: float = 30.0,
) -> ImportResult:
    """Connect to ``server``, read its tools, and draft the design."""
    from tooldesign.runtime.mcp_client import MCPClient, MCPServerParams, MCPUnavailable

    params = MCPServerParams(command=server.command, url=server.url)
    label = params.describe()

    async def listed() -> tuple[list[Any], str | None, str | None]:
        client = MCPClient(params, connect_timeout=timeout, timeout=timeout)
        try:
            async with asyncio.timeout(timeout):
                tools = await client.list_tools()
                info = await client.server_info()
        finally:
            await client.aclose()
        return tools, info[0], info[1]

    try:
        tools, server_name, instructions = asyncio.run(listed())
    except MCPUnavailable as exc:
        raise UserError(f"cannot reach the MCP server {label}: {_cause(exc.cause)}") from None
    except TimeoutError:
        raise UserError(f"the MCP server {label} did not answer within {timeout:g} s") from None
    except Exception as exc:  # noqa: BLE001 - the SDK's protocol errors: the server is not usable
        raise UserError(f"the MCP server {label} could not list its tools: {_cause(exc)}") from None
    if not tools:
        raise UserError(f"the MCP server {label} lists no tools; nothing written")
    if server_name:
        label = f"{server_name!r} ({label})"
    base = server_name or (server.command[-1] if server.command else "server")
    default = sanitize_name(re.sub(r"\.py$", "", base.rsplit("/", 1)[-1]), identifier=True)
    return tools_design(
        tools,
        server,
        service=sanitize_name(service, identifier=True) if service else default,
        toolset=sanitize_name(toolset, identifier=True) if toolset else default,
        server_label=label,
        server_description=(instructions or "").strip().split("\n\n")[0] or None,
    )


# ── helpers ───────────────────────────────────────────────────────────────────────────────


def _cause(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _cause(exc.exceptions[0])
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _inline_refs(schema: Any, root: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    """``schema`` with its local ``$ref``s replaced by what they point to; ``None`` if recursive."""
    if isinstance(schema, list):
        items = [_inline_refs(item, root, seen) for item in schema]
        return (
            None
            if any(i is None and o is not None for i, o in zip(items, schema, strict=True))
            else items
        )
    if not isinstance(schema, Mapping):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = ref_target(root, ref)
        if target is None or ref in seen:
            return None
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _inline_refs(merged, root, (*seen, ref))
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$defs":
            continue
        inlined = _inline_refs(value, root, seen)
        if inlined is None and value is not None:
            return None
        out[key] = inlined
    return out


def _annotations_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k in ("description", "default", "examples")}


def _is_object(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" or "properties" in schema


def _title(schema: Mapping[str, Any]) -> str | None:
    title = schema.get("title")
    return title if isinstance(title, str) and title else None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def _type_name(name: str) -> str:
    cleaned = _pascal(name) or "Type"
    return cleaned if not cleaned[0].isdigit() else f"Type{cleaned}"
