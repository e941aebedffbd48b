"""Remote toolsets on a real Redis server: what an agent gets back, and when.

Each test runs its workers in its own event loop (``running_worker``), on its own key prefix.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.request import stable_call_id
from tooldesign.runtime.spec.catalog import toolset_version
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisKeys, RedisTransport

from examples.netops.agent import build_runtime
from gen.assistant.toolsets import devices, metrics
from tests.runtime.transports import app
from tests.support.netops import approve_all
from tests.support.redis import RedisServer, running_worker
from tests.support.remote import DEVICES, SESSION, VERSION, effects, restart

pytestmark = pytest.mark.slow  # a Redis server


def run(
    server: RedisServer,
    prefix: str,
    body: Callable[[Runtime, RedisTransport], Awaitable[Any]],
    **options: Any,
) -> Any:
    """``body(agent, transport)`` with an agent calling ``devices`` remotely."""
    timeout = options.pop("timeout", 10.0)

    async def main() -> Any:
        transport = RedisTransport(server.url, prefix=prefix, **options)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=timeout)],
            approver=approve_all,
        )
        try:
            return await body(agent, transport)
        finally:
            await transport.close()

    return asyncio.run(main())


async def agent_call(server: RedisServer, prefix: str, request: ToolRequest) -> ToolResult:
    """One call from an agent of its own."""
    transport = RedisTransport(server.url, prefix=prefix)
    try:
        return await Runtime(
            [remote_registration(devices, transport=transport)], approver=approve_all
        ).execute(request)
    finally:
        await transport.close()


def raw_call(server: RedisServer, prefix: str, fields: dict[str, str]) -> dict[str, Any]:
    """Put a stream entry with ``fields`` on the devices stream, as something other than an
    agent would, while a worker serves it; the answer it gets, as JSON."""
    url = server.url
    keys = RedisKeys(prefix)
    reply = keys.replies(DEVICES, "test")

    async def main() -> Any:
        async with running_worker(Runtime([app.registration(url, prefix)]), url, prefix):
            with server.client() as client:
                client.xadd(keys.requests(DEVICES, VERSION), {"id": "c", "reply": reply, **fields})
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with server.client() as client:
                    entries = client.xrange(reply)
                if entries:
                    return json.loads(entries[0][1]["answer"])
                await asyncio.sleep(0.02)
        raise AssertionError(f"no answer on {reply}")

    answer: dict[str, Any] = asyncio.run(main())
    return answer


def call_fields(**changes: Any) -> dict[str, str]:
    """The fields of a valid call of restart_device, but for ``changes`` to its message."""
    message = {
        "v": 1,
        "id": "c",
        "tool": f"{DEVICES}.restart_device",
        "toolset": DEVICES,
        "version": VERSION,
        "deadline": time.time() + 60,
        "payload": json.dumps({"device_id": "dev-00000000", "reason": "testing"}),
        "meta": {"session_id": "s"},
        **changes,
    }
    return {"call": json.dumps(message), "tool": str(message["tool"])}


def comparable(result: ToolResult) -> dict[str, Any]:
    data = result.to_dict()
    data["telemetry"].pop("duration_ms")
    data["telemetry"].get("extra", {}).pop("remote", None)
    if not data["telemetry"].get("extra", True):
        data["telemetry"].pop("extra")
    for decided in (data["telemetry"].get("approval"), data.get("approval")):
        if decided is not None:  # when a decision or a request was made
            decided.pop("at", None)
            decided.pop("requested_at", None)
            decided.pop("nonce", None)  # tells two decisions apart, as "at" does
    return data


def test_a_remote_call_answers_what_the_workers_runtime_answers(
    redis_server: RedisServer, prefix: str
) -> None:
    meta = ToolCallMeta(session_id="sess-alice", server_data={"atlas.time_series": True})
    requests = [
        ToolRequest("list_devices", {"site_id": "hq", "limit": 3}, meta),  # bounded, truncated
        ToolRequest("get_device", {"device_id": "dev-ffffffff"}, meta),  # an exposed error
        ToolRequest("restart_device", {"device_id": "dev-00000000", "reason": "stuck"}, meta),
        ToolRequest(
            "get_time_series",
            {"device_id": "dev-00000000", "metric": "latency", "window": "1h"},
            meta,
        ),  # server data for observers
        ToolRequest("list_devices", {"site_id": "hq", "limit": 9000}, meta),  # invalid
    ]

    async def body(agent: Runtime, transport: RedisTransport) -> None:
        async with running_worker(build_runtime(), redis_server.url, prefix):
            local = build_runtime()
            local.approver = approve_all  # as the agent's
            for request in requests:
                remote_result = await agent.execute(request)
                local_result = await local.execute(request)
                assert comparable(remote_result) == comparable(local_result)
                assert remote_result.for_model() == local_result.for_model()
                assert type(remote_result.result) is type(local_result.result)
                assert remote_result.bounds == local_result.bounds
                assert [(i.kind, i.data) for i in remote_result.server_data] == [
                    (i.kind, i.data) for i in local_result.server_data
                ]

    async def main() -> None:
        transport = RedisTransport(redis_server.url, prefix=prefix)
        agent = Runtime(
            [
                remote_registration(devices, transport=transport),
                remote_registration(metrics, transport=transport),
            ],
            approver=approve_all,
        )
        try:
            await body(agent, transport)
        finally:
            await transport.close()

    asyncio.run(main())


def test_an_invalid_call_gets_its_hint_without_a_round_trip(
    redis_server: RedisServer, prefix: str
) -> None:
    async def body(agent: Runtime, transport: RedisTransport) -> ToolResult:
        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]), redis_server.url, prefix
        ):
            return await agent.execute(
                ToolRequest("restart_device", {"device_id": "nope", "reason": "x"}, SESSION)
            )

    result = run(redis_server, prefix, body)
    assert result.retry_hint is not None and result.retry_hint.reason == "invalid_arguments"
    assert {i.field for i in result.retry_hint.issues} == {"device_id", "reason"}
    with redis_server.client() as client:
        stream = client.xinfo_stream(RedisKeys(prefix).requests(DEVICES, VERSION))
    assert stream["entries-added"] == 0


def test_the_call_id_and_trace_context_reach_the_tool(
    redis_server: RedisServer, prefix: str
) -> None:
    traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    meta = ToolCallMeta(
        session_id="s", run_id="run-7", tool_call_id="call_abc", trace={"traceparent": traceparent}
    )

    async def body(agent: Runtime, transport: RedisTransport) -> ToolResult:
        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]), redis_server.url, prefix
        ):
            return await agent.execute(restart(meta))

    result = run(redis_server, prefix, body)
    call_id, trace, _, _ = result.result.job_id.split("|")
    assert call_id == stable_call_id("run-7", "call_abc") == meta.stable_id()
    assert trace == traceparent


def test_a_retried_call_is_answered_from_the_store_and_not_run_again(
    redis_server: RedisServer, prefix: str
) -> None:
    meta = ToolCallMeta(session_id="s", run_id="run-1", tool_call_id="call_1")

    async def body(agent: Runtime, transport: RedisTransport) -> list[ToolResult]:
        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]), redis_server.url, prefix
        ):
            first = await agent.execute(restart(meta))
            # The same call again, twice at once: one effect, one answer.
            again = await asyncio.gather(agent.execute(restart(meta)), agent.execute(restart(meta)))
            return [first, *again]

    results = run(redis_server, prefix, body)
    assert all(r.ok for r in results)
    assert len({r.result_json for r in results}) == 1
    assert effects(redis_server, prefix) == {meta.stable_id(): 1}


def test_a_toolset_without_workers_is_unavailable_at_once_until_one_starts(
    redis_server: RedisServer, prefix: str
) -> None:
    async def body(agent: Runtime, transport: RedisTransport) -> None:
        started = time.perf_counter()
        result = await agent.execute(restart())
        took = time.perf_counter() - started
        assert result.retry_hint is not None
        assert result.retry_hint.reason == "tool_unavailable"
        assert "no worker serves toolset 'assistant.devices'" in result.for_model()
        assert took < 2.0  # answered at once, not after the call's 10 s timeout
        await transport.live_toolsets()
        (info,) = agent.toolsets()
        assert info.remote and info.live is False

        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]), redis_server.url, prefix
        ):
            result = await agent.execute(restart())
            assert result.ok, result.for_model()
            await transport.live_toolsets()
            assert agent.toolsets()[0].live is True

    run(redis_server, prefix, body)


def test_calls_wait_for_free_slots_and_a_full_queue_is_rate_limited(
    redis_server: RedisServer, prefix: str
) -> None:
    async def body(agent: Runtime, transport: RedisTransport) -> list[ToolResult]:
        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]),
            redis_server.url,
            prefix,
            concurrency=2,
        ):
            calls = [agent.execute(restart(sleep=0.3)) for _ in range(8)]
            return await asyncio.gather(*calls)

    results = run(redis_server, prefix, body, max_queue=4)
    outcomes = [r.telemetry.outcome for r in results]
    # A lone agent may fill half the queue once it is half full (room for another agent), the
    # whole of it at most: 2 to 4 calls queued, the others refused at once.
    assert set(outcomes) == {"ok", "rate_limited"} and 2 <= outcomes.count("ok") <= 4
    limited = next(r for r in results if not r.ok)
    assert limited.retry_hint is not None and limited.retry_hint.retry_after == 1.0
    assert "calls are waiting" in limited.for_model()
    assert sum(effects(redis_server, prefix).values()) == outcomes.count("ok")


def test_a_worker_runs_no_more_calls_at_once_than_its_slots(
    redis_server: RedisServer, prefix: str
) -> None:
    running = 0
    most = 0
    registration = app.registration(redis_server.url, prefix)
    inner = registration.tools[2].invoke

    async def counted(args: Any, meta: ToolCallMeta) -> Any:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            return await inner(args, meta)
        finally:
            running -= 1

    tools = list(registration.tools)
    tools[2] = replace(tools[2], invoke=counted)
    worker_runtime = Runtime([replace(registration, tools=tuple(tools))])

    async def body(agent: Runtime, transport: RedisTransport) -> list[ToolResult]:
        async with running_worker(worker_runtime, redis_server.url, prefix, concurrency=3):
            return await asyncio.gather(*(agent.execute(restart(sleep=0.05)) for _ in range(30)))

    results = run(redis_server, prefix, body)
    assert all(r.ok for r in results)
    assert most == 3


def test_the_agent_keeps_no_more_calls_in_flight_than_its_window(
    redis_server: RedisServer, prefix: str
) -> None:
    registration = app.registration(redis_server.url, prefix)
    running = most = 0
    inner = registration.tools[2].invoke

    async def counted(args: Any, meta: ToolCallMeta) -> Any:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            return await inner(args, meta)
        finally:
            running -= 1

    tools = list(registration.tools)
    tools[2] = replace(tools[2], invoke=counted)
    worker_runtime = Runtime([replace(registration, tools=tuple(tools))])

    async def body(agent: Runtime, transport: RedisTransport) -> list[ToolResult]:
        async with running_worker(worker_runtime, redis_server.url, prefix, concurrency=64):
            return await asyncio.gather(*(agent.execute(restart(sleep=0.05)) for _ in range(20)))

    results = run(redis_server, prefix, body, max_in_flight=2)
    assert all(r.ok for r in results)
    assert most == 2


def test_the_agent_stops_waiting_at_the_deadline_and_the_worker_bounds_the_call(
    redis_server: RedisServer, prefix: str
) -> None:
    meta = ToolCallMeta(session_id="s", run_id="r", tool_call_id="slow")

    async def body(agent: Runtime, transport: RedisTransport) -> tuple[ToolResult, float, Any]:
        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]), redis_server.url, prefix
        ):
            started = time.perf_counter()
            result = await agent.execute(restart(meta, sleep=30))
            took = time.perf_counter() - started
            key = RedisKeys(prefix).call(f"{DEVICES}.restart_device", meta.stable_id() or "")
            with redis_server.client() as client:
                # The worker answers too, when the deadline cuts the run (not after 30 s).
                while "queued" in (record := client.hgetall(key)):
                    assert time.perf_counter() - started < 10
                    await asyncio.sleep(0.02)
            return result, took, record

    result, took, record = run(redis_server, prefix, body, timeout=0.6)
    assert result.retry_hint is not None and result.retry_hint.reason == "timeout"
    assert "did not answer within 0.6 s" in result.for_model()
    assert 0.5 < took < 2.5
    # The run was cut at the deadline: it started, and no answer is stored for a retry to get.
    assert "started" in record and "result" not in record


def test_two_catalog_versions_are_served_side_by_side(
    redis_server: RedisServer, prefix: str
) -> None:
    url = redis_server.url
    new = Runtime([app.registration(url, prefix, tag="v2")])
    new_specs = new.specs("devices")
    new_version = toolset_version(new_specs)
    assert new_version != VERSION

    async def main() -> None:
        transport = RedisTransport(url, prefix=prefix)
        old_agent = Runtime(
            [remote_registration(devices, transport=transport)], approver=approve_all
        )
        new_agent = Runtime(
            [remote_registration(new_specs, transport=transport)], approver=approve_all
        )
        try:
            old_runtime = Runtime([app.registration(url, prefix)])
            async with (
                running_worker(old_runtime, url, prefix) as old,
                running_worker(new, url, prefix) as new_worker,
            ):
                for _ in range(5):
                    old_result, new_result = await asyncio.gather(
                        old_agent.execute(restart()), new_agent.execute(restart())
                    )
                    assert old_result.result.job_id.split("|")[2] == ""
                    assert new_result.result.job_id.split("|")[2] == "v2"
                    assert old_result.telemetry.extra["remote"]["worker"] == old.id
                    assert new_result.telemetry.extra["remote"]["worker"] == new_worker.id
                live = await transport.live_toolsets()
                assert live[DEVICES] == tuple(sorted({VERSION, new_version}))
            # The old workers are gone: the old agent hears which version is live.
            async with running_worker(new, url, prefix):
                result = await old_agent.execute(restart())
                assert result.retry_hint is not None
                assert result.retry_hint.reason == "tool_unavailable"
                assert f"live: {new_version}; this agent has {VERSION}" in result.for_model()
        finally:
            await transport.close()

    asyncio.run(main())


def test_a_worker_refuses_a_call_made_against_another_version(
    redis_server: RedisServer, prefix: str
) -> None:
    answer = raw_call(redis_server, prefix, call_fields(version="0123456789ab"))
    result = ToolResult.from_dict(answer["result"])
    assert result.retry_hint is not None and result.retry_hint.reason == "tool_unavailable"
    assert "version 0123456789ab of toolset 'assistant.devices'" in result.for_model()
    assert f"its workers serve {VERSION}" in result.for_model()
    assert effects(redis_server, prefix) == {}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"call": "{not json"}, "is not JSON"),
        ({"call": json.dumps({"v": 99, "id": "c"})}, "has wire version 99"),
        ({}, "has no 'call' field"),
    ],
)
def test_a_malformed_message_naming_a_reply_address_is_answered(
    redis_server: RedisServer, prefix: str, fields: dict[str, str], expected: str
) -> None:
    result = ToolResult.from_dict(raw_call(redis_server, prefix, fields)["result"])
    assert not result.ok and result.error is not None
    assert "could not be read by the worker" in result.for_model()
    assert expected in result.error.details["problem"]

    async def still_serving() -> ToolResult:
        async with running_worker(
            Runtime([app.registration(redis_server.url, prefix)]), redis_server.url, prefix
        ):
            return await agent_call(redis_server, prefix, restart())

    assert asyncio.run(still_serving()).ok


def test_a_malformed_message_without_a_reply_address_is_dead_lettered(
    redis_server: RedisServer, prefix: str
) -> None:
    url = redis_server.url
    keys = RedisKeys(prefix)
    stream = keys.requests(DEVICES, VERSION)

    async def main() -> list[Any]:
        async with running_worker(Runtime([app.registration(url, prefix)]), url, prefix):
            with redis_server.client() as client:
                client.xadd(stream, {"junk": "\x00\xff"})
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    letters = client.xrange(keys.dead(DEVICES))
                    if letters:
                        assert client.xlen(stream) == 0
                        return letters
                    await asyncio.sleep(0.02)
        raise AssertionError("nothing was dead-lettered")

    ((_, letter),) = asyncio.run(main())
    assert letter["junk"] == "\x00\xff"
    assert letter["reason"] == "malformed: the stream entry has no 'call' field"
    assert letter["stream"] == stream


def test_a_tool_of_another_toolset_is_refused(redis_server: RedisServer, prefix: str) -> None:
    fields = call_fields(tool="assistant.metrics.get_time_series", payload="{}")
    result = ToolResult.from_dict(raw_call(redis_server, prefix, fields)["result"])
    assert result.retry_hint is not None and result.retry_hint.reason == "tool_unavailable"
    assert "There is no tool 'get_time_series' in toolset 'assistant.devices'" in result.for_model()


def test_an_expired_call_is_answered_timeout_without_running(
    redis_server: RedisServer, prefix: str
) -> None:
    fields = call_fields(deadline=time.time() - 1)
    result = ToolResult.from_dict(raw_call(redis_server, prefix, fields)["result"])
    assert result.retry_hint is not None and result.retry_hint.reason == "timeout"
    assert "it did not run" in result.for_model()
    assert effects(redis_server, prefix) == {}


def test_a_queue_that_cannot_be_reached_makes_its_tools_unavailable(tmp_path: Any) -> None:
    url = f"unix://{tmp_path}/nothing.sock"

    async def main() -> ToolResult:
        transport = RedisTransport(url)
        try:
            agent = Runtime(
                [remote_registration(devices, transport=transport)], approver=approve_all
            )
            return await agent.execute(restart())
        finally:
            await transport.close()

    started = time.perf_counter()
    result = asyncio.run(main())
    assert time.perf_counter() - started < 5
    assert result.retry_hint is not None and result.retry_hint.reason == "tool_unavailable"
    assert "its workers cannot be reached" in result.for_model()
    assert result.error is not None and "cannot reach Redis at" in result.error.details["problem"]
