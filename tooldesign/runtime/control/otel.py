"""OpenTelemetry: one span per call, after the GenAI semantic conventions.

``Runtime.execute`` opens an ``execute_tool {tool name}`` span (kind ``INTERNAL``) with
``gen_ai.operation.name=execute_tool``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
``gen_ai.tool.type`` and ``gen_ai.tool.description``; a failed call sets the span's status to
error and ``error.type`` (the exception's type, else the outcome), and the retry reason, the
recovery, the approval and the repairs are ``tooldesign.*`` attributes. Arguments and results
are recorded only when the application opts in (``Tracing(record_arguments=True,
record_results=True)``: ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``); injected
values never are.

The span's parent is the current span when there is one (an MCP request's, an application's);
otherwise the W3C trace context the call carries (``ToolCallMeta.trace``, as a worker receives
it), so one trace follows a call from the agent to the worker that runs it.

``opentelemetry-api`` is optional (``pip install 'tooldesign[otel]'``) and imported on the
first call, never by ``import tooldesign.runtime``. Without it, or without an SDK configured
(no tracer provider set), a call costs one check; with ``Tracing(tracer_provider=...)`` the
runtime uses that provider instead of the global one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldesign.runtime.request import ToolCallMeta, ToolRequest
    from tooldesign.runtime.result import ToolResult
    from tooldesign.runtime.spec.specs import ToolSpec

INSTRUMENTATION = "tooldesign"

_PROVIDER_VARIABLE = "OTEL_PYTHON_TRACER_PROVIDER"
"""The environment variable that names a global tracer provider to load."""

_MAX_RECORDED = 8192
"""Characters of arguments or results recorded on a span when the application opts in."""


class _Api:
    """The parts of ``opentelemetry-api`` the runtime uses, imported once."""

    def __init__(self) -> None:
        from opentelemetry import context, propagate, trace

        self.context: ModuleType = context
        self.propagate: ModuleType = propagate
        self.trace: ModuleType = trace
        self.no_providers = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
        self.provider_in_environment = _PROVIDER_VARIABLE in os.environ

    def global_provider(self) -> Any:
        """The global tracer provider, or ``None`` while none that records is set.

        ``get_tracer_provider()`` looks the environment up on every call, which was most of
        what an untraced call cost: while the API's own global says no provider was set (and
        none is named in the environment), the answer is known without it.
        """
        if (
            getattr(self.trace, "_TRACER_PROVIDER", self) is None
            and not self.provider_in_environment
        ):
            return None
        provider = self.trace.get_tracer_provider()
        return None if isinstance(provider, self.no_providers) else provider


_api: _Api | None = None
_absent = False


def api() -> _Api | None:
    """``opentelemetry-api``, or ``None`` when it is not installed (looked for once)."""
    global _api, _absent
    if _api is None and not _absent:
        try:
            _api = _Api()
        except ImportError:
            _absent = True
    return _api


@dataclass(frozen=True, slots=True)
class Tracing:
    """How a runtime traces its calls.

    ``record_arguments`` and ``record_results`` put the call's arguments (as the model sent
    them, injected fields left out) and its result (what the model reads) on the span;
    ``tracer_provider`` is the OpenTelemetry ``TracerProvider`` to use (default: the global
    one, once an SDK sets it); ``enabled=False`` turns spans off.
    """

    record_arguments: bool = False
    record_results: bool = False
    tracer_provider: Any = None
    enabled: bool = True


class Tracer:
    """The runtime's tracer: ``None`` from :meth:`start` until a real provider exists."""

    __slots__ = ("_tracer", "options")

    def __init__(self, options: Tracing) -> None:
        self.options = options
        self._tracer: Any = None

    def _get(self) -> Any:
        if self._tracer is not None:
            return self._tracer
        if not self.options.enabled:
            return None
        otel = api()
        if otel is None:
            return None
        provider = self.options.tracer_provider or otel.global_provider()
        if provider is None or isinstance(provider, otel.no_providers):
            return None  # nothing would record: no span at all
        # A global provider is set once for the process: the tracer can be kept.
        self._tracer = provider.get_tracer(INSTRUMENTATION)
        return self._tracer

    def start(self, spec: ToolSpec[Any, Any], request: ToolRequest) -> CallSpan | None:
        """The span of one call, current until :meth:`CallSpan.finish` (``None``: not traced)."""
        tracer = self._get()
        if tracer is None:
            return None
        otel = api()
        assert otel is not None
        meta = request.meta
        parent = None
        if meta.trace and not otel.trace.get_current_span().get_span_context().is_valid:
            parent = otel.propagate.extract(dict(meta.trace))
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": spec.name,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.description": spec.description,
            "tooldesign.tool.id": str(spec.id),
        }
        if meta.tool_call_id:
            attributes["gen_ai.tool.call.id"] = meta.tool_call_id
        if self.options.record_arguments:
            attributes["gen_ai.tool.call.arguments"] = _arguments(request.payload, spec.injected)
        span = tracer.start_span(
            f"execute_tool {spec.name}",
            context=parent,
            kind=otel.trace.SpanKind.INTERNAL,
            attributes=attributes,
        )
        token = otel.context.attach(otel.trace.set_span_in_context(span, parent))
        return CallSpan(span, token, self.options.record_results)


class CallSpan:
    """One call's span while it runs."""

    __slots__ = ("record_results", "span", "token")

    def __init__(self, span: Any, token: object, record_results: bool) -> None:
        self.span = span
        self.token = token
        self.record_results = record_results

    def progress(self, progress: float, total: float | None) -> None:
        attributes: dict[str, float] = {"tooldesign.progress": progress}
        if total is not None:
            attributes["tooldesign.progress.total"] = total
        self.span.add_event("progress", attributes)

    def finish(self, result: ToolResult) -> None:
        otel = api()
        assert otel is not None
        span = self.span
        try:
            telemetry = result.telemetry
            span.set_attribute("tooldesign.outcome", telemetry.outcome)
            if result.retry_hint is not None:
                span.set_attribute("tooldesign.retry.reason", str(result.retry_hint.reason))
            if result.recovery is not None:
                span.set_attribute("tooldesign.recovery", str(result.recovery))
            if result.approval is not None:
                span.set_attribute("tooldesign.approval.id", result.approval.id)
                decision = telemetry.approval
                state = (
                    "awaiting" if decision is None else "granted" if decision.granted else "denied"
                )
                span.set_attribute("tooldesign.approval.decision", state)
                if decision is not None and decision.by is not None:
                    span.set_attribute("tooldesign.approval.by", decision.by)
            if telemetry.repairs:
                span.set_attribute(
                    "tooldesign.repairs", [f"{r.field}:{r.kind}" for r in telemetry.repairs]
                )
            if self.record_results:
                span.set_attribute("gen_ai.tool.call.result", result.for_model()[:_MAX_RECORDED])
            if result.error is not None and not result.awaiting_approval:
                cause = result.error.cause
                error_type = type(cause).__qualname__ if cause is not None else telemetry.outcome
                span.set_attribute("error.type", error_type)
                span.set_status(otel.trace.Status(otel.trace.StatusCode.ERROR, telemetry.outcome))
        finally:
            span.end()
            otel.context.detach(self.token)

    def abort(self) -> None:
        """The call was cancelled before it was answered."""
        otel = api()
        assert otel is not None
        try:
            self.span.set_attribute("error.type", "cancelled")
            self.span.set_status(otel.trace.Status(otel.trace.StatusCode.ERROR, "cancelled"))
        finally:
            self.span.end()
            otel.context.detach(self.token)


def _arguments(payload: Any, injected: tuple[str, ...]) -> str:
    """The arguments as the model sent them, injected fields left out, as JSON text."""
    data = payload
    if isinstance(payload, str | bytes | bytearray):
        try:
            data = json.loads(payload)
        except ValueError:
            return str(
                payload if isinstance(payload, str) else bytes(payload).decode("utf-8", "replace")
            )[:_MAX_RECORDED]
    if isinstance(data, Mapping):
        data = {k: v for k, v in data.items() if k not in injected}
    return json.dumps(data, ensure_ascii=False, default=str)[:_MAX_RECORDED]


def with_trace_context(meta: ToolCallMeta) -> ToolCallMeta:
    """``meta`` carrying the current trace context (``traceparent``, ``tracestate``), so the
    process that runs the call continues the trace; unchanged when there is none."""
    otel = api()
    if otel is None or not otel.trace.get_current_span().get_span_context().is_valid:
        return meta
    carrier: dict[str, str] = {}
    otel.propagate.inject(carrier)
    return replace(meta, trace={**meta.trace, **carrier}) if carrier else meta


TRACE_KEYS = ("traceparent", "tracestate")
"""The W3C trace context keys a call's metadata carries."""


__all__ = ["TRACE_KEYS", "Tracing", "with_trace_context"]
