"""Interceptors: a real chain around every call, and the ones that ship (timeout, rate limit, logs)."""

from __future__ import annotations

import asyncio
import functools
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
    RetryHint,
    RetryReason,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
)

from tests.support import calls
from tests.support.netops import approve_all, example_runtime

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
    return example_runtime(
        "sites",
        "devices",
        device_handlers=device_handlers,
        interceptors_of={"sites": site_interceptors},
        interceptors=interceptors,
        approver=approve_all,
    )


call = functools.partial(calls.call, meta=META)


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


def test_unknown_tools_are_answered_before_any_interceptor_runs() -> None:
    log: list[str] = []
    limit = RateLimit(rate=1, burst=1, clock=Clock())
    runtime = runtime_with(interceptors=[Recorder("a", log), limit])
    for _ in range(2):  # a rate limit in the chain never answers for an unknown name
        result = call(runtime, "nope", {})
        assert result.retry_hint is not None
        assert result.retry_hint.reason is RetryReason.TOOL_UNAVAILABLE
        assert "get_site" in result.retry_hint.valid_tools
        assert result.telemetry.outcome == "tool_unavailable"
    assert log == []
    assert limit._buckets == {}  # no bucket for a name that is not a tool
    assert call(runtime, "get_site", {"site_id": "hq"}).ok  # the real tool's burst is intact


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
    assert result.for_model().splitlines()[0] == "Error: The assistant is in read-only mode."
    assert called == []
    assert result.tool_call_id == "call-7"
    assert result.telemetry.outcome == "error"
    assert call(runtime, "get_site", {"site_id": "hq"}).ok


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (ToolResult("x", result={"cached": True}), "ok"),
        (ToolResult.failure("x", "No."), "error"),
        (
            ToolResult.failure(
                "x", "Later.", hint=RetryHint(RetryReason.RATE_LIMITED, "x", "Later.")
            ),
            "rate_limited",
        ),
    ],
    ids=["ok", "error", "hint"],
)
def test_a_short_circuit_result_gets_an_outcome(answer: ToolResult, outcome: str) -> None:
    async def answering(
        request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        return answer

    result = call(runtime_with(interceptors=[answering]), "get_site", {"site_id": "hq"})
    assert result.telemetry.outcome == outcome


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


def test_rate_limit_memory_is_bounded_whatever_names_reach_it() -> None:
    clock = Clock()
    limit = RateLimit(rate=1, burst=1, clock=clock)

    async def run_tool(request: ToolRequest, meta: ToolCallMeta) -> ToolResult:
        return ToolResult(request.name, result={})

    async def one(name: str) -> ToolResult:
        return await limit(ToolRequest(name, "{}", META), META, run_tool)

    async def flood() -> tuple[ToolResult, ToolResult]:
        assert (await one("hot")).ok
        for i in range(5_000):  # used directly, an interceptor may see any name
            clock.now += 0.001
            await one(f"junk-{i}")
        return await one("hot"), await one("junk-4999")

    hot, last = asyncio.run(flood())
    # Refilled buckets are dropped: only names seen in the last second (1 / rate) hold one.
    assert len(limit._buckets) <= 2 * 1_000
    # A bucket still refilling is kept: "hot" waited 5 s and is served, the newest is limited.
    assert hot.ok
    assert not last.ok and last.retry_hint is not None


def test_rate_limit_per_tool_settings() -> None:
    clock = Clock()
    runtime = runtime_with(
        interceptors=[RateLimit(rate=100, burst=100, per_tool={"get_site": (1, 1)}, clock=clock)]
    )
    assert call(runtime, "get_site", {"site_id": "hq"}).ok
    assert not call(runtime, "get_site", {"site_id": "hq"}).ok
    for _ in range(10):
        assert call(runtime, "get_device", {"device_id": "dev-00000000"}).ok


def call_as(runtime: Runtime, name: str, payload: Any, meta: ToolCallMeta) -> ToolResult:
    return runtime.execute_sync(ToolRequest(name, payload, meta))


def test_rate_limit_per_caller_one_client_cannot_use_up_a_tool_for_all() -> None:
    clock = Clock()
    runtime = runtime_with(interceptors=[RateLimit(rate=1, burst=2, key="session_id", clock=clock)])
    alice, bob = META, replace(META, session_id="sess-bob")
    site = {"site_id": "hq"}
    assert call_as(runtime, "get_site", site, alice).ok
    assert call_as(runtime, "get_site", site, alice).ok
    drained = call_as(runtime, "get_site", site, alice)
    assert drained.retry_hint is not None
    assert drained.retry_hint.reason is RetryReason.RATE_LIMITED
    # Bob's calls take from his own bucket: alice's flood does not limit him.
    assert call_as(runtime, "get_site", site, bob).ok
    assert call_as(runtime, "get_site", site, bob).ok
    assert not call_as(runtime, "get_site", site, bob).ok
    # Calls without a session share one bucket.
    nobody = replace(META, session_id=None)
    assert call_as(runtime, "get_site", site, nobody).ok
    assert call_as(runtime, "get_site", site, nobody).ok
    assert not call_as(runtime, "get_site", site, replace(nobody, session_id="")).ok


def test_rate_limit_keyed_by_a_label_or_a_function_of_the_metadata() -> None:
    clock = Clock()
    by_user = RateLimit(rate=1, burst=1, key="user_id", clock=clock)
    runtime = runtime_with(interceptors=[by_user])
    as_user = {u: replace(META, labels={"user_id": u}) for u in ("u-1", "u-2")}
    assert call_as(runtime, "get_site", {"site_id": "hq"}, as_user["u-1"]).ok
    assert not call_as(runtime, "get_site", {"site_id": "hq"}, as_user["u-1"]).ok
    assert call_as(runtime, "get_site", {"site_id": "hq"}, as_user["u-2"]).ok

    def tenant(request: ToolRequest, meta: ToolCallMeta) -> str:
        return str(meta.labels.get("tenant", "shared"))

    by_tenant = RateLimit(rate=1, burst=1, key=tenant, clock=clock)
    runtime = runtime_with(interceptors=[by_tenant])
    acme = replace(META, labels={"tenant": "acme"})
    assert call_as(runtime, "get_site", {"site_id": "hq"}, acme).ok
    assert not call_as(runtime, "get_site", {"site_id": "hq"}, acme).ok
    assert call_as(runtime, "get_site", {"site_id": "hq"}, META).ok
    assert by_tenant.caller(ToolRequest("get_site", "{}", acme), acme) == "acme"
    with pytest.raises(TypeError, match="key must be a metadata value's name or a function"):
        RateLimit(rate=1, key=42)  # type: ignore[arg-type]


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
    assert [(f["tool"], f["outcome"], f["retry_reason"], f["exception"]) for f in fields] == [
        ("assistant.sites.get_site", "ok", None, None),
        ("assistant.devices.list_devices", "ok", None, None),
        ("assistant.sites.get_site", "invalid_arguments", "invalid_arguments", None),
    ]
    assert fields[1]["discarded_injected"] == ["session_id"]
    assert all(f["tool_call_id"] == "call-7" and f["session_id"] == "sess-alice" for f in fields)
    assert all(f["duration_ms"] >= 0 for f in fields)
    text = " ".join(r.getMessage() for r in records) + json.dumps(fields)
    assert "forged" not in text and "Headquarters" not in text and "987654321" not in text


def test_log_calls_logs_a_call_whose_later_interceptor_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(
        request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        raise ValueError("secret-token-42 in an interceptor")

    async def read_only(
        request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        return ToolResult.failure(request.name, "Read-only.")

    with caplog.at_level(logging.INFO, logger="tooldesign.calls"):
        failed = call(
            runtime_with(interceptors=[LogCalls(), broken]), "get_site", {"site_id": "hq"}
        )
        refused = call(
            runtime_with(interceptors=[LogCalls(), read_only]), "get_site", {"site_id": "hq"}
        )
    # The runtime still answers the failing interceptor; LogCalls re-raised, having logged it.
    assert not failed.ok and "inside the runtime" in failed.for_model()
    assert not refused.ok
    records = [r for r in caplog.records if r.name == "tooldesign.calls"]
    fields = [r.tooldesign for r in records]  # type: ignore[attr-defined]
    assert [(f["tool"], f["outcome"], f["exception"]) for f in fields] == [
        ("assistant.sites.get_site", "error", "ValueError"),
        ("assistant.sites.get_site", "error", None),  # a short circuit says nothing: filled in
    ]
    assert all(f["tool_call_id"] == "call-7" for f in fields)
    assert "secret-token-42" not in " ".join(r.getMessage() for r in records) + json.dumps(fields)


def test_unknown_tools_are_logged_by_the_runtime(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        call(runtime_with(interceptors=[LogCalls()]), "x" * 500, {})
    [record] = [r for r in caplog.records if r.name.startswith("tooldesign")]
    assert record.name == "tooldesign.runtime" and record.levelno == logging.WARNING
    assert 'no tool named "xxx' in record.getMessage()
    assert len(record.getMessage()) < 200  # the name is the model's: shown cut short
