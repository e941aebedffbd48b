"""What serving the MCP tasks extension (``Tasks().serve_on(server)``) costs a ``tools/call``
of a tool that is not long-running: tooldesign's server with and without it, side by side, CPU
time per call in memory (the SDK's client in the same process, counted the same for both).

The same tool as ``mcp_call.py`` (the worked example's ``get_site``); rounds alternate between
the servers; medians are printed with the ratio, the server without tasks as the baseline.

    python benchmarks/mcp_tasks.py [--calls 500] [--rounds 7] [--mode auto|legacy]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import Tasks, mcp_server

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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mode", choices=("auto", "legacy"), default="auto")
    options = parser.parse_args()
    anyio.run(main, options.calls, options.rounds, options.mode)
