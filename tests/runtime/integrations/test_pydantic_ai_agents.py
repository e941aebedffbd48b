"""An agent-implemented tool whose agent is a pydantic-ai ``Agent`` (``agent_implementation``),
called by an outer pydantic-ai agent: scripted models at both ends (``FunctionModel``)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel
from tooldesign.runtime import ApprovalRequest, CallEvent, CallStarted, Runtime, ToolCallMeta
from tooldesign.runtime.integrations.pydantic_ai import agent_implementation, tooldesign_toolset

from gen.assistant.toolsets.diagnosis import executor as diagnosis
from tests.runtime.test_agents import Restarts
from tests.support.netops import example_registration

pytestmark = pytest.mark.anyio

DEVICE = "dev-0a1b2c3d"


def inner_model(final: list[dict[str, Any]]) -> FunctionModel:
    """The inner agent: lists the site's offline devices, restarts one, then answers with each
    output of ``final`` in turn (one outside ``Return`` makes pydantic-ai ask again)."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn == 0:
            return ModelResponse(
                parts=[ToolCallPart("list_devices", {"site_id": "hq", "status": "offline"})]
            )
        if turn == 1:
            return ModelResponse(
                parts=[ToolCallPart("restart_device", {"device_id": DEVICE, "reason": "offline"})]
            )
        output = final[min(turn - 2, len(final) - 1)]
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, output)])

    return FunctionModel(respond)


GOOD = {"summary": "one device offline; restarted", "findings": [], "action": "restart"}


def outer_model() -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(m, ModelResponse) for m in messages):
            return ModelResponse(
                parts=[ToolCallPart("diagnose_site", {"site_id": "hq"}, tool_call_id="d1")]
            )
        return ModelResponse(parts=[TextPart("diagnosed")])

    return FunctionModel(respond)


def runtime_for(inner: Agent[Any, Any], restarts: Restarts, **options: Any) -> Runtime:
    return Runtime(
        [
            example_registration("devices", restart_device=restarts),
            example_registration("metrics"),
            diagnosis.new_registration(handlers={"diagnose_site": agent_implementation(inner)}),
        ],
        **options,
    )


def session(ctx: Any) -> ToolCallMeta:
    return ToolCallMeta(session_id="sess-alice")


async def test_the_outer_frameworks_approval_flow_resumes_the_inner_run() -> None:
    restarts = Restarts()
    inner = Agent(inner_model([GOOD]))
    runtime = runtime_for(inner, restarts)
    events: list[CallEvent] = []
    subscription = runtime.subscribe(events.append)
    outer = Agent(
        outer_model(),
        toolsets=[tooldesign_toolset(runtime, "diagnosis", meta=session)],
        output_type=[str, DeferredToolRequests],
    )
    first = await outer.run("what is wrong at hq?")
    assert isinstance(first.output, DeferredToolRequests)
    waiting = ApprovalRequest.from_dict(first.output.metadata["d1"])
    assert waiting.tool == "restart_device" and waiting.session_id == "sess-alice"
    assert not restarts.ran
    decided = DeferredToolResults(approvals={"d1": True}, metadata={"d1": {"by": "alice"}})
    second = await outer.run(message_history=first.all_messages(), deferred_tool_results=decided)
    subscription.close()
    assert second.output == "diagnosed"
    assert restarts.ran == [(DEVICE, "sess-alice")]
    started = [e.name for e in events if isinstance(e, CallStarted)]
    # The inner list_devices ran once: the approved call resumed the run, it did not restart it.
    assert started.count("list_devices") == 1
    assert started.count("restart_device") == 1


async def test_the_outer_approver_decides_inside_the_inner_framework_run() -> None:
    restarts = Restarts()
    runtime = runtime_for(Agent(inner_model([GOOD])), restarts, approver=lambda r, m: True)
    outer = Agent(outer_model(), toolsets=[tooldesign_toolset(runtime, "diagnosis", meta=session)])
    result = await outer.run("what is wrong at hq?")
    assert result.output == "diagnosed"
    assert restarts.ran == [(DEVICE, "sess-alice")]


async def test_an_inner_output_outside_return_is_corrected_by_the_framework() -> None:
    restarts = Restarts()
    inner = Agent(inner_model([{"summary": "?", "action": "reboot"}, GOOD]))
    runtime = runtime_for(inner, restarts, approver=lambda r, m: True)
    from tooldesign.runtime import ToolRequest

    result = await runtime.execute(
        ToolRequest("diagnose_site", {"site_id": "hq"}, ToolCallMeta(session_id="s"))
    )
    assert result.ok and result.result.action == "restart"


async def test_the_turn_budget_is_pydantic_ais_request_limit() -> None:
    def forever(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("list_devices", {"site_id": "hq"})])

    runtime = runtime_for(Agent(FunctionModel(forever)), Restarts())
    from tooldesign.runtime import ToolRequest

    result = await runtime.execute(
        ToolRequest("diagnose_site", {"site_id": "hq"}, ToolCallMeta(session_id="s"))
    )
    assert not result.ok
    assert "8 model turns" in result.for_model() or "12 tool calls" in result.for_model()
