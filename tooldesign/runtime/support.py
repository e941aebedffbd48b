"""What generated packages call: the one module their ``specs.py``, ``codecs.py`` and
``executor.py`` import, as ``from tooldesign.runtime import support as rt``.

It holds exactly the names generated code uses, so that the public API
(``tooldesign.runtime``) stays what users write in their own code and the generated code's
needs are in one place. The helpers only generated executors call are defined here; the other
names live where they belong and are re-exported.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from tooldesign.contract.agents import AgentContract
from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.contract.content import WithContent
from tooldesign.contract.ident import ToolIdent
from tooldesign.contract.limits import ToolLimits
from tooldesign.contract.repairs import FieldRepair
from tooldesign.contract.rules import ArgumentRule
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.agents import AgentTask, agent_invoke
from tooldesign.runtime.mcp.client import MCPClient, MCPServerParams
from tooldesign.runtime.registration import (
    Interceptor,
    Invoke,
    Outcome,
    RegistrationError,
    ToolBinding,
    ToolsetRegistration,
)
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.lazy_types import LazyTypes, ModelRef
from tooldesign.runtime.spec.specs import BoundsSpec, ServerDataSpec, ToolSpec, TypeSpec
from tooldesign.runtime.validation.codecs import PayloadCodec, ResultCodec
from tooldesign.runtime.validation.rules import check_rules
from tooldesign.runtime.workers import WorkerThreadInvoke, in_worker_thread

__all__ = [
    "AgentContract",
    "AgentTask",
    "ArgumentRule",
    "BoundsSpec",
    "ConfirmSpec",
    "FieldRepair",
    "Interceptor",
    "Invoke",
    "LazyTypes",
    "MCPClient",
    "MCPServerParams",
    "ModelRef",
    "Outcome",
    "PayloadCodec",
    "ResultCodec",
    "ServerDataSpec",
    "TaskSupport",
    "ToolAnnotations",
    "ToolBinding",
    "ToolCallMeta",
    "ToolIdent",
    "ToolLimits",
    "ToolResult",
    "ToolSpec",
    "ToolsetRegistration",
    "TypeSpec",
    "WithContent",
    "agent_invoke",
    "bound_service",
    "check_registration",
    "check_rules",
    "handler_invoke",
    "in_worker_thread",
]

_Handler = Callable[[Any, ToolCallMeta], Any]


def handler_invoke(handler: _Handler) -> Invoke:
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


def _wrong_parameters(handler: Any) -> str | None:
    """The parameters of a handler that cannot be called as ``handler(args, meta)``, or
    ``None`` when it can (``*args``, defaults, ``functools.partial``, bound methods and
    callable objects included; a callable whose signature Python cannot read is trusted)."""
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(None, None)
    except TypeError:
        bare = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
        return str(signature.replace(parameters=bare, return_annotation=signature.empty))
    return None


_ServiceT = TypeVar("_ServiceT")


def bound_service(service: _ServiceT | None, toolset: str) -> _ServiceT:
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
    agents: Iterable[str] = (),
) -> None:
    """Fail at registration, not at the first call: every handler present, a service if needed.

    ``service_bound`` names the tools bound to methods of ``service_type``: a service is needed
    unless each of them has a handler (tools bound to functions need none). Left out, every
    tool without a handler is taken to need it. ``agents`` names the tools implemented by an
    agent: their handler is an ``AgentImplementation``, called with an ``AgentTask``.
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
    by_agent = set(agents)
    for name, handler in given.items():
        takes = None if name in by_agent else _wrong_parameters(handler)
        if takes is not None:
            raise RegistrationError(
                f"toolset {toolset!r}: the handler for {name!r} takes {takes}, but is called "
                "with two arguments, the tool's typed arguments and the call's metadata: "
                "def handler(args, meta) (or async def)"
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
