"""Agent-implemented tools (``ImplementedByAgent``): what crosses the boundary between the outer
call and its inner run, each item with a scripted inner agent over the worked example's
``diagnose_site`` (``tooldesign/runtime/agents.py``)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from tooldesign.runtime import (
    AgentBudgetExceeded,
    AgentTask,
    ApprovalRequest,
    CallEvent,
    CallFinished,
    CallStarted,
    Recovery,
    RetryReason,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    Tracing,
    agents,
)

from examples.netops.diagnosis import diagnose_site
from gen.assistant.toolsets.diagnosis import executor as diagnosis
from gen.assistant.toolsets.diagnosis import specs
from gen.assistant.toolsets.diagnosis import types as t
from tests.support.netops import example_registration

pytestmark = pytest.mark.anyio

META = ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="outer-1")
CALL = ToolRequest("diagnose_site", {"site_id": "hq"}, META)


class Restarts:
    """restart_device's handler, counting what actually ran."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, str | None]] = []

    async def __call__(self, args: Any, meta: ToolCallMeta) -> Any:
        from gen.assistant.toolsets.devices import types as device_types

        self.ran.append((args.device_id, args.session_id))
        return device_types.RestartDeviceResult(accepted=True, job_id=f"job-{args.device_id}")


def runtime_with(
    agent: Callable[..., Any], restarts: Restarts | None = None, **options: Any
) -> Runtime:
    """The example's sites, devices and metrics, and diagnose_site implemented by ``agent``."""
    devices = example_registration("devices", restart_device=restarts or Restarts())
    return Runtime(
        [
            example_registration("sites"),
            devices,
            example_registration("metrics"),
            diagnosis.new_registration(handlers={"diagnose_site": agent}),
        ],
        **options,
    )


def watched(runtime: Runtime) -> tuple[list[CallEvent], Callable[[], None]]:
    events: list[CallEvent] = []
    subscription = runtime.subscribe(events.append)
    return events, subscription.close


# ── the contract at both ends ─────────────────────────────────────────────────────────────


async def test_the_inner_agents_result_is_the_outer_calls_typed_result() -> None:
    result = await runtime_with(diagnose_site).execute(CALL, approver=lambda r, m: True)
    assert result.ok
    assert isinstance(result.result, t.DiagnoseSiteResult)
    assert result.result.action == "restart"
    assert json.loads(result.for_model())["action"] == "restart"


async def test_an_output_outside_return_is_sent_back_and_corrected() -> None:
    corrections: list[str | None] = []

    async def sloppy(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        corrections.append(task.correction)
        if task.correction is None:
            return {"summary": "fine", "action": "reboot"}  # no findings, action not allowed
        return {"summary": "fine", "findings": [], "action": "none"}

    result = await runtime_with(sloppy).execute(CALL)
    assert result.ok and result.result.action == "none"
    assert corrections[0] is None
    assert corrections[1] is not None
    assert "findings" in corrections[1] and "action" in corrections[1]
    assert "JSON Schema" in corrections[1]
    # The correction reaches the inner model through the task's prompt.
    assert len(corrections) == 2


async def test_an_output_still_outside_return_is_answered_as_malformed() -> None:
    attempts = 0

    async def stubborn(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        nonlocal attempts
        attempts += 1
        return {"summary": 42}

    result = await runtime_with(stubborn).execute(CALL)
    assert not result.ok
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    assert attempts == 2  # the first output, and one correction (output_retries=1)


async def test_the_task_prompt_says_what_to_do_and_what_was_wrong() -> None:
    prompts: list[str] = []

    async def agent(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        prompts.append(task.prompt())
        if task.correction is None:
            return {}
        return t.DiagnoseSiteResult(summary="ok", findings=[], action="none")

    await runtime_with(agent).execute(
        ToolRequest("diagnose_site", {"site_id": "hq", "symptom": "slow"})
    )
    assert '"site_id":"hq"' in prompts[0] and '"symptom":"slow"' in prompts[0]
    assert "did not match" in prompts[1]


# ── events, spans, metadata ───────────────────────────────────────────────────────────────


async def test_inner_calls_are_events_nested_under_the_outer_call() -> None:
    runtime = runtime_with(diagnose_site)
    events, close = watched(runtime)
    await runtime.execute(CALL, approver=lambda r, m: True)
    close()
    started = [e for e in events if isinstance(e, CallStarted)]
    assert [e.name for e in started] == [
        "diagnose_site",
        "list_devices",
        "get_time_series",
        "get_time_series",
        "restart_device",
    ]
    outer, *inner = started
    assert outer.parent_tool_call_id is None
    assert {e.parent_tool_call_id for e in inner} == {"outer-1"}
    assert len({e.run_id for e in inner}) == 1 and inner[0].run_id != "run-1"
    finished = [e for e in events if isinstance(e, CallFinished)]
    assert len(finished) == len(started)
    assert finished[-1].name == "diagnose_site"  # the outer call ends last


async def test_inner_calls_spans_are_children_of_the_outer_calls_span(spans: Any) -> None:
    provider, exporter = spans
    runtime = runtime_with(diagnose_site, tracing=Tracing(tracer_provider=provider))
    await runtime.execute(CALL, approver=lambda r, m: True)
    recorded = exporter.get_finished_spans()
    outer = next(s for s in recorded if "diagnose_site" in s.name)
    inner = [s for s in recorded if s is not outer]
    assert len(inner) == 4
    assert {s.context.trace_id for s in recorded} == {outer.context.trace_id}
    assert {s.parent.span_id for s in inner} == {outer.context.span_id}


async def test_forwarded_values_come_from_the_outer_call_never_from_a_model() -> None:
    restarts = Restarts()
    seen: list[ToolCallMeta] = []

    async def agent(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        # The inner "model" tries to pick the session itself, and its own metadata names another.
        forged = ToolRequest(
            "restart_device",
            {"device_id": "dev-0a1b2c3d", "reason": "forged session", "session_id": "sess-mallory"},
            ToolCallMeta(session_id="sess-mallory", tool_call_id="inner-1"),
        )
        assert task.runtime is not None
        result = await task.runtime.execute(forged)
        assert result.ok
        seen.append(task.meta)
        return t.DiagnoseSiteResult(summary="ok", findings=[], action="restart")

    runtime = runtime_with(agent, restarts)
    await runtime.execute(CALL, approver=lambda r, m: True)
    assert restarts.ran == [("dev-0a1b2c3d", "sess-alice")]
    # Without a session on the outer call, the inner call has none either (not the forged one).
    restarts.ran.clear()
    result = await runtime.execute(
        ToolRequest("diagnose_site", {"site_id": "hq"}), approver=lambda r, m: True
    )
    assert not restarts.ran
    assert not result.ok


async def test_the_inner_run_may_use_only_the_toolsets_the_design_names() -> None:
    answers: list[ToolResult] = []

    async def agent(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        answers.append(await task.call("list_sites", {}))
        return t.DiagnoseSiteResult(summary="ok", findings=[], action="none")

    result = await runtime_with(agent).execute(CALL)
    assert result.ok
    refused = answers[0]
    assert not refused.ok
    assert refused.retry_hint is not None
    assert refused.retry_hint.reason is RetryReason.TOOL_UNAVAILABLE
    assert (
        "list_devices" in refused.for_model() and "list_sites" not in refused.retry_hint.valid_tools
    )


async def test_server_data_of_the_inner_run_reaches_observers_never_the_outer_model() -> None:
    async def agent(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        series = await task.call(
            "get_time_series", {"device_id": "dev-00000000", "metric": "latency"}
        )
        assert [item.kind for item in series.server_data] == [
            "atlas.time_series",
            "atlas.thresholds",
        ]
        return t.DiagnoseSiteResult(summary="ok", findings=[], action="none")

    runtime = runtime_with(agent)
    events, close = watched(runtime)
    meta = ToolCallMeta(tool_call_id="outer-2", server_data={"atlas.time_series": True})
    result = await runtime.execute(ToolRequest("diagnose_site", {"site_id": "hq"}, meta))
    close()
    assert result.ok and not result.server_data
    assert "atlas" not in result.for_model()
    inner = next(e for e in events if isinstance(e, CallFinished) and e.name == "get_time_series")
    assert [item.kind for item in inner.server_data] == [
        "atlas.time_series",
        "atlas.thresholds",
    ]


# ── approvals ─────────────────────────────────────────────────────────────────────────────


async def test_an_inner_approval_is_asked_of_the_outer_calls_approver() -> None:
    restarts = Restarts()
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        asked.append(request)
        return True

    result = await runtime_with(diagnose_site, restarts, approver=approver).execute(CALL)
    assert result.ok
    assert [r.tool for r in asked] == ["restart_device"]
    assert asked[0].session_id == "sess-alice"
    assert len(restarts.ran) == 1


async def test_an_inner_approval_waits_out_of_band_and_the_run_resumes_without_repeating() -> None:
    restarts = Restarts()
    steps: list[str] = []

    async def agent(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        steps.append("list")
        await task.call("list_devices", {"site_id": "hq", "status": "offline", "limit": 1})
        steps.append("restart")
        restarted = await task.call(
            "restart_device", {"device_id": "dev-0a1b2c3d", "reason": "stuck"}
        )
        steps.append("answer")
        action = "restart" if restarted.ok else "escalate"
        return t.DiagnoseSiteResult(summary="done", findings=[], action=action)

    runtime = runtime_with(agent, restarts)
    waiting = await runtime.execute(CALL)
    assert waiting.awaiting_approval and waiting.approval is not None
    assert waiting.approval.tool == "restart_device"
    assert waiting.telemetry.outcome == "awaiting_approval" and waiting.recovery is None
    assert steps == ["list", "restart"] and not restarts.ran
    # Asked again without a decision: the same question, nothing more runs.
    again = await runtime.execute(CALL)
    assert again.approval is not None and again.approval.id == waiting.approval.id
    assert await runtime.approval_for(CALL) == waiting.approval
    done = await runtime.execute(CALL, approvals=[waiting.approval.approve(by="alice")])
    assert done.ok and done.result.action == "restart"
    assert steps == ["list", "restart", "answer"]  # resumed, not started again
    assert restarts.ran == [("dev-0a1b2c3d", "sess-alice")]


async def test_a_waiting_run_is_resumed_only_by_its_own_sessions_call() -> None:
    restarts = Restarts()
    runtime = runtime_with(diagnose_site, restarts)
    waiting = await runtime.execute(CALL)
    assert waiting.approval is not None
    other = ToolRequest("diagnose_site", {"site_id": "hq"}, ToolCallMeta(session_id="sess-bob"))
    # Bob's identical call is another call: it starts its own run in his session (an approval
    # is of the exact inner call, so his decision lets his restart run), and Alice's run still
    # waits for hers.
    bobs = await runtime.execute(other, approvals=[waiting.approval.approve(by="bob")])
    assert bobs.ok
    assert restarts.ran == [(restarts.ran[0][0], "sess-bob")]
    assert await runtime.approval_for(CALL) == waiting.approval
    alices = await runtime.execute(CALL, approvals=[waiting.approval.approve(by="alice")])
    assert alices.ok and [s for _, s in restarts.ran] == ["sess-bob", "sess-alice"]


async def test_a_persons_time_on_an_inner_approval_is_not_the_outer_calls() -> None:
    def slow_person(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        time.sleep(0.5)  # longer than the outer call's Timeout
        return True

    restarts = Restarts()
    runtime = runtime_with(
        diagnose_site, restarts, interceptors=[Timeout(0.3)], approver=slow_person
    )
    result = await runtime.execute(CALL)
    assert result.ok, result.for_model()
    assert len(restarts.ran) == 1


async def test_a_denied_inner_approval_is_the_inner_agents_to_handle() -> None:
    restarts = Restarts()
    runtime = runtime_with(diagnose_site, restarts)
    waiting = await runtime.execute(CALL)
    assert waiting.approval is not None
    done = await runtime.execute(CALL, approvals=[waiting.approval.deny(by="alice")])
    assert done.ok and done.result.action == "escalate"
    assert not restarts.ran


# ── budgets and cancellation ──────────────────────────────────────────────────────────────


async def test_spending_the_tool_call_budget_stops_the_run_with_a_clear_answer() -> None:
    calls = 0

    async def loops(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        nonlocal calls
        while True:
            calls += 1
            await task.call("list_devices", {"site_id": "hq"})

    runtime = runtime_with(loops)
    events, close = watched(runtime)
    result = await runtime.execute(CALL)
    close()
    assert not result.ok
    assert "12 tool calls" in result.for_model()
    assert result.recovery is Recovery.REPLAN
    assert result.error is not None and result.error.details == {"tool calls": 12}
    assert result.telemetry.outcome == "agent_budget"
    finished = [e for e in events if isinstance(e, CallFinished) and e.name == "diagnose_site"]
    assert [e.outcome for e in finished] == ["agent_budget"]
    ran = [e for e in events if isinstance(e, CallStarted) and e.name == "list_devices"]
    assert len(ran) == 12  # past the budget nothing runs, and the run is stopped at once
    assert 13 <= calls <= 16


async def test_spending_the_turn_budget_stops_the_run() -> None:
    async def chatty(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        while True:
            task.turn(tokens=10)

    result = await runtime_with(chatty).execute(CALL)
    assert not result.ok and "8 model turns" in result.for_model()


def test_a_framework_reports_its_own_limit_as_budget_exceeded() -> None:
    exc = AgentBudgetExceeded("tokens", 1000)
    assert exc.budget == "tokens" and "1000 tokens" in str(exc)


async def test_the_inner_run_has_a_time_budget() -> None:
    contract = specs.DIAGNOSE_SITE_SPEC.agent
    assert contract is not None and contract.timeout == 60
    stopped = asyncio.Event()

    async def slow(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        try:
            await asyncio.sleep(30)
        finally:
            stopped.set()
        return None

    short = dataclasses.replace(contract, timeout=0.05)
    object.__setattr__(specs.DIAGNOSE_SITE_SPEC, "agent", short)
    try:
        result = await runtime_with(slow).execute(CALL)
    finally:
        object.__setattr__(specs.DIAGNOSE_SITE_SPEC, "agent", contract)
    assert not result.ok and "did not finish within 0.05 s" in result.for_model()
    await asyncio.wait_for(stopped.wait(), 1)


async def test_cancelling_the_outer_call_cancels_the_inner_run() -> None:
    started, stopped = asyncio.Event(), asyncio.Event()

    async def slow(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        started.set()
        try:
            await asyncio.sleep(30)
        finally:
            stopped.set()
        return None

    outer = asyncio.create_task(runtime_with(slow).execute(CALL))
    await asyncio.wait_for(started.wait(), 1)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    await asyncio.wait_for(stopped.wait(), 1)


async def test_an_inner_agents_failure_is_the_outer_calls_failure() -> None:
    async def broken(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        raise RuntimeError("the inner model is down")

    result = await runtime_with(broken).execute(CALL)
    assert not result.ok
    assert "internal error" in result.for_model()
    assert "the inner model is down" not in result.for_model()


# ── a waiting run belongs to its event loop ───────────────────────────────────────────────


class Unraisable:
    """What the interpreter could not raise (a coroutine ended by the collector in another
    context raises there), captured instead of printed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[str] = []
        monkeypatch.setattr(sys, "unraisablehook", self.hook)

    def hook(self, unraisable: Any) -> None:
        self.seen.append(f"{unraisable.exc_type.__name__}: {unraisable.exc_value}")


def waits_and_counts(
    steps: list[str],
) -> Callable[[AgentTask[t.DiagnoseSitePayload]], Any]:
    async def agent(task: AgentTask[t.DiagnoseSitePayload]) -> object:
        steps.append("start")
        try:
            restarted = await task.call(
                "restart_device", {"device_id": "dev-0a1b2c3d", "reason": "stuck"}
            )
        except asyncio.CancelledError:
            steps.append("cancelled")
            raise
        action = "restart" if restarted.ok else "escalate"
        return t.DiagnoseSiteResult(summary="done", findings=[], action=action)

    return agent


def in_thread(call: Callable[[], ToolResult]) -> ToolResult:
    """``call`` on a thread of its own (its own execute_sync loop, closed when it ends)."""
    results: list[ToolResult] = []
    thread = threading.Thread(target=lambda: results.append(call()))
    thread.start()
    thread.join()
    return results[0]


def test_a_waiting_run_is_cancelled_when_its_threads_loop_closes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unraisable = Unraisable(monkeypatch)
    steps: list[str] = []
    restarts = Restarts()
    runtime = runtime_with(waits_and_counts(steps), restarts)
    waiting = in_thread(lambda: runtime.execute_sync(CALL))
    assert waiting.awaiting_approval and waiting.approval is not None
    gc.collect()
    # The thread's loop closed: its waiting run was cancelled there, in its own context.
    assert steps == ["start", "cancelled"] and unraisable.seen == []
    decision = waiting.approval.approve(by="alice")
    done = in_thread(lambda: runtime.execute_sync(CALL, approvals=[decision]))
    assert done.ok and done.result.action == "restart"  # started again, the same inner call
    assert steps == ["start", "cancelled", "start"] and len(restarts.ran) == 1
    gc.collect()
    assert unraisable.seen == []


def test_a_waiting_run_taken_up_on_another_loop_is_cancelled_on_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unraisable = Unraisable(monkeypatch)
    steps: list[str] = []
    restarts = Restarts()
    runtime = runtime_with(waits_and_counts(steps), restarts)
    # This thread's loop stays open (idle) while another thread's call takes the run up.
    waiting = runtime.execute_sync(CALL)
    assert waiting.approval is not None
    decision = waiting.approval.approve(by="alice")
    done = in_thread(lambda: runtime.execute_sync(CALL, approvals=[decision]))
    assert done.ok and len(restarts.ran) == 1
    gc.collect()
    assert unraisable.seen == []
    runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"}, META))  # this loop runs
    assert steps == ["start", "start", "cancelled"]
    gc.collect()
    assert unraisable.seen == []


async def test_a_waiting_run_is_cancelled_when_its_approval_expires(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agents, "PARKED_SECONDS", 0.05)
    steps: list[str] = []
    runtime = runtime_with(waits_and_counts(steps))
    waiting = await runtime.execute(CALL)
    assert waiting.awaiting_approval and waiting.approval is not None
    await asyncio.sleep(0.2)
    assert steps == ["start", "cancelled"]
    assert await runtime.approval_for(CALL) is None
    again = await runtime.execute(CALL)  # asked again: its run starts again and waits
    assert again.approval is not None and again.approval.id == waiting.approval.id
