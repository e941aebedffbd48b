"""A LangGraph graph as the inner agent of an agent-implemented tool
(``tooldesign.runtime.integrations.langchain.agent_implementation``): the worked example's
``diagnose_site`` implemented by a graph whose model is LangChain's ``GenericFakeChatModel``
(scripted, no network) and whose tools are the runtime's devices and metrics."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt
from tooldesign.runtime import (
    AgentTask,
    CallEvent,
    CallStarted,
    Runtime,
    ToolCallMeta,
    ToolRequest,
)
from tooldesign.runtime.integrations.langchain import agent_implementation

from gen.assistant.toolsets.diagnosis import executor as diagnosis
from gen.assistant.toolsets.diagnosis import specs
from tests.support.netops import example_registration

pytestmark = pytest.mark.anyio

META = ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="outer-1")
CALL = ToolRequest("diagnose_site", {"site_id": "ber"}, META)
ANSWER = {"summary": "one device restarted", "findings": [], "action": "restart"}


def calls(*calls: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        "", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)]
    )


LOOKS_AND_RESTARTS = [
    calls(("list_devices", {"site_id": "ber", "status": "offline"})),
    calls(("restart_device", {"device_id": "dev-daa66d13", "reason": "offline"})),
    AIMessage(json.dumps(ANSWER)),
]


class Restarts:
    def __init__(self) -> None:
        self.ran: list[str] = []

    async def __call__(self, args: Any, meta: ToolCallMeta) -> Any:
        from gen.assistant.toolsets.devices import types as device_types

        self.ran.append(args.device_id)
        return device_types.RestartDeviceResult(accepted=True, job_id=f"job-{args.device_id}")


def graph_factory(
    replies: Sequence[BaseMessage], *, checkpointer: Any = None, ask: str | None = None
) -> Callable[[list[BaseTool]], Any]:
    """A ReAct graph over the tools it is given, its model answering ``replies`` in turn (and,
    with ``ask``, a node asking a person ``ask`` with LangGraph's interrupt before answering)."""
    model = GenericFakeChatModel(messages=iter(replies))

    def build(tools: list[BaseTool]) -> Any:
        def agent(state: MessagesState) -> dict[str, Any]:
            return {"messages": [model.invoke(state["messages"])]}

        def review(state: MessagesState) -> dict[str, Any]:
            answer = interrupt({"question": ask})
            return {"messages": [AIMessage(json.dumps({**ANSWER, "summary": f"asked: {answer}"}))]}

        graph = StateGraph(MessagesState)
        graph.add_node("agent", agent)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "agent")
        if ask is None:
            graph.add_conditional_edges("agent", tools_condition)
        else:
            graph.add_node("review", review)
            graph.add_conditional_edges(
                "agent", lambda s: "tools" if s["messages"][-1].tool_calls else "review"
            )
        graph.add_edge("tools", "agent")
        return graph.compile(checkpointer=checkpointer)

    return build


def runtime_with(implementation: Any, restarts: Restarts | None = None, **options: Any) -> Runtime:
    return Runtime(
        [
            example_registration("sites"),
            example_registration("devices", restart_device=restarts or Restarts()),
            example_registration("metrics"),
            diagnosis.new_registration(handlers={"diagnose_site": implementation}),
        ],
        **options,
    )


async def test_a_graph_is_the_inner_agent_typed_nested_and_counted() -> None:
    seen: list[AgentTask[Any]] = []
    inner = agent_implementation(graph_factory(LOOKS_AND_RESTARTS))

    async def counted(task: AgentTask[Any]) -> Any:
        seen.append(task)
        return await inner(task)  # type: ignore[misc]

    restarts = Restarts()
    runtime = runtime_with(counted, restarts, approver=lambda request, meta: True)
    events: list[CallEvent] = []
    runtime.subscribe(events.append)
    result = await runtime.execute(CALL)
    assert result.ok, result.for_model()
    assert result.result.action == "restart" and restarts.ran == ["dev-daa66d13"]
    nested = [e.name for e in events if isinstance(e, CallStarted) and e.parent_tool_call_id]
    assert nested == ["list_devices", "restart_device"]
    assert seen[0].usage.turns == 3 and seen[0].usage.tool_calls == 2


async def test_an_inner_approval_waits_for_the_outer_decision_and_the_graph_resumes() -> None:
    restarts = Restarts()
    runtime = runtime_with(agent_implementation(graph_factory(LOOKS_AND_RESTARTS)), restarts)
    waiting = await runtime.execute(CALL)
    assert waiting.awaiting_approval and waiting.approval is not None
    assert waiting.approval.tool == "restart_device" and not restarts.ran
    done = await runtime.execute(CALL, approvals=[waiting.approval.approve(by="alice")])
    assert done.ok and restarts.ran == ["dev-daa66d13"]


@pytest.mark.parametrize("granted", [True, False])
async def test_a_graphs_own_interrupt_is_asked_through_the_outer_approval_flow(
    granted: bool,
) -> None:
    replies = [AIMessage("looked enough")]
    graph = graph_factory(replies, checkpointer=InMemorySaver(), ask="Escalate to the NOC?")
    runtime = runtime_with(agent_implementation(graph))
    waiting = await runtime.execute(CALL)
    assert waiting.awaiting_approval and waiting.approval is not None
    assert waiting.approval.prompt == "Escalate to the NOC?"
    assert waiting.approval.tool == "diagnose_site"
    decision = (
        waiting.approval.approve(by="alice")
        if granted
        else waiting.approval.deny(by="alice", reason="not now")
    )
    done = await runtime.execute(CALL, approvals=[decision])
    assert done.ok, done.for_model()
    assert done.result.summary == ("asked: True" if granted else "asked: not now")


async def test_an_output_outside_return_is_corrected_by_the_graph() -> None:
    replies = [AIMessage('{"summary": "all fine"}'), AIMessage(json.dumps(ANSWER))]
    result = await runtime_with(agent_implementation(graph_factory(replies))).execute(CALL)
    assert result.ok and result.result.summary == "one device restarted"


async def test_the_graphs_model_requests_are_counted_against_the_turn_budget() -> None:
    looping = [calls(("list_devices", {"site_id": "ber"})) for _ in range(10)]
    contract = specs.DIAGNOSE_SITE_SPEC.agent
    assert contract is not None
    object.__setattr__(
        specs.DIAGNOSE_SITE_SPEC, "agent", dataclasses.replace(contract, max_turns=2)
    )
    try:
        spent = await runtime_with(agent_implementation(graph_factory(looping))).execute(CALL)
    finally:
        object.__setattr__(specs.DIAGNOSE_SITE_SPEC, "agent", contract)
    assert not spent.ok
    assert "its agent used its 2 model turns" in spent.for_model()
