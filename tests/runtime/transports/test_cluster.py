"""On a Redis Cluster of three primaries: each toolset's keys in one slot, so each script runs
on one node; agents and workers with cluster-aware clients reading per slot. Real servers."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from tooldesign.runtime import Runtime, ToolCallMeta, ToolResult
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisTransport

from gen.assistant.toolsets import devices
from tests.runtime.transports import app
from tests.support.netops import approve_all
from tests.support.programs import redis_binary
from tests.support.redis import RedisClusterGroup, running_worker
from tests.support.remote import restart


@pytest.fixture
def cluster() -> Iterator[RedisClusterGroup]:
    group = RedisClusterGroup(redis_binary())
    try:
        group.start()
        yield group
    finally:
        group.cleanup()


@pytest.mark.slow
def test_calls_run_on_a_three_primary_cluster(cluster: RedisClusterGroup, tmp_path: Path) -> None:
    url = cluster.url
    prefix = "cluster"
    log = tmp_path / "effects.log"

    async def main() -> list[ToolResult]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        try:
            worker_runtime = Runtime([app.registration(url, prefix, effects_log=str(log))])
            async with running_worker(worker_runtime, url, prefix, claim_timeout=1):
                calls = [
                    agent.execute(
                        restart(ToolCallMeta(session_id="s", run_id="c", tool_call_id=f"c{i}"))
                    )
                    for i in range(50)
                ]
                return list(await asyncio.gather(*calls))
        finally:
            await transport.close()

    results = asyncio.run(main())
    assert {r.telemetry.outcome for r in results} == {"ok"}, [r.for_model() for r in results][:3]
    assert set(app.read_effects(log).values()) == {1}
