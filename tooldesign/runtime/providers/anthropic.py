"""Anthropic tools: ``{name, description, input_schema}``, plain or strict.

Without ``strict`` Anthropic takes any JSON Schema, so the tool's schema goes as it is. With
``strict`` the model's input is guaranteed to match, for a subset: every object closed, enums
of primitives, ``minItems`` of 0 or 1, a few string formats, no recursion, and no numeric or
length bounds, patterns or defaults — those are restated in the description, as the
``anthropic`` SDK's own ``transform_schema`` does. Required fields stay as designed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from tooldesign.contract.formats import FORMATS
from tooldesign.contract.providers import Provider
from tooldesign.jsonschema.navigate import MAPS, type_list
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
    cyclic,
    object_root,
    recursive_defs,
    split_keywords,
)
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.validation.schema import JSON_ARRAYS

STRICT_FORMATS = frozenset(f.name for f in FORMATS if f.anthropic_strict)
_KEPT = frozenset(
    {
        "type",
        "description",
        "title",
        "enum",
        "const",
        "anyOf",
        "allOf",
        "$ref",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "format",
        "minItems",
    }
)


# Keywords a strict node copies as they are; the others are handled on their own or restated.
_COPIED = frozenset({"type", "title"})
_HANDLED = frozenset(
    {
        "description",
        "$defs",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
        "properties",
        "required",
        "items",
        "format",
        "minItems",
        *IGNORED,
    }
)


def anthropic_strict_schema(tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
    """``tool``'s input schema rewritten for Anthropic's strict tools, and what could not be."""
    problems: list[ExportProblem] = []
    root = object_root(tool.parameters)
    # Which $defs each definition refers to, gathered while converting: recursion is a cycle.
    refers: dict[str, set[str]] = {}
    current: set[str] = set()

    def problem(path: str, message: str, kind: Any) -> None:
        problems.append(ExportProblem(tool.id, tool.name, path, message, kind))

    def node(schema: Mapping[str, Any], path: str) -> Schema:
        out, dropped = split_keywords(schema, _COPIED, _HANDLED)
        ref = schema.get("$ref")
        if ref is not None:
            defined = def_name(ref)
            if defined is not None:
                current.add(defined)
            if type(ref) is not str or ref_target(root, ref) is None:
                problem(path, f"$ref {ref!r} points nowhere", "bad_ref")
            if ref == "#":
                problem(
                    path, "strict tools cannot be recursive (export with strict=False)", "recursive"
                )
            description = restate(schema.get("description"), phrases(dropped, root))
            # A description beside a $ref goes on an allOf around it.
            return (
                {"allOf": [{"$ref": ref}], "description": description}
                if description
                else {"$ref": ref}
            )
        types = type_list(schema)
        for key in ("enum", "const"):
            if key in schema:
                values = schema[key] if key == "enum" else [schema[key]]
                if isinstance(values, list) and all(_primitive(v) for v in values):
                    out[key] = list(values) if key == "enum" else schema[key]
                else:  # strict tools take primitive values only: say the others in words
                    dropped[key] = schema[key]
        variants = schema.get("anyOf", schema.get("oneOf"))
        if type(variants) in JSON_ARRAYS:
            out["anyOf"] = [node(v, path) for v in variants if isinstance(v, MAPS)]
        if type(schema.get("allOf")) in JSON_ARRAYS:
            out["allOf"] = [node(v, path) for v in schema["allOf"] if isinstance(v, MAPS)]
        if not types and not ({"enum", "const", "anyOf", "allOf"} & out.keys()):
            problem(
                path,
                "strict tools need a type for every value; this one accepts anything",
                "untyped",
            )
        if "object" in types:
            extra = dropped.pop("additionalProperties", None)
            if extra is not False and (extra is not None or not schema.get("properties")):
                problem(path, "an object with free-form keys (a map) cannot be strict", "open_map")
            out["properties"] = {
                name: node(body, FieldPath.prop(path, name))
                for name, body in (schema.get("properties") or {}).items()
            }
            if schema.get("required"):
                out["required"] = list(schema["required"])
            out["additionalProperties"] = False
        elif "array" in types and isinstance(schema.get("items"), MAPS):
            out["items"] = node(schema["items"], FieldPath.items(path))
        for key, supported in (("minItems", (0, 1)), ("format", STRICT_FORMATS)):
            if key in schema:
                if schema[key] in supported:
                    out[key] = schema[key]
                else:
                    dropped[key] = schema[key]
        description = schema.get("description")
        if dropped:
            description = restate(description, phrases(dropped, root))
        if description:
            out["description"] = description
        return out

    out = node(root, "")
    if out.get("type") != "object":
        problem("", "strict tools need an object at the root", "root_not_object")
    defs = root.get("$defs")
    if isinstance(defs, MAPS):
        out["$defs"] = {}
        for name, body in defs.items():
            current = refers[name] = set()
            out["$defs"][name] = node(body, f"$defs.{name}")
        for name in sorted(cyclic(refers)):
            problem(
                f"$defs.{name}",
                f"type {name!r} refers to itself; strict tools cannot be recursive "
                "(export with strict=False)",
                "recursive",
            )
    return out, problems


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def check_anthropic_strict(schema: Mapping[str, Any]) -> list[str]:
    """Every way ``schema`` breaks the rules of Anthropic's strict tools (empty if none)."""
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append("(root): input_schema must be an object")
    if recursive_defs(schema):
        problems.append(f"recursive types: {sorted(recursive_defs(schema))}")

    def check(node: Any, path: str) -> None:
        where = path or "(root)"
        if not isinstance(node, MAPS):
            problems.append(f"{where}: not a schema object")
            return
        if node.get("$ref") == "#":
            problems.append(f"{where}: refers to the root (recursion)")
        for key in node:
            if key not in _KEPT and key != "$defs":
                problems.append(f"{where}: keyword {key!r} is not supported")
        types = type_list(node)
        if not types and not ({"enum", "const", "anyOf", "allOf", "$ref"} & set(node)):
            problems.append(f"{where}: no type")
        if "format" in node and node["format"] not in STRICT_FORMATS:
            problems.append(f"{where}: format {node['format']!r} is not supported")
        if node.get("minItems", 0) not in (0, 1):
            problems.append(f"{where}: minItems must be 0 or 1")
        for value in node.get("enum", []):
            if not _primitive(value):
                problems.append(f"{where}: enum value {value!r} is not a primitive")
        if "object" in types and node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        for name, body in (node.get("properties") or {}).items():
            check(body, f"{path}.{name}" if path else name)
        if isinstance(node.get("items"), MAPS):
            check(node["items"], f"{path}[]")
        for key in ("anyOf", "allOf"):
            for index, variant in enumerate(node.get(key, [])):
                check(variant, f"{path}.{key}[{index}]")

    check({k: v for k, v in schema.items() if k != "$defs"}, "")
    for name, body in (schema.get("$defs") or {}).items():
        check(body, f"$defs.{name}")
    return problems


STRICT_TOOLS_PER_REQUEST = 20
"""Anthropic's limits on one request's strict tools (its structured-outputs documentation):
strict tools, optional parameters across all their schemas, and parameters that take a union
(``anyOf`` or a list of types) across all their schemas. A request over one is refused."""
STRICT_OPTIONAL_PARAMETERS = 24
STRICT_UNION_PARAMETERS = 16


def strict_request_limits(tools: Iterable[Mapping[str, Any]]) -> list[str]:
    """The per-request limits on strict tools that exported Anthropic ``tools`` exceed, each
    naming the limit and the count (empty when the set can go in one request)."""
    strict = [tool for tool in tools if tool.get("strict") is True]
    optional = unions = 0
    for tool in strict:
        for node in _object_nodes(tool.get("input_schema")):
            required = set(as_list(node.get("required")))
            for name, prop in (node.get("properties") or {}).items():
                optional += name not in required
                unions += isinstance(prop, Mapping) and (
                    "anyOf" in prop or isinstance(prop.get("type"), list)
                )
    counts = (
        (len(strict), STRICT_TOOLS_PER_REQUEST, "strict tools"),
        (optional, STRICT_OPTIONAL_PARAMETERS, "optional parameters across strict tools"),
        (unions, STRICT_UNION_PARAMETERS, "union-typed parameters across strict tools"),
    )
    return [
        f"{count} {what}: Anthropic takes at most {limit} in one request"
        for count, limit, what in counts
        if count > limit
    ]


def _object_nodes(schema: Any) -> Iterable[Mapping[str, Any]]:
    """Every schema node below ``schema`` (``$defs`` included) that has ``properties``."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if isinstance(node.get("properties"), Mapping):
                yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


class AnthropicAdapter(ProviderAdapter):
    """Anthropic tools, tool calls (``tool_use`` blocks) and results (``tool_result`` blocks)."""

    provider: ClassVar[Provider] = "anthropic"
    call_id_prefix: ClassVar[str | None] = "toolu_"

    fallback_form: ClassVar[str] = "without strict mode"

    def __init__(self, index: ToolIndex, *, strict: bool = False, fallback: bool = False) -> None:
        super().__init__(index, fallback=fallback)
        self.strict = strict
        self.label = "anthropic (strict)" if strict else "anthropic"
        # No form takes an allOf, anyOf or oneOf at the root ("input_schema does not support
        # oneOf, allOf, or anyOf at the top level": claude-code#5319): rules go in words.
        self.takes_rules = False
        self._convert_all()

    def convert(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        return anthropic_strict_schema(tool) if self.strict else self.plain(tool)

    def tools(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for tool in self.index:
            entry: dict[str, Any] = {
                "name": tool.name,
                "description": self.description(tool),
                "input_schema": self.parameters(tool),
            }
            if self.strict and self.in_asked_form(tool):
                entry["strict"] = True
            out.append(entry)
        return out

    def raw_calls(self, source: Any) -> Iterable[tuple[Any, Any, Any]]:
        """``tool_use`` blocks of a Message (or of its ``content``, or given one by one)."""
        return _tool_uses(source)

    def result_message(self, result: ToolResult, *, call_id: str | None = None) -> dict[str, Any]:
        """A ``tool_result`` block; send it in the next ``user`` message's content."""
        content: Any = result.for_model()
        if result.content:  # a rich result: the images Anthropic takes, a note of the rest
            images, left = rich.split(result.content, rich.anthropic_image)
            note = rich.left_out_note(left, "Anthropic tool results take JPEG, PNG, GIF, WebP")
            text = {"type": "text", "text": content + note}
            content = [text, *(rich.anthropic_block(image) for image in images)]
        return {
            "type": "tool_result",
            "tool_use_id": self._call_id(result, call_id),
            "content": content,
            "is_error": not result.ok,
        }


def _tool_uses(source: Any) -> Iterable[tuple[Any, Any, Any]]:
    content = field_of(source, "content")
    blocks = as_list(content if content is not None and not isinstance(content, str) else source)
    for block in blocks:
        if field_of(block, "type") == "tool_use":
            yield field_of(block, "name"), field_of(block, "input"), field_of(block, "id")
