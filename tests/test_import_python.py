"""``tooldesign import python``: code-first tool modules become designs that generate.

The fixtures mirror real code-first styles: the MCP SDK's ``@mcp.tool()`` with docstring
examples and a ``Context`` parameter, LangChain's ``@tool`` with Google docstrings and an
injected argument, reST-docstring stubs, NumPy/Google docstrings with an Enum and a TypedDict,
and pydantic-ai's ``@agent.tool`` with ``RunContext``, a union and a recursive model. Each is
imported (never run), generated, exported for OpenAI, and compared with the schema the
code-first library builds from the same function.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pydantic
import pytest
from tooldesign.cli import main
from tooldesign.codegen.pipeline import generate
from tooldesign.importers.python import import_python
from tooldesign.importers.writer import render
from tooldesign.runtime.providers import export_tools, load_tools

from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "import_python"
CASES = {
    "mcp_weather": [],
    "langchain_style": [],
    "rest_stubs": ["--all"],
    "numpy_google": [],
    "pydantic_ai_style": [],
}


@pytest.fixture(scope="module")
def fixture_modules() -> Iterator[None]:
    """The fixtures importable (only tests import them: the importer never does)."""
    sys.path.insert(0, str(FIXTURES))
    yield
    sys.path.remove(str(FIXTURES))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every fixture imported, the designs generated together, and exported for OpenAI."""
    root = tmp_path_factory.mktemp("imported")
    for name, flags in CASES.items():
        text = render(import_python(FIXTURES / f"{name}.py", all_functions="--all" in flags).design)
        (root / "design" / f"{name}.py").parent.mkdir(exist_ok=True)
        (root / "design" / f"{name}.py").write_text(text)
    generate([str(root / "design")], root / "gen")
    tools = load_tools([root / "gen"])
    return {t["function"]["name"]: t["function"] for t in export_tools(tools, "openai")}


@pytest.mark.parametrize("name", CASES)
def test_the_written_design_is_the_expected_one(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "python", str(FIXTURES / f"{name}.py"), *CASES[name]]) == 0
    written = capsys.readouterr().out
    assert written == (FIXTURES / "expected" / f"{name}.py").read_text()


def test_the_openai_export_of_imported_tools(exported: dict[str, dict[str, Any]]) -> None:
    assert sorted(exported) == [
        "aggregate", "cancel-order", "close_ticket", "convert", "create_ticket", "export_report",
        "get_forecast", "measure", "search_orders", "tag_order", "walk", "weather-alerts",
    ]  # fmt: skip
    assert exported["get_forecast"] == {
        "name": "get_forecast",
        "description": "Get the forecast for a city.",
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

    Titles and descriptions go (tooldesign adds descriptions from docstrings); closed objects'
    ``additionalProperties: false`` goes (design-first objects are always closed); an optional
    ``X | None = None`` becomes ``X`` (a design's optional field is left out, not null); enum
    classes are inlined (the design lists their values where they are used); a one-value
    ``Literal`` is a one-value enum.
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
    drop = {"title", "description", "$defs"}
    out = {
        key: normalized(value, defs)
        for key, value in schema.items()
        if key not in drop and not (key == "additionalProperties" and value is False)
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


# ── notices and failures ─────────────────────────────────────────────────────────────────


def write(tmp_path: Path, source: str, name: str = "tools.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).strip("\n") + "\n")
    return path


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
