"""Which functions of a file are tools, and which of their parameters a framework fills in.

Tool functions are those decorated with ``@tool``, ``@function_tool`` (the OpenAI Agents SDK),
``@<anything>.tool`` or ``@<anything>.tool_plain`` (FastMCP, the MCP SDK, LangChain,
pydantic-ai and most others), called or not, anywhere in the file (methods, and functions
defined inside others, included); those a llama-index ``FunctionTool.from_defaults(fn, ...)``
call makes a tool; the methods of tool classes (a LangChain ``BaseTool`` subclass's
``_run``, a smolagents ``Tool`` subclass's ``forward``); or, with ``all_functions``, every
public module-level function but those that build tools (``def get_tools(): return
[FunctionTool.from_defaults(...)]``).
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
CONTEXT_NAMES = frozenset({"ctx", "context", "run_context", "run_manager", "callbacks"})
# Decorators that make a function a tool, by their last name: ``@tool``, ``@mcp.tool()``,
# ``@function_tool`` (OpenAI Agents SDK), ``@agent.tool_plain`` (pydantic-ai).
_TOOL_DECORATORS = frozenset({"tool", "function_tool", "tool_plain"})
# Base classes of class-based tools (LangChain's ``BaseTool``, smolagents' ``Tool``), and the
# method that runs such a tool, in the order looked for.
_TOOL_BASES = frozenset({"BaseTool", "Tool"})
_TOOL_METHODS = ("forward", "_run", "_arun")
# ``FunctionTool.from_defaults(fn, ...)`` (llama-index): the keywords that give the function.
_FUNCTION_KEYWORDS = ("fn", "async_fn")


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
    tool_classes: tuple[ast.ClassDef, ...] = ()
    """For a class-based tool: its class, then the file's classes it derives from; their
    class attributes (``name``, ``description``, ``args_schema``, ``inputs``…) describe it."""

    @property
    def line(self) -> int:
        """Where the tool is declared: its class, or its function."""
        return (self.tool_classes[0] if self.tool_classes else self.function).lineno


@dataclass
class Discovered:
    """A file's tools in source order, and the lines of tool declarations that could not be
    followed (with why)."""

    found: list[Found]
    skipped: list[tuple[int, str]]


def discover(
    module: ast.Module, classes: dict[str, ast.ClassDef], all_functions: bool
) -> Discovered:
    """The file's tools: decorated functions, functions made tools by
    ``FunctionTool.from_defaults``, class-based tools and (``all_functions``) public
    module-level functions; each once, in source order."""
    registered, skipped = registered_functions(module)
    # A function a from_defaults call makes a tool is that tool (its name, its description),
    # and a function that builds tools is none.
    not_tools = {id(f.function) for f in registered} | _tool_factories(module)
    found = [
        f
        for f in tool_functions(module, classes, all_functions)
        if f.decorator is not None or id(f.function) not in not_tools
    ]
    found += registered
    found += tool_classes(classes)
    return Discovered(sorted(found, key=lambda f: f.line), skipped)


def tool_classes(classes: dict[str, ast.ClassDef]) -> Iterator[Found]:
    """Class-based tools: classes deriving (perhaps through the file's own classes) from
    ``BaseTool`` or ``Tool`` that have a ``name`` and a method that runs them. A base class
    of tools without a ``name`` of its own is no tool."""
    by_name = {qualified.rsplit(".", 1)[-1]: node for qualified, node in classes.items()}
    qualified_names = {id(node): qualified for qualified, node in classes.items()}
    for qualified, node in classes.items():
        lineage = _lineage(node, by_name)
        if not any(last_name(base) in _TOOL_BASES for c in lineage for base in c.bases):
            continue
        if class_attribute(lineage, "name") is None:
            continue
        for method_name in _TOOL_METHODS:
            owner, method = next(
                ((c, m) for c in lineage for m in _methods(c) if m.name == method_name),
                (None, None),
            )
            if owner is not None and method is not None:
                yield Found(
                    method,
                    None,
                    qualified,
                    True,
                    qualified_names[id(owner)],
                    tool_classes=lineage,
                )
                break


def class_attribute(lineage: tuple[ast.ClassDef, ...], name: str) -> ast.expr | None:
    """The value a class (or the first of its bases to set it) gives the attribute ``name``."""
    for node in lineage:
        for item in node.body:
            if isinstance(item, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in item.targets
            ):
                return item.value
            if (
                isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and item.target.id == name
                and item.value is not None
            ):
                return item.value
    return None


def registered_functions(module: ast.Module) -> tuple[list[Found], list[tuple[int, str]]]:
    """The functions ``FunctionTool.from_defaults(fn, ...)`` calls make tools, each with
    that call (its ``name=`` and ``description=`` are the tool's), and the calls whose
    function is not one this file defines."""
    found: list[Found] = []
    skipped: list[tuple[int, str]] = []

    def visit(
        node: ast.AST,
        defined: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]],
        scope: str,
    ) -> None:
        body = getattr(node, "body", None)
        if isinstance(body, list):
            defined = {
                **defined,
                **{
                    f.name: (f, f"{scope}{f.name}")
                    for f in body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                },
            }
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and is_function_tool(child):
                target = _registered_function(child)
                named = defined.get(target.id) if isinstance(target, ast.Name) else None
                if named is not None:
                    found.append(Found(named[0], child, named[1], False))
                else:
                    written = "no function" if target is None else ast.unparse(target)
                    message = (
                        f"FunctionTool.from_defaults({written}, ...): not a function this file "
                        "defines; not imported"
                    )
                    skipped.append((child.lineno, message))
            inner = (
                f"{scope}{child.name}."
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                else scope
            )
            visit(child, defined, inner)

    visit(module, {}, "")
    return found, skipped


def is_function_tool(call: ast.Call) -> bool:
    """``FunctionTool.from_defaults(...)`` (llama-index)."""
    return (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "from_defaults"
        and last_name(call.func.value) == "FunctionTool"
    )


def _registered_function(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next(
        (k.value for name in _FUNCTION_KEYWORDS for k in call.keywords if k.arg == name), None
    )


def _tool_factories(module: ast.Module) -> set[int]:
    """The module-level functions that build tools (they call ``FunctionTool.from_defaults``):
    they make tools, they are none."""
    return {
        id(function)
        for function in module.body
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(isinstance(n, ast.Call) and is_function_tool(n) for n in ast.walk(function))
    }


def _lineage(node: ast.ClassDef, by_name: dict[str, ast.ClassDef]) -> tuple[ast.ClassDef, ...]:
    """``node`` and the file's classes it derives from, nearest first."""
    out = [node]
    for klass in out:
        for base in klass.bases:
            parent = by_name.get(last_name(base) or "")
            if parent is not None and parent not in out:
                out.append(parent)
    return tuple(out)


def _methods(node: ast.ClassDef) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (f for f in node.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef))


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
