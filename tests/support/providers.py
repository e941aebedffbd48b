"""What a provider's API takes beyond what its SDK types check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.genai import types as genai


def gemini_api_problems(schema: genai.Schema | None, path: str = "") -> list[str]:
    """Rules the Gemini API enforces beyond what ``genai.Schema`` checks: an OBJECT declares its
    properties (and requires only those), an ARRAY has items, enums are typed STRING or INTEGER
    (with ``format: enum``), and the Gemini API takes no additionalProperties, $ref or $defs."""
    if schema is None:
        return []
    where = path or "(root)"
    problems = []
    kind = schema.type.value if schema.type is not None else None
    if kind == "OBJECT" and not schema.properties:
        problems.append(f"{where}: an OBJECT without properties")
    if schema.properties and kind != "OBJECT":
        problems.append(f"{where}: properties on a {kind}")
    if set(schema.required or ()) - set(schema.properties or {}):
        problems.append(f"{where}: requires undeclared properties")
    if kind == "ARRAY" and schema.items is None:
        problems.append(f"{where}: an ARRAY without items")
    if schema.enum is not None and (kind, schema.format) not in (
        ("STRING", None),
        ("INTEGER", "enum"),
    ):
        problems.append(f"{where}: an enum on {kind} (format {schema.format})")
    for field in ("additional_properties", "ref", "defs", "title"):
        if getattr(schema, field) is not None:
            problems.append(f"{where}: {field}")
    for name, body in (schema.properties or {}).items():
        problems.extend(gemini_api_problems(body, f"{path}.{name}" if path else name))
    problems.extend(gemini_api_problems(schema.items, f"{path}[]"))
    for index, variant in enumerate(schema.any_of or ()):
        problems.extend(gemini_api_problems(variant, f"{path}.anyOf[{index}]"))
    return problems


def valid_gemini_declaration(entry: Mapping[str, Any]) -> genai.FunctionDeclaration:
    # Keywords genai.Schema lacks ($ref, const, oneOf…) are refused as extra keys.
    declaration = genai.FunctionDeclaration.model_validate(entry)
    assert gemini_api_problems(declaration.parameters) == []
    return declaration
