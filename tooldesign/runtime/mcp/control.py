"""Approvals, progress and trace context of calls served over MCP.

- **Approval.** A call that needs a person's approval is confirmed with the client through
  MCP elicitation (form mode: one ``approve`` checkbox under the design's prompt) when the
  client declared the capability. On the handshake protocol (≤ 2025-11-25) the server asks
  mid-call (``elicitation/create``); on 2026-07-28 it answers ``input_required`` with the
  question, and the client calls again with the answer, whose ``requestState`` must be the
  approval id of the call as sent again (the id binds the exact arguments, so an answer can
  never unlock another call). Accepting with ``approve`` checked grants the call; declining,
  or accepting unchecked, denies it; dismissing, or an answer that does not match the form,
  leaves it awaiting. A client that cannot be
  asked gets ``isError`` with the pending approval (``_meta`` key :data:`APPROVAL_META_KEY`)
  and a text telling the model to wait. A runtime with an approver of its own decides itself.
- **Progress and logs.** A client that sent a progress token gets ``notifications/progress``
  for what the tool reports (:func:`~tooldesign.runtime.report_progress`), and a client gets
  ``notifications/message`` for what it logs (:func:`~tooldesign.runtime.log_message`) at
  the level it set with ``logging/setLevel`` (handshake protocol; every level until it sets
  one) or asked for in the request's ``_meta`` (2026-07-28), in order, without the tool ever
  waiting for the client.
- **Trace context.** A ``traceparent`` in the request's ``_meta`` (or, failing that, in the
  HTTP headers) parents the SDK's server span and the runtime's ``execute_tool`` span, and
  travels on with the call (``ToolCallMeta.trace``) to workers.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, cast

from mcp import types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.types.version import is_version_at_least
from starlette.requests import Request
from tooldesign.jsonschema import keywords as K
from tooldesign.runtime.control import logs, progress
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest
from tooldesign.runtime.control.logs import LogLevel, ToolLog
from tooldesign.runtime.control.otel import TRACE_KEYS
from tooldesign.runtime.control.progress import ProgressUpdate
from tooldesign.runtime.request import ToolCallMeta

log = logging.getLogger("tooldesign.runtime.mcp")

# The SDK marks sending log messages deprecated as of 2026-07-28, where they still ride the
# request that opted in (the session filters by protocol era): sent without its warning, which
# would otherwise reach the application's users for each message.
_send_log_message: Any = getattr(
    ServerSession.send_log_message, "__wrapped__", ServerSession.send_log_message
)

APPROVAL_KEY = "approval"
"""The key of the approval question in an ``input_required`` result's ``inputRequests``."""

APPROVAL_META_KEY = "tooldesign/approval"
"""The ``_meta`` key of a ``CallToolResult`` awaiting approval: the approval request."""

_INPUT_REQUIRED_VERSION = "2026-07-28"
_MAX_QUEUED = 64

_APPROVAL_SCHEMA: dict[str, Any] = {
    K.TYPE: "object",
    K.PROPERTIES: {
        "approve": {
            K.TYPE: "boolean",
            K.TITLE: "Approve this call",
            K.DESCRIPTION: "Check to let the call run; leave unchecked (or decline) to refuse it.",
            K.DEFAULT: False,
        }
    },
    K.REQUIRED: ["approve"],
}


# ── approvals ─────────────────────────────────────────────────────────────────────────────


def can_elicit(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared form elicitation (a bare ``elicitation: {}`` counts)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def asks_in_round_trips(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this connection elicits through ``input_required`` results (2026-07-28 on)."""
    return is_version_at_least(ctx.protocol_version, _INPUT_REQUIRED_VERSION)


def approval_question(request: ApprovalRequest) -> types.ElicitRequest:
    """The elicitation that asks a person about ``request``."""
    return types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            message=f"{request.prompt}\n\nTool {request.tool!r} wants to run with these "
            f"arguments: {_arguments(request)}",
            requested_schema=_APPROVAL_SCHEMA,
        )
    )


def _arguments(request: ApprovalRequest) -> str:
    import json

    return json.dumps(dict(request.arguments), ensure_ascii=False, sort_keys=True)


def decision_of(
    answer: types.ElicitResult, request: ApprovalRequest, client: str | None
) -> ApprovalDecision | None:
    """The client's answer as a decision (``None``: no choice was made).

    Declining is a person's refusal; accepting is a decision only with the form as asked (one
    ``approve`` boolean, nothing else): an answer that does not match it says nothing of what
    the person chose, and leaves the call awaiting a decision, as dismissing does.
    """
    by = f"mcp client {client}" if client else "mcp client"
    if answer.action == "decline":
        return ApprovalDecision(request.id, False, by=by)
    if answer.action != "accept":
        return None
    if approval_mismatch(answer) is not None:
        log.warning("an answer to approval %s does not match its form; still awaiting", request.id)
        return None
    assert answer.content is not None
    return ApprovalDecision(request.id, answer.content["approve"] is True, by=by)


def approval_mismatch(answer: types.ElicitResult) -> str | None:
    """What makes an accepted answer to the approval question say nothing of what the person
    chose (``None``: it is one ``approve`` boolean, as asked)."""
    content = answer.content
    if answer.action != "accept":
        return None
    if not isinstance(content, Mapping) or set(content) != {"approve"}:
        return "the approval form has one field, approve"
    if not isinstance(content["approve"], bool):
        return "approve is true or false"
    return None


def elicitation_approver(ctx: ServerRequestContext[Any, Any], client: str | None) -> Any:
    """A per-call approver asking the client mid-call (the handshake protocol)."""

    async def approve(request: ApprovalRequest, meta: ToolCallMeta) -> ApprovalDecision | None:
        try:
            answer = await ctx.session.send_request(
                approval_question(request),
                types.ElicitResult,
                metadata=_related(ctx),
            )
        except Exception:  # the client could not answer: the call stays awaiting approval
            log.warning(
                "elicitation for call %s of %s failed", request.id, request.tool_id, exc_info=True
            )
            return None
        return decision_of(answer, request, client)

    return approve


def _related(ctx: ServerRequestContext[Any, Any]) -> Any:
    from mcp.shared.message import ServerMessageMetadata

    return ServerMessageMetadata(related_request_id=ctx.request_id)


def answered_decision(
    params: types.CallToolRequestParams, request: ApprovalRequest, client: str | None
) -> ApprovalDecision | None:
    """The decision a 2026-07-28 client sent back with its call again, if it answers exactly
    this call's question (its ``requestState`` is the approval id asked about)."""
    responses = params.input_responses or {}
    answer = responses.get(APPROVAL_KEY)
    if params.request_state != request.id or not isinstance(answer, types.ElicitResult):
        return None
    return decision_of(answer, request, client)


def input_required(request: ApprovalRequest) -> types.InputRequiredResult:
    """The ``input_required`` answer asking the client about ``request``."""
    return types.InputRequiredResult(
        input_requests={APPROVAL_KEY: approval_question(request)}, request_state=request.id
    )


# ── progress and logs ────────────────────────────────────────────────────────────────────


def forwarded(
    ctx: ServerRequestContext[Any, Any], tool: str, log_level: LogLevel | None
) -> _Forwarding:
    """Within the ``async with`` block, what the call reports goes to the client, in the order
    reported: progress as ``notifications/progress`` (the SDK sends them only to a client that
    asked, with a progress token), log messages as ``notifications/message`` naming ``tool`` as
    their logger unless they name one — at ``log_level`` or above (``None``: every level) on
    the handshake protocol; on 2026-07-28 the SDK sends only what the request's ``_meta`` asked
    for. A tool never waits for the client: what comes past a small queue is dropped."""
    return _Forwarding(ctx, tool, log_level)


class _Forwarding:
    """The block of :func:`forwarded`: its sinks hand what a call reports (from any thread) to
    a :class:`_Forwarder` made on the event loop once there is something to send. On every
    call's path, and most calls report nothing: a class, not a generator-based context
    manager, with nothing built for the notifications until one comes."""

    __slots__ = ("ctx", "forwarder", "handed", "log_level", "logs", "loop", "progress", "tool")

    def __init__(
        self, ctx: ServerRequestContext[Any, Any], tool: str, log_level: LogLevel | None
    ) -> None:
        self.ctx = ctx
        self.tool = tool
        self.log_level = log_level
        self.handed = False
        """Whether anything was handed over (set from any thread)."""
        self.forwarder: _Forwarder | None = None

    async def __aenter__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.progress = progress.attach(self._hand)
        self.logs = logs.attach(self._hand_log)

    def _hand(self, item: ProgressUpdate | ToolLog) -> None:  # any thread
        self.handed = True
        self.loop.call_soon_threadsafe(self._put, item)

    def _hand_log(self, message: ToolLog) -> None:
        if self.log_level is None or logs.at_least(message.level, self.log_level):
            self._hand(message)

    def _put(self, item: ProgressUpdate | ToolLog) -> None:  # the event loop
        if self.forwarder is None:
            self.forwarder = _Forwarder(self.ctx, self.tool)
        self.forwarder.put(item)

    async def __aexit__(self, kind: type[BaseException] | None, *_: object) -> None:
        logs.detach(self.logs)
        progress.detach(self.progress)
        # The gates hold this block's sinks, which hold the block: without the cycle, the
        # block and the request it holds are freed at once, not by the garbage collector.
        del self.logs, self.progress
        if kind is not None:
            if self.forwarder is not None:
                self.forwarder.stop()
            return
        # What worker threads handed over is queued behind this callback; then it is all sent.
        # (A call that reported nothing skips the loop's turn: the call ended, so its threads
        # had handed over all they reported before it did.)
        if self.handed:
            await _drained(self.loop)
            if self.forwarder is not None:
                await self.forwarder.sent()


class _Forwarder:
    """Sends one call's notifications in order, from a task started only once there is one to
    send (most calls report nothing, and pay nothing for it). Runs on the event loop only."""

    __slots__ = ("ctx", "queue", "task", "tool")

    def __init__(self, ctx: ServerRequestContext[Any, Any], tool: str) -> None:
        self.ctx = ctx
        self.tool = tool
        self.queue: collections.deque[ProgressUpdate | ToolLog] = collections.deque()
        self.task: asyncio.Task[None] | None = None

    def put(self, item: ProgressUpdate | ToolLog) -> None:
        if len(self.queue) >= _MAX_QUEUED:
            return  # a slow client misses intermediate updates, never the tool's time
        self.queue.append(item)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        ctx = self.ctx
        while self.queue:
            item = self.queue.popleft()
            try:
                if isinstance(item, ToolLog):
                    await _send_log_message(
                        ctx.session, item.level, item.data, item.logger or self.tool, ctx.request_id
                    )
                else:
                    await ctx.session.report_progress(item.progress, item.total, item.message)
            except Exception:  # the client went away: the call goes on
                log.debug("a notification could not be sent", exc_info=True)
        self.task = None

    async def sent(self) -> None:
        """Wait until everything queued is sent (cancelled with the call, if it is)."""
        task = self.task
        if task is None:
            return
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            task.cancel()
            raise

    def stop(self) -> None:
        self.queue.clear()
        if self.task is not None:
            self.task.cancel()


async def _drained(loop: asyncio.AbstractEventLoop) -> None:
    done = loop.create_future()
    loop.call_soon(done.set_result, None)
    await done


# ── trace context ─────────────────────────────────────────────────────────────────────────


async def trace_from_headers(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Give a ``tools/call`` that carries W3C trace context only in its HTTP headers the same
    context in its ``_meta``, where the SDK's server span (and so the runtime's) takes it from.
    Runs before the SDK's tracing middleware."""
    request = ctx.request
    if ctx.method != "tools/call" or not isinstance(request, Request):
        return await call_next(ctx)
    meta: Mapping[str, Any] = ctx.meta or {}
    if "traceparent" in meta or "traceparent" not in request.headers:
        return await call_next(ctx)
    carried = {
        **meta,
        **{key: request.headers[key] for key in TRACE_KEYS if key in request.headers},
    }
    return await call_next(dataclasses.replace(ctx, meta=cast("types.RequestParamsMeta", carried)))


def trace_of(request_meta: Mapping[str, Any]) -> dict[str, str]:
    """The W3C trace context a request's ``_meta`` carries."""
    return {
        key: value
        for key in TRACE_KEYS
        if isinstance(value := request_meta.get(key), str) and value
    }
