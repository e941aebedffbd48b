"""Step 5 of a call, approve: a ``Confirm`` tool's call, decoded, is run, refused or left
waiting for a person's decision (the requests and decisions themselves are
:mod:`tooldesign.runtime.control.approvals`).

The step sees the arguments exactly as they will run: after every interceptor (one that
rewrites the arguments rewrites what a person is asked about), after repairs, with defaults
filled and injected fields left out. An approval therefore unlocks exactly the call that runs.

A decision comes from those given to ``execute(approvals=...)``, else from the approver (the
call's, else the runtime's). An approval unlocks one run of each call: the same call presented
again is answered with its run's result, and a ``once`` decision (a destructive tool's, by
default) is spent by the call it let run (:mod:`tooldesign.runtime.control.approved_runs`). While an approver waits for a person, the clocks of the call's
``Timeout`` interceptors stop: a person's time is not the tool's. A sync approver waits on
threads of its own, never on those that run tools.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Awaitable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Any

from tooldesign.contract.confirm import render_prompt
from tooldesign.jsonschema.text import shown
from tooldesign.runtime import answers
from tooldesign.runtime.control.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    approval_id,
    decision_for,
    find_decision,
)
from tooldesign.runtime.control.approved_runs import ApprovedRuns
from tooldesign.runtime.control.interceptors import deadlines_paused
from tooldesign.runtime.control.watch import CallWatch
from tooldesign.runtime.registry import RegisteredTool
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult

log = logging.getLogger("tooldesign.runtime")


@dataclass(frozen=True, slots=True)
class Decisions:
    """Where a call's approval can come from: decisions already made, and who to ask."""

    given: Sequence[ApprovalDecision] = ()
    approver: Approver | None = None


NO_DECISIONS = Decisions()

_granted: contextvars.ContextVar[ApprovalDecision | None] = contextvars.ContextVar(
    "tooldesign_granted_approval", default=None
)


def granted_approval() -> ApprovalDecision | None:
    """The approval the running call was granted, if it needed one (remote registrations send
    it to the worker, whose runtime then runs the call without asking again)."""
    return _granted.get()


async def granted_run(decision: ApprovalDecision, call: Awaitable[ToolResult]) -> ToolResult:
    """``call`` awaited as the run of a call granted ``decision`` (see :func:`granted_approval`)."""
    token = _granted.set(decision)
    try:
        return await call
    finally:
        _granted.reset(token)


def approval_request(tool: RegisteredTool, args: Any, meta: ToolCallMeta) -> ApprovalRequest | None:
    """What a person is asked about this call of ``tool`` with decoded ``args`` (``None`` when
    the design's ``when`` does not select it)."""
    confirm = tool.spec.confirm
    assert confirm is not None
    full = args.model_dump(mode="json", by_alias=True)
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


def once(tool: RegisteredTool, decision: ApprovalDecision) -> bool:
    """Whether ``decision`` unlocks one call only: as it says, else as the tool's side effects
    say (a destructive tool's approvals are spent by the call they let run)."""
    if decision.once is not None:
        return decision.once
    return bool(tool.spec.annotations.destructive)


async def approve(
    tool: RegisteredTool,
    args: Any,
    meta: ToolCallMeta,
    decisions: Decisions,
    watch: CallWatch | None,
    approvers: Executor,
    runs: ApprovedRuns,
) -> tuple[ApprovalRequest, ApprovalDecision] | ToolResult | None:
    """The granted request and decision this call runs under; the answer to a call refused,
    left waiting, or that already ran under its approval; ``None`` for a call that needs no
    approval."""
    request = approval_request(tool, args, meta)
    if request is None:  # not a call the design's condition selects
        return None
    # The same call again (a framework replaying a node, a retry): its one run's answer —
    # once that run has ended, when it still runs.
    running = runs.running(request.id, meta.stable_id())
    if running is not None:
        return await run_answer(runs, running, request.id, meta.stable_id(), tool.spec.id)
    replayed = runs.replayed(request.id, meta.stable_id())
    if replayed is not None:
        return replayed
    # Cancelled midway, it may have run. A remote toolset's queue keeps its own record of the
    # call and answers a copy from it (cancelled while it ran, or never started), never running
    # it twice: there, the copy goes on to the queue.
    stopped = runs.stopped(request.id, meta.stable_id())
    if stopped and tool.registration.remote is None:
        return answers.outcome_unknown(tool.spec.id)
    decision = find_decision(decisions.given, request)
    if decision is not None and decision.granted and once(tool, decision) and runs.used(decision):
        log.info("approval %s was for one call, which ran: %s asks again", request.id, tool.spec.id)
        decision = None
    if decision is None:
        if watch is not None:
            watch.requested(request)
        with deadlines_paused():
            decision = await _ask(decisions.approver, request, meta, approvers)
    if decision is None:
        return answers.awaiting_approval(tool.spec.id, request)
    if watch is not None:
        watch.decided(request, decision)
    log.info(
        "call %s of %s %s by %s (approval %s)",
        meta.call_id,
        tool.spec.id,
        "approved" if decision.granted else "denied",
        decision.by or "an approver",
        request.id,
    )
    if not decision.granted:
        assert tool.spec.confirm is not None
        return answers.approval_denied(tool.spec.id, tool.spec.confirm.denied, request, decision)
    return request, decision


async def run_answer(
    runs: ApprovedRuns,
    running: Future[ToolResult | None],
    approval_id: str,
    call_id: str | None,
    tool_id: str,
) -> ToolResult:
    """The answer of the run of this call still going, once it has ended (marked replayed);
    a run cancelled midway may have taken effect: its outcome is unknown, and it is not run
    again."""
    await asyncio.shield(asyncio.wrap_future(running))
    return runs.replayed(approval_id, call_id) or answers.outcome_unknown(tool_id)


async def _ask(
    approver: Approver | None, request: ApprovalRequest, meta: ToolCallMeta, threads: Executor
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
            # A sync approver may wait for a person: on threads of its own, not the event
            # loop's and not the tools'.
            context = contextvars.copy_context()
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(threads, context.run, approver, request, meta)
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
