"""The built-in run_code tool over the worked example: code that chains calls, corrects itself,
waits for an approval and resumes, and hostile code, each answered, nothing leaking.

Each test starts pydantic-monty's worker processes: slow."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tooldesign.builtin.code_mode import TOOL_ID, code_mode_registration
from tooldesign.runtime import (
    CallEvent,
    CallFinished,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    pending_approvals,
)
from tooldesign.runtime.codemode import CodeLimits, CodeMode

from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.slow

META = ToolCallMeta(run_id="run-1", session_id="sess-1", tool_call_id="call-1")

CHAIN = """
hot = []
for d in list_devices(site_id="hq", status="online")["devices"]:
    s = get_time_series(device_id=d["id"], metric="cpu")
    if s["maximum"] > 70:
        hot.append((s["maximum"], d["id"]))
hot.sort()
worst = hot[-1][1]
r = restart_device(device_id=worst, reason="CPU above 70%")
{"hot": len(hot), "restarted": worst, "accepted": r["accepted"]}
"""


def code_runtime(
    limits: CodeLimits | None = None, access: dict[str, str] | None = None, **options: Any
) -> tuple[Runtime, Restarts]:
    restarts = Restarts()
    runtime = example_runtime(device_handlers={"restart_device": restarts}, **options)
    runtime.register(code_mode_registration(CodeMode(runtime, limits=limits, access=access)))
    return runtime, restarts


def run(runtime: Runtime, code: str, **options: Any) -> ToolResult:
    payload = json.dumps({"code": code})
    return runtime.execute_sync(
        ToolRequest("run_code", payload, options.pop("meta", META)), **options
    )


def value(result: ToolResult) -> dict[str, Any]:
    assert result.ok, result.for_model()
    data: dict[str, Any] = json.loads(result.for_model())
    return data


def test_chains_calls_pauses_for_approval_and_resumes_without_calling_again() -> None:
    events: list[CallEvent] = []
    runtime, restarts = code_runtime()
    runtime.subscribe(events.append)
    first = run(runtime, CHAIN)
    assert first.awaiting_approval and not first.ok
    assert first.name == TOOL_ID
    [request] = pending_approvals([first])
    assert request.tool == "restart_device"
    assert request.arguments["reason"] == "CPU above 70%"
    assert request.session_id == "sess-1"
    assert restarts.ran == []
    inner = [e for e in events if isinstance(e, CallFinished) and e.tool != TOOL_ID]
    calls_before = len(inner)
    assert calls_before > 2  # list_devices, then a series per device, then the restart waits

    second = run(runtime, CHAIN, approvals=[request.approve(by="ann")])
    data = value(second)
    assert data["value"]["accepted"] is True
    assert data["value"]["restarted"] == request.arguments["device_id"]
    assert restarts.ran == [request.arguments["device_id"]]
    assert data["calls"] == calls_before
    # The resumed run made only the approved call: the list and series were not fetched again.
    inner = [e for e in events if isinstance(e, CallFinished) and e.tool != TOOL_ID]
    assert len(inner) == calls_before + 1


def test_the_same_call_again_while_it_waits_is_answered_without_running_again() -> None:
    runtime, restarts = code_runtime()
    events: list[CallEvent] = []
    runtime.subscribe(events.append)
    first = run(runtime, CHAIN)
    inner = len([e for e in events if isinstance(e, CallFinished) and e.tool != TOOL_ID])
    # A framework that runs the tool again when it resumes (LangGraph), a client retrying.
    again = run(runtime, CHAIN)
    assert again.awaiting_approval and again.approval is not None and first.approval is not None
    assert again.approval.id == first.approval.id
    assert len([e for e in events if isinstance(e, CallFinished) and e.tool != TOOL_ID]) == inner
    data = value(run(runtime, CHAIN, approvals=[again.approval.approve()]))
    assert data["value"]["accepted"] is True and len(restarts.ran) == 1


def test_a_paused_run_resumes_for_its_own_call_only() -> None:
    runtime, restarts = code_runtime()
    first = run(runtime, CHAIN)
    [request] = pending_approvals([first])
    decision = request.approve(by="ann")
    other = ToolCallMeta(run_id="run-2", session_id="sess-1", tool_call_id="call-9")
    # Another call with an equal decision runs its own code from the start (and the decision,
    # for exactly that restart, lets it run there).
    data = value(run(runtime, CHAIN, meta=other, approvals=[decision]))
    assert data["calls"] > 2 and restarts.ran == [request.arguments["device_id"]]


def test_an_approver_decides_inline_and_a_denial_is_a_permission_error() -> None:
    runtime, restarts = code_runtime(approver=lambda request, meta: True)
    data = value(run(runtime, CHAIN))
    assert data["value"]["accepted"] is True and len(restarts.ran) == 1

    runtime, restarts = code_runtime(approver=lambda request, meta: False)
    code = (
        "try:\n    restart_device(device_id='dev-00000000', reason='testing it')\n"
        "    out = 'ran'\nexcept PermissionError as e:\n    out = str(e)\nout"
    )
    data = value(run(runtime, code))
    assert "declined" in data["value"] and restarts.ran == []


def test_a_persons_time_does_not_count_against_the_runs_wall_clock() -> None:
    def slow_person(request: Any, meta: Any) -> bool:
        time.sleep(1.5)
        return True

    limits = CodeLimits(wall_seconds=1.0, calls=1_000_000)
    runtime, restarts = code_runtime(limits, approver=slow_person)
    assert value(run(runtime, CHAIN))["value"]["accepted"] is True and len(restarts.ran) == 1
    result = run(runtime, "while True:\n    get_site(site_id='hq')")
    assert not result.ok and "longer than 1 s" in result.for_model()


def test_code_catches_a_retry_hint_and_corrects_itself() -> None:
    runtime, _ = code_runtime()
    known = value(run(runtime, "list_devices(site_id='hq')['devices'][0]['id']"))["value"]
    code = f"""
wanted = "{known[4:]}"
try:
    get_device(device_id=wanted)
    msg = None
except ValueError as e:
    msg = str(e)
    if "must match" in msg:
        wanted = "dev-" + wanted
device = get_device(device_id=wanted)
{{"hint": msg, "fixed": device["id"]}}
"""
    data = value(run(runtime, code))
    assert "device_id" in data["value"]["hint"] and "must match" in data["value"]["hint"]
    assert data["value"]["fixed"] == known
    # The tool's own failure is a RuntimeError, with the runtime's answer as its message.
    code = "try:\n    get_device(device_id='dev-ffffffff')\nexcept RuntimeError as e:\n    out = str(e)\nout"
    assert "get_device" in value(run(runtime, code))["value"]


def test_injected_values_come_from_the_run_and_cannot_be_forged() -> None:
    seen: list[str | None] = []

    def restart(args: Any, meta: ToolCallMeta) -> Any:
        seen.append(args.session_id)
        from gen.assistant.toolsets.devices import types

        return types.RestartDeviceResult(accepted=True)

    runtime = example_runtime(
        device_handlers={"restart_device": restart}, approver=lambda r, m: True
    )
    runtime.register(code_mode_registration(CodeMode(runtime)))
    code = "restart_device(device_id='dev-0a1b2c3d', reason='forging', session_id='evil')"
    result = run(runtime, code)
    # The value the code sent for the injected field is discarded: the run's session is used.
    assert result.ok and seen == ["sess-1"]


def test_direct_only_tools_and_unknown_names_are_refused_to_code() -> None:
    runtime, _ = code_runtime()
    code = (
        "try:\n    update_preferences(theme='dark')\n    out = 'ran'\n"
        "except PermissionError as e:\n    out = str(e)\nout"
    )
    # update_preferences is idempotent: callable; made direct-only by the application.
    runtime, _ = code_runtime(access={"update_preferences": "direct"})
    assert "cannot be called from code" in value(run(runtime, code))["value"]
    assert "update_preferences" not in runtime.spec("run_code").description.split("Not callable")[0]
    code = "try:\n    delete_everything()\nexcept NameError as e:\n    out = str(e)\nout"
    data = value(run(runtime, code))
    assert "not defined" in data["value"]


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("import os\nos.listdir('/')", "PermissionError"),
        ("open('/etc/passwd').read()", "PermissionError"),
        ("import socket", "ModuleNotFoundError"),
        ("import subprocess", "ModuleNotFoundError"),
        ("__import__('os')", "NameError"),
        ("().__class__.__bases__", "AttributeError"),
        ("get_device.__globals__", "NameError"),  # tools are calls, not objects
        ("while True:\n    pass", "TimeoutError"),
        ("x = 'a' * 10**9", "MemoryError"),
        ("s = []\nwhile True:\n    s.append('x' * 10000)", "MemoryError"),
        ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
        ("def broken(:\n    pass", "parse"),
    ],
)
def test_hostile_code_is_stopped_with_a_clear_answer(code: str, words: str) -> None:
    runtime, _ = code_runtime(CodeLimits(seconds=0.5, memory_bytes=32 * 1024 * 1024))
    result = run(runtime, code)
    assert not result.ok
    text = result.for_model()
    assert words in text, text
    assert "tooldesign" not in text and "/root" not in text and "site-packages" not in text


def test_limits_on_calls_and_output_stop_the_run() -> None:
    runtime, _ = code_runtime(CodeLimits(calls=3, output_bytes=1000))
    result = run(runtime, "for i in range(10):\n    get_site(site_id='hq')")
    assert not result.ok and "more than 3 tool calls" in result.for_model()
    result = run(runtime, "print('x' * 5000)")
    assert not result.ok and "more than the 1000 allowed" in result.for_model()
    result = run(runtime, "'y' * 5000")
    assert not result.ok and "more than the 1000 allowed" in result.for_model()
    result = run(runtime, "x = 0\nfor i in range(10000):\n    x += i\nx")
    assert value(result)["value"] == sum(range(10000))
