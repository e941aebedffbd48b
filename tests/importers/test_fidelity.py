"""An import never changes a tool's contract in silence.

What a model sees — which parameters are required, their types, constraints and defaults, the
tool's title — is either what the source says or the subject of a warning that names the tool
and the parameter. The forms real tool modules use are checked one by one (titles in MCP tool
annotations, defaults and patterns that live in other modules or the environment, class-based
LangChain and smolagents tools, llama-index's ``FunctionTool.from_defaults``), and one test
walks every fixture and checks the rule on everything it can read from the source itself.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from tooldesign.codegen import formatting
from tooldesign.generate import generate
from tooldesign.importers.draft import (
    ANY,
    BOOLEAN,
    INT,
    STRING,
    DraftTool,
    ImportResult,
    MapOf,
)
from tooldesign.importers.python import import_python
from tooldesign.importers.writer import render

from tests.support.python_import import CASES, FIXTURES, write


def tools_of(result: ImportResult) -> dict[str, DraftTool]:
    return {t.name: t for toolset in result.design.toolsets for t in toolset.tools}


def messages(result: ImportResult) -> list[str]:
    return [str(n) for n in result.notices]


# ── titles ───────────────────────────────────────────────────────────────────────────────


def test_a_title_in_tool_annotations_is_the_tool_s_title(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        from mcp.server.fastmcp import FastMCP
        from mcp.types import ToolAnnotations

        mcp = FastMCP("files")
        READ_ONLY = ToolAnnotations(title="Read a file", readOnlyHint=True)

        @mcp.tool(annotations=ToolAnnotations(title="Delete a file", destructiveHint=True))
        def rm(path: str) -> None:
            '''Delete a file.'''

        @mcp.tool(annotations={"title": "List a folder", "readOnlyHint": True})
        def ls(path: str) -> list[str]:
            '''List a folder.'''

        @mcp.tool(annotations=READ_ONLY)
        def cat(path: str) -> str:
            '''Read a file.'''

        @mcp.tool(title="Move", annotations=ToolAnnotations(title="Rename"))
        def mv(source: str, target: str) -> None:
            '''Move a file.'''
        """,
    )
    result = import_python(path)
    tools = tools_of(result)
    assert {name: t.title for name, t in tools.items()} == {
        "rm": "Delete a file",
        "ls": "List a folder",
        "cat": "Read a file",
        "mv": "Move",
    }
    assert tools["ls"].annotations.given() == {"read_only": True}
    assert messages(result) == [
        (
            "tool 'mv' (tools.py:20): its annotations' title 'Rename' differs from its title 'Move': "
            "the design keeps the title, which MCP clients show first"
        )
    ]
    assert 'with Tool("rm", "Delete a file.", title="Delete a file"):' in render(result.design)


def test_a_name_description_or_title_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        from mcp.types import ToolAnnotations
        from .texts import describe

        @mcp.tool(description=describe("search"), annotations=ToolAnnotations(title=TITLES[0]))
        def search(query: str) -> str:
            '''Search.'''
        """,
    )
    result = import_python(path)
    assert [t.description for t in tools_of(result).values()] == ["Search."]
    assert messages(result) == [
        (
            "tool 'search' (tools.py:5): its description=describe('search') cannot be read without "
            "running the code; left out"
        ),
        (
            "tool 'search' (tools.py:5): its annotations.title=TITLES[0] cannot be read without "
            "running the code; left out"
        ),
    ]


# ── defaults and constraints kept in other modules ───────────────────────────────────────


def test_a_field_default_from_another_module_keeps_the_parameter_optional(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        """
        from typing import Annotated
        from pydantic import Field
        from .consts import DEFAULT_REGION, MAX_ROWS, SCENARIO

        @tool
        def report(
            scenario: Annotated[str, Field(default=SCENARIO, description="Scenario")],
            service: str = Field(..., description="Service"),
            region: str = Field(DEFAULT_REGION, description="Region"),
            rows: int = Field(default=MAX_ROWS, ge=1),
            tags: list[str] = Field(default_factory=list),
        ) -> None:
            '''Report.'''
        """,
    )
    result = import_python(path)
    [tool] = tools_of(result).values()
    assert {a.name: (a.required, a.options) for a in tool.args} == {
        "scenario": (False, {}),
        "service": (True, {}),
        "region": (False, {}),
        "rows": (False, {"minimum": 1}),
        "tags": (False, {}),
    }
    assert messages(result) == [
        f"tool 'report' (tools.py:6) › parameter {name!r}: its default {written} is not a "
        "literal: written as optional without a default"
        for name, written in (
            ("scenario", "SCENARIO"),
            ("region", "DEFAULT_REGION"),
            ("rows", "MAX_ROWS"),
        )
    ]


def test_a_pattern_bound_to_a_call_is_reported_with_its_fallback(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        import os
        from pydantic import Field

        def get_regex_env(name, fallback):
            return os.environ.get(name, fallback)

        CODE_PATTERN = get_regex_env("CODE_REGEX", r"^[A-Z]+$")
        ID_PATTERN = load_pattern("ids")

        @tool
        def lookup(
            code: str = Field(..., pattern=CODE_PATTERN),
            ident: str = Field(..., pattern=ID_PATTERN, max_length=LIMITS.id),
            step: int = Field(1, multiple_of=5),
        ) -> None:
            '''Look up.'''
        """,
    )
    result = import_python(path)
    [tool] = tools_of(result).values()
    assert [a.options for a in tool.args] == [{}, {}, {"default": 1}]
    where = "tool 'lookup' (tools.py:11) › parameter"
    assert messages(result) == [
        (
            f"{where} 'code': its pattern=CODE_PATTERN (= get_regex_env('CODE_REGEX', '^[A-Z]+$')) "
            "cannot be read without running the code; left out; if the call gives its fallback, "
            "write pattern='^[A-Z]+$' in the design"
        ),
        (
            f"{where} 'ident': its pattern=ID_PATTERN (= load_pattern('ids')) cannot be read "
            "without running the code; left out"
        ),
        (
            f"{where} 'ident': its max_length=LIMITS.id cannot be read without running the code; "
            "left out"
        ),
        f"{where} 'step': Field option multiple_of=5 has no design equivalent; left out",
    ]


# ── class-based tools and llama-index ────────────────────────────────────────────────────


def test_langchain_base_tool_subclasses_are_tools() -> None:
    result = import_python(FIXTURES / "langchain_classes.py")
    tools = tools_of(result)
    assert list(tools) == ["wiki_query", "paper_search", "paper_download"]
    wiki = tools["wiki_query"]
    assert wiki.description.startswith("A wrapper around an encyclopedia. Useful for general")
    # args_schema gives the arguments: its fields, descriptions and constraints.
    assert [(a.name, a.required, a.options) for a in wiki.args] == [
        ("query", True, {}),
        ("lang", False, {"min_length": 2, "max_length": 3, "default": "en"}),
    ]
    # Without one, _run's parameters are the arguments (run_manager is LangChain's), and a
    # base class without a name of its own is no tool.
    search = tools["paper_search"]
    assert [(a.name, a.required, a.options) for a in search.args] == [
        ("query", True, {}),
        ("max_results", False, {"default": 5}),
        ("sort_by", False, {"default": "relevance"}),
    ]
    assert search.source == "langchain_classes.py:44 PaperSearch"
    assert [a.name for a in tools["paper_download"].args] == ["paper_id"]  # async _arun only
    assert tools["paper_download"].result is not None
    assert tools["paper_download"].result.type == STRING


def test_smolagents_tool_subclasses_are_tools() -> None:
    result = import_python(FIXTURES / "smolagents_classes.py")
    tools = tools_of(result)
    assert list(tools) == ["web_search", "visit_webpage", "image_caption"]
    # The arguments are the inputs (not forward's signature); nullable ones are optional.
    assert [(a.name, a.type, a.required, a.options) for a in tools["web_search"].args] == [
        ("query", STRING, True, {}),
        ("max_results", INT, False, {}),
    ]
    assert tools["visit_webpage"].args[1].options == {"enum": ["markdown", "text"]}
    caption = tools["image_caption"]
    assert caption.description == "Captions an image."  # the class docstring
    assert [(a.name, a.type) for a in caption.args] == [("image", ANY), ("detail", BOOLEAN)]
    assert caption.result is not None and caption.result.type == MapOf(ANY)
    assert messages(result) == [
        (
            "tool 'image_caption' (smolagents_classes.py:50) › parameter 'image': smolagents type "
            "'image' has no design equivalent: typed Any"
        )
    ]


def test_llama_index_function_tools_take_their_name_and_description() -> None:
    result = import_python(FIXTURES / "llamaindex_tools.py", all_functions=True)
    tools = tools_of(result)
    # get_tools builds the tools: with --all it is not one, and each function is one tool.
    assert {n: t.description for n, t in tools.items()} == {
        "multiply": "Multiply two integers and return the result.",
        "add_numbers": "Add two numbers.",
        "weather": "Get the weather in a city.",  # from tool_metadata=ToolMetadata(...)
    }
    assert messages(result) == [
        (
            "tool 'multiply' (llamaindex_tools.py:8): llama-index describes it by its signature "
            "and docstring; the design's description is the docstring"
        )
    ]
    without_all = import_python(FIXTURES / "llamaindex_tools.py")
    assert list(tools_of(without_all)) == list(tools)


def test_a_function_tool_of_a_function_defined_elsewhere_is_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        from llama_index.core.tools import FunctionTool
        from .search import search

        def build():
            def local(x: int) -> int:
                '''Local.'''
            return [FunctionTool.from_defaults(fn=search), FunctionTool.from_defaults(local)]
        """,
    )
    result = import_python(path)
    assert list(tools_of(result)) == ["local"]
    assert (
        "tools.py:7: FunctionTool.from_defaults(search, ...): not a function this file "
        "defines; not imported"
    ) in messages(result)


# ── generated code ───────────────────────────────────────────────────────────────────────


@pytest.mark.slow
def test_types_of_a_model_argument_and_a_list_result_pass_ruff_isort(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        from pydantic import BaseModel

        class Query(BaseModel):
            text: str

        @tool
        def find(q: Query) -> list[str]:
            '''Find.'''
        """,
    )
    design = tmp_path / "design" / "tools.py"
    design.parent.mkdir()
    design.write_text(render(import_python(path).design))
    generate([str(design.parent)], tmp_path / "gen")
    checked = subprocess.run(
        [formatting.ruff_binary(), "check", "--isolated", "--select", "I", str(tmp_path / "gen")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout


# ── every fixture: what the source says is kept, or a warning names it ──────────────────

_CONSTRAINTS = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusive_minimum",
    "lt": "exclusive_maximum",
    "pattern": "pattern",
    "min_length": ("min_length", "min_items"),
    "max_length": ("max_length", "max_items"),
}
_FRAMEWORK = {"self", "cls", "ctx", "context", "run_context", "run_manager", "callbacks"}


def _fixtures() -> list[tuple[str, bool]]:
    return [(name, "--all" in flags) for name, flags in CASES.items()]


def _call_name(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else None
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else None


def _field_call(annotation: ast.expr | None, default: ast.expr | None) -> ast.Call | None:
    """The ``Field(...)`` a parameter or field states, as its default or in ``Annotated``."""
    if isinstance(default, ast.Call) and _call_name(default) in ("Field", "field"):
        return default
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
        for item in annotation.slice.elts[1:]:
            if isinstance(item, ast.Call) and _call_name(item) == "Field":
                return item
    return None


def _has_default(annotation: ast.expr | None, default: ast.expr | None) -> bool:
    field = _field_call(annotation, default)
    if default is not None and field is not default:
        return True  # x: Annotated[int, Field(ge=1)] = 3
    if field is None:
        return False
    if any(k.arg in ("default", "default_factory") for k in field.keywords):
        return True
    return bool(field.args) and not (
        isinstance(field.args[0], ast.Constant) and field.args[0].value is Ellipsis
    )


def _through(node: ast.expr | None, constants: dict[str, ast.expr]) -> ast.expr | None:
    """``node``, or what the module-level name it is was bound to, a few names deep."""
    for _ in range(8):
        if not (isinstance(node, ast.Name) and node.id in constants):
            break
        node = constants[node.id]
    return node


def _declared(
    source: ast.Module, tool: DraftTool
) -> list[tuple[str, ast.expr | None, ast.expr | None]]:
    """The source's parameters (or fields) of ``tool``: name, annotation, default."""
    assert tool.source is not None
    line = int(tool.source.split(":")[1].split()[0])
    node = next(
        n
        for n in ast.walk(source)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.lineno == line
    )
    classes = {c.name: c for c in ast.walk(source) if isinstance(c, ast.ClassDef)}

    def fields(model: ast.ClassDef) -> list[tuple[str, ast.expr | None, ast.expr | None]]:
        return [
            (s.target.id, s.annotation, s.value)
            for s in model.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]

    schema: ast.expr | None = None
    if isinstance(node, ast.ClassDef):
        lineage = [node]
        for klass in lineage:
            lineage += [
                classes[b.id] for b in klass.bases if isinstance(b, ast.Name) and b.id in classes
            ]
        attributes = {
            (s.targets[0] if isinstance(s, ast.Assign) else s.target).id: s.value  # type: ignore[union-attr]
            for klass in reversed(lineage)
            for s in klass.body
            if isinstance(s, ast.Assign | ast.AnnAssign)
            and s.value is not None
            and isinstance(s.targets[0] if isinstance(s, ast.Assign) else s.target, ast.Name)
        }
        if "inputs" in attributes:
            inputs = ast.literal_eval(attributes["inputs"])  # type: ignore[arg-type]
            return [
                (name, None, ast.Constant(None) if spec.get("nullable") else None)
                for name, spec in inputs.items()
            ]
        schema = attributes.get("args_schema")
        node = next(
            f
            for klass in lineage
            for f in klass.body
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            and f.name in ("forward", "_run", "_arun")
        )
    else:
        decorator = next((d for d in node.decorator_list if isinstance(d, ast.Call)), None)
        schema = next(
            (k.value for k in (decorator.keywords if decorator else ()) if k.arg == "args_schema"),
            None,
        )
    if isinstance(schema, ast.Name) and schema.id in classes:
        return fields(classes[schema.id])
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults += arguments.defaults
    pairs = [*zip(positional, defaults), *zip(arguments.kwonlyargs, arguments.kw_defaults)]
    return [(a.arg, a.annotation, d) for a, d in pairs if a.arg not in _FRAMEWORK]


def _named(result: ImportResult, tool: DraftTool, parameter: str) -> bool:
    return any(
        f"tool {tool.name!r}" in n.where and f"parameter {parameter!r}" in n.where
        for n in result.notices
    )


def _title(decorators: list[ast.expr], constants: dict[str, ast.expr]) -> str | None:
    for decorator in decorators:
        if not isinstance(decorator, ast.Call):
            continue
        for keyword in decorator.keywords:
            value = keyword.value
            if isinstance(value, ast.Name) and value.id in constants:
                value = constants[value.id]
            if keyword.arg == "title" and isinstance(value, ast.Constant):
                return str(value.value)
            if keyword.arg == "annotations":
                pairs = (
                    [(k.arg, k.value) for k in value.keywords]
                    if isinstance(value, ast.Call)
                    else list(zip([ast.literal_eval(k) for k in value.keys if k], value.values))
                    if isinstance(value, ast.Dict)
                    else []
                )
                for key, title in pairs:
                    if key == "title" and isinstance(title, ast.Constant):
                        return str(title.value)
    return None


@pytest.mark.parametrize(("name", "all_functions"), _fixtures())
def test_every_change_a_model_would_see_is_reported(name: str, all_functions: bool) -> None:
    path = FIXTURES / f"{name}.py"
    source = ast.parse(path.read_text())
    constants = {
        n.targets[0].id: n.value
        for n in source.body
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
    }
    result = import_python(path, all_functions=all_functions)
    for toolset in result.design.toolsets:
        for tool in toolset.tools:
            args = {a.name: a for a in tool.args}
            for parameter, annotation, written in _declared(source, tool):
                default = _through(written, constants)
                if parameter not in args:
                    assert _named(result, tool, parameter), (tool.name, parameter, "left out")
                    continue
                arg = args[parameter]
                if _has_default(annotation, default) and arg.required:
                    assert _named(result, tool, parameter), (tool.name, parameter, "required")
                if not _has_default(annotation, default) and not arg.required:
                    nullable = annotation is not None and (
                        "None" in ast.unparse(annotation) or "Optional" in ast.unparse(annotation)
                    )
                    assert nullable or _named(result, tool, parameter), (tool.name, parameter)
                field = _field_call(annotation, default)
                for keyword in field.keywords if field is not None else ():
                    kept = _CONSTRAINTS.get(keyword.arg or "")
                    if kept is None:
                        continue
                    options = (kept,) if isinstance(kept, str) else kept
                    assert any(o in arg.options for o in options) or _named(
                        result, tool, parameter
                    ), (tool.name, parameter, keyword.arg)
            line = int((tool.source or "").split(":")[1].split()[0])
            function = next(
                (
                    n
                    for n in ast.walk(source)
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.lineno == line
                ),
                None,
            )
            title = _title(function.decorator_list, constants) if function else None
            if title is not None and tool.title != title:
                assert any(f"tool {tool.name!r}" in n.where for n in result.notices), tool.name
