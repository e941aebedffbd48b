"""Interceptors that ship with tooldesign: timeouts, rate limits, and logging of every call.

In a :class:`~tooldesign.runtime.Runtime` an interceptor sees only calls to registered tools,
named by their id, with the payload still raw (decoding happens at the end of the chain, so an
interceptor may rewrite it); calls to unknown tools are answered before any interceptor runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import AsyncIterator, Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass

from tooldesign.runtime import answers
from tooldesign.runtime.registration import CallNext
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.workers import cancelled_before_start


def _tool_name(request: ToolRequest) -> str:
    """The provider-facing name in an id (``service.toolset.tool`` → ``tool``)."""
    return request.name.rsplit(".", 1)[-1]


class Timeout:
    """Bounds how long a call may take; a slow call becomes a ``timeout`` retry hint.

    ``per_tool`` maps a tool's id or name to its own limit (seconds). A sync tool running in a
    worker thread cannot be stopped: the call answers on time, the thread finishes on its own
    (holding one of the runtime's worker threads until then). A call still waiting for a worker
    thread when time is up never runs, and its hint says the runtime is busy, not that the
    request is too big. An async tool that blocks the event loop, or that catches
    ``CancelledError`` and carries on, cannot be stopped either: the answer comes when it yields.
    """

    def __init__(self, seconds: float, *, per_tool: Mapping[str, float] | None = None) -> None:
        if seconds <= 0:
            raise ValueError("a timeout must be positive")
        self.seconds = seconds
        self.per_tool = dict(per_tool or {})

    def limit_for(self, request: ToolRequest) -> float:
        return self.per_tool.get(request.name, self.per_tool.get(_tool_name(request), self.seconds))

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        limit = self.limit_for(request)
        outer = _settles.get()
        pending: list[Settle] = []  # runs this deadline may stop, waiting for its answer
        settles = _settles.set(pending)
        try:
            async with asyncio.timeout(limit) as deadline:
                token = _deadlines.set((*_deadlines.get(), deadline))
                try:
                    result = await call_next(request, meta)
                finally:
                    _deadlines.reset(token)
        except TimeoutError as exc:
            # Every worker thread may have been busy (with other calls, or with tools that
            # hang): then the tool never ran, and the same call may well succeed in a moment.
            queued = cancelled_before_start(exc)
            result = answers.timed_out(request.name, limit, queued=queued, cause=exc)
        except BaseException:
            # Stopped by something else: an enclosing Timeout's deadline gives the answer, or
            # (a caller's cancellation) there is none.
            if outer is not None:
                outer.extend(pending)
            else:
                _settle(pending, None)
            raise
        finally:
            _settles.reset(settles)
        _settle(pending, result)
        return result


Settle = Callable[[ToolResult | None], None]
"""Told the answer of a run a ``Timeout`` stopped (``None``: the run was stopped, and the call
answered, by something else)."""

_settles: contextvars.ContextVar[list[Settle] | None] = contextvars.ContextVar(
    "tooldesign_timeout_settles", default=None
)
"""The innermost ``Timeout``'s runs stopped midway, each waiting for the answer it gives."""


def answered_by_timeout(settle: Settle) -> bool:
    """A run stopped midway (cancelled) whose answer is the ``Timeout``'s that stopped it: the
    ``Timeout`` the call runs under calls ``settle`` with the answer it gives (its own, an
    enclosing one's, or ``None`` when something else stopped the run). ``False``: the call runs
    under no ``Timeout``, and ``settle`` is not kept."""
    pending = _settles.get()
    if pending is None:
        return False
    pending.append(settle)
    return True


def _settle(pending: list[Settle], answer: ToolResult | None) -> None:
    for settle in pending:
        settle(answer)
    pending.clear()


_deadlines: contextvars.ContextVar[tuple[asyncio.Timeout, ...]] = contextvars.ContextVar(
    "tooldesign_deadlines", default=()
)
"""The deadlines of the ``Timeout`` interceptors a call is running under, outermost first."""


@contextlib.asynccontextmanager
async def deadline(seconds: float) -> AsyncIterator[asyncio.Timeout]:
    """``asyncio.timeout(seconds)`` whose clock stops, as a ``Timeout``'s does, while a call
    made inside it waits for a person (a code run's deadline, say)."""
    async with asyncio.timeout(seconds) as timeout:
        token = _deadlines.set((*_deadlines.get(), timeout))
        try:
            yield timeout
        finally:
            _deadlines.reset(token)


def current_deadlines() -> tuple[asyncio.Timeout, ...]:
    """The deadlines the current call runs under."""
    return _deadlines.get()


def forget_deadlines() -> None:
    """In a task's own context: the task answers to no caller's ``Timeout`` (an agent's inner
    run, which may outlive the call that started it while it waits for a person)."""
    _deadlines.set(())


@contextlib.contextmanager
def deadlines_paused(deadlines: tuple[asyncio.Timeout, ...] | None = None) -> Iterator[None]:
    """Stop the clock of every ``Timeout`` the call runs under (or of ``deadlines``: an agent's
    outer call's), until the block ends.

    A person's time is not the tool's: while a call waits for an approver's decision, its
    deadlines do not run, and they resume with the time they had left.
    """
    loop = asyncio.get_running_loop()
    held: list[tuple[asyncio.Timeout, float]] = []
    for deadline in _deadlines.get() if deadlines is None else deadlines:
        when = deadline.when()
        if when is not None and not deadline.expired():
            held.append((deadline, when - loop.time()))
            deadline.reschedule(None)
    try:
        yield
    finally:
        now = loop.time()
        for deadline, left in held:
            deadline.reschedule(now + max(left, 0.0))


@dataclass
class _Bucket:
    rate: float
    capacity: float
    tokens: float
    updated: float

    def full_at(self, now: float) -> bool:
        """Whether the bucket has refilled: then it is no different from a new one."""
        return self.tokens + (now - self.updated) * self.rate >= self.capacity

    def take(self, now: float) -> float:
        """Take one token; return 0 on success, or the seconds until one is available."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


CallerKey = Callable[[ToolRequest, ToolCallMeta], Hashable]
"""``key(request, meta)``: who is calling, for a :class:`RateLimit` with a bucket per caller."""


class RateLimit:
    """A token bucket per tool: ``rate`` calls per second on average, bursts of ``burst``.

    ``per_tool`` maps a tool's id or name to its own ``(rate, burst)``. Over the limit, the call
    is not run: the model gets a ``rate_limited`` hint with ``retry_after`` seconds.

    ``key`` gives each caller buckets of their own, so one client cannot use up a tool for all:
    the name of a metadata value (``"session_id"``, ``"run_id"``, or a label such as
    ``"user_id"`` that ``meta_for`` set from the authenticated user), or a function
    ``key(request, meta)`` returning any hashable value. Calls without a value share one bucket
    per tool. Without ``key``, every caller shares the tool's bucket.

    Memory stays bounded whatever names reach it: buckets that have refilled are dropped (a new
    one would be identical) whenever their number doubles, so there are never more than 1,024
    or twice the number of tools (or tool-and-caller pairs) called within the last
    ``burst / rate`` seconds.
    """

    def __init__(
        self,
        rate: float,
        burst: int = 1,
        *,
        per_tool: Mapping[str, tuple[float, int]] | None = None,
        key: str | CallerKey | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        if not (key is None or isinstance(key, str) or callable(key)):
            raise TypeError(
                f"key must be a metadata value's name or a function key(request, meta), not {key!r}"
            )
        self.rate = rate
        self.burst = burst
        self.per_tool = dict(per_tool or {})
        self.key = key
        self.clock = clock
        self._buckets: dict[tuple[str, Hashable], _Bucket] = {}
        self._prune_at = _MIN_PRUNE_AT

    def caller(self, request: ToolRequest, meta: ToolCallMeta) -> Hashable:
        """Whose bucket a call takes from (``None``: the one every caller without a key shares)."""
        if self.key is None:
            return None
        if isinstance(self.key, str):
            value = meta.value_for(self.key)  # labels may hold any value: keyed as text
            return None if value is None else str(value)
        return self.key(request, meta)

    def _bucket(self, request: ToolRequest, meta: ToolCallMeta, now: float) -> _Bucket:
        name = (request.name, self.caller(request, meta))
        bucket = self._buckets.get(name)
        if bucket is None:
            if len(self._buckets) >= self._prune_at:
                self._prune(now)
            rate, burst = self.per_tool.get(
                request.name, self.per_tool.get(_tool_name(request), (self.rate, self.burst))
            )
            bucket = self._buckets[name] = _Bucket(rate, burst, burst, now)
        return bucket

    def _prune(self, now: float) -> None:
        self._buckets = {
            name: bucket for name, bucket in self._buckets.items() if not bucket.full_at(now)
        }
        # Amortised: the next prune waits until the live buckets have doubled.
        self._prune_at = max(_MIN_PRUNE_AT, 2 * len(self._buckets))

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        now = self.clock()
        wait = self._bucket(request, meta, now).take(now)
        if wait == 0:
            return await call_next(request, meta)
        return answers.rate_limited(request.name, wait)


_MIN_PRUNE_AT = 1024


class LogCalls:
    """Logs every call it wraps once it is answered, as one record with structured fields.

    The fields go in ``extra`` under ``tooldesign`` (tool, outcome, duration_ms, tool_call_id,
    run_id, session_id, retry_reason, discarded_injected, and ``exception``: the type's name when
    the rest of the chain raised). Arguments, results, server data and exception messages are
    not logged: they may hold user data and injected values.

    When an interceptor after it raises, the call is logged with outcome ``error`` (or
    ``cancelled``) and the exception is re-raised: the runtime answers it as for any failing
    interceptor, and logs its traceback on ``tooldesign.runtime``. Calls to unknown tools never
    reach an interceptor; the runtime logs those itself.
    """

    def __init__(self, logger: logging.Logger | None = None, *, level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("tooldesign.calls")
        self.level = level

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        started = time.perf_counter()
        try:
            result = await call_next(request, meta)
        except BaseException as exc:
            if self.logger.isEnabledFor(self.level):
                outcome = "cancelled" if isinstance(exc, asyncio.CancelledError) else "error"
                self._log(request, meta, started, outcome, exception=type(exc).__name__)
            raise
        if self.logger.isEnabledFor(self.level):
            self._log(
                request,
                meta,
                started,
                result.settle_outcome(),
                retry_reason=str(result.retry_hint.reason) if result.retry_hint else None,
                discarded_injected=list(result.telemetry.discarded_injected),
            )
        return result

    def _log(
        self,
        request: ToolRequest,
        meta: ToolCallMeta,
        started: float,
        outcome: str,
        *,
        retry_reason: str | None = None,
        discarded_injected: list[str] | None = None,
        exception: str | None = None,
    ) -> None:
        duration_ms = (time.perf_counter() - started) * 1000
        fields = {
            "tool": request.name,
            "outcome": outcome,
            "duration_ms": round(duration_ms, 3),
            "tool_call_id": meta.tool_call_id,
            "run_id": meta.run_id,
            "session_id": meta.session_id,
            "retry_reason": retry_reason,
            "discarded_injected": discarded_injected or [],
            "exception": exception,
        }
        self.logger.log(
            self.level,
            "tool call %s: %s in %.1f ms",
            request.name,
            outcome,
            duration_ms,
            extra={"tooldesign": fields},
        )
