"""MCP tasks kept in Redis where they meet other features: a listen stream following a task
whose record is gone (expired, or lost with Redis's data) ends instead of waiting for a change
that cannot come; a server back from a lapsed lease leaves a record another server ended to its
keep; a stranded task of a read-only tool that ran in its server's process runs again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as redis_async

from tests.runtime.mcp import task_worker
from tests.runtime.mcp.test_redis_tasks import (  # the workers fixture
    RESTART,
    Node,
    live,
    workers,  # noqa: F401
)
from tests.runtime.mcp.test_tasks import stream
from tests.support.redis import RedisServer

pytestmark = pytest.mark.slow  # a Redis server, worker processes


def test_a_listen_stream_ends_when_the_task_it_follows_is_forgotten(
    redis_server: RedisServer,
    workers: Any,  # noqa: F811
) -> None:
    # A's task runs on a worker; A dies; its record goes (Redis lost it, or it expired) before
    # anyone took it over. A stream on B following it read "no such task" and stopped polling,
    # but kept waiting for the task's end: the stream never ended.
    prefix = "forgotten"
    url = redis_server.url
    workers(url, prefix, delay=5.0)

    async def main() -> None:
        await live(url, prefix)
        a = await Node(url, prefix).__aenter__()
        call = {"name": "restart_device", "arguments": RESTART}
        task = await a.wire.result("tools/call", call)
        task_id = task["taskId"]
        await a.crash()
        async with Node(url, prefix) as b:
            follow = {"notifications": {"taskIds": [task_id]}}
            listening = asyncio.create_task(stream(b.wire, "subscriptions/listen", follow))
            await asyncio.sleep(0.5)  # the stream is open and has told its first state
            client = redis_async.from_url(url)
            try:
                assert await client.delete(a.store._key("task", task_id)) == 1
            finally:
                await client.aclose()
            messages = await asyncio.wait_for(listening, 10)
        ack, *notices, end = messages
        assert ack["params"]["notifications"] == {"taskIds": [task_id]}
        assert [n["params"]["status"] for n in notices] == ["working"]
        assert "result" in end, end

    asyncio.run(main())


def test_a_server_back_from_a_lapse_leaves_its_cancelled_tasks_record_to_its_keep(
    redis_server: RedisServer,
    workers: Any,  # noqa: F811
) -> None:
    # A's lease lapsed (a pause, a Redis blip) while its task ran; B cancelled it as stranded
    # (its record kept keep_ms, 60 s here). A, back, saw it cancelled and ended it, but first
    # renewed its record as a running one: kept stranded_ttl (an hour), out of every index.
    prefix = "lapse"
    url = redis_server.url
    workers(url, prefix, delay=5.0)

    async def main() -> None:
        await live(url, prefix)
        async with Node(url, prefix) as a, Node(url, prefix) as b:
            call = {"name": "restart_device", "arguments": RESTART}
            task_id = (await a.wire.result("tools/call", call))["taskId"]
            record = a.store._key("task", task_id)
            client = redis_async.from_url(url)
            try:
                for _ in range(50):  # between two of A's heartbeats, its lease looks out
                    await client.zadd(a.store._key("servers"), {a.store.server_id: 0})
                    seen = await b.store.find(task_id, None)
                    assert seen is not None
                    if await b.store.cancel_elsewhere(seen) == 1:
                        break
                else:
                    pytest.fail("the lease never looked out")
                await asyncio.sleep(1.0)  # A's beats: it sees the task cancelled
                assert a.store._local.get(task_id) is None or a.store._local[task_id].status == (
                    "cancelled"
                )
                assert await client.hget(record, "status") == b"cancelled"
                assert 0 < await client.pttl(record) <= 60_000
            finally:
                await client.aclose()

    asyncio.run(main())


def test_a_stranded_task_of_a_read_only_tool_run_in_process_runs_again(
    redis_server: RedisServer,
) -> None:
    # Its server died: running a read-only (or idempotent) tool again is harmless, as a remote
    # one's call resent is; before, it failed as a side-effecting one must (its effect unknown).
    prefix = "read-only-again"
    url = redis_server.url

    async def main() -> None:
        first = await Node(url, prefix, local=True).__aenter__()
        call = {"name": "get_device", "arguments": {"device_id": "dev-00000000"}}
        task, _ = await first.store.open("get_device", None, task_worker.TASK, call)
        await first.crash()
        await asyncio.sleep(1.2)
        async with Node(url, prefix, local=True) as second:
            await second.get(task.id)  # taken over: run again here
            done = await second.until(task.id, "completed", "failed")
        assert done["status"] == "completed", done.get("error")
        assert done["result"]["structuredContent"]["id"] == "dev-00000000"

    asyncio.run(main())
