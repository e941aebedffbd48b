"""Translating MCP tool schemas into design drafts (no server needed: a pure function)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tooldesign.importers.draft import (
    ANY,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAttribute,
    DraftResult,
    DraftTool,
    InlineObject,
    MapOf,
    MCPServerDraft,
    Named,
    OneOf,
    Primitive,
)
from tooldesign.importers.mcp import tool_draft, tools_design
from tooldesign.importers.writer import render
from tooldesign.runtime import ToolValidationError

from tests.support.generated import Generated


def draft(
    input_schema: dict[str, Any], output: dict[str, Any] | None = None, **extra: Any
) -> tuple[DraftTool, Any]:
    tool = {"name": "t", "description": "A tool", "inputSchema": input_schema, **extra}
    if output is not None:
        tool["outputSchema"] = output
    return tool_draft(tool)


def args(tool: DraftTool) -> dict[str, Any]:
    return {a.name: a for a in tool.args}


def test_primitives_constraints_defaults_and_required() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {
                "q": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 9,
                    "pattern": "^a",
                    "title": "Q",
                },
                "n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "default": 3},
                "when": {"type": "string", "format": "date-time"},
                "odd": {"type": "string", "format": "color"},
                "bad_default": {"type": "integer", "minimum": 5, "default": 1},
            },
            "required": ["q"],
        }
    )
    a = args(tool)
    assert (a["q"].type, a["q"].required, a["q"].options) == (
        STRING,
        True,
        {"min_length": 1, "max_length": 9, "pattern": "^a"},
    )
    assert a["n"].options == {"minimum": 0, "exclusive_maximum": 10, "default": 3}
    assert a["when"].options == {"format": "date-time"}
    assert a["odd"].options == {}
    assert a["bad_default"].options == {"minimum": 5}
    messages = [str(n) for n in context.notices]
    assert "tool 't' › odd: format 'color' is not one the design checks; left out" in messages
    assert "tool 't' › bad_default: its default 1 does not fit its type; left out" in messages


def test_null_unions_enums_and_consts() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
                "b": {"type": ["string", "null"]},
                "c": {"enum": ["x", "y", None]},
                "d": {"const": "fixed"},
                "e": {"enum": [1, "two"]},
            },
            "required": ["b"],
        }
    )
    a = args(tool)
    assert (a["a"].type, a["a"].required) == (INT, False)
    assert (a["b"].type, a["b"].required) == (STRING, False)  # required-but-null: optional
    assert a["c"].options == {"enum": ["x", "y"]}
    assert a["d"].options == {"enum": ["fixed"]}
    assert a["e"].type == Primitive("Any", {"enum": [1, "two"]})
    assert any("› b: required but may be null" in str(n) for n in context.notices)


def test_refs_become_named_types_and_recursion_is_by_name() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "The root"}},
            "required": ["root"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "description": "A node",
                    "properties": {
                        "label": {"type": "string"},
                        "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "maxItems": 5},
                        "color": {"$ref": "#/$defs/Color"},
                    },
                    "required": ["label"],
                },
                "Color": {"type": "string", "enum": ["red", "blue"]},
            },
        }
    )
    root = args(tool)["root"]
    assert (root.type, root.description) == (Named("Node"), "The root")
    node = context.types["Node"]
    fields = {a.name: a for a in node.attributes}
    assert fields["kids"].type == ArrayOf(Named("Node"))
    assert fields["kids"].options == {"max_items": 5}
    assert (fields["color"].type, fields["color"].options) == (STRING, {"enum": ["red", "blue"]})


def test_unions_of_objects_become_named_variants_with_a_discriminator() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {
                "shape": {
                    "oneOf": [
                        {
                            "type": "object",
                            "title": "Circle",
                            "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                            "required": ["kind", "r"],
                        },
                        {
                            "type": "object",
                            "title": "Square",
                            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                            "required": ["kind", "side"],
                        },
                    ]
                },
                "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            },
        }
    )
    a = args(tool)
    assert a["shape"].type == OneOf((Named("Circle"), Named("Square")), "kind")
    assert a["id"].type == OneOf((STRING, INT))
    assert set(context.types) == {"Circle", "Square"}


def test_maps_inline_objects_and_what_the_dsl_cannot_say() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
                "free": {"type": "object"},
                "window": {
                    "type": "object",
                    "properties": {"start": {"type": "integer"}},
                    "required": ["start"],
                },
                "coded": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
                "anything": {},
            },
        }
    )
    a = args(tool)
    assert a["labels"].type == MapOf(INT)
    assert a["free"].type == MapOf(ANY)
    assert isinstance(a["window"].type, InlineObject)
    assert a["coded"].type == Primitive(
        "Any", {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}
    )
    assert isinstance(a["pair"].type, Primitive) and a["pair"].type.schema is not None
    assert a["anything"].type == ANY
    verbatim = [str(n) for n in context.notices if "verbatim" in str(n)]
    assert verbatim == [
        "tool 't' › coded: keyword(s) patternProperties has no design equivalent: kept verbatim as Any(schema=...)",
        "tool 't' › pair: keyword(s) prefixItems has no design equivalent: kept verbatim as Any(schema=...)",
    ]


def test_results_unwrap_the_mcp_result_convention() -> None:
    wrapped, _ = draft(
        {"type": "object"},
        {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]},
    )
    assert wrapped.result is not None and wrapped.result.type == INT
    listed, _ = draft(
        {"type": "object"},
        {
            "type": "object",
            "title": "Report",
            "properties": {"rows": {"type": "array", "items": {"type": "string"}}},
        },
    )
    assert listed.result is not None and listed.result.type == Named("Report")
    untyped, _ = draft({"type": "object"})
    assert untyped.result is not None and untyped.result.type == ANY


def test_names_titles_and_annotations() -> None:
    tool, _ = draft(
        {"type": "object"},
        name="files.delete",
        title="Delete a file",
        annotations={"destructiveHint": True, "readOnlyHint": False, "title": "x"},
    )
    assert (tool.name, tool.remote_name, tool.title) == (
        "files_delete",
        "files.delete",
        "Delete a file",
    )
    assert tool.annotations.given() == {"read_only": False, "destructive": True}


def test_a_title_given_only_in_the_annotations_is_the_tool_s_title() -> None:
    from mcp.types import Tool, ToolAnnotations

    listed = Tool(
        name="report",
        inputSchema={"type": "object"},
        annotations=ToolAnnotations(title="Cost report", readOnlyHint=True),
    )
    tool, context = tool_draft(listed)
    assert (tool.title, tool.annotations.given()) == ("Cost report", {"read_only": True})
    assert [str(n) for n in context.notices] == [
        "tool 'report' › description: the server gives no description; described as 'Report'"
    ]
    wire, context = draft({"type": "object"}, annotations={"title": "Cost report"})
    assert wire.title == "Cost report" and context.notices == []
    both, context = draft(
        {"type": "object"}, title="Report costs", annotations={"title": "Cost report"}
    )
    assert both.title == "Report costs"
    assert [str(n) for n in context.notices] == [
        (
            "tool 't' › title: its annotations' title 'Cost report' differs from its title "
            "'Report costs': the design keeps the title, which MCP clients show first"
        )
    ]


ODD_SERVER_TOOLS: list[dict[str, Any]] = [
    {
        "name": "search.docs",
        "description": 'Find "docs" — with a backslash \\ and {{braces}}',
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2},
                "filters": {"type": "object", "patternProperties": {"^f_": {"type": "string"}}},
                "node": {"$ref": "#/$defs/Node"},
            },
            "required": ["query"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}},
                    "required": ["name"],
                }
            },
        },
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"type": "string"}}},
            "required": ["result"],
        },
    },
    {"name": "ping", "inputSchema": {"type": "object"}},
]


def test_a_translated_server_generates_and_its_codecs_check_verbatim_parts(
    gen_design: Callable[[str], Generated],
) -> None:
    result = tools_design(
        ODD_SERVER_TOOLS,
        MCPServerDraft(url="https://example.invalid/mcp"),
        service="odd",
        toolset="odd",
        server_label="odd",
    )
    generated = gen_design(render(result.design))
    specs = generated.module("odd.toolsets.odd.specs")
    assert specs.MCP_SERVER.url == "https://example.invalid/mcp"
    search = specs.SPECS[0]
    assert (search.name, search.description) == (
        "search_docs",
        'Find "docs" — with a backslash \\ and {{braces}}',
    )
    assert search.payload.check_schema is True
    codecs = generated.module("odd.toolsets.odd.codecs")
    codecs.decode_search_docs_payload({"query": "ab", "filters": {"f_a": "x"}})
    with pytest.raises(ToolValidationError) as caught:
        codecs.decode_search_docs_payload({"query": "ab", "filters": {"f_a": 3}})
    [issue] = caught.value.issues
    assert (issue.field, issue.constraint) == ("filters.f_a", "invalid_field_type")
    assert specs.SPECS[1].description == "Ping"  # no description from the server


def test_objects_without_a_name_are_written_with_their_fields(
    gen_design: Callable[[str], Generated],
) -> None:
    row = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    tools = [
        {
            "name": "summary",
            "description": "An untitled result object",
            "inputSchema": {
                "type": "object",
                "properties": {"grid": {"type": "array", "items": {"type": "array", "items": row}}},
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "total": {"type": "integer"},
                    "rows": {"type": "array", "items": row},
                },
                "required": ["total"],
            },
        },
        {
            "name": "list_rows",
            "description": "An array of untitled objects",
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "properties": {"result": {"type": "array", "items": row}},
                "required": ["result"],
            },
        },
    ]
    result = tools_design(
        tools, MCPServerDraft(url="http://x/mcp"), service="s", toolset="s", server_label="x"
    )
    summary, list_rows = result.design.toolsets[0].tools
    assert summary.result is not None and summary.result.type is None
    assert [a.name for a in summary.result.attributes] == ["total", "rows"]
    assert summary.args[0].type == ArrayOf(ArrayOf(Named("SummaryGridItemItem")))
    assert list_rows.result is not None and list_rows.result.type == ArrayOf(Named("ListRowsItem"))
    text = render(result.design)
    assert "ArrayOf(ArrayOf(Object" not in text and "Return(ArrayOf(Object" not in text
    assert 'with Attribute("rows", ArrayOf(Object)):' in text  # a block declares these
    codecs = gen_design(text).module("s.toolsets.s.codecs")
    assert codecs.SUMMARY_RESULT.coerce({"total": 1, "rows": [{"id": "a"}]}).total == 1
    with pytest.raises(ToolValidationError):
        codecs.SUMMARY_RESULT.coerce({"total": "many"})
    assert codecs.LIST_ROWS_RESULT.coerce([{"id": "a"}]).root[0].id == "a"


def test_draft_4_exclusive_bounds_become_numbers() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {
                "above": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                "below": {"type": "integer", "maximum": 9, "exclusiveMaximum": True},
                "inclusive": {"type": "integer", "maximum": 9, "exclusiveMaximum": False},
                "nested": {
                    "type": "array",
                    "items": {"type": "number", "minimum": 1, "exclusiveMinimum": True},
                },
            },
        }
    )
    a = args(tool)
    assert a["above"].options == {"exclusive_minimum": 0}
    assert a["below"].options == {"exclusive_maximum": 9}
    assert a["inclusive"].options == {"maximum": 9}
    assert a["nested"].options == {"exclusive_minimum": 1}
    assert context.notices == []  # an input schema: nothing else to say


def test_a_recursive_model_repeated_by_tools_is_one_type_and_a_different_one_is_named_apart() -> (
    None
):
    def node(label: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/Node"}},
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "label": {"type": label},
                        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                        "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                }
            },
        }

    tools = [
        {
            "name": "a",
            "description": "A",
            "inputSchema": node("string"),
            "outputSchema": node("string"),
        },
        {"name": "b", "description": "B", "inputSchema": node("string")},
        {"name": "c", "description": "C", "inputSchema": node("integer")},
    ]
    result = tools_design(
        tools, MCPServerDraft(url="http://x/mcp"), service="s", toolset="s", server_label="x"
    )
    assert [t.name for t in result.design.types] == ["Node", "Node_2"]
    node_2 = {a.name: a for a in result.design.types[1].attributes}
    assert node_2["kids"].type == ArrayOf(Named("Node_2"))
    a, b, c = result.design.toolsets[0].tools
    assert a.args[0].type == b.args[0].type == Named("Node") and c.args[0].type == Named("Node_2")
    assert [str(n) for n in result.notices] == [
        "tool 'c' › type 'Node': not the same as the 'Node' of another schema: written as 'Node_2'"
    ]


# ── results as clients receive them, declared types, examples ────────────────────────────


def test_a_wrapper_a_design_would_not_add_is_kept_as_the_server_sends_it(
    gen_design: Callable[[str], Generated],
) -> None:
    def wrapped(value: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"result": value}, "required": ["result"]}

    tools = [
        # The MCP SDK's typed Dict and Optional results: objects, or values that may be null.
        {"name": "prices", "outputSchema": wrapped({"type": "object", "additionalProperties": {}})},
        {
            "name": "offer",
            "outputSchema": wrapped(
                {
                    "anyOf": [
                        {"type": "object", "additionalProperties": {"type": "number"}},
                        {"type": "null"},
                    ],
                    "description": "The offer, if there is one",
                }
            ),
        },
        {"name": "count", "outputSchema": wrapped({"type": "integer"})},  # wrapped by designs too
    ]
    result = tools_design(
        [{**t, "description": "A tool", "inputSchema": {"type": "object"}} for t in tools],
        MCPServerDraft(url="http://x/mcp"),
        service="s",
        toolset="s",
        server_label="x",
    )
    prices, offer, count = result.design.toolsets[0].tools
    assert prices.result == DraftResult(
        None, None, (DraftAttribute("result", MapOf(ANY), None, True),)
    )
    assert offer.result == DraftResult(
        None, None, (DraftAttribute("result", MapOf(FLOAT), "The offer, if there is one", False),)
    )
    assert count.result == DraftResult(INT, None)
    codecs = gen_design(render(result.design)).module("s.toolsets.s.codecs")
    assert codecs.PRICES_RESULT.coerce({"result": {"a": 1}}).result == {"a": 1}
    assert codecs.OFFER_RESULT.coerce({"result": None}).result is None


def test_a_result_written_field_by_field_is_the_declared_type_it_is(
    gen_design: Callable[[str], Generated],
) -> None:
    ticket = {
        "type": "object",
        "description": "A helpdesk ticket",
        "properties": {
            "id": {"type": "string", "description": "Ticket id"},
            "contact": {"$ref": "#/$defs/Email"},
        },
        "required": ["id"],
    }
    email = {
        "type": "object",
        "properties": {"address": {"type": "string", "format": "email"}},
        "required": ["address"],
    }
    tools = [
        {  # as tooldesign serve-mcp lists a Return(Ticket): the model inlined, without its name
            "name": "get_ticket",
            "description": "Get a ticket",
            "inputSchema": {"type": "object"},
            "outputSchema": {**ticket, "$defs": {"Email": email}},
        },
        {
            "name": "create_ticket",
            "description": "Open a ticket",
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "properties": {"ticket": {"$ref": "#/$defs/Ticket"}},
                "required": ["ticket"],
                "$defs": {"Ticket": ticket, "Email": email},
            },
        },
        {  # described, and no declared type: a type of its own, named after the tool
            "name": "stats",
            "description": "Statistics",
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "description": "Counts by state",
                "properties": {"open": {"type": "integer"}},
            },
        },
        {  # neither: its fields
            "name": "ping",
            "description": "Ping",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        },
    ]
    result = tools_design(
        tools, MCPServerDraft(url="http://x/mcp"), service="s", toolset="s", server_label="x"
    )
    get_ticket, _, stats, ping = result.design.toolsets[0].tools
    assert get_ticket.result == DraftResult(Named("Ticket"), "A helpdesk ticket")
    assert stats.result == DraftResult(Named("StatsResult"), "Counts by state")
    assert ping.result is not None and [a.name for a in ping.result.attributes] == ["ok"]
    assert [t.name for t in result.design.types] == ["Email", "Ticket", "StatsResult"]
    text = render(result.design)
    # Only forms the DSL reference documents: no Return(None, "…") blocks.
    assert 'Return(Ticket, "A helpdesk ticket")' in text and "Return(None" not in text
    assert 'with Type("StatsResult", "Counts by state") as StatsResult:' in text
    gen_design(text)


def test_examples_a_server_publishes_become_examples() -> None:
    tool, context = draft(
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
            "examples": [{"city": "Paris", "days": 2}, {"days": "two"}, "Oslo"],
        }
    )
    assert tool.examples == ({"city": "Paris", "days": 2},)
    assert [str(n) for n in context.notices] == [
        """tool 't' › examples: {"days": "two"} does not fit the arguments; left out""",
        """tool 't' › examples: "Oslo" does not fit the arguments; left out""",
    ]
    result = tools_design(
        [{"name": "t", "description": "A tool", "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
            "examples": [{"city": "Paris", "days": 2}],
        }}],
        MCPServerDraft(url="http://x/mcp"),
        service="s",
        toolset="s",
        server_label="x",
    )  # fmt: skip
    assert 'Example({"city": "Paris", "days": 2})' in render(result.design)


def test_docstring_indentation_leaves_served_descriptions() -> None:
    tool, _ = draft(
        {"type": "object"},
        description="Get the weather.\n\n    ## Usage\n\n    - pass a city\n    ",
    )
    assert tool.description == "Get the weather.\n\n## Usage\n\n- pass a city"
