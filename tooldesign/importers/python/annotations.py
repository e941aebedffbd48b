"""``tooldesign import python``: code-first tool functions read into a design draft.

Each file is parsed with ``ast`` (in the encoding it declares) and never imported or run. Tool
functions are those decorated with ``@tool``, ``@function_tool`` (the OpenAI Agents SDK),
``@<anything>.tool`` or ``@<anything>.tool_plain`` (FastMCP, the MCP SDK, LangChain,
pydantic-ai and most others), called or not, anywhere in the file (methods, and functions
defined inside others, included), or, with ``all_functions``, every public module-level
function. For each: its name (or the decorator's ``name=`` / ``name_override=``), its
description (the decorator's ``description=`` / ``description_override=``, or the docstring's
whole narrative: everything but the sections carried elsewhere), its parameters (or a LangChain
``args_schema=`` model's fields) with their annotations (or the types the docstring writes),
defaults and docstring descriptions, examples from the docstring, and its return type.
Pydantic models, TypedDicts, dataclasses and Enums defined in the same file (nested classes
included) become design types; a local Enum's member as a default is its value.

Module-level names bound once (``LIMIT = Field(10, ge=1)``, ``Status = Literal["a", "b"]``,
``DESCRIPTION = "..."``) are read through to the expression they are bound to, wherever a
default, an annotation or a decorator option uses them — read, never run.

Several files make one design: a toolset per file in one service.

What cannot be carried over exactly becomes the closest faithful form, with a :class:`Notice`:
an annotation the DSL cannot express becomes ``Any``; a framework's context parameter
(``ctx: Context``, ``RunContext[...]``, ``RunContextWrapper[...]``, ``InjectedToolArg``…) is
left out — the framework, not the model, supplies it. A result the MCP SDK sends wrapped as
``{"result": …}`` where a design would not wrap it (a typed ``Dict``, an optional value) is
written as that object, so the design's result is what the server's clients receive.
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from tooldesign.errors import UserError
from tooldesign.importers.docstrings import Docstring, parse_docstring
from tooldesign.importers.draft import (
    ANY,
    BOOLEAN,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAnnotations,
    DraftAttribute,
    DraftDesign,
    DraftNamedType,
    DraftResult,
    DraftTool,
    DraftToolset,
    DraftType,
    MapOf,
    Named,
    Notice,
    OneOf,
    is_object,
)
from tooldesign.importers.shared_types import renamed_named_type, renamed_tool, same_type
from tooldesign.importers.values import accepts, is_json, pascal, sanitize_name, unique_name
from tooldesign.runtime.providers.mcp import WRAPPED_RESULT_KEY

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
_CONTEXT_NAMES = frozenset({"ctx", "context", "run_context"})
_PRIMITIVES: dict[str, DraftType] = {"str": STRING, "int": INT, "float": FLOAT, "bool": BOOLEAN}
# Decorators that make a function a tool, by their last name: ``@tool``, ``@mcp.tool()``,
# ``@function_tool`` (OpenAI Agents SDK), ``@agent.tool_plain`` (pydantic-ai).
_TOOL_DECORATORS = frozenset({"tool", "function_tool", "tool_plain"})
_NAME_OPTIONS = ("name", "name_override")
_DESCRIPTION_OPTIONS = ("description", "description_override")
# pathlib's and pydantic's path types: a string (pydantic's "path" format is not one designs check).
_PATHS = frozenset(
    {"Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath",
     "FilePath", "DirectoryPath", "NewPath"}
)  # fmt: skip
_PATH_NOTE = "A file system path."
# How many module-level names one name is followed through (``A = B``, ``B = Field(...)``).
_CONSTANT_DEPTH = 8
_FORMATTED = {
    "datetime": "date-time",
    "date": "date",
    "time": "time",
    "timedelta": "duration",
    "UUID": "uuid",
    "EmailStr": "email",
    "AnyUrl": "uri",
    "HttpUrl": "uri",
    "AnyHttpUrl": "uri",
    "IPv4Address": "ipv4",
    "IPv6Address": "ipv6",
}
_ARRAYS = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection", "set", "Set",
     "frozenset", "FrozenSet", "AbstractSet", "tuple", "Tuple", "Deque", "deque"}
)  # fmt: skip
_MAPS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict"})
_ANYS = frozenset({"Any", "object", "JsonValue"})
# Class-body annotations that declare no field: class variables, dataclass init-only values
# and the keyword-only marker.
_NOT_FIELDS = frozenset({"ClassVar", "InitVar", "KW_ONLY"})
_FIELD_CONSTRAINTS = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusive_minimum",
    "lt": "exclusive_maximum",
    "pattern": "pattern",
    "regex": "pattern",
}
# A length bound means items for an array, characters otherwise.
_LENGTHS = {"min_length": "min_items", "max_length": "max_items"}
_VALUE_OPTIONS = frozenset(
    {"enum", "minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "min_length",
     "max_length", "pattern", "format"}
)  # fmt: skip
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
class ImportResult:
    """The draft and the notices of everything not carried over exactly."""

    design: DraftDesign
    notices: list[Notice] = field(default_factory=list)


def import_python(
    paths: Path | Sequence[Path],
    *,
    service: str | None = None,
    toolset: str | None = None,
    all_functions: bool = False,
) -> ImportResult:
    """The tools of the Python files at ``paths`` as one design draft, a toolset per file.

    Types of the same name and content in several files are one type; a type whose name
    another file already gave a different type is renamed after its file (``BillingCustomer``),
    and so is a tool whose name another tool has (``search_2``), each with a notice.
    """
    files = [paths] if isinstance(paths, Path) else list(paths)
    if not files:
        raise UserError("no Python file to import")
    if len(files) > 1:
        if toolset:
            raise UserError(
                "--toolset names the toolset of one file; each of several files is a toolset "
                "named after the file"
            )
        if not service:
            raise UserError("several files make one service: name it with --service")
        seen: set[Path] = set()
        for path in files:
            if path.resolve() in seen:
                raise UserError(f"{path}: given twice")
            seen.add(path.resolve())
    drafts = [_Importer(path, _parse(path), all_functions).run(toolset) for path in files]
    return _one_design(drafts, sanitize_name(service or files[0].stem, identifier=True))


def _parse(path: Path) -> ast.Module:
    """The file's syntax tree, read in the encoding it declares (PEP 263; UTF-8 by default)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        line = _declaration_line(data)
        if line is not None:  # an unknown encoding, or one that disagrees with a BOM
            raise UserError(f"{path}:{line}: {exc.msg}") from None
        encoding = "utf-8"  # no declaration: the first lines are not UTF-8 (said below)
    try:
        source = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserError(
            f"{path}:{line}: not valid {encoding} text "
            f"(byte {data[exc.start]:#04x}): save the file as UTF-8 or declare its encoding "
            "(# -*- coding: ... -*-)"
        ) from None
    nul = source.find("\0")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        raise UserError(f"{path}:{line}: not valid Python: a NUL byte (is it a binary file?)")
    try:
        return ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        line = exc.lineno or 1
        text = source.splitlines()[line - 1] if line <= source.count("\n") + 1 else ""
        if sys.version_info < (3, 12) and re.match(r"\s*type\s+\w+\s*(\[.*\])?\s*=", text):
            raise UserError(
                f"{path}:{line}: a `type` statement needs Python 3.12 to read (this is "
                f"{sys.version_info.major}.{sys.version_info.minor}): run tooldesign with "
                "Python 3.12 or later, or write the alias as `Name: TypeAlias = ...`"
            ) from None
        raise UserError(f"{path}:{line}: not valid Python: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise UserError(f"{path}: not valid Python: nested too deeply to read") from None


def _declaration_line(data: bytes) -> int | None:
    """The line (1 or 2) of a file's encoding declaration, if it has one."""
    for number, line in enumerate(data.splitlines()[:2], start=1):
        if re.match(rb"^[ \t\f]*#.*?coding[:=]", line):
            return number
    return None


@dataclass
class _FileDraft:
    """One file's tools as a toolset, the types they use, and the notices."""

    path: Path
    toolset: DraftToolset
    types: dict[str, DraftNamedType]
    notices: list[Notice]


def _one_design(drafts: list[_FileDraft], service: str) -> ImportResult:
    """The files' toolsets in one service, with their types shared or named apart."""
    types: dict[str, DraftNamedType] = {}
    origins: dict[str, str] = {}  # design name → the class name in its file
    first_file: dict[str, str] = {}  # class name → the file that first defined it
    notices: list[Notice] = []
    toolsets: list[DraftToolset] = []
    tool_names: set[str] = set()
    toolset_names: set[str] = set()
    for draft in drafts:
        notices.extend(draft.notices)
        renamed = _share_types(draft, types, origins, first_file, notices)
        tools: list[DraftTool] = []
        for tool in draft.toolset.tools:
            name = unique_name(tool.name, tool_names)
            if name != tool.name:
                notices.append(
                    Notice(
                        f"tool {tool.name!r} ({tool.source})",
                        f"renamed to {name!r}: another tool has the name {tool.name!r}",
                    )
                )
            tool_names.add(name)
            tools.append(replace(renamed_tool(tool, renamed), name=name))
        toolset = unique_name(draft.toolset.name, toolset_names)
        if toolset != draft.toolset.name:
            notices.append(
                Notice(
                    f"toolset {draft.toolset.name!r} ({draft.path.name})",
                    f"renamed to {toolset!r}: another file's toolset has the name",
                )
            )
        toolset_names.add(toolset)
        toolsets.append(replace(draft.toolset, name=toolset, tools=tuple(tools)))
    names = ", ".join(d.path.name for d in drafts)
    design = DraftDesign(
        service=service,
        service_description=f"Tools imported from {names}",
        toolsets=tuple(toolsets),
        types=tuple(types.values()),
        header=(
            f"Tools of {names}, imported by `tooldesign import python`.\n\n"
            "Edit this design from now on; run `tooldesign gen` to generate the "
            + ("toolset." if len(drafts) == 1 else "toolsets.")
        ),
    )
    return ImportResult(design, notices)


def _share_types(
    draft: _FileDraft,
    types: dict[str, DraftNamedType],
    origins: dict[str, str],
    first_file: dict[str, str],
    notices: list[Notice],
) -> dict[str, str]:
    """Add a file's types to ``types``: the same as one there, shared; a different type of a
    name there, renamed. Returns the file's type names that changed (class name → design name)."""

    def same_origin(own: str, merged: str) -> bool:
        return origins.get(merged) == own

    shared: dict[str, str] = {}
    for name in draft.types:
        match = next(
            (
                existing
                for existing in types
                if origins[existing] == name
                and same_type(name, existing, draft.types, types, same_origin)
            ),
            None,
        )
        if match is not None:
            shared[name] = match
    renamed = dict(shared)
    for name in draft.types:
        if name in shared:
            continue
        new = name
        if name in types:
            new = unique_name(
                f"{pascal(draft.path.stem)}{name}", set(types) | set(renamed.values())
            )
            notices.append(
                Notice(
                    f"type {name!r} ({draft.path.name})",
                    f"not the same as the {name!r} of {first_file[name]}: written as {new!r}",
                )
            )
        renamed[name] = new
    for name, named in draft.types.items():
        if name not in shared:
            new = renamed[name]
            types[new] = renamed_named_type(named, renamed)
            origins[new] = name
            first_file.setdefault(name, draft.path.name)
    return {old: new for old, new in renamed.items() if old != new}


@dataclass
class _Mapped:
    """An annotation as the DSL can say it: a type, attribute options, and what else it said."""

    type: DraftType
    options: dict[str, Any] = field(default_factory=dict)
    description: str | None = None
    nullable: bool = False
    default: Any = None
    has_default: bool = False
    context: bool = False
    """A framework's parameter (``Annotated[str, InjectedToolArg]``): not the model's."""
    required: bool | None = None
    """``Required[...]`` / ``NotRequired[...]`` in a TypedDict."""
    note: str | None = None
    """A description for a value whose type says more than the design can (a ``Path``), used
    when nothing else describes it."""


_NO_DEFAULT = object()


@dataclass
class _Found:
    """A tool function: its definition, its tool decorator, its dotted name in the file, and
    whether it is a method (its first parameter is the instance or class, not the model's)."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    decorator: ast.expr | None
    qualified_name: str
    method: bool
    class_scope: str = ""
    """The class it is defined in (its qualified name), where its annotations are read."""


class _Importer:
    def __init__(self, path: Path, module: ast.Module, all_functions: bool) -> None:
        self.path = path
        self.module = module
        self.all_functions = all_functions
        self.notices: list[Notice] = []
        self.classes = _classes(module)  # qualified name (``Tank.Shrimp``) → class
        self.qualified_names = {id(node): name for name, node in self.classes.items()}
        self.type_names = _type_names(self.classes)  # qualified name → design type name
        self.constants = _module_constants(module)
        self.server_library = _server_library(module)
        self.types: dict[str, DraftNamedType | None] = {}  # None while being built
        self.where = ""
        self.scope = ""  # the class whose body (or method) is being read
        self.expanding: set[str] = set()  # type aliases being read (a recursive one stops)
        self.constant_values: dict[str, Any] = {}  # module-level names' values, once read

    def notice(self, message: str, where: str | None = None) -> None:
        self.notices.append(Notice(where or self.where, message))

    # ── the file ──────────────────────────────────────────────────────────────────────────

    def run(self, toolset: str | None) -> _FileDraft:
        functions = list(self.tool_functions())
        if not functions:
            hint = "" if self.all_functions else " (decorate them with @tool, or pass --all)"
            raise UserError(f"{self.path}: no tool functions found{hint}; nothing written")
        tools = [self.tool(found) for found in functions]
        module_doc = parse_docstring(ast.get_docstring(self.module)).summary
        name = sanitize_name(toolset or self.path.stem, identifier=True)
        return _FileDraft(
            self.path,
            DraftToolset(name, module_doc or f"Tools imported from {self.path.name}", tuple(tools)),
            {name: t for name, t in self.types.items() if t is not None},
            self.notices,
        )

    def tool_functions(self) -> Iterator[_Found]:
        """Tool functions anywhere in the file, in source order: module-level functions,
        methods (``class Toolbox: @tool def search(self, …)``) and functions defined inside
        others (``def register(mcp): @mcp.tool() def search(…)``). With ``all_functions``,
        also every public module-level function."""

        def walk(node: ast.AST, scope: str, owner: ast.ClassDef | None) -> Iterator[_Found]:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    decorator = next(
                        (d for d in child.decorator_list if _is_tool_decorator(d)), None
                    )
                    public = node is self.module and not child.name.startswith("_")
                    if decorator is not None or (self.all_functions and public):
                        owner_name = scope.rstrip(".") if owner is not None else ""
                        yield _Found(
                            child,
                            decorator,
                            f"{scope}{child.name}",
                            _is_method(child, owner),
                            owner_name if owner_name in self.classes else "",
                        )
                    yield from walk(child, f"{scope}{child.name}.", None)
                elif isinstance(child, ast.ClassDef):
                    yield from walk(child, f"{scope}{child.name}.", child)
                elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                    yield from walk(child, scope, owner)  # if/try/with/match blocks

        yield from walk(self.module, "", None)

    # ── one tool ──────────────────────────────────────────────────────────────────────────

    def tool(self, found: _Found) -> DraftTool:
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
        examples, leftover = self.examples(doc, args, order)
        if leftover:
            description = "\n\n".join(
                [description, *(f"Example: {text}" for text in leftover)]
            ).strip()
        if not description:
            description = _humanize(function.name)
            self.notice(f"no docstring or description; described as {description!r}")
        # structured_output=False: the MCP SDK sends the result as text only, never wrapped.
        server = None if options.get("structured_output") is False else self.server_wraps(decorator)
        result = self.result(function, doc, server)
        self.scope = ""
        return DraftTool(
            name=name,
            description=description,
            args=tuple(args),
            result=result,
            title=_text_option(options, "title"),
            examples=tuple(examples),
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
        if model is None or not (self.is_model(model) or _is_typed_dict(model)):
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

    def server_wraps(self, decorator: ast.expr | None) -> str | None:
        """The MCP server library (``"mcp"``, ``"fastmcp"``) that serves this tool, whose
        wrapping of results (``{"result": …}``) the design must mirror; ``None`` for others."""
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "tool":
            return self.server_library
        return None

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
            annotation = _parse_expression(written)
            if annotation is None:
                self.notice(f"its docstring type {written!r} cannot be read: typed Any", where)
                annotation = ast.Name("Any")
        if (annotation is None and arg.arg in _CONTEXT_NAMES) or self.is_context(annotation):
            self.notice("a framework context parameter, not the model's: left out", where)
            return None
        if annotation is None:
            self.notice("no annotation: typed Any", where)
            mapped = _Mapped(ANY)
        else:
            mapped = self.annotation(annotation, where)
        if mapped.context:
            self.notice("a framework context parameter, not the model's: left out", where)
            return None
        default_value, field_options = self.default(default, where)
        if field_options is not None:
            mapped = self.with_field(mapped, field_options, where)
        if default_value is _NO_DEFAULT and mapped.has_default:
            default_value = mapped.default
        required = default_value is _NO_DEFAULT
        if required and mapped.nullable:
            self.notice("may be None but has no default: written as optional", where)
            required = False
        description = mapped.description or doc.params.get(arg.arg) or mapped.note
        return self.attribute(arg.arg, mapped, description, required, default_value, where)

    def attribute(
        self,
        name: str,
        mapped: _Mapped,
        description: str | None,
        required: bool,
        default: Any,
        where: str,
    ) -> DraftAttribute:
        options: dict[str, Any] = {}
        # Only JSON data can be written in a design and shown to a model (not b"", 1j, inf).
        for key, value in mapped.options.items():
            if not is_json(value):
                self.notice(f"its {key} {_shown(value)} is not JSON data; left out", where)
            elif key == "example" and not accepts(mapped.type, mapped.options, value, self.types):
                self.notice(f"its example {_shown(value)} does not fit its type; left out", where)
            else:
                options[key] = value
        if default is not _NO_DEFAULT and default is not None:
            if not is_json(default):
                self.notice(f"its default {_shown(default)} is not JSON data; left out", where)
            elif accepts(mapped.type, options, default, self.types):
                options["default"] = default
            else:
                self.notice(f"its default {_shown(default)} does not fit its type; left out", where)
        return DraftAttribute(name, mapped.type, description, required, options)

    def default(self, node: ast.expr | None, where: str) -> tuple[Any, dict[str, Any] | None]:
        """The default value (or ``_NO_DEFAULT``) and, for ``= Field(...)`` (pydantic) or
        ``= field(...)`` (dataclasses), the call's options. A module-level name is read
        through (``= LIMIT_FIELD``, ``LIMIT_FIELD = Field(10, ge=1)``)."""
        if node is None:
            return _NO_DEFAULT, None
        written = node
        node = self.resolved(node)
        if isinstance(node, ast.Call) and _call_name(node) in ("Field", "field"):
            options = self.call_options(node)
            value: Any = _NO_DEFAULT
            if node.args:
                value = self.value(node.args[0])
                if _is_ellipsis(self.resolved(node.args[0])):
                    value = _NO_DEFAULT
            elif "default" in options:
                value = options["default"]
            if "default_factory" in {k.arg for k in node.keywords}:
                value = None  # optional, its value made at run time
            return value, options
        value = self.value(node)
        if value is _NO_DEFAULT:
            self.notice(
                f"its default {ast.unparse(written)} is not a literal: written as optional "
                "without a default",
                where,
            )
            return None, None
        return value, None

    def resolved(self, node: ast.expr) -> ast.expr:
        """``node``, or what a module-level name it is was bound to (``LIMIT = Field(...)``,
        ``Status = Literal[...]``, ``DESCRIPTION = "..."``), followed a few names deep."""
        for _ in range(_CONSTANT_DEPTH):
            if not isinstance(node, ast.Name) or node.id not in self.constants:
                break
            node = self.constants[node.id]
        return node

    def value(self, node: ast.expr) -> Any:
        """A literal's value, with a local Enum's members as their values (``Priority.LOW`` →
        ``"low"``, what code-first libraries put in a schema) and module-level names read
        through; ``_NO_DEFAULT`` if it is not one."""
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constant_value(node.id)
        value = _literal(node, _NO_DEFAULT)
        if value is not _NO_DEFAULT:
            return value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
            qualified = self.class_named(node.value)
            enum = self.classes.get(qualified) if qualified is not None else None
            if enum is not None and _is_enum(enum):
                return _enum_members(enum).get(node.attr, _NO_DEFAULT)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = [self.value(item) for item in node.elts]
            if any(item is _NO_DEFAULT for item in items):
                return _NO_DEFAULT
            return sorted(items, key=repr) if isinstance(node, ast.Set) else items
        if isinstance(node, ast.Dict) and None not in node.keys:
            keys = [self.value(key) for key in node.keys if key is not None]
            values = [self.value(item) for item in node.values]
            if _NO_DEFAULT in keys or any(item is _NO_DEFAULT for item in values):
                return _NO_DEFAULT
            return dict(zip(keys, values, strict=True))
        if (
            isinstance(node, ast.Call)
            and _call_name(node) in _PATHS
            and len(node.args) == 1
            and not node.keywords
        ):  # Path("out"): a path is its text
            path = self.value(node.args[0])
            return path if isinstance(path, str) else _NO_DEFAULT
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # PREFIX + "text"
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, str) and isinstance(right, str):
                return left + right
        return _NO_DEFAULT

    def constant_value(self, name: str) -> Any:
        """The value of a module-level name, worked out once; ``_NO_DEFAULT`` for one bound to
        an expression of itself (``A = A + "x"``), which has none."""
        if name not in self.constant_values:
            self.constant_values[name] = _NO_DEFAULT  # while it is worked out: a cycle ends
            self.constant_values[name] = self.value(self.constants[name])
        return self.constant_values[name]

    def call_options(self, call: ast.Call) -> dict[str, Any]:
        """The keyword arguments of a call whose values are literals (others are skipped)."""
        out: dict[str, Any] = {}
        for keyword in call.keywords:
            if keyword.arg is not None:
                value = self.value(keyword.value)
                if value is not _NO_DEFAULT:
                    out[keyword.arg] = value
        return out

    def is_context(self, node: ast.expr | None) -> bool:
        """A framework's parameter type, unless this file defines a type of that name (a
        pydantic model called ``Request`` or ``Context`` is the model's)."""
        return _is_context(None if node is None else self.resolved(node), self.data_class_names)

    @cached_property
    def data_class_names(self) -> frozenset[str]:
        """The names of the file's classes the design can take as types (read once)."""
        return frozenset(
            name.rsplit(".", 1)[-1] for name, c in self.classes.items() if self.is_data(c)
        )

    def is_data(self, node: ast.ClassDef) -> bool:
        """A class the design can take as a type: a pydantic model, a TypedDict, a dataclass
        or an Enum."""
        return self.is_model(node) or _is_typed_dict(node) or _is_dataclass(node) or _is_enum(node)

    def class_named(self, node: ast.expr) -> str | None:
        """The qualified name of the file's class ``node`` names, if it names one: ``Shrimp``
        inside ``class Tank`` is ``Tank.Shrimp``; ``models.Item`` is the file's ``Item``."""
        dotted = _dotted(node)
        if dotted is None:
            return None
        scope = self.scope.split(".") if self.scope else []
        for depth in range(len(scope), -1, -1):
            candidate = ".".join([*scope[:depth], dotted])
            if candidate in self.classes:
                return candidate
        last = dotted.rsplit(".", 1)[-1]
        return last if last in self.classes else None

    # ── annotations ───────────────────────────────────────────────────────────────────────

    def annotation(self, node: ast.expr, where: str) -> _Mapped:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parsed = _parse_expression(node.value)
            if parsed is None:
                self.notice(f"annotation {node.value!r} cannot be read: typed Any", where)
                return _Mapped(ANY)
            return self.annotation(parsed, where)
        if isinstance(node, ast.Constant) and node.value is None:
            return _Mapped(ANY, nullable=True)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.union([*_flatten_or(node)], where)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, where)
        qualified = self.class_named(node)
        if qualified is not None:
            return self.local_class(qualified, where)
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.alias(node, where)
        name = _last_name(node)
        if name in _PRIMITIVES:
            return _Mapped(_PRIMITIVES[name])
        if name in _ANYS:
            return _Mapped(ANY)
        if name in _FORMATTED:
            return _Mapped(STRING, {"format": _FORMATTED[name]})
        if name in _PATHS:
            return _Mapped(STRING, note=_PATH_NOTE)
        if name in _ARRAYS:
            return _Mapped(ArrayOf(ANY))
        if name in _MAPS:
            return _Mapped(MapOf(ANY))
        self.notice(f"type {ast.unparse(node)} has no design equivalent: typed Any", where)
        return _Mapped(ANY)

    def alias(self, node: ast.Name, where: str) -> _Mapped:
        """A module-level type alias: ``Status = Literal[...]``, ``Ids: TypeAlias = list[int]``,
        ``type Ids = list[int]``, ``UserId = NewType("UserId", str)``."""
        if node.id in self.expanding:
            self.notice(f"type {node.id} is a recursive alias: typed Any", where)
            return _Mapped(ANY)
        self.expanding.add(node.id)
        try:
            return self.alias_target(node, where)
        finally:
            self.expanding.discard(node.id)

    def alias_target(self, node: ast.Name, where: str) -> _Mapped:
        target = self.resolved(node)
        if (
            isinstance(target, ast.Call)
            and _call_name(target) in ("NewType", "TypeAliasType")
            and len(target.args) == 2
        ):
            target = target.args[1]
        if isinstance(target, ast.Name) and target.id in self.constants:
            self.notice(f"type {node.id} is an alias too deep to follow: typed Any", where)
            return _Mapped(ANY)
        if isinstance(target, ast.Call):
            self.notice(
                f"type {node.id} = {ast.unparse(target)} has no design equivalent: typed Any",
                where,
            )
            return _Mapped(ANY)
        return self.annotation(target, where)

    def subscript(self, node: ast.Subscript, where: str) -> _Mapped:
        base = _last_name(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        match base:
            case "Optional":
                mapped = self.annotation(args[0], where)
                mapped.nullable = True
                return mapped
            case "Union":
                return self.union(args, where)
            case "Annotated":
                return self.annotated(args[0], args[1:], where)
            case "Literal":
                return self.literal(args, where)
            case "Required" | "NotRequired":
                mapped = self.annotation(args[0], where)
                mapped.required = base == "Required"
                return mapped
            case "ClassVar" | "Final":
                return self.annotation(args[0], where)
        if base in _ARRAYS:
            if (
                base in ("tuple", "Tuple")
                and not (len(args) == 2 and _is_ellipsis(args[1]))
                and len(args) != 1
            ):
                self.notice(f"a fixed-length tuple {ast.unparse(node)} is written as a list", where)
            item = self.annotation(args[0], where)
            return self.array(item, where)
        if base in _MAPS:
            if len(args) == 2 and _last_name(args[0]) not in ("str", None):
                self.notice(
                    f"map keys {ast.unparse(args[0])} are written as strings (JSON object keys)",
                    where,
                )
            values = self.annotation(args[-1], where) if len(args) == 2 else _Mapped(ANY)
            if values.options:
                self.notice(
                    f"constraints on the values of {ast.unparse(node)} cannot be kept", where
                )
            return _Mapped(MapOf(values.type))
        return self.annotation(node.value, where)

    def array(self, item: _Mapped, where: str) -> _Mapped:
        # Value constraints on an array's items are the attribute's (the DSL puts them on items).
        if item.nullable:
            self.notice("list items that may be None are written as non-null items", where)
        return _Mapped(ArrayOf(item.type), dict(item.options))

    def union(self, members: list[ast.expr], where: str) -> _Mapped:
        nullable = any(_is_none(m) for m in members)
        kept = [self.annotation(m, where) for m in members if not _is_none(m)]
        if len(kept) == 1:
            kept[0].nullable = kept[0].nullable or nullable
            return kept[0]
        variants: list[DraftType] = []
        for mapped in kept:
            if mapped.options:
                self.notice("constraints on union members cannot be kept", where)
            if mapped.type not in variants:
                variants.append(mapped.type)
        if ANY in variants:
            return _Mapped(ANY, nullable=nullable)
        return _Mapped(OneOf(tuple(variants)), nullable=nullable)

    def literal(self, values: list[ast.expr], where: str) -> _Mapped:
        constants = [_literal(v, _NO_DEFAULT) for v in values]
        nullable = None in constants
        constants = [c for c in constants if c is not None]
        kinds = {type(c) for c in constants}
        if _NO_DEFAULT in constants or len(kinds) != 1 or kinds - {str, int, bool}:
            self.notice("a Literal of mixed or unsupported values: typed Any", where)
            return _Mapped(ANY, nullable=nullable)
        kind = kinds.pop()
        base = {str: STRING, int: INT, bool: BOOLEAN}[kind]
        return _Mapped(base, {"enum": constants}, nullable=nullable)

    def annotated(self, inner: ast.expr, metadata: list[ast.expr], where: str) -> _Mapped:
        if any(self.is_context(m) for m in metadata):
            return _Mapped(ANY, context=True)
        mapped = self.annotation(inner, where)
        for item in map(self.resolved, metadata):
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                mapped.description = item.value
            elif _call_name(item) == "Field" and isinstance(item, ast.Call):
                options = self.call_options(item)
                mapped = self.with_field(mapped, options, where)
                if "default" in options:
                    mapped.default, mapped.has_default = options["default"], True
        return mapped

    def with_field(self, mapped: _Mapped, options: dict[str, Any], where: str) -> _Mapped:
        """``mapped`` with what a pydantic ``Field(...)`` says about it."""
        out = replace(mapped, options=dict(mapped.options))
        is_array = isinstance(mapped.type, ArrayOf)
        for key, value in options.items():
            if key == "description" and isinstance(value, str):
                out.description = value
            elif key in _FIELD_CONSTRAINTS:
                out.options[_FIELD_CONSTRAINTS[key]] = value
            elif key in _LENGTHS:
                out.options[_LENGTHS[key] if is_array else key] = value
            elif key == "examples" and isinstance(value, list) and value:
                out.options["example"] = value[0]
        return out

    def local_class(self, qualified: str, where: str) -> _Mapped:
        node = self.classes[qualified]
        if _is_enum(node):
            return self.enum_class(node, where)
        name = self.type_names[qualified]
        if name not in self.types:
            if self.is_model(node) or _is_typed_dict(node) or _is_dataclass(node):
                self.types[name] = None  # being built: a recursive reference finds it
                self.types[name] = self.named_type(qualified)
            else:
                self.notice(
                    f"class {qualified} is not a pydantic model, TypedDict, dataclass or Enum: "
                    "typed Any",
                    where,
                )
                return _Mapped(ANY)
        return _Mapped(Named(name))

    def is_model(self, node: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        """A pydantic model: it derives from ``BaseModel`` (or ``RootModel``), perhaps
        through other classes of the file."""
        for base in node.bases:
            if _last_name(base) in ("BaseModel", "RootModel"):
                return True
            parent = self.base_class(node, base)
            if (
                parent is not None
                and parent not in seen
                and self.is_model(self.classes[parent], seen | {parent})
            ):
                return True
        return False

    def base_class(self, node: ast.ClassDef, base: ast.expr) -> str | None:
        """The qualified name of the file's class that ``node`` derives from as ``base``."""
        own = self.qualified_names[id(node)]
        saved, self.scope = self.scope, own.rpartition(".")[0]
        try:
            parent = self.class_named(base)
        finally:
            self.scope = saved
        return parent if parent != own else None

    def enum_class(self, node: ast.ClassDef, where: str) -> _Mapped:
        values = list(_enum_members(node).values())
        kinds = {type(v) for v in values}
        if not values or len(kinds) != 1 or kinds - {str, int}:
            self.notice(f"enum {node.name} has values the design cannot list: typed Any", where)
            return _Mapped(ANY)
        return _Mapped(STRING if kinds == {str} else INT, {"enum": values})

    def named_type(self, qualified: str) -> DraftNamedType:
        node = self.classes[qualified]
        name = self.type_names[qualified]
        where = f"type {name} ({self.path.name}:{node.lineno})"
        total = all(
            not (k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in node.keywords
        )
        saved, self.scope = self.scope, qualified  # its nested classes are in scope
        try:
            attributes = [*self.inherited(node), *self.class_fields(node, total, where)]
        finally:
            self.scope = saved
        doc = parse_docstring(ast.get_docstring(node))
        return DraftNamedType(name, doc.description or None, tuple(attributes))

    def inherited(self, node: ast.ClassDef) -> list[DraftAttribute]:
        out: list[DraftAttribute] = []
        for base in node.bases:
            parent = self.base_class(node, base)
            if parent is not None:
                self.local_class(parent, f"type {self.type_names[self.qualified_names[id(node)]]}")
                named = self.types.get(self.type_names[parent])
                if named is not None:
                    out.extend(named.attributes)
        return out

    def class_fields(self, node: ast.ClassDef, total: bool, where: str) -> list[DraftAttribute]:
        out: list[DraftAttribute] = []
        body = node.body
        doc = parse_docstring(ast.get_docstring(node))
        model = self.is_model(node)
        for index, item in enumerate(body):
            if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
                continue
            name = item.target.id
            if (
                name == "model_config"
                or (name.startswith("_") and model)  # pydantic's private attributes
                or _last_name(item.annotation) in _NOT_FIELDS
                or (
                    isinstance(item.annotation, ast.Subscript)
                    and _last_name(item.annotation.value) in _NOT_FIELDS
                )
            ):
                continue
            field_where = f"{where} › field {name!r}"
            mapped = self.annotation(item.annotation, field_where)
            default_value, field_options = self.default(item.value, field_where)
            wire = name
            if field_options is not None:
                mapped = self.with_field(mapped, field_options, field_where)
                alias = field_options.get("alias") or field_options.get("validation_alias")
                if isinstance(alias, str):
                    wire = alias
            if default_value is _NO_DEFAULT and mapped.has_default:
                default_value = mapped.default
            required = (
                mapped.required
                if mapped.required is not None
                else (total and default_value is _NO_DEFAULT)
            )
            if required and mapped.nullable:
                self.notice("may be None but has no default: written as optional", field_where)
                required = False
            description = (
                mapped.description
                or doc.params.get(name)
                or _attribute_docstring(body, index)
                or mapped.note
            )
            out.append(
                self.attribute(wire, mapped, description, required, default_value, field_where)
            )
        return out

    # ── examples and results ──────────────────────────────────────────────────────────────

    def examples(
        self, doc: Docstring, args: list[DraftAttribute], order: list[str]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """Docstring examples that are argument sets, and the texts of those that are not."""
        by_name = {a.name: a for a in args}
        found: list[dict[str, Any]] = []
        leftover: list[str] = []
        for text in doc.examples:
            values = [_example_arguments(line, order) for line in _example_lines(text)]
            parsed = [v for v in values if v is not None]
            if not parsed:
                leftover.append(text)
                continue
            for example in parsed:
                if (
                    set(example) <= set(by_name)
                    and all(
                        accepts(by_name[k].type, by_name[k].options, v, self.types)
                        for k, v in example.items()
                    )
                    and all(k in example for k, a in by_name.items() if a.required)
                ):
                    if example not in found:
                        found.append(example)
                else:
                    self.notice(
                        f"example {json.dumps(example)} does not fit the parameters; left out"
                    )
        return found, leftover

    def result(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        doc: Docstring,
        server: str | None,
    ) -> DraftResult | None:
        """The tool's result; ``server``, the MCP library serving it (see :meth:`server_wraps`)."""
        annotation = function.returns
        description = doc.returns or None
        where = f"{self.where} › result"
        if annotation is None and doc.return_type:
            annotation = _parse_expression(doc.return_type)
            if annotation is None:
                self.notice(
                    f"its docstring type {doc.return_type!r} cannot be read: typed Any", where
                )
        if annotation is None:
            return DraftResult(ANY, description)
        if isinstance(annotation, ast.Constant) and annotation.value is None:
            return None
        mapped = self.annotation(annotation, where)
        # A design carries a result that is not an object as {"result": …}, like MCP servers
        # do; where the server wraps a result the design would not (the MCP SDK wraps a
        # typed Dict or any Optional; FastMCP an Optional), the design's result is the
        # wrapper, so that it is what the server's clients receive.
        wrapped = mapped.nullable if server == "fastmcp" else False
        if server == "mcp" and self.mcp_sdk_wraps(annotation):
            wrapped = mapped.nullable or is_object(mapped.type)
        if wrapped:
            library = "FastMCP" if server == "fastmcp" else "the MCP SDK"
            self.notice(
                f'{library} sends it as {{"{WRAPPED_RESULT_KEY}": …}}: the design\'s result is '
                "that object" + (" (its value may be None: optional)" if mapped.nullable else ""),
                where,
            )
            value = self.attribute(
                WRAPPED_RESULT_KEY,
                mapped,
                mapped.description or description,
                not mapped.nullable,
                _NO_DEFAULT,
                where,
            )
            return DraftResult(None, None, (value,))
        if mapped.nullable:
            self.notice("may return None; the design says it returns a value", where)
        if mapped.options:
            self.notice("constraints on the result type are not kept", where)
        return DraftResult(mapped.type, mapped.description or description)

    def mcp_sdk_wraps(self, annotation: ast.expr) -> bool:
        """Whether the MCP SDK sends a result of this type as ``{"result": …}``: all but
        a model, TypedDict or dataclass, a ``dict[str, X]`` (the builtin, subscripted;
        ``typing.Dict[str, X]`` is wrapped) and a bare ``dict`` (sent as text only)."""
        node = self.resolved(annotation)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node = _parse_expression(node.value) or node
        if isinstance(node, ast.Subscript) and _last_name(node.value) == "Annotated":
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            node = self.resolved(parts[0])
        if isinstance(node, ast.Subscript):
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return not (
                isinstance(node.value, ast.Name)
                and node.value.id == "dict"
                and len(args) == 2
                and _last_name(args[0]) == "str"
            )
        if isinstance(node, ast.Name) and node.id == "dict":
            return False
        return self.class_named(node) is None


# ── helpers over the syntax tree ──────────────────────────────────────────────────────────


def _is_tool_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id in _TOOL_DECORATORS) or (
        isinstance(target, ast.Attribute) and target.attr in _TOOL_DECORATORS
    )


def _text_option(options: dict[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` the options give a non-empty text for."""
    for key in keys:
        value = options.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _classes(module: ast.Module) -> dict[str, ast.ClassDef]:
    """The module's classes and the classes nested in them, by qualified name (``Tank.Shrimp``)."""
    found: dict[str, ast.ClassDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                found[f"{prefix}{node.name}"] = node
                visit(node.body, f"{prefix}{node.name}.")

    visit(module.body, "")
    return found


def _type_names(classes: dict[str, ast.ClassDef]) -> dict[str, str]:
    """A design type name per class: its own name (as pydantic names its schema), or, for a
    nested class whose name another class has, its qualified name in one word
    (``TankShrimp``). Module-level classes keep theirs."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for qualified in sorted(classes, key=lambda q: q.count(".")):
        name = qualified.rsplit(".", 1)[-1]
        if name in taken:
            name = unique_name(pascal(qualified), taken)
        names[qualified] = name
        taken.add(name)
    return names


def _module_constants(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound once to an expression: ``NAME = expr``, ``NAME: T = expr``,
    ``type NAME = expr`` (Python 3.12). A name bound more than once is left out: which value
    it has depends on the run."""
    bound: dict[str, ast.expr | None] = {}
    type_alias = getattr(ast, "TypeAlias", None)  # the `type` statement, Python 3.12+
    for node in module.body:
        name: str | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            name, value = (target.id if isinstance(target, ast.Name) else None), node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, value = node.target.id, node.value
        elif type_alias is not None and isinstance(node, type_alias):
            name, value = node.name.id, node.value
        if name is not None and value is not None:
            bound[name] = None if name in bound else value
    return {name: value for name, value in bound.items() if value is not None}


def _server_library(module: ast.Module) -> str | None:
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


def _dotted(node: ast.expr) -> str | None:
    """``A.B`` for the expression ``A.B`` (names and attributes only)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _literal(node: ast.expr, fallback: Any) -> Any:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return fallback
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, tuple):
        return list(value)
    return value


def _call_name(node: ast.expr) -> str | None:
    return _last_name(node.func) if isinstance(node, ast.Call) else None


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _last_name(node.value)
    return None


def _is_context(node: ast.expr | None, local: frozenset[str]) -> bool:
    """A framework's parameter type: ``Context``, ``RunContext[Deps]``, ``Annotated[.., InjectedToolArg]``
    (a name in ``local``, a type the file defines, is not one)."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = _parse_expression(node.value)
        if node is None:
            return False
    if isinstance(node, ast.Subscript) and _last_name(node.value) == "Annotated":
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(_is_context(p, local) for p in parts[1:])
    if isinstance(node, ast.Subscript) and _last_name(node.value) in ("Optional",):
        return _is_context(node.slice, local)
    if isinstance(node, ast.BinOp):
        return any(_is_context(m, local) for m in _flatten_or(node) if not _is_none(m))
    name = _last_name(node)
    return name in CONTEXT_TYPES and name not in local


def _is_method(
    function: ast.FunctionDef | ast.AsyncFunctionDef, owner: ast.ClassDef | None
) -> bool:
    """A function of a class body that takes the instance or class first (not a staticmethod)."""
    return owner is not None and all(
        _last_name(d) != "staticmethod" for d in function.decorator_list
    )


def _is_enum(node: ast.ClassDef) -> bool:
    return any(_last_name(b) in ("Enum", "StrEnum", "IntEnum") for b in node.bases)


def _is_typed_dict(node: ast.ClassDef) -> bool:
    return any(_last_name(b) == "TypedDict" for b in node.bases)


def _is_dataclass(node: ast.ClassDef) -> bool:
    """Decorated ``@dataclass``, ``@dataclass(...)``, ``@dataclasses.dataclass`` or pydantic's
    ``@pydantic.dataclasses.dataclass``."""
    return any(
        _last_name(d.func if isinstance(d, ast.Call) else d) == "dataclass"
        for d in node.decorator_list
    )


def _enum_members(node: ast.ClassDef) -> dict[str, Any]:
    """An Enum's members and their values (``_NO_DEFAULT`` for one that is not a literal)."""
    return {
        item.targets[0].id: _literal(item.value, _NO_DEFAULT)
        for item in node.body
        if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name)
    }


def _shown(value: Any) -> str:
    """A value for a message, kept short."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _flatten_or(node: ast.expr) -> Iterator[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from _flatten_or(node.left)
        yield from _flatten_or(node.right)
    else:
        yield node


def _is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or _last_name(node) == "NoneType"


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _parse_expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


def _attribute_docstring(body: list[ast.stmt], index: int) -> str | None:
    """The string right after a class attribute (what pydantic reads as its docstring)."""
    if index + 1 < len(body):
        nxt = body[index + 1]
        if (
            isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            return " ".join(nxt.value.value.split())
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


def _example_lines(text: str) -> list[str]:
    """The candidate example values in an example's text: the whole text, or each line."""
    lines = [re.sub(r"^(>>>|\.\.\.)\s?", "", line).strip() for line in text.splitlines()]
    joined = " ".join(line for line in lines if line)
    candidates = [joined] if joined else []
    if len(lines) > 1:
        candidates.extend(line for line in lines if line)
    return candidates


def _example_arguments(text: str, order: list[str]) -> dict[str, Any] | None:
    """``{"city": "Paris"}`` from ``{"city": "Paris"}``, its JSON, or ``get_weather("Paris")``."""
    text = text.strip().rstrip(";")
    try:
        value = json.loads(text)
    except ValueError:
        node = _parse_expression(text)
        if node is None:
            return None
        if isinstance(node, ast.Call):
            positional = [_literal(a, _NO_DEFAULT) for a in node.args]
            keywords = {k.arg: _literal(k.value, _NO_DEFAULT) for k in node.keywords if k.arg}
            if (
                _NO_DEFAULT in positional
                or _NO_DEFAULT in keywords.values()
                or len(positional) > len(order)
            ):
                return None
            return {**dict(zip(order, positional, strict=False)), **keywords}
        value = _literal(node, _NO_DEFAULT)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return value
    return None
