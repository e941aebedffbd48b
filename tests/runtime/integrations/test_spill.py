"""Large results read back in pieces through each framework: a result over the runtime's budget
is spilled, and the framework's own scripted model reads the rest with ``read_result``, every
answer within the budget (pydantic-ai, the OpenAI Agents SDK, LangGraph)."""

from __future__ import annotations

from typing import Any

from tooldesign.runtime.validation.sizes import text_bytes

from tests.support.spill import BUDGET, Reader, every_device_at_hq, spilling_runtime

ANSWER = "All of hq's devices are read."


def check(reader: Reader) -> None:
    assert reader.ids == every_device_at_hq()  # every item once, in order
    assert len(reader.texts) > 3  # the preview, then several pieces
    assert "Preview: the result is" in reader.texts[0]
    for text in reader.texts:
        assert text_bytes(text) <= BUDGET, text


def test_pydantic_ai() -> None:
    from pydantic_ai import (
        Agent,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from tooldesign.runtime import ToolCallMeta
    from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset

    reader = Reader()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        answer = returned[0].model_response_str() if returned else None
        call = reader.next_call(answer) if isinstance(last, ModelRequest) else None
        if call is None and answer is not None:
            return ModelResponse(parts=[TextPart(ANSWER)])
        assert call is not None
        return ModelResponse(parts=[ToolCallPart(call[0], call[1])])

    toolset = tooldesign_toolset(spilling_runtime(), meta=lambda ctx: ToolCallMeta(session_id="s"))
    agent = Agent(FunctionModel(respond), toolsets=[toolset])
    assert agent.run_sync("List hq's devices").output == ANSWER
    check(reader)


def test_openai_agents() -> None:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call
    from tooldesign.runtime import ToolCallMeta
    from tooldesign.runtime.integrations.openai_agents import tooldesign_tools

    reader = Reader()

    class ReadingModel(ScriptedModel):
        """The SDK's scripted model, its next step chosen from the last tool output."""

        async def get_response(
            self, system_instructions: Any, input: Any, *rest: Any, **options: Any
        ) -> Any:
            outputs = (
                [
                    item
                    for item in input
                    if isinstance(item, dict) and item.get("type") == "function_call_output"
                ]
                if isinstance(input, list)
                else []
            )
            answer = str(outputs[-1]["output"]) if outputs else None
            call = reader.next_call(answer)
            self.enqueue(
                [assistant_message(ANSWER)]
                if call is None
                else [function_call(call[0], call[1], call_id=f"c{len(reader.texts)}")]
            )
            return await super().get_response(system_instructions, input, *rest, **options)

    tools = tooldesign_tools(spilling_runtime(), meta=lambda ctx: ToolCallMeta(session_id="s"))
    agent = Agent(name="netops", model=ReadingModel(), tools=tools)
    offline = RunConfig(tracing_disabled=True)
    result = Runner.run_sync(agent, "List hq's devices", run_config=offline, max_turns=40)
    assert result.final_output == ANSWER
    check(reader)


def test_langgraph() -> None:
    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition
    from tooldesign.runtime import ToolCallMeta
    from tooldesign.runtime.integrations.langchain import tooldesign_langchain_tools

    reader = Reader()

    def agent(state: MessagesState) -> dict[str, Any]:  # the scripted model
        last = state["messages"][-1]
        answer = str(last.content) if isinstance(last, ToolMessage) else None
        call = reader.next_call(answer)
        if call is None:
            return {"messages": [AIMessage(ANSWER)]}
        ident = f"c{len(reader.texts)}"
        return {
            "messages": [
                AIMessage("", tool_calls=[{"name": call[0], "args": call[1], "id": ident}])
            ]
        }

    tools = tooldesign_langchain_tools(
        spilling_runtime(), meta=lambda call: ToolCallMeta(session_id="s")
    )
    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    prompt: Any = {"messages": [("user", "List hq's devices")]}
    state = graph.compile().invoke(prompt)
    assert state["messages"][-1].content == ANSWER
    check(reader)
