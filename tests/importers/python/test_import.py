"""``tooldesign import python``: code-first tool modules become designs that generate.

The fixtures mirror real code-first styles: the MCP SDK's ``@mcp.tool()`` with docstring
examples and a ``Context`` parameter, and with fields, aliases and descriptions shared through
module constants; LangChain's ``@tool`` with Google docstrings and an injected argument,
reST-docstring stubs, NumPy/Google docstrings with an Enum and a TypedDict, pydantic-ai's
``@agent.tool`` with ``RunContext`` (a union, a recursive model) and ``@agent.tool_plain``,
and the OpenAI Agents SDK's ``@function_tool`` with a ``RunContextWrapper``, dataclasses and a
nested model; titles in MCP tool annotations with defaults and patterns kept in other modules,
LangChain ``BaseTool`` and smolagents ``Tool`` subclasses, and llama-index's
``FunctionTool.from_defaults``. Each is imported (never run), generated, exported, and
compared with the schema the code-first library builds from the same function.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pydantic
import pytest
from tooldesign.cli import main
from tooldesign.commands import import_python as import_python_command
from tooldesign.contract.errors import UserError
from tooldesign.generate import generate
from tooldesign.importers.draft import (
    ANY,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAttribute,
    DraftResult,
    MapOf,
    Named,
    OneOf,
)
from tooldesign.importers.python import import_python
from tooldesign.importers.writer import render
from tooldesign.runtime.providers import export_tools, load_tools

from tests.support.python_import import CASES, FIXTURES, write


@pytest.fixture(scope="module")
def fixture_modules() -> Iterator[None]:
    """The fixtures importable (only tests import them: the importer never does)."""
    sys.path.insert(0, str(FIXTURES))
    yield
    sys.path.remove(str(FIXTURES))


@pytest.fixture(scope="module")
def generated_tools(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """Every fixture imported, the designs generated together, their tools loaded."""
    root = tmp_path_factory.mktemp("imported")
    for name, flags in CASES.items():
        text = render(import_python(FIXTURES / f"{name}.py", all_functions="--all" in flags).design)
        (root / "design" / f"{name}.py").parent.mkdir(exist_ok=True)
        (root / "design" / f"{name}.py").write_text(text)
    generate([str(root / "design")], root / "gen")
    return load_tools([root / "gen"])


@pytest.fixture(scope="module")
def exported(generated_tools: list[Any]) -> dict[str, dict[str, Any]]:
    """The imported tools exported for OpenAI, by name."""
    return {t["function"]["name"]: t["function"] for t in export_tools(generated_tools, "openai")}


@pytest.fixture(scope="module")
def served(generated_tools: list[Any]) -> dict[str, dict[str, Any]]:
    """The imported tools as an MCP server lists them (``tooldesign serve-mcp``), by name."""
    return {t["name"]: t for t in export_tools(generated_tools, "mcp")}


@pytest.mark.parametrize("name", CASES)
def test_the_written_design_is_the_expected_one(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "python", str(FIXTURES / f"{name}.py"), *CASES[name]]) == 0
    written = capsys.readouterr().out
    assert written == (FIXTURES / "expected" / f"{name}.py").read_text()


def test_the_openai_export_of_imported_tools(exported: dict[str, dict[str, Any]]) -> None:
    assert sorted(exported) == [
        "accept_quote", "add_numbers", "aggregate", "cancel-order", "close_ticket", "convert",
        "cost_report", "create_ticket", "export_report", "find_offer", "forecast_spend",
        "get_forecast", "get_prices", "image_caption", "list_services", "measure", "multiply",
        "paper_download", "paper_search", "price_table", "quote_shipment", "search_orders",
        "tag_order", "tag_resource", "take_snapshot", "track", "update_step", "visit_webpage",
        "walk", "weather", "weather-alerts", "web_search", "wiki_query",
    ]  # fmt: skip
    assert exported["get_forecast"] == {
        "name": "get_forecast",
        "description": "Get the forecast for a city.\n\nReturns one forecast per day, starting today.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "description": "City to look up",
                    "minLength": 1,
                    "maxLength": 80,
                },
                "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
                "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    }
    assert exported["search_orders"]["parameters"]["properties"] == {
        "customer_id": {"type": "string", "description": "The customer whose orders to search."},
        "status": {
            "type": "string",
            "description": "Only orders in this status (pending, shipped or delivered).",
        },
        "limit": {
            "type": "integer",
            "description": "How many orders to return at most.",
            "default": 10,
        },
    }  # user_token is the application's: injected by LangChain, never the model's
    assert exported["create_ticket"]["parameters"]["properties"]["labels"] == {
        "type": "array",
        "description": "Labels to attach.",
        "items": {"type": "string"},
    }
    aggregate = exported["aggregate"]["parameters"]
    assert aggregate["properties"]["granularity"] == {
        "type": "string",
        "description": "Bucket size.",
        "enum": ["hour", "day"],
    }
    assert aggregate["$defs"]["Window"]["properties"]["start"] == {
        "type": "string",
        "format": "date-time",
    }
    assert "required" not in aggregate["$defs"]["Window"]  # total=False
    walk = exported["walk"]["parameters"]
    assert walk["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert exported["measure"]["parameters"]["properties"]["shape"]["anyOf"] == [
        {"$ref": "#/$defs/Circle"},
        {"$ref": "#/$defs/Square"},
    ]


# ── the same schemas the code-first libraries build ──────────────────────────────────────


def normalized(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """A schema without what design-first adds or code-first spells differently on purpose.

    Titles and descriptions go (tooldesign adds descriptions from docstrings), and the dialect an
    MCP export states (``$schema``); closed objects'
    ``additionalProperties: false`` goes (design-first objects are always closed); an optional
    ``X | None = None`` becomes ``X`` (a design's optional field is left out, not null); enum
    classes are inlined (the design lists their values where they are used); a one-value
    ``Literal`` is a one-value enum; a path is a string (pydantic's ``path`` format is not one
    designs check); an open object's ``additionalProperties: true`` is ``{}``.
    """
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
    if isinstance(schema, list):
        return [normalized(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if ref is not None:
        target = (defs or {}).get(ref.rsplit("/", 1)[-1], {})
        if "enum" in target:
            return normalized({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, defs)
        return {"ref": ref.rsplit("/", 1)[-1]}
    variants = schema.get("anyOf")
    if variants is not None and {"type": "null"} in variants:
        rest = [v for v in variants if v != {"type": "null"}]
        merged = {
            k: v for k, v in schema.items() if k != "anyOf" and not (k == "default" and v is None)
        }
        schema = {**merged, **rest[0]} if len(rest) == 1 else {**merged, "anyOf": rest}
    if "const" in schema:  # a one-value Literal: pydantic says const, the design a one-value enum
        schema = {**{k: v for k, v in schema.items() if k != "const"}, "enum": [schema["const"]]}
    drop = {"title", "description", "$defs", "$schema"}
    out = {
        key: normalized(value, defs)
        for key, value in schema.items()
        if key not in drop
        and not (key == "additionalProperties" and value in (False, True, {}))
        and not (key == "format" and value == "path")
    }
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: normalized(v, defs) for k, v in schema["properties"].items()}
    return out


def normalized_defs(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.get("$defs", {})
    return {name: normalized(body, defs) for name, body in defs.items() if "enum" not in body}


def reference_schema(function: Callable[..., Any], leave_out: set[str]) -> dict[str, Any]:
    """The arguments schema pydantic builds for ``function`` (as LangChain and pydantic-ai
    do), without the parameters the framework fills in."""
    signature = inspect.signature(function, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name not in leave_out]

    def stub(**_: Any) -> None: ...

    stub.__signature__ = signature.replace(parameters=kept)  # type: ignore[attr-defined]
    stub.__annotations__ = {p.name: p.annotation for p in kept}
    schema: dict[str, Any] = pydantic.TypeAdapter(cast(Any, stub)).json_schema()
    return schema


@pytest.mark.parametrize(
    ("module", "function", "tool", "context"),
    [
        ("langchain_style", "search_orders", "search_orders", {"user_token"}),
        ("langchain_style", "tag_order", "tag_order", set()),
        ("numpy_google", "aggregate", "aggregate", set()),
        ("numpy_google", "export_report", "export_report", set()),
        ("pydantic_ai_style", "measure", "measure", {"ctx"}),
        ("pydantic_ai_style", "walk", "walk", {"ctx"}),
        ("pydantic_ai_style", "update_step", "update_step", set()),
        ("openai_agents_style", "quote_shipment", "quote_shipment", {"context"}),
        ("openai_agents_style", "track_parcel", "track", {"ctx"}),
        ("openai_agents_style", "accept_quote", "accept_quote", set()),
    ],
)
def test_schemas_match_what_pydantic_builds_from_the_signature(
    exported: dict[str, dict[str, Any]],
    fixture_modules: None,
    module: str,
    function: str,
    tool: str,
    context: set[str],
) -> None:
    reference = reference_schema(getattr(importlib.import_module(module), function), context)
    ours = exported[tool]["parameters"]
    assert normalized(ours) == normalized(reference)
    assert normalized_defs(ours) == normalized_defs(reference)


def test_schemas_match_what_the_mcp_sdk_serves(
    exported: dict[str, dict[str, Any]], fixture_modules: None
) -> None:
    server = importlib.import_module("mcp_weather").mcp
    listed = {t.name: t.input_schema for t in asyncio.run(server.list_tools())}
    assert sorted(listed) == ["convert", "get_forecast", "weather-alerts"]
    for name, reference in listed.items():
        ours = exported[name]["parameters"]
        assert normalized(ours) == normalized(reference), name
        assert normalized_defs(ours) == normalized_defs(reference), name
    # What the code states about a field is kept word for word.
    city = exported["weather-alerts"]["parameters"]["$defs"]["Location"]["properties"]["city"]
    assert city["description"] == "City name"


def test_fields_aliases_and_descriptions_shared_through_constants_are_read_through(
    served: dict[str, dict[str, Any]], fixture_modules: None
) -> None:
    server = importlib.import_module("mcp_constants").mcp
    listed = {t.name: t for t in asyncio.run(server.list_tools())}
    assert sorted(listed) == ["find_offer", "get_prices", "price_table", "take_snapshot"]
    for name, reference in listed.items():
        ours = served[name]
        assert normalized(ours["inputSchema"]) == normalized(reference.input_schema), name
        # Descriptions: the server's words (the fields' too, from the constants).
        assert ours["inputSchema"]["properties"]["service_code"]["description"] == (
            "Service code, such as 'AmazonS3'"
        )
    assert served["get_prices"]["description"] == listed["get_prices"].description
    assert served["get_prices"]["inputSchema"]["properties"]["max_results"] == {
        "type": "integer",
        "description": "How many prices at most",
        "minimum": 1,
        "maximum": 100,
        "default": 100,
    }  # MAX_RESULTS_FIELD = Field(MAX_RESULTS, ge=1, le=MAX_RESULTS, …), MAX_RESULTS = 100


def test_the_whole_docstring_narrative_is_the_description(
    served: dict[str, dict[str, Any]], fixture_modules: None
) -> None:
    server = importlib.import_module("mcp_constants").mcp
    sent = next(t for t in asyncio.run(server.list_tools()) if t.name == "find_offer").description
    ours = served["find_offer"]["description"]
    # The SDK sends the whole docstring; the design keeps all of it but the sections that
    # became the parameters' and the result's descriptions.
    assert sent is not None and inspect.cleandoc(sent) == f"{ours}\n\n" + textwrap.dedent(
        """\
        Args:
            service_code: The service.
            term: How the service is paid for.

        Returns:
            The offer's prices, or None when there is none."""
    )
    assert "## Usage" in ours and "\n1. pick the term\n2. compare" in ours


def test_results_are_what_the_mcp_sdk_sends(
    served: dict[str, dict[str, Any]], fixture_modules: None
) -> None:
    server = importlib.import_module("mcp_constants").mcp
    listed = {t.name: t.output_schema for t in asyncio.run(server.list_tools())}
    # -> Dict[str, Any], a dataclass, dict[str, float]
    for name in ("get_prices", "take_snapshot", "price_table"):
        assert normalized(served[name]["outputSchema"]) == normalized(listed[name]), name
    # -> Optional[Dict[str, float]]: {"result": …} whose value may be null, which a design says
    # as an optional field.
    reference = normalized(listed["find_offer"])
    assert reference.pop("required") == ["result"]
    assert normalized(served["find_offer"]["outputSchema"]) == reference


# ── notices and failures ─────────────────────────────────────────────────────────────────


def test_what_cannot_be_carried_over_is_reported_per_function_and_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        """
        import numpy as np
        from somewhere import Session, tool

        @tool
        def lookup(query: str, matrix: np.ndarray, session: Session, *extra, limit=len("abc")):
            return query
        """,
    )
    assert main(["import", "python", str(path)]) == 0
    out, err = capsys.readouterr()
    assert (
        "tool 'lookup' (tools.py:5) › parameter 'matrix': type np.ndarray has no design equivalent: typed Any"
        in err
    )
    assert "parameter 'session': type Session has no design equivalent" in err
    assert "*extra" in err and "left out" in err
    assert "parameter 'limit': its default len('abc') is not a literal" in err
    assert "no docstring or description; described as 'Lookup'" in err
    assert 'Attribute("matrix", Any)' in out


def test_a_file_that_does_not_parse_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "@tool\ndef broken(:\n    pass\n")
    assert main(["import", "python", str(path), "--out", str(tmp_path / "d.py")]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2: not valid Python" in err and "Traceback" not in err
    assert not (tmp_path / "d.py").exists()


def test_a_file_without_tools_says_so_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "def helper(x: int) -> int:\n    return x\n")
    assert main(["import", "python", str(path), "--out", str(tmp_path / "d.py")]) == 2
    assert (
        "no tool functions found (decorate them with @tool, or pass --all)"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "d.py").exists()
    assert main(["import", "python", str(path), "--all", "--out", str(tmp_path / "d.py")]) == 0
    assert (tmp_path / "d.py").exists()


def test_an_existing_design_is_replaced_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '@tool\ndef ping() -> str:\n    """Ping."""\n')
    target = tmp_path / "design.py"
    target.write_text("# mine\n")
    assert main(["import", "python", str(path), "--out", str(target)]) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert target.read_text() == "# mine\n"
    assert main(["import", "python", str(path), "--out", str(target), "--force"]) == 0
    assert 'with Tool("ping", "Ping.")' in target.read_text()


def test_hostile_docstrings_and_names_round_trip(
    tmp_path: Path, gen_design: Callable[[str], Any]
) -> None:
    path = write(
        tmp_path,
        '''
        @tool(name="weird name.v2")
        def odd(text: str = "a \\\\ \\"b\\" {{c}}") -> str:
            """Handle \\"\\"\\" quotes, back\\\\slashes, {{braces}} and ünïcödé — all of it.

            :param text: Line one
                continues here.
            """
        ''',
    )
    result = import_python(path)
    assert [str(n) for n in result.notices] == [
        "tool 'weird_name_v2' (tools.py:2): the name 'weird name.v2' is not a valid tool name; written as 'weird_name_v2'"
    ]
    generated = gen_design(render(result.design))
    spec = generated.module("tools.toolsets.tools.specs").SPECS[0]
    assert spec.name == "weird_name_v2"
    assert (
        spec.description == 'Handle """ quotes, back\\slashes, {{braces}} and ünïcödé — all of it.'
    )
    text = spec.payload.schema["properties"]["text"]
    assert text == {
        "type": "string",
        "description": "Line one continues here.",
        "default": 'a \\ "b" {{c}}',
    }


def test_an_example_that_does_not_fit_is_left_out(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        @tool
        def scale(factor: int, label: str = "x") -> int:
            """Scale something.

            Example: scale(factor="big")
            Example: {"factor": 2}
            Example: first call scale, then look at the chart
            """
        ''',
    )
    result = import_python(path)
    [tool] = result.design.toolsets[0].tools
    assert tool.examples == ({"factor": 2},)
    assert tool.description == (
        "Scale something.\n\nExample: first call scale, then look at the chart"
    )
    assert any('example {"factor": "big"} does not fit' in str(n) for n in result.notices)


def test_descriptions_from_decorators_and_titles_tags_annotations(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from mcp.types import ToolAnnotations

        @server.tool(
            description="Delete a file.",
            title="Delete",
            tags={"files", "danger"},
            annotations=ToolAnnotations(destructiveHint=True, idempotentHint=True),
        )
        async def rm(path: str) -> None:
            """Ignored: the decorator's description wins."""
        ''',
    )
    text = render(import_python(path).design)
    assert 'with Tool("rm", "Delete a file.", title="Delete"):' in text
    assert 'Tags("danger", "files")' in text
    assert "Annotations(destructive=True, idempotent=True)" in text


# ── several files, methods, nested tools ─────────────────────────────────────────────────

BILLING = '''
    """Billing tools."""
    from pydantic import BaseModel

    class Address(BaseModel):
        street: str

    class Customer(BaseModel):
        name: str
        address: Address

    class Node(BaseModel):
        label: str
        kids: list["Node"] = []

    @tool
    def search(customer: Customer, tree: Node) -> str:
        """Search invoices."""
    '''
SHIPPING = '''
    """Shipping tools."""
    from pydantic import BaseModel

    class Address(BaseModel):
        street: str

    class Customer(BaseModel):
        name: str
        address: Address
        vip: bool = False

    class Node(BaseModel):
        label: str
        kids: list["Node"] = []

    class Order(BaseModel):
        customer: Customer

    @tool
    def search(order: Order, tree: Node) -> str:
        """Search shipments."""
    '''


def test_several_files_make_one_service_with_a_toolset_each(
    tmp_path: Path, gen_design: Callable[[str], Any], capsys: pytest.CaptureFixture[str]
) -> None:
    files = [write(tmp_path, BILLING, "billing.py"), write(tmp_path, SHIPPING, "shipping.py")]
    out = tmp_path / "design" / "shop.py"
    args = argparse.Namespace(
        file=[str(f) for f in files],
        service="shop",
        toolset=None,
        all=False,
        out=str(out),
        force=False,
    )
    assert import_python_command.run(args) == 0
    warnings = capsys.readouterr().err
    text = out.read_text()
    # The same types are shared (a recursive one too); a different one is named after its file.
    assert [line for line in text.splitlines() if line.startswith("with Type(")] == [
        'with Type("Address") as Address:',
        'with Type("Customer") as Customer:',
        'with Type("Node") as Node:',
        'with Type("ShippingCustomer") as ShippingCustomer:',
        'with Type("Order") as Order:',
    ]
    assert 'Attribute("customer", ShippingCustomer)' in text
    assert (
        "type 'Customer' (shipping.py): not the same as the 'Customer' of billing.py: "
        "written as 'ShippingCustomer'" in warnings
    )
    assert "renamed to 'search_2': another tool has the name 'search'" in warnings
    generated = gen_design(text)  # one design: its toolsets generate together
    billing = generated.module("shop.toolsets.billing.specs").SPECS
    shipping = generated.module("shop.toolsets.shipping.specs").SPECS
    assert [s.name for s in billing] == ["search"] and [s.name for s in shipping] == ["search_2"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"service": None}, "several files make one service: name it with --service"),
        ({"toolset": "t"}, "--toolset names the toolset of one file"),
    ],
)
def test_several_files_need_a_service_and_no_toolset(
    tmp_path: Path, extra: dict[str, Any], message: str
) -> None:
    files = [write(tmp_path, BILLING, "billing.py"), write(tmp_path, SHIPPING, "shipping.py")]
    options: dict[str, Any] = {"service": "shop", "toolset": None, **extra}
    with pytest.raises(UserError, match=re.escape(message)):
        import_python(files, **options)


def test_methods_and_tools_defined_inside_functions_are_found(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        class Toolbox:
            @tool
            def lookup(self, query: str) -> str:
                """Look something up."""

            @classmethod
            @tool
            def count(cls, kind: str) -> int:
                """Count things."""

            @staticmethod
            @tool
            def echo(text: str) -> str:
                """Echo."""

        def register(mcp):
            @mcp.tool()
            def nested(q: str) -> str:
                """A tool registered by a function."""

            if mcp.debug:
                @mcp.tool()
                def debug_only(flag: bool) -> bool:
                    """Only in debug."""
        ''',
    )
    [toolset] = import_python(path).design.toolsets
    found = {t.name: ([a.name for a in t.args], t.source) for t in toolset.tools}
    assert found == {
        "lookup": (["query"], "tools.py:3 Toolbox.lookup"),
        "count": (["kind"], "tools.py:8 Toolbox.count"),
        "echo": (["text"], "tools.py:13 Toolbox.echo"),
        "nested": (["q"], "tools.py:18 register.nested"),
        "debug_only": (["flag"], "tools.py:23 register.debug_only"),
    }


def test_enum_members_as_defaults_are_their_values(
    tmp_path: Path, gen_design: Callable[[str], Any]
) -> None:
    path = write(
        tmp_path,
        '''
        from enum import Enum, IntEnum
        from pydantic import BaseModel, Field

        class Priority(str, Enum):
            LOW = "low"
            HIGH = "high"

        class Level(IntEnum):
            ONE = 1
            TWO = 2

        class Ticket(BaseModel):
            level: Level = Level.TWO
            watch: list[Priority] = [Priority.HIGH]

        @tool
        def open_ticket(
            ticket: Ticket, priority: Priority = Priority.LOW, second: Priority = Field(Priority.HIGH)
        ) -> None:
            """Open a ticket."""
        ''',
    )
    result = import_python(path)
    assert result.notices == []
    spec = gen_design(render(result.design)).module("tools.toolsets.tools.specs").SPECS[0]
    schema = spec.payload.schema
    assert schema["properties"]["priority"]["default"] == "low"  # as pydantic says it
    assert schema["properties"]["second"]["default"] == "high"
    ticket = schema["$defs"]["Ticket"]["properties"]
    assert (ticket["level"]["default"], ticket["watch"]["default"]) == (2, ["high"])


def test_a_local_model_named_like_a_framework_context_is_the_model_s(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from pydantic import BaseModel

        class Request(BaseModel):
            url: str

        class Context(BaseModel):
            text: str

        class RunContext:  # a marker class, not a type of data: still a framework's
            pass

        @tool
        def fetch(req: Request, ctx: Context, run: RunContext, context: "Context | None" = None) -> str:
            """Fetch a URL."""
        ''',
    )
    result = import_python(path)
    [tool] = result.design.toolsets[0].tools
    assert [(a.name, a.type) for a in tool.args] == [
        ("req", Named("Request")),
        ("ctx", Named("Context")),
        ("context", Named("Context")),
    ]
    assert [str(n) for n in result.notices] == [
        "tool 'fetch' (tools.py:13) › parameter 'run': a framework context parameter, not the model's: left out"
    ]


# ── docstring types, args_schema ─────────────────────────────────────────────────────────


def test_types_written_in_docstrings_in_each_style(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        def greet(name, times=1, style=None):
            """Greet someone.

            :param name: Who.
            :type name: str
            :param times: How often.
            :type times: int, optional
            :param style: How.
            :type style: str or None
            :rtype: list of str
            """

        def count(names=None, limit=10):
            """Count names.

            Args:
                names (list[str], optional): The names.
                limit (int, default 10): At most.
            """

        def area(w, h, unit="cm", scale=1.0):
            """Compute an area.

            Parameters
            ----------
            w, h : float
                Width and height.
            unit : {'cm', 'm'}, default 'cm'
                Unit.
            scale : float, optional
                Factor.

            Returns
            -------
            area : float
                The area.
            """

        def odd(x):
            """Odd.

            :type x: a mapping of widgets
            """
        ''',
    )
    result = import_python(path, all_functions=True)
    tools = {t.name: t for t in result.design.toolsets[0].tools}

    def typed(tool: str) -> dict[str, tuple[Any, dict[str, Any]]]:
        return {a.name: (a.type, a.options) for a in tools[tool].args}

    assert typed("greet") == {
        "name": (STRING, {}),
        "times": (INT, {"default": 1}),
        "style": (STRING, {}),
    }
    assert tools["greet"].result == DraftResult(ArrayOf(STRING), None)
    assert typed("count") == {"names": (ArrayOf(STRING), {}), "limit": (INT, {"default": 10})}
    assert typed("area") == {
        "w": (FLOAT, {}),
        "h": (FLOAT, {}),
        "unit": (STRING, {"enum": ["cm", "m"], "default": "cm"}),
        "scale": (FLOAT, {"default": 1.0}),
    }
    assert [a.description for a in tools["area"].args][:2] == ["Width and height."] * 2
    assert tools["area"].result == DraftResult(FLOAT, "The area.")
    assert (
        "tool 'odd' (tools.py:39) › parameter 'x': its docstring type 'a mapping of widgets' "
        "cannot be read: typed Any" in [str(n) for n in result.notices]
    )


def test_a_langchain_args_schema_gives_the_arguments(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from pydantic import BaseModel, Field

        class SearchInput(BaseModel):
            query: str = Field(description="What to search for", min_length=1)
            k: int = Field(5, ge=1, le=20, description="How many results")

        @tool("web-search", args_schema=SearchInput)
        def web_search(query: str, k: int = 5) -> list[str]:
            """Search the web."""

        @tool(args_schema=SomewhereElse)
        def other(q: str) -> str:
            """Other."""
        ''',
    )
    result = import_python(path)
    search, other = result.design.toolsets[0].tools
    assert [(a.name, a.description, a.required, a.options) for a in search.args] == [
        ("query", "What to search for", True, {"min_length": 1}),
        ("k", "How many results", False, {"minimum": 1, "maximum": 20, "default": 5}),
    ]
    assert result.design.types == ()  # the model's fields are the arguments; no extra type
    assert [a.name for a in other.args] == ["q"]
    assert any(
        "args_schema=SomewhereElse is not a pydantic model or TypedDict of this file" in str(n)
        for n in result.notices
    )


# ── values and files the importer cannot take as they are ────────────────────────────────


def test_defaults_that_are_not_json_are_left_out_with_a_warning(
    tmp_path: Path, gen_design: Callable[[str], Any]
) -> None:
    path = write(
        tmp_path,
        '''
        from typing import Any
        from pydantic import Field

        @tool
        def f(
            blob: bytes = b"",
            x: Any = 1j,
            items: list = [b"a"],
            big: float = 1e999,
            tagged: Any = Field(default=None, examples=[b"raw"]),
        ) -> None:
            """F."""
        ''',
    )
    result = import_python(path)
    messages = [n.message for n in result.notices]
    for shown in ("default b''", "default 1j", "default [b'a']", "default inf", "example b'raw'"):
        assert f"its {shown} is not JSON data; left out" in messages
    gen_design(render(result.design))  # and the design generates


def test_files_the_importer_cannot_read_name_the_line(tmp_path: Path) -> None:
    binary = tmp_path / "nul.py"
    binary.write_bytes(b"@tool\ndef f() -> None:\n    '''F.\x00'''\n")
    with pytest.raises(UserError, match=r"nul\.py:3: not valid Python: a NUL byte"):
        import_python(binary)
    undeclared = tmp_path / "latin.py"
    undeclared.write_bytes(b"@tool\ndef f() -> None:\n    '''Caf\xe9.'''\n")
    with pytest.raises(UserError, match=r"latin\.py:3: not valid utf-8 text \(byte 0xe9\)"):
        import_python(undeclared)
    declared = tmp_path / "declared.py"
    declared.write_bytes(b"# -*- coding: latin-1 -*-\n" + undeclared.read_bytes())
    [tool] = import_python(declared).design.toolsets[0].tools
    assert tool.description == "Café."
    unknown = tmp_path / "unknown.py"
    unknown.write_bytes(b"#!/usr/bin/env python\n# coding: klingon\n")
    with pytest.raises(UserError, match=r"unknown\.py:2: unknown encoding: klingon"):
        import_python(unknown)


# ── descriptions, decorators, contexts, constants, classes ───────────────────────────────


def test_descriptions_keep_the_narrative_and_leave_out_what_became_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        @tool
        def fetch(url: str, limit: int = 10) -> str:
            """Fetch a page as Markdown.

            ## Usage

            Long pages come in chunks:

            - call again with a higher `start`
            - stop once the answer is found

            :param url: The page.
            :param limit: At most this many characters.
            :returns: The page's text.

            Note:
                Only public pages can be fetched.

            Example: fetch(url="https://example.com")
            Examples:
                {"url": "https://example.org", "limit": 5}
            """
        ''',
    )
    [tool] = import_python(path).design.toolsets[0].tools
    assert tool.description == (
        "Fetch a page as Markdown.\n\n## Usage\n\nLong pages come in chunks:\n\n"
        "- call again with a higher `start`\n- stop once the answer is found\n\n"
        "Note:\n    Only public pages can be fetched."
    )
    assert [a.description for a in tool.args] == ["The page.", "At most this many characters."]
    assert tool.examples == (
        {"url": "https://example.com"},
        {"url": "https://example.org", "limit": 5},
    )
    assert tool.result == DraftResult(STRING, "The page's text.")


def test_openai_agents_and_pydantic_ai_decorators_are_tools(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from agents import RunContextWrapper, function_tool
        from pydantic_ai import Agent, RunContext

        agent = Agent("test")
        GREETING = "Say hello to someone."

        @function_tool
        def plain(context: RunContextWrapper[dict], text: str) -> str:
            """Echo a text."""

        @function_tool(name_override="renamed", description_override="Overridden.")
        def original(ctx: RunContextWrapper, n: int) -> int:
            """Not this."""

        @agents.function_tool()
        def dotted(x: int) -> int:
            """Dotted."""

        @agent.tool_plain
        def roll(sides: int = 6) -> int:
            """Roll a die."""

        @agent.tool(description=GREETING)
        async def greet(ctx: RunContext[str], name: str) -> str:
            """Not this either."""

        @tool_input_guardrail
        def guard(data: dict) -> None:
            """A guardrail, not a tool."""
        ''',
    )
    result = import_python(path)
    tools = {t.name: t for t in result.design.toolsets[0].tools}
    assert {name: ([a.name for a in t.args], t.description) for name, t in tools.items()} == {
        "plain": (["text"], "Echo a text."),
        "renamed": (["n"], "Overridden."),
        "dotted": (["x"], "Dotted."),
        "roll": (["sides"], "Roll a die."),
        "greet": (["name"], "Say hello to someone."),
    }
    # Context parameters are reported as such, never as a type without an equivalent.
    assert [str(n) for n in result.notices] == [
        "tool 'plain' (tools.py:8) › parameter 'context': a framework context parameter, not the model's: left out",
        "tool 'renamed' (tools.py:12) › parameter 'ctx': a framework context parameter, not the model's: left out",
        "tool 'greet' (tools.py:24) › parameter 'ctx': a framework context parameter, not the model's: left out",
    ]


def test_module_constants_are_read_through_never_run(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from typing import Annotated, Literal, NewType
        from pydantic import Field
        from typing_extensions import TypeAlias

        LOW = 1
        HIGH: int = 50
        LIMIT_FIELD = Field(10, ge=LOW, le=HIGH, description="At most this many")
        LIMIT = LIMIT_FIELD
        QUERY = Field(..., description=PREFIX + "what to look for", min_length=1)
        PREFIX = "Words: "
        Status = Literal["open", "closed"]
        Statuses: TypeAlias = list[Status]
        City = Annotated[str, Field(description="A city name")]
        TicketId = NewType("TicketId", str)
        TOPIC = "news"
        TOPIC = "sports"  # bound twice: which one applies depends on the run

        @tool
        def search(
            query: str = QUERY,
            limit: int = LIMIT,
            status: Status = "open",
            among: Statuses = [],
            city: City = "Oslo",
            ticket: TicketId | None = None,
            topic: str = TOPIC,
        ) -> None:
            """Search."""
        ''',
    )
    result = import_python(path)
    [tool] = result.design.toolsets[0].tools
    args = {a.name: (a.type, a.description, a.required, a.options) for a in tool.args}
    assert args == {
        "query": (STRING, "Words: what to look for", True, {"min_length": 1}),
        "limit": (INT, "At most this many", False, {"minimum": 1, "maximum": 50, "default": 10}),
        "status": (STRING, None, False, {"enum": ["open", "closed"], "default": "open"}),
        "among": (ArrayOf(STRING), None, False, {"enum": ["open", "closed"], "default": []}),
        "city": (STRING, "A city name", False, {"default": "Oslo"}),
        "ticket": (STRING, None, False, {}),
        "topic": (STRING, None, False, {}),
    }
    assert [str(n) for n in result.notices] == [
        (
            "tool 'search' (tools.py:19) › parameter 'topic': its default TOPIC is not a "
            "literal: written as optional without a default"
        )
    ]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the type statement is Python 3.12")
def test_type_statements_are_aliases(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        type Status = Literal["open", "closed"]

        @tool
        def close(status: Status) -> None:
            """Close."""
        ''',
    )
    [tool] = import_python(path).design.toolsets[0].tools
    assert tool.args[0].options == {"enum": ["open", "closed"]}


def test_dataclasses_nested_classes_and_paths_are_typed(
    tmp_path: Path, gen_design: Callable[[str], Any]
) -> None:
    path = write(
        tmp_path,
        '''
        import dataclasses
        from dataclasses import KW_ONLY, InitVar, dataclass, field
        from pathlib import Path
        from typing import ClassVar
        from pydantic import BaseModel

        @dataclass(frozen=True)
        class Alert:
            """An alert."""

            severity: str
            areas: list[str] = field(default_factory=list)
            _: KW_ONLY
            note: str = field(default="")
            limit: ClassVar[int] = 3
            seed: InitVar[int] = 0

        @dataclasses.dataclass
        class Report:
            alerts: list[Alert]
            saved_to: Path = Path("out/report.txt")

        class Tank(BaseModel):
            class Item(BaseModel):
                name: str

            items: list[Item]

        class Shop(BaseModel):
            class Item(BaseModel):  # another Item: named after where it is
                price: float

            items: list["Shop.Item"]
            tank: Tank

        @tool
        def publish(report: Report, shop: Shop, folder: Path) -> Report:
            """Publish a report."""
        ''',
    )
    result = import_python(path)
    assert result.notices == []
    types = {t.name: t for t in result.design.types}
    assert sorted(types) == ["Alert", "Item", "Report", "Shop", "ShopItem", "Tank"]
    assert [(a.name, a.required, a.options) for a in types["Alert"].attributes] == [
        ("severity", True, {}),
        ("areas", False, {}),
        ("note", False, {"default": ""}),
    ]
    assert types["Report"].attributes[1] == DraftAttribute(
        "saved_to", STRING, "A file system path.", False, {"default": "out/report.txt"}
    )
    assert types["Tank"].attributes[0].type == ArrayOf(Named("Item"))
    assert types["Shop"].attributes[0].type == ArrayOf(Named("ShopItem"))
    [tool] = result.design.toolsets[0].tools
    assert tool.args[2] == DraftAttribute("folder", STRING, "A file system path.", True, {})
    spec = gen_design(render(result.design)).module("tools.toolsets.tools.specs").SPECS[0]
    assert spec.payload.schema["$defs"]["ShopItem"]["properties"] == {"price": {"type": "number"}}


def test_a_class_that_is_no_type_of_data_says_what_types_are(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        class Helper:
            pass

        @tool
        def use(helper: Helper) -> None:
            """Use."""
        ''',
    )
    [notice] = import_python(path).notices
    assert (
        notice.message
        == "class Helper is not a pydantic model, TypedDict, dataclass or Enum: typed Any"
    )


@pytest.mark.parametrize(
    ("library", "annotation", "result"),
    [
        # The MCP SDK wraps all but models, dataclasses, TypedDicts and dict[str, X]…
        ("mcp.server.fastmcp", "Dict[str, Any]", DraftResult(None, None, (
            DraftAttribute("result", MapOf(ANY), "What it found.", True),))),
        ("mcp.server.mcpserver", "Optional[Model]", DraftResult(None, None, (
            DraftAttribute("result", Named("Model"), "What it found.", False),))),
        ("mcp.server.fastmcp", "str | None", DraftResult(None, None, (
            DraftAttribute("result", STRING, "What it found.", False),))),
        ("mcp.server.fastmcp", "dict[str, int]", DraftResult(MapOf(INT), "What it found.")),
        ("mcp.server.fastmcp", "dict", DraftResult(MapOf(ANY), "What it found.")),
        ("mcp.server.fastmcp", "Model", DraftResult(Named("Model"), "What it found.")),
        # …which a design wraps too when they are not objects.
        ("mcp.server.fastmcp", "list[int]", DraftResult(ArrayOf(INT), "What it found.")),
        # FastMCP wraps what is not an object: of those a design leaves alone, an Optional.
        ("fastmcp", "Dict[str, Any]", DraftResult(MapOf(ANY), "What it found.")),
        ("fastmcp", "Optional[Model]", DraftResult(None, None, (
            DraftAttribute("result", Named("Model"), "What it found.", False),))),
        # Other libraries send no output schema: the result is the value.
        ("langchain_core.tools", "Dict[str, Any]", DraftResult(MapOf(ANY), "What it found.")),
    ],
)  # fmt: skip
def test_results_are_what_the_server_library_sends(
    tmp_path: Path, library: str, annotation: str, result: DraftResult
) -> None:
    path = write(
        tmp_path,
        f'''
        from typing import Any, Dict, Optional
        from {library} import something
        from pydantic import BaseModel

        class Model(BaseModel):
            x: int

        @server.tool()
        def find() -> {annotation}:
            """Find.

            Returns:
                What it found.
            """
        ''',
    )
    [tool] = import_python(path).design.toolsets[0].tools
    assert tool.result == result


def test_a_result_the_mcp_sdk_sends_as_text_only_is_not_wrapped(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        from typing import Any, Dict
        from mcp.server.fastmcp import FastMCP

        @mcp.tool(structured_output=False)
        def find() -> Dict[str, Any]:
            \"\"\"Find.\"\"\"
        """,
    )
    [tool] = import_python(path).design.toolsets[0].tools
    assert tool.result == DraftResult(MapOf(ANY))


def test_design_files_end_with_one_newline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '@tool\ndef ping() -> str:\n    """Ping."""\n')
    assert main(["import", "python", str(path)]) == 0
    written = capsys.readouterr().out
    assert written.endswith(")\n") and not written.endswith("\n\n")
    target = tmp_path / "design.py"
    assert main(["import", "python", str(path), "--out", str(target)]) == 0
    assert target.read_text() == written


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 reads the type statement")
def test_a_type_statement_on_python_3_11_says_what_to_do(tmp_path: Path) -> None:
    path = write(
        tmp_path, 'type Status = Literal["open"]\n\n@tool\ndef f(s: Status) -> None: ...\n'
    )
    with pytest.raises(UserError, match=r"tools\.py:1: a `type` statement needs Python 3\.12"):
        import_python(path)


def test_names_bound_to_themselves_and_recursive_aliases_end(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from typing import Union
        from somewhere import LOOP

        LOOP = LOOP + "x"
        HALF = "ab"
        WHOLE = HALF + HALF
        A = B
        B = A
        Json = Union[dict[str, "Json"], list["Json"], str]

        @tool
        def f(loop: str = LOOP, whole: str = WHOLE, a: str = A, data: Json = "") -> None:
            """F."""
        ''',
    )
    result = import_python(path)
    [tool] = result.design.toolsets[0].tools
    assert [(a.name, a.type, a.options) for a in tool.args] == [
        ("loop", STRING, {}),
        ("whole", STRING, {"default": "abab"}),
        ("a", STRING, {}),
        ("data", OneOf((MapOf(ANY), ArrayOf(ANY), STRING)), {"default": ""}),
    ]
    messages = [n.message for n in result.notices]
    assert "its default LOOP is not a literal: written as optional without a default" in messages
    assert "its default A is not a literal: written as optional without a default" in messages
    assert "type Json is a recursive alias: typed Any" in messages
