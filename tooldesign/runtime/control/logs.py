"""Log messages from tools: ``meta.log("warning", "probe 3 of 5 lost")``.

A handler logs through its call's metadata; a bound method (which gets no metadata) calls
:func:`log_message` the same way. The levels are MCP's (RFC 5424's): ``debug``, ``info``,
``notice``, ``warning``, ``error``, ``critical``, ``alert``, ``emergency``; ``data`` is a
message or any JSON value.

Who hears a call's messages is set per call by whoever runs it, with :func:`logs_to` (also how
a test catches them): the MCP server forwards them to its client as ``notifications/message``
(at the level the client chose with ``logging/setLevel``, or, on 2026-07-28, asked for in the
request's ``_meta``), naming the tool as the logger unless the message names one. When nobody
listens, a message goes to Python's logging, under ``tooldesign.tools`` (and its ``logger``
below it), so nothing a tool logs is lost in process. Like progress, logging never raises into
the tool, and a sink may be called from any thread: it must be quick and hand the message over.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, get_args

log = logging.getLogger("tooldesign.runtime")

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""MCP's log levels, least severe first."""

LOG_LEVELS: tuple[LogLevel, ...] = get_args(LogLevel)

_PYTHON_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 5,
    "emergency": logging.CRITICAL + 10,
}

_MAX_TEXT = 4000


@dataclass(frozen=True, slots=True)
class ToolLog:
    """One message a tool logged: its ``level``, ``data`` (text or a JSON value), and the
    ``logger`` it names, if any."""

    level: LogLevel
    data: Any
    logger: str | None = None


LogSink = Callable[[ToolLog], None]
"""Where a call's log messages go: called with each, from whatever thread logs it."""

_sink: contextvars.ContextVar[LogSink | None] = contextvars.ContextVar(
    "tooldesign_log_sink", default=None
)


def log_message(level: LogLevel, data: Any, *, logger: str | None = None) -> None:
    """Log ``data`` (a message, or any JSON value) at ``level`` from the running call.

    ``logger`` names the part of the tool speaking (a listener may fill in the tool's name). A level that is
    not one of :data:`LOG_LEVELS` is read as ``info``; text longer than 4,000 characters is cut.
    """
    if level not in LOG_LEVELS:
        log.debug("log level %r is not an MCP level: read as info", level)
        level = "info"
    if isinstance(data, str) and len(data) > _MAX_TEXT:
        data = data[: _MAX_TEXT - 1] + "…"
    message = ToolLog(level, data, logger)
    sink = _sink.get()
    if sink is None:
        name = "tooldesign.tools" + (f".{message.logger}" if message.logger else "")
        logging.getLogger(name).log(_PYTHON_LEVELS[level], "%s", data)
        return
    try:
        sink(message)
    except Exception:  # an observer's failure never reaches the tool
        log.debug("a log sink failed", exc_info=True)


class _Gate:
    """A sink that closes for good when its call ends (see ``progress._Gate``: a thread that
    outlives its call logs into a closed gate, never to an observer after the call's end)."""

    __slots__ = ("_lock", "_open", "_sink")

    def __init__(self, sink: LogSink) -> None:
        self._sink = sink
        self._lock = threading.Lock()
        self._open = True

    def __call__(self, message: ToolLog) -> None:
        with self._lock:
            if self._open:
                self._sink(message)

    def close(self) -> None:
        with self._lock:
            self._open = False


@dataclass(frozen=True, slots=True)
class Attached:
    """What :func:`attach` returns, for :func:`detach`."""

    token: contextvars.Token[LogSink | None]
    gate: _Gate


def attach(sink: LogSink) -> Attached:
    """Send the messages logged in the running context (and by the threads it starts through
    the runtime) to ``sink`` as well as to whoever listened before, until :func:`detach`
    (after which ``sink`` hears nothing more, from any thread)."""
    gate = _Gate(sink)
    outer = _sink.get()
    if outer is None:
        return Attached(_sink.set(gate), gate)

    def chained(message: ToolLog) -> None:
        try:
            gate(message)
        finally:
            outer(message)

    return Attached(_sink.set(chained), gate)


def detach(attached: Attached) -> None:
    """Undo the :func:`attach` that returned ``attached``: its sink is closed for good."""
    attached.gate.close()
    _sink.reset(attached.token)


@contextmanager
def logs_to(sink: LogSink) -> Iterator[None]:
    """Send the messages logged inside the block (and by the threads it starts through the
    runtime) to ``sink`` as well as to whoever listened before; after the block, ``sink``
    hears nothing more, from any thread."""
    attached = attach(sink)
    try:
        yield
    finally:
        detach(attached)


def at_least(level: LogLevel, threshold: LogLevel) -> bool:
    """Whether ``level`` is as severe as ``threshold`` or more."""
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)


__all__ = [
    "LOG_LEVELS",
    "Attached",
    "LogLevel",
    "LogSink",
    "ToolLog",
    "at_least",
    "attach",
    "detach",
    "log_message",
    "logs_to",
]
