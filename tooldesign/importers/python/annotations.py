"""Annotations, defaults and ``Field(...)`` options as the DSL can say them.

An annotation the DSL cannot express becomes ``Any``, with a notice; a module-level alias
(``Status = Literal["a", "b"]``) is read through to what it is bound to.
"""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

from tooldesign.contract.constraints import CONSTRAINTS
from tooldesign.contract.formats import FORMATS
from tooldesign.importers.draft import (
    ANY,
    BOOLEAN,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAttribute,
    DraftType,
    MapOf,
    OneOf,
)
from tooldesign.importers.python.reader import PATHS, FileReader
from tooldesign.importers.python.syntax import (
    NO_VALUE,
    call_name,
    flatten_or,
    is_ellipsis,
    is_none,
    last_name,
    literal_value,
    parse_expression,
)
from tooldesign.importers.values import accepts, is_json, readable

_PRIMITIVES: dict[str, DraftType] = {"str": STRING, "int": INT, "float": FLOAT, "bool": BOOLEAN}
_PATH_NOTE = "A file system path."
_FORMATTED = {name: fmt.name for fmt in FORMATS for name in fmt.python_names}
_ARRAYS = frozenset(
    {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection", "set", "Set",
     "frozenset", "FrozenSet", "AbstractSet", "tuple", "Tuple", "Deque", "deque"}
)  # fmt: skip
_MAPS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict"})
_ANYS = frozenset({"Any", "object", "JsonValue"})
# pydantic's bounds and pattern (``regex``: pydantic 1's name for it), as design options.
_FIELD_CONSTRAINTS = {
    **{
        c.pydantic: c.option
        for c in CONSTRAINTS
        if c.pydantic is not None and c.applies_to in ("number", "string") and c.takes != "count"
    },
    "regex": "pattern",
}
# A length bound means items for an array, characters otherwise.
_LENGTHS = {c.pydantic: c.option for c in CONSTRAINTS if c.applies_to == "array" and c.pydantic}
# ``Field(...)`` options that change what a model is shown: one whose value cannot be read
# statically is reported, never dropped in silence.
_SHOWN_FIELD_OPTIONS = frozenset(
    {"description", "examples", "alias", "validation_alias", *_FIELD_CONSTRAINTS, *_LENGTHS}
)
# ``Field(...)`` options that change the schema but have no design equivalent.
_UNKEPT_FIELD_OPTIONS = frozenset(
    {"multiple_of", "max_digits", "decimal_places", "json_schema_extra"}
)
# Keyword arguments that name the fallback of a call such as ``get_env("NAME", default=...)``.
_FALLBACK_KEYWORDS = ("default", "fallback")


@dataclass
class Mapped:
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


class AnnotationReader(FileReader, ABC):
    """Reads annotations and defaults; a class of the file that an annotation names is read
    by :meth:`local_class` (see ``classes.ClassReader``)."""

    @abstractmethod
    def local_class(self, qualified: str, where: str) -> Mapped:
        """The type of the file's class ``qualified``, named in an annotation."""

    def annotation(self, node: ast.expr, where: str) -> Mapped:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parsed = parse_expression(node.value)
            if parsed is None:
                self.notice(f"annotation {node.value!r} cannot be read: typed Any", where)
                return Mapped(ANY)
            return self.annotation(parsed, where)
        if isinstance(node, ast.Constant) and node.value is None:
            return Mapped(ANY, nullable=True)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.union([*flatten_or(node)], where)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, where)
        qualified = self.class_named(node)
        if qualified is not None:
            return self.local_class(qualified, where)
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.alias(node, where)
        name = last_name(node)
        if name in _PRIMITIVES:
            return Mapped(_PRIMITIVES[name])
        if name in _ANYS:
            return Mapped(ANY)
        if name in _FORMATTED:
            return Mapped(STRING, {"format": _FORMATTED[name]})
        if name in PATHS:
            return Mapped(STRING, note=_PATH_NOTE)
        if name in _ARRAYS:
            return Mapped(ArrayOf(ANY))
        if name in _MAPS:
            return Mapped(MapOf(ANY))
        self.notice(f"type {ast.unparse(node)} has no design equivalent: typed Any", where)
        return Mapped(ANY)

    def alias(self, node: ast.Name, where: str) -> Mapped:
        """A module-level type alias: ``Status = Literal[...]``, ``Ids: TypeAlias = list[int]``,
        ``type Ids = list[int]``, ``UserId = NewType("UserId", str)``."""
        if node.id in self.expanding:
            self.notice(f"type {node.id} is a recursive alias: typed Any", where)
            return Mapped(ANY)
        self.expanding.add(node.id)
        try:
            return self.alias_target(node, where)
        finally:
            self.expanding.discard(node.id)

    def alias_target(self, node: ast.Name, where: str) -> Mapped:
        target = self.resolved(node)
        if (
            isinstance(target, ast.Call)
            and call_name(target) in ("NewType", "TypeAliasType")
            and len(target.args) == 2
        ):
            target = target.args[1]
        if isinstance(target, ast.Name) and target.id in self.constants:
            self.notice(f"type {node.id} is an alias too deep to follow: typed Any", where)
            return Mapped(ANY)
        if isinstance(target, ast.Call):
            self.notice(
                f"type {node.id} = {ast.unparse(target)} has no design equivalent: typed Any",
                where,
            )
            return Mapped(ANY)
        return self.annotation(target, where)

    def subscript(self, node: ast.Subscript, where: str) -> Mapped:
        base = last_name(node.value)
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
                and not (len(args) == 2 and is_ellipsis(args[1]))
                and len(args) != 1
            ):
                self.notice(f"a fixed-length tuple {ast.unparse(node)} is written as a list", where)
            item = self.annotation(args[0], where)
            return self.array(item, where)
        if base in _MAPS:
            if len(args) == 2 and last_name(args[0]) not in ("str", None):
                self.notice(
                    f"map keys {ast.unparse(args[0])} are written as strings (JSON object keys)",
                    where,
                )
            values = self.annotation(args[-1], where) if len(args) == 2 else Mapped(ANY)
            if values.options:
                self.notice(
                    f"constraints on the values of {ast.unparse(node)} cannot be kept", where
                )
            return Mapped(MapOf(values.type))
        return self.annotation(node.value, where)

    def array(self, item: Mapped, where: str) -> Mapped:
        # Value constraints on an array's items are the attribute's (the DSL puts them on items).
        if item.nullable:
            self.notice("list items that may be None are written as non-null items", where)
        return Mapped(ArrayOf(item.type), dict(item.options))

    def union(self, members: list[ast.expr], where: str) -> Mapped:
        nullable = any(is_none(m) for m in members)
        kept = [self.annotation(m, where) for m in members if not is_none(m)]
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
            return Mapped(ANY, nullable=nullable)
        return Mapped(OneOf(tuple(variants)), nullable=nullable)

    def literal(self, values: list[ast.expr], where: str) -> Mapped:
        constants = [literal_value(v, NO_VALUE) for v in values]
        nullable = None in constants
        constants = [c for c in constants if c is not None]
        kinds = {type(c) for c in constants}
        if NO_VALUE in constants or len(kinds) != 1 or kinds - {str, int, bool}:
            self.notice("a Literal of mixed or unsupported values: typed Any", where)
            return Mapped(ANY, nullable=nullable)
        kind = kinds.pop()
        base = {str: STRING, int: INT, bool: BOOLEAN}[kind]
        return Mapped(base, {"enum": constants}, nullable=nullable)

    def annotated(self, inner: ast.expr, metadata: list[ast.expr], where: str) -> Mapped:
        if any(self.is_context(m) for m in metadata):
            return Mapped(ANY, context=True)
        mapped = self.annotation(inner, where)
        for item in map(self.resolved, metadata):
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                mapped.description = item.value
            elif call_name(item) == "Field" and isinstance(item, ast.Call):
                options = self.field_options(item, where)
                mapped = self.with_field(mapped, options, where)
                default = self.field_default(item, where)
                if default is not NO_VALUE:
                    mapped.default, mapped.has_default = default, True
        return mapped

    def field_options(self, call: ast.Call, where: str) -> dict[str, Any]:
        """A ``Field(...)`` call's options; those a model would see but that cannot be read
        without running the code (``pattern=PATTERN``, ``PATTERN = get_env(...)``) are
        reported, and so are those the design cannot state."""
        options = self.call_options(call)
        for keyword in call.keywords:
            name = keyword.arg
            if name in _UNKEPT_FIELD_OPTIONS:
                self.notice(
                    f"Field option {name}={_cut(ast.unparse(keyword.value))} has no design "
                    "equivalent; left out",
                    where,
                )
            elif name in _SHOWN_FIELD_OPTIONS and name not in options:
                self.notice(self.unreadable(name, keyword.value), where)
        return options

    def unreadable(self, option: str, node: ast.expr) -> str:
        """What to say of an option whose value cannot be read statically; for a name bound
        to a call with a literal fallback (``get_regex_env("NAME", r"^[a-z]+$")``), that
        fallback, which the user may want to write in the design."""
        written = ast.unparse(node)
        target = self.resolved(node)
        bound = "" if target is node else f" (= {_cut(ast.unparse(target))})"
        message = (
            f"its {option}={_cut(written)}{bound} cannot be read without running the code; left out"
        )
        fallback = _literal_fallback(target) if isinstance(target, ast.Call) else None
        if fallback is not None:
            message += (
                f"; if the call gives its fallback, write {option}={fallback!r} in the design"
            )
        return message

    def field_default(self, call: ast.Call, where: str) -> Any:
        """The default a ``Field(...)`` call gives (``NO_VALUE`` for none, ``None`` for one
        made at run time or not readable: the parameter stays optional, never required)."""
        if "default_factory" in {k.arg for k in call.keywords}:
            return None  # optional, its value made at run time
        written = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "default")]
        if not written or is_ellipsis(self.resolved(written[0])):
            return NO_VALUE
        node = written[0]
        value = self.value(node)
        if value is NO_VALUE:
            self.notice(
                f"its default {_cut(ast.unparse(node))} is not a literal: written as optional "
                "without a default",
                where,
            )
            return None
        return value

    def with_field(self, mapped: Mapped, options: dict[str, Any], where: str) -> Mapped:
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

    # ── defaults and attributes ───────────────────────────────────────────────────────────

    def default(self, node: ast.expr | None, where: str) -> tuple[Any, dict[str, Any] | None]:
        """The default value (or ``NO_VALUE``) and, for ``= Field(...)`` (pydantic) or
        ``= field(...)`` (dataclasses), the call's options. A module-level name is read
        through (``= LIMIT_FIELD``, ``LIMIT_FIELD = Field(10, ge=1)``)."""
        if node is None:
            return NO_VALUE, None
        written = node
        node = self.resolved(node)
        if isinstance(node, ast.Call) and call_name(node) in ("Field", "field"):
            options = self.field_options(node, where)
            return self.field_default(node, where), options
        value = self.value(node)
        if value is NO_VALUE:
            self.notice(
                f"its default {ast.unparse(written)} is not a literal: written as optional "
                "without a default",
                where,
            )
            return None, None
        return value, None

    def attribute(
        self,
        name: str,
        mapped: Mapped,
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
        options = readable(options, lambda said: self.notice(said, where))  # a pattern, read alike
        if default is not NO_VALUE and default is not None:
            if not is_json(default):
                self.notice(f"its default {_shown(default)} is not JSON data; left out", where)
            elif accepts(mapped.type, options, default, self.types):
                options["default"] = default
            else:
                self.notice(f"its default {_shown(default)} does not fit its type; left out", where)
        return DraftAttribute(name, mapped.type, description, required, options)


def _literal_fallback(call: ast.Call) -> str | None:
    """The literal a call falls back to, when it plainly has one: a ``default=`` /
    ``fallback=`` string, or the last of two or more positional arguments, a string."""
    for keyword in call.keywords:
        if keyword.arg in _FALLBACK_KEYWORDS:
            value = literal_value(keyword.value, NO_VALUE)
            return value if isinstance(value, str) else None
    if len(call.args) >= 2:
        value = literal_value(call.args[-1], NO_VALUE)
        return value if isinstance(value, str) else None
    return None


def _cut(text: str, limit: int = 60) -> str:
    """Source text for a message, kept short."""
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _shown(value: Any) -> str:
    """A value for a message, kept short."""
    return _cut(repr(value))
