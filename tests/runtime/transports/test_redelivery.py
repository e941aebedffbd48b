"""Calls whose worker was lost, slow calls, dead letters, failing loops, stops and restarts,
on a real Redis (and Valkey) server.

A lost worker is played by a consumer ``ghost`` that takes a call from the group and never
answers, as a killed worker leaves it (tests/runtime/transports/test_kill.py kills real processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.transports import RedisWorker, WorkerFailed, remote_registration
from tooldesign.runtime.transports.redis import GROUP, RedisKeys, RedisTransport

from gen.assistant.toolsets import devices
from tests.runtime.transports import app
from tests.support.netops import approve_all
from tests.support.redis import RedisServer, running_worker, worker_process
from tests.support.remote import DEVICES, VERSION, effects, restart

pytestmark = pytest.mark.slow  # Redis and Valkey servers, workers in subprocesses


def pretend_live(server: RedisServer, prefix: str, seconds: float = 120) -> None:
    """A heartbeat for a worker that never reads: agents queue calls nobody takes yet."""
    with server.client() as client:
        now_ms = int(client.time()[0]) * 1000
        client.zadd(
            RedisKeys(prefix).workers(DEVICES), {f"{VERSION} ghost": now_ms + seconds * 1000}
        )


def ghost_takes(server: RedisServer, prefix: str, *, starts: bool, deliveries: int = 1) -> str:
    """The ghost consumer takes the queued call (``deliveries`` times) and, if ``starts``,
    records that it started it; returns the call's id."""
    keys = RedisKeys(prefix)
    stream = keys.requests(DEVICES, VERSION)
    with server.client() as client:
        with contextlib.suppress(redis.ResponseError):  # made by whichever worker came first
            client.xgroup_create(stream, GROUP, id="0", mkstream=True)
        deadline = time.monotonic() + 10
        taken: Any = []
        while not taken and time.monotonic() < deadline:
            taken = client.xreadgroup(GROUP, "ghost", {stream: ">"}, count=1, block=100)
        ((_, [(entry_id, fields)]),) = taken
        for _ in range(deliveries - 1):  # each claim counts as one more delivery
            client.xclaim(stream, GROUP, "ghost", 0, [entry_id])
        if starts:
            tool = f"{DEVICES}.{'restart_device' if 'restart' in fields['call'] else 'get_device'}"
            client.hset(
                keys.call(tool, fields["id"]), mapping={"started": entry_id, "worker": "ghost"}
            )
        return str(fields["id"])


def lost_worker_call(
    server: RedisServer,
    prefix: str,
    request: ToolRequest,
    *,
    starts: bool,
    deliveries: int = 1,
    **worker_options: Any,
) -> tuple[ToolResult, str]:
    """``request`` sent by an agent, taken by the ghost, then served by a real worker."""
    pretend_live(server, prefix)
    worker_options.setdefault("claim_timeout", 0.3)

    async def main() -> tuple[ToolResult, str]:
        transport = RedisTransport(server.url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=20)], approver=approve_all
        )
        try:
            sent = asyncio.create_task(agent.execute(request))
            call_id = await asyncio.to_thread(
                ghost_takes, server, prefix, starts=starts, deliveries=deliveries
            )
            worker_runtime = Runtime([app.registration(server.url, prefix)])
            async with running_worker(worker_runtime, server.url, prefix, **worker_options):
                return await sent, call_id
        finally:
            await transport.close()

    return asyncio.run(main())


def test_a_started_call_of_a_non_idempotent_tool_is_not_run_again(
    redis_server: RedisServer, prefix: str
) -> None:
    result, _ = lost_worker_call(redis_server, prefix, restart(), starts=True)
    assert result.retry_hint is not None and result.retry_hint.reason == "outcome_unknown"
    assert "may or may not have taken effect" in result.for_model()
    assert effects(redis_server, prefix) == {}


def test_a_started_call_of_a_read_only_tool_runs_again(
    redis_server: RedisServer, prefix: str
) -> None:
    request = ToolRequest("get_device", {"device_id": "dev-00000000"}, ToolCallMeta())
    result, call_id = lost_worker_call(redis_server, prefix, request, starts=True)
    assert result.ok and result.result.id == "dev-00000000"
    assert effects(redis_server, prefix, "get_device") == {call_id: 1}


def test_a_call_the_lost_worker_never_started_runs_once(
    redis_server: RedisServer, prefix: str
) -> None:
    result, call_id = lost_worker_call(redis_server, prefix, restart(), starts=False)
    assert result.ok
    assert effects(redis_server, prefix) == {call_id: 1}


def test_a_call_delivered_too_often_is_dead_lettered_and_answered(
    redis_server: RedisServer, prefix: str
) -> None:
    result, call_id = lost_worker_call(
        redis_server, prefix, restart(), starts=False, deliveries=3, max_deliveries=3
    )
    assert not result.ok and result.error is not None
    assert "delivered 4 times" in result.for_model()
    assert result.error.details["dead_letter"] is True
    with redis_server.client() as client:
        ((_, letter),) = client.xrange(RedisKeys(prefix).dead(DEVICES))
    assert letter["id"] == call_id
    assert letter["reason"] == "too many deliveries" and letter["deliveries"] == "4"
    assert effects(redis_server, prefix) == {}


def test_a_slow_call_on_a_healthy_worker_is_not_taken_over(
    redis_server: RedisServer, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = redis_server.url
    caplog.set_level(logging.INFO, logger="tooldesign.worker")

    async def main() -> ToolResult:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        options: dict[str, Any] = {"claim_timeout": 0.4}
        try:
            async with (
                running_worker(Runtime([app.registration(url, prefix)]), url, prefix, **options),
                running_worker(Runtime([app.registration(url, prefix)]), url, prefix, **options),
            ):
                # Four claim timeouts long; both workers claim every 0.1 s.
                return await agent.execute(restart(sleep=1.6))
        finally:
            await transport.close()

    result = asyncio.run(main())
    assert result.ok, result.for_model()
    assert list(effects(redis_server, prefix).values()) == [1]
    assert not [r for r in caplog.records if "took over call" in r.getMessage()]


def test_a_worker_whose_loop_fails_stops_with_an_error(
    redis_server: RedisServer, prefix: str
) -> None:
    url = redis_server.url
    stream = RedisKeys(prefix).requests(DEVICES, VERSION)

    async def main() -> None:
        worker = RedisWorker(Runtime([app.registration(url, prefix)]), url, prefix=prefix)
        task = asyncio.create_task(worker.run())
        with redis_server.client() as client:
            while not client.exists(stream):
                await asyncio.sleep(0.02)
            client.delete(stream)
            client.set(
                stream, "not a stream"
            )  # every read now fails, and not for a lost connection
        await asyncio.wait_for(task, timeout=30)

    with pytest.raises(WorkerFailed, match=r"the (read|claim).* loop failed"):
        asyncio.run(main())


def test_the_worker_command_exits_non_zero_when_a_loop_fails(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    worker = worker_process(redis_server.url, prefix, log=log)
    try:
        stream = RedisKeys(prefix).requests(DEVICES, VERSION)
        with redis_server.client() as client:
            deadline = time.monotonic() + 20
            while not client.exists(stream) and time.monotonic() < deadline:
                time.sleep(0.05)
            client.delete(stream)
            client.set(stream, "not a stream")
        assert worker.wait(timeout=30) == 1
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert re.search(r"worker stopped: .* the (read|claim).* loop failed", log.read_text())


def test_sigterm_lets_running_calls_finish_then_exits_zero(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    url = redis_server.url
    log = tmp_path / "worker.log"
    worker = worker_process(url, prefix, "--grace", "10", log=log)

    async def main() -> tuple[ToolResult, ToolResult, float]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        try:
            deadline = time.monotonic() + 30
            while VERSION not in (await transport.live_toolsets()).get(DEVICES, ()):
                assert time.monotonic() < deadline, log.read_text()
                await asyncio.sleep(0.05)
            slow = asyncio.create_task(agent.execute(restart(sleep=1.5)))
            await asyncio.sleep(0.5)
            worker.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.3)
            started = time.perf_counter()
            after = await agent.execute(restart())
            return await slow, after, time.perf_counter() - started
        finally:
            await transport.close()

    try:
        slow, after, took = asyncio.run(main())
        assert worker.wait(timeout=30) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert slow.ok, slow.for_model()
    assert after.retry_hint is not None and after.retry_hint.reason == "tool_unavailable"
    assert took < 2.0
    assert "stopped" in log.read_text()


def test_calls_running_while_redis_restarts_are_answered(own_redis: Any) -> None:
    server = own_redis(appendonly=True)
    prefix = "restart"

    async def main() -> list[ToolResult]:
        transport = RedisTransport(server.url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=30)], approver=approve_all
        )
        try:
            worker_runtime = Runtime([app.registration(server.url, prefix)])
            async with running_worker(worker_runtime, server.url, prefix, claim_timeout=5):
                calls = [
                    asyncio.create_task(
                        agent.execute(
                            restart(
                                ToolCallMeta(session_id="s", run_id="r", tool_call_id=f"c{i}"),
                                sleep=1.0,
                            )
                        )
                    )
                    for i in range(20)
                ]
                await asyncio.sleep(0.4)
                await asyncio.to_thread(server.restart)
                return await asyncio.gather(*calls)
        finally:
            await transport.close()

    results = asyncio.run(main())
    assert [r.telemetry.outcome for r in results] == ["ok"] * 20, [r.for_model() for r in results]
    assert sorted(effects(server, prefix).values()) == [1] * 20


@pytest.mark.parametrize("appendonly", [True, False])
def test_queued_calls_survive_a_redis_restart_only_with_append_only_persistence(
    own_redis: Any, appendonly: bool
) -> None:
    server = own_redis(appendonly=appendonly)
    prefix = "aof"
    stream = RedisKeys(prefix).requests(DEVICES, VERSION)
    pretend_live(server, prefix)

    async def main() -> tuple[list[ToolResult], int, int]:
        transport = RedisTransport(server.url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=8)], approver=approve_all
        )
        try:
            calls = [asyncio.create_task(agent.execute(restart())) for _ in range(30)]
            with server.client() as client:
                while client.xlen(stream) < 30:
                    await asyncio.sleep(0.02)
            await asyncio.to_thread(server.restart)
            with server.client() as client:
                queued = client.xlen(stream)
            async with running_worker(
                Runtime([app.registration(server.url, prefix)]), server.url, prefix
            ):
                results = await asyncio.gather(*calls)
            return results, queued, len(effects(server, prefix))
        finally:
            await transport.close()

    results, queued, ran = asyncio.run(main())
    outcomes = {r.telemetry.outcome for r in results}
    if appendonly:
        assert queued == 30 and ran == 30
        assert outcomes == {"ok"}
    else:  # lost with the server's memory: each call ends at its deadline, none hangs
        assert queued == 0 and ran == 0
        assert outcomes == {"timeout"}
        assert all("may still complete" in r.for_model() for r in results)


def test_valkey_serves_calls_and_redelivers_them(own_redis: Any, valkey_binary: str) -> None:
    server = own_redis(binary=valkey_binary)
    prefix = "valkey"

    async def main() -> ToolResult:
        transport = RedisTransport(server.url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        try:
            async with running_worker(
                Runtime([app.registration(server.url, prefix)]), server.url, prefix
            ):
                return await agent.execute(restart())
        finally:
            await transport.close()

    assert asyncio.run(main()).ok
    result, _ = lost_worker_call(server, prefix, restart(), starts=True)
    assert result.retry_hint is not None and result.retry_hint.reason == "outcome_unknown"
