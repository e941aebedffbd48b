"""What the DSL records while a design file runs.

These are mutable builders with a source location and an element path each. The DSL only
records; :mod:`tooldesign.ir` resolves and validates the records into the frozen IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tooldesign.contract.location import Location

# The type a DSL call may receive for a type argument: a DSL type expression, a user Type,
# a Type name (string, for recursion) or a Python builtin (str, int, float, bool).
TypeLike = Any


@dataclass(eq=False)
class Record:
    location: Location
    path: str
    entered: bool = field(default=False, init=False)


@dataclass(eq=False)
class ShapeRecord(Record):
    """An object's attributes, ``Required`` names and examples."""

    attributes: list[AttributeRecord] = field(default_factory=list)
    required: list[tuple[str, Location]] = field(default_factory=list)
    examples: list[tuple[Any, Location]] = field(default_factory=list)
    rules: list[RuleRecord] = field(default_factory=list)
    """``AtLeastOne``, ``ExactlyOne`` and ``When`` calls: rules across the arguments."""


@dataclass(eq=False)
class RuleRecord:
    """A rule across arguments as written: ``kind`` is ``at_least_one``, ``exactly_one`` or
    ``when``; for ``when``, ``names`` are its ``requires``."""

    kind: str
    names: tuple[Any, ...]
    location: Location
    field: Any = None
    equals: Any = None
    otherwise: tuple[Any, ...] = ()


@dataclass(eq=False)
class AttributeRecord(Record):
    name: Any
    type: TypeLike
    description: Any
    options: dict[str, Any]
    shape: ShapeRecord | None = None
    """The attributes of an ``Object`` declared in this attribute's ``with`` block."""
    repair: Any = None
    """``repair=[...]``: the repairs this attribute accepts (``None``: not stated)."""
    header: Any = None
    """``header="Region"``: the ``Mcp-Param-*`` header that mirrors this tool argument."""


@dataclass(eq=False)
class TypeRecord(Record):
    """A user type: ``with Type("Device", "…") as Device:``. Usable wherever a type is."""

    name: Any
    description: Any
    shape: ShapeRecord = field(default_factory=lambda: ShapeRecord(Location("", 0), ""))

    def __repr__(self) -> str:
        return f"Type({self.name!r})"


@dataclass(eq=False)
class MessageRecord(Record):
    """``Args``/``Return``/``ServerData`` contents: a block, or a type with a description."""

    type: TypeLike = None
    description: Any = None
    shape: ShapeRecord | None = None


@dataclass(eq=False)
class ServerDataRecord(Record):
    kind: Any = None
    default: Any = "on"
    message: MessageRecord | None = None
    from_field: Any = None


@dataclass(eq=False)
class BoundedRecord(Record):
    cursor: Any = None
    next_cursor: Any = None


@dataclass(eq=False)
class BindRecord(Record):
    target: Any = None


@dataclass(eq=False)
class ConfirmRecord(Record):
    """``Confirm(prompt, when=..., denied=...)``: a person approves the tool's calls."""

    prompt: Any = None
    when: Any = None
    denied: Any = None


@dataclass(eq=False)
class RepairsRecord(Record):
    """``Repairs(...)``: the repairs every attribute of a service, toolset or tool accepts."""

    kinds: tuple[Any, ...] = ()


@dataclass(eq=False)
class CodeAccessRecord(Record):
    """``CodeAccess(access)``: whether code the model writes may call the tool."""

    access: Any = None


@dataclass(eq=False)
class ContentRecord(Record):
    """``Content(*kinds)``: the content blocks the tool's result carries beside its data."""

    kinds: tuple[Any, ...] = ()


@dataclass(eq=False)
class AsksRecord(Record):
    """``Asks(*whom)``: whom the tool asks during a call (the user, the host's model, roots)."""

    whom: tuple[Any, ...] = ()


@dataclass(eq=False)
class LongRunningRecord(Record):
    """``LongRunning(...)``: the tool may (or must) run as a task (the MCP tasks extension)."""

    required: Any = False
    keep_ms: Any = None
    poll_ms: Any = None
    asks_first: Any = False


@dataclass(eq=False)
class AnnotationsRecord(Record):
    hints: dict[str, Any] = field(default_factory=dict)
    """The hints given, by name, as given (evaluation checks them against the table)."""


@dataclass(eq=False)
class LimitsRecord(Record):
    payload_bytes: Any = None
    depth: Any = None
    array_items: Any = None
    result_bytes: Any = None
    result_overflow: Any = None
    result_tokens: Any = None


@dataclass(eq=False)
class AgentRecord(Record):
    uses: Any = ()
    forward: Any = ()
    budgets: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class ToolRecord(Record):
    name: Any
    description: Any
    title: Any = None
    tags: list[tuple[Any, Location]] = field(default_factory=list)
    args: MessageRecord | None = None
    returns: MessageRecord | None = None
    bounded: BoundedRecord | None = None
    injected: list[tuple[Any, Location]] = field(default_factory=list)
    server_data: list[ServerDataRecord] = field(default_factory=list)
    bind: BindRecord | None = None
    annotations: AnnotationsRecord | None = None
    confirm: ConfirmRecord | None = None
    code_access: CodeAccessRecord | None = None
    content: ContentRecord | None = None
    repairs: RepairsRecord | None = None
    limits: LimitsRecord | None = None
    loading: tuple[Any, Location] | None = None
    scopes: list[tuple[Any, Location]] = field(default_factory=list)
    """``Scopes(...)``: each scope the tool needs beyond its toolset's, where it was given."""
    agent: AgentRecord | None = None
    asks: AsksRecord | None = None
    long_running: LongRunningRecord | None = None
    remote_name: Any = None
    """For a tool of an ``MCPToolset``: its name on the server, when the design's differs."""
    duplicates: list[tuple[str, Location]] = field(default_factory=list)
    """DSL calls made twice in this tool (``Args`` twice, say): reported as design errors."""


@dataclass(eq=False)
class ToolsetRecord(Record):
    name: Any
    description: Any
    tags: list[tuple[Any, Location]] = field(default_factory=list)
    tools: list[ToolRecord] = field(default_factory=list)
    mcp_server: Any = None
    """For an ``MCPToolset``: the ``server=`` it was given (checked by the IR)."""
    is_mcp: bool = False
    repairs: RepairsRecord | None = None
    loading: tuple[Any, Location] | None = None
    scopes: list[tuple[Any, Location]] = field(default_factory=list)
    """``Scopes(...)``: each scope every tool of the toolset needs, where it was given."""
    content: list[Any] = field(default_factory=list)
    """Its ``Prompt``, ``Resource`` and ``ResourceTemplate`` records
    (:mod:`tooldesign.dsl.content_records`), in design order."""


@dataclass(eq=False)
class ServiceRecord(Record):
    name: Any
    description: Any
    toolsets: list[ToolsetRecord] = field(default_factory=list)
    repairs: RepairsRecord | None = None
    targets: TargetsRecord | None = None


@dataclass(eq=False)
class TargetsRecord(Record):
    """``Targets(...)``: the clients a service's tools must suit, and the MCP server name."""

    names: tuple[Any, ...]
    server: Any = None
    eager_tokens: Any = None


@dataclass(frozen=True, slots=True)
class RecordingIssue:
    """A DSL call made where it does not belong (``Attribute`` outside a block, say)."""

    message: str
    location: Location
    path: str


@dataclass(eq=False)
class DesignRecord:
    """Everything one evaluation recorded."""

    types: list[TypeRecord] = field(default_factory=list)
    services: list[ServiceRecord] = field(default_factory=list)
    issues: list[RecordingIssue] = field(default_factory=list)
