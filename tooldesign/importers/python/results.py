"""A tool's result, read from its return annotation (or its docstring's return type).

A design carries a result that is not an object as ``{"result": …}``, like MCP servers do. A
result the MCP SDK sends wrapped as ``{"result": …}`` where a design would not wrap it (a typed
``Dict``, an optional value) is written as that object, so the design's result is what the
server's clients receive.
"""

from __future__ import annotations

import ast

from tooldesign.contract import WRAPPED_RESULT_KEY
from tooldesign.importers.docstrings import Docstring
from tooldesign.importers.draft import ANY, DraftResult, is_object
from tooldesign.importers.python.classes import ClassReader
from tooldesign.importers.python.syntax import NO_VALUE, last_name, parse_expression


def result(
    reader: ClassReader,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    doc: Docstring,
    server: str | None,
) -> DraftResult | None:
    """The tool's result; ``server``, the MCP library serving it (see :func:`server_wraps`)."""
    annotation = function.returns
    description = doc.returns or None
    where = f"{reader.where} › result"
    if annotation is None and doc.return_type:
        annotation = parse_expression(doc.return_type)
        if annotation is None:
            reader.notice(
                f"its docstring type {doc.return_type!r} cannot be read: typed Any", where
            )
    if annotation is None:
        return DraftResult(ANY, description)
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return None
    mapped = reader.annotation(annotation, where)
    # Where the server wraps a result the design would not (the MCP SDK wraps a typed Dict or
    # any Optional; FastMCP an Optional), the design's result is the wrapper.
    wrapped = mapped.nullable if server == "fastmcp" else False
    if server == "mcp" and _mcp_sdk_wraps(reader, annotation):
        wrapped = mapped.nullable or is_object(mapped.type)
    if wrapped:
        library = "FastMCP" if server == "fastmcp" else "the MCP SDK"
        reader.notice(
            f'{library} sends it as {{"{WRAPPED_RESULT_KEY}": …}}: the design\'s result is '
            "that object" + (" (its value may be None: optional)" if mapped.nullable else ""),
            where,
        )
        value = reader.attribute(
            WRAPPED_RESULT_KEY,
            mapped,
            mapped.description or description,
            not mapped.nullable,
            NO_VALUE,
            where,
        )
        return DraftResult(None, None, (value,))
    if mapped.nullable:
        reader.notice("may return None; the design says it returns a value", where)
    if mapped.options:
        reader.notice("constraints on the result type are not kept", where)
    return DraftResult(mapped.type, mapped.description or description)


def server_wraps(decorator: ast.expr | None, library: str | None) -> str | None:
    """The MCP server library (``"mcp"``, ``"fastmcp"``; ``library``, the one the file
    imports) that serves a tool of this decorator, whose wrapping of results
    (``{"result": …}``) the design must mirror; ``None`` for others."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute) and target.attr == "tool":
        return library
    return None


def server_library(module: ast.Module) -> str | None:
    """The MCP server library the module imports: ``"mcp"`` (the SDK's ``FastMCP`` or
    ``MCPServer``), ``"fastmcp"`` (the standalone FastMCP), or ``None``."""
    for node in ast.walk(module):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for name in modules:
            if name == "mcp.server" or name.startswith("mcp.server."):
                return "mcp"
            if name == "fastmcp" or name.startswith("fastmcp."):
                return "fastmcp"
    return None


def _mcp_sdk_wraps(reader: ClassReader, annotation: ast.expr) -> bool:
    """Whether the MCP SDK sends a result of this type as ``{"result": …}``: all but
    a model, TypedDict or dataclass, a ``dict[str, X]`` (the builtin, subscripted;
    ``typing.Dict[str, X]`` is wrapped) and a bare ``dict`` (sent as text only)."""
    node = reader.resolved(annotation)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = parse_expression(node.value) or node
    if isinstance(node, ast.Subscript) and last_name(node.value) == "Annotated":
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        node = reader.resolved(parts[0])
    if isinstance(node, ast.Subscript):
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return not (
            isinstance(node.value, ast.Name)
            and node.value.id == "dict"
            and len(args) == 2
            and last_name(args[0]) == "str"
        )
    if isinstance(node, ast.Name) and node.id == "dict":
        return False
    return reader.class_named(node) is None
