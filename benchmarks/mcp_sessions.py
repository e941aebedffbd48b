"""A flood of MCP sessions against ``tooldesign serve-mcp --transport http``.

Opens sessions as fast as --connections concurrent connections can (raw ``initialize``
requests that never close their session) for --seconds, then connects the SDK's client and
calls a tool. Prints the sessions opened, the server's resident memory before and after, and
whether the newcomer got in. Run it with the server's session options after ``--``:

    python benchmarks/mcp_sessions.py --seconds 20 -- --max-sessions 1000

Reads /proc (Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
from mcp import Client

ROOT = Path(__file__).resolve().parents[1]

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"},
        },
    }
)
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def flood(url: str, seconds: float, connections: int) -> dict[str, int]:
    statuses: dict[str, int] = {}
    deadline = time.monotonic() + seconds

    async def opener(http: httpx2.AsyncClient) -> None:
        while time.monotonic() < deadline:
            answer = await http.post(url, content=INITIALIZE, headers=HEADERS)
            statuses[str(answer.status_code)] = statuses.get(str(answer.status_code), 0) + 1

    limits = httpx2.Limits(max_connections=connections)
    async with (
        httpx2.AsyncClient(timeout=30, limits=limits) as http,
        anyio.create_task_group() as openers,
    ):
        for _ in range(connections):
            openers.start_soon(opener, http)
    return statuses


async def run(seconds: float, connections: int, server_options: list[str]) -> None:
    script = shutil.which("tooldesign", path=str(Path(sys.executable).parent))
    assert script is not None, "install tooldesign in this environment"
    command = [script, "serve-mcp", "examples.netops.mcp_server:runtime", "--transport", "http"]
    process = await anyio.open_process(
        [*command, "--port", "0", *server_options],
        cwd=ROOT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        assert process.stderr is not None
        said = b""
        async for chunk in process.stderr:
            said += chunk
            if b"\n" in said:
                break
        found = re.search(r"at (http://\S+)", said.decode())
        assert found, said.decode()
        url = found.group(1)
        before = rss_mb(process.pid)
        started = time.monotonic()
        statuses = await flood(url, seconds, connections)
        took = time.monotonic() - started
        after = rss_mb(process.pid)
        try:
            with anyio.fail_after(30):
                async with Client(url) as client:
                    answer = await client.call_tool("get_site", {"site_id": "hq"})
            newcomer = "got in" if not answer.is_error else "got an error result"
        except Exception as exc:  # noqa: BLE001 (what a client sees is the figure)
            newcomer = f"locked out ({type(exc).__name__})"
        print(
            f"{sum(statuses.values())} openings in {took:.1f} s, answered {statuses}; "
            f"server RSS {before:.0f} -> {after:.0f} MB; a new client {newcomer}"
        )
    finally:
        process.terminate()
        await process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("server_options", nargs="*", help="serve-mcp options, after --")
    args = parser.parse_args()
    anyio.run(run, args.seconds, args.connections, args.server_options)


if __name__ == "__main__":
    main()
