"""Generated toolsets as ``FunctionTool``s of the OpenAI Agents SDK (the ``openai-agents`` extra)::

    agent = Agent(name="ops", tools=tooldesign_tools(runtime))

Each tool's ``params_json_schema`` is tooldesign's strict export (``ensure_strict_json_schema``
finds nothing to change in it), with ``strict_json_schema=True`` where the design can be strict
and the generated schema without strict mode where it cannot. ``on_invoke_tool`` runs the call
through :meth:`Runtime.execute` with metadata built from the ``ToolContext`` (``meta=``: the
application's values — a session, a user — from ``ctx.context``; the tool call id is filled in
from the context), so injected fields never come from the model.

What the model reads is the runtime's text, for a result and for an error alike (a retry hint
for arguments it can repair): the SDK sends a tool's text back as it is. The text is a
:class:`ResultText`, whose ``result`` is the :class:`ToolResult` — on the run's
``ToolCallOutputItem.output`` the application finds the typed result, its bounds and server data,
none of which reach the model.

``needs_approval`` marks calls that wait for a person: the SDK interrupts the run with them
(``result.interruptions``) and runs them once approved (``state.approve(...)``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Self

from tooldesign.runtime.integrations._common import (
    ApprovalPredicate,
    ExportedTool,
    Toolsets,
    approval_needed,
    export,
    select_specs,
    with_call_ids,
)
from tooldesign.runtime.result import ToolCallMeta, ToolResult
from tooldesign.runtime.runtime import Runtime

try:
    from agents import FunctionTool, RunContextWrapper, Tool
    from agents.tool_context import ToolContext
except ImportError as missing:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tooldesign's OpenAI Agents tools need openai-agents: "
        "pip install 'tooldesign[openai-agents]'"
    ) from missing

MetaFromContext = Callable[[ToolContext[Any]], ToolCallMeta]
"""The call's metadata from the SDK's tool context: where injected fields come from."""

NeedsApproval = Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]


class ResultText(str):
    """The text the model reads for one call, carrying the call's :class:`ToolResult`."""

    __slots__ = ("result",)

    result: ToolResult

    def __new__(cls, result: ToolResult) -> Self:
        text = super().__new__(cls, result.for_model())
        text.result = result
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        # Copies (the SDK copies run items) keep the result.
        return (ResultText, (self.result,))


def tooldesign_tools(
    runtime: Runtime,
    toolsets: Toolsets = None,
    *,
    meta: MetaFromContext | None = None,
    strict: bool = True,
    needs_approval: ApprovalPredicate | None = None,
) -> list[Tool]:
    """``FunctionTool``s for ``runtime``'s tools (of ``toolsets``, or all), as the list an
    ``Agent``'s ``tools`` takes.

    ``meta`` builds each call's :class:`ToolCallMeta` from the ``ToolContext`` (its ``context``
    is the run's context object, which usually holds the session or user the injected fields
    need); the tool call id is the context's unless it sets one. ``strict=False`` sends every
    tool's generated schema without strict mode. ``needs_approval`` says which calls wait for a
    person's approval (the SDK's run interruptions).
    """
    return [
        _function_tool(runtime, tool, meta, needs_approval)
        for tool in export(select_specs(runtime, toolsets), strict=strict)
    ]


def _function_tool(
    runtime: Runtime,
    tool: ExportedTool,
    meta: MetaFromContext | None,
    needs_approval: ApprovalPredicate | None,
) -> FunctionTool:
    async def invoke(ctx: ToolContext[Any], arguments: str) -> ResultText:
        base = meta(ctx) if meta is not None else ToolCallMeta()
        call_meta = with_call_ids(base, run_id=None, tool_call_id=ctx.tool_call_id)
        return _answer(await runtime.execute(tool.request(arguments, call_meta)))

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=tool.strict,
        needs_approval=_approval(tool, needs_approval),
    )


def _approval(tool: ExportedTool, needs_approval: ApprovalPredicate | None) -> bool | NeedsApproval:
    """Where a call that needs approval becomes the SDK's ``needs_approval``: the run is
    interrupted before the call, and the call runs once the application approves it."""
    if needs_approval is None:
        return False
    predicate = needs_approval

    async def check(ctx: RunContextWrapper[Any], arguments: dict[str, Any], call_id: str) -> bool:
        return approval_needed(predicate, tool, tool.arguments(arguments))

    return check


def _answer(result: ToolResult) -> ResultText:
    """The SDK's answer for ``result``: always the runtime's text, which the model reads.

    The SDK has no retry of its own for a tool: whatever :func:`recovery_for` the result says —
    correct the call, or plan around it — the model reads it in the text (the retry hint's), and
    the run's ``max_turns`` bounds the attempts.
    """
    return ResultText(result)


__all__ = ["MetaFromContext", "ResultText", "tooldesign_tools"]
