"""Sync tool code run in worker threads, so that it never blocks the event loop."""

from __future__ import annotations

import asyncio
import collections
import contextvars
import inspect
import os
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import replace
from typing import Any

from tooldesign.runtime.registration import Invoke, Outcome
from tooldesign.runtime.request import ToolCallMeta

SyncInvoke = Callable[[Any, ToolCallMeta], Outcome]
"""Runs one sync tool (in a worker thread): typed payload and call metadata in, outcome out."""

NOT_STARTED = "tooldesign: cancelled while waiting for a worker thread"
"""The message of the ``CancelledError`` a :class:`WorkerThreadInvoke` raises when its call is
cancelled (by ``Timeout``, say) before a worker thread took it: see :func:`cancelled_before_start`."""


class RunToEnd:
    """Where cancelling a call must not hide a sync tool's run that started (an MCP task's
    call: cancelling a task is cooperative, and a task whose effect happened is not
    ``cancelled``). Set in :data:`RUN_TO_END` for the call; a cancel asked through it
    (:meth:`ask`, then cancelling the call's task) of a call whose worker thread has started
    waits for the thread, and the call goes on with what the tool returned; a call still
    waiting for a thread is dropped, never runs, and is cancelled. A cancel not asked through
    it (a ``Timeout``'s, say) is not held."""

    __slots__ = ("asked",)

    def __init__(self) -> None:
        self.asked = False

    def ask(self) -> None:
        """The next cancellation of the call is this one: a started thread is waited for."""
        self.asked = True


RUN_TO_END: contextvars.ContextVar[RunToEnd | None] = contextvars.ContextVar(
    "tooldesign_run_to_end", default=None
)


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
        state = ["queued"]  # "started" by the worker thread, or "dropped" by a cancel
        lock = threading.Lock()
        context = contextvars.copy_context()
        end = RUN_TO_END.get()

        def run() -> Outcome | None:
            with lock:
                if state[0] == "dropped":
                    return None
                state[0] = "started"
            return context.run(self.function, args, meta)

        future = asyncio.get_running_loop().run_in_executor(self.executor, run)
        try:
            # Shielded where a started run is waited for: the thread's answer stays readable.
            done = await (future if end is None else asyncio.shield(future))
        except asyncio.CancelledError:
            with lock:
                started = state[0] == "started"
                if not started:
                    state[0] = "dropped"
            if not started:  # still queued: it is dropped and will never run
                future.cancel()
                raise asyncio.CancelledError(NOT_STARTED) from None
            if end is None or not end.asked:
                if end is not None:  # the shielded run's own end is not waited for
                    future.add_done_callback(_retrieved)
                raise
            # Its effect may be under way: the call goes on with what the tool returns.
            done = await _to_its_end(future)
        assert done is not None  # a run that started returns its outcome
        outcome = done
        if inspect.isawaitable(outcome.value):  # sync code that returned a coroutine
            return replace(outcome, value=await outcome.value)
        return outcome


async def _to_its_end(future: asyncio.Future[Any]) -> Any:
    """The run's answer, waited for through every cancellation (each asked: see
    :class:`RunToEnd`)."""
    task = asyncio.current_task()
    while True:
        if task is not None:
            task.uncancel()
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            if future.cancelled():
                raise


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def in_worker_thread(function: SyncInvoke) -> Invoke:
    """An :data:`Invoke` running the sync ``function`` in a worker thread (see :class:`WorkerThreadInvoke`)."""
    return WorkerThreadInvoke(function)


_Job = tuple["Future[Any]", Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class WorkerThreads(Executor):
    """The threads a runtime runs sync tools on: up to ``max_workers``, each started when every
    other is busy, and the one that finished last takes the next call.

    ``ThreadPoolExecutor`` hands each call to whichever of its waiting threads wakes first, and
    starts a second thread as soon as a call comes before the first says it is idle again
    (which one call after another does, on every call): calls then rotate over its threads,
    each woken cold. Here a thread that finished goes on top of the idle ones and is handed the
    next call directly. Like ``ThreadPoolExecutor``: a call cancelled before a thread took it
    never runs; calls wait in order when every thread is busy; at the interpreter's exit the
    idle threads end and the busy ones are waited for.
    """

    def __init__(self, max_workers: int, thread_name_prefix: str) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._max = max_workers
        self._prefix = thread_name_prefix
        self._lock = threading.Lock()
        self._idle: list[_WorkerThread] = []  # the last to finish on top
        self._waiting: collections.deque[_Job] = collections.deque()
        self._threads: list[threading.Thread] = []
        self._shutdown = False
        _POOLS.add(self)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        job: _Job = (future, fn, args, kwargs)
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if self._idle:
                self._idle.pop().hand(job)
                return future
            if len(self._threads) >= self._max:
                self._waiting.append(job)
                return future
            worker = _WorkerThread(self, job)
            thread = threading.Thread(
                target=worker.run, name=f"{self._prefix}_{len(self._threads)}"
            )
            self._threads.append(thread)
        thread.start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            if cancel_futures:
                while self._waiting:
                    self._waiting.popleft()[0].cancel()
            idle, self._idle = self._idle, []
            threads = list(self._threads)
        for worker in idle:
            worker.hand(None)
        if wait:
            for thread in threads:
                thread.join()

    def _next(self, worker: _WorkerThread) -> _Job | None:
        """What ``worker`` runs next: a waiting call, else the next handed to it (``None``:
        the pool shut down)."""
        with self._lock:
            if self._waiting:
                return self._waiting.popleft()
            if self._shutdown:
                return None
            self._idle.append(worker)
        return worker.wait()


class _WorkerThread:
    """One thread of :class:`WorkerThreads`: runs what it is handed until it is handed ``None``."""

    __slots__ = ("_handed", "_job", "_pool")

    def __init__(self, pool: WorkerThreads, job: _Job) -> None:
        self._pool = pool
        self._job: _Job | None = job
        self._handed = threading.Lock()
        self._handed.acquire()  # released by hand()

    def hand(self, job: _Job | None) -> None:
        self._job = job
        self._handed.release()

    def wait(self) -> _Job | None:
        self._handed.acquire()
        job, self._job = self._job, None
        return job

    def run(self) -> None:
        job, self._job = self._job, None
        while job is not None:
            future, fn, args, kwargs = job
            del job
            if future.set_running_or_notify_cancel():  # a cancelled call never runs
                try:
                    result = fn(*args, **kwargs)
                except BaseException as exc:  # noqa: BLE001 (the future carries it, as in ThreadPoolExecutor)
                    future.set_exception(exc)
                    del exc
                else:
                    future.set_result(result)
                    del result
            del future, fn, args, kwargs
            job = self._pool._next(self)


_POOLS: weakref.WeakSet[WorkerThreads] = weakref.WeakSet()


def _at_exit() -> None:
    # As ThreadPoolExecutor's: idle threads end, busy ones finish what they run.
    for pool in list(_POOLS):
        pool.shutdown(wait=True)


def _forked() -> None:
    # A forked child has none of its parent's threads: its pools start theirs again.
    for pool in list(_POOLS):
        pool._lock = threading.Lock()
        pool._idle, pool._threads, pool._waiting = [], [], collections.deque()


threading._register_atexit(_at_exit)  # type: ignore[attr-defined]  # before non-daemon joins
os.register_at_fork(after_in_child=_forked)


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
