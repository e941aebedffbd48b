"""Interceptors that ship with tooldesign: timeouts, rate limits, and logging of every call."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tooldesign.runtime.errors import ToolError
from tooldesign.runtime.hints import RetryHint, RetryReason
from tooldesign.runtime.registration import CallNext
from tooldesign.runtime.result import ToolCallMeta, ToolRequest, ToolResult


def _tool_name(request: ToolRequest) -> str:
    """The provider-facing name in an id (``service.toolset.tool`` → ``tool``)."""
    return request.name.rsplit(".", 1)[-1]


class Timeout:
    """Bounds how long a call may take; a slow call becomes a ``timeout`` retry hint.

    ``per_tool`` maps a tool's id or name to its own limit (seconds). A sync handler running in
    a worker thread cannot be stopped: the call answers on time, the thread finishes on its own.
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
        try:
            async with asyncio.timeout(limit):
                return await call_next(request, meta)
        except TimeoutError:
            name = _tool_name(request)
            message = (
                f"Tool {name!r} did not finish within {limit:g} s. Try again, or narrow the request "
                "(fewer items, a smaller window) so it finishes sooner."
            )
            hint = RetryHint(RetryReason.TIMEOUT, name, message, restrict_to_tool=False)
            result = ToolResult(request.name, error=ToolError(message), retry_hint=hint)
            result.telemetry.outcome = str(RetryReason.TIMEOUT)
            return result


@dataclass
class _Bucket:
    rate: float
    capacity: float
    tokens: float
    updated: float

    def take(self, now: float) -> float:
        """Take one token; return 0 on success, or the seconds until one is available."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class RateLimit:
    """A token bucket per tool: ``rate`` calls per second on average, bursts of ``burst``.

    ``per_tool`` maps a tool's id or name to its own ``(rate, burst)``. Over the limit, the call
    is not run: the model gets a ``rate_limited`` hint with ``retry_after`` seconds.
    """

    def __init__(
        self,
        rate: float,
        burst: int = 1,
        *,
        per_tool: Mapping[str, tuple[float, int]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate = rate
        self.burst = burst
        self.per_tool = dict(per_tool or {})
        self.clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def _bucket(self, request: ToolRequest) -> _Bucket:
        bucket = self._buckets.get(request.name)
        if bucket is None:
            rate, burst = self.per_tool.get(
                request.name, self.per_tool.get(_tool_name(request), (self.rate, self.burst))
            )
            bucket = self._buckets[request.name] = _Bucket(rate, burst, burst, self.clock())
        return bucket

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        wait = self._bucket(request).take(self.clock())
        if wait == 0:
            return await call_next(request, meta)
        name = _tool_name(request)
        message = (
            f"Tool {name!r} is being called too often. Wait {wait:.2f} s before calling it again."
        )
        hint = RetryHint(
            RetryReason.RATE_LIMITED,
            name,
            message,
            restrict_to_tool=True,
            retry_after=round(wait, 3),
        )
        result = ToolResult(request.name, error=ToolError(message), retry_hint=hint)
        result.telemetry.outcome = str(RetryReason.RATE_LIMITED)
        return result


class LogCalls:
    """Logs every call once it is answered, as one record with structured fields.

    The fields go in ``extra`` under ``tooldesign`` (tool, outcome, duration_ms, tool_call_id,
    run_id, session_id, retry_reason, discarded_injected). Arguments, results and server data
    are not logged: they may hold user data and injected values.
    """

    def __init__(self, logger: logging.Logger | None = None, *, level: int = logging.INFO) -> None:
        self.logger = logger or logging.getLogger("tooldesign.calls")
        self.level = level

    async def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> ToolResult:
        started = time.perf_counter()
        result = await call_next(request, meta)
        if self.logger.isEnabledFor(self.level):
            duration_ms = (time.perf_counter() - started) * 1000
            fields = {
                "tool": request.name,
                "outcome": result.telemetry.outcome,
                "duration_ms": round(duration_ms, 3),
                "tool_call_id": meta.tool_call_id,
                "run_id": meta.run_id,
                "session_id": meta.session_id,
                "retry_reason": str(result.retry_hint.reason) if result.retry_hint else None,
                "discarded_injected": list(result.telemetry.discarded_injected),
            }
            self.logger.log(
                self.level,
                "tool call %s: %s in %.1f ms",
                request.name,
                result.telemetry.outcome,
                duration_ms,
                extra={"tooldesign": fields},
            )
        return result
