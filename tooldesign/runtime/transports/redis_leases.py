"""What every worker loop shares, and the loops of leases: the heartbeat, taking over calls.

A worker holds its calls under a *lease* (``<prefix>:{<toolset>}:leases``) that its heartbeat
renews every ``heartbeat_interval``; it lasts ``claim_timeout``. Another worker takes over a
call only when the lease of the worker holding it has expired (it died), never for the call's
idle time alone: a worker that is slow, or a Redis that paused, keeps its calls. The calls of a
dead worker get the next free slots (``Slots.reserve``), so taking them over is bounded by the
claim timeout, not by how busy the worker is. The renewal of held calls keeps their idle time
short, so the claim scan looks only at calls nobody renews.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from tooldesign.runtime.transports import serving
from tooldesign.runtime.transports.metrics import RemoteMetrics
from tooldesign.runtime.transports.redis import LONGEST_STALL
from tooldesign.runtime.transports.redis_calls import Stream, Taken
from tooldesign.runtime.transports.redis_client import (
    ERRORS,
    Backoff,
    ServerClock,
    process_id,
    transient,
)
from tooldesign.runtime.transports.redis_keys import GROUP, RedisKeys
from tooldesign.runtime.transports.redis_scripts import Scripts
from tooldesign.runtime.transports.redis_slots import Slots

log = logging.getLogger("tooldesign.worker")


class LeasedWorker:
    """A worker's state that its loops share, its lease and heartbeat, and takeover; the
    worker itself (:class:`~.redis_worker.RedisWorker`) reads, serves and stops."""

    def __init__(
        self,
        served: list[serving.ServedToolset],
        keys: RedisKeys,
        *,
        concurrency: int,
        claim_timeout: float,
        heartbeat_interval: float,
        max_call_bytes: int,
        result_ttl: int,
        dead_letter_limit: int,
        meter_provider: Any,
    ) -> None:
        self.id = process_id()
        self.keys = keys
        self.served = served
        self.concurrency = concurrency
        self.claim_timeout = claim_timeout
        self.heartbeat_interval = min(heartbeat_interval, claim_timeout / 3)
        # Half the lease: more than a heartbeat interval (a third at most), less than the gap
        # that would let a lease expire unseen.
        self.stall_ms = int(claim_timeout * 500)
        self.max_call_bytes = max_call_bytes
        self.result_ttl = result_ttl
        self.dead_letter_limit = dead_letter_limit
        self.metrics = RemoteMetrics(meter_provider)
        self._streams = [
            Stream(s, keys.requests(s.key, s.version), keys.bell(s.key, s.version)) for s in served
        ]
        self._toolsets = sorted({s.key for s in served})
        self._client: Any = None
        self._scripts: Scripts | None = None
        self._clock = ServerClock()
        self._slots = Slots(concurrency)
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._accepting = True
        self._stopping: asyncio.Event | None = None

    def _spawn(self, entry: Taken) -> None:
        raise NotImplementedError

    async def _took(
        self, stream: Stream, reply: list[Any], taken: int, *, confirmed: bool = True
    ) -> int | None:
        raise NotImplementedError

    def _held_back(self, entry: Taken) -> bool:
        raise NotImplementedError

    def _answered(self, entry: Taken) -> bool:
        raise NotImplementedError

    async def _confirmed(self, name: str, keys: list[str], args: list[Any]) -> tuple[Any, bool]:
        raise NotImplementedError

    @contextlib.asynccontextmanager
    async def _best_effort(self, step: str) -> AsyncIterator[None]:
        """A step of stopping that must not keep the rest from running."""
        try:
            yield
        except ERRORS as exc:
            log.warning("worker %s: %s failed while stopping: %s", self.id, step, exc)

    def _stopped(self) -> bool:
        return self._stopping is not None and self._stopping.is_set()

    def _member(self, stream: Stream) -> str:
        return f"{stream.served.version} {self.id}"

    async def _script(self, name: str, keys: list[str], args: list[Any]) -> Any:
        assert self._scripts is not None
        return await self._scripts.run(name, keys, args)

    def _start_args(self, count: int) -> list[Any]:
        """The arguments the take and claim scripts share."""
        return [
            GROUP,
            self.id,
            count,
            self.max_call_bytes,
            "",  # the toolset's call key start, per stream
            self.stall_ms,
            int(LONGEST_STALL * 1000),
            max(self.result_ttl, 60),
            self.dead_letter_limit,
        ]

    def _stream_keys(self, stream: Stream) -> list[str]:
        toolset = stream.served.key
        keys = self.keys
        return [
            stream.key,
            stream.bell,
            keys.leases(toolset),
            keys.tick(toolset),
            keys.workers(toolset),
            keys.dead(toolset),
            keys.queued(toolset, stream.served.version),
        ]

    async def _claim(self) -> None:
        interval = min(self.claim_timeout / 4, 0.5)
        min_idle = int(self.claim_timeout * 1000)
        while not self._stopped():
            waiting = 0
            for stream in self._streams:
                waiting += await self._claim_stream(stream, min_idle)
            if waiting:  # calls of dead workers wait for slots: take the next ones freed
                self._slots.reserve(waiting)
                await self._slots.freed(timeout=interval)
            else:
                self._slots.reserve(0)
                await asyncio.sleep(interval)

    async def _claim_stream(self, stream: Stream, min_idle: int) -> int:
        """Take over what can be taken on ``stream``; how many more wait for free slots."""
        cursor = "-"
        waiting = 0
        while True:
            taken = self._slots.take(self.concurrency, claiming=True)
            args = [*self._start_args(taken), min_idle, cursor, 256]
            args[4] = self.keys.calls(stream.served.key)
            try:
                reply, confirmed = await self._confirmed("claim", self._stream_keys(stream), args)
            except ERRORS as exc:
                self._slots.give(taken)
                if not transient(exc):
                    raise
                log.warning("worker %s: claiming calls failed (%s)", self.id, exc)
                return 0
            if reply[0] != "ok":
                if "NOGROUP" in str(reply[1:2]):
                    self._slots.give(taken)
                    return 0
                await self._took(stream, reply, taken)
                return 0
            for row in reply[1]:
                entry = Taken.read(stream, row)
                if (stream.key, entry.entry_id) in self._running:
                    self._slots.give()  # still running here: the claim only renewed it
                    continue
                if self._answered(entry):  # answered here, as the claim was on its way
                    self._spawn(entry)
                    continue
                if not confirmed and self._held_back(entry):
                    self._slots.give()
                    continue
                if entry.previous != self.id:
                    log.info(
                        "worker %s took over call %s on %s (delivery %d, from %s)",
                        self.id,
                        entry.call_id or "?",
                        stream.key,
                        entry.deliveries,
                        entry.previous or "?",
                    )
                self._spawn(entry)
            self._slots.give(taken - len(reply[1]))
            waiting += int(reply[3])
            cursor = reply[2]
            if not cursor:
                return waiting

    async def _renew(self) -> None:
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
                    except ERRORS as exc:
                        if not transient(exc):
                            raise
                        log.warning("worker %s: renewing claims failed (%s)", self.id, exc)
                        continue
                    if taken == ["gone"]:  # the server lost its data: nothing left to renew
                        log.warning("worker %s: %s is gone; its calls run on", self.id, stream_key)
                        break
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
        beats = 0
        while True:  # until stopped last: the lease holds the calls still running
            await asyncio.sleep(self.heartbeat_interval)
            try:
                await self._beat()
                beats += 1
                if beats % 5 == 0:
                    await self._observe_queues()
                backoff.reset()
            except ERRORS as exc:
                if not transient(exc):
                    raise
                log.warning("worker %s: heartbeat failed (%s)", self.id, exc)
                await backoff.sleep()

    async def _beat(self) -> None:
        ttl = int(self.claim_timeout * 1000)
        for toolset in self._toolsets:
            members = (
                [self._member(s) for s in self._streams if s.served.key == toolset]
                if self._accepting
                else []
            )
            sent = time.time()
            server_time = await self._script(
                "heartbeat",
                [self.keys.workers(toolset), self.keys.leases(toolset), self.keys.tick(toolset)],
                [ttl, self.id, self.stall_ms, int(LONGEST_STALL * 1000), *members],
            )
            self._clock.observe(server_time, sent, time.time())

    async def _observe_queues(self) -> None:
        for stream in self._streams:
            with contextlib.suppress(*ERRORS):
                groups = await self._client.xinfo_groups(stream.key)
                for group in groups:
                    if group.get("name") == GROUP:
                        waiting = int(group.get("lag") or 0)
                        held = int(group.get("pending") or 0)
                        self.metrics.queue(stream.served.key, stream.served.version, waiting, held)

    async def _hand_back(self, held: list[tuple[str, str]]) -> None:
        """Mark the calls still held as idle for a whole claim timeout: once the lease is given
        up, others take them at once."""
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
