"""Transform plans: how a bound tool's values move between the tool's types and the method's.

A plan is data. Code generation renders it into ``transforms.py``; nothing here runs at call
time. Conversions apply to a value that is not ``None``; field moves decide what ``None`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tooldesign.binding.pytypes import PyEnum, PyRecord, PyRef, PyType, RecordKind
from tooldesign.ir.model import NO_VALUE, Message, ObjectShape, Tool


@dataclass(frozen=True, slots=True)
class Same:
    """The value is used as it is."""


@dataclass(frozen=True, slots=True)
class EachItem:
    """A list, converted item by item."""

    item: Conv


@dataclass(frozen=True, slots=True)
class EachValue:
    """A string-keyed map, converted value by value."""

    value: Conv


@dataclass(frozen=True, slots=True)
class OrNone:
    """``None`` stays ``None``; anything else is converted."""

    inner: Conv


@dataclass(frozen=True, slots=True)
class BuildRecord:
    """The record helper with this key builds the target."""

    key: str


@dataclass(frozen=True, slots=True)
class DumpModel:
    """A tool model passed where the method takes a plain mapping."""


@dataclass(frozen=True, slots=True)
class ToEnum:
    """A tool value (a string or number its enum lists) as the member of ``enum`` with that value."""

    enum: PyEnum


@dataclass(frozen=True, slots=True)
class EnumValue:
    """An Enum member as the plain value a tool holds (``.value``)."""


@dataclass(frozen=True, slots=True)
class Narrowed:
    """A method's value the tool's type is narrower than by its constraints only (a ``str``
    where the tool lists the values it takes): passed on as ``inner`` converts it, and checked
    when the call returns (the tool's result type validates every result)."""

    inner: Conv


@dataclass(frozen=True, slots=True)
class ValidateInto:
    """An untyped value (``Any``, ``dict``) validated into a tool type at run time."""

    target: ToolEnd


@dataclass(frozen=True, slots=True)
class Case:
    guard: Guard
    conv: Conv


@dataclass(frozen=True, slots=True)
class Dispatch:
    """A union: the first case whose guard matches the value converts it."""

    cases: tuple[Case, ...]


Conv = (
    Same
    | EachItem
    | EachValue
    | OrNone
    | BuildRecord
    | DumpModel
    | ToEnum
    | EnumValue
    | Narrowed
    | ValidateInto
    | Dispatch
)


@dataclass(frozen=True, slots=True)
class ToolEnd:
    """A generated class: a user type (by name), an inline object (by shape) or a root message."""

    type_name: str | None = None
    shape: ObjectShape | None = None
    message: Message | None = None


@dataclass(frozen=True, slots=True)
class AppEnd:
    ref: PyRef
    kind: RecordKind


@dataclass(frozen=True, slots=True)
class ToolGuard:
    """``isinstance(value, <generated class>)``."""

    end: ToolEnd


@dataclass(frozen=True, slots=True)
class AppGuard:
    """``isinstance(value, <application class>)``."""

    ref: PyRef


@dataclass(frozen=True, slots=True)
class ScalarGuard:
    """``isinstance(value, str|int|float|bool)`` (bool tested before int)."""

    name: str


Guard = ToolGuard | AppGuard | ScalarGuard


@dataclass(frozen=True, slots=True)
class FieldMove:
    """One field of the target, read from one field of the source."""

    target: str
    source: str
    conv: Conv
    source_may_be_none: bool = False
    omit_when_none: bool = False
    """The target key is left out when the source is ``None`` (TypedDict, keyword arguments)."""
    default: Any = NO_VALUE
    """Used when the source is ``None`` (a target field that does not accept ``None``)."""


@dataclass(frozen=True, slots=True)
class RecordMapping:
    key: str
    source: ToolEnd | AppEnd
    target: ToolEnd | AppEnd
    moves: tuple[FieldMove, ...]
    source_access: Literal["attribute", "key"] = "attribute"
    construct: Literal["call", "mapping", "validate"] = "call"
    """How the target is built: a keyword call; a mapping (TypedDict, keyword arguments); or a
    mapping keyed by alias that the target (a pydantic model with aliases) validates."""


@dataclass(frozen=True, slots=True)
class ResultPlan:
    """Method result → tool result."""

    conv: Conv
    app_type: PyType | None
    """``None`` when the method returns nothing."""
    root: bool = False
    """The tool result is a root model wrapping the converted value."""


@dataclass(frozen=True, slots=True)
class ServerDataPlan:
    kind: str
    field: str
    access: Literal["attribute", "key"]
    conv: Conv
    may_be_none: bool
    root: bool = False
    """The kind's type is not an object: its class is a root model wrapping the converted value."""


@dataclass(frozen=True, slots=True)
class BindingPlan:
    """How a bound tool calls its method and reads back the result."""

    owner: PyRef | None
    """The class whose instance (the toolset's service) the method is called on; ``None`` for a function."""
    method: str
    is_async: bool
    payload_mode: Literal["record", "arguments"]
    payload_key: str
    """The record mapping that builds the method payload (a record, or keyword arguments)."""
    payload_type: PyRecord
    result: ResultPlan
    server_data: tuple[ServerDataPlan, ...]
    records: tuple[RecordMapping, ...]
    app_records: tuple[PyRecord, ...]


def plan_of(tool: Tool) -> BindingPlan | None:
    """The transform plan of a bound tool (``None``: not bound, or not planned)."""
    plan = tool.binding.plan if tool.binding is not None else None
    assert plan is None or isinstance(plan, BindingPlan)
    return plan
