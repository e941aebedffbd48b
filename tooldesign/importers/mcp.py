"""``tooldesign import mcp``: the tools an MCP server lists, read into an ``MCPToolset`` draft.

The server is asked for ``tools/list`` (every page) with the official client; each tool's input
and output JSON Schemas are translated into DSL attributes and types by :func:`tool_draft`, a
pure function: ``$defs`` become named ``Type``s (recursion by name), enums, nested objects,
arrays, maps and unions (discriminated when every variant is tagged by one field) map to their
DSL forms, ``null`` unions make a field optional, and constraints, defaults and descriptions
follow. What the DSL cannot express is kept verbatim as ``Any(schema=...)`` and reported.

An object without a title is written with its fields where a block can declare them (an
attribute, the result itself); anywhere else it becomes a type named after the tool and where
it is (``ListRowsItem``). A result object without a title that has the fields and description
of a type another tool declares is that type (servers that inline their models send them
without their names); one with a description of its own becomes a type named after the tool.
The models every tool repeats in its own ``$defs`` become one type when they are the same,
recursion included (:mod:`tooldesign.importers.shared_types`). Older drafts' forms
(``"exclusiveMinimum": true``) are read as 2020-12 says them. A stdio command that names files
relative to the current folder is written with that folder as its ``cwd``.

A tool's title is its ``title``, else its ``annotations.title``. The server's texts are
untrusted: what reads like instructions to a model is reported
(:mod:`tooldesign.importers.untrusted`) and kept as it is.

A design's result is what the server sends: ``{"result": X}`` is unwrapped only where a design
would wrap X the same way (X is not an object and cannot be null). A stdio server's standard
error is kept apart while its tools are listed, and shown only when it cannot be used.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from tooldesign.contract import WRAPPED_RESULT_KEY
from tooldesign.contract.annotations import ToolAnnotations, from_hints
from tooldesign.contract.constraints import CONSTRAINTS
from tooldesign.contract.errors import UserError
from tooldesign.contract.formats import FORMAT_NAMES
from tooldesign.importers.draft import (
    ANY,
    BOOLEAN,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAttribute,
    DraftDesign,
    DraftNamedType,
    DraftResult,
    DraftTool,
    DraftToolset,
    DraftType,
    ImportResult,
    InlineObject,
    MapOf,
    MCPServerDraft,
    Named,
    Notice,
    OneOf,
    Primitive,
    is_object,
)
from tooldesign.importers.shared_types import renamed_named_type, renamed_tool, same_type
from tooldesign.importers.untrusted import untrusted_notices
from tooldesign.importers.values import accepts, pascal, readable, sanitize_name, unique_name
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import merge_single_all_of, modernized
from tooldesign.jsonschema.refs import inline_refs, ref_name, ref_target
from tooldesign.jsonschema.text import shown

_PRIMITIVES: dict[str, Primitive] = {
    "string": STRING,
    "integer": INT,
    "number": FLOAT,
    "boolean": BOOLEAN,
}
# The design's bounds and pattern by keyword (enum, format and item counts are read apart).
_OPTIONS = {
    c.keyword: c.option
    for c in CONSTRAINTS
    if c.on_values and c.takes != "values" and c.keyword != K.FORMAT
}
# Keywords that say nothing a design needs (annotations for humans, or the dialect).
_IGNORED = frozenset(
    {K.TITLE, K.SCHEMA, K.ID, K.COMMENT, K.DESCRIPTION, K.READ_ONLY, K.WRITE_ONLY, K.DEPRECATED}
)
_OBJECT_KEYS = frozenset({K.TYPE, K.PROPERTIES, K.REQUIRED, K.ADDITIONAL_PROPERTIES, K.DEFS})


@dataclass
class _Context:
    """What translating one server's tools shares: the named types found, and the notices."""

    types: dict[str, DraftNamedType | None] = field(default_factory=dict)
    """By design name, in the order they were found; ``None`` while a type is being translated
    (recursion finds its name)."""
    origins: dict[str, str] = field(default_factory=dict)
    """Design name → the name the server gave the type (``Node_2`` → ``Node``)."""
    notices: list[Notice] = field(default_factory=list)

    def add(self, origin: str) -> str:
        """A new type's design name: ``origin``, or ``origin_2``… when that is taken."""
        name = unique_name(origin, set(self.types))
        self.types[name] = None
        self.origins[name] = origin
        return name

    def share(self, new: list[str], tool: str) -> dict[str, str]:
        """Each of the ``new`` types that is an earlier type of the same origin, merged into it.

        Tools of one server share their models, and each tool's schemas repeat them in their
        own ``$defs``. Returns the merged names (new → earlier); what refers to them must be
        renamed by the caller too.
        """
        renamed: dict[str, str] = {}
        for name in new:
            for earlier in self.types:
                if earlier == name:
                    break
                if earlier not in renamed and same_type(
                    name, earlier, self.types, self.types, self.same_origin
                ):
                    renamed[name] = earlier
                    break
        for name in renamed:
            del self.types[name], self.origins[name]
        for name, named in self.types.items():
            if named is not None:
                self.types[name] = renamed_named_type(named, renamed)
        for name in new:
            origin = self.origins.get(name)
            if name not in renamed and origin is not None and name != origin:
                self.notices.append(
                    Notice(
                        f"tool {tool!r} › type {origin!r}",
                        f"not the same as the {origin!r} of another schema: written as {name!r}",
                    )
                )
        return renamed

    def same_origin(self, a: str, b: str) -> bool:
        return self.origins.get(a) == self.origins.get(b)


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
        self.def_names: dict[str, str] = {}
        """``$defs`` name → design type name, for this schema's references."""
        self.expanding: set[str] = set()  # references to types that are no objects, being read

    def notice(self, where: str, message: str) -> None:
        self.context.notices.append(Notice(f"tool {self.tool!r} › {where}", message))

    # ── objects ───────────────────────────────────────────────────────────────────────────

    def attributes(self, schema: Mapping[str, Any], where: str) -> tuple[DraftAttribute, ...]:
        schema = merge_single_all_of(schema)
        properties = schema.get(K.PROPERTIES)
        if not isinstance(properties, Mapping):
            return ()
        required = set(schema.get(K.REQUIRED) or ())
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
        for key in (K.DEFAULT, K.EXAMPLES):
            if key not in body:
                continue
            value = body[key] if key == K.DEFAULT else (body[key] or [None])[0]
            option = "default" if key == K.DEFAULT else "example"
            if value is None:
                continue
            if accepts(mapped.type, options, value, self.context.types):
                options[option] = value
            else:
                self.notice(where, f"its {option} {value!r} does not fit its type; left out")
        if required:
            options.pop("default", None)  # a default only applies to optional attributes
        description = mapped.description or _text(body.get(K.DESCRIPTION))
        return DraftAttribute(name, self.placed(mapped.type, where), description, required, options)

    # ── one schema ────────────────────────────────────────────────────────────────────────

    def map(self, schema: Mapping[str, Any], where: str) -> _Mapped:
        schema = merge_single_all_of(schema)
        ref = schema.get(K.REF)
        if isinstance(ref, str):
            return self.reference(ref, schema, where)
        variants = schema.get(K.ANY_OF, schema.get(K.ONE_OF))
        types = schema.get(K.TYPE)
        if isinstance(types, list):
            kinds = [t for t in types if t != "null"]
            if len(kinds) == 1:
                mapped = self.map({**schema, K.TYPE: kinds[0]}, where)
                mapped.nullable = mapped.nullable or "null" in types
                return mapped
            return self.union(
                [{**schema, K.TYPE: t} for t in kinds], schema, where, "null" in types
            )
        if isinstance(variants, list):
            return self.union(variants, schema, where, False)
        if K.CONST in schema:
            return self.enum([schema[K.CONST]], schema, where)
        if isinstance(schema.get(K.ENUM), list):
            return self.enum(schema[K.ENUM], schema, where)
        if types in _PRIMITIVES:
            return self.primitive(_PRIMITIVES[str(types)], schema, where)
        if types == "array":
            return self.array(schema, where)
        if types == "object" or K.PROPERTIES in schema:
            return self.object(schema, where)
        if types == "null":
            return _Mapped(ANY, nullable=True)
        if not (set(schema) - _IGNORED):
            return _Mapped(ANY)  # {}: any value
        return self.verbatim(schema, where, "this schema")

    def primitive(self, kind: Primitive, schema: Mapping[str, Any], where: str) -> _Mapped:
        given = {option: schema[key] for key, option in _OPTIONS.items() if key in schema}
        options = readable(given, lambda said: self.notice(where, said))
        fmt = schema.get(K.FORMAT)
        if isinstance(fmt, str):
            # Another format is left out (with a notice): the value stays a string.
            if kind is STRING and fmt in FORMAT_NAMES:
                options["format"] = fmt
            else:
                self.notice(where, f"format {fmt!r} is not one the design checks; left out")
        rest = set(schema) - _IGNORED - set(_OPTIONS) - {K.TYPE, K.FORMAT, K.DEFAULT, K.EXAMPLES}
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
        items = schema.get(K.ITEMS)
        rest = (
            set(schema)
            - _IGNORED
            - {K.TYPE, K.ITEMS, K.MIN_ITEMS, K.MAX_ITEMS, K.DEFAULT, K.EXAMPLES}
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
        for keyword, option in ((K.MIN_ITEMS, "min_items"), (K.MAX_ITEMS, "max_items")):
            if keyword in schema:
                options[option] = schema[keyword]
        return _Mapped(ArrayOf(item.type), options)

    def object(self, schema: Mapping[str, Any], where: str) -> _Mapped:
        properties = schema.get(K.PROPERTIES)
        extra = schema.get(K.ADDITIONAL_PROPERTIES)
        rest = set(schema) - _IGNORED - _OBJECT_KEYS - {K.DEFAULT, K.EXAMPLES}
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
        kept = [v for v in variants if isinstance(v, Mapping) and v.get(K.TYPE) != "null"]
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
                    _title(variant) or f"{pascal(self.tool)}{pascal(where)}Option{index + 1}",
                    _text(variant.get(K.DESCRIPTION)),
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
        declared = schema.get(K.DISCRIMINATOR)
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
        description = _text(schema.get(K.DESCRIPTION))
        name = ref_name(ref)
        if _is_object(target) and target.get(K.PROPERTIES):
            return _Mapped(Named(self.named(name, target)), description=description)
        if ref in self.expanding:  # a type that is no object refers to itself: no design form
            return self.verbatim(schema, where, "this schema")
        # A named enum or primitive: the design lists it where it is used.
        self.expanding.add(ref)
        mapped = self.map(target, where)
        self.expanding.discard(ref)
        mapped.description = description or mapped.description or _text(target.get(K.DESCRIPTION))
        return mapped

    def named(self, def_name: str, target: Mapping[str, Any]) -> str:
        existing = self.def_names.get(def_name)
        if existing is not None:
            return existing
        name = self.context.add(_type_name(def_name))
        self.def_names[def_name] = name  # a recursive $ref finds it while it is translated
        self.context.types[name] = DraftNamedType(
            name, _text(target.get(K.DESCRIPTION)), self.attributes(target, def_name)
        )
        return name

    def define(
        self, name: str, description: str | None, attributes: tuple[DraftAttribute, ...]
    ) -> Named:
        unique = self.context.add(_type_name(name))
        self.context.types[unique] = DraftNamedType(unique, description, attributes)
        return Named(unique)

    def placed(self, t: DraftType, where: str, block: bool = True) -> DraftType:
        """``t`` as a design can write it: an inline object only where a block declares its
        fields (an attribute's own type, or its array's items or map's values); any other
        becomes a named type called after the tool and where it is."""
        match t:
            case InlineObject(attributes=attributes) if not block:
                return self.define(f"{self.tool} {_path_words(where)}", None, attributes)
            case ArrayOf(items=items):
                inner = block and isinstance(items, InlineObject)
                return replace(t, items=self.placed(items, f"{where}[]", inner))
            case MapOf(values=values):
                inner = block and isinstance(values, InlineObject)
                return MapOf(self.placed(values, f"{where}.*", inner))
        return t

    def verbatim(self, schema: Mapping[str, Any], where: str, what: str) -> _Mapped:
        inlined = inline_refs(schema, self.root)
        if inlined is None:
            self.notice(
                where, f"{what} has no design equivalent and refers to a recursive type: typed Any"
            )
            return _Mapped(ANY)
        body = {
            k: v
            for k, v in inlined.items()
            if k not in (K.TITLE, K.DESCRIPTION, K.DEFAULT, K.EXAMPLES)
        }
        self.notice(where, f"{what} has no design equivalent: kept verbatim as Any(schema=...)")
        return _Mapped(Primitive("Any", body))


def _field(tool: Any, key: str) -> Any:
    """A field of an ``mcp.types.Tool``, or of a dict in its wire shape, by its wire name."""
    if isinstance(tool, Mapping):
        return tool.get(key)
    return getattr(tool, _SDK_NAMES.get(key, key))


_SDK_NAMES = {
    "inputSchema": "input_schema",
    "outputSchema": "output_schema",
}


def tool_draft(tool: Any, context: _Context | None = None) -> tuple[DraftTool, _Context]:
    """One ``mcp.types.Tool`` (or a dict in its wire shape) as a draft tool."""
    context = context or _Context()
    name = _field(tool, "name")
    description = _field(tool, "description") or ""
    title = _field(tool, "title")
    input_schema = modernized(_field(tool, "inputSchema") or {K.TYPE: "object"})
    raw_output = _field(tool, "outputSchema")
    output_schema = modernized(raw_output)
    raw_annotations = _field(tool, "annotations")
    design_name = sanitize_name(str(name))
    known = set(context.types)
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
    examples: list[dict[str, Any]] = []
    listed = input_schema.get(K.EXAMPLES)
    for example in listed if isinstance(listed, list) else ():
        if isinstance(example, dict) and accepts(InlineObject(args), {}, example, context.types):
            examples.append(example)
        else:
            translator.notice("examples", f"{shown(example)} does not fit the arguments; left out")
    result = _result(design_name, output_schema, context)
    if (
        isinstance(raw_output, Mapping)
        and output_schema != raw_output
        and K.SCHEMA not in raw_output
    ):
        translator.notice(
            "result",
            "the server's output schema says exclusiveMinimum/exclusiveMaximum: true (draft 4), "
            "which JSON Schema 2020-12 does not allow: the design has the bound it means, but "
            "the MCP client refuses this tool's results (malformed_response) until the server "
            "declares its $schema or gives the bound as a number",
        )
    draft = DraftTool(
        name=design_name,
        # Docstrings served as they are written: their indentation says nothing to a model.
        description=inspect.cleandoc(description),
        args=args,
        result=result,
        title=_title_of(title, raw_annotations, translator),
        examples=tuple(examples),
        annotations=_annotations(raw_annotations),
        remote_name=str(name) if design_name != name else None,
    )
    renamed = context.share([t for t in context.types if t not in known], design_name)
    return renamed_tool(draft, renamed), context


def _result(tool: str, schema: Any, context: _Context) -> DraftResult:
    if not isinstance(schema, Mapping):
        return DraftResult(ANY, None)
    translator = _Translator(tool, schema, context)
    root = merge_single_all_of(schema)
    properties = root.get(K.PROPERTIES)
    # The MCP convention for a result that is not an object: {"result": X}. A design carries
    # such a result the same way, so X is the design's result; but where X is an object (the
    # MCP SDK wraps a typed Dict) or may be null, a design would not wrap it: the wrapper is
    # kept, so that the result is what the server sends.
    if (
        isinstance(properties, Mapping)
        and set(properties) == {WRAPPED_RESULT_KEY}
        and root.get(K.REQUIRED) == [WRAPPED_RESULT_KEY]
        and isinstance(properties[WRAPPED_RESULT_KEY], Mapping)
    ):
        inner = properties[WRAPPED_RESULT_KEY]
        mapped = translator.map(inner, WRAPPED_RESULT_KEY)
        description = mapped.description or _text(inner.get(K.DESCRIPTION))
        if not (mapped.nullable or is_object(mapped.type)):
            return DraftResult(translator.placed(mapped.type, "", block=False), description)
        attribute = translator.attribute(
            WRAPPED_RESULT_KEY, mapped, inner, not mapped.nullable, WRAPPED_RESULT_KEY
        )
        return DraftResult(None, None, (attribute,))
    title = _title(root)
    defs = root.get(K.DEFS)
    defs = defs if isinstance(defs, Mapping) else {}
    description = _text(root.get(K.DESCRIPTION))
    if title and title in defs and _is_object(root) and root.get(K.PROPERTIES):
        # The root is one of its own $defs (a recursive model): refer to it by name.
        return DraftResult(Named(translator.named(title, root)), description)
    mapped = translator.map(root, "result")
    if isinstance(mapped.type, InlineObject):
        if title:
            # A named model: the same type other tools use, when its fields are the same.
            return DraftResult(
                translator.define(title, description, mapped.type.attributes), description
            )
        # An object without a name: the result's own fields (a named type that has the same
        # fields and description is found when every tool has been read: _declared_result).
        return DraftResult(None, description, mapped.type.attributes)
    return DraftResult(
        translator.placed(mapped.type, "", block=False), mapped.description or description
    )


def _declared_result(tool: DraftTool, context: _Context) -> DraftTool:
    """``tool`` with a result written field by field as the named type it is, if it is one.

    A server that inlines a model as a result (``tooldesign serve-mcp`` does) sends its fields
    and description without its name; the type of the same fields and description, declared
    for another tool, is that model. A described result that is no declared type becomes one,
    named after the tool: a result block has no description of its own.
    """
    result = tool.result
    if result is None or result.type is not None or not result.attributes:
        return tool
    candidate = "\0result"  # a name no type has
    types: dict[str, DraftNamedType | None] = {
        **context.types,
        candidate: DraftNamedType(candidate, result.description, result.attributes),
    }

    def same_origin(a: str, b: str) -> bool:
        return candidate in (a, b) or context.same_origin(a, b)

    for name, named in context.types.items():
        if named is not None and same_type(candidate, name, types, types, same_origin):
            return replace(tool, result=DraftResult(Named(name), result.description))
    if result.description is None:
        return tool
    name = context.add(_type_name(f"{tool.name} result"))
    context.types[name] = DraftNamedType(name, result.description, result.attributes)
    return replace(tool, result=DraftResult(Named(name), result.description))


def _annotation_values(raw: Any) -> Mapping[str, Any]:
    """A tool's ``annotations`` as a mapping (the wire shape, or the SDK's model dumped)."""
    if raw is None:
        return {}
    return raw if isinstance(raw, Mapping) else raw.model_dump(by_alias=True, exclude_none=True)


def _annotations(raw: Any) -> ToolAnnotations:
    return from_hints(_annotation_values(raw))


def _title_of(title: Any, raw_annotations: Any, translator: _Translator) -> str | None:
    """The tool's ``title``, else its ``annotations.title``: MCP clients show the first they
    find, and the design has one title."""
    own = title if isinstance(title, str) and title else None
    hinted = _annotation_values(raw_annotations).get("title")
    hinted = hinted if isinstance(hinted, str) and hinted else None
    if own and hinted and own != hinted:
        translator.notice(
            "title",
            f"its annotations' title {hinted!r} differs from its title {own!r}: the design "
            "keeps the title, which MCP clients show first",
        )
    return own or hinted


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
    drafts = [_declared_result(draft, context) for draft in drafts]
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
    listed = [str(_field(tool, "name")) for tool in tools] + [d.name for d in drafts]
    return ImportResult(design, [*context.notices, *untrusted_notices(design, listed)])


def import_mcp(
    server: MCPServerDraft,
    *,
    service: str | None = None,
    toolset: str | None = None,
    timeout: float = 30.0,
) -> ImportResult:
    """Connect to ``server``, read its tools, and draft the design."""
    from tooldesign.runtime.mcp.client import MCPClient, MCPServerParams, MCPUnavailable

    notices: list[Notice] = []
    if server.command and server.cwd is None:
        relative = _relative_paths(server.command)
        if relative:
            server = replace(server, cwd=os.getcwd())
            notices.append(
                Notice(
                    "server",
                    f"the command names {', '.join(map(repr, relative))} relative to the current "
                    f"folder: the design starts the server there (cwd={server.cwd!r}); change cwd= "
                    "if the server lives elsewhere where the toolset runs",
                )
            )
    params = MCPServerParams(command=server.command, url=server.url, cwd=server.cwd)
    label = params.describe()

    async def listed(errlog: TextIO) -> tuple[list[Any], str | None, str | None]:
        client = MCPClient(params, connect_timeout=timeout, timeout=timeout, errlog=errlog)
        try:
            async with asyncio.timeout(timeout):
                tools = await client.list_tools()
                info = await client.server_info()
        finally:
            await client.aclose()
        return tools, info[0], info[1]

    # What a stdio server writes to its standard error (a banner, its logs) is kept out of the
    # command's output, and shown only when the server cannot be used: then it says why.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            tools, server_name, instructions = asyncio.run(listed(errlog))
        except MCPUnavailable as exc:
            problem = f"cannot reach the MCP server {label}: {_cause(exc.cause)}"
            raise UserError(problem + _server_output(errlog)) from None
        except TimeoutError:
            problem = f"the MCP server {label} did not answer within {timeout:g} s"
            raise UserError(problem + _server_output(errlog)) from None
        except Exception as exc:  # noqa: BLE001 - the SDK's protocol errors: the server is not usable
            problem = f"the MCP server {label} could not list its tools: {_cause(exc)}"
            raise UserError(problem + _server_output(errlog)) from None
        if not tools:
            problem = f"the MCP server {label} lists no tools; nothing written"
            raise UserError(problem + _server_output(errlog))
    if server_name:
        label = f"{server_name!r} ({label})"
    base = server_name or (server.command[-1] if server.command else "server")
    default = sanitize_name(re.sub(r"\.py$", "", base.rsplit("/", 1)[-1]), identifier=True)
    imported = tools_design(
        tools,
        server,
        service=sanitize_name(service, identifier=True) if service else default,
        toolset=sanitize_name(toolset, identifier=True) if toolset else default,
        server_label=label,
        server_description=(instructions or "").strip().split("\n\n")[0] or None,
    )
    imported.notices[:0] = notices
    return imported


# ── helpers ───────────────────────────────────────────────────────────────────────────────


def _relative_paths(command: tuple[str, ...]) -> list[str]:
    """The words of a stdio command that name files or folders relative to the current folder.

    Such a command only works from this folder. A bare program name (``python``, ``uvx``) is
    looked up on ``PATH`` wherever the toolset runs, like in every MCP client's configuration,
    and is not one of them.
    """
    executable, *arguments = command
    words = [executable] if os.sep in executable else []
    for argument in arguments:
        if argument.startswith("-"):  # an option; its value may name a file (--config=a.toml)
            argument = argument.partition("=")[2]
        words.append(argument)
    return [w for w in words if w and not os.path.isabs(w) and os.path.exists(w)]


_SHOWN_OUTPUT_LINES = 20


def _server_output(errlog: TextIO) -> str:
    """The last lines a stdio server wrote to its standard error, for an error message."""
    errlog.seek(0)
    lines = errlog.read().rstrip().splitlines()
    if not lines:
        return ""
    shown = lines[-_SHOWN_OUTPUT_LINES:]
    head = (
        "its standard error"
        if len(shown) == len(lines)
        else f"the last {len(shown)} lines of its standard error"
    )
    return f"\n{head}:\n" + "\n".join(f"  | {line}" for line in shown)


def _cause(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _cause(exc.exceptions[0])
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _annotations_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k in (K.DESCRIPTION, K.DEFAULT, K.EXAMPLES)}


def _is_object(schema: Mapping[str, Any]) -> bool:
    return schema.get(K.TYPE) == "object" or K.PROPERTIES in schema


def _title(schema: Mapping[str, Any]) -> str | None:
    title = schema.get(K.TITLE)
    return title if isinstance(title, str) and title else None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _path_words(where: str) -> str:
    """``items[].sizes.*`` → ``items item sizes value``: words to name a type after."""
    return (
        where.replace("[]", " item")
        .replace(".*", " value")
        .replace(".", " ")
        .replace("|", " option ")
    )


def _type_name(name: str) -> str:
    cleaned = pascal(name) or "Type"
    return cleaned if not cleaned[0].isdigit() else f"Type{cleaned}"
