"""Where tasks meet the other features of the MCP server (``tooldesign.runtime.mcp.tasks``):
approvals asked inside a task, cancelling a task racing its completion, questions nobody
answers, a full store. Raw 2026-07-28 JSON-RPC over the streamable-HTTP app in process; the
tools (``seams/design.py``) record each side effect, so "ran twice" is counted."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from tooldesign.generate import generate
from tooldesign.runtime import Runtime, ToolResult
from tooldesign.runtime.mcp import McpCallContext, Tasks, TaskStore, ToolServer

from tests.runtime.mcp.seams import tools
from tests.runtime.mcp.test_tasks import TASKS, Wire

pytestmark = pytest.mark.anyio

DESIGN = "tests/runtime/mcp/seams/design.py"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    out = tmp_path_factory.mktemp("seams")
    generate([DESIGN], out)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("seams.toolsets.jobs.executor")
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == "seams" or n.startswith("seams.")]:
            del sys.modules[name]


@pytest.fixture(autouse=True)
def effects() -> Iterator[list[str]]:
    tools.EFFECTS.clear()
    yield tools.EFFECTS
    tools.EFFECTS.clear()


class Served:
    """The server under test, its tasks, and a gate ``on_result`` waits at when closed."""

    def __init__(self, jobs: Any) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.observing = asyncio.Event()
        self.tasks = Tasks(TaskStore(limit=20))
        self.server = ToolServer(Runtime([jobs.new_registration()]), on_result=self.observe)
        self.tasks.serve_on(self.server)

    async def observe(self, result: ToolResult, context: McpCallContext) -> None:
        self.observing.set()
        await self.gate.wait()


@pytest.fixture
async def served(jobs: Any) -> Served:
    return Served(jobs)


@pytest.fixture
async def wire(served: Served) -> AsyncIterator[Wire]:
    app = served.server.streamable_http_app()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as http,
    ):
        yield Wire(http, {TASKS: {}})


async def test_cancelling_a_task_whose_call_ran_completes_it_with_its_result(
    wire: Wire, served: Served, effects: list[str]
) -> None:
    # The call ran (its effect is done) and the server is still observing it when the client
    # cancels: "cancelled" would tell the client it did not run, and a retry would run it again.
    served.gate.clear()
    created = await wire.call("archive", label="x")
    await asyncio.wait_for(served.observing.wait(), 5)
    await wire.result("tasks/cancel", {"taskId": created["taskId"]})
    served.gate.set()
    done = await wire.until(created["taskId"], "completed", "cancelled", "failed")
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "Archived x."
    assert effects == ["archived x"]


async def test_a_server_closing_on_a_task_whose_call_ran_completes_it(
    wire: Wire, served: Served, effects: list[str]
) -> None:
    served.gate.clear()
    ran = await wire.call("archive", label="y")
    await asyncio.wait_for(served.observing.wait(), 5)
    served.tasks.close()  # every running task ends: the one whose call ran, with its result
    done = await wire.until(ran["taskId"], "completed", "cancelled", "failed")
    assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "Archived y."
    assert effects == ["archived y"]
