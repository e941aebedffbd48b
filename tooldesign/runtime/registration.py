"""Registrations: what a generated ``executor.py`` hands to the :class:`Runtime`.

A registration lists, per tool, its spec, its codecs and how to invoke it: a bound method
(called through the generated transforms) or an application handler. Interceptors, which wrap
the calls of a runtime or of one registration, are typed here too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tooldesign.contract.errors import UserError
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.specs import ToolSpec
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
    method: str | None = None
    """The bound method that returned ``value`` (``module:Class.method``): a result it gives
    that the tool's type rejects is logged as that method's."""


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


class Remote(Protocol):
    """Where a remote registration's calls go: see ``tooldesign.runtime.transports``."""

    def live(self) -> bool | None:
        """Whether a worker serving the toolset was live when last seen (``None``: not seen yet)."""
        ...

    async def run(self, tool_id: str, request: ToolRequest, meta: ToolCallMeta) -> ToolResult:
        """The call answered where the toolset runs, its result checked there."""
        ...


@dataclass(frozen=True, slots=True)
class ToolsetRegistration:
    service: str
    toolset: str
    tools: tuple[ToolBinding, ...]
    interceptors: tuple[Interceptor, ...] = ()
    remote: Remote | None = None
    """Set for a toolset served by workers in other processes (``remote_registration``)."""

    @property
    def key(self) -> str:
        return f"{self.service}.{self.toolset}"


class RegistrationError(UserError):
    """A registration that cannot work: a missing handler or service, a clashing tool name…"""
