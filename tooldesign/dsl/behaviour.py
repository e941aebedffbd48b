"""The DSL calls that say how a tool behaves when it runs, beside its shape: its side effects
(``Annotations``), who approves it (``Confirm``), whether code may call it (``CodeAccess``), the
slips the runtime repairs (``Repairs``), the content its result carries beside its data
(``Content``), its limits (``Limits``), how it is loaded (``Loading``), an agent run as its
implementation (``ImplementedByAgent``), whom it asks during a call (``Asks``), and the scopes a
caller needs (``Scopes``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, Literal, ParamSpec

from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.asks import Whom
from tooldesign.contract.content import ContentKind
from tooldesign.contract.limits import Overflow
from tooldesign.contract.repairs import RepairName
from tooldesign.dsl.calls import _misplaced, _once_in_tool
from tooldesign.dsl.recorder import caller_location, current
from tooldesign.dsl.records import (
    AgentRecord,
    AnnotationsRecord,
    AsksRecord,
    CodeAccessRecord,
    ConfirmRecord,
    ContentRecord,
    LimitsRecord,
    LongRunningRecord,
    RepairsRecord,
    ServiceRecord,
    ToolRecord,
    ToolsetRecord,
)

P = ParamSpec("P")


def Loading(how: Literal["eager", "deferred"]) -> None:
    """How the enclosing toolset's tools (or this tool) are loaded into a model's request:
    ``"eager"`` (the definition in every request) or ``"deferred"`` (found through a tool
    search, see docs/exports.md). A tool's own ``Loading`` wins over its toolset's; unset, a
    tool is eager."""
    rec, where = current(), caller_location()
    top = rec.top
    if not isinstance(top, ToolsetRecord | ToolRecord):
        _misplaced("Loading", "a Toolset or Tool block", where)
        return
    if top.loading is not None:
        rec.issue(
            f"Loading is already given here (line {top.loading[1].line})",
            where,
            rec.child_path("loading"),
        )
        return
    top.loading = (how, where)


def Scopes(*scopes: str) -> None:
    """The OAuth scopes a caller needs to call the enclosing toolset's tools (or this tool):
    ``Scopes("devices:write")``. A tool needs all of them: its toolset's and its own. A caller
    whose verified principal lacks one is refused before its arguments are read, and an MCP
    server lists a tool only to callers that hold its scopes (see docs/mcp.md, "Scopes and
    audit")."""
    rec, where = current(), caller_location()
    top = rec.top
    if not isinstance(top, ToolsetRecord | ToolRecord):
        _misplaced("Scopes", "a Toolset or Tool block", where)
        return
    if not scopes:
        rec.issue("Scopes needs at least one scope, e.g. Scopes('devices:write')", where, top.path)
        return
    top.scopes.extend((scope, where) for scope in scopes)


def _keywords_of(model: Callable[P, object]) -> Callable[[Callable[..., None]], Callable[P, None]]:
    """Give the decorated call ``model``'s keyword arguments, for type checkers and ``help()``.

    ``Annotations`` takes exactly the fields of :class:`ToolAnnotations`, the table of
    annotations, so adding one there is all it takes for designs to state it.
    """

    def typed(call: Callable[..., None]) -> Callable[P, None]:
        signature = inspect.signature(model)
        call.__signature__ = signature.replace(return_annotation=None)  # type: ignore[attr-defined]
        return call

    return typed


@_keywords_of(ToolAnnotations)
def Annotations(**hints: Any) -> None:
    """Behaviour hints for clients, carried into MCP annotations: ``Annotations(read_only=True)``.

    Takes the fields of :class:`~tooldesign.contract.annotations.ToolAnnotations`, each
    ``True``, ``False`` or ``None`` (not stated).
    """
    _once_in_tool(
        "Annotations",
        "annotations",
        lambda where, path: AnnotationsRecord(where, path, hints=hints),
    )


def Confirm(prompt: str, *, when: str | None = None, denied: str | None = None) -> None:
    """A person approves each call of the tool before it runs: ``Confirm("Restart {device_id}?")``.

    ``prompt`` is what the person is asked, a template over the tool's arguments (each
    ``{name}`` names one; ``{{`` is a literal brace). ``when`` limits approval to the calls for
    which a condition over the arguments holds (``"duration_minutes > 120"``; see
    ``tooldesign.contract.conditions``). ``denied`` is what the model is told when the person
    refuses (a fixed message by default).
    """
    _once_in_tool(
        "Confirm",
        "confirm",
        lambda where, path: ConfirmRecord(where, path, prompt=prompt, when=when, denied=denied),
    )


def CodeAccess(access: str) -> None:
    """Whether code the model writes (code mode) may call the tool: ``"call"`` (freely),
    ``"approve"`` (each call waits for the tool's ``Confirm``) or ``"direct"`` (only the model
    calls it). Without it the tool's side effects decide: read-only or idempotent tools
    ``call``, ``Confirm`` tools ``approve``, the others ``direct``."""
    _once_in_tool(
        "CodeAccess",
        "code_access",
        lambda where, path: CodeAccessRecord(where, path, access=access),
    )


def Content(*kinds: ContentKind) -> None:
    """The content blocks the tool's result may carry beside its typed data:
    ``Content("image", "resource")``.

    The kinds are MCP's: ``"image"`` and ``"audio"`` (bytes and a MIME type),
    ``"resource_link"`` (a URI the client may read) and ``"resource"`` (an embedded resource,
    its text or bytes). The handler returns ``WithContent(result, Image(...), …)``; the runtime
    sends only the kinds declared, MCP answers carry them as content blocks, and each provider
    export takes what that provider can (see docs/mcp.md, "Rich results").
    """
    _once_in_tool(
        "Content",
        "content",
        lambda where, path: ContentRecord(where, path, kinds=tuple(kinds)),
    )


def Asks(*whom: Whom) -> None:
    """The tool asks, during a call, for what its arguments do not hold: ``"user"`` (a typed
    form), ``"model"`` (the host's model), ``"roots"`` (the client's roots) —
    ``Asks("user")``. Its handler asks through ``tooldesign.runtime.exchanges()``; over MCP, a
    request the design does not declare is not sent."""
    _once_in_tool("Asks", "asks", lambda where, path: AsksRecord(where, path, whom=whom))


def LongRunning(
    *,
    required: bool = False,
    keep_ms: int | None = None,
    poll_ms: int | None = None,
    asks_first: bool = False,
) -> None:
    """The tool may run as a long-running task: over MCP, a client that negotiated the tasks
    extension gets a task at once, which it polls, answers the tool's questions through and
    cancels; the result is kept ``keep_ms`` after the task ends (default an hour), clients are
    told to poll every ``poll_ms`` (default 500). ``LongRunning(required=True)``: only as a task.
    ``asks_first=True``: the tool's questions are asked in the call's own rounds before the
    task is created. Each call still runs through ``Runtime.execute``."""
    _once_in_tool(
        "LongRunning",
        "long_running",
        lambda where, path: LongRunningRecord(
            where, path, required=required, keep_ms=keep_ms, poll_ms=poll_ms, asks_first=asks_first
        ),
    )


def Repairs(*kinds: RepairName) -> None:
    """Slips of weaker models the runtime repairs in every argument of the enclosing service,
    toolset or tool, where they apply: ``Repairs("numeric_string", "boolean_string")``.

    The closed set: ``numeric_string`` (``"20"`` for a number), ``boolean_string`` (``"true"``
    for a boolean), ``json_string`` (an object or list sent as JSON text), ``single_value``
    (one value where a list is expected), ``enum_case`` (an allowed value in another case). The
    nearest declaration wins (tool over toolset over service), and an attribute's own
    ``repair=`` over all of them. A repaired call runs, records each repair and tells the model
    what was assumed; the schema the model is shown does not change.
    """
    rec, where = current(), caller_location()
    top = rec.top
    if not isinstance(top, ServiceRecord | ToolsetRecord | ToolRecord):
        _misplaced("Repairs", "a Service, Toolset or Tool block", where)
        return
    if top.repairs is not None:
        if isinstance(top, ToolRecord):
            top.duplicates.append(("Repairs", where))
        else:
            rec.issue("Repairs is declared more than once in this block", where, top.path)
        return
    top.repairs = RepairsRecord(where, rec.child_path("repairs"), kinds=tuple(kinds))


def Limits(
    *,
    payload_bytes: int | None = None,
    depth: int | None = None,
    array_items: int | None = None,
    result_bytes: int | None = None,
    result_overflow: Overflow | None = None,
    result_tokens: int | None = None,
) -> None:
    """This tool's own limits on what one call may carry, over the runtime's (``None`` keeps
    the runtime's): ``payload_bytes`` of arguments, their nesting ``depth``, the
    ``array_items`` of one array, the ``result_bytes`` a model reads of the result (and its
    ``result_tokens``, cl100k), and what happens past them (``result_overflow``: ``"cut"``,
    ``"refuse"`` or ``"spill"``)."""
    _once_in_tool(
        "Limits",
        "limits",
        lambda where, path: LimitsRecord(
            where,
            path,
            payload_bytes=payload_bytes,
            depth=depth,
            array_items=array_items,
            result_bytes=result_bytes,
            result_overflow=result_overflow,
            result_tokens=result_tokens,
        ),
    )


def ImplementedByAgent(
    *,
    uses: Sequence[str] = (),
    forward: Sequence[str] = (),
    max_turns: int | None = None,
    max_tool_calls: int | None = None,
    max_tokens: int | None = None,
    timeout: float | None = None,
    output_retries: int | None = None,
) -> None:
    """The tool's implementation is an agent run: ``Args`` are what the calling model sends,
    ``Return`` what the inner agent must produce (checked like any result).

    ``uses`` names the toolsets of this service the inner agent calls; ``forward`` the values of
    the outer call's metadata (``session_id``, a label) its calls carry — its tools' injected
    fields are filled from them, never from a model. The budget of one call's inner run:
    ``max_turns`` (model requests), ``max_tool_calls``, ``max_tokens`` (where the framework
    reports them), ``timeout`` (seconds); ``output_retries`` (1 by default) is how many times an
    output outside ``Return`` is sent back to be corrected. The application binds the agent
    (see docs/agents-as-tools.md)."""
    budgets = {
        "max_turns": max_turns,
        "max_tool_calls": max_tool_calls,
        "max_tokens": max_tokens,
        "timeout": timeout,
        "output_retries": output_retries,
    }
    _once_in_tool(
        "ImplementedByAgent",
        "agent",
        lambda where, path: AgentRecord(
            where,
            path,
            uses=uses,
            forward=forward,
            budgets={k: v for k, v in budgets.items() if v is not None},
        ),
    )
