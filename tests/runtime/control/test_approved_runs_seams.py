"""An approved call cancelled midway, then sent again: it may have taken effect, so the copy
is told the outcome is unknown, whether it waited for the run or came after it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from tooldesign.runtime import ToolRequest
from tooldesign.runtime.reasons import RetryReason

from tests.runtime.control.test_approved_runs import RESTART, SlowRestarts, runtime_of
from tests.support.calls import ALICE

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("once", [False, True])
async def test_a_copy_sent_after_its_run_was_cancelled_midway_is_not_run_again(
    once: bool,
) -> None:
    # Before: a copy that waited for the run was told outcome_unknown, but one sent after the
    # cancel found no run and no answer, and ran the call again under the same approval.
    restarts = SlowRestarts()
    runtime = runtime_of(restarts)
    pending = await runtime.execute(ToolRequest("restart_device", RESTART, ALICE))
    assert pending.approval is not None
    granted = pending.approval.approve(by="alice", once=once)
    request = ToolRequest("restart_device", RESTART, ALICE)
    first = asyncio.ensure_future(runtime.execute(request, approvals=[granted]))
    await asyncio.sleep(0.05)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    copy = await runtime.execute(request, approvals=[granted])
    assert not copy.ok and copy.retry_hint is not None, copy
    assert copy.retry_hint.reason is RetryReason.OUTCOME_UNKNOWN
    assert restarts.ran == []


async def test_another_call_under_an_approval_for_any_call_still_runs() -> None:
    # once=False unlocks any call of these arguments: a new call (another id) runs.
    restarts = SlowRestarts()
    runtime = runtime_of(restarts)
    pending = await runtime.execute(ToolRequest("restart_device", RESTART, ALICE))
    assert pending.approval is not None
    granted = pending.approval.approve(by="alice", once=False)
    first = asyncio.ensure_future(
        runtime.execute(ToolRequest("restart_device", RESTART, ALICE), approvals=[granted])
    )
    await asyncio.sleep(0.05)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    other = ToolRequest("restart_device", RESTART, replace(ALICE, tool_call_id="call-2"))
    assert (await runtime.execute(other, approvals=[granted])).ok
    assert restarts.ran == ["dev-0a1b2c3d"]
