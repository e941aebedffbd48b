"""Where the call pipeline's features meet, the order it decides holds: interceptors before the
approval (what a person approves is exactly what runs), every call observable by interceptors
(a call waiting for approval included), a person's time not counted against a ``Timeout``, and
pending approvals never holding the threads that run tools."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from tooldesign.runtime import (
    ApprovalDecision,
    ApprovalRequest,
    CallNext,
    LogCalls,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)
from tooldesign.runtime.pipeline import __doc__ as PIPELINE_DOC
from tooldesign.runtime.request import entry_meta, fresh_call_id

from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import transforms as device_transforms
from tests.support import REPO
from tests.support.netops import Restarts, example_runtime

META = ToolCallMeta(session_id="s-1", run_id="run-1", tool_call_id="call-1")
SENT = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}
REWRITTEN = {"device_id": "dev-99999999", "reason": "stuck after update"}


async def rewrite_device(
    request: ToolRequest, meta: ToolCallMeta, call_next: CallNext
) -> ToolResult:
    """An interceptor that changes which device is restarted."""
    if request.name.endswith("restart_device"):
        request = ToolRequest(request.name, REWRITTEN, request.meta)
    return await call_next(request, meta)


def runtime(restarts: Restarts, **options: Any) -> Runtime:
    return example_runtime("devices", device_handlers={"restart_device": restarts}, **options)


def test_an_approval_of_the_call_as_sent_does_not_run_what_an_interceptor_rewrote() -> None:
    restarts = Restarts()
    rt = runtime(restarts, interceptors=[rewrite_device])
    sent = rt.execute_sync(ToolRequest("restart_device", SENT, META))
    assert sent.awaiting_approval and sent.approval is not None
    # What a person is asked about is what would run: the rewritten device.
    assert sent.approval.arguments == REWRITTEN
    # A decision on the call as the model sent it unlocks nothing else.
    as_sent = ApprovalRequest(
        id="0" * 32,
        tool="restart_device",
        tool_id=sent.approval.tool_id,
        prompt="",
        arguments=SENT,
        version="",
    )
    forged = ApprovalDecision(as_sent.id, True, by="alice")
    again = rt.execute_sync(ToolRequest("restart_device", SENT, META), approvals=[forged])
    assert again.awaiting_approval and restarts.ran == []
    # The decision on what runs, runs it, once.
    approved = rt.execute_sync(
        ToolRequest("restart_device", SENT, META), approvals=[sent.approval.approve(by="alice")]
    )
    assert approved.ok and restarts.ran == ["dev-99999999"]
    assert approved.telemetry.approval is not None and approved.telemetry.approval.by == "alice"


def test_an_approver_is_asked_about_the_arguments_an_interceptor_passed_on() -> None:
    asked: list[dict[str, Any]] = []

    def approver(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        asked.append(dict(request.arguments))
        return True

    restarts = Restarts()
    rt = runtime(restarts, interceptors=[rewrite_device], approver=approver)
    result = rt.execute_sync(ToolRequest("restart_device", SENT, META))
    assert result.ok and asked == [REWRITTEN] and restarts.ran == ["dev-99999999"]


def test_log_calls_logs_a_call_that_waits_for_approval(caplog: pytest.LogCaptureFixture) -> None:
    restarts = Restarts()
    rt = runtime(restarts, interceptors=[LogCalls()])
    with caplog.at_level(logging.INFO, logger="tooldesign.calls"):
        result = rt.execute_sync(ToolRequest("restart_device", SENT, META))
    assert result.awaiting_approval
    logged = [r.tooldesign for r in caplog.records if hasattr(r, "tooldesign")]
    assert [(f["tool"], f["outcome"]) for f in logged] == [
        ("assistant.devices.restart_device", "awaiting_approval")
    ]


def test_a_person_s_time_does_not_count_against_a_timeout() -> None:
    async def slow_person(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        await asyncio.sleep(0.6)  # longer than the timeout
        return True

    restarts = Restarts()
    rt = runtime(restarts, interceptors=[Timeout(0.3)], approver=slow_person)
    result = rt.execute_sync(ToolRequest("restart_device", SENT, META))
    assert result.ok, result.for_model()
    assert restarts.ran == ["dev-0a1b2c3d"]


def test_a_timeout_still_bounds_the_tool_after_its_approval() -> None:
    class SlowRestarts(Restarts):
        async def __call__(self, args: Any, meta: ToolCallMeta) -> Any:
            await asyncio.sleep(5)
            return await super().__call__(args, meta)

    async def quick_person(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        await asyncio.sleep(0.2)
        return True

    rt = runtime(SlowRestarts(), interceptors=[Timeout(0.5)], approver=quick_person)
    started = time.monotonic()
    result = rt.execute_sync(ToolRequest("restart_device", SENT, META))
    assert result.retry_hint is not None and str(result.retry_hint.reason) == "timeout"
    # The deadline went on once decided: the Timeout answered, long before the tool's 5 s.
    assert time.monotonic() - started < 4


def test_a_person_waiting_on_a_sync_approver_holds_no_tool_thread() -> None:
    release = threading.Event()

    def patient_person(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        release.wait(10)
        return True

    inventory = Inventory()
    rt = Runtime(
        [
            devices.new_registration(
                service=DeviceService(inventory), handlers={"restart_device": Restarts()}
            )
        ],
        approver=patient_person,
        worker_threads=1,
    )

    async def main() -> tuple[ToolResult, ToolResult, float]:
        waiting = asyncio.ensure_future(rt.execute(ToolRequest("restart_device", SENT, META)))
        await asyncio.sleep(0.1)
        started = time.monotonic()
        # list_devices is bound to a sync method: it needs the runtime's one tool thread.
        other = await rt.execute(ToolRequest("list_devices", {"site_id": "hq"}, META))
        took = time.monotonic() - started
        release.set()
        return await waiting, other, took

    approved, other, took = asyncio.run(main())
    assert other.ok and approved.ok
    assert took < 2  # not held behind the person (who waited up to 10 s)


def test_the_pipeline_s_order_is_documented_where_users_read() -> None:
    steps = [
        "resolve",
        "observe",
        "interceptors",
        "decode",
        "approve",
        "run",
        "check result",
        "budget",
        "answer",
    ]
    assert PIPELINE_DOC is not None
    positions = [PIPELINE_DOC.index(f". {step}") for step in steps]
    assert positions == sorted(positions)
    runtime_doc = (REPO / "docs" / "runtime.md").read_text(encoding="utf-8")
    documented = [runtime_doc.index(f"**{step}**") for step in steps]
    assert documented == sorted(documented)


# ── every call ends, once, last ─────────────────────────────────────────────────────────────


def slow_probe(args: Any, meta: ToolCallMeta) -> Any:
    """check_reachability's handler: a sync tool that reports progress for about a second,
    long after a short Timeout answered for it."""
    from gen.assistant.toolsets.metrics import types as metric_types

    for step in range(20):
        meta.progress(step, f"probe {step}", total=20)
        time.sleep(0.05)
    return metric_types.CheckReachabilityResult(reachable=True, loss=0.0, rtt_ms=1.0, raw={})


def test_nothing_is_heard_of_a_call_after_its_end() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from tooldesign.runtime import CallEvent, CallFinished, CallProgress, Tracing

    from examples.netops.services import MetricsService
    from gen.assistant.toolsets.metrics import executor as metrics

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    rt = Runtime(
        [
            metrics.new_registration(
                service=MetricsService(Inventory()), handlers={"check_reachability": slow_probe}
            )
        ],
        interceptors=[Timeout(0.2)],
        tracing=Tracing(tracer_provider=provider),
    )
    events: list[CallEvent] = []
    subscription = rt.subscribe(events.append)
    result = rt.execute_sync(ToolRequest("check_reachability", {"value": "core.hq"}, META))
    assert result.retry_hint is not None and str(result.retry_hint.reason) == "timeout"
    time.sleep(1.5)  # the tool's thread goes on reporting, to no one
    subscription.close()
    kinds = [type(event) for event in events]
    assert kinds.count(CallFinished) == 1 and kinds[-1] is CallFinished
    assert CallProgress in kinds  # it was heard while it ran
    (span,) = exporter.get_finished_spans()
    assert span.end_time is not None
    assert all(event.timestamp <= span.end_time for event in span.events)


def test_a_cancelled_call_finishes_for_its_observers() -> None:
    from tooldesign.runtime import CallEvent, CallFinished

    class Stuck(Restarts):
        async def __call__(self, args: Any, meta: ToolCallMeta) -> Any:
            await asyncio.sleep(30)

    rt = runtime(Stuck(), approver=lambda request, meta: True)
    events: list[CallEvent] = []
    subscription = rt.subscribe(events.append)

    async def main() -> None:
        call = asyncio.ensure_future(rt.execute(ToolRequest("restart_device", SENT, META)))
        await asyncio.sleep(0.2)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(main())
    subscription.close()
    finished = [event for event in events if isinstance(event, CallFinished)]
    assert len(finished) == 1 and events[-1] is finished[0]
    assert finished[0].outcome == "cancelled" and not finished[0].ok


def test_a_full_queue_drops_progress_before_how_a_call_started_and_ended() -> None:
    from tooldesign.runtime import CallEvent, CallFinished, CallStarted

    release = threading.Event()
    events: list[CallEvent] = []

    def slow_subscriber(event: CallEvent) -> None:
        release.wait(10)
        events.append(event)

    from examples.netops.services import MetricsService
    from gen.assistant.toolsets.metrics import executor as metrics

    rt = Runtime([metrics.new_registration(service=MetricsService(Inventory()))])
    subscription = rt.subscribe(slow_subscriber, max_queued=6)
    for _ in range(3):
        assert rt.execute_sync(ToolRequest("check_reachability", {"value": "core.hq"}, META)).ok
    release.set()
    subscription.close()
    # 3 calls of 7 events each (5 of them progress) through a queue of 6 that nobody reads:
    # progress was dropped, every start and every end was kept.
    assert subscription.dropped > 0
    ends = [type(e) for e in events if isinstance(e, CallStarted | CallFinished)]
    assert ends == [CallStarted, CallFinished] * 3


# ── repairs run under the limits ───────────────────────────────────────────────────────────

REPAIRED_DESIGN = """
from tooldesign.dsl import *

with Type("Filter", "What to match") as Filter:
    Attribute("site", String, "A site")

with Service("shop", "Shop"):
    with Toolset("orders", "Orders"):
        with Tool("find", "Find orders"):
            with Args():
                Attribute("filter", Filter, "The filter", repair=["json_string"])
                Required("filter")
            Return(String, "What was found")
        with Tool("refund", "Refund orders"):
            with Args():
                Attribute("filter", Filter, "The filter", repair=["json_string"])
                Required("filter")
            Return(String, "What was refunded")
            Confirm("Refund the orders of {filter}?")
"""


@pytest.mark.parametrize("tool", ["find", "refund"])
@pytest.mark.parametrize("depth", [300, 5000])
def test_json_text_a_repair_reads_is_held_to_the_limits(
    gen_design: Any, tool: str, depth: int
) -> None:
    generated = gen_design(REPAIRED_DESIGN)
    executor = generated.module("shop.toolsets.orders.executor")
    ran: list[str] = []

    def handler(args: Any, meta: ToolCallMeta) -> str:
        ran.append(tool)
        return "done"

    rt = Runtime(
        [executor.new_registration(handlers={"find": handler, "refund": handler})],
        approver=lambda request, meta: True,
    )
    nested = '{"site":' * depth + '"hq"' + "}" * depth
    result = rt.execute_sync(ToolRequest(tool, {"filter": nested}, META))  # never raises
    assert not result.ok and ran == []
    assert result.retry_hint is not None
    assert str(result.retry_hint.reason) == "invalid_arguments"
    # A shallow one is repaired and runs.
    fine = rt.execute_sync(ToolRequest(tool, {"filter": '{"site": "hq"}'}, META))
    assert fine.ok and ran == [tool]


def test_a_forked_process_draws_call_ids_of_its_own() -> None:
    """Fresh call ids are a per-process random half and a counter: a forked worker must not
    repeat its parent's (the worker fleet keys calls by id)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        os.close(reader)
        os.write(writer, " ".join(fresh_call_id() for _ in range(3)).encode())
        os._exit(0)
    os.close(writer)
    parents = {fresh_call_id() for _ in range(3)}
    with os.fdopen(reader) as pipe:
        childs = set(pipe.read().split())
    os.waitpid(pid, 0)
    assert len(childs) == 3 and not parents & childs
    assert all(len(call_id) == 32 for call_id in parents | childs)
    assert len({call_id[:16] for call_id in parents | childs}) == 2  # one random half each


def test_every_call_has_a_call_id_and_keeps_the_rest_of_its_metadata() -> None:
    """A call's id reaches the tool in process as on a worker: the one given, else the stable id
    of its run and tool call (the same for each attempt), else a fresh one per call."""
    seen: list[ToolCallMeta] = []

    inventory = Inventory()

    async def get_device(args: Any, meta: ToolCallMeta) -> Any:
        seen.append(meta)
        return device_transforms.to_tool_return_get_device(inventory.device(args.device_id))

    registration = devices.new_registration(
        service=DeviceService(inventory),
        handlers={"get_device": get_device, "restart_device": Restarts()},
    )
    runtime = Runtime([registration])
    full = ToolCallMeta(
        run_id="run-9",
        session_id="s",
        turn_id="t",
        tool_call_id="call_9",
        parent_tool_call_id="p",
        labels={"tenant": "acme"},
        server_data={"audit": True},
        trace={"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
    )
    given = ToolCallMeta(session_id="s", call_id="mine")
    bare = ToolCallMeta(session_id="s")
    for meta in (full, full, given, bare, bare):
        result = runtime.execute_sync(
            ToolRequest("get_device", {"device_id": "dev-00000000"}, meta)
        )
        assert result.ok, result.for_model()
    ids = [meta.call_id for meta in seen]
    assert ids[0] == ids[1] == full.stable_id() and ids[2] == "mine"
    assert ids[3] and ids[4] and ids[3] != ids[4]  # without ids: a fresh one each call
    assert seen[0] == replace(full, call_id=full.stable_id())  # nothing else lost on the way


def test_an_entry_points_metadata_built_slot_by_slot_is_the_dataclasses() -> None:
    """``entry_meta`` (every MCP call's metadata, built past the frozen ``__init__``) sets every
    field: one added to ``ToolCallMeta`` must be added there too."""
    trace = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
    built = entry_meta("s-1", "7", {"audit": False}, trace)
    assert built == ToolCallMeta(
        session_id="s-1", tool_call_id="7", server_data={"audit": False}, trace=trace
    )
    assert entry_meta(None, None, {}, {}) == ToolCallMeta()
