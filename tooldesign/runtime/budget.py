"""The result budget: how much of a result reaches the model.

A tool that returns megabytes would fill the model's context (and the bill) with one answer.
Past its budget (``Limits(result_bytes=...)``, 64 KiB by default), a result that is text is cut,
with a plain notice of what was cut; structured data, which cannot be cut and stay what its
schema promises, is refused with an error that tells the model how to ask for less (for a
bounded result, with the tool's own refinement hint). Either way the full result stays on the
:class:`ToolResult` for observers (``on_result``, server data), and the cut is recorded in the
telemetry (``extra["result_cut"]``).
"""

from __future__ import annotations

from tooldesign.jsonschema.text import clipped, printable
from tooldesign.runtime.errors import ToolError
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.reasons import RetryReason
from tooldesign.runtime.result import ToolResult, text_result
from tooldesign.runtime.spec.limits import byte_size
from tooldesign.runtime.validation.sizes import text_bytes

CUT_KEY = "result_cut"
"""The telemetry entry (``telemetry.extra``) that records a cut or refused result."""

_MAX_REFINEMENT_SHOWN = 300


def within_budget(result: ToolResult, budget: int, tool: str) -> ToolResult:
    """``result`` as the model may read it: itself when its text fits ``budget`` bytes."""
    encoded = result.result_json
    # The common case, decided by a length: the model reads the encoding, or the text it
    # encodes (no longer than its encoding), and no character takes more than 4 bytes.
    if encoded is not None and result.model_text is None and len(encoded) * 4 <= budget:
        return result
    text = result.for_model()
    if len(text) * 4 <= budget:  # no UTF-8 text of this length can be over
        return result
    size = text_bytes(text)
    if size <= budget:
        return result
    if text_result(result.result) is not None:
        return _cut(result, text, size, budget)
    return _refused(result, size, budget, tool)


def _cut(result: ToolResult, text: str, size: int, budget: int) -> ToolResult:
    notice = _notice(size, budget)
    room = max(0, budget - text_bytes(notice))
    # Cut at a character boundary: a character split in two is dropped whole.
    kept = text.encode("utf-8", "surrogatepass")[:room].decode("utf-8", "ignore")
    shown = text_bytes(kept)
    result.model_text = kept + _notice(size, budget, shown)
    result.telemetry.extra[CUT_KEY] = {"bytes": size, "budget": budget, "shown": shown}
    return result


def _notice(size: int, budget: int, shown: int | None = None) -> str:
    shown_text = f"{shown:,}" if shown is not None else f"{budget:,}"
    return (
        f"\n\n[Cut here: the result is {byte_size(size)}; only its first {shown_text} bytes "
        f"are shown, as this tool returns at most {budget:,} bytes at once. Ask for less to "
        "see the rest.]"
    )


def _refused(result: ToolResult, size: int, budget: int, tool: str) -> ToolResult:
    lines = [
        (
            f"Tool {tool!r} returned {byte_size(size)} of data, more than the "
            f"{byte_size(budget)} it may return at once, so the result is not shown."
        )
    ]
    bounds = result.bounds
    if bounds is not None:
        of = f" of {bounds.total:,}" if bounds.total is not None else ""
        lines.append(f"It returned {bounds.returned:,}{of} items.")
        if bounds.refinement_hint:
            hint = printable(clipped(bounds.refinement_hint, _MAX_REFINEMENT_SHOWN))
            lines.append(f"To narrow the request: {hint}")
    lines.append(
        f"Call {tool!r} again asking for less: narrower filters, fewer items or a smaller page."
    )
    message = "\n".join(lines)
    refused = ToolResult(
        result.name,
        # The full result stays here for observers; the error is what the model reads.
        result=result.result,
        error=ToolError(message, details={"result_bytes": size, "budget": budget}),
        retry_hint=RetryHint(RetryReason.RESULT_TOO_LARGE, tool, message, restrict_to_tool=True),
        bounds=bounds,
        server_data=result.server_data,
        telemetry=result.telemetry,
        tool_call_id=result.tool_call_id,
        result_json=result.result_json,
    )
    refused.telemetry.outcome = str(RetryReason.RESULT_TOO_LARGE)
    refused.telemetry.extra[CUT_KEY] = {"bytes": size, "budget": budget, "shown": 0}
    return refused


__all__ = ["CUT_KEY", "within_budget"]
