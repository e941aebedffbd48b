"""Every failure a model reads, written in one place.

Each function here answers one kind of failed call with a :class:`ToolResult`: the text the
model reads (what happened, whether the call ran, what to do next), the retry hint a planner
acts on, the outcome observers see, and in ``error.details`` what an operator needs. The call
path, the shipped interceptors, the MCP client and the remote transports ask this module for
their answers; none writes one itself (``tests/runtime/test_answers.py`` holds them to it).
Answers are written, not logged: whoever finds the failure logs it.

A tool is named in a text by its provider-facing name (the model's), in ``ToolResult.name`` by
its id (``service.toolset.tool``) wherever the id is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tooldesign.jsonschema.text import clipped, compact_json, got, printable, quoted
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest
from tooldesign.runtime.errors import (
    FieldIssue,
    ToolError,
    ToolFailure,
    ToolValidationError,
    more_problems,
)
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.reasons import OUTCOME_UNKNOWN_TEXT, Recovery, RetryReason
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.limits import byte_size

_MAX_REFINEMENT_SHOWN = 300
_ASK_LESS = "asking for less: narrower filters, fewer items or a smaller page."


def tool_name(tool_id: str) -> str:
    """The provider-facing name in an id (``service.toolset.tool`` → ``tool``)."""
    return tool_id.rsplit(".", 1)[-1]


def _answer(
    tool_id: str,
    message: str,
    reason: RetryReason | None = None,
    *,
    tool: str | None = None,
    short: str | None = None,
    outcome: str | None = None,
    cause: BaseException | None = None,
    details: Mapping[str, Any] | None = None,
    **hint: Any,
) -> ToolResult:
    """A failed call whose model text is ``message``: with a retry hint of ``reason`` (keyword
    arguments are the hint's), else a bare error; its outcome recorded. ``short`` is the
    error's own message, for logs, when the hint's text is longer."""
    retry_hint = None
    if reason is not None:
        name = tool if tool is not None else tool_name(tool_id)
        retry_hint = RetryHint(reason, name, message, **hint)
    error = ToolError(short or message, cause=cause, details=details or {})
    result = ToolResult(tool_id, error=error, retry_hint=retry_hint)
    result.telemetry.outcome = outcome or (str(reason) if reason is not None else "error")
    return result


# ── the model's call ──────────────────────────────────────────────────────────────────────


def unknown_tool(
    name: object, label: str, names: Sequence[str], close: Sequence[str]
) -> ToolResult:
    """No tool is called ``name`` (``label``: the name as shown); ``close`` are near misses."""
    if isinstance(name, str):
        message = f"There is no tool named {quoted(name)}."
        if close:
            message += f" Did you mean {' or '.join(quoted(c) for c in close)}?"
    else:  # the caller's bug (a provider adapter's, say), shown safely all the same
        message = f"A tool name must be text, got {got(name)}."
    message += f" Available tools: {', '.join(names) or 'none'}."
    return _answer(
        label,
        message,
        RetryReason.TOOL_UNAVAILABLE,
        tool=label,
        short=f"unknown tool {quoted(label)}",
        valid_tools=tuple(names),
        suggested_tools=tuple(close),
    )


def retry_hint_for_invalid_payload(error: ToolValidationError, *, example: Any = None) -> RetryHint:
    """Turn a payload validation error into the hint a model needs to repair its call.

    Missing fields only → ``missing_fields``; anything else → ``invalid_arguments``. The message
    names every bad field, what was expected and the field's design description, and shows the
    design's example.
    """
    return invalid_payload_hint(error, example, example_line(example))


def example_line(example: Any) -> str | None:
    """The line of an invalid-arguments hint that shows ``example`` (``None`` without one)."""
    return None if example is None else f"Example of valid arguments: {compact_json(example)}"


def invalid_payload_hint(
    error: ToolValidationError, example: Any, example_line: str | None
) -> RetryHint:
    """:func:`retry_hint_for_invalid_payload` with the example's line already written (a
    runtime writes each tool's once: its example is frozen)."""
    issues = error.issues
    missing = error.missing_fields
    only_missing = bool(missing) and len(missing) == len(issues) and not error.more
    tool = error.tool
    # One line per issue ("- field: what is wrong"), in one join.
    lines = [f"The arguments for tool {tool!r} are invalid:", *[i.describe() for i in issues]]
    if error.more:
        lines.append(more_problems(error.more))
    text = "\n- ".join(lines)
    if example_line is not None:
        text += "\n" + example_line
    text += f"\nCall {tool!r} again with corrected arguments."
    if only_missing:
        reason = RetryReason.MISSING_FIELDS
        question: str | None = f"What value should be used for {', '.join(missing)}?"
    else:
        reason, question = RetryReason.INVALID_ARGUMENTS, None
    return RetryHint(
        reason,
        tool,
        text,
        True,  # restrict_to_tool
        missing,
        example,
        error.input,
        question,
        issues,
        None,  # retry_after
        (),  # valid_tools
        (),  # suggested_tools
        error.more,
    )


def invalid_arguments(tool_id: str, hint: RetryHint) -> ToolResult:
    """The model's arguments break the tool's schema: ``hint`` (:func:`invalid_payload_hint`)
    names every bad field."""
    result = ToolResult(
        tool_id, error=ToolError(f"invalid arguments for {hint.tool!r}"), retry_hint=hint
    )
    result.telemetry.outcome = str(hint.reason)
    return result


def context_problem(missing: Sequence[str]) -> str:
    """What is wrong with a call's metadata, for the application's log and details."""
    if missing:
        return f"no value for injected field(s) {', '.join(missing)} in the call's metadata"
    return "the call's metadata gives invalid values for injected fields"


def context_missing(
    tool_id: str, name: str, missing: Sequence[str], wrong: Sequence[str]
) -> ToolResult:
    """Injected fields (the application's, hidden from the model) are missing or invalid in the
    call's metadata: the model is told only that the tool cannot run here, not which fields."""
    detail = context_problem(missing)
    message = (
        f"Tool {name!r} cannot run in this context: the application did not provide what "
        "it needs. This is not a problem with your arguments; do not retry this call."
    )
    return _answer(
        tool_id,
        message,
        outcome="missing_injected" if missing else "invalid_injected",
        details={"problem": detail, "fields": list(missing or wrong)},
    )


# ── the tool's run ────────────────────────────────────────────────────────────────────────


def models_unavailable(tool_id: str, name: str, error: BaseException) -> ToolResult:
    """The application's generated models cannot be imported."""
    message = (
        f"Tool {name!r} is unavailable: the application could not load it. This "
        "is not a problem with your arguments; do not retry this call."
    )
    return _answer(tool_id, message, cause=error)


def tool_refused(tool_id: str, name: str, failure: ToolFailure) -> ToolResult:
    """The tool raised :class:`ToolFailure`: its message, as it is, for the model; with a
    clarifying question, a hint that asks it."""
    question = failure.clarifying_question
    result = _with_question(tool_id, name, failure.message, failure, question)
    if failure.recovery is not None:
        result.recovery = Recovery(failure.recovery)
    return result


def tool_error_shown(tool_id: str, name: str, exc: BaseException) -> ToolResult:
    """The tool raised an exception the application lets the model read (``expose``)."""
    return _with_question(tool_id, name, str(exc), exc, None)


def tool_crashed(tool_id: str, name: str, exc: BaseException) -> ToolResult:
    """The tool raised: the model gets a generic failure (the traceback is for the log)."""
    message = f"Tool {name!r} failed with an internal error. Try again later or use another tool."
    return _with_question(tool_id, name, message, exc, None)


def _with_question(
    tool_id: str, name: str, message: str, cause: BaseException, question: str | None
) -> ToolResult:
    if not question:
        return _answer(tool_id, message, cause=cause)
    # The hint's message is what the model reads: the question goes in it.
    return _answer(
        tool_id,
        f"{message}\nBefore calling {name!r} again, ask the user: {question}",
        RetryReason.INVALID_ARGUMENTS,
        tool=name,
        short=message,
        outcome="error",
        cause=cause,
        clarifying_question=question,
    )


def interceptor_failed(tool_id: str, exc: BaseException) -> ToolResult:
    """An interceptor raised, or answered with something that is not a ``ToolResult``."""
    return _answer(tool_id, "The tool call failed inside the runtime.", cause=exc)


def malformed_response(
    tool_id: str,
    name: str,
    problem: str,
    issues: Sequence[FieldIssue] = (),
    *,
    cause: BaseException | None = None,
    remote: bool = False,
) -> ToolResult:
    """The tool's result breaks its own result type (a bug in the tool). The model reads
    nothing of the tool's values; what is wrong, cut short, is for the application."""
    described = [issue.describe("result") for issue in issues]
    message = (
        f"Tool {name!r} returned a malformed response. The problem is in the tool, not in your "
        "arguments; try again later or use another tool."
    )
    details: dict[str, Any] = {"problem": problem}
    if described:
        details["issues"] = described
    if remote:
        details["remote"] = True
    return _answer(
        tool_id, message, RetryReason.MALFORMED_RESPONSE, tool=name, cause=cause, details=details
    )


def result_too_large(
    result: ToolResult, size: int, budget: int, tool: str, tokens: int | None = None
) -> ToolResult:
    """Structured data over the budget (``tokens``: a token budget chose its ``budget`` bytes):
    refused, with how to ask for less. The full result stays on the answer for observers."""
    most = f"{tokens:,} tokens ({budget:,} bytes here)" if tokens else byte_size(budget)
    lines = [f"Tool {tool!r} returned {byte_size(size)} of data, more than the {most} it may"]
    lines[0] += " return at once, so the result is not shown."
    bounds = result.bounds
    hint = bounds.refinement_hint if bounds is not None else None
    if bounds is not None:
        of = f" of {bounds.total:,}" if bounds.total is not None else ""
        lines.append(f"It returned {bounds.returned:,}{of} items.")
    if hint:  # the service's or the design's way to narrow it, not a generic line after it
        lines.append(f"To narrow the request: {printable(clipped(hint, _MAX_REFINEMENT_SHOWN))}")
    else:
        lines.append(f"Call {tool!r} again {_ASK_LESS}")
    message = "\n".join(lines)
    details: dict[str, Any] = {"result_bytes": size, "budget": budget, "budget_tokens": tokens}
    return ToolResult(
        result.name,
        result=result.result,
        error=ToolError(message, details=details),
        retry_hint=RetryHint(RetryReason.RESULT_TOO_LARGE, tool, message, restrict_to_tool=True),
        bounds=bounds,
        server_data=result.server_data,
        telemetry=result.telemetry,
        tool_call_id=result.tool_call_id,
        result_json=result.result_json,
    )


# ── a person's approval ───────────────────────────────────────────────────────────────────


def awaiting_approval(tool_id: str, approval: ApprovalRequest) -> ToolResult:
    """The call waits for a person: it did not run, and must not be repeated meanwhile."""
    result = ToolResult(
        tool_id,
        error=ToolError(
            f"{approval.tool!r} awaits a person's approval", details={"approval": approval.id}
        ),
        approval=approval,
        model_text=(
            f"Tool {approval.tool!r} needs a person's approval before it runs; they were asked: "
            f"{compact_json(approval.prompt)}. Do not call it again for this: the call runs (or "
            "not) once they decide, and you will be told."
        ),
    )
    result.telemetry.outcome = "awaiting_approval"
    return result


def scope_missing(tool_id: str, missing: Sequence[str], *, principal: bool) -> ToolResult:
    """The caller's verified principal lacks scopes the tool needs, or the call has none where
    the runtime requires one: the tool's missing scopes named, no other scope."""
    scopes = f" the scope {', '.join(map(repr, missing))}" if missing else ""
    if principal:
        why = f"the caller's credentials do not grant{scopes}"
    else:
        why = "the call has no verified caller" + (f" to grant{scopes}" if missing else "")
    message = f"Tool {tool_name(tool_id)!r} did not run: {why}. Do not retry it; ask the user for that access, or take another step."
    return _answer(tool_id, message, outcome="forbidden", details={"missing_scopes": list(missing)})


def approval_denied(
    tool_id: str, denied: str, approval: ApprovalRequest, decision: ApprovalDecision
) -> ToolResult:
    """A person refused the call: the design's ``denied`` text, and their reason."""
    message = denied
    if decision.reason:
        message += f" They said: {compact_json(clipped(decision.reason, 500))}"
    result = _answer(tool_id, message, outcome="approval_denied", details={"approval": approval.id})
    result.approval = approval
    result.recovery = Recovery.REPLAN
    result.telemetry.approval = decision
    return result


def agent_budget_spent(tool_id: str, budget: str, limit: float) -> ToolResult:
    """An agent-implemented tool's inner run reached its design's ``budget``: it was stopped."""
    message = f"Tool {tool_name(tool_id)!r} stopped: its agent used its {limit:g} {budget}. "
    message += "Ask for less (one thing at a time, a narrower question), or do it yourself."
    return _answer(tool_id, message, outcome="agent_budget", details={budget: limit})


# ── the shipped interceptors ──────────────────────────────────────────────────────────────


def timed_out(tool_id: str, limit: float, *, queued: bool, cause: BaseException) -> ToolResult:
    """The call took longer than its ``Timeout``; ``queued``: it never started (every worker
    thread was busy), so the same call may well succeed in a moment."""
    name = tool_name(tool_id)
    if queued:
        message = (
            f"Tool {name!r} could not start within {limit:g} s because the runtime is busy "
            "with other calls; it did not run. Try the same call again shortly."
        )
    else:
        message = (
            f"Tool {name!r} did not finish within {limit:g} s. Try again, or narrow the "
            "request (fewer items, a smaller window) so it finishes sooner."
        )
    result = _answer(tool_id, message, RetryReason.TIMEOUT, cause=cause, restrict_to_tool=queued)
    if queued:
        result.telemetry.extra["not_started"] = True
    return result


def rate_limited(tool_id: str, wait: float) -> ToolResult:
    """Over its ``RateLimit``: the call did not run; ``wait`` seconds until it may."""
    message = (
        f"Tool {tool_name(tool_id)!r} is being called too often. Wait {wait:.2f} s before "
        "calling it again."
    )
    return _answer(
        tool_id,
        message,
        RetryReason.RATE_LIMITED,
        restrict_to_tool=True,
        retry_after=round(wait, 3),
    )


# ── a tool served elsewhere: an MCP server ────────────────────────────────────────────────


def server_unavailable(name: str, why: str, cause: BaseException) -> ToolResult:
    message = (
        f"Tool {name!r} is unavailable right now ({why}). Try again later or use another tool."
    )
    return _answer(name, message, RetryReason.TOOL_UNAVAILABLE, tool=name, cause=cause)


def server_refused_arguments(name: str, text: str, cause: BaseException, code: int) -> ToolResult:
    message = f"Tool {name!r} refused the arguments: {text}"
    return _answer(
        name,
        message,
        RetryReason.INVALID_ARGUMENTS,
        tool=name,
        cause=cause,
        details={"remote": True, "code": code},
        restrict_to_tool=True,
    )


def server_failed(
    name: str, text: str, *, cause: BaseException | None = None, code: int | None = None
) -> ToolResult:
    """The server answered with an error: its own words (a protocol error's, or its text)."""
    if cause is None:
        return _answer(name, text, details={"remote": True})
    message = f"Tool {name!r} failed on its server: {text}"
    return _answer(name, message, cause=cause, details={"remote": True, "code": code})


def server_timed_out(name: str, detail: str) -> ToolResult:
    message = (
        f"Tool {name!r} did not answer in time ({detail}). Try again, or narrow the request so "
        "it finishes sooner."
    )
    return _answer(name, message, RetryReason.TIMEOUT, tool=name)


def client_failed(name: str, cause: BaseException) -> ToolResult:
    message = f"Tool {name!r} failed while calling its server. Try again later or use another tool."
    return _answer(name, message, cause=cause)


# ── a tool served elsewhere: workers (agent side) ─────────────────────────────────────────


def _versions(versions: Iterable[str]) -> str:
    listed = sorted(set(versions))
    return ", ".join(listed) if listed else "none"


def no_worker(tool_id: str, toolset: str, version: str, live: Iterable[str]) -> ToolResult:
    live = tuple(sorted(set(live)))
    if live:
        why = (
            f"its workers serve another version of toolset {toolset!r} "
            f"(live: {_versions(live)}; this agent has {version})"
        )
    else:
        why = f"no worker serves toolset {toolset!r}"
    message = f"Tool {tool_name(tool_id)!r} is unavailable right now: {why}. Try again later or use another tool."
    details = {"toolset": toolset, "version": version, "live_versions": list(live)}
    return _answer(tool_id, message, RetryReason.TOOL_UNAVAILABLE, details=details)


def unreachable(tool_id: str, detail: str) -> ToolResult:
    message = f"Tool {tool_name(tool_id)!r} is unavailable right now: its workers cannot be reached. Try again later or use another tool."
    return _answer(tool_id, message, RetryReason.TOOL_UNAVAILABLE, details={"problem": detail})


def queue_full(tool_id: str, queued: int, limit: int, retry_after: float) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} is busy: {queued} calls are waiting for its workers. "
        f"Wait {retry_after:g} s before calling it again."
    )
    return _answer(
        tool_id,
        message,
        RetryReason.RATE_LIMITED,
        details={"queued": queued, "limit": limit},
        restrict_to_tool=True,
        retry_after=retry_after,
    )


def no_answer(tool_id: str, timeout: float, *, sent: bool, detail: str) -> ToolResult:
    name = tool_name(tool_id)
    if sent:
        message = (
            f"Tool {name!r} did not answer within {timeout:g} s; it may still complete. Try "
            "again (the same call is not run twice), or narrow the request so it finishes sooner."
        )
    else:
        message = (
            f"Tool {name!r} could not be reached within {timeout:g} s; it did not run. "
            "Try again shortly."
        )
    details = {"sent": sent, "problem": detail}
    return _answer(
        tool_id, message, RetryReason.TIMEOUT, details=details, restrict_to_tool=not sent
    )


def bad_answer(tool_id: str, detail: str) -> ToolResult:
    """The worker's answer cannot be read, or breaks the tool's result type."""
    return malformed_response(tool_id, tool_name(tool_id), detail, remote=True)


def call_id_conflict(tool_id: str, call_id: str) -> ToolResult:
    """Another request was already sent under this call's id (the same run id and tool call id,
    other arguments): refused, so that neither call is answered with the other's result."""
    message = (
        f"Tool {tool_name(tool_id)!r} did not run: another call with different arguments was "
        "already made under the same call id (the same run and tool call id), and one id "
        "names one call. Nothing was answered for you from that call. Make this call again "
        "under a new tool call id, or tell the user."
    )
    return _answer(tool_id, message, outcome="call_id_conflict", details={"call_id": call_id})


def queue_lost(tool_id: str) -> ToolResult:
    """The queue no longer holds the record of a call sent before (it lost its data, or a task's
    call record expired): an earlier attempt may have run, and it was not sent again."""
    message = (
        f"Tool {tool_name(tool_id)!r}: the queue of its workers no longer holds the record of "
        "this call (it lost its data, or the record expired), so it may or may not have run. It "
        "was not sent again, because running it twice could repeat its effect. Check whether it "
        "took effect before calling it again."
    )
    return _answer(tool_id, message, RetryReason.OUTCOME_UNKNOWN, details={"queue_lost": True})


def unsendable(tool_id: str, detail: str) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} cannot be called from this context: the application's call "
        "data cannot be sent to its workers. This is not a problem with your arguments; do not "
        "retry this call."
    )
    return _answer(tool_id, message, details={"problem": detail})


# ── a tool served elsewhere: workers (worker side) ────────────────────────────────────────


def other_version(
    tool_id: str, toolset: str, asked: str, served: str, live: Iterable[str]
) -> ToolResult:
    live_versions = sorted(set(live) | {served})
    message = (
        f"Tool {tool_name(tool_id)!r} is unavailable right now: the call was made against "
        f"version {asked} of toolset {toolset!r}, and its workers serve {_versions(live_versions)}. "
        "Try again later or use another tool."
    )
    details = {"toolset": toolset, "version": asked, "live_versions": live_versions}
    return _answer(tool_id, message, RetryReason.TOOL_UNAVAILABLE, details=details)


def not_in_toolset(tool_id: str, toolset: str, names: Iterable[str]) -> ToolResult:
    listed = ", ".join(sorted(names)) or "none"
    message = (
        f"There is no tool {tool_name(tool_id)!r} in toolset {toolset!r}. "
        f"Available tools: {listed}."
    )
    return _answer(tool_id, message, RetryReason.TOOL_UNAVAILABLE, details={"toolset": toolset})


def expired(tool_id: str) -> ToolResult:
    message = f"Tool {tool_name(tool_id)!r} could not start before the call's deadline; it did not run. Try the same call again."
    result = _answer(tool_id, message, RetryReason.TIMEOUT, restrict_to_tool=True)
    result.telemetry.extra["not_started"] = True
    return result


def out_of_time(tool_id: str, seconds: float) -> ToolResult:
    message = f"Tool {tool_name(tool_id)!r} did not finish within {seconds:.3g} s. Try again, or narrow the request (fewer items, a smaller window) so it finishes sooner."
    return _answer(tool_id, message, RetryReason.TIMEOUT)


def outcome_unknown(tool_id: str) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r}: {OUTCOME_UNKNOWN_TEXT}. It was not run again, because running "
        "it twice could repeat its effect. Check whether it took effect before calling it again."
    )
    return _answer(tool_id, message, RetryReason.OUTCOME_UNKNOWN)


def cancelled(tool_id: str, *, started: bool) -> ToolResult:
    """The call's caller cancelled it (the run was aborted): the answer kept for a retry."""
    if started:
        why = "it was cancelled by its caller while it ran; it may have partly taken effect"
    else:
        why = "it was cancelled by its caller before it started; it did not run"
    message = f"Tool {tool_name(tool_id)!r}: {why}. Check with the user before calling it again."
    result = _answer(tool_id, message, outcome="cancelled", details={"started": started})
    if not started:
        result.telemetry.extra["not_started"] = True
    return result


def dead_lettered(tool_id: str, deliveries: int) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} could not complete this call: it was delivered "
        f"{deliveries} times and each time the worker running it was lost. Do not retry it; "
        "use another tool or tell the user."
    )
    return _answer(tool_id, message, details={"deliveries": deliveries, "dead_letter": True})


def malformed_call(tool_id: str, detail: str) -> ToolResult:
    message = "The tool call could not be read by the worker it was sent to; it did not run."
    return _answer(tool_id, message, details={"problem": detail})
