"""Sync tool code run in worker threads, so that it never blocks the event loop."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any

from tooldesign.runtime.registration import Invoke, Outcome
from tooldesign.runtime.request import ToolCallMeta

SyncInvoke = Callable[[Any, ToolCallMeta], Outcome]
"""Runs one sync tool (in a worker thread): typed payload and call metadata in, outcome out."""

NOT_STARTED = "tooldesign: cancelled while waiting for a worker thread"
"""The message of the ``CancelledError`` a :class:`WorkerThreadInvoke` raises when its call is
cancelled (by ``Timeout``, say) before a worker thread took it: see :func:`cancelled_before_start`."""


class WorkerThreadInvoke:
    """Runs sync tool code in a worker thread, so that it does not block the event loop.

    A :class:`~tooldesign.runtime.Runtime` runs it on the runtime's own thread pool (sized for
    I/O-bound tools, ``Runtime(worker_threads=...)``), so tools that hang cannot starve other
    code of the event loop's default executor; elsewhere it uses that default executor. A call
    cancelled before a thread took it never runs, and says so (:func:`cancelled_before_start`).
    """

    __slots__ = ("executor", "function")

    def __init__(self, function: SyncInvoke, executor: Executor | None = None) -> None:
        self.function = function
        self.executor = executor

    def on(self, executor: Executor | None) -> WorkerThreadInvoke:
        """The same invoke, run by ``executor``."""
        return WorkerThreadInvoke(self.function, executor)

    async def __call__(self, args: Any, meta: ToolCallMeta) -> Outcome:
        started: list[bool] = []  # set by the worker thread (a list: no lock needed)
        context = contextvars.copy_context()

        def run() -> Outcome:
            started.append(True)
            return context.run(self.function, args, meta)

        future = asyncio.get_running_loop().run_in_executor(self.executor, run)
        try:
            outcome = await future
        except asyncio.CancelledError:
            if not started:  # still queued: it is dropped and will never run
                raise asyncio.CancelledError(NOT_STARTED) from None
            raise
        if inspect.isawaitable(outcome.value):  # sync code that returned a coroutine
            return replace(outcome, value=await outcome.value)
        return outcome


def in_worker_thread(function: SyncInvoke) -> Invoke:
    """An :data:`Invoke` running the sync ``function`` in a worker thread (see :class:`WorkerThreadInvoke`)."""
    return WorkerThreadInvoke(function)


def cancelled_before_start(exc: BaseException) -> bool:
    """Whether ``exc`` (a ``TimeoutError`` or ``CancelledError``) stopped a call that never started.

    True when the call was still waiting for a worker thread: the tool never ran, so the
    problem is a busy runtime, not a slow tool.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, asyncio.CancelledError) and current.args == (NOT_STARTED,):
            return True
        current = current.__cause__ or current.__context__
    return False
