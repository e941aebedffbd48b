"""Distributed execution: toolsets served by worker processes, called from an agent's runtime.

The agent registers ``remote_registration(<toolset package>, transport=...)`` next to its local
toolsets; workers serve a runtime's toolsets with the same engine. The Redis Streams engine
(``RedisTransport``, ``RedisWorker``, ``serve``) needs ``tooldesign[redis]`` and is imported
only when used: importing this package does not import redis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tooldesign.runtime.transports.base import (
    Answer,
    BadAnswer,
    Conflict,
    Lost,
    NoAnswer,
    NoWorker,
    QueueFull,
    Replied,
    Transport,
    TransportError,
)
from tooldesign.runtime.transports.remote import RemoteToolset, remote_registration
from tooldesign.runtime.transports.serving import ServedToolset, served_toolsets
from tooldesign.runtime.transports.wire import WIRE_VERSION, CallMessage, ReplyMessage, WireError

if TYPE_CHECKING:
    from tooldesign.runtime.transports.redis import RedisTransport
    from tooldesign.runtime.transports.redis_results import RedisResultStore
    from tooldesign.runtime.transports.redis_worker import RedisWorker, WorkerFailed, serve

_REDIS = {
    "RedisResultStore": "tooldesign.runtime.transports.redis_results",
    "RedisTransport": "tooldesign.runtime.transports.redis",
    "RedisWorker": "tooldesign.runtime.transports.redis_worker",
    "WorkerFailed": "tooldesign.runtime.transports.redis_worker",
    "serve": "tooldesign.runtime.transports.redis_worker",
}


def __getattr__(name: str) -> Any:
    module = _REDIS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        imported = __import__(module, fromlist=[name])
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] == "redis":
            raise ImportError(
                f"{name} needs the redis extra: pip install 'tooldesign[redis]'"
            ) from None
        raise
    return getattr(imported, name)


__all__ = [
    "WIRE_VERSION",
    "Answer",
    "BadAnswer",
    "CallMessage",
    "Conflict",
    "Lost",
    "NoAnswer",
    "NoWorker",
    "QueueFull",
    "RedisResultStore",
    "RedisTransport",
    "RedisWorker",
    "RemoteToolset",
    "Replied",
    "ReplyMessage",
    "ServedToolset",
    "Transport",
    "TransportError",
    "WireError",
    "WorkerFailed",
    "remote_registration",
    "serve",
    "served_toolsets",
]
