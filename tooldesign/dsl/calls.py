"""The DSL functions a design file calls.

Every call records into the block around it and remembers its design-file line. A call made in
the wrong place is recorded as a design error (reported with all the others after the design
has run) and returns a detached record, so evaluation goes on without cascading errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, ParamSpec, TypeAlias, Unpack

from tooldesign.contract.constraints import AttributeOptions
from tooldesign.contract.errors import close_match
from tooldesign.contract.location import Location
from tooldesign.contract.repairs import RepairName
from tooldesign.dsl.content_records import ContentRecord, PromptRecord
from tooldesign.dsl.recorder import Block, Unentered, caller_location, current, shape_of
from tooldesign.dsl.records import (
    AttributeRecord,
    BindRecord,
    BoundedRecord,
    MessageRecord,
    Record,
    ServerDataRecord,
    ServiceRecord,
    ShapeRecord,
    TargetsRecord,
    ToolRecord,
    ToolsetRecord,
    TypeLike,
    TypeRecord,
)
from tooldesign.dsl.types import (
    ArrayExpr,
    MapExpr,
    MCPServerExpr,
    ObjectExpr,
    TypeExpr,
    UnionExpr,
)

# ── the types of the DSL's arguments, for type checkers and editors ──────────────────────────
# Evaluation checks every value again (``gen`` reports what a checker cannot see, such as a
# pattern that does not compile); these types let mypy and editors flag a misspelt option or
# format while the design is written.

DslType: TypeAlias = (
    TypeExpr | Block | Record | str | type[str] | type[int] | type[float] | type[bool]
)
"""What a type argument takes: ``String``, ``ArrayOf(...)``…, a ``Type`` (or its name, for
recursion), or one of ``str``, ``int``, ``float``, ``bool``."""


_CONSTRAINT_OPTIONS = tuple(AttributeOptions.__annotations__)
_KNOWN_OPTIONS = frozenset(_CONSTRAINT_OPTIONS)
_ATTRIBUTE_OPTIONS = (*_CONSTRAINT_OPTIONS, "repair")
"""Every keyword ``Attribute`` takes after its description, as its errors list them."""


def _unknown_options(unknown: Sequence[str]) -> str:
    """The error for ``Attribute`` keywords it does not take, each near miss named."""
    named = []
    for key in unknown:
        close = close_match(key, _ATTRIBUTE_OPTIONS)
        named.append(f"{key}= (did you mean {close}=?)" if close else f"{key}=")
    option = "option" if len(unknown) == 1 else "options"
    return (
        f"unknown Attribute {option} {', '.join(named)}; allowed: {', '.join(_ATTRIBUTE_OPTIONS)}"
    )


_UNSET: Any = object()

P = ParamSpec("P")


def _quoted(name: object) -> str:
    # A name with a newline or another unprintable character is shown escaped, so messages
    # that name the element stay on one line and show what is wrong.
    return f'"{name}"' if isinstance(name, str) and name.isprintable() else repr(name)


def _misplaced(what: str, where: str, location: Location, path: str | None = None) -> None:
    rec = current()
    rec.issue(f"{what} must be called inside {where}", location, path or rec.child_path(what))


def _tool_top(what: str, location: Location) -> ToolRecord | None:
    top = current().top
    if isinstance(top, ToolRecord):
        return top
    _misplaced(what, "a Tool block", location)
    return None


def _content_top() -> ContentRecord | None:
    """The open ``Prompt``/``Resource``/``ResourceTemplate`` block, which takes ``Args`` and
    ``BindTo`` as a tool does."""
    top = current().top
    return top if isinstance(top, ContentRecord) else None


def _once_in_tool(what: str, field: str, make: Callable[[Location, str], Record]) -> None:
    """Record the call ``what``, which a Tool block takes once, as the tool's ``field``
    (``make(location, path)`` builds the record); a second one is reported as a duplicate."""
    rec, where = current(), caller_location()
    content = _content_top()
    # A prompt is bound as a tool is, and may ask as one does (``Asks``).
    takes = field == "bind" or (field == "asks" and isinstance(content, PromptRecord))
    tool: ToolRecord | ContentRecord | None = content if takes else None
    if tool is None:
        tool = _tool_top(what, where)
    if tool is None:
        return
    if getattr(tool, field) is not None:
        tool.duplicates.append((what, where))
        return
    setattr(tool, field, make(where, rec.child_path(field)))


def Service(name: str, description: str | None = None) -> Block:
    """Declare a service: ``with Service("assistant", "…"):``."""
    rec, where = current(), caller_location()
    record = ServiceRecord(where, f"service {_quoted(name)}", name=name, description=description)
    if rec.top is None:
        rec.design.services.append(record)
    else:
        rec.issue(
            "Service must be declared at the top level of a design file, not inside another block",
            where,
            record.path,
        )
    return Block(record, rec)


def Toolset(name: str, description: str | None = None) -> Block:
    """Declare a toolset of the enclosing service: ``with Toolset("devices", "…"):``."""
    return _toolset("Toolset", name, description)


def _toolset(what: str, name: str, description: str | None, **mcp: Any) -> Block:
    """A ``Toolset`` or ``MCPToolset`` block (``mcp`` holds the latter's server fields)."""
    rec, where = current(), caller_location()
    record = ToolsetRecord(
        where,
        rec.child_path(f"toolset {_quoted(name)}"),
        name=name,
        description=description,
        **mcp,
    )
    if isinstance(rec.top, ServiceRecord):
        rec.top.toolsets.append(record)
    else:
        _misplaced(what, "a Service block", where, record.path)
    return Block(record, rec)


def Tool(
    name: str,
    description: str | None = None,
    *,
    title: str | None = None,
    remote_name: str | None = None,
) -> Block:
    """Declare a tool of the enclosing toolset: ``with Tool("list_devices", "…", title="…"):``.

    In an ``MCPToolset``, ``remote_name`` is the tool's name on the server when it is not a
    name models can use (``weather.get`` is served as ``weather_get``).
    """
    rec, where = current(), caller_location()
    record = ToolRecord(
        where,
        rec.child_path(f"tool {_quoted(name)}"),
        name=name,
        description=description,
        title=title,
        remote_name=remote_name,
    )
    if isinstance(rec.top, ToolsetRecord):
        rec.top.tools.append(record)
    else:
        _misplaced("Tool", "a Toolset block", where, record.path)
    return Block(record, rec)


def MCPToolset(
    name: str, description: str | None = None, *, server: str | Sequence[str] | MCPServerExpr
) -> Block:
    """Declare a toolset whose tools live on an MCP server: ``with MCPToolset("weather", "…",
    server="https://weather.example/mcp"):``.

    ``server`` is a streamable-HTTP URL, a command line that starts a stdio server (a string,
    split like a shell would, or a list of arguments), or an :func:`MCPServer` for more. Its
    tools are declared like any others; the generated executor calls them on the server.
    """
    return _toolset("MCPToolset", name, description, mcp_server=server, is_mcp=True)


def MCPServer(
    command: str | list[str] | None = None,
    *,
    url: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float | None = None,
) -> MCPServerExpr:
    """Where an ``MCPToolset``'s tools live: a stdio ``command`` (with ``env`` and ``cwd``) or a
    streamable-HTTP ``url`` (with ``headers``); ``timeout`` is the seconds one call may take."""
    return MCPServerExpr(
        command=command,
        url=url,
        env=env,
        cwd=cwd,
        headers=headers,
        timeout=timeout,
        location=caller_location(),
    )


def Type(name: str, description: str | None = None) -> Block:
    """Declare a user type: ``with Type("Device", "…") as Device:``."""
    rec, where = current(), caller_location()
    record = TypeRecord(where, f"type {_quoted(name)}", name=name, description=description)
    record.shape = ShapeRecord(where, record.path)
    if rec.top is None or isinstance(rec.top, ServiceRecord):
        rec.design.types.append(record)
    else:
        _misplaced(
            "Type",
            "no block but a Service (types are shared by the whole design)",
            where,
            record.path,
        )
    named = f" as {name}" if isinstance(name, str) and name.isidentifier() else ""
    return _takes_attributes(record, f"Type({_quoted(name)}, …)", named)


def _takes_attributes(record: Record, call: str, named: str = "") -> Block:
    """The block of ``record``, which takes attributes: remembered, until another block is
    entered or left, as where attributes called outside any block were meant to go (``call``
    spells it, ``named`` is the ``as`` part of its ``with``)."""
    rec = current()
    rec.unentered = Unentered(record, rec.top, call, named)
    return Block(record, rec)


_SHAPE_BLOCKS = "Args, Return, Type, ServerData or an Object attribute block"


def _shape_for(
    what: str, where: Location, path: str | None = None
) -> tuple[ShapeRecord | None, Record | None]:
    """The object shape a call of ``what`` (``Attribute``, ``Required``, ``Example``) records
    into, and the record that holds it: the open block's; or, when the ``with`` of the block
    called just before was forgotten (``Args()``), that block's, the slip reported once at its
    own line (each of the calls after it would otherwise be an error of its own, none of them
    naming the line to fix). ``(None, None)`` when the call is misplaced: reported here."""
    rec = current()
    shape = shape_of(rec.top)
    if shape is not None:
        return shape, rec.top
    stray = rec.unentered
    if stray is None or stray.parent is not rec.top or stray.record.entered:
        _misplaced(what, _SHAPE_BLOCKS, where, path)
        return None, None
    if not stray.reported:
        stray.reported = True
        rec.issue(
            f'{stray.call} is called without "with", so the {what} on line {where.line} and '
            f'the calls after it are outside it: write "with {stray.call}{stray.named}:"',
            stray.record.location,
            stray.record.path,
        )
    return shape_of(stray.record), stray.record


def _message_record(
    where: Location, path: str, type: TypeLike, description: str | None
) -> MessageRecord:
    # The shape always exists so attributes recorded in a block that wrongly names a type too are
    # caught once, by the IR (``Args(Device)`` with a block), not as misplaced attributes.
    block_form = type is None or isinstance(type, ObjectExpr)
    return MessageRecord(
        where,
        path,
        type=None if block_form else type,
        description=description,
        shape=ShapeRecord(where, path),
    )


def _message(kind: str, type: TypeLike, description: str | None) -> Block:
    rec, where = current(), caller_location()
    record = _message_record(where, rec.child_path(kind), type, description)
    tool: ToolRecord | ContentRecord | None = _content_top() if kind == "args" else None
    if tool is None:
        tool = _tool_top("Args" if kind == "args" else "Return", where)
    if tool is not None:
        if (tool.args if kind == "args" else getattr(tool, "returns", None)) is not None:
            tool.duplicates.append(("Args" if kind == "args" else "Return", where))
        elif kind == "args":
            tool.args = record
        elif isinstance(tool, ToolRecord):
            tool.returns = record
    if record.type is not None:
        return Block(record, rec)
    return _takes_attributes(record, "Args()" if kind == "args" else "Return()")


def Args(type: DslType | None = None, description: str | None = None) -> Block:
    """The tool's arguments: a ``with Args():`` block of attributes, a user type, or a primitive."""
    return _message("args", type, description)


def Return(type: DslType | None = None, description: str | None = None) -> Block:
    """The tool's result: a ``with Return():`` block of attributes, a user type, or a primitive."""
    return _message("result", type, description)


def Attribute(
    name: str,
    type: DslType,
    description: str | None = None,
    *,
    repair: Sequence[RepairName] | None = None,
    header: str | None = None,
    **options: Unpack[AttributeOptions],
) -> Block:
    """Declare an attribute of the enclosing object.

    Options (:class:`AttributeOptions`): ``enum, default, minimum, maximum, exclusive_minimum,
    exclusive_maximum, min_length, max_length, pattern, format, min_items, max_items,
    example``.
    ``with Attribute("filter", Object, "…"):`` declares the attributes of an inline object
    (also ``ArrayOf(Object)`` and ``MapOf(String, Object)``).
    ``repair=["numeric_string"]`` names the slips a model may make in this argument that the
    runtime repairs instead of refusing (see :func:`Repairs`); ``repair=[]`` accepts none,
    whatever the defaults.
    ``header="Region"`` mirrors a tool's own argument (a string, integer or boolean of its
    ``Args`` block) in the ``Mcp-Param-Region`` HTTP header of each MCP call (the
    ``x-mcp-header`` extension), so gateways can route on it; the server checks the two agree.
    """
    rec, where = current(), caller_location()
    shape, owner = _shape_for("Attribute", where, rec.child_path(_quoted(name)))
    path = (
        f"{owner.path} › {_quoted(name)}"
        if owner is not None and owner is not rec.top
        else rec.child_path(_quoted(name))
    )
    given: dict[str, Any] = dict(options)
    record = AttributeRecord(
        where,
        path,
        name=name,
        type=type,
        description=description,
        options=given,
        repair=repair,
        header=header,
    )
    # Checked here too: a design that no type checker has read may still misspell an option.
    unknown = sorted(given.keys() - _KNOWN_OPTIONS)
    if unknown:
        rec.issue(_unknown_options(unknown), where, record.path)
        for key in unknown:
            del given[key]
    if shape is not None:
        shape.attributes.append(record)
    return Block(record, rec)


def Required(*names: str) -> None:
    """Mark attributes of the enclosing object as required."""
    where = caller_location()
    shape, _ = _shape_for("Required", where)
    if shape is None:
        return
    shape.required.extend((name, where) for name in names)


def Example(value: Any) -> None:
    """An example value of the enclosing object (shown to models in retry hints)."""
    where = caller_location()
    shape, _ = _shape_for("Example", where)
    if shape is None:
        return
    shape.examples.append((value, where))


def Targets(*names: str, server: str | None = None, eager_tokens: int | None = None) -> None:
    """The clients the enclosing service's tools must suit (``"openai-strict"``,
    ``"claude-code"``, ``"cursor"``…): ``gen`` refuses a tool that one of them cannot take.

    ``server`` is the MCP server name the service is served under (default: its own name), which
    hosts' name budgets count. ``eager_tokens`` is the prompt budget of the tools loaded
    eagerly (those not ``Loading("deferred")``), counted for each provider target: over it is
    a design error naming the largest tools.
    """
    rec, where = current(), caller_location()
    top = rec.top
    if not isinstance(top, ServiceRecord):
        _misplaced("Targets", "a Service block", where)
        return
    if top.targets is not None:
        rec.issue(
            f"Targets is already given for this service (line {top.targets.location.line}): "
            "name every target in one call",
            where,
            rec.child_path("targets"),
        )
        return
    top.targets = TargetsRecord(
        where, rec.child_path("targets"), names=names, server=server, eager_tokens=eager_tokens
    )


def Tags(*tags: str) -> None:
    """Tags for the enclosing toolset (applied to all its tools) or tool."""
    rec, where = current(), caller_location()
    top = rec.top
    if isinstance(top, ToolsetRecord | ToolRecord):
        top.tags.extend((tag, where) for tag in tags)
    else:
        _misplaced("Tags", "a Toolset or Tool block", where)


def ArrayOf(
    items: DslType, *, min_items: int | None = None, max_items: int | None = None
) -> ArrayExpr:
    """An array of ``items``."""
    return ArrayExpr(items, min_items, max_items, caller_location())


def MapOf(key: DslType, values: DslType) -> MapExpr:
    """An object used as a map from string keys to ``values``."""
    return MapExpr(key, values, caller_location())


def OneOf(*types: DslType, discriminator: str | None = None) -> UnionExpr:
    """A value of one of ``types``; with ``discriminator``, a union tagged by that field."""
    return UnionExpr(tuple(types), discriminator, caller_location())


def BoundedResult(cursor: str | None = None, next_cursor: str | None = None) -> None:
    """The tool returns a bounded view of a larger answer (see ``Bounds``).

    ``cursor`` names the payload field that takes a page cursor; ``next_cursor`` names the
    result field that returns the next one. Give both to page, or neither.
    """
    _once_in_tool(
        "BoundedResult",
        "bounded",
        lambda where, path: BoundedRecord(where, path, cursor=cursor, next_cursor=next_cursor),
    )


def Inject(*names: str) -> None:
    """Fields of the payload filled by the runtime from the call's metadata, hidden from the model."""
    where = caller_location()
    tool = _tool_top("Inject", where)
    if tool is not None:
        tool.injected.extend((name, where) for name in names)


def ServerData(
    kind: str,
    type: DslType | None = None,
    description: str | None = None,
    *,
    default: Literal["on", "off"] = "on",
    from_field: str | None = None,
) -> Block:
    """Typed data for observers, never for the model: a type, or a ``with`` block of attributes.

    ``default`` says whether it is emitted unless a call asks otherwise. For a bound tool,
    ``from_field`` names the field of the method's result that holds the data.
    """
    rec, where = current(), caller_location()
    path = rec.child_path(f"server_data {_quoted(kind)}")
    message = _message_record(where, path, type, description)
    record = ServerDataRecord(
        where, path, kind=kind, default=default, message=message, from_field=from_field
    )
    tool = _tool_top("ServerData", where)
    if tool is not None:
        tool.server_data.append(record)
    if message.type is not None:
        return Block(record, rec)
    return _takes_attributes(record, f"ServerData({_quoted(kind)}, …)")


def BindTo(target: Callable[..., Any] | str) -> None:
    """Bind the tool to an existing function or method (or a ``"module:qualname"`` string)."""
    _once_in_tool("BindTo", "bind", lambda where, path: BindRecord(where, path, target=target))


def block_record(value: Any) -> Record | Any:
    """``value`` unwrapped from a :class:`Block` (``Device = Type(...)`` used without ``with``)."""
    return value.record if isinstance(value, Block) else value
