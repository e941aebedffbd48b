"""Design rules of ``Attribute(..., header="Region")``: a tool argument MCP calls mirror in an
``Mcp-Param-Region`` HTTP header (the ``x-mcp-header`` extension of MCP 2026-07-28).

A gateway routes on the header without reading the body, and the server checks that the two
agree, so the rules are the extension's: only a tool's own arguments (the attributes of its
``Args`` block, never a nested object's or a ``Type``'s, which other places reuse), of a type
whose value reads the same in a header (a string, an integer or a boolean: a float's text is
not portable), named by an HTTP token, each header once per tool whatever its case, and never
an injected field (the model does not send it, so no client could mirror it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    Design,
    Field,
    NamedType,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    Tool,
    describe,
)
from tooldesign.ir.walk import inline_shapes, messages

# RFC 9110 §5.6.2: the characters of a token, all an HTTP field name may hold.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_SCALARS = (Primitive.STRING, Primitive.INTEGER, Primitive.BOOLEAN)
_WHERE = "header= applies only to a tool's own arguments (the attributes of its Args block)"


def check_headers(design: Design, issues: Issues) -> None:
    """Report every ``header=`` that breaks a rule, at the attribute that gives it."""
    parameters: set[int] = set()
    for tool in design.tools():
        if isinstance(tool.payload.type, ObjectType):
            fields = tool.payload.type.shape.fields
            parameters.update(id(f) for f in fields)
            _tool(tool, fields, issues)
    shapes: list[ObjectShape] = [t.shape for t in design.types.values()]
    shapes.extend(design.rejected)
    for tool in design.tools():
        for message in messages(tool):
            shapes.extend(inline_shapes(message.type))
    for service in design.services:
        for toolset in service.toolsets:
            for item in toolset.content:
                _misplaced(item.arguments, parameters, issues, f"a {item.kind}'s argument")
    for f in _fields(shapes):
        if f.header is not None and id(f) not in parameters:
            issues.add(_WHERE, f.location, f.path)


def _tool(tool: Tool, fields: tuple[Field, ...], issues: Issues) -> None:
    seen: dict[str, str] = {}
    for f in fields:
        header = f.header
        if header is None:
            continue
        if not _TOKEN.fullmatch(header):
            issues.add(
                f"header={header!r} is no HTTP header name: use letters, digits and "
                "!#$%&'*+-.^_`|~ only (it becomes Mcp-Param-<header>)",
                f.location,
                f.path,
            )
        if not (isinstance(f.type, PrimitiveType) and f.type.kind in _SCALARS):
            issues.add(
                f"header= mirrors a string, an integer or a boolean in an HTTP header; "
                f"{f.name!r} is {describe(f.type)}",
                f.location,
                f.path,
            )
        if f.name in tool.injected:
            issues.add(
                f"header= cannot mirror {f.name!r}: it is injected, so no call carries it",
                f.location,
                f.path,
            )
        other = seen.get(header.lower())
        if other is not None:
            issues.add(
                f"header={header!r} is already the header of {other!r}: each Mcp-Param-* header "
                "mirrors one argument (header names ignore case)",
                f.location,
                f.path,
            )
        seen.setdefault(header.lower(), f.name)


def _misplaced(fields: Iterable[Field], parameters: set[int], issues: Issues, what: str) -> None:
    for f in fields:
        if f.header is not None and id(f) not in parameters:
            issues.add(f"{_WHERE}, not to {what}", f.location, f.path)


def _fields(shapes: list[ObjectShape]) -> Iterator[Field]:
    """Every field of ``shapes`` and of the inline objects inside them."""
    pending = list(shapes)
    seen: set[int] = set()
    while pending:
        shape = pending.pop()
        if id(shape) in seen:
            continue
        seen.add(id(shape))
        for f in shape.fields:
            yield f
            if not isinstance(f.type, NamedType):
                pending.extend(inline_shapes(f.type))
