"""Workers killed with SIGKILL while serving: no call lost, no side effect run twice."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import pytest
import redis
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisTransport
from tooldesign.runtime.transports.redis_keys import RedisKeys

from gen.assistant.toolsets import devices
from tests.runtime.transports.app import effects_key
from tests.support.netops import approve_all
from tests.support.redis import RedisServer, wait_live, worker_process

pytestmark = pytest.mark.slow  # a Redis server, workers in subprocesses

CALLS = 10_000
CLAIM_TIMEOUT = 2.0


def held_by(client: redis.Redis, stream: str, consumer: str) -> int:
    """How many calls of ``stream`` ``consumer`` has read and not answered yet."""
    consumers = client.xpending(stream, "workers")["consumers"]
    return sum(c["pending"] for c in consumers if c["name"] == consumer)


def test_killing_a_worker_at_40_percent_loses_no_call_and_repeats_no_effect(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    url = redis_server.url
    options = ("--concurrency", "64", "--claim-timeout", str(CLAIM_TIMEOUT))
    logs = [tmp_path / "worker-0.log", tmp_path / "worker-1.log"]
    workers = [worker_process(url, prefix, *options, log=log, TD_DELAY="0.02") for log in logs]
    try:
        transport = RedisTransport(url, prefix=prefix, max_in_flight=256)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=120)], approver=approve_all
        )
        remote = agent.specs("devices")

        async def run() -> tuple[list[ToolResult], float]:
            from tooldesign.runtime.spec.catalog import toolset_version

            await wait_live(transport, "assistant.devices", toolset_version(remote))
            # Both serve before the calls start: the one killed must hold calls when it dies.
            while not all("serving assistant.devices" in log.read_text() for log in logs):
                await asyncio.sleep(0.05)
            serving = re.search(r"worker (\S+) serving", logs[0].read_text())
            assert serving is not None
            stream = RedisKeys(prefix).requests("assistant.devices", toolset_version(remote))
            done = 0
            killed_at = 0.0
            forty_percent = asyncio.Event()

            async def kill() -> None:
                # At 40% of the answers, once worker 0 holds calls: an idle worker's death
                # (the agent, not the workers, may be the slower side) would test nothing.
                nonlocal killed_at
                await forty_percent.wait()
                with redis_server.client() as client:
                    while not held_by(client, stream, serving[1]):
                        await asyncio.sleep(0.001)
                os.kill(workers[0].pid, signal.SIGKILL)
                killed_at = time.monotonic()

            async def one(i: int) -> ToolResult:
                nonlocal done
                meta = ToolCallMeta(run_id="kill", tool_call_id=f"c{i}", session_id="s")
                if i % 2:
                    request = ToolRequest("get_device", {"device_id": "dev-00000000"}, meta)
                else:
                    request = ToolRequest(
                        "restart_device", {"device_id": "dev-00000000", "reason": "kill test"}, meta
                    )
                result = await agent.execute(request)
                done += 1
                if done == CALLS * 4 // 10:
                    forty_percent.set()
                return result

            killing = asyncio.create_task(kill())
            results = await asyncio.gather(*(one(i) for i in range(CALLS)))
            assert killing.done(), "worker 0 held no call after 40% of the answers"
            await killing
            took = time.monotonic() - killed_at
            await transport.close()
            return list(results), took

        results, after_kill = asyncio.run(run())
        assert workers[0].wait(timeout=10) == -signal.SIGKILL
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        codes = [worker.wait(timeout=60) for worker in workers]
    assert codes[1] == 0, logs[1].read_text()

    outcomes: dict[tuple[str, str], int] = {}
    for result in results:
        key = (result.name.rsplit(".", 1)[-1], result.telemetry.outcome)
        outcomes[key] = outcomes.get(key, 0) + 1
    print(f"\noutcomes: {outcomes}; last answer {after_kill:.2f} s after the kill")
    assert len(results) == CALLS
    # Every call answered: none lost, none timed out.
    allowed = {
        ("restart_device", "ok"),
        ("restart_device", "outcome_unknown"),
        ("get_device", "ok"),
    }
    assert set(outcomes) <= allowed, outcomes

    with redis_server.client() as client:
        restarts = client.hgetall(effects_key(prefix, "restart_device"))
        reads = client.hgetall(effects_key(prefix, "get_device"))
    # No non-idempotent call took effect twice; each answered ok took effect once.
    assert all(int(count) == 1 for count in restarts.values()), restarts
    for result in results:
        if result.name.endswith("restart_device") and result.ok:
            assert restarts.get(result.result.job_id.split("|")[0]) == "1"
    # The read-only calls the killed worker held were delivered again and answered.
    assert len(reads) == CALLS // 2
    taken_over = logs[1].read_text().count("took over call")
    assert taken_over > 0
    assert (
        outcomes.get(("restart_device", "outcome_unknown"), 0)
        + sum(int(c) > 1 for c in reads.values())
        <= taken_over
    )
