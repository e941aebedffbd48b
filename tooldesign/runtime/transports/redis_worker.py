"""A worker: serves the toolsets of a :class:`Runtime` to agents over Redis Streams.

Each served toolset version has a request stream read through the consumer group ``workers``,
shared by every replica (each call goes to one). Loops run under one supervisor:

- reading (one per stream) takes new calls, only as many as there are free slots, and waits on
  the stream's bell when there are none;
- claiming takes over the calls of workers whose *lease* expired (they died), never for idle
  time alone; calls waiting to be taken over get free slots before new calls do;
- renewing resets the idle time of the calls this worker is still running;
- the heartbeat renews the worker's lease (it holds its calls) and says, per toolset version,
  that it takes calls;
- cancelling (one per toolset) stops the calls their agents cancelled.

A loop that fails with anything but an unreachable server (which it retries with backoff) ends
the worker with :class:`WorkerFailed`, so it exits non-zero instead of silently serving less. A
server that lost its data (a restart without persistence) is not a failure: the worker makes
its groups again. What it does with each call is :mod:`.redis_calls`.

``stop()`` (SIGTERM, Ctrl-C under :func:`serve`) first leaves the live set (agents stop sending
to it), takes and runs the calls queued until then, lets the running ones finish for up to
``grace`` seconds, hands the rest back, and then gives up its lease so others take them at once.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.transports import serving
from tooldesign.runtime.transports.base import TransportError
from tooldesign.runtime.transports.redis import MAX_CALL_BYTES
from tooldesign.runtime.transports.redis_agents import RedisAgentJournal
from tooldesign.runtime.transports.redis_calls import CallHandler, Stream, Taken, retry_transient
from tooldesign.runtime.transports.redis_client import (
    DEFAULT_URL,
    ERRORS,
    Backoff,
    open_server,
    recover,
    transient,
)
from tooldesign.runtime.transports.redis_keys import DEFAULT_PREFIX, GROUP, RedisKeys
from tooldesign.runtime.transports.redis_leases import LeasedWorker
from tooldesign.runtime.transports.redis_scripts import Scripts

log = logging.getLogger("tooldesign.worker")


class WorkerFailed(TransportError):
    """A worker loop failed: the worker stopped instead of silently serving less."""


class RedisWorker(LeasedWorker):
    """Serves the local toolsets of ``runtime`` (or those named in ``toolsets``) over Redis.

    ``concurrency`` is how many calls run at once (``tool_concurrency``: at most so many of
    one tool, by name or id); ``claim_timeout`` how long a worker that stopped heartbeating
    keeps its calls (its lease) before others take them over; ``max_deliveries`` how many times
    a call is delivered before it is dead-lettered; ``grace`` how long ``stop()`` lets running
    calls finish; ``wait_replicas``: that many replicas have each call's start mark before it
    runs (``WAIT``: a failover then cannot run a call twice).
    """

    def __init__(
        self,
        runtime: Runtime,
        url: str = DEFAULT_URL,
        *,
        prefix: str = DEFAULT_PREFIX,
        toolsets: Iterable[str] = (),
        concurrency: int = 64,
        claim_timeout: float = 5.0,
        max_deliveries: int = 5,
        heartbeat_interval: float = 1.0,
        result_ttl: float = 3600.0,
        grace: float = 30.0,
        dead_letter_limit: int = 10_000,
        connect_wait: float = 10.0,
        max_call_bytes: int = MAX_CALL_BYTES,
        tool_concurrency: Mapping[str, int] | None = None,
        wait_replicas: int = 0,
        meter_provider: Any = None,
    ) -> None:
        if concurrency < 1 or max_deliveries < 1:
            raise TransportError("concurrency and max_deliveries must be at least 1")
        if claim_timeout <= 0 or heartbeat_interval <= 0 or grace < 0:
            raise TransportError("claim_timeout and heartbeat_interval must be positive")
        if any(n < 1 for n in (tool_concurrency or {}).values()):
            raise TransportError("a tool's concurrency must be at least 1")
        keys = RedisKeys(prefix)
        super().__init__(
            serving.served_toolsets(runtime, toolsets),
            keys,
            concurrency=concurrency,
            claim_timeout=claim_timeout,
            heartbeat_interval=heartbeat_interval,
            max_call_bytes=max_call_bytes,
            result_ttl=int(result_ttl),
            dead_letter_limit=dead_letter_limit,
            meter_provider=meter_provider,
        )
        self.runtime = runtime
        self.url = url
        self.max_deliveries = max_deliveries
        self.grace = grace
        self.connect_wait = connect_wait
        self.tool_concurrency = dict(tool_concurrency or {})
        self.wait_replicas = wait_replicas
        self._calls: CallHandler | None = None
        self._by_call: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._draining = False
        self._abandon = asyncio.Event()

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
            self.url, connections=2 * len(self._streams) + len(self._toolsets) + 16,
            wait=self.connect_wait,
        )  # fmt: skip
        self._scripts = Scripts(self._client, wait_replicas=self.wait_replicas)
        if self.runtime.agent_journal is None:  # inner runs record their side effects here
            self.runtime.journal_agent_runs(RedisAgentJournal(self._client, self.keys.prefix))
        self._calls = CallHandler(
            self.id,
            self.runtime,
            self.keys,
            self._scripts,
            self._clock,
            self.metrics,
            self._retrying,
            max_deliveries=self.max_deliveries,
            result_ttl=self.result_ttl,
            dead_letter_limit=self.dead_letter_limit,
            max_call_bytes=self.max_call_bytes,
            tool_concurrency=self.tool_concurrency,
        )
        self._calls.parking = self._slots.park
        await self._retrying(self._prepare)  # a server failing over as the worker starts
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
        bodies: dict[str, Callable[[], Awaitable[None]]] = {
            "claim": self._claim,
            "renew": self._renew,
            "heartbeat": self._heartbeat,
        }
        for stream in self._streams:
            bodies[f"read {stream.key}"] = lambda s=stream: self._read(s)  # type: ignore[misc]
        for toolset in self._toolsets:
            bodies[f"cancel {toolset}"] = lambda t=toolset: self._cancels(t)  # type: ignore[misc]
        loops: dict[str, asyncio.Task[None]] = {
            name: loop.create_task(body(), name=f"tooldesign-worker-{name}")  # type: ignore[arg-type]
            for name, body in bodies.items()
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
        await self._shutdown(loops, failed=bool(failed))
        if failed:
            names = ", ".join(name for name, _ in failed)
            raise WorkerFailed(f"worker {self.id}: the {names} loop failed; see the log")

    async def _shutdown(self, loops: Mapping[str, asyncio.Task[None]], *, failed: bool) -> None:
        client = self._client
        # Agents stop sending here first; then the calls queued until then are taken and run.
        self._accepting = False
        async with self._best_effort("leaving the workers set"):
            for stream in self._streams:
                await client.zrem(self.keys.workers(stream.served.key), self._member(stream))
        readers = [task for name, task in loops.items() if name.startswith("read ")]
        if not failed:
            self._draining = True
            self._slots.wake()
            await asyncio.wait(readers, timeout=self.grace)
        for name in loops:
            if name.startswith(("read ", "claim")):
                loops[name].cancel()
        await asyncio.gather(*readers, loops["claim"], return_exceptions=True)
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
        for name, task in loops.items():
            if not name.startswith(("read ", "claim")):
                task.cancel()
        await asyncio.wait(list(loops.values()), timeout=5)
        async with self._best_effort("giving up the lease"):  # others take what is left now
            for toolset in self._toolsets:
                await client.zrem(self.keys.leases(toolset), self.id)
        async with self._best_effort("leaving the consumer group"):
            await self._leave_group()
        async with self._best_effort("closing the connection"):
            await client.aclose()
        log.info("worker %s stopped", self.id)

    async def _leave_group(self) -> None:
        # A consumer's pending calls vanish with it: leave only when it holds none.
        for stream in self._streams:
            pending = await self._client.xpending_range(
                stream.key, GROUP, min="-", max="+", count=1, consumername=self.id
            )
            if not pending:
                await self._client.xgroup_delconsumer(stream.key, GROUP, self.id)

    def _answered(self, entry: Taken) -> bool:
        return self._calls is not None and entry.entry_id in self._calls.answered

    def _held_back(self, entry: Taken) -> bool:
        if entry.status != "first" or entry.stream.served.repeatable(entry.fields.get("tool", "")):
            return False
        log.info(
            "worker %s: no replica has the start of call %s yet; it waits", self.id, entry.call_id
        )
        return True

    async def _confirmed(self, name: str, keys: list[str], args: list[Any]) -> tuple[Any, bool]:
        assert self._scripts is not None
        return await self._scripts.run_confirmed(name, keys, args)

    async def _prepare(self) -> None:
        assert self._scripts is not None
        await self._scripts.load()
        await self._create_groups()
        await self._beat()

    async def _create_groups(self) -> None:
        for stream in self._streams:
            try:
                await self._client.xgroup_create(stream.key, GROUP, id="0", mkstream=True)
            except ERRORS as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
        await self._client.sadd(self.keys.toolsets, *self._toolsets)

    # ── loops ────────────────────────────────────────────────────────────────────────────

    async def _read(self, stream: Stream) -> None:
        # Ends only when draining (stopping) finds nothing left; cancelled otherwise.
        backoff = Backoff()
        empty = False
        while True:
            if empty:
                if self._draining:
                    return  # nothing left that was queued before leaving the live set
                await self._wait_bell(stream, backoff)
                empty = False
                continue
            taken = self._slots.take(self.concurrency)
            if not taken:
                await self._slots.freed()
                continue
            args = self._start_args(taken)
            args[4] = self.keys.calls(stream.served.key)
            try:
                reply, confirmed = await self._confirmed("take", self._stream_keys(stream), args)
            except ERRORS as exc:
                self._slots.give(taken)
                if not transient(exc):
                    raise
                log.warning("worker %s: reading calls failed (%s); retrying", self.id, exc)
                await backoff.sleep()
                continue
            got = await self._took(stream, reply, taken, confirmed=confirmed)
            if got is None:
                continue
            backoff.reset()
            empty = got < taken

    async def _took(
        self, stream: Stream, reply: list[Any], taken: int, *, confirmed: bool = True
    ) -> int | None:
        """Serve what a take or claim gave; ``None`` when it gave nothing to count.

        Unless a replica has their start marks (``wait_replicas``), calls that must not run
        twice wait: a failover now could lose the marks, and another worker start them again.
        They stay held, and this worker's claim finds them again after a claim timeout."""
        status = reply[0]
        if status == "ok":
            rows = reply[1]
            for row in rows:
                entry = Taken.read(stream, row)
                if confirmed or not self._held_back(entry):
                    self._spawn(entry)
                else:
                    self._slots.give()
            self._slots.give(taken - len(rows))
            return len(rows)
        self._slots.give(taken)
        if status == "fenced":  # the lease expired (a long pause): renew it before taking
            log.warning("worker %s: its lease had expired; renewing it", self.id)
            await self._retrying(self._beat)
        elif "NOGROUP" in str(reply[1]):  # the server lost the stream (a restart without AOF)
            log.warning(
                "worker %s: %s lost its consumer group; making it again", self.id, stream.key
            )
            await self._retrying(self._create_groups)
            await self._retrying(self._beat)
        else:
            raise WorkerFailed(f"reading {stream.key} failed: {reply[1]}")
        return None

    async def _wait_bell(self, stream: Stream, backoff: Backoff) -> None:
        """Until a call may wait (an agent rang the bell), 1 s at most."""
        try:
            await self._client.blpop([stream.bell], timeout=1)
        except ERRORS as exc:
            if not transient(exc):
                raise
            await recover(self._client, exc)
            await backoff.sleep()

    async def _cancels(self, toolset: str) -> None:
        key = self.keys.cancels(toolset)
        last = "$"
        backoff = Backoff()
        while True:
            try:
                if last == "$":  # from now on, by id: never skip one landing between reads
                    newest = await self._client.xrevrange(key, count=1)
                    last = newest[0][0] if newest else "0-0"
                response: Any = await self._client.xread({key: last}, count=100, block=2000)
            except ERRORS as exc:
                if not transient(exc):
                    raise
                await recover(self._client, exc)
                await backoff.sleep()
                continue
            backoff.reset()
            for _stream, entries in response or ():
                for entry_id, fields in entries:
                    last = entry_id
                    self._cancel(fields.get("tool", ""), fields.get("id", ""))

    def _cancel(self, tool: str, call_id: str) -> None:
        task = self._by_call.get((tool, call_id))
        if task is not None and self._calls is not None and not task.done():
            self._calls.cancelled.add(task)
            task.cancel()

    # ── one call ─────────────────────────────────────────────────────────────────────────

    def _spawn(self, entry: Taken) -> None:
        """Serve one entry in its own task; its slot is already taken."""
        log.debug(
            "worker %s: entry %s (call %s) %s %s, delivery %d",
            self.id,
            entry.entry_id,
            entry.call_id,
            entry.status,
            entry.detail[:40],
            entry.deliveries,
        )
        task = asyncio.get_running_loop().create_task(self._serve(entry))
        self._running[(entry.stream.key, entry.entry_id)] = task
        call = (entry.fields.get("tool", ""), entry.call_id)
        self._by_call[call] = task

    async def _serve(self, entry: Taken) -> None:
        assert self._calls is not None
        try:
            if entry.detail == "mine" and entry.entry_id in self._calls.answered:
                await self._calls.answer_again(entry)
            else:
                await self._calls.handle(entry)
        except asyncio.CancelledError:
            pass  # stopping: the entry stays pending and is handed back
        except Exception:
            log.exception(
                "worker %s could not serve entry %s of %s; it stays pending for redelivery",
                self.id,
                entry.entry_id,
                entry.stream.key,
            )
        finally:
            self._running.pop((entry.stream.key, entry.entry_id), None)
            call = (entry.fields.get("tool", ""), entry.call_id)
            if self._by_call.get(call) is asyncio.current_task():
                del self._by_call[call]
            self._calls.cancelled.discard(asyncio.current_task())  # type: ignore[arg-type,unused-ignore]
            self._slots.give()

    async def _retrying(self, command: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        return await retry_transient(self._abandon, self.id, command, *args)


async def run_until_stopped(worker: RedisWorker, *, asked: list[int] | None = None) -> None:
    """Run ``worker`` in this event loop until SIGTERM or SIGINT, then stop it cleanly.

    ``asked``: the signals a handler of the caller's recorded while the process started; one
    there means the worker is not started at all."""
    loop = asyncio.get_running_loop()
    asked = asked if asked is not None else []

    def stop(signum: int) -> None:
        asked.append(signum)
        worker.stop()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    try:
        if asked:  # stopped while it started: it never joins the fleet
            log.info("worker %s stopped before it started serving", worker.id)
            return
        await worker.run()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        if asked:
            # The process is stopping as asked: a SIGTERM repeated (a supervisor, a deploy
            # script) must not kill it while it finishes, with a signal's exit status.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


def serve(runtime: Runtime, url: str = DEFAULT_URL, **options: Any) -> None:
    """Serve ``runtime``'s toolsets with a :class:`RedisWorker` until SIGTERM or Ctrl-C.

    Raises :class:`WorkerFailed` when a worker loop failed, and :class:`TransportError` when the
    server cannot be reached or is older than Redis 7.
    """
    asyncio.run(run_until_stopped(RedisWorker(runtime, url, **options)))


__all__ = ["RedisWorker", "WorkerFailed", "run_until_stopped", "serve"]
