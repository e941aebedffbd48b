"""``tooldesign workers``: the fleet's state, stale consumers, dead letters listed, replayed and
dropped, as a script reads them (``--json``) and as a person does. Against a real server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

import pytest
from tooldesign.runtime import Runtime
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import GROUP, RedisKeys, RedisTransport

from gen.assistant.toolsets import devices
from tests.runtime.transports import app
from tests.runtime.transports.test_redelivery import lost_worker_call
from tests.support import REPO
from tests.support.netops import approve_all
from tests.support.redis import RedisServer, running_worker
from tests.support.remote import DEVICES, VERSION, effects, restart

pytestmark = pytest.mark.slow  # a Redis server, workers


def workers(server: RedisServer, prefix: str, *args: str, as_json: bool = True) -> Any:
    command = [sys.executable, "-m", "tooldesign.cli", "workers", *args]
    command += ["--redis", server.url, "--prefix", prefix] + (["--json"] if as_json else [])
    done = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if as_json else done.stdout


def test_workers_shows_live_workers_calls_held_queues_and_stale_consumers(
    redis_server: RedisServer, prefix: str
) -> None:
    url = redis_server.url
    stream = RedisKeys(prefix).requests(DEVICES, VERSION)

    async def main() -> tuple[Any, str, Any, Any, str]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        try:
            async with running_worker(
                Runtime([app.registration(url, prefix)]), url, prefix, claim_timeout=30
            ) as worker:
                with redis_server.client() as client:
                    client.xgroup_createconsumer(stream, GROUP, "gone-empty")
                    client.xadd(stream, {"id": "c", "tool": f"{DEVICES}.get_device"})
                    client.xreadgroup(GROUP, "gone-holding", {stream: ">"}, count=1)
                    client.xadd(stream, {"junk": "1"})
                slow = asyncio.create_task(agent.execute(restart(sleep=8)))
                await asyncio.sleep(1.0)
                state = await asyncio.to_thread(workers, redis_server, prefix)
                text = await asyncio.to_thread(workers, redis_server, prefix, as_json=False)
                pruned = await asyncio.to_thread(workers, redis_server, prefix, "prune")
                after = await asyncio.to_thread(workers, redis_server, prefix)
                assert (await slow).ok
                return state, text, pruned, after, worker.id
        finally:
            await transport.close()

    state, text, pruned, after, worker_id = asyncio.run(main())
    print(text)
    (toolset,) = state["toolsets"]
    assert toolset["toolset"] == DEVICES and toolset["dead_letters"] == 1
    (version,) = toolset["versions"]
    assert version["version"] == VERSION and version["waiting"] == 0 and version["held"] == 2
    (live,) = version["workers"]
    assert live["worker"] == worker_id and live["taking_calls"] and live["holds"] == 1
    assert {(w["worker"], w["holds"]) for w in version["stale"]} == {
        ("gone-empty", 0),
        ("gone-holding", 1),
    }
    assert f"{worker_id}  live, taking calls, holds 1" in text
    assert "gone-holding  stale (no lease), holds 1" in text
    assert pruned == [{"toolset": DEVICES, "version": VERSION, "worker": "gone-empty"}]
    assert [w["worker"] for w in after["toolsets"][0]["versions"][0]["stale"]] == ["gone-holding"]


def test_workers_lists_replays_and_drops_dead_letters(
    redis_server: RedisServer, prefix: str
) -> None:
    url = redis_server.url
    result, call_id = lost_worker_call(
        redis_server, prefix, restart(), starts=False, deliveries=3, max_deliveries=3
    )
    assert result.error is not None and result.error.details["dead_letter"] is True
    with redis_server.client() as client:
        client.xadd(RedisKeys(prefix).dead(DEVICES), {"reason": "another"})
    letters = workers(redis_server, prefix, "dead")
    assert [letter["fields"]["reason"] for letter in letters] == ["too many deliveries", "another"]
    assert letters[0]["fields"]["id"] == call_id
    listed = workers(redis_server, prefix, "dead", as_json=False)
    assert f"too many deliveries  (call {call_id} of {DEVICES}.restart_device" in listed

    async def replayed() -> Any:
        async with running_worker(Runtime([app.registration(url, prefix)]), url, prefix):
            done = await asyncio.to_thread(workers, redis_server, prefix, "replay", "--all")
            deadline = time.monotonic() + 10
            while not effects(redis_server, prefix) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return done

    done = asyncio.run(replayed())
    assert [r["replayed"] for r in done] == ["yes", "no"]
    assert effects(redis_server, prefix) == {call_id: 1}
    dropped = workers(redis_server, prefix, "drop", letters[1]["letter"])
    assert dropped == [letters[1]["letter"]]
    assert workers(redis_server, prefix, "dead") == []
