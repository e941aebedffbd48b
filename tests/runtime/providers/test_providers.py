"""Provider exports checked by the providers' own SDK types, and round trips through the runtime.

The worked example's tools and a design made to be awkward (recursion, unions, maps, every
constraint, a non-object result) are exported to OpenAI (chat and responses, plain and strict),
Anthropic (plain and strict), Gemini (OpenAPI ``parameters`` and ``parametersJsonSchema``) and
MCP; each export is validated with the SDK's request types and, where it is JSON Schema, with
the 2020-12 meta-schema.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from anthropic.types import Message, ToolParam, ToolResultBlockParam
from google.genai import types as genai
from jsonschema import Draft202012Validator
from mcp import types as mcp
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionFunctionToolParam,
    ChatCompletionToolMessageParam,
)
from openai.types.responses import FunctionToolParam, Response
from openai.types.responses.response_input_param import FunctionCallOutput
from pydantic import TypeAdapter
from tooldesign.contract.ident import ToolIdent
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult, ToolSpec
from tooldesign.runtime.providers import (
    ExportError,
    ToolDescription,
    ToolIndex,
    adapter,
    check_anthropic_strict,
    check_openai_strict,
    export_tools,
    gemini_parameters,
    prompt_listing,
)
from tooldesign.runtime.providers._common import parse_json_text
from tooldesign.runtime.validation.schema import strip_optional_nulls

from examples.netops.agent import build_runtime
from tests.support.generated import Generated
from tests.support.providers import valid_gemini_declaration

META_SCHEMA = Draft202012Validator(Draft202012Validator.META_SCHEMA)


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def valid_typed_dict(kind: Any, value: Mapping[str, Any]) -> None:
    """``value`` is a ``kind`` (an SDK TypedDict): right types, and no keys it does not have."""
    _adapter(kind).validate_python(value)
    assert set(value) <= set(kind.__annotations__), set(value) - set(kind.__annotations__)


def valid_json_schema(schema: Mapping[str, Any]) -> None:
    problem = _meta_schema_problem(json.dumps(schema))
    assert problem is None, problem


@functools.lru_cache(maxsize=1024)
def _meta_schema_problem(text: str) -> str | None:
    # By JSON text: the tools of a large catalog share their schemas, checked once each.
    errors = list(META_SCHEMA.iter_errors(json.loads(text)))
    return errors[0].message if errors else None


@pytest.fixture(scope="module")
def example_specs() -> list[ToolSpec[Any, Any]]:
    return build_runtime().specs()


def strict_ready(specs: list[ToolSpec[Any, Any]]) -> list[ToolSpec[Any, Any]]:
    # update_preferences takes an open map of preferences: it cannot be strict (tested below).
    return [s for s in specs if s.name != "update_preferences"]


# ── every export of the worked example, against the SDK types ────────────────────────────


def test_openai_chat_and_responses_exports_are_valid_tool_params(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    for strict in (False, True):
        tools = strict_ready(example_specs) if strict else example_specs
        chat = export_tools(tools, "openai", strict=strict)
        responses = export_tools(tools, "openai", strict=strict, api="responses")
        assert [t["function"]["name"] for t in chat] == [t.name for t in tools]
        for entry, response_entry in zip(chat, responses, strict=True):
            valid_typed_dict(ChatCompletionFunctionToolParam, entry)
            valid_typed_dict(FunctionToolParam, response_entry)
            assert entry["function"]["parameters"] == response_entry["parameters"]
            assert response_entry["strict"] is strict
            valid_json_schema(entry["function"]["parameters"])
            if strict:
                assert entry["function"]["strict"] is True
                assert check_openai_strict(entry["function"]["parameters"]) == []


def test_anthropic_exports_are_valid_tool_params(example_specs: list[ToolSpec[Any, Any]]) -> None:
    for strict in (False, True):
        tools = strict_ready(example_specs) if strict else example_specs
        for entry, spec in zip(export_tools(tools, "anthropic", strict=strict), tools, strict=True):
            valid_typed_dict(ToolParam, entry)
            valid_json_schema(entry["input_schema"])
            if strict:
                assert entry["strict"] is True
                assert check_anthropic_strict(entry["input_schema"]) == []
            else:
                assert entry["input_schema"] == dict(spec.payload.schema)


def test_gemini_exports_are_valid_function_declarations(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    # A map cannot be expressed in the OpenAPI parameters: the error says what to do instead.
    with pytest.raises(ExportError) as caught:
        export_tools(example_specs, "gemini")
    [problem] = caught.value.problems
    assert (problem.name, problem.path, problem.kind) == (
        "update_preferences",
        "preferences",
        "open_map",
    )
    assert "api='json_schema'" in problem.message
    ready = [s for s in example_specs if s.name != "update_preferences"]
    declarations = {e["name"]: e for e in export_tools(ready, "gemini")}
    for entry in declarations.values():
        valid_gemini_declaration(entry)
    assert "parameters" not in declarations["get_profile"]  # a tool without parameters has none
    devices = declarations["list_devices"]["parameters"]
    assert devices["propertyOrdering"] == ["site_id", "status", "limit"]
    assert devices["properties"]["limit"] == {
        "type": "INTEGER",
        "minimum": 1,
        "maximum": 500,
        "default": 50,
        "description": "Maximum results",
    }
    for entry in export_tools(example_specs, "gemini", api="json_schema"):
        declaration = genai.FunctionDeclaration.model_validate(entry)
        assert declaration.parameters is None
        valid_json_schema(entry["parametersJsonSchema"])


def test_mcp_exports_are_valid_tools_with_object_output_schemas(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    exported = export_tools(example_specs, "mcp")
    for entry, spec in zip(exported, example_specs, strict=True):
        tool = mcp.Tool.model_validate(entry)
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        valid_json_schema(tool.input_schema)
        valid_json_schema(tool.output_schema)
        for hidden in spec.injected:
            assert hidden not in json.dumps(tool.input_schema)
    by_name = {t["name"]: t for t in exported}
    # A string result is wrapped in an object, as MCP requires, and marked as a wrap the way
    # FastMCP marks it (its client unwraps what is marked).
    wrapped = by_name["answer_question"]["outputSchema"]
    assert wrapped["properties"]["result"]["type"] == "string"
    assert wrapped["x-fastmcp-wrap-result"] is True
    assert "x-fastmcp-wrap-result" not in by_name["get_site"]["outputSchema"]
    assert by_name["list_devices"]["title"] == "List devices"
    assert by_name["list_devices"]["annotations"] == {"readOnlyHint": True}
    assert by_name["restart_device"]["annotations"] == {
        "destructiveHint": True,
        "idempotentHint": False,
    }


def test_an_open_map_cannot_be_strict_and_the_error_names_the_field(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    for provider in ("openai", "anthropic"):
        with pytest.raises(ExportError) as caught:
            export_tools(example_specs, provider, strict=True)
        [problem] = caught.value.problems
        assert (problem.name, problem.path, problem.kind) == (
            "update_preferences",
            "preferences",
            "open_map",
        )
        assert "update_preferences" in str(caught.value) and "'preferences'" in str(caught.value)
    # Without strict the same tool exports.
    assert export_tools(example_specs, "openai")[-4]["function"]["name"] == "update_preferences"


def test_fallback_exports_strict_where_it_can_and_plain_where_it_cannot(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    preferences = "assistant.profiles.update_preferences"
    for provider_name in ("openai", "anthropic"):
        provider = adapter(provider_name, example_specs, strict=True, fallback=True)
        [(tool, [problem])] = provider.fallbacks.items()
        assert (tool, problem.path, problem.kind) == (preferences, "preferences", "open_map")
        exported = provider.tools()
        assert exported == provider.tools()  # later calls build the same again
        for entry, spec in zip(exported, example_specs, strict=True):
            if provider_name == "openai":
                valid_typed_dict(ChatCompletionFunctionToolParam, entry)
                strict, schema = entry["function"].get("strict"), entry["function"]["parameters"]
                checker = check_openai_strict
            else:
                valid_typed_dict(ToolParam, entry)
                strict, schema, checker = (
                    entry.get("strict"),
                    entry["input_schema"],
                    check_anthropic_strict,
                )
            if spec.id == preferences:
                assert strict is None and schema == dict(spec.payload.schema)
            else:
                assert strict is True and checker(schema) == []
    # Only the strict tools' calls carry forced nulls to strip.
    openai = adapter("openai", example_specs, strict=True, fallback=True)
    assert preferences not in openai.strict_tool_ids()
    assert len(openai.strict_tool_ids()) == len(example_specs) - 1
    [responses] = [
        e
        for e in export_tools(example_specs, "openai", strict=True, api="responses", fallback=True)
        if e["name"] == "update_preferences"
    ]
    assert responses["strict"] is False
    # Gemini: the OpenAPI parameters where they can say it, parametersJsonSchema elsewhere.
    gemini = adapter("gemini", example_specs, fallback=True)
    assert list(gemini.fallbacks) == [preferences]
    for entry in gemini.tools():
        declaration = valid_gemini_declaration(entry)
        if entry["name"] == "update_preferences":
            assert declaration.parameters is None
            valid_json_schema(entry["parametersJsonSchema"])
        else:
            assert "parametersJsonSchema" not in entry


def test_fallback_does_not_hide_bad_names_nor_apply_where_nothing_falls_back(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    with pytest.raises(ExportError, match="openai tool names must be"):
        export_tools([_tool("a.t.bad", "bad.name")], "openai", strict=True, fallback=True)
    for provider, options in (
        ("openai", {}),
        ("mcp", {}),
        ("gemini", {"api": "json_schema"}),
    ):
        with pytest.raises(ValueError, match="fallback applies to strict exports"):
            adapter(provider, example_specs, fallback=True, **options)


# ── an awkward design ────────────────────────────────────────────────────────────────────

AWKWARD = """\
from tooldesign.dsl import *

with Type("Node", "A tree node") as Node:
    Attribute("label", String, "Label", min_length=1)
    Attribute("children", ArrayOf("Node"), "Children")
    Required("label")

with Type("Circle", "A circle") as Circle:
    Attribute("kind", String, "Tag", enum=["circle"])
    Attribute("radius", Float, "Radius", exclusive_minimum=0)
    Required("kind", "radius")

with Type("Square", "A square") as Square:
    Attribute("kind", String, "Tag", enum=["square"])
    Attribute("side", Float, "Side", minimum=0, maximum=100)
    Required("kind", "side")

with Service("awkward", "Shapes that bite exporters"):
    with Toolset("shapes", "Every shape"):
        with Tool("flat", "Flat arguments with every constraint"):
            with Args():
                Attribute("name", String, "Name", min_length=2, max_length=20, pattern="^[a-z]+$")
                Attribute("when", String, "When", format="date-time")
                Attribute("mail", String, "Mail", format="email")
                Attribute("site", String, "Site", format="uri")
                Attribute("level", Int, "Level", enum=[1, 2, 3], default=1)
                Attribute("ratio", Float, "Ratio", minimum=0, maximum=1, example=0.5)
                Attribute("tags", ArrayOf(String, min_items=2, max_items=4), "Tags")
                Attribute("flag", Boolean, "Flag", default=False)
                with Attribute("window", Object, "A window"):
                    Attribute("start", Int, "Start", minimum=0)
                    Attribute("end", Int, "End")
                    Required("start")
                Required("name")
                Example({"name": "abc", "level": 2})
            Return(ArrayOf(String), "Names")
        with Tool("shapes", "A discriminated union and a plain one"):
            with Args():
                Attribute("shape", OneOf(Circle, Square, discriminator="kind"), "The shape")
                Attribute("value", OneOf(String, Int), "A value")
                Required("shape")
            Return(Int, "Area")
        with Tool("tree", "A recursive type"):
            Args(Node, "The root")
            Return(Node, "The same tree")
        with Tool("bag", "A map and an untyped value"):
            with Args():
                Attribute("labels", MapOf(String, Int), "Labels")
                Attribute("blob", Any, "Anything")
            with Return():
                Attribute("ok", Boolean, "Done")
                Required("ok")
"""


@pytest.fixture
def awkward(gen_design: Callable[[str], Generated]) -> list[ToolSpec[Any, Any]]:
    specs: list[ToolSpec[Any, Any]] = list(
        gen_design(AWKWARD).module("awkward.toolsets.shapes.specs").SPECS
    )
    return specs


def test_awkward_plain_exports_are_valid_everywhere(awkward: list[ToolSpec[Any, Any]]) -> None:
    for entry in export_tools(awkward, "openai"):
        valid_typed_dict(ChatCompletionFunctionToolParam, entry)
        valid_json_schema(entry["function"]["parameters"])
    for entry in export_tools(awkward, "anthropic"):
        valid_typed_dict(ToolParam, entry)
    for entry in export_tools(awkward, "gemini", api="json_schema"):
        genai.FunctionDeclaration.model_validate(entry)
    for entry in export_tools(awkward, "mcp"):
        tool = mcp.Tool.model_validate(entry)
        valid_json_schema(tool.output_schema or {})


def test_awkward_strict_openai_rewrites_what_it_can_and_names_what_it_cannot(
    awkward: list[ToolSpec[Any, Any]],
) -> None:
    with pytest.raises(ExportError) as caught:
        export_tools(awkward, "openai", strict=True)
    assert sorted((p.name, p.path, p.kind) for p in caught.value.problems) == [
        ("bag", "blob", "untyped"),
        ("bag", "labels", "open_map"),
    ]
    good = [s for s in awkward if s.name != "bag"]
    by_name = {
        e["function"]["name"]: e["function"]["parameters"]
        for e in export_tools(good, "openai", strict=True)
    }
    for schema in by_name.values():
        assert check_openai_strict(schema) == []
        valid_json_schema(schema)
    flat = by_name["flat"]["properties"]
    # Removed keywords are restated for the model; supported ones stay.
    assert flat["name"]["description"] == ("Name (2 to 20 characters)")
    assert flat["name"]["pattern"] == "^[a-z]+$"
    assert flat["site"]["description"] == "Site (format: uri)"
    assert flat["when"]["format"] == "date-time"
    assert flat["level"]["enum"] == [1, 2, 3, None]
    assert flat["level"]["description"] == "Level (default: 1)"
    assert flat["ratio"]["description"] == "Ratio (example: 0.5)"
    assert flat["window"]["type"] == ["object", "null"]
    assert flat["window"]["required"] == ["start", "end"]
    assert flat["window"]["properties"]["end"]["type"] == ["integer", "null"]
    shape = by_name["shapes"]["properties"]["shape"]
    assert "oneOf" not in json.dumps(shape) and len(shape["anyOf"]) == 2
    assert 'chosen by its "kind" field' in shape["description"]
    # Recursion is fine in strict mode: through $defs.
    assert "$defs" in by_name["tree"]


def test_awkward_strict_anthropic(awkward: list[ToolSpec[Any, Any]]) -> None:
    with pytest.raises(ExportError) as caught:
        export_tools(awkward, "anthropic", strict=True)
    kinds = sorted((p.name, p.kind) for p in caught.value.problems)
    assert ("bag", "open_map") in kinds and ("bag", "untyped") in kinds
    assert ("tree", "recursive") in kinds
    good = [s for s in awkward if s.name in ("flat", "shapes")]
    for entry in export_tools(good, "anthropic", strict=True):
        valid_typed_dict(ToolParam, entry)
        assert check_anthropic_strict(entry["input_schema"]) == []
    flat = export_tools(good, "anthropic", strict=True)[0]["input_schema"]["properties"]
    assert flat["tags"]["description"] == "Tags (2 to 4 items)"
    assert flat["name"]["description"] == (
        "Name (2 to 20 characters; must match the regular expression ^[a-z]+$)"
    )


def test_awkward_gemini_parameters(awkward: list[ToolSpec[Any, Any]]) -> None:
    with pytest.raises(ExportError) as caught:
        export_tools(awkward, "gemini")
    assert sorted((p.name, p.path, p.kind) for p in caught.value.problems) == [
        ("bag", "labels", "open_map"),
        ("tree", "children[]", "recursive"),
    ]
    recursion = next(p for p in caught.value.problems if p.kind == "recursive")
    assert "Node → Node" in recursion.message
    # The key and the flag users see in the export, not the SDK's Python attribute.
    assert "writes parametersJsonSchema" in recursion.message
    assert "--api json_schema" in recursion.message
    good = [s for s in awkward if s.name in ("flat", "shapes")]
    declarations = {e["name"]: e for e in export_tools(good, "gemini")}
    for entry in declarations.values():
        valid_gemini_declaration(entry)
    flat = declarations["flat"]["parameters"]["properties"]
    assert flat["level"] == {
        "type": "INTEGER",
        "enum": ["1", "2", "3"],
        "format": "enum",
        "default": 1,
        "description": "Level",
    }
    assert flat["ratio"]["example"] == 0.5
    assert flat["site"] == {"type": "STRING", "description": "Site (format: uri)"}
    assert flat["when"]["format"] == "date-time"
    assert flat["window"]["required"] == ["start"]
    shape = declarations["shapes"]["parameters"]["properties"]["shape"]
    assert [v["properties"]["kind"]["enum"] for v in shape["anyOf"]] == [["circle"], ["square"]]
    assert shape["description"] == 'The shape (the variant is chosen by its "kind" field)'
    radius = shape["anyOf"][0]["properties"]["radius"]
    assert radius["description"] == "Radius (greater than 0)"
    value = declarations["shapes"]["parameters"]["properties"]["value"]
    assert value["anyOf"] == [{"type": "STRING"}, {"type": "INTEGER"}]
    # Everything exports as parametersJsonSchema, recursion and maps included.
    for entry in export_tools(awkward, "gemini", api="json_schema"):
        genai.FunctionDeclaration.model_validate(entry)
        valid_json_schema(entry["parametersJsonSchema"])


# ── names ────────────────────────────────────────────────────────────────────────────────


def _tool(ident: str, name: str) -> ToolDescription:
    return ToolDescription(
        ToolIdent(ident), name, "A tool", {"type": "object", "properties": {}}, {"type": "string"}
    )


def test_names_map_back_to_ids_and_clashes_across_services_are_errors() -> None:
    index = ToolIndex([_tool("a.t.lookup", "lookup"), _tool("a.t.other", "other")])
    assert index.tool_id("lookup") == "a.t.lookup"
    assert index.names == {"lookup": "a.t.lookup", "other": "a.t.other"}
    with pytest.raises(
        ExportError, match="'a.t.lookup' and 'b.t.lookup' would both be called 'lookup'"
    ):
        ToolIndex([_tool("a.t.lookup", "lookup"), _tool("b.t.lookup", "lookup")])


def test_a_problem_with_the_tool_itself_names_the_tool_not_its_arguments() -> None:
    with pytest.raises(ExportError) as caught:
        ToolIndex([_tool("a.t.lookup", "lookup"), _tool("b.t.lookup", "lookup")])
    assert str(caught.value) == (
        "cannot export tools:\n  - tool 'lookup' (b.t.lookup): 'a.t.lookup' and 'b.t.lookup' "
        "would both be called 'lookup'; export them separately or rename one"
    )
    with pytest.raises(ExportError) as caught:
        export_tools([_tool("a.t.bad", "bad.name")], "openai")
    [problem] = caught.value.problems
    assert problem.path is None
    assert str(problem) == (
        "tool 'bad.name' (a.t.bad): openai tool names must be 1-64 letters, digits, '_' or '-'"
    )


def _described(ident: str, name: str, parameters: dict[str, Any]) -> ToolDescription:
    return ToolDescription(ToolIdent(ident), name, "A tool", parameters, {"type": "string"})


def test_gemini_lists_every_problem_of_every_tool_at_once() -> None:
    reset = _described(
        "a.t.reset",
        "2fa-reset",
        {
            "type": "object",
            "properties": {"user-id": {"type": "string"}, "9lives": {"type": "integer"}},
        },
    )
    tag = _described(
        "a.t.tag",
        "tag",
        {
            "type": "object",
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}}
            },
        },
    )
    with pytest.raises(ExportError) as caught:
        export_tools([reset, tag], "gemini")
    assert [(p.name, p.path, p.kind) for p in caught.value.problems] == [
        ("2fa-reset", None, "invalid_name"),
        ("2fa-reset", "user-id", "invalid_name"),
        ("2fa-reset", "9lives", "invalid_name"),
        ("tag", "labels", "open_map"),
    ]


def test_a_root_ref_is_resolved_for_every_provider() -> None:
    point = {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"],
        "additionalProperties": False,
    }
    arguments = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "at": {"$ref": "#/$defs/Point"}},
        "required": ["q"],
        "additionalProperties": False,
    }
    tool = _described(
        "a.t.find",
        "find",
        {
            "$ref": "#/$defs/Args",
            "description": "Find",
            "$defs": {"Args": arguments, "Point": point},
        },
    )
    [chat] = export_tools([tool], "openai", strict=True)
    assert chat["function"]["parameters"]["type"] == "object"
    assert check_openai_strict(chat["function"]["parameters"]) == []
    for strict in (False, True):
        [entry] = export_tools([tool], "anthropic", strict=strict)
        valid_typed_dict(ToolParam, entry)  # the SDK's input_schema needs type: object
        assert entry["input_schema"]["properties"]["at"] is not None
        if strict:
            assert check_anthropic_strict(entry["input_schema"]) == []
    [declaration] = export_tools([tool], "gemini")
    assert valid_gemini_declaration(declaration).parameters is not None
    [declaration] = export_tools([tool], "gemini", api="json_schema")
    assert declaration["parametersJsonSchema"]["type"] == "object"
    [entry] = export_tools([tool], "mcp")
    assert mcp.Tool.model_validate(entry).input_schema["required"] == ["q"]
    assert "- q (string, required)" in prompt_listing([tool])
    # A root that names no definition is no object: every export says so.
    nowhere = _described("a.t.lost", "lost", {"$ref": "#/$defs/Nope"})
    for provider in ("openai", "anthropic", "mcp"):
        with pytest.raises(ExportError) as caught:
            export_tools([nowhere], provider)
        assert [(p.path, p.kind) for p in caught.value.problems] == [("", "root_not_object")]


# ── strict mode: what it restates, infers and refuses ────────────────────────────────────


def _strict_parameters(provider: str, parameters: dict[str, Any]) -> dict[str, Any]:
    [entry] = export_tools([_described("s.t.pick", "pick", parameters)], provider, strict=True)
    schema: dict[str, Any] = (
        entry["function"]["parameters"] if provider == "openai" else entry["input_schema"]
    )
    checker = check_openai_strict if provider == "openai" else check_anthropic_strict
    assert checker(schema) == []
    valid_json_schema(schema)
    return schema


CONDITIONAL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Name", "not": {"enum": ["root", "admin"]}},
        "kind": {"type": "string", "enum": ["disk", "link"]},
        "size": {"type": "integer"},
        "unit": {"type": "string"},
    },
    "required": ["name", "kind"],
    "additionalProperties": False,
    "if": {"properties": {"kind": {"const": "disk"}}},
    "then": {"required": ["size"]},
    "else": {"required": ["unit"]},
    "dependentRequired": {"size": ["unit"]},
    "dependentSchemas": {"unit": {"properties": {"unit": {"enum": ["GB", "TB"]}}}},
}


def _keys(value: Any) -> set[str]:
    """Every key of every object in ``value``."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def test_strict_exports_restate_what_strict_mode_lacks_in_the_same_words() -> None:
    openai = _strict_parameters("openai", CONDITIONAL)
    anthropic = _strict_parameters("anthropic", CONDITIONAL)
    for schema in (openai, anthropic):
        assert schema["properties"]["name"]["description"] == (
            'Name (must not be one of "root", "admin")'
        )
        assert schema["description"] == (
            'when "kind" is "disk", "size" must be given; '
            'unless "kind" is "disk", "unit" must be given; '
            'when "size" is given, "unit" must be given too; '
            'when "unit" is given, it must also match '
            '{"properties": {"unit": {"enum": ["GB", "TB"]}}}'
        )
        assert not _keys(schema) & {"not", "if", "then", "else", "dependentRequired"}
        assert "dependentSchemas" not in _keys(schema)
    # An intersection of several schemas is no field strict mode can state: named, not guessed.
    both = {
        "type": "object",
        "properties": {"a": {"allOf": [{"type": "string"}, {"type": "string", "minLength": 2}]}},
    }
    with pytest.raises(ExportError, match="field 'a': strict mode cannot express an allOf"):
        _strict_parameters("openai", both)


def test_strict_openai_gives_an_untyped_enum_the_type_of_its_values() -> None:
    schema = _strict_parameters(
        "openai",
        {
            "type": "object",
            "properties": {
                "five": {"const": 5},  # Any(schema={"const": 5}) in a design
                "mixed": {"enum": ["x", 1, None]},
                "number": {"enum": [1, 2.5], "description": "A number"},
            },
            "required": ["mixed", "number"],
        },
    )
    assert schema["properties"] == {
        "five": {"type": ["integer", "null"], "enum": [5, None]},
        "mixed": {"type": ["string", "integer", "null"], "enum": ["x", 1, None]},
        "number": {"type": "number", "enum": [1, 2.5], "description": "A number"},
    }
    with pytest.raises(ExportError, match="field 'q': strict mode needs a type beside an enum"):
        _strict_parameters("openai", {"type": "object", "properties": {"q": {"enum": [{"a": 1}]}}})
    # Gemini infers the same way: one type for all the values, or none.
    parameters, _ = gemini_parameters(
        _described("s.t.pick", "pick", {"type": "object", "properties": {"n": {"enum": [1, 2.5]}}})
    )
    assert parameters["properties"]["n"] == {"type": "NUMBER", "description": "one of: 1, 2.5"}


def test_gemini_enums_keep_the_values_of_their_type_and_no_other_format() -> None:
    def field(schema: dict[str, Any]) -> Any:
        tool = _described("s.t.pick", "pick", {"type": "object", "properties": {"q": schema}})
        parameters, problems = gemini_parameters(tool)
        return parameters["properties"]["q"], [(p.path, p.message) for p in problems]

    # Gemini reads a string enum only without a format: the format is said in words.
    assert field({"type": "string", "format": "date", "enum": ["2024-01-01", 7]}) == (
        {"type": "STRING", "enum": ["2024-01-01"], "description": "format: date"},
        [],
    )
    assert field({"type": "integer", "enum": [1, 2.0, "3"]})[0]["enum"] == ["1", "2"]
    assert field({"type": "string", "const": False})[1] == [
        ("q", "its enum lists no value of its type (string), so no value can match")
    ]


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {
            "type": "object",
            "properties": {"n": schema},
            "required": ["n"],
            "additionalProperties": False,
        }
    return schema


def test_nesting_too_deep_is_one_problem_where_the_path_goes_too_deep() -> None:
    _strict_parameters("openai", _nested(10))
    too_deep = ".".join(["n"] * 11)
    with pytest.raises(ExportError) as caught:
        _strict_parameters("openai", _nested(12))
    assert [(p.path, p.message) for p in caught.value.problems] == [
        (too_deep, "nested deeper than 10 levels")
    ]
    assert check_openai_strict(_nested(12)) == [f"{too_deep}: nested deeper than 10 levels"]


# ── strict-mode checkers on known schemas ────────────────────────────────────────────────

GOOD_STRICT = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "pattern": "^a"},
        "n": {"type": ["integer", "null"], "minimum": 1},
        "e": {"type": ["string", "null"], "enum": ["x", None]},
        "node": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
    },
    "required": ["q", "n", "e", "node"],
    "additionalProperties": False,
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            "required": ["kids"],
            "additionalProperties": False,
        }
    },
}


def test_strict_openai_keeps_only_enum_values_the_type_takes() -> None:
    def exported(field: dict[str, Any]) -> Any:
        schema = {"type": "object", "properties": {"q": field}, "required": ["q"]}
        tool = ToolDescription(ToolIdent("s.t.pick"), "pick", "Pick", schema, {"type": "string"})
        return export_tools([tool], "openai", strict=True)[0]["function"]["parameters"]

    # A value must meet both keywords, so values of another type never match anyway.
    assert exported({"type": "integer", "enum": [1, 2.0, 2.5, "3"]})["properties"]["q"] == {
        "type": "integer",
        "enum": [1, 2.0],
    }
    assert exported({"type": ["string", "null"], "const": "x"})["properties"]["q"] == {
        "type": "string",
        "enum": ["x"],
    }
    with pytest.raises(ExportError, match=r"field 'q': its enum lists no value of its type"):
        exported({"type": "null", "const": False})


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"required": ["q"]}, "every property must be required"),
        ({"additionalProperties": True}, "additionalProperties must be false"),
        (
            {"properties": {"q": {"type": "string", "minLength": 1}}, "required": ["q"]},
            "'minLength'",
        ),
        ({"properties": {"q": {"type": "string", "default": "x"}}, "required": ["q"]}, "'default'"),
        (
            {"properties": {"q": {"type": "string", "format": "uri"}}, "required": ["q"]},
            "format 'uri'",
        ),
        ({"properties": {"q": {"oneOf": [{"type": "string"}]}}, "required": ["q"]}, "'oneOf'"),
        ({"properties": {"q": {}}, "required": ["q"]}, "no type"),
        ({"properties": {"q": {"$ref": "#/$defs/Nope"}}, "required": ["q"]}, "does not point"),
        (
            {"properties": {"q": {"type": ["string", "null"], "enum": ["a"]}}, "required": ["q"]},
            "enum does not list null",
        ),
        (
            {"properties": {"q": {"type": "integer", "enum": [1, "two"]}}, "required": ["q"]},
            "values its type does not take",
        ),
        ({"type": "array"}, "(root): must be an object"),
        ({"properties": {"q": {"enum": ["a"]}}, "required": ["q"]}, "q: no type beside its enum"),
    ],
)
def test_the_openai_strict_checker_catches_each_rule(change: dict[str, Any], fragment: str) -> None:
    assert check_openai_strict(GOOD_STRICT) == []
    problems = check_openai_strict({**GOOD_STRICT, **change})
    assert any(fragment in p for p in problems), problems


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"properties": {"n": {"type": "integer", "minimum": 1}}}, "'minimum'"),
        ({"properties": {"t": {"type": "array", "minItems": 2}}}, "minItems must be 0 or 1"),
        (
            {"properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}},
            "additionalProperties must be false",
        ),
        ({"properties": {"e": {"enum": [{"a": 1}]}}}, "not a primitive"),
        ({"properties": {"s": {"type": "string", "format": "binary"}}}, "format 'binary'"),
    ],
)
def test_the_anthropic_strict_checker_catches_each_rule(
    change: dict[str, Any], fragment: str
) -> None:
    good = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "additionalProperties": False,
    }
    assert check_anthropic_strict(good) == []
    assert "recursive types: ['Node']" in check_anthropic_strict(GOOD_STRICT)
    problems = check_anthropic_strict({**good, **change})
    assert any(fragment in p for p in problems), problems


# ── nulls strict mode forces ─────────────────────────────────────────────────────────────


def test_forced_nulls_are_stripped_but_real_nulls_are_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer"},
            "c": {"type": ["string", "null"]},
            "d": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        },
        "required": ["a"],
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"x": {"type": "string"}, "y": {"type": "integer"}},
            }
        },
    }
    value = {"a": None, "b": None, "c": None, "d": [{"x": "1", "y": None}, {"x": None}]}
    assert strip_optional_nulls(value, schema) == {"a": None, "c": None, "d": [{"x": "1"}, {}]}


# ── round trips: provider call → ToolRequest → Runtime → provider message ───────────────


@pytest.fixture(scope="module")
def runtime() -> Runtime:
    return build_runtime()


def execute_all(runtime: Runtime, provider: Any, source: Any) -> list[dict[str, Any]]:
    requests = provider.parse_calls(source, meta=ToolCallMeta(session_id="sess-alice"))
    return [provider.result_message(runtime.execute_sync(r)) for r in requests]


def test_openai_chat_round_trip_with_strict_nulls_and_errors(
    runtime: Runtime, example_specs: list[ToolSpec[Any, Any]]
) -> None:
    provider = adapter("openai", strict_ready(example_specs), strict=True)
    completion = ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "tool_calls": [
                            _chat_call(
                                "1", "list_devices", {"site_id": "hq", "status": None, "limit": 2}
                            ),
                            _chat_call("2", "get_device", {"device_id": "nope"}),
                            _chat_call("3", "reboot", {}),
                            _chat_call("4", "get_profile", "{not json"),
                        ],
                    },
                }
            ],
        }
    )
    messages = execute_all(runtime, provider, completion)
    for message in messages:
        valid_typed_dict(ChatCompletionToolMessageParam, message)
    assert [m["tool_call_id"] for m in messages] == ["1", "2", "3", "4"]
    listed = json.loads(messages[0]["content"])
    assert listed["returned"] == 2  # status: null was dropped, not sent as an invalid status
    assert "device_id: must match the pattern ^dev-[0-9a-f]{8}$" in messages[1]["content"]
    # The runtime's words for an unknown tool, whatever quotes it puts around the name.
    assert "There is no tool named" in messages[2]["content"] and "reboot" in messages[2]["content"]
    assert "not valid JSON" in messages[3]["content"]


def _chat_call(ident: str, name: str, arguments: Any) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": text}}


def test_openai_responses_round_trip(
    runtime: Runtime, example_specs: list[ToolSpec[Any, Any]]
) -> None:
    provider = adapter("openai", example_specs, api="responses")
    response = Response.model_validate(
        {
            "id": "r",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {"type": "reasoning", "id": "rs", "summary": []},
                {
                    "type": "function_call",
                    "call_id": "fc1",
                    "name": "get_site",
                    "arguments": '{"site_id": "hq"}',
                },
                {"type": "function_call", "call_id": "fc2", "name": "get_site", "arguments": "{}"},
            ],
        }
    )
    messages = execute_all(runtime, provider, response)
    for message in messages:
        valid_typed_dict(FunctionCallOutput, message)
    assert [m["call_id"] for m in messages] == ["fc1", "fc2"]
    assert json.loads(messages[0]["output"])["name"] == "Headquarters"
    assert "site_id: required field is missing" in messages[1]["output"]


def test_anthropic_round_trip(runtime: Runtime, example_specs: list[ToolSpec[Any, Any]]) -> None:
    provider = adapter("anthropic", example_specs)
    message = Message.model_validate(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                {"type": "text", "text": "Let me look."},
                {
                    "type": "tool_use",
                    "id": "tu1",
                    "name": "get_profile",
                    "input": {"session_id": "sess-bob"},
                },
                {"type": "tool_use", "id": "tu2", "name": "search_docs", "input": {"query": "x"}},
            ],
        }
    )
    results = execute_all(runtime, provider, message)
    for result in results:
        valid_typed_dict(ToolResultBlockParam, result)
    profile, search = results
    assert (profile["tool_use_id"], profile["is_error"]) == ("tu1", False)
    # The injected session came from the metadata; the model's "sess-bob" was discarded.
    assert json.loads(profile["content"])["user_id"] == "u-alice"
    assert (search["tool_use_id"], search["is_error"]) == ("tu2", True)
    assert "query: must have between 2 and 200 characters (got 1)" in search["content"]


def test_gemini_round_trip(runtime: Runtime, example_specs: list[ToolSpec[Any, Any]]) -> None:
    provider = adapter("gemini", example_specs, api="json_schema")
    response = genai.GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "functionCall": {
                                    "id": "g1",
                                    "name": "answer_question",
                                    "args": {"question": "latency?"},
                                }
                            },
                            {
                                "functionCall": {
                                    "name": "get_time_series",
                                    "args": {"device_id": "dev-00000000"},
                                }
                            },
                        ],
                    }
                }
            ]
        }
    )
    parts = execute_all(runtime, provider, response)
    for part in parts:
        genai.Part.model_validate(part)
    answer, series = (p["functionResponse"] for p in parts)
    assert answer["id"] == "g1" and answer["name"] == "answer_question"
    assert answer["response"]["output"].startswith("Compare latency")
    assert "id" not in series
    assert "metric: required field is missing" in series["response"]["error"]


def test_mcp_round_trip(runtime: Runtime, example_specs: list[ToolSpec[Any, Any]]) -> None:
    provider = adapter("mcp", example_specs)
    calls = [
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "answer_question", "arguments": {"question": "offline?"}},
        },
        mcp.CallToolRequestParams(name="list_sites", arguments={"region": "mars"}),
    ]
    answer, sites = (
        mcp.CallToolResult.model_validate(m) for m in execute_all(runtime, provider, calls)
    )
    assert answer.is_error is False
    direct = runtime.execute_sync(ToolRequest("answer_question", {"question": "offline?"}))
    assert answer.content[0].text == direct.for_model()  # type: ignore[union-attr]
    # The result's value, wrapped as the outputSchema says, whatever text the model reads.
    assert direct.result_json is not None
    assert answer.structured_content == {"result": json.loads(direct.result_json)}
    assert sites.is_error is True and sites.structured_content is None
    assert "region: must be one of" in sites.content[0].text  # type: ignore[union-attr]


def test_results_made_without_the_runtime_carry_their_value(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    # An interceptor may answer with a ToolResult of its own, never encoded by the runtime.
    mcp_provider = adapter("mcp", example_specs)
    gemini = adapter("gemini", example_specs, api="json_schema")
    text = ToolResult("answer_question", result="Check the uplink.")
    assert mcp_provider.result_message(text)["structuredContent"] == {"result": "Check the uplink."}
    assert gemini.result_message(text)["functionResponse"]["response"] == {
        "output": "Check the uplink."
    }
    site = ToolResult("get_site", result={"id": "hq", "name": "Headquarters"})
    assert mcp_provider.result_message(site)["structuredContent"] == site.result
    # A value that is not JSON data is sent as text only.
    odd = ToolResult("get_site", result={"at": object()})
    assert "structuredContent" not in mcp_provider.result_message(odd)


def test_a_result_needs_its_call_id_for_providers_that_link_them(
    runtime: Runtime, example_specs: list[ToolSpec[Any, Any]]
) -> None:
    result = runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"}))
    with pytest.raises(ValueError, match="has no tool_call_id"):
        adapter("openai", example_specs).result_message(result)
    assert (
        adapter("openai", example_specs).result_message(result, call_id="x")["tool_call_id"] == "x"
    )


def test_calls_without_an_id_are_given_one_and_still_answered(
    runtime: Runtime, example_specs: list[ToolSpec[Any, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    get_site = {"name": "get_site", "arguments": '{"site_id": "hq"}'}
    sources: list[tuple[Any, Any, str, str, str]] = [
        (
            adapter("openai", example_specs),
            {"tool_calls": [{"type": "function", "function": get_site}]},
            "tool_call_id",
            "call_",
            "no id",
        ),
        (
            adapter("openai", example_specs),
            {"tool_calls": [{"id": "", "type": "function", "function": get_site}]},
            "tool_call_id",
            "call_",
            "an empty id",
        ),
        (
            adapter("openai", example_specs, api="responses"),
            {"output": [{"type": "function_call", **get_site}]},
            "call_id",
            "call_",
            "no id",
        ),
        (
            adapter("anthropic", example_specs),
            {"content": [{"type": "tool_use", "name": "get_site", "input": {"site_id": "hq"}}]},
            "tool_use_id",
            "toolu_",
            "no id",
        ),
    ]
    seen: set[str] = set()
    for provider, source, key, prefix, sent in sources:
        caplog.clear()
        [request] = provider.parse_calls(source)
        ident = request.meta.tool_call_id
        assert ident is not None and ident.startswith(prefix) and ident not in seen
        seen.add(ident)
        # The generated id is logged, so a missing id can be traced to its provider.
        assert f'call to "get_site" came with {sent}; it is answered as {ident}' in caplog.text
        message = provider.result_message(runtime.execute_sync(request))
        assert message[key] == ident
    # An id sent as a number is the provider's id, as text.
    [request] = adapter("openai", example_specs).parse_calls(
        {"tool_calls": [{"id": 7, "type": "function", "function": get_site}]}
    )
    assert request.meta.tool_call_id == "7"
    # Gemini links results to calls by name: a call without an id stays without one.
    [request] = adapter("gemini", example_specs, api="json_schema").parse_calls(
        {"functionCall": {"name": "get_site", "args": {"site_id": "hq"}}}
    )
    assert request.meta.tool_call_id is None


def test_malformed_calls_fail_cleanly_and_keep_their_ids(
    example_specs: list[ToolSpec[Any, Any]],
) -> None:
    runtime = build_runtime()  # its own: the example limits how often get_site is called
    provider = adapter("openai", example_specs)
    calls = [
        {"id": "no_function", "type": "function"},
        {"id": "function_text", "type": "function", "function": "get_site"},
        {"id": "number", "type": "function", "function": {"name": 5, "arguments": "{}"}},
        {"id": "list", "type": "function", "function": {"name": ["get_site"], "arguments": "{}"}},
        {"id": "long", "type": "function", "function": {"name": ["x" * 100_000]}},
        {"id": "args", "type": "function", "function": {"name": "get_site", "arguments": [1]}},
        # A custom tool's call is not a function call: the caller answers it.
        {"id": "custom", "type": "custom", "custom": {"name": "grammar", "input": "x"}},
    ]
    messages = execute_all(runtime, provider, {"tool_calls": calls})
    for message in messages:
        valid_typed_dict(ChatCompletionToolMessageParam, message)
    answers = {m["tool_call_id"]: m["content"] for m in messages}
    assert list(answers) == ["no_function", "function_text", "number", "list", "long", "args"]
    unknown = "Error: There is no tool named "  # then the name, in the runtime's quotes
    for ident in ("no_function", "function_text", "number", "list", "long"):
        assert answers[ident].startswith(unknown), answers[ident]
        assert "Available tools: " in answers[ident]
    # A name that is not a string is shown as the JSON it was, cut short.
    named = {ident: answers[ident][len(unknown) :].split(". Available")[0] for ident in answers}
    assert named["no_function"][1:-1] == named["function_text"][1:-1] == ""
    assert named["number"][1:-1] == "5"
    assert "get_site" in named["list"] and "[" in named["list"]
    assert len(named["long"]) < 100 and "…" in named["long"]
    assert "- arguments: " in answers["args"] and "got array [1]" in answers["args"]
    anthropic = adapter("anthropic", example_specs)
    [block] = execute_all(
        runtime, anthropic, [{"type": "tool_use", "id": "tu", "name": {"tool": "get_site"}}]
    )
    valid_typed_dict(ToolResultBlockParam, block)
    assert block["is_error"] is True
    assert block["content"].startswith("Error: There is no tool named ")
    assert "tool" in block["content"] and "get_site" in block["content"]


def test_the_prompt_listing_says_item_constraints_per_item() -> None:
    labels = _described(
        "a.t.label",
        "label",
        {
            "type": "object",
            "properties": {
                "labels": {
                    "type": "array",
                    "description": "Labels",
                    "maxItems": 5,
                    "items": {"type": "string", "maxLength": 20, "pattern": "^[a-z]+$"},
                },
                "kinds": {"type": "array", "items": {"enum": ["a", "b"]}},
            },
        },
    )
    listing = prompt_listing([labels])
    assert (
        "- labels (array of strings, optional): Labels. At most 5 items; each item: at most 20 "
        "characters, must match the regular expression ^[a-z]+$"
    ) in listing
    assert '- kinds (array of any values, optional): Each item: one of "a", "b"' in listing


@pytest.fixture(scope="module")
def synthetic_tools(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The benchmark's 1,000-tool synthetic catalog (50 toolsets of 20 tools), as loaded.

    Built as ``tooldesign gen`` builds the service's ``tool_schemas.json``, without rendering
    the Python packages (which exports never read, and which take most of a generation).
    """
    from tooldesign.codegen.files import catalog_entries
    from tooldesign.codegen.views import toolset_view
    from tooldesign.contract.catalog import build_catalog, catalog_text
    from tooldesign.eval.evaluate import evaluate
    from tooldesign.runtime.spec.catalog import parse_catalog

    from benchmarks.synthetic import write_design

    design = evaluate([str(write_design(tmp_path_factory.mktemp("synthetic")))])
    [service] = design.services
    entries = []
    for toolset in service.toolsets:
        view = toolset_view(design, service, toolset)
        entries.extend(catalog_entries(view))
    return list(parse_catalog(catalog_text(build_catalog(entries))).tools)


@pytest.mark.slow
def test_every_export_of_the_synthetic_catalog_is_valid(synthetic_tools: list[Any]) -> None:
    tools = synthetic_tools
    assert len(tools) == 1000
    names = [t.name for t in tools]
    for strict in (False, True):
        chat = export_tools(tools, "openai", strict=strict)
        responses = export_tools(tools, "openai", strict=strict, api="responses")
        assert [e["function"]["name"] for e in chat] == [e["name"] for e in responses] == names
        for entry, response_entry in zip(chat, responses, strict=True):
            valid_typed_dict(ChatCompletionFunctionToolParam, entry)
            valid_typed_dict(FunctionToolParam, response_entry)
            valid_json_schema(entry["function"]["parameters"])
            if strict:
                assert check_openai_strict(entry["function"]["parameters"]) == []
        for entry in export_tools(tools, "anthropic", strict=strict):
            valid_typed_dict(ToolParam, entry)
            valid_json_schema(entry["input_schema"])
            if strict:
                assert check_anthropic_strict(entry["input_schema"]) == []
    for entry in export_tools(tools, "gemini"):
        valid_gemini_declaration(entry)
    for entry in export_tools(tools, "gemini", api="json_schema"):
        assert genai.FunctionDeclaration.model_validate(entry).parameters is None
        valid_json_schema(entry["parametersJsonSchema"])
    for entry in export_tools(tools, "mcp"):
        tool = mcp.Tool.model_validate(entry)
        valid_json_schema(tool.input_schema)
        valid_json_schema(tool.output_schema or {})


def test_a_results_json_text_is_read_as_json_reads_it() -> None:
    """Structured content is read from a result's JSON text by pydantic's parser, and by
    ``json.loads`` where that one refuses what JSON allows (an escaped lone surrogate)."""
    for text in ('{"a": [1, 2.5, null, true], "b": "\\u00e9"}', "12345678901234567890123", "[]"):
        assert parse_json_text(text) == (True, json.loads(text))
    assert parse_json_text('"\\ud800"') == (True, "\ud800")
    assert parse_json_text("[1] x") == (False, "[1] x")
    assert parse_json_text("") == (False, "")
