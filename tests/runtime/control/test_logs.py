"""Log messages from tools: who hears them, what they carry, and that a tool never pays for it."""

from __future__ import annotations

import contextvars
import logging
import threading

import pytest
from tooldesign.runtime import Runtime, ToolCallMeta, ToolLog, ToolRequest, log_message, logs_to

from examples.netops.services import Inventory, MetricsService
from gen.assistant.toolsets.metrics import executor as metrics


def test_a_listener_hears_every_level_with_its_data_and_logger() -> None:
    heard: list[ToolLog] = []
    with logs_to(heard.append):
        log_message("debug", "starting")
        ToolCallMeta().log("error", {"code": 7}, logger="probes")
    assert heard == [
        ToolLog("debug", "starting", None),
        ToolLog("error", {"code": 7}, "probes"),
    ]


def test_without_a_listener_messages_go_to_python_logging(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="tooldesign.tools"):
        log_message("warning", "disk almost full", logger="probes")
        log_message("emergency", "on fire")
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("tooldesign.tools.probes", logging.WARNING, "disk almost full"),
        ("tooldesign.tools", logging.CRITICAL + 10, "on fire"),
    ]


def test_an_unknown_level_reads_as_info_and_long_text_is_cut() -> None:
    heard: list[ToolLog] = []
    with logs_to(heard.append):
        log_message("loud", "x" * 10_000)  # type: ignore[arg-type]
    [message] = heard
    assert message.level == "info"
    assert len(message.data) == 4000 and message.data.endswith("…")


def test_a_failing_listener_never_reaches_the_tool_and_outer_listeners_still_hear() -> None:
    outer: list[ToolLog] = []

    def broken(message: ToolLog) -> None:
        raise RuntimeError("observer bug")

    with logs_to(outer.append), logs_to(broken):
        log_message("info", "still here")
    assert [m.data for m in outer] == ["still here"]


def test_a_thread_that_outlives_its_block_logs_to_nobody() -> None:
    heard: list[ToolLog] = []
    go, done = threading.Event(), threading.Event()

    def late() -> None:
        go.wait(5)
        log_message("info", "after the end")
        done.set()

    with logs_to(heard.append):
        thread = threading.Thread(target=contextvars.copy_context().run, args=(late,))
        thread.start()
    go.set()
    assert done.wait(5)
    thread.join(5)
    assert heard == []


@pytest.mark.anyio
async def test_a_sync_tool_run_by_the_runtime_logs_to_the_callers_listener() -> None:
    runtime = Runtime([metrics.new_registration(service=MetricsService(Inventory()))])
    heard: list[ToolLog] = []
    with logs_to(heard.append):
        result = await runtime.execute(ToolRequest("check_reachability", {"value": "core.hq"}))
        gone = await runtime.execute(ToolRequest("check_reachability", {"value": "x.invalid"}))
    assert result.ok and gone.ok
    assert [(m.level, m.data) for m in heard] == [
        ("info", "core.hq: 5 of 5 probes answered"),
        ("notice", "x.invalid: no answer to 5 probes"),
    ]
