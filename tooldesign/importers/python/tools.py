"""One file's tool functions as a toolset: for each, its name (or the decorator's ``name=`` /
``name_override=``), its description (the decorator's ``description=`` /
``description_override=``, or the docstring's whole narrative: everything but the sections
carried elsewhere), its parameters (or a LangChain ``args_schema=`` model's fields) with their
annotations (or the types the docstring writes), defaults and docstring descriptions, its
examples, and its result."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldesign.errors import UserError
from tooldesign.importers.docstrings import Docstring, parse_docstring
from tooldesign.importers.draft import (
    ANY,
    DraftAnnotations,
    DraftAttribute,
    DraftNamedType,
    DraftTool,
    DraftToolset,
    Notice,
)
from tooldesign.importers.python.annotations import Mapped
from tooldesign.importers.python.classes import ClassReader
from tooldesign.importers.python.discovery import CONTEXT_NAMES, Found, tool_functions
from tooldesign.importers.python.examples import examples
from tooldesign.importers.python.results import result, server_library, server_wraps
from tooldesign.importers.python.syntax import NO_VALUE, is_typed_dict, parse_expression
from tooldesign.importers.values import sanitize_name

_NAME_OPTIONS = ("name", "name_override")
_DESCRIPTION_OPTIONS = ("description", "description_override")
_HINTS = {
    "readOnlyHint": "read_only",
    "read_only_hint": "read_only",
    "destructiveHint": "destructive",
    "destructive_hint": "destructive",
    "idempotentHint": "idempotent",
    "idempotent_hint": "idempotent",
    "openWorldHint": "open_world",
    "open_world_hint": "open_world",
}


@dataclass
class FileDraft:
    """One file's tools as a toolset, the types they use, and the notices."""

    path: Path
    toolset: DraftToolset
    types: dict[str, DraftNamedType]
    notices: list[Notice]


class ToolReader(ClassReader):
    """Reads a file's tool functions (all its public functions, with ``all_functions``)."""

    def __init__(self, path: Path, module: ast.Module, all_functions: bool) -> None:
        super().__init__(path, module)
        self.all_functions = all_functions
        self.server_library = server_library(module)

    def run(self, toolset: str | None) -> FileDraft:
        functions = list(tool_functions(self.module, self.classes, self.all_functions))
        if not functions:
            hint = "" if self.all_functions else " (decorate them with @tool, or pass --all)"
            raise UserError(f"{self.path}: no tool functions found{hint}; nothing written")
        tools = [self.tool(found) for found in functions]
        module_doc = parse_docstring(ast.get_docstring(self.module)).summary
        name = sanitize_name(toolset or self.path.stem, identifier=True)
        return FileDraft(
            self.path,
            DraftToolset(name, module_doc or f"Tools imported from {self.path.name}", tuple(tools)),
            {name: t for name, t in self.types.items() if t is not None},
            self.notices,
        )

    def tool(self, found: Found) -> DraftTool:
        function, decorator = found.function, found.decorator
        self.scope = found.class_scope
        options = self.decorator_options(decorator)
        raw_name = _text_option(options, *_NAME_OPTIONS) or function.name
        name = sanitize_name(raw_name)
        self.where = f"tool {name!r} ({self.path.name}:{function.lineno})"
        if name != raw_name:
            self.notice(f"the name {raw_name!r} is not a valid tool name; written as {name!r}")
        doc = parse_docstring(ast.get_docstring(function))
        description = _text_option(options, *_DESCRIPTION_OPTIONS) or doc.description
        schema = self.args_schema(decorator)
        if schema is not None:
            args = list(schema.attributes)
            order = [a.name for a in args]
        else:
            args, order = self.parameters(function, doc, found.method)
        found_examples, leftover = examples(self, doc, args, order)
        if leftover:
            description = "\n\n".join(
                [description, *(f"Example: {text}" for text in leftover)]
            ).strip()
        if not description:
            description = _humanize(function.name)
            self.notice(f"no docstring or description; described as {description!r}")
        # structured_output=False: the MCP SDK sends the result as text only, never wrapped.
        server = (
            None
            if options.get("structured_output") is False
            else server_wraps(decorator, self.server_library)
        )
        tool_result = result(self, function, doc, server)
        self.scope = ""
        return DraftTool(
            name=name,
            description=description,
            args=tuple(args),
            result=tool_result,
            title=_text_option(options, "title"),
            examples=tuple(found_examples),
            tags=_tags(options.get("tags")),
            annotations=_annotations(options.get("annotations")),
            source=f"{self.path.name}:{function.lineno} {found.qualified_name}",
        )

    def args_schema(self, decorator: ast.expr | None) -> DraftNamedType | None:
        """The model a LangChain ``@tool(args_schema=Model)`` takes its arguments from (its
        fields, descriptions and constraints are the tool's arguments, not the signature's)."""
        node = next(
            (
                k.value
                for k in (decorator.keywords if isinstance(decorator, ast.Call) else ())
                if k.arg == "args_schema"
            ),
            None,
        )
        if node is None:
            return None
        qualified = self.class_named(node)
        model = self.classes.get(qualified) if qualified is not None else None
        if model is None or not (self.is_model(model) or is_typed_dict(model)):
            self.notice(
                f"args_schema={ast.unparse(node)} is not a pydantic model or TypedDict of this "
                "file: the arguments are read from the signature"
            )
            return None
        assert qualified is not None
        return self.named_type(qualified)

    def decorator_options(self, node: ast.expr | None) -> dict[str, Any]:
        """A tool decorator's options: its keyword arguments (same-file constants read
        through), LangChain's ``@tool("name")``, and ``annotations=ToolAnnotations(...)``."""
        if not isinstance(node, ast.Call):
            return {}
        options = self.call_options(node)
        if node.args:
            first = self.value(node.args[0])
            if isinstance(first, str):
                options.setdefault("name", first)  # LangChain: @tool("name")
        for keyword in node.keywords:
            if keyword.arg == "annotations" and isinstance(keyword.value, ast.Call):
                options["annotations"] = self.call_options(keyword.value)
        return options

    def parameters(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, doc: Docstring, method: bool
    ) -> tuple[list[DraftAttribute], list[str]]:
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults.extend(arguments.defaults)
        pairs = [
            *zip(positional, defaults, strict=True),
            *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
        ]
        for star in (arguments.vararg, arguments.kwarg):
            if star is not None:
                self.notice(f"*{star.arg} / **{star.arg} cannot be described to a model; left out")
        attributes: list[DraftAttribute] = []
        order: list[str] = []
        for index, (arg, default) in enumerate(pairs):
            if index == 0 and positional and (method or arg.arg in ("self", "cls")):
                continue  # the instance or class a method is called on
            attribute = self.parameter(arg, default, doc)
            if attribute is not None:
                attributes.append(attribute)
                order.append(arg.arg)
        return attributes, order

    def parameter(
        self, arg: ast.arg, default: ast.expr | None, doc: Docstring
    ) -> DraftAttribute | None:
        where = f"{self.where} › parameter {arg.arg!r}"
        annotation = arg.annotation
        if annotation is None and arg.arg in doc.param_types:
            written = doc.param_types[arg.arg]
            annotation = parse_expression(written)
            if annotation is None:
                self.notice(f"its docstring type {written!r} cannot be read: typed Any", where)
                annotation = ast.Name("Any")
        if (annotation is None and arg.arg in CONTEXT_NAMES) or self.is_context(annotation):
            self.notice("a framework context parameter, not the model's: left out", where)
            return None
        if annotation is None:
            self.notice("no annotation: typed Any", where)
            mapped = Mapped(ANY)
        else:
            mapped = self.annotation(annotation, where)
        if mapped.context:
            self.notice("a framework context parameter, not the model's: left out", where)
            return None
        default_value, field_options = self.default(default, where)
        if field_options is not None:
            mapped = self.with_field(mapped, field_options, where)
        if default_value is NO_VALUE and mapped.has_default:
            default_value = mapped.default
        required = default_value is NO_VALUE
        if required and mapped.nullable:
            self.notice("may be None but has no default: written as optional", where)
            required = False
        description = mapped.description or doc.params.get(arg.arg) or mapped.note
        return self.attribute(arg.arg, mapped, description, required, default_value, where)


def _text_option(options: dict[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` the options give a non-empty text for."""
    for key in keys:
        value = options.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return tuple(sorted(set(value)))
    return ()


def _annotations(value: Any) -> DraftAnnotations:
    if not isinstance(value, dict):
        return DraftAnnotations()
    hints = {
        _HINTS[key]: flag for key, flag in value.items() if key in _HINTS and isinstance(flag, bool)
    }
    return DraftAnnotations(**hints)


def _humanize(name: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").split()
    return " ".join(words).capitalize() or name
