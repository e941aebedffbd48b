"""Control over what tools do, through the public API: approvals bound to exact calls, recovery
actions, progress and call events, OpenTelemetry spans, designed repairs.

The worked example declares ``Confirm`` on ``restart_device`` (every call) and on
``schedule_maintenance`` (windows over two hours), a repair on ``list_devices``' ``limit``, and
reports progress from ``check_reachability``. MCP serving is tested in ``test_mcp_control.py``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from tooldesign.contract.catalog import parse_catalog
from tooldesign.contract.conditions import ConditionError, parse_condition
from tooldesign.contract.confirm import ConfirmSpec, render_prompt
from tooldesign.runtime import (
    ApprovalDecided,
    ApprovalDecision,
    ApprovalRequest,
    ApprovalRequested,
    CallEvent,
    CallFinished,
    CallProgress,
    CallStarted,
    ProgressUpdate,
    Recovery,
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolFailure,
    ToolRequest,
    Tracing,
    pending_approvals,
    progress_to,
    report_progress,
)
from tooldesign.runtime.control.approvals import approval_id
from tooldesign.runtime.reasons import recovery_for

from examples.netops.agent import build_runtime
from examples.netops.services import DeviceService, Inventory, MetricsService, SiteService
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.sites import executor as sites
from tests.support import REPO
from tests.support.calls import ALICE, call
from tests.support.netops import Restarts, example_runtime

RESTART = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}
LONG_WINDOW = {
    "device_ids": ["dev-00000000"],
    "start": "2026-11-21T22:00:00Z",
    "duration_minutes": 180,
    "reason": "Firmware upgrade",
}


def devices_runtime(restarts: Restarts, **options: Any) -> Runtime:
    return example_runtime(
        "devices", "sites", device_handlers={"restart_device": restarts}, **options
    )


def run_python(script: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by a fresh interpreter in the repository (a process of its own: another
    agent process, or one whose OpenTelemetry globals this test may set)."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# ── 1. approvals ─────────────────────────────────────────────────────────────────────────


def test_a_call_that_needs_approval_waits_with_its_request_and_does_not_run() -> None:
    restarts = Restarts()
    result = call(devices_runtime(restarts), "restart_device", RESTART)
    assert result.awaiting_approval and not result.ok and restarts.ran == []
    request = result.approval
    assert request is not None
    assert (
        request.tool == "restart_device" and request.tool_id == "assistant.devices.restart_device"
    )
    assert request.arguments == RESTART  # exactly what would run; the injected session left out
    assert request.prompt == (
        "Restart dev-0a1b2c3d? It drops traffic for about a minute. Reason: stuck after update"
    )
    assert (request.session_id, request.run_id, request.tool_call_id) == (
        "sess-alice",
        "run-1",
        "call-1",
    )
    assert result.telemetry.outcome == "awaiting_approval" and result.recovery is None
    text = result.for_model()
    assert "needs a person's approval" in text and "Do not call it again" in text
    assert not text.startswith("Error")
    assert pending_approvals([result]) == [request]


def test_an_invalid_call_never_reaches_a_person() -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        asked.append(request)
        return True

    result = call(
        devices_runtime(Restarts(), approver=approver),
        "restart_device",
        {"device_id": "dev-0a1b2c3d"},
    )
    assert asked == [] and result.approval is None
    assert result.retry_hint is not None and result.retry_hint.missing_fields == ("reason",)
    assert result.recovery is Recovery.CORRECT_CALL


def test_an_approval_unlocks_exactly_that_call() -> None:
    restarts = Restarts()
    runtime = devices_runtime(restarts)
    pending = call(runtime, "restart_device", RESTART)
    assert pending.approval is not None
    granted = pending.approval.approve(by="alice@example.com")
    result = call(runtime, "restart_device", RESTART, approvals=[granted])
    assert result.ok, result.for_model()
    assert restarts.ran == ["dev-0a1b2c3d"]
    assert result.approval is not None and result.approval.id == pending.approval.id
    assert result.telemetry.approval == granted and granted.by == "alice@example.com"
    # Key order, defaults and JSON text or dict: the same call, the same approval; sent again
    # (the same call id), it is answered with its one run's result.
    reordered = json.dumps({"reason": "stuck after update", "device_id": "dev-0a1b2c3d"})
    again = call(runtime, "restart_device", reordered, approvals=[granted])
    assert again.ok and again.result_json == result.result_json
    assert again.telemetry.extra.get("replayed") is True
    # An edited argument is another call: it needs its own approval.
    edited = call(
        runtime, "restart_device", {**RESTART, "reason": "other reason"}, approvals=[granted]
    )
    assert edited.awaiting_approval and edited.approval is not None
    assert edited.approval.id != granted.id
    assert restarts.ran == ["dev-0a1b2c3d"]


def test_an_approval_unlocks_one_run_of_one_call() -> None:
    restarts = Restarts()
    runtime = devices_runtime(restarts)
    pending = call(runtime, "restart_device", RESTART)
    assert pending.approval is not None
    # restart_device is destructive: its approvals are spent by the call they let run.
    spent = pending.approval.approve(by="alice")
    assert call(runtime, "restart_device", RESTART, approvals=[spent]).ok
    other = ToolRequest(
        "restart_device",
        RESTART,
        ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="call-2"),
    )
    later = runtime.execute_sync(other, approvals=[spent])
    assert later.awaiting_approval and restarts.ran == ["dev-0a1b2c3d"]
    # A decision that says it may be used again unlocks an identical call again.
    reusable = pending.approval.approve(by="alice", once=False)
    assert runtime.execute_sync(other, approvals=[reusable]).ok
    assert restarts.ran == ["dev-0a1b2c3d", "dev-0a1b2c3d"]
    # ...and still each call runs once: the same call again is answered from its run.
    replayed = runtime.execute_sync(other, approvals=[reusable])
    assert replayed.ok and restarts.ran == ["dev-0a1b2c3d", "dev-0a1b2c3d"]


def test_an_approval_is_bound_to_the_contract_it_was_given_under() -> None:
    arguments = {"device_id": "dev-0a1b2c3d", "reason": "stuck"}
    tool = "assistant.devices.restart_device"
    assert approval_id("aaaaaaaaaaaa", tool, arguments) != approval_id(
        "bbbbbbbbbbbb", tool, arguments
    )
    assert approval_id("aaaaaaaaaaaa", tool, arguments) != approval_id(
        "aaaaaaaaaaaa", "assistant.devices.get_device", arguments
    )
    # The version is the toolset's catalog version, as tool_schemas.json states it.
    catalog = parse_catalog((REPO / "gen/assistant/toolsets/devices/tool_schemas.json").read_text())
    pending = call(devices_runtime(Restarts()), "restart_device", RESTART)
    assert pending.approval is not None and pending.approval.version == catalog.version


def test_a_denial_tells_the_model_the_designs_words_and_to_replan() -> None:
    restarts = Restarts()
    runtime = devices_runtime(restarts)
    pending = call(runtime, "restart_device", RESTART)
    assert pending.approval is not None
    denied = pending.approval.deny(by="bob", reason="not during business hours")
    result = call(runtime, "restart_device", RESTART, approvals=[denied])
    assert restarts.ran == [] and not result.ok and not result.awaiting_approval
    assert result.telemetry.outcome == "approval_denied"
    assert result.telemetry.approval == denied and result.recovery is Recovery.REPLAN
    assert result.for_model() == (
        "Error: A person declined this call, so it did not run. Do not make it again; tell the "
        'user, or reach the goal another way. They said: "not during business hours"\n'
        'Recovery: replan — do not repeat this call to "restart_device" now; take another step.'
    )


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_approver_on_the_runtime_decides_at_once(kind: str) -> None:
    loop_threads: list[bool] = []
    asked: list[tuple[ApprovalRequest, ToolCallMeta]] = []

    def sync_approver(request: ApprovalRequest, meta: ToolCallMeta) -> ApprovalDecision:
        loop_threads.append(threading.current_thread() is threading.main_thread())
        asked.append((request, meta))
        return request.approve(by="on-call engineer")

    async def async_approver(request: ApprovalRequest, meta: ToolCallMeta) -> ApprovalDecision:
        asked.append((request, meta))
        return request.approve(by="on-call engineer")

    restarts = Restarts()
    approver = sync_approver if kind == "sync" else async_approver
    result = call(devices_runtime(restarts, approver=approver), "restart_device", RESTART)
    assert result.ok and restarts.ran == ["dev-0a1b2c3d"]
    [(request, meta)] = asked
    assert request.arguments == RESTART and meta.session_id == "sess-alice"
    assert (
        result.telemetry.approval is not None and result.telemetry.approval.by == "on-call engineer"
    )
    assert loop_threads in ([], [False])  # a sync approver may wait: it runs in a worker thread


def test_an_approver_can_refuse_or_leave_the_decision_for_later() -> None:
    restarts = Restarts()
    refused = call(
        devices_runtime(restarts, approver=lambda r, m: False), "restart_device", RESTART
    )
    assert refused.telemetry.outcome == "approval_denied" and restarts.ran == []
    later = call(devices_runtime(restarts, approver=lambda r, m: None), "restart_device", RESTART)
    assert later.awaiting_approval

    def broken(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        raise RuntimeError("the approval service is down")

    assert call(
        devices_runtime(restarts, approver=broken), "restart_device", RESTART
    ).awaiting_approval
    assert restarts.ran == []


def test_a_condition_limits_approval_to_the_calls_it_selects() -> None:
    runtime = build_runtime()
    short = call(runtime, "schedule_maintenance", {**LONG_WINDOW, "duration_minutes": 30})
    assert short.ok and short.approval is None, short.for_model()
    long = call(runtime, "schedule_maintenance", LONG_WINDOW)
    assert long.awaiting_approval and long.approval is not None
    assert long.approval.prompt == (
        'Take ["dev-00000000"] out of service for 180 minutes from 2026-11-21T22:00:00Z?'
    )


def test_approval_for_names_the_approval_a_call_would_wait_on_without_running_it() -> None:
    restarts = Restarts()
    runtime = devices_runtime(restarts)

    def approval_for(name: str, payload: Any) -> ApprovalRequest | None:
        return asyncio.run(runtime.approval_for(ToolRequest(name, payload, ALICE)))

    asked = approval_for("restart_device", RESTART)
    assert asked is not None and restarts.ran == []
    # The very request the call waits on: its decision unlocks the call.
    pending = call(runtime, "restart_device", RESTART)
    assert pending.approval is not None and asked.id == pending.approval.id
    assert asked.prompt == pending.approval.prompt and asked.tool_call_id == "call-1"
    assert call(runtime, "restart_device", RESTART, approvals=[asked.approve(by="alice")]).ok
    # No approval: a tool without Confirm, an invalid call, an unknown tool, a call `when`
    # does not select.
    assert approval_for("get_device", {"device_id": "dev-0a1b2c3d"}) is None
    assert approval_for("restart_device", {"device_id": "dev-0a1b2c3d"}) is None
    assert approval_for("no_such_tool", {}) is None
    maintenance = build_runtime()
    short = {**LONG_WINDOW, "duration_minutes": 30}
    assert asyncio.run(maintenance.approval_for(ToolRequest("schedule_maintenance", short))) is None
    assert asyncio.run(maintenance.approval_for(ToolRequest("schedule_maintenance", LONG_WINDOW)))


@pytest.mark.slow
def test_a_pending_approval_survives_a_restart_of_the_agent_process() -> None:
    pending = call(devices_runtime(Restarts()), "restart_device", RESTART)
    assert pending.approval is not None
    stored = json.dumps(pending.approval.to_dict())  # a UI's database, a queue…
    script = f"""
import json
from tooldesign.runtime import ApprovalRequest, ToolCallMeta
from examples.netops.agent import build_runtime

request = ApprovalRequest.from_dict(json.loads({stored!r}))
decision = request.approve(by="alice")
result = build_runtime().execute_sync(
    request.tool_request(ToolCallMeta(session_id="sess-alice")), approvals=[decision]
)
print(json.dumps({{"ok": result.ok, "by": result.telemetry.approval.by, "text": result.for_model()}}))
"""
    done = run_python(script)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer == {
        "ok": True,
        "by": "alice",
        "text": '{"accepted":true,"job_id":"restart-dev-0a1b2c3d"}',
    }


def test_prompts_render_values_and_never_evaluate_the_template() -> None:
    assert render_prompt("Restart {device_id}? {{not a field}}", {"device_id": "dev-1"}) == (
        "Restart dev-1? {not a field}"
    )
    assert render_prompt(
        "Open {window.kind} ({ids})", {"window": {"kind": "x"}, "ids": [1, 2]}
    ) == ("Open x ([1, 2])")
    assert render_prompt("Hi {name}", {"name": "line\nbreak"}) == "Hi line break"
    assert render_prompt("Hi {missing}", {}) == "Hi (none)"


def test_conditions_are_read_safely_and_never_raise() -> None:
    condition = parse_condition("duration_minutes > 120 or notify_users == False")
    assert condition.holds({"duration_minutes": 121, "notify_users": True})
    assert condition.holds({"duration_minutes": 5, "notify_users": False})
    assert not condition.holds({"duration_minutes": "x"})  # never raises: a mismatch is false
    assert parse_condition('site in ["hq", "nyc"] and len(ids) >= 2').holds(
        {"site": "hq", "ids": [1, 2]}
    )
    for bad in ("__import__('os')", "a + 1 > 2", "x[0] == 1", "lambda: 1", "", "a.b()"):
        with pytest.raises(ConditionError):
            parse_condition(bad)


def test_the_catalog_lists_the_confirm_of_a_tool() -> None:
    catalog = parse_catalog((REPO / "gen/assistant/toolsets/devices/tool_schemas.json").read_text())
    restart, maintenance = catalog.tool("restart_device"), catalog.tool("schedule_maintenance")
    assert restart is not None and maintenance is not None
    assert restart.confirm == ConfirmSpec(
        "Restart {device_id}? It drops traffic for about a minute. Reason: {reason}"
    )
    assert maintenance.confirm is not None and maintenance.confirm.when == "duration_minutes > 120"
    listed = catalog.tool("list_devices")
    assert listed is not None and listed.confirm is None


# ── 2. recovery ──────────────────────────────────────────────────────────────────────────


def test_every_reason_has_a_recovery() -> None:
    assert {reason: recovery_for(reason) for reason in RetryReason} == {
        RetryReason.INVALID_ARGUMENTS: Recovery.CORRECT_CALL,
        RetryReason.MISSING_FIELDS: Recovery.CORRECT_CALL,
        RetryReason.TIMEOUT: Recovery.CORRECT_CALL,
        RetryReason.RESULT_TOO_LARGE: Recovery.CORRECT_CALL,  # ask for less
        RetryReason.MALFORMED_RESPONSE: Recovery.REPLAN,
        RetryReason.RATE_LIMITED: Recovery.REPLAN,
        RetryReason.TOOL_UNAVAILABLE: Recovery.REPLAN,
        RetryReason.OUTCOME_UNKNOWN: Recovery.FINISH,
    }


def test_failed_calls_carry_their_recovery_and_say_it_in_words() -> None:
    runtime = build_runtime()
    unknown = call(runtime, "reboot_everything", {})
    assert unknown.recovery is Recovery.REPLAN
    assert unknown.for_model().endswith(
        'Recovery: replan — do not repeat this call to "reboot_everything" now; take another step.'
    )
    invalid = call(runtime, "get_site", {"site_id": "x"})
    assert invalid.recovery is Recovery.CORRECT_CALL
    assert invalid.for_model().endswith(
        'Recovery: correct_call — fix the arguments, then call "get_site" again.'
    )
    assert call(runtime, "get_site", {"site_id": "hq"}).recovery is None  # ok: nothing to recover


def test_a_tool_failure_can_choose_its_recovery() -> None:
    def gone(args: Any, meta: ToolCallMeta) -> Any:
        raise ToolFailure("The device was decommissioned.", recovery=Recovery.FINISH)

    def refused(args: Any, meta: ToolCallMeta) -> Any:
        raise ToolFailure("Restarts are frozen this week.")

    for handler, expected in ((gone, Recovery.FINISH), (refused, Recovery.REPLAN)):
        runtime = Runtime(
            [
                devices.new_registration(
                    service=DeviceService(Inventory()), handlers={"restart_device": handler}
                )
            ],
            approver=lambda r, m: True,
        )
        result = call(runtime, "restart_device", RESTART)
        assert result.recovery is expected
        assert result.for_model().splitlines()[-1].startswith(f"Recovery: {expected}")


# ── 3. progress and call events ──────────────────────────────────────────────────────────


def test_progress_is_reported_to_whoever_listens_and_is_a_no_op_otherwise() -> None:
    report_progress(0.5, "nobody listens")  # no error, no effect
    updates: list[ProgressUpdate] = []
    with progress_to(updates.append):
        MetricsService(Inventory()).check_reachability("core.hq")  # a bound method
        ToolCallMeta().progress(400, "copied 400 of 1000", total=1000)  # a handler
        report_progress(float("nan"))  # ignored: not a number
    assert [u.progress for u in updates] == [1.0, 2.0, 3.0, 4.0, 5.0, 400.0]
    assert updates[0] == ProgressUpdate(1.0, 5.0, "probe 1 of 5 sent to core.hq")
    assert updates[-1].fraction == 0.4


class Recorder:
    def __init__(self) -> None:
        self.events: list[CallEvent] = []
        self.done = threading.Event()

    def __call__(self, event: CallEvent) -> None:
        self.events.append(event)
        if isinstance(event, CallFinished):
            self.done.set()


def test_subscribers_see_a_calls_events_in_order() -> None:
    runtime = Runtime([metrics.new_registration(service=MetricsService(Inventory()))])
    recorder = Recorder()
    subscription = runtime.subscribe(recorder)
    result = call(runtime, "check_reachability", {"value": "core.hq"})
    assert result.ok
    subscription.close()
    kinds = [type(e).__name__ for e in recorder.events]
    assert kinds == ["CallStarted"] + ["CallProgress"] * 5 + ["CallFinished"]
    assert len({e.call for e in recorder.events}) == 1
    started, *progress, finished = recorder.events
    assert (
        isinstance(started, CallStarted) and started.tool == "assistant.metrics.check_reachability"
    )
    assert started.tool_call_id == "call-1" and started.session_id == "sess-alice"
    assert [p.progress for p in progress if isinstance(p, CallProgress)] == [1, 2, 3, 4, 5]
    assert isinstance(finished, CallFinished)
    assert finished.outcome == "ok" and finished.ok and finished.duration_ms > 0


def test_subscribers_see_approvals_requested_and_decided() -> None:
    runtime = devices_runtime(Restarts())
    recorder = Recorder()
    subscription = runtime.subscribe(recorder)
    pending = call(runtime, "restart_device", RESTART)
    assert pending.approval is not None
    decision = pending.approval.approve(by="alice")
    call(runtime, "restart_device", RESTART, approvals=[decision])
    subscription.close()
    requested = [e for e in recorder.events if isinstance(e, ApprovalRequested)]
    decided = [e for e in recorder.events if isinstance(e, ApprovalDecided)]
    finished = [e for e in recorder.events if isinstance(e, CallFinished)]
    assert [e.request for e in requested] == [pending.approval]
    assert [(e.decision.by, e.decision.granted) for e in decided] == [("alice", True)]
    assert [e.outcome for e in finished] == ["awaiting_approval", "ok"]


def test_a_subscriber_that_raises_or_blocks_never_slows_or_breaks_a_call() -> None:
    runtime = Runtime([sites.new_registration(service=SiteService(Inventory()))])
    release = threading.Event()

    def raises(event: CallEvent) -> None:
        raise RuntimeError("a broken dashboard")

    def blocks(event: CallEvent) -> None:
        release.wait(30)

    broken = runtime.subscribe(raises)
    stuck = runtime.subscribe(blocks, max_queued=4)
    recorder = Recorder()
    healthy = runtime.subscribe(recorder)
    started = time.perf_counter()
    results = [call(runtime, "get_site", {"site_id": "hq"}) for _ in range(20)]
    elapsed = time.perf_counter() - started
    assert all(r.ok for r in results) and elapsed < 5
    release.set()
    stuck.close()
    broken.close()
    healthy.close()
    # The blocked subscriber kept the newest events and counted the ones it lost.
    assert stuck.dropped > 0 and stuck.delivered + stuck.dropped == 40
    assert len(recorder.events) == 40  # the others got everything
    assert broken.delivered == 40


def test_an_async_subscriber_is_awaited() -> None:
    runtime = Runtime([sites.new_registration(service=SiteService(Inventory()))])
    seen: list[str] = []

    async def subscriber(event: CallEvent) -> None:
        await asyncio.sleep(0)
        seen.append(type(event).__name__)

    subscription = runtime.subscribe(subscriber)
    call(runtime, "get_site", {"site_id": "hq"})
    subscription.close()
    assert seen == ["CallStarted", "CallFinished"]


# ── 4. OpenTelemetry ─────────────────────────────────────────────────────────────────────


def test_each_call_is_one_execute_tool_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    runtime = devices_runtime(Restarts(), tracing=Tracing(tracer_provider=provider))
    call(runtime, "get_site", {"site_id": "hq"})
    call(runtime, "get_site", {"site_id": "x"})
    call(runtime, "restart_device", RESTART)
    ok, invalid, pending = exporter.get_finished_spans()
    assert ok.name == "execute_tool get_site" and ok.kind is trace.SpanKind.INTERNAL
    assert dict(ok.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_site",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": "Get one site by id",
        "gen_ai.tool.call.id": "call-1",
        "tooldesign.tool.id": "assistant.sites.get_site",
        "tooldesign.outcome": "ok",
    }
    assert ok.status.status_code is StatusCode.UNSET
    assert invalid.status.status_code is StatusCode.ERROR
    attributes = dict(invalid.attributes or {})
    assert attributes["error.type"] == "invalid_arguments"
    assert attributes["tooldesign.retry.reason"] == "invalid_arguments"
    assert attributes["tooldesign.recovery"] == "correct_call"
    assert "gen_ai.tool.call.arguments" not in attributes  # never, unless asked
    assert dict(pending.attributes or {})["tooldesign.approval.decision"] == "awaiting"
    assert pending.status.status_code is StatusCode.UNSET  # waiting is no failure


def test_arguments_and_results_are_recorded_only_when_asked_and_never_injected_values(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    tracing = Tracing(tracer_provider=provider, record_arguments=True, record_results=True)
    runtime = Runtime(
        [
            devices.new_registration(
                service=DeviceService(Inventory()), handlers={"restart_device": Restarts()}
            )
        ],
        tracing=tracing,
    )
    call(runtime, "list_devices", {"site_id": "hq", "limit": 1, "session_id": "forged"})
    [span] = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert json.loads(str(attributes["gen_ai.tool.call.arguments"])) == {
        "site_id": "hq",
        "limit": 1,
    }
    assert "sess-alice" not in str(attributes) and "forged" not in str(attributes)
    assert str(attributes["gen_ai.tool.call.result"]).startswith('{"devices":')


def test_a_call_continues_the_trace_it_carries_or_the_current_span(
    spans: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = spans
    runtime = Runtime(
        [sites.new_registration(service=SiteService(Inventory()))],
        tracing=Tracing(tracer_provider=provider),
    )
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    meta = ToolCallMeta(trace={"traceparent": parent})  # as a worker receives a call
    runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"}, meta))
    with provider.get_tracer("app").start_as_current_span("agent turn") as turn:
        runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"}, meta))
    remote, nested, _ = exporter.get_finished_spans()
    assert format(remote.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert remote.parent is not None and format(remote.parent.span_id, "016x") == "b7ad6b7169203331"
    assert nested.parent is not None and nested.parent.span_id == turn.get_span_context().span_id


@pytest.mark.slow
def test_without_a_tracing_sdk_there_is_no_span_and_no_import() -> None:
    script = """
import sys
import tooldesign.runtime
assert not [m for m in sys.modules if m.startswith("opentelemetry")], "imported at import time"
from tooldesign.runtime import ToolRequest
from examples.netops.agent import build_runtime
runtime = build_runtime()
assert runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"})).ok
from opentelemetry import trace
assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
assert runtime._tracer._tracer is None  # nothing would record: no tracer, no span

class NoOtel:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("opentelemetry"):
            raise ImportError(name)

for name in [m for m in sys.modules if m.startswith("opentelemetry")]:
    del sys.modules[name]
sys.meta_path.insert(0, NoOtel())
import tooldesign.runtime.control.otel as otel
otel._api, otel._absent = None, False
assert build_runtime().execute_sync(ToolRequest("get_site", {"site_id": "hq"})).ok
assert otel._absent
print("ok")
"""
    done = run_python(script)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.slow
def test_a_global_provider_set_after_the_first_calls_is_used() -> None:
    script = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tooldesign.runtime import ToolRequest
from examples.netops.agent import build_runtime

runtime = build_runtime()
assert runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"})).ok  # no SDK yet
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
assert runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"})).ok
print([span.name for span in exporter.get_finished_spans()])
"""
    done = run_python(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['execute_tool get_site']"


# ── 5. designed repairs ──────────────────────────────────────────────────────────────────


def test_a_declared_repair_runs_the_call_and_says_what_was_assumed() -> None:
    runtime = build_runtime()
    result = call(runtime, "list_devices", {"site_id": "hq", "limit": "2"})
    assert result.ok and result.bounds is not None and result.bounds.returned == 2
    [repair] = result.telemetry.repairs
    assert (repair.field, repair.kind) == ("limit", "numeric_string")
    assert result.for_model().splitlines()[-1] == 'Assumed: limit "2" read as 2.'
    # The schema the model is shown does not change.
    schema = runtime.schema("list_devices")
    assert schema is not None and schema["properties"]["limit"]["type"] == "integer"


def test_without_a_declared_repair_decoding_stays_strict() -> None:
    result = call(build_runtime(), "get_topology", {"site_id": "hq", "depth": "2"})
    assert not result.ok and result.telemetry.repairs == ()
    assert (
        result.retry_hint is not None and result.retry_hint.reason is RetryReason.INVALID_ARGUMENTS
    )


def test_a_repair_is_never_a_guess() -> None:
    # "2.5" is no integer, "lots" no number: the model hears what it sent, unrepaired.
    for limit in ("2.5", "lots", ""):
        result = call(build_runtime(), "list_devices", {"site_id": "hq", "limit": limit})
        assert not result.ok and result.telemetry.repairs == ()
        assert f'got string "{limit}"' in result.for_model()


REPAIRS_DESIGN = """
from tooldesign.dsl import *

with Service("shop", "A shop"):
    with Toolset("orders", "Orders"):
        Repairs("numeric_string", "boolean_string", "json_string", "single_value", "enum_case")
        with Tool("place", "Place an order"):
            with Args():
                Attribute("quantity", Int, "How many")
                Attribute("price", Float, "Unit price")
                Attribute("gift", Boolean, "Wrap it")
                Attribute("tags", ArrayOf(String), "Tags")
                Attribute("status", String, "Status", enum=["new", "held"])
                Attribute("sizes", ArrayOf(Int), "Sizes")
                with Attribute("address", Object, "Where to"):
                    Attribute("city", String, "City")
                    Attribute("floor", Int, "Floor")
                Attribute("strict", Int, "No repair here", repair=[])
                Required("quantity")
            with Return():
                Attribute("order", MapOf(String, Any), "What was decoded")
                Required("order")
"""


def test_each_kind_of_repair_from_a_toolset_default(gen_design: Any) -> None:
    generated = gen_design(REPAIRS_DESIGN)
    executor = generated.module("shop.toolsets.orders.executor")

    def place(args: Any, meta: ToolCallMeta) -> Any:
        return {"order": args.model_dump(mode="json", exclude_none=True)}

    runtime = Runtime([executor.new_registration(handlers={"place": place})])
    sent = {
        "quantity": "3",
        "price": "2.5",
        "gift": "TRUE",
        "tags": "red",
        "status": "Held",
        "sizes": "[1, 2]",
        "address": '{"city": "Oslo", "floor": "4"}',
    }
    result = call(runtime, "place", sent)
    assert result.ok, result.for_model()
    assert result.result.order == {
        "quantity": 3,
        "price": 2.5,
        "gift": True,
        "tags": ["red"],
        "status": "held",
        "sizes": [1, 2],
        "address": {"city": "Oslo", "floor": 4},
    }
    assert {(r.field, r.kind) for r in result.telemetry.repairs} == {
        ("quantity", "numeric_string"),
        ("price", "numeric_string"),
        ("gift", "boolean_string"),
        ("tags", "single_value"),
        ("status", "enum_case"),
        ("sizes", "json_string"),
        ("address", "json_string"),
        ("address.floor", "numeric_string"),
    }
    strict = call(runtime, "place", {"quantity": 1, "strict": "5"})
    assert not strict.ok and strict.telemetry.repairs == ()
