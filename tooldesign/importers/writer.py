"""A :class:`DraftDesign` written as a design file, in the DSL exactly as a user writes it.

Every string and value from the source goes through ``py_literal``, so any text round-trips.
Named types come first, in dependency order: a type refers to one declared before it by its
variable, and to itself or a later one (recursion) by its name as a string. The output is
formatted with ruff and deterministic: the same draft always gives the same bytes.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable, Iterator
from typing import Any

from tooldesign.codegen.formatting import format_source
from tooldesign.codegen.literals import py_literal
from tooldesign.importers.draft import (
    ArrayOf,
    DraftAttribute,
    DraftDesign,
    DraftNamedType,
    DraftResult,
    DraftTool,
    DraftType,
    InlineObject,
    MapOf,
    Named,
    OneOf,
    Primitive,
    inline_object,
)

_DSL_NAMES = frozenset(
    {
        "Annotations", "Any", "Args", "ArrayOf", "Attribute", "BindTo", "Boolean",
        "BoundedResult", "Example", "Float", "Inject", "Int", "MapOf", "MCPServer",
        "MCPToolset", "Object", "OneOf", "Required", "Return", "ServerData", "Service",
        "String", "Tags", "Tool", "Toolset", "Type",
    }
)  # fmt: skip
_INDENT = "    "


def render(design: DraftDesign) -> str:
    """The design file's text, formatted."""
    return format_source(_Writer(design).text())


class _Writer:
    def __init__(self, design: DraftDesign) -> None:
        self.design = design
        self.used: set[str] = {"Service"}
        self.declared: dict[str, str] = {}  # type name → its variable, once written
        self.variables = _variable_names(t.name for t in design.types)

    def text(self) -> str:
        body: list[str] = []
        for named in _dependency_order(self.design.types):
            body.extend(self.named_type(named))
            body.append("")
        body.extend(self.service())
        head: list[str] = []
        if self.design.header:
            head.append(f'"""{_docstring_text(self.design.header)}"""')
            head.append("")
        head.append(f"from tooldesign.dsl import {', '.join(sorted(self.used))}")
        head.append("")
        return "\n".join([*head, "", *body]) + "\n"

    # ── blocks ────────────────────────────────────────────────────────────────────────────

    def named_type(self, named: DraftNamedType) -> list[str]:
        self.used.add("Type")
        variable = self.variables[named.name]
        lines = [f"with Type({_args(named.name, named.description)}) as {variable}:"]
        lines.extend(self.attributes(named.attributes, named.examples, 1))
        self.declared[named.name] = variable
        return lines

    def service(self) -> list[str]:
        design = self.design
        lines = [f"with Service({_args(design.service, design.service_description)}):"]
        for toolset in design.toolsets:
            if toolset.mcp_server is None:
                self.used.add("Toolset")
                call = f"Toolset({_args(toolset.name, toolset.description)})"
            else:
                self.used.add("MCPToolset")
                server = toolset.mcp_server
                where = py_literal(server.url) if server.url else py_literal(list(server.command))
                if server.cwd is not None:
                    self.used.add("MCPServer")
                    where = f"MCPServer({where}, cwd={py_literal(server.cwd)})"
                call = f"MCPToolset({_args(toolset.name, toolset.description)}, server={where})"
            lines.append(f"{_INDENT}with {call}:")
            for tool in toolset.tools:
                lines.extend(self.tool(tool, 2))
            if not toolset.tools:
                lines.append(f"{_INDENT * 2}pass")
        return lines

    def tool(self, tool: DraftTool, depth: int) -> list[str]:
        self.used.add("Tool")
        pad = _INDENT * depth
        lines: list[str] = []
        if tool.source:
            lines.append(f"{pad}# {_comment_text(tool.source)}")
        title = f", title={py_literal(tool.title)}" if tool.title else ""
        if tool.remote_name:
            title += f", remote_name={py_literal(tool.remote_name)}"
        lines.append(f"{pad}with Tool({_args(tool.name, tool.description)}{title}):")
        inner = _INDENT * (depth + 1)
        if tool.tags:
            self.used.add("Tags")
            lines.append(f"{inner}Tags({', '.join(py_literal(t) for t in tool.tags)})")
        if tool.args_type is not None:
            self.used.add("Args")
            lines.append(f"{inner}Args({self.type_expr(tool.args_type)})")
        elif tool.args:
            self.used.add("Args")
            lines.append(f"{inner}with Args():")
            lines.extend(self.attributes(tool.args, tool.examples, depth + 2))
        if tool.result is not None:
            lines.extend(self.result(tool.result, depth + 1))
        hints = tool.annotations.given()
        if hints:
            self.used.add("Annotations")
            given = ", ".join(f"{name}={value!r}" for name, value in hints.items())
            lines.append(f"{inner}Annotations({given})")
        if len(lines) == (2 if tool.source else 1):
            lines.append(f"{inner}pass")
        return lines

    def result(self, result: DraftResult, depth: int) -> list[str]:
        self.used.add("Return")
        pad = _INDENT * depth
        if result.type is not None:
            return [f"{pad}Return({self.type_expr(result.type)}{_description(result.description)})"]
        # `with Return():` takes no description; importers give a described result a type.
        assert not result.description, "a result block has no description"
        return [f"{pad}with Return():", *self.attributes(result.attributes, (), depth + 1)]

    def attributes(
        self, attributes: tuple[DraftAttribute, ...], examples: Iterable[dict[str, Any]], depth: int
    ) -> list[str]:
        pad = _INDENT * depth
        lines: list[str] = []
        for attribute in attributes:
            lines.extend(self.attribute(attribute, depth))
        required = [a.name for a in attributes if a.required]
        if required:
            self.used.add("Required")
            lines.append(f"{pad}Required({', '.join(py_literal(n) for n in required)})")
        for example in examples:
            self.used.add("Example")
            lines.append(f"{pad}Example({py_literal(example)})")
        if not lines:
            lines.append(f"{pad}pass")
        return lines

    def attribute(self, attribute: DraftAttribute, depth: int) -> list[str]:
        self.used.add("Attribute")
        pad = _INDENT * depth
        inline = inline_object(attribute.type)
        type_text = self.type_expr(attribute.type)
        parts = [py_literal(attribute.name), type_text]
        if attribute.description is not None:
            parts.append(py_literal(attribute.description))
        parts.extend(f"{key}={py_literal(value)}" for key, value in attribute.options.items())
        call = f"Attribute({', '.join(parts)})"
        if inline is None:
            return [f"{pad}{call}"]
        return [f"{pad}with {call}:", *self.attributes(inline.attributes, (), depth + 1)]

    # ── types ─────────────────────────────────────────────────────────────────────────────

    def type_expr(self, t: DraftType) -> str:
        match t:
            case Primitive(name=name, schema=schema):
                self.used.add(name)
                return f"Any(schema={py_literal(schema)})" if schema is not None else name
            case ArrayOf(items=items, min_items=low, max_items=high):
                self.used.add("ArrayOf")
                bounds = "".join(
                    f", {key}={value}"
                    for key, value in (("min_items", low), ("max_items", high))
                    if value is not None
                )
                return f"ArrayOf({self.type_expr(items)}{bounds})"
            case MapOf(values=values):
                self.used.update({"MapOf", "String"})
                return f"MapOf(String, {self.type_expr(values)})"
            case Named(name=name):
                return self.declared.get(name) or py_literal(name)
            case InlineObject():
                self.used.add("Object")
                return "Object"
            case OneOf(variants=variants, discriminator=discriminator):
                self.used.add("OneOf")
                listed = ", ".join(self.type_expr(v) for v in variants)
                tag = f", discriminator={py_literal(discriminator)}" if discriminator else ""
                return f"OneOf({listed}{tag})"
        raise TypeError(f"not a draft type: {t!r}")


def _args(name: str, description: str | None) -> str:
    return py_literal(name) + _description(description)


def _description(description: str | None) -> str:
    return f", {py_literal(description)}" if description else ""


def _docstring_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _comment_text(text: str) -> str:
    return " ".join(text.split())


def _variable_names(names: Iterable[str]) -> dict[str, str]:
    """A safe, unique Python variable for each type name."""
    out: dict[str, str] = {}
    taken: set[str] = set(_DSL_NAMES)
    for name in names:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "Type_"
        if base[0].isdigit() or keyword.iskeyword(base) or base in taken:
            base = f"{base}Type" if not base[0].isdigit() else f"Type{base}"
        candidate, n = base, 2
        while candidate in taken:
            candidate, n = f"{base}{n}", n + 1
        taken.add(candidate)
        out[name] = candidate
    return out


def _dependency_order(types: tuple[DraftNamedType, ...]) -> Iterator[DraftNamedType]:
    """Types that others use before them, otherwise in the order given."""
    by_name = {t.name: t for t in types}
    done: set[str] = set()
    visiting: set[str] = set()

    def visit(named: DraftNamedType) -> Iterator[DraftNamedType]:
        if named.name in done or named.name in visiting:
            return
        visiting.add(named.name)
        for dependency in _references(named.attributes):
            if dependency in by_name:
                yield from visit(by_name[dependency])
        visiting.discard(named.name)
        done.add(named.name)
        yield named

    for named in types:
        yield from visit(named)


def _references(attributes: Iterable[DraftAttribute]) -> Iterator[str]:
    for attribute in attributes:
        yield from _type_references(attribute.type)


def _type_references(t: DraftType) -> Iterator[str]:
    match t:
        case Named(name=name):
            yield name
        case ArrayOf(items=items):
            yield from _type_references(items)
        case MapOf(values=values):
            yield from _type_references(values)
        case InlineObject(attributes=attributes):
            yield from _references(attributes)
        case OneOf(variants=variants):
            for variant in variants:
                yield from _type_references(variant)
