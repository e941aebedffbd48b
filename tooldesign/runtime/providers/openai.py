"""OpenAI function tools: Chat Completions and Responses shapes, and strict mode.

Strict mode (``strict: true``) makes the model's arguments follow the schema exactly, but only
for a subset of JSON Schema: every object closed, every property required (an optional field
becomes a union with ``null``), a type on every value (an enum's is inferred from its values),
no ``default``, ``oneOf``, ``not``, ``if``/``then``/``else``, ``dependentRequired``, open maps,
length limits… :func:`openai_strict_schema` rewrites a tool's schema into that subset,
restating the keywords it removes in the field's description so the model still reads them
(``"must not be "root""``, ``"when "kind" is "disk", "size" must be given"``); what cannot be
made strict at all (an open map, an untyped value, an ``allOf`` of several schemas) is an
:class:`ExportProblem` naming the field.
:func:`check_openai_strict` checks a schema against the rules on its own, for tests and for
schemas written by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal

from tooldesign.contract.formats import FORMATS
from tooldesign.contract.providers import Provider
from tooldesign.jsonschema.navigate import MAPS, merge_single_all_of, type_list
from tooldesign.jsonschema.refs import def_name, ref_target
from tooldesign.jsonschema.text import FieldPath
from tooldesign.jsonschema.words import phrases, restate
from tooldesign.runtime.providers import content as rich
from tooldesign.runtime.providers._common import (
    ExportProblem,
    ProviderAdapter,
    ToolDescription,
    ToolIndex,
    as_list,
    field_of,
)
from tooldesign.runtime.providers._schema import (
    IGNORED,
    Schema,
    complete_arrays,
    enum_values,
    object_root,
    split_keywords,
    takes_value,
    value_types,
)
from tooldesign.runtime.result import ToolResult

# What strict mode supports, per the OpenAI function-calling guide.
STRICT_FORMATS = frozenset(f.name for f in FORMATS if f.openai_strict)
_STRICT_COMMON = frozenset({"type", "description", "title", "enum", "const", "anyOf", "$ref"})
_STRICT_BY_TYPE: Mapping[str, frozenset[str]] = {
    "string": frozenset({"pattern", "format"}),
    "number": frozenset(
        {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    ),
    "integer": frozenset(
        {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    ),
    "array": frozenset({"items", "minItems", "maxItems"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
    "boolean": frozenset(),
    "null": frozenset(),
}
MAX_PROPERTIES = 5000
MAX_NESTING = 10
MAX_ENUM_VALUES = 1000


def openai_strict_schema(tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
    """``tool``'s parameters rewritten for strict mode, and what could not be rewritten."""
    return _StrictRewrite(tool).document(tool.parameters)


# Keywords a strict node's own loop never copies: handled on their own, or meaningless.
_STRUCTURAL = frozenset(
    {
        "properties",
        "required",
        "additionalProperties",
        "items",
        "$defs",
        "anyOf",
        "oneOf",
        "description",
        "enum",
        "const",
        "format",
        "allOf",
        *IGNORED,
    }
)
_ALLOWED_BY_TYPES: dict[tuple[str, ...], frozenset[str]] = {}


def _allowed(types: list[str]) -> frozenset[str]:
    """The keywords strict mode takes on a value of ``types`` (cached: few combinations exist)."""
    key = tuple(types)
    allowed = _ALLOWED_BY_TYPES.get(key)
    if allowed is None:
        allowed = _STRICT_COMMON.union(*(_STRICT_BY_TYPE.get(t, frozenset()) for t in types))
        allowed = _ALLOWED_BY_TYPES[key] = allowed - _STRUCTURAL
    return allowed


class _StrictRewrite:
    def __init__(self, tool: ToolDescription) -> None:
        self.tool = tool
        self.problems: list[ExportProblem] = []
        self.too_deep: set[str] = set()
        """Fields already reported as nested too deep (the variants of a union share one)."""

    def document(self, schema: Mapping[str, Any]) -> tuple[Schema, list[ExportProblem]]:
        schema = object_root(schema)
        self.root = schema
        out = self.node(schema, "", 0)
        defs = schema.get("$defs")
        if isinstance(defs, MAPS):
            # Definitions are counted from their own root, as check_openai_strict counts them.
            out["$defs"] = {
                name: self.node(body, f"$defs.{name}", 0) for name, body in defs.items()
            }
        if out.get("type") != "object":
            self.problem("", "strict mode needs an object at the root", "root_not_object")
        return out, self.problems

    def problem(self, path: str, message: str, kind: Any) -> None:
        self.problems.append(ExportProblem(self.tool.id, self.tool.name, path, message, kind))

    def node(self, schema: Mapping[str, Any], path: str, depth: int) -> Schema:
        if depth == MAX_NESTING + 1 and path not in self.too_deep:
            # Said once, where the path first goes too deep: what lies below is the same problem.
            self.too_deep.add(path)
            self.problem(path, f"nested deeper than {MAX_NESTING} levels", "unsupported")
        if "allOf" in schema:  # an allOf of one schema is that schema (as the SDK reads it)
            schema = merge_single_all_of(schema)
        ref = schema.get("$ref")
        if ref is not None:
            if ref != "#" and not (
                type(ref) is str
                and ref.startswith("#/$defs/")
                and ref_target(self.root, ref) is not None
            ):
                self.problem(
                    path,
                    f"$ref {ref!r} does not point to a definition in $defs, as strict mode needs",
                    "bad_ref",
                )
            _, siblings = split_keywords(schema, frozenset(), _REF_SKIP)
            if not siblings:
                return {"$ref": ref}
            # Strict mode takes no keywords beside a $ref: wrap it, and say the rest in words.
            out: Schema = {"anyOf": [{"$ref": ref}]}
            description = restate(siblings.pop("description", None), phrases(siblings))
            if description:
                out["description"] = description
            return out
        if "allOf" in schema:
            self.problem(
                path,
                "strict mode cannot express an allOf of several schemas (a value matching all "
                "of them); merge them into one type in the design, or export with strict=False",
                "unsupported",
            )
        types = type_list(schema)
        values = enum_values(schema)
        variants = schema.get("anyOf", schema.get("oneOf"))
        if variants is not None:
            out, dropped = split_keywords(schema, _VARIANT_KEEP, _STRUCTURAL)
            out["anyOf"] = [self.node(v, path, depth) for v in variants if isinstance(v, MAPS)]
        else:
            inferred = not types
            if inferred:  # strict mode wants a type beside every enum: its values' types
                types = self.enum_types(values, path)
                if not types:
                    return {k: v for k, v in schema.items() if k not in IGNORED}
            out, dropped = split_keywords(schema, _allowed(types), _STRUCTURAL)
            if inferred:
                out = {"type": types[0] if len(types) == 1 else types, **out}
            if values is not None:
                # A value must meet both the type and the enum: values of other types can
                # never match, and strict mode wants the two to agree.
                out["enum"] = [v for v in values if takes_value(types, v)]
                if not out["enum"]:
                    self.problem(
                        path,
                        f"its enum lists no value of its type ({' or '.join(types)}), "
                        "so no value can match",
                        "unsupported",
                    )
                if len(out["enum"]) > MAX_ENUM_VALUES:
                    self.problem(path, f"more than {MAX_ENUM_VALUES} enum values", "unsupported")
            kept = [t for t in types if t != "null"]
            if "enum" in out and None not in out["enum"] and kept != types and kept:
                # The enum already rules null out; strict mode wants the type to agree.
                out["type"] = kept[0] if len(kept) == 1 else kept
            fmt = schema.get("format")
            if fmt is not None:
                if fmt in STRICT_FORMATS and "string" in types:
                    out["format"] = fmt
                else:
                    dropped["format"] = fmt
            if "object" in types:
                self.object_members(schema, path, depth, out, dropped)
            if "array" in types:
                items = schema.get("items")
                if isinstance(items, MAPS):
                    out["items"] = self.node(items, FieldPath.items(path), depth + 1)
                else:
                    self.problem(
                        path,
                        "strict mode needs the type of an array's items; these accept anything "
                        "(declare the item type, or export with strict=False)",
                        "untyped",
                    )
        description = schema.get("description")
        if dropped:
            description = restate(description, phrases(dropped, self.root))
        if description:
            out["description"] = description
        return out

    def object_members(
        self, schema: Mapping[str, Any], path: str, depth: int, out: Schema, dropped: Schema
    ) -> None:
        extra = schema.get("additionalProperties")
        properties = schema.get("properties")
        if isinstance(extra, MAPS) or extra is True or (extra is None and not properties):
            self.problem(
                path,
                "an object with free-form keys (a map) cannot be strict: strict mode needs every "
                "key declared (declare its fields, or export with strict=False)",
                "open_map",
            )
        properties = properties if isinstance(properties, MAPS) else {}
        if len(properties) > MAX_PROPERTIES:
            self.problem(path, f"more than {MAX_PROPERTIES} properties", "unsupported")
        required = schema.get("required") or ()
        converted: Schema = {}
        for name, body in properties.items():
            if isinstance(body, MAPS):
                field = self.node(body, FieldPath.prop(path, name), depth + 1)
                converted[name] = field if name in required else _nullable(field)
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False

    def enum_types(self, values: list[Any] | None, path: str) -> list[str]:
        """The types of an untyped value's enum (with ``null`` if it lists it), or ``[]`` after
        naming why strict mode cannot take the value."""
        if values is None:
            self.problem(
                path,
                "strict mode needs a type for every value; this one accepts anything "
                "(declare a type, or export with strict=False)",
                "untyped",
            )
            return []
        types = value_types(values)
        if "object" in types or "array" in types:
            self.problem(
                path,
                "strict mode needs a type beside an enum, and takes enums of strings, numbers, "
                "booleans and null only (declare the field's type, or export with strict=False)",
                "untyped",
            )
            return []
        if None in values:
            types.append("null")
        if not types:
            self.problem(path, "its enum lists no value, so no value can match", "unsupported")
        return types


_REF_SKIP = frozenset({"$ref", *IGNORED})
_VARIANT_KEEP = frozenset({"title"})


def _nullable(schema: Schema) -> Schema:
    """An optional field, made required: it also takes ``null`` (which means "not given")."""
    types = schema.get("type")
    if "anyOf" in schema:
        if not any(v == {"type": "null"} for v in schema["anyOf"]):
            return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
        return schema
    if types is None:
        return {"anyOf": [schema, {"type": "null"}]}
    listed = type_list(schema)
    out = dict(schema)
    if "null" not in listed:
        out["type"] = [*listed, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def check_openai_strict(schema: Mapping[str, Any]) -> list[str]:
    """Every way ``schema`` breaks OpenAI's strict-mode rules (empty when it keeps them all).

    Independent of :func:`openai_strict_schema`, so tests can hold one against the other.
    """
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append("(root): must be an object, not a union or another type")
    defs = schema.get("$defs", {})
    counted = [0]

    def check(node: Any, path: str, depth: int) -> None:
        where = path or "(root)"
        if not isinstance(node, MAPS):
            problems.append(f"{where}: not a schema object")
            return
        if depth == MAX_NESTING + 1:  # once, where a path first goes too deep
            problems.append(f"{where}: nested deeper than {MAX_NESTING} levels")
        ref = node.get("$ref")
        if ref is not None:
            if set(node) - {"$ref"}:
                problems.append(f"{where}: keywords beside $ref: {sorted(set(node) - {'$ref'})}")
            if not (ref == "#" or def_name(ref) in defs):
                problems.append(f"{where}: $ref {ref!r} does not point into $defs")
            return
        if "anyOf" in node:
            for index, variant in enumerate(node["anyOf"]):
                check(variant, f"{path}.anyOf[{index}]", depth)
            extra = set(node) - {"anyOf", "description", "title"}
            if extra:
                problems.append(f"{where}: keywords beside anyOf: {sorted(extra)}")
            return
        types = type_list(node)
        if not types:
            problems.append(f"{where}: no type" + (" beside its enum" if "enum" in node else ""))
        allowed = set(_STRICT_COMMON)
        for t in types:
            if t not in _STRICT_BY_TYPE:
                problems.append(f"{where}: unknown type {t!r}")
            allowed |= _STRICT_BY_TYPE.get(t, frozenset())
        for key in node:
            if key not in allowed and key != "$defs":
                problems.append(f"{where}: keyword {key!r} is not supported")
        if "format" in node and node["format"] not in STRICT_FORMATS:
            problems.append(f"{where}: format {node['format']!r} is not supported")
        enum = node.get("enum")
        if enum is not None:
            if len(enum) > MAX_ENUM_VALUES:
                problems.append(f"{where}: more than {MAX_ENUM_VALUES} enum values")
            if "null" in types and None not in enum:
                problems.append(f"{where}: takes null, but its enum does not list null")
            if types and not all(takes_value(types, value) for value in enum):
                problems.append(f"{where}: its enum lists values its type does not take")
        if "object" in types:
            if node.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties must be false")
            properties = node.get("properties", {})
            counted[0] += len(properties)
            if sorted(node.get("required", [])) != sorted(properties):
                problems.append(f"{where}: every property must be required")
            for name, body in properties.items():
                check(body, f"{path}.{name}" if path else name, depth + 1)
        if "array" in types:
            if "items" in node:
                check(node["items"], f"{path}[]", depth + 1)
            else:
                problems.append(f"{where}: array schema missing items")

    check({k: v for k, v in schema.items() if k != "$defs"}, "", 0)
    for name, body in defs.items():
        check(body, f"$defs.{name}", 0)
    if counted[0] > MAX_PROPERTIES:
        problems.append(f"more than {MAX_PROPERTIES} properties in all")
    return problems


class OpenAIAdapter(ProviderAdapter):
    """OpenAI function tools. ``api`` is ``"chat"`` (Chat Completions) or ``"responses"``."""

    provider: ClassVar[Provider] = "openai"
    call_id_prefix: ClassVar[str | None] = "call_"

    fallback_form: ClassVar[str] = "without strict mode"

    def __init__(
        self,
        index: ToolIndex,
        *,
        strict: bool = False,
        api: Literal["chat", "responses"] = "chat",
        fallback: bool = False,
    ) -> None:
        super().__init__(index, fallback=fallback)
        if api not in ("chat", "responses"):
            raise ValueError(f"OpenAI api must be 'chat' or 'responses', not {api!r}")
        self.strict = strict
        self.api = api
        self.label = "openai (strict)" if strict else "openai"
        # Strict mode takes no allOf, oneOf or if/then/else, and no form takes an allOf, anyOf
        # or oneOf at the root ("schema must have type 'object' and not have 'oneOf'/'anyOf'/
        # 'allOf'/'enum'/'not' at the top level": langchainjs#9804): rules go in words.
        self.takes_rules = False
        self._convert_all()

    def convert(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        return openai_strict_schema(tool) if self.strict else self.plain(tool)

    def plain(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        schema, problems = super().plain(tool)
        complete_arrays(schema)  # OpenAI refuses an array schema without items, strict or not
        return schema, problems

    def tools(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for tool in self.index:
            function: dict[str, Any] = {"name": tool.name, "description": self.description(tool)}
            function["parameters"] = self.parameters(tool)
            strict = self.strict and self.in_asked_form(tool)
            if self.api == "chat":
                if strict:
                    function["strict"] = True
                out.append({"type": "function", "function": function})
            else:
                out.append({"type": "function", **function, "strict": strict})
        return out

    def strict_tool_ids(self) -> frozenset[str]:
        if not self.strict:
            return frozenset()
        return frozenset(t.id for t in self.index if self.in_asked_form(t))

    def raw_calls(self, source: Any) -> Iterable[tuple[Any, Any, Any]]:
        """Tool calls from a Chat Completion (or a message, or its ``tool_calls``), or from a
        Response (or its ``output`` items: ``function_call`` items are taken, others skipped).
        In ``tool_calls``, items of ``type: "function"`` are taken (malformed ones too, so they
        are answered); other kinds (``custom`` tools) are skipped."""
        return _openai_calls(source)

    def result_message(self, result: ToolResult, *, call_id: str | None = None) -> dict[str, Any]:
        ident = self._call_id(result, call_id)
        text = result.for_model()
        if self.api == "chat":
            note = rich.left_out_note(result.content, "OpenAI Chat tool messages take text only")
            return {"role": "tool", "tool_call_id": ident, "content": text + note}
        output: Any = text
        if result.content:  # a rich result: images as input_image items, a note of the rest
            images, left = rich.split(result.content, rich.any_image)
            note = rich.left_out_note(left, "OpenAI function outputs take text, images, files")
            output = [{"type": "input_text", "text": text + note}]
            output += [rich.openai_input_image(image) for image in images]
        return {"type": "function_call_output", "call_id": ident, "output": output}


def _openai_calls(source: Any) -> Iterable[tuple[Any, Any, Any]]:
    """``(name, arguments, call id)`` of each function call in any OpenAI response shape."""
    choices = field_of(source, "choices")
    if choices is not None:  # a ChatCompletion: the first choice's message
        first = as_list(choices)[:1]
        source = field_of(first[0], "message") if first else None
    output = field_of(source, "output")
    if output is not None and not isinstance(output, str):  # a Response
        source = output
    tool_calls = field_of(source, "tool_calls")
    items = as_list(tool_calls if tool_calls is not None else source)
    for item in items:
        kind = field_of(item, "type")
        function = field_of(item, "function")
        if function is not None or kind == "function":
            # A Chat Completions tool call; one without a function still gets its answer (as
            # a call to no tool), or its id would stay unanswered.
            yield field_of(function, "name"), field_of(function, "arguments"), field_of(item, "id")
        elif kind == "function_call" or (kind is None and field_of(item, "call_id") is not None):
            yield field_of(item, "name"), field_of(item, "arguments"), field_of(item, "call_id")
        # Other items (custom tool calls, messages, reasoning, built-in tools) are not calls
        # of function tools: they are the caller's to handle.
