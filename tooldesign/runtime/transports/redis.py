"""Redis Streams transport: calls queued per toolset version, served by consumer groups.

Needs ``tooldesign[redis]`` (redis-py's asyncio client with hiredis) and a standalone Redis ≥ 7
or Valkey ≥ 7.2 server. Run Redis with append-only persistence (``appendonly yes``): without
it, a Redis restart loses every queued call.

Keys, all under one prefix (``tooldesign`` unless configured); ``{service.toolset}`` is a hash
tag, so a toolset's keys share one slot::

    <prefix>:{<service.toolset>}:requests:<version>  stream of calls; consumer group "workers"
    <prefix>:{<service.toolset>}:workers             sorted set: "<version> <worker id>" scored
                                                     by when its heartbeat expires (ms)
    <prefix>:{<service.toolset>}:call:<tool>:<call id>  hash: queued (entry id), reply (stream),
                                                     started (entry id), worker, result (answer)
    <prefix>:{<service.toolset>}:dead                stream of dead letters
    <prefix>:replies:<agent id>                      stream of answers to one agent
    <prefix>:toolsets                                set of the toolsets workers have served

A call is queued by one script that first answers from the result store, checks that a worker of
the call's version is live and that the queue is under its limit, and joins a call already
queued under the same id instead of queueing it twice. See :class:`RedisTransport` (agents) and
:class:`~tooldesign.runtime.transports.redis_worker.RedisWorker` (workers).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import secrets
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, Redis
from tooldesign.runtime.transports.base import (
    Answer,
    BadAnswer,
    NoAnswer,
    NoWorker,
    QueueFull,
    Replied,
    Transport,
    TransportError,
)
from tooldesign.runtime.transports.wire import CallMessage, ReplyMessage, WireError

log = logging.getLogger("tooldesign.transports.redis")

GROUP = "workers"
"""The consumer group every worker of a toolset version reads its calls through."""

DEFAULT_URL = "redis://localhost:6379/0"
DEFAULT_PREFIX = "tooldesign"
MIN_SERVER = (7, 0)

TRANSIENT = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.BusyLoadingError,
    OSError,
)
"""Errors of a server that is down, restarting or loading its data: retried with backoff."""

_PREFIX = re.compile(r"[A-Za-z0-9_.:-]+")


class RedisKeys:
    """The names of every key a transport and its workers use (see the module doc)."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        if not _PREFIX.fullmatch(prefix):
            raise TransportError(
                f"a key prefix takes letters, digits and _ . : - only, got {prefix!r}"
            )
        self.prefix = prefix

    def requests(self, toolset: str, version: str) -> str:
        return f"{self.prefix}:{{{toolset}}}:requests:{version}"

    def workers(self, toolset: str) -> str:
        return f"{self.prefix}:{{{toolset}}}:workers"

    def call(self, tool: str, call_id: str) -> str:
        """The record of call ``call_id`` of ``tool`` (an id: ``service.toolset.tool``). Keyed
        by the tool too: an answer is never sent for a call of another tool sharing its id."""
        toolset, _, name = tool.rpartition(".")
        return f"{self.prefix}:{{{toolset}}}:call:{name}:{call_id}"

    def dead(self, toolset: str) -> str:
        return f"{self.prefix}:{{{toolset}}}:dead"

    def replies(self, agent: str) -> str:
        return f"{self.prefix}:replies:{agent}"

    @property
    def toolsets(self) -> str:
        return f"{self.prefix}:toolsets"


# Redis time in ms, inside a script: liveness is judged by one clock, whoever asks.
_NOW_MS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

ADMIT = (
    """
-- KEYS: workers, requests, call.  ARGV: version, max queue, call ttl (s), reply stream,
-- call message, call id.
local stored = redis.call('HGET', KEYS[3], 'result')
if stored then return {'done', stored} end
"""
    + _NOW_MS
    + """
local others = {}
local live = false
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do
  local version = string.match(member, '^(%S+)')
  if version == ARGV[1] then live = true; break end
  others[#others + 1] = version
end
if not live then return {'unavailable', table.concat(others, ' ')} end
if redis.call('HEXISTS', KEYS[3], 'queued') == 1 then
  redis.call('HSET', KEYS[3], 'reply', ARGV[4])
  return {'joined', ''}
end
local queued = redis.call('XLEN', KEYS[2])
if queued >= tonumber(ARGV[2]) then return {'busy', tostring(queued)} end
local id = redis.call('XADD', KEYS[2], '*', 'id', ARGV[6], 'reply', ARGV[4], 'call', ARGV[5])
redis.call('HSET', KEYS[3], 'queued', id, 'reply', ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[3])
return {'queued', id}
"""
)

START = """
-- KEYS: call.  ARGV: worker, entry id, ttl (s).
local stored = redis.call('HGET', KEYS[1], 'result')
if stored then return {'answered', stored} end
if redis.call('HSETNX', KEYS[1], 'started', ARGV[2]) == 1 then
  redis.call('HSET', KEYS[1], 'worker', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return {'first', ''}
end
return {'again', redis.call('HGET', KEYS[1], 'worker') or ''}
"""

ANSWER = """
-- KEYS: call, requests.  ARGV: group, entry id, answer, store (1/0), result ttl (s),
-- reply stream of the entry, reply ttl (s), call id.
-- The first stored answer wins: a second run's answer is replaced by it.
local answer = ARGV[3]
if ARGV[4] == '1' then
  if redis.call('HSETNX', KEYS[1], 'result', answer) == 0 then
    answer = redis.call('HGET', KEYS[1], 'result')
  end
  redis.call('EXPIRE', KEYS[1], ARGV[5])
end
redis.call('HDEL', KEYS[1], 'queued')
local reply = redis.call('HGET', KEYS[1], 'reply')
if not reply then reply = ARGV[6] end
if reply ~= '' then
  redis.call('XADD', reply, '*', 'id', ARGV[8], 'answer', answer)
  redis.call('EXPIRE', reply, ARGV[7])
end
redis.call('XACK', KEYS[2], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[2], ARGV[2])
return 1
"""

CLAIM = """
-- KEYS: requests.  ARGV: group, consumer, min idle (ms), cursor, count.
-- Redis 7 answers XAUTOCLAIM with [cursor, entries, deleted ids].
local claimed = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], 'COUNT', ARGV[5])
local counts = {}
for i, entry in ipairs(claimed[2]) do
  local pending = redis.call('XPENDING', KEYS[1], ARGV[1], entry[1], entry[1], 1)
  counts[i] = pending[1] and pending[1][4] or 0
end
return {claimed[1], claimed[2], counts}
"""

RENEW = """
-- KEYS: requests.  ARGV: group, consumer, entry ids...
-- Resets the idle time of the entries this consumer still holds; returns those another
-- consumer took over (entries no longer pending were answered meanwhile).
local taken = {}
for i = 3, #ARGV do
  local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if pending[1] then
    if pending[1][2] == ARGV[2] then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    else
      taken[#taken + 1] = ARGV[i]
    end
  end
end
return taken
"""

HEARTBEAT = (
    """
-- KEYS: workers, toolsets.  ARGV: member, ttl (ms), toolset.
"""
    + _NOW_MS
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('SADD', KEYS[2], ARGV[3])
return t
"""
)

LIVE = (
    """
-- KEYS: toolsets.  ARGV: key prefix.  Returns toolset, members, toolset, members...
"""
    + _NOW_MS
    + """
local out = {}
for _, toolset in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  out[#out + 1] = toolset
  out[#out + 1] = redis.call('ZRANGEBYSCORE', ARGV[1] .. ':{' .. toolset .. '}:workers', now, '+inf')
end
return out
"""
)


SCRIPTS = {
    "admit": ADMIT,
    "start": START,
    "answer": ANSWER,
    "claim": CLAIM,
    "renew": RENEW,
    "heartbeat": HEARTBEAT,
    "live": LIVE,
}


class Scripts:
    """Runs the scripts above, batched: the calls made while batches are on their way go out
    together in the next pipeline (one write and one read for all of them). A few batches are
    on their way at once, so Redis, the network and this process work at the same time.

    Scripts are loaded by hash; a server that lost them (a restart) gets them again.
    """

    MAX_BATCH = 256
    MAX_SENDING = 4

    def __init__(self, client: Redis) -> None:
        self.client = client
        self.shas = {
            name: hashlib.sha1(text.encode()).hexdigest() for name, text in SCRIPTS.items()
        }
        self._queue: list[tuple[str, list[Any], asyncio.Future[Any]]] = []
        self._sending = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def load(self) -> None:
        for name, text in SCRIPTS.items():
            self.shas[name] = await self.client.script_load(text)

    async def run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        """The script's answer; raises what Redis raised for it (a ``TRANSIENT`` error when the
        server could not be reached: the caller decides whether to try again)."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.append((name, [len(keys), *keys, *args], future))
        if self._sending < self.MAX_SENDING:
            self._sending += 1
            task = loop.create_task(self._send())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await future

    async def _send(self) -> None:
        try:
            await asyncio.sleep(0)  # let the calls made in this turn of the loop join the batch
            while self._queue:
                batch = self._queue[: self.MAX_BATCH]
                del self._queue[: self.MAX_BATCH]
                await self._execute(batch, reloaded=False)
        finally:
            self._sending -= 1

    async def _execute(
        self, batch: list[tuple[str, list[Any], asyncio.Future[Any]]], *, reloaded: bool
    ) -> None:
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for name, args, _ in batch:
                    pipe.evalsha(self.shas[name], *args)
                results = await pipe.execute(raise_on_error=False)
        except BaseException as exc:
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        lost = [
            item
            for item, result in zip(batch, results, strict=True)
            if isinstance(result, redis_errors.NoScriptError)
        ]
        if lost and not reloaded:  # the server restarted and forgot them: load, run those again
            try:
                await self.load()
            except Exception as exc:  # noqa: BLE001 - handed to every caller
                results = [exc] * len(batch)
            else:
                await self._execute(lost, reloaded=True)
        for (_, _, future), result in zip(batch, results, strict=True):
            if future.done():  # answered by the second attempt, or its caller gave up
                continue
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)


def connect(url: str, *, connections: int) -> Redis:
    """A client for ``url`` whose pool waits for a free connection instead of failing."""
    try:
        pool = BlockingConnectionPool.from_url(
            url, max_connections=connections, timeout=None, decode_responses=True, protocol=2
        )
    except ValueError as exc:
        raise TransportError(f"not a Redis URL: {url!r} ({exc})") from None
    return Redis(connection_pool=pool)


def require_server(info: Mapping[str, Any], url: str) -> str:
    """The server's name and version from its ``INFO server``; raises :class:`TransportError`
    for a server older than Redis 7 (Redis 6 answers XAUTOCLAIM in another shape)."""
    version = str(info.get("redis_version", "0"))
    numbers = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if numbers < MIN_SERVER:
        raise TransportError(
            f"the server at {url} runs Redis {version}; tooldesign's Redis transport needs "
            "Redis 7.0 or later (or Valkey 7.2 or later): older servers answer XAUTOCLAIM in "
            "another shape"
        )
    if "valkey_version" in info:
        return f"Valkey {info['valkey_version']}"
    return f"Redis {version}"


async def open_server(url: str, *, connections: int, wait: float = 0.0) -> tuple[Redis, str]:
    """A client for ``url`` once the server answers (waiting up to ``wait`` seconds for it),
    after checking its version."""
    client = connect(url, connections=connections)
    backoff = Backoff()
    give_up = time.monotonic() + wait
    while True:
        try:
            info = await client.info("server")
            return client, require_server(info, url)
        except TRANSIENT as exc:
            if time.monotonic() >= give_up:
                await client.aclose()
                raise TransportError(f"cannot reach Redis at {url}: {exc}") from None
            await backoff.sleep()
        except TransportError:
            await client.aclose()
            raise


class Backoff:
    """Waits that double from 50 ms to 2 s between attempts at a server that is down."""

    __slots__ = ("delay",)

    def __init__(self) -> None:
        self.delay = 0.05

    async def sleep(self) -> None:
        await asyncio.sleep(self.delay * (0.5 + secrets.randbelow(1000) / 1000))
        self.delay = min(self.delay * 2, 2.0)

    def reset(self) -> None:
        self.delay = 0.05


class ServerClock:
    """The server's time, from the local clock and a measured offset: deadlines are counted in
    it, so processes whose clocks differ still agree on them."""

    __slots__ = ("offset",)

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def observe(self, server: tuple[Any, Any] | list[Any], sent: float, received: float) -> None:
        """Record a server ``TIME`` (seconds, microseconds) read between ``sent`` and ``received``."""
        seconds = int(server[0]) + int(server[1]) / 1_000_000
        self.offset = seconds - (sent + received) / 2

    async def sync(self, client: Redis) -> None:
        sent = time.time()
        server = await client.time()
        self.observe(server, sent, time.time())


def process_id() -> str:
    """An id for this process among all agents and workers: host, pid and a random part."""
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname())[:40] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


def live_versions(members: list[str]) -> tuple[str, ...]:
    """The versions in a workers set's members (``"<version> <worker id>"``)."""
    return tuple(sorted({member.split(" ", 1)[0] for member in members}))


# ── agent side ───────────────────────────────────────────────────────────────────────────


@dataclass(eq=False)
class _Agent:
    """A transport's connection to one event loop: its client, reply stream and waiting calls."""

    loop: asyncio.AbstractEventLoop
    client: Redis
    scripts: Scripts
    reply_key: str
    window: asyncio.Semaphore
    clock: ServerClock = field(default_factory=ServerClock)
    waiting: dict[str, list[asyncio.Future[Answer]]] = field(default_factory=dict)
    last_read: str = "0-0"
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    closed: bool = False


class RedisTransport(Transport):
    """Sends calls to the workers of remote toolsets over Redis Streams.

    ``max_in_flight`` bounds the calls awaiting an answer at once (more wait for a slot, within
    their deadline); ``max_queue`` bounds each toolset version's queue (over it, calls are
    answered ``rate_limited`` with ``retry_after``); ``result_ttl`` is how long the answer of a
    call is kept for a retry of the same call. One transport serves one event loop at a time;
    used from another, it reconnects. ``await close()`` when done.
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
            self.keys.replies(f"{self.agent_id}-{secrets.token_hex(2)}"),
            asyncio.Semaphore(self.max_in_flight),
        )
        await agent.clock.sync(client)
        await self._refresh_live(agent)
        agent.tasks = [
            loop.create_task(self._supervised(agent, self._read_replies)),
            loop.create_task(self._supervised(agent, self._refresh)),
        ]
        log.debug("agent %s connected to %s (%s)", agent.reply_key, self.url, server)
        return agent

    async def close(self) -> None:
        agent, self._agent, self._starting = self._agent, None, None
        if agent is None:
            return
        # Flag, sockets closed, then cancel: a cancellation that lands inside redis-py's read
        # can be lost, and the loops must end all the same.
        agent.closed = True
        with contextlib.suppress(*TRANSIENT, redis_errors.RedisError):
            await agent.client.connection_pool.disconnect()
        for task in agent.tasks:
            task.cancel()
        await asyncio.wait(agent.tasks, timeout=2)
        for futures in agent.waiting.values():
            for future in futures:
                if not future.done():
                    future.set_result(NoAnswer(sent=True, detail="the transport was closed"))
        with contextlib.suppress(*TRANSIENT, redis_errors.RedisError):
            await agent.client.delete(agent.reply_key)
            await agent.client.aclose()

    # ── calls ────────────────────────────────────────────────────────────────────────────

    async def call(self, message: CallMessage, timeout: float) -> Answer:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        try:
            async with asyncio.timeout_at(end):
                agent = await self._ready()
        except TimeoutError:
            return NoAnswer(sent=False, detail=f"no connection to Redis at {self.url} in time")
        message = replace(message, deadline=agent.clock.now() + timeout)
        body = message.to_json()
        future: asyncio.Future[Answer] = loop.create_future()
        agent.waiting.setdefault(message.call_id, []).append(future)
        sent = False
        try:
            async with asyncio.timeout_at(end), agent.window:
                status, detail = await self._admit(agent, message, body, timeout)
                if status == "done":
                    return _read_answer(detail)
                if status == "unavailable":
                    return NoWorker(tuple(sorted(set(detail.split()))))
                if status == "busy":
                    return QueueFull(int(detail), self.max_queue, self.retry_after)
                sent = True
                return await future
        except TimeoutError:
            detail = "no answer before the deadline" if sent else "Redis did not take the call"
            return NoAnswer(sent=sent, detail=detail)
        finally:
            futures = agent.waiting.get(message.call_id, [])
            if future in futures:
                futures.remove(future)
            if not futures:
                agent.waiting.pop(message.call_id, None)

    async def _admit(
        self, agent: _Agent, message: CallMessage, body: str, timeout: float
    ) -> tuple[str, str]:
        keys = self.keys
        backoff = Backoff()
        while True:
            try:
                status, detail = await agent.scripts.run(
                    "admit",
                    [
                        keys.workers(message.toolset),
                        keys.requests(message.toolset, message.version),
                        keys.call(message.tool, message.call_id),
                    ],
                    [
                        message.version,
                        self.max_queue,
                        int(max(self.result_ttl, timeout + 60)),
                        agent.reply_key,
                        body,
                        message.call_id,
                    ],
                )
                return str(status), str(detail)
            except TRANSIENT as exc:  # retried until the deadline: queueing twice is harmless
                log.warning("queueing call %s failed (%s); retrying", message.call_id, exc)
                await backoff.sleep()

    async def _read_replies(self, agent: _Agent) -> None:
        # From the last id read, never "$": an answer landing between two reads is not skipped.
        backoff = Backoff()
        while not agent.closed:
            try:
                response: Any = await agent.client.xread(
                    {agent.reply_key: agent.last_read}, count=1000, block=2000
                )
            except TRANSIENT as exc:
                if agent.closed:
                    return
                log.warning("reading answers from %s failed (%s); retrying", self.url, exc)
                await backoff.sleep()
                continue
            backoff.reset()
            for _stream, entries in response or ():
                for entry_id, fields in entries:
                    agent.last_read = entry_id
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
                await agent.clock.sync(agent.client)
                if agent.last_read != "0-0":
                    await agent.client.xtrim(agent.reply_key, minid=agent.last_read)
            except TRANSIENT as exc:
                log.debug("refreshing worker liveness failed: %s", exc)

    async def _supervised(self, agent: _Agent, loop_body: Any) -> None:
        # An agent must never stop reading answers: a loop that fails is logged and restarted.
        backoff = Backoff()
        while not agent.closed:
            try:
                await loop_body(agent)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception(
                    "the Redis transport's %s loop failed; restarting it", loop_body.__name__
                )
                await backoff.sleep()

    # ── liveness ─────────────────────────────────────────────────────────────────────────

    async def _refresh_live(self, agent: _Agent) -> dict[str, tuple[str, ...]]:
        flat = await agent.scripts.run("live", [self.keys.toolsets], [self.keys.prefix])
        live = {
            str(flat[i]): live_versions(list(flat[i + 1]))
            for i in range(0, len(flat), 2)
            if flat[i + 1]
        }
        self._live = live
        return live

    async def live_toolsets(self) -> dict[str, tuple[str, ...]]:
        return await self._refresh_live(await self._ready())

    def last_seen_live(self, toolset: str, version: str) -> bool | None:
        if self._live is None:
            return None
        return version in self._live.get(toolset, ())


def _read_answer(text: str) -> Answer:
    try:
        reply = ReplyMessage.from_json(text)
    except WireError as exc:
        return BadAnswer(str(exc))
    return Replied(dict(reply.result), reply.worker, reply.deliveries)
