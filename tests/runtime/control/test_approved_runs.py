"""An approval unlocks one run of one call, even when the same call comes again while its run
is still going (``tooldesign.runtime.control.approved_runs``): a client retrying after a
timeout, a replayed round, a framework's node run again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tooldesign.runtime import Timeout, ToolCallMeta, ToolRequest
from tooldesign.runtime.reasons import RetryReason

from gen.assistant.toolsets.devices import types as device_types
from tests.support.calls import ALICE
from tests.support.netops import Restarts, example_runtime

pytestmark = pytest.mark.anyio

RESTART = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}


class SlowRestarts(Restarts):
    """Restarts that take a moment, so that a copy of the call arrives meanwhile."""

    async def __call__(
        self, args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        await asyncio.sleep(0.2)
        return await super().__call__(args, meta)


def runtime_of(restarts: Restarts) -> Any:
    return example_runtime("devices", "sites", device_handlers={"restart_device": restarts})


async def test_copies_of_an_approved_call_sent_while_it_runs_run_it_once() -> None:
    # Before: a run was recorded when it ended, so each copy arriving meanwhile ran it again.
    restarts = SlowRestarts()
    runtime = runtime_of(restarts)
    pending = await runtime.execute(ToolRequest("restart_device", RESTART, ALICE))
    assert pending.approval is not None
    granted = pending.approval.approve(by="alice")
    request = ToolRequest("restart_device", RESTART, ALICE)
    results = await asyncio.gather(
        *(runtime.execute(request, approvals=[granted]) for _ in range(3))
    )
    assert restarts.ran == ["dev-0a1b2c3d"]
    assert all(r.ok for r in results)
    assert len({r.result_json for r in results}) == 1
    assert sum(bool(r.telemetry.extra.get("replayed")) for r in results) == 2


async def test_a_copy_waiting_for_a_run_cancelled_midway_is_told_the_outcome_is_unknown() -> None:
    restarts = SlowRestarts()
    runtime = runtime_of(restarts)
    pending = await runtime.execute(ToolRequest("restart_device", RESTART, ALICE))
    assert pending.approval is not None
    granted = pending.approval.approve(by="alice")
    request = ToolRequest("restart_device", RESTART, ALICE)
    first = asyncio.ensure_future(runtime.execute(request, approvals=[granted]))
    await asyncio.sleep(0.05)
    copy = asyncio.ensure_future(runtime.execute(request, approvals=[granted]))
    await asyncio.sleep(0.05)
    first.cancel()
    answer = await copy
    assert not answer.ok and answer.retry_hint is not None
    assert answer.retry_hint.reason is RetryReason.OUTCOME_UNKNOWN
    assert restarts.ran == []  # neither ran it to its end; the copy did not run it at all


async def test_copies_decided_at_once_by_an_approver_that_waits_run_it_once() -> None:
    # Both copies are asked, and decided, while neither has started: the first to start runs
    # it, and the other waits for its answer.
    restarts = SlowRestarts()
    runtime = runtime_of(restarts)

    async def approver(request: Any, meta: ToolCallMeta) -> bool:
        await asyncio.sleep(0.05)  # a person deciding, for each copy
        return True

    request = ToolRequest("restart_device", RESTART, ALICE)
    results = await asyncio.gather(*(runtime.execute(request, approver=approver) for _ in range(2)))
    assert restarts.ran == ["dev-0a1b2c3d"]
    assert [r.ok for r in results] == [True, True]
    assert sum(bool(r.telemetry.extra.get("replayed")) for r in results) == 1


class HungRestarts(Restarts):
    """Restarts that take longer than the call may: every run of it times out."""

    async def __call__(
        self, args: device_types.RestartDevicePayload, meta: ToolCallMeta
    ) -> device_types.RestartDeviceResult:
        await asyncio.sleep(5)
        return await super().__call__(args, meta)


@pytest.mark.parametrize("lag", [0.0, 0.001, 0.1])
async def test_a_copy_of_a_call_that_timed_out_gets_that_runs_answer(lag: float) -> None:
    # The run timed out: its answer is the timeout's. A copy waiting for it (sent a moment
    # later, its own deadline a moment later) and a copy sent after it ended get that answer —
    # before, a copy answered timeout or outcome_unknown depending on which deadline came first,
    # and one sent after the run could run it again.
    restarts = HungRestarts()
    runtime = example_runtime(
        "devices",
        "sites",
        device_handlers={"restart_device": restarts},
        interceptors=[Timeout(0.3)],
    )
    pending = await runtime.execute(ToolRequest("restart_device", RESTART, ALICE))
    assert pending.approval is not None
    granted = pending.approval.approve(by="alice")
    request = ToolRequest("restart_device", RESTART, ALICE)
    first = asyncio.ensure_future(runtime.execute(request, approvals=[granted]))
    await asyncio.sleep(lag)
    copy = asyncio.ensure_future(runtime.execute(request, approvals=[granted]))
    own, waited = await asyncio.gather(first, copy)
    late = await runtime.execute(request, approvals=[granted])
    assert own.retry_hint is not None and own.retry_hint.reason is RetryReason.TIMEOUT
    for answer in (waited, late):
        assert answer.retry_hint is not None, answer
        assert answer.retry_hint.reason is RetryReason.TIMEOUT, answer.retry_hint
        assert answer.retry_hint.message == own.retry_hint.message
    assert late.telemetry.extra.get("replayed")
    assert restarts.ran == []
