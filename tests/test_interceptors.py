"""Interceptors: a real chain around every call, and the ones that ship (timeout, rate limit, logs)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from tooldesign.runtime import (
    CallNext,
    LogCalls,
    RateLimit,
    RetryReason,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)

from examples.netops.agent import restart_device
from examples.netops.services import DeviceService, Inventory, SiteService
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.sites import executor as sites

META = ToolCallMeta(session_id="sess-alice", tool_call_id="call-7", run_id="run-3")


class Recorder:
    """Records when it runs, before and after the rest of the chain."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        self.log.append(f"{self.name}>")
        result = await call_next(request, meta)
        self.log.append(f"<{self.name}")
        return result


def runtime_with(
    *,
    interceptors: Sequence[Any] = (),
    site_interceptors: Sequence[Any] = (),
    **device_handlers: Any,
) -> Runtime:
    inventory = Inventory()
    handlers: Any = {"restart_device": restart_device, **device_handlers}
    return Runtime(
        [
            sites.new_registration(
                service=SiteService(inventory), interceptors=tuple(site_interceptors)
            ),
            devices.new_registration(service=DeviceService(inventory), handlers=handlers),
        ],
        interceptors=interceptors,
    )


def call(runtime: Runtime, name: str, payload: Any) -> ToolResult:
    return runtime.execute_sync(ToolRequest(name, payload, META))


def test_runtime_interceptors_run_in_order_then_the_toolsets() -> None:
    log: list[str] = []
    runtime = runtime_with(
        interceptors=[Recorder("a", log), Recorder("b", log)],
        site_interceptors=[Recorder("site", log)],
    )
    assert call(runtime, "get_site", {"site_id": "hq"}).ok
    assert log == ["a>", "b>", "site>", "<site", "<b", "<a"]
    log.clear()
    assert call(runtime, "get_device", {"device_id": "dev-00000000"}).ok
    assert log == ["a>", "b>", "<b", "<a"]  # the sites toolset's interceptor is its own


def test_runtime_interceptors_also_see_unknown_tools() -> None:
    log: list[str] = []
    runtime = runtime_with(interceptors=[Recorder("a", log)])
    result = call(runtime, "nope", {})
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.TOOL_UNAVAILABLE
    assert log == ["a>", "<a"]


def test_an_interceptor_can_rewrite_the_payload_before_decoding() -> None:
    async def default_site(
        request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        raw = request.payload
        payload = json.loads(raw) if isinstance(raw, str | bytes) else dict(raw)
        payload.setdefault("site_id", "sgp")
        return await call_next(replace(request, payload=payload), meta)

    runtime = runtime_with(site_interceptors=[default_site])
    result = call(runtime, "get_site", "{}")
    assert result.ok
    assert json.loads(result.for_model())["id"] == "sgp"


def test_an_interceptor_can_short_circuit_and_the_tool_is_not_called() -> None:
    called: list[Any] = []

    def handler(args: Any, meta: ToolCallMeta) -> Any:
        called.append(args)
        return {"accepted": True}

    async def read_only_mode(
        request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        if request.name.endswith("restart_device"):
            return ToolResult.failure(request.name, "The assistant is in read-only mode.")
        return await call_next(request, meta)

    runtime = runtime_with(interceptors=[read_only_mode], restart_device=handler)
    result = call(runtime, "restart_device", {"device_id": "dev-0a1b2c3d", "reason": "stuck"})
    assert result.for_model() == "Error: The assistant is in read-only mode."
    assert called == []
    assert result.tool_call_id == "call-7"
    assert call(runtime, "get_site", {"site_id": "hq"}).ok


def test_an_interceptor_can_post_process_the_result() -> None:
    async def stamp(request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /) -> ToolResult:
        result = await call_next(request, meta)
        result.telemetry.extra["stamped_by"] = "audit"
        return result

    result = call(runtime_with(interceptors=[stamp]), "get_site", {"site_id": "hq"})
    assert result.telemetry.extra == {"stamped_by": "audit"}


def test_an_interceptor_sees_the_tool_id_even_when_called_by_name() -> None:
    seen: list[str] = []

    async def names(request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /) -> ToolResult:
        seen.append(request.name)
        return await call_next(request, meta)

    call(runtime_with(interceptors=[names]), "get_site", {"site_id": "hq"})
    assert seen == ["assistant.sites.get_site"]


# ── Timeout ──────────────────────────────────────────────────────────────────────────────


async def slow_restart(args: Any, meta: ToolCallMeta) -> Any:
    await asyncio.sleep(5)
    return {"accepted": True}


def test_timeout_turns_a_slow_call_into_a_timeout_hint() -> None:
    runtime = runtime_with(
        interceptors=[Timeout(5.0, per_tool={"restart_device": 0.05})], restart_device=slow_restart
    )
    result = call(runtime, "restart_device", {"device_id": "dev-0a1b2c3d", "reason": "stuck"})
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.TIMEOUT
    assert "did not finish within 0.05 s" in result.for_model()
    assert result.telemetry.outcome == "timeout"
    # Other tools keep the default limit.
    assert call(runtime, "get_site", {"site_id": "hq"}).ok


def test_timeout_rejects_a_limit_that_is_not_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Timeout(0)


# ── RateLimit ────────────────────────────────────────────────────────────────────────────


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_rate_limit_is_a_token_bucket_per_tool_with_retry_after() -> None:
    clock = Clock()
    limit = RateLimit(rate=2, burst=2, clock=clock)
    runtime = runtime_with(interceptors=[limit])
    assert call(runtime, "get_site", {"site_id": "hq"}).ok
    assert call(runtime, "get_site", {"site_id": "hq"}).ok
    limited = call(runtime, "get_site", {"site_id": "hq"})
    assert limited.retry_hint is not None
    assert limited.retry_hint.reason is RetryReason.RATE_LIMITED
    assert limited.retry_hint.retry_after == 0.5
    assert "Wait 0.50 s" in limited.for_model()
    # Another tool has its own bucket.
    assert call(runtime, "get_device", {"device_id": "dev-00000000"}).ok
    clock.now += 0.5
    assert call(runtime, "get_site", {"site_id": "hq"}).ok


def test_rate_limit_per_tool_settings() -> None:
    clock = Clock()
    runtime = runtime_with(
        interceptors=[RateLimit(rate=100, burst=100, per_tool={"get_site": (1, 1)}, clock=clock)]
    )
    assert call(runtime, "get_site", {"site_id": "hq"}).ok
    assert not call(runtime, "get_site", {"site_id": "hq"}).ok
    for _ in range(10):
        assert call(runtime, "get_device", {"device_id": "dev-00000000"}).ok


# ── LogCalls ─────────────────────────────────────────────────────────────────────────────


def test_log_calls_records_every_call_without_arguments_or_results(
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime = runtime_with(interceptors=[LogCalls()])
    with caplog.at_level(logging.INFO, logger="tooldesign.calls"):
        call(runtime, "get_site", {"site_id": "hq"})
        call(runtime, "list_devices", {"site_id": "hq", "session_id": "forged"})
        call(runtime, "get_site", {"site_id": 987654321})
    records = [r for r in caplog.records if r.name == "tooldesign.calls"]
    fields = [r.tooldesign for r in records]  # type: ignore[attr-defined]
    assert [(f["tool"], f["outcome"], f["retry_reason"]) for f in fields] == [
        ("assistant.sites.get_site", "ok", None),
        ("assistant.devices.list_devices", "ok", None),
        ("assistant.sites.get_site", "invalid_arguments", "invalid_arguments"),
    ]
    assert fields[1]["discarded_injected"] == ["session_id"]
    assert all(f["tool_call_id"] == "call-7" and f["session_id"] == "sess-alice" for f in fields)
    assert all(f["duration_ms"] >= 0 for f in fields)
    text = " ".join(r.getMessage() for r in records) + json.dumps(fields)
    assert "forged" not in text and "Headquarters" not in text and "987654321" not in text
