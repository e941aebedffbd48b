"""Gemini function declarations: ``parameters`` (the OpenAPI subset) or ``parametersJsonSchema``.

``parameters`` takes google-genai's ``Schema``, a subset of OpenAPI 3.0. The rules below follow
the SDK (the ``Schema`` and ``FunctionDeclaration`` models, and the SDK's own ``process_schema``
that prepares JSON Schema for the Gemini API):

- no ``$ref``: references are inlined, so a recursive type cannot be expressed there (an
  :class:`ExportProblem` pointing at ``api="json_schema"``);
- no ``additionalProperties`` on the Gemini API, and an ``OBJECT`` must declare its properties:
  a map (an object with free-form keys) is an :class:`ExportProblem` pointing at
  ``api="json_schema"`` too;
- no ``const`` (a one-value ``enum``); enums are lists of strings, on ``STRING`` values or on
  ``INTEGER`` ones with ``format: enum``; other enums are restated;
- no type arrays (``nullable``, and ``anyOf`` for several types); no ``oneOf`` (``anyOf``);
  no ``allOf`` (one schema is merged; several are an :class:`ExportProblem`);
- every ``ARRAY`` has ``items``; a tool without parameters has no ``parameters`` at all;
- top-level parameter names are a letter or ``_``, then letters, digits or ``_`` (64 at most);
- keywords the subset lacks are restated in the description; ``title`` is dropped (Gemini can
  mistake titles inside parameters for function names).

``parametersJsonSchema`` takes the tool's JSON Schema as it is, recursion and maps included.

Declarations are written in the API's JSON form (camelCase keys), which is also what
``google.genai.types.FunctionDeclaration.model_validate`` accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal

from tooldesign.contract.formats import FORMATS
from tooldesign.contract.providers import Provider
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS, merge_single_all_of, type_list
from tooldesign.jsonschema.refs import ref_name, ref_target
from tooldesign.jsonschema.text import FieldPath, compact_json
from tooldesign.jsonschema.words import phrases, restate
from tooldesign.runtime.providers import content as rich
from tooldesign.runtime.providers._common import (
    ExportProblem,
    ProblemKind,
    ProviderAdapter,
    ToolDescription,
    ToolIndex,
    as_list,
    field_of,
    result_value,
)
from tooldesign.runtime.providers._schema import (
    IGNORED,
    Schema,
    enum_values,
    object_root,
    split_keywords,
    takes_value,
    value_types,
)
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.frozen import copy_json
from tooldesign.runtime.validation.schema import JSON_ARRAYS

GeminiApi = Literal["parameters", "json_schema"]

# The keywords of Gemini's Schema a node copies as they are, by the type they apply to.
_KEPT = frozenset(
    {
        *("minLength", "maxLength", "pattern", "minimum", "maximum"),
        *("minItems", "maxItems", "minProperties", "maxProperties"),
    }
)
_KEPT_BY_TYPE: Mapping[str, frozenset[str]] = {
    kind: _KEPT & K.applying_to(kind) for kind in ("string", "number", "integer", "array", "object")
}
_NOTHING: frozenset[str] = frozenset()
# Keywords a node handles on its own (or drops); the rest that it does not keep are restated.
_HANDLED = frozenset(
    {
        "description",
        "title",
        "$defs",
        "$ref",
        "type",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
        "examples",
        "example",
        "nullable",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "format",
        "default",
        *IGNORED,
    }
)
# The JSON Schema keywords that apply to values of one type: what each variant of a value
# with several types (``"type": ["string", "array"]``) takes of its schema.
_TYPE_KEYWORDS: Mapping[str, frozenset[str]] = {
    kind: K.applying_to(kind)
    for kind in ("string", "number", "integer", "array", "object", "boolean")
}
# A value of several types restates only what applies to none of them.
_HANDLED_OR_TYPED = _HANDLED.union(*_TYPE_KEYWORDS.values())
# Formats Gemini documents per type; others are restated. Besides the design's formats it takes,
# a string may say "enum" (how Gemini reads one), "byte" or "password" (kept schemas can).
_FORMATS: Mapping[str, frozenset[str]] = {
    "string": frozenset({"enum", "byte", "password", *(f.name for f in FORMATS if f.gemini)}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}
_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# Names the key users see in the export (the SDK's Python attribute is parameters_json_schema).
_JSON_SCHEMA_HINT = (
    "export with api='json_schema' (`--api json_schema`), which writes parametersJsonSchema"
)


def gemini_parameters(tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
    """``tool``'s parameters as a Gemini OpenAPI Schema, and what could not be expressed."""
    rewrite = _OpenAPIRewrite(tool)
    return rewrite.document(rewrite.root)


class _OpenAPIRewrite:
    def __init__(self, tool: ToolDescription) -> None:
        self.tool = tool
        self.root: Mapping[str, Any] = object_root(tool.parameters)
        self.problems: list[ExportProblem] = []
        self.entered: dict[str, str] = {}
        """The references being inlined, each with the field it was entered at."""

    def problem(self, path: str, message: str, kind: ProblemKind) -> None:
        self.problems.append(ExportProblem(self.tool.id, self.tool.name, path, message, kind))

    def document(self, schema: Mapping[str, Any]) -> tuple[Schema, list[ExportProblem]]:
        out = self.node({k: v for k, v in schema.items() if k != "$defs"}, "", ())
        if out.get("type") != "OBJECT":
            self.problem("", "Gemini needs the parameters to be an object", "root_not_object")
        for name in out.get("properties", ()):
            if not _PARAMETER_NAME.fullmatch(name):
                self.problem(
                    name,
                    "Gemini parameter names must be a letter or '_', then letters, digits or "
                    "'_', at most 64 in all (rename the field)",
                    "invalid_name",
                )
        return out, self.problems

    def reference(
        self, schema: Mapping[str, Any], ref: str, path: str, refs: tuple[str, ...]
    ) -> Schema:
        if ref in refs:
            chain = " → ".join(ref_name(r) for r in (*refs[refs.index(ref) :], ref))
            self.problem(
                self.entered[ref],  # where the type first appears: the field to change
                f"the type is recursive ({chain}); Gemini's OpenAPI parameters cannot express "
                f"recursion: {_JSON_SCHEMA_HINT}",
                "recursive",
            )
            return {"type": "OBJECT", "description": f"a {ref_name(ref)} object"}
        target = ref_target(self.root, ref)
        if target is None:
            self.problem(path, f"$ref {ref!r} points nowhere", "bad_ref")
            return {}
        # Inlined; the referring schema's own keywords (a description) win over the target's.
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        self.entered[ref] = path
        try:
            return self.node(merged, path, (*refs, ref))
        finally:
            del self.entered[ref]

    def node(self, schema: Mapping[str, Any], path: str, refs: tuple[str, ...]) -> Schema:
        if "allOf" in schema:
            schema = merge_single_all_of(schema)
        ref = schema.get("$ref")
        if ref is not None:
            return self.reference(schema, ref, path, refs)
        if "allOf" in schema:
            self.problem(
                path,
                f"Gemini's OpenAPI parameters have no allOf (an intersection): {_JSON_SCHEMA_HINT}",
                "unsupported",
            )
        all_types = type_list(schema)
        types = [t for t in all_types if t != "null"]
        nullable = len(types) < len(all_types) or schema.get("nullable") is True
        variants = schema.get("anyOf", schema.get("oneOf"))
        if type(variants) in JSON_ARRAYS:
            out, dropped = split_keywords(schema, _NOTHING, _HANDLED)
            nullable = self.union(out, variants, path, refs) or nullable
            _restate_values(schema, dropped)
        elif len(types) > 1:
            out, dropped = split_keywords(schema, _NOTHING, _HANDLED_OR_TYPED)
            out["anyOf"] = [self.node(_narrowed(schema, t), path, refs) for t in types]
            _restate_values(schema, dropped)
        else:
            only = types[0] if types else _inferred_type(schema)
            kept = _KEPT_BY_TYPE.get(only, _NOTHING) if only is not None else _NOTHING
            out, dropped = split_keywords(schema, kept, _HANDLED)
            if only is not None:
                out["type"] = only.upper()
            nullable = self.values(schema, only, path, out, dropped) or nullable
            if only == "object":
                self.object_members(schema, path, refs, out, dropped)
            elif only == "array":
                items = schema.get("items")
                # Gemini rejects an ARRAY without items; an empty schema takes any item.
                out["items"] = (
                    self.node(items, FieldPath.items(path), refs) if isinstance(items, MAPS) else {}
                )
        if nullable:
            out["nullable"] = True
        if "default" in schema:
            out["default"] = copy_json(schema["default"])
        examples = schema.get("examples")
        if "example" in schema:
            out["example"] = copy_json(schema["example"])
        elif type(examples) in JSON_ARRAYS and examples:
            out["example"] = copy_json(examples[0])
        description = schema.get("description", out.get("description"))
        if dropped:
            description = restate(description, phrases(dropped, self.root))
        if description:
            out["description"] = description
        return out

    def union(self, out: Schema, variants: list[Any], path: str, refs: tuple[str, ...]) -> bool:
        """``anyOf`` (or ``oneOf``) into ``out``; whether one of the variants is ``null``."""
        kept = [v for v in variants if isinstance(v, MAPS) and type_list(v) != ["null"]]
        converted = [self.node(v, path, refs) for v in kept]
        if len(converted) == 1:  # X or null: X, nullable
            out.update({**converted[0], **out})
        else:
            out["anyOf"] = converted
        return len(kept) < len(variants)

    def values(
        self, schema: Mapping[str, Any], only: str | None, path: str, out: Schema, dropped: Schema
    ) -> bool:
        """``enum``, ``const`` and ``format`` into ``out`` (or ``dropped``); whether ``null``
        is one of the values."""
        fmt = schema.get("format")
        values = enum_values(schema)
        listed = [v for v in values if v is not None] if values is not None else []
        if listed and only is not None:
            # A value must meet both the type and the enum: values of another type never match.
            fitting = [v for v in listed if takes_value([only], v)]
            if not fitting and values is not None and None not in values:
                self.problem(
                    path,
                    f"its enum lists no value of its type ({only}), so no value can match",
                    "unsupported",
                )
            listed = fitting
        if listed and only in ("string", "integer"):
            out["enum"] = [_enum_text(int(v) if only == "integer" else v) for v in listed]
            # Gemini reads an enum through the format: "enum" on an integer, none on a string.
            if fmt is not None:
                dropped["format"] = fmt
            fmt = None
            if only == "integer":
                out["format"] = "enum"
        elif listed:
            dropped["enum"] = listed
        if fmt is not None:
            if only is not None and fmt in _FORMATS.get(only, ()):
                out["format"] = fmt
            else:
                dropped["format"] = fmt
        return values is not None and None in values

    def object_members(
        self,
        schema: Mapping[str, Any],
        path: str,
        refs: tuple[str, ...],
        out: Schema,
        dropped: Schema,
    ) -> None:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, MAPS) else {}
        extra = schema.get("additionalProperties")
        members = {
            name: self.node(body, FieldPath.prop(path, name), refs)
            for name, body in properties.items()
            if isinstance(body, MAPS)
        }
        out["properties"] = members
        if not members and path:  # the root may be empty: the tool then has no parameters
            if extra is False:
                message = "an object without properties cannot be expressed in Gemini's OpenAPI "
                kind: ProblemKind = "unsupported"
            else:
                message = (
                    "an object with free-form keys (a map) cannot be expressed in Gemini's OpenAPI "
                )
                kind = "open_map"
            self.problem(
                path,
                f"{message}parameters (the Gemini API takes no additionalProperties, and an "
                f"object must declare its properties): {_JSON_SCHEMA_HINT}",
                kind,
            )
        required = [n for n in schema.get("required") or () if n in members]
        if required:
            out["required"] = required
        if len(members) > 1:
            out["propertyOrdering"] = list(members)
        if members and extra is not None and extra is not False:
            dropped["additionalProperties"] = extra


def _restate_values(schema: Mapping[str, Any], dropped: Schema) -> None:
    """A union's own ``enum`` or ``const`` (beside its variants), for the description."""
    for key in ("enum", "const"):
        if key in schema:
            dropped[key] = schema[key]


def _narrowed(schema: Mapping[str, Any], kind: str) -> Schema:
    """The part of a schema of several types that applies to values of one of them."""
    keywords = _TYPE_KEYWORDS.get(kind, _NOTHING)
    narrowed: Schema = {k: v for k, v in schema.items() if k in keywords}
    narrowed["type"] = kind
    return narrowed


def _inferred_type(schema: Mapping[str, Any]) -> str | None:
    """The type of an untyped ``enum`` or ``const`` when all its values share one."""
    values = enum_values(schema)
    kinds = value_types(values) if values is not None else []
    return kinds[0] if len(kinds) == 1 else None


def _enum_text(value: Any) -> str:
    """Gemini's enums are strings: a number is listed as its JSON text."""
    return value if isinstance(value, str) else compact_json(value)


class GeminiAdapter(ProviderAdapter):
    """Gemini function declarations, ``function_call`` parts and ``function_response`` parts.

    ``api="parameters"`` (default) writes the OpenAPI-subset ``parameters``;
    ``api="json_schema"`` writes ``parametersJsonSchema`` (any JSON Schema, recursion included).
    """

    provider: ClassVar[Provider] = "gemini"

    fallback_form: ClassVar[str] = "as parametersJsonSchema"

    def __init__(
        self, index: ToolIndex, *, api: GeminiApi = "parameters", fallback: bool = False
    ) -> None:
        super().__init__(index, fallback=fallback)
        if api not in ("parameters", "json_schema"):
            raise ValueError(f"Gemini api must be 'parameters' or 'json_schema', not {api!r}")
        self.api = api
        self.label = "gemini" if api == "parameters" else "gemini (json_schema)"
        # Neither form states rules across arguments: the OpenAPI subset has no allOf, if or
        # oneOf, and parametersJsonSchema ignores the keywords it does not know.
        self.takes_rules = False
        self._convert_all()

    def convert(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        return gemini_parameters(tool) if self.api == "parameters" else self.plain(tool)

    def tools(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for tool in self.index:
            entry: dict[str, Any] = {"name": tool.name, "description": self.description(tool)}
            schema = self.parameters(tool)
            if self.api == "json_schema" or not self.in_asked_form(tool):
                entry["parametersJsonSchema"] = schema
            elif schema.get("properties"):
                # Without parameters the declaration has none (the SDK's documented form): an
                # OBJECT with no properties is refused.
                entry["parameters"] = schema
            out.append(entry)
        return out

    def raw_calls(self, source: Any) -> Iterable[tuple[Any, Any, Any]]:
        """``function_call`` parts of a response (its first candidate), a Content, or parts."""
        return _function_calls(source)

    def result_message(self, result: ToolResult, *, call_id: str | None = None) -> dict[str, Any]:
        """A ``functionResponse`` part: ``{"output": …}`` or ``{"error": …}`` as Gemini asks."""
        if result.ok:
            ok, value = result_value(result)
            response: dict[str, Any] = {"output": value if ok else result.for_model()}
        else:
            response = {"error": result.for_model()}
        body: dict[str, Any] = {"name": self._provider_name(result), "response": response}
        if result.content:  # a rich result: images as parts, a note of the rest in the text
            images, left = rich.split(result.content, rich.any_image)
            if left:
                response["note"] = rich.left_out_note(left, "Gemini takes images here").strip()
            if images:
                body["parts"] = [rich.gemini_part(image) for image in images]
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
