"""What observes one call while it runs: its span, its events and its progress.

:meth:`CallWatch.start` returns ``None`` when nobody observes (no event subscriber, no tracing
SDK), which is what keeps an unobserved call as cheap as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooldesign.runtime.control import progress
from tooldesign.runtime.control.events import (
    ApprovalDecided,
    ApprovalRequested,
    CallFinished,
    CallProgress,
    CallStarted,
    EventBus,
)
from tooldesign.runtime.control.progress import ProgressUpdate

if TYPE_CHECKING:
    from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest
    from tooldesign.runtime.control.otel import CallSpan, Tracer
    from tooldesign.runtime.request import ToolRequest
    from tooldesign.runtime.result import ToolResult
    from tooldesign.runtime.spec.specs import ToolSpec


class CallWatch:
    __slots__ = ("bus", "call", "name", "span", "token", "tool", "tool_call_id")

    def __init__(
        self,
        bus: EventBus | None,
        span: CallSpan | None,
        spec: ToolSpec[Any, Any],
        request: ToolRequest,
    ) -> None:
        self.bus = bus
        self.span = span
        self.call = bus.next_call() if bus is not None else 0
        self.tool = str(spec.id)
        self.name = spec.name
        self.tool_call_id = request.meta.tool_call_id
        self.token: progress.Attached[progress.ProgressUpdate] | None = None

    @classmethod
    def start(
        cls, bus: EventBus, tracer: Tracer, spec: ToolSpec[Any, Any], request: ToolRequest
    ) -> CallWatch | None:
        span = tracer.start(spec, request)
        listened = bool(bus)
        if span is None and not listened:
            return None
        watch = cls(bus if listened else None, span, spec, request)
        if watch.bus is not None:
            meta = request.meta
            watch.bus.publish(
                CallStarted(
                    **watch._ids(),
                    session_id=meta.session_id,
                    run_id=meta.run_id,
                    parent_tool_call_id=meta.parent_tool_call_id,
                )
            )
        watch.token = progress.attach(watch._progress)
        return watch

    def _ids(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "tool": self.tool,
            "name": self.name,
            "tool_call_id": self.tool_call_id,
        }

    def _progress(self, update: ProgressUpdate) -> None:
        if self.bus is not None:
            self.bus.publish(
                CallProgress(
                    **self._ids(),
                    progress=update.progress,
                    total=update.total,
                    message=update.message,
                )
            )
        if self.span is not None:
            self.span.progress(update.progress, update.total)

    def requested(self, request: ApprovalRequest) -> None:
        if self.bus is not None:
            self.bus.publish(ApprovalRequested(**self._ids(), request=request))

    def decided(self, request: ApprovalRequest, decision: ApprovalDecision) -> None:
        if self.bus is not None:
            self.bus.publish(ApprovalDecided(**self._ids(), request=request, decision=decision))

    def finish(self, result: ToolResult) -> None:
        """The call is answered: progress stops being listened to, the span ends, and
        subscribers hear the outcome."""
        if self.token is not None:
            progress.detach(self.token)
            self.token = None
        if self.span is not None:
            self.span.finish(result)
        if self.bus is not None:
            self.bus.publish(
                CallFinished(
                    **self._ids(),
                    outcome=result.telemetry.outcome,
                    ok=result.ok,
                    duration_ms=result.telemetry.duration_ms,
                    bounds=result.bounds,
                    recovery=result.recovery,
                    server_data=result.server_data,
                )
            )

    def abort(self, duration_ms: float) -> None:
        """The call is being cancelled: progress stops being listened to, the span ends, and
        subscribers hear that it finished, cancelled (every call has its ``CallFinished``)."""
        if self.token is not None:
            progress.detach(self.token)
            self.token = None
        if self.span is not None:
            self.span.abort()
        if self.bus is not None:
            self.bus.publish(
                CallFinished(**self._ids(), outcome="cancelled", ok=False, duration_ms=duration_ms)
            )
