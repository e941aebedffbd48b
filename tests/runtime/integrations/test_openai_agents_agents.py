"""An agent-implemented tool whose agent is an OpenAI Agents SDK ``Agent``
(``agent_implementation``), with the SDK's ``ScriptedModel``: its calls are the inner run's, its
Confirm goes to the outer call's approver, its turns are the design's budget."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent
from agents.testing import ScriptedModel, assistant_message, function_call
from tooldesign.runtime import CallEvent, CallStarted, Runtime, ToolCallMeta, ToolRequest
from tooldesign.runtime.integrations.openai_agents import agent_implementation

from gen.assistant.toolsets.diagnosis import executor as diagnosis
from tests.runtime.test_agents import Restarts
from tests.support.netops import example_registration

pytestmark = pytest.mark.anyio

DEVICE = "dev-0a1b2c3d"
GOOD = {"summary": "one device offline; restarted", "findings": [], "action": "restart"}
CALL = ToolRequest(
    "diagnose_site", {"site_id": "hq"}, ToolCallMeta(session_id="sess-alice", tool_call_id="o1")
)


def runtime_for(agent: Agent[Any], restarts: Restarts, **options: Any) -> Runtime:
    return Runtime(
        [
            example_registration("devices", restart_device=restarts),
            example_registration("metrics"),
            diagnosis.new_registration(handlers={"diagnose_site": agent_implementation(agent)}),
        ],
        **options,
    )


async def test_the_inner_sdk_agents_calls_are_the_inner_runs() -> None:
    model = ScriptedModel(
        [
            [function_call("list_devices", {"site_id": "hq", "status": "offline"}, call_id="i1")],
            [
                function_call(
                    "restart_device", {"device_id": DEVICE, "reason": "offline"}, call_id="i2"
                )
            ],
            [assistant_message(json.dumps(GOOD))],
        ]
    )
    restarts = Restarts()
    runtime = runtime_for(
        Agent(name="diagnoser", model=model), restarts, approver=lambda r, m: True
    )
    events: list[CallEvent] = []
    subscription = runtime.subscribe(events.append)
    result = await runtime.execute(CALL)
    subscription.close()
    assert result.ok, result.for_model()
    assert result.result.action == "restart"
    assert restarts.ran == [(DEVICE, "sess-alice")]
    inner = [e for e in events if isinstance(e, CallStarted) and e.name != "diagnose_site"]
    assert [e.name for e in inner] == ["list_devices", "restart_device"]
    assert {e.parent_tool_call_id for e in inner} == {"o1"}


async def test_the_sdks_max_turns_is_the_designs_turn_budget() -> None:
    forever = [
        [function_call("list_devices", {"site_id": "hq"}, call_id=f"c{n}")] for n in range(20)
    ]
    runtime = runtime_for(Agent(name="diagnoser", model=ScriptedModel(forever)), Restarts())
    result = await runtime.execute(CALL)
    assert not result.ok
    assert "8 model turns" in result.for_model() or "12 tool calls" in result.for_model()
