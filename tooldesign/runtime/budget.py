"""The result budget: how much of a result reaches the model.

A tool that returns megabytes would fill the model's context (and the bill) with one answer.
Past its budget (``Limits(result_bytes=...)``, 64 KiB by default), what happens is the tool's
``result_overflow``. Unset, a result that is text is cut, with a plain notice of what was cut,
and structured data, which cannot be cut and stay what its schema promises, is refused with an
error that tells the model how to ask for less (for a bounded result, with the tool's own
refinement hint). ``"refuse"`` refuses text too; ``"cut"`` shows data as a preview shaped like
the result (:mod:`tooldesign.runtime.spill`); ``"spill"`` shows the preview (or the cut text)
with a handle the builtin ``read_result`` tool reads the rest with. Either way the full result
stays on the :class:`ToolResult` for observers (``on_result``, server data), and what happened
is recorded in the telemetry (``extra["result_cut"]``).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

from tooldesign.contract.content import ContentBlock, EmbeddedResource, ResourceLink
from tooldesign.runtime import answers, spill
from tooldesign.runtime.reasons import RetryReason
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult, text_result
from tooldesign.runtime.spec.limits import Limits, byte_size
from tooldesign.runtime.spill import (
    DEFAULT_TTL,
    Preview,
    ResultStore,
    SpilledResult,
    new_handle,
    preview,
    spill_notice,
    widest_notice,
)
from tooldesign.runtime.validation.sizes import text_bytes

log = logging.getLogger("tooldesign.runtime.budget")

CUT_KEY = "result_cut"
"""The telemetry entry (``telemetry.extra``) that records a cut or refused result."""

READ_RESULT = "read_result"
"""The name of the builtin tool that reads a spilled result back."""


@dataclass(frozen=True, slots=True)
class Spills:
    """Where a runtime keeps spilled results, and for how long (``ttl`` seconds)."""

    store: ResultStore
    ttl: float = DEFAULT_TTL
    shared: bool = False
    """The store was given (``Runtime(result_store=...)``): another runtime may read it (a
    worker spills, the agent's ``read_result`` reads), so results spill into it even where
    this runtime has no ``read_result`` of its own."""


async def budgeted(
    result: ToolResult,
    limits: Limits,
    tool_id: str,
    tool: str,
    meta: ToolCallMeta,
    spills: Spills | None,
) -> ToolResult:
    """Step 8: ``result`` as the model may read it, by the tool's ``result_overflow``.

    ``spills`` is ``None`` when the runtime has no ``read_result`` tool to read a spill back:
    a spilling tool's result is then previewed as ``"cut"`` would (and a warning logged).
    Embedded text blocks get the room its data leaves (:func:`_content_within`).
    """
    answer = await _budgeted_data(result, limits, tool_id, tool, meta, spills)
    return _content_within(answer, limits.result_bytes) if answer.content else answer


async def _budgeted_data(
    result: ToolResult,
    limits: Limits,
    tool_id: str,
    tool: str,
    meta: ToolCallMeta,
    spills: Spills | None,
) -> ToolResult:
    overflow = limits.result_overflow
    if overflow is None:
        return within_budget(result, limits.result_bytes, tool, limits)
    budget = _byte_budget(result, limits.result_bytes, limits)
    over = _over(result, budget)
    if over is None:
        return result
    text, size = over
    hint = _hint(result, limits)
    if overflow == "refuse":
        return _refused(result, size, budget, tool, hint, _tokens(limits, budget))
    handle = None
    if overflow == "spill":
        if spills is None:
            log.warning("%s spills its result, but no read_result tool is registered", tool_id)
        else:
            handle = new_handle()
            kept = result.result_json if result.model_text is None else None
            value_json = kept if kept is not None else json.dumps(text, ensure_ascii=False)
            entry = SpilledResult(
                handle, tool_id, meta.run_id, value_json, time.time() + spills.ttl
            )
            await spills.store.put(entry)
    # Within a token budget too: measured once shown, and made again smaller if over it.
    for _ in range(_TOKEN_TRIES):
        tokens = _tokens(limits, budget)
        if text_result(result.result) is not None:
            answer = _cut(result, text, size, budget, handle, tool, hint, tokens)
        else:
            answer = _previewed(result, text, size, budget, tool, handle, hint, tokens)
        smaller = _smaller_for_tokens(answer, budget, limits)
        if smaller is None:
            return answer
        budget = smaller
    return answer


_TOKEN_TRIES = 4


def _byte_budget(result: ToolResult, budget: int, limits: Limits | None) -> int:
    """``budget`` bytes, or fewer where ``limits.result_tokens`` allows fewer: the bytes the
    result's text would keep at its own rate of bytes per token (and a tenth less)."""
    tokens = limits.result_tokens if limits is not None else None
    if tokens is None:
        return budget
    encoded = result.result_json
    # No cl100k token is shorter than a byte: a text of at most `tokens` bytes fits.
    if encoded is not None and result.model_text is None and len(encoded) * 4 <= tokens:
        return budget
    text = result.for_model()
    size = text_bytes(text)
    if size <= tokens:
        return budget
    count = _count(text)
    if count <= tokens:
        return budget
    return max(1, min(budget, size * tokens * 9 // (count * 10)))


def _smaller_for_tokens(answer: ToolResult, budget: int, limits: Limits | None) -> int | None:
    """A smaller byte budget when ``answer`` is over ``limits.result_tokens``; else ``None``."""
    tokens = limits.result_tokens if limits is not None else None
    if tokens is None or answer.model_text is None:
        return None
    count = _count(answer.model_text)
    if count <= tokens:
        return None
    return max(1, budget * tokens * 9 // (count * 10))


def _tokens(limits: Limits | None, budget: int) -> int | None:
    """The token budget, when it is what chose ``budget`` (fewer bytes than the tool's byte
    budget): a notice names the budget the tool declared, in tokens, not the bytes it became."""
    tokens = limits.result_tokens if limits is not None else None
    return (
        tokens
        if tokens is not None and limits is not None and budget < limits.result_bytes
        else None
    )


def _count(text: str) -> int:
    from tooldesign.runtime.providers.tokens import token_counter

    count = token_counter()
    assert count is not None  # Limits(result_tokens=...) is refused without one
    return count(text)


def _hint(result: ToolResult, limits: Limits | None) -> str | None:
    """How to ask for less: the service's refinement hint, else the one the tool's arguments
    give (a bounded tool's, :mod:`~tooldesign.runtime.spec.narrowing`)."""
    bounds = result.bounds
    if bounds is not None and bounds.refinement_hint:
        return bounds.refinement_hint
    return limits.ask_for_less if limits is not None else None


def within_budget(
    result: ToolResult, budget: int, tool: str, limits: Limits | None = None
) -> ToolResult:
    """``result`` as the model may read it: itself when its text fits ``budget`` bytes (and
    ``limits.result_tokens``); else text cut and data refused (told how to ask for less:
    ``limits.ask_for_less``). Embedded text blocks get the room its data leaves."""
    if result.content:
        return _content_within(_data_within_budget(result, budget, tool, limits), budget)
    return _data_within_budget(result, budget, tool, limits)


def _data_within_budget(
    result: ToolResult, budget: int, tool: str, limits: Limits | None
) -> ToolResult:
    budget = _byte_budget(result, budget, limits)
    encoded = result.result_json
    # The common case, decided by a length: the model reads the encoding, or the text it
    # encodes (no longer than its encoding), and no character takes more than 4 bytes.
    if encoded is not None and result.model_text is None and len(encoded) * 4 <= budget:
        return result
    over = _over(result, budget)
    if over is None:
        return result
    text, size = over
    hint = _hint(result, limits)
    if text_result(result.result) is None:
        return _refused(result, size, budget, tool, hint, _tokens(limits, budget))
    for _ in range(_TOKEN_TRIES):
        answer = _cut(result, text, size, budget, hint=hint, tokens=_tokens(limits, budget))
        smaller = _smaller_for_tokens(answer, budget, limits)
        if smaller is None:
            return answer
        budget = smaller
    return answer


CONTENT_LEFT_OUT_KEY = "content_left_out"
"""The telemetry entry (``telemetry.extra``) naming the embedded texts left out of a result."""


def _content_within(answer: ToolResult, budget: int) -> ToolResult:
    """``answer`` with its content blocks' text within ``budget`` bytes beside its data.

    The data is the tool's typed contract and is measured first; the text of its blocks (an
    embedded resource's text, a link's name and description) takes the room left, block by
    block in order. An embedded text that does not fit is left out whole, a link to its URI
    in its place saying so (a model or client reads it there, as for any link); a link too
    long for the room keeps its URI and a short name. Images, audio and embedded bytes are
    media each provider takes by its own limits (or leaves out, by name): not counted here.
    """
    if not answer.ok:
        return answer
    room = budget - text_bytes(answer.for_model())
    kept: list[ContentBlock] = []
    left_out: list[dict[str, object]] = []
    for block in answer.content:
        if isinstance(block, EmbeddedResource) and block.text is not None:
            size = text_bytes(block.text)
            if size > room:
                left_out.append({"uri": block.uri, "bytes": size})
                block = ResourceLink(
                    block.uri,
                    _short(block.uri),
                    block.mime_type,
                    f"Its text ({byte_size(size)}) is left out here: over this tool's result "
                    f"budget of {budget:,} bytes. Read it by its URI.",
                )
            else:
                room -= size
        if isinstance(block, ResourceLink):
            size = (
                text_bytes(block.uri) + text_bytes(block.name) + text_bytes(block.description or "")
            )
            if size > room and (block.description is not None or len(block.name) > _SHORT):
                block = ResourceLink(block.uri, _short(block.name), block.mime_type)
                size = text_bytes(block.uri) + text_bytes(block.name)
            room -= size
        kept.append(block)
    if left_out:
        answer = replace(answer, content=tuple(kept))
        answer.telemetry.extra[CONTENT_LEFT_OUT_KEY] = left_out
    elif any(k is not b for k, b in zip(kept, answer.content, strict=True)):
        answer = replace(answer, content=tuple(kept))
    return answer


_SHORT = 80
"""The characters a link's name keeps where the room is short."""


def _short(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def _over(result: ToolResult, budget: int) -> tuple[str, int] | None:
    """The text the model would read and its size, when over ``budget``; else ``None``."""
    encoded = result.result_json
    if encoded is not None and result.model_text is None and len(encoded) * 4 <= budget:
        return None
    text = result.for_model()
    if len(text) * 4 <= budget:  # no UTF-8 text of this length can be over
        return None
    size = text_bytes(text)
    return None if size <= budget else (text, size)


def _cut(
    result: ToolResult,
    text: str,
    size: int,
    budget: int,
    handle: str | None = None,
    tool: str = "",
    hint: str | None = None,
    tokens: int | None = None,
) -> ToolResult:
    # The notice is measured at its longest (the most digits it can show), then written.
    notice = _notice(size, budget, None, handle, len(text), hint, tokens)
    room = max(0, budget - text_bytes(notice))
    # Cut at a character boundary: a character split in two is dropped whole.
    kept = text.encode("utf-8", "surrogatepass")[:room].decode("utf-8", "ignore")
    shown = text_bytes(kept)
    result.model_text = kept + _notice(size, budget, shown, handle, len(kept), hint, tokens)
    result.telemetry.extra[CUT_KEY] = {"bytes": size, "budget": budget, "shown": shown}
    if handle is not None:
        result.telemetry.extra[CUT_KEY]["handle"] = handle
    return result


def _notice(
    size: int,
    budget: int,
    shown: int | None = None,
    handle: str | None = None,
    chars: int = 0,
    hint: str | None = None,
    tokens: int | None = None,
) -> str:
    shown_text = f"{shown:,}" if shown is not None else f"{budget:,}"
    most = (
        f"{tokens:,} tokens at once ({budget:,} bytes here)"
        if tokens
        else f"{budget:,} bytes at once"
    )
    head = (
        f"\n\n[Cut here: the result is {byte_size(size)}; only its first {shown_text} bytes "
        f"are shown, as this tool returns at most {most}. "
    )
    if hint:
        head += f"{spill.hint_text(hint)} "
    if handle is None:
        return head + (
            "To see the rest, ask for less.]" if hint else "Ask for less to see the rest.]"
        )
    return (
        head + f'Read the rest with read_result(handle="{handle}", path="", offset={chars}); '
        "the handle works in this run only.]"
    )


def _previewed(
    result: ToolResult,
    text: str,
    size: int,
    budget: int,
    tool: str,
    handle: str | None,
    hint: str | None = None,
    tokens: int | None = None,
) -> ToolResult:
    """Data over its budget shown as a preview of its shape, with what was left out."""
    shown = _preview(result.result, size, budget, tool, handle, hint, tokens)
    if shown is None:
        try:  # a model, or values JSON cannot hold as they are: the JSON the model would read
            value = json.loads(result.result_json if result.result_json is not None else text)
        except ValueError:
            return _refused(result, size, budget, tool, hint, tokens)
        shown = _preview(value, size, budget, tool, handle, hint, tokens)
    if shown is None:
        return _refused(result, size, budget, tool, hint, tokens)
    notice = spill_notice(shown, size, budget, tool, handle, hint, tokens)
    result.model_text = shown.text + notice
    extra: dict[str, object] = {"bytes": size, "budget": budget, "shown": text_bytes(shown.text)}
    if handle is not None:
        extra["handle"] = handle
    result.telemetry.extra[CUT_KEY] = extra
    return result


def _preview(
    value: Any,
    size: int,
    budget: int,
    tool: str,
    handle: str | None,
    hint: str | None = None,
    tokens: int | None = None,
) -> Preview | None:
    """The preview of ``value`` that fits ``budget`` with its notice (``None``: none does, or
    ``value`` is not plain JSON data)."""
    if not isinstance(value, dict | list):
        return None
    try:
        room = budget - widest_notice(value, size, budget, tool, handle, hint, tokens)
        shown = None
        # The notice names what was left out, so it is known only with the preview: make more
        # room while the two do not fit.
        for _ in range(4):
            shown = preview(value, room)
            if shown is None:
                return None
            notice = spill_notice(shown, size, budget, tool, handle, hint, tokens)
            over = text_bytes(shown.text + notice) - budget
            if over <= 0:
                return shown
            room -= over + 64
    except (TypeError, ValueError):  # not plain JSON data (a model, a date…)
        return None
    return None


def _refused(
    result: ToolResult,
    size: int,
    budget: int,
    tool: str,
    hint: str | None = None,
    tokens: int | None = None,
) -> ToolResult:
    bounds = result.bounds
    if hint and bounds is not None and not bounds.refinement_hint:
        # A bounded tool's answer says how to narrow the request: the design's way, where the
        # service said none (the result keeps its own bounds).
        result.bounds = replace(bounds, refinement_hint=hint)
    refused = answers.result_too_large(result, size, budget, tool, tokens)
    refused.telemetry.outcome = str(RetryReason.RESULT_TOO_LARGE)
    refused.telemetry.extra[CUT_KEY] = {"bytes": size, "budget": budget, "shown": 0}
    return refused


__all__ = ["CONTENT_LEFT_OUT_KEY", "CUT_KEY", "READ_RESULT", "Spills", "budgeted", "within_budget"]
