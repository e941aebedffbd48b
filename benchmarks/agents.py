"""Overhead of an agent-implemented tool's boundary: from the outer model asking for the tool to
the inner agent's first model request, tooldesign's against pydantic-ai's own agent-as-tool, for
the same agents.

Both outer agents are pydantic-ai ``Agent``s whose scripted model (``FunctionModel``) calls
``diagnose_site`` once, then answers; both inner agents are the same scripted pydantic-ai agent,
which answers at once with a ``Return``-typed output:

  native      pydantic-ai's agent delegation: a tool function ``diagnose_site(ctx, site_id,
              symptom)`` that runs the inner agent (``output_type`` the result model,
              ``usage=ctx.usage``) and returns its output;
  tooldesign  the worked example's generated ``diagnose_site`` (``ImplementedByAgent``) through
              ``tooldesign_toolset``, implemented by ``agent_implementation(inner)``: strict
              decode, the inner run's scope (forwarded metadata, budget, approvals), the
              runtime's toolsets as the inner agent's tools, the result checked against Return.

A round's figure is the time from the outer model's response to the inner model's first request;
the median of --repeat rounds is printed per variant, the two taking turns, and the ratio.

Run: python benchmarks/agents.py [--repeat N]
"""

import argparse
import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
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


async def one_round(agent: Agent[Any, Any], clock: Clock) -> float:
    clock.asked = clock.reached = 0.0
    gc.collect()
    gc.disable()
    try:
        result = await agent.run("diagnose hq")
    finally:
        gc.enable()
    assert result.output == "done" and clock.reached, "the inner agent was not reached"
    return clock.reached - clock.asked


async def main(repeat: int) -> None:
    clocks = {"native": Clock(), "tooldesign": Clock()}
    # Each agent is built once, as an application does; its first run warms it up.
    variants = {"native": native(clocks["native"]), "tooldesign": tooldesign(clocks["tooldesign"])}
    for name, agent in variants.items():
        await one_round(agent, clocks[name])
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeat):
        for name, agent in variants.items():
            times[name].append(await one_round(agent, clocks[name]))
    medians = {name: statistics.median(values) * 1e6 for name, values in times.items()}
    print(f"outer call -> inner agent's first model request, median of {repeat} rounds:")
    for name, value in medians.items():
        print(f"  {name:<11} {value:9.1f} us")
    print(f"  tooldesign/native = {medians['tooldesign'] / medians['native']:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    asyncio.run(main(parser.parse_args().repeat))
