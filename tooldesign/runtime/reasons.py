"""Why a call failed (:class:`RetryReason`) and what a planner should do next (:class:`Recovery`):
fix the call, do something else, or stop. A leaf: every module of the call path may read it.

Every failing :class:`~tooldesign.runtime.ToolResult` carries a :class:`Recovery`. It is derived
from the retry hint's reason (:func:`recovery_for`) unless the tool says otherwise
(``ToolFailure(..., recovery=Recovery.FINISH)``), and ``for_model()`` ends with it in plain
words (:func:`recovery_line`), so a model and a scripted planner read the same decision.
"""

from __future__ import annotations

import functools
from enum import StrEnum

from tooldesign.jsonschema.text import quoted


class RetryReason(StrEnum):
    INVALID_ARGUMENTS = "invalid_arguments"
    MISSING_FIELDS = "missing_fields"
    MALFORMED_RESPONSE = "malformed_response"
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    TOOL_UNAVAILABLE = "tool_unavailable"
    OUTCOME_UNKNOWN = "outcome_unknown"
    """The process running the call was lost: the call may or may not have taken effect."""
    RESULT_TOO_LARGE = "result_too_large"
    """The result is over the tool's result budget: the call must ask for less."""


OUTCOME_UNKNOWN_TEXT = "the worker running this call was lost; it may or may not have taken effect"
"""What a model reads about an ``outcome_unknown`` call, after the tool's name."""


class Recovery(StrEnum):
    """The next step after a failed call."""

    CORRECT_CALL = "correct_call"
    """Fix the arguments and call the same tool again (invalid arguments, missing fields, a
    call that took too long or returned too much for what it asked)."""
    REPLAN = "replan"
    """Do something else: the tool cannot serve this call now (unknown, rate limited, broken,
    refused by the domain or by a person)."""
    FINISH = "finish"
    """Stop and report: going on could do harm (the outcome of the call is unknown) or cannot
    help (a fatal error)."""


_BY_REASON: dict[RetryReason, Recovery] = {
    RetryReason.INVALID_ARGUMENTS: Recovery.CORRECT_CALL,
    RetryReason.MISSING_FIELDS: Recovery.CORRECT_CALL,
    RetryReason.TIMEOUT: Recovery.CORRECT_CALL,
    RetryReason.RESULT_TOO_LARGE: Recovery.CORRECT_CALL,
    RetryReason.MALFORMED_RESPONSE: Recovery.REPLAN,
    RetryReason.RATE_LIMITED: Recovery.REPLAN,
    RetryReason.TOOL_UNAVAILABLE: Recovery.REPLAN,
    RetryReason.OUTCOME_UNKNOWN: Recovery.FINISH,
}


def recovery_for(reason: RetryReason | None) -> Recovery:
    """The recovery a failure of this reason calls for (no reason: a tool's own failure,
    which another step may avoid)."""
    if reason is None:
        return Recovery.REPLAN
    return _BY_REASON.get(reason, Recovery.REPLAN)


@functools.lru_cache(maxsize=256)  # a runtime's few tool names: each line is written once
def recovery_line(recovery: Recovery, tool: str) -> str:
    """The last line of ``for_model()`` for a failed call of ``tool``: the action, in words
    (the name shown quoted and on one line, whatever a model sent as a name)."""
    name = quoted(tool)
    if recovery is Recovery.CORRECT_CALL:
        return f"Recovery: correct_call — fix the arguments, then call {name} again."
    if recovery is Recovery.REPLAN:
        return f"Recovery: replan — do not repeat this call to {name} now; take another step."
    return f"Recovery: finish — stop and tell the user what happened; do not call {name} again."


__all__ = ["OUTCOME_UNKNOWN_TEXT", "Recovery", "RetryReason", "recovery_for", "recovery_line"]
