"""The example agent on LangGraph: the generated toolsets as LangChain tools in a ``ToolNode``.

The model is LangChain's ``GenericFakeChatModel`` playing the script; the graph's ``context``
holds the user's session, which the tools' ``meta`` reads from LangGraph's ``ToolRuntime``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from tooldesign.runtime import Runtime, ToolCallMeta, ToolResult
from tooldesign.runtime.integrations.langchain import LangChainCall, tooldesign_langchain_tools

from examples.netops.frameworks.script import (
    ANSWER,
    SESSION,
    TURNS,
    session_meta,
    show_answer,
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
        for turn in TURNS
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
    return graph.compile()


def run(runtime: Runtime) -> None:
    state = build_graph(runtime).invoke(
        {"messages": [("user", "Which devices are offline at hq?")]},
        context=UserContext(SESSION),
    )
    turn = 0
    for message in state["messages"]:
        if isinstance(message, AIMessage) and message.tool_calls:
            turn += 1
            show_calls(turn, [(c["name"], c["args"]) for c in message.tool_calls])
        elif isinstance(message, ToolMessage):
            result = message.artifact if isinstance(message.artifact, ToolResult) else None
            show_answer(message.tool_call_id, str(message.content), result)
    print(f"\n── the model answers: {state['messages'][-1].content}")
