"""Properties of the provider transforms over random design-like schemas.

Whatever the schema: a strict export either passes its provider's checker or names what it
could not express; a Gemini export is a valid function declaration; and the nulls a strict
model sends for fields it was not given are stripped back to exactly what the tool was sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from google.genai import types as genai
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from tooldesign.runtime.ident import ToolIdent
from tooldesign.runtime.providers import (
    ToolDescription,
    anthropic_strict_schema,
    check_anthropic_strict,
    check_openai_strict,
    gemini_parameters,
    openai_strict_schema,
)
from tooldesign.runtime.providers._schema import strip_forced_nulls

from tests.strategies import from_schema

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


@SETTINGS
@given(tool_schema())
def test_a_gemini_export_is_a_valid_declaration_unless_recursive(schema: dict[str, Any]) -> None:
    out, problems = gemini_parameters(describe(schema))
    if problems:
        assert {p.kind for p in problems} == {"recursive"}
        assert "children" in json.dumps(schema)
    else:
        genai.FunctionDeclaration.model_validate({"name": "tool", "parameters": out})
        assert "$ref" not in json.dumps(out)


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
    assert strip_forced_nulls(sent, schema) == value
