"""The IR: a design after evaluation, resolved and validated. Immutable.

Every element keeps the design-file location and element path it came from, so later stages
(validation, transforms) can report errors where the user will look. Locations and paths are
left out of ``repr``: an element's repr is its content, which is what code generation
fingerprints (moving a tool down a file must not count as a change).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, is_dataclass
from enum import StrEnum
from typing import Any, Literal

from tooldesign.contract.agents import AgentContract
from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.asks import Whom
from tooldesign.contract.code_access import CodeAccess
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.contract.content import ContentKind
from tooldesign.contract.limits import ToolLimits
from tooldesign.contract.loading import Loading
from tooldesign.contract.location import Location
from tooldesign.contract.repairs import FieldRepair
from tooldesign.contract.rules import ArgumentRule
from tooldesign.contract.tasks import TaskSupport


class _NoValue:
    """Marks an absent default or example (``None`` is a real value)."""

    _instance: _NoValue | None = None

    def __new__(cls) -> _NoValue:  # noqa: PYI034 - a singleton: always the one instance
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_VALUE"

    def __bool__(self) -> bool:
        return False


NO_VALUE: Any = _NoValue()


class Primitive(StrEnum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ANY = "any"


@dataclass(frozen=True, slots=True)
class PrimitiveType:
    kind: Primitive
    schema: str | None = None
    """For ``Any(schema=...)``: the JSON Schema kept verbatim, as JSON text (hashable)."""


@dataclass(frozen=True, slots=True)
class ArrayType:
    items: TypeExpr
    min_items: int | None = None
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class MapType:
    """An object used as a map from string keys to ``values``."""

    values: TypeExpr


@dataclass(frozen=True, slots=True)
class NamedType:
    """A reference to a user ``Type`` by name (so recursion is possible)."""

    name: str


@dataclass(frozen=True, slots=True)
class ObjectType:
    """An inline object."""

    shape: ObjectShape


@dataclass(frozen=True, slots=True)
class UnionType:
    variants: tuple[TypeExpr, ...]
    discriminator: str | None = None
    location: Location | None = field(default=None, compare=False, repr=False)
    """The ``OneOf`` call (for errors about the union itself)."""


TypeExpr = PrimitiveType | ArrayType | MapType | NamedType | ObjectType | UnionType


_DSL_NAMES = {
    Primitive.STRING: "String",
    Primitive.INTEGER: "Int",
    Primitive.NUMBER: "Float",
    Primitive.BOOLEAN: "Boolean",
    Primitive.ANY: "Any",
}


def dsl_name(t: PrimitiveType) -> str:
    return _DSL_NAMES[t.kind]


def describe(t: TypeExpr) -> str:
    """A type as the DSL spells it, for messages."""
    match t:
        case PrimitiveType(schema=str()):
            return "Any(schema=...)"
        case PrimitiveType():
            return dsl_name(t)
        case ArrayType():
            return f"ArrayOf({describe(t.items)})"
        case MapType():
            return f"MapOf(String, {describe(t.values)})"
        case NamedType():
            return t.name
        case ObjectType():
            return "Object"
        case UnionType():
            return f"OneOf({', '.join(describe(v) for v in t.variants)})"
    return "?"


@dataclass(frozen=True, slots=True)
class Constraints:
    """Value constraints of an attribute: one attribute per row of
    :data:`tooldesign.contract.constraints.CONSTRAINTS`, named by its DSL option."""

    enum: tuple[Any, ...] | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    min_items: int | None = None
    max_items: int | None = None


NO_CONSTRAINTS = Constraints()
"""Shared by every attribute declared without constraints (most of them)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One attribute of an object."""

    name: str
    """The wire name, exactly as designed."""
    ident: str
    """The Python attribute name (the wire name sanitised; an alias keeps the wire name)."""
    type: TypeExpr
    description: str | None
    required: bool
    constraints: Constraints
    location: Location = field(repr=False)
    path: str = field(repr=False)
    default: Any = NO_VALUE
    example: Any = NO_VALUE
    repair: tuple[str, ...] | None = None
    """``repair=[...]``: the repairs this attribute accepts (``None``: not stated, so the
    service's, toolset's or tool's ``Repairs`` apply)."""
    header: str | None = None
    """``header="Region"``: MCP calls mirror this tool argument in the ``Mcp-Param-Region``
    HTTP header (``x-mcp-header``); only on a scalar attribute of a tool's ``Args`` block."""

    @property
    def has_default(self) -> bool:
        return self.default is not NO_VALUE


@dataclass(frozen=True, slots=True)
class ExampleValue:
    """An ``Example(...)`` value and where it was given."""

    value: Any
    location: Location = field(repr=False)


@dataclass(frozen=True, slots=True)
class ObjectShape:
    """The attributes of an object: a user type, a payload, a result or an inline ``Object``."""

    name_hint: str
    """The class name this shape would like (``ListDevicesPayload``); made unique per toolset."""
    fields: tuple[Field, ...]
    description: str | None
    location: Location = field(repr=False)
    path: str = field(repr=False)
    examples: tuple[ExampleValue, ...] = ()
    rules: tuple[ArgumentRule, ...] = ()
    """Rules across its fields (``AtLeastOne``, ``ExactlyOne``, ``When``): only a tool's
    payload has any."""

    def field(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None


@dataclass(frozen=True, slots=True)
class UserType:
    name: str
    class_name: str
    description: str | None
    shape: ObjectShape
    location: Location = field(repr=False)
    path: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Message:
    """A tool's payload or result, or a server-data kind: a type and the class name it wants."""

    type: TypeExpr
    name_hint: str
    description: str | None
    examples: tuple[ExampleValue, ...] = ()


@dataclass(frozen=True, slots=True)
class ResultBounds:
    """``BoundedResult``: the payload cursor field and the result next-cursor field (when paging)."""

    cursor: str | None = None
    next_cursor: str | None = None
    location: Location | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class ServerDataKind:
    kind: str
    message: Message
    description: str | None
    default: Literal["on", "off"]
    location: Location = field(repr=False)
    path: str = field(repr=False)
    source_field: str | None = None
    """For a bound tool: the field of the method's result that holds this data."""


@dataclass(frozen=True, slots=True)
class Binding:
    """``BindTo``: the function or method a tool calls, by import path."""

    module: str
    qualname: str
    location: Location = field(repr=False)
    path: str = field(repr=False)
    plan: object = None
    """How the tool's values reach the method and come back: a ``BindingPlan`` once the binding
    phase planned it. The IR holds it without knowing its type (``binding.plan.plan_of`` reads
    it), so the IR depends on no later stage."""

    @property
    def target(self) -> str:
        return f"{self.module}:{self.qualname}"


@dataclass(frozen=True, slots=True)
class MCPServerSpec:
    """``MCPToolset(server=...)``: where a toolset's tools live.

    ``command`` starts a stdio server (with ``env`` and ``cwd``); ``url`` is a streamable-HTTP
    endpoint (with ``headers``). ``timeout`` bounds one call, in seconds.
    """

    command: tuple[str, ...] = ()
    url: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    ident: str
    class_prefix: str
    service: str
    toolset: str
    title: str | None
    description: str
    tags: tuple[str, ...]
    payload: Message
    result: Message
    location: Location = field(repr=False)
    path: str = field(repr=False)
    bounds: ResultBounds | None = None
    injected: tuple[str, ...] = ()
    server_data: tuple[ServerDataKind, ...] = ()
    binding: Binding | None = None
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    remote_name: str | None = None
    """For a tool of an ``MCPToolset``: its name on the server (``None``: the same name)."""
    confirm: ConfirmSpec | None = None
    """``Confirm``: a person approves its calls (those ``confirm.when`` selects) before they run."""
    code_access: CodeAccess | None = None
    """``CodeAccess``: whether code mode's code may call it (``None``: its side effects say)."""
    content: tuple[ContentKind, ...] = ()
    """``Content``: the content blocks its result carries beside its data (in the table's order)."""
    asks: tuple[Whom, ...] = ()
    """``Asks``: whom it asks during a call (the user, the host's model, the client's roots)."""
    task: TaskSupport | None = None
    """``LongRunning``: it may (or must) run as a long-running task (MCP's tasks extension)."""
    repairs: tuple[FieldRepair, ...] = ()
    """The payload fields whose slips the runtime repairs, and how (``Repairs``, ``repair=``)."""
    limits: ToolLimits = field(default_factory=ToolLimits)
    loading: Loading | None = None
    """``Loading(...)``: ``"deferred"`` when the tool is found through a tool search rather
    than sent in every request; ``None`` when the design does not say (eager)."""
    agent: AgentContract | None = None
    """``ImplementedByAgent``: an agent run is the tool's implementation (the app binds it)."""
    scopes: tuple[str, ...] = ()
    """``Scopes``: every scope a caller needs to call it (its toolset's and its own, sorted)."""

    @property
    def id(self) -> str:
        return f"{self.service}.{self.toolset}.{self.name}"


@dataclass(frozen=True, slots=True)
class ContentItem:
    """A ``Prompt`` (``kind="prompt"``), ``Resource`` or ``ResourceTemplate`` of a toolset.

    ``arguments`` are a prompt's arguments or a template's variables (scalars, each a field);
    ``class_name`` names their generated model. ``binding`` renders or reads it, ``template``
    is a prompt's text; ``completes`` says its free arguments complete from a handler, bound
    to ``completer`` when given."""

    kind: Literal["prompt", "resource", "template"]
    name: str
    ident: str
    class_name: str
    description: str
    title: str | None
    uri: str | None
    mime_type: str | None
    arguments: tuple[Field, ...]
    template: str | None
    binding: Binding | None
    completes: bool
    completer: Binding | None
    location: Location = field(repr=False)
    path: str = field(repr=False)
    asks: tuple[Whom, ...] = ()
    """``Asks`` in a ``Prompt``: whom its rendering asks (as a tool's ``Asks``)."""


@dataclass(frozen=True, slots=True)
class Toolset:
    name: str
    ident: str
    description: str | None
    tags: tuple[str, ...]
    tools: tuple[Tool, ...]
    location: Location = field(repr=False)
    path: str = field(repr=False)
    mcp: MCPServerSpec | None = None
    """Set for an ``MCPToolset``: its tools run on this MCP server."""
    content: tuple[ContentItem, ...] = ()
    """Its prompts, resources and resource templates, served beside its tools over MCP."""


@dataclass(frozen=True, slots=True)
class Service:
    name: str
    ident: str
    description: str | None
    toolsets: tuple[Toolset, ...]
    location: Location = field(repr=False)
    path: str = field(repr=False)
    targets: ServiceTargets | None = None
    """``Targets(...)``: the clients the service's tools must suit."""


@dataclass(frozen=True, slots=True)
class ServiceTargets:
    """The clients a service promises its tools suit, and the MCP server name they count."""

    names: tuple[str, ...]
    server: str | None
    location: Location = field(repr=False)
    path: str = field(repr=False)
    eager_tokens: int | None = None
    """The prompt budget of the eagerly loaded tools, per provider target (``None``: none)."""


@dataclass(frozen=True, slots=True)
class Design:
    services: tuple[Service, ...]
    types: Mapping[str, UserType]
    sources: tuple[str, ...] = ()
    fingerprints: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Content fingerprint per toolset (``"service/toolset"``), see ``ir.fingerprint``."""
    rejected: tuple[ObjectShape, ...] = field(default=(), repr=False)
    """Shapes kept out of the design because of their names (a repeated ``Type``, an attribute
    whose name is taken or no string): never generated, but validated, so that every problem
    inside them is reported with the rest. Only a design with issues has any."""

    def tools(self) -> Iterator[Tool]:
        for service in self.services:
            for toolset in service.toolsets:
                yield from toolset.tools

    def user_type(self, name: str) -> UserType:
        return self.types[name]


def _reprs_without_cycle_guards() -> None:
    """The IR is a tree of frozen values built bottom up, so it has no cycles, and the reprs
    that fingerprints hash need no guard against them: the guard took a quarter of their time."""
    for value in list(globals().values()):
        if isinstance(value, type) and value.__module__ == __name__ and is_dataclass(value):
            generated = getattr(value.__repr__, "__wrapped__", None)  # None: a repr of its own
            if generated is not None:
                value.__repr__ = generated  # type: ignore[method-assign]


_reprs_without_cycle_guards()
