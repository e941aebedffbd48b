"""The seams' server (:class:`Served`) and its clients (:class:`Caller`: raw 2026-07-28 JSON-RPC
with a bearer token)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from tooldesign.runtime import Runtime, ToolResult
from tooldesign.runtime.mcp import McpCallContext, Tasks, TaskStore, ToolServer

from tests.runtime.mcp.test_tasks import TASKS, Wire

ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789ab"


class Caller(Wire):
    """A 2026-07-28 client holding a bearer token."""

    def __init__(self, http: httpx.AsyncClient, token: str) -> None:
        super().__init__(http, {TASKS: {}})
        self.token = token

    async def send(self, method: str, params: dict[str, Any], **headers: str) -> dict[str, Any]:
        return await super().send(method, params, Authorization=f"Bearer {self.token}", **headers)

    async def answer(self, task_id: str, **responses: Any) -> dict[str, Any]:
        return await self.send("tasks/update", {"taskId": task_id, "inputResponses": responses})


def approve(yes: bool) -> dict[str, Any]:
    return {"action": "accept", "content": {"approve": yes}}


class Served:
    """The server under test, its tasks, and a gate ``on_result`` waits at when closed."""

    def __init__(self, jobs: Any, store: TaskStore, **options: Any) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.observing = asyncio.Event()
        self.tasks = Tasks(store)
        runtime = Runtime([jobs.new_registration()], **options)
        self.server = ToolServer(runtime, on_result=self.observe)
        self.tasks.serve_on(self.server)

    async def observe(self, result: ToolResult, context: McpCallContext) -> None:
        self.observing.set()
        await self.gate.wait()
