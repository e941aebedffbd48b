"""The runtime: executes tool calls and always answers with a :class:`ToolResult`.

One call goes through, in this order:

1. lookup by id or provider-facing name: an unknown name is answered ``tool_unavailable`` at
   once, before any interceptor runs (interceptors only ever see registered tools, by id);
2. the interceptors, the runtime's then the toolset's, each in registration order: each gets
   the request with its raw payload and may rewrite it (payload or metadata), answer without
   calling ``call_next``, or post-process what ``call_next`` returns;
3. at the end of the chain, with the request and metadata the last interceptor passed on:
   decoding with the generated codec, held to the tool's limits (→ a retry hint naming every
   bad field; large arguments are decoded off the event loop) and injection of hidden fields
   from the metadata, then the bound method or handler, the bounded-result contract, server
   data, encoding, and the result budget (what the model reads is cut or refused past it).

Nothing a model or a tool does makes ``execute`` raise. What still propagates is the
application's own control flow: ``KeyboardInterrupt``, ``GeneratorExit``, and the cancellation
of the task running ``execute``. A tool raising ``SystemExit`` (it must not end the agent) or a
``CancelledError`` of its own (a sub-task's, not its caller's) is an error result.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import difflib
import inspect
import logging
import re
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import pydantic
import pydantic_core
from tooldesign.contract.catalog import toolset_version
from tooldesign.contract.confirm import render_prompt
from tooldesign.jsonschema.text import clipped, compact_json, got, path_of, quoted, shown
from tooldesign.runtime.budget import within_budget
from tooldesign.runtime.control.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    approval_id,
    decision_for,
    find_decision,
)
from tooldesign.runtime.control.events import DEFAULT_MAX_QUEUED, EventBus, Subscriber, Subscription
from tooldesign.runtime.control.otel import Tracer, Tracing
from tooldesign.runtime.control.watch import CallWatch
from tooldesign.runtime.errors import (
    MAX_ISSUES,
    Constraint,
    FieldIssue,
    ToolError,
    ToolFailure,
    ToolValidationError,
)
from tooldesign.runtime.hints import RetryHint, example_line, invalid_payload_hint
from tooldesign.runtime.reasons import Recovery, RetryReason, recovery_for
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    Outcome,
    RegistrationError,
    ToolBinding,
    ToolsetRegistration,
)
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import (
    BoundedResultModel,
    Bounds,
    ServerDataItem,
    ToolResult,
    ToolTelemetry,
)
from tooldesign.runtime.spec.frozen import freeze
from tooldesign.runtime.spec.lazy_types import TypesImportError
from tooldesign.runtime.spec.limits import DEFAULT_LIMITS, Limits
from tooldesign.runtime.spec.specs import JsonSchema, ToolSpec
from tooldesign.runtime.validation.codecs import Decoded
from tooldesign.runtime.validation.examples import example_from_schema
from tooldesign.runtime.validation.repairs import AppliedRepair, decode_call
from tooldesign.runtime.workers import WorkerThreadInvoke

log = logging.getLogger("tooldesign.runtime")

DEFAULT_WORKER_THREADS = 64
"""Threads a runtime runs sync tools on, by default: tools mostly wait on I/O."""

_DECODER_THREADS = 2
"""Threads a runtime decodes large arguments on (the work is bounded by its limits)."""


@dataclass(frozen=True, slots=True)
class ToolsetInfo:
    service: str
    toolset: str
    tools: tuple[str, ...]
    remote: bool = False
    """Served by workers in other processes (a remote registration)."""
    live: bool | None = True
    """Whether it can take calls: always for a local toolset; for a remote one, whether a worker
    of its version was live when last seen (``None`` before the first look)."""


class _Link:
    """One interceptor in a chain: calling it runs the interceptor with the rest as ``call_next``."""

    __slots__ = ("interceptor", "rest")

    def __init__(self, interceptor: Interceptor, rest: CallNext) -> None:
        self.interceptor = interceptor
        self.rest = rest

    def __call__(self, request: ToolRequest, meta: ToolCallMeta) -> Any:
        return self.interceptor(request, meta, self.rest)


def _chain(interceptors: Sequence[Interceptor], last: CallNext) -> CallNext:
    call = last
    for interceptor in reversed(interceptors):
        call = _Link(interceptor, call)
    return call


class _Tool:
    """A registered tool with its precomposed call chain."""

    __slots__ = (
        "_cursor",
        "_version",
        "binding",
        "chain",
        "example",
        "example_line",
        "injected",
        "intercepted",
        "limits",
        "registration",
        "spec",
    )

    def __init__(
        self,
        binding: ToolBinding,
        registration: ToolsetRegistration,
        chain: CallNext,
        limits: Limits,
        *,
        intercepted: bool,
    ) -> None:
        self.binding = binding
        self.spec = binding.spec
        self.registration = registration
        self.injected = binding.spec.injected
        self.chain = chain
        self.intercepted = intercepted
        """Interceptors run before the tool (they see its calls by id)."""
        self._version: str | None = None
        # The runtime's limits, with those the tool's design sets over them.
        self.limits = limits.for_tool(binding.spec.limits)
        payload = binding.spec.payload
        # The design's Example(), else one built from the fields' own examples: frozen, so its
        # line in an invalid call's hint is written once.
        self.example = (
            payload.example
            if payload.example is not None
            else freeze(example_from_schema(payload.schema))
        )
        self.example_line = example_line(self.example)
        # The payload attribute that takes a paging cursor, by its wire name in the spec: looked
        # up on the first call that needs it ("" when there is none), as the payload's model is
        # imported only then.
        bounds = binding.spec.bounds
        self._cursor: str | None = None if bounds is not None and bounds.cursor_field else ""

    def gave_cursor(self, args: Any) -> bool:
        """Whether decoded arguments carry a paging cursor: the call asked for a later page."""
        if self._cursor is None:
            wire = self.spec.bounds.cursor_field if self.spec.bounds is not None else None
            fields = self.spec.payload.model.model_fields
            self._cursor = next(
                (attr for attr, info in fields.items() if (info.alias or attr) == wire), ""
            )
        return bool(self._cursor) and getattr(args, self._cursor, None) is not None

    def version(self) -> str:
        """The catalog version of the tool's toolset (what an approval is bound to)."""
        if self._version is None:
            self._version = toolset_version(b.spec for b in self.registration.tools)
        return self._version


_granted: contextvars.ContextVar[ApprovalDecision | None] = contextvars.ContextVar(
    "tooldesign_granted_approval", default=None
)


def granted_approval() -> ApprovalDecision | None:
    """The approval the running call was granted, if it needed one (remote registrations send
    it to the worker, whose runtime then runs the call without asking again)."""
    return _granted.get()


class Runtime:
    """Executes tool calls for the registered toolsets.

    ``expose`` lists exception types whose messages are safe to show the model (a not-found
    error, say); other exceptions reach the model as a generic failure and the logs in full.
    ``approver`` decides on calls that need a person's approval (``Confirm``) when the call
    brings no decision of its own; without one, such a call is answered awaiting approval.
    ``tracing`` sets how calls are traced with OpenTelemetry (see :class:`Tracing`).
    ``limits`` bound what one call may carry (arguments' size, nesting and arrays, the result a
    model reads); a tool's design may set its own (``Limits(...)`` in its ``Tool`` block).
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
    ) -> None:
        if worker_threads < 1:
            raise ValueError("worker_threads must be at least 1")
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        self.approver = approver
        self._events = EventBus()
        self._tracer = Tracer(tracing if tracing is not None else Tracing())
        self._interceptors = tuple(interceptors)
        self._expose = expose
        self._limits = limits
        self._registrations: dict[str, ToolsetRegistration] = {}
        self._tools: dict[str, _Tool] = {}  # by id and by provider-facing name
        self._near_names: dict[str, list[str]] | None = None
        self._listeners: list[Callable[[], None]] = []
        # Sync tools run here, not in the event loop's default executor: tools that hang hold
        # the runtime's threads only. Threads start when needed.
        self._workers = ThreadPoolExecutor(
            max_workers=worker_threads, thread_name_prefix="tooldesign-tool"
        )
        # Large arguments are decoded here, off the event loop, on threads of their own: tools
        # that hang cannot keep a call from being answered.
        self._decoders = ThreadPoolExecutor(
            max_workers=_DECODER_THREADS, thread_name_prefix="tooldesign-decode"
        )
        for registration in registrations:
            self.register(registration)

    # ── registrations ─────────────────────────────────────────────────────────────────────

    def register(self, registration: ToolsetRegistration) -> None:
        """Add a toolset. Its tool ids and names must not clash with registered ones."""
        if registration.key in self._registrations:
            raise RegistrationError(f"toolset {registration.key} is already registered")
        added: dict[str, _Tool] = {}
        for binding in registration.tools:
            for key in (binding.spec.id, binding.spec.name):
                other = self._tools.get(key) or added.get(key)
                if other is not None and other.spec.id != binding.spec.id:
                    raise RegistrationError(
                        f"tool name {binding.spec.name!r} of {binding.spec.id} clashes with {other.spec.id}: "
                        "models call tools by name, so names must be unique in a runtime"
                    )
            interceptors = (*self._interceptors, *registration.interceptors)
            chain = _chain(interceptors, self._core)
            if isinstance(binding.invoke, WorkerThreadInvoke):
                binding = replace(binding, invoke=binding.invoke.on(self._workers))
            tool = _Tool(binding, registration, chain, self._limits, intercepted=bool(interceptors))
            added[binding.spec.id] = added[binding.spec.name] = tool
        self._registrations[registration.key] = registration
        self._tools.update(added)
        self._changed()

    def unregister(self, service: str, toolset: str) -> None:
        registration = self._registrations.pop(f"{service}.{toolset}", None)
        if registration is None:
            return
        for binding in registration.tools:
            self._tools.pop(binding.spec.id, None)
            self._tools.pop(binding.spec.name, None)
        self._changed()

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` whenever toolsets are registered or removed. Returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _changed(self) -> None:
        self._near_names = None
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.exception("a registration listener failed")

    def subscribe(
        self, callback: Subscriber, *, max_queued: int = DEFAULT_MAX_QUEUED
    ) -> Subscription:
        """Deliver every call's events to ``callback`` (sync or async), on a thread of its own:
        started, progress, approval requested and decided, finished. A callback that raises or
        blocks never slows a call; past ``max_queued`` waiting events the oldest are dropped
        (counted in ``subscription.dropped``). ``subscription.close()`` ends it."""
        return self._events.subscribe(callback, max_queued=max_queued)

    # ── introspection ─────────────────────────────────────────────────────────────────────

    def toolsets(self) -> list[ToolsetInfo]:
        return [
            ToolsetInfo(
                r.service,
                r.toolset,
                tuple(b.spec.name for b in r.tools),
                remote=r.remote is not None,
                live=True if r.remote is None else r.remote.live(),
            )
            for r in self._registrations.values()
        ]

    def specs(self, toolset: str | None = None) -> list[ToolSpec[Any, Any]]:
        """Specs of every registered tool, or of one toolset (``"toolset"`` or ``"service.toolset"``)."""
        out: list[ToolSpec[Any, Any]] = []
        for registration in self._registrations.values():
            if toolset is None or toolset in (registration.toolset, registration.key):
                out.extend(b.spec for b in registration.tools)
        return out

    def load_models(self, toolset: str | None = None) -> None:
        """Import the generated models of every registered toolset (or of one) now, rather than
        on each toolset's first call: for a process that would rather pay, and fail, at start.

        Raises :class:`TypesImportError` naming the first toolset whose models cannot be
        imported.
        """
        for spec in self.specs(toolset):
            _ = spec.payload.model, spec.result.model
            for data in spec.server_data:
                _ = data.model

    def spec(self, name: str) -> ToolSpec[Any, Any] | None:
        """The spec of a tool by id or provider-facing name."""
        tool = self._tools.get(name)
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
        """Run one call. Never raises for anything a model or a tool does (see the module doc).

        ``approvals`` are decisions already made on calls that need approval (a call runs when
        one of them is for exactly this call, and is refused when it denies it); ``approver``
        decides for this call instead of the runtime's own.
        """
        started = time.perf_counter()
        meta = request.meta
        try:
            tool = self._tools.get(request.name)
        except TypeError:  # a name that is not even hashable (a list)
            tool = None
        if tool is None:
            result = self._unavailable(request.name)
            watch = None
        else:
            if tool.intercepted and request.name != tool.spec.id:  # interceptors see ids
                request = ToolRequest(tool.spec.id, request.payload, meta)
            watch = CallWatch.start(self._events, self._tracer, tool.spec, request)
            try:
                if tool.spec.confirm is None:
                    result = await self._run(tool, request)
                else:
                    result = await self._run_approved(tool, request, approvals, approver, watch)
            except BaseException:
                if watch is not None:
                    watch.abort()
                raise
        result.telemetry.duration_ms = (time.perf_counter() - started) * 1000
        if result.tool_call_id is None:
            result.tool_call_id = meta.tool_call_id
        if result.error is not None and result.recovery is None and not result.awaiting_approval:
            hint = result.retry_hint
            result.recovery = recovery_for(hint.reason if hint is not None else None)
        if watch is not None:
            watch.finish(result)
        return result

    async def _run(self, tool: _Tool, request: ToolRequest) -> ToolResult:
        """The call through its interceptors to the tool, answered whatever they do."""
        try:
            result = await tool.chain(request, request.meta)
            if not isinstance(result, ToolResult):
                raise TypeError(
                    f"an interceptor answered with {type(result).__name__}, not a ToolResult"
                )
        except BaseException as exc:  # an interceptor's bug: still an answer, never a crash
            if _propagates(exc):
                raise
            log.exception("interceptor failed for %s", tool.spec.id)
            result = ToolResult.failure(
                tool.spec.id, "The tool call failed inside the runtime.", cause=exc
            )
            result.telemetry.outcome = "error"
        # A result an interceptor or a handler made itself says nothing of its outcome.
        if result.telemetry.outcome == "pending":
            result.settle_outcome()
        return result

    # ── approvals ─────────────────────────────────────────────────────────────────────────

    async def _run_approved(
        self,
        tool: _Tool,
        request: ToolRequest,
        approvals: Iterable[ApprovalDecision],
        approver: Approver | None,
        watch: CallWatch | None,
    ) -> ToolResult:
        """A call of a ``Confirm`` tool: decoded first (an invalid one is answered as any
        other, and never reaches a person), then run, refused or left awaiting a decision."""
        approval = await self._approval_request(tool, request)
        if approval is None:  # invalid, or not a call the condition selects
            return await self._run(tool, request)
        decision = find_decision(approvals, approval)
        if decision is None:
            if watch is not None:
                watch.requested(approval)
            decision = await self._ask(approver or self.approver, approval, request.meta)
        if decision is None:
            return _awaiting(tool.spec, approval)
        if watch is not None:
            watch.decided(approval, decision)
        log.info(
            "call %s of %s %s by %s",
            approval.id,
            tool.spec.id,
            "approved" if decision.granted else "denied",
            decision.by or "an approver",
        )
        if not decision.granted:
            return _denied(tool.spec, approval, decision)
        token = _granted.set(decision)
        try:
            result = await self._run(tool, request)
        finally:
            _granted.reset(token)
        result.approval = approval
        result.telemetry.approval = decision
        return result

    async def approval_for(self, request: ToolRequest) -> ApprovalRequest | None:
        """The approval this exact call would wait on, without running it: ``None`` when the
        tool has no ``Confirm``, the call is invalid (it would be answered as any other), or the
        design's ``when`` does not select it. What integrations ask before handing a call to
        their framework's own approval flow; the decision then goes to :meth:`execute`."""
        try:
            tool = self._tools.get(request.name)
        except TypeError:  # a name that is not even hashable
            return None
        if tool is None or tool.spec.confirm is None:
            return None
        return await self._approval_request(tool, request)

    async def _approval_request(self, tool: _Tool, request: ToolRequest) -> ApprovalRequest | None:
        confirm = tool.spec.confirm
        assert confirm is not None
        meta = request.meta
        injected = {n: v for n in tool.injected if (v := meta.value_for(n)) is not None}
        try:
            decoded = await self._decode(tool, request.payload, injected)
        except ToolValidationError:
            return None
        full = decoded[0].value.model_dump(mode="json", by_alias=True)
        if not confirm.applies(full):
            return None
        arguments = {k: v for k, v in full.items() if k not in tool.injected and v is not None}
        version = tool.version()
        return ApprovalRequest(
            id=approval_id(version, tool.spec.id, arguments),
            tool=tool.spec.name,
            tool_id=tool.spec.id,
            prompt=render_prompt(confirm.prompt, arguments),
            arguments=arguments,
            version=version,
            tool_call_id=meta.tool_call_id,
            session_id=meta.session_id,
            run_id=meta.run_id,
        )

    async def _ask(
        self, approver: Approver | None, request: ApprovalRequest, meta: ToolCallMeta
    ) -> ApprovalDecision | None:
        """The approver's decision (``None``: no approver, no answer, or it failed)."""
        if approver is None:
            return None
        try:
            if inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(
                getattr(approver, "__call__", None)  # noqa: B004 - an object with an async __call__
            ):
                answer = await approver(request, meta)  # type: ignore[misc]
            else:
                # A sync approver may wait for a person: in a worker thread, not the event loop.
                context = contextvars.copy_context()
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(
                    self._workers, context.run, approver, request, meta
                )
                if inspect.isawaitable(answer):
                    answer = await answer
        except Exception:  # the call stays undecided: it can still be decided out of band
            log.exception("the approver failed on call %s of %s", request.id, request.tool_id)
            return None
        decision = decision_for(request, answer, by=None)
        if decision is None and answer is not None:
            log.error(
                "the approver answered %s for call %s; expected a decision on that call, "
                "True, False or None",
                shown(answer),
                request.id,
            )
        return decision

    def _decode(
        self, tool: _Tool, payload: Any, injected: Mapping[str, Any]
    ) -> Coroutine[Any, Any, tuple[Decoded[Any], tuple[AppliedRepair, ...]]]:
        """The payload decoded within the tool's limits, on the runtime's decoding threads when
        large, repaired if the design allows it (see :func:`decode_call`). Awaited by the
        caller: no coroutine of its own for a bad call's error to pass through."""
        return decode_call(
            tool.binding.payload,
            tool.spec,
            payload,
            injected=injected,
            limits=tool.limits,
            executor=self._decoders,
        )

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
        # asyncio's own check, without raising for the usual answer (no loop): every call pays it.
        if asyncio._get_running_loop() is not None:
            raise RuntimeError(
                "execute_sync cannot run inside a running event loop; await execute() instead"
            )
        loop: _ThreadLoop | None = getattr(_thread_loops, "loop", None)
        if loop is None:
            loop = _thread_loops.loop = _ThreadLoop()
        # In the caller's context: its current span, its progress listeners.
        return loop.run(
            self.execute(request, approvals=approvals, approver=approver),
            contextvars.copy_context(),
        )

    def _unavailable(self, name: object) -> ToolResult:
        names = sorted({t.spec.name for t in self._tools.values()})
        listed = ", ".join(names) or "none"
        close: list[str] = []
        if isinstance(name, str):
            label = clipped(name, _MAX_NAME_SHOWN)
            message = f"There is no tool named {quoted(name)}."
            close = self._near_misses(name)
            if close:
                message += f" Did you mean {' or '.join(quoted(c) for c in close)}?"
        else:  # the caller's bug (a provider adapter's, say), shown safely all the same
            label = shown(name)
            message = f"A tool name must be text, got {got(name)}."
        message += f" Available tools: {listed}."
        hint = RetryHint(
            RetryReason.TOOL_UNAVAILABLE,
            label,
            message,
            valid_tools=tuple(names),
            suggested_tools=tuple(close),
        )
        result = ToolResult(
            label, error=ToolError(f"unknown tool {quoted(label)}"), retry_hint=hint
        )
        result.telemetry.outcome = str(RetryReason.TOOL_UNAVAILABLE)
        # No interceptor sees an unknown name (LogCalls included): the runtime logs it.
        log.warning("no tool named %s; answered tool_unavailable", quoted(label))
        return result

    def _near_misses(self, name: str) -> list[str]:
        """Tool names ``name`` was probably meant as: the same but for case, spacing, ``-`` for
        ``_``, a prefix or call parentheses; else the closest spellings."""
        if len(name) > _MAX_NAME_SHOWN:
            return []
        if self._near_names is None:
            index: dict[str, list[str]] = {}
            for spec_name in sorted({t.spec.name for t in self._tools.values()}):
                index.setdefault(_plain_name(spec_name), []).append(spec_name)
            self._near_names = index
        plain = _plain_name(name)
        same = self._near_names.get(plain)
        if same:
            return same[:3]
        close = difflib.get_close_matches(plain, self._near_names, n=3, cutoff=0.8)
        return [spec_name for key in close for spec_name in self._near_names[key]][:3]

    async def _core(self, request: ToolRequest, meta: ToolCallMeta) -> ToolResult:
        tool = self._tools.get(request.name)
        if tool is None:  # renamed by an interceptor, or unregistered while the call waited
            return self._unavailable(request.name)
        spec = tool.spec
        binding = tool.binding
        telemetry = ToolTelemetry()
        # 2-3. Decode with the generated codec; fill injected fields from the metadata (a value
        # the model sent for one is discarded and recorded).
        injected = (
            {name: value for name in tool.injected if (value := meta.value_for(name)) is not None}
            if tool.injected
            else {}
        )
        try:
            decoded, telemetry.repairs = await self._decode(tool, request.payload, injected)
        except ToolValidationError as error:
            return self._invalid(spec, tool, error, injected, telemetry)
        except TypesImportError as error:
            # The application's models are broken, not the model's call: logged in full.
            log.exception("tool %s cannot run: its models could not be imported", spec.id)
            message = (
                f"Tool {spec.name!r} is unavailable: the application could not load it. This "
                "is not a problem with your arguments; do not retry this call."
            )
            return self._failed(spec, message, error, telemetry)
        telemetry.discarded_injected = decoded.discarded_injected
        # 5. Call the bound method or the handler.
        try:
            outcome = await binding.invoke(decoded.value, meta)
        except ToolFailure as failure:
            failed = self._failed(
                spec, failure.message, failure, telemetry, failure.clarifying_question
            )
            if failure.recovery is not None:
                failed.recovery = Recovery(failure.recovery)
            return failed
        except BaseException as exc:
            if _propagates(exc):
                raise
            if isinstance(exc, self._expose):
                return self._failed(spec, str(exc), exc, telemetry)
            log.exception("tool %s raised", spec.id)
            message = f"Tool {spec.name!r} failed with an internal error. Try again later or use another tool."
            return self._failed(spec, message, exc, telemetry)
        # A call that pages past the end honestly returns nothing of a non-empty total.
        paged = tool.gave_cursor(decoded.value)
        result = self._finish(spec, binding, outcome, meta, telemetry, paged=paged)
        # 9. What the model reads stays within the tool's result budget.
        if result.error is None:
            result = within_budget(result, tool.limits.result_bytes, spec.name)
        return result

    def _invalid(
        self,
        spec: ToolSpec[Any, Any],
        tool: _Tool,
        error: ToolValidationError,
        injected: Mapping[str, Any],
        telemetry: ToolTelemetry,
    ) -> ToolResult:
        # The model hears of its own fields only, not of injected ones (the application's).
        mine = (
            [i for i in error.issues if _top_field(i) not in tool.injected]
            if tool.injected
            else error.issues
        )
        if mine:
            reported = (
                error
                if len(mine) == len(error.issues)
                else ToolValidationError(error.tool, mine, input=error.input, more=error.more)
            )
            hint = invalid_payload_hint(reported, tool.example, tool.example_line)
            telemetry.outcome = str(hint.reason)
            return ToolResult(
                spec.id,
                error=ToolError(f"invalid arguments for {spec.name!r}"),
                retry_hint=hint,
                telemetry=telemetry,
            )
        # Only injected fields are wrong: the caller's metadata, not the model, must change.
        missing = sorted({_top_field(i) for i in error.issues} - set(injected))
        detail = (
            f"no value for injected field(s) {', '.join(missing)} in the call's metadata"
            if missing
            else "the call's metadata gives invalid values for injected fields"
        )
        log.error("tool %s cannot run: %s", spec.id, detail)
        telemetry.outcome = "missing_injected" if missing else "invalid_injected"
        # Injected fields are hidden from the model, and it cannot supply them: the text names
        # neither them nor their values; the details (for the application) do.
        message = (
            f"Tool {spec.name!r} cannot run in this context: the application did not provide what "
            "it needs. This is not a problem with your arguments; do not retry this call."
        )
        wrong = sorted({_top_field(i) for i in error.issues})
        return ToolResult(
            spec.id,
            error=ToolError(message, details={"problem": detail, "fields": missing or wrong}),
            telemetry=telemetry,
        )

    def _failed(
        self,
        spec: ToolSpec[Any, Any],
        message: str,
        cause: BaseException,
        telemetry: ToolTelemetry,
        question: str | None = None,
    ) -> ToolResult:
        telemetry.outcome = "error"
        hint = None
        if question:
            # The hint's message is what the model reads: the question goes in it.
            hint = RetryHint(
                RetryReason.INVALID_ARGUMENTS,
                spec.name,
                f"{message}\nBefore calling {spec.name!r} again, ask the user: {question}",
                clarifying_question=question,
            )
        return ToolResult(
            spec.id, error=ToolError(message, cause=cause), retry_hint=hint, telemetry=telemetry
        )

    def _finish(
        self,
        spec: ToolSpec[Any, Any],
        binding: ToolBinding,
        outcome: Outcome,
        meta: ToolCallMeta,
        telemetry: ToolTelemetry,
        *,
        paged: bool = False,
    ) -> ToolResult:
        value = outcome.value
        extra: tuple[ServerDataItem, ...] = ()
        if outcome.convert is not None:
            try:
                value = outcome.convert(value)
            # The method returned what its tool's result type rejects (_malformed logs it).
            except Exception as exc:  # noqa: BLE001
                issues = _result_issues(binding, value) or _conversion_issues(exc)
                method = f"the result of {outcome.method or 'the bound method'}"
                problem = (
                    f"{method} breaks the tool's result type"
                    if issues
                    else f"{method} cannot become the tool's result ({type(exc).__name__})"
                )
                return self._malformed(spec, problem, issues, telemetry, cause=exc)
        if isinstance(value, ToolResult):  # a handler answering with a full result
            if not value.ok:
                value.name = spec.id
                value.telemetry = telemetry
                telemetry.outcome = str(value.retry_hint.reason) if value.retry_hint else "error"
                return value
            extra = value.server_data
            value = value.result
        try:
            result = binding.result.coerce(value)
        except ToolValidationError as error:
            method = f"the result of {outcome.method}" if outcome.method else "the result"
            problem = f"{method} does not match the tool's result type"
            return self._malformed(spec, problem, error.issues, telemetry)
        bounds = None
        # 6. The bounded-result contract.
        if isinstance(result, BoundedResultModel):
            bounds = result.result_bounds()
            problems = bounds_problems(bounds, paged=paged)
            if problems:
                return self._malformed(spec, "; ".join(problems), (), telemetry)
        # 7. Server data: validated, and only the kinds that are on for this call.
        server_data = self._server_data(spec, outcome.server_data, extra, meta, telemetry)
        # 8. Encode.
        try:
            encoded = binding.result.encode(result)
        # A value JSON cannot carry (in a field typed Any, say); _malformed logs it.
        except Exception as exc:  # noqa: BLE001
            problem = f"the result cannot be encoded as JSON ({type(exc).__name__})"
            return self._malformed(spec, problem, (), telemetry, cause=exc)
        telemetry.outcome = "ok"
        return ToolResult(
            spec.id,
            result=result,
            bounds=bounds,
            server_data=server_data,
            telemetry=telemetry,
            result_json=encoded,
        )

    def _malformed(
        self,
        spec: ToolSpec[Any, Any],
        problem: str,
        issues: Sequence[FieldIssue],
        telemetry: ToolTelemetry,
        *,
        cause: BaseException | None = None,
    ) -> ToolResult:
        described = [issue.describe() for issue in issues]
        log.error(
            "tool %s returned a malformed response (a bug in the tool): %s",
            spec.id,
            f"{problem}: {'; '.join(described)}" if described else problem,
            exc_info=cause,
        )
        telemetry.outcome = str(RetryReason.MALFORMED_RESPONSE)
        message = (
            f"Tool {spec.name!r} returned a malformed response. The problem is in the tool, not in your "
            "arguments; try again later or use another tool."
        )
        # The hint is the model's, and travels: nothing of the tool's values goes in it. What
        # is wrong (fields and values, cut short) is for the application, in the error.
        hint = RetryHint(RetryReason.MALFORMED_RESPONSE, spec.name, message)
        details: dict[str, Any] = {"problem": problem}
        if described:
            details["issues"] = described
        return ToolResult(
            spec.id,
            error=ToolError(message, cause=cause, details=details),
            retry_hint=hint,
            telemetry=telemetry,
        )

    def _server_data(
        self,
        spec: ToolSpec[Any, Any],
        produced: Mapping[str, Callable[[], Any]],
        extra: tuple[ServerDataItem, ...],
        meta: ToolCallMeta,
        telemetry: ToolTelemetry,
    ) -> tuple[ServerDataItem, ...]:
        if not spec.server_data:
            if extra:
                log.warning("tool %s returned server data it does not declare; dropped", spec.id)
            return ()
        given = {item.kind: item.data for item in extra}
        unknown = set(given) - {s.kind for s in spec.server_data}
        if unknown:
            log.warning(
                "tool %s returned undeclared server data %s; dropped", spec.id, sorted(unknown)
            )
        items: list[ServerDataItem] = []
        dropped: list[str] = []
        for kind in spec.server_data:
            if not meta.server_data.get(kind.kind, kind.default == "on"):
                continue
            try:
                value = produced[kind.kind]() if kind.kind in produced else given.get(kind.kind)
                if value is None:
                    continue
                data = value if isinstance(value, kind.model) else kind.model.model_validate(value)
            except Exception:  # server data is for observers: a bad one is dropped, not the call
                log.exception(
                    "tool %s produced invalid server data %r; dropped", spec.id, kind.kind
                )
                dropped.append(kind.kind)
                continue
            items.append(ServerDataItem(kind.kind, data))
        if dropped:
            telemetry.extra["dropped_server_data"] = dropped
        return tuple(items)


def _awaiting(spec: ToolSpec[Any, Any], approval: ApprovalRequest) -> ToolResult:
    result = ToolResult(
        spec.id,
        error=ToolError(
            f"{spec.name!r} awaits a person's approval", details={"approval": approval.id}
        ),
        approval=approval,
    )
    result.telemetry.outcome = "awaiting_approval"
    return result


def _denied(
    spec: ToolSpec[Any, Any], approval: ApprovalRequest, decision: ApprovalDecision
) -> ToolResult:
    assert spec.confirm is not None
    message = spec.confirm.denied
    if decision.reason:
        message += f" They said: {compact_json(clipped(decision.reason, 500))}"
    result = ToolResult(
        spec.id,
        error=ToolError(message, details={"approval": approval.id}),
        approval=approval,
        recovery=Recovery.REPLAN,
    )
    result.telemetry.outcome = "approval_denied"
    result.telemetry.approval = decision
    return result


def bounds_problems(bounds: Bounds, *, paged: bool = False) -> list[str]:
    """How ``bounds`` breaks the bounded-result contract (empty when it keeps it).

    ``paged`` says the call asked for a page after the first (it gave a cursor): nothing
    returned is then an honest last page whatever the total, not a broken count.
    """
    problems: list[str] = []
    if not isinstance(bounds.returned, int) or bounds.returned < 0:
        problems.append(f"returned must be a count, got {bounds.returned!r}")
        return problems
    if bounds.total is not None and bounds.total < bounds.returned:
        problems.append(f"total ({bounds.total}) is less than returned ({bounds.returned})")
    if bounds.returned == 0:
        if bounds.total != 0 and not paged:
            problems.append(f"nothing was returned, so total must be 0 (got {bounds.total!r})")
        if bounds.truncated:
            problems.append("nothing was returned, so the result cannot be truncated")
    if bounds.truncated and not (bounds.refinement_hint or bounds.next_cursor):
        problems.append("a truncated result must carry a refinement_hint or a next cursor")
    return problems


def _result_issues(binding: ToolBinding, returned: Any) -> tuple[FieldIssue, ...]:
    """Which fields of a method's result the tool's result type rejects, by path.

    The transform stops at the first nested value that fails; validating the whole result as
    plain JSON data names every bad field with its full path (``devices[0].id``). Fields the
    transform leaves out are not the tool's concern, so unknown-field issues are dropped.
    """
    try:
        binding.result.coerce(pydantic_core.to_jsonable_python(returned))
    except ToolValidationError as error:
        return tuple(i for i in error.issues if i.constraint is not Constraint.UNKNOWN_FIELD)
    except Exception:  # noqa: BLE001 - only an explanation is at stake; the log has the cause
        return ()
    return ()


def _conversion_issues(exc: Exception) -> tuple[FieldIssue, ...]:
    """The fields a result transform refused, from its own validation error: each relative to
    the tool type it was building (``TopologyNode.role``), where the method's result cannot be
    read as JSON to name them from the root."""
    if not isinstance(exc, pydantic.ValidationError):
        return ()
    issues = []
    for error in exc.errors(include_url=False)[:MAX_ISSUES]:
        field = path_of((exc.title, *error["loc"]))
        message = f"{error['msg']} (got {shown(error.get('input'))})"
        issues.append(FieldIssue(field, Constraint.INVALID_FIELD_TYPE, message))
    return tuple(issues)


def _propagates(exc: BaseException) -> bool:
    """Whether ``exc`` is the application's control flow rather than a tool's failure.

    ``Exception`` and ``SystemExit`` are failures (a tool must not end the agent). A
    ``CancelledError`` is the caller cancelling only while the task running the call is being
    cancelled (``Task.cancelling()``, which is how ``asyncio.timeout`` and ``Timeout`` stop a
    call); otherwise it escaped from a task the tool itself ran. ``KeyboardInterrupt``,
    ``GeneratorExit`` and other ``BaseException``s are not failures: they propagate.
    """
    if isinstance(exc, asyncio.CancelledError):
        return _being_cancelled()
    return not isinstance(exc, Exception | SystemExit)


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is None or task.cancelling() > 0


_MAX_NAME_SHOWN = 80


def _plain_name(name: str) -> str:
    """A tool name reduced to what a near miss keeps: ``Devices.List-Devices()`` → ``list_devices``."""
    name = name.strip().removesuffix("()").rsplit(".", 1)[-1]
    return _SEPARATORS.sub("_", name.strip().lower())


_SEPARATORS = re.compile(r"[\s\-]+")


class _ThreadLoop:
    """One thread's event loop for ``execute_sync``, closed when the thread ends.

    Held in a thread-local: when the thread ends, the thread-local drops it and the loop is
    closed then, instead of holding its file descriptors until garbage collection warns.
    """

    __slots__ = ("runner",)

    def __init__(self) -> None:
        self.runner = asyncio.Runner()

    def run(
        self, call: Coroutine[Any, Any, ToolResult], context: contextvars.Context
    ) -> ToolResult:
        """``call`` run to its end on this thread's loop.

        Not through ``Runner.run``: in the main thread it swaps the SIGINT handler on every
        call, and a call costs several times what it runs. An interruption (Ctrl-C) cancels
        the call and waits for it to end, so nothing is left pending on the loop.
        """
        loop = self.runner.get_loop()
        task = loop.create_task(call, context=context)
        try:
            return loop.run_until_complete(task)
        except BaseException:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_until_complete(task)
            raise

    def __del__(self) -> None:
        try:
            loop = self.runner.get_loop()
        except RuntimeError:  # never initialised, or closed
            return
        if loop.is_running() or loop.is_closed():
            return
        # Closing only: nothing is pending between calls, and running the loop here (the
        # ending thread, or whoever collects) could block. The default executor is shut down
        # without waiting.
        loop.close()


_thread_loops = threading.local()


def _top_field(issue: FieldIssue) -> str:
    return issue.field.split(".", 1)[0].split("[", 1)[0]


__all__ = [
    "DEFAULT_WORKER_THREADS",
    "Runtime",
    "ToolsetInfo",
    "bounds_problems",
    "granted_approval",
]
