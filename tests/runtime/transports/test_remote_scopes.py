"""Scopes across the wire: a call sent to Redis workers carries its verified principal, the
worker's pipeline checks it again (a call put on the stream by something other than a checking
agent is refused there), and the worker's audit records who called."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest
from tooldesign.runtime import JsonLinesAudit, Principal, Runtime, ToolResult
from tooldesign.runtime.transports.redis import RedisKeys, RedisTransport

from tests.runtime.transports import app
from tests.runtime.transports.test_remote_calls import call_fields, run
from tests.support.redis import RedisServer, running_worker
from tests.support.remote import DEVICES, SESSION, VERSION, effects, restart

pytestmark = pytest.mark.slow  # a Redis server

OPS = Principal.of("ann", ["devices:write"])
VIEWER = Principal.of("bob", ["devices:read"])


def test_the_principal_reaches_the_worker_which_checks_and_audits_it(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    trail = tmp_path / "worker-audit.jsonl"
    worker = Runtime([app.registration(redis_server.url, prefix)], audit=JsonLinesAudit(trail))

    async def body(agent: Runtime, transport: RedisTransport) -> list[ToolResult]:
        async with running_worker(worker, redis_server.url, prefix):
            allowed = await agent.execute(restart(dataclasses.replace(SESSION, principal=OPS)))
            refused = await agent.execute(
                restart(dataclasses.replace(SESSION, principal=VIEWER, tool_call_id="2"))
            )
            return [allowed, refused]

    allowed, refused = run(redis_server, prefix, body)
    assert allowed.error is None
    assert refused.telemetry.outcome == "forbidden"  # by the agent: never sent
    assert sum(effects(redis_server, prefix).values()) == 1
    [record] = [json.loads(line) for line in trail.read_text().splitlines()]
    assert record["principal"] == {"subject": "ann", "scopes": ["devices:write"]}
    assert record["outcome"] == "ok"


def test_a_call_put_on_the_stream_without_the_scope_is_refused_by_the_worker(
    redis_server: RedisServer, prefix: str
) -> None:
    url = redis_server.url
    keys = RedisKeys(prefix)
    reply = keys.replies(DEVICES, "test")
    fields = call_fields(meta={"session_id": "s", "principal": VIEWER.to_dict()})

    async def main() -> Any:
        async with running_worker(Runtime([app.registration(url, prefix)]), url, prefix):
            with redis_server.client() as client:
                client.xadd(keys.requests(DEVICES, VERSION), {"id": "c", "reply": reply, **fields})
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with redis_server.client() as client:
                    entries = client.xrange(reply)
                if entries:
                    return json.loads(entries[0][1]["answer"])
                await asyncio.sleep(0.02)
        raise AssertionError(f"no answer on {reply}")

    answer = asyncio.run(main())["result"]
    assert answer["telemetry"]["outcome"] == "forbidden"
    assert "devices:write" in json.dumps(answer)
    assert effects(redis_server, prefix) == {}
