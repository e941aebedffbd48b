"""notifications/tasks for a task this server ran until another took it over (its lease lapsed
while it lived): the stream follows the task's record from then on, not this process's copy,
whose own end (here: completed) is not the task's (there: failed)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.mcp.task_notices import listen
from tooldesign.runtime.mcp.task_store import Task

pytestmark = pytest.mark.anyio

SUPPORT = TaskSupport(poll_ms=100, keep_ms=60_000)


class _Session:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send_notification(self, notice: Any, related_request_id: Any = None) -> None:
        self.sent.append(notice)


class _SharedStore:
    """A store whose tasks outlive their server (as Redis's): ``local`` runs here."""

    hands_over = True

    def __init__(self, local: Task) -> None:
        self.local = local

    async def find(self, task_id: str, owner: str | None) -> Task | None:
        return self.local


async def test_a_stream_follows_a_task_taken_over_from_this_server_by_its_record() -> None:
    local = Task("t-1", "slow", None, SUPPORT)
    local.runner = asyncio.ensure_future(asyncio.sleep(60))  # it runs here
    record = Task("t-1", "slow", None, SUPPORT)  # what another server writes once it has it
    holder = {"now": local}

    async def current(task_id: str) -> Task | None:
        return holder["now"]

    session = _Session()
    ctx: Any = SimpleNamespace(
        request_id=7, params={"notifications": {"taskIds": ["t-1"]}}, session=session
    )
    try:
        stream = asyncio.ensure_future(
            listen(ctx, _SharedStore(local), None, ["t-1"], None, current)
        )
        await asyncio.sleep(0.05)
        holder["now"] = record  # taken over by another server
        await asyncio.sleep(0.3)  # a poll reads its record
        local.result = {"content": []}
        local.set_status("completed")  # this process's copy ends its own way: not the task's
        await asyncio.sleep(0.05)
        record.error = {"code": -32603, "message": "outcome unknown"}
        record.set_status("failed")
        await asyncio.wait_for(stream, 5)
    finally:
        local.runner.cancel()
    states = [n.params["status"] for n in session.sent[1:]]
    assert states[-1] == "failed" and "completed" not in states, states
    assert local.watchers == []
