"""Behind Sentinel: a replica promoted while calls run (the old primary answers READONLY, then
follows the new one), then the new primary killed (and started again, as a replica). Workers and agents find the primary again;
no call is lost, answered wrongly or run twice (workers wait for a replica to have each call's
start mark: --wait-replicas 1; with no replica left, they wait). Real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import signal
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
from tests.support.redis import SentinelGroup, wait_live, worker_process
from tests.support.remote import DEVICES, VERSION, restart


@pytest.fixture
def sentinel() -> Iterator[SentinelGroup]:
    group = SentinelGroup(redis_binary())
    try:
        group.start()
        yield group
    finally:
        group.cleanup()


@pytest.mark.slow
def test_workers_and_agents_follow_a_promoted_replica(
    sentinel: SentinelGroup, tmp_path: Path
) -> None:
    url = sentinel.url
    prefix = "failover"
    effects_log = tmp_path / "effects.log"
    logs = [tmp_path / f"worker-{i}.log" for i in range(2)]
    options = ("--claim-timeout", "2", "--wait-replicas", "1")
    workers = [
        worker_process(url, prefix, *options, log=log, TD_EFFECTS_LOG=str(effects_log))
        for log in logs
    ]

    async def main() -> list[ToolResult]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=30)], approver=approve_all
        )
        try:
            await wait_live(transport, DEVICES, VERSION)
            window = asyncio.Semaphore(16)

            async def one(i: int) -> ToolResult:
                async with window:
                    meta = ToolCallMeta(session_id="s", run_id="failover", tool_call_id=f"c{i}")
                    return await agent.execute(restart(meta, sleep=0.05))

            calls = [asyncio.create_task(one(i)) for i in range(400)]
            await asyncio.sleep(1.0)
            await asyncio.to_thread(sentinel.failover)  # READONLY from the old primary
            await asyncio.sleep(2.0)
            primary = sentinel.current()
            primary.process.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
            await asyncio.sleep(3.0)  # the Sentinel promotes the other; then this one is back
            primary.process = None
            await asyncio.to_thread(primary.start)  # as a replica (the Sentinel says so)
            return list(await asyncio.gather(*calls))
        finally:
            await transport.close()

    try:
        results = asyncio.run(main())
        alive = [worker.poll() is None for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        codes = [worker.wait(timeout=60) for worker in workers]
    assert alive == [True, True], [log.read_text()[-3000:] for log in logs]
    assert codes == [0, 0]
    # While the second primary is down no replica is left: calls that must not run twice wait
    # for one (--wait-replicas 1); when it is back, as a replica, they run.
    outcomes = {r.telemetry.outcome for r in results}
    assert outcomes <= {"ok", "outcome_unknown"}, [r.for_model() for r in results if not r.ok]
    ran = app.read_effects(effects_log)
    assert set(ran.values()) == {1}  # nothing ran twice
    for result in results:
        if result.ok:  # its own answer, never another call's
            call_id, _, _, reason = result.result.job_id.split("|")
            assert ran[("restart_device", call_id)] == 1 and reason == "testing"
