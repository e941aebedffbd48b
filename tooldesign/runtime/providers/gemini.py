"""Gemini function declarations: ``parameters`` (the OpenAPI subset) or ``parameters_json_schema``.

``parameters`` takes a Schema object of the OpenAPI 3.0 subset Gemini documents: no ``$ref``
(references are inlined, so a recursive type cannot be expressed there — export with
``api="json_schema"``), no ``const`` (a one-value ``enum``), no type arrays (``nullable``), no
``oneOf``/``allOf``, no ``additionalProperties``, string enums only. Keywords it lacks are
restated in the description. ``parameters_json_schema`` takes the tool's JSON Schema as it is.

Declarations are written in the API's JSON form (camelCase keys), which is also what
``google.genai.types.FunctionDeclaration.model_validate`` accepts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal

from tooldesign.runtime.providers._common import (
    ExportProblem,
    Provider,
    ProviderAdapter,
    ToolDescription,
    ToolIndex,
    as_list,
    field_of,
    parse_json_text,
)
from tooldesign.runtime.providers._schema import (
    IGNORED,
    FieldPath,
    Schema,
    copy_json,
    def_name,
    json_text,
    phrases,
    ref_target,
    restate,
    split_keywords,
    type_list,
)
from tooldesign.runtime.result import ToolCallMeta, ToolRequest, ToolResult

GeminiApi = Literal["parameters", "json_schema"]

# The OpenAPI keywords Gemini's Schema has (google.genai.types.Schema) that a node copies as
# they are, by the type they apply to; the others are handled on their own or restated.
_KEPT_BY_TYPE: Mapping[str, frozenset[str]] = {
    "string": frozenset({"title", "minLength", "maxLength", "pattern"}),
    "number": frozenset({"title", "minimum", "maximum"}),
    "integer": frozenset({"title", "minimum", "maximum"}),
    "array": frozenset({"title", "minItems", "maxItems"}),
    "object": frozenset({"title", "minProperties", "maxProperties"}),
    "boolean": frozenset({"title"}),
}
_KEPT_UNTYPED = frozenset({"title"})
_HANDLED = frozenset(
    {
        "description",
        "$defs",
        "$ref",
        "type",
        "anyOf",
        "oneOf",
        "enum",
        "const",
        "examples",
        "nullable",
        "properties",
        "required",
        "items",
        "format",
        "default",
        *IGNORED,
    }
)
# Formats Gemini documents per type; others are restated.
_FORMATS: Mapping[str, frozenset[str]] = {
    "string": frozenset({"enum", "date-time", "date", "email", "byte", "password"}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}


def gemini_parameters(tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
    """``tool``'s parameters as a Gemini OpenAPI Schema, and what could not be expressed."""
    problems: list[ExportProblem] = []
    root = tool.parameters

    def problem(path: str, message: str, kind: Any) -> None:
        problems.append(ExportProblem(tool.id, tool.name, path, message, kind))

    def reference(schema: Mapping[str, Any], ref: str, path: str, refs: tuple[str, ...]) -> Schema:
        if ref in refs:
            chain = " → ".join(def_name(r) for r in (*refs[refs.index(ref) :], ref))
            problem(
                path,
                f"the type is recursive ({chain}); Gemini's OpenAPI parameters cannot express "
                "recursion: export with api='json_schema' (parameters_json_schema)",
                "recursive",
            )
            return {"type": "OBJECT", "description": f"a {def_name(ref)} object"}
        target = ref_target(root, ref)
        if target is None:
            problem(path, f"$ref {ref!r} points nowhere", "bad_ref")
            return {}
        # Inlined; the referring schema's own keywords (a description) win over the target's.
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return node(merged, path, (*refs, ref))

    def node(schema: Mapping[str, Any], path: str, refs: tuple[str, ...]) -> Schema:
        ref = schema.get("$ref")
        if ref is not None:
            return reference(schema, ref, path, refs)
        all_types = type_list(schema)
        types = [t for t in all_types if t != "null"]
        nullable = len(types) < len(all_types) or schema.get("nullable") is True
        only = types[0] if len(types) == 1 else None
        out, dropped = split_keywords(
            schema, _KEPT_BY_TYPE.get(only, _KEPT_UNTYPED) if only else _KEPT_UNTYPED, _HANDLED
        )
        if dropped.get("additionalProperties") is False:  # closed objects: nothing to say
            del dropped["additionalProperties"]
        variants = schema.get("anyOf", schema.get("oneOf"))
        if variants is not None:
            kept = [v for v in variants if isinstance(v, Mapping) and v.get("type") != "null"]
            nullable = nullable or len(kept) < len(variants)
            converted = [node(v, path, refs) for v in kept]
            if len(converted) == 1:  # X or null: X, nullable
                out = {**converted[0], **out}
            else:
                out["anyOf"] = converted
        elif len(types) > 1:
            out["anyOf"] = [{"type": t.upper()} for t in types]
        elif only is not None:
            out["type"] = only.upper()
        if nullable:
            out["nullable"] = True
        if "const" in schema:
            out["enum"] = [_enum_text(schema["const"])]
        elif "enum" in schema:
            values = schema["enum"]
            out["enum"] = [_enum_text(v) for v in values if v is not None]
            if None in values:
                out["nullable"] = True
        fmt = schema.get("format")
        if "enum" in out and only not in (None, "string"):
            out["format"] = "enum"  # Gemini's way to say a number is one of the listed values
        elif fmt is not None:
            if only is not None and fmt in _FORMATS.get(only, ()):
                out["format"] = fmt
            else:
                dropped["format"] = fmt
        if only == "object":
            properties = schema.get("properties") or {}
            members = {
                name: node(body, FieldPath.prop(path, name), refs)
                for name, body in properties.items()
            }
            out["properties"] = members
            if schema.get("required"):
                out["required"] = list(schema["required"])
            if members:
                out["propertyOrdering"] = list(members)
        elif only == "array" and isinstance(schema.get("items"), Mapping):
            out["items"] = node(schema["items"], FieldPath.items(path), refs)
        if "default" in schema:
            out["default"] = copy_json(schema["default"])
        examples = schema.get("examples")
        if isinstance(examples, list) and examples:
            out["example"] = copy_json(examples[0])
        description = schema.get("description", out.get("description"))
        if dropped:
            description = restate(description, phrases(dropped, root))
        if description:
            out["description"] = description
        return out

    return node({k: v for k, v in root.items() if k != "$defs"}, "", ()), problems


def _enum_text(value: Any) -> str:
    """Gemini's enums are strings: a number or boolean is listed as its JSON text."""
    return value if isinstance(value, str) else json_text(value)


class GeminiAdapter(ProviderAdapter):
    """Gemini function declarations, ``function_call`` parts and ``function_response`` parts.

    ``api="parameters"`` (default) writes the OpenAPI-subset ``parameters``;
    ``api="json_schema"`` writes ``parametersJsonSchema`` (any JSON Schema, recursion included).
    """

    provider: ClassVar[Provider] = "gemini"

    def __init__(self, index: ToolIndex, *, api: GeminiApi = "parameters") -> None:
        super().__init__(index)
        if api not in ("parameters", "json_schema"):
            raise ValueError(f"Gemini api must be 'parameters' or 'json_schema', not {api!r}")
        self.api = api
        self._convert_all()

    def convert(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        return gemini_parameters(tool) if self.api == "parameters" else super().convert(tool)

    def tools(self) -> list[dict[str, Any]]:
        key = "parameters" if self.api == "parameters" else "parametersJsonSchema"
        return [
            {"name": t.name, "description": t.description, key: self.parameters(t)}
            for t in self.index
        ]

    def parse_calls(self, source: Any, *, meta: ToolCallMeta | None = None) -> list[ToolRequest]:
        """``function_call`` parts of a response (its first candidate), a Content, or parts."""
        return [
            self._request(name, arguments, call_id, meta)
            for name, arguments, call_id in _function_calls(source)
        ]

    def result_message(self, result: ToolResult, *, call_id: str | None = None) -> dict[str, Any]:
        """A ``functionResponse`` part: ``{"output": …}`` or ``{"error": …}`` as Gemini asks."""
        if result.ok:
            ok, value = parse_json_text(result.for_model())
            response: dict[str, Any] = {"output": value if ok else result.for_model()}
        else:
            response = {"error": result.for_model()}
        body: dict[str, Any] = {"name": self._provider_name(result), "response": response}
        ident = call_id or result.tool_call_id
        if ident:
            body["id"] = ident
        return {"functionResponse": body}


def _function_calls(source: Any) -> Iterable[tuple[Any, Any, Any]]:
    candidates = field_of(source, "candidates")
    if candidates is not None:
        first = as_list(candidates)[:1]
        source = field_of(first[0], "content") if first else None
    parts = field_of(source, "parts")
    for part in as_list(parts if parts is not None else source):
        call = field_of(part, "function_call", "functionCall")
        if call is None and field_of(part, "name") is not None:
            call = part  # a FunctionCall given directly
        if call is not None:
            yield field_of(call, "name"), field_of(call, "args") or {}, field_of(call, "id")
