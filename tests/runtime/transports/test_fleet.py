"""The fleet never dies of one event: a Redis that restarts empty or pauses, entries that are not
calls (not UTF-8, huge, a reply address that is not a reply stream, a deadline that is NaN),
and workers that stop gracefully while calls arrive. Each against a real server."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisKeys, RedisTransport

from gen.assistant.toolsets import devices
from tests.runtime.transports import app
from tests.support.netops import approve_all
from tests.support.redis import RedisServer, running_worker, wait_live, worker_process
from tests.support.remote import DEVICES, VERSION, effects, restart

pytestmark = pytest.mark.slow  # a Redis server, workers


def meta(run: str, i: int) -> ToolCallMeta:
    return ToolCallMeta(session_id="s", run_id=run, tool_call_id=f"c{i}")


def stop_all(workers: list[Any]) -> list[int]:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    return [worker.wait(timeout=60) for worker in workers]


def test_a_redis_restart_without_persistence_kills_no_worker(
    own_redis: Any, tmp_path: Path
) -> None:
    server = own_redis(appendonly=False)
    prefix = "empty"
    effects_log = tmp_path / "effects.log"
    logs = [tmp_path / f"worker-{i}.log" for i in range(3)]
    options = ("--claim-timeout", "0.3")  # renewals every 0.1 s: one lands on the empty server
    workers = [
        worker_process(server.url, prefix, *options, log=log, TD_EFFECTS_LOG=str(effects_log))
        for log in logs
    ]

    async def main() -> tuple[list[ToolResult], list[ToolResult], list[bool]]:
        transport = RedisTransport(server.url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=6)], approver=approve_all
        )
        try:
            await wait_live(transport, DEVICES, VERSION)
            await asyncio.sleep(1.0)  # every worker up
            running = [
                asyncio.create_task(agent.execute(restart(meta("in-flight", i), sleep=2.5)))
                for i in range(30)
            ]
            await asyncio.sleep(0.5)
            await asyncio.to_thread(server.stop)
            await asyncio.sleep(1.0)
            server.socket.unlink(missing_ok=True)
            await asyncio.to_thread(server.start)  # the server comes back empty
            in_flight = await asyncio.gather(*running)
            await wait_live(transport, DEVICES, VERSION)
            after = await asyncio.gather(
                *(agent.execute(restart(meta("after", i))) for i in range(10))
            )
            alive = [worker.poll() is None for worker in workers]
            return list(in_flight), list(after), alive
        finally:
            await transport.close()

    try:
        in_flight, after, alive = asyncio.run(main())
    finally:
        codes = stop_all(workers)
    assert alive == [True, True, True], [log.read_text()[-3000:] for log in logs]
    assert codes == [0, 0, 0]
    # The calls running when Redis lost everything finish and are answered.
    assert [r.telemetry.outcome for r in in_flight] == ["ok"] * 30, [
        r.for_model() for r in in_flight if not r.ok
    ]
    assert [r.telemetry.outcome for r in after] == ["ok"] * 10
    ran = app.read_effects(effects_log)
    assert all(count == 1 for count in ran.values())


def poison(server: RedisServer, prefix: str, fields: dict[bytes, bytes]) -> None:
    with redis.Redis.from_url(server.url) as client:
        client.xadd(RedisKeys(prefix).requests(DEVICES, VERSION).encode(), fields)  # type: ignore[arg-type]


def served_after(server: RedisServer, prefix: str, put: Any) -> tuple[ToolResult, float, Any]:
    """A worker serves while ``put()`` puts something on its stream, then a real call: its
    answer, how long it took, and what the dead-letter stream holds (raw bytes)."""
    url = server.url

    async def main() -> tuple[ToolResult, float]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=20)], approver=approve_all
        )
        try:
            async with running_worker(
                Runtime([app.registration(url, prefix)]), url, prefix, claim_timeout=1
            ):
                await asyncio.to_thread(put)
                await asyncio.sleep(0.3)
                started = time.perf_counter()
                result = await agent.execute(restart())
                return result, time.perf_counter() - started
        finally:
            await transport.close()

    result, took = asyncio.run(main())
    with redis.Redis.from_url(url) as client:
        letters = client.xrange(RedisKeys(prefix).dead(DEVICES).encode())  # type: ignore[arg-type]
        stream = RedisKeys(prefix).requests(DEVICES, VERSION)
        pending = client.xpending(stream, "workers")["pending"]
    assert pending == 0
    return result, took, letters


def test_an_entry_that_is_not_utf8_is_dead_lettered_as_it_was(
    redis_server: RedisServer, prefix: str
) -> None:
    reply = RedisKeys(prefix).replies(DEVICES, "nobody").encode()
    fields = {b"id": b"c\xff", b"tool": b"x\xfe", b"reply": reply, b"call": b'{"v": 1, "\xff"}'}
    result, _, letters = served_after(
        redis_server, prefix, lambda: poison(redis_server, prefix, fields)
    )
    assert result.ok, result.for_model()
    ((_, letter),) = letters
    assert letter[b"id"] == b"c\xff" and letter[b"call"] == b'{"v": 1, "\xff"}'
    assert letter[b"reason"].startswith(b"malformed: ")


def test_a_call_that_is_not_utf8_naming_a_reply_is_answered(
    redis_server: RedisServer, prefix: str
) -> None:
    keys = RedisKeys(prefix)
    reply = keys.replies(DEVICES, "test")
    fields = {
        b"id": b"c",
        b"tool": f"{DEVICES}.restart_device".encode(),
        b"reply": reply.encode(),
        b"call": b'{"v": 1, "id": "c", "payload": "\xff"}',
    }
    result, _, _ = served_after(redis_server, prefix, lambda: poison(redis_server, prefix, fields))
    assert result.ok
    with redis_server.client() as client:
        ((_, answer),) = client.xrange(reply)
    answered = ToolResult.from_dict(json.loads(answer["answer"])["result"])
    assert "could not be read by the worker" in answered.for_model()
    assert "not UTF-8" in answered.error.details["problem"]  # type: ignore[union-attr]


def test_a_huge_entry_is_refused_by_size_before_a_worker_reads_it(
    redis_server: RedisServer, prefix: str
) -> None:
    reply = RedisKeys(prefix).replies(DEVICES, "test").encode()
    body = b'{"v": 1, "id": "c", "payload": "' + b"x" * (64 << 20) + b'"}'
    fields = {
        b"id": b"c",
        b"tool": f"{DEVICES}.restart_device".encode(),
        b"reply": reply,
        b"call": body,
    }
    result, took, letters = served_after(
        redis_server, prefix, lambda: poison(redis_server, prefix, fields)
    )
    assert result.ok and took < 2.0
    ((_, letter),) = letters
    assert letter[b"reason"].startswith(b"too large: ") and letter[b"id"] == b"c"
    assert b"call" not in letter  # not copied: it was never read whole
    with redis_server.client() as client:
        ((_, answer),) = client.xrange(reply.decode())
    answered = ToolResult.from_dict(json.loads(answer["answer"])["result"])
    assert "bytes, over the" in answered.error.details["problem"]  # type: ignore[union-attr]


@pytest.mark.parametrize("target", ["requests", "string", "elsewhere"])
def test_a_reply_address_that_is_not_a_reply_stream_is_dead_lettered(
    redis_server: RedisServer, prefix: str, target: str
) -> None:
    keys = RedisKeys(prefix)
    addresses = {
        "requests": keys.requests(DEVICES, VERSION),  # would answer into the queue
        "string": keys.replies(DEVICES, "a-string"),  # a reply address holding a string
        "elsewhere": f"{prefix}:{{other}}:replies:x",  # another slot
    }
    address = addresses[target]
    with redis_server.client() as client:
        client.set(keys.replies(DEVICES, "a-string"), "not a stream")
    message = {
        "v": 1,
        "id": "c",
        "tool": f"{DEVICES}.restart_device",
        "toolset": DEVICES,
        "version": VERSION,
        "deadline": time.time() + 60,
        "payload": json.dumps({"device_id": "dev-00000000", "reason": "poison"}),
        "meta": {"session_id": "s"},
    }
    fields = {
        b"id": b"c",
        b"tool": f"{DEVICES}.restart_device".encode(),
        b"reply": address.encode(),
        b"call": json.dumps(message).encode(),
    }
    result, _, letters = served_after(
        redis_server, prefix, lambda: poison(redis_server, prefix, fields)
    )
    assert result.ok
    ((_, letter),) = letters
    assert letter[b"reason"] == b"the reply address is not a reply stream of this toolset"
    with redis_server.client() as client:
        assert client.type(address) in ("stream", "string", "none")
        if target == "requests":
            assert client.xlen(address) == 0  # no answer was queued as a call


def test_a_call_whose_deadline_is_nan_is_answered_and_never_runs(
    redis_server: RedisServer, prefix: str
) -> None:
    keys = RedisKeys(prefix)
    reply = keys.replies(DEVICES, "test")
    call = (
        '{"v": 1, "id": "c", "tool": "assistant.devices.restart_device", "toolset": '
        f'"{DEVICES}", "version": "{VERSION}", "deadline": NaN, "payload": '
        '"{\\"device_id\\": \\"dev-00000000\\", \\"reason\\": \\"nan\\"}", "meta": {}}'
    )
    fields = {
        b"id": b"c",
        b"tool": f"{DEVICES}.restart_device".encode(),
        b"reply": reply.encode(),
        b"call": call.encode(),
    }
    result, _, _ = served_after(redis_server, prefix, lambda: poison(redis_server, prefix, fields))
    assert result.ok
    with redis_server.client() as client:
        ((_, answer),) = client.xrange(reply)
    answered = ToolResult.from_dict(json.loads(answer["answer"])["result"])
    assert "deadline is nan" in answered.error.details["problem"]  # type: ignore[union-attr]
    assert sum(effects(redis_server, prefix).values()) == 1  # only the real call ran


def test_a_paused_or_restarted_redis_makes_no_worker_look_dead(
    own_redis: Any, tmp_path: Path
) -> None:
    """Redis paused (SIGSTOP), then down, each for longer than the claim timeout and the
    heartbeat's lifetime: calls running on live workers are neither taken over nor answered
    outcome_unknown, and calls sent as soon as it is back are not refused tool_unavailable."""
    server = own_redis(appendonly=True)
    prefix = "paused"
    effects_log = tmp_path / "effects.log"
    logs = [tmp_path / f"worker-{i}.log" for i in range(2)]
    workers = [
        worker_process(
            server.url, prefix, "--claim-timeout", "1", log=log, TD_EFFECTS_LOG=str(effects_log)
        )
        for log in logs
    ]

    async def main() -> tuple[list[ToolResult], list[ToolResult]]:
        transport = RedisTransport(server.url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=30)], approver=approve_all
        )
        try:
            await wait_live(transport, DEVICES, VERSION)
            await asyncio.sleep(1.0)
            reads = [
                ToolRequest(
                    "get_device",
                    {"device_id": "dev-00000000"},
                    ToolCallMeta(session_id="s", labels={"sleep": 6.0}, call_id=f"read-{i}"),
                )
                for i in range(10)
            ]
            running = [
                asyncio.create_task(agent.execute(r))
                for r in [*(restart(meta("paused", i), sleep=6.0) for i in range(10)), *reads]
            ]
            await asyncio.sleep(0.3)
            server.process.send_signal(signal.SIGSTOP)  # type: ignore[union-attr]
            await asyncio.sleep(4.0)  # the calls still run when it comes back
            server.process.send_signal(signal.SIGCONT)  # type: ignore[union-attr]
            during = await asyncio.gather(*running)
            await asyncio.to_thread(server.stop)
            await asyncio.sleep(4.0)
            server.socket.unlink(missing_ok=True)
            await asyncio.to_thread(server.start)  # from its append-only file
            after = await asyncio.gather(
                *(agent.execute(restart(meta("after", i))) for i in range(5))
            )
            return list(during), list(after)
        finally:
            await transport.close()

    try:
        during, after = asyncio.run(main())
    finally:
        codes = stop_all(workers)
    assert codes == [0, 0]
    assert [r.telemetry.outcome for r in during] == ["ok"] * 20, [
        r.for_model() for r in during if not r.ok
    ]
    assert [r.telemetry.outcome for r in after] == ["ok"] * 5, [r.for_model() for r in after]
    assert set(app.read_effects(effects_log).values()) == {1}  # nothing ran twice
    assert not any("took over call" in log.read_text() for log in logs)


def test_a_stopping_worker_runs_the_calls_queued_before_it_left(
    redis_server: RedisServer, prefix: str
) -> None:
    """One worker, one slot: a slow call holds it and three wait in the queue when the worker
    is told to stop. They run before it exits, instead of waiting out their deadline."""
    url = redis_server.url

    async def main() -> tuple[list[ToolResult], float]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=10)], approver=approve_all
        )
        try:
            worker_runtime = Runtime([app.registration(url, prefix)])
            started = time.perf_counter()
            async with running_worker(worker_runtime, url, prefix, concurrency=1) as worker:
                calls = [asyncio.create_task(agent.execute(restart(sleep=0.5)))]
                await asyncio.sleep(0.1)
                calls += [asyncio.create_task(agent.execute(restart())) for _ in range(3)]
                await asyncio.sleep(0.1)
                worker.stop()
                results = await asyncio.gather(*calls)
            return list(results), time.perf_counter() - started
        finally:
            await transport.close()

    results, took = asyncio.run(main())
    assert [r.telemetry.outcome for r in results] == ["ok"] * 4, [r.for_model() for r in results]
    assert took < 5


def test_a_rolling_deploy_strands_no_call(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    url = redis_server.url
    logs = iter(tmp_path / f"worker-{i}.log" for i in range(10))
    options = ("--claim-timeout", "1", "--grace", "10")
    workers = [worker_process(url, prefix, *options, log=next(logs)) for _ in range(2)]
    retired: list[Any] = []

    async def main() -> list[ToolResult]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=20)], approver=approve_all
        )
        try:
            await wait_live(transport, DEVICES, VERSION)
            window = asyncio.Semaphore(16)

            async def one(i: int) -> ToolResult:
                async with window:
                    return await agent.execute(restart(meta("deploy", i), sleep=0.02))

            calls = [asyncio.create_task(one(i)) for i in range(1500)]
            for _ in range(2):  # replace each worker: start the new one, then stop the old
                await asyncio.sleep(0.5)
                log = next(logs)
                workers.append(worker_process(url, prefix, *options, log=log))
                while "serving assistant.devices" not in log.read_text():
                    await asyncio.sleep(0.05)
                old = workers.pop(0)
                old.send_signal(signal.SIGTERM)
                retired.append(old)
            return list(await asyncio.gather(*calls))
        finally:
            await transport.close()

    try:
        results = asyncio.run(main())
    finally:
        codes = stop_all(workers + retired)
    assert codes == [0] * 4
    assert {r.telemetry.outcome for r in results} == {"ok"}
    assert set(effects(redis_server, prefix).values()) == {1}


def test_a_repeated_sigterm_lets_a_stopping_worker_finish_and_exit_0(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    """A supervisor that sends SIGTERM again while a worker stops (a deploy script, a second
    stop) neither cuts the running call short nor ends the worker with a signal's status."""
    url = redis_server.url
    log = tmp_path / "worker.log"
    worker = worker_process(url, prefix, "--grace", "10", log=log)

    async def main() -> ToolResult:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=20)], approver=approve_all
        )
        try:
            await wait_live(transport, DEVICES, VERSION)
            call = asyncio.create_task(agent.execute(restart(meta("twice", 0), sleep=1.5)))
            while not effects(redis_server, prefix):  # the call runs
                await asyncio.sleep(0.02)
            for _ in range(3):
                worker.send_signal(signal.SIGTERM)
                await asyncio.sleep(0.2)
            return await call
        finally:
            await transport.close()

    try:
        result = asyncio.run(main())
    finally:
        code = stop_all([worker])[0]
    assert result.telemetry.outcome == "ok", result.for_model()
    assert code == 0, log.read_text()


def test_a_worker_stopped_while_it_starts_exits_0_and_never_serves(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    """A supervisor may stop a worker while it still imports and builds its application: that
    is a stop as asked (exit 0), not a death by signal, and the worker never joins the fleet."""
    mark, log = tmp_path / "starting", tmp_path / "worker.log"
    worker = worker_process(redis_server.url, prefix, log=log, TD_STARTING_MARK=str(mark))
    deadline = time.monotonic() + 30
    while not mark.exists():  # the application is being built
        assert worker.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.02)
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=30) == 0, log.read_text()
    text = log.read_text()
    assert "stopped before it started serving" in text and "serving assistant" not in text
