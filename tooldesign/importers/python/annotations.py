"""Annotations, defaults and ``Field(...)`` options as the DSL can say them.

An annotation the DSL cannot express becomes ``Any``, with a notice; a module-level alias
(``Status = Literal["a", "b"]``) is read through to what it is bound to.
"""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

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
from tooldesign.importers.values import accepts, is_json

_PRIMITIVES: dict[str, DraftType] = {"str": STRING, "int": INT, "float": FLOAT, "bool": BOOLEAN}
_PATH_NOTE = "A file system path."
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
                options = self.call_options(item)
                mapped = self.with_field(mapped, options, where)
                if "default" in options:
                    mapped.default, mapped.has_default = options["default"], True
        return mapped

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
            options = self.call_options(node)
            value: Any = NO_VALUE
            if node.args:
                value = self.value(node.args[0])
                if is_ellipsis(self.resolved(node.args[0])):
                    value = NO_VALUE
            elif "default" in options:
                value = options["default"]
            if "default_factory" in {k.arg for k in node.keywords}:
                value = None  # optional, its value made at run time
            return value, options
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
        if default is not NO_VALUE and default is not None:
            if not is_json(default):
                self.notice(f"its default {_shown(default)} is not JSON data; left out", where)
            elif accepts(mapped.type, options, default, self.types):
                options["default"] = default
            else:
                self.notice(f"its default {_shown(default)} does not fit its type; left out", where)
        return DraftAttribute(name, mapped.type, description, required, options)


def _shown(value: Any) -> str:
    """A value for a message, kept short."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
