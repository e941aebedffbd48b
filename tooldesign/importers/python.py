"""``tooldesign import python``: code-first tool functions read into a design draft.

Each file is parsed with ``ast`` (in the encoding it declares) and never imported or run. Tool
functions are those decorated with ``@tool``, ``@tool(...)``, ``@<anything>.tool`` or
``@<anything>.tool(...)`` (FastMCP, the MCP SDK, LangChain, pydantic-ai and most others)
anywhere in the file (methods, and functions defined inside others, included), or, with
``all_functions``, every public module-level function. For each: its name (or the decorator's
``name=``), its description (the decorator's ``description=``, or the docstring's first
paragraph), its parameters (or a LangChain ``args_schema=`` model's fields) with their
annotations (or the types the docstring writes), defaults and docstring descriptions, examples
from the docstring, and its return type. Pydantic models, TypedDicts and Enums defined in the
same file become design types; a local Enum's member as a default is its value.

Several files make one design: a toolset per file in one service.

What cannot be carried over exactly becomes the closest faithful form, with a :class:`Notice`:
an annotation the DSL cannot express becomes ``Any``; a framework's context parameter
(``ctx: Context``, ``RunContext[...]``, ``InjectedToolArg``…) is left out — the framework, not
the model, supplies it.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
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
)
from tooldesign.importers.shared_types import renamed_named_type, renamed_tool, same_type
from tooldesign.importers.values import accepts, is_json, sanitize_name, unique_name

# Types whose parameters a framework fills in, never the model (matched by the last name).
CONTEXT_TYPES = frozenset(
    {
        "Context",
        "RunContext",
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
        raise UserError(f"{path}:{exc.lineno or 1}: not valid Python: {exc.msg}") from None
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
                f"{_pascal(draft.path.stem)}{name}", set(types) | set(renamed.values())
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


_NO_DEFAULT = object()


@dataclass
class _Found:
    """A tool function: its definition, its tool decorator, its dotted name in the file, and
    whether it is a method (its first parameter is the instance or class, not the model's)."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    decorator: ast.expr | None
    qualified_name: str
    method: bool


class _Importer:
    def __init__(self, path: Path, module: ast.Module, all_functions: bool) -> None:
        self.path = path
        self.module = module
        self.all_functions = all_functions
        self.notices: list[Notice] = []
        self.classes = {node.name: node for node in module.body if isinstance(node, ast.ClassDef)}
        self.types: dict[str, DraftNamedType | None] = {}  # None while being built
        self.where = ""

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
                        yield _Found(
                            child, decorator, f"{scope}{child.name}", _is_method(child, owner)
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
        options = _decorator_options(decorator)
        raw_name = _text_option(options, "name") or function.name
        name = sanitize_name(raw_name)
        self.where = f"tool {name!r} ({self.path.name}:{function.lineno})"
        if name != raw_name:
            self.notice(f"the name {raw_name!r} is not a valid tool name; written as {name!r}")
        doc = parse_docstring(ast.get_docstring(function))
        description = _text_option(options, "description") or doc.summary
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
        result = self.result(function, doc)
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
        name = _last_name(node)
        model = self.classes.get(name) if name is not None else None
        if model is None or not (self.is_model(model) or _is_typed_dict(model)):
            self.notice(
                f"args_schema={ast.unparse(node)} is not a pydantic model or TypedDict of this "
                "file: the arguments are read from the signature"
            )
            return None
        return self.named_type(model)

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
        description = mapped.description or doc.params.get(arg.arg) or None
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
        """The default value (or ``_NO_DEFAULT``) and, for ``= Field(...)``, its options."""
        if node is None:
            return _NO_DEFAULT, None
        if _call_name(node) == "Field":
            call = node
            assert isinstance(call, ast.Call)
            options = self.call_options(call)
            value: Any = _NO_DEFAULT
            if call.args:
                value = self.value(call.args[0])
                if isinstance(call.args[0], ast.Constant) and call.args[0].value is Ellipsis:
                    value = _NO_DEFAULT
            elif "default" in options:
                value = options["default"]
            if "default_factory" in {k.arg for k in call.keywords}:
                value = None  # optional, its value made at run time
            return value, options
        value = self.value(node)
        if value is _NO_DEFAULT:
            self.notice(
                f"its default {ast.unparse(node)} is not a literal: written as optional without a default",
                where,
            )
            return None, None
        return value, None

    def value(self, node: ast.expr) -> Any:
        """A literal's value, with a local Enum's members as their values (``Priority.LOW`` →
        ``"low"``, what code-first libraries put in a schema); ``_NO_DEFAULT`` if it is not one."""
        value = _literal(node, _NO_DEFAULT)
        if value is not _NO_DEFAULT:
            return value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
            enum = self.classes.get(_last_name(node.value) or "")
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
        return _NO_DEFAULT

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
        return _is_context(node, frozenset(n for n, c in self.classes.items() if self.is_data(c)))

    def is_data(self, node: ast.ClassDef) -> bool:
        """A class the design can take as a type: a pydantic model, a TypedDict or an Enum."""
        return self.is_model(node) or _is_typed_dict(node) or _is_enum(node)

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
        name = _last_name(node)
        if name in _PRIMITIVES:
            return _Mapped(_PRIMITIVES[name])
        if name in _ANYS:
            return _Mapped(ANY)
        if name in _FORMATTED:
            return _Mapped(STRING, {"format": _FORMATTED[name]})
        if name in _ARRAYS:
            return _Mapped(ArrayOf(ANY))
        if name in _MAPS:
            return _Mapped(MapOf(ANY))
        if name is not None and name in self.classes:
            return self.local_class(name, where)
        self.notice(f"type {ast.unparse(node)} has no design equivalent: typed Any", where)
        return _Mapped(ANY)

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
        for item in metadata:
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

    def local_class(self, name: str, where: str) -> _Mapped:
        node = self.classes[name]
        if _is_enum(node):
            return self.enum_class(node, where)
        if name not in self.types:
            if self.is_model(node) or _is_typed_dict(node):
                self.types[name] = None  # being built: a recursive reference finds it
                self.types[name] = self.named_type(node)
            else:
                self.notice(
                    f"class {name} is not a pydantic model, TypedDict or Enum: typed Any", where
                )
                return _Mapped(ANY)
        return _Mapped(Named(name))

    def is_model(self, node: ast.ClassDef) -> bool:
        for base in node.bases:
            name = _last_name(base)
            if name in ("BaseModel", "RootModel") or (
                name in self.classes and name != node.name and self.is_model(self.classes[name])
            ):
                return True
        return False

    def enum_class(self, node: ast.ClassDef, where: str) -> _Mapped:
        values = list(_enum_members(node).values())
        kinds = {type(v) for v in values}
        if not values or len(kinds) != 1 or kinds - {str, int}:
            self.notice(f"enum {node.name} has values the design cannot list: typed Any", where)
            return _Mapped(ANY)
        return _Mapped(STRING if kinds == {str} else INT, {"enum": values})

    def named_type(self, node: ast.ClassDef) -> DraftNamedType:
        where = f"type {node.name} ({self.path.name}:{node.lineno})"
        total = all(
            not (k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in node.keywords
        )
        attributes = [*self.inherited(node), *self.class_fields(node, total, where)]
        doc = parse_docstring(ast.get_docstring(node))
        return DraftNamedType(node.name, doc.summary or None, tuple(attributes))

    def inherited(self, node: ast.ClassDef) -> list[DraftAttribute]:
        out: list[DraftAttribute] = []
        for base in node.bases:
            name = _last_name(base)
            if name in self.classes and name != node.name:
                self.local_class(name, f"type {node.name}")
                parent = self.types.get(name)
                if parent is not None:
                    out.extend(parent.attributes)
        return out

    def class_fields(self, node: ast.ClassDef, total: bool, where: str) -> list[DraftAttribute]:
        out: list[DraftAttribute] = []
        body = node.body
        doc = parse_docstring(ast.get_docstring(node))
        for index, item in enumerate(body):
            if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
                continue
            name = item.target.id
            if (
                name == "model_config"
                or _last_name(item.annotation) == "ClassVar"
                or (
                    isinstance(item.annotation, ast.Subscript)
                    and _last_name(item.annotation.value) == "ClassVar"
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
                mapped.description or doc.params.get(name) or _attribute_docstring(body, index)
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
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, doc: Docstring
    ) -> DraftResult | None:
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
        if mapped.nullable:
            self.notice("may return None; the design says it returns a value", where)
        if mapped.options:
            self.notice("constraints on the result type are not kept", where)
        return DraftResult(mapped.type, description)


# ── helpers over the syntax tree ──────────────────────────────────────────────────────────


def _is_tool_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "tool") or (
        isinstance(target, ast.Attribute) and target.attr == "tool"
    )


def _decorator_options(node: ast.expr | None) -> dict[str, Any]:
    if not isinstance(node, ast.Call):
        return {}
    options = _call_options(node)
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        options.setdefault("name", node.args[0].value)  # LangChain: @tool("name")
    for keyword in node.keywords:
        if keyword.arg == "annotations" and isinstance(keyword.value, ast.Call):
            options["annotations"] = _call_options(keyword.value)
    return options


def _text_option(options: dict[str, Any], key: str) -> str | None:
    value = options.get(key)
    return value if isinstance(value, str) and value else None


def _call_options(call: ast.Call) -> dict[str, Any]:
    """The literal keyword arguments of a call (others are skipped)."""
    out: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is not None:
            value = _literal(keyword.value, _NO_DEFAULT)
            if value is not _NO_DEFAULT:
                out[keyword.arg] = value
    return out


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


def _pascal(text: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", text) if p)


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
