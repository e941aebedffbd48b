"""The call pipeline: what happens to one call, in the order that defines what it means.

    1. resolve       the tool, by id or provider-facing name; an unknown name is answered at
                     once, before any interceptor (interceptors see registered tools, by id)
    2. observe       the call's span and ``CallStarted`` (only when someone listens)
    2b. scopes       a caller whose verified principal lacks one of the tool's ``Scopes`` is
                     refused (see :mod:`.scopes`), before any interceptor reads the call
    3. interceptors  the runtime's, then the toolset's, in registration order: each may rewrite
                     the request (its raw payload, its metadata), answer it without going on,
                     or post-process the answer; at the end of the chain, on the request as
                     the last one passed it on:
    4. decode        the arguments, within the tool's limits, with the design's repairs (under
                     the same limits), injected fields filled from the metadata
    5. approve       a ``Confirm`` tool's exact decoded arguments: run, refused, or waiting
    6. run           the bound method or the handler
    7. check result  the result type, the bounded-result contract, server data, encoding
    8. budget        what the model reads, cut (text) or refused (data) past the result budget
    9. answer        recovery, timing, the call's id; the span ends; ``CallFinished``, last;
                     the audit sink gets its record (see :mod:`.control.audit`)

Where two features meet, this order decides it, here and nowhere else:
- interceptors run before decoding and approval, so what a person approves is exactly what
  runs: an interceptor that rewrites the arguments rewrites what is approved, and a call waiting
  for approval has been through every interceptor (``LogCalls`` logs it);
- repairs run inside decoding, under the limits the payload is held to;
- a person's time is not the tool's: while an approver waits, ``Timeout`` clocks stop;
- a failure at any step is answered by :mod:`.answers`, and still ends with step 9.

Nothing a model or a tool does makes ``execute`` raise (see :mod:`.invoke` for what propagates).
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial
from typing import Any

from tooldesign.runtime import answers
from tooldesign.runtime.agents import OuterCall, ParkedRuns, run_as_outer
from tooldesign.runtime.approval import (
    NO_DECISIONS,
    Decisions,
    approve,
    granted_run,
    once,
    run_answer,
)
from tooldesign.runtime.arguments import injected_values, invalid, models_unavailable
from tooldesign.runtime.budget import READ_RESULT, Spills, budgeted, within_budget
from tooldesign.runtime.control.approved_runs import ApprovedRuns
from tooldesign.runtime.control.audit import AuditSink, audit_call
from tooldesign.runtime.control.events import EventBus
from tooldesign.runtime.control.interceptors import answered_by_timeout
from tooldesign.runtime.control.otel import Tracer
from tooldesign.runtime.control.watch import CallWatch
from tooldesign.runtime.errors import ToolValidationError
from tooldesign.runtime.invoke import failed, propagates
from tooldesign.runtime.reasons import recovery_for
from tooldesign.runtime.registration import Interceptor
from tooldesign.runtime.registry import RegisteredTool, Registry
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult, ToolTelemetry
from tooldesign.runtime.result_check import check_result
from tooldesign.runtime.scopes import refused
from tooldesign.runtime.spec.lazy_types import TypesImportError
from tooldesign.runtime.spec.limits import Limits
from tooldesign.runtime.validation.repairs import decode_call, decoded_at_once

log = logging.getLogger("tooldesign.runtime")


@dataclass(frozen=True, slots=True)
class _Call:
    """What the steps at the end of the chain need of the call that entered the pipeline."""

    decisions: Decisions
    watch: CallWatch | None


_NO_CALL = _Call(Decisions(), None)

_current: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "tooldesign_call", default=None
)


def call_decisions() -> Decisions:
    """The decisions the running call was given: a tool that makes calls of its own (code
    mode) passes them on, so that a decision given for an inner call reaches it."""
    call = _current.get()
    return call.decisions if call is not None else NO_DECISIONS


class Pipeline:
    """The steps, and what they run with (a :class:`~tooldesign.runtime.Runtime` builds one).

    ``workers`` run sync tools; ``decoders`` decode large arguments, off the event loop;
    ``approvers`` are where sync approvers wait for a person, apart from the tools' threads.
    """

    def __init__(
        self,
        *,
        interceptors: Sequence[Interceptor],
        limits: Limits,
        expose: tuple[type[BaseException], ...],
        events: EventBus,
        tracer: Tracer,
        workers: Executor,
        decoders: Executor,
        approvers: Executor,
        spills: Spills,
        audit: AuditSink | None = None,
        require_principal: bool = False,
    ) -> None:
        self.spills = spills
        self.audit = audit
        self.require_principal = require_principal
        self.registry = Registry(
            interceptors=interceptors,
            end_of_chain=self.end_of_chain,
            limits=limits,
            workers=workers,
        )
        self.expose = expose
        self.events = events
        self.tracer = tracer
        self.decoders = decoders
        self.approvers = approvers
        self.approved_runs = ApprovedRuns()
        self.agent_runs = ParkedRuns()
        self.runtime: Any = None
        """The runtime this pipeline is (set by it): agent-implemented tools run inner calls."""

    async def execute(self, request: ToolRequest, decisions: Decisions) -> ToolResult:
        """One call through every step, answered whatever happens."""
        started = time.perf_counter()
        tool = self.registry.resolve(request.name)  # 1. resolve
        if tool is None:
            unknown = self.registry.unknown(request.name)
            return self._audited(request, request.name, _answered(unknown, request.meta, started))
        if tool.intercepted and request.name != tool.spec.id:  # interceptors see ids
            request = ToolRequest(tool.spec.id, request.payload, request.meta)
        watch = CallWatch.start(self.events, self.tracer, tool.spec, request)  # 2. observe
        if tool.spec.scopes or self.require_principal:  # 2b. scopes
            refusal = refused(tool.spec, request.meta.principal, required=self.require_principal)
            if refusal is not None:
                answer = _answered(refusal, request.meta, started, watch)
                return self._audited(request, tool.spec.id, answer)
        # What the end of the chain needs of this call (a call made inside another's run must
        # not see the outer call's decisions or observers).
        call = None if decisions is NO_DECISIONS and watch is None else _Call(decisions, watch)
        token = _current.set(call) if call is not None or _current.get() is not None else None
        try:
            result = await tool.chain(request, request.meta)  # 3. interceptors, then 4 to 8
            if not isinstance(result, ToolResult):
                kind = type(result).__name__
                result = _interceptor_failed(
                    tool, TypeError(f"an interceptor answered with {kind}")
                )
        except BaseException as exc:
            if propagates(exc):  # the call is cancelled: it still finishes, for its observers
                if watch is not None:
                    watch.abort((time.perf_counter() - started) * 1000)
                if self.audit is not None:
                    aborted = answers.cancelled(tool.spec.id, started=True)
                    self._audited(request, tool.spec.id, _answered(aborted, request.meta, started))
                raise
            result = _interceptor_failed(tool, exc)  # an interceptor's bug: still an answer
        finally:
            if token is not None:
                _current.reset(token)
        return self._audited(request, tool.spec.id, _answered(result, request.meta, started, watch))

    def _audited(self, request: ToolRequest, tool: str, result: ToolResult) -> ToolResult:
        """Step 9's last act: the call's audit record, when the runtime keeps a trail."""
        if self.audit is not None:
            audit_call(self.audit, request, tool, result)
        return result

    async def end_of_chain(self, request: ToolRequest, meta: ToolCallMeta) -> ToolResult:
        """Steps 4 to 8, on the request and metadata the last interceptor passed on."""
        tool = self.registry.resolve(request.name)
        if tool is None:  # renamed by an interceptor, or unregistered while the call waited
            return self.registry.unknown(request.name)
        telemetry = ToolTelemetry()
        injected = injected_values(tool, meta)
        codec, payload = tool.binding.payload, request.payload
        try:  # 4. decode
            at_once = decoded_at_once(
                codec, tool.spec, payload, injected=injected, limits=tool.limits
            )
            decoded, telemetry.repairs = at_once or await decode_call(
                codec,
                tool.spec,
                payload,
                injected=injected,
                limits=tool.limits,
                executor=self.decoders,
            )
        except ToolValidationError as error:
            return _with_telemetry(invalid(tool, error, injected), telemetry)
        except TypesImportError as error:
            return _with_telemetry(models_unavailable(tool, error), telemetry)
        telemetry.discarded_injected = decoded.discarded_injected
        if tool.spec.confirm is not None:  # 5. approve
            return await self._approved(tool, request, decoded.value, meta, telemetry)
        return await self._run_and_check(tool, request, decoded.value, meta, telemetry)  # 6-8

    async def _approved(
        self,
        tool: RegisteredTool,
        request: ToolRequest,
        args: Any,
        meta: ToolCallMeta,
        telemetry: ToolTelemetry,
    ) -> ToolResult:
        """Step 5, then steps 6 to 8 under the decision (recorded: it unlocks one run)."""
        call = _current.get() or _NO_CALL
        approved = await approve(
            tool, args, meta, call.decisions, call.watch, self.approvers, self.approved_runs
        )
        if isinstance(approved, ToolResult):  # refused, waiting, or the answer of its one run
            return _with_telemetry(approved, telemetry)
        if approved is None:  # not a call the design's condition selects
            return await self._run_and_check(tool, request, args, meta, telemetry)
        decision, runs, call_id = approved[1], self.approved_runs, meta.stable_id()
        going = runs.begin(decision, once(tool, decision), call_id)  # copies wait for it
        if going is not None:  # a copy began this very call meanwhile: its run's answer
            answer = await run_answer(runs, going, decision.id, call_id, tool.spec.id)
            return _with_telemetry(answer, telemetry)
        try:
            run_and_check = self._run_and_check(tool, request, args, meta, telemetry)
            result = await granted_run(decision, run_and_check)
        except BaseException:
            # Stopped midway: by a Timeout, its answer is the run's (copies get it too).
            settle = partial(runs.settle, decision, once(tool, decision), call_id)
            if not answered_by_timeout(settle):
                runs.abandon(decision, call_id)
            raise
        result.approval, result.telemetry.approval = approved
        runs.record(decision, once(tool, decision), call_id, result)
        return result

    async def _run_and_check(
        self,
        tool: RegisteredTool,
        request: ToolRequest,
        args: Any,
        meta: ToolCallMeta,
        telemetry: ToolTelemetry,
    ) -> ToolResult:
        """Steps 6 to 8. A remote toolset's workers run and check the call under their own
        budget; this runtime's budget still decides what its model reads."""
        remote = tool.registration.remote
        if remote is not None:
            result = await remote.run(tool.spec.id, request, meta)
            if result.error is not None:
                return result
            return await self._budgeted(tool, result, meta)  # 8. budget
        try:  # 6. run (an agent-implemented tool's inner run, with the outer call's context)
            if tool.spec.agent is not None:
                call = _current.get() or _NO_CALL
                outer = OuterCall(call.decisions, self.runtime, self.agent_runs)
                outcome = await run_as_outer(outer, lambda: tool.binding.invoke(args, meta))
                stopped = outcome.value
                if isinstance(stopped, ToolResult) and stopped.name == tool.spec.id:
                    return _with_telemetry(stopped, telemetry)  # waiting, or out of budget
            else:
                outcome = await tool.binding.invoke(args, meta)
        except BaseException as exc:
            if propagates(exc):
                raise
            return _with_telemetry(failed(tool, exc, self.expose), telemetry)
        # A call that pages past the end honestly returns nothing of a non-empty total.
        paged = tool.gave_cursor(args)
        result = check_result(tool, outcome, meta, telemetry, paged=paged)  # 7. check result
        if result.error is not None:
            return _with_telemetry(result, telemetry)
        if tool.limits.result_overflow is None:  # 8. budget (decided at once, most calls)
            # With the tool's limits: its token budget and its way to ask for less.
            return within_budget(result, tool.limits.result_bytes, tool.spec.name, tool.limits)
        return await self._budgeted(tool, result, meta)

    async def _budgeted(
        self, tool: RegisteredTool, result: ToolResult, meta: ToolCallMeta
    ) -> ToolResult:
        """Step 8: what the model reads of a result, by the tool's overflow policy."""
        if tool.limits.result_overflow is None:
            return within_budget(result, tool.limits.result_bytes, tool.spec.name, tool.limits)
        readable = self.spills.shared or self.registry.resolve(READ_RESULT) is not None
        spills = self.spills if readable else None
        return await budgeted(result, tool.limits, tool.spec.id, tool.spec.name, meta, spills)


def _interceptor_failed(tool: RegisteredTool, exc: BaseException) -> ToolResult:
    log.error("interceptor failed for %s", tool.spec.id, exc_info=exc)
    return answers.interceptor_failed(tool.spec.id, exc)


def _with_telemetry(result: ToolResult, telemetry: ToolTelemetry) -> ToolResult:
    """``result`` (an answer from a step) carrying what the call's telemetry recorded before it
    (repairs made, injected values discarded)."""
    if result.telemetry is telemetry:
        return result
    own = result.telemetry
    telemetry.outcome = own.outcome
    telemetry.extra.update(own.extra)
    if own.approval is not None:
        telemetry.approval = own.approval
    result.telemetry = telemetry
    return result


def _answered(
    result: ToolResult, meta: ToolCallMeta, started: float, watch: CallWatch | None = None
) -> ToolResult:
    """Step 9: the answer as the caller gets it, and its observers told, last."""
    # A result an interceptor or a handler made itself says nothing of its outcome.
    result.settle_outcome()
    result.telemetry.duration_ms = (time.perf_counter() - started) * 1000
    if result.tool_call_id is None:
        result.tool_call_id = meta.tool_call_id
    if result.error is not None and result.recovery is None and not result.awaiting_approval:
        hint = result.retry_hint
        result.recovery = recovery_for(hint.reason if hint is not None else None)
    if watch is not None:
        watch.finish(result)
    return result
