"""The three promises where features meet: each control feature through each entry point.

Rows are the control features (decoding with repairs, limits, interceptors that rewrite and
that answer, approvals granted and waiting, timeouts, rate limits, the result budget), each
call made with an event subscriber and an OpenTelemetry span recorder listening. Columns are
the entry points: ``await execute``, ``execute_sync``, MCP, a real agent of each framework with
its own scripted model, and an agent whose toolset runs on a Redis worker (a real server; the
agent's runtime holds the control features, the worker's runs the tool). Every cell asserts:

1. what ran is what the schema allowed and, for a call that needed one, what was approved;
2. nothing ran twice;
3. the caller got an answer (never an exception), and each call the runtime ran published
   exactly one ``CallFinished``, its last event, and ended its span.

A new feature is a row, a new entry point a column: the cells are generated.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tooldesign.runtime import (
    CallEvent,
    CallFinished,
    CallNext,
    Limits,
    RateLimit,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    ToolsetRegistration,
    Tracing,
)
from tooldesign.runtime.control.events import Subscription

from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from tests.support.netops import approve_all

SESSION = "sess-alice"
META = ToolCallMeta(session_id=SESSION, run_id="run-1", tool_call_id="c1")


# ── what ran ──────────────────────────────────────────────────────────────────────────────


class Probe:
    """The application's side: what each tool was called with, in order."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []
        self.slow = 0.0

    def service(self) -> DeviceService:
        probe = self

        class Recorded(DeviceService):
            def list_devices(self, query: Any) -> Any:
                probe.ran.append(("list_devices", query.model_dump(mode="json")))
                return super().list_devices(query)

        return Recorded(Inventory())

    async def restart(
        self, args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        self.ran.append(("restart_device", args.model_dump(mode="json", exclude={"session_id"})))
        if self.slow:
            await asyncio.sleep(self.slow)
        return device_types.RestartDeviceResult(accepted=True, job_id=f"job-{args.device_id}")


# ── the rows ──────────────────────────────────────────────────────────────────────────────


async def rewrite_limit(
    request: ToolRequest, meta: ToolCallMeta, call_next: CallNext
) -> ToolResult:
    """An interceptor that rewrites the arguments: a list asks for 3 devices at most."""
    if request.name.endswith("list_devices") and isinstance(request.payload, dict):
        request = ToolRequest(request.name, {**request.payload, "limit": 3}, request.meta)
    return await call_next(request, meta)


async def other_device(request: ToolRequest, meta: ToolCallMeta, call_next: CallNext) -> ToolResult:
    """An interceptor that rewrites which device a restart is for."""
    if request.name.endswith("restart_device") and isinstance(request.payload, dict):
        request = ToolRequest(request.name, {**request.payload, **OTHER}, request.meta)
    return await call_next(request, meta)


async def read_only(request: ToolRequest, meta: ToolCallMeta, call_next: CallNext) -> ToolResult:
    """An interceptor that answers without going on."""
    if request.name.endswith("restart_device"):
        return ToolResult.failure(request.name, "The assistant is in read-only mode.")
    return await call_next(request, meta)


@dataclass(frozen=True)
class Row:
    name: str
    tool: str
    arguments: dict[str, Any]
    outcome: str
    """The runtime's outcome for the call (``telemetry.outcome``)."""
    ran: list[tuple[str, dict[str, Any]]]
    """What the application must have been called with (nothing, or one call)."""
    options: Callable[[], dict[str, Any]] = dict
    """The runtime's options, made anew for each cell (a rate limit's bucket is its own)."""
    slow: float = 0.0
    before: int = 0
    """Calls of the same tool made before the one checked (to use up a rate limit)."""
    needs_approval: bool = False
    asked_by_framework: tuple[str, list[tuple[str, dict[str, Any]]]] | None = None
    """The outcome and what ran when a framework's own flow asks the person instead (about the
    call as sent), where that differs."""


RESTART = {"device_id": "dev-00000000", "reason": "stuck port"}
OTHER = {"device_id": "dev-99999999"}
LISTED = {"site_id": "hq", "status": None, "limit": 2, "session_id": SESSION}

ROWS = [
    Row("valid", "list_devices", {"site_id": "hq", "limit": 2}, "ok", [("list_devices", LISTED)]),
    Row("invalid", "list_devices", {"limit": 2}, "missing_fields", []),
    Row(
        "repaired",
        "list_devices",
        {"site_id": "hq", "limit": "2"},
        "ok",
        [("list_devices", LISTED)],
    ),
    Row(
        "over a limit",
        "list_devices",
        {"site_id": "hq" * 2000, "limit": 2},
        "invalid_arguments",
        [],
        lambda: {"limits": Limits(payload_bytes=1024)},
    ),
    Row(
        "rewritten by an interceptor",
        "list_devices",
        {"site_id": "hq", "limit": 2},
        "ok",
        [("list_devices", {**LISTED, "limit": 3})],
        lambda: {"interceptors": [rewrite_limit]},
    ),
    Row(
        "answered by an interceptor",
        "restart_device",
        RESTART,
        "error",
        [],
        lambda: {"interceptors": [read_only]},
        needs_approval=True,
    ),
    Row(
        "approved",
        "restart_device",
        RESTART,
        "ok",
        [("restart_device", RESTART)],
        lambda: {"approver": approve_all},
        needs_approval=True,
    ),
    Row(
        "approved, rewritten by an interceptor",
        "restart_device",
        RESTART,
        "ok",
        [("restart_device", {**RESTART, **OTHER})],  # what the approver saw, approved, ran
        lambda: {"approver": approve_all, "interceptors": [other_device]},
        needs_approval=True,
        # The framework's person approved the call as sent: the rewritten one waits for its own.
        asked_by_framework=("awaiting_approval", []),
    ),
    Row(
        "timed out",
        "restart_device",
        RESTART,
        "timeout",
        [("restart_device", RESTART)],
        lambda: {"approver": approve_all, "interceptors": [Timeout(0.2)]},
        slow=1.0,
        needs_approval=True,
    ),
    Row(
        "rate limited",
        "list_devices",
        {"site_id": "hq", "limit": 2},
        "rate_limited",
        [("list_devices", LISTED)],  # the first call's: the checked one never ran
        lambda: {"interceptors": [RateLimit(rate=0.01, burst=1)]},
        before=1,
    ),
    Row(
        "over the result budget",
        "list_devices",
        {"site_id": "hq", "limit": 200},
        "result_too_large",
        [("list_devices", {**LISTED, "limit": 200})],
        lambda: {"limits": Limits(result_bytes=2048)},
    ),
]


# ── the entry points ──────────────────────────────────────────────────────────────────────


@dataclass
class Answered:
    """What the caller got: the result the application reads (when the entry point hands one
    over) and the text the model reads."""

    result: ToolResult | None
    text: str


EntryPoint = Callable[[Runtime, str, dict[str, Any], bool], Awaitable[Answered]]
"""``run(runtime, tool, arguments, approve)``: one call as the entry point makes it (a framework
asks its person, who approves when ``approve``, if the call waits for approval)."""


async def through_execute(rt: Runtime, tool: str, args: dict[str, Any], approve: bool) -> Answered:
    result = await rt.execute(ToolRequest(tool, args, META))
    return Answered(result, result.for_model())


async def through_execute_sync(
    rt: Runtime, tool: str, args: dict[str, Any], approve: bool
) -> Answered:
    # On a thread of its own, as synchronous code calls it (no event loop running there).
    result = await asyncio.to_thread(rt.execute_sync, ToolRequest(tool, args, META))
    return Answered(result, result.for_model())


async def through_mcp(rt: Runtime, tool: str, args: dict[str, Any], approve: bool) -> Answered:
    from mcp import Client, types
    from tooldesign.runtime.mcp import mcp_server

    seen: list[ToolResult] = []
    server = mcp_server(
        rt, meta_for=lambda context: META, on_result=lambda result, context: seen.append(result)
    )
    async with Client(server.server) as client:
        answer = await client.call_tool(tool, args)
    text = "\n".join(b.text for b in answer.content if isinstance(b, types.TextContent))
    return Answered(seen[-1] if seen else None, text)


async def through_pydantic_ai(
    rt: Runtime, tool: str, args: dict[str, Any], approve: bool
) -> Answered:
    from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import FunctionModel
    from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        if sum(isinstance(m, ModelResponse) for m in messages) == 0:
            return ModelResponse(parts=[ToolCallPart(tool, args, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    toolset = tooldesign_toolset(rt, meta=lambda ctx: ToolCallMeta(session_id=SESSION))
    agent = Agent(
        FunctionModel(respond), toolsets=[toolset], output_type=[str, DeferredToolRequests]
    )
    run = await agent.run("go")
    if isinstance(run.output, DeferredToolRequests):
        if not approve:
            return Answered(None, "")
        results = DeferredToolResults(
            approvals={c.tool_call_id: True for c in run.output.approvals}
        )
        run = await agent.run(message_history=run.all_messages(), deferred_tool_results=results)
    parts = [
        part
        for message in run.all_messages()
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    if not parts:  # a retry: the model read the hint, and the run went on
        return Answered(None, "")
    part = parts[-1]
    result = part.metadata if isinstance(part.metadata, ToolResult) else None
    return Answered(result, part.model_response_str(wrap_if_error=False))


async def through_openai_agents(
    rt: Runtime, tool: str, args: dict[str, Any], approve: bool
) -> Answered:
    from agents import Agent, RunConfig, Runner, ToolCallOutputItem
    from agents.testing import ScriptedModel, assistant_message, function_call
    from tooldesign.runtime.integrations.openai_agents import ResultText, tooldesign_tools

    model = ScriptedModel([[function_call(tool, args, call_id="c1")], [assistant_message("done")]])
    tools = tooldesign_tools(rt, meta=lambda ctx: ToolCallMeta(session_id=SESSION))
    agent = Agent[str](name="ops", model=model, tools=tools)
    offline = RunConfig(tracing_disabled=True)
    run = await Runner.run(agent, "go", context=SESSION, run_config=offline)
    if run.interruptions:
        if not approve:
            return Answered(None, "")
        state = run.to_state()
        for item in run.interruptions:
            state.approve(item)
        run = await Runner.run(agent, state, context=SESSION, run_config=offline)
    outputs = [item for item in run.new_items if isinstance(item, ToolCallOutputItem)]
    output = outputs[-1].output
    return Answered(output.result if isinstance(output, ResultText) else None, str(output))


async def through_langgraph(
    rt: Runtime, tool: str, args: dict[str, Any], approve: bool
) -> Answered:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition
    from langgraph.types import Command
    from tooldesign.runtime.integrations.langchain import tooldesign_langchain_tools

    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage("", tool_calls=[{"name": tool, "args": args, "id": "c1"}]),
                AIMessage("done"),
            ]
        )
    )
    graph = StateGraph(MessagesState)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    tools = tooldesign_langchain_tools(rt, meta=lambda call: ToolCallMeta(session_id=SESSION))
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    compiled: Any = graph.compile(checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t1"}}
    state = await compiled.ainvoke({"messages": [("user", "go")]}, thread)
    if state.get("__interrupt__"):
        if not approve:
            return Answered(None, "")
        state = await compiled.ainvoke(Command(resume=True), thread)
    (message,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    result = message.artifact if isinstance(message.artifact, ToolResult) else None
    return Answered(result, str(message.content))


ENTRY_POINTS: dict[str, EntryPoint] = {
    "execute": through_execute,
    "execute_sync": through_execute_sync,
    "mcp": through_mcp,
    "pydantic-ai": through_pydantic_ai,
    "openai-agents": through_openai_agents,
    "langgraph": through_langgraph,
    "redis worker": through_execute,
}
FRAMEWORKS = {"pydantic-ai", "openai-agents", "langgraph"}
"""Entry points that ask a person through their own flow rather than the runtime's approver."""
REMOTE = {"redis worker"}
"""Entry points whose tool runs on a worker over Redis, not in the agent's process."""


@asynccontextmanager
async def agent_runtime(
    entry: str, registration: ToolsetRegistration, request: pytest.FixtureRequest, **options: Any
) -> AsyncIterator[Runtime]:
    """The runtime the entry point calls: the tool in its process, or on a Redis worker."""
    if entry not in REMOTE:
        yield Runtime([registration], **options)
        return
    from tooldesign.runtime.transports import remote_registration
    from tooldesign.runtime.transports.redis import RedisTransport

    from gen.assistant.toolsets import devices as toolset
    from tests.support.redis import running_worker

    # A prefix of its own per cell: the server is shared, and ids of freed objects come back.
    url, prefix = request.getfixturevalue("redis_server").url, f"c{uuid.uuid4().hex}"
    async with running_worker(Runtime([registration]), url, prefix):
        transport = RedisTransport(url, prefix=prefix)
        try:
            yield Runtime([remote_registration(toolset, transport=transport)], **options)
        finally:
            await transport.close()


# ── the cells ─────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "entry",
    [
        pytest.param(name, marks=[pytest.mark.slow] if name in REMOTE else [])
        for name in sorted(ENTRY_POINTS)
    ],
)
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_the_promises_hold(row: Row, entry: str, request: pytest.FixtureRequest) -> None:
    probe = Probe()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    options = row.options()
    framework_asks = entry in FRAMEWORKS and row.needs_approval
    if framework_asks:
        options.pop("approver", None)  # the framework's own flow asks the person
    registration = devices.new_registration(
        service=probe.service(), handlers={"restart_device": probe.restart}
    )
    probe.slow = row.slow
    events: list[CallEvent] = []
    subscriptions: list[Subscription] = []
    run = ENTRY_POINTS[entry]

    async def main() -> Answered:
        tracing = Tracing(tracer_provider=provider)
        async with agent_runtime(entry, registration, request, tracing=tracing, **options) as rt:
            subscriptions.append(rt.subscribe(events.append))
            for _ in range(row.before):
                await rt.execute(ToolRequest(row.tool, row.arguments, META))
            return await run(rt, row.tool, row.arguments, True)

    answered = asyncio.run(main())  # 3. never an exception
    subscriptions[0].close()

    # 1. What ran is what the schema allowed, and what was approved.
    outcome, ran = (
        row.asked_by_framework
        if framework_asks and row.asked_by_framework
        else (row.outcome, row.ran)
    )
    expected_ran = [(name, dict(args)) for name, args in ran]
    assert probe.ran == expected_ran, (probe.ran, answered.text)
    result = answered.result
    if result is not None:
        assert result.telemetry.outcome == outcome, answered.text
        if outcome == "ok" and row.needs_approval:
            assert result.approval is not None
            assert dict(result.approval.arguments) == dict(expected_ran[-1][1])
    elif entry in ("execute", "execute_sync", "mcp"):
        pytest.fail("the entry point handed the application no ToolResult")
    if row.outcome == "missing_fields" or row.outcome == "invalid_arguments":
        assert answered.text == "" or "invalid" in answered.text or "required" in answered.text
    # 2. Nothing ran twice.
    assert len(probe.ran) <= 1 + row.before

    # 3. Every call the runtime ran finished once, last, and ended its span.
    by_call: dict[int, list[CallEvent]] = {}
    for event in events:
        by_call.setdefault(event.call, []).append(event)
    for call, own in by_call.items():
        finished = [e for e in own if isinstance(e, CallFinished)]
        assert len(finished) == 1 and own[-1] is finished[0], (
            call,
            [type(e).__name__ for e in own],
        )
    spans = exporter.get_finished_spans()
    assert len(spans) == len(by_call)
    assert all(span.end_time is not None for span in spans)
