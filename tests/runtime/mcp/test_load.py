"""Many clients at once over HTTP: every call is answered, and answered right.

``tooldesign serve-mcp --transport http`` in a subprocess on 127.0.0.1, and 200 of the SDK's
clients in this process, each with its own session, calling tools concurrently. The figures
(calls, seconds, latencies) are printed; ``-s`` shows them.
"""

from __future__ import annotations

import statistics
import time

import anyio
import pytest
from mcp import Client, types

from examples.netops.services import Inventory
from tests.commands.test_serve_mcp import serving_over_http
from tests.support.mcp_host import Person

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CLIENTS = 200
CALLS_PER_CLIENT = 8
INVENTORY = Inventory()
NO_PROFILE = (
    "Error: no profile for this session\n"
    'Recovery: replan — do not repeat this call to "get_profile" now; take another step.'
)
SITES = {site.id: site.name for site in INVENTORY.sites}


async def one_client(url: str, number: int, latencies: list[float], wrong: list[str]) -> None:
    """Open a session, call tools whose answers are known, and check every answer."""
    site_ids = list(SITES)
    # The person at each host approves the restarts the server asks about (Confirm).
    async with Client(url, elicitation_callback=Person("accept")) as client:
        for call in range(CALLS_PER_CLIENT):
            site = site_ids[(number + call) % len(site_ids)]
            started = time.perf_counter()
            match call % 4:
                case 0:
                    answer = await client.call_tool("get_site", {"site_id": site})
                    expected: object = SITES[site]
                    got = (answer.structured_content or {}).get("name")
                case 1:
                    answer = await client.call_tool("list_devices", {"site_id": site, "limit": 3})
                    expected = [site] * 3
                    devices = (answer.structured_content or {}).get("devices", [])
                    got = [device["site_id"] for device in devices]
                case 2:
                    device = f"dev-{number:08x}"
                    arguments = {"device_id": device, "reason": f"load test {number}"}
                    answer = await client.call_tool("restart_device", arguments)
                    expected = f"restart-{device}"
                    got = (answer.structured_content or {}).get("job_id")
                case _:
                    # The session is this client's own, and it has no profile.
                    answer = await client.call_tool("get_profile", {})
                    expected = [NO_PROFILE]
                    got = [b.text for b in answer.content if isinstance(b, types.TextContent)]
            latencies.append(time.perf_counter() - started)
            if got != expected:
                wrong.append(f"client {number}, call {call}: expected {expected!r}, got {got!r}")


async def test_two_hundred_clients_lose_nothing() -> None:
    latencies: list[float] = []
    wrong: list[str] = []
    async with serving_over_http() as (url, _):
        started = time.perf_counter()
        with anyio.fail_after(240):
            async with anyio.create_task_group() as clients:
                for number in range(CLIENTS):
                    clients.start_soon(one_client, url, number, latencies, wrong)
        elapsed = time.perf_counter() - started
    assert wrong == []
    assert len(latencies) == CLIENTS * CALLS_PER_CLIENT
    cuts = statistics.quantiles(latencies, n=100)
    print(
        f"\n{CLIENTS} clients, {len(latencies)} calls in {elapsed:.1f} s "
        f"({len(latencies) / elapsed:.0f} calls/s); latency p50 {cuts[49] * 1000:.0f} ms, "
        f"p95 {cuts[94] * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
    )
