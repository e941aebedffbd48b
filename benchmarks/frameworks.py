"""Per-call overhead of a tooldesign tool in each agent framework, against the same tool
written the framework's native way.

The tool is benchmarks/runtime.py's 10-field ``score``. Per framework, two agents differ only
in their tool:

  native      a plain async function with the same pydantic signature (each field typed and
              constrained as the design says), registered the framework's way: pydantic-ai
              ``Agent(tools=[...])``, the Agents SDK's ``function_tool``, LangChain's
              ``StructuredTool`` in a LangGraph ``ToolNode``;
  tooldesign  the generated tool through the integration (``tooldesign_toolset``,
              ``tooldesign_tools``, ``tooldesign_langchain_tools``) on a ``Runtime`` without
              interceptors: strict decode, injection, bounds, encoding, hints.

Both run through the framework's own tool-call path: an agent run whose scripted model makes
--calls calls at once, then answers. A call's overhead is (that run − a run with no call) /
--calls; the figure is the median of --repeat rounds, in which the two agents take turns.
Target: tooldesign/native <= 1.3.

Run: python benchmarks/frameworks.py [--calls N] [--repeat N]
"""

# No ``from __future__ import annotations``: LangChain reads a tool's signature on every call,
# and string annotations would cost the native tool an evaluation each time.
import argparse
import asyncio
import gc
import importlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime import PAYLOAD, generate_package

ARGUMENTS: dict[str, Any] = json.loads(PAYLOAD)
ANSWER = "scored"


class Score(BaseModel):
    item_id: str
    score: float


async def score(
    item_id: Annotated[str, Field(description="Item", pattern=r"^item-[0-9]+$")],
    name: Annotated[str, Field(description="Name", max_length=80)],
    category: Annotated[Literal["a", "b", "c"], Field(description="Category")],
    quantity: Annotated[int, Field(description="Quantity", ge=0, le=1000)],
    price: Annotated[float, Field(description="Price", ge=0)],
    discount: Annotated[float, Field(description="Discount", ge=0, le=1)] = 0.0,
    express: Annotated[bool | None, Field(description="Express delivery")] = None,
    tags: Annotated[list[str] | None, Field(description="Tags")] = None,
    note: Annotated[str | None, Field(description="Note")] = None,
    priority: Annotated[int, Field(description="Priority", ge=1, le=5)] = 3,
) -> Score:
    """Score an item"""
    return Score(item_id=item_id, score=price * quantity)


RunOnce = Callable[[int], Awaitable[float]]
"""Runs the agent once with a model making that many calls; returns the seconds it took."""


def pydantic_ai_runs(runtime: Any) -> dict[str, RunOnce]:
    from pydantic_ai import Agent, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset

    plan = [0]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) > 1 or not plan[0]:
            return ModelResponse(parts=[TextPart(ANSWER)])
        parts = [
            ToolCallPart("score", dict(ARGUMENTS), tool_call_id=f"c{i}") for i in range(plan[0])
        ]
        return ModelResponse(parts=parts)

    model = FunctionModel(respond)
    agents = {
        "native": Agent(model, tools=[score]),
        "tooldesign": Agent(model, toolsets=[tooldesign_toolset(runtime)]),
    }

    def runner(agent: Agent[None, str]) -> RunOnce:
        async def run(calls: int) -> float:
            plan[0] = calls
            started = time.perf_counter()
            result = await agent.run("score it")
            elapsed = time.perf_counter() - started
            assert result.output == ANSWER
            return elapsed

        return run

    return {kind: runner(agent) for kind, agent in agents.items()}


def openai_agents_runs(runtime: Any) -> dict[str, RunOnce]:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call
    from tooldesign.runtime.integrations.openai_agents import tooldesign_tools

    config = RunConfig(tracing_disabled=True)
    tools = {"native": [function_tool(score)], "tooldesign": tooldesign_tools(runtime)}

    def runner(kind: str) -> RunOnce:
        async def run(calls: int) -> float:
            steps: list[Any] = []
            if calls:
                steps.append(
                    [function_call("score", ARGUMENTS, call_id=f"c{i}") for i in range(calls)]
                )
            steps.append([assistant_message(ANSWER)])
            agent = Agent(name="bench", model=ScriptedModel(steps), tools=tools[kind])
            started = time.perf_counter()
            result = await Runner.run(agent, "score it", run_config=config, max_turns=3)
            elapsed = time.perf_counter() - started
            assert result.final_output == ANSWER
            return elapsed

        return run

    return {kind: runner(kind) for kind in tools}


def langchain_runs(runtime: Any) -> dict[str, RunOnce]:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import StructuredTool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition
    from tooldesign.runtime.integrations.langchain import tooldesign_langchain_tools

    replies: list[AIMessage] = []

    class Script:
        def __iter__(self) -> "Script":
            return self

        def __next__(self) -> AIMessage:
            return replies.pop(0)

    model = GenericFakeChatModel(messages=Script())

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    def graph_of(tools: list[Any]) -> Any:
        graph = StateGraph(MessagesState)
        graph.add_node("agent", agent)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", tools_condition)
        graph.add_edge("tools", "agent")
        return graph.compile()

    native = StructuredTool.from_function(coroutine=score, name="score")
    graphs = {
        "native": graph_of([native]),
        "tooldesign": graph_of(tooldesign_langchain_tools(runtime)),
    }

    def runner(graph: Any) -> RunOnce:
        async def run(calls: int) -> float:
            replies.clear()
            if calls:
                tool_calls = [
                    {"name": "score", "args": dict(ARGUMENTS), "id": f"c{i}"} for i in range(calls)
                ]
                replies.append(AIMessage("", tool_calls=tool_calls))
            replies.append(AIMessage(ANSWER))
            started = time.perf_counter()
            state = await graph.ainvoke({"messages": [("user", "score it")]})
            elapsed = time.perf_counter() - started
            assert state["messages"][-1].content == ANSWER
            return elapsed

        return run

    return {kind: runner(graph) for kind, graph in graphs.items()}


FRAMEWORKS: dict[str, Callable[[Any], dict[str, RunOnce]]] = {
    "pydantic-ai": pydantic_ai_runs,
    "openai-agents": openai_agents_runs,
    "langchain": langchain_runs,
}


async def per_call_us(runs: dict[str, RunOnce], calls: int, rounds: int) -> dict[str, float]:
    """Each kind's median over ``rounds`` of (a run with ``calls`` calls − a run with none) /
    calls. The kinds take turns within each round, so a busy machine slows them alike."""
    samples: dict[str, list[float]] = {kind: [] for kind in runs}
    for round_ in range(rounds + 1):  # the first round warms up
        for kind, run in runs.items():
            gc.collect()
            with_calls = await run(calls)
            gc.collect()
            without = await run(0)
            if round_:
                samples[kind].append((with_calls - without) / calls * 1e6)
    return {kind: statistics.median(values) for kind, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200, help="tool calls per agent run")
    parser.add_argument("--repeat", type=int, default=21, help="rounds (the median is shown)")
    parser.add_argument("--framework", choices=sorted(FRAMEWORKS), action="append")
    args = parser.parse_args()

    from tooldesign.runtime import Runtime, ToolCallMeta

    work = Path(tempfile.mkdtemp(prefix="tooldesign-frameworks-bench-"))
    executor = generate_package(work)
    types = importlib.import_module("benchgen.bench.toolsets.scoring.types")

    async def generated_score(payload: Any, meta: ToolCallMeta) -> Any:
        return types.ScoreResult(item_id=payload.item_id, score=payload.price * payload.quantity)

    runtime = Runtime([executor.new_registration(handlers={"score": generated_score})])
    print(
        f"tooldesign in agent frameworks: per-call overhead, {args.calls} calls per run, "
        f"median of {args.repeat} rounds (10-field payload)"
    )
    print(f"  {'framework':<15}{'native':>12}{'tooldesign':>14}{'ratio':>9}")
    for framework in args.framework or FRAMEWORKS:
        runs = FRAMEWORKS[framework](runtime)
        figures = asyncio.run(per_call_us(runs, args.calls, args.repeat))
        native, ours = figures["native"], figures["tooldesign"]
        print(
            f"  {framework:<15}{native:>9.1f} us{ours:>11.1f} us{ours / native:>8.2f}x"
            "   (target <= 1.3x)"
        )


if __name__ == "__main__":
    main()
