"""The interface between an agent's runtime and the engine that carries its calls to workers.

A transport sends one call and waits for its answer until the call's deadline, and says which
toolsets have live workers. Redis Streams is one engine (``transports.redis``); another (NATS
JetStream, say) implements the same two things and the runtime does not change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from tooldesign.contract.errors import UserError
from tooldesign.runtime.transports.wire import CallMessage


@dataclass(frozen=True, slots=True)
class Replied:
    """A worker answered: ``result`` is the result as ``ToolResult.to_dict`` gave it there."""

    result: dict[str, Any]
    worker: str = ""
    deliveries: int = 1


@dataclass(frozen=True, slots=True)
class NoWorker:
    """No live worker serves the call's toolset version; the call was not sent.

    ``live_versions`` are the versions of the toolset that live workers do serve.
    """

    live_versions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueueFull:
    """The toolset's queue is over its limit; the call was not sent."""

    queued: int
    limit: int
    retry_after: float


@dataclass(frozen=True, slots=True)
class NoAnswer:
    """The deadline passed with no answer. ``sent`` says whether the call reached the queue
    (then a worker may still run it, and a retry of the same call gets its stored answer)."""

    sent: bool
    detail: str


@dataclass(frozen=True, slots=True)
class BadAnswer:
    """An answer that cannot be read (another wire version, a corrupted message)."""

    detail: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """The call's id is bound to another request (other arguments, or another tool): the call
    was not sent, and is never answered with that request's result."""


@dataclass(frozen=True, slots=True)
class Lost:
    """The queue lost its data (a server restarted empty, a failover) while the call was being
    sent: an earlier attempt may have run it. Said only of calls that must not run twice."""


Answer = Replied | NoWorker | QueueFull | NoAnswer | BadAnswer | Conflict | Lost


DETACHED: ContextVar[bool] = ContextVar("tooldesign_transport_detached", default=False)
"""Set (``True``) where a caller's cancellation must not cancel its calls on the workers: an
MCP task kept in Redis, whose call another server takes over when this one stops (it cancels
the call on the workers itself when the task is cancelled)."""

RESENT: ContextVar[bool] = ContextVar("tooldesign_transport_resent", default=False)
"""Set (``True``) where a call is sent again under its id by a server that took over the MCP
task of a server gone: it was sent before, so a queue that no longer holds its record (expired,
or lost with Redis's data) must not run it (``Lost``) unless its tool may run twice."""


class TransportError(UserError):
    """A transport that cannot work: an unsupported server, a bad address or setting."""


class Transport(ABC):
    """Carries calls to the workers of remote toolsets (see ``remote_registration``)."""

    @abstractmethod
    async def call(self, message: CallMessage, timeout: float) -> Answer:
        """Send ``message`` with a deadline ``timeout`` seconds from now and wait for its answer.

        Never raises for a lost connection or a silent worker: those are answers too
        (:class:`NoAnswer`).
        """

    @abstractmethod
    async def live_toolsets(self) -> dict[str, tuple[str, ...]]:
        """The toolsets (``service.toolset``) that have live workers, each with the catalog
        versions those workers serve."""

    @abstractmethod
    def last_seen_live(self, toolset: str, version: str) -> bool | None:
        """Whether a worker of ``version`` of ``toolset`` was live when the transport last
        looked (``None`` before its first look), without asking: for ``Runtime.toolsets()``."""

    async def close(self) -> None:
        """Release connections and background tasks."""

    async def cancel(self, message: CallMessage) -> None:
        """Tell the workers that the caller gave up ``message`` (its task was cancelled): the
        handler running it sees the cancellation. Best effort; nothing by default."""
