"""The worked example's toolsets as LangChain tools in a LangGraph ``ToolNode``, run by a real
graph with LangChain's ``GenericFakeChatModel`` (no network, no API key)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command
from tooldesign.runtime import (
    ApprovalDecided,
    ApprovalRequest,
    CallEvent,
    InputRequest,
    Runtime,
    ToolCallMeta,
    ToolResult,
)
from tooldesign.runtime.integrations.langchain import (
    LangChainCall,
    ToolCallFailed,
    approval_answers,
    tooldesign_langchain_tools,
)
from tooldesign.runtime.providers import export_tools

from tests.support.frameworks import (
    ANSWER,
    SESSION,
    TURNS,
    Answer,
    check_conversation,
    netops_runtime,
    session_meta,
)
from tests.support.generated import Generated


@dataclass(frozen=True)
class UserContext:
    session_id: str


def meta_from_runtime(call: LangChainCall) -> ToolCallMeta:
    assert call.runtime is not None, "a ToolNode passes its ToolRuntime"
    return session_meta(call.runtime.context.session_id)


Turn = list[tuple[str, dict[str, Any], str]]


def graph_of(
    runtime: Runtime,
    turns: list[Turn],
    seen: list[list[BaseMessage]],
    *,
    checkpointer: InMemorySaver | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """An agent graph: a scripted model (recording what it is sent) and a ToolNode."""
    replies = [
        AIMessage("", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in turn])
        for turn in turns
    ]
    model = GenericFakeChatModel(messages=iter([*replies, AIMessage(ANSWER)]))

    def agent(state: MessagesState) -> dict[str, Any]:
        seen.append(list(state["messages"]))
        return {"messages": [model.invoke(state["messages"])]}

    tools = tooldesign_langchain_tools(runtime, meta=meta_from_runtime)
    graph = StateGraph(MessagesState, context_schema=UserContext)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer)


def answers_in(messages: list[BaseMessage]) -> dict[str, Answer]:
    return {
        m.tool_call_id: Answer(
            str(m.content), m.artifact if isinstance(m.artifact, ToolResult) else None
        )
        for m in messages
        if isinstance(m, ToolMessage)
    }


SCRIPT: list[Turn] = [[(c.name, c.arguments, c.call_id) for c in turn] for turn in TURNS]
PROMPT = {"messages": [("user", "Which devices are offline at hq?")]}


@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_graph_runs_the_example_conversation(path: str) -> None:
    runtime, overlap = netops_runtime()
    seen: list[list[BaseMessage]] = []
    graph = graph_of(runtime, SCRIPT, seen)
    context = UserContext(SESSION)
    if path == "sync":
        state = graph.invoke(PROMPT, context=context)
    else:
        state = asyncio.run(graph.ainvoke(PROMPT, context=context))
    messages = state["messages"]
    assert messages[-1].content == ANSWER
    second_turn_input = str(seen[1][-1].content)
    check_conversation(answers_in(messages), second_turn_input, overlap)
    statuses = {m.tool_call_id: m.status for m in messages if isinstance(m, ToolMessage)}
    assert statuses == {
        "call-1": "error",
        "call-2": "success",
        "call-3": "success",
        "call-4": "success",
    }


def test_the_args_schema_is_the_generated_schema_without_injected_fields() -> None:
    runtime, _ = netops_runtime()
    tools = tooldesign_langchain_tools(runtime)
    exported = export_tools(runtime.specs(), "openai", api="responses")
    for tool, definition in zip(tools, exported, strict=True):
        assert tool.args_schema == definition["parameters"]
        # What LangChain sends a provider is that schema too (the tool's description in place
        # of the payload's own).
        parameters = {k: v for k, v in definition["parameters"].items() if k != "description"}
        assert convert_to_openai_tool(tool)["function"] == {
            "name": definition["name"],
            "description": definition["description"],
            "parameters": parameters,
        }
    by_name = {t.name: t for t in tools}
    assert "session_id" not in by_name["get_profile"].tool_call_schema["properties"]  # type: ignore[index]


def test_outside_a_tool_node_the_metadata_comes_from_the_runnable_config() -> None:
    runtime, _ = netops_runtime()

    def meta(call: LangChainCall) -> ToolCallMeta:
        assert call.runtime is None
        return session_meta(call.config["configurable"]["session_id"])

    by_name = {t.name: t for t in tooldesign_langchain_tools(runtime, meta=meta)}
    config = {"configurable": {"session_id": SESSION}}
    call = {"type": "tool_call", "name": "get_profile", "args": {"session_id": "x"}, "id": "c1"}
    message = by_name["get_profile"].invoke(call, config)
    assert isinstance(message, ToolMessage) and message.tool_call_id == "c1"
    assert isinstance(message.artifact, ToolResult)
    assert message.artifact.tool_call_id == "c1"
    assert message.artifact.telemetry.discarded_injected == ("session_id",)
    assert '"user_id":"u-alice"' in str(message.content)
    # Invoked with the arguments alone, the tool answers with its content (LangChain's way).
    content = by_name["get_site"].invoke({"site_id": "hq"}, config)
    assert isinstance(content, str) and content.startswith('{"id":"hq",')


def test_a_failed_call_is_a_tool_exception_carrying_the_result() -> None:
    runtime, _ = netops_runtime()
    handled: list[ToolCallFailed] = []

    def handle(error: Any) -> str:
        handled.append(error)
        return f"handled: {error}"

    call = {"type": "tool_call", "name": "list_devices", "args": {"status": "x"}, "id": "c1"}
    tool = {t.name: t for t in tooldesign_langchain_tools(runtime, handle_tool_error=handle)}
    message = tool["list_devices"].invoke(call)
    assert message.status == "error" and str(message.content).startswith("handled: Error: ")
    (error,) = handled
    assert isinstance(error, ToolCallFailed) and error.result.retry_hint is not None

    raising = {t.name: t for t in tooldesign_langchain_tools(runtime, handle_tool_error=False)}
    with pytest.raises(ToolCallFailed, match="site_id: required field is missing") as caught:
        raising["list_devices"].invoke(call)
    assert caught.value.result.retry_hint is not None
    assert caught.value.result.retry_hint.reason == "invalid_arguments"


RESTART = ("restart_device", {"device_id": "dev-00000000", "reason": "stuck port"}, "r1")


@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize(
    "answer", [True, "approve-by-bob", False, "not during business hours"], ids=repr
)
def test_a_call_the_design_confirms_interrupts_the_graph(answer: object, path: str) -> None:
    runtime, _ = netops_runtime()
    events: list[CallEvent] = []
    subscription = runtime.subscribe(events.append)
    graph = graph_of(runtime, [[RESTART]], [], checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t1"}}
    context = UserContext(SESSION)

    def run(value: Any) -> dict[str, Any]:
        if path == "sync":
            return graph.invoke(value, thread, context=context)  # type: ignore[no-any-return]
        return asyncio.run(graph.ainvoke(value, thread, context=context))  # type: ignore[no-any-return]

    waiting = run(PROMPT)
    (interrupt,) = waiting["__interrupt__"]
    request = ApprovalRequest.from_dict(interrupt.value)  # a dict: it survives a checkpointer
    assert request.tool == "restart_device" and request.tool_call_id == "r1"
    assert request.arguments == {"device_id": "dev-00000000", "reason": "stuck port"}
    assert request.prompt.startswith("Restart dev-00000000? It drops traffic")
    assert not answers_in(waiting["messages"])

    if answer == "approve-by-bob":  # a decision says who decided
        answer = request.approve(by="bob").to_dict()
    done = run(Command(resume=answer))
    (message,) = [m for m in done["messages"] if isinstance(m, ToolMessage)]
    subscription.close()
    decided = [e for e in events if isinstance(e, ApprovalDecided)]
    (event,) = decided
    assert event.request.id == request.id
    if answer is True or isinstance(answer, dict):
        assert message.content == '{"accepted":true,"job_id":"restart-dev-00000000"}'
        assert isinstance(message.artifact, ToolResult) and message.artifact.ok
        assert message.artifact.approval is not None
        assert message.artifact.approval.id == request.id
        assert event.decision.granted
        assert event.decision.by == ("bob" if isinstance(answer, dict) else None)
    else:
        # Denied by the runtime: the model reads the design's text, observers see the denial.
        confirm = runtime.spec("restart_device").confirm  # type: ignore[union-attr]
        assert confirm is not None
        assert message.status == "error" and confirm.denied in str(message.content)
        assert "Recovery: replan" in str(message.content)
        assert not event.decision.granted
        if isinstance(answer, str):
            assert event.decision.reason == answer and answer in str(message.content)


DESIGN_WITH_A_RUNTIME_FIELD = """
from tooldesign.dsl import *

with Service("ci", "Continuous integration"):
    with Toolset("jobs", "Jobs"):
        with Tool("run_job", "Run a job"):
            with Args():
                Attribute("runtime", String, "The language runtime to run the job on")
                Required("runtime")
            with Return():
                Attribute("used", String, "The runtime the job ran on")
                Required("used")
"""


def test_a_field_named_runtime_stays_the_models(gen_design: Callable[[str], Generated]) -> None:
    executor = gen_design(DESIGN_WITH_A_RUNTIME_FIELD).module("ci.toolsets.jobs.executor")

    async def run_job(args: Any, meta: ToolCallMeta) -> Any:
        return {"used": args.runtime}

    runtime = Runtime([executor.new_registration(handlers={"run_job": run_job})])
    (tool,) = tooldesign_langchain_tools(runtime)
    assert tool.args_schema == runtime.schema("run_job")
    # A ToolNode passes no ToolRuntime to this tool: it would take the model's field's place.
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([tool]))
    graph.add_edge(START, "tools")
    call = AIMessage("", tool_calls=[{"name": "run_job", "args": {"runtime": "py3.11"}, "id": "c"}])
    message = graph.compile().invoke({"messages": [call]})["messages"][-1]
    assert isinstance(message, ToolMessage)
    assert message.content == '{"used":"py3.11"}'


def _restarts_runtime() -> tuple[Runtime, Any]:
    from examples.netops.services import DeviceService, Inventory
    from gen.assistant.toolsets.devices import executor as devices
    from tests.support.netops import Restarts

    restarts = Restarts()
    registration = devices.new_registration(
        service=DeviceService(Inventory()), handlers={"restart_device": restarts}
    )
    return Runtime([registration]), restarts


@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize(
    "answers",
    [
        (True, True),
        (False, False),
        (True, False),
        (False, True),
        (True, True, True),
        (True, False, True),
    ],
    ids=lambda a: "-".join("yes" if x else "no" for x in a),
)
def test_each_approved_call_of_a_turn_runs_once(answers: tuple[bool, ...], path: str) -> None:
    """LangGraph runs a tool node again from its start each time the graph resumes: with
    several calls that wait for a person in one turn, the calls approved earlier come round
    again. Each one runs once; the replay is answered with its run's result."""
    runtime, restarts = _restarts_runtime()
    devices = [f"dev-{n}{n}{n}{n}{n}{n}{n}{n}" for n in range(len(answers))]
    turn = [
        ("restart_device", {"device_id": device, "reason": "stuck"}, f"r{n}")
        for n, device in enumerate(devices)
    ]
    graph = graph_of(runtime, [turn], [], checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t-replay"}}
    context = UserContext(SESSION)

    def run(value: Any) -> dict[str, Any]:
        if path == "sync":
            return graph.invoke(value, thread, context=context)  # type: ignore[no-any-return]
        return asyncio.run(graph.ainvoke(value, thread, context=context))  # type: ignore[no-any-return]

    state = run(PROMPT)
    decided: dict[str, object] = {}
    asked: list[str] = []
    for _ in range(10):
        if not state.get("__interrupt__"):
            break
        for waiting in state["__interrupt__"]:
            request = ApprovalRequest.from_dict(waiting.value)
            if request.id not in decided:  # a person is asked once per call
                asked.append(request.tool_call_id or "")
                decided[request.id] = answers[int((request.tool_call_id or "r0")[1:])]
        state = run(Command(resume=approval_answers(state["__interrupt__"], decided)))
    assert not state.get("__interrupt__")
    assert sorted(asked) == sorted(f"r{n}" for n in range(len(answers)))
    approved = [device for device, yes in zip(devices, answers, strict=True) if yes]
    assert sorted(restarts.ran) == sorted(approved)  # each approved call ran, once
    answered = answers_in(state["messages"])
    assert sorted(answered) == sorted(f"r{n}" for n in range(len(answers)))
    for n, yes in enumerate(answers):
        result = answered[f"r{n}"].result
        if yes:
            assert result is not None and result.ok
        else:
            assert result is None  # a denial is a ToolException: LangChain answers its text


@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_bare_answer_decides_no_call_of_a_turn_where_several_wait(path: str) -> None:
    """LangGraph hands a resume value to whichever call asks first: with two calls waiting, a
    bare ``True`` meant for one could approve the other. It decides neither: both are asked
    again, and nothing ran."""
    runtime, restarts = _restarts_runtime()
    turn = [
        ("restart_device", {"device_id": "dev-00000000", "reason": "stuck"}, "r0"),
        ("restart_device", {"device_id": "dev-11111111", "reason": "stuck"}, "r1"),
    ]
    graph = graph_of(runtime, [turn], [], checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "t-bare"}}
    context = UserContext(SESSION)

    def run(value: Any) -> dict[str, Any]:
        if path == "sync":
            return graph.invoke(value, thread, context=context)  # type: ignore[no-any-return]
        return asyncio.run(graph.ainvoke(value, thread, context=context))  # type: ignore[no-any-return]

    state = run(PROMPT)
    first = state["__interrupt__"][0]
    state = run(Command(resume={first.id: True}))
    assert restarts.ran == []
    # Still waiting, on one or both: the bare answer was taken by whichever asked first, and
    # that one asks again.
    again = [ApprovalRequest.from_dict(w.value) for w in state["__interrupt__"]]
    assert again and {r.tool_call_id for r in again} <= {"r0", "r1"}
    assert not answers_in(state["messages"])


@pytest.mark.parametrize("path", ["sync", "async"])
def test_what_a_tool_asks_is_answered_with_the_call(path: str) -> None:
    runtime, _ = netops_runtime()
    asked: list[tuple[InputRequest, str | None]] = []

    def answer(request: InputRequest, call: LangChainCall) -> dict[str, Any]:
        asked.append((request, call.tool_call_id))
        return {"action": "accept", "content": {"host": "core.hq", "probes": 2}}

    (probe,) = [
        t
        for t in tooldesign_langchain_tools(runtime, answer=answer)
        if t.name == "check_reachability"
    ]
    call = {"type": "tool_call", "name": probe.name, "args": {"value": ""}, "id": "p1"}
    message = probe.invoke(call) if path == "sync" else asyncio.run(probe.ainvoke(call))
    assert isinstance(message.artifact, ToolResult) and message.artifact.result.raw["sent"] == 2
    ((request, call_id),) = asked
    assert request.method == "elicitation/create" and call_id == "p1"
