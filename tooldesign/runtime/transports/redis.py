"""Redis Streams transport: calls queued per toolset version, served by consumer groups.

Needs ``tooldesign[redis]`` (redis-py's asyncio client with hiredis) and Redis ≥ 7 or Valkey ≥
7.2: a standalone server, a Sentinel-managed primary (``redis+sentinel://``) or a Redis Cluster
(see :mod:`.redis_client`). Run Redis with append-only persistence (``appendonly yes``):
without it, a Redis restart loses every queued call. The keys are listed in :mod:`.redis_keys`,
the scripts in :mod:`.redis_scripts`.

A call is admitted by one script that binds its id to the digest of its request (another request
under the same id is refused), answers from the result store, checks that a worker of the
call's version is live and that the queue is under its limit, and joins a call already queued
under the same id instead of queueing it twice. See :class:`RedisTransport` (agents) and
:class:`~tooldesign.runtime.transports.redis_worker.RedisWorker` (workers).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tooldesign.runtime.transports.base import (
    DETACHED,
    RESENT,
    Answer,
    BadAnswer,
    Conflict,
    Lost,
    NoAnswer,
    NoWorker,
    QueueFull,
    Replied,
    Transport,
    TransportError,
)
from tooldesign.runtime.transports.metrics import RemoteMetrics
from tooldesign.runtime.transports.redis_client import (
    DEFAULT_URL,
    ERRORS,
    Backoff,
    ServerClock,
    disconnect,
    live_versions,
    open_server,
    process_id,
    recover,
    transient,
)
from tooldesign.runtime.transports.redis_keys import DEFAULT_PREFIX, GROUP, RedisKeys
from tooldesign.runtime.transports.redis_scripts import Scripts
from tooldesign.runtime.transports.wire import CallMessage, ReplyMessage, WireError

__all__ = ["DEFAULT_PREFIX", "DEFAULT_URL", "GROUP", "RedisKeys", "RedisTransport"]

log = logging.getLogger("tooldesign.transports.redis")

MAX_CALL_BYTES = 1 << 20
"""The largest call message a transport sends and a worker reads (1 MiB), unless configured."""
GRACE = 10.0
"""Seconds after the last time a worker reached the server during which an agent still sends
calls to the workers live then (the server may have paused, or been restarted, and they have
not reached it again yet), unless configured."""
LONGEST_STALL = 300.0
"""The longest outage after which the leases live when it began are extended by it."""


@dataclass(eq=False)
class _Agent:
    """A transport's connection to one event loop: its client, reply streams and waiting calls."""

    loop: asyncio.AbstractEventLoop
    client: Any
    scripts: Scripts
    name: str
    window: asyncio.Semaphore
    clock: ServerClock = field(default_factory=ServerClock)
    waiting: dict[str, list[asyncio.Future[Answer]]] = field(default_factory=dict)
    readers: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    last_read: dict[str, str] = field(default_factory=dict)
    epochs: dict[str, str] = field(default_factory=dict)
    """The last epoch of each toolset's data this agent saw."""
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    closed: bool = False


class RedisTransport(Transport):
    """Sends calls to the workers of remote toolsets over Redis Streams.

    ``max_in_flight`` bounds the calls awaiting an answer at once (more wait for a slot, within
    their deadline); ``max_queue`` bounds each toolset version's queue (over it, calls are
    answered ``rate_limited`` with ``retry_after``); ``result_ttl`` is how long the answer of a
    call is kept for a retry of the same call; ``max_call_bytes`` bounds a call message.
    One transport serves one event loop at a time; used from another, it reconnects.
    ``await close()`` when done.
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        prefix: str = DEFAULT_PREFIX,
        max_in_flight: int = 1024,
        max_queue: int = 10_000,
        retry_after: float = 1.0,
        result_ttl: float = 3600.0,
        connections: int = 32,
        refresh_interval: float = 1.0,
        max_call_bytes: int = MAX_CALL_BYTES,
        grace: float = GRACE,
        meter_provider: Any = None,
    ) -> None:
        if max_in_flight < 1 or max_queue < 1 or connections < 2:
            raise TransportError(
                "max_in_flight and max_queue must be at least 1, connections at least 2"
            )
        self.url = url
        self.keys = RedisKeys(prefix)
        self.max_in_flight = max_in_flight
        self.max_queue = max_queue
        self.retry_after = retry_after
        self.result_ttl = result_ttl
        self.connections = connections
        self.refresh_interval = refresh_interval
        self.max_call_bytes = max_call_bytes
        self.grace_ms = int(grace * 1000)
        self.metrics = RemoteMetrics(meter_provider)
        self.agent_id = process_id()
        self._agent: _Agent | None = None
        self._starting: asyncio.Task[_Agent] | None = None
        self._live: dict[str, tuple[str, ...]] | None = None

    # ── lifecycle ────────────────────────────────────────────────────────────────────────

    async def start(self) -> None:
        """Connect now (calls connect on first use): raises :class:`TransportError` for a server
        that cannot be reached or is older than Redis 7."""
        await self._ready()

    async def _ready(self) -> _Agent:
        loop = asyncio.get_running_loop()
        agent = self._agent
        if agent is not None and agent.loop is loop:
            return agent
        starting = self._starting
        if (
            starting is None
            or starting.get_loop() is not loop
            or (starting.done() and starting.exception() is not None)
        ):
            starting = self._starting = loop.create_task(self._connect(loop))
        agent = await asyncio.shield(starting)
        self._agent = agent
        return agent

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Agent:
        client, server = await open_server(self.url, connections=self.connections)
        scripts = Scripts(client)
        await scripts.load()
        agent = _Agent(
            loop,
            client,
            scripts,
            f"{self.agent_id}-{secrets.token_hex(2)}",
            asyncio.Semaphore(self.max_in_flight),
        )
        sent = time.time()
        agent.clock.observe(await client.time(), sent, time.time())
        await self._refresh_live(agent)
        agent.tasks = [loop.create_task(self._supervised(agent, "refresh", self._refresh))]
        log.debug("agent %s connected to %s (%s)", agent.name, self.url, server)
        return agent

    async def close(self) -> None:
        agent, self._agent, self._starting = self._agent, None, None
        if agent is None:
            return
        # Flag, sockets closed, then cancel: a cancellation that lands inside redis-py's read
        # can be lost, and the loops must end all the same.
        agent.closed = True
        tasks = [*agent.tasks, *agent.readers.values()]
        with contextlib.suppress(*ERRORS):
            await disconnect(agent.client)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        for futures in agent.waiting.values():
            for future in futures:
                if not future.done():
                    future.set_result(NoAnswer(sent=True, detail="the transport was closed"))
        with contextlib.suppress(*ERRORS):
            for toolset in agent.readers:
                await agent.client.delete(self.keys.replies(toolset, agent.name))
        with contextlib.suppress(*ERRORS):
            await agent.client.aclose()

    # ── calls ────────────────────────────────────────────────────────────────────────────

    async def call(self, message: CallMessage, timeout: float) -> Answer:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        end = loop.time() + timeout
        try:
            async with asyncio.timeout_at(end):
                agent = await self._ready()
        except TimeoutError:
            return NoAnswer(sent=False, detail=f"no connection to Redis at {self.url} in time")
        message = replace(message, deadline=agent.clock.now() + timeout)
        body = message.to_json()
        if len(body) > self.max_call_bytes:
            raise WireError(
                f"the call is {len(body)} bytes of JSON, over the {self.max_call_bytes} bytes "
                "a call may take"
            )
        self._reader(agent, message.toolset)
        future: asyncio.Future[Answer] = loop.create_future()
        agent.waiting.setdefault(message.call_id, []).append(future)
        answer: Answer | None = None
        sent = False
        maybe_queued: list[BaseException] = []  # attempts that failed after reaching Redis
        try:
            async with asyncio.timeout_at(end), agent.window:
                status, detail = await self._admit(agent, message, body, timeout, maybe_queued)
                if status == "done":
                    answer = _read_answer(detail)
                elif status == "conflict":
                    answer = Conflict()
                elif status == "lost":
                    answer = Lost()
                elif status == "unavailable":
                    answer = NoWorker(tuple(sorted(set(detail.split()))))
                elif status == "busy":
                    answer = QueueFull(int(detail), self.max_queue, self.retry_after)
                else:
                    sent = True
                    answer = await future
        except TimeoutError:
            if sent:
                detail = "no answer before the deadline"
            elif maybe_queued:  # an attempt may have been queued, and a worker may run it
                sent = True
                detail = f"Redis may have taken the call ({maybe_queued[-1]}); no answer came"
            else:
                detail = "Redis did not take the call"
            answer = NoAnswer(sent=sent, detail=detail)
        except asyncio.CancelledError:
            if sent and not DETACHED.get():  # the caller gave up (its run was aborted)
                self._spawn_cancel(agent, message)
            raise
        finally:
            futures = agent.waiting.get(message.call_id, [])
            if future in futures:
                futures.remove(future)
            if not futures:
                agent.waiting.pop(message.call_id, None)
        outcome = _outcome(answer)
        self.metrics.round_trip(
            message.toolset, message.version, message.tool, time.perf_counter() - started, outcome
        )
        return answer

    async def _admit(
        self,
        agent: _Agent,
        message: CallMessage,
        body: str,
        timeout: float,
        maybe_queued: list[BaseException],
    ) -> tuple[str, str]:
        """Queue the call (or read its stored answer), retried until the deadline; an attempt
        that failed after it reached Redis is added to ``maybe_queued``: the call may run."""
        keys = self.keys
        toolset = message.toolset
        expected = agent.epochs.get(toolset, "")
        careful = False  # an attempt may have been queued: its record must be there
        # Sent before, by a server since gone (an MCP task taken over): its record must be there.
        resent = RESENT.get() and not message.repeatable
        backoff = Backoff()
        while True:
            try:
                status, detail, epoch = await agent.scripts.run(
                    "admit",
                    [
                        keys.workers(toolset),
                        keys.leases(toolset),
                        keys.tick(toolset),
                        keys.requests(toolset, message.version),
                        keys.call(message.tool, message.call_id),
                        keys.bell(toolset, message.version),
                        keys.epoch(toolset),
                        keys.queued(toolset, message.version),
                    ],
                    [
                        message.version,
                        self.max_queue,
                        int(max(self.result_ttl, timeout + 60)),
                        keys.replies(toolset, agent.name),
                        body,
                        message.call_id,
                        message.digest,
                        message.tool,
                        int(message.deadline * 1000),
                        self.grace_ms,
                        secrets.token_hex(8),
                        expected,
                        2 if resent else 1 if careful else 0,
                    ],
                )
                agent.epochs[toolset] = str(epoch)
                return str(status), str(detail)
            except ERRORS as exc:  # retried until the deadline: queueing twice is harmless
                if not transient(exc):
                    raise TransportError(f"Redis at {self.url} refused a call: {exc}") from None
                log.warning("queueing call %s failed (%s); retrying", message.call_id, exc)
                if _maybe_ran(exc):
                    maybe_queued.append(exc)
                careful = careful or (not message.repeatable and _maybe_ran(exc))
                await backoff.sleep()

    # ── cancellation ─────────────────────────────────────────────────────────────────────

    def _spawn_cancel(self, agent: _Agent, message: CallMessage) -> None:
        task = agent.loop.create_task(self.cancel(message))
        agent.tasks.append(task)

        def forget(done: asyncio.Task[None]) -> None:
            if done in agent.tasks:
                agent.tasks.remove(done)

        task.add_done_callback(forget)

    async def cancel(self, message: CallMessage) -> None:
        agent = self._agent
        if agent is None or agent.closed:
            return
        keys = self.keys
        try:
            await agent.scripts.run(
                "cancel",
                [keys.call(message.tool, message.call_id), keys.cancels(message.toolset)],
                [message.call_id, message.tool, message.digest, 10_000],
            )
        except ERRORS as exc:
            log.warning("cancelling call %s failed: %s", message.call_id, exc)

    # ── answers ──────────────────────────────────────────────────────────────────────────

    def _reader(self, agent: _Agent, toolset: str) -> None:
        """Start reading ``toolset``'s answers to this agent (its reply stream lives in the
        toolset's hash slot, so each toolset has its reader)."""
        if toolset not in agent.readers:
            agent.last_read.setdefault(toolset, "0-0")
            agent.readers[toolset] = agent.loop.create_task(
                self._supervised(agent, "answers", lambda a: self._read_replies(a, toolset))
            )

    async def _read_replies(self, agent: _Agent, toolset: str) -> None:
        # From the last id read, never "$": an answer landing between two reads is not skipped.
        key = self.keys.replies(toolset, agent.name)
        backoff = Backoff()
        while not agent.closed:
            try:
                response: Any = await agent.client.xread(
                    {key: agent.last_read[toolset]}, count=1000, block=2000
                )
            except ERRORS as exc:
                if agent.closed:
                    return
                if not transient(exc):
                    raise
                log.warning("reading answers from %s failed (%s); retrying", self.url, exc)
                await recover(agent.client, exc)
                await backoff.sleep()
                continue
            backoff.reset()
            for _stream, entries in response or ():
                for entry_id, fields in entries:
                    agent.last_read[toolset] = entry_id
                    self._deliver(agent, fields)

    def _deliver(self, agent: _Agent, fields: Mapping[str, str]) -> None:
        futures = agent.waiting.get(fields.get("id", ""), ())
        if not futures:  # its caller gave up; a retry of the call finds the stored answer
            return
        answer = _read_answer(fields.get("answer", ""))
        for future in futures:
            if not future.done():
                future.set_result(answer)

    async def _refresh(self, agent: _Agent) -> None:
        """Keeps what ``last_seen_live`` reports and the clock offset current, and drops
        answers already read."""
        while not agent.closed:
            await asyncio.sleep(self.refresh_interval)
            try:
                await self._refresh_live(agent)
                sent = time.time()
                agent.clock.observe(await agent.client.time(), sent, time.time())
                for toolset, last in list(agent.last_read.items()):
                    if last != "0-0":
                        await agent.client.xtrim(self.keys.replies(toolset, agent.name), minid=last)
            except ERRORS as exc:
                if not transient(exc):
                    raise
                log.debug("refreshing worker liveness failed: %s", exc)

    async def _supervised(self, agent: _Agent, name: str, loop_body: Any) -> None:
        # An agent must never stop reading answers: a loop that fails is logged and restarted.
        backoff = Backoff()
        while not agent.closed:
            try:
                await loop_body(agent)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the Redis transport's %s loop failed; restarting it", name)
                await backoff.sleep()

    # ── liveness ─────────────────────────────────────────────────────────────────────────

    async def _refresh_live(self, agent: _Agent) -> dict[str, tuple[str, ...]]:
        keys = self.keys
        toolsets = sorted(await agent.client.smembers(keys.toolsets) or ())
        found = await asyncio.gather(
            *(
                agent.scripts.run(
                    "live",
                    [keys.workers(t), keys.leases(t), keys.tick(t), keys.epoch(t)],
                    [self.grace_ms],
                )
                for t in toolsets
            )
        )
        live = {}
        for toolset, (members, epoch) in zip(toolsets, found, strict=True):
            if members:
                live[toolset] = live_versions(list(members))
            if epoch and toolset not in agent.epochs:
                agent.epochs[toolset] = str(epoch)
        self._live = live
        return live

    async def live_toolsets(self) -> dict[str, tuple[str, ...]]:
        return await self._refresh_live(await self._ready())

    def last_seen_live(self, toolset: str, version: str) -> bool | None:
        if self._live is None:
            return None
        return version in self._live.get(toolset, ())


def _maybe_ran(exc: BaseException) -> bool:
    """Whether a command that failed with ``exc`` may have run on the server (it failed after it
    was sent: a connection closed or timed out), rather than failed to connect."""
    text = str(exc)
    return not ("connecting to" in text or "No master found" in text or "Connect call" in text)


def _read_answer(text: str) -> Answer:
    try:
        reply = ReplyMessage.from_json(text)
    except WireError as exc:
        return BadAnswer(str(exc))
    return Replied(dict(reply.result), reply.worker, reply.deliveries)


def _outcome(answer: Answer) -> str:
    if isinstance(answer, Replied):
        telemetry = answer.result.get("telemetry")
        outcome = telemetry.get("outcome") if isinstance(telemetry, Mapping) else None
        return str(outcome or "ok")
    return {
        NoWorker: "tool_unavailable",
        QueueFull: "rate_limited",
        NoAnswer: "timeout",
        BadAnswer: "malformed_response",
        Conflict: "call_id_conflict",
        Lost: "outcome_unknown",
    }[type(answer)]
