"""Step 6 of a call, run (the pipeline awaits the binding's invoke): the bound method or the
handler, called with the decoded arguments and the call's metadata (sync code on the runtime's
worker threads, see :mod:`.workers`).

What the tool raises becomes an answer: a :class:`ToolFailure` in its own words, an exception
the application exposes in its own text, anything else as a generic failure (logged in full).
What propagates is the application's own control flow: ``KeyboardInterrupt``,
``GeneratorExit``, and the cancellation of the task running the call. A tool raising
``SystemExit`` (it must not end the agent) or a ``CancelledError`` of its own (a sub-task's,
not its caller's) is an error result.
"""

from __future__ import annotations

import asyncio
import logging

from tooldesign.runtime import answers
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.registry import RegisteredTool
from tooldesign.runtime.result import ToolResult

log = logging.getLogger("tooldesign.runtime")


def failed(
    tool: RegisteredTool, exc: BaseException, expose: tuple[type[BaseException], ...]
) -> ToolResult:
    """The answer to a tool that raised ``exc`` (a failure, not control flow: see
    :func:`propagates`)."""
    spec = tool.spec
    if isinstance(exc, ToolFailure):
        return answers.tool_refused(spec.id, spec.name, exc)
    if isinstance(exc, expose):
        return answers.tool_error_shown(spec.id, spec.name, exc)
    log.error("tool %s raised", spec.id, exc_info=exc)
    return answers.tool_crashed(spec.id, spec.name, exc)


def propagates(exc: BaseException) -> bool:
    """Whether ``exc`` is the application's control flow rather than a failure.

    ``Exception`` and ``SystemExit`` are failures (a tool must not end the agent). A
    ``CancelledError`` is the caller cancelling only while the task running the call is being
    cancelled (``Task.cancelling()``, which is how ``asyncio.timeout`` and ``Timeout`` stop a
    call); otherwise it escaped from a task the tool itself ran. ``KeyboardInterrupt``,
    ``GeneratorExit`` and other ``BaseException``s are not failures: they propagate.
    """
    if isinstance(exc, asyncio.CancelledError):
        task = asyncio.current_task()
        return task is None or task.cancelling() > 0
    return not isinstance(exc, Exception | SystemExit)
