"""``Runtime.execute_sync``: a call run to its end from synchronous code, on the calling thread's
own event loop."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any

from tooldesign.runtime.held import close_held
from tooldesign.runtime.result import ToolResult


def run_sync(call: Coroutine[Any, Any, ToolResult]) -> ToolResult:
    """``call`` run to its end on this thread's event loop, in the caller's context (its current
    span, its progress listeners). Not from inside a running event loop."""
    # asyncio's own check, without raising for the usual answer (no loop): every call pays it.
    if asyncio._get_running_loop() is not None:
        call.close()
        raise RuntimeError(
            "execute_sync cannot run inside a running event loop; await execute() instead"
        )
    loop: _ThreadLoop | None = getattr(_thread_loops, "loop", None)
    if loop is None:
        loop = _thread_loops.loop = _ThreadLoop()
    return loop.run(call, contextvars.copy_context())


class _ThreadLoop:
    """One thread's event loop for ``execute_sync``, closed when the thread ends.

    Held in a thread-local: when the thread ends, the thread-local drops it and the loop is
    closed then, instead of holding its file descriptors until garbage collection warns.
    """

    __slots__ = ("runner",)

    def __init__(self) -> None:
        self.runner = asyncio.Runner()

    def run(
        self, call: Coroutine[Any, Any, ToolResult], context: contextvars.Context
    ) -> ToolResult:
        """``call`` run to its end on this thread's loop.

        Not through ``Runner.run``: in the main thread it swaps the SIGINT handler on every
        call, and a call costs several times what it runs. An interruption (Ctrl-C) cancels
        the call and waits for it to end, so nothing is left pending on the loop.
        """
        loop = self.runner.get_loop()
        task = loop.create_task(call, context=context)
        try:
            return loop.run_until_complete(task)
        except BaseException:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_until_complete(task)
            raise

    def __del__(self) -> None:
        try:
            loop = self.runner.get_loop()
        except RuntimeError:  # never initialised, or closed
            return
        if loop.is_running() or loop.is_closed():
            return
        # Between calls, what may still be pending is an agent-implemented tool's inner run
        # waiting for a person: cancelled and let end first (bounded), never left to the
        # collector. Otherwise closing only: running the loop here (the ending thread, or
        # whoever collects) could block. The default executor is shut down without waiting.
        close_held(loop)
        loop.close()


_thread_loops = threading.local()
