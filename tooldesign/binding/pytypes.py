"""The application side of a binding: Python types described as plain IR data.

``BindTo`` targets are ordinary application code. To generate field-by-field transforms, their
parameter and return types are described here: scalars, literals, enums, lists, dicts, unions,
and records (pydantic models, dataclasses, TypedDicts) with their fields. Records are kept in a
registry by import path, so recursive types are finite.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import inspect
import ipaddress
import types
import typing
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import typing_extensions
from tooldesign.binding.constraints import (
    NO_PY_CONSTRAINTS,
    PyConstraints,
    constraints_of,
    is_field_info,
)
from tooldesign.contract.content import without_content
from tooldesign.ir.model import NO_VALUE


@dataclass(frozen=True, slots=True)
class PyRef:
    """An importable class: ``module`` and ``qualname``."""

    module: str
    qualname: str

    def __str__(self) -> str:
        return f"{self.module}.{self.qualname}"


@dataclass(frozen=True, slots=True)
class PyScalar:
    """``str``, ``int``, ``float``, ``bool``, ``None``, ``Any`` or a well-known value type."""

    name: str


@dataclass(frozen=True, slots=True)
class PyLiteral:
    values: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class PyEnum:
    """An Enum class, or (``literal``) a ``Literal`` of some of its members.

    ``members`` are ``(name, value)`` pairs in definition order (aliases left out); the values
    are all strings or all numbers, the values a tool's enum lists. A tool value becomes the
    member with that value, and a member goes back to the tool as its ``.value``.
    """

    ref: PyRef
    members: tuple[tuple[str, Any], ...]
    literal: bool = False

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(value for _, value in self.members)


@dataclass(frozen=True, slots=True)
class PyEnumMember:
    """An Enum member as a value (a parameter's default), written ``<Enum>.<name>``."""

    ref: PyRef
    name: str
    value: Any


@dataclass(frozen=True, slots=True)
class PyList:
    item: PyType


@dataclass(frozen=True, slots=True)
class PyDict:
    value: PyType


@dataclass(frozen=True, slots=True)
class PyUnion:
    options: tuple[PyType, ...]


@dataclass(frozen=True, slots=True)
class PyClass:
    """A record class, described in the registry under ``ref``."""

    ref: PyRef


PyType = PyScalar | PyLiteral | PyEnum | PyList | PyDict | PyUnion | PyClass

ANY = PyScalar("Any")
NONE = PyScalar("None")

# Value types with a fixed Python class on both sides of a transform.
_SCALARS: dict[Any, str] = {
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "None",
    dt.datetime: "datetime",
    dt.date: "date",
    dt.time: "time",
    dt.timedelta: "timedelta",
    uuid.UUID: "UUID",
    ipaddress.IPv4Address: "IPv4Address",
    ipaddress.IPv6Address: "IPv6Address",
}
SCALAR_NAMES = frozenset(_SCALARS.values())
"""The names of the scalar classes the transforms describe (``datetime``, ``UUID``…)."""


@dataclass(frozen=True, slots=True)
class PyField:
    name: str
    type: PyType
    required: bool
    """No default: the field must be given."""
    default: Any = NO_VALUE
    """The default when it is a plain value (a literal the generator can write) or an Enum
    member (a :class:`PyEnumMember`)."""
    key: str | None = None
    """The name a pydantic model validates this field by when it is not ``name`` (an alias)."""
    constraints: PyConstraints = NO_PY_CONSTRAINTS

    @property
    def build_key(self) -> str:
        """The keyword or key the record is built with."""
        return self.key or self.name


RecordKind = Literal["pydantic", "dataclass", "typeddict", "arguments"]


@dataclass(frozen=True, slots=True)
class PyRecord:
    """A record type: its kind decides how it is read (attributes or keys) and built."""

    ref: PyRef
    kind: RecordKind
    fields: tuple[PyField, ...]
    has_aliases: bool = False
    """A pydantic model with aliases is built by validating a mapping keyed by
    :attr:`PyField.build_key`: type checkers name its keyword arguments after the aliases or
    the field names depending on how the alias is declared and on their pydantic plugin, so
    no keyword call is right both at run time and for every configuration."""
    unbuildable: str | None = None
    """Why the transforms cannot build this record (it can still be read)."""

    def field(self, name: str) -> PyField | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def field_by_key(self, key: str) -> PyField | None:
        for f in self.fields:
            if f.key == key:
                return f
        return None


class UnsupportedType(Exception):
    """A Python type the transforms cannot describe (named in the message)."""


@dataclass
class Registry:
    """Records met while describing types, by import path."""

    records: dict[PyRef, PyRecord] = field(default_factory=dict)

    def describe_result(self, annotation: Any) -> PyType:
        """A function's return type; of ``WithContent[R]`` (a rich result), ``R``."""
        return self.describe(without_content(annotation))

    def describe(self, annotation: Any) -> PyType:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if annotation is Any or annotation is object:
            return ANY
        if annotation in _SCALARS:
            return PyScalar(_SCALARS[annotation])
        if origin is typing.Annotated:
            return self.describe(args[0])
        if origin in _KEY_QUALIFIERS:
            raise UnsupportedType(f"{_name(annotation)} outside a TypedDict")
        if origin is Literal:
            return _literal(args)
        if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
            return enum_type(annotation)
        if origin in (typing.Union, types.UnionType):
            options: list[PyType] = []
            for arg in args:
                described = self.describe(arg)
                for option in described.options if isinstance(described, PyUnion) else (described,):
                    if option not in options:
                        options.append(option)
            return PyUnion(tuple(options))
        if origin in (list, Sequence, Iterable) or annotation in (list,):
            return PyList(self.describe(args[0]) if args else ANY)
        if origin in (dict, Mapping) or annotation in (dict,):
            if args and args[0] is not str:
                raise UnsupportedType(f"{_name(annotation)} (only string keys map to JSON objects)")
            return PyDict(self.describe(args[1]) if args else ANY)
        if isinstance(annotation, type) and (
            _is_pydantic_model(annotation)
            or dataclasses.is_dataclass(annotation)
            or typing_extensions.is_typeddict(annotation)
        ):
            return PyClass(self.record(annotation))
        raise UnsupportedType(_name(annotation))

    def record(self, cls: type) -> PyRef:
        ref = importable_ref(cls)
        if ref in self.records:
            return ref
        # Registered before its fields are described: a recursive field refers back to it.
        self.records[ref] = PyRecord(ref, "dataclass", ())
        if _is_pydantic_model(cls):
            self.records[ref] = self._pydantic_record(ref, cls)
        elif dataclasses.is_dataclass(cls):
            self.records[ref] = self._dataclass_record(ref, cls)
        else:
            self.records[ref] = self._typeddict_record(ref, cls)
        return ref

    def _pydantic_record(self, ref: PyRef, cls: Any) -> PyRecord:
        config = cls.model_config
        by_alias_ok = config.get("validate_by_alias", True) is not False
        by_name_ok = bool(config.get("validate_by_name") or config.get("populate_by_name"))
        fields: list[PyField] = []
        unbuildable: str | None = None
        for name, info in cls.model_fields.items():
            alias = _validation_key(info) if by_alias_ok else None
            key: str | None = None
            if alias is None and by_alias_ok and _has_alias(info) and not by_name_ok:
                unbuildable = (
                    f"{ref.qualname} field {name!r} is validated through an alias path "
                    f"({info.validation_alias!r}) that names no single key; give it a plain alias or "
                    "allow validate_by_name"
                )
            elif alias is not None and alias != name:
                key = alias
            fields.append(
                self._field(
                    name,
                    info.annotation,
                    info.is_required(),
                    info.default,
                    key=key,
                    constraints=constraints_of(info.annotation, info.metadata),
                )
            )
        has_aliases = any(_has_alias(info) for info in cls.model_fields.values())
        return PyRecord(
            ref, "pydantic", tuple(fields), has_aliases=has_aliases, unbuildable=unbuildable
        )

    def _dataclass_record(self, ref: PyRef, cls: Any) -> PyRecord:
        hints = _type_hints(cls)
        # A pydantic dataclass keeps its field definitions (aliases, constraints) here.
        pydantic_fields: dict[str, Any] = getattr(cls, "__pydantic_fields__", {})
        fields: list[PyField] = []
        aliased: list[str] = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            info = pydantic_fields.get(f.name)
            if info is not None:
                if _has_alias(info):
                    aliased.append(f.name)
                required = info.is_required()
                default = info.default
                constraints = constraints_of(hints[f.name], info.metadata)
            else:
                required = (
                    f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                )
                default = f.default
                constraints = constraints_of(hints[f.name])
            fields.append(
                self._field(f.name, hints[f.name], required, default, constraints=constraints)
            )
        unbuildable = (
            f"{ref.qualname} is a pydantic dataclass with aliased fields "
            f"({', '.join(map(repr, aliased))}); bind a BaseModel, or drop the aliases"
            if aliased
            else None
        )
        return PyRecord(ref, "dataclass", tuple(fields), unbuildable=unbuildable)

    def _typeddict_record(self, ref: PyRef, cls: Any) -> PyRecord:
        hints = _type_hints(cls)
        # ``__required_keys__`` is wrong where annotations are strings (``from __future__ import
        # annotations`` before Python 3.12): Required[...] / NotRequired[...] go unseen there, so
        # they are read from the evaluated hints. A key without either follows the ``total`` of
        # the class that declared it, which ``__required_keys__`` does carry through inheritance.
        declared_required: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
        fields: list[PyField] = []
        for name, hint in hints.items():
            value_hint, required = _typeddict_key(hint)
            fields.append(
                self._field(
                    name,
                    value_hint,
                    name in declared_required if required is None else required,
                    NO_VALUE,
                    constraints=constraints_of(value_hint),
                )
            )
        return PyRecord(ref, "typeddict", tuple(fields))

    def arguments(self, function: Callable[..., Any], ref: PyRef, skip_first: bool) -> PyRecord:
        """A callable's parameters as a record (``kind="arguments"``)."""
        signature = inspect.signature(function)
        hints = _type_hints(function)
        fields: list[PyField] = []
        for index, (name, param) in enumerate(signature.parameters.items()):
            if skip_first and index == 0:
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise UnsupportedType(f"*{name} / **{name} parameters (declare each parameter)")
            if param.kind is param.POSITIONAL_ONLY:
                raise UnsupportedType(f"positional-only parameter {name!r}")
            if name not in hints:
                raise UnsupportedType(f"parameter {name!r} without a type annotation")
            default = param.default
            metadata: tuple[Any, ...] = ()
            if is_field_info(default):
                # ``limit: int = Field(le=5)`` (pydantic's validate_call): the default and
                # constraints are in the FieldInfo.
                metadata = tuple(default.metadata)
                default = NO_VALUE if default.is_required() else default.default
            required = default is inspect.Parameter.empty or default is NO_VALUE
            fields.append(
                self._field(
                    name,
                    hints[name],
                    required,
                    NO_VALUE if required else default,
                    constraints=constraints_of(hints[name], metadata),
                )
            )
        record = PyRecord(ref, "arguments", tuple(fields))
        self.records[ref] = record
        return record

    def _field(
        self,
        name: str,
        annotation: Any,
        required: bool,
        default: Any,
        *,
        key: str | None = None,
        constraints: PyConstraints = NO_PY_CONSTRAINTS,
    ) -> PyField:
        described = self.describe(annotation)
        # An Enum member first: a str or int mixin's member also passes for a plain value.
        literal_default = (
            enum_member(default)
            if isinstance(default, enum.Enum)
            else default
            if _is_literal_value(default)
            else NO_VALUE
        )
        return PyField(
            name,
            described,
            required,
            NO_VALUE if required else literal_default,
            key=key,
            constraints=constraints,
        )


def _type_hints(obj: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as exc:  # noqa: BLE001 - unresolvable annotations are the application's to fix
        raise UnsupportedType(
            f"{_name(obj)} (its annotations cannot be resolved: {type(exc).__name__}: {exc})"
        ) from None


def ref_of(cls: Any) -> PyRef:
    return PyRef(cls.__module__, cls.__qualname__)


def importable_ref(cls: type) -> PyRef:
    """The import path of a class the transforms name, which must be reachable from its module."""
    ref = ref_of(cls)
    if "<locals>" in ref.qualname:
        raise UnsupportedType(
            f"{ref.qualname} (defined inside a function: the transforms import it by name, "
            "so define it at module level)"
        )
    return ref


def enum_type(cls: type[enum.Enum]) -> PyEnum:
    """An Enum class whose values a tool can list: all strings, or all numbers."""
    ref = importable_ref(cls)
    if issubclass(cls, enum.Flag):
        raise UnsupportedType(
            f"{ref.qualname} (a Flag combines members into values no enum lists; take a list of an Enum)"
        )
    members = tuple((member.name, _plain(member.value)) for member in cls)
    if not members:
        raise UnsupportedType(f"{ref.qualname} (an Enum without members)")
    kinds = {_value_kind(value) for _, value in members}
    if len(kinds) != 1 or None in kinds:
        values = ", ".join(f"{name}={value!r}" for name, value in members)
        raise UnsupportedType(
            f"{ref.qualname} (an Enum whose values are not all strings or all numbers: {values})"
        )
    return PyEnum(ref, members)


def enum_member(member: enum.Enum) -> Any:
    """A member as a default the transforms can write, or ``NO_VALUE`` if its Enum cannot be one."""
    try:
        enum_type(type(member))
    except UnsupportedType:
        return NO_VALUE
    return PyEnumMember(ref_of(type(member)), member.name, _plain(member.value))


def _literal(args: tuple[Any, ...]) -> PyType:
    """``Literal[...]``: its plain values, and its Enum members grouped by their Enum."""
    plain = tuple(arg for arg in args if not isinstance(arg, enum.Enum))
    groups: dict[type[enum.Enum], list[enum.Enum]] = {}
    for arg in args:
        if isinstance(arg, enum.Enum):
            groups.setdefault(type(arg), []).append(arg)
    options: list[PyType] = [PyLiteral(plain)] if plain else []
    for cls, chosen in groups.items():
        whole = enum_type(cls)
        names = {member.name for member in chosen}
        members = tuple((name, value) for name, value in whole.members if name in names)
        options.append(PyEnum(whole.ref, members, literal=True))
    return options[0] if len(options) == 1 else PyUnion(tuple(options))


def _plain(value: Any) -> Any:
    """A member's value as the plain string or number it stands for (a str mixin's value is
    already one; the value of a ``StrEnum`` member is a plain ``str`` too)."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def _value_kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    return None


def accepts_none(t: PyType) -> bool:
    return (
        t == ANY
        or t == NONE
        or (isinstance(t, PyUnion) and (NONE in t.options or ANY in t.options))
    )


def without_none(t: PyType) -> PyType:
    if isinstance(t, PyUnion):
        options = tuple(o for o in t.options if o != NONE)
        return options[0] if len(options) == 1 else PyUnion(options)
    return t


def describe_py(t: PyType) -> str:
    """A type as Python spells it, for messages."""
    match t:
        case PyScalar(name=name):
            return name
        case PyLiteral(values=values):
            return f"Literal[{', '.join(repr(v) for v in values)}]"
        case PyEnum(ref=ref, members=members, literal=True):
            return f"Literal[{', '.join(f'{ref.qualname}.{name}' for name, _ in members)}]"
        case PyEnum(ref=ref):
            return ref.qualname
        case PyList(item=item):
            return f"list[{describe_py(item)}]"
        case PyDict(value=value):
            return f"dict[str, {describe_py(value)}]"
        case PyUnion(options=options):
            return " | ".join(describe_py(o) for o in options)
        case PyClass(ref=ref):
            return ref.qualname
    return "?"


def _is_pydantic_model(cls: type) -> bool:
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - pydantic is a dependency
        return False
    return issubclass(cls, BaseModel)


_KEY_QUALIFIERS = {
    typing.Required,
    typing.NotRequired,
    typing_extensions.Required,
    typing_extensions.NotRequired,
    typing_extensions.ReadOnly,
}


def _typeddict_key(hint: Any) -> tuple[Any, bool | None]:
    """A TypedDict key's value type and whether ``Required``/``NotRequired`` says it must be given.

    The qualifiers may be nested in each other and in ``Annotated`` (whose metadata is kept).
    """
    metadata: list[Any] = []
    required: bool | None = None
    while True:
        origin = typing.get_origin(hint)
        if origin is typing.Annotated:
            metadata.extend(hint.__metadata__)
            hint = typing.get_args(hint)[0]
        elif origin in _KEY_QUALIFIERS:
            if origin in (typing.Required, typing_extensions.Required):
                required = True
            elif origin in (typing.NotRequired, typing_extensions.NotRequired):
                required = False
            hint = typing.get_args(hint)[0]
        else:
            break
    if metadata:
        hint = typing.Annotated[hint, *metadata]
    return hint, required


def _has_alias(info: Any) -> bool:
    return info.alias is not None or info.validation_alias is not None


def _validation_key(info: Any) -> str | None:
    """The key a pydantic field validates by: its name, or its alias when it has one.

    Among ``AliasChoices`` the first that is a single key is taken; ``None`` when only alias
    paths into nested data remain.
    """
    alias = info.validation_alias if info.validation_alias is not None else info.alias
    if alias is None:
        return None
    choices = getattr(alias, "choices", None)
    for choice in choices if choices is not None else [alias]:
        if isinstance(choice, str):
            return choice
        path = getattr(choice, "path", None)
        if isinstance(path, list) and len(path) == 1 and isinstance(path[0], str):
            return path[0]
    return None


def _is_literal_value(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _name(annotation: Any) -> str:
    return getattr(annotation, "__qualname__", None) or repr(annotation)
