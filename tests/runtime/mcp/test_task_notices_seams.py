"""notifications/tasks where listen streams meet the Redis task store: a stream following a
task whose record is gone (expired, or lost with Redis's data) ends instead of waiting for a
change that cannot come."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as redis_async

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
