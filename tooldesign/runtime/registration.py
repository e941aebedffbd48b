"""Registrations: what a generated ``executor.py`` hands to the :class:`Runtime`.

A registration lists, per tool, its spec, its codecs and how to invoke it: a bound method
(called through the generated transforms) or an application handler.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from tooldesign.errors import UserError
from tooldesign.runtime.result import ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.specs import ToolSpec
from tooldesign.runtime.validation.codecs import PayloadCodec, ResultCodec


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a tool's implementation produced.

    ``value`` is the result (a generated model, a dict, a primitive) or a ``ToolResult``;
    ``server_data`` maps a kind to a function producing its data, called only when the kind is
    on for the call. ``convert``, when set, turns ``value`` (what a bound method returned) into
    the tool's result type: the runtime runs it, so a method result the tool's type rejects is
    answered as a malformed response, not as a crash in the executor.
    """

    value: Any
    server_data: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    convert: Callable[[Any], Any] | None = None


Invoke = Callable[[Any, ToolCallMeta], Awaitable[Outcome]]
"""Runs one tool: typed payload and call metadata in, outcome out."""

CallNext = Callable[[ToolRequest, ToolCallMeta], Awaitable[ToolResult]]


class Interceptor(Protocol):
    """Wraps tool calls: rewrite the request, short-circuit with a result, or post-process one.

    ``call_next`` runs the rest of the chain (and, at its end, decoding, the call itself and
    encoding). Interceptors run in registration order: the runtime's, then the toolset's.
    """

    def __call__(
        self, request: ToolRequest, meta: ToolCallMeta, call_next: CallNext, /
    ) -> Awaitable[ToolResult]: ...


@dataclass(frozen=True, slots=True)
class ToolBinding:
    spec: ToolSpec[Any, Any]
    payload: PayloadCodec[Any]
    result: ResultCodec[Any]
    invoke: Invoke


@dataclass(frozen=True, slots=True)
class ToolsetRegistration:
    service: str
    toolset: str
    tools: tuple[ToolBinding, ...]
    interceptors: tuple[Interceptor, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.service}.{self.toolset}"


class RegistrationError(UserError):
    """A registration that cannot work: a missing handler or service, a clashing tool name…"""


Handler = Callable[[Any, ToolCallMeta], Any]

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
            return Outcome(await outcome.value, outcome.server_data, outcome.convert)
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


def handler_invoke(handler: Handler) -> Invoke:
    """Invoke an application handler: awaited if async, run in a worker thread if not."""
    is_async = inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 - an object with an async __call__
    )
    if is_async:

        async def invoke_async(args: Any, meta: ToolCallMeta) -> Outcome:
            return Outcome(await handler(args, meta))

        return invoke_async

    def call(args: Any, meta: ToolCallMeta) -> Outcome:
        return Outcome(handler(args, meta))

    return WorkerThreadInvoke(call)


ServiceT = TypeVar("ServiceT")


def bound_service(service: ServiceT | None, toolset: str) -> ServiceT:
    """The service a bound tool calls; :func:`check_registration` has made sure there is one."""
    if service is None:
        raise RegistrationError(f"toolset {toolset!r}: a tool bound to a method needs a service")
    return service


def check_registration(
    toolset: str,
    *,
    handlers: Mapping[str, Any] | None,
    required: Iterable[str],
    known: Iterable[str],
    service: Any = None,
    service_type: type | None = None,
    service_bound: Iterable[str] | None = None,
) -> None:
    """Fail at registration, not at the first call: every handler present, a service if needed.

    ``service_bound`` names the tools bound to methods of ``service_type``: a service is needed
    unless each of them has a handler (tools bound to functions need none). Left out, every
    tool without a handler is taken to need it.
    """
    given = dict(handlers or {})
    known_names = set(known)
    unknown = sorted(set(given) - known_names)
    if unknown:
        raise RegistrationError(
            f"toolset {toolset!r}: handlers for unknown tools {', '.join(unknown)} (tools: {', '.join(sorted(known_names))})"
        )
    missing = [name for name in required if name not in given]
    if missing:
        raise RegistrationError(
            f"toolset {toolset!r}: no handler for {', '.join(missing)} (these tools have no BindTo; pass handlers={{...}})"
        )
    not_callable = sorted(name for name, handler in given.items() if not callable(handler))
    if not_callable:
        raise RegistrationError(
            f"toolset {toolset!r}: handlers for {', '.join(not_callable)} are not callable"
        )
    if service_type is not None:
        needing = known_names if service_bound is None else set(service_bound)
        bound = [name for name in needing if name not in given]
        if bound and service is None:
            raise RegistrationError(
                f"toolset {toolset!r}: tools {', '.join(sorted(bound))} call methods of {service_type.__qualname__}; "
                "pass service=<an instance>"
            )
        if service is not None and not isinstance(service, service_type):
            raise RegistrationError(
                f"toolset {toolset!r}: service must be a {service_type.__qualname__}, got {type(service).__qualname__}"
            )
