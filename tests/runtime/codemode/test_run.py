"""CodeMode on its own: the access policy, and the calls of a code run as children of its span.

Tests that run code start pydantic-monty's worker processes: slow."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tooldesign.builtin.code_mode import code_mode_registration
from tooldesign.runtime import ToolCallMeta, ToolRequest, Tracing
from tooldesign.runtime.codemode import CodeMode, default_access

from tests.support.netops import example_runtime


def test_the_default_policy_follows_side_effects() -> None:
    runtime = example_runtime()
    mode = CodeMode(runtime)
    access = {spec.name: mode.access_of(spec) for spec in runtime.specs()}
    assert access["list_devices"] == access["get_device"] == "call"  # read-only
    assert access["update_preferences"] == "call"  # idempotent
    assert access["restart_device"] == access["schedule_maintenance"] == "approve"  # Confirm
    assert access["check_reachability"] == "direct"  # read-only, but the design's CodeAccess
    spec = runtime.spec("get_device")
    assert spec is not None
    assert default_access(type(spec.annotations)(), None) == "direct"  # says nothing: direct


def test_an_application_changes_access_but_never_skips_an_approval() -> None:
    runtime = example_runtime()
    mode = CodeMode(
        runtime,
        access={"get_device": "direct", "restart_device": "call", "check_reachability": "call"},
    )
    get_device, restart = runtime.spec("get_device"), runtime.spec("restart_device")
    assert get_device is not None and restart is not None
    assert mode.access_of(get_device) == "direct"
    assert mode.access_of(restart) == "approve"
    probe = runtime.spec("check_reachability")
    assert probe is not None and mode.access_of(probe) == "call"  # over the design's word
    assert "def get_device" not in mode.api() and "get_device" in mode.api()
    with pytest.raises(ValueError, match="code mode access for 'x' is 'free'"):
        CodeMode(runtime, access={"x": "free"})


@pytest.mark.slow
def test_inner_calls_are_children_of_the_code_runs_span(spans: Any) -> None:
    provider, exporter = spans
    runtime = example_runtime(tracing=Tracing(tracer_provider=provider))
    runtime.register(code_mode_registration(CodeMode(runtime)))
    meta = ToolCallMeta(run_id="r", tool_call_id="c")
    code = json.dumps({"code": "get_site(site_id='hq')['name']"})
    result = runtime.execute_sync(ToolRequest("run_code", code, meta))
    assert result.ok, result.for_model()
    finished = exporter.get_finished_spans()
    outer = next(s for s in finished if "run_code" in s.name)
    inner = next(s for s in finished if "get_site" in s.name)
    assert inner.parent is not None and inner.parent.span_id == outer.context.span_id
    assert inner.context.trace_id == outer.context.trace_id


def test_the_host_waits_inline_while_turns_are_short_and_in_a_thread_after_a_long_one() -> None:
    import asyncio
    import threading
    import time

    from tooldesign.runtime.codemode.run import _Drive

    def turn(seconds: float) -> int:
        time.sleep(seconds)
        return threading.get_ident()

    async def main() -> list[bool]:
        loop_thread = threading.get_ident()
        drive = _Drive(0.02)
        seen = []
        for seconds in (0, 0.05, 0, 0, 0.05, 0.05, 0):
            seen.append(await drive(turn, seconds) == loop_thread)
        never = _Drive(0)
        seen.append(await never(turn, 0) == loop_thread)
        return seen

    # A short turn keeps the next inline; a long one sends the next to a thread, and a short
    # one there brings it back. With 0, every turn runs in a thread.
    assert asyncio.run(main()) == [True, True, False, True, True, False, False, False]


@pytest.mark.slow
@pytest.mark.parametrize("inline_seconds", [0.0, 0.02])
def test_a_long_turn_of_code_holds_the_event_loop_at_most_once(inline_seconds: float) -> None:
    import asyncio
    import time

    runtime = example_runtime()
    mode = CodeMode(runtime, inline_seconds=inline_seconds)
    # Three long turns after a tool call each: at most the first is waited for inline.
    code = (
        "for i in range(3):\n"
        "    get_site(site_id='hq')\n"
        "    x = 0\n"
        "    for j in range(3000000):\n"
        "        x += j\n"
        "x"
    )

    async def main() -> tuple[Any, list[float]]:
        gaps: list[float] = []
        done = asyncio.Event()

        async def tick() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        ticker = asyncio.create_task(tick())
        try:
            outcome = await mode.run(code, ToolCallMeta(run_id="r"))
        finally:
            done.set()
            await ticker
        return outcome, gaps

    outcome, gaps = asyncio.run(main())
    assert getattr(outcome, "value", None) == sum(range(3000000)), outcome
    held = [g for g in gaps if g > 0.15]
    assert len(held) <= (0 if inline_seconds == 0 else 1), gaps


@pytest.mark.slow
def test_a_run_cancelled_or_out_of_wall_time_mid_turn_ends_now() -> None:
    """A turn running in a thread when the run is cancelled, or its wall clock runs out, has
    its worker stopped: the run ends now, not when the interpreter's own time runs out."""
    import asyncio
    import time

    from tooldesign.runtime import ToolFailure
    from tooldesign.runtime.codemode import CodeLimits

    runtime = example_runtime()
    spin = "x = 0\nwhile True:\n    x += 1"

    async def main() -> tuple[float, float, Any]:
        mode = CodeMode(runtime, limits=CodeLimits(seconds=4), inline_seconds=0)
        started = time.perf_counter()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(mode.run(spin, ToolCallMeta(run_id="a")), 0.3)
        cancelled = time.perf_counter() - started
        walled = CodeMode(runtime, limits=CodeLimits(seconds=4, wall_seconds=0.3), inline_seconds=0)
        started = time.perf_counter()
        with pytest.raises(ToolFailure, match="longer than 0.3 s"):
            await walled.run(f"get_site(site_id='hq')\n{spin}", ToolCallMeta(run_id="b"))
        out_of_time = time.perf_counter() - started
        # The code mode still runs code afterwards.
        after = await mode.run("get_site(site_id='hq')['name']", ToolCallMeta(run_id="c"))
        return cancelled, out_of_time, after

    cancelled, out_of_time, after = asyncio.run(main())
    assert cancelled < 2 and out_of_time < 2, (cancelled, out_of_time)
    assert getattr(after, "value", None) == "Headquarters"


@pytest.mark.slow
def test_a_value_nested_past_what_json_encoders_carry_is_a_clear_failure() -> None:
    """Code whose last value nests lists or dicts hundreds of levels deep (past pydantic's 255
    levels, or Python's recursion limit) is answered with what to return instead — not an
    internal error, nor "a bug in the tool" — and a value within the bound is returned."""
    from tooldesign.runtime.codemode.run import MAX_VALUE_DEPTH

    runtime = example_runtime()
    runtime.register(code_mode_registration(CodeMode(runtime)))

    def nested(levels: int, wrap: str) -> str:
        return f"x = []\nfor i in range({levels}):\n    x = {wrap}\nx"

    for levels in (300, 100_000):
        for wrap in ("[x]", "{'a': x}"):
            code = nested(levels, wrap)
            answer = runtime.execute_sync(ToolRequest("run_code", {"code": code}))
            assert not answer.ok
            text = answer.for_model()
            assert f"more than {MAX_VALUE_DEPTH} levels deep" in text, text
            assert "internal error" not in text and "malformed" not in text
    kept = runtime.execute_sync(
        ToolRequest("run_code", {"code": nested(MAX_VALUE_DEPTH - 1, "[x]")})
    )
    assert kept.ok, kept.for_model()


@pytest.mark.slow
def test_two_sessions_paused_on_an_equal_call_each_resume_their_own_run() -> None:
    """Alice's and Bob's code runs (same call id, same code) both pause on the same restart —
    one approval id. Each approval resumes its own session's paused run from its pause: the
    list before the pause is fetched once per session, never again, whoever decides first."""
    from tooldesign.runtime import CallEvent, CallFinished

    from tests.support.netops import Restarts

    code = (
        'online = list_devices(site_id="hq", status="online")["devices"]\n'
        'restart_device(device_id=online[0]["id"], reason="restart from code")["accepted"]'
    )
    restarts = Restarts()
    runtime = example_runtime(device_handlers={"restart_device": restarts})
    runtime.register(code_mode_registration(CodeMode(runtime)))
    events: list[CallEvent] = []
    runtime.subscribe(events.append)

    def call(session: str) -> ToolRequest:
        return ToolRequest(
            "run_code", {"code": code}, ToolCallMeta(session_id=session, tool_call_id="c1")
        )

    alice = runtime.execute_sync(call("sess-alice"))
    bob = runtime.execute_sync(call("sess-bob"))
    assert alice.approval is not None and bob.approval is not None
    assert alice.approval.id == bob.approval.id  # an equal inner call: one approval id
    for session, waiting in (("sess-alice", alice), ("sess-bob", bob)):
        assert waiting.approval is not None
        done = runtime.execute_sync(call(session), approvals=[waiting.approval.approve(by=session)])
        assert done.ok, done.for_model()
    lists = [e for e in events if isinstance(e, CallFinished) and e.name == "list_devices"]
    assert len(lists) == 2 and len(restarts.ran) == 2
