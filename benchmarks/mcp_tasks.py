"""What serving the MCP tasks extension (``Tasks().serve_on(server)``) costs a ``tools/call``
of a tool that is not long-running: tooldesign's server with and without it, side by side, CPU
time per call in memory (the SDK's client in the same process, counted the same for both).

The same tool as ``mcp_call.py`` (the worked example's ``get_site``); rounds alternate between
the servers; medians are printed with the ratio, the server without tasks as the baseline.

Then what a task costs from ``tools/call`` to its result, by where tasks are kept: in the
server's process (``TaskStore``, the baseline) or in Redis (``RedisTaskStore``, on a
``redis-server`` this benchmark starts from PATH, over a unix socket): the same ``get_site``,
long-running, called over the streamable-HTTP app in memory (raw 2026-07-28 JSON-RPC: the
call, then ``tasks/get`` until it is completed), CPU time of this process and wall time per
task (Redis's own CPU is not counted), rounds alternating between the stores.

    python benchmarks/mcp_tasks.py [--calls 500] [--rounds 7] [--mode auto|legacy] [--tasks 200]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import RedisTaskStore, Tasks, TaskStore, mcp_server

from benchmarks.local_redis import redis_server
from examples.netops.services import Inventory, SiteService
from gen.assistant.toolsets.sites import executor as sites

BASELINE = "ToolServer (baseline)"
WITH_TASKS = "ToolServer + Tasks"


async def cpu_per_call(client: Client, calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        result = await client.call_tool("get_site", {"site_id": "hq"})
        assert not result.is_error, result
    return (time.process_time() - started) / calls * 1e6


def server(tasks: bool) -> Any:
    runtime = Runtime([sites.new_registration(service=SiteService(Inventory()))])
    served = mcp_server(runtime, name="bench")
    if tasks:
        Tasks().serve_on(served)
    return served.server


async def main(calls: int, rounds: int, mode: str) -> None:
    samples: dict[str, list[float]] = {BASELINE: [], WITH_TASKS: []}
    async with (
        Client(server(tasks=False), mode=mode) as plain,
        Client(server(tasks=True), mode=mode) as tasked,
    ):
        clients = {BASELINE: plain, WITH_TASKS: tasked}
        for client in clients.values():  # warm up
            await cpu_per_call(client, max(calls // 5, 20))
        for _ in range(rounds):
            for label, client in clients.items():
                samples[label].append(await cpu_per_call(client, calls))
        version = plain.protocol_version
    baseline = statistics.median(samples[BASELINE])
    print(f"tools/call get_site, in memory, protocol {version}: {calls} calls x {rounds} rounds")
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"  {label:<22} {median:8.0f} µs CPU per call  ({median / baseline:.2f}x)")


IN_PROCESS = "TaskStore (baseline)"
IN_REDIS = "RedisTaskStore"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
}


@contextlib.asynccontextmanager
async def task_client(store: TaskStore) -> AsyncIterator[httpx.AsyncClient]:
    registration = sites.new_registration(service=SiteService(Inventory()))
    long = TaskSupport(poll_ms=10)
    tools = tuple(replace(b, spec=replace(b.spec, task=long)) for b in registration.tools)
    served = mcp_server(Runtime([replace(registration, tools=tools)]), name="bench")
    tasks = Tasks(store)
    tasks.serve_on(served)
    app = served.streamable_http_app()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as http,
    ):
        yield http
    tasks.close()
    if isinstance(store, RedisTaskStore):
        await store.aclose()


async def send(http: httpx.AsyncClient, method: str, **params: Any) -> dict[str, Any]:
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": ENVELOPE}}
    answer: dict[str, Any] = (await http.post("/mcp", json=body, headers=headers)).json()
    return answer["result"]  # type: ignore[no-any-return]


async def per_task(http: httpx.AsyncClient, count: int) -> tuple[float, float]:
    """CPU µs and wall ms per task, from tools/call to its completed result."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        task = await send(http, "tools/call", name="get_site", arguments={"site_id": "hq"})
        while task.get("status") != "completed":
            await anyio.sleep(0.001)
            task = await send(http, "tasks/get", taskId=task["taskId"])
        assert "result" in task, task
    return (
        (time.process_time() - cpu) / count * 1e6,
        (time.perf_counter() - wall) / count * 1e3,
    )


async def stores(count: int, rounds: int) -> None:
    with redis_server() as url:
        samples: dict[str, list[tuple[float, float]]] = {IN_PROCESS: []}
        async with contextlib.AsyncExitStack() as stack:
            clients = {IN_PROCESS: await stack.enter_async_context(task_client(TaskStore()))}
            if url is not None:
                redis_store = RedisTaskStore(url, prefix="bench")
                clients[IN_REDIS] = await stack.enter_async_context(task_client(redis_store))
                samples[IN_REDIS] = []
            for http in clients.values():  # warm up
                await per_task(http, max(count // 5, 10))
            for _ in range(rounds):
                for label, http in clients.items():
                    samples[label].append(await per_task(http, count))
    print(
        f"a task of get_site, tools/call to completed, in memory: {count} tasks x {rounds} rounds"
    )
    cpu_base = statistics.median(c for c, _ in samples[IN_PROCESS])
    wall_base = statistics.median(w for _, w in samples[IN_PROCESS])
    for label, values in samples.items():
        cpu = statistics.median(c for c, _ in values)
        wall = statistics.median(w for _, w in values)
        print(
            f"  {label:<22} {cpu:8.0f} µs CPU ({cpu / cpu_base:.2f}x)"
            f"  {wall:6.2f} ms wall ({wall / wall_base:.2f}x) per task"
        )
    if url is None:
        print(f"  {IN_REDIS:<22} not measured: redis-server is not on PATH")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mode", choices=("auto", "legacy"), default="auto")
    parser.add_argument("--tasks", type=int, default=200)
    options = parser.parse_args()
    anyio.run(main, options.calls, options.rounds, options.mode)
    anyio.run(stores, options.tasks, options.rounds)
