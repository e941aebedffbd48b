"""The application side of a binding: Python types described as plain IR data.

``BindTo`` targets are ordinary application code. To generate field-by-field transforms, their
parameter and return types are described here: scalars, literals, lists, dicts, unions, and
records (pydantic models, dataclasses, TypedDicts) with their fields. Records are kept in a
registry by import path, so recursive types are finite.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import ipaddress
import types
import typing
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

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


PyType = PyScalar | PyLiteral | PyList | PyDict | PyUnion | PyClass

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


@dataclass(frozen=True, slots=True)
class PyField:
    name: str
    type: PyType
    required: bool
    """No default: the field must be given."""
    default: Any = NO_VALUE
    """The default when it is a plain value (a literal the generator can write)."""


RecordKind = Literal["pydantic", "dataclass", "typeddict", "arguments"]


@dataclass(frozen=True, slots=True)
class PyRecord:
    """A record type: its kind decides how it is read (attributes or keys) and built."""

    ref: PyRef
    kind: RecordKind
    fields: tuple[PyField, ...]

    def field(self, name: str) -> PyField | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None


class UnsupportedType(Exception):
    """A Python type the transforms cannot describe (named in the message)."""


@dataclass
class Registry:
    """Records met while describing types, by import path."""

    records: dict[PyRef, PyRecord] = field(default_factory=dict)

    def describe(self, annotation: Any) -> PyType:
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if annotation is Any or annotation is object:
            return ANY
        if annotation in _SCALARS:
            return PyScalar(_SCALARS[annotation])
        if origin is typing.Annotated:
            return self.describe(args[0])
        if origin is Literal:
            return PyLiteral(tuple(args))
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
            or typing.is_typeddict(annotation)
        ):
            return PyClass(self.record(annotation))
        raise UnsupportedType(_name(annotation))

    def record(self, cls: type) -> PyRef:
        ref = ref_of(cls)
        if ref in self.records:
            return ref
        # Registered before its fields are described: a recursive field refers back to it.
        self.records[ref] = PyRecord(ref, "dataclass", ())
        if _is_pydantic_model(cls):
            kind: RecordKind = "pydantic"
            fields = tuple(
                self._field(name, info.annotation, info.is_required(), info.default)
                for name, info in cls.model_fields.items()  # type: ignore[attr-defined]
            )
        elif dataclasses.is_dataclass(cls):
            kind = "dataclass"
            hints = typing.get_type_hints(cls, include_extras=True)
            fields = tuple(
                self._field(
                    f.name,
                    hints[f.name],
                    f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
                    f.default,
                )
                for f in dataclasses.fields(cls)
                if f.init
            )
        else:
            kind = "typeddict"
            hints = typing.get_type_hints(cls, include_extras=True)
            required_keys: frozenset[str] = getattr(cls, "__required_keys__", frozenset())
            fields = tuple(
                self._field(name, _strip_required(hint), name in required_keys, NO_VALUE)
                for name, hint in hints.items()
            )
        self.records[ref] = PyRecord(ref, kind, fields)
        return ref

    def arguments(self, function: Callable[..., Any], ref: PyRef, skip_first: bool) -> PyRecord:
        """A callable's parameters as a record (``kind="arguments"``)."""
        signature = inspect.signature(function)
        hints = typing.get_type_hints(function, include_extras=True)
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
            required = param.default is inspect.Parameter.empty
            fields.append(
                self._field(name, hints[name], required, NO_VALUE if required else param.default)
            )
        record = PyRecord(ref, "arguments", tuple(fields))
        self.records[ref] = record
        return record

    def _field(self, name: str, annotation: Any, required: bool, default: Any) -> PyField:
        described = self.describe(annotation)
        literal_default = default if _is_literal_value(default) else NO_VALUE
        return PyField(name, described, required, NO_VALUE if required else literal_default)


def ref_of(cls: Any) -> PyRef:
    return PyRef(cls.__module__, cls.__qualname__)


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


def _strip_required(hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Required, typing.NotRequired):
        return typing.get_args(hint)[0]
    return hint


def _is_literal_value(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _name(annotation: Any) -> str:
    return getattr(annotation, "__qualname__", None) or repr(annotation)
