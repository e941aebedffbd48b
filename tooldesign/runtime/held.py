"""Tasks an event loop holds until they end: an agent-implemented tool's inner run waiting for a
person outlives the call that started it, and must never be dropped to the garbage collector
pending (which ends its coroutine from another context, where its ``finally`` blocks cannot
reset their context variables).

A held task is strongly referenced by its loop's entry here until it is done. It is cancelled
on its own loop, from whichever thread asks (:func:`cancel`); a loop about to close cancels
what it holds and lets it end (:func:`close_held`, which ``execute_sync``'s per-thread loop
calls; ``asyncio.run`` cancels what is left itself); a task whose loop closed without either is
ended in its own context when it is next cancelled.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import weakref
from typing import Any

log = logging.getLogger("tooldesign.runtime")

DRAIN_SECONDS = 5.0
"""How long a closing event loop lets the tasks it holds end once cancelled."""

_loops: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[asyncio.Task[Any], contextvars.Context]
] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def hold(task: asyncio.Task[Any], context: contextvars.Context) -> None:
    """Keep ``task`` (started in ``context``) on its loop until it is done."""
    loop = task.get_loop()
    with _lock:
        _loops.setdefault(loop, {})[task] = context
    task.add_done_callback(_release)


def _release(task: asyncio.Task[Any]) -> None:
    with _lock:
        _loops.get(task.get_loop(), {}).pop(task, None)


def cancel(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` on its own loop, from any thread (on a loop not running now, when it
    next runs, or when it closes); on a closed loop, end it in its own context now."""
    if task.done():
        return
    loop = task.get_loop()
    if loop.is_closed():
        _discard(task)
    elif running_loop() is loop:
        task.cancel()
    else:
        loop.call_soon_threadsafe(task.cancel)


def close_held(loop: asyncio.AbstractEventLoop) -> None:
    """Before ``loop`` (not running) closes: cancel the tasks it holds and let them end (at
    most :data:`DRAIN_SECONDS`); one that will not is ended in its own context."""
    with _lock:
        tasks = [task for task in _loops.get(loop, {}) if not task.done()]
    if not tasks or loop.is_closed() or loop.is_running():
        return
    for task in tasks:
        task.cancel()
    loop.run_until_complete(asyncio.wait(tasks, timeout=DRAIN_SECONDS))
    for task in tasks:
        if not task.done():
            _discard(task)


def _discard(task: asyncio.Task[Any]) -> None:
    """End a pending task whose loop cannot run it: its coroutine closed in its own context,
    and the task not reported as destroyed pending."""
    with _lock:
        context = _loops.get(task.get_loop(), {}).pop(task, None)
    coroutine: Any = task.get_coro()
    try:
        if context is not None:
            context.run(coroutine.close)
        else:
            coroutine.close()
    except Exception:  # a finally block failing while it closes: logged, not raised
        log.exception("a task failed while it was closed")
    task._log_destroy_pending = False  # type: ignore[attr-defined]


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop of this thread (``None``: none)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
