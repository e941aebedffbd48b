"""run_code in a pydantic-ai agent: an approval inside the code is the agent's own deferred
approval flow, and the approved run resumes and runs the call once.

Starts pydantic-monty's worker processes: slow."""

from __future__ import annotations

import json

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from tooldesign.builtin.code_mode import code_mode_registration
from tooldesign.runtime import ApprovalRequest, ToolResult
from tooldesign.runtime.codemode import CodeMode
from tooldesign.runtime.integrations.pydantic_ai import tooldesign_toolset

from tests.runtime.integrations.test_pydantic_ai import returns, scripted
from tests.support.frameworks import SESSION, session_meta
from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.slow

CODE = """
online = list_devices(site_id="hq", status="online")["devices"]
try:
    r = restart_device(device_id=online[0]["id"], reason="restart from code")
except PermissionError:
    r = {"accepted": False}
{"restarted": online[0]["id"], "accepted": r["accepted"]}
"""


def agent_and_restarts() -> tuple[Agent[str, str | DeferredToolRequests], Restarts]:
    restarts = Restarts()
    runtime = example_runtime(device_handlers={"restart_device": restarts})
    runtime.register(code_mode_registration(CodeMode(runtime)))
    toolset = tooldesign_toolset(runtime, meta=lambda ctx: session_meta(ctx.deps))
    model = scripted([[("run_code", {"code": CODE}, "c1")]], [])
    agent = Agent(model, deps_type=str, toolsets=[toolset], output_type=[str, DeferredToolRequests])
    return agent, restarts


def test_an_approval_inside_code_is_a_deferred_request_and_runs_once_approved() -> None:
    agent, restarts = agent_and_restarts()
    waiting = agent.run_sync("restart the first online device at hq", deps=SESSION)
    assert isinstance(waiting.output, DeferredToolRequests)
    (call,) = waiting.output.approvals
    assert call.tool_name == "run_code"
    request = ApprovalRequest.from_dict(waiting.output.metadata["c1"])
    assert request.tool == "restart_device" and request.arguments["reason"] == "restart from code"
    assert restarts.ran == []
    done = agent.run_sync(
        deps=SESSION,
        message_history=waiting.all_messages(),
        deferred_tool_results=DeferredToolResults(
            approvals={"c1": True}, metadata={"c1": {"by": "alice"}}
        ),
    )
    (part,) = returns(done.all_messages())
    assert isinstance(part.metadata, ToolResult) and part.metadata.ok
    value = json.loads(part.model_response_str())["value"]
    assert value["accepted"] is True and restarts.ran == [request.arguments["device_id"]]


def test_a_denied_run_never_restarts() -> None:
    agent, restarts = agent_and_restarts()
    waiting = agent.run_sync("restart it", deps=SESSION)
    assert isinstance(waiting.output, DeferredToolRequests)
    done = agent.run_sync(
        deps=SESSION,
        message_history=waiting.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c1": ToolDenied("no")}),
    )
    (part,) = returns(done.all_messages())
    assert part.outcome == "denied" and restarts.ran == []
