"""Chaos on real servers: two agents call three workers for ``TD_CHAOS_SECONDS`` (20 by default)
while, in turn, a worker is killed with SIGKILL (and another started), the primary is restarted
from its append-only file, paused for longer than the heartbeat's lifetime, restarted empty (as
a server without persistence), a replica is promoted, and the stream is poisoned (entries that
are not UTF-8, too large, with a reply address that is not a reply stream, a NaN deadline).

On Redis and Valkey behind a Sentinel (a primary and a replica; workers wait for the replica,
``--wait-replicas 1``), and on a three-primary Redis Cluster (where the node serving the
toolset's slot is restarted and paused; no replica to promote).

Ground truth is written by the tool itself: one ``O_APPEND`` line per run per process (the
effects log), and each call's token echoed in its answer. Then: every call is answered; no
non-idempotent call took effect twice; no answer is another call's; each answer says the truth
(a call answered as not run did not run; one answered ok ran once); no worker exited but
those killed, and the others stop cleanly.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
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
from tests.support.programs import redis_binary
from tests.support.redis import (
    RedisClusterGroup,
    RedisServer,
    SentinelGroup,
    wait_live,
    worker_process,
)
from tests.support.remote import DEVICES, VERSION

SECONDS = float(os.environ.get("TD_CHAOS_SECONDS", "20"))
PREFIX = "chaos"
CALL_TIMEOUT = 10.0
IN_FLIGHT = 24


@dataclass
class Topology:
    url: str
    primary: Callable[[], RedisServer]
    """The server holding the toolset's keys now."""
    admin: Callable[[], Any]
    """A client (bytes) to that server."""
    failover: Callable[[], Any] | None = None
    options: tuple[str, ...] = ()


@pytest.fixture(params=["redis", "valkey", "cluster"])
def topology(request: pytest.FixtureRequest) -> Iterator[Topology]:
    kind = request.param
    if kind == "cluster":
        cluster = RedisClusterGroup(redis_binary(), appendonly=True)
        cluster.start()
        key = RedisKeys(PREFIX).requests(DEVICES, VERSION)

        def node() -> RedisServer:
            return cluster.node_for(key)

        try:
            yield Topology(
                cluster.url,
                node,
                lambda: redis.Redis(port=node().port or 0, socket_timeout=5),
            )
        finally:
            cluster.cleanup()
        return
    binary = request.getfixturevalue("valkey_binary") if kind == "valkey" else redis_binary()
    group = SentinelGroup(binary)
    group.start()

    def admin() -> Any:
        return redis.Redis(port=group.current().port or 0, socket_timeout=5)

    try:
        yield Topology(group.url, group.current, admin, group.failover, ("--wait-replicas", "1"))
    finally:
        group.cleanup()


@dataclass
class Fleet:
    """The worker processes: those alive, those the chaos killed."""

    url: str
    effects: Path
    logs: Path
    options: tuple[str, ...]
    alive: list[Any] = field(default_factory=list)
    killed: list[Any] = field(default_factory=list)
    count: int = 0

    def start(self) -> None:
        log = self.logs / f"worker-{self.count}.log"
        self.count += 1
        options = ("--claim-timeout", "1.5", "--concurrency", "16", "--log-level", "DEBUG")
        options += self.options
        self.alive.append(
            worker_process(self.url, PREFIX, *options, log=log, TD_EFFECTS_LOG=str(self.effects))
        )

    def kill_one(self, rng: random.Random) -> None:
        victim = self.alive.pop(rng.randrange(len(self.alive)))
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        self.killed.append(victim)
        self.start()


def poison(topology: Topology) -> None:
    keys = RedisKeys(PREFIX)
    stream = keys.requests(DEVICES, VERSION)
    reply = keys.replies(DEVICES, "poison")
    tool = f"{DEVICES}.restart_device"
    nan = (
        f'{{"v": 1, "id": "p4", "tool": "{tool}", "toolset": "{DEVICES}", "version": '
        f'"{VERSION}", "deadline": NaN, "payload": "{{}}", "meta": {{}}}}'
    )
    entries = [
        {b"id": b"p1\xff", b"tool": tool.encode(), b"reply": reply.encode(), b"call": b"\xfe"},
        {b"id": b"p2", b"tool": tool.encode(), b"reply": reply.encode(), b"call": b"x" * (2 << 20)},
        {b"id": b"p3", b"tool": tool.encode(), b"reply": stream.encode(), b"call": b"{}"},
        {b"id": b"p4", b"tool": tool.encode(), b"reply": reply.encode(), b"call": nan.encode()},
    ]
    with topology.admin() as client:
        for entry in entries:
            client.xadd(stream, entry)


def chaos(topology: Topology, fleet: Fleet, stop: threading.Event, done: list[str]) -> None:
    """One event every 1.5 s, in turn, until ``stop``."""
    rng = random.Random(7)
    events: list[tuple[str, Callable[[], Any]]] = [
        ("kill a worker", lambda: fleet.kill_one(rng)),
        ("restart from the append-only file", lambda: topology.primary().restart()),
        ("kill a worker", lambda: fleet.kill_one(rng)),
        ("pause for 3 s", lambda: pause(topology.primary(), 3.0)),
        ("poison the stream", lambda: poison(topology)),
        ("kill a worker", lambda: fleet.kill_one(rng)),
        ("restart empty", lambda: topology.primary().restart(empty=True)),
    ]
    if topology.failover is not None:
        events.insert(4, ("promote the replica", topology.failover))
    turn = 0
    while not stop.wait(1.5):
        name, event = events[turn % len(events)]
        turn += 1
        started = time.time()
        try:
            event()
            done.append(f"{started:.1f} {name}")
        except (redis.RedisError, AssertionError) as exc:  # a Sentinel busy failing over
            done.append(f"{started:.1f} {name} (skipped: {exc})")


def pause(server: RedisServer, seconds: float) -> None:
    server.pause()
    time.sleep(seconds)
    server.resume()


def request(agent: str, i: int) -> ToolRequest:
    meta = ToolCallMeta(
        session_id="s",
        run_id=agent,
        tool_call_id=f"c{i}",
        labels={"sleep": random.uniform(0.01, 0.2)},
    )
    if i % 3 == 2:
        return ToolRequest("get_device", {"device_id": "dev-00000000"}, meta)
    reason = f"{agent}-{i}"
    return ToolRequest("restart_device", {"device_id": "dev-00000000", "reason": reason}, meta)


def ran(result: ToolResult) -> str:
    """What an answer says of whether its call ran: ``yes``, ``no`` or ``maybe``."""
    outcome = result.telemetry.outcome
    if outcome == "ok":
        return "yes"
    if outcome in ("tool_unavailable", "rate_limited") or result.telemetry.extra.get("not_started"):
        return "no"
    details = result.error.details if result.error is not None else {}
    if outcome == "timeout" and details.get("sent") is False:
        return "no"
    if outcome in ("timeout", "outcome_unknown") or details.get("dead_letter"):
        return "maybe"
    raise AssertionError(f"an answer chaos should not bring: {result.for_model()}")


@pytest.mark.slow
def test_chaos_loses_no_call_repeats_no_effect_and_answers_each_with_the_truth(
    topology: Topology, tmp_path: Path
) -> None:
    effects = tmp_path / "effects.log"
    effects.touch()
    fleet = Fleet(topology.url, effects, tmp_path, topology.options)
    for _ in range(3):
        fleet.start()
    stop = threading.Event()
    events: list[str] = []

    async def agents() -> dict[str, tuple[ToolRequest, ToolResult]]:
        transports = [RedisTransport(topology.url, prefix=PREFIX) for _ in range(2)]
        answers: dict[str, tuple[ToolRequest, ToolResult]] = {}
        try:
            await wait_live(transports[0], DEVICES, VERSION)
            chaos_thread = asyncio.create_task(
                asyncio.to_thread(chaos, topology, fleet, stop, events)
            )
            end = time.monotonic() + SECONDS

            async def agent(name: str, transport: RedisTransport) -> None:
                runtime = Runtime(
                    [remote_registration(devices, transport=transport, timeout=CALL_TIMEOUT)],
                    approver=approve_all,
                )
                window = asyncio.Semaphore(IN_FLIGHT)
                calls = []

                async def one(i: int) -> None:
                    call = request(name, i)
                    try:
                        answers[f"{name}-{i}"] = (call, await runtime.execute(call))
                    finally:
                        window.release()

                i = 0
                while time.monotonic() < end:
                    await window.acquire()
                    calls.append(asyncio.create_task(one(i)))
                    i += 1
                await asyncio.gather(*calls)

            await asyncio.gather(*(agent(f"a{n}", t) for n, t in enumerate(transports)))
            stop.set()
            await chaos_thread
            return answers
        finally:
            stop.set()
            for transport in transports:
                await transport.close()

    try:
        answers = asyncio.run(agents())
        alive = [worker.poll() is None for worker in fleet.alive]
    finally:
        stop.set()
        for worker in fleet.alive:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        codes = [worker.wait(timeout=60) for worker in fleet.alive]
    logs = "\n".join(p.read_text() for p in sorted(tmp_path.glob("worker-*.log")))
    counts = app.read_effects(effects)
    outcomes: dict[str, int] = {}
    for call, result in answers.values():
        outcomes[result.telemetry.outcome] = outcomes.get(result.telemetry.outcome, 0) + 1
    print(f"\n{len(answers)} calls; outcomes {outcomes}; events {events}")

    assert alive == [True] * len(fleet.alive), logs[-5000:]  # no worker died but those killed
    assert codes == [0] * len(codes), logs[-5000:]
    assert "CRITICAL" not in logs and "could not serve entry" not in logs
    assert len(fleet.killed) >= 1 and len(events) >= 4
    for call, result in answers.values():
        tool = call.name
        call_id = call.meta.stable_id()
        times = counts.get((tool, call_id or ""), 0)
        said = ran(result)
        seen = (call_id, times, result.for_model(), result.telemetry.extra.get("remote"))
        if tool == "restart_device":
            assert times <= 1, seen  # never twice
            if said == "yes":  # its own answer: its call id and its token
                job_call, _, _, token = result.result.job_id.split("|")
                assert (job_call, token) == (
                    call_id,
                    json.loads(json.dumps(call.payload))["reason"],
                )
                assert times == 1
        if said == "no":
            assert times == 0, seen
        if said == "yes" and tool == "get_device":
            assert times >= 1
