"""The runtime pipeline, step by step, on the worked example's real generated packages.

Every call answers with a ``ToolResult``: these tests drive each step of ``Runtime.execute``
(lookup, decode, inject, call, bounds, server data, encode) with real conditions.
"""

from __future__ import annotations

import asyncio
import functools
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tooldesign.runtime import (
    Recovery,
    RegistrationError,
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolFailure,
    ToolRequest,
    ToolResult,
)

from examples.netops.agent import build_runtime, restart_device
from examples.netops.services import (
    DeviceService,
    Inventory,
    MetricsService,
    ProfileService,
    SiteService,
)
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.docs import types as doc_types
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.profiles import executor as profiles
from gen.assistant.toolsets.sites import executor as sites
from tests.support import REPO
from tests.support.calls import ALICE
from tests.support.calls import call as run
from tests.support.generated import Generated
from tests.support.netops import approve_all, example_registration


@pytest.fixture
def runtime() -> Runtime:
    return build_runtime()


# The devices toolset with some tools handled by the test instead of the service.
devices_with = functools.partial(example_registration, "devices")


# ── 1. lookup ────────────────────────────────────────────────────────────────────────────


def test_unknown_tool_is_tool_unavailable_listing_the_valid_names(runtime: Runtime) -> None:
    result = run(runtime, "list_device", '{"site_id": "hq"}')
    assert not result.ok
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.TOOL_UNAVAILABLE
    assert "list_devices" in result.retry_hint.valid_tools
    assert (
        'There is no tool named "list_device". Did you mean "list_devices"?' in result.for_model()
    )
    assert "list_devices" in result.for_model()
    assert result.tool_call_id == "call-1"


def test_a_request_without_metadata_runs_with_empty_metadata(runtime: Runtime) -> None:
    for request in (
        ToolRequest("get_site", '{"site_id": "hq"}', None),
        ToolRequest("get_site", '{"site_id": "hq"}'),
    ):
        assert request.meta == ToolCallMeta()
        result = runtime.execute_sync(request)
        assert result.ok and result.tool_call_id is None
    # Without metadata an injected field has no source: an error, not a crash.
    result = runtime.execute_sync(ToolRequest("get_profile", "{}", None))
    assert result.telemetry.outcome == "missing_injected"


def test_a_tool_is_called_by_its_name_or_its_id(runtime: Runtime) -> None:
    by_name = run(runtime, "get_site", '{"site_id": "hq"}')
    by_id = run(runtime, "assistant.sites.get_site", '{"site_id": "hq"}')
    assert by_name.ok and by_id.ok
    assert by_name.name == by_id.name == "assistant.sites.get_site"
    assert by_name.for_model() == by_id.for_model()


# ── 2. decode ────────────────────────────────────────────────────────────────────────────


def test_a_missing_field_is_a_missing_fields_hint_with_example_and_prior_input(
    runtime: Runtime,
) -> None:
    result = run(runtime, "list_devices", '{"status": "offline"}')
    hint = result.retry_hint
    assert hint is not None and hint.reason is RetryReason.MISSING_FIELDS
    assert hint.missing_fields == ("site_id",)
    assert hint.tool == "list_devices"
    assert hint.example_input == {"site_id": "hq", "status": "online", "limit": 20}
    assert hint.prior_input == {"status": "offline"}
    [issue] = hint.issues
    assert (issue.field, issue.constraint, issue.description) == (
        "site_id",
        "missing_field",
        "Site identifier",
    )
    text = result.for_model()
    assert "site_id: required field is missing (expected string) — Site identifier" in text
    assert '{"site_id": "hq", "status": "online", "limit": 20}' in text


def test_every_bad_field_is_named_with_what_was_expected(runtime: Runtime) -> None:
    result = run(
        runtime, "list_devices", {"site_id": 3, "status": "broken", "limit": 900, "colour": "red"}
    )
    hint = result.retry_hint
    assert hint is not None and hint.reason is RetryReason.INVALID_ARGUMENTS
    issues = {issue.field: issue for issue in hint.issues}
    assert set(issues) == {"site_id", "status", "limit", "colour"}
    assert issues["site_id"].constraint == "invalid_field_type"
    assert (issues["site_id"].expected, issues["site_id"].actual) == ("string", "integer")
    assert issues["status"].constraint == "invalid_enum_value"
    assert issues["status"].allowed == ("online", "offline", "unknown")
    assert issues["limit"].constraint == "invalid_range"
    assert issues["limit"].bounds == {"minimum": 1, "maximum": 500}
    assert issues["limit"].description == "Maximum results"
    assert issues["colour"].constraint == "unknown_field"
    assert hint.prior_input == {"site_id": 3, "status": "broken", "limit": 900, "colour": "red"}


@pytest.mark.parametrize(
    "payload", ['{"site_id": "hq"', b"\xff\xfe", "[1, 2]", '"hq"', "null"], ids=repr
)
def test_malformed_or_non_object_arguments_are_invalid_arguments(
    runtime: Runtime, payload: Any
) -> None:
    result = run(runtime, "list_devices", payload)
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.INVALID_ARGUMENTS
    assert result.for_model().startswith("Error: The arguments for tool 'list_devices' are invalid")


def test_nested_fields_are_reported_by_path_with_the_nearest_description(
    runtime: Runtime,
) -> None:
    result = run(runtime, "update_preferences", {"preferences": {"theme": ["dark"]}})
    assert result.retry_hint is not None
    [issue] = result.retry_hint.issues
    assert issue.field == "preferences.theme"
    # A map value has no description of its own: the map's describes it.
    assert issue.description == "Preferences to set"
    assert (
        'preferences.theme: expected string or integer or boolean, got array ["dark"]'
        " — Preferences to set" in result.for_model()
    )

    result = run(runtime, "search_docs", {"query": "vpn", "kinds": ["runbook", "blog"]})
    assert result.retry_hint is not None
    [issue] = result.retry_hint.issues
    assert (issue.field, issue.description) == ("kinds[1]", "Only these kinds of document")
    assert issue.allowed == ("article", "runbook")


# ── 3. inject ────────────────────────────────────────────────────────────────────────────


def test_injected_fields_are_filled_from_the_call_metadata(runtime: Runtime) -> None:
    alice = run(runtime, "get_profile", "{}", ToolCallMeta(session_id="sess-alice"))
    bob = run(runtime, "get_profile", "{}", ToolCallMeta(session_id="sess-bob"))
    assert json.loads(alice.for_model())["user_id"] == "u-alice"
    assert json.loads(bob.for_model())["user_id"] == "u-bob"


def test_injected_fields_can_come_from_labels(runtime: Runtime) -> None:
    result = run(runtime, "get_profile", "{}", ToolCallMeta(labels={"session_id": "sess-bob"}))
    assert json.loads(result.for_model())["user_id"] == "u-bob"


def test_a_value_the_model_sends_for_an_injected_field_is_discarded_and_recorded() -> None:
    seen: list[str] = []

    def list_devices(
        args: device_types.ListDevicesPayload, meta: ToolCallMeta
    ) -> device_types.ListDevicesResult:
        seen.append(args.session_id)
        return device_types.ListDevicesResult(devices=[], returned=0, total=0, truncated=False)

    runtime = Runtime([devices_with(list_devices=list_devices)])
    for payload in (
        '{"site_id": "hq", "session_id": "sess-bob"}',
        {"site_id": "hq", "session_id": "x"},
    ):
        result = run(runtime, "list_devices", payload)
        assert result.ok
        assert result.telemetry.discarded_injected == ("session_id",)
    assert seen == ["sess-alice", "sess-alice"]


def test_the_model_is_never_told_about_injected_fields(runtime: Runtime) -> None:
    result = run(runtime, "list_devices", '{"site_id": "hq", "session_id": "sess-bob"}')
    assert "session_id" not in result.for_model()
    assert "sess-alice" not in result.for_model()
    assert "session_id" not in json.dumps(runtime.schema("list_devices"))
    missing = run(runtime, "list_devices", "{}")
    assert missing.retry_hint is not None
    assert missing.retry_hint.missing_fields == ("site_id",)
    assert "session_id" not in missing.for_model()


def test_a_missing_injected_value_is_an_error_and_the_tool_is_not_called() -> None:
    calls: list[Any] = []

    def list_devices(args: Any, meta: ToolCallMeta) -> Any:
        calls.append(args)
        raise AssertionError("must not be called")

    runtime = Runtime([devices_with(list_devices=list_devices)])
    result = run(runtime, "list_devices", '{"site_id": "hq"}', ToolCallMeta(tool_call_id="c"))
    assert not result.ok
    assert calls == []
    assert result.telemetry.outcome == "missing_injected"
    assert "cannot run in this context" in result.for_model()
    # The model cannot fix this, so it gets no hint asking it to retry with other arguments.
    assert result.retry_hint is None


# ── 5. call: bound and unbound, sync and async; failures ───────────────────────────────


def test_bound_sync_and_async_methods_and_a_function(runtime: Runtime) -> None:
    listed = run(runtime, "list_devices", '{"site_id": "nyc", "limit": 2}')  # sync method
    device = run(runtime, "get_device", '{"device_id": "dev-00000000"}')  # async method
    answer = run(runtime, "answer_question", '{"question": "why offline?"}')  # function
    assert [d["site_id"] for d in json.loads(listed.for_model())["devices"]] == ["nyc", "nyc"]
    assert json.loads(device.for_model())["id"] == "dev-00000000"
    assert answer.for_model().startswith("Check power")  # text results are sent as text


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_unbound_tool_calls_its_handler_sync_or_async(kind: str) -> None:
    seen: list[tuple[str, str | None]] = []

    def sync_handler(
        args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        seen.append((args.device_id, meta.tool_call_id))
        return device_types.RestartDeviceResult(accepted=True, job_id="j-1")

    async def async_handler(
        args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        await asyncio.sleep(0)
        return sync_handler(args, meta)

    handler = sync_handler if kind == "sync" else async_handler
    runtime = Runtime([devices_with(restart_device=handler)], approver=approve_all)
    result = run(runtime, "restart_device", {"device_id": "dev-0a1b2c3d", "reason": "stuck"})
    assert result.ok, result.for_model()
    assert json.loads(result.for_model()) == {"accepted": True, "job_id": "j-1"}
    assert seen == [("dev-0a1b2c3d", "call-1")]


def test_a_handler_may_answer_with_a_dict_or_a_full_tool_result() -> None:
    def as_dict(args: Any, meta: ToolCallMeta) -> Any:
        return {"accepted": False}

    result = run(
        Runtime([devices_with(restart_device=as_dict)], approver=approve_all),
        "restart_device",
        RESTART,
    )
    assert result.ok and json.loads(result.for_model()) == {"accepted": False}

    def refusing(args: Any, meta: ToolCallMeta) -> ToolResult:
        return ToolResult.failure("ignored", "Restarts are frozen until Monday.")

    result = run(
        Runtime([devices_with(restart_device=refusing)], approver=approve_all),
        "restart_device",
        RESTART,
    )
    assert not result.ok
    assert result.name == "assistant.devices.restart_device"
    assert result.for_model() == (
        "Error: Restarts are frozen until Monday.\n"
        'Recovery: replan — do not repeat this call to "restart_device" now; take another step.'
    )
    assert result.recovery is Recovery.REPLAN


RESTART = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}


def test_an_exception_becomes_an_error_that_does_not_leak_internals() -> None:
    def broken(args: Any, meta: ToolCallMeta) -> Any:
        try:
            raise KeyError("db-password=hunter2")
        except KeyError as exc:
            raise RuntimeError("connection to 10.0.0.7 failed") from exc

    result = run(
        Runtime([devices_with(restart_device=broken)], approver=approve_all),
        "restart_device",
        RESTART,
    )
    assert not result.ok
    text = result.for_model()
    assert "internal error" in text
    assert "10.0.0.7" not in text and "hunter2" not in text
    assert result.error is not None
    # The whole chain stays available to the application (logs, tracing).
    assert result.error.chain() == [
        "RuntimeError: connection to 10.0.0.7 failed",
        "KeyError: 'db-password=hunter2'",
    ]
    assert result.telemetry.outcome == "error"


def test_tool_failure_and_exposed_exceptions_speak_to_the_model(runtime: Runtime) -> None:
    exposed = run(runtime, "get_device", '{"device_id": "dev-ffffffff"}')
    assert exposed.for_model() == (
        'Error: no device "dev-ffffffff"\n'
        'Recovery: replan — do not repeat this call to "get_device" now; take another step.'
    )

    def careful(args: Any, meta: ToolCallMeta) -> Any:
        raise ToolFailure("That device is in maintenance.", clarifying_question="Restart anyway?")

    result = run(
        Runtime([devices_with(restart_device=careful)], approver=approve_all),
        "restart_device",
        RESTART,
    )
    assert result.for_model() == (
        "Error: That device is in maintenance.\n"
        "Before calling 'restart_device' again, ask the user: Restart anyway?\n"
        'Recovery: correct_call — fix the arguments, then call "restart_device" again.'
    )
    assert result.recovery is Recovery.CORRECT_CALL
    assert result.retry_hint is not None
    assert result.retry_hint.clarifying_question == "Restart anyway?"
    assert result.error is not None and result.error.message == "That device is in maintenance."

    hidden = Runtime([metrics.new_registration(service=MetricsService(Inventory()))])
    missing = run(hidden, "get_time_series", {"device_id": "dev-ffffffff", "metric": "cpu"})
    assert "dev-ffffffff" not in missing.for_model()  # NotFoundError is not exposed here


def exit_now(args: Any, meta: ToolCallMeta) -> Any:
    sys.exit(3)


async def exit_now_async(args: Any, meta: ToolCallMeta) -> Any:
    sys.exit(3)


@pytest.mark.parametrize("handler", [exit_now, exit_now_async], ids=["sync", "async"])
def test_a_tool_raising_system_exit_is_an_error_not_the_end_of_the_agent(
    handler: Callable[..., Any],
) -> None:
    runtime = Runtime([devices_with(restart_device=handler)], approver=approve_all)
    result = asyncio.run(runtime.execute(ToolRequest("restart_device", RESTART, ALICE)))
    assert not result.ok
    assert "internal error" in result.for_model()
    assert result.error is not None and result.error.chain() == ["SystemExit: 3"]
    assert result.telemetry.outcome == "error"


def interrupt(args: Any, meta: ToolCallMeta) -> Any:
    raise KeyboardInterrupt


async def interrupt_async(args: Any, meta: ToolCallMeta) -> Any:
    raise KeyboardInterrupt


@pytest.mark.parametrize("handler", [interrupt, interrupt_async], ids=["sync", "async"])
def test_keyboard_interrupt_propagates(handler: Callable[..., Any]) -> None:
    runtime = Runtime([devices_with(restart_device=handler)], approver=approve_all)
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(runtime.execute(ToolRequest("restart_device", RESTART, ALICE)))


def test_execute_sync_leaves_ctrl_c_alone_and_survives_an_interruption() -> None:
    """A synchronous call does not swap the process's SIGINT handler (which made each call cost
    several awaited ones), and a call interrupted by Ctrl-C leaves the thread's loop usable."""
    import signal

    seen: list[object] = []

    def records_the_handler(args: Any, meta: ToolCallMeta) -> Any:
        seen.append(signal.getsignal(signal.SIGINT))
        return restart_device(args, meta)

    before = signal.getsignal(signal.SIGINT)
    calm = Runtime([devices_with(restart_device=records_the_handler)], approver=approve_all)
    assert calm.execute_sync(ToolRequest("restart_device", RESTART, ALICE)).ok
    assert seen == [before]

    interrupted = Runtime([devices_with(restart_device=interrupt_async)], approver=approve_all)
    with pytest.raises(KeyboardInterrupt):
        interrupted.execute_sync(ToolRequest("restart_device", RESTART, ALICE))
    assert calm.execute_sync(ToolRequest("restart_device", RESTART, ALICE)).ok
    assert signal.getsignal(signal.SIGINT) is before


def test_a_cancelled_error_of_the_tools_own_is_an_error_result() -> None:
    async def waits_for_a_cancelled_task(args: Any, meta: ToolCallMeta) -> Any:
        lookup = asyncio.ensure_future(asyncio.sleep(10))
        lookup.cancel()
        await lookup  # raises CancelledError, though nobody cancelled the call

    runtime = Runtime(
        [devices_with(restart_device=waits_for_a_cancelled_task)], approver=approve_all
    )
    result = asyncio.run(runtime.execute(ToolRequest("restart_device", RESTART, ALICE)))
    assert not result.ok
    assert result.error is not None and result.error.chain() == ["CancelledError: "]
    assert result.telemetry.outcome == "error"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_cancelling_the_call_propagates(kind: str) -> None:
    started = threading.Event()
    release = threading.Event()

    def blocking(args: Any, meta: ToolCallMeta) -> Any:
        started.set()
        release.wait(5)
        return {"accepted": True}

    async def sleeping(args: Any, meta: ToolCallMeta) -> Any:
        started.set()
        await asyncio.sleep(10)

    runtime = Runtime(
        [devices_with(restart_device=blocking if kind == "sync" else sleeping)],
        approver=approve_all,
    )

    async def scenario() -> None:
        call = asyncio.ensure_future(runtime.execute(ToolRequest("restart_device", RESTART, ALICE)))
        async with asyncio.timeout(5):
            while not started.is_set():
                await asyncio.sleep(0.001)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert call.cancelled()
        release.set()
        # A deadline around execute works the same way: the caller's timeout, not the tool's error.
        # (A call of its own: sent again with call-1's id, it is a copy of the cancelled call.)
        started.clear()
        release.clear()
        second = ToolCallMeta(session_id="sess-alice", run_id="run-1", tool_call_id="call-2")
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await runtime.execute(ToolRequest("restart_device", RESTART, second))
        release.set()

    asyncio.run(scenario())


# ── 6. bounded results ───────────────────────────────────────────────────────────────────


def test_a_bounded_result_carries_its_bounds_and_refinement_hint(runtime: Runtime) -> None:
    result = run(runtime, "list_devices", '{"site_id": "hq", "limit": 3}')
    assert result.bounds is not None
    assert (result.bounds.returned, result.bounds.total, result.bounds.truncated) == (3, 38, True)
    assert (
        result.bounds.refinement_hint
        == "38 devices match: filter by status, or raise limit (at most 500)."
    )
    body = json.loads(result.for_model())
    assert (body["returned"], body["total"], body["truncated"]) == (3, 38, True)
    assert body["refinement_hint"] == result.bounds.refinement_hint


def test_paging_returns_the_next_cursor(runtime: Runtime) -> None:
    first = run(runtime, "list_sites", "{}")
    assert first.bounds is not None and first.bounds.next_cursor == "2"
    second = run(runtime, "list_sites", {"cursor": first.bounds.next_cursor})
    assert second.bounds is not None and second.bounds.next_cursor is None
    assert [s["id"] for s in json.loads(second.for_model())["sites"]] == ["sgp", "ber"]


@pytest.mark.parametrize(
    ("bounds", "problem"),
    [
        ({"returned": 0, "total": 4, "truncated": False}, "total must be 0"),
        ({"returned": 0, "total": 0, "truncated": True}, "cannot be truncated"),
        ({"returned": 1, "total": 9, "truncated": True}, "refinement_hint or a next cursor"),
        ({"returned": 5, "total": 2, "truncated": False}, "less than returned"),
        ({"returned": -1, "total": 0, "truncated": False}, "must be a count"),
    ],
)
def test_a_broken_bounds_contract_is_a_malformed_response(
    bounds: dict[str, Any], problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    def list_devices(args: Any, meta: ToolCallMeta) -> Any:
        return {"devices": [], **bounds}

    runtime = Runtime([devices_with(list_devices=list_devices)])
    result = run(runtime, "list_devices", '{"site_id": "hq"}')
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    assert result.error is not None and problem in result.error.details["problem"]
    assert "problem is in the tool, not in your arguments" in result.for_model()
    assert any("malformed response" in r.getMessage() for r in caplog.records)


def test_a_result_that_breaks_the_result_type_is_a_malformed_response() -> None:
    def bad(args: Any, meta: ToolCallMeta) -> Any:
        return {"accepted": "maybe", "job_id": 7}

    result = run(
        Runtime([devices_with(restart_device=bad)], approver=approve_all), "restart_device", RESTART
    )
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    # What is wrong is the application's to read (the error's details), never the model's.
    assert result.error is not None
    issues = result.error.details["issues"]
    assert [issue.split(":")[0] for issue in issues] == ["accepted", "job_id"]
    assert '"maybe"' in issues[0]
    assert result.retry_hint.issues == ()
    assert "maybe" not in json.dumps(result.retry_hint.to_dict())
    assert "maybe" not in result.for_model()


def test_a_result_of_none_is_told_as_the_result_s_problem(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def nothing(args: Any, meta: ToolCallMeta) -> Any:
        return None

    result = run(
        Runtime([devices_with(restart_device=nothing)], approver=approve_all),
        "restart_device",
        RESTART,
    )
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    assert result.error is not None
    assert result.error.details["issues"] == ["result: expected object, got null"]
    [logged] = [r.getMessage() for r in caplog.records if "malformed response" in r.getMessage()]
    assert logged.endswith(
        "does not match the tool's result type: result: expected object, got null"
    )


NO_RESULT = """\
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("forget", "Forget a name"):
            with Args():
                Attribute("name", String, "A name")
                Required("name")
        with Tool("clear", "Clear everything"):
            Return()
"""


def test_a_tool_without_a_result_may_return_none(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(NO_RESULT)
    executor = generated.module("svc.toolsets.ts.executor")

    def returns_nothing(args: Any, meta: ToolCallMeta) -> None:
        return None

    runtime = Runtime(
        [executor.new_registration(handlers={"forget": returns_nothing, "clear": returns_nothing})]
    )
    for name, payload in (("forget", '{"name": "x"}'), ("clear", "{}")):
        result = run(runtime, name, payload)
        assert result.ok, result.for_model()
        assert (result.result_json, result.for_model()) == ("{}", "{}")
    # The handler's Protocol says so, for mypy.
    source = (generated.out / "svc" / "toolsets" / "ts" / "executor.py").read_text()
    assert "t.ForgetResult | None | rt.ToolResult" in source


# ── 7. server data ───────────────────────────────────────────────────────────────────────

SERIES = {"device_id": "dev-00000000", "metric": "latency", "window": "1h"}


def kinds(result: ToolResult) -> list[str]:
    return [item.kind for item in result.server_data]


def test_server_data_follows_the_design_defaults(runtime: Runtime) -> None:
    result = run(runtime, "get_time_series", SERIES)
    # atlas.time_series is off by default, atlas.thresholds on.
    assert kinds(result) == ["atlas.thresholds"]
    thresholds = result.server_data[0].data
    assert type(thresholds).__name__ == "GetTimeSeriesAtlasThresholdsServerData"


def test_server_data_can_be_switched_per_call_and_never_reaches_the_model(
    runtime: Runtime,
) -> None:
    meta = ToolCallMeta(server_data={"atlas.time_series": True, "atlas.thresholds": False})
    result = run(runtime, "get_time_series", SERIES, meta)
    assert kinds(result) == ["atlas.time_series"]
    series = result.server_data[0].data
    assert len(series.points) == 12  # type: ignore[attr-defined]
    text = result.for_model()
    assert "points" in json.loads(text)  # the result's own count…
    assert "warning" not in text and '"value"' not in text  # …but no server data
    assert set(json.loads(text)) == {
        "device_id",
        "metric",
        "unit",
        "minimum",
        "maximum",
        "mean",
        "points",
    }


def test_invalid_server_data_is_dropped_not_the_call() -> None:
    def handler(args: Any, meta: ToolCallMeta) -> Any:
        return ToolResult(
            "x",
            result={
                "device_id": "d",
                "metric": "cpu",
                "unit": "%",
                "minimum": 1.0,
                "maximum": 2.0,
                "mean": 1.5,
                "points": 2,
            },
            server_data=(
                _item("atlas.thresholds", {"warning": "high"}),
                _item("not.declared", {}),
            ),
        )

    registration = metrics.new_registration(
        service=MetricsService(Inventory()), handlers={"get_time_series": handler}
    )
    result = run(Runtime([registration]), "get_time_series", SERIES)
    assert result.ok
    assert result.server_data == ()
    assert result.telemetry.extra["dropped_server_data"] == ["atlas.thresholds"]


def _item(kind: str, data: Any) -> Any:
    from tooldesign.runtime import ServerDataItem

    return ServerDataItem(kind, data)


# ── 8. encode and telemetry ──────────────────────────────────────────────────────────────


def test_results_are_encoded_by_the_codec_and_telemetry_records_the_call(runtime: Runtime) -> None:
    result = run(runtime, "answer_question", '{"question": "latency spikes?"}')
    # The codec's JSON is kept; a text result goes to the model as the text itself.
    assert result.result_json is not None
    assert json.loads(result.result_json) == result.for_model()
    assert result.for_model().startswith("Compare latency")
    assert result.telemetry.outcome == "ok"
    assert result.telemetry.duration_ms > 0


# ── registration and introspection ───────────────────────────────────────────────────────


def test_registration_fails_early_for_missing_handlers_and_services() -> None:
    inventory = Inventory()
    with pytest.raises(RegistrationError, match="no handler for restart_device"):
        devices.new_registration(service=DeviceService(inventory), handlers={})  # type: ignore[call-overload]
    with pytest.raises(RegistrationError, match="pass service=<an instance>"):
        devices.new_registration(service=None, handlers={"restart_device": restart_device})  # type: ignore[call-overload]
    with pytest.raises(RegistrationError, match="service must be a DeviceService, got SiteService"):
        devices.new_registration(  # type: ignore[call-overload]
            service=SiteService(inventory),
            handlers={"restart_device": restart_device},
        )
    with pytest.raises(RegistrationError, match="handlers for unknown tools reboot"):
        devices.new_registration(  # type: ignore[call-overload]
            service=DeviceService(inventory),
            handlers={"restart_device": restart_device, "reboot": restart_device},
        )
    with pytest.raises(RegistrationError, match="not callable"):
        devices.new_registration(service=DeviceService(inventory), handlers={"restart_device": 3})  # type: ignore[call-overload]


def _only_args(args: Any) -> Any:
    return {"accepted": True}


def _three(args: Any, meta: ToolCallMeta, extra: Any) -> Any:
    return {"accepted": True}


def _keyword_meta(args: Any, *, meta: ToolCallMeta) -> Any:
    return {"accepted": True}


@pytest.mark.parametrize(
    ("handler", "takes"),
    [
        (_only_args, "(args)"),
        (_three, "(args, meta, extra)"),
        (_keyword_meta, "(args, *, meta)"),
        (lambda: None, "()"),
    ],
)
def test_a_handler_that_cannot_take_args_and_meta_fails_at_registration(
    handler: Any, takes: str
) -> None:
    with pytest.raises(RegistrationError) as caught:
        devices_with(restart_device=handler)
    message = str(caught.value)
    assert f"toolset 'devices': the handler for 'restart_device' takes {takes}" in message
    assert "def handler(args, meta) (or async def)" in message


class _Restarts:
    def restart(self, args: Any, meta: ToolCallMeta) -> Any:
        return {"accepted": True}

    async def __call__(self, args: Any, meta: ToolCallMeta) -> Any:
        return {"accepted": False}


def _flexible(*parts: Any) -> Any:
    return {"accepted": len(parts) == 2}


def _with_default(args: Any, meta: ToolCallMeta, verbose: bool = False) -> Any:
    return {"accepted": not verbose}


async def _partial(prefix: str, args: Any, meta: ToolCallMeta) -> Any:
    return {"accepted": prefix == "p"}


@pytest.mark.parametrize(
    "handler",
    [
        _Restarts().restart,
        _Restarts(),
        _flexible,
        _with_default,
        functools.partial(_partial, "p"),
        print,  # a builtin whose signature Python reads: (*args, ...)
    ],
    ids=["bound-method", "callable-object", "star-args", "default", "partial", "builtin"],
)
def test_handlers_of_every_callable_shape_register_and_run(handler: Any) -> None:
    runtime = Runtime([devices_with(restart_device=handler)], approver=approve_all)
    result = run(runtime, "restart_device", RESTART)
    if handler is not print:
        assert result.ok, result.for_model()


def answer(
    args: doc_types.AnswerQuestionPayload, meta: ToolCallMeta
) -> doc_types.AnswerQuestionResult:
    return doc_types.AnswerQuestionResult(f"You asked: {args.question}")


def search(args: doc_types.SearchDocsPayload, meta: ToolCallMeta) -> doc_types.SearchDocsResult:
    return doc_types.SearchDocsResult(hits=[], returned=0, total=0, truncated=False)


def test_handlers_alone_register_a_toolset_without_a_service() -> None:
    # Typed: without a service, the handlers must replace every method the toolset binds.
    registration = docs.new_registration(
        handlers={"answer_question": answer, "search_docs": search}
    )
    result = run(Runtime([registration]), "answer_question", '{"question": "why?"}')
    assert result.for_model() == "You asked: why?"
    # answer_question is bound to a function, not to the service: it needs no handler.
    alone = docs.new_registration(handlers={"search_docs": search})
    answered = run(Runtime([alone]), "answer_question", {"question": "why offline?"})
    assert answered.for_model().startswith("Check power")
    # search_docs calls DocumentService.search: without a service it needs a handler.
    with pytest.raises(
        RegistrationError, match="tools search_docs call methods of DocumentService"
    ):
        docs.new_registration(handlers={"answer_question": answer})  # type: ignore[call-overload]


REGISTRATIONS_TYPED = """\
from typing import Any

from examples.netops.services import DocumentService, Inventory, SiteService
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.sites import executor as sites

handler: Any = None
docs.new_registration(service=DocumentService())
docs.new_registration(service=DocumentService(), handlers={"search_docs": handler})
docs.new_registration(handlers={"search_docs": handler})
docs.new_registration(handlers={"search_docs": handler, "answer_question": handler})
sites.new_registration(service=SiteService(Inventory()))
# Rejected: a tool bound to a service method has neither the service nor a handler.
docs.new_registration()  # type: ignore[call-overload]
docs.new_registration(handlers={"answer_question": handler})  # type: ignore[call-overload]
docs.new_registration(service=None, handlers={})  # type: ignore[call-overload]
sites.new_registration(handlers={"list_sites": handler})  # type: ignore[call-overload]
"""


@pytest.mark.slow
def test_the_registration_signature_types_the_service_rule(tmp_path: Path) -> None:
    """Without a service, mypy wants a handler for each method-bound tool (no ignore is unused)."""
    snippet = tmp_path / "registrations.py"
    snippet.write_text(REGISTRATIONS_TYPED, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--no-incremental",
            "--config-file=/dev/null",
            str(snippet),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_tool_names_must_be_unique_in_a_runtime(runtime: Runtime) -> None:
    with pytest.raises(RegistrationError, match="already registered"):
        runtime.register(profiles.new_registration(service=ProfileService()))


def test_introspection_lists_toolsets_and_specs(runtime: Runtime) -> None:
    assert [(t.service, t.toolset) for t in runtime.toolsets()] == [
        ("assistant", "sites"),
        ("assistant", "devices"),
        ("assistant", "metrics"),
        ("assistant", "profiles"),
        ("assistant", "docs"),
        ("assistant", "diagnosis"),
    ]
    assert len(runtime.specs()) == 14
    assert [s.name for s in runtime.specs("devices")] == [
        "list_devices",
        "get_device",
        "restart_device",
        "schedule_maintenance",
    ]
    assert runtime.specs("assistant.devices") == runtime.specs("devices")
    spec = runtime.spec("assistant.devices.list_devices")
    assert spec is runtime.spec("list_devices")
    assert spec is not None and spec.injected == ("session_id",)
    assert runtime.schema("list_devices") == spec.payload.schema
    assert runtime.spec("nope") is None and runtime.schema("nope") is None


def test_register_and_unregister_at_run_time_notify_listeners(runtime: Runtime) -> None:
    changes: list[int] = []
    unsubscribe = runtime.on_change(lambda: changes.append(len(runtime.specs())))
    runtime.unregister("assistant", "profiles")
    assert run(runtime, "get_profile").retry_hint.reason is RetryReason.TOOL_UNAVAILABLE  # type: ignore[union-attr]
    runtime.register(profiles.new_registration(service=ProfileService()))
    assert run(runtime, "get_profile").ok
    unsubscribe()
    runtime.unregister("assistant", "docs")
    assert changes == [12, 14]


def test_execute_sync_refuses_to_run_inside_an_event_loop(runtime: Runtime) -> None:
    async def inside() -> None:
        with pytest.raises(RuntimeError, match="await execute"):
            runtime.execute_sync(ToolRequest("get_site", '{"site_id": "hq"}'))

    asyncio.run(inside())


# ── concurrency ──────────────────────────────────────────────────────────────────────────


@pytest.mark.slow
def test_ten_thousand_concurrent_calls_are_all_answered() -> None:
    inventory = Inventory()
    runtime = Runtime(
        [
            sites.new_registration(service=SiteService(inventory)),
            devices.new_registration(
                service=DeviceService(inventory), handlers={"restart_device": restart_device}
            ),
        ],
        approver=approve_all,
    )

    async def many() -> list[ToolResult]:
        requests = [
            ToolRequest(
                "get_site" if i % 3 else "list_devices",
                {"site_id": ("hq", "nyc", "sgp", "ber")[i % 4]} if i % 5 else {"site_id": 1},
                ToolCallMeta(session_id="s", tool_call_id=f"c{i}"),
            )
            for i in range(10_000)
        ]
        return await asyncio.gather(*(runtime.execute(r) for r in requests))

    results = asyncio.run(many())
    assert len(results) == 10_000
    for i, result in enumerate(results):
        assert result.tool_call_id == f"c{i}"
        assert result.ok == (i % 5 != 0)


def test_sync_handlers_run_in_worker_threads_without_blocking_the_loop() -> None:
    loop_thread: list[int] = []
    handler_threads: set[int] = set()
    release = threading.Event()

    def blocking(args: Any, meta: ToolCallMeta) -> Any:
        handler_threads.add(threading.get_ident())
        release.wait(5)  # blocks its thread until the loop, still running, releases it
        return {"accepted": True}

    runtime = Runtime([devices_with(restart_device=blocking)], approver=approve_all)

    async def scenario() -> list[ToolResult]:
        loop_thread.append(threading.get_ident())
        calls = [
            asyncio.ensure_future(runtime.execute(ToolRequest("restart_device", RESTART, ALICE)))
            for _ in range(3)
        ]
        # The loop keeps serving other calls while the handlers block.
        other = await runtime.execute(ToolRequest("get_device", '{"device_id": "dev-00000000"}'))
        assert other.ok
        release.set()
        return await asyncio.gather(*calls)

    started = time.monotonic()
    results = asyncio.run(scenario())
    assert time.monotonic() - started < 5  # released by the loop, not by the wait's timeout
    assert all(r.ok for r in results)
    assert loop_thread[0] not in handler_threads


# ── interceptors (see also test_interceptors.py) ─────────────────────────────────────────


def test_an_interceptor_that_raises_still_gets_an_answer() -> None:
    async def broken(
        request: ToolRequest, meta: ToolCallMeta, call_next: Callable[..., Any]
    ) -> ToolResult:
        raise ValueError("bug in an interceptor")

    runtime = Runtime([devices_with()], interceptors=[broken])
    result = run(runtime, "get_device", '{"device_id": "dev-00000000"}')
    assert not result.ok
    assert "bug in an interceptor" not in result.for_model()
