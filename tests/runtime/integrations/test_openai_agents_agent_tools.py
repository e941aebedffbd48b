"""An agent-implemented tool in an OpenAI Agents SDK agent: an approval its inner run needs is
the SDK's own interruption (``needs_approval``, ``result.interruptions``, ``state.approve`` /
``reject``), as for a direct call; approved, the inner run resumes from its pause and runs
exactly that call once. A real ``Runner`` with the SDK's ``ScriptedModel``."""

from __future__ import annotations

import json

from agents import Agent, Runner
from agents.items import ToolApprovalItem
from tooldesign.runtime import ApprovalRequest, ToolResult
from tooldesign.runtime.integrations.openai_agents import tooldesign_tools, waiting_approval

from examples.netops.diagnosis import diagnose_site
from gen.assistant.toolsets.diagnosis import executor as diagnosis
from tests.runtime.integrations.test_openai_agents import OFFLINE, answers_in, scripted
from tests.support.frameworks import SESSION, session_meta
from tests.support.netops import Restarts, example_runtime


def setup() -> tuple[Agent[str], Restarts]:
    restarts = Restarts()
    runtime = example_runtime(device_handlers={"restart_device": restarts})
    runtime.register(diagnosis.new_registration(handlers={"diagnose_site": diagnose_site}))
    tools = tooldesign_tools(
        runtime,
        meta=lambda ctx: session_meta(ctx.context),
        approved_by=lambda ctx, _: "alice",
    )
    model = scripted([[("diagnose_site", {"site_id": "nyc"}, "d1")]])
    return Agent[str](name="netops", model=model, tools=tools), restarts


def test_an_inner_runs_approval_interrupts_the_outer_run_and_runs_the_call_once() -> None:
    agent, restarts = setup()
    waiting = Runner.run_sync(agent, "diagnose nyc", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    assert isinstance(interruption, ToolApprovalItem)
    assert interruption.tool_name == "diagnose_site"
    # What to show the person: the inner run's call, as a direct call would ask.
    request = waiting_approval(interruption)
    assert isinstance(request, ApprovalRequest) and request.tool == "restart_device"
    assert restarts.ran == [] and not answers_in(waiting.new_items)

    state = waiting.to_state()
    state.approve(interruption)
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert isinstance(answer.result, ToolResult) and answer.result.ok, answer.text
    assert json.loads(answer.text)["action"] == "restart"
    assert restarts.ran == [request.arguments["device_id"]]  # once, the call shown


def test_a_rejected_inner_approval_never_restarts() -> None:
    agent, restarts = setup()
    waiting = Runner.run_sync(agent, "diagnose nyc", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    state = waiting.to_state()
    state.reject(interruption, rejection_message="not now")
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert answer.text == "not now" and restarts.ran == []
