"""Generated toolsets as a pydantic-ai toolset (the ``pydantic-ai`` extra)::

    agent = Agent(model, toolsets=[tooldesign_toolset(runtime)])

Each tool's definition carries the schema tooldesign exports (OpenAI's strict form, with
``strict=True``, where the design can be strict; the generated schema and ``strict=False``
where it cannot). A call runs through :meth:`Runtime.execute` with metadata built from the
``RunContext`` (``meta=``: the application's values — a session, a user — from ``ctx.deps``;
the run and tool call ids are filled in from the context), so injected fields never come from
the model. What comes back:

- a result: the text the runtime encodes for the model, as a ``ToolReturn`` whose ``metadata``
  is the :class:`ToolResult` (typed result, bounds, server data) — the application reads it on
  the ``ToolReturnPart``, the model never sees it;
- a failure whose :class:`~tooldesign.runtime.Recovery` is ``correct_call`` (invalid or missing
  arguments, a call that took too long or returned too much): ``ModelRetry`` with the retry
  hint's text, counted against the tool's retry budget (``max_retries``);
- any other failure (``replan`` or ``finish``: an unknown tool, a rate limit, the tool's own
  error, a denied call): ``ToolFailed`` with the text the runtime wrote for the model, which
  does not use the budget.

A call the design's ``Confirm`` selects waits for a person: it ends the run as one of
pydantic-ai's deferred tool requests, whose ``metadata[tool_call_id]`` is the
:class:`ApprovalRequest` as a dict (``ApprovalRequest.from_dict`` reads it back: the prompt, the
exact arguments). Approved (``DeferredToolResults(approvals={call_id: True})``, optionally with
``metadata={call_id: {"by": "alice"}}`` saying who), that exact call runs with the approval;
denied, pydantic-ai answers the model itself (``ToolDenied(message)``; the design's ``denied``
text is ``runtime.spec(name).confirm.denied``).

What a tool asks during a call (:func:`~tooldesign.runtime.exchanges`: a form for the user, the
host's model, roots) is answered by ``answer(request, ctx)`` — sync or async, from the
:class:`~tooldesign.runtime.InputRequest` and the ``RunContext`` (whose ``deps`` reach the
application's UI or model) to the MCP result as JSON — as an in-process runtime's
``answering`` does; without it, the tool's request fails with ``InputUnavailable``, which the
model reads as the tool's error. They are not deferred tool requests: pydantic-ai takes a
deferred question's answer as the tool's result, without running the tool again, and a tool
that asks goes on with the answer (re-running it as an approval, the only deferred flow that
runs the tool again, would tell the application a person approved what nobody was asked).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from tooldesign.contract.content import ContentBlock, EmbeddedResource, ResourceLink
from tooldesign.runtime.agents import (
    AgentBudgetExceeded,
    AgentImplementation,
    AgentTask,
    current_run,
)
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest
from tooldesign.runtime.control.exchanges import InputRequest, answering
from tooldesign.runtime.integrations._common import (
    ExportedTool,
    Toolsets,
    export,
    retry_text,
    select_specs,
    with_call_ids,
)
from tooldesign.runtime.reasons import Recovery
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime

try:
    from pydantic_ai import (
        Agent,
        ApprovalRequired,
        ModelRetry,
        RunContext,
        ToolDefinition,
        ToolFailed,
        ToolReturn,
        UsageLimits,
    )
    from pydantic_ai.exceptions import UsageLimitExceeded
    from pydantic_ai.messages import BinaryContent
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
    from pydantic_core import SchemaValidator, core_schema
except ImportError as missing:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tooldesign's pydantic-ai toolset needs pydantic-ai: pip install 'tooldesign[pydantic-ai]'"
    ) from missing

MetaFromContext = Callable[[RunContext[Any]], ToolCallMeta]
AnswerFromContext = Callable[
    [InputRequest, RunContext[Any]], Mapping[str, Any] | Awaitable[Mapping[str, Any]]
]
"""``answer(request, ctx)``: the answer to what a tool asks during a call, as MCP's result JSON."""
"""The call's metadata from pydantic-ai's run context: where injected fields come from."""

# The runtime decodes the arguments (after the interceptors, which see them raw): pydantic-ai
# only parses the JSON.
_ANY_ARGUMENTS = SchemaValidator(core_schema.any_schema())


class TooldesignToolset(AbstractToolset[Any]):
    """The tools of a :class:`Runtime` as a pydantic-ai toolset (see the module doc)."""

    def __init__(
        self,
        runtime: Runtime,
        tools: Sequence[ExportedTool],
        *,
        meta: MetaFromContext | None = None,
        max_retries: int = 1,
        id: str | None = None,
        answer: AnswerFromContext | None = None,
    ) -> None:
        self.runtime = runtime
        self._tools = {tool.name: tool for tool in tools}
        self._meta = meta
        self._answer = answer
        self._id = id
        self._definitions = {
            tool.name: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=tool.name,
                    parameters_json_schema=tool.parameters,
                    description=tool.description,
                    strict=tool.strict,
                    metadata={"tooldesign_id": str(tool.spec.id)},
                ),
                max_retries=max_retries,
                args_validator=_ANY_ARGUMENTS,
            )
            for tool in tools
        }

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return dict(self._definitions)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        answer = self._answer
        if answer is None:
            return await self._call_tool(name, tool_args, ctx)

        def exchanger(request: InputRequest) -> Any:
            return answer(request, ctx)

        with answering(exchanger):
            return await self._call_tool(name, tool_args, ctx)

    async def _call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]) -> Any:
        exported = self._tools[name]
        base = self._meta(ctx) if self._meta is not None else ToolCallMeta()
        meta = with_call_ids(base, run_id=ctx.run_id, tool_call_id=ctx.tool_call_id)
        request = exported.request(tool_args, meta)
        spec = exported.spec
        if current_run() is not None:
            # Inside an agent-implemented tool's inner run, approvals are the outer call's.
            return _answer(await self.runtime.execute(request))
        if spec.confirm is None and spec.agent is None:
            result = await self.runtime.execute(request)
            if result.awaiting_approval and result.approval is not None:
                # A call made inside this one waits (code mode's run_code): the same flow.
                if not ctx.tool_call_approved:
                    raise ApprovalRequired(metadata=result.approval.to_dict())
                granted = _granted(result.approval, ctx.tool_call_metadata)
                result = await self.runtime.execute(request, approvals=[granted])
            return _answer(result)
        # What this call waits on: its Confirm, or its inner run's (an agent-implemented tool).
        approval = await self.runtime.approval_for(request)
        if approval is None:  # invalid, not selected by the design's condition, not waiting
            return _answer(await self.runtime.execute(request))
        if not ctx.tool_call_approved:
            # pydantic-ai's approval flow: the run ends with this call deferred, and runs it
            # again, approved, when the application passes its approval back.
            raise ApprovalRequired(metadata=approval.to_dict())
        granted = _granted(approval, ctx.tool_call_metadata)
        return _answer(await self.runtime.execute(request, approvals=[granted]))


def tooldesign_toolset(
    runtime: Runtime,
    toolsets: Toolsets = None,
    *,
    meta: MetaFromContext | None = None,
    strict: bool = True,
    max_retries: int = 1,
    id: str | None = None,
    answer: AnswerFromContext | None = None,
) -> TooldesignToolset:
    """A pydantic-ai toolset of ``runtime``'s tools (of ``toolsets``, or all).

    ``meta`` builds each call's :class:`ToolCallMeta` from the ``RunContext`` (its ``deps``
    usually hold the session or user the injected fields need); the run and tool call ids are
    the context's unless it sets them. ``strict=False`` sends every tool's generated schema
    without strict mode. ``max_retries`` is each tool's budget of retries for invalid arguments.
    Calls the design's ``Confirm`` selects wait for approval as deferred tool requests.
    ``answer(request, ctx)`` answers what tools ask during a call (see the module doc).
    """
    tools = export(select_specs(runtime, toolsets), strict=strict)
    return TooldesignToolset(
        runtime, tools, meta=meta, max_retries=max_retries, id=id, answer=answer
    )


def agent_implementation(
    agent: Agent[Any, Any],
    *,
    deps: Callable[[AgentTask[Any]], Any] | None = None,
    meta: MetaFromContext | None = None,
    strict: bool = True,
) -> AgentImplementation[Any, Any]:
    """A pydantic-ai ``Agent`` as the implementation of an agent-implemented tool (bind it with
    ``handlers={"tool": agent_implementation(agent)}``).

    Each call runs ``agent`` with the task's prompt, the tool's ``Return`` as its output type,
    the runtime's toolsets the design ``uses`` as its tools (calls of the inner run), and usage
    limits from the design's budget (``max_turns`` as the request limit, ``max_tokens`` as the
    total tokens); the requests and tokens it used are counted on the task. A limit reached is
    :class:`AgentBudgetExceeded`. Asked to correct its output, it carries on its conversation
    with the correction. ``deps`` builds the run's dependencies from the task; ``meta`` builds
    each inner call's metadata from the run context (the design's forwarded values are filled in
    from the outer call whatever it says).
    """

    toolsets: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
    """The toolset made for each runtime and tool (once: it is built from the design)."""

    async def run(task: AgentTask[Any]) -> Any:
        if task.runtime is None:
            raise RuntimeError(f"{task.spec.id}: the agent runs outside a runtime")
        contract = task.contract
        made = toolsets.setdefault(task.runtime, {})
        toolset = made.get(task.spec.id)
        if toolset is None:
            toolset = tooldesign_toolset(task.runtime, task.toolsets, meta=meta, strict=strict)
            made[task.spec.id] = toolset
        history = task.state.get("messages")
        try:
            result = await agent.run(
                task.prompt() if history is None else task.correction,
                output_type=task.output_type,
                toolsets=[toolset],
                message_history=history,
                deps=deps(task) if deps is not None else None,
                usage_limits=UsageLimits(
                    request_limit=_left(contract.max_turns, task.usage.turns),
                    total_tokens_limit=_left(contract.max_tokens, task.usage.tokens),
                ),
            )
        except UsageLimitExceeded as exc:
            text = str(exc)
            if "token" in text and contract.max_tokens is not None:
                raise AgentBudgetExceeded("tokens", contract.max_tokens) from exc
            raise AgentBudgetExceeded("model turns", contract.max_turns or 0) from exc
        usage = result.usage
        task.usage.turns += usage.requests
        task.usage.tokens += usage.total_tokens or 0
        task.state["messages"] = result.all_messages()
        return result.output

    return run


def _left(limit: int | None, used: int) -> int | None:
    return None if limit is None else max(limit - used, 0)


def _granted(approval: ApprovalRequest, metadata: object) -> ApprovalDecision:
    """The approval pydantic-ai passed back, as the runtime's decision on this exact call;
    ``by`` is the ``"by"`` of the call's ``DeferredToolResults.metadata``, if it names one."""
    by = metadata.get("by") if isinstance(metadata, Mapping) else None
    return approval.approve(by=by if isinstance(by, str) else None)


def _answer(result: ToolResult) -> ToolReturn[str]:
    """pydantic-ai's answer for ``result``: the model's text and the result for the
    application, a retry for a call the model can correct, a deferred call for one waiting for
    a person (an agent-implemented tool's inner run), a failed call otherwise."""
    if result.awaiting_approval and result.approval is not None:
        raise ApprovalRequired(metadata=result.approval.to_dict())
    if result.ok:
        content = [_user_content(block) for block in result.content] or None
        return ToolReturn(return_value=result.for_model(), content=content, metadata=result)
    if result.recovery is Recovery.CORRECT_CALL:
        raise ModelRetry(retry_text(result))
    # Replan or finish: the model reads the runtime's text (which ends with the recovery) and
    # does not repeat the call; it costs no retry budget (a rate limit is not its mistake).
    raise ToolFailed(result.for_model())


__all__ = ["MetaFromContext", "TooldesignToolset", "agent_implementation", "tooldesign_toolset"]


def _user_content(block: ContentBlock) -> str | BinaryContent:
    """A rich result's block as pydantic-ai sends it after the tool's return (a user message):
    images, audio and embedded bytes as binary content, an embedded text and a link as text."""
    if isinstance(block, ResourceLink):
        return f"[{block.name}: {block.uri}]"
    if isinstance(block, EmbeddedResource):
        if block.text is not None:
            return f"[{block.uri}]\n{block.text}"
        return BinaryContent(block.blob or b"", media_type=block.mime_type, identifier=block.uri)
    return BinaryContent(block.data, media_type=block.mime_type)
