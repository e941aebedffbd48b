"""Which functions of a file are tools, and which of their parameters a framework fills in.

Tool functions are those decorated with ``@tool``, ``@function_tool`` (the OpenAI Agents SDK),
``@<anything>.tool`` or ``@<anything>.tool_plain`` (FastMCP, the MCP SDK, LangChain,
pydantic-ai and most others), called or not, anywhere in the file (methods, and functions
defined inside others, included), or, with ``all_functions``, every public module-level
function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from tooldesign.importers.python.syntax import flatten_or, is_none, last_name, parse_expression

# Types whose parameters a framework fills in, never the model (matched by the last name).
CONTEXT_TYPES = frozenset(
    {
        "Context",
        "RunContext",
        "RunContextWrapper",
        "ToolContext",
        "ToolRuntime",
        "InjectedToolArg",
        "InjectedToolCallId",
        "InjectedState",
        "InjectedStore",
        "RunnableConfig",
        "CallbackManagerForToolRun",
        "AsyncCallbackManagerForToolRun",
        "ServerSession",
        "RequestContext",
        "Request",
    }
)
# Parameters a framework fills in when they have no annotation, by their name.
CONTEXT_NAMES = frozenset({"ctx", "context", "run_context"})
# Decorators that make a function a tool, by their last name: ``@tool``, ``@mcp.tool()``,
# ``@function_tool`` (OpenAI Agents SDK), ``@agent.tool_plain`` (pydantic-ai).
_TOOL_DECORATORS = frozenset({"tool", "function_tool", "tool_plain"})


@dataclass
class Found:
    """A tool function: its definition, its tool decorator, its dotted name in the file, and
    whether it is a method (its first parameter is the instance or class, not the model's)."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    decorator: ast.expr | None
    qualified_name: str
    method: bool
    class_scope: str = ""
    """The class it is defined in (its qualified name), where its annotations are read."""


def tool_functions(
    module: ast.Module, classes: dict[str, ast.ClassDef], all_functions: bool
) -> Iterator[Found]:
    """Tool functions anywhere in the file, in source order: module-level functions,
    methods (``class Toolbox: @tool def search(self, …)``) and functions defined inside
    others (``def register(mcp): @mcp.tool() def search(…)``). With ``all_functions``,
    also every public module-level function. ``classes`` are the file's, by qualified name."""

    def walk(node: ast.AST, scope: str, owner: ast.ClassDef | None) -> Iterator[Found]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                decorator = next((d for d in child.decorator_list if is_tool_decorator(d)), None)
                public = node is module and not child.name.startswith("_")
                if decorator is not None or (all_functions and public):
                    owner_name = scope.rstrip(".") if owner is not None else ""
                    yield Found(
                        child,
                        decorator,
                        f"{scope}{child.name}",
                        is_method(child, owner),
                        owner_name if owner_name in classes else "",
                    )
                yield from walk(child, f"{scope}{child.name}.", None)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{scope}{child.name}.", child)
            elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                yield from walk(child, scope, owner)  # if/try/with/match blocks

    yield from walk(module, "", None)


def is_tool_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id in _TOOL_DECORATORS) or (
        isinstance(target, ast.Attribute) and target.attr in _TOOL_DECORATORS
    )


def is_method(function: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef | None) -> bool:
    """A function of a class body that takes the instance or class first (not a staticmethod)."""
    return owner is not None and all(
        last_name(d) != "staticmethod" for d in function.decorator_list
    )


def is_context_type(node: ast.expr | None, local: frozenset[str]) -> bool:
    """A framework's parameter type: ``Context``, ``RunContext[Deps]``, ``Annotated[.., InjectedToolArg]``
    (a name in ``local``, a type the file defines, is not one)."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = parse_expression(node.value)
        if node is None:
            return False
    if isinstance(node, ast.Subscript) and last_name(node.value) == "Annotated":
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(is_context_type(p, local) for p in parts[1:])
    if isinstance(node, ast.Subscript) and last_name(node.value) in ("Optional",):
        return is_context_type(node.slice, local)
    if isinstance(node, ast.BinOp):
        return any(is_context_type(m, local) for m in flatten_or(node) if not is_none(m))
    name = last_name(node)
    return name in CONTEXT_TYPES and name not in local
