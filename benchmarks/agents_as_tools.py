"""Overhead of an agent-implemented tool's boundary: from the outer model asking for the tool to
the inner agent's first model request, tooldesign's against each framework's own agent-as-tool,
for the same agents.

Per framework, both outer agents' scripted models call ``diagnose_site`` once, then answer; both
inner agents are the same scripted agent of that framework, which answers at once with a
``Return``-typed output:

pydantic-ai (``FunctionModel``)
  native      agent delegation: a tool function ``diagnose_site(ctx, site_id, symptom)`` that
              runs the inner agent (``output_type`` the result model, ``usage=ctx.usage``);
  tooldesign  the worked example's generated ``diagnose_site`` (``ImplementedByAgent``) through
              ``tooldesign_toolset``, implemented by ``agent_implementation(inner)``.
openai-agents (the SDK's ``ScriptedModel``)
  native      ``inner.as_tool(...)`` with the tool's arguments as its ``parameters`` and
              ``output_type`` the result model;
  tooldesign  ``tooldesign_tools`` over the generated tool, ``agent_implementation(inner)``.
langgraph (LangChain's ``GenericFakeChatModel`` in a ReAct graph with a ``ToolNode``)
  native      a ``StructuredTool`` whose coroutine invokes the inner graph (a subgraph in a
              tool) and returns its last message;
  tooldesign  ``tooldesign_langchain_tools`` over the generated tool, the inner graph bound
              with ``langchain.agent_implementation(build)`` (built from the used toolsets).

The tooldesign side adds strict decode, the inner run's scope (forwarded metadata, budget,
approvals), the runtime's toolsets as the inner agent's tools, the result checked against Return.
A round's figure is the time from the outer model's response to the inner model's first request;
the median of --repeat rounds is printed per variant, the two taking turns, and the ratio.

Run: python benchmarks/agents_as_tools.py [--repeat N] [--framework pydantic-ai|openai-agents|langgraph]
"""

import argparse
import asyncio
import gc
import itertools
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# This file's own folder first on the path would make it the Agents SDK's ``agents``.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO / "benchmarks"]
sys.path.insert(0, str(REPO))

from pydantic_ai import Agent, ModelResponse, RunContext, TextPart, ToolCallPart
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from tooldesign.runtime import Runtime, ToolCallMeta
from tooldesign.runtime.integrations.pydantic_ai import (
    agent_implementation,
    tooldesign_toolset,
)

from gen.assistant.toolsets.diagnosis import executor as diagnosis
from gen.assistant.toolsets.diagnosis import types as t
from tests.support.netops import example_registration

OUTPUT = {"summary": "all fine", "findings": [], "action": "none"}
ARGUMENTS = {"site_id": "hq", "symptom": "slow"}


class Clock:
    """When the outer model asked for the tool, and when the inner model was first asked."""

    def __init__(self) -> None:
        self.asked = 0.0
        self.reached = 0.0


def outer_model(clock: Clock) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) > 1:
            return ModelResponse(parts=[TextPart("done")])
        clock.asked = time.perf_counter()
        return ModelResponse(parts=[ToolCallPart("diagnose_site", ARGUMENTS)])

    return FunctionModel(respond)


def inner_agent(clock: Clock) -> Agent[Any, Any]:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not clock.reached:  # the first request of this round
            clock.reached = time.perf_counter()
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, OUTPUT)])

    return Agent(FunctionModel(respond))


def native(clock: Clock) -> Agent[Any, Any]:
    inner = inner_agent(clock)

    async def diagnose_site(
        ctx: RunContext[Any], site_id: str, symptom: str | None = None
    ) -> t.DiagnoseSiteResult:
        """Find out why a site is unhealthy and what to do about it."""
        prompt = f"Diagnose site {site_id}: {symptom}"
        result = await inner.run(prompt, output_type=t.DiagnoseSiteResult, usage=ctx.usage)
        return result.output

    return Agent(outer_model(clock), tools=[diagnose_site])


def tooldesign(clock: Clock) -> Agent[Any, Any]:
    runtime = Runtime(
        [
            example_registration("devices"),
            example_registration("metrics"),
            diagnosis.new_registration(
                handlers={"diagnose_site": agent_implementation(inner_agent(clock))}
            ),
        ]
    )
    toolset = tooldesign_toolset(
        runtime, "diagnosis", meta=lambda ctx: ToolCallMeta(session_id="sess")
    )
    return Agent(outer_model(clock), toolsets=[toolset])


Round = Callable[[], Awaitable[None]]
"""One round of a variant: the outer agent's run (its clock records the boundary)."""


def pydantic_ai_rounds() -> dict[str, tuple[Round, Clock]]:
    clocks = {"native": Clock(), "tooldesign": Clock()}
    agents = {"native": native(clocks["native"]), "tooldesign": tooldesign(clocks["tooldesign"])}

    def runner(agent: Agent[Any, Any]) -> Round:
        async def run() -> None:
            result = await agent.run("diagnose hq")
            assert result.output == "done"

        return run

    return {name: (runner(agent), clocks[name]) for name, agent in agents.items()}


def openai_agents_rounds() -> dict[str, tuple[Round, Clock]]:
    from agents import Agent as SdkAgent
    from agents import RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call
    from pydantic import BaseModel
    from tooldesign.runtime.integrations import openai_agents

    config = RunConfig(tracing_disabled=True)

    class Timed(ScriptedModel):
        def __init__(self, clock: Clock, *, outer: bool) -> None:
            super().__init__()
            self.clock, self.outer = clock, outer

        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            if not self.outer and not self.clock.reached:
                self.clock.reached = time.perf_counter()
            response = await super().get_response(*args, **kwargs)
            if self.outer and not self.clock.asked:
                self.clock.asked = time.perf_counter()
            return response

    class Args(BaseModel):
        site_id: str
        symptom: str | None = None

    def variant(kind: str) -> tuple[Round, Clock]:
        clock = Clock()
        outer_model, inner_model = Timed(clock, outer=True), Timed(clock, outer=False)
        inner = SdkAgent(name="diagnoser", model=inner_model, output_type=t.DiagnoseSiteResult)
        if kind == "native":
            tools: list[Any] = [
                inner.as_tool(
                    tool_name="diagnose_site",
                    tool_description="Find out why a site is unhealthy and what to do about it.",
                    parameters=Args,
                    run_config=config,
                )
            ]
        else:
            runtime = Runtime(
                [
                    example_registration("devices"),
                    example_registration("metrics"),
                    diagnosis.new_registration(
                        handlers={"diagnose_site": openai_agents.agent_implementation(inner)}
                    ),
                ]
            )
            tools = list(
                openai_agents.tooldesign_tools(
                    runtime, "diagnosis", meta=lambda ctx: ToolCallMeta(session_id="sess")
                )
            )
        outer = SdkAgent(name="netops", model=outer_model, tools=tools)

        async def run() -> None:
            outer_model.extend(
                [
                    [function_call("diagnose_site", ARGUMENTS, call_id="d1")],
                    [assistant_message("done")],
                ]
            )
            inner_model.extend([[assistant_message(json.dumps(OUTPUT))]])
            result = await Runner.run(outer, "diagnose hq", run_config=config, max_turns=4)
            assert result.final_output == "done", result.final_output

        return run, clock

    return {kind: variant(kind) for kind in ("native", "tooldesign")}


def langgraph_rounds() -> dict[str, tuple[Round, Clock]]:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import StructuredTool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition
    from pydantic import BaseModel
    from tooldesign.runtime.integrations import langchain

    class Args(BaseModel):
        site_id: str
        symptom: str | None = None

    def react(respond: Callable[[Any], AIMessage], tools: list[Any]) -> Any:
        graph = StateGraph(MessagesState)
        graph.add_node("agent", lambda state: {"messages": [respond(state["messages"])]})
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", tools_condition)
        graph.add_edge("tools", "agent")
        return graph.compile()

    def inner_graph(clock: Clock, tools: list[Any]) -> Any:
        model = GenericFakeChatModel(messages=itertools.repeat(AIMessage(json.dumps(OUTPUT))))

        def respond(messages: Any) -> AIMessage:
            if not clock.reached:
                clock.reached = time.perf_counter()
            return model.invoke(messages)  # type: ignore[return-value]

        return react(respond, tools)

    def variant(kind: str) -> tuple[Round, Clock]:
        clock = Clock()
        replies: list[AIMessage] = []
        call = {"name": "diagnose_site", "args": ARGUMENTS, "id": "d1"}

        def respond(messages: Any) -> AIMessage:
            reply = replies.pop(0)
            if reply.tool_calls:
                clock.asked = time.perf_counter()
            return reply

        if kind == "native":
            inner = inner_graph(clock, [])

            async def diagnose_site(site_id: str, symptom: str | None = None) -> str:
                prompt = f"Diagnose site {site_id}: {symptom}"
                state = await inner.ainvoke({"messages": [HumanMessage(prompt)]})
                answer = t.DiagnoseSiteResult.model_validate_json(state["messages"][-1].content)
                return answer.model_dump_json()

            tools: list[Any] = [
                StructuredTool.from_function(
                    coroutine=diagnose_site,
                    name="diagnose_site",
                    description="Find out why a site is unhealthy and what to do about it.",
                    args_schema=Args,
                )
            ]
        else:
            implementation = langchain.agent_implementation(lambda used: inner_graph(clock, used))
            runtime = Runtime(
                [
                    example_registration("devices"),
                    example_registration("metrics"),
                    diagnosis.new_registration(handlers={"diagnose_site": implementation}),
                ]
            )
            tools = list(
                langchain.tooldesign_langchain_tools(
                    runtime, "diagnosis", meta=lambda _: ToolCallMeta(session_id="sess")
                )
            )
        outer = react(respond, tools)

        async def run() -> None:
            replies[:] = [AIMessage("", tool_calls=[call]), AIMessage("done")]
            state = await outer.ainvoke({"messages": [("user", "diagnose hq")]})
            assert state["messages"][-1].content == "done"

        return run, clock

    return {kind: variant(kind) for kind in ("native", "tooldesign")}


FRAMEWORKS: dict[str, Callable[[], dict[str, tuple[Round, Clock]]]] = {
    "pydantic-ai": pydantic_ai_rounds,
    "openai-agents": openai_agents_rounds,
    "langgraph": langgraph_rounds,
}


async def one_round(run: Round, clock: Clock) -> float:
    clock.asked = clock.reached = 0.0
    gc.collect()
    gc.disable()
    try:
        await run()
    finally:
        gc.enable()
    assert clock.asked and clock.reached, "the inner agent was not reached"
    return clock.reached - clock.asked


async def bench(framework: str, repeat: int) -> None:
    # Each agent is built once, as an application does; its first run warms it up.
    variants = FRAMEWORKS[framework]()
    for run, clock in variants.values():
        await one_round(run, clock)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeat):
        for name, (run, clock) in variants.items():
            times[name].append(await one_round(run, clock))
    medians = {name: statistics.median(values) * 1e6 for name, values in times.items()}
    print(f"{framework}: outer call -> inner agent's first model request, median of {repeat}:")
    for name, value in medians.items():
        print(f"  {name:<11} {value:9.1f} us")
    print(f"  tooldesign/native = {medians['tooldesign'] / medians['native']:.2f}")


async def main(frameworks: list[str], repeat: int) -> None:
    for framework in frameworks:
        await bench(framework, repeat)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--framework", choices=sorted(FRAMEWORKS), action="append")
    options = parser.parse_args()
    asyncio.run(main(options.framework or list(FRAMEWORKS), options.repeat))
