"""Call events: one stream of what the runtime is doing, for a UI or a log.

``runtime.subscribe(callback)`` delivers, for every call, :class:`CallStarted`, any
:class:`CallProgress`, :class:`ApprovalRequested` and :class:`ApprovalDecided`, then
:class:`CallFinished` (outcome, duration, bounds, recovery). Events of one call share its
``call`` number.

A subscriber can never slow or break a call: publishing only appends to the subscriber's
bounded queue (``max_queued`` events; when it is full the oldest progress update is dropped,
else the oldest event, and counted in :attr:`Subscription.dropped`), and a thread of the
subscriber's own delivers them in order. Every call publishes exactly one
:class:`CallFinished`, its last event, however it ends (answered, failed, timed out, waiting
for approval, or cancelled: outcome ``cancelled``).
A callback that raises is logged and keeps its subscription; one that blocks holds only its
own thread (and, past its queue, loses the oldest events). An ``async def`` callback is run on
that thread's event loop.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest

if TYPE_CHECKING:
    from tooldesign.runtime.reasons import Recovery
    from tooldesign.runtime.result import Bounds, ServerDataItem

log = logging.getLogger("tooldesign.runtime")

DEFAULT_MAX_QUEUED = 1024
"""Events a subscriber may have waiting before the oldest are dropped."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallEvent:
    """What every event says: which call (``call``, a number unique in the runtime), which
    tool (id and name), the provider's call id, and when (seconds since the epoch)."""

    call: int
    tool: str
    name: str
    tool_call_id: str | None = None
    at: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallStarted(CallEvent):
    session_id: str | None = None
    run_id: str | None = None
    parent_tool_call_id: str | None = None
    """The call whose run made this one (an agent-implemented tool's, for its inner run's calls)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallProgress(CallEvent):
    progress: float
    total: float | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalRequested(CallEvent):
    request: ApprovalRequest


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalDecided(CallEvent):
    request: ApprovalRequest
    decision: ApprovalDecision


@dataclass(frozen=True, slots=True, kw_only=True)
class CallFinished(CallEvent):
    outcome: str
    """``ok``, ``error``, a retry reason, ``awaiting_approval``, ``approval_denied`` …"""
    ok: bool
    duration_ms: float
    bounds: Bounds | None = None
    recovery: Recovery | None = None
    server_data: tuple[ServerDataItem, ...] = ()
    """The call's server data (for observers: a UI's charts), the inner calls' of an agent run
    included; never the model's."""


Subscriber = Callable[[CallEvent], None] | Callable[[CallEvent], Awaitable[None]]


class Subscription:
    """One subscriber's queue and delivery thread. ``close()`` ends it (events still queued
    are delivered first); ``dropped`` counts the events it lost to a full queue."""

    def __init__(self, callback: Subscriber, max_queued: int, bus: EventBus) -> None:
        if max_queued < 1:
            raise ValueError("max_queued must be at least 1")
        self._callback = callback
        self._is_async = inspect.iscoroutinefunction(callback)
        self._queue: deque[CallEvent] = deque()
        self._max = max_queued
        self._ready = threading.Condition()
        self._closed = False
        self._bus = bus
        self.dropped = 0
        self.delivered = 0
        self._thread = threading.Thread(target=self._deliver, name="tooldesign-events", daemon=True)
        self._thread.start()

    def put(self, event: CallEvent) -> None:
        with self._ready:
            if self._closed:
                return
            if len(self._queue) >= self._max:
                self._drop_one()
            self._queue.append(event)
            self._ready.notify()

    def _drop_one(self) -> None:
        """Make room: the oldest progress update goes first, so that a slow subscriber still
        hears how each call started and finished; only a queue of nothing else loses its
        oldest event."""
        for index, queued in enumerate(self._queue):
            if isinstance(queued, CallProgress):
                del self._queue[index]
                break
        else:
            self._queue.popleft()
        self.dropped += 1

    def close(self, *, timeout: float | None = 5.0) -> None:
        """Stop receiving events; wait (``timeout`` seconds at most) for the queued ones."""
        self._bus.remove(self)
        with self._ready:
            self._closed = True
            self._ready.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _deliver(self) -> None:
        runner = asyncio.Runner() if self._is_async else None
        try:
            while True:
                with self._ready:
                    while not self._queue and not self._closed:
                        self._ready.wait()
                    if not self._queue:
                        return
                    event = self._queue.popleft()
                try:
                    outcome = self._callback(event)
                    if runner is not None and inspect.isawaitable(outcome):
                        runner.run(_awaited(outcome))
                except Exception:
                    log.exception("an event subscriber failed on %s", type(event).__name__)
                self.delivered += 1
        finally:
            if runner is not None:
                runner.close()


async def _awaited(outcome: Awaitable[None]) -> None:
    await outcome


class EventBus:
    """The runtime's subscribers. Publishing costs nothing when there are none."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: tuple[Subscription, ...] = ()
        self._numbers = itertools.count(1)

    def __bool__(self) -> bool:
        return bool(self._subscriptions)

    def next_call(self) -> int:
        return next(self._numbers)

    def subscribe(
        self, callback: Subscriber, *, max_queued: int = DEFAULT_MAX_QUEUED
    ) -> Subscription:
        subscription = Subscription(callback, max_queued, self)
        with self._lock:
            self._subscriptions = (*self._subscriptions, subscription)
        return subscription

    def remove(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)

    def publish(self, event: CallEvent) -> None:
        """Queue ``event`` for every subscriber (thread-safe, never blocks on a subscriber)."""
        for subscription in self._subscriptions:
            subscription.put(event)


__all__ = [
    "DEFAULT_MAX_QUEUED",
    "ApprovalDecided",
    "ApprovalRequested",
    "CallEvent",
    "CallFinished",
    "CallProgress",
    "CallStarted",
    "EventBus",
    "Subscriber",
    "Subscription",
]
