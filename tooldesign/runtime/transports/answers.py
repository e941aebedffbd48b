"""The results a call to a remote toolset gets when its tool did not produce one.

Written for the model (what happened, whether the call ran, what to do), with the details an
operator needs in ``error.details``. Agent side: no live worker, a full queue, no answer in
time, an unreadable answer. Worker side: a call for another version or toolset, an expired
deadline, a call whose earlier run was lost, a call given up after too many deliveries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tooldesign.runtime.errors import ToolError
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.reasons import OUTCOME_UNKNOWN_TEXT, RetryReason
from tooldesign.runtime.result import ToolResult


def tool_name(tool_id: str) -> str:
    """The provider-facing name in an id (``service.toolset.tool`` → ``tool``)."""
    return tool_id.rsplit(".", 1)[-1]


def hinted(
    tool_id: str,
    reason: RetryReason,
    message: str,
    *,
    restrict_to_tool: bool = False,
    retry_after: float | None = None,
    details: Mapping[str, Any] | None = None,
) -> ToolResult:
    """An error result with a retry hint of ``reason``, its outcome recorded."""
    hint = RetryHint(
        reason,
        tool_name(tool_id),
        message,
        restrict_to_tool=restrict_to_tool,
        retry_after=retry_after,
    )
    result = ToolResult(tool_id, error=ToolError(message, details=details or {}), retry_hint=hint)
    result.telemetry.outcome = str(reason)
    return result


def _versions(versions: Iterable[str]) -> str:
    listed = sorted(set(versions))
    return ", ".join(listed) if listed else "none"


# ── agent side ───────────────────────────────────────────────────────────────────────────


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
    return hinted(
        tool_id,
        RetryReason.TOOL_UNAVAILABLE,
        message,
        details={"toolset": toolset, "version": version, "live_versions": list(live)},
    )


def unreachable(tool_id: str, detail: str) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} is unavailable right now: its workers cannot be reached. "
        "Try again later or use another tool."
    )
    return hinted(tool_id, RetryReason.TOOL_UNAVAILABLE, message, details={"problem": detail})


def queue_full(tool_id: str, queued: int, limit: int, retry_after: float) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} is busy: {queued} calls are waiting for its workers. "
        f"Wait {retry_after:g} s before calling it again."
    )
    return hinted(
        tool_id,
        RetryReason.RATE_LIMITED,
        message,
        restrict_to_tool=True,
        retry_after=retry_after,
        details={"queued": queued, "limit": limit},
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
    return hinted(
        tool_id,
        RetryReason.TIMEOUT,
        message,
        restrict_to_tool=not sent,
        details={"sent": sent, "problem": detail},
    )


def bad_answer(tool_id: str, detail: str) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} returned a malformed response. The problem is in the tool, "
        "not in your arguments; try again later or use another tool."
    )
    return hinted(
        tool_id,
        RetryReason.MALFORMED_RESPONSE,
        message,
        details={"problem": detail, "remote": True},
    )


def unsendable(tool_id: str, detail: str) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} cannot be called from this context: the application's call "
        "data cannot be sent to its workers. This is not a problem with your arguments; do not "
        "retry this call."
    )
    result = ToolResult(tool_id, error=ToolError(message, details={"problem": detail}))
    result.telemetry.outcome = "error"
    return result


# ── worker side ──────────────────────────────────────────────────────────────────────────


def other_version(
    tool_id: str, toolset: str, asked: str, served: str, live: Iterable[str]
) -> ToolResult:
    live_versions = sorted(set(live) | {served})
    message = (
        f"Tool {tool_name(tool_id)!r} is unavailable right now: the call was made against "
        f"version {asked} of toolset {toolset!r}, and its workers serve {_versions(live_versions)}. "
        "Try again later or use another tool."
    )
    return hinted(
        tool_id,
        RetryReason.TOOL_UNAVAILABLE,
        message,
        details={"toolset": toolset, "version": asked, "live_versions": live_versions},
    )


def not_in_toolset(tool_id: str, toolset: str, names: Iterable[str]) -> ToolResult:
    listed = ", ".join(sorted(names)) or "none"
    message = (
        f"There is no tool {tool_name(tool_id)!r} in toolset {toolset!r}. "
        f"Available tools: {listed}."
    )
    return hinted(tool_id, RetryReason.TOOL_UNAVAILABLE, message, details={"toolset": toolset})


def expired(tool_id: str) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} could not start before the call's deadline; it did not "
        "run. Try the same call again."
    )
    result = hinted(tool_id, RetryReason.TIMEOUT, message, restrict_to_tool=True)
    result.telemetry.extra["not_started"] = True
    return result


def out_of_time(tool_id: str, seconds: float) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} did not finish within {seconds:.3g} s. Try again, or narrow "
        "the request (fewer items, a smaller window) so it finishes sooner."
    )
    return hinted(tool_id, RetryReason.TIMEOUT, message)


def outcome_unknown(tool_id: str) -> ToolResult:
    name = tool_name(tool_id)
    message = (
        f"Tool {name!r}: {OUTCOME_UNKNOWN_TEXT}. It was not run again, because running it twice "
        "could repeat its effect. Check whether it took effect before calling it again."
    )
    return hinted(tool_id, RetryReason.OUTCOME_UNKNOWN, message)


def dead_lettered(tool_id: str, deliveries: int) -> ToolResult:
    message = (
        f"Tool {tool_name(tool_id)!r} could not complete this call: it was delivered "
        f"{deliveries} times and each time the worker running it was lost. Do not retry it; "
        "use another tool or tell the user."
    )
    result = ToolResult(
        tool_id, error=ToolError(message, details={"deliveries": deliveries, "dead_letter": True})
    )
    result.telemetry.outcome = "error"
    return result


def malformed_call(tool_id: str, detail: str) -> ToolResult:
    message = "The tool call could not be read by the worker it was sent to; it did not run."
    result = ToolResult(tool_id, error=ToolError(message, details={"problem": detail}))
    result.telemetry.outcome = "error"
    return result
