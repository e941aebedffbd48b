"""Properties of the provider transforms over random design-like schemas.

Whatever the schema: a strict export either passes its provider's checker or names what it
could not express; a Gemini export is a valid function declaration; and the nulls a strict
model sends for fields it was not given are stripped back to exactly what the tool was sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from anthropic.types import ToolParam
from google.genai import types as genai
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mcp import types as mcp
from pydantic import TypeAdapter
from tooldesign.contract.ident import ToolIdent
from tooldesign.jsonschema.navigate import type_list
from tooldesign.runtime.providers import (
    ExportError,
    ToolDescription,
    anthropic_strict_schema,
    check_anthropic_strict,
    check_openai_strict,
    export_tools,
    gemini_parameters,
    openai_strict_schema,
    prompt_listing,
)
from tooldesign.runtime.validation.schema import strip_optional_nulls

from tests.support.providers import valid_gemini_declaration
from tests.support.strategies import from_schema

META = Draft202012Validator(Draft202012Validator.META_SCHEMA)
NAMES = st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
TEXT = st.text("abc xyz", min_size=1, max_size=12)


def _with_extras(schema: dict[str, Any], draw: Any) -> dict[str, Any]:
    if draw(st.booleans()):
        schema["description"] = draw(TEXT)
    return schema


@st.composite
def leaf(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "integer", "number", "boolean"]))
    schema: dict[str, Any] = {"type": kind}
    if kind == "string":
        choice = draw(st.sampled_from(["plain", "enum", "lengths", "pattern", "format"]))
        if choice == "enum":
            schema["enum"] = draw(st.lists(TEXT, min_size=1, max_size=4, unique=True))
        elif choice == "lengths":
            schema["minLength"] = draw(st.integers(0, 3))
            schema["maxLength"] = draw(st.integers(4, 20))
        elif choice == "pattern":
            schema["pattern"] = "^[a-z]+$"
        elif choice == "format":
            schema["format"] = draw(st.sampled_from(["date-time", "email", "uri", "uuid"]))
    elif kind in ("integer", "number"):
        if draw(st.booleans()):
            schema["minimum"] = draw(st.integers(-5, 0))
            schema["maximum"] = draw(st.integers(1, 50))
        if kind == "integer" and draw(st.booleans()):
            schema = {
                "type": "integer",
                "enum": draw(st.lists(st.integers(0, 9), min_size=1, max_size=3, unique=True)),
            }
    if draw(st.booleans()) and "enum" not in schema and kind != "boolean":
        schema["examples"] = [{"string": "abc", "integer": 1, "number": 1.5}[kind]]
    return _with_extras(schema, draw)


def node(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    if depth <= 0:
        return leaf()
    child = st.deferred(lambda: node(depth - 1))
    return st.one_of(
        leaf(),
        leaf(),
        child.map(lambda items: {"type": "array", "items": items}),
        obj(child),
        st.lists(child, min_size=2, max_size=3).map(lambda v: {"anyOf": v}),
        st.just({"$ref": "#/$defs/Item"}),
        child.map(lambda v: {"type": "object", "additionalProperties": v}),
        st.just({}),
    )


@st.composite
def obj(draw: Any, child: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    properties = {name: draw(child) for name in names}
    required = [n for n in names if draw(st.booleans())]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return _with_extras(schema, draw)


@st.composite
def tool_schema(draw: Any) -> dict[str, Any]:
    root = draw(obj(node(2)))
    if "$ref" in json.dumps(root):
        recursive = draw(st.booleans())
        item: dict[str, Any] = {
            "type": "object",
            "properties": {"label": {"type": "string"}},
            "required": ["label"],
            "additionalProperties": False,
        }
        if recursive:
            item["properties"]["children"] = {"type": "array", "items": {"$ref": "#/$defs/Item"}}
        root["$defs"] = {"Item": item}
    result: dict[str, Any] = root
    return result


def describe(schema: dict[str, Any]) -> ToolDescription:
    return ToolDescription(ToolIdent("s.t.tool"), "tool", "A tool", schema, {"type": "string"})


def has(schema: Any, predicate: Any) -> bool:
    if isinstance(schema, Mapping):
        return predicate(schema) or any(has(v, predicate) for v in schema.values())
    if isinstance(schema, list):
        return any(has(v, predicate) for v in schema)
    return False


def is_map(s: Mapping[str, Any]) -> bool:
    return isinstance(s.get("additionalProperties"), Mapping)


def is_untyped(s: Mapping[str, Any]) -> bool:
    return s == {}


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tool_schema())
def test_a_strict_openai_export_passes_the_checker_or_names_what_it_cannot_express(
    schema: dict[str, Any],
) -> None:
    assert not list(META.iter_errors(schema))
    before = json.dumps(schema, sort_keys=True)
    out, problems = openai_strict_schema(describe(schema))
    assert json.dumps(schema, sort_keys=True) == before  # the input is never changed
    if problems:
        kinds = {p.kind for p in problems}
        assert kinds <= {"open_map", "untyped"}
        assert ("open_map" in kinds) == has(schema, is_map)
        assert "untyped" not in kinds or has(schema, is_untyped)
    else:
        assert not has(schema, is_map) and not has(schema, is_untyped)
        assert check_openai_strict(out) == []
        assert not list(META.iter_errors(out))


@SETTINGS
@given(tool_schema())
def test_a_strict_anthropic_export_passes_the_checker_or_names_what_it_cannot_express(
    schema: dict[str, Any],
) -> None:
    out, problems = anthropic_strict_schema(describe(schema))
    if problems:
        assert {p.kind for p in problems} <= {"open_map", "untyped", "recursive"}
    else:
        assert check_anthropic_strict(out) == []
        assert not list(META.iter_errors(out))


def is_recursive(schema: Mapping[str, Any]) -> bool:
    return "children" in json.dumps(schema.get("$defs", {}))


@SETTINGS
@given(tool_schema())
def test_a_gemini_export_is_a_valid_declaration_or_names_what_it_cannot_express(
    schema: dict[str, Any],
) -> None:
    out, problems = gemini_parameters(describe(schema))
    kinds = {p.kind for p in problems}
    assert kinds <= {"recursive", "open_map"}
    assert ("open_map" in kinds) == has(schema, is_map)
    assert "recursive" not in kinds or is_recursive(schema)
    if is_recursive(schema) and not has(schema, is_map):
        assert "recursive" in kinds
    if not problems:
        valid_gemini_declaration({"name": "tool", "parameters": out})


def add_forced_nulls(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any]) -> Any:
    """What a model in strict mode sends: ``null`` for every optional field it leaves out."""
    if "$ref" in schema:
        return add_forced_nulls(value, root["$defs"]["Item"], root)
    if isinstance(value, dict) and "properties" in schema:
        out = {
            k: add_forced_nulls(v, schema["properties"].get(k, {}), root) for k, v in value.items()
        }
        for name in schema["properties"]:
            out.setdefault(name, None)
        return out
    if isinstance(value, list) and "items" in schema:
        return [add_forced_nulls(v, schema["items"], root) for v in value]
    return value


@st.composite
def schema_and_value(draw: Any) -> tuple[dict[str, Any], Any]:
    schema = draw(tool_schema())
    if has(schema, is_map) or has(schema, is_untyped) or has(schema, lambda s: "anyOf" in s):
        # Keep to what strict mode can express and a value can be matched to unambiguously.
        schema = {"type": "object", "properties": {"alpha": {"type": "string"}}}
    return schema, draw(from_schema(schema, max_depth=2))


@SETTINGS
@given(schema_and_value())
def test_stripping_forced_nulls_gives_back_what_the_model_meant(
    case: tuple[dict[str, Any], Any],
) -> None:
    schema, value = case
    sent = add_forced_nulls(value, schema, schema)
    strict, problems = openai_strict_schema(describe(schema))
    assert not problems
    assert not list(Draft202012Validator(strict).iter_errors(sent))  # strict mode allows it
    assert strip_optional_nulls(sent, schema) == value


# ── any JSON Schema a catalog may carry ──────────────────────────────────────────────────
# Catalogs written by other tools, and schemas kept verbatim from imports, can use any
# keyword. Whatever they hold, an export either names what it cannot express or produces
# what the provider takes; it never crashes and never changes its input.

KEYWORD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "description": TEXT,
    "title": TEXT,
    "format": st.sampled_from(["date-time", "uri", "email", "int32", "float", "uuid", "color"]),
    "minLength": st.integers(0, 5),
    "maxLength": st.integers(5, 50),
    "pattern": st.just("^[a-z]+$"),
    "minimum": st.integers(-5, 5),
    "exclusiveMaximum": st.integers(6, 50),
    "multipleOf": st.just(2),
    "minItems": st.integers(0, 3),
    "maxItems": st.integers(3, 9),
    "uniqueItems": st.booleans(),
    "minProperties": st.integers(0, 2),
    "default": st.one_of(st.none(), st.integers(0, 3), TEXT),
    "examples": st.lists(st.one_of(st.integers(0, 3), TEXT), max_size=2),
    "enum": st.lists(
        st.one_of(st.none(), st.booleans(), st.integers(0, 9), TEXT, st.just({"a": 1})),
        min_size=1,
        max_size=4,
    ),
    "const": st.one_of(st.none(), st.booleans(), st.integers(0, 9), TEXT),
    "nullable": st.booleans(),
    "deprecated": st.booleans(),
    "discriminator": st.just({"propertyName": "kind"}),
    "dependentRequired": st.just({"a": ["b"]}),
}
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])


@st.composite
def any_schema(draw: Any, depth: int = 2) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    shape = draw(st.sampled_from(["typed", "types", "untyped", "ref", "union", "all_of"]))
    if shape == "typed":
        schema["type"] = draw(TYPES)
    elif shape == "types":
        schema["type"] = draw(st.lists(TYPES, min_size=2, max_size=3, unique=True))
    elif shape == "ref":
        schema["$ref"] = draw(st.sampled_from(["#/$defs/A", "#/$defs/B", "#", "#/$defs/Nope"]))
    child = st.deferred(lambda: any_schema(depth - 1)) if depth > 0 else st.just({"type": "string"})
    if shape == "union":
        schema[draw(st.sampled_from(["anyOf", "oneOf"]))] = draw(
            st.lists(child, min_size=1, max_size=3)
        )
    elif shape == "all_of":
        schema["allOf"] = draw(st.lists(child, min_size=1, max_size=2))
    types = type_list(schema)
    if "object" in types or (shape == "untyped" and draw(st.booleans())):
        names = draw(
            st.lists(st.sampled_from(["a", "b", "kind", "x-y", "type"]), max_size=3, unique=True)
        )
        schema["properties"] = {name: draw(child) for name in names}
        if names and draw(st.booleans()):
            schema["required"] = draw(st.lists(st.sampled_from([*names, "ghost"]), unique=True))
        extra = draw(st.sampled_from(["closed", "open", "map", "none"]))
        if extra != "none":
            schema["additionalProperties"] = {"closed": False, "open": True, "map": draw(child)}[
                extra
            ]
    if "array" in types and draw(st.booleans()):
        schema["items"] = draw(child)
    if draw(st.booleans()):
        keyword = draw(st.sampled_from(["not", "if", "prefixItems"]))
        schema[keyword] = [draw(child)] if keyword == "prefixItems" else draw(child)
    for key in draw(st.lists(st.sampled_from(sorted(KEYWORD_VALUES)), max_size=4, unique=True)):
        schema[key] = draw(KEYWORD_VALUES[key])
    return schema


@st.composite
def any_tool_schema(draw: Any) -> dict[str, Any]:
    names = draw(
        st.lists(st.sampled_from(["a", "b", "c", "x-y"]), min_size=0, max_size=3, unique=True)
    )
    root: dict[str, Any] = {
        "type": "object",
        "properties": {name: draw(any_schema()) for name in names},
    }
    if draw(st.booleans()):
        root["additionalProperties"] = False
    root["$defs"] = {"A": draw(any_schema(depth=1)), "B": {"type": "string"}}
    return root


PROBLEM_KINDS = {"open_map", "untyped", "recursive", "unsupported", "bad_ref", "invalid_name"}


def export_or_problems(schema: dict[str, Any], provider: Any, **options: Any) -> list[Any] | None:
    """The export of one tool with ``schema``, or ``None`` when it names what it cannot do."""
    tool = describe(schema)
    try:
        return export_tools([tool], provider, **options)
    except ExportError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.kind in PROBLEM_KINDS and problem.message and problem.tool == tool.id
        return None


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_tool_schema())
def test_any_json_schema_exports_or_names_what_it_cannot_express(schema: dict[str, Any]) -> None:
    assert not list(META.iter_errors(schema))
    before = json.dumps(schema, sort_keys=True)
    [chat] = export_or_problems(schema, "openai") or [None]
    assert chat is not None  # without strict, anything goes
    parameters = chat["function"]["parameters"]
    assert not list(META.iter_errors(parameters))
    assert not [p for p in check_openai_strict(parameters) if "missing items" in p]
    for exported in export_or_problems(schema, "openai", strict=True) or []:
        assert check_openai_strict(exported["function"]["parameters"]) == []
        assert not list(META.iter_errors(exported["function"]["parameters"]))
    for exported in export_or_problems(schema, "anthropic", strict=True) or []:
        TypeAdapter(ToolParam).validate_python(exported)
        assert check_anthropic_strict(exported["input_schema"]) == []
        assert not list(META.iter_errors(exported["input_schema"]))
    for exported in export_or_problems(schema, "gemini") or []:
        valid_gemini_declaration(exported)
    for exported in export_or_problems(schema, "gemini", api="json_schema") or []:
        genai.FunctionDeclaration.model_validate(exported)
    for exported in export_or_problems(schema, "mcp") or []:
        tool = mcp.Tool.model_validate(exported)
        assert not list(META.iter_errors(tool.input_schema))
    assert prompt_listing([describe(schema)]).startswith("# Tools")
    assert json.dumps(schema, sort_keys=True) == before


# Keywords strict mode lacks but words can carry: restated, never kept, never refused.
RESTATED = {"not", "if", "then", "else", "dependentRequired", "dependentSchemas", "prefixItems"}


def keys(value: Any) -> set[str]:
    if isinstance(value, Mapping):
        return set(value).union(*(keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys(v) for v in value))
    return set()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_tool_schema())
def test_strict_exports_refuse_only_what_strict_mode_cannot_state(schema: dict[str, Any]) -> None:
    out, problems = openai_strict_schema(describe(schema))
    for problem in problems:
        assert not any(keyword in problem.message for keyword in RESTATED - {"if", "not"})
        if problem.kind == "unsupported":
            assert "allOf" in problem.message or "enum lists no value" in problem.message
    if not problems:
        assert not keys(out) & RESTATED
    out, problems = anthropic_strict_schema(describe(schema))
    if not problems:
        assert not keys(out) & RESTATED
