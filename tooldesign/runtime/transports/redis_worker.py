"""A worker: serves the toolsets of a :class:`Runtime` to agents over Redis Streams.

Each served toolset version has a request stream read through the consumer group ``workers``,
shared by every replica (each call goes to one). Four loops run under one supervisor:

- reading takes new calls, only as many as there are free slots (a few are kept for reclaimed
  calls, so a saturated worker still takes over the calls of a dead one);
- claiming takes over calls another worker has held longer than the claim timeout (it died);
  a call delivered more than ``max_deliveries`` times goes to the dead-letter stream;
- renewing resets the idle time of the calls this worker is still running, every third of the
  claim timeout, so a slow call is never taken over;
- the heartbeat says, per toolset version, that this worker is live.

A loop that fails with anything but a lost connection (which it retries with backoff) ends the
worker with :class:`WorkerFailed`, so it exits non-zero instead of silently serving less.

Before running a call the worker records that it started it, unless the call has an answer
already (then that answer is sent again). A call started before by a worker that was lost is run
again only if its tool is ``idempotent`` or ``read_only``; otherwise it is answered
``outcome_unknown``. Answers of calls that ran to their end are stored under the call's id for
``result_ttl`` seconds: the first stored answer is the answer, to every delivery and retry.

``stop()`` (SIGTERM, Ctrl-C under :func:`serve`) stops taking calls, lets the running ones finish
for up to ``grace`` seconds, and hands the rest back for other workers to take at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio import Redis
from tooldesign.runtime import answers
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.transports import serving
from tooldesign.runtime.transports.base import TransportError
from tooldesign.runtime.transports.redis import (
    DEFAULT_PREFIX,
    DEFAULT_URL,
    GROUP,
    TRANSIENT,
    Backoff,
    RedisKeys,
    Scripts,
    ServerClock,
    live_versions,
    open_server,
    process_id,
)
from tooldesign.runtime.transports.wire import CallMessage, ReplyMessage, WireError

log = logging.getLogger("tooldesign.worker")


class WorkerFailed(TransportError):
    """A worker loop failed: the worker stopped instead of silently serving less."""


@dataclass(frozen=True, slots=True)
class _Stream:
    """One served toolset version and its request stream."""

    served: serving.ServedToolset
    key: str


class _Slots:
    """The calls a worker may still take: one slot per call, from taking it to answering it."""

    __slots__ = ("_freed", "free")

    def __init__(self, count: int) -> None:
        self.free = count
        self._freed = asyncio.Event()

    def take(self, most: int, *, keep: int = 0) -> int:
        """Take up to ``most`` slots, leaving ``keep`` free; returns how many were taken."""
        taken = max(0, min(most, self.free - keep))
        self.free -= taken
        return taken

    def give(self, count: int = 1) -> None:
        if count:
            self.free += count
            self._freed.set()

    async def freed(self) -> None:
        self._freed.clear()
        await self._freed.wait()


class RedisWorker:
    """Serves the local toolsets of ``runtime`` (or those named in ``toolsets``) over Redis.

    ``concurrency`` is how many calls run at once; ``claim_timeout`` how long a call may be held
    by a silent worker before another takes it over; ``max_deliveries`` how many times a call is
    delivered before it is dead-lettered; ``grace`` how long ``stop()`` lets running calls finish.
    """

    def __init__(
        self,
        runtime: Runtime,
        url: str = DEFAULT_URL,
        *,
        prefix: str = DEFAULT_PREFIX,
        toolsets: Iterable[str] = (),
        concurrency: int = 64,
        claim_timeout: float = 30.0,
        max_deliveries: int = 5,
        heartbeat_interval: float = 1.0,
        result_ttl: float = 3600.0,
        grace: float = 30.0,
        dead_letter_limit: int = 10_000,
        connect_wait: float = 10.0,
    ) -> None:
        if concurrency < 1 or max_deliveries < 1:
            raise TransportError("concurrency and max_deliveries must be at least 1")
        if claim_timeout <= 0 or heartbeat_interval <= 0 or grace < 0:
            raise TransportError("claim_timeout and heartbeat_interval must be positive")
        self.runtime = runtime
        self.url = url
        self.keys = RedisKeys(prefix)
        self.served = serving.served_toolsets(runtime, toolsets)
        self.concurrency = concurrency
        self.claim_timeout = claim_timeout
        self.max_deliveries = max_deliveries
        self.heartbeat_interval = heartbeat_interval
        self.result_ttl = int(result_ttl)
        self.grace = grace
        self.dead_letter_limit = dead_letter_limit
        self.connect_wait = connect_wait
        self.id = process_id()
        self._streams = [_Stream(s, self.keys.requests(s.key, s.version)) for s in self.served]
        # Kept for calls taken over from dead workers, so a busy worker still takes them.
        self._reserve = concurrency // 16
        self._client: Redis | None = None
        self._scripts: Scripts | None = None
        self._clock = ServerClock()
        self._slots = _Slots(concurrency)
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._stopping: asyncio.Event | None = None
        self._abandon: asyncio.Event | None = None

    # ── lifecycle ────────────────────────────────────────────────────────────────────────

    def stop(self) -> None:
        """Stop taking calls and end :meth:`run` (from the worker's event loop)."""
        if self._stopping is not None:
            self._stopping.set()

    async def run(self) -> None:
        """Serve until :meth:`stop`; raises :class:`WorkerFailed` if a loop fails."""
        self._stopping = asyncio.Event()
        self._abandon = asyncio.Event()
        self._client, server = await open_server(
            self.url, connections=self.concurrency + 8, wait=self.connect_wait
        )
        client = self._client
        self._scripts = Scripts(client)
        await self._scripts.load()
        await self._create_groups()
        await self._beat()
        for stream in self._streams:
            log.info(
                "worker %s serving %s (version %s) with %d slots on %s (%s)",
                self.id,
                stream.served.key,
                stream.served.version,
                self.concurrency,
                self.url,
                server,
            )
        loop = asyncio.get_running_loop()
        loops = {
            name: loop.create_task(body(), name=f"tooldesign-worker-{name}")
            for name, body in (
                ("read", self._read),
                ("claim", self._claim),
                ("renew", self._renew),
                ("heartbeat", self._heartbeat),
            )
        }
        stopping = loop.create_task(self._stopping.wait())
        done, _ = await asyncio.wait(
            [stopping, *loops.values()], return_when=asyncio.FIRST_COMPLETED
        )
        # A loop ends by itself only when stopping; any other end is a failure.
        failed = [
            (name, task)
            for name, task in loops.items()
            if task in done
            and (task.cancelled() or task.exception() is not None or not self._stopped())
        ]
        for name, task in failed:
            exc = task.exception() if not task.cancelled() else None
            log.critical("worker %s: the %s loop stopped", self.id, name, exc_info=exc)
        stopping.cancel()
        await self._shutdown(loops)
        if failed:
            names = ", ".join(name for name, _ in failed)
            raise WorkerFailed(f"worker {self.id}: the {names} loop failed; see the log")

    async def _shutdown(self, loops: Mapping[str, asyncio.Task[None]]) -> None:
        assert self._client is not None and self._abandon is not None
        client = self._client
        for name in ("read", "claim", "heartbeat"):
            loops[name].cancel()
        await asyncio.gather(
            *(loops[n] for n in ("read", "claim", "heartbeat")), return_exceptions=True
        )
        async with self._best_effort("leaving the workers set"):  # agents stop sending here
            for stream in self._streams:
                await client.zrem(self.keys.workers(stream.served.key), self._member(stream))
        running = list(self._running.values())
        if running:
            log.info(
                "worker %s: waiting up to %g s for %d calls", self.id, self.grace, len(running)
            )
            _, unfinished = await asyncio.wait(running, timeout=self.grace)
            if unfinished:
                self._abandon.set()
                held = list(self._running)
                for task in unfinished:
                    task.cancel()
                await asyncio.gather(*unfinished, return_exceptions=True)
                await self._hand_back(held)
        loops["renew"].cancel()
        await asyncio.wait([loops["renew"]], timeout=5)
        async with self._best_effort("leaving the consumer group"):
            await self._leave_group()
        async with self._best_effort("closing the connection"):
            await client.aclose()
        log.info("worker %s stopped", self.id)

    async def _hand_back(self, held: list[tuple[str, str]]) -> None:
        """Mark the calls still held as idle for a whole claim timeout: others take them now."""
        assert self._client is not None
        idle = int(self.claim_timeout * 1000)
        by_stream: dict[str, list[str]] = {}
        for stream, entry_id in held:
            by_stream.setdefault(stream, []).append(entry_id)
        async with self._best_effort("handing back calls"):
            for stream, ids in by_stream.items():
                await self._client.xclaim(
                    stream, GROUP, self.id, 0, list[Any](ids), idle=idle, justid=True
                )
                log.info("worker %s handed back %d calls on %s", self.id, len(ids), stream)

    @contextlib.asynccontextmanager
    async def _best_effort(self, step: str) -> AsyncIterator[None]:
        """A step of stopping that must not keep the rest from running."""
        try:
            yield
        except (redis_errors.RedisError, OSError) as exc:
            log.warning("worker %s: %s failed while stopping: %s", self.id, step, exc)

    async def _leave_group(self) -> None:
        # A consumer's pending calls vanish with it: leave only when it holds none.
        assert self._client is not None
        for stream in self._streams:
            pending = await self._client.xpending_range(
                stream.key, GROUP, min="-", max="+", count=1, consumername=self.id
            )
            if not pending:
                await self._client.xgroup_delconsumer(stream.key, GROUP, self.id)

    async def _create_groups(self) -> None:
        assert self._client is not None
        for stream in self._streams:
            try:
                await self._client.xgroup_create(stream.key, GROUP, id="0", mkstream=True)
            except redis_errors.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def _stopped(self) -> bool:
        return self._stopping is not None and self._stopping.is_set()

    def _member(self, stream: _Stream) -> str:
        return f"{stream.served.version} {self.id}"

    # ── loops ────────────────────────────────────────────────────────────────────────────

    async def _read(self) -> None:
        assert self._client is not None
        backoff = Backoff()
        turn = 0
        by_key = {stream.key: stream for stream in self._streams}
        while not self._stopped():
            taken = self._slots.take(self.concurrency, keep=self._reserve)
            if not taken:
                await self._slots.freed()
                continue
            # COUNT applies per stream: never ask for more calls than the slots taken.
            streams = self._streams
            if taken < len(streams):
                turn = (turn + 1) % len(streams)
                streams = (streams[turn:] + streams[:turn])[:taken]
            count = taken // len(streams)
            try:
                response: Any = await self._client.xreadgroup(
                    GROUP,
                    self.id,
                    {stream.key: ">" for stream in streams},
                    count=count,
                    block=2000,
                )
            except TRANSIENT as exc:
                self._slots.give(taken)
                log.warning("worker %s: reading calls failed (%s); retrying", self.id, exc)
                await backoff.sleep()
                continue
            except redis_errors.ResponseError as exc:
                self._slots.give(taken)
                if not _stream_gone(exc):
                    raise
                # The server lost the stream or its group (deleted, or a restart without AOF).
                await self._create_groups()
                continue
            backoff.reset()
            got = 0
            for key, entries in response or ():
                for entry_id, fields in entries:
                    got += 1
                    self._spawn(by_key[key], entry_id, fields, 1)
            self._slots.give(taken - got)

    async def _claim(self) -> None:
        assert self._client is not None
        interval = min(self.claim_timeout / 4, 1.0)
        min_idle = int(self.claim_timeout * 1000)
        while not self._stopped():
            await asyncio.sleep(interval)
            for stream in self._streams:
                cursor = "0-0"
                while True:
                    taken = self._slots.take(self.concurrency)
                    if not taken:
                        break
                    try:
                        cursor, entries, counts = await self._script(
                            "claim", [stream.key], [GROUP, self.id, min_idle, cursor, taken]
                        )
                    except TRANSIENT as exc:
                        self._slots.give(taken)
                        log.warning("worker %s: claiming calls failed (%s)", self.id, exc)
                        break
                    except redis_errors.ResponseError as exc:
                        self._slots.give(taken)
                        if not _stream_gone(exc):
                            raise
                        break
                    got = 0
                    for (entry_id, flat), deliveries in zip(entries, counts, strict=True):
                        if (stream.key, entry_id) in self._running or not flat:
                            continue  # still running here (a late renewal), or deleted
                        got += 1
                        fields = dict(zip(flat[::2], flat[1::2], strict=True))
                        log.info(
                            "worker %s took over call %s on %s (delivery %d)",
                            self.id,
                            fields.get("id", "?"),
                            stream.key,
                            deliveries,
                        )
                        self._spawn(stream, entry_id, fields, int(deliveries))
                    self._slots.give(taken - got)
                    if cursor == "0-0" or not entries:
                        break

    async def _renew(self) -> None:
        assert self._client is not None
        while True:  # until the calls it renews are done (cancelled last)
            await asyncio.sleep(self.claim_timeout / 3)
            by_stream: dict[str, list[str]] = {}
            for stream_key, entry_id in list(self._running):
                by_stream.setdefault(stream_key, []).append(entry_id)
            for stream_key, ids in by_stream.items():
                for start in range(0, len(ids), 500):
                    chunk = ids[start : start + 500]
                    try:
                        taken = await self._script("renew", [stream_key], [GROUP, self.id, *chunk])
                    except TRANSIENT as exc:
                        log.warning("worker %s: renewing claims failed (%s)", self.id, exc)
                        continue
                    for entry_id in taken:
                        if (stream_key, entry_id) in self._running:
                            log.warning(
                                "worker %s: call %s on %s was taken over by another worker",
                                self.id,
                                entry_id,
                                stream_key,
                            )

    async def _heartbeat(self) -> None:
        backoff = Backoff()
        while not self._stopped():
            await asyncio.sleep(self.heartbeat_interval)
            try:
                await self._beat()
                backoff.reset()
            except TRANSIENT as exc:
                log.warning("worker %s: heartbeat failed (%s)", self.id, exc)
                await backoff.sleep()

    async def _beat(self) -> None:
        ttl = int(self.heartbeat_interval * 3000)
        for stream in self._streams:
            sent = time.time()
            server_time = await self._script(
                "heartbeat",
                [self.keys.workers(stream.served.key), self.keys.toolsets],
                [self._member(stream), ttl, stream.served.key],
            )
            self._clock.observe(server_time, sent, time.time())

    # ── one call ─────────────────────────────────────────────────────────────────────────

    def _spawn(
        self, stream: _Stream, entry_id: str, fields: Mapping[str, str], deliveries: int
    ) -> None:
        """Serve one entry in its own task; its slot is already taken."""
        task = asyncio.get_running_loop().create_task(
            self._serve(stream, entry_id, fields, deliveries)
        )
        self._running[(stream.key, entry_id)] = task

    async def _serve(
        self, stream: _Stream, entry_id: str, fields: Mapping[str, str], deliveries: int
    ) -> None:
        try:
            await self._handle(stream, entry_id, fields, deliveries)
        except asyncio.CancelledError:
            pass  # stopping: the entry stays pending and is handed back
        except Exception:
            log.exception(
                "worker %s could not serve entry %s of %s; it stays pending for redelivery",
                self.id,
                entry_id,
                stream.key,
            )
        finally:
            self._running.pop((stream.key, entry_id), None)
            self._slots.give()

    async def _handle(
        self, stream: _Stream, entry_id: str, fields: Mapping[str, str], deliveries: int
    ) -> None:
        served = stream.served
        call_id = fields.get("id", "")
        reply_to = fields.get("reply", "")
        try:
            body = fields.get("call")
            if body is None:
                raise WireError("the stream entry has no 'call' field")
            message = CallMessage.from_json(body)
            if call_id != message.call_id:
                raise WireError(
                    f"the entry's id {call_id!r} is not the message's {message.call_id!r}"
                )
        except WireError as exc:
            log.error("worker %s: malformed call %s on %s: %s", self.id, entry_id, stream.key, exc)
            if call_id and reply_to:
                result = answers.malformed_call(f"{served.key}.?", str(exc))
                await self._answer(
                    stream, entry_id, call_id, reply_to, result, store=False, deliveries=deliveries
                )
            else:
                await self._dead_letter(stream, entry_id, fields, f"malformed: {exc}", deliveries)
            return
        tool = message.tool
        if deliveries > self.max_deliveries:
            log.error(
                "worker %s: call %s (%s) was delivered %d times; dead-lettered",
                self.id,
                call_id,
                tool,
                deliveries,
            )
            await self._dead_letter(stream, entry_id, fields, "too many deliveries", deliveries)
            result = answers.dead_lettered(tool, deliveries)
            await self._answer(
                stream, entry_id, call_id, reply_to, result, store=True, deliveries=deliveries
            )
            return
        if message.toolset == served.key and message.version != served.version:
            live = await self._retrying(self._live_versions, served.key)
            result = answers.other_version(tool, served.key, message.version, served.version, live)
            await self._answer(
                stream, entry_id, call_id, reply_to, result, store=False, deliveries=deliveries
            )
            return
        refused = serving.refusal(served, message, self._clock.now())
        if refused is not None:
            await self._answer(
                stream, entry_id, call_id, reply_to, refused, store=False, deliveries=deliveries
            )
            return
        status, detail = await self._retrying(
            self._script,
            "start",
            [self.keys.call(tool, call_id)],
            [self.id, entry_id, max(self.result_ttl, 60)],
        )
        if status == "answered":
            await self._answer_with(
                stream, entry_id, tool, call_id, reply_to, str(detail), store=True
            )
            return
        if status == "again" and not served.repeatable(tool):
            log.warning(
                "worker %s: call %s (%s) was started by lost worker %s; answered outcome_unknown",
                self.id,
                call_id,
                tool,
                detail or "?",
            )
            result = answers.outcome_unknown(tool)
            result.tool_call_id = message.meta.tool_call_id
            await self._answer(
                stream, entry_id, call_id, reply_to, result, store=True, deliveries=deliveries
            )
            return
        result, finished = await serving.execute(self.runtime, message, self._clock.now())
        await self._answer(
            stream, entry_id, call_id, reply_to, result, store=finished, deliveries=deliveries
        )

    async def _answer(
        self,
        stream: _Stream,
        entry_id: str,
        call_id: str,
        reply_to: str,
        result: ToolResult,
        *,
        store: bool,
        deliveries: int,
    ) -> None:
        body = ReplyMessage(call_id, result.to_dict(), self.id, deliveries).to_json()
        await self._answer_with(stream, entry_id, result.name, call_id, reply_to, body, store=store)

    async def _answer_with(
        self,
        stream: _Stream,
        entry_id: str,
        tool: str,
        call_id: str,
        reply_to: str,
        body: str,
        *,
        store: bool,
    ) -> None:
        # Stores the answer (the first one stored wins), sends it, then acknowledges the entry:
        # a worker lost on the way leaves the entry pending, and its redelivery finds the answer.
        await self._retrying(
            self._script,
            "answer",
            [self.keys.call(tool, call_id or "-"), stream.key],
            [
                GROUP,
                entry_id,
                body,
                1 if store else 0,
                max(self.result_ttl, 60),
                reply_to,
                max(self.result_ttl, 60),
                call_id,
            ],
        )

    async def _dead_letter(
        self,
        stream: _Stream,
        entry_id: str,
        fields: Mapping[str, str],
        reason: str,
        deliveries: int,
    ) -> None:
        assert self._client is not None
        client = self._client
        letter: dict[Any, Any] = {
            **fields,
            "entry": entry_id,
            "stream": stream.key,
            "reason": reason,
            "deliveries": str(deliveries),
            "worker": self.id,
        }
        dead = self.keys.dead(stream.served.key)

        async def send() -> None:
            async with client.pipeline(transaction=True) as pipe:
                pipe.xadd(dead, letter, maxlen=self.dead_letter_limit, approximate=True)
                pipe.xack(stream.key, GROUP, entry_id)
                pipe.xdel(stream.key, entry_id)
                await pipe.execute()

        await self._retrying(send)

    async def _script(self, name: str, keys: list[str], args: list[Any]) -> Any:
        assert self._scripts is not None
        return await self._scripts.run(name, keys, args)

    async def _live_versions(self, toolset: str) -> tuple[str, ...]:
        assert self._client is not None
        now_ms = int(self._clock.now() * 1000)
        members: Any = await self._client.zrangebyscore(self.keys.workers(toolset), now_ms, "+inf")
        return live_versions(list(members))

    async def _retrying(
        self, command: Callable[..., Coroutine[Any, Any, Any]], *args: Any, **kwargs: Any
    ) -> Any:
        """``command`` retried with backoff while the server is unreachable, until the worker
        gives up its calls (stopping past its grace): the entry then stays pending."""
        assert self._abandon is not None
        backoff = Backoff()
        while True:
            try:
                return await command(*args, **kwargs)
            except TRANSIENT as exc:
                if self._abandon.is_set():
                    raise
                log.warning("worker %s: Redis unreachable (%s); retrying", self.id, exc)
                await backoff.sleep()


def _stream_gone(exc: redis_errors.ResponseError) -> bool:
    """Whether ``exc`` says a request stream or its group no longer exists."""
    return str(exc).startswith(("NOGROUP", "UNBLOCKED"))


async def run_until_stopped(worker: RedisWorker) -> None:
    """Run ``worker`` in this event loop until SIGTERM or SIGINT, then stop it cleanly."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, worker.stop)
    try:
        await worker.run()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


def serve(runtime: Runtime, url: str = DEFAULT_URL, **options: Any) -> None:
    """Serve ``runtime``'s toolsets with a :class:`RedisWorker` until SIGTERM or Ctrl-C.

    Raises :class:`WorkerFailed` when a worker loop failed, and :class:`TransportError` when the
    server cannot be reached or is older than Redis 7.
    """
    asyncio.run(run_until_stopped(RedisWorker(runtime, url, **options)))
