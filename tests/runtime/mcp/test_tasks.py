"""Long-running tools over the MCP tasks extension (``tooldesign.runtime.mcp.tasks``), in raw
JSON-RPC over the streamable-HTTP app in process (2026-07-28 requests): a task created at once,
polled to its result, parked on a question and resumed by ``tasks/update``, cancelled, failed by
a crash; refused without the extension. The tools are the conformance suite's tasks fixtures
(``conformance/design.py``, toolset ``tasks``)."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tooldesign.contract.tasks import TaskSupport
from tooldesign.generate import generate
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import Tasks, TaskStore, ToolServer

from tests.runtime.mcp.conformance.tools import ScenarioError

pytestmark = pytest.mark.anyio

HERE = Path(__file__).parent / "conformance"
VERSION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    out = tmp_path_factory.mktemp("tasks")
    generate([str(HERE / "design.py")], out)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("conformance.toolsets.tasks.executor")
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == "conformance" or n.startswith("conformance.")]:
            del sys.modules[name]


class Wire:
    """A 2026-07-28 client in raw JSON-RPC: each request carries its envelope and headers."""

    def __init__(self, http: httpx.AsyncClient, extensions: dict[str, Any]) -> None:
        self.http = http
        self.capabilities = {"elicitation": {}, "extensions": extensions}
        self.ids = iter(range(1, 10_000))

    async def send(self, method: str, params: dict[str, Any], **headers: str) -> dict[str, Any]:
        body = {
            "jsonrpc": "2.0",
            "id": next(self.ids),
            "method": method,
            "params": {
                **params,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": VERSION,
                    "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                    **params.get("_meta", {}),
                },
            },
        }
        sent = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": VERSION,
            "Mcp-Method": method,
        }
        if method == "tools/call":
            sent["Mcp-Name"] = params["name"]
        answer = await self.http.post("/mcp", json=body, headers={**sent, **headers})
        text = answer.text
        if "data: " in text:  # an SSE answer: its last message
            text = [line[6:] for line in text.splitlines() if line.startswith("data: ")][-1]
        message: dict[str, Any] = json.loads(text)
        return message

    async def result(self, method: str, params: dict[str, Any], **headers: str) -> dict[str, Any]:
        message = await self.send(method, params, **headers)
        assert "result" in message, message
        result: dict[str, Any] = message["result"]
        return result

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        return await self.result("tools/call", {"name": tool, "arguments": arguments})

    async def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        deadline = time.monotonic() + 10
        while True:
            got = await self.result("tasks/get", {"taskId": task_id})
            if got["status"] in statuses or time.monotonic() > deadline:
                return got
            await asyncio.sleep(0.05)


@pytest.fixture
def tasks() -> Tasks:
    return Tasks(TaskStore(limit=50))


@pytest.fixture
async def http(fixtures: Any, tasks: Tasks) -> AsyncIterator[httpx.AsyncClient]:
    server = ToolServer(Runtime([fixtures.new_registration()], expose=(ScenarioError,)))
    tasks.serve_on(server)
    app = server.streamable_http_app()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as client,
    ):
        yield client


@pytest.fixture
def wire(http: httpx.AsyncClient) -> Wire:
    return Wire(http, {TASKS: {}})


async def test_a_long_running_tool_answers_a_task_polled_to_its_result(wire: Wire) -> None:
    created = await wire.call("slow_compute", seconds=0, label="x")
    assert created["resultType"] == "task"
    assert set(created) >= {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"}
    assert created["ttlMs"] == 600_000 and created["pollIntervalMs"] == 200
    assert not {"result", "error", "inputRequests", "requestState", "task"} & set(created)
    done = await wire.until(created["taskId"], "completed")
    assert done["resultType"] == "complete" and done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "Computed x after 0 second(s)."
    assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})


async def test_a_sync_tool_and_a_client_without_the_extension_get_plain_results(
    http: httpx.AsyncClient, wire: Wire
) -> None:
    greeted = await wire.call("greet", name="Ada")
    assert greeted["resultType"] == "complete" and "taskId" not in greeted
    plain = Wire(http, {})
    answered = await plain.call("slow_compute", seconds=0)
    assert answered["resultType"] == "complete" and "taskId" not in answered
    opted_in = await plain.result(
        "tools/call",
        {
            "name": "slow_compute",
            "arguments": {"seconds": 0},
            "_meta": {"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}},
        },
    )
    assert opted_in["resultType"] == "task"  # asked for in this request alone


async def test_a_handshake_client_declaring_the_extension_gets_plain_results(
    http: httpx.AsyncClient,
) -> None:
    # The extension is a 2026-07-28 one (the official clients, @modelcontextprotocol/ext-tasks
    # and the MCP Inspector, read a task only on that wire; on 2025-11-25 they read every
    # tools/call answer as a CallToolResult): the MCP Inspector's CLI declares it at a
    # 2025-11-25 initialize, and read the task it was answered as a result without content.
    accept = {"Accept": "application/json, text/event-stream"}

    async def post(body: dict[str, Any], **headers: str) -> Any:
        answer = await http.post(
            "/mcp", json={"jsonrpc": "2.0", **body}, headers={**accept, **headers}
        )
        text = answer.text
        if "data: " in text:
            text = [line[6:] for line in text.splitlines() if line.startswith("data: ")][-1]
        return answer, json.loads(text) if text else None

    capabilities = {"elicitation": {}, "extensions": {TASKS: {}}}
    hello = {"protocolVersion": "2025-11-25", "capabilities": capabilities}
    hello["clientInfo"] = {"name": "handshake", "version": "1"}
    answer, initialized = await post({"id": 0, "method": "initialize", "params": hello})
    assert initialized["result"]["protocolVersion"] == "2025-11-25"
    session = {"Mcp-Session-Id": answer.headers["mcp-session-id"]}
    session["MCP-Protocol-Version"] = "2025-11-25"
    await post({"method": "notifications/initialized"}, **session)
    call = {"name": "slow_compute", "arguments": {"seconds": 0, "label": "x"}}
    _, answered = await post({"id": 1, "method": "tools/call", "params": call}, **session)
    result = answered["result"]
    assert "taskId" not in result and result.get("resultType", "complete") == "complete"
    assert result["content"][0]["text"] == "Computed x after 0 second(s)."
    _, refused = await post({"id": 2, "method": "tasks/get", "params": {"taskId": "x"}}, **session)
    assert refused["error"]["code"] == -32021
    assert "a 2026-07-28 one, and this connection speaks 2025-11-25" in refused["error"]["message"]


async def test_without_the_extension_tasks_methods_and_required_tools_are_refused(
    http: httpx.AsyncClient,
) -> None:
    plain = Wire(http, {})
    refused = await plain.send("tools/call", {"name": "failing_job", "arguments": {}})
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    for method in ("tasks/get", "tasks/cancel"):
        answer = await plain.send(method, {"taskId": "x"})
        assert answer["error"]["code"] == -32021


async def test_a_question_parks_the_task_until_tasks_update_answers_it(wire: Wire) -> None:
    created = await wire.call("multi_input")
    parked = await wire.until(created["taskId"], "input_required")
    assert set(parked["inputRequests"]) == {"first", "second"}
    assert parked["inputRequests"]["first"]["method"] == "elicitation/create"
    answer = {"action": "accept", "content": {"name": "Ada", "confirm": True}}
    ack = await wire.result(
        "tasks/update", {"taskId": created["taskId"], "inputResponses": {"first": answer}}
    )
    assert ack == {"resultType": "complete", "_meta": ack["_meta"]}
    waiting = await wire.result("tasks/get", {"taskId": created["taskId"]})
    assert waiting["status"] == "input_required" and list(waiting["inputRequests"]) == ["second"]
    await wire.result(
        "tasks/update",
        {
            "taskId": created["taskId"],
            "inputResponses": {"second": {**answer, "content": {"name": "Bo", "confirm": True}}},
        },
    )
    done = await wire.until(created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "Got Ada and Bo."


async def test_cancelling_a_task_cancels_its_call(wire: Wire, tasks: Tasks) -> None:
    created = await wire.call("slow_compute", seconds=60)
    ack = await wire.result("tasks/cancel", {"taskId": created["taskId"]})
    assert "status" not in ack
    cancelled = await wire.result("tasks/get", {"taskId": created["taskId"]})
    assert cancelled["status"] == "cancelled" and "result" not in cancelled
    runner = tasks.store.get(created["taskId"], None).runner  # type: ignore[union-attr]
    assert runner is not None
    await asyncio.wait_for(asyncio.shield(runner), 2)  # the tool's call ended
    again = await wire.result("tasks/cancel", {"taskId": created["taskId"]})
    assert again["resultType"] == "complete"  # an ended task: nothing changes
    running = await wire.call("slow_compute", seconds=60)
    tasks.close()  # the server stops: every running task is cancelled
    stopped = await wire.result("tasks/get", {"taskId": running["taskId"]})
    assert stopped["status"] == "cancelled"


async def test_a_tool_error_completes_and_a_crash_fails_the_task(wire: Wire) -> None:
    failing = await wire.call("failing_job")
    crashing = await wire.call("protocol_error_job")
    errored = await wire.until(failing["taskId"], "completed", "failed")
    assert errored["status"] == "completed" and errored["result"]["isError"] is True
    crashed = await wire.until(crashing["taskId"], "completed", "failed")
    assert crashed["status"] == "failed" and "result" not in crashed
    assert (
        crashed["error"]["code"] == -32603 and "protocol_error_job" in crashed["error"]["message"]
    )


async def test_unknown_tasks_and_mismatched_routing_headers_are_refused(wire: Wire) -> None:
    unknown = await wire.send("tasks/get", {"taskId": "nope"})
    assert unknown["error"]["code"] == -32602 and "'nope'" in unknown["error"]["message"]
    created = await wire.call("slow_compute", seconds=0)
    mismatched = await wire.send(
        "tasks/get", {"taskId": created["taskId"]}, **{"Mcp-Name": "another"}
    )
    assert mismatched["error"]["code"] == -32020
    matched = await wire.result(
        "tasks/get", {"taskId": created["taskId"]}, **{"Mcp-Name": created["taskId"]}
    )
    assert matched["taskId"] == created["taskId"]


async def test_asks_first_asks_in_the_call_then_makes_the_task(wire: Wire) -> None:
    first = await wire.call("test_tool_with_task")
    assert first["resultType"] == "input_required" and "taskId" not in first
    [key] = first["inputRequests"]
    second = await wire.result(
        "tools/call",
        {
            "name": "test_tool_with_task",
            "arguments": {},
            "inputResponses": {key: {"action": "accept", "content": {"name": "Alice"}}},
            "requestState": first["requestState"],
        },
    )
    assert second["resultType"] == "task" and "requestState" not in second
    done = await wire.until(second["taskId"], "completed")
    assert "Alice" in done["result"]["content"][0]["text"]


def test_the_store_is_bounded_and_forgets_ended_tasks_after_their_keep() -> None:
    store = TaskStore(limit=2)
    short = TaskSupport(keep_ms=1)
    first = store.add("t", None, short)
    store.add("t", "alice", short)
    with pytest.raises(Exception, match="runs 2 tasks already"):
        store.add("t", None, short)
    first.set_status("completed")
    third = store.add("t", None, TaskSupport())  # the ended one makes room
    assert store.get(first.id, None) is None and store.get(third.id, None) is third
    assert store.get(third.id, "bob") is third  # an unowned task: whoever has its id
    owned = next(t for t in store._tasks.values() if t.owner == "alice")
    assert store.get(owned.id, "bob") is None and store.get(owned.id, "alice") is owned
    with pytest.raises(ValueError, match="positive"):
        TaskStore(limit=0)


class Blocking:
    """slow_compute as a sync tool, run in a worker thread: each run waits for ``release``,
    then takes effect (counted)."""

    def __init__(self, fixtures: Any) -> None:
        self.types = importlib.import_module(fixtures.__name__.rsplit(".", 1)[0] + ".types")
        self.started = threading.Semaphore(0)
        self.release = threading.Event()
        self.effects: list[str] = []

    def __call__(self, args: Any, meta: Any) -> Any:
        self.started.release()
        self.release.wait(10)
        self.effects.append(args.label)
        return self.types.SlowComputeResult(f"computed {args.label}")

    async def running(self) -> None:
        assert await asyncio.to_thread(self.started.acquire, True, 5), "no run started"


async def test_cancelling_a_task_whose_sync_tool_runs_in_a_thread_does_not_hide_its_effect(
    fixtures: Any,
) -> None:
    # A worker thread cannot be stopped: cancelled, the task stays working until the thread
    # returns, then completes with what it did (the extension's cancel is cooperative). A call
    # still waiting for a thread is dropped: it never runs, and the task is cancelled.
    blocking = Blocking(fixtures)
    registration = fixtures.new_registration(handlers={"slow_compute": blocking})
    server = ToolServer(Runtime([registration], worker_threads=1))
    tasks = Tasks(TaskStore(limit=50))
    tasks.serve_on(server)
    app = server.streamable_http_app()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as http,
    ):
        wire = Wire(http, {TASKS: {}})
        running = await wire.call("slow_compute", seconds=1, label="running")
        await blocking.running()
        queued = await wire.call("slow_compute", seconds=1, label="queued")  # no thread free
        for task in (running, queued):
            await wire.result("tasks/cancel", {"taskId": task["taskId"]})
        dropped = await wire.until(queued["taskId"], "cancelled")
        assert dropped["status"] == "cancelled"
        await asyncio.sleep(0.2)
        still = await wire.result("tasks/get", {"taskId": running["taskId"]})
        assert still["status"] == "working", still  # its thread runs: not cancelled
        blocking.release.set()
        done = await wire.until(running["taskId"], "completed", "cancelled", "failed")
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"] == {"result": "computed running"}
    assert blocking.effects == ["running"]  # the dropped call never ran


async def stream(
    wire: Wire, method: str, params: dict[str, Any], **sent: str
) -> list[dict[str, Any]]:
    """Every message of a request's SSE answer (a listen stream: until it ends)."""
    body = {
        "jsonrpc": "2.0",
        "id": 77,
        "method": method,
        "params": {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": wire.capabilities,
            },
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    answer = await wire.http.post("/mcp", json=body, headers={**headers, **sent}, timeout=20)
    return [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]


async def test_a_listen_stream_is_told_each_status_of_the_tasks_it_follows(wire: Wire) -> None:
    # notifications/tasks (the extension's optional status notifications, on a
    # subscriptions/listen stream asking for taskIds): the task's state when the stream opens,
    # then each change, as tasks/get would answer it; the stream ends once the task has ended.
    created = await wire.call("multi_input")
    task_id = created["taskId"]
    await wire.until(task_id, "input_required")
    listening = asyncio.ensure_future(
        stream(wire, "subscriptions/listen", {"notifications": {"taskIds": [task_id, "nope"]}})
    )
    await asyncio.sleep(0.3)
    answer = {"action": "accept", "content": {"name": "Ada", "confirm": True}}
    update = {"taskId": task_id, "inputResponses": {"first": answer}}
    await wire.result("tasks/update", update)
    await asyncio.sleep(0.1)
    second = {"action": "accept", "content": {"name": "Bo", "confirm": True}}
    await wire.result("tasks/update", {"taskId": task_id, "inputResponses": {"second": second}})
    messages = await asyncio.wait_for(listening, 10)
    ack, *notices, end = messages
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"taskIds": [task_id]}  # "nope" is no task
    assert {n["method"] for n in notices} == {"notifications/tasks"}
    states = [n["params"] for n in notices]
    assert all(s["_meta"] == ack["params"]["_meta"] for s in states)  # the subscription's id
    assert [s["status"] for s in states] == [
        "input_required",  # when the stream opened
        "input_required",  # one answered, the other still asked
        "working",
        "completed",
    ]
    assert set(states[0]["inputRequests"]) == {"first", "second"}
    assert list(states[1]["inputRequests"]) == ["second"]  # one answered: still asked
    assert states[-1]["status"] == "completed"
    assert states[-1]["result"]["content"][0]["text"] == "Got Ada and Bo."
    final = await wire.result("tasks/get", {"taskId": task_id})
    assert {k: v for k, v in final.items() if k not in ("resultType", "_meta")} == {
        k: v for k, v in states[-1].items() if k != "_meta"
    }
    assert "result" in end and end["id"] == 77  # the stream's end


async def test_task_notifications_need_the_extension(http: httpx.AsyncClient) -> None:
    plain = Wire(http, {})
    refused = await plain.send("subscriptions/listen", {"notifications": {"taskIds": ["x"]}})
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
