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

A call the design's ``Confirm`` selects waits for a person: the tool's ``needs_approval`` asks
:meth:`Runtime.approval_for`, so the SDK interrupts the run with the call
(``result.interruptions``; ``runtime.approval_for`` gives its prompt) and, once approved
(``state.approve(item)``), runs that exact call with the approval (the SDK does not record who
approved: ``approved_by=`` names them). A rejected call never reaches
the tool: the SDK answers the model itself (``state.reject(item, rejection_message=...)``; the
design's ``denied`` text is ``runtime.spec(name).confirm.denied``).

Code mode's ``run_code``, and an agent-implemented tool whose inner run calls a tool that
needs approval, wait the same way: whether they do is known only by running them, so the SDK's
approval check runs them — up to the first call that waits for a person, or to the end — and
the run is interrupted with that call (:func:`waiting_approval` gives the inner call's
request: the prompt and exact arguments to show). Approved, the code or inner run resumes from
its pause and that exact call runs once; rejected, nothing more runs. The answer otherwise is
the check's, not run twice. With ``tool_input_guardrails`` on the tool, it runs only once they
pass, and a call in it that waits is answered to the model as waiting (``pending_approvals``).
"""

from __future__ import annotations

import json
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Self

from tooldesign.runtime.agents import (
    AgentBudgetExceeded,
    AgentImplementation,
    AgentTask,
    current_run,
)
from tooldesign.runtime.codemode.policy import RUN_CODE
from tooldesign.runtime.control.approvals import ApprovalRequest
from tooldesign.runtime.control.exchanges import InputRequest, answering
from tooldesign.runtime.integrations._common import (
    ExportedTool,
    Toolsets,
    export,
    select_specs,
    with_call_ids,
)
from tooldesign.runtime.providers.content import left_out_note
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime

try:
    from agents import Agent, FunctionTool, MaxTurnsExceeded, RunContextWrapper, Runner, Tool
    from agents.tool_context import ToolContext
except ImportError as missing:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tooldesign's OpenAI Agents tools need openai-agents: "
        "pip install 'tooldesign[openai-agents]'"
    ) from missing

MetaFromContext = Callable[[ToolContext[Any]], ToolCallMeta]
AnswerFromContext = Callable[
    [InputRequest, ToolContext[Any]], Mapping[str, Any] | Awaitable[Mapping[str, Any]]
]
"""``answer(request, ctx)``: the answer to what a tool asks during a call, as MCP's result JSON."""
"""The call's metadata from the SDK's tool context: where injected fields come from."""


class ResultText(str):
    """The text the model reads for one call, carrying the call's :class:`ToolResult`."""

    __slots__ = ("result",)

    result: ToolResult

    def __new__(cls, result: ToolResult) -> Self:
        # A rich result's blocks are named, not sent: a function tool here answers text.
        note = left_out_note(result.content, "the Agents SDK tool answers text here")
        text = super().__new__(cls, result.for_model() + note)
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
    approved_by: ApprovedBy | None = None,
    answer: AnswerFromContext | None = None,
) -> list[Tool]:
    """``FunctionTool``s for ``runtime``'s tools (of ``toolsets``, or all), as the list an
    ``Agent``'s ``tools`` takes.

    ``meta`` builds each call's :class:`ToolCallMeta` from the ``ToolContext`` (its ``context``
    is the run's context object, which usually holds the session or user the injected fields
    need); the tool call id is the context's unless it sets one. ``strict=False`` sends every
    tool's generated schema without strict mode. Calls the design's ``Confirm`` selects wait
    for approval (the SDK's run interruptions). The SDK records that a call was approved, not
    who approved it: ``approved_by(ctx, request)`` names them for the audit trail (the
    decision's ``by``), from what the application keeps in its context when it calls
    ``state.approve(item)``; without it, ``by`` is ``None``. ``answer(request, ctx)`` answers
    what a tool asks during a call (``tooldesign.runtime.exchanges``: a form for the user, the
    host's model, roots) with the MCP result as JSON, sync or async; without it, such a request
    fails with ``InputUnavailable``.
    """
    return [
        _function_tool(runtime, tool, meta, approved_by, answer)
        for tool in export(select_specs(runtime, toolsets), strict=strict)
    ]


def agent_implementation(
    agent: Agent[Any],
    *,
    context: Callable[[AgentTask[Any]], Any] | None = None,
    meta: MetaFromContext | None = None,
) -> AgentImplementation[Any, Any]:
    """An Agents SDK ``Agent`` as the implementation of an agent-implemented tool (bind it with
    ``handlers={"tool": agent_implementation(agent)}``).

    Each call runs a clone of ``agent`` with the tool's ``Return`` as its ``output_type`` and the
    runtime's toolsets the design ``uses`` added to its tools (calls of the inner run), the
    task's prompt as input and ``max_turns`` from the design (the SDK's default, 10, without
    one); the requests and tokens it used are counted on the task. The SDK's
    ``MaxTurnsExceeded`` is :class:`AgentBudgetExceeded`. Asked to correct its output, it
    carries on its conversation with the correction. ``context`` builds the run's context from
    the task; ``meta`` each inner call's metadata (forwarded values come from the outer call).
    """

    clones: weakref.WeakKeyDictionary[Any, dict[str, Agent[Any]]] = weakref.WeakKeyDictionary()
    """The clone made for each runtime and tool (once: its tools are built from the design)."""

    async def run(task: AgentTask[Any]) -> Any:
        if task.runtime is None:
            raise RuntimeError(f"{task.spec.id}: the agent runs outside a runtime")
        contract = task.contract
        made = clones.setdefault(task.runtime, {})
        inner = made.get(task.spec.id)
        if inner is None:
            tools = tooldesign_tools(task.runtime, task.toolsets, meta=meta)
            inner = agent.clone(tools=[*agent.tools, *tools], output_type=task.output_type)
            made[task.spec.id] = inner
        history: list[Any] | None = task.state.get("conversation")
        given: Any = (
            task.prompt()
            if history is None
            else [*history, {"role": "user", "content": task.correction}]
        )
        turns = contract.max_turns
        left = 10 if turns is None else max(turns - task.usage.turns, 1)  # 10: the SDK's default
        try:
            result = await Runner.run(
                inner,
                given,
                context=context(task) if context is not None else None,
                max_turns=left,
            )
        except MaxTurnsExceeded as exc:
            raise AgentBudgetExceeded("model turns", turns or 10) from exc
        usage = result.context_wrapper.usage
        task.usage.turns += usage.requests
        task.usage.tokens += usage.total_tokens
        if contract.max_tokens is not None and task.usage.tokens > contract.max_tokens:
            raise AgentBudgetExceeded("tokens", contract.max_tokens)
        task.state["conversation"] = result.to_input_list()
        return result.final_output

    return run


ApprovedBy = Callable[[ToolContext[Any], ApprovalRequest], str | None]
"""``approved_by(ctx, request)``: who approved ``request``, for the decision's ``by``."""


def _function_tool(
    runtime: Runtime,
    tool: ExportedTool,
    meta: MetaFromContext | None,
    approved_by: ApprovedBy | None,
    answer: AnswerFromContext | None = None,
) -> FunctionTool:
    def request(ctx: ToolContext[Any], arguments: Any) -> ToolRequest:
        base = meta(ctx) if meta is not None else ToolCallMeta()
        return tool.request(
            arguments, with_call_ids(base, run_id=None, tool_call_id=ctx.tool_call_id)
        )

    # run_code's approvals, and an agent-implemented tool's inner run's, are known only by
    # running it: the SDK's approval check runs it, up to the first call that waits for a
    # person (or to its end), and keeps the answer here, by call id, arguments and session,
    # for the tool's invocation.
    ahead = (tool.spec.id == RUN_CODE or tool.spec.agent is not None) and tool.spec.confirm is None
    started: OrderedDict[tuple[str, str, str], ToolResult] = OrderedDict()

    async def invoke(ctx: ToolContext[Any], arguments: str) -> ResultText:
        if answer is None:
            return await run(ctx, arguments)

        def exchanger(request: InputRequest) -> Any:
            return answer(request, ctx)

        with answering(exchanger):
            return await run(ctx, arguments)

    async def run(ctx: ToolContext[Any], arguments: str) -> ResultText:
        call = request(ctx, arguments)
        if ahead:
            result = started.pop(_started_key(ctx.tool_call_id, arguments, call.meta), None)
            if result is None:  # not started by the check (a restored state, guardrails)
                return _answer(await runtime.execute(call))
            waiting = result.approval
            if not result.awaiting_approval or waiting is None:
                return _answer(result)  # the code ran to its end in the check
            if not ctx.is_tool_approved(tool.name, ctx.tool_call_id):
                return _answer(result)
            # Approved: the paused code (or inner run) resumes with exactly the call the person
            # was shown.
            by = approved_by(ctx, waiting) if approved_by is not None else None
            return _answer(await runtime.execute(call, approvals=[waiting.approve(by=by)]))
        if tool.spec.confirm is None:
            return _answer(await runtime.execute(call))
        # The SDK invokes a call needing approval only once it is approved: the runtime runs
        # it with that approval, bound to exactly these arguments.
        approval = await runtime.approval_for(call)
        approvals = []
        if approval is not None and ctx.is_tool_approved(tool.name, ctx.tool_call_id):
            by = approved_by(ctx, approval) if approved_by is not None else None
            approvals.append(approval.approve(by=by))
        return _answer(await runtime.execute(call, approvals=approvals))

    async def needs_approval(
        ctx: RunContextWrapper[Any], arguments: dict[str, Any], call_id: str
    ) -> bool:
        if current_run() is not None:  # an inner run's approvals are its outer call's
            return False
        # The meta function gets the ToolContext the call itself would get.
        context = ToolContext.from_agent_context(
            ctx, call_id, tool_name=tool.name, tool_arguments=json.dumps(arguments)
        )
        if ahead:
            if function_tool.tool_input_guardrails:
                return False  # the code runs only once the guardrails let the call through
            call = request(context, arguments)
            key = _started_key(call_id, arguments, call.meta)
            result = started.get(key)
            if result is None:
                result = await runtime.execute(call)
                started[key] = result
                _WAITING[key] = result.approval
                while len(started) > _KEPT:  # checks whose call never came (a rejection)
                    started.popitem(last=False)
                while len(_WAITING) > _KEPT:
                    _WAITING.popitem(last=False)
            return result.awaiting_approval and result.approval is not None
        return await runtime.approval_for(request(context, arguments)) is not None

    function_tool = FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=tool.strict,
        needs_approval=False if tool.spec.confirm is None and not ahead else needs_approval,
    )
    return function_tool


_KEPT = 1024


def _started_key(call_id: str, arguments: Any, meta: ToolCallMeta) -> tuple[str, str, str]:
    """A started run's key: the call's id, its arguments (run_code's code, an agent tool's
    arguments) and the session the application's ``meta`` puts it in — so a call id seen again
    with other arguments (a model reusing ids), or in another session (two runs whose models
    number their calls alike), never takes another run's answer or its paused run."""
    return call_id, _code_of(arguments), meta.session_id or ""


def _code_of(arguments: Any) -> str:
    if isinstance(arguments, str | bytes):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    return json.dumps(arguments, sort_keys=True, default=str)


_WAITING: OrderedDict[tuple[str, str, str], ApprovalRequest | None] = OrderedDict()
"""The approval each checked call (run_code's, an agent tool's) stopped at, by its started key
(what the person is asked)."""


def waiting_approval(item: Any, *, session_id: str | None = None) -> ApprovalRequest | None:
    """The call inside a ``run_code`` interruption (``result.interruptions``) that waits for a
    person — its prompt and exact arguments, what to show them — or ``None`` for another
    interruption (a ``Confirm`` tool's: ask ``runtime.approval_for``).

    ``session_id`` is the session the application's ``meta`` put the run in: where runs of
    several sessions wait on the same call id and arguments, only it tells them apart (without
    it, such an item is ``None``, never another session's request)."""
    call_id = getattr(item, "call_id", None)
    if not isinstance(call_id, str):
        return None
    code = _code_of(getattr(item, "arguments", None))
    if session_id is not None:
        return _WAITING.get((call_id, code, session_id))
    found = [r for (ident, text, _), r in _WAITING.items() if ident == call_id and text == code]
    return found[0] if len(found) == 1 else None


def _answer(result: ToolResult) -> ResultText:
    """The SDK's answer for ``result``: always the runtime's text, which the model reads.

    The SDK has no retry of its own for a tool: whatever the result's ``recovery`` says —
    correct the call, plan around it, or stop — the model reads it at the end of the text, and
    the run's ``max_turns`` bounds the attempts.
    """
    return ResultText(result)


__all__ = [
    "ApprovedBy",
    "MetaFromContext",
    "ResultText",
    "agent_implementation",
    "tooldesign_tools",
    "waiting_approval",
]
