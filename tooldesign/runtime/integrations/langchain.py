"""Generated toolsets as LangChain tools, for LangGraph's ``ToolNode`` and LangChain agents
(the ``langchain`` extra)::

    tools = tooldesign_langchain_tools(runtime)
    graph.add_node("tools", ToolNode(tools))

Each tool is a ``BaseTool`` whose ``args_schema`` is the generated JSON schema (injected fields
are never in it). A call runs through :meth:`Runtime.execute` — ``invoke`` on the sync path (the
runtime's own event loop per thread), ``ainvoke`` on the async one — with metadata built by
``meta=`` from a :class:`LangChainCall`: the call's ``RunnableConfig``, its tool call id, and
LangGraph's ``ToolRuntime`` (state, context, store) when a ``ToolNode`` runs it. What comes back
(``response_format="content_and_artifact"``):

- a result: a ``ToolMessage`` whose content is the runtime's text for the model and whose
  ``artifact`` is the :class:`ToolResult` (typed result, bounds, server data), which the model
  never sees;
- a failure: :class:`ToolCallFailed`, a ``ToolException`` carrying the result; with
  ``handle_tool_error=True`` (the default) LangChain answers with its text — the retry hint for
  arguments the model can repair — in a ``ToolMessage`` with ``status="error"``.

A call the design's ``Confirm`` selects waits for a person: the tool stops the graph with
LangGraph's ``interrupt``, whose value is the :class:`~tooldesign.runtime.ApprovalRequest` as a
dict (``ApprovalRequest.from_dict`` reads it back; a dict survives any checkpointer). Resumed with
``Command(resume=True)`` — or with an ``ApprovalDecision`` (or its dict) on that request, to say
who decided — the runtime runs that exact call with the approval; resumed with anything else
(a string is the person's reason) the runtime denies it, so the model reads the design's
``denied`` text and observers see the denial. When several calls of one turn wait, LangGraph
hands resume values out by position, not by call: resume with the answers keyed by approval id
(:func:`approval_answers`), and a bare answer asks again rather than decide another call.
LangGraph runs the tool node again from its start each time it resumes: a call that already ran
under its approval is answered with its run's result (the graph's thread is the calls' run id),
never run twice.

A call made inside another one waits the same way: an agent-implemented tool's inner run, or
code mode's ``run_code``, whose code pauses at a call needing approval — the graph interrupts
with that inner call's request, and resumed, the code carries on from where it paused (it is
not run again) with exactly that call decided.
"""

# No ``from __future__ import annotations``: LangChain reads the tools' signatures (the
# RunnableConfig parameter) on every call, and string annotations would be evaluated each time.
import asyncio
import contextlib
import functools
import json
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal

from tooldesign.contract.catalog import toolset_version
from tooldesign.jsonschema import keywords as K
from tooldesign.runtime.agents import (
    AgentBudgetExceeded,
    AgentImplementation,
    AgentTask,
    current_run,
)
from tooldesign.runtime.control.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    approval_id,
    decision_for,
)
from tooldesign.runtime.control.exchanges import InputRequest, answering
from tooldesign.runtime.dict_reader import DictFormatError
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
from tooldesign.runtime.spec.specs import ToolSpec

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForToolRun,
        BaseCallbackHandler,
        CallbackManagerForToolRun,
    )
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_core.outputs import LLMResult
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, ToolException
    from langgraph.errors import GraphRecursionError
    from langgraph.prebuilt import ToolRuntime
    from langgraph.types import Command, interrupt
    from pydantic import PrivateAttr
except ImportError as missing:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tooldesign's LangChain tools need langchain-core and langgraph: "
        "pip install 'tooldesign[langchain]'"
    ) from missing


@dataclass(frozen=True, slots=True)
class LangChainCall:
    """What a LangChain call knows of its context, for building its :class:`ToolCallMeta`.

    ``config`` is the call's ``RunnableConfig`` (``configurable`` holds LangGraph's
    ``thread_id`` and the application's own keys); ``runtime`` is LangGraph's ``ToolRuntime``
    when a ``ToolNode`` runs the tool (``runtime.context``, ``runtime.state``), else ``None``.
    """

    config: RunnableConfig
    tool_call_id: str | None
    runtime: ToolRuntime[Any, Any] | None


MetaFromCall = Callable[[LangChainCall], ToolCallMeta]
"""The call's metadata from its LangChain context: where injected fields come from."""

AnswerFromCall = Callable[
    [InputRequest, LangChainCall], Mapping[str, Any] | Awaitable[Mapping[str, Any]]
]
"""``answer(request, call)``: the answer to what a tool asks during a call, as MCP's result JSON."""


class ToolCallFailed(ToolException):
    """A call the runtime answered with an error; its text is what the model reads."""

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.for_model())
        self.result = result


class TooldesignTool(BaseTool):
    """One tool of a :class:`Runtime` as a LangChain tool (see the module doc)."""

    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    func: Callable[..., Any] | None = None
    """What LangGraph's ``ToolNode`` reads to know which values to inject (a ``runtime``)."""

    _runtime: Runtime = PrivateAttr()
    _tool: ExportedTool = PrivateAttr()
    _meta: MetaFromCall | None = PrivateAttr(default=None)
    _answer: AnswerFromCall | None = PrivateAttr(default=None)

    @classmethod
    def of(
        cls,
        runtime: Runtime,
        tool: ExportedTool,
        *,
        meta: MetaFromCall | None = None,
        handle_tool_error: bool | str | Callable[[ToolException], str] = True,
        answer: AnswerFromCall | None = None,
    ) -> "TooldesignTool":
        made = cls(
            name=tool.name,
            description=tool.description,
            args_schema=tool.parameters,
            handle_tool_error=handle_tool_error,
            # A ToolNode passes its ToolRuntime to tools whose function asks for one, as
            # this one does — unless the model's own arguments have a field of that name.
            func=None if "runtime" in tool.parameters.get(K.PROPERTIES, {}) else _asks_runtime,
        )
        made._runtime = runtime
        made._tool = tool
        made._meta = meta
        made._answer = answer
        return made

    def _answering(
        self, tool_call_id: str | None, runtime: Any, config: RunnableConfig
    ) -> AbstractContextManager[object]:
        """Where what the tool asks during this call goes (``answer``), if anywhere."""
        answer = self._answer
        if answer is None:
            return contextlib.nullcontext()
        call = LangChainCall(config, tool_call_id or _runtime_call_id(runtime), runtime)
        return answering(lambda request: answer(request, call))

    @functools.cached_property
    def _injected_args_keys(self) -> frozenset[str]:
        # Kept out of what callbacks log as the call's input: the ToolRuntime (the whole graph
        # state) would be rendered for every call.
        return frozenset({"runtime"}) if self.func is not None else frozenset()

    @property
    def spec(self) -> ToolSpec[Any, Any]:
        return self._tool.spec

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # The model's arguments travel whole, as one value, so none of their names can meet
        # LangChain's own keyword arguments (config, run_manager, callbacks).
        arguments: Any = tool_input
        runtime = None
        if isinstance(tool_input, dict) and isinstance(tool_input.get("runtime"), ToolRuntime):
            arguments = {k: v for k, v in tool_input.items() if k != "runtime"}
            runtime = tool_input["runtime"]
        return (arguments, tool_call_id, runtime), {}

    def _request(
        self, arguments: Any, tool_call_id: str | None, runtime: Any, config: RunnableConfig
    ) -> ToolRequest:
        call = LangChainCall(config, tool_call_id or _runtime_call_id(runtime), runtime)
        base = self._meta(call) if self._meta is not None else ToolCallMeta()
        # A graph's thread is the run its calls belong to: with the call's id, a stable id
        # that recognises a call LangGraph runs again when it resumes a node.
        thread = (config.get("configurable") or {}).get("thread_id")
        run_id = str(thread) if thread is not None else None
        meta = with_call_ids(base, run_id=run_id, tool_call_id=call.tool_call_id)
        return self._tool.request(arguments, meta)

    def _run(
        self,
        arguments: Any,
        tool_call_id: str | None,
        runtime: Any,
        *,
        config: RunnableConfig,
        run_manager: CallbackManagerForToolRun | None = None,
    ) -> tuple[str, ToolResult]:
        with self._answering(tool_call_id, runtime, config):
            return self._run_sync(arguments, tool_call_id, runtime, config)

    def _run_sync(
        self, arguments: Any, tool_call_id: str | None, runtime: Any, config: RunnableConfig
    ) -> tuple[str, ToolResult]:
        request = self._request(arguments, tool_call_id, runtime, config)
        if self.spec.confirm is None or self.spec.agent is not None:
            # A call inside this one may wait (an agent-implemented tool's inner run, a code
            # run's call): then the graph interrupts, and the call resumes with the answer.
            result = self._runtime.execute_sync(request)
            if not result.awaiting_approval or result.approval is None:
                return _answer(result)
            decided = _decided(result.approval, others=False)
            return _answer(self._runtime.execute_sync(request, approvals=decided))
        # The thread runs no event loop (LangChain runs sync tools in threads of its own).
        approval, others = asyncio.run(self._waiting(request, runtime, config))
        approvals = _decided(approval, others)
        return _answer(self._runtime.execute_sync(request, approvals=approvals))

    async def _arun(
        self,
        arguments: Any,
        tool_call_id: str | None,
        runtime: Any,
        *,
        config: RunnableConfig,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> tuple[str, ToolResult]:
        with self._answering(tool_call_id, runtime, config):
            return await self._run_async(arguments, tool_call_id, runtime, config)

    async def _run_async(
        self, arguments: Any, tool_call_id: str | None, runtime: Any, config: RunnableConfig
    ) -> tuple[str, ToolResult]:
        request = self._request(arguments, tool_call_id, runtime, config)
        if current_run() is not None:
            # (Inside an agent-implemented tool's inner run, approvals are the outer call's.)
            return _answer(await self._runtime.execute(request))
        if self.spec.confirm is None or self.spec.agent is not None:  # as on the sync path
            result = await self._runtime.execute(request)
            if not result.awaiting_approval or result.approval is None:
                return _answer(result)
            decided = _decided(result.approval, others=False)
            return _answer(await self._runtime.execute(request, approvals=decided))
        approval, others = await self._waiting(request, runtime, config)
        return _answer(await self._runtime.execute(request, approvals=_decided(approval, others)))

    async def _waiting(
        self, request: ToolRequest, runtime: Any, config: RunnableConfig
    ) -> tuple[ApprovalRequest | None, bool]:
        """The approval this call waits on, and whether other calls of its turn wait too (then
        LangGraph may hand a bare answer to the wrong one: see :func:`_decision`)."""
        approval = await self._runtime.approval_for(request)
        if approval is None or not isinstance(runtime, ToolRuntime):
            return approval, False
        for name, arguments, call_id in _turn_calls(runtime, request.meta.tool_call_id):
            if self._runtime.spec(name) is None:
                continue  # another integration's tool
            sibling = self._request(arguments, call_id, runtime, config)
            if await self._runtime.approval_for(sibling) is not None:
                return approval, True
        return approval, False


def _asks_runtime(runtime: ToolRuntime[Any, Any]) -> None:
    """Never called: its signature is what a ``ToolNode`` reads."""


def _runtime_call_id(runtime: Any) -> str | None:
    return runtime.tool_call_id if isinstance(runtime, ToolRuntime) else None


def tooldesign_langchain_tools(
    runtime: Runtime,
    toolsets: Toolsets = None,
    *,
    meta: MetaFromCall | None = None,
    handle_tool_error: bool | str | Callable[[ToolException], str] = True,
    answer: AnswerFromCall | None = None,
) -> list[TooldesignTool]:
    """LangChain tools for ``runtime``'s tools (of ``toolsets``, or all).

    ``meta`` builds each call's :class:`ToolCallMeta` from a :class:`LangChainCall` (the
    ``RunnableConfig``, or LangGraph's ``ToolRuntime`` under a ``ToolNode``); the tool call id
    is the call's unless it sets one. ``handle_tool_error`` is LangChain's: ``True`` answers a
    failed call with the runtime's text (a :class:`ToolCallFailed` carries the result to a
    callable). Calls the design's ``Confirm`` selects interrupt the graph for a person's approval.
    ``answer(request, call)`` answers what a tool asks during a call (``exchanges()``: a form
    for the user, the host's model, roots) with the MCP result as JSON, sync or async; without
    it, such a request fails with ``InputUnavailable``.
    """
    return [
        TooldesignTool.of(
            runtime, tool, meta=meta, handle_tool_error=handle_tool_error, answer=answer
        )
        for tool in export(select_specs(runtime, toolsets), strict=False)
    ]


def _turn_calls(runtime: Any, own: str | None) -> list[tuple[str, Any, str | None]]:
    """The other tool calls of the model's turn that holds call ``own`` (name, arguments, id)."""
    state = runtime.state
    messages = (
        state.get("messages", ()) if isinstance(state, Mapping) else getattr(state, "messages", ())
    )
    for message in reversed(list(messages)):
        calls = getattr(message, "tool_calls", None) or []
        if any(call.get("id") == own for call in calls):
            return [
                (c["name"], c.get("args", {}), c.get("id")) for c in calls if c.get("id") != own
            ]
    return []


def _decided(approval: ApprovalRequest | None, others: bool) -> list[ApprovalDecision]:
    """Where a call that needs approval becomes LangGraph's interrupt: the graph stops with the
    request and, resumed, the node runs again and carries on here with the person's answer —
    the decision the runtime runs (or refuses) the call with. No approval: no decision.

    An answer that is not this call's (``others``: the turn has several calls waiting, and
    LangGraph hands resume values out by position, not by call) asks again.
    """
    if approval is None:
        return []
    value: dict[str, Any] = approval.to_dict()
    while True:
        decision = _decision(approval, interrupt(value), others)
        if decision is not None:
            return [decision]
        value = {**approval.to_dict(), "asked_again": _ASKED_AGAIN}


_ASKED_AGAIN = (
    "the answer was not for this call: with several calls waiting in one turn, resume with the "
    "answers keyed by approval id (approval_answers(interrupts, {request.id: answer}))"
)


def _decision(approval: ApprovalRequest, answer: object, others: bool) -> ApprovalDecision | None:
    """The person's answer as a decision on ``approval``, or ``None`` when it is not this call's.

    Answers keyed by approval id (``{request.id: answer}``) pick this call's; a decision (or its
    dict) counts when it is on this very call. A bare answer counts when no other call of the
    turn waits: ``True`` grants, anything else denies (a string says why).
    """
    if isinstance(answer, Mapping) and "granted" not in answer:  # keyed by approval id
        if approval.id not in answer:
            return None
        return _decision(approval, answer[approval.id], others=False)
    if isinstance(answer, Mapping):
        try:
            answer = ApprovalDecision.from_dict(answer)
        except DictFormatError:
            return None
    if isinstance(answer, ApprovalDecision):
        return answer if answer.id == approval.id else None
    if others:
        return None
    if answer is True:
        return approval.approve()
    return approval.deny(reason=answer if isinstance(answer, str) and answer else None)


def approval_answers(
    interrupts: Iterable[Any], answers: Mapping[str, object]
) -> dict[str, Mapping[str, object]]:
    """What to resume a graph with: the answers so far, by approval id (``True``, ``False``, a
    reason to deny, or an ``ApprovalDecision`` or its dict), given to every waiting interrupt —
    each call takes its own. ``Command(resume=approval_answers(state["__interrupt__"], answers))``.
    """
    keyed = {
        key: value.to_dict() if isinstance(value, ApprovalDecision) else value
        for key, value in answers.items()
    }
    return {waiting.id: keyed for waiting in interrupts}


def _answer(result: ToolResult) -> tuple[str, ToolResult]:
    """LangChain's answer for ``result``: the model's text and the result as the artifact, or
    a :class:`ToolCallFailed` for LangChain's ``handle_tool_error`` to answer with.

    LangChain has no retry of its own for a tool: whatever the result's ``recovery`` says —
    correct the call, plan around it, or stop — the model reads it at the end of the error's
    text.
    """
    if result.ok:  # a rich result's blocks are named in the text; the artifact carries them
        note = left_out_note(result.content, "the LangChain tool answers text; see its artifact")
        return result.for_model() + note, result
    raise ToolCallFailed(result)


# ── a LangGraph graph as an agent-implemented tool's implementation ────────────────────────

GraphOrFactory = Any
"""A compiled LangGraph graph over messages (``MessagesState``), or a callable that builds one
from the LangChain tools of the toolsets the design ``uses``."""


def agent_implementation(
    graph: GraphOrFactory,
    *,
    meta: MetaFromCall | None = None,
    output: Callable[[Mapping[str, Any]], Any] | None = None,
    config: RunnableConfig | None = None,
) -> AgentImplementation[Any, Any]:
    """A LangGraph graph as the implementation of an agent-implemented tool (bind it with
    ``handlers={"tool": agent_implementation(graph)}``).

    ``graph`` is a compiled graph whose state has ``messages`` (its tools the runtime's, from
    :func:`tooldesign_langchain_tools`), or a callable building one from the tools of the
    toolsets the design ``uses`` (then its calls can only be those; built once per runtime).
    Each call runs it with the
    task's prompt as a human message, on the thread of the inner run (``thread_id``: the run's
    id); its calls of the runtime's tools are calls of the inner run. What it answers is
    ``output(state)`` — by default the state's ``structured_response`` (LangChain's agents with
    a ``response_format``), else its last AI message's text, read as JSON when it is. Asked to
    correct its output, it carries on its conversation with the correction.

    The budget: every chat model request is counted on the task as it starts (``max_turns``),
    with the tokens the model reports (``max_tokens``); LangGraph's own recursion limit reached
    is the budget spent too. A graph that stops with LangGraph's ``interrupt`` (a node of its own
    asking a person; it needs a checkpointer) has each interrupt asked through the outer call's
    approval flow, as an approval of the outer tool whose prompt is the interrupt's value (its
    ``prompt``, ``question`` or ``message`` if it is an object); it is resumed with ``True``
    when granted, else the person's reason (or ``False``) — as :func:`tooldesign_langchain_tools`
    reads a resume. Waiting for the person, the outer call is answered awaiting that approval.
    """

    built: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
    """The graph built for each runtime (once: compiling a graph costs more than running it)."""

    async def run(task: AgentTask[Any]) -> Any:
        if task.runtime is None:
            raise RuntimeError(f"{task.spec.id}: the agent runs outside a runtime")
        compiled = graph if hasattr(graph, "ainvoke") else built.get(task.runtime)
        if compiled is None:
            tools = tooldesign_langchain_tools(task.runtime, task.toolsets, meta=meta)
            compiled = built[task.runtime] = graph(tools)
        thread: Any = {
            **(config or {}),
            "configurable": {
                **((config or {}).get("configurable") or {}),
                "thread_id": task.run_id,
            },
            "callbacks": [_Usage(task)],
        }
        kept = getattr(compiled, "checkpointer", None) is not None  # the thread keeps messages
        history: list[BaseMessage] = task.state.get("messages", [])
        if task.correction is None or not history:
            asked: list[BaseMessage] = [HumanMessage(task.prompt())]
        else:
            asked = [HumanMessage(task.correction)]
        value: Any = {"messages": asked if kept else [*history, *asked]}
        try:
            while True:
                state = await compiled.ainvoke(value, thread)
                waiting = state.get("__interrupt__") if isinstance(state, Mapping) else None
                if not waiting:
                    break
                value = Command(resume={w.id: await _asked(task, w.value) for w in waiting})
        except GraphRecursionError as exc:
            limit = thread.get("recursion_limit", 25)
            raise AgentBudgetExceeded("graph steps", limit) from exc
        task.state["messages"] = list(state.get("messages", ()))
        return output(state) if output is not None else _graph_output(state)

    return run


class _Usage(BaseCallbackHandler):
    """Counts an inner graph's chat model requests and tokens on its task (raising past the
    budget, before the request is sent)."""

    raise_error = True
    run_inline = True

    def __init__(self, task: AgentTask[Any]) -> None:
        self.task = task

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.task.turn()

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        tokens = 0
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                tokens += int((usage or {}).get("total_tokens", 0))
        if tokens:
            self.task.usage.tokens += tokens
            limit = self.task.contract.max_tokens
            if limit is not None and self.task.usage.tokens > limit:
                raise AgentBudgetExceeded("tokens", limit)


async def _asked(task: AgentTask[Any], value: Any) -> Any:
    """The person's answer to an inner graph's interrupt, through the outer call's approval
    flow, as the graph is resumed with it."""
    run = current_run()
    if run is None:
        raise RuntimeError(f"{task.spec.id}: the graph interrupted outside an inner run")
    try:
        request = ApprovalRequest.from_dict(value)  # a tooldesign tool's own (run outside)
        tooldesign_request = True
    except DictFormatError:
        request = _interrupt_request(task, value)
        tooldesign_request = False
    decision = decision_for(request, await run.ask(request, task.meta), by=None)
    if tooldesign_request and decision is not None:
        return decision.to_dict()
    if decision is not None and decision.granted:
        return True
    return (decision.reason if decision is not None else None) or False


def _interrupt_request(task: AgentTask[Any], value: Any) -> ApprovalRequest:
    """An approval of the outer tool for an inner graph's interrupt with ``value``."""
    spec = task.spec
    prompt: Any = value
    if isinstance(value, Mapping):
        prompt = next((value[k] for k in ("prompt", "question", "message") if k in value), value)
    if not isinstance(prompt, str):
        prompt = json.dumps(prompt, sort_keys=True, default=str)
    arguments = {"interrupt": json.loads(json.dumps(value, default=str))}
    version = toolset_version(task.runtime.specs(f"{spec.service}.{spec.toolset}"))
    return ApprovalRequest(
        id=approval_id(version, spec.id, {"run": task.meta.stable_id(), **arguments}),
        tool=spec.name,
        tool_id=spec.id,
        prompt=prompt,
        arguments=arguments,
        version=version,
        tool_call_id=task.meta.tool_call_id,
        session_id=task.meta.session_id,
        run_id=task.meta.run_id,
    )


def _graph_output(state: Mapping[str, Any]) -> Any:
    """What a graph answered: its ``structured_response``, else its last AI message's text
    (read as JSON when it is)."""
    if state.get("structured_response") is not None:
        return state["structured_response"]
    for message in reversed(list(state.get("messages", ()))):
        if isinstance(message, AIMessage):
            text = message.text if isinstance(message.text, str) else str(message.content)
            try:
                return json.loads(text)
            except ValueError:
                return text
    return None


__all__ = [
    "LangChainCall",
    "MetaFromCall",
    "ToolCallFailed",
    "TooldesignTool",
    "agent_implementation",
    "approval_answers",
    "tooldesign_langchain_tools",
]
