"""Tools as readable text, for system prompts of models without native tool calling.

Each tool: its name and title, its description, its parameters one per line (type, required
or not, description, constraints in words), nested fields indented under their parent, the
types it refers to, and the design's example arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tooldesign.contract.rules import split_rules
from tooldesign.jsonschema.navigate import merge_single_all_of, type_list
from tooldesign.jsonschema.refs import ref_name, ref_target
from tooldesign.jsonschema.text import compact_json
from tooldesign.jsonschema.words import phrases
from tooldesign.runtime.providers._common import ToolIndex, ToolSource
from tooldesign.runtime.providers._schema import object_root
from tooldesign.runtime.validation.schema import JSON_ARRAYS

_WORDS_SKIPPED = frozenset(
    {
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "$ref",
        "anyOf",
        "oneOf",
        "$defs",
        "title",
        "default",
        "enum",
    }
)


def prompt_listing(tools: Iterable[ToolSource] | ToolIndex) -> str:
    """The tools as a Markdown list a model can read in a system prompt.

    Two tools with the same name (from two services) are an :class:`ExportError`, as in every
    export: the model could not tell them apart.
    """
    index = tools if isinstance(tools, ToolIndex) else ToolIndex(tools)
    blocks = [_tool_text(tool) for tool in index]
    return "# Tools\n\n" + "\n\n".join(blocks) + "\n"


def _tool_text(tool: Any) -> str:
    head = f"## {tool.name}" + (f": {tool.title}" if tool.title else "")
    lines = [head, tool.description]
    root: Mapping[str, Any] = object_root(tool.parameters)
    properties = root.get("properties") or {}
    referenced: list[str] = []
    if properties:
        lines.append("Parameters:")
        lines.extend(_fields(root, root, 0, referenced))
    else:
        lines.append("Parameters: none")
    _, rules = split_rules(root)
    if rules:
        lines.append("Rules: " + "; ".join(rule.words() for rule in rules))
    seen: set[str] = set()
    while referenced:
        ref = referenced.pop(0)
        if ref in seen:
            continue
        seen.add(ref)
        target = ref_target(root, ref)
        if target is None:
            continue
        text = f"Type {ref_name(ref)}"
        if target.get("description"):
            text += f": {target['description']}"
        lines.append(text)
        lines.extend(_fields(target, root, 0, referenced))
    if tool.example is not None:
        lines.append(f"Example: {compact_json(tool.example)}")
    return "\n".join(lines)


def _fields(
    schema: Mapping[str, Any], root: Mapping[str, Any], depth: int, referenced: list[str]
) -> list[str]:
    required = set(schema.get("required") or ())
    indent = "  " * depth
    out: list[str] = []
    for name, body in (schema.get("properties") or {}).items():
        if not isinstance(body, Mapping):
            continue
        out.append(f"{indent}- {name} ({_kind(body, root, name in required)})" + _words(body, root))
        _collect_refs(body, referenced)
        nested = _object_body(body)
        if nested is not None and depth < 4:
            out.extend(_fields(nested, root, depth + 1, referenced))
    return out


def _kind(schema: Mapping[str, Any], root: Mapping[str, Any], required: bool) -> str:
    parts = [_type_words(schema, 0), "required" if required else "optional"]
    if "default" in schema:
        parts.append(f"default {compact_json(schema['default'])}")
    return ", ".join(parts)


_PLURALS = {"any": "any values", "null": "nulls"}


def _type_words(schema: Any, depth: int) -> str:
    """A value's type in a few words: ``string``, ``integer or null``, ``array of Device``."""
    if not isinstance(schema, Mapping) or depth > 3:
        return "any"
    schema = merge_single_all_of(schema)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref_name(ref) if ref != "#" else "the same shape as the arguments"
    variants = schema.get("anyOf", schema.get("oneOf"))
    if type(variants) in JSON_ARRAYS and variants:
        return " or ".join(dict.fromkeys(_type_words(v, depth + 1) for v in variants))
    words = []
    for kind in type_list(schema) or ["any"]:
        if kind == "array":
            items = _type_words(schema.get("items"), depth + 1)
            plural = _PLURALS.get(
                items, f"{items}s" if items.islower() and " " not in items else items
            )
            words.append(f"array of {plural}")
        else:
            words.append(kind)
    return " or ".join(words)


def _words(schema: Mapping[str, Any], root: Mapping[str, Any]) -> str:
    extra = _constraint_words(schema, root)
    items = schema.get("items")
    if "array" in type_list(schema) and isinstance(items, Mapping):
        # An array's items have constraints of their own: said per item, so "at most 20
        # characters" is not read as a bound on the array.
        per_item = _constraint_words(items, root)
        if per_item:
            extra.append(f"each item: {', '.join(per_item)}")
    text = schema.get("description") or ""
    if extra:
        words = "; ".join(extra)
        words = words[0].upper() + words[1:]
        text = f"{text.rstrip('.')}. {words}" if text else words
    return f": {text}" if text else ""


def _constraint_words(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[str]:
    """What one schema (not its items) requires of a value, in words."""
    stated = {k: v for k, v in schema.items() if k not in _WORDS_SKIPPED}
    if isinstance(schema.get("additionalProperties"), Mapping):  # a map: say what its values are
        stated["additionalProperties"] = schema["additionalProperties"]
    extra = phrases(stated, root)
    enum = schema.get("enum")
    if type(enum) in JSON_ARRAYS and enum:
        extra.insert(0, f"one of {', '.join(compact_json(v) for v in enum)}")
    return extra


def _object_body(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The inline object a field holds (itself, or its array's items), if it has fields."""
    if schema.get("properties"):
        return schema
    items = schema.get("items")
    if isinstance(items, Mapping) and items.get("properties"):
        return items
    return None


def _collect_refs(schema: Any, referenced: list[str]) -> None:
    if isinstance(schema, Mapping):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref != "#":
            referenced.append(ref)
        for key, value in schema.items():
            if key != "properties":  # nested fields collect their own
                _collect_refs(value, referenced)
    elif isinstance(schema, list):
        for item in schema:
            _collect_refs(item, referenced)
