"""The call behind a task (:mod:`~tooldesign.runtime.mcp.tasks`): its remote call, found again by
a server that takes over a task whose server is gone, and cancelled on the workers when nobody
waits for it any more; and whether it ended with no result to give (the task fails)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tooldesign.runtime.control.exchanges import InputUnavailable
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.reasons import RetryReason
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.transports.wire import CallMessage

if TYPE_CHECKING:
    from tooldesign.runtime.mcp.server import ToolServer

log = logging.getLogger("tooldesign.runtime.mcp")


def remote_of(server: ToolServer | None, name: str) -> tuple[Any, Any]:
    """The remote toolset that runs the tool ``name`` and its spec (``None, None``: the tool
    runs in this process, or is not registered)."""
    registry = getattr(getattr(server, "runtime", None), "_registry", None)
    tool = registry.resolve(name) if registry is not None else None
    if tool is None or tool.registration.remote is None:
        return None, None
    return tool.registration.remote, tool.spec


def repeatable_here(server: ToolServer | None, name: str) -> bool:
    """Whether the tool ``name`` runs in this process and running it again is harmless
    (``read_only`` or ``idempotent``): a task of it whose server is gone is run again here."""
    registry = getattr(getattr(server, "runtime", None), "_registry", None)
    tool = registry.resolve(name) if registry is not None else None
    if tool is None or tool.registration.remote is not None:
        return False
    annotations = tool.spec.annotations
    return bool(annotations.idempotent or annotations.read_only)


async def cancel_remote(
    server: ToolServer | None, task_id: str, tool: str, call: Mapping[str, Any]
) -> None:
    """Cancel the call of a stranded task (its server is gone; nobody here waits for it) on the
    workers: the handler running it sees ``CancelledError``, a call still queued never starts."""
    remote, spec = remote_of(server, tool)
    if remote is None or not call.get("callId"):
        return
    message = CallMessage(
        call_id=call["callId"],
        tool=spec.id,
        toolset=remote.key,
        version=remote.version,
        payload=json.dumps(call.get("arguments") or {}),
        meta=ToolCallMeta(),
    )
    try:
        start = getattr(remote.transport, "start", None)
        if start is not None:
            await start()
        await remote.transport.cancel(message)
    except Exception:
        log.exception("task %s: cancelling its call %s failed", task_id, call["callId"])


def failure(result: ToolResult | None, tool: str) -> str:
    """What a failed task says of its call: the runtime's own words when its outcome is unknown
    (it may have taken effect, and it was not run again), else that the tool failed."""
    hint = None if result is None else result.retry_hint
    if hint is not None and hint.reason is RetryReason.OUTCOME_UNKNOWN:
        return hint.message
    return f"The tool {tool!r} failed with an internal error."


def crashed(result: ToolResult | None, server: ToolServer) -> bool:
    """Whether the call ended with no result to give: the tool crashed (an exception the
    application does not show the model) or its worker was lost."""
    if result is None or result.error is None:
        return False
    hint = result.retry_hint
    if hint is not None and hint.reason is RetryReason.OUTCOME_UNKNOWN:
        return True
    cause = result.error.cause
    if cause is None or isinstance(cause, (ToolFailure, InputUnavailable)):
        return False
    shown: tuple[type[BaseException], ...] = getattr(
        getattr(server.runtime, "_pipeline", None), "expose", ()
    )
    return hint is None and not isinstance(cause, shown)
