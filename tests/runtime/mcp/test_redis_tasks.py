"""MCP tasks kept in Redis (``RedisTaskStore``), their calls run by Redis workers: a task
outlives the server that created it (another server, a new one, answers for it with the
worker's result), servers behind a load balancer see and cancel each other's tasks, a task
whose worker died or whose Redis restarted ends, and a caller sees only its own tasks.

Each test runs a real Redis server and ``tooldesign worker`` processes (``task_worker``: the
devices toolset, long-running, each call sleeping ``TD_DELAY`` s after its effect, effects
counted in a log); the MCP servers are streamable-HTTP apps in this process, each with its own
runtime, transport and store, as separate processes would have."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime import Runtime
from tooldesign.runtime.mcp import BearerTokens, RedisTaskStore, Tasks, ToolServer
from tooldesign.runtime.transports import remote_registration
from tooldesign.runtime.transports.redis import RedisKeys, RedisTransport

from examples.netops.agent import restart_device
from examples.netops.services import DeviceService, Inventory
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.devices import types as device_types
from tests.runtime.mcp import task_worker
from tests.runtime.mcp.test_tasks import TASKS, Wire, stream
from tests.runtime.transports import app
from tests.support.netops import approve_all
from tests.support.programs import redis_binary
from tests.support.redis import RedisServer, wait_live, worker_process
from tests.support.remote import DEVICES

pytestmark = pytest.mark.slow  # a Redis server, worker processes

TARGET = "tests.runtime.mcp.task_worker:runtime"
VERSION = task_worker.toolset_version()
RESTART = {"device_id": "dev-0a1b2c3d", "reason": "firmware"}
ENDED = ("completed", "failed", "cancelled")


@pytest.fixture
def own_redis() -> Iterator[Any]:
    servers: list[RedisServer] = []

    def start(*, appendonly: bool = False) -> RedisServer:
        server = RedisServer(redis_binary(), appendonly=appendonly)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.cleanup()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[bytes]] = []

    def start(url: str, prefix: str, *options: str, delay: float = 2.0) -> Any:
        process = worker_process(
            url,
            prefix,
            *options,
            log=tmp_path / f"worker-{len(started)}.log",
            target=TARGET,
            TD_DELAY=str(delay),
            TD_EFFECTS_LOG=str(tmp_path / "effects.log"),
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in started:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


class Node:
    """One MCP server: its own runtime (the devices calls sent to the workers), transport and
    task store; ``stop()`` hands its tasks over, ``crash()`` leaves them as a killed process
    would (its lease runs out)."""

    def __init__(
        self,
        url: str,
        prefix: str,
        *,
        local: bool = False,
        timeout: float = 30,
        runtime: Runtime | None = None,
        tokens: BearerTokens | None = None,
    ) -> None:
        self.transport = RedisTransport(url, prefix=prefix)
        registration = (
            task_worker.long_running(
                devices.new_registration(
                    service=DeviceService(Inventory()), handlers={"restart_device": restart_device}
                )
            )
            if local
            else remote_registration(task_worker.specs(), transport=self.transport, timeout=timeout)
        )
        self.runtime = runtime or Runtime([registration], approver=approve_all)
        self.store = RedisTaskStore(url, prefix=prefix, lease=1.0)
        self.tasks = Tasks(self.store)
        # restart_device takes the session's id: the tests' HTTP requests carry none
        server = ToolServer(self.runtime, meta_for=lambda c: replace(c.meta, session_id="s-1"))
        self.tasks.serve_on(server)
        self.app = server.streamable_http_app(token_verifier=tokens)
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Self:
        await self._stack.enter_async_context(self.app.router.lifespan_context(self.app))
        http = await self._stack.enter_async_context(
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=self.app), base_url="http://127.0.0.1"
            )
        )
        self.wire = Wire(http, {TASKS: {}})
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def stop(self) -> None:
        self.tasks.close()
        await self.store.aclose()
        await self.transport.close()
        await self._stack.aclose()

    async def crash(self) -> None:
        """Gone without a word: its heartbeat stops, its lease is left to run out."""
        self.store._closed = True
        for loop in self.store._loops:
            loop.cancel()
        await self.transport.close()
        await self._stack.aclose()

    async def get(self, task_id: str) -> dict[str, Any]:
        return await self.wire.result("tasks/get", {"taskId": task_id})

    async def until(self, task_id: str, *statuses: str, within: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + within
        while (task := await self.get(task_id))["status"] not in statuses:
            assert time.monotonic() < deadline, f"task still {task['status']}: {task}"
            await asyncio.sleep(0.05)
        return task


async def live(url: str, prefix: str) -> None:
    probe = RedisTransport(url, prefix=prefix)
    try:
        await wait_live(probe, DEVICES, VERSION)
    finally:
        await probe.close()


def acked(answer: dict[str, Any]) -> bool:
    """An empty result (beside its stamp)."""
    rest = {k: v for k, v in answer.items() if k not in ("_meta", "resultType")}
    return rest == {} and answer.get("resultType", "complete") == "complete"


def effects(tmp_path: Path, call_id: str) -> int:
    path = tmp_path / "effects.log"
    counts = app.read_effects(path) if path.exists() else {}
    return counts.get(("restart_device", call_id), 0)


async def started(tmp_path: Path, call_id: str, within: float = 20) -> None:
    deadline = time.monotonic() + within
    while not effects(tmp_path, call_id):
        assert time.monotonic() < deadline, "the worker never ran the call"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("how", ["crash", "stop", "shutdown", "late"])
def test_a_task_outlives_the_server_that_created_it(
    redis_server: RedisServer, workers: Any, tmp_path: Path, how: str
) -> None:
    prefix = f"outlive-{how}"
    url = redis_server.url
    workers(url, prefix, delay=2.0)

    async def main() -> None:
        await live(url, prefix)
        first = await Node(url, prefix).__aenter__()
        task = await first.wire.call("restart_device", **RESTART)
        assert task["resultType"] == "task" and task["status"] == "working"
        call_id = f"mcp-task-{task['taskId']}"
        await started(tmp_path, call_id)
        if how == "shutdown":  # the event loop ends: what runs is cancelled, transport open
            runners = [t.runner for t in first.store._local.values() if t.runner is not None]
            for runner in runners:
                runner.cancel()
            await asyncio.wait(runners)
            await asyncio.sleep(0.2)  # a cancel of the call on the workers would land now
        await (first.stop() if how == "stop" else first.crash())
        if how == "late":  # the call ends while no server waits for it: the queue keeps its answer
            await asyncio.sleep(2.5)
        async with Node(url, prefix) as second:  # a new server: nothing of the first in memory
            seen = await second.get(task["taskId"])
            assert seen["status"] == "working", seen  # taken over: its call joined, or answered
            done = await second.until(task["taskId"], *ENDED)
        assert done["status"] == "completed", done
        job = done["result"]["structuredContent"]["job_id"]
        assert job.startswith(f"{call_id}|"), job  # the worker's answer to that very call
        assert effects(tmp_path, call_id) == 1  # it ran once

    asyncio.run(main())


@pytest.mark.parametrize("gone", ["answered", "running"])
def test_a_task_whose_call_the_queue_forgot_is_not_run_again(
    redis_server: RedisServer, workers: Any, tmp_path: Path, gone: str
) -> None:
    # The server running a task dies; the queue's record of its call is gone (expired, or lost
    # with Redis's data) when another server takes the task over. The call was sent, so it may
    # have run: sent again, it would run twice. The task fails, its outcome unknown.
    prefix = f"forgot-{gone}"
    url = redis_server.url
    workers(url, prefix, delay=0.5 if gone == "answered" else 3.0)

    async def main() -> None:
        await live(url, prefix)
        first = await Node(url, prefix).__aenter__()
        task = await first.wire.call("restart_device", **RESTART)
        call_id = f"mcp-task-{task['taskId']}"
        await started(tmp_path, call_id)
        await first.crash()
        await asyncio.sleep(1.2 if gone == "answered" else 0.2)  # answered, or still running
        with redis_server.client() as client:
            assert client.delete(
                RedisKeys(prefix).call("assistant.devices.restart_device", call_id)
            )
        await asyncio.sleep(1.2)  # the first server's lease runs out
        async with Node(url, prefix) as second:
            done = await second.until(task["taskId"], *ENDED)
        assert done["status"] == "failed", done
        message = done["error"]["message"]
        assert "no longer holds the record" in message and "not sent again" in message
        await asyncio.sleep(3.5 if gone == "running" else 0)  # a second run would be done now
        assert effects(tmp_path, call_id) == 1  # it ran once

    asyncio.run(main())


def test_servers_sharing_the_store_see_and_cancel_each_others_tasks(
    redis_server: RedisServer, workers: Any, tmp_path: Path
) -> None:
    prefix = "shared"
    url = redis_server.url
    workers(url, prefix, delay=3.0)

    async def main() -> None:
        await live(url, prefix)
        async with Node(url, prefix) as a, Node(url, prefix) as b:
            one = await a.wire.call("restart_device", **RESTART)
            assert (await b.get(one["taskId"]))["status"] == "working"  # B reads A's record
            done = await b.until(one["taskId"], *ENDED)  # A's runner writes the result
            assert done["status"] == "completed", done
            assert done["result"] == (await a.get(one["taskId"]))["result"]
            two = await a.wire.call("restart_device", **{**RESTART, "reason": "again"})
            await started(tmp_path, f"mcp-task-{two['taskId']}")
            assert acked(await b.wire.result("tasks/cancel", {"taskId": two["taskId"]}))
            # A learns of it on its next heartbeat, cancels the call on the worker, and ends
            # the task (the server running a task decides how it ends).
            assert (await b.until(two["taskId"], *ENDED, within=5))["status"] == "cancelled"
            assert (await a.get(two["taskId"]))["status"] == "cancelled"
            key = RedisKeys(prefix).call(
                "assistant.devices.restart_device", f"mcp-task-{two['taskId']}"
            )
            with redis_server.client() as client:
                deadline = time.monotonic() + 5
                while client.hget(key, "cancelled") != "1":
                    assert time.monotonic() < deadline, client.hgetall(key)
                    await asyncio.sleep(0.05)

    asyncio.run(main())


def test_a_cancel_sent_to_another_server_does_not_hide_a_threads_effect(
    redis_server: RedisServer,
) -> None:
    # A task runs a sync tool in a worker thread of server A; tasks/cancel reaches server B.
    # The thread cannot be stopped: the task stays working until it returns, then completes
    # with its result, as in a store kept in process (B marked the record cancelled at once).
    prefix = "thread-cancel"
    url = redis_server.url
    release, effects = threading.Event(), []

    def restart(args: Any, meta: Any) -> Any:
        release.wait(10)
        effects.append(args.device_id)
        return device_types.RestartDeviceResult(accepted=True, job_id="job-1")

    registration = devices.new_registration(
        service=DeviceService(Inventory()), handlers={"restart_device": restart}
    )
    runtime = Runtime([task_worker.long_running(registration)], approver=approve_all)

    async def main() -> None:
        async with Node(url, prefix, local=True, runtime=runtime) as a, Node(url, prefix) as b:
            task = await a.wire.call("restart_device", **RESTART)
            await asyncio.sleep(0.2)  # its thread runs
            assert acked(await b.wire.result("tasks/cancel", {"taskId": task["taskId"]}))
            await asyncio.sleep(1.0)  # A's heartbeats pass the cancel on
            assert (await b.get(task["taskId"]))["status"] == "working"
            release.set()
            done = await b.until(task["taskId"], *ENDED, within=10)
        assert done["status"] == "completed", done
        assert done["result"]["structuredContent"]["job_id"] == "job-1"
        assert effects == [RESTART["device_id"]]

    asyncio.run(main())


def test_a_question_asked_on_one_server_is_answered_through_another(
    redis_server: RedisServer,
) -> None:
    from examples.netops import mcp_server

    prefix = "asked"
    url = redis_server.url

    async def main() -> None:
        a = Node(url, prefix, runtime=mcp_server.runtime())
        b = Node(url, prefix, runtime=mcp_server.runtime())
        async with a, b:
            # check_reachability runs in A's process; given no host, it asks the user for one.
            task = await a.wire.call("check_reachability", value="")
            asked = await b.until(task["taskId"], "input_required", within=10)
            questions = {key: r["params"]["message"] for key, r in asked["inputRequests"].items()}
            assert questions == {"user-1": "Which host should the router probe?"}
            answer = {"action": "accept", "content": {"host": "core.hq", "probes": 3}}
            update = {"taskId": task["taskId"], "inputResponses": {"user-1": answer}}
            assert acked(await b.wire.result("tasks/update", update))  # passed on to A
            done = await b.until(task["taskId"], *ENDED, within=10)
        assert done["status"] == "completed", done
        assert done["result"]["structuredContent"]["raw"]["host"] == "core.hq"

    asyncio.run(main())


def test_the_worked_examples_server_keeps_its_tasks_in_the_redis_it_is_given(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from examples.netops import mcp_server

    monkeypatch.setenv("NETOPS_TASKS_REDIS", redis_server.url)

    async def main() -> str:
        app = mcp_server.server().streamable_http_app()
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
            ) as http,
        ):
            task = await Wire(http, {TASKS: {}}).call("check_reachability", value="core.hq")
        return str(task["taskId"])

    task_id = asyncio.run(main())
    with redis_server.client() as client:
        assert client.hget(f"tooldesign:{{mcp-tasks}}:task:{task_id}", "runner")
        client.delete(*client.keys("tooldesign:{mcp-tasks}:*"))


def test_a_caller_sees_only_its_own_tasks_on_every_server(redis_server: RedisServer) -> None:
    async def main() -> None:
        a = RedisTaskStore(redis_server.url, prefix="owners")
        b = RedisTaskStore(redis_server.url, prefix="owners")
        try:
            mine, _ = await a.open("get_device", "alice:", TaskSupport(), {"name": "get_device"})
            anyone, _ = await a.open("get_device", None, TaskSupport(), {"name": "get_device"})
            assert await b.find(mine.id, "bob:") is None
            found = await b.find(mine.id, "alice:")
            assert found is not None and found.owner == "alice:" and found.status == "working"
            assert found is not mine and not found.stranded  # A's lease is live
            assert (await b.find(anyone.id, "bob:")) is not None  # an unowned task: its id
            assert await b.find("no-such-task", "alice:") is None
        finally:
            await a.aclose()
            await b.aclose()

    asyncio.run(main())


def test_a_round_sent_to_two_servers_makes_one_task(redis_server: RedisServer) -> None:
    # An asks_first round (its sealed state) sent again, to another server behind the load
    # balancer, is the task it made — never a second run; once that task is forgotten, the
    # round is refused while its state lasts.
    async def main() -> None:
        a = RedisTaskStore(redis_server.url, prefix="rounds")
        b = RedisTaskStore(redis_server.url, prefix="rounds")
        short = TaskSupport(keep_ms=100)
        call = {"name": "get_device"}
        try:
            made, fresh = await a.open("get_device", "alice:", short, call, "round-1")
            again, fresh_again = await b.open("get_device", "alice:", short, call, "round-1")
            assert fresh and not fresh_again and again.id == made.id
            other, fresh_other = await b.open("get_device", "bob:", short, call, "round-1")
            assert fresh_other and other.id != made.id  # another caller's round is its own
            made.result = {"content": [], "structuredContent": {"ok": True}}
            made.set_status("completed")
            await asyncio.sleep(0.6)  # written, then forgotten after its keep
            with pytest.raises(MCPError, match="made a task already"):
                await b.open("get_device", "alice:", short, call, "round-1")
        finally:
            await a.aclose()
            await b.aclose()

    asyncio.run(main())


def test_a_caller_sees_only_its_own_tasks_over_http_whichever_server_it_asks(
    redis_server: RedisServer, workers: Any
) -> None:
    prefix = "owners-http"
    url = redis_server.url
    workers(url, prefix, delay=0.5)
    alice, bob = "alice-token-0123456789", "bob-token-0123456789ab"
    tokens = BearerTokens({alice: "alice", bob: "bob"})

    async def main() -> None:
        await live(url, prefix)
        async with Node(url, prefix, tokens=tokens) as a, Node(url, prefix, tokens=tokens) as b:
            as_alice = {"Authorization": f"Bearer {alice}"}
            as_bob = {"Authorization": f"Bearer {bob}"}
            call = {"name": "restart_device", "arguments": RESTART}
            task = await a.wire.result("tools/call", call, **as_alice)
            get = {"taskId": task["taskId"]}
            refused = await b.wire.send("tasks/get", get, **as_bob)
            assert "No task" in refused["error"]["message"]  # as if it did not exist
            cancel = await b.wire.send("tasks/cancel", get, **as_bob)
            assert "No task" in cancel["error"]["message"]
            seen = await b.wire.result("tasks/get", get, **as_alice)
            assert seen["status"] in ("working", "completed")

    asyncio.run(main())


def test_a_listen_stream_on_another_server_is_told_its_callers_task_states(
    redis_server: RedisServer, workers: Any
) -> None:
    # notifications/tasks for a task kept in Redis: alice's task runs on A; a stream she opens
    # on B follows it from its record to its end; bob's stream on B is not given her task.
    prefix = "notices"
    url = redis_server.url
    workers(url, prefix, delay=1.0)
    alice, bob = "alice-token-0123456789", "bob-token-0123456789ab"
    writers = {"alice": ["devices:write"], "bob": ["devices:write"]}
    tokens = BearerTokens({alice: "alice", bob: "bob"}, scopes=writers)

    async def main() -> None:
        await live(url, prefix)
        async with Node(url, prefix, tokens=tokens) as a, Node(url, prefix, tokens=tokens) as b:
            as_alice = {"Authorization": f"Bearer {alice}"}
            as_bob = {"Authorization": f"Bearer {bob}"}
            call = {"name": "restart_device", "arguments": RESTART}
            task = await a.wire.result("tools/call", call, **as_alice)
            follow = {"notifications": {"taskIds": [task["taskId"]]}}
            theirs = await stream(b.wire, "subscriptions/listen", follow, **as_bob)
            assert theirs[0]["params"]["notifications"] == {}  # not hers to follow
            assert [m.get("method") for m in theirs[1:]] == [None]  # ended at once
            mine = await stream(b.wire, "subscriptions/listen", follow, **as_alice)
        ack, *notices, _end = mine
        assert ack["params"]["notifications"] == {"taskIds": [task["taskId"]]}
        states = [n["params"] for n in notices]
        assert [s["status"] for s in states] == ["working", "completed"], states
        assert not states[-1]["result"].get("isError"), states[-1]
        assert states[-1]["result"]["structuredContent"]["job_id"].startswith("mcp-task-")

    asyncio.run(main())


def test_a_client_that_only_listens_sees_a_task_whose_server_died_end(
    redis_server: RedisServer, workers: Any, tmp_path: Path
) -> None:
    # Nobody polls: the stream's own reads of the record take the stranded task over, as a
    # tasks/get would, and the stream follows it to its end (the worker's answer, run once).
    prefix = "notices-stranded"
    url = redis_server.url
    workers(url, prefix, delay=1.5)

    async def main() -> None:
        await live(url, prefix)
        first = await Node(url, prefix).__aenter__()
        task = await first.wire.call("restart_device", **RESTART)
        call_id = f"mcp-task-{task['taskId']}"
        await started(tmp_path, call_id)
        await first.crash()
        await asyncio.sleep(1.2)  # its lease runs out
        async with Node(url, prefix) as second:
            follow = {"notifications": {"taskIds": [task["taskId"]]}}
            _ack, *notices, _end = await stream(second.wire, "subscriptions/listen", follow)
        states = [n["params"] for n in notices]
        assert [s["status"] for s in states] == ["working", "completed"], states
        assert states[-1]["result"]["structuredContent"]["job_id"].startswith(f"{call_id}|")
        assert effects(tmp_path, call_id) == 1

    asyncio.run(main())


def test_a_task_is_cancelled_after_its_server_restarted(
    redis_server: RedisServer, workers: Any, tmp_path: Path
) -> None:
    prefix = "cancel-after"
    url = redis_server.url
    workers(url, prefix, delay=5.0)

    async def main() -> None:
        await live(url, prefix)
        first = await Node(url, prefix).__aenter__()
        task = await first.wire.call("restart_device", **RESTART)
        call_id = f"mcp-task-{task['taskId']}"
        await started(tmp_path, call_id)
        await first.crash()
        await asyncio.sleep(1.2)  # its lease runs out: the task is stranded
        async with Node(url, prefix) as second:
            assert acked(await second.wire.result("tasks/cancel", {"taskId": task["taskId"]}))
            assert (await second.get(task["taskId"]))["status"] == "cancelled"
        key = RedisKeys(prefix).call("assistant.devices.restart_device", call_id)
        with redis_server.client() as client:  # the workers were told
            assert client.hget(key, "cancelled") == "1", client.hgetall(key)

    asyncio.run(main())


def test_a_task_whose_worker_died_fails(own_redis: Any, workers: Any, tmp_path: Path) -> None:
    server = own_redis()
    prefix = "died"
    options = ("--claim-timeout", "1")
    holder = workers(server.url, prefix, *options, delay=30.0)

    async def main() -> None:
        await live(server.url, prefix)
        async with Node(server.url, prefix) as node:
            task = await node.wire.call("restart_device", **RESTART)
            await started(tmp_path, f"mcp-task-{task['taskId']}")
            workers(server.url, prefix, *options, delay=30.0)  # the survivor
            holder.send_signal(signal.SIGKILL)
            done = await node.until(task["taskId"], *ENDED, within=40)
        # restart_device must not run twice: its call is answered "outcome unknown".
        assert done["status"] == "failed", done
        assert "failed" in done["error"]["message"] or "lost" in done["error"]["message"]

    asyncio.run(main())


@pytest.mark.parametrize("appendonly", [True, False])
def test_a_redis_restart_mid_task_leaves_no_task_working(
    own_redis: Any, workers: Any, tmp_path: Path, appendonly: bool
) -> None:
    server = own_redis(appendonly=appendonly)
    prefix = "chaos"
    workers(server.url, prefix, delay=2.0)

    async def main() -> None:
        await live(server.url, prefix)
        async with Node(server.url, prefix, timeout=8) as node:
            task = await node.wire.call("restart_device", **RESTART)
            call_id = f"mcp-task-{task['taskId']}"
            await started(tmp_path, call_id)
            server.restart(signal.SIGKILL, empty=not appendonly)
            done = await node.until(task["taskId"], *ENDED, within=40)
        assert done["status"] in ENDED
        assert effects(tmp_path, call_id) == 1
        if appendonly:  # nothing lost: the worker's answer
            assert done["status"] == "completed", done

    asyncio.run(main())


def test_a_stranded_task_of_a_tool_run_in_process_fails_saying_why(
    redis_server: RedisServer,
) -> None:
    prefix = "in-process"
    url = redis_server.url

    async def main() -> None:
        first = await Node(url, prefix, local=True).__aenter__()
        store = first.store
        call = {"name": "restart_device", "arguments": RESTART}  # its effect may have run
        task, _ = await store.open("restart_device", None, task_worker.TASK, call)
        await first.crash()
        await asyncio.sleep(1.2)
        async with Node(url, prefix, local=True) as second:
            done = await second.get(task.id)
        assert done["status"] == "failed"
        assert "ran in that server's process" in done["error"]["message"]

    asyncio.run(main())


def test_the_tasks_kept_are_bounded_over_every_server(redis_server: RedisServer) -> None:
    async def main() -> None:
        a = RedisTaskStore(redis_server.url, prefix="bounded", limit=2)
        b = RedisTaskStore(redis_server.url, prefix="bounded", limit=2)
        short = TaskSupport(keep_ms=60_000)
        try:
            first, _ = await a.open("get_device", None, short, {"name": "get_device"})
            await b.open("get_device", None, short, {"name": "get_device"})
            with pytest.raises(MCPError, match="keeps 2 tasks already"):
                await b.open("get_device", None, short, {"name": "get_device"})
            first.result = {"content": [], "structuredContent": {"ok": True}}
            first.set_status("completed")  # written by A's writer
            deadline = time.monotonic() + 5
            while (seen := await b.find(first.id, None)) is None or seen.status != "completed":
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
            assert seen.detailed()["result"] == first.result
            third, _ = await b.open("get_device", None, short, {"name": "get_device"})
            assert await b.find(first.id, None) is None  # the ended one made room
            assert (await a.find(third.id, None)) is not None
        finally:
            await a.aclose()
            await b.aclose()

    asyncio.run(main())


def test_a_callers_share_of_tasks_holds_over_every_server(redis_server: RedisServer) -> None:
    # per_caller counts a caller's running tasks on every server sharing the store (spread over
    # servers, they were counted per server); a task that ends, is cancelled, or whose server
    # died (its record expiring) stops counting.
    async def main() -> None:
        url, prefix = redis_server.url, "shares"
        a = RedisTaskStore(url, prefix=prefix, per_caller=2, lease=0.2, stranded_ttl=0.6)
        b = RedisTaskStore(url, prefix=prefix, per_caller=2, lease=0.2, stranded_ttl=0.6)
        support, call = TaskSupport(keep_ms=60_000), {"name": "get_device"}
        try:
            first, _ = await a.open("get_device", "alice:", support, call)
            second, _ = await b.open("get_device", "alice:", support, call)
            with pytest.raises(MCPError, match="You run 2 tasks already"):
                await b.open("get_device", "alice:", support, call)
            with pytest.raises(MCPError, match="You run 2 tasks already"):
                await a.open("get_device", "alice:", support, call, "a-round")
            await b.open("get_device", "bob:", support, call)  # another caller's share
            await b.open("get_device", None, support, call)  # nobody's: no share
            first.result = {"content": [], "structuredContent": {"ok": True}}
            first.set_status("completed")  # written by A's writer: it stops counting
            deadline = time.monotonic() + 5
            while True:
                try:
                    third, _ = await b.open("get_device", "alice:", support, call)
                    break
                except MCPError:
                    assert time.monotonic() < deadline, "an ended task still counted"
                    await asyncio.sleep(0.02)
            second.set_status("cancelled")  # written by B: it stops counting
            while True:
                try:
                    fourth, _ = await a.open("get_device", "alice:", support, call)
                    break
                except MCPError:
                    assert time.monotonic() < deadline + 5, "a cancelled task still counted"
                    await asyncio.sleep(0.02)
            # B dies holding two of alice's tasks (third, and fourth is A's): no heartbeat
            # renews third's place, which is freed when its record would expire.
            b._closed = True
            for loop in b._loops:
                loop.cancel()
            with pytest.raises(MCPError, match="You run 2 tasks already"):
                await a.open("get_device", "alice:", support, call)
            await asyncio.sleep(0.8)
            assert (await a.open("get_device", "alice:", support, call))[1]
            assert fourth.status == "working" and third.id
        finally:
            await a.aclose()
            b._closed = False
            await b.aclose()

    asyncio.run(main())


def test_a_store_that_cannot_reach_redis_refuses_the_task_saying_so() -> None:
    async def main() -> None:
        store = RedisTaskStore("redis://127.0.0.1:1/0")
        with pytest.raises(Exception, match="cannot be reached"):
            await store.open("get_device", None, TaskSupport(), {"name": "get_device"})
        await store.aclose()

    asyncio.run(main())


def test_the_store_says_what_is_wrong_with_its_settings() -> None:
    with pytest.raises(ValueError, match="lease"):
        RedisTaskStore(lease=0)
    with pytest.raises(ValueError, match="positive"):
        RedisTaskStore(limit=0)
