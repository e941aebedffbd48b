"""An MCP ``tools/call`` through tooldesign's server and through the SDK's own ``MCPServer``,
side by side: CPU time per call, in memory (the SDK's client in the same process, so client
and server are both counted, the same for both).

The same tool on both: the worked example's ``get_site`` (one string argument, a ``Site``
dataclass as structured content), on the example's ``SiteService``. Rounds alternate between
the servers, so what the machine does meanwhile falls on both, each round starting with the
next server (none always follows another); medians are printed with the ratio, the SDK's
server as the baseline, and the median of the rounds' own ratios (each round's time over the
baseline's in the same round: steadier on a loaded machine). A third server is tooldesign's
with a verified caller on every call (a ``Principal``, as a bearer token gives one) and the
hash-chained audit trail (``JsonLinesAudit``, a temporary file): what the principal and the
audit add to a call.

``--instructions`` counts instructions instead (valgrind's callgrind, one process per server,
counting only the calls, after a warm-up): slow, but the same from one run to the next
whatever else the machine runs.

    python benchmarks/mcp_call.py [--calls 500] [--rounds 7] [--mode auto|legacy]
    python benchmarks/mcp_call.py --instructions [--calls 200] [--mode auto|legacy]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tooldesign.runtime import JsonLinesAudit, Principal, Runtime, ToolCallMeta
from tooldesign.runtime.mcp import McpCallContext, mcp_server

from examples.netops.models import Site
from examples.netops.services import Inventory, SiteService
from gen.assistant.toolsets.sites import executor as sites

ARGUMENTS = {"site_id": "hq"}


def tooldesign_server() -> Any:
    runtime = Runtime([sites.new_registration(service=SiteService(Inventory()))])
    return mcp_server(runtime, name="bench").server


def audited_server(trail: Path) -> Any:
    runtime = Runtime(
        [sites.new_registration(service=SiteService(Inventory()))],
        audit=JsonLinesAudit(trail),
    )
    caller = Principal.of("bench", ["sites:read"], "bench")

    def meta_for(context: McpCallContext) -> ToolCallMeta:
        return dataclasses.replace(context.meta, principal=caller)  # as a verified token does

    return mcp_server(runtime, name="bench", meta_for=meta_for).server


def sdk_server() -> Any:
    service = SiteService(Inventory())
    app = MCPServer("bench")

    @app.tool()
    def get_site(site_id: str) -> Site:
        """Get one site by id."""
        return service.get_site(site_id)

    return app


async def cpu_per_call(client: Client, calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        result = await client.call_tool("get_site", ARGUMENTS)
        assert not result.is_error, result
    return (time.process_time() - started) / calls * 1e6


async def main(calls: int, rounds: int, mode: str) -> None:
    folder = tempfile.TemporaryDirectory()
    servers = {
        "SDK MCPServer (baseline)": sdk_server(),
        "tooldesign ToolServer": tooldesign_server(),
        "+ scopes and audit": audited_server(Path(folder.name) / "audit.jsonl"),
    }
    samples: dict[str, list[float]] = {label: [] for label in servers}
    async with (
        Client(servers["SDK MCPServer (baseline)"], mode=mode) as sdk,
        Client(servers["tooldesign ToolServer"], mode=mode) as ours,
        Client(servers["+ scopes and audit"], mode=mode) as audited,
    ):
        clients = {
            "SDK MCPServer (baseline)": sdk,
            "tooldesign ToolServer": ours,
            "+ scopes and audit": audited,
        }
        for client in clients.values():  # warm up
            await cpu_per_call(client, max(calls // 5, 20))
        order = list(clients)
        for turn in range(rounds):
            # Each round starts with the next server: none always runs right after another.
            for label in order[turn % len(order) :] + order[: turn % len(order)]:
                samples[label].append(await cpu_per_call(clients[label], calls))
        version = sdk.protocol_version
    baseline = samples["SDK MCPServer (baseline)"]
    print(f"tools/call get_site, in memory, protocol {version}: {calls} calls x {rounds} rounds")
    for label, values in samples.items():
        median = statistics.median(values)
        # The ratio of each round to the baseline's round beside it: what the machine's load
        # did between rounds falls out of it.
        paired = statistics.median(v / b for v, b in zip(values, baseline, strict=True))
        print(
            f"  {label:<26} {median:8.0f} µs CPU per call  "
            f"({median / statistics.median(baseline):.2f}x; per round {paired:.2f}x)"
        )
    folder.cleanup()


SERVERS: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "sdk": ("SDK MCPServer (baseline)", lambda _: sdk_server()),
    "tooldesign": ("tooldesign ToolServer", lambda _: tooldesign_server()),
    "audited": ("+ scopes and audit", lambda folder: audited_server(folder / "audit.jsonl")),
}


async def counted_calls(server: str, calls: int, mode: str) -> None:
    """In a process under callgrind: ``calls`` calls to ``server``, counted, after a warm-up."""
    with tempfile.TemporaryDirectory() as folder:
        async with Client(SERVERS[server][1](Path(folder)), mode=mode) as client:
            await cpu_per_call(client, 50)
            _callgrind("--instr=on")
            for _ in range(calls):
                await client.call_tool("get_site", ARGUMENTS)
            _callgrind("--instr=off")


def _callgrind(switch: str) -> None:
    subprocess.run(["callgrind_control", switch, str(os.getpid())], check=True, capture_output=True)


def instructions(calls: int, mode: str) -> None:
    """Instructions per call of each server, each in a process of its own under callgrind."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    counts: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for server in SERVERS:
            command = [
                *("valgrind", "--tool=callgrind", "--instr-atstart=no"),
                f"--callgrind-out-file={folder}/{server}.out",
                *(sys.executable, __file__, "--count", server),
                *("--calls", str(calls), "--mode", mode),
            ]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            collected = re.search(r"Collected : (\d+)", done.stderr)
            assert collected is not None, done.stderr
            counts[server] = int(collected.group(1)) / calls
    print(f"tools/call get_site, in memory ({mode}): instructions per call, {calls} calls each")
    for server, count in counts.items():
        label = SERVERS[server][0]
        print(f"  {label:<26} {count / 1000:8.0f}k  ({count / counts['sdk']:.3f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mode", choices=("auto", "legacy"), default="auto")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--count", choices=SERVERS, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.count:
        anyio.run(counted_calls, options.count, options.calls, options.mode)
    elif options.instructions:
        instructions(options.calls or 200, options.mode)
    else:
        anyio.run(main, options.calls or 500, options.rounds, options.mode)
