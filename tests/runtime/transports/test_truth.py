"""No wrong answer, no false ``outcome_unknown``: a call id bound to its request, a lost reply
to the worker's start mark, defaults that redeliver inside a call's deadline, and the words a
retry after the deadline reads. Each against a real server."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.transports import RedisWorker, remote_registration
from tooldesign.runtime.transports.redis import RedisTransport
from tooldesign.runtime.transports.remote import DEFAULT_TIMEOUT

from gen.assistant.toolsets import devices
from tests.runtime.transports import app
from tests.runtime.transports.test_redelivery import ghost_takes, pretend_live
from tests.support.netops import approve_all
from tests.support.redis import RedisServer, running_worker, wait_live, worker_process
from tests.support.remote import DEVICES, VERSION, effects

pytestmark = pytest.mark.slow  # a Redis server, workers


def pay(meta: ToolCallMeta, reason: str, **labels: Any) -> ToolRequest:
    if labels:
        meta = ToolCallMeta(**{**meta.to_dict(), "labels": labels})
    return ToolRequest("restart_device", {"device_id": "dev-00000000", "reason": reason}, meta)


def test_two_calls_under_one_id_with_other_arguments_never_share_an_answer(
    redis_server: RedisServer, prefix: str
) -> None:
    """ "10 EUR to alice" then "99 EUR to bob" under the same run id and tool call id: the second
    is refused and never runs, whether the first is answered or still queued."""
    url = redis_server.url
    same = ToolCallMeta(session_id="s", run_id="run-1", tool_call_id="call_1")
    also = ToolCallMeta(session_id="s", run_id="run-1", tool_call_id="call_2")

    async def main() -> list[ToolResult]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        try:
            async with running_worker(Runtime([app.registration(url, prefix)]), url, prefix):
                first = await agent.execute(pay(same, "10 EUR to alice"))
                second = await agent.execute(pay(same, "99 EUR to bob"))
                # Both at once, the first still queued when the second comes.
                third, fourth = await asyncio.gather(
                    agent.execute(pay(also, "10 EUR to alice", sleep=0.3)),
                    agent.execute(pay(also, "99 EUR to bob")),
                )
                # The same request again is the same call: its stored answer.
                again = await agent.execute(pay(same, "10 EUR to alice"))
                return [first, second, third, fourth, again]
        finally:
            await transport.close()

    first, second, third, fourth, again = asyncio.run(main())
    assert first.ok and first.result.job_id.endswith("|10 EUR to alice")
    assert again.ok and again.result_json == first.result_json
    for refused in (second, fourth):
        assert not refused.ok and refused.result is None
        assert refused.telemetry.outcome == "call_id_conflict"
        assert "did not run" in refused.for_model()
    assert third.ok and third.result.job_id.endswith("|10 EUR to alice")
    assert effects(redis_server, prefix) == {same.stable_id(): 1, also.stable_id(): 1}


def test_an_in_process_call_gets_a_call_id_too(tmp_path: Path) -> None:
    log = tmp_path / "effects.log"
    runtime = Runtime([app.registration("redis://unused", "unused", effects_log=str(log))])
    with_ids = ToolCallMeta(session_id="s", run_id="run-9", tool_call_id="call_9")
    for meta in (with_ids, with_ids, ToolCallMeta(session_id="s"), ToolCallMeta(session_id="s")):
        result = runtime.execute_sync(
            ToolRequest("get_device", {"device_id": "dev-00000000"}, meta)
        )
        assert result.ok, result.for_model()
    seen = [line.split(" ")[1] for line in log.read_text().splitlines()]
    assert seen[0] == seen[1] == with_ids.stable_id()
    assert "-" not in seen and seen[2] != seen[3]  # without ids: a fresh one each call


def test_a_lost_reply_to_the_start_mark_is_not_a_lost_worker(
    redis_server: RedisServer, prefix: str
) -> None:
    """The script that marks a call started runs, and its reply is lost (the connection drops):
    the worker does not take its own mark for a lost worker's, and runs the call once."""
    url = redis_server.url

    async def main() -> ToolResult:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime([remote_registration(devices, transport=transport)], approver=approve_all)
        worker_runtime = Runtime([app.registration(url, prefix)])
        try:
            async with running_worker(worker_runtime, url, prefix, claim_timeout=0.5) as worker:
                scripts = worker._scripts
                assert scripts is not None
                run, run_confirmed = scripts.run, scripts.run_confirmed
                lost: list[str] = []

                def marked(name: str, result: Any) -> bool:
                    return (name == "start" and result[0] == "first") or (
                        name in ("take", "claim") and result[0] == "ok" and bool(result[1])
                    )

                async def losing(name: str, keys: list[str], args: list[Any]) -> Any:
                    result = await run(name, keys, args)
                    if marked(name, result) and not lost:
                        lost.append(name)
                        raise redis.ConnectionError("the reply was lost")
                    return result

                async def losing_confirmed(name: str, keys: list[str], args: list[Any]) -> Any:
                    result = await run_confirmed(name, keys, args)
                    if marked(name, result[0]) and not lost:
                        lost.append(name)
                        raise redis.ConnectionError("the reply was lost")
                    return result

                scripts.run = losing  # type: ignore[method-assign]
                scripts.run_confirmed = losing_confirmed  # type: ignore[method-assign]
                result = await agent.execute(pay(ToolCallMeta(session_id="s"), "once"))
                assert lost
                return result
        finally:
            await transport.close()

    result = asyncio.run(main())
    assert result.ok, result.for_model()
    assert list(effects(redis_server, prefix).values()) == [1]


def test_the_default_claim_timeout_is_well_inside_the_default_call_timeout() -> None:
    worker = RedisWorker(Runtime([app.registration("redis://unused", "unused")]))
    assert worker.claim_timeout * 4 <= DEFAULT_TIMEOUT


def test_with_the_defaults_a_dead_workers_calls_are_taken_over_before_their_deadline(
    redis_server: RedisServer, prefix: str, tmp_path: Path
) -> None:
    url = redis_server.url
    logs = [tmp_path / "worker-0.log", tmp_path / "worker-1.log"]
    workers = [worker_process(url, prefix, log=log) for log in logs]  # default settings

    async def main() -> tuple[list[ToolResult], float]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport)], approver=approve_all
        )  # the default timeout
        try:
            await wait_live(transport, DEVICES, VERSION)
            for log in logs:
                while "serving assistant.devices" not in log.read_text():
                    await asyncio.sleep(0.05)
            reads = [
                ToolRequest(
                    "get_device",
                    {"device_id": "dev-00000000"},
                    ToolCallMeta(session_id="s", call_id=f"r{i}", labels={"sleep": 1.0}),
                )
                for i in range(20)
            ]
            calls = [asyncio.create_task(agent.execute(r)) for r in reads]
            await asyncio.sleep(0.5)
            os.kill(workers[0].pid, signal.SIGKILL)
            started = time.monotonic()
            results = await asyncio.gather(*calls)
            return list(results), time.monotonic() - started
        finally:
            await transport.close()

    try:
        results, took = asyncio.run(main())
    finally:
        workers[1].send_signal(signal.SIGTERM)
        assert workers[1].wait(timeout=60) == 0
        workers[0].wait(timeout=10)
    assert {r.telemetry.outcome for r in results} == {"ok"}, [r.for_model() for r in results]
    assert took < DEFAULT_TIMEOUT / 2


def test_a_retry_after_the_deadline_of_a_call_a_lost_worker_started_is_not_told_it_did_not_run(
    redis_server: RedisServer, prefix: str
) -> None:
    """The call's first worker was lost while running it; the agent stopped waiting at the
    deadline; the retry, later, hears that the outcome is unknown, not that it did not run."""
    url = redis_server.url
    meta = ToolCallMeta(session_id="s", run_id="run-3", tool_call_id="call_3")
    pretend_live(redis_server, prefix)

    async def main() -> tuple[ToolResult, ToolResult]:
        transport = RedisTransport(url, prefix=prefix)
        agent = Runtime(
            [remote_registration(devices, transport=transport, timeout=1.0)], approver=approve_all
        )
        try:
            first = asyncio.create_task(agent.execute(pay(meta, "late")))
            await asyncio.to_thread(ghost_takes, redis_server, prefix, starts=True)
            timed_out = await first
            await asyncio.sleep(0.2)  # past the first call's deadline
            worker_runtime = Runtime([app.registration(url, prefix)])
            # The retry waits longer than the first call: the takeover must happen within it,
            # on a loaded machine too.
            patient = Runtime(
                [remote_registration(devices, transport=transport, timeout=10.0)],
                approver=approve_all,
            )
            async with running_worker(worker_runtime, url, prefix, claim_timeout=0.3):
                retried = await patient.execute(pay(meta, "late"))
            return timed_out, retried
        finally:
            await transport.close()

    timed_out, retried = asyncio.run(main())
    assert timed_out.telemetry.outcome == "timeout"
    assert retried.telemetry.outcome == "outcome_unknown", retried.for_model()
    assert "did not run" not in retried.for_model()
    assert effects(redis_server, prefix) == {}
