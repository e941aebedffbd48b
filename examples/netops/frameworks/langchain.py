"""The example agent on LangGraph: the generated toolsets as LangChain tools in a ``ToolNode``.

The model is LangChain's ``GenericFakeChatModel`` playing the script; the graph's ``context``
holds the user's session, which the tools' ``meta`` reads from LangGraph's ``ToolRuntime``. The
restart the design confirms interrupts the graph (a checkpointer keeps its state); the operator
approves it and the graph is resumed with the decision. So does the restart inside
``diagnose_site``'s inner run: the outer call waiting on it interrupts the graph the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command
from tooldesign.runtime import ApprovalRequest, Runtime, ToolCallMeta, ToolResult
from tooldesign.runtime.integrations.langchain import LangChainCall, tooldesign_langchain_tools

from examples.netops.frameworks.script import (
    ANSWER,
    OPERATOR,
    SCRIPT,
    SESSION,
    session_meta,
    show_answer,
    show_approval,
    show_calls,
)


@dataclass(frozen=True)
class UserContext:
    """The graph's run context: who is signed in."""

    session_id: str


def scripted_model() -> GenericFakeChatModel:
    """Plays the script: the calls of each turn, then the answer."""
    turns = [
        AIMessage(
            "",
            tool_calls=[{"name": c.name, "args": c.arguments, "id": c.call_id} for c in turn],
        )
        for turn in SCRIPT
    ]
    return GenericFakeChatModel(messages=iter([*turns, AIMessage(ANSWER)]))


def meta(call: LangChainCall) -> ToolCallMeta:
    if call.runtime is None:  # called outside a ToolNode: no session, so no injected fields
        return ToolCallMeta()
    return session_meta(call.runtime.context.session_id)


def build_graph(runtime: Runtime) -> CompiledStateGraph[Any, Any, Any, Any]:
    model = scripted_model()

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState, context_schema=UserContext)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tooldesign_langchain_tools(runtime, meta=meta)))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=InMemorySaver())


def run(runtime: Runtime) -> None:
    graph = build_graph(runtime)
    thread: RunnableConfig = {"configurable": {"thread_id": "netops-1"}}
    context = UserContext(SESSION)
    prompt = {"messages": [("user", "Which devices are offline at hq?")]}
    state = graph.invoke(prompt, thread, context=context)
    shown = show_new(state["messages"], set(), 0)
    while "__interrupt__" in state:
        # The operator approves the call waiting for a person (a UI would show its prompt),
        # saying who decided; resuming with True approves it too, anything else denies it.
        (waiting,) = state["__interrupt__"]
        request = ApprovalRequest.from_dict(waiting.value)
        show_approval(request.prompt)
        decision = request.approve(by=OPERATOR)
        state = graph.invoke(Command(resume=decision.to_dict()), thread, context=context)
        shown = show_new(state["messages"], *shown)
    print(f"\n── the model answers: {state['messages'][-1].content}")


def show_new(messages: list[Any], seen: set[str], turn: int) -> tuple[set[str], int]:
    """Shows the messages not seen yet, as they come: a resumed graph's state is read back from
    its checkpointer, where the earlier ``ToolResult`` artifacts were stored as plain data."""
    for message in messages:
        if message.id in seen:
            continue
        seen.add(message.id)
        if isinstance(message, AIMessage) and message.tool_calls:
            turn += 1
            show_calls(turn, [(c["name"], c["args"]) for c in message.tool_calls])
        elif isinstance(message, ToolMessage):
            result = message.artifact if isinstance(message.artifact, ToolResult) else None
            show_answer(message.tool_call_id, str(message.content), result)
    return seen, turn
