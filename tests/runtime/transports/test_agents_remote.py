"""An agent-implemented tool on a Redis worker (a real server): the inner agent runs on the
worker, its approvals come back as awaiting-approval answers, the decision travels with the
call presented again and resumes the waiting run, and a run whose worker restarted meanwhile
starts again without running again what it did (tooldesign/runtime/transports/redis_agents.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tooldesign.runtime import (
    AgentTask,
    CallEvent,
    CallStarted,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisTransport
from tooldesign.runtime.transports.wire import CallMessage

from examples.netops.diagnosis import diagnose_site
from gen.assistant.toolsets import diagnosis
from gen.assistant.toolsets.diagnosis import executor
from gen.assistant.toolsets.diagnosis import types as t
from tests.support.netops import example_registration
from tests.support.redis import RedisServer, running_worker

pytestmark = pytest.mark.slow  # a Redis server

META = ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="outer-1")
CALL = ToolRequest("diagnose_site", {"site_id": "nyc"}, META)


class Restarts:
    """restart_device's handler on the workers, counting what actually ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    async def __call__(self, args: Any, meta: ToolCallMeta) -> Any:
        from gen.assistant.toolsets.devices import types as device_types

        self.ran.append(args.device_id)
        return device_types.RestartDeviceResult(accepted=True, job_id=f"job-{args.device_id}")


def worker_runtime(agent: Any, restarts: Restarts) -> Runtime:
    """A worker's runtime: diagnose_site implemented by ``agent``, over the example's toolsets
    (no approver: an approval its inner run needs is the agent's to get)."""
    return Runtime(
        [
            example_registration("sites"),
            example_registration("devices", restart_device=restarts),
            example_registration("metrics"),
            executor.new_registration(handlers={"diagnose_site": agent}),
        ]
    )


async def restarts_two(task: AgentTask[t.DiagnoseSitePayload]) -> object:
    """An inner agent with two side effects, each needing a person's approval."""
    for device in ("dev-0000000a", "dev-0000000b"):
        restarted = await task.call("restart_device", {"device_id": device, "reason": "stuck"})
        assert restarted.ok, restarted.for_model()
    return t.DiagnoseSiteResult(summary="restarted two", findings=[], action="restart")


def test_an_agent_implemented_tool_runs_on_a_worker_and_its_approval_travels_back(
    redis_server: RedisServer, prefix: str
) -> None:
    restarts = Restarts()
    served = worker_runtime(diagnose_site, restarts)
    events: list[CallEvent] = []
    served.subscribe(events.append)

    async def main() -> tuple[ToolResult, ToolResult, ToolResult]:
        async with running_worker(served, redis_server.url, prefix, toolsets=["diagnosis"]):
            transport = RedisTransport(redis_server.url, prefix=prefix)
            agent = Runtime([remote_registration(diagnosis, transport=transport)])
            try:
                waiting = await agent.execute(CALL)
                assert waiting.awaiting_approval and waiting.approval is not None
                assert not restarts.ran
                asked_again = await agent.execute(CALL)
                decision = waiting.approval.approve(by="operator alice")
                done = await agent.execute(CALL, approvals=[decision])
                again = await agent.execute(CALL, approvals=[decision])
            finally:
                await transport.close()
            assert asked_again.approval == waiting.approval
            return waiting, done, again

    waiting, done, again = asyncio.run(main())
    assert waiting.approval is not None and waiting.approval.tool == "restart_device"
    assert waiting.telemetry.outcome == "awaiting_approval"
    assert done.ok and done.result.action == "restart", done.for_model()
    assert again.ok and again.for_model() == done.for_model()
    assert len(restarts.ran) == 1  # resumed on the worker, and run once
    inner = [e for e in events if isinstance(e, CallStarted) and e.parent_tool_call_id]
    assert {e.parent_tool_call_id for e in inner} == {"outer-1"}
    assert "restart_device" in [e.name for e in inner]


def test_a_waiting_run_survives_a_restart_of_its_worker(
    redis_server: RedisServer, prefix: str
) -> None:
    restarts = Restarts()

    async def main() -> ToolResult:
        transport = RedisTransport(redis_server.url, prefix=prefix)
        agent = Runtime([remote_registration(diagnosis, transport=transport)])
        try:
            first = worker_runtime(restarts_two, restarts)
            async with running_worker(first, redis_server.url, prefix, toolsets=["diagnosis"]):
                waiting = await agent.execute(CALL)
                assert waiting.approval is not None
                first_decision = waiting.approval.approve(by="alice")
                second = await agent.execute(CALL, approvals=[first_decision])
                assert second.approval is not None and second.awaiting_approval
                assert restarts.ran == ["dev-0000000a"]
            # The worker restarted (a new process would hold nothing either): its waiting run
            # is gone. The call presented with both decisions starts the run again on the new
            # worker, whose first restart is answered from the journal, not run again.
            again = worker_runtime(restarts_two, restarts)
            async with running_worker(again, redis_server.url, prefix, toolsets=["diagnosis"]):
                decisions = [first_decision, second.approval.approve(by="alice")]
                return await agent.execute(CALL, approvals=decisions)
        finally:
            await transport.close()

    done = asyncio.run(main())
    assert done.ok, done.for_model()
    assert restarts.ran == ["dev-0000000a", "dev-0000000b"]


def test_the_decisions_for_an_inner_run_travel_in_the_call_message() -> None:
    from tooldesign.runtime import ApprovalDecision

    decision = ApprovalDecision("abc", True, by="alice")
    message = CallMessage(
        call_id="c",
        tool="assistant.diagnosis.diagnose_site",
        toolset="assistant.diagnosis",
        version="v",
        payload="{}",
        meta=META,
        decisions=(decision,),
    )
    assert CallMessage.from_json(message.to_json()).decisions == (decision,)
