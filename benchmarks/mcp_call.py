"""An MCP ``tools/call`` through tooldesign's server and through the SDK's own ``MCPServer``,
side by side: CPU time per call, in memory (the SDK's client in the same process, so client
and server are both counted, the same for both).

The same tool on both: the worked example's ``get_site`` (one string argument, a ``Site``
dataclass as structured content), on the example's ``SiteService``. Rounds alternate between
the servers, so what the machine does meanwhile falls on both; medians are printed with the
ratio, the SDK's server as the baseline. A third server is tooldesign's with a verified caller
on every call (a ``Principal``, as a bearer token gives one) and the hash-chained audit trail
(``JsonLinesAudit``, a temporary file): what the principal and the audit add to a call.

    python benchmarks/mcp_call.py [--calls 500] [--rounds 7] [--mode auto|legacy]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
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
        for _ in range(rounds):
            for label, client in clients.items():
                samples[label].append(await cpu_per_call(client, calls))
        version = sdk.protocol_version
    baseline = statistics.median(samples["SDK MCPServer (baseline)"])
    print(f"tools/call get_site, in memory, protocol {version}: {calls} calls x {rounds} rounds")
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"  {label:<26} {median:8.0f} µs CPU per call  ({median / baseline:.2f}x)")
    folder.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mode", choices=("auto", "legacy"), default="auto")
    options = parser.parse_args()
    anyio.run(main, options.calls, options.rounds, options.mode)
