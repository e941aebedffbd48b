"""run_code in an OpenAI Agents SDK agent: an approval inside the code is the SDK's own
interruption (``needs_approval``, ``result.interruptions``, ``state.approve``/``reject``); the
approved run resumes from its pause and runs exactly that call once.

A real ``Runner`` with the SDK's ``ScriptedModel``; starts pydantic-monty's worker processes:
slow."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents import Agent, Runner
from agents.items import ToolApprovalItem
from tooldesign.builtin.code_mode import TOOL_ID, code_mode_registration
from tooldesign.runtime import (
    ApprovalDecided,
    ApprovalRequest,
    CallEvent,
    CallFinished,
    Runtime,
    ToolResult,
)
from tooldesign.runtime.codemode import CodeMode
from tooldesign.runtime.codemode.policy import RUN_CODE
from tooldesign.runtime.integrations.openai_agents import tooldesign_tools, waiting_approval

from tests.runtime.integrations.test_openai_agents import OFFLINE, answers_in, scripted
from tests.support.frameworks import SESSION, session_meta
from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.slow

CODE = """
online = list_devices(site_id="hq", status="online")["devices"]
r = restart_device(device_id=online[0]["id"], reason="restart from code")
{"restarted": online[0]["id"], "accepted": r["accepted"]}
"""

READS = """
online = list_devices(site_id="hq", status="online")["devices"]
len(online)
"""


def setup(
    code: str, approvers: dict[str, str] | None = None
) -> tuple[Runtime, Agent[str], Restarts, Recorded]:
    restarts = Restarts()
    runtime = example_runtime(device_handlers={"restart_device": restarts})
    runtime.register(code_mode_registration(CodeMode(runtime)))
    events = Recorded(runtime)
    tools = tooldesign_tools(
        runtime,
        meta=lambda ctx: session_meta(ctx.context),
        approved_by=(lambda ctx, _: (approvers or {}).get(ctx.tool_call_id)),
    )
    model = scripted([[("run_code", {"code": code}, "c1")]])
    return runtime, Agent[str](name="netops", model=model, tools=tools), restarts, events


class Recorded(list[CallEvent]):
    """A runtime's events as its observers hear them: on a thread of their own, so what is
    read of them is read after :meth:`settle` (between runs, no call in flight)."""

    def __init__(self, runtime: Runtime) -> None:
        super().__init__()
        self.runtime = runtime
        self.subscription = runtime.subscribe(self.append)

    def settle(self) -> Recorded:
        self.subscription.close()  # delivers what is queued first
        self.subscription = self.runtime.subscribe(self.append)
        return self


def inner_calls(events: Recorded, tool: str) -> list[CallFinished]:
    return [e for e in events.settle() if isinstance(e, CallFinished) and e.tool.endswith(tool)]


def test_the_builtin_run_code_is_the_one_whose_approvals_need_its_code_run() -> None:
    assert TOOL_ID == RUN_CODE


def test_an_approval_inside_code_interrupts_the_run_and_resumes_the_code() -> None:
    approvers: dict[str, str] = {}
    _, agent, restarts, events = setup(CODE, approvers)
    waiting = Runner.run_sync(agent, "restart the first at hq", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    assert isinstance(interruption, ToolApprovalItem) and interruption.tool_name == "run_code"
    # What to show the person: the call inside the code, as a direct call would ask.
    request = waiting_approval(interruption)
    assert isinstance(request, ApprovalRequest) and request.tool == "restart_device"
    assert request.prompt.startswith(f"Restart {request.arguments['device_id']}?")
    assert not answers_in(waiting.new_items) and restarts.ran == []

    state = waiting.to_state()
    approvers[str(interruption.call_id)] = "alice"
    state.approve(interruption)
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert isinstance(answer.result, ToolResult) and answer.result.ok, answer.text
    assert json.loads(answer.text)["value"]["accepted"] is True
    assert restarts.ran == [request.arguments["device_id"]]
    # The code resumed from its pause: the list was not fetched again.
    assert len(inner_calls(events, "list_devices")) == 1
    (decided,) = [e for e in events.settle() if isinstance(e, ApprovalDecided)]
    assert decided.request.id == request.id and decided.decision.by == "alice"


def test_a_rejected_run_never_restarts() -> None:
    _, agent, restarts, _ = setup(CODE)
    waiting = Runner.run_sync(agent, "restart it", context=SESSION, run_config=OFFLINE)
    (interruption,) = waiting.interruptions
    state = waiting.to_state()
    state.reject(interruption, rejection_message="not now")
    done = Runner.run_sync(agent, state, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert answer.text == "not now" and restarts.ran == []


def test_code_that_needs_no_approval_runs_once_and_never_interrupts() -> None:
    _, agent, _, events = setup(READS)
    done: Any = Runner.run_sync(agent, "how many?", context=SESSION, run_config=OFFLINE)
    assert not done.interruptions
    (answer,) = answers_in(done.new_items).values()
    assert answer.result is not None and answer.result.ok
    assert json.loads(answer.text)["value"] > 0
    assert len(inner_calls(events, "list_devices")) == 1
    assert len(inner_calls(events, TOOL_ID)) == 1


def test_an_approval_kept_as_a_serialized_run_state_resumes_the_code() -> None:
    """The application keeps the run's state as a string while the person decides (another
    request of its server), then approves on the restored state."""
    from agents import RunContextWrapper, RunState

    _, agent, restarts, events = setup(CODE)
    waiting = Runner.run_sync(agent, "restart it", context=SESSION, run_config=OFFLINE)
    kept = waiting.to_state().to_string()

    restored = asyncio.run(
        RunState.from_string(agent, kept, context_override=RunContextWrapper(SESSION))
    )
    (interruption,) = restored.get_interruptions()
    request = waiting_approval(interruption)
    assert request is not None and request.tool == "restart_device"
    restored.approve(interruption)
    done = Runner.run_sync(agent, restored, context=SESSION, run_config=OFFLINE)
    (answer,) = answers_in(done.new_items).values()
    assert json.loads(answer.text)["value"]["accepted"] is True
    assert restarts.ran == [request.arguments["device_id"]]
    assert len(inner_calls(events, "list_devices")) == 1


def test_two_sessions_whose_models_number_calls_alike_each_approve_their_own_run() -> None:
    """Alice's and Bob's runs share the tools; their models both call run_code as "c1" with
    the same code, and both pause on an equal restart. Each person is shown their own run's
    call, each approval resumes its own paused code, and nothing runs twice."""
    from agents import Agent

    from tests.runtime.integrations.test_openai_agents import scripted

    _, alice_agent, restarts, events = setup(CODE)
    bob_agent = Agent[str](
        name="netops",
        model=scripted([[("run_code", {"code": CODE}, "c1")]]),
        tools=alice_agent.tools,
    )
    runs = {
        "sess-alice": (
            alice_agent,
            Runner.run_sync(alice_agent, "restart", context="sess-alice", run_config=OFFLINE),
        ),
        "sess-bob": (
            bob_agent,
            Runner.run_sync(bob_agent, "restart", context="sess-bob", run_config=OFFLINE),
        ),
    }
    assert len(inner_calls(events, "list_devices")) == 2  # each check ran its own code
    for session, (agent, waiting) in reversed(runs.items()):  # Bob decides first
        (interruption,) = waiting.interruptions
        assert waiting_approval(interruption) is None  # two runs wait on this id and code
        request = waiting_approval(interruption, session_id=session)
        assert request is not None and request.session_id == session
        state = waiting.to_state()
        state.approve(interruption)
        done = Runner.run_sync(agent, state, context=session, run_config=OFFLINE)
        (answer,) = answers_in(done.new_items).values()
        assert json.loads(answer.text)["value"]["accepted"] is True, answer.text
    # Each paused code resumed from its pause: one list and one restart per session.
    assert len(inner_calls(events, "list_devices")) == 2
    assert len(restarts.ran) == 2
    decided = [e.request.session_id for e in events.settle() if isinstance(e, ApprovalDecided)]
    assert decided == ["sess-bob", "sess-alice"]
