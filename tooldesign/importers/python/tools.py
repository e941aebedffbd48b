"""One file's tools as a toolset: for each, its name (or the decorator's ``name=`` /
``name_override=``, a ``FunctionTool.from_defaults`` call's ``name=``, a tool class's
``name``), its description (likewise, or the docstring's whole narrative: everything but the
sections carried elsewhere), its title (``title=``, else ``annotations=ToolAnnotations(title=
...)``), its parameters (or a LangChain ``args_schema=`` model's fields, or a smolagents tool's
``inputs``) with their annotations (or the types the docstring writes), defaults and docstring
descriptions, its examples, and its result. An option a model would see that cannot be read
without running the code is reported, never dropped in silence."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldesign.contract.annotations import ToolAnnotations, from_hints
from tooldesign.contract.errors import UserError
from tooldesign.importers.docstrings import Docstring, parse_docstring
from tooldesign.importers.draft import (
    ANY,
    DraftAttribute,
    DraftNamedType,
    DraftTool,
    DraftToolset,
    Notice,
)
from tooldesign.importers.python.annotations import Mapped
from tooldesign.importers.python.class_tools import ClassToolReader
from tooldesign.importers.python.discovery import (
    CONTEXT_NAMES,
    Found,
    discover,
    is_function_tool,
)
from tooldesign.importers.python.examples import examples
from tooldesign.importers.python.results import result, server_library, server_wraps
from tooldesign.importers.python.syntax import NO_VALUE, is_typed_dict, parse_expression
from tooldesign.importers.values import sanitize_name

_NAME_OPTIONS = ("name", "name_override")
_DESCRIPTION_OPTIONS = ("description", "description_override")
# Options naming the model whose fields are the arguments (LangChain, llama-index).
_SCHEMA_OPTIONS = ("args_schema", "fn_schema")
# Decorator options a model sees: one that cannot be read statically is reported.
_SHOWN_OPTIONS = frozenset({*_NAME_OPTIONS, *_DESCRIPTION_OPTIONS, "title", "annotations.title"})


@dataclass
class FileDraft:
    """One file's tools as a toolset, the types they use, and the notices."""

    path: Path
    toolset: DraftToolset
    types: dict[str, DraftNamedType]
    notices: list[Notice]


class ToolReader(ClassToolReader):
    """Reads a file's tools (all its public functions too, with ``all_functions``)."""

    def __init__(self, path: Path, module: ast.Module, all_functions: bool) -> None:
        super().__init__(path, module)
        self.all_functions = all_functions
        self.server_library = server_library(module)

    def run(self, toolset: str | None) -> FileDraft:
        discovered = discover(self.module, self.classes, self.all_functions)
        for line, message in discovered.skipped:
            self.notice(message, f"{self.path.name}:{line}")
        if not discovered.found:
            hint = "" if self.all_functions else " (decorate them with @tool, or pass --all)"
            raise UserError(f"{self.path}: no tool functions found{hint}; nothing written")
        tools = [self.tool(found) for found in discovered.found]
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
        declared = found.tool_classes[0].name if found.tool_classes else function.name
        options = (
            self.class_options(found) if found.tool_classes else self.decorator_options(decorator)
        )
        raw_name = _text_option(options, *_NAME_OPTIONS) or declared
        name = sanitize_name(raw_name)
        self.where = f"tool {name!r} ({self.path.name}:{found.line})"
        if name != raw_name:
            self.notice(f"the name {raw_name!r} is not a valid tool name; written as {name!r}")
        self.report_unreadable(decorator, options)
        doc = parse_docstring(ast.get_docstring(function))
        given = _text_option(options, *_DESCRIPTION_OPTIONS)
        description = given or (
            parse_docstring(ast.get_docstring(found.tool_classes[0])).description
            if found.tool_classes
            else doc.description
        )
        if isinstance(decorator, ast.Call) and is_function_tool(decorator) and not given:
            self.notice(
                "llama-index describes it by its signature and docstring; the design's "
                "description is the docstring"
            )
        args, order = self.arguments(found, doc)
        found_examples, leftover = examples(self, doc, args, order)
        if leftover:
            description = "\n\n".join(
                [description, *(f"Example: {text}" for text in leftover)]
            ).strip()
        if not description:
            description = _humanize(declared)
            self.notice(f"no docstring or description; described as {description!r}")
        # structured_output=False: the MCP SDK sends the result as text only, never wrapped.
        server = (
            None
            if options.get("structured_output") is False
            else server_wraps(decorator, self.server_library)
        )
        output_type = self.class_node(found, "output_type")
        tool_result = (
            self.smolagents_result(output_type)
            if output_type is not None
            else result(self, function, doc, server)
        )
        self.scope = ""
        return DraftTool(
            name=name,
            description=description,
            args=tuple(args),
            result=tool_result,
            title=self.title(options),
            examples=tuple(found_examples),
            tags=_tags(options.get("tags")),
            annotations=_annotations(options.get("annotations")),
            source=f"{self.path.name}:{found.line} {found.qualified_name}",
        )

    def arguments(self, found: Found, doc: Docstring) -> tuple[list[DraftAttribute], list[str]]:
        """The tool's arguments, and their names in the order a call passes them: a
        smolagents tool's ``inputs``, the fields of an ``args_schema=`` / ``fn_schema=``
        model, or the function's parameters."""
        inputs = self.class_node(found, "inputs")
        if inputs is not None:
            listed = self.smolagents_inputs(inputs)
            if listed is not None:
                return listed, [a.name for a in listed]
        schema_node = self.class_node(found, "args_schema")
        if schema_node is None and isinstance(found.decorator, ast.Call):
            schema_node = next(
                (k.value for k in found.decorator.keywords if k.arg in _SCHEMA_OPTIONS), None
            )
        schema = self.args_schema(schema_node)
        if schema is not None:
            return list(schema.attributes), [a.name for a in schema.attributes]
        return self.parameters(found.function, doc, found.method)

    def args_schema(self, node: ast.expr | None) -> DraftNamedType | None:
        """The model a LangChain ``args_schema=Model`` (llama-index: ``fn_schema=``) gives:
        its fields, descriptions and constraints are the tool's arguments, not the
        signature's."""
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
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
        annotations = self.annotations_call(node)
        if annotations is not None:
            options["annotations"] = self.call_options(annotations)
        metadata = next((k.value for k in node.keywords if k.arg == "tool_metadata"), None)
        if metadata is not None and isinstance(self.resolved(metadata), ast.Call):
            # llama-index: FunctionTool.from_defaults(fn, tool_metadata=ToolMetadata(...))
            for key, value in self.call_options(self.resolved(metadata)).items():  # type: ignore[arg-type]
                options.setdefault(key, value)
        return options

    def annotations_call(self, decorator: ast.Call) -> ast.Call | None:
        """The decorator's ``annotations=ToolAnnotations(...)`` (or a module-level name bound
        to one)."""
        node = next((k.value for k in decorator.keywords if k.arg == "annotations"), None)
        node = None if node is None else self.resolved(node)
        return node if isinstance(node, ast.Call) else None

    def report_unreadable(self, decorator: ast.expr | None, options: dict[str, Any]) -> None:
        """Reports the decorator's name, description and title options that cannot be read
        without running the code (the docstring or the function's name stands in)."""
        if not isinstance(decorator, ast.Call):
            return
        annotations = self.annotations_call(decorator)
        keywords = [(k.arg, k.value) for k in decorator.keywords]
        if annotations is not None:
            keywords += [(f"annotations.{k.arg}", k.value) for k in annotations.keywords]
        read = {**options, **{f"annotations.{k}": v for k, v in _hints_of(options).items()}}
        for name, value in keywords:
            if name in _SHOWN_OPTIONS and name not in read:
                self.notice(self.unreadable(name, value))

    def title(self, options: dict[str, Any]) -> str | None:
        """The decorator's ``title=``, else ``annotations=ToolAnnotations(title=...)`` (or a
        dict's ``"title"``): MCP clients show the first they find."""
        own = _text_option(options, "title")
        hinted = _text_option(_hints_of(options), "title")
        if own and hinted and own != hinted:
            self.notice(
                f"its annotations' title {hinted!r} differs from its title {own!r}: the design "
                "keeps the title, which MCP clients show first"
            )
        return own or hinted

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


def _hints_of(options: dict[str, Any]) -> dict[str, Any]:
    """The ``annotations=`` the decorator gives, read (a ``ToolAnnotations(...)`` or a dict)."""
    hints = options.get("annotations")
    return hints if isinstance(hints, dict) else {}


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return tuple(sorted(set(value)))
    return ()


def _annotations(value: Any) -> ToolAnnotations:
    return from_hints(value) if isinstance(value, dict) else ToolAnnotations()


def _humanize(name: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").split()
    return " ".join(words).capitalize() or name
