"""The :class:`Runtime`: the registered toolsets, and one call at a time through the pipeline.

What happens to a call, and in which order, is :mod:`tooldesign.runtime.pipeline`; this class
holds what the steps run with (the tools, the interceptors, the limits, the threads, the
observers) and is what applications write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tooldesign.runtime.agents import AgentJournal, current_run, run_key
from tooldesign.runtime.approval import NO_DECISIONS, Decisions, approval_request
from tooldesign.runtime.arguments import decode, injected_values
from tooldesign.runtime.budget import Spills
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest, Approver
from tooldesign.runtime.control.audit import AuditSink
from tooldesign.runtime.control.events import DEFAULT_MAX_QUEUED, EventBus, Subscriber, Subscription
from tooldesign.runtime.control.otel import Tracer, Tracing
from tooldesign.runtime.errors import ToolValidationError
from tooldesign.runtime.pipeline import Pipeline
from tooldesign.runtime.registration import Interceptor, ToolsetRegistration
from tooldesign.runtime.registry import RegisteredTool, ToolsetInfo
from tooldesign.runtime.request import ToolRequest, with_call_id
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.scopes import refused
from tooldesign.runtime.spec.limits import DEFAULT_LIMITS, Limits
from tooldesign.runtime.spec.specs import JsonSchema, ToolSpec
from tooldesign.runtime.spill import DEFAULT_TTL, MemoryResultStore, ResultStore
from tooldesign.runtime.sync import run_sync
from tooldesign.runtime.workers import WorkerThreads

DEFAULT_WORKER_THREADS = 64
"""Threads a runtime runs sync tools on, by default: tools mostly wait on I/O."""

_DECODER_THREADS = 2
"""Threads a runtime decodes large arguments on (the work is bounded by its limits)."""

_APPROVER_THREADS = 64
"""Threads sync approvers wait on (a person each), apart from the tools' threads."""


class Runtime:
    """Executes tool calls for the registered toolsets.

    ``expose`` lists exception types whose messages are safe to show the model (a not-found
    error, say); other exceptions reach the model as a generic failure and the logs in full.
    ``approver`` decides on calls that need a person's approval (``Confirm``) when the call
    brings no decision of its own; without one, such a call is answered awaiting approval.
    ``tracing`` sets how calls are traced with OpenTelemetry (see :class:`Tracing`).
    ``limits`` bound what one call may carry (arguments' size, nesting and arrays, the result a
    model reads); a tool's design may set its own (``Limits(...)`` in its ``Tool`` block).
    ``result_store`` keeps the results of tools that spill past their budget
    (``Limits(result_overflow="spill")``) for ``result_ttl`` seconds, for the builtin
    ``read_result`` tool (:mod:`tooldesign.builtin.results`); in memory by default.
    ``audit`` gets a record of every call answered (:class:`JsonLinesAudit`, a hash-chained
    file). ``require_principal`` refuses a call whose metadata carries no verified
    :class:`Principal`; left ``False``, only a principal that is there is held to a tool's
    ``Scopes`` (in-process use without auth runs every tool, as it always did).
    """

    def __init__(
        self,
        registrations: Iterable[ToolsetRegistration] = (),
        *,
        interceptors: Sequence[Interceptor] = (),
        expose: tuple[type[BaseException], ...] = (),
        worker_threads: int = DEFAULT_WORKER_THREADS,
        approver: Approver | None = None,
        tracing: Tracing | None = None,
        limits: Limits = DEFAULT_LIMITS,
        result_store: ResultStore | None = None,
        result_ttl: float = DEFAULT_TTL,
        audit: AuditSink | None = None,
        require_principal: bool = False,
    ) -> None:
        if worker_threads < 1:
            raise ValueError("worker_threads must be at least 1")
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        self.approver = approver
        self._events = EventBus()
        self._tracer = Tracer(tracing if tracing is not None else Tracing())
        # Threads start when needed. Sync tools run on their own pool, not the event loop's
        # default executor: tools that hang hold the runtime's threads only. Large arguments are
        # decoded, and sync approvers wait for a person, each on threads of their own: neither
        # tools that hang nor pending approvals keep a call from being answered.
        workers = WorkerThreads(worker_threads, thread_name_prefix="tooldesign-tool")
        decoders = ThreadPoolExecutor(_DECODER_THREADS, thread_name_prefix="tooldesign-decode")
        approvers = ThreadPoolExecutor(_APPROVER_THREADS, thread_name_prefix="tooldesign-approver")
        self._pipeline = Pipeline(
            interceptors=interceptors,
            limits=limits,
            expose=expose,
            events=self._events,
            tracer=self._tracer,
            workers=workers,
            decoders=decoders,
            approvers=approvers,
            spills=Spills(
                MemoryResultStore() if result_store is None else result_store,  # empty is falsy
                result_ttl,
                shared=result_store is not None,
            ),
            audit=audit,
            require_principal=require_principal,
        )
        self._registry = self._pipeline.registry
        self._pipeline.runtime = self
        for registration in registrations:
            self.register(registration)

    @property
    def require_principal(self) -> bool:
        """Whether a call without a verified :class:`Principal` is refused (see ``__init__``)."""
        return self._pipeline.require_principal

    # ── registrations ─────────────────────────────────────────────────────────────────────

    def register(self, registration: ToolsetRegistration) -> None:
        """Add a toolset. Its tool ids and names must not clash with registered ones."""
        self._registry.add(registration)

    def unregister(self, service: str, toolset: str) -> None:
        self._registry.remove(service, toolset)

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` whenever toolsets are registered or removed. Returns an unsubscribe."""
        return self._registry.on_change(listener)

    def subscribe(
        self, callback: Subscriber, *, max_queued: int = DEFAULT_MAX_QUEUED
    ) -> Subscription:
        """Deliver every call's events to ``callback`` (sync or async), on a thread of its own:
        started, progress, approval requested and decided, finished (one per call, last). A
        callback that raises or blocks never slows a call; past ``max_queued`` waiting events the
        oldest progress updates are dropped first (counted in ``subscription.dropped``).
        ``subscription.close()`` ends it."""
        return self._events.subscribe(callback, max_queued=max_queued)

    # ── introspection ─────────────────────────────────────────────────────────────────────

    def toolsets(self) -> list[ToolsetInfo]:
        return self._registry.toolsets()

    def specs(self, toolset: str | None = None) -> list[ToolSpec[Any, Any]]:
        """Specs of every registered tool, or of one toolset (``"toolset"`` or ``"service.toolset"``)."""
        return list(self._registry.specs(toolset))

    def load_models(self, toolset: str | None = None) -> None:
        """Import the generated models of every registered toolset (or of one) now, rather than
        on each toolset's first call: for a process that would rather pay, and fail, at start.

        Raises :class:`TypesImportError` naming the first toolset whose models cannot be
        imported.
        """
        for spec in self._registry.specs(toolset):
            _ = spec.payload.model, spec.result.model
            for data in spec.server_data:
                _ = data.model

    @property
    def result_store(self) -> ResultStore:
        """Where results spilled past their budget wait for ``read_result``."""
        return self._pipeline.spills.store

    def limits_of(self, name: str) -> Limits | None:
        """The limits a tool (by id or name) runs with: the runtime's, with its design's over them."""
        tool = self._registry.resolve(name)
        return tool.limits if tool else None

    def spec(self, name: str) -> ToolSpec[Any, Any] | None:
        """The spec of a tool by id or provider-facing name."""
        tool = self._registry.resolve(name)
        return tool.spec if tool else None

    def schema(self, name: str) -> JsonSchema | None:
        """The model-facing payload schema of a tool by id or name."""
        spec = self.spec(name)
        return spec.payload.schema if spec else None

    # ── execution ─────────────────────────────────────────────────────────────────────────

    async def execute(
        self,
        request: ToolRequest,
        *,
        approvals: Iterable[ApprovalDecision] = (),
        approver: Approver | None = None,
    ) -> ToolResult:
        """Run one call. Never raises for anything a model or a tool does; see
        :mod:`tooldesign.runtime.pipeline` for what happens to it, in order.

        ``approvals`` are decisions already made on calls that need approval (a call runs when
        one of them is for exactly this call, and is refused when it denies it); ``approver``
        decides for this call instead of the runtime's own.
        """
        inner = current_run()
        entry = None
        if inner is not None:  # a call of an agent-implemented tool's inner run
            admitted = await inner.admit(request, approvals, approver, self._registry.resolve)
            if isinstance(admitted, ToolResult):
                return admitted
            request, approvals, approver, entry = admitted
        decisions = (
            Decisions(tuple(approvals), approver or self.approver)
            if approvals or approver is not None or self.approver is not None
            else NO_DECISIONS
        )
        result = await self._pipeline.execute(with_call_id(request), decisions)
        if entry is not None and inner is not None:  # recorded: a run started again reads it
            await inner.ran(entry, result)
        return result

    def execute_sync(
        self,
        request: ToolRequest,
        *,
        approvals: Iterable[ApprovalDecision] = (),
        approver: Approver | None = None,
    ) -> ToolResult:
        """:meth:`execute` for synchronous code (not from inside a running event loop).

        Each thread keeps one event loop for its calls, closed when the thread ends.
        """
        return run_sync(self.execute(request, approvals=approvals, approver=approver))

    @property
    def agent_journal(self) -> AgentJournal | None:
        """Where inner runs record their calls with side effects (see :meth:`journal_agent_runs`)."""
        return self._pipeline.agent_runs.journal

    def journal_agent_runs(self, journal: AgentJournal | None) -> None:
        """Record the calls with side effects that agent-implemented tools' inner runs make in
        ``journal``, under each outer call's stable id: a run started again (its process
        restarted while it waited for a person) is answered what they were answered instead of
        running them again. A Redis worker gives its runtime one on its server."""
        self._pipeline.agent_runs.journal = journal

    async def approval_for(self, request: ToolRequest) -> ApprovalRequest | None:
        """The approval this exact call would wait on, without running it: ``None`` when the
        tool has no ``Confirm``, the call is invalid (it would be answered as any other), or the
        design's ``when`` does not select it. What integrations ask before handing a call to
        their framework's own approval flow; the decision then goes to :meth:`execute`.

        It reads the call as sent: an interceptor that rewrites the arguments makes another
        call, which :meth:`execute` answers as awaiting its own approval. A call whose caller
        lacks the tool's ``Scopes`` waits on nothing: no person is asked about a call that
        :meth:`execute` refuses."""
        tool = self._registry.resolve(request.name)
        pipeline = self._pipeline
        if tool is not None and (tool.spec.scopes or pipeline.require_principal):
            principal, required = request.meta.principal, pipeline.require_principal
            if refused(tool.spec, principal, required=required) is not None:
                return None
        if tool is not None and tool.spec.agent is not None:  # its inner run's, if it waits
            return await self._waiting_inner(tool, request)
        if tool is None or tool.spec.confirm is None:
            return None
        injected = injected_values(tool, request.meta)
        try:
            decoded, _ = await decode(tool, request.payload, injected, self._pipeline.decoders)
        except ToolValidationError:
            return None
        return approval_request(tool, decoded.value, request.meta)

    async def _waiting_inner(
        self, tool: RegisteredTool, request: ToolRequest
    ) -> ApprovalRequest | None:
        """The approval the inner run of this exact call of an agent-implemented tool waits on."""
        injected = injected_values(tool, request.meta)
        try:
            decoded, _ = await decode(tool, request.payload, injected, self._pipeline.decoders)
        except ToolValidationError:
            return None
        return self._pipeline.agent_runs.waiting(run_key(tool.spec, decoded.value, request.meta))


__all__ = ["DEFAULT_WORKER_THREADS", "Runtime", "ToolsetInfo"]
